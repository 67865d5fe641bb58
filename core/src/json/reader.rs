//! A tolerant reader for fastjson input.
//!
//! fastjson (and so every Java broker and admin tool) writes integer map keys bare and accepts
//! single-quoted strings. [`normalize`] rewrites those into strict JSON in one pass; then
//! `serde_json` does the parsing. Everything else about the input must already be JSON.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::de::DeserializeOwned;

/// A body that is not JSON, even by fastjson's rules, or does not have the expected shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError(pub String);

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl core::error::Error for JsonError {}

/// Parses fastjson-style input into `T`.
///
/// # Errors
/// If the input is not JSON even after normalization, or does not match `T`.
pub fn from_fastjson<T: DeserializeOwned>(input: &[u8]) -> Result<T, JsonError> {
    // Strict JSON (what 5.x brokers and clients send) is left as it is by `normalize`, so
    // parse it directly and pay for the rewrite only when it is needed.
    if let Ok(value) = serde_json::from_slice(input) {
        return Ok(value);
    }
    let strict = normalize(input)?;
    serde_json::from_slice(&strict).map_err(|e| JsonError(e.to_string()))
}

#[derive(Clone, Copy)]
enum Container {
    Object { expect_key: bool },
    Array,
}

/// Rewrites bare object keys and single-quoted strings into strict JSON.
///
/// # Errors
/// On an unterminated string or unbalanced brackets.
pub fn normalize(input: &[u8]) -> Result<Vec<u8>, JsonError> {
    let mut out = Vec::with_capacity(input.len() + 16);
    let mut stack: Vec<Container> = Vec::new();
    let mut i = 0;
    while i < input.len() {
        let b = input[i];
        let in_key = matches!(stack.last(), Some(Container::Object { expect_key: true }));
        match b {
            b' ' | b'\t' | b'\r' | b'\n' => {
                out.push(b);
                i += 1;
            }
            b'{' => {
                stack.push(Container::Object { expect_key: true });
                out.push(b);
                i += 1;
            }
            b'[' => {
                stack.push(Container::Array);
                out.push(b);
                i += 1;
            }
            b'}' | b']' => {
                let expected = if b == b'}' { "object" } else { "array" };
                match (stack.pop(), b) {
                    (Some(Container::Object { .. }), b'}') | (Some(Container::Array), b']') => {}
                    _ => {
                        return Err(JsonError(alloc::format!(
                            "unbalanced `{}` at byte {i}: no open {expected}",
                            b as char
                        )));
                    }
                }
                out.push(b);
                i += 1;
            }
            b',' => {
                if let Some(Container::Object { expect_key }) = stack.last_mut() {
                    *expect_key = true;
                }
                out.push(b);
                i += 1;
            }
            b'"' => {
                let end = string_end(input, i, b'"')?;
                out.extend_from_slice(&input[i..=end]);
                i = end + 1;
                clear_key(&mut stack, in_key);
            }
            b'\'' => {
                let end = string_end(input, i, b'\'')?;
                requote(&input[i + 1..end], &mut out);
                i = end + 1;
                clear_key(&mut stack, in_key);
            }
            _ if in_key => {
                let start = i;
                while i < input.len() && !matches!(input[i], b':' | b' ' | b'\t' | b'\r' | b'\n' | b'}' | b',') {
                    i += 1;
                }
                requote(&input[start..i], &mut out);
                clear_key(&mut stack, true);
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    if stack.is_empty() { Ok(out) } else { Err(JsonError(String::from("unexpected end of JSON input"))) }
}

fn clear_key(stack: &mut [Container], was_key: bool) {
    if was_key {
        if let Some(Container::Object { expect_key }) = stack.last_mut() {
            *expect_key = false;
        }
    }
}

/// Index of the closing quote of the string opening at `start`.
fn string_end(input: &[u8], start: usize, quote: u8) -> Result<usize, JsonError> {
    let mut i = start + 1;
    while i < input.len() {
        match input[i] {
            b'\\' => i += 2,
            b if b == quote => return Ok(i),
            _ => i += 1,
        }
    }
    Err(JsonError(alloc::format!("unterminated string starting at byte {start}")))
}

/// Writes `content` (the inside of a single-quoted string or a bare key) double-quoted.
fn requote(content: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    let mut i = 0;
    while i < content.len() {
        match content[i] {
            b'\\' if content.get(i + 1) == Some(&b'\'') => {
                out.push(b'\'');
                i += 2;
            }
            b'\\' => {
                out.push(b'\\');
                if let Some(next) = content.get(i + 1) {
                    out.push(*next);
                }
                i += 2;
            }
            b'"' => {
                out.extend_from_slice(b"\\\"");
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::collections::BTreeMap;

    fn norm(s: &str) -> String {
        String::from_utf8(normalize(s.as_bytes()).unwrap()).unwrap()
    }

    #[test]
    fn bare_integer_keys_are_quoted() {
        assert_eq!(norm("{0:\"a\",1:\"b\"}"), "{\"0\":\"a\",\"1\":\"b\"}");
        assert_eq!(norm("{\"m\":{ -1 :2}}"), "{\"m\":{ \"-1\" :2}}");
        let parsed: BTreeMap<i64, String> = from_fastjson(b"{0:\"x\",10:\"y\"}").unwrap();
        assert_eq!(parsed[&10], "y");
    }

    #[test]
    fn strict_json_passes_through_unchanged() {
        let text = "{\"a\":[1,2,{\"b\":\"c,d:{e}\"}],\"f\":null, \"g\" : true}";
        assert_eq!(norm(text), text);
    }

    #[test]
    fn single_quotes_become_double_quotes() {
        assert_eq!(norm("{'k':'it\\'s \"x\"'}"), "{\"k\":\"it's \\\"x\\\"\"}");
    }

    #[test]
    fn values_inside_arrays_are_not_keys() {
        assert_eq!(norm("[1,true,{a:[2,3]}]"), "[1,true,{\"a\":[2,3]}]");
    }

    #[test]
    fn broken_input_is_an_error_not_a_panic() {
        for bad in ["{\"a\":\"b", "{", "[}", "}", "{'a", "\"\\"] {
            assert!(normalize(bad.as_bytes()).is_err(), "{bad}");
        }
        assert!(from_fastjson::<BTreeMap<String, String>>(b"{\"a\":1}").is_err());
    }
}
