//! Rust source text to tokens, with comments and literals taken out.
//!
//! Only what the path scanner needs: identifiers, punctuation (`::`, `->`
//! and `=>` as one token each) and the line each starts on. Comments (line,
//! doc, nested block), string literals (plain, byte, C, raw with any number
//! of `#`), char and byte literals and numbers never become identifiers, so
//! a path written in any of them is not an edge.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An identifier or keyword (`r#` taken off a raw identifier).
    Ident,
    /// Punctuation: one character, or `::`, `->`, `=>`.
    Punct,
    /// A string, char or number literal (its text is not kept).
    Literal,
    /// A lifetime or loop label (its text is not kept).
    Lifetime,
}

/// One token and the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    /// What it is.
    pub(crate) kind: Kind,
    /// The identifier or punctuation; empty for literals and lifetimes.
    pub(crate) text: String,
    /// 1-based line number.
    pub(crate) line: usize,
}

impl Token {
    /// True when this is the identifier `word`.
    pub(crate) fn is_ident(&self, word: &str) -> bool {
        self.kind == Kind::Ident && self.text == word
    }

    /// True when this is the punctuation `p`.
    pub(crate) fn is_punct(&self, p: &str) -> bool {
        self.kind == Kind::Punct && self.text == p
    }
}

/// Splits `src` into tokens.
pub(crate) fn tokens(src: &str) -> Vec<Token> {
    let mut lexer = Lexer {
        s: src.chars().collect(),
        i: 0,
        line: 1,
        out: Vec::new(),
    };
    lexer.run();
    lexer.out
}

struct Lexer {
    s: Vec<char>,
    i: usize,
    line: usize,
    out: Vec<Token>,
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

impl Lexer {
    fn at(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn push(&mut self, kind: Kind, text: String, line: usize) {
        self.out.push(Token { kind, text, line });
    }

    /// Moves past one character, counting lines.
    fn bump(&mut self) {
        if self.at(0) == Some('\n') {
            self.line += 1;
        }
        self.i += 1;
    }

    fn run(&mut self) {
        while let Some(c) = self.at(0) {
            let line = self.line;
            match c {
                _ if c.is_whitespace() => self.bump(),
                '/' if self.at(1) == Some('/') => {
                    while self.at(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '/' if self.at(1) == Some('*') => self.block_comment(),
                '"' => {
                    self.i += 1;
                    self.string();
                    self.push(Kind::Literal, String::new(), line);
                }
                '\'' => self.quote(line),
                _ if c.is_ascii_digit() => {
                    self.number();
                    self.push(Kind::Literal, String::new(), line);
                }
                _ if is_ident_start(c) => self.word(line),
                _ => self.punct(c, line),
            }
        }
    }

    /// `/* … */`, nested ones included.
    fn block_comment(&mut self) {
        self.i += 2;
        let mut depth = 1usize;
        while depth > 0 && self.at(0).is_some() {
            if self.at(0) == Some('/') && self.at(1) == Some('*') {
                depth += 1;
                self.i += 2;
            } else if self.at(0) == Some('*') && self.at(1) == Some('/') {
                depth -= 1;
                self.i += 2;
            } else {
                self.bump();
            }
        }
    }

    /// The rest of a `"…"` literal, the opening quote already passed.
    fn string(&mut self) {
        while let Some(c) = self.at(0) {
            match c {
                '\\' => {
                    self.i += 1;
                    self.bump();
                }
                '"' => {
                    self.i += 1;
                    return;
                }
                _ => self.bump(),
            }
        }
    }

    /// A raw string from its `r`: `r"…"`, `r#"…"#`, … .
    fn raw_string(&mut self) {
        self.i += 1;
        let mut hashes = 0;
        while self.at(0) == Some('#') {
            hashes += 1;
            self.i += 1;
        }
        // The opening quote.
        self.i += 1;
        while self.at(0).is_some() {
            if self.at(0) == Some('"') && (1..=hashes).all(|k| self.at(k) == Some('#')) {
                self.i += 1 + hashes;
                return;
            }
            self.bump();
        }
    }

    /// A char literal (`'x'`, `'\n'`, `'\u{1F600}'`, `'\''`) or a lifetime.
    fn quote(&mut self, line: usize) {
        if self.at(1) == Some('\\') {
            // The escaped character may itself be a quote: skip it first.
            self.i += 3;
            while self.at(0).is_some_and(|c| c != '\'') {
                self.bump();
            }
            self.i += 1;
            self.push(Kind::Literal, String::new(), line);
        } else if self.at(2) == Some('\'') {
            self.i += 3;
            self.push(Kind::Literal, String::new(), line);
        } else {
            self.i += 1;
            while self.at(0).is_some_and(is_ident_continue) {
                self.i += 1;
            }
            self.push(Kind::Lifetime, String::new(), line);
        }
    }

    fn number(&mut self) {
        while let Some(c) = self.at(0) {
            let fraction = c == '.' && self.at(1).is_some_and(|d| d.is_ascii_digit());
            if !(is_ident_continue(c) || fraction) {
                break;
            }
            self.i += 1;
        }
    }

    /// An identifier, or a literal that starts like one: `b'x'`, `b"…"`,
    /// `c"…"`, `r"…"`, `br#"…"#`, `cr"…"`; `r#name` is the identifier `name`.
    fn word(&mut self, line: usize) {
        let c = self.at(0);
        let prefixed = matches!(c, Some('b' | 'c'));
        let r_at = if prefixed && self.at(1) == Some('r') {
            Some(1)
        } else if c == Some('r') {
            Some(0)
        } else {
            None
        };
        if let Some(r) = r_at {
            let after = self.at(r + 1);
            let raw = after == Some('"')
                || (after == Some('#') && {
                    let mut k = r + 1;
                    while self.at(k) == Some('#') {
                        k += 1;
                    }
                    self.at(k) == Some('"')
                });
            if raw {
                self.i += r;
                self.raw_string();
                self.push(Kind::Literal, String::new(), line);
                return;
            }
        }
        if prefixed && self.at(1) == Some('"') {
            self.i += 2;
            self.string();
            self.push(Kind::Literal, String::new(), line);
            return;
        }
        if c == Some('b') && self.at(1) == Some('\'') {
            self.i += 1;
            self.quote(line);
            return;
        }
        if c == Some('r') && self.at(1) == Some('#') && self.at(2).is_some_and(is_ident_start) {
            self.i += 2;
        }
        let start = self.i;
        while self.at(0).is_some_and(is_ident_continue) {
            self.i += 1;
        }
        let text = self.s[start..self.i].iter().collect();
        self.push(Kind::Ident, text, line);
    }

    fn punct(&mut self, c: char, line: usize) {
        let pair = match (c, self.at(1)) {
            (':', Some(':')) => Some("::"),
            ('-', Some('>')) => Some("->"),
            ('=', Some('>')) => Some("=>"),
            _ => None,
        };
        match pair {
            Some(p) => {
                self.i += 2;
                self.push(Kind::Punct, p.to_owned(), line);
            }
            None => {
                self.i += 1;
                self.push(Kind::Punct, c.to_string(), line);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(src: &str) -> Vec<String> {
        tokens(src)
            .into_iter()
            .filter(|t| t.kind == Kind::Ident)
            .map(|t| t.text)
            .collect()
    }

    #[test]
    fn comments_are_not_code() {
        let src =
            "a // crate::x::Y\n/* b /* nested crate::z */ still */ c /// doc super::q\n//! d\nd";
        assert_eq!(idents(src), ["a", "c", "d"]);
    }

    #[test]
    fn literals_are_not_code() {
        let src = r####"a "crate::x \" y" b r#"crate::q " z"# c br##"x"##
            d b"crate" e c"f" g 'x' h '\'' i '\u{1F600}' j b'\\' k 'l: loop {} m"####;
        assert_eq!(
            idents(src),
            [
                "a", "b", "c", "d", "e", "g", "h", "i", "j", "k", "loop", "m"
            ]
        );
    }

    #[test]
    fn raw_identifiers_and_lines() {
        let toks = tokens("r#type\n\nx::y 1.5 t.0");
        let texts: Vec<_> = toks.iter().map(|t| (t.text.as_str(), t.line)).collect();
        assert_eq!(
            texts,
            [
                ("type", 1),
                ("x", 3),
                ("::", 3),
                ("y", 3),
                ("", 3),
                ("t", 3),
                (".", 3),
                ("", 3)
            ]
        );
    }

    #[test]
    fn lines_count_inside_literals_and_comments() {
        let toks = tokens("\"a\nb\" /* \n */ r#\"\n\"# x");
        assert_eq!(toks.last().map(|t| t.line), Some(4));
    }
}
