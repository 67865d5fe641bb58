//! The bindings, run inside WebAssembly under Node (`cargo test --target wasm32-unknown-unknown`).

#![cfg(target_arch = "wasm32")]

mod golden;

use nameserver_wasm::{NameServer, Simulation, decode_frame};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn wasm_run_matches_the_golden_hashes() {
    for (id, ms, trace, state) in golden::lines() {
        let mut sim = Simulation::built_in(&id).unwrap();
        sim.seek(ms as f64).unwrap();
        assert_eq!(sim.trace_hash(), trace, "{id}@{ms} trace");
        assert_eq!(sim.state_hash(), state, "{id}@{ms} state");
    }
}

#[wasm_bindgen_test]
fn seeking_back_reproduces_the_state() {
    let mut sim = Simulation::built_in("S5").unwrap();
    sim.seek(100_000.0).unwrap();
    let at_100 = sim.state_hash();
    sim.seek(300_000.0).unwrap();
    sim.seek(100_000.0).unwrap();
    assert_eq!(sim.state_hash(), at_100);
}

#[wasm_bindgen_test]
fn bad_input_is_an_error() {
    assert!(Simulation::new("frobnicate").is_err());
    assert!(Simulation::built_in("S99").is_err());
    let mut sim = Simulation::built_in("S1").unwrap();
    assert!(sim.inject("kill nobody").is_err());
    assert!(sim.seek(-1.0).is_err());
    assert!(NameServer::new(f64::NAN, None, None).is_err());
    assert!(decode_frame(&[0, 0, 0, 6, 9, 0, 0, 2, b'{', b'}']).is_err());
}

fn field(v: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(v, &key.into()).unwrap()
}

fn list(v: JsValue) -> Vec<JsValue> {
    js_sys::Array::from(&v).to_vec()
}

fn keys(v: &JsValue) -> Vec<String> {
    let mut keys: Vec<String> =
        js_sys::Object::keys(&js_sys::Object::from(v.clone())).iter().filter_map(|k| k.as_string()).collect();
    keys.sort();
    keys
}

fn text(v: &JsValue, key: &str) -> String {
    field(v, key).as_string().unwrap_or_default()
}

fn number(v: &JsValue, key: &str) -> Option<f64> {
    field(v, key).as_f64()
}

#[wasm_bindgen_test]
fn the_wire_log_reads_incrementally_and_shows_losses() {
    let mut sim = Simulation::built_in("S7").unwrap();
    let start = field(&sim.view(JsValue::NULL).unwrap(), "delta");
    sim.seek(200_000.0).unwrap();
    let delta = field(&sim.view(field(&start, "cursor")).unwrap(), "delta");
    let all = list(field(&delta, "wire"));
    let length = number(&field(&delta, "cursor"), "wire").unwrap() as usize;
    assert_eq!(all.len(), length, "everything since 0 ms");
    assert_eq!(keys(&all[0]), ["arriveAt", "category", "from", "id", "lost", "response", "sentAt", "to", "type"]);
    let lost = all
        .iter()
        .find(|e| field(e, "lost").as_bool() == Some(true))
        .expect("the cut broker-b–NS-2 link loses messages");
    assert!(field(lost, "id").is_null());
    let ends = [text(lost, "from"), text(lost, "to")];
    assert!(ends.contains(&"broker-b".to_owned()) && ends.contains(&"NS-2".to_owned()), "{ends:?}");
    assert!(number(lost, "sentAt").unwrap() >= 75_000.0);
    let answer = all
        .iter()
        .find(|e| field(e, "response").as_bool() == Some(true) && text(e, "category") == "register")
        .expect("a registration answered");
    assert_eq!(text(answer, "type"), "REGISTER_BROKER");
    // Seeking back truncates the log: a reset, with no wire.
    sim.seek(100_000.0).unwrap();
    let back = field(&sim.view(field(&delta, "cursor")).unwrap(), "delta");
    assert_eq!(field(&back, "reset").as_bool(), Some(true));
    assert!(number(&field(&back, "cursor"), "wire").unwrap() < length as f64);
    assert!(list(field(&back, "wire")).is_empty());
}

#[wasm_bindgen_test]
fn timers_and_tables_show_the_clocks_running_to_removal() {
    let mut sim = Simulation::built_in("S5").unwrap();
    sim.seek(190_000.0).unwrap();
    let view = sim.view(JsValue::NULL).unwrap();
    let nodes = list(field(&view, "nodes"));
    let timers = |name: &str| {
        let node = nodes.iter().find(|n| text(n, "name") == name).unwrap();
        list(field(node, "timers"))
    };
    let register = timers("broker-a").into_iter().find(|t| text(t, "kind") == "register").expect("register timer");
    assert_eq!(keys(&register), ["at", "kind", "label", "peer", "periodMs"]);
    assert_eq!((number(&register, "periodMs"), field(&register, "peer").is_null()), (Some(30_000.0), true));
    let idle = timers("NS-1")
        .into_iter()
        .find(|t| text(t, "kind") == "idle-close" && text(t, "peer") == "broker-b")
        .expect("NS-1's idle close of broker-b");
    assert_eq!(number(&idle, "periodMs"), Some(120_000.0));

    let tables = field(&field(&view, "ns"), "NS-1");
    let row = list(field(&tables, "brokers")).into_iter().find(|r| text(r, "brokerName") == "broker-b").unwrap();
    assert_eq!(text(&row, "removalBy"), "idle");
    let removal_at = number(&row, "removalAt").unwrap();
    assert_eq!(number(&row, "idleCloseAt"), Some(removal_at));
    assert_eq!(number(&row, "idleCloseAt"), number(&idle, "at"));
    assert!(number(&row, "scanExpireAt").unwrap() > removal_at);
    // NS-1 removes broker-b exactly then.
    let cursor = field(&field(&view, "delta"), "cursor");
    sim.seek(200_000.0).unwrap();
    let removed = list(field(&field(&sim.view(cursor).unwrap(), "delta"), "trace"))
        .into_iter()
        .find(|e| text(e, "node") == "NS-1" && text(e, "kind") == "unregistered")
        .expect("NS-1 removes broker-b");
    assert_eq!(number(&removed, "at"), Some(removal_at));
}

#[wasm_bindgen_test]
fn the_views_nameserver_tables_read_back_as_the_cores_and_its_delta_follows_the_cursor() {
    use nameserver_core::server::RemovalPath;
    use nameserver_core::view::NsTables;

    let mut sim = Simulation::built_in("S5").unwrap();
    sim.seek(190_000.0).unwrap();
    let view = sim.view(JsValue::NULL).unwrap();
    let tables: NsTables = serde_wasm_bindgen::from_value(field(&field(&view, "ns"), "NS-1")).expect("NsTables");
    assert!(tables.uptime_ms <= 190_000, "its clock is its last event's time");
    let row = tables.brokers.iter().find(|r| r.broker_name == "broker-b").expect("broker-b listed");
    assert_eq!((row.removal_by, row.idle_close_at), (RemovalPath::Idle, Some(row.removal_at)));
    let delta = field(&view, "delta");
    assert_eq!((field(&delta, "reset").as_bool(), field(&delta, "wire").is_truthy()), (Some(true), true));

    sim.seek(200_000.0).unwrap();
    let next = field(&sim.view(field(&delta, "cursor")).unwrap(), "delta");
    assert_eq!(field(&next, "reset").as_bool(), Some(false));
    assert_eq!(number(&next, "traceFrom"), number(&field(&delta, "cursor"), "trace"));
    let removed = list(field(&next, "trace"))
        .into_iter()
        .find(|e| text(e, "node") == "NS-1" && text(e, "kind") == "unregistered")
        .expect("NS-1 removes broker-b");
    assert_eq!(number(&removed, "at"), Some(row.removal_at as f64));
    assert!(sim.view(JsValue::from_str("later")).is_err(), "a cursor is an object");
}

#[wasm_bindgen_test]
fn forks_drop_later_injections_unless_asked_to_keep_them() {
    let mut sim = Simulation::built_in("S1").unwrap();
    sim.seek(50_000.0).unwrap();
    sim.inject("kill broker-b").unwrap();
    sim.seek(40_000.0).unwrap();
    let later = list(sim.later_injected().unwrap());
    assert_eq!(later.len(), 1);
    assert_eq!((number(&later[0], "at"), text(&later[0], "action")), (Some(50_000.0), "kill broker-b".to_owned()));
    sim.inject("freeze broker-b").unwrap();
    let branches = list(field(&sim.view(JsValue::NULL).unwrap(), "branches"));
    assert_eq!(branches.len(), 2);
    assert_eq!((number(&branches[1], "dropped"), number(&branches[1], "kept")), (Some(1.0), Some(0.0)));
    let own = sim.scenario_text();
    assert!(own.contains("at 40 freeze broker-b") && !own.contains("kill"), "{own}");
    assert!(list(sim.later_injected().unwrap()).is_empty());
    let mut again = Simulation::new(&own).unwrap();
    for ms in [40_000.0, 150_000.0] {
        sim.seek(ms).unwrap();
        again.seek(ms).unwrap();
        assert_eq!(sim.state_hash(), again.state_hash(), "{ms}");
    }
    // Back on main, a fork that keeps the kill.
    sim.select_branch(0).unwrap();
    sim.seek(40_000.0).unwrap();
    let id = sim.fork(Some(true));
    let branch = list(field(&sim.view(JsValue::NULL).unwrap(), "branches")).remove(id);
    assert_eq!((number(&branch, "dropped"), number(&branch, "kept")), (Some(0.0), Some(1.0)));
    assert_eq!(list(sim.later_injected().unwrap()).len(), 1);
    assert!(sim.scenario_text().contains("at 50 kill broker-b"));
}
