//! Replies as flat views (one value per field path), the normalisations, the comparison, and
//! the table of deliberate differences in docs/PROTOCOL.md it is checked against.

use std::collections::BTreeMap;

use nameserver_core::protocol::{RemotingCommand, SerializeType};
use serde_json::Value;

/// What a side did with one request.
#[derive(Clone, Debug)]
pub(crate) enum Outcome {
    /// A reply frame.
    Reply(Vec<u8>),
    /// The connection was closed instead.
    Closed,
    /// No reply, while the connection answered the request sent after it.
    NoReply,
}

/// The normalisations: every field path that must differ between two servers answering the
/// same request, with why. Nothing else is normalised. (`opaque` is not in the view at all:
/// each side is checked to echo the request's own.)
pub(crate) const NORMALISED: &[(&str, &str)] = &[
    ("*.timestamp", "a DataVersion's timestamp: each server stamps its own clock"),
    ("body.listenPort", "GET_NAMESRV_CONFIG: each server's own (free) port"),
    ("body.rocketmqHome", "GET_NAMESRV_CONFIG: each server's own temporary directory"),
    ("body.kvConfigPath", "GET_NAMESRV_CONFIG: each server's own temporary directory"),
    ("body.configStorePath", "GET_NAMESRV_CONFIG: each server's own temporary directory"),
    ("ext.controllerLeaderAddress", "CONTROLLER_GET_METADATA_INFO: each controller's own (free) port"),
    ("ext.peers", "CONTROLLER_GET_METADATA_INFO: each controller's own (free) port"),
];

fn matches_glob(pattern: &str, path: &str) -> bool {
    match pattern.strip_prefix("*") {
        Some(suffix) => path.ends_with(suffix),
        None => pattern == path,
    }
}

/// The list entry that normalises `path`, if any.
pub(crate) fn normalised(path: &str) -> Option<&'static str> {
    NORMALISED.iter().find(|(p, _)| matches_glob(p, path)).map(|(p, _)| *p)
}

/// A reply as field path → value. Body bytes are a field of their own (`bodyBytes`), compared
/// only when no normalisation touched the body.
pub(crate) type View = BTreeMap<String, Value>;

/// Builds the view of an outcome. `opaque` is the request's: a reply that does not echo it is
/// recorded as a field of its own (`opaqueEcho`).
pub(crate) fn view(outcome: &Outcome, opaque: i32) -> View {
    let mut v = View::new();
    let frame = match outcome {
        Outcome::Closed => {
            v.insert(String::from("closed"), Value::Bool(true));
            return v;
        }
        Outcome::NoReply => {
            v.insert(String::from("noReply"), Value::Bool(true));
            return v;
        }
        Outcome::Reply(frame) => frame,
    };
    let cmd = match nameserver_testkit::wire::decode(frame) {
        Ok(cmd) => cmd,
        Err(e) => {
            v.insert(String::from("undecodable"), Value::String(e));
            return v;
        }
    };
    header_view(&cmd, frame, opaque, &mut v);
    body_view(&cmd.body, &mut v);
    v
}

fn header_view(cmd: &RemotingCommand, frame: &[u8], opaque: i32, v: &mut View) {
    let serialize = match cmd.serialize_type {
        SerializeType::Json => "JSON",
        SerializeType::Rocketmq => "ROCKETMQ",
    };
    v.insert(String::from("serializeType"), Value::from(serialize));
    v.insert(String::from("code"), Value::from(cmd.code));
    v.insert(String::from("language"), Value::from(format!("{:?}", cmd.language)));
    v.insert(String::from("version"), Value::from(cmd.version));
    v.insert(String::from("flag"), Value::from(cmd.flag));
    if cmd.opaque != opaque {
        v.insert(String::from("opaqueEcho"), Value::from(cmd.opaque));
    }
    v.insert(String::from("remark"), cmd.remark.clone().map_or(Value::Null, Value::String));
    match &cmd.ext_fields {
        None => {
            v.insert(String::from("extFields"), Value::from("absent"));
        }
        Some(fields) => {
            v.insert(String::from("extFields"), Value::from("present"));
            for (key, value) in fields {
                v.insert(format!("ext.{key}"), Value::from(value.clone()));
            }
        }
    }
    if cmd.serialize_type == SerializeType::Json {
        // The JSON header's own keys, so a key written as null is told from one left out.
        let header_len = usize::try_from(u32::from_be_bytes([0, frame[5], frame[6], frame[7]])).unwrap_or(0);
        if let Some(text) = frame.get(8..8 + header_len)
            && let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(text)
        {
            let keys: Vec<&str> = map.keys().map(String::as_str).filter(|k| *k != "opaque").collect();
            v.insert(String::from("headerKeys"), Value::from(keys.join(",")));
        }
    }
}

/// Arrays that are Java sets (HashSet or a map's values): compared as sets, sorted in the view.
pub(crate) const SETS: &[&str] = &["body.topicList", "body.queueDatas", "body.brokerDatas", "body.clusterAddrTable.*"];

/// Objects that are Java HashMaps: their key order is HashMap order (the values compare as a
/// map either way). Beans (routes, data versions...) are written in a fixed order.
pub(crate) const MAPS: &[&str] = &[
    "body.table",
    "body.brokerAddrTable",
    "body.clusterAddrTable",
    "body.filterServerTable",
    "body.topicQueueMappingByBroker",
];

fn is_listed(list: &[&str], path: &str) -> bool {
    list.iter().any(|p| match p.strip_suffix("*") {
        Some(prefix) => path.starts_with(prefix) && !path[prefix.len()..].contains('.'),
        None => *p == path,
    })
}

/// Sorts set arrays; says whether the body holds a set or map with two or more entries, whose
/// order (and so whose bytes) Java leaves to its hash tables: `unspecified`.
fn canonical(path: &str, value: &mut Value) -> bool {
    let mut unordered = false;
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                unordered |= canonical(&format!("{path}.{i}"), item);
            }
            if is_listed(SETS, path) {
                unordered |= items.len() > 1;
                items.sort_by_key(ToString::to_string);
            }
        }
        Value::Object(map) => {
            unordered |= is_listed(MAPS, path) && map.len() > 1;
            for (key, item) in map.iter_mut() {
                unordered |= canonical(&format!("{path}.{key}"), item);
            }
        }
        _ => {}
    }
    unordered
}

fn body_view(body: &[u8], v: &mut View) {
    if body.is_empty() {
        v.insert(String::from("body"), Value::from("empty"));
        return;
    }
    let mut touched = false;
    let json = nameserver_core::json::reader::normalize(body)
        .ok()
        .and_then(|text| serde_json::from_slice::<Value>(&text).ok());
    if let Some(mut json) = json {
        touched |= canonical("body", &mut json);
        flatten("body", &json, v, &mut touched);
    } else if let Ok(text) = std::str::from_utf8(body) {
        // GET_NAMESRV_CONFIG: properties text, one key=value a line (order unspecified: a map).
        for line in text.lines().filter(|l| !l.is_empty()) {
            let (key, value) = line.split_once('=').unwrap_or((line, ""));
            let path = format!("body.{key}");
            v.insert(path, Value::from(value));
        }
        v.insert(String::from("bodyForm"), Value::from("properties"));
        return;
    } else {
        v.insert(String::from("body"), Value::from(format!("{} binary bytes", body.len())));
    }
    if !touched {
        v.insert(String::from("bodyBytes"), Value::from(String::from_utf8_lossy(body).into_owned()));
    }
}

fn flatten(path: &str, value: &Value, v: &mut View, touched: &mut bool) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, item) in map {
                flatten(&format!("{path}.{key}"), item, v, touched);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                flatten(&format!("{path}.{i}"), item, v, touched);
            }
        }
        _ => {
            if normalised(path).is_some() {
                *touched = true;
            }
            v.insert(path.to_string(), value.clone());
        }
    }
}

/// One field that differs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Difference {
    pub(crate) version: String,
    pub(crate) code: i32,
    pub(crate) case: String,
    pub(crate) field: String,
    pub(crate) java: String,
    pub(crate) ours: String,
}

fn render(value: Option<&Value>) -> String {
    match value {
        None => String::from("(none)"),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The fields where `ours` differs from `java`, normalised fields left out.
pub(crate) fn differences(version: &str, code: i32, case: &str, java: &View, ours: &View) -> Vec<Difference> {
    let mut out = Vec::new();
    let outcome = |v: &View| {
        if v.contains_key("closed") {
            "closed"
        } else if v.contains_key("noReply") {
            "no reply"
        } else {
            "reply"
        }
    };
    if outcome(java) != outcome(ours) {
        // One difference, not one per field of the reply that only one side sent.
        let field = String::from("outcome");
        let (java, ours) = (outcome(java).to_string(), outcome(ours).to_string());
        return vec![Difference { version: version.to_string(), code, case: case.to_string(), field, java, ours }];
    }
    let serialize_differs = java.get("serializeType") != ours.get("serializeType");
    let keys: std::collections::BTreeSet<&String> = java.keys().chain(ours.keys()).collect();
    for key in keys {
        if normalised(key).is_some() || (serialize_differs && key == "headerKeys") {
            continue;
        }
        let (j, o) = (java.get(key), ours.get(key));
        if j != o {
            out.push(Difference {
                version: version.to_string(),
                code,
                case: case.to_string(),
                field: key.clone(),
                java: render(j),
                ours: render(o),
            });
        }
    }
    out
}

/// The first differing position of two texts with a little context, for `bodyBytes`.
pub(crate) fn first_byte_difference(java: &str, ours: &str) -> String {
    let (j, o) = (java.as_bytes(), ours.as_bytes());
    let at = j.iter().zip(o).position(|(a, b)| a != b).unwrap_or(j.len().min(o.len()));
    let from = at.saturating_sub(12);
    let cut = |b: &[u8]| String::from_utf8_lossy(&b[from.min(b.len())..(at + 16).min(b.len())]).into_owned();
    format!("at byte {at}: Java `{}` ours `{}`", cut(j), cut(o))
}

/// One row of the table of deliberate differences.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    pub(crate) id: String,
    pub(crate) code: String,
    pub(crate) case: String,
    pub(crate) field: String,
    pub(crate) java: String,
    pub(crate) ours: String,
    pub(crate) versions: Vec<String>,
    pub(crate) reason: String,
}

/// The closed list of reasons a difference may be deliberate.
pub(crate) const REASONS: [&str; 4] = ["security", "Java bug", "version", "unspecified"];

const BEGIN: &str = "<!-- deliberate-differences:begin -->";
const END: &str = "<!-- deliberate-differences:end -->";

/// The table between the markers in docs/PROTOCOL.md: `| id | code | case | field | Java answers
/// | we answer | versions | reason |`, cells in backticks where they hold values.
pub(crate) fn parse_table(doc: &str) -> Result<Vec<Row>, String> {
    let start = doc.find(BEGIN).ok_or("no table start marker")? + BEGIN.len();
    let end = doc.find(END).ok_or("no table end marker")?;
    let mut rows = Vec::new();
    for line in doc[start..end].lines().map(str::trim).filter(|l| l.starts_with('|')) {
        let cells: Vec<String> = split_cells(line);
        if cells.first().is_some_and(|c| c == "id" || c.starts_with("---")) {
            continue;
        }
        if cells.len() != 8 {
            return Err(format!("a row needs 8 cells: {line}"));
        }
        let reason = cells[7].clone();
        if !REASONS.iter().any(|r| reason == *r || reason.starts_with(&format!("{r}:"))) {
            return Err(format!("row {} has a reason outside the closed list {REASONS:?}: {reason}", cells[0]));
        }
        rows.push(Row {
            id: cells[0].clone(),
            code: cells[1].clone(),
            case: cells[2].clone(),
            field: cells[3].clone(),
            java: cells[4].clone(),
            ours: cells[5].clone(),
            versions: cells[6].split(',').map(|v| v.trim().to_string()).collect(),
            reason,
        });
    }
    Ok(rows)
}

/// Splits a Markdown table row; a cell in backticks keeps its inner text (`\|` for a pipe).
fn split_cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => cells.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    cells.push(cell);
    cells
        .into_iter()
        .map(|c| {
            let c = c.trim();
            c.strip_prefix('`').and_then(|c| c.strip_suffix('`')).unwrap_or(c).to_string()
        })
        .collect()
}

/// A cell matches a value as a glob: `*` stands for any text, everything else for itself.
pub(crate) fn cell_matches(cell: &str, value: &str) -> bool {
    let parts: Vec<&str> = cell.split('*').collect();
    if parts.len() == 1 {
        return cell == value;
    }
    let mut rest = value;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            let Some(r) = rest.strip_prefix(part) else { return false };
            rest = r;
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            let Some(at) = rest.find(part) else { return false };
            rest = &rest[at + part.len()..];
        }
    }
    true
}

impl Row {
    pub(crate) fn covers(&self, d: &Difference) -> bool {
        self.versions.iter().any(|v| v == &d.version)
            && cell_matches(&self.code, &d.code.to_string())
            && cell_matches(&self.case, &d.case)
            && cell_matches(&self.field, &d.field)
            && cell_matches(&self.java, &d.java)
            && cell_matches(&self.ours, &d.ours)
    }
}
