//! A writer that produces fastjson 1.2.x output byte for byte.
//!
//! Callers write object properties in alphabetical order and skip `None`s, as fastjson's
//! `SortField` does; the writer takes care of separators, key quoting and string escaping.

use alloc::vec::Vec;

/// Which of fastjson's two outputs to produce (PROTOCOL.md §8.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum JsonStyle {
    /// fastjson defaults: integer map keys bare (`{0:"a"}`), UTF-8 and `/` written raw except
    /// U+007F–U+009F and U+2028/U+2029, which are `\\uXXXX` as in every fastjson output.
    Plain,
    /// `BrowserCompatible` + `MapSortField`: keys quoted, `/` as `\/`, every char from
    /// 0x7F up as `\uXXXX` (uppercase), longs beyond ±(2^53−1) quoted.
    Standard,
}

/// Something that can write itself as fastjson output.
pub trait WriteJson {
    /// Writes `self` as one JSON value.
    fn write_json(&self, w: &mut JsonWriter<'_>);

    /// `self` as a complete JSON text in the given style.
    fn to_json(&self, style: JsonStyle) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_json(&mut JsonWriter::new(&mut out, style));
        out
    }
}

/// Appends JSON values to a byte buffer.
#[derive(Debug)]
pub struct JsonWriter<'a> {
    out: &'a mut Vec<u8>,
    style: JsonStyle,
}

/// Writes the members of one object; created by [`JsonWriter::object`].
#[derive(Debug)]
pub struct ObjectWriter<'w, 'a> {
    writer: &'w mut JsonWriter<'a>,
    first: bool,
}

/// Writes the items of one array; created by [`JsonWriter::array`].
#[derive(Debug)]
pub struct ArrayWriter<'w, 'a> {
    writer: &'w mut JsonWriter<'a>,
    first: bool,
}

const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

impl<'a> JsonWriter<'a> {
    /// A writer appending to `out`.
    pub fn new(out: &'a mut Vec<u8>, style: JsonStyle) -> Self {
        Self { out, style }
    }

    /// The style being written.
    #[must_use]
    pub fn style(&self) -> JsonStyle {
        self.style
    }

    /// Writes an object whose members `f` adds.
    pub fn object(&mut self, f: impl FnOnce(&mut ObjectWriter<'_, 'a>)) {
        self.out.push(b'{');
        let mut members = ObjectWriter { writer: self, first: true };
        f(&mut members);
        self.out.push(b'}');
    }

    /// Writes an array whose items `f` adds.
    pub fn array(&mut self, f: impl FnOnce(&mut ArrayWriter<'_, 'a>)) {
        self.out.push(b'[');
        let mut items = ArrayWriter { writer: self, first: true };
        f(&mut items);
        self.out.push(b']');
    }

    /// Writes an array of strings.
    pub fn string_array<S: AsRef<str>>(&mut self, items: impl IntoIterator<Item = S>) {
        self.array(|a| {
            for item in items {
                a.item().string(item.as_ref());
            }
        });
    }

    /// Writes a string value.
    pub fn string(&mut self, s: &str) {
        write_string(self.out, s, self.style);
    }

    /// Writes an integer (quoted in the standard style when JavaScript could not hold it).
    pub fn int(&mut self, n: i64) {
        let quoted = self.style == JsonStyle::Standard && !(-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&n);
        if quoted {
            self.out.push(b'"');
        }
        push_display(self.out, n);
        if quoted {
            self.out.push(b'"');
        }
    }

    /// Writes `true` or `false`.
    pub fn bool(&mut self, b: bool) {
        self.out.extend_from_slice(if b { b"true" } else { b"false" });
    }

    /// Writes a value that is already JSON text.
    pub fn raw(&mut self, json: &[u8]) {
        self.out.extend_from_slice(json);
    }

    /// Writes any [`WriteJson`] value.
    pub fn value(&mut self, v: &impl WriteJson) {
        v.write_json(self);
    }
}

impl<'a> ObjectWriter<'_, 'a> {
    /// Starts a member with a string key; write its value on the returned writer.
    pub fn key(&mut self, key: &str) -> &mut JsonWriter<'a> {
        self.separator();
        write_string(self.writer.out, key, self.writer.style);
        self.writer.out.push(b':');
        self.writer
    }

    /// Starts a member of a map with integer keys: bare in the plain style, quoted otherwise.
    pub fn int_key(&mut self, key: i64) -> &mut JsonWriter<'a> {
        self.separator();
        let quoted = self.writer.style == JsonStyle::Standard;
        if quoted {
            self.writer.out.push(b'"');
        }
        push_display(self.writer.out, key);
        if quoted {
            self.writer.out.push(b'"');
        }
        self.writer.out.push(b':');
        self.writer
    }

    /// Writes `key: "value"`, skipping the member when `value` is `None` (fastjson omits nulls).
    pub fn opt_str(&mut self, key: &str, value: Option<&str>) {
        if let Some(v) = value {
            self.key(key).string(v);
        }
    }

    fn separator(&mut self) {
        if !self.first {
            self.writer.out.push(b',');
        }
        self.first = false;
    }
}

impl<'a> ArrayWriter<'_, 'a> {
    /// Starts the next item; write it on the returned writer.
    pub fn item(&mut self) -> &mut JsonWriter<'a> {
        if !self.first {
            self.writer.out.push(b',');
        }
        self.first = false;
        self.writer
    }
}

/// Appends `n` in decimal (without `core::fmt`, which is slow on this hot path).
fn push_display(out: &mut Vec<u8>, n: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Writes `s` as a quoted JSON string as fastjson2 (RocketMQ 5.5.0) does in both styles:
/// `"` and `\\` escaped, control characters below 0x20 as `\b \f \n \r \t` or `\u00xx` with
/// lowercase hex, everything else raw UTF-8 (`/`, DEL, the C1 controls, U+2028/U+2029 included;
/// fastjson 1.x, in 5.3.3 and 4.9.7, escaped those: PROTOCOL.md §8.1). `style` only matters for
/// map keys and big numbers.
pub fn write_string(out: &mut Vec<u8>, s: &str, _style: JsonStyle) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let Some((escape, len)) = escape(b) else { continue };
        out.extend_from_slice(&bytes[start..i]);
        out.extend_from_slice(&escape[..len]);
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// How many bytes [`write_string`] writes for `s` between the quotes: what a string costs in
/// a file of ours (the KV budget counts this, PROTOCOL.md §11).
#[must_use]
pub fn escaped_len(s: &str) -> usize {
    s.bytes().map(|b| escape(b).map_or(1, |(_, len)| len)).sum()
}

/// The escape [`write_string`] writes for `b` and its length, or `None` if `b` goes raw.
#[inline]
fn escape(b: u8) -> Option<([u8; 6], usize)> {
    // Names and addresses are plain ASCII: one comparison per byte is the common path.
    if b >= 0x20 && b != b'"' && b != b'\\' {
        return None;
    }
    let short = |c: u8| Some(([b'\\', c, 0, 0, 0, 0], 2));
    match b {
        b'"' => short(b'"'),
        b'\\' => short(b'\\'),
        8 => short(b'b'),
        12 => short(b'f'),
        b'\n' => short(b'n'),
        b'\r' => short(b'r'),
        b'\t' => short(b't'),
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            Some(([b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xF)]], 6))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;

    fn render(style: JsonStyle, f: impl FnOnce(&mut JsonWriter<'_>)) -> String {
        let mut out = Vec::new();
        f(&mut JsonWriter::new(&mut out, style));
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escaping_matches_fastjson2_in_both_styles() {
        // The bytes Java 5.5.0 (fastjson2 2.0.59) answered in the Java oracle (KV values in
        // GET_KVLIST_BY_NAMESPACE, broker names in plain and standard routes).
        for style in [JsonStyle::Plain, JsonStyle::Standard] {
            assert_eq!(render(style, |w| w.string("a/bé中")), "\"a/bé中\"");
            assert_eq!(
                render(style, |w| w.string("q\"\\\n\t\u{1}\u{8}\u{c}\r")),
                "\"q\\\"\\\\\\n\\t\\u0001\\b\\f\\r\""
            );
            assert_eq!(render(style, |w| w.string("x\u{1f}y")), "\"x\\u001fy\"");
            assert_eq!(render(style, |w| w.string("😀\u{feff}\u{ffff}")), "\"😀\u{feff}\u{ffff}\"");
            assert_eq!(
                render(style, |w| w.string("a\u{7f}b\u{80}\u{9f}\u{a0}\u{2028}\u{2029}é")),
                "\"a\u{7f}b\u{80}\u{9f}\u{a0}\u{2028}\u{2029}é\""
            );
        }
    }

    #[test]
    fn escaped_len_is_what_write_string_writes() {
        for s in ["", "plain", "a/bé中", "q\"\\\n\t\u{1}\u{8}\u{c}\r", "x\u{1f}y", "😀\u{7f}\u{2028}"] {
            assert_eq!(escaped_len(s) + 2, render(JsonStyle::Plain, |w| w.string(s)).len(), "{s:?}");
        }
        assert_eq!(escaped_len("\u{1}"), 6);
    }

    #[test]
    fn integer_keys_are_bare_only_in_plain_style() {
        let map = |w: &mut JsonWriter<'_>| {
            w.object(|o| {
                o.int_key(0).string("a");
                o.int_key(1).string("b");
            });
        };
        assert_eq!(render(JsonStyle::Plain, map), "{0:\"a\",1:\"b\"}");
        assert_eq!(render(JsonStyle::Standard, map), "{\"0\":\"a\",\"1\":\"b\"}");
    }

    #[test]
    fn big_longs_are_quoted_in_standard_style() {
        assert_eq!(render(JsonStyle::Standard, |w| w.int(9_007_199_254_740_992)), "\"9007199254740992\"");
        assert_eq!(render(JsonStyle::Standard, |w| w.int(9_007_199_254_740_991)), "9007199254740991");
        assert_eq!(render(JsonStyle::Plain, |w| w.int(i64::MIN)), "-9223372036854775808");
    }

    #[test]
    fn objects_and_arrays_get_separators() {
        let text = render(JsonStyle::Plain, |w| {
            w.object(|o| {
                o.key("a").array(|a| {
                    a.item().int(1);
                    a.item().bool(false);
                });
                o.opt_str("b", None);
                o.opt_str("c", Some("x"));
                o.key("d").object(|_| {});
            });
        });
        assert_eq!(text, "{\"a\":[1,false],\"c\":\"x\",\"d\":{}}");
    }
}
