//! Codec helpers: decode a frame to a plain object, encode a request.

use std::collections::BTreeMap;

use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::{LanguageCode, RemotingCommand, SerializeType};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use crate::convert::to_js;
use crate::dto;

pub(crate) fn frame_dto(cmd: RemotingCommand, length: usize) -> dto::Frame {
    let code_name = if cmd.is_response() { None } else { cmd.request_code().java_name() };
    let body_text = (!cmd.body.is_empty()).then(|| std::str::from_utf8(&cmd.body).ok().map(str::to_owned)).flatten();
    dto::Frame {
        code: cmd.code,
        code_name,
        language: cmd.language.name(),
        version: cmd.version,
        opaque: cmd.opaque,
        flag: cmd.flag,
        response: cmd.is_response(),
        oneway: cmd.is_oneway(),
        remark: cmd.remark,
        ext_fields: cmd.ext_fields,
        serialize_type: cmd.serialize_type.name(),
        body: cmd.body,
        body_text,
        length,
    }
}

/// Decodes the frame at the start of `bytes`; `undefined` if it is not whole yet.
/// Throws on a malformed frame.
#[wasm_bindgen(js_name = decodeFrame, unchecked_return_type = "DecodedFrame | undefined")]
pub fn decode_frame(bytes: &[u8]) -> Result<JsValue, JsError> {
    match codec::decode(bytes, &Limits::DEFAULT) {
        Ok(Some((cmd, used))) => to_js(&frame_dto(cmd, used)),
        Ok(None) => Ok(JsValue::UNDEFINED),
        Err(e) => Err(JsError::new(&e.to_string())),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "EncodeRequest", optional_fields))]
pub(crate) struct EncodeSpec {
    code: i32,
    #[serde(default)]
    opaque: Option<i32>,
    #[serde(default)]
    version: Option<i32>,
    #[serde(default)]
    flag: Option<i32>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    remark: Option<String>,
    #[serde(default)]
    ext_fields: Option<BTreeMap<String, String>>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional, type = "\"JSON\" | \"ROCKETMQ\""))]
    serialize_type: Option<String>,
}

/// Encodes a command `{code, opaque?, version?, flag?, language?, remark?, extFields?, body?,
/// serializeType?: "JSON" | "ROCKETMQ"}` as one frame. Throws on a bad object.
#[wasm_bindgen(js_name = encodeFrame)]
pub fn encode_frame(#[wasm_bindgen(unchecked_param_type = "EncodeRequest")] spec: JsValue) -> Result<Vec<u8>, JsError> {
    let spec: EncodeSpec =
        serde_wasm_bindgen::from_value(spec).map_err(|e| JsError::new(&format!("bad frame object: {e}")))?;
    let language = match spec.language.as_deref() {
        None => LanguageCode::Java,
        Some(name) => {
            let code = LanguageCode::from_name(name);
            if code == LanguageCode::UNKNOWN_NAME {
                return Err(JsError::new(&format!("unknown language `{name}`")));
            }
            code
        }
    };
    let serialize_type = match spec.serialize_type.as_deref() {
        None | Some("JSON") => SerializeType::Json,
        Some("ROCKETMQ") => SerializeType::Rocketmq,
        Some(other) => return Err(JsError::new(&format!("unknown serializeType `{other}` (JSON or ROCKETMQ)"))),
    };
    let cmd = RemotingCommand {
        code: spec.code,
        language,
        version: spec.version.unwrap_or(0),
        opaque: spec.opaque.unwrap_or(0),
        flag: spec.flag.unwrap_or(0),
        remark: spec.remark,
        ext_fields: spec.ext_fields,
        ext_fields_lossy: false,
        serialize_type,
        body: spec.body.map(String::into_bytes).unwrap_or_default(),
    };
    codec::encode_to_vec(&cmd).map_err(|e| JsError::new(&e.to_string()))
}
