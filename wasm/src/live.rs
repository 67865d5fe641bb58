//! Live mode's assembly for JavaScript: the daemons' console answers in, the simulation's
//! `ClusterView` out (see `nameserver_sim::view::LiveRequest`).

use nameserver_sim::view::{ClusterView, LiveRequest};
use wasm_bindgen::prelude::*;

use crate::convert::to_js;

/// Running NameServer daemons as one `ClusterView` at a wall-clock time: each daemon's
/// `/api/view` in force then (its JSON as the console sends it), the chosen topic's route and
/// the topics it lists, when it last listed each broker and the views received since the last
/// call (their registrations come back as `delta.wire`). Throws on a malformed request.
#[wasm_bindgen(js_name = liveView, unchecked_return_type = "ClusterView")]
pub fn live_view(#[wasm_bindgen(unchecked_param_type = "LiveRequest")] request: JsValue) -> Result<JsValue, JsError> {
    let request: LiveRequest =
        serde_wasm_bindgen::from_value(request).map_err(|e| JsError::new(&format!("bad live request: {e}")))?;
    to_js(&ClusterView::live(&request))
}
