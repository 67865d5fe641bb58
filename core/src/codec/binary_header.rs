//! The ROCKETMQ binary header (serialize type 1, PROTOCOL.md §2.3).
//!
//! ```text
//! i16 code | i8 language | i16 version | i32 opaque | i32 flag
//! | i32 remark_len, remark | i32 ext_len, { i16 key_len, key, i32 val_len, val }*
//! ```

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::DecodeError;
use crate::protocol::{
    FLAG_ONEWAY, FLAG_RESPONSE, LanguageCode, RemotingCommand, RequestCode, RouteQuery, RouteRequest, SerializeType,
};

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let end =
            self.pos.checked_add(n).filter(|end| *end <= self.buf.len()).ok_or(DecodeError::BadBinaryHeader(what))?;
        let bytes = &self.buf[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    fn i16(&mut self, what: &'static str) -> Result<i16, DecodeError> {
        let b = self.take(2, what)?;
        Ok(i16::from_be_bytes([b[0], b[1]]))
    }

    fn i32(&mut self, what: &'static str) -> Result<i32, DecodeError> {
        let b = self.take(4, what)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A length-prefixed string; zero length is `None`, as in Java.
    fn string(&mut self, len: i64, what: &'static str) -> Result<Option<String>, DecodeError> {
        let len = usize::try_from(len).map_err(|_| DecodeError::BadBinaryHeader(what))?;
        let bytes = self.take(len, what)?;
        Ok((!bytes.is_empty()).then(|| String::from_utf8_lossy(bytes).into_owned()))
    }
}

pub(super) fn decode(header: &[u8]) -> Result<RemotingCommand, DecodeError> {
    let mut r = Reader { buf: header, pos: 0 };
    let code = i32::from(r.i16("header shorter than its fixed fields")?);
    let language = LanguageCode::from(r.take(1, "header shorter than its fixed fields")?[0]);
    let version = i32::from(r.i16("header shorter than its fixed fields")?);
    let opaque = r.i32("header shorter than its fixed fields")?;
    let flag = r.i32("header shorter than its fixed fields")?;
    let remark_len = r.i32("header shorter than its fixed fields")?;
    let remark = r.string(i64::from(remark_len), "remark length overruns the header")?;
    let ext_len = r.i32("ext fields length missing")?;
    let ext = r.take(
        usize::try_from(ext_len).map_err(|_| DecodeError::BadBinaryHeader("negative ext fields length"))?,
        "ext fields length overruns the header",
    )?;
    // No usable entry (none at all, or only null keys or values) is no map: the form has no
    // way to say "empty", so an empty map would not survive re-encoding.
    let (fields, ext_fields_lossy) = decode_ext(ext)?;
    let ext_fields = Some(fields).filter(|fields| !fields.is_empty());
    Ok(RemotingCommand {
        code,
        language,
        version,
        opaque,
        flag,
        remark,
        ext_fields,
        ext_fields_lossy,
        serialize_type: SerializeType::Rocketmq,
        body: Vec::new(),
    })
}

/// The entries, and whether any was dropped (a null key or value) or replaced (a repeated key).
fn decode_ext(ext: &[u8]) -> Result<(BTreeMap<String, String>, bool), DecodeError> {
    let mut r = Reader { buf: ext, pos: 0 };
    let mut fields = BTreeMap::new();
    let mut lossy = false;
    while r.pos < ext.len() {
        let key_len = r.i16("ext key length missing")?;
        let key = r.string(i64::from(key_len), "ext key overruns the header")?;
        let val_len = r.i32("ext value length missing")?;
        let value = r.string(i64::from(val_len), "ext value overruns the header")?;
        // Java keeps null keys and values in the map; every reader treats them as absent.
        match (key, value) {
            (Some(k), Some(v)) => lossy |= fields.insert(k, v).is_some(),
            _ => lossy = true,
        }
    }
    Ok((fields, lossy))
}

pub(super) fn encode(cmd: &RemotingCommand, out: &mut Vec<u8>) {
    // The code and version are shorts on this form; Java truncates the same way.
    out.extend_from_slice(&(cmd.code as i16).to_be_bytes());
    out.push(cmd.language.raw());
    out.extend_from_slice(&(cmd.version as i16).to_be_bytes());
    out.extend_from_slice(&cmd.opaque.to_be_bytes());
    out.extend_from_slice(&cmd.flag.to_be_bytes());
    let remark = cmd.remark.as_deref().unwrap_or("");
    push_len_i32(out, remark.len());
    out.extend_from_slice(remark.as_bytes());
    let ext_len_at = out.len();
    out.extend_from_slice(&[0; 4]);
    for (key, value) in cmd.ext_fields.iter().flatten() {
        let Ok(key_len) = i16::try_from(key.len()) else { continue };
        out.extend_from_slice(&key_len.to_be_bytes());
        out.extend_from_slice(key.as_bytes());
        push_len_i32(out, value.len());
        out.extend_from_slice(value.as_bytes());
    }
    let ext_len = out.len() - ext_len_at - 4;
    out[ext_len_at..ext_len_at + 4].copy_from_slice(&(ext_len as u32).to_be_bytes());
}

fn push_len_i32(out: &mut Vec<u8>, len: usize) {
    out.extend_from_slice(&(len as u32).to_be_bytes());
}

/// GET_ROUTEINFO_BY_TOPIC read from a ROCKETMQ header without allocating, exactly as
/// [`decode`] and [`Request::parse`](crate::protocol::Request::parse) read it; `None` for any
/// other request, and wherever this reader cannot be sure (a route field repeated or not
/// UTF-8, a length out of range: [`decode`] then decides).
pub(super) fn route_request(header: &[u8]) -> Option<RouteRequest<'_>> {
    let mut r = Reader { buf: header, pos: 0 };
    let what = "";
    if i32::from(r.i16(what).ok()?) != RequestCode::GetRouteInfoByTopic.raw() {
        return None;
    }
    r.take(1, what).ok()?;
    let version = i32::from(r.i16(what).ok()?);
    let opaque = r.i32(what).ok()?;
    let flag = r.i32(what).ok()?;
    if flag & FLAG_RESPONSE != 0 {
        return None;
    }
    let remark_len = usize::try_from(r.i32(what).ok()?).ok()?;
    r.take(remark_len, what).ok()?;
    let ext_len = usize::try_from(r.i32(what).ok()?).ok()?;
    let ext = r.take(ext_len, what).ok()?;
    let mut r = Reader { buf: ext, pos: 0 };
    let mut fields: [(&str, Option<&str>, bool); 4] = [
        ("topic", None, false),
        ("acceptStandardJsonOnly", None, false),
        ("__ZONE_MODE", None, false),
        ("__ZONE_NAME", None, false),
    ];
    while r.pos < ext.len() {
        let key_len = usize::try_from(r.i16(what).ok()?).ok()?;
        let key = r.take(key_len, what).ok()?;
        let value_len = usize::try_from(r.i32(what).ok()?).ok()?;
        let value = r.take(value_len, what).ok()?;
        if let Some((_, slot, seen)) = fields.iter_mut().find(|(name, ..)| name.as_bytes() == key) {
            if core::mem::replace(seen, true) {
                return None;
            }
            // An empty value is no value, as `decode` reads it.
            *slot = if value.is_empty() { None } else { Some(core::str::from_utf8(value).ok()?) };
        }
    }
    let field = |name: &str| fields.iter().find(|(n, ..)| *n == name).and_then(|(_, value, _)| *value);
    let query = RouteQuery::read(version, field).ok()?;
    Some(RouteRequest { opaque, oneway: flag & FLAG_ONEWAY != 0, query })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrunning_lengths_are_rejected() {
        let mut h = Vec::new();
        h.extend_from_slice(&[0, 105, 0, 1, 0xDF, 0, 0, 0, 7, 0, 0, 0, 0]);
        let fixed = h.clone();
        h.extend_from_slice(&100i32.to_be_bytes());
        assert!(matches!(decode(&h), Err(DecodeError::BadBinaryHeader(_))));
        let mut h = fixed.clone();
        h.extend_from_slice(&0i32.to_be_bytes());
        h.extend_from_slice(&(-5i32).to_be_bytes());
        assert!(matches!(decode(&h), Err(DecodeError::BadBinaryHeader(_))));
        let mut h = fixed;
        h.extend_from_slice(&0i32.to_be_bytes());
        h.extend_from_slice(&8i32.to_be_bytes());
        h.extend_from_slice(&[0, 2, b'a', b'b', 0, 0, 0, 9]);
        assert!(matches!(decode(&h), Err(DecodeError::BadBinaryHeader(_))));
    }

    #[test]
    fn empty_strings_decode_as_absent() {
        let mut cmd = RemotingCommand::request(crate::protocol::RequestCode::GetRouteInfoByTopic)
            .with_field("topic", "T")
            .with_field("empty", "");
        cmd.serialize_type = SerializeType::Rocketmq;
        cmd.remark = Some(String::new());
        let mut out = Vec::new();
        encode(&cmd, &mut out);
        let back = decode(&out).unwrap();
        assert_eq!(back.remark, None);
        assert_eq!(back.field("topic"), Some("T"));
        assert_eq!(back.field("empty"), None);
    }
}
