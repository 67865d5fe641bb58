//! The JSON header (serialize type 0), read as leniently as fastjson and written exactly as it.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::DecodeError;
use crate::json::reader::normalize;
use crate::json::{JsonStyle, JsonWriter};
use crate::protocol::{LanguageCode, RemotingCommand, SerializeType};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireHeader {
    #[serde(default, deserialize_with = "lenient_i32")]
    code: i32,
    #[serde(default, deserialize_with = "lenient_language")]
    language: LanguageCode,
    #[serde(default, deserialize_with = "lenient_i32")]
    version: i32,
    #[serde(default, deserialize_with = "lenient_i32")]
    opaque: i32,
    #[serde(default, deserialize_with = "lenient_i32")]
    flag: i32,
    #[serde(default, deserialize_with = "lenient_opt_string")]
    remark: Option<String>,
    #[serde(default, deserialize_with = "lenient_ext_fields")]
    ext_fields: Option<ExtFields>,
}

/// The extFields map, and whether an entry was dropped (null), replaced (a repeated key) or
/// converted (a number or boolean, which fastjson may spell differently).
#[derive(Debug, PartialEq, Eq)]
struct ExtFields {
    fields: BTreeMap<String, String>,
    lossy: bool,
}

pub(super) fn decode(header: &[u8]) -> Result<RemotingCommand, DecodeError> {
    if let Some(cmd) = super::header_scan::scan(header) {
        return Ok(cmd);
    }
    // serde would also take a JSON array as a struct, field by field; Java would not.
    if header.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(DecodeError::BadJsonHeader(String::from("the header is not a JSON object")));
    }
    // Java peers send strict JSON; fall back to the fastjson normalizer only when needed.
    let wire: WireHeader = match serde_json::from_slice(header) {
        Ok(w) => w,
        Err(first) => {
            let strict = normalize(header).map_err(|_| DecodeError::BadJsonHeader(first.to_string()))?;
            serde_json::from_slice(&strict).map_err(|_| DecodeError::BadJsonHeader(first.to_string()))?
        }
    };
    Ok(RemotingCommand {
        code: wire.code,
        language: wire.language,
        version: wire.version,
        opaque: wire.opaque,
        flag: wire.flag,
        remark: wire.remark,
        ext_fields_lossy: wire.ext_fields.as_ref().is_some_and(|ext| ext.lossy),
        ext_fields: wire.ext_fields.map(|ext| ext.fields),
        serialize_type: SerializeType::Json,
        body: Vec::new(),
    })
}

/// Writes the header with fastjson's property order: code, extFields, flag, language, opaque,
/// remark, serializeTypeCurrentRPC, version; nulls omitted.
pub(super) fn encode(cmd: &RemotingCommand, out: &mut Vec<u8>) {
    let mut w = JsonWriter::new(out, JsonStyle::Plain);
    w.object(|o| {
        o.key("code").int(i64::from(cmd.code));
        if let Some(fields) = &cmd.ext_fields {
            o.key("extFields").object(|m| {
                for (k, v) in fields {
                    m.key(k).string(v);
                }
            });
        }
        o.key("flag").int(i64::from(cmd.flag));
        match cmd.language.name() {
            Some(name) => o.key("language").string(name),
            // A language without a name is kept as its raw value (fastjson reads an enum from a
            // number too); omitting it would make it read back as JAVA.
            None => o.key("language").int(i64::from(cmd.language.raw())),
        }
        o.key("opaque").int(i64::from(cmd.opaque));
        o.opt_str("remark", cmd.remark.as_deref());
        o.key("serializeTypeCurrentRPC").string(SerializeType::Json.name());
        o.key("version").int(i64::from(cmd.version));
    });
}

/// A scalar as fastjson would coerce it: numbers, numeric strings and booleans.
enum Scalar {
    Int(i64),
    Float(f64),
    Text(String),
    Bool(bool),
    Null,
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string, number, boolean or null")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
                i64::try_from(v).map(Scalar::Int).or(Ok(Scalar::Float(v as f64)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar::Float(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar::Text(String::from(v)))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Scalar, E> {
                Ok(Scalar::Text(v))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar::Bool(v))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Scalar, E> {
                Ok(Scalar::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<Scalar, E> {
                Ok(Scalar::Null)
            }
        }
        d.deserialize_any(V)
    }
}

impl Scalar {
    fn into_text(self) -> Option<String> {
        match self {
            Self::Int(n) => Some(n.to_string()),
            Self::Float(x) => Some(x.to_string()),
            Self::Text(s) => Some(s),
            Self::Bool(b) => Some(String::from(if b { "true" } else { "false" })),
            Self::Null => None,
        }
    }
}

fn lenient_i32<'de, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
    match Scalar::deserialize(d)? {
        Scalar::Int(n) => i32::try_from(n).map_err(|_| de::Error::custom(alloc::format!("{n} does not fit an int"))),
        Scalar::Text(s) => s.trim().parse().map_err(|_| de::Error::custom(alloc::format!("`{s}` is not an int"))),
        Scalar::Null => Ok(0),
        Scalar::Float(_) | Scalar::Bool(_) => Err(de::Error::custom("expected an int")),
    }
}

fn lenient_language<'de, D: Deserializer<'de>>(d: D) -> Result<LanguageCode, D::Error> {
    Ok(match Scalar::deserialize(d)? {
        Scalar::Text(name) => LanguageCode::from_name(&name),
        Scalar::Int(n) => u8::try_from(n).map_or(LanguageCode::UNKNOWN_NAME, LanguageCode::from),
        _ => LanguageCode::UNKNOWN_NAME,
    })
}

fn lenient_opt_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Scalar::deserialize(d)?.into_text())
}

fn lenient_ext_fields<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ExtFields>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<ExtFields>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object of string values, or null")
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut fields = BTreeMap::new();
            let mut lossy = false;
            while let Some((key, value)) = map.next_entry::<String, Scalar>()? {
                lossy |= !matches!(value, Scalar::Text(_));
                // Java keeps null values; to every reader they are the same as absent.
                if let Some(text) = value.into_text() {
                    lossy |= fields.insert(key, text).is_some();
                }
            }
            Ok(Some(ExtFields { fields, lossy }))
        }
    }
    d.deserialize_any(V)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_in_any_order_and_unknown_keys() {
        let cmd = decode(br#"{"zzz":[1,{"a":2}],"version":"121","opaque":9,"code":105,"language":"NODE_JS","extFields":{"topic":"T","n":3,"b":true,"x":null}}"#).unwrap();
        assert_eq!(cmd.code, 105);
        assert_eq!(cmd.version, 121);
        assert_eq!(cmd.opaque, 9);
        assert_eq!(cmd.language, LanguageCode::NodeJs);
        let fields = cmd.ext_fields.unwrap();
        assert_eq!(fields.get("n").map(String::as_str), Some("3"));
        assert_eq!(fields.get("b").map(String::as_str), Some("true"));
        assert!(!fields.contains_key("x"));
    }

    #[test]
    fn the_fast_path_agrees_with_the_general_reader() {
        let headers: [&[u8]; 6] = [
            br#"{"code":105,"extFields":{"topic":"TopicTest"},"flag":0,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":479}"#,
            br#"{"code":17,"flag":1,"language":"JAVA","opaque":7,"remark":"a\nb \"q\" \u00e9 \ud83d\ude00 \/","serializeTypeCurrentRPC":"JSON","version":0}"#,
            br#" { "code" : -3 , "remark" : null , "extFields" : { "k" : "v" , "n" : null } } "#,
            br#"{"code":104,"language":"RUST","version":474,"opaque":34,"flag":0,"remark":null,"extFields":null,"serializeTypeCurrentRPC":"JSON"}"#,
            br#"{}"#,
            br#"{"code":105,"language":"JAVA","opaque":1,"flag":0,"version":121,"extFields":{"topic":"TopicTest"}}"#,
        ];
        for header in headers {
            let fast = super::super::header_scan::scan(header).expect("fast path applies");
            let strict: WireHeader = serde_json::from_slice(header).unwrap();
            assert_eq!(
                (fast.code, fast.version, fast.opaque, fast.flag),
                (strict.code, strict.version, strict.opaque, strict.flag)
            );
            assert_eq!(fast.remark, strict.remark);
            assert_eq!(ext_of(&fast), strict.ext_fields);
            assert_eq!(fast.language, strict.language);
        }
        for odd in [&br#"{"code":1,"x":2}"#[..], br#"{"code":"105"}"#, br#"{"code":1.5}"#, br#"{"code":1}x"#, br#"[1]"#]
        {
            assert!(super::super::header_scan::scan(odd).is_none(), "{}", String::from_utf8_lossy(odd));
        }
    }

    proptest::proptest! {
        /// Whenever the fast scanner takes a header, the general reader agrees with it.
        #[test]
        fn the_fast_path_never_disagrees(text in "[{}\\[\\]\":,a-z0-9 \\\\nu-]{0,60}", fields in proptest::collection::btree_map("[a-z\\\\\"\u{e9}]{0,6}", "[ -~\u{e9}\n]{0,8}", 0..4), code in proptest::prelude::any::<i32>()) {
            for header in [text.into_bytes(), json_of(code, &fields)] {
                if let Some(fast) = super::super::header_scan::scan(&header) {
                    let strict: WireHeader = serde_json::from_slice(&header).expect("the general reader accepts what the scanner accepts");
                    proptest::prop_assert_eq!((fast.code, fast.version, fast.opaque, fast.flag), (strict.code, strict.version, strict.opaque, strict.flag));
                    proptest::prop_assert_eq!(&fast.remark, &strict.remark);
                    proptest::prop_assert_eq!(ext_of(&fast), strict.ext_fields);
                }
            }
        }
    }

    fn ext_of(cmd: &RemotingCommand) -> Option<ExtFields> {
        cmd.ext_fields.clone().map(|fields| ExtFields { fields, lossy: cmd.ext_fields_lossy })
    }

    fn json_of(code: i32, fields: &BTreeMap<String, String>) -> Vec<u8> {
        let cmd = RemotingCommand { code, ext_fields: Some(fields.clone()), ..RemotingCommand::default() };
        let mut out = Vec::new();
        encode(&cmd, &mut out);
        out
    }

    #[test]
    fn fastjson_leniency_and_errors() {
        assert_eq!(decode(b"{code:105,'remark':'r'}").unwrap().remark.as_deref(), Some("r"));
        assert!(matches!(decode(b"[1]"), Err(DecodeError::BadJsonHeader(_))));
        assert!(matches!(decode(b"{\"code\":99999999999}"), Err(DecodeError::BadJsonHeader(_))));
        assert!(matches!(decode(b"\xff\xfe"), Err(DecodeError::BadJsonHeader(_))));
    }
}
