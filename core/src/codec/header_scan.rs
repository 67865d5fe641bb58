//! A fast path for the JSON header: a hand-written scanner for the flat, strict shape every
//! RocketMQ peer sends (`{"code":105,"extFields":{"topic":"T"},…}`).
//!
//! It gives up (`None`) on anything unusual, and the serde-based reader in `json_header.rs`
//! takes over; so it only has to be right, not complete.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::protocol::{
    FLAG_ONEWAY, FLAG_RESPONSE, LanguageCode, RemotingCommand, RequestCode, RouteQuery, RouteRequest, SerializeType,
};

struct Scan<'a> {
    /// The header, validated as UTF-8 once; token boundaries are ASCII quotes, so slices of
    /// it are always valid.
    text: &'a str,
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Scan<'a> {
    fn ws(&mut self) {
        while self.pos < self.buf.len() && matches!(self.buf[self.pos], b' ' | b'\t' | b'\r' | b'\n') {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.ws();
        (self.buf.get(self.pos) == Some(&byte)).then(|| self.pos += 1)
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.buf.get(self.pos).copied()
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.ws();
        self.buf.get(self.pos..self.pos + word.len()).filter(|w| *w == word).map(|_| self.pos += word.len())
    }

    fn int(&mut self) -> Option<i32> {
        if self.peek() == Some(b'n') {
            self.literal(b"null")?;
            return Some(0);
        }
        let negative = self.buf.get(self.pos) == Some(&b'-');
        if negative {
            self.pos += 1;
        }
        let start = self.pos;
        // Accumulated on the number's side of zero, so that i32::MIN fits; overflow is `None`,
        // as `str::parse` has it.
        let mut value: i32 = 0;
        while let Some(&byte) = self.buf.get(self.pos)
            && byte.is_ascii_digit()
        {
            let digit = i32::from(byte - b'0');
            value = value.checked_mul(10)?;
            value = if negative { value.checked_sub(digit)? } else { value.checked_add(digit)? };
            self.pos += 1;
        }
        if self.pos == start || matches!(self.buf.get(self.pos), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        Some(value)
    }

    /// A string without escapes, borrowed.
    fn raw_str(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.pos;
        let end = start + string_end(&self.buf[start..])?;
        if self.buf[end] != b'"' {
            return None;
        }
        self.pos = end + 1;
        self.text.get(start..end)
    }

    /// A string, escapes decoded.
    fn string(&mut self) -> Option<String> {
        let save = self.pos;
        if let Some(raw) = self.raw_str() {
            return Some(String::from(raw));
        }
        self.pos = save;
        self.eat(b'"')?;
        let mut out: Vec<u8> = Vec::new();
        let mut start = self.pos;
        while self.pos < self.buf.len() {
            match self.buf[self.pos] {
                b'"' => {
                    out.extend_from_slice(&self.buf[start..self.pos]);
                    self.pos += 1;
                    return String::from_utf8(out).ok();
                }
                b'\\' => {
                    out.extend_from_slice(&self.buf[start..self.pos]);
                    self.pos += 1;
                    let escaped = *self.buf.get(self.pos)?;
                    self.pos += 1;
                    match escaped {
                        b'"' | b'\\' | b'/' => out.push(escaped),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let ch = self.unicode_escape()?;
                            let mut tmp = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                        }
                        _ => return None,
                    }
                    start = self.pos;
                }
                b if b < 0x20 => return None,
                _ => self.pos += 1,
            }
        }
        None
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.buf.get(self.pos..self.pos + 4)?;
        self.pos += 4;
        u32::from_str_radix(core::str::from_utf8(digits).ok()?, 16).ok()
    }

    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        if (0xD800..0xDC00).contains(&first) {
            if self.buf.get(self.pos..self.pos + 2) != Some(b"\\u") {
                return None;
            }
            self.pos += 2;
            let second = self.hex4()?;
            if !(0xDC00..0xE000).contains(&second) {
                return None;
            }
            return char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00));
        }
        char::from_u32(first)
    }

    fn opt_string(&mut self) -> Option<Option<String>> {
        if self.peek() == Some(b'n') {
            self.literal(b"null")?;
            return Some(None);
        }
        self.string().map(Some)
    }

    /// The map, and whether an entry was dropped (null) or replaced (a repeated key).
    fn ext_fields(&mut self) -> Option<(Option<BTreeMap<String, String>>, bool)> {
        if self.peek() == Some(b'n') {
            self.literal(b"null")?;
            return Some((None, false));
        }
        self.eat(b'{')?;
        let mut fields = BTreeMap::new();
        let mut lossy = false;
        if self.eat(b'}').is_some() {
            return Some((Some(fields), lossy));
        }
        loop {
            let key = self.string()?;
            self.eat(b':')?;
            match self.peek()? {
                b'"' => lossy |= fields.insert(key, self.string()?).is_some(),
                b'n' => {
                    self.literal(b"null")?;
                    lossy = true;
                }
                _ => return None,
            }
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Some((Some(fields), lossy));
                }
                _ => return None,
            }
        }
    }
}

/// Where a JSON string's raw run ends in `bytes`: the index of the first quote, backslash or
/// control character (`None`: none, the string is not closed). Eight bytes at a time, as
/// header strings (keys, topics) are mostly longer than that and this is most of the scan.
fn string_end(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = ONES << 7;
    // A byte of `word` equal to zero sets its high bit here; borrows only ever set bits above
    // the first such byte, so the lowest bit set is exact.
    let zero_bytes = |word: u64| word.wrapping_sub(ONES) & !word & HIGH;
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().ok()?);
        let hits = zero_bytes(word ^ (ONES * u64::from(b'"')))
            | zero_bytes(word ^ (ONES * u64::from(b'\\')))
            | (word.wrapping_sub(ONES * 0x20) & !word & HIGH);
        if hits != 0 {
            return Some(offset + (hits.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    chunks.remainder().iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).map(|at| offset + at)
}

/// Decodes a strict, flat JSON header; `None` when the general reader must decide.
pub(super) fn scan(header: &[u8]) -> Option<RemotingCommand> {
    let text = core::str::from_utf8(header).ok()?;
    let mut s = Scan { text, buf: header, pos: 0 };
    let mut cmd = RemotingCommand { serialize_type: SerializeType::Json, ..RemotingCommand::default() };
    s.eat(b'{')?;
    if s.eat(b'}').is_some() {
        return (s.peek().is_none()).then_some(cmd);
    }
    let mut seen_ext_fields = false;
    loop {
        let key = s.raw_str()?;
        s.eat(b':')?;
        match key {
            "code" => cmd.code = s.int()?,
            "version" => cmd.version = s.int()?,
            "opaque" => cmd.opaque = s.int()?,
            "flag" => cmd.flag = s.int()?,
            "language" => cmd.language = LanguageCode::from_name(s.raw_str()?),
            "remark" => cmd.remark = s.opt_string()?,
            "extFields" => {
                // A second extFields replaces the first, as fastjson's does.
                let (fields, lossy) = s.ext_fields()?;
                cmd.ext_fields = fields;
                cmd.ext_fields_lossy = lossy || seen_ext_fields;
                seen_ext_fields = true;
            }
            "serializeTypeCurrentRPC" => {
                s.raw_str()?;
            }
            _ => return None,
        }
        match s.peek()? {
            b',' => s.pos += 1,
            b'}' => {
                s.pos += 1;
                return s.peek().is_none().then_some(cmd);
            }
            _ => return None,
        }
    }
}

/// The extFields a route query is read from, borrowed.
#[derive(Default)]
struct RouteFields<'a> {
    topic: Option<&'a str>,
    accept_standard_json_only: Option<&'a str>,
    zone_mode: Option<&'a str>,
    zone_name: Option<&'a str>,
}

impl<'a> RouteFields<'a> {
    fn slot(&mut self, key: &str) -> Option<&mut Option<&'a str>> {
        match key {
            "topic" => Some(&mut self.topic),
            "acceptStandardJsonOnly" => Some(&mut self.accept_standard_json_only),
            "__ZONE_MODE" => Some(&mut self.zone_mode),
            "__ZONE_NAME" => Some(&mut self.zone_name),
            _ => None,
        }
    }

    fn get(&self, key: &str) -> Option<&'a str> {
        match key {
            "topic" => self.topic,
            "acceptStandardJsonOnly" => self.accept_standard_json_only,
            "__ZONE_MODE" => self.zone_mode,
            "__ZONE_NAME" => self.zone_name,
            _ => None,
        }
    }
}

impl<'a> Scan<'a> {
    /// The route query's fields of an extFields object (or null), borrowed; `None` on an
    /// escaped string, or on a null or repeated route field, which [`Scan::ext_fields`] and
    /// the serde reader decide.
    fn route_fields(&mut self) -> Option<RouteFields<'a>> {
        let mut fields = RouteFields::default();
        if self.peek() == Some(b'n') {
            self.literal(b"null")?;
            return Some(fields);
        }
        self.eat(b'{')?;
        if self.eat(b'}').is_some() {
            return Some(fields);
        }
        loop {
            let key = self.raw_str()?;
            self.eat(b':')?;
            let value = match self.peek()? {
                b'"' => Some(self.raw_str()?),
                b'n' => {
                    self.literal(b"null")?;
                    None
                }
                _ => return None,
            };
            if let Some(slot) = fields.slot(key) {
                if slot.is_some() || value.is_none() {
                    return None;
                }
                *slot = value;
            }
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Some(fields);
                }
                _ => return None,
            }
        }
    }
}

/// GET_ROUTEINFO_BY_TOPIC read from a strict, flat JSON header without allocating, exactly as
/// [`scan`] and [`Request::parse`](crate::protocol::Request::parse) read it; `None` for any
/// other request, and wherever this reader cannot be sure (it then leaves the header to them).
pub(super) fn route_request(header: &[u8]) -> Option<RouteRequest<'_>> {
    let text = core::str::from_utf8(header).ok()?;
    let mut s = Scan { text, buf: header, pos: 0 };
    let (mut code, mut version, mut opaque, mut flag) = (0, 0, 0, 0);
    // None: no extFields (a missing topic); Some(fields) as the last extFields held them.
    let mut fields = None;
    s.eat(b'{')?;
    loop {
        let key = s.raw_str()?;
        s.eat(b':')?;
        match key {
            "code" => {
                code = s.int()?;
                // Most frames name their code first: anything else is done with at once.
                if RequestCode::from(code) != RequestCode::GetRouteInfoByTopic {
                    return None;
                }
            }
            "version" => version = s.int()?,
            "opaque" => opaque = s.int()?,
            "flag" => flag = s.int()?,
            "language" | "serializeTypeCurrentRPC" => {
                s.raw_str()?;
            }
            "remark" if s.peek() == Some(b'n') => s.literal(b"null")?,
            "remark" => {
                s.raw_str()?;
            }
            "extFields" => fields = Some(s.route_fields()?),
            _ => return None,
        }
        match s.peek()? {
            b',' => s.pos += 1,
            b'}' => {
                s.pos += 1;
                break;
            }
            _ => return None,
        }
    }
    if s.peek().is_some() || RequestCode::from(code) != RequestCode::GetRouteInfoByTopic || flag & FLAG_RESPONSE != 0 {
        return None;
    }
    let fields: RouteFields<'_> = fields?;
    let query = RouteQuery::read(version, |name| fields.get(name)).ok()?;
    Some(RouteRequest { opaque, oneway: flag & FLAG_ONEWAY != 0, query })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use alloc::vec;
    use alloc::vec::Vec;

    use super::{Scan, string_end};

    fn one_at_a_time(bytes: &[u8]) -> Option<usize> {
        bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)
    }

    proptest! {
        /// Eight bytes at a time finds the byte one at a time would, wherever it sits in a
        /// word and whatever bytes (UTF-8, controls, quotes, 0x7f, 0xff) come before or after.
        #[test]
        fn a_strings_end_is_the_first_quote_backslash_or_control(
            bytes in proptest::collection::vec(
                prop_oneof![Just(b'"'), Just(b'\\'), 0u8..0x20, Just(0x20u8), Just(0x21u8), Just(0x5bu8), Just(0x5du8), 0x20u8..=0xff],
                0..40,
            ),
        ) {
            prop_assert_eq!(string_end(&bytes), one_at_a_time(&bytes));
        }
    }

    proptest! {
        /// An integer is read as `str::parse` reads its digits: any i32, leading zeros, and
        /// nothing for a lone sign, a fraction, an exponent or a value beyond i32.
        #[test]
        fn an_integer_is_what_parse_makes_of_it(text in "-?[0-9]{0,12}[.eE,}]?") {
            let mut scan = Scan { text: &text, buf: text.as_bytes(), pos: 0 };
            let digits = text.trim_end_matches(['.', 'e', 'E', ',', '}']);
            let expected = if digits.len() < text.len() && !text.ends_with([',', '}']) {
                None
            } else {
                digits.parse::<i32>().ok()
            };
            prop_assert_eq!(scan.int(), expected);
        }

        #[test]
        fn any_i32_reads_back(n in any::<i32>()) {
            let text = alloc::format!("{n},");
            prop_assert_eq!(Scan { text: &text, buf: text.as_bytes(), pos: 0 }.int(), Some(n));
        }
    }

    #[test]
    fn every_special_byte_is_found_in_every_position_of_a_word() {
        for special in (0u8..0x20).chain([b'"', b'\\']) {
            for at in 0..24 {
                let mut bytes = vec![b'a'; 24];
                bytes[at] = special;
                assert_eq!(string_end(&bytes), Some(at), "{special:#x} at {at}");
            }
        }
        let plain: Vec<u8> = (0x20u8..=0xff).filter(|b| *b != b'"' && *b != b'\\').collect();
        assert_eq!(string_end(&plain), None);
    }
}
