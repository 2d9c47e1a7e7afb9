//! One file's tokens to what the graph needs: its `mod` declarations, its
//! inline modules, the leaves of its `use` trees and every other path of
//! two or more segments — each with the inline module it sits in.
//!
//! Test code is dropped here: an item (or field, arm, statement) under
//! `#[test]` or a `#[cfg(…)]` that implies `test`, and the rest of a module
//! or file after `#![cfg(test)]`.

use crate::lex::{self, Kind, Token};

/// `mod name;`: a module in its own file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModDecl {
    /// The inline modules the declaration sits in, outermost first.
    pub(crate) scope: Vec<String>,
    /// The module's name.
    pub(crate) name: String,
}

/// One leaf of a `use` tree: `use a::{b, c::D as E}` has two.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UseLeaf {
    /// The inline modules the `use` sits in, outermost first.
    pub(crate) scope: Vec<String>,
    /// The full path (`{self}` folded into its module, a glob ends in `*`).
    pub(crate) path: Vec<String>,
    /// The name it brings into scope (none for a glob or `as _`).
    pub(crate) binding: Option<String>,
    /// Where the leaf is written.
    pub(crate) line: usize,
}

/// A path outside `use`, such as `crate::net::Origins::check_entry`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathRef {
    /// The inline modules it sits in, outermost first.
    pub(crate) scope: Vec<String>,
    /// Its identifier segments, up to a turbofish.
    pub(crate) segments: Vec<String>,
    /// Where it starts.
    pub(crate) line: usize,
}

/// Everything one file declares and names, test code left out.
#[derive(Debug, Default)]
pub(crate) struct FileScan {
    /// `mod x;` declarations.
    pub(crate) mods: Vec<ModDecl>,
    /// Inline modules (`mod x { … }`), each as its full scope.
    pub(crate) inline: Vec<Vec<String>>,
    /// `use` leaves.
    pub(crate) uses: Vec<UseLeaf>,
    /// Other paths.
    pub(crate) paths: Vec<PathRef>,
    /// The whole file is test code (`#![cfg(test)]` at its top level).
    pub(crate) test_only: bool,
}

/// Scans one file's source.
pub(crate) fn scan(src: &str) -> FileScan {
    let mut scanner = Scanner {
        toks: lex::tokens(src),
        pos: 0,
        depth: 0,
        stack: Vec::new(),
        out: FileScan::default(),
    };
    scanner.run();
    scanner.out
}

/// Keywords that start an item: after one, a `,` does not end what a test
/// attribute covers (a field or an arm would end there).
const ITEM_KEYWORDS: &[&str] = &[
    "fn",
    "mod",
    "impl",
    "struct",
    "enum",
    "union",
    "trait",
    "type",
    "const",
    "static",
    "use",
    "macro_rules",
    "extern",
    "async",
    "unsafe",
    "default",
    "let",
];

struct Scanner {
    toks: Vec<Token>,
    pos: usize,
    /// Braces open at `pos`.
    depth: usize,
    /// Inline modules open at `pos`, with the brace depth inside each.
    stack: Vec<(String, usize)>,
    out: FileScan,
}

impl Scanner {
    fn tok(&self, k: usize) -> Option<&Token> {
        self.toks.get(k)
    }

    fn is_punct(&self, k: usize, p: &str) -> bool {
        self.tok(k).is_some_and(|t| t.is_punct(p))
    }

    fn is_ident(&self, k: usize) -> bool {
        self.tok(k).is_some_and(|t| t.kind == Kind::Ident)
    }

    fn text(&self, k: usize) -> String {
        self.tok(k).map(|t| t.text.clone()).unwrap_or_default()
    }

    fn line(&self, k: usize) -> usize {
        self.tok(k).map_or(0, |t| t.line)
    }

    fn scope(&self) -> Vec<String> {
        self.stack.iter().map(|(name, _)| name.clone()).collect()
    }

    fn run(&mut self) {
        while let Some(t) = self.tok(self.pos) {
            match (t.kind, t.text.as_str()) {
                (Kind::Punct, "#") => self.attribute(),
                (Kind::Punct, "{") => {
                    self.depth += 1;
                    self.pos += 1;
                }
                (Kind::Punct, "}") => {
                    if self.stack.last().is_some_and(|(_, d)| *d == self.depth) {
                        self.stack.pop();
                    }
                    self.depth = self.depth.saturating_sub(1);
                    self.pos += 1;
                }
                (Kind::Ident, _) => self.ident(),
                _ => self.pos += 1,
            }
        }
    }

    /// The index of the bracket closing the one at `open` (or the end).
    fn matching(&self, open: usize) -> usize {
        let mut depth = 0usize;
        for k in open..self.toks.len() {
            let t = &self.toks[k];
            if t.kind != Kind::Punct {
                continue;
            }
            match t.text.as_str() {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth -= 1;
                    if depth == 0 {
                        return k;
                    }
                }
                _ => {}
            }
        }
        self.toks.len()
    }

    /// At `#`: drops what a test attribute covers; any other attribute is
    /// scanned like code.
    fn attribute(&mut self) {
        let mut open = self.pos + 1;
        let inner = self.is_punct(open, "!");
        if inner {
            open += 1;
        }
        if !self.is_punct(open, "[") {
            self.pos += 1;
            return;
        }
        let close = self.matching(open);
        let body = &self.toks[open + 1..close.min(self.toks.len())];
        if !is_test_attribute(body) {
            self.pos += 1;
            return;
        }
        if !inner {
            self.pos = self.item_end(close + 1);
        } else if self.stack.is_empty() && self.depth == 0 {
            self.out.test_only = true;
            self.pos = self.toks.len();
        } else {
            self.pos = self.block_end(close + 1);
        }
    }

    /// The `}` that closes the block open at `from`.
    fn block_end(&self, from: usize) -> usize {
        let mut depth = 0usize;
        for k in from..self.toks.len() {
            if self.is_punct(k, "{") {
                depth += 1;
            } else if self.is_punct(k, "}") {
                if depth == 0 {
                    return k;
                }
                depth -= 1;
            }
        }
        self.toks.len()
    }

    /// Just past the item (or field, arm, statement) starting at `from`,
    /// after any further attributes.
    fn item_end(&self, from: usize) -> usize {
        let mut k = from;
        while self.is_punct(k, "#") && self.is_punct(k + 1, "[") {
            k = self.matching(k + 1) + 1;
        }
        let mut head = k;
        if self.tok(head).is_some_and(|t| t.is_ident("pub")) {
            head += 1;
            if self.is_punct(head, "(") {
                head = self.matching(head) + 1;
            }
        }
        let keyword = self.text(head);
        let item = ITEM_KEYWORDS.contains(&keyword.as_str());
        let statement = keyword == "let";
        let (mut parens, mut angles) = (0usize, 0usize);
        // A match arm's block ends the arm, with or without a comma.
        let mut arm = false;
        while let Some(t) = self.tok(k) {
            if t.kind == Kind::Punct {
                match t.text.as_str() {
                    "(" | "[" => parens += 1,
                    ")" | "]" if parens == 0 => return k,
                    ")" | "]" => parens -= 1,
                    "=>" if parens == 0 => arm = !item,
                    "{" => {
                        let opens_arm = arm && self.is_punct(k - 1, "=>");
                        k = self.matching(k);
                        if parens == 0 && ((item && !statement) || opens_arm) {
                            return k + 1;
                        }
                    }
                    "}" => return k,
                    ";" if parens == 0 => return k + 1,
                    "," if parens == 0 && angles == 0 && !item => return k + 1,
                    "<" if !item => angles += 1,
                    ">" if !item => angles = angles.saturating_sub(1),
                    _ => {}
                }
            }
            k += 1;
        }
        k
    }

    /// At an identifier: a `mod`, a `use`, the start of a path, or nothing.
    fn ident(&mut self) {
        let here = self.pos;
        let word = self.text(here);
        if word == "mod" && self.is_ident(here + 1) {
            let name = self.text(here + 1);
            if self.is_punct(here + 2, ";") {
                let scope = self.scope();
                self.out.mods.push(ModDecl { scope, name });
                self.pos = here + 3;
                return;
            }
            if self.is_punct(here + 2, "{") {
                let mut scope = self.scope();
                scope.push(name.clone());
                self.out.inline.push(scope);
                self.depth += 1;
                self.stack.push((name, self.depth));
                self.pos = here + 3;
                return;
            }
        }
        // `pub(in crate::net)` restricts visibility; it names no item.
        if word == "pub"
            && self.is_punct(here + 1, "(")
            && self.tok(here + 2).is_some_and(|t| t.is_ident("in"))
        {
            self.pos = self.matching(here + 1) + 1;
            return;
        }
        let after = self.tok(here + 1);
        let starts_tree = after.is_some_and(|t| {
            t.kind == Kind::Ident || t.is_punct("::") || t.is_punct("{") || t.is_punct("*")
        });
        if word == "use" && starts_tree {
            self.use_item();
            return;
        }
        // A segment after `::` or a field or method after `.` never starts a path.
        let continues = here > 0 && (self.is_punct(here - 1, "::") || self.is_punct(here - 1, "."));
        if !continues && self.is_punct(here + 1, "::") && self.is_ident(here + 2) {
            let line = self.line(here);
            let mut segments = vec![word];
            let mut k = here + 1;
            while self.is_punct(k, "::") && self.is_ident(k + 1) {
                segments.push(self.text(k + 1));
                k += 2;
            }
            let scope = self.scope();
            self.out.paths.push(PathRef {
                scope,
                segments,
                line,
            });
            self.pos = k;
            return;
        }
        self.pos = here + 1;
    }

    /// At `use`: records the tree's leaves, moves past its `;`.
    fn use_item(&mut self) {
        self.pos += 1;
        // `use ::name::…` names another crate.
        if !self.is_punct(self.pos, "::") {
            self.use_tree(Vec::new());
        }
        while self.tok(self.pos).is_some_and(|t| !t.is_punct(";")) {
            self.pos += 1;
        }
        self.pos += 1;
    }

    fn use_tree(&mut self, mut path: Vec<String>) {
        while let Some(t) = self.tok(self.pos) {
            if t.kind == Kind::Ident {
                path.push(t.text.clone());
                self.pos += 1;
                if self.is_punct(self.pos, "::") {
                    self.pos += 1;
                    continue;
                }
                let line = self.line(self.pos - 1);
                let binding = if self.tok(self.pos).is_some_and(|t| t.is_ident("as")) {
                    self.pos += 2;
                    Some(self.text(self.pos - 1))
                } else {
                    None
                };
                self.use_leaf(path, binding, line);
            } else if t.is_punct("{") {
                self.pos += 1;
                while self.tok(self.pos).is_some_and(|t| !t.is_punct("}")) {
                    let before = self.pos;
                    self.use_tree(path.clone());
                    if self.is_punct(self.pos, ",") || self.pos == before {
                        self.pos += 1;
                    }
                }
                self.pos += 1;
            } else if t.is_punct("*") {
                let line = t.line;
                path.push("*".to_owned());
                self.pos += 1;
                self.use_leaf(path, Some("_".to_owned()), line);
            }
            return;
        }
    }

    /// Records a leaf; `binding` is its `as` name, if any.
    fn use_leaf(&mut self, mut path: Vec<String>, binding: Option<String>, line: usize) {
        if path.len() > 1 && path.last().is_some_and(|s| s == "self") {
            path.pop();
        }
        let binding = binding.or_else(|| path.last().cloned());
        let binding = binding.filter(|b| b != "_");
        let scope = self.scope();
        self.out.uses.push(UseLeaf {
            scope,
            path,
            binding,
            line,
        });
    }
}

/// `#[test]` (or `#[tokio::test(…)]`, any path ending in `test`), or
/// `#[cfg(p)]` where `p` cannot hold without `test`.
fn is_test_attribute(body: &[Token]) -> bool {
    let mut end = 1;
    while end + 1 < body.len() && body[end].is_punct("::") && body[end + 1].kind == Kind::Ident {
        end += 2;
    }
    let whole = end == body.len() || body[end].is_punct("(");
    if whole && body[end - 1].is_ident("test") {
        return true;
    }
    if body.len() > 2 && body[0].is_ident("cfg") && body[1].is_punct("(") {
        let mut i = 2;
        return implies_test(body, &mut i);
    }
    false
}

/// Reads one cfg predicate at `i`: does it hold only in test builds?
fn implies_test(toks: &[Token], i: &mut usize) -> bool {
    let Some(t) = toks.get(*i) else {
        return false;
    };
    let name = t.text.clone();
    *i += 1;
    let group = matches!(name.as_str(), "all" | "any" | "not");
    if group && toks.get(*i).is_some_and(|t| t.is_punct("(")) {
        *i += 1;
        let mut parts = Vec::new();
        while toks.get(*i).is_some_and(|t| !t.is_punct(")")) {
            parts.push(implies_test(toks, i));
            if toks.get(*i).is_some_and(|t| t.is_punct(",")) {
                *i += 1;
            }
        }
        *i += 1;
        return match name.as_str() {
            "all" => parts.iter().any(|p| *p),
            "any" => !parts.is_empty() && parts.iter().all(|p| *p),
            _ => false,
        };
    }
    if toks.get(*i).is_some_and(|t| t.is_punct("=")) {
        *i += 2;
        return false;
    }
    name == "test"
}

#[cfg(test)]
mod tests;
