//! The Prometheus text exposition format (0.0.4), read into samples.
//!
//! Only what `hermit top` needs: each sample line becomes a [`Sample`];
//! `# HELP`, `# TYPE` and other comments, blank lines and lines that do not
//! parse are skipped (counted, never fatal), because the broker's set of
//! metrics grows and a scrape must not fail on a line it does not know.

/// One sample line: `name{label="value",…} value [timestamp]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The metric name (for a histogram, with its `_bucket`/`_sum`/`_count` suffix).
    pub name: String,
    /// Label pairs in the order written, values unescaped.
    pub labels: Vec<(String, String)>,
    /// The value (`NaN`, `+Inf`, `-Inf` included).
    pub value: f64,
}

impl Sample {
    /// The value of label `name`, if the sample has it.
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What [`parse`] found.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The sample lines, in order.
    pub samples: Vec<Sample>,
    /// Lines that were neither samples, comments nor blank.
    pub skipped: usize,
}

/// Parse a whole exposition. Never fails: see the module doc.
pub fn parse(text: &str) -> Parsed {
    let mut parsed = Parsed::default();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_line(line) {
            Some(sample) => parsed.samples.push(sample),
            None => parsed.skipped += 1,
        }
    }
    parsed
}

/// One sample line (already trimmed, not a comment), or `None` when it is
/// not well formed.
fn parse_line(line: &str) -> Option<Sample> {
    let name_end = line
        .char_indices()
        .find(|&(i, c)| !is_name_char(c, i == 0, true))
        .map_or(line.len(), |(i, _)| i);
    if name_end == 0 {
        return None;
    }
    let name = &line[..name_end];
    let mut rest = &line[name_end..];
    let mut labels = Vec::new();
    // Blanks may stand between the name and its labels.
    if let Some(after) = rest.trim_start().strip_prefix('{') {
        rest = parse_labels(after, &mut labels)?;
    }
    // The value must be separated from what precedes it.
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let mut fields = rest.split_ascii_whitespace();
    let value = parse_value(fields.next()?)?;
    if let Some(ts) = fields.next() {
        // A timestamp (milliseconds) is allowed and not needed: rates use
        // the time of the scrape.
        ts.parse::<i64>().ok()?;
    }
    if fields.next().is_some() {
        return None;
    }
    Some(Sample {
        name: name.to_owned(),
        labels,
        value,
    })
}

/// Labels after the `{`, up to and including the `}`; returns what follows.
fn parse_labels<'a>(mut s: &'a str, labels: &mut Vec<(String, String)>) -> Option<&'a str> {
    loop {
        s = s.trim_start();
        if let Some(after) = s.strip_prefix('}') {
            return Some(after);
        }
        let key_end = s
            .char_indices()
            .find(|&(i, c)| !is_name_char(c, i == 0, false))
            .map_or(s.len(), |(i, _)| i);
        if key_end == 0 {
            return None;
        }
        let key = &s[..key_end];
        s = s[key_end..].trim_start().strip_prefix('=')?;
        s = s.trim_start().strip_prefix('"')?;
        let mut value = String::new();
        let mut chars = s.char_indices();
        let end = loop {
            match chars.next()? {
                (i, '"') => break i,
                (_, '\\') => match chars.next()? {
                    (_, '\\') => value.push('\\'),
                    (_, '"') => value.push('"'),
                    (_, 'n') => value.push('\n'),
                    // Not one of the format's three escapes: kept as
                    // written, as Prometheus does.
                    (_, c) => {
                        value.push('\\');
                        value.push(c);
                    }
                },
                (_, c) => value.push(c),
            }
        };
        labels.push((key.to_owned(), value));
        s = s[end + 1..].trim_start();
        if let Some(after) = s.strip_prefix(',') {
            s = after;
        } else if !s.starts_with('}') {
            return None;
        }
    }
}

/// Go's `ParseFloat` spellings as the format uses them: decimals,
/// exponents, `NaN`, `+Inf`, `-Inf` (and `Inf`).
fn parse_value(s: &str) -> Option<f64> {
    match s {
        "+Inf" | "Inf" => Some(f64::INFINITY),
        "-Inf" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        // Rust would also take "inf", "infinity" and "nan" in any case;
        // the format does not write them, so a word is garbage.
        s if s
            .bytes()
            .any(|b| b.is_ascii_alphabetic() && b != b'e' && b != b'E') =>
        {
            None
        }
        s => s.parse().ok(),
    }
}

/// `[a-zA-Z_:][a-zA-Z0-9_:]*` for metric names; label names take no `:`.
fn is_name_char(c: char, first: bool, colon: bool) -> bool {
    c.is_ascii_alphabetic() || c == '_' || (colon && c == ':') || (!first && c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Sample {
        let p = parse(line);
        assert_eq!(p.skipped, 0, "{line}");
        assert_eq!(p.samples.len(), 1, "{line}");
        p.samples.into_iter().next().expect("one sample")
    }

    #[test]
    fn samples_with_and_without_labels() {
        let s = one("hermit_topics 12");
        assert_eq!((s.name.as_str(), s.value), ("hermit_topics", 12.0));
        assert!(s.labels.is_empty());

        let s = one(r#"hermit_partition_bytes_in_total{topic="chat",partition="0"} 123456"#);
        assert_eq!(s.label("topic"), Some("chat"));
        assert_eq!(s.label("partition"), Some("0"));
        assert_eq!(s.label("group"), None);
        assert_eq!(s.value, 123456.0);

        // Spaces around the parts, a trailing comma, an empty label set,
        // exponents, a colon in a recording rule's name.
        let s = one(r#"a_b { x = "1" , y="2", } 1.5e3"#);
        assert_eq!(s.labels.len(), 2);
        assert_eq!(s.value, 1500.0);
        assert_eq!(one("m{} -2").value, -2.0);
        assert_eq!(one("job:rate5m 0.25").name, "job:rate5m");
    }

    #[test]
    fn label_values_are_unescaped() {
        let s = one(r#"m{a="back\\slash",b="a \"quote\"",c="line\nbreak",d="} { , =",e="\x"} 1"#);
        assert_eq!(s.label("a"), Some(r"back\slash"));
        assert_eq!(s.label("b"), Some(r#"a "quote""#));
        assert_eq!(s.label("c"), Some("line\nbreak"));
        assert_eq!(s.label("d"), Some("} { , ="));
        assert_eq!(s.label("e"), Some(r"\x"));
        assert_eq!(one("m{a=\"grüße\"} 1").label("a"), Some("grüße"));
    }

    #[test]
    fn special_values_and_timestamps() {
        assert_eq!(one(r#"h_bucket{le="+Inf"} 61"#).label("le"), Some("+Inf"));
        assert_eq!(one("m +Inf").value, f64::INFINITY);
        assert_eq!(one("m -Inf").value, f64::NEG_INFINITY);
        assert!(one("m NaN").value.is_nan());
        let s = one("m 7 1700000000000");
        assert_eq!(s.value, 7.0);
        assert_eq!(one("m{a=\"b\"} 8 -5").value, 8.0);
    }

    #[test]
    fn comments_and_blank_lines_are_ignored() {
        let text = "# HELP hermit_topics Topics.\n# TYPE hermit_topics gauge\n\n   \n\
                    hermit_topics 3\r\n#another comment\n  # indented comment\n";
        let p = parse(text);
        assert_eq!(p.skipped, 0);
        assert_eq!(p.samples.len(), 1);
        assert_eq!(p.samples[0].value, 3.0);
    }

    #[test]
    fn garbage_lines_are_skipped_not_fatal() {
        let text = "good 1\n\
                    no_value\n\
                    m{unterminated=\"x} 1\n\
                    m{a=\"1\"\n\
                    m{a=1} 1\n\
                    m{=\"1\"} 1\n\
                    m{a=\"1\"b=\"2\"} 1\n\
                    m{a=\"1\"}2\n\
                    m one\n\
                    m inf\n\
                    m 1 2 3\n\
                    m 1 1.5\n\
                    9starts_with_digit 1\n\
                    {a=\"1\"} 1\n\
                    \u{1b}[2J 1\n\
                    also_good{x=\"y\"} 2\n";
        let p = parse(text);
        assert_eq!(p.skipped, 14);
        let names: Vec<_> = p.samples.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["good", "also_good"]);
    }
}
