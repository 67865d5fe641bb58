//! One measurement as `loadgen` prints it: a kind (`ROUTE`, `HOLD`, …) and ordered fields,
//! written either as a `KIND key=value …` line or as one JSON object, and read back from
//! either form by the report.

use std::fmt;

use serde_json::{Map, Value};

/// A kind and its fields, in the order they were printed.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// `ROUTE`, `PINGPONG`, `STORM`, `REGISTER_ONE`, `COLD`, `HOLD` or `STARTUP`.
    pub kind: String,
    /// `key`, `value` pairs; a value is text as printed (`nan` when there was none).
    pub fields: Vec<(String, String)>,
}

/// Why a line is not a measurement.
#[derive(Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The line is empty.
    Empty,
    /// A `key=value` word has no `=`.
    NotAPair(String),
    /// The JSON is malformed, not an object, or has no string `kind`.
    Json(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("an empty measurement"),
            Self::NotAPair(word) => write!(f, "`{word}` is not key=value"),
            Self::Json(why) => write!(f, "not a measurement object: {why}"),
        }
    }
}

impl std::error::Error for ParseError {}

impl Measurement {
    /// Reads `KIND key=value …` or a JSON object with a string `kind`.
    ///
    /// # Errors
    /// See [`ParseError`].
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let text = text.trim();
        if text.starts_with('{') {
            return Self::from_json(text);
        }
        let mut words = text.split_whitespace();
        let kind = words.next().ok_or(ParseError::Empty)?.to_owned();
        let fields = words
            .map(|word| {
                word.split_once('=')
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .ok_or_else(|| ParseError::NotAPair(word.to_owned()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { kind, fields })
    }

    fn from_json(text: &str) -> Result<Self, ParseError> {
        let object: Map<String, Value> = serde_json::from_str(text).map_err(|e| ParseError::Json(e.to_string()))?;
        let mut kind = None;
        let mut fields = Vec::new();
        for (key, value) in object {
            let text = match value {
                Value::String(s) => s,
                Value::Null => String::from("nan"),
                other => other.to_string(),
            };
            if key == "kind" {
                kind = Some(text);
            } else {
                fields.push((key, text));
            }
        }
        let kind = kind.ok_or_else(|| ParseError::Json(String::from("no `kind`")))?;
        Ok(Self { kind, fields })
    }

    /// The text of field `key`.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Field `key` as a finite number (`nan`, `-` and missing fields are `None`).
    #[must_use]
    pub fn number(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(|v| v.parse::<f64>().ok()).filter(|v| v.is_finite())
    }

    /// One JSON object: `kind` and each field as a number, a boolean, `null` (for
    /// `nan`) or a string.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut object = Map::new();
        object.insert(String::from("kind"), Value::String(self.kind.clone()));
        for (key, text) in &self.fields {
            object.insert(key.clone(), json_value(text));
        }
        Value::Object(object).to_string()
    }
}

fn json_value(text: &str) -> Value {
    if let Ok(n) = text.parse::<i64>() {
        return Value::from(n);
    }
    match text {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        "nan" => return Value::Null,
        _ => {}
    }
    // Only plain decimals: `29:100` or `-` stay text.
    let plain = text.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b'-');
    match text.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
        Some(n) if plain => Value::Number(n),
        _ => Value::String(text.to_owned()),
    }
}

impl fmt::Display for Measurement {
    /// `KIND key=value …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind)?;
        for (key, value) in &self.fields {
            write!(f, " {key}={value}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_read_back_alike() {
        let line = "STORM label=peer brokers=100 compressed=true wall_ms=33.686 bad_codes=29:100 first_ms=nan codes=-";
        let m = Measurement::parse(line).unwrap();
        assert_eq!(m.to_string(), line);
        let json = m.to_json();
        assert!(json.contains(r#""brokers":100"#) && json.contains(r#""bad_codes":"29:100""#), "{json}");
        assert!(json.contains(r#""first_ms":null"#) && json.contains(r#""compressed":true"#), "{json}");
        let back = Measurement::parse(&json).unwrap();
        assert_eq!(back.kind, "STORM");
        assert_eq!(back.number("wall_ms"), Some(33.686));
        assert_eq!(back.get("bad_codes"), Some("29:100"));
        assert_eq!(back.number("first_ms"), None);
        assert_eq!(Measurement::parse("ROUTE qps"), Err(ParseError::NotAPair("qps".into())));
        assert!(matches!(Measurement::parse(r#"{"qps":1}"#), Err(ParseError::Json(_))));
        assert!(matches!(Measurement::parse("{qps"), Err(ParseError::Json(_))));
        assert_eq!(Measurement::parse("  "), Err(ParseError::Empty));
    }
}
