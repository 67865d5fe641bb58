//! Java `.properties` text: the format of `namesrv.properties`, of the UPDATE_NAMESRV_CONFIG
//! body and of the GET_NAMESRV_CONFIG reply.

use alloc::collections::BTreeMap;
use alloc::string::String;
use core::fmt;

/// A `\uXXXX` escape that is not four hex digits (Java: "Malformed \uxxxx encoding.").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertiesError {
    /// 1-based line of the bad escape.
    pub line: usize,
}

impl fmt::Display for PropertiesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Malformed \\uxxxx encoding on line {}", self.line)
    }
}

impl core::error::Error for PropertiesError {}

/// Parses properties text with `java.util.Properties.load` rules: `#`/`!` comments, `=`, `:` or
/// whitespace separators, backslash continuations and escapes. Later keys win.
///
/// # Errors
/// A malformed `\uXXXX` escape.
pub fn parse(text: &str) -> Result<BTreeMap<String, String>, PropertiesError> {
    const BLANK: [char; 3] = [' ', '\t', '\u{c}'];
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = BTreeMap::new();
    let mut logical = String::new();
    let mut first_line = 0;
    let mut continuing = false;
    for (index, line) in normalized.split('\n').enumerate() {
        let line = line.trim_start_matches(BLANK);
        if !continuing {
            if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
                continue;
            }
            logical.clear();
            first_line = index + 1;
        }
        logical.push_str(line);
        let trailing = logical.chars().rev().take_while(|c| *c == '\\').count();
        continuing = trailing % 2 == 1;
        if continuing {
            logical.pop();
            continue;
        }
        let (key, value) = split_entry(&logical, first_line)?;
        out.insert(key, value);
    }
    if continuing {
        let (key, value) = split_entry(&logical, first_line)?;
        out.insert(key, value);
    }
    Ok(out)
}

fn split_entry(logical: &str, line: usize) -> Result<(String, String), PropertiesError> {
    let bytes = logical.as_bytes();
    let mut i = 0;
    let mut key_end = logical.len();
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'=' | b':' | b' ' | b'\t' | 0x0C => {
                key_end = i;
                break;
            }
            _ => i += 1,
        }
    }
    let key_end = key_end.min(logical.len());
    let mut rest = logical[key_end..].trim_start_matches([' ', '\t', '\u{c}']);
    if let Some(r) = rest.strip_prefix(['=', ':']) {
        rest = r.trim_start_matches([' ', '\t', '\u{c}']);
    }
    Ok((unescape(&logical[..key_end], line)?, unescape(rest, line)?))
}

fn unescape(s: &str, line: usize) -> Result<String, PropertiesError> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let mut unit = 0u32;
                for _ in 0..4 {
                    let digit = chars.next().and_then(|d| d.to_digit(16)).ok_or(PropertiesError { line })?;
                    unit = unit * 16 + digit;
                }
                out.push(char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    Ok(out)
}

/// Writes `key=value` lines, sorted by key, with no escaping: the GET_NAMESRV_CONFIG format.
#[must_use]
pub fn to_plain_text(entries: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    for (k, v) in entries {
        out.push_str(k);
        out.push('=');
        out.push_str(v);
        out.push('\n');
    }
    out
}

/// Writes `key=value` lines escaped so that [`parse`] reads back exactly `entries`.
#[must_use]
pub fn to_escaped_text(entries: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    for (k, v) in entries {
        escape_into(&mut out, k, true);
        out.push('=');
        escape_into(&mut out, v, false);
        out.push('\n');
    }
    out
}

fn escape_into(out: &mut String, s: &str, is_key: bool) {
    for (i, c) in s.chars().enumerate() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{c}' => out.push_str("\\f"),
            ' ' if is_key || i == 0 => out.push_str("\\ "),
            '=' | ':' if is_key => {
                out.push('\\');
                out.push(c);
            }
            '#' | '!' if is_key && i == 0 => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> (String, String) {
        parse(text).unwrap().into_iter().next().unwrap()
    }

    #[test]
    fn java_load_rules() {
        let parsed =
            parse("# comment\n! also\n  listenPort = 9877\nkey:value\nbare value with spaces\nempty\n").unwrap();
        assert_eq!(parsed["listenPort"], "9877");
        assert_eq!(parsed["key"], "value");
        assert_eq!(parsed["bare"], "value with spaces");
        assert_eq!(parsed["empty"], "");
        assert_eq!(one("a=b\\\n   c"), ("a".into(), "bc".into()));
        assert_eq!(one("k\\=x=\\u0041\\n\\t"), ("k=x".into(), "A\n\t".into()));
        assert_eq!(one("a=b\\\\"), ("a".into(), "b\\".into()));
        assert_eq!(one("a=1\r\n"), ("a".into(), "1".into()));
        assert_eq!(parse("a=1\rb=2").unwrap().len(), 2);
        assert!(parse("a=\\u12").is_err());
    }

    #[test]
    fn escaped_text_reads_back_exactly() {
        let mut m = BTreeMap::new();
        m.insert(String::from("we ird=key:"), String::from(" lead\\ing\nline\u{e9}"));
        m.insert(String::from("#k"), String::from("v"));
        assert_eq!(parse(&to_escaped_text(&m)).unwrap(), m);
    }

    #[test]
    fn plain_text_is_sorted_and_unescaped() {
        let mut m = BTreeMap::new();
        m.insert(String::from("b"), String::from("x\\y"));
        m.insert(String::from("a"), String::from("1"));
        assert_eq!(to_plain_text(&m), "a=1\nb=x\\y\n");
    }
}
