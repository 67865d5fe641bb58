//! `RemotingCommand`: one request or response, as carried by one frame.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::code::{LanguageCode, RequestCode, ResponseCode, SerializeType};

/// Flag bit 0: this command is a response.
pub const FLAG_RESPONSE: i32 = 1;
/// Flag bit 1: the sender expects no response.
pub const FLAG_ONEWAY: i32 = 2;

/// The `version` this NameServer writes into its responses: `V5_5_0`, like the Java 5.5.0
/// NameServer it replaces (the launcher sets `rocketmq.remoting.version`; 5.3.3 answers 479,
/// 4.9.7 answers 407).
pub const SERVER_VERSION: i32 = 513;

/// One RocketMQ remoting command: the logical header fields plus the body bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RemotingCommand {
    /// Request code for requests, response code for responses (see [`Self::is_response`]).
    pub code: i32,
    /// The sender's language.
    pub language: LanguageCode,
    /// The sender's MQVersion ordinal (0 if it never set one).
    pub version: i32,
    /// Request id, copied into the response.
    pub opaque: i32,
    /// Bit 0 response, bit 1 oneway.
    pub flag: i32,
    /// Human-readable text, mostly on errors.
    pub remark: Option<String>,
    /// The custom header fields, all as strings. `None` and empty are different on the wire.
    pub ext_fields: Option<BTreeMap<String, String>>,
    /// Whether decoding merged or dropped extFields entries: a key given twice (the last is
    /// kept, as Java keeps it), a null key or value, or a value that was not a JSON string. No
    /// Java client sends such a header; the signature check refuses it ([`crate::auth`]).
    /// Never encoded.
    pub ext_fields_lossy: bool,
    /// How the header was (or will be) serialized.
    pub serialize_type: SerializeType,
    /// The body; empty when there is none.
    pub body: Vec<u8>,
}

// `wire_enum!` derives for every wire enum; only this one has a default.
#[allow(clippy::derivable_impls)]
impl Default for LanguageCode {
    fn default() -> Self {
        Self::Java
    }
}

impl RemotingCommand {
    /// A request with the given code and no fields.
    #[must_use]
    pub fn request(code: RequestCode) -> Self {
        Self { code: code.raw(), ..Self::default() }
    }

    /// The response to `request` ([`Self::response`] with its `opaque`).
    #[must_use]
    pub fn response_to(request: &Self, code: ResponseCode) -> Self {
        Self::response(request.opaque, code)
    }

    /// The one constructor for every response: echoes `opaque`, sets only the response flag,
    /// and writes the server's language and version, as the Java NameServer does.
    #[must_use]
    pub fn response(opaque: i32, code: ResponseCode) -> Self {
        Self {
            code: code.raw(),
            language: LanguageCode::Java,
            version: SERVER_VERSION,
            opaque,
            flag: FLAG_RESPONSE,
            remark: None,
            ext_fields: None,
            ext_fields_lossy: false,
            serialize_type: SerializeType::Json,
            body: Vec::new(),
        }
    }

    /// Adds a remark (builder style).
    #[must_use]
    pub fn with_remark(mut self, remark: impl Into<String>) -> Self {
        self.remark = Some(remark.into());
        self
    }

    /// Sets the body (builder style).
    #[must_use]
    pub fn with_body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    /// Adds one extField (builder style); creates the map if needed.
    #[must_use]
    pub fn with_field(mut self, key: &str, value: impl Into<String>) -> Self {
        self.ext_fields.get_or_insert_with(BTreeMap::new).insert(String::from(key), value.into());
        self
    }

    /// Marks a response as carrying a typed response header: extFields present even if empty.
    #[must_use]
    pub fn with_header_fields(mut self) -> Self {
        self.ext_fields.get_or_insert_with(BTreeMap::new);
        self
    }

    /// Whether flag bit 0 is set.
    #[must_use]
    pub fn is_response(&self) -> bool {
        self.flag & FLAG_RESPONSE != 0
    }

    /// Whether flag bit 1 is set.
    #[must_use]
    pub fn is_oneway(&self) -> bool {
        self.flag & FLAG_ONEWAY != 0
    }

    /// The code read as a request code.
    #[must_use]
    pub fn request_code(&self) -> RequestCode {
        RequestCode::from(self.code)
    }

    /// The code read as a response code.
    #[must_use]
    pub fn response_code(&self) -> ResponseCode {
        ResponseCode::from(self.code)
    }

    /// One extField by name.
    #[must_use]
    pub fn field(&self, key: &str) -> Option<&str> {
        self.ext_fields.as_ref()?.get(key).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_echoes_opaque_and_sets_only_the_response_flag() {
        let mut req = RemotingCommand::request(RequestCode::GetRouteInfoByTopic);
        req.opaque = 77;
        req.flag = FLAG_ONEWAY;
        req.version = 121;
        req.language = LanguageCode::NodeJs;
        let resp = RemotingCommand::response_to(&req, ResponseCode::TopicNotExist);
        assert_eq!(resp.opaque, 77);
        assert_eq!(resp.flag, FLAG_RESPONSE);
        assert!(resp.is_response() && !resp.is_oneway());
        assert_eq!(resp.response_code(), ResponseCode::TopicNotExist);
        assert_eq!(resp.language, LanguageCode::Java);
        assert_eq!(resp.version, SERVER_VERSION);
        assert_eq!(resp.ext_fields, None);
        assert!(resp.with_header_fields().ext_fields.unwrap().is_empty());
    }
}
