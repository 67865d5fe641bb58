//! Values across the JS boundary, shared by every binding: results to plain objects, numbers
//! of milliseconds to `Instant`s.

use nameserver_core::time::Instant;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// How results cross: JSON's shapes (maps as objects, not `Map`s; `None` as null; numbers,
/// not `BigInt`s), except that bytes (frames, bodies) are `Uint8Array`s, as declared, not
/// arrays of numbers.
const TO_JS: serde_wasm_bindgen::Serializer =
    serde_wasm_bindgen::Serializer::json_compatible().serialize_bytes_as_arrays(false);

/// A result as a plain JS object.
pub(crate) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    value.serialize(&TO_JS).map_err(|e| JsError::new(&e.to_string()))
}

/// A JS number of milliseconds as an `Instant`: finite, non-negative, below 2^53.
pub(crate) fn millis(ms: f64, what: &str) -> Result<Instant, JsError> {
    if !(0.0..=9_007_199_254_740_991.0).contains(&ms) {
        return Err(JsError::new(&format!("{what} must be a non-negative number of milliseconds, got {ms}")));
    }
    Ok(Instant::from_millis(ms as u64))
}
