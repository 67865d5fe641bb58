//! No module imports one that imports it back, in any crate of the workspace, at any level
//! (see `nameserver_testkit::layers` for what counts as a node and an edge).
//! `MODULE_LAYERS_SRC=/path/to/src` checks that tree instead (an old commit's export, say).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use nameserver_testkit::layers::Crate;

/// Every crate with a `src/` in the workspace.
const CRATES: &[&str] = &["core", "sim", "controller", "native-server", "wasm", "bench", "testkit", "fuzz-checks"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_path_buf()
}

/// The imports on cycles that were there when the check came to every folder, one
/// `crate: folder: from -> to` a line. The list only shrinks: a cycle not on it fails, and so
/// does a line whose cycle is gone.
const KNOWN: &str = include_str!("module_layers_known.txt");

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let known: BTreeSet<&str> = KNOWN.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    let (mut new, mut found) = (Vec::new(), BTreeSet::new());
    let crates: Vec<(String, PathBuf)> = match std::env::var_os("MODULE_LAYERS_SRC") {
        Some(src) => vec![("src".to_string(), PathBuf::from(src))],
        None => CRATES.iter().map(|c| ((*c).to_string(), workspace().join(c).join("src"))).collect(),
    };
    for (name, src) in &crates {
        for cycle in Crate::read(src).cycles() {
            let edge = format!("{name}: {}", cycle.edge());
            if !known.contains(edge.as_str()) {
                new.push(format!("{name}: {cycle}"));
            }
            found.insert(edge);
        }
    }
    assert!(new.is_empty(), "import cycles:\n{}", new.join("\n"));
    if std::env::var_os("MODULE_LAYERS_SRC").is_none() {
        let gone: Vec<&&str> = known.iter().filter(|k| !found.contains(**k)).collect();
        assert!(gone.is_empty(), "no longer on a cycle, take off module_layers_known.txt: {gone:#?}");
    }
}

#[test]
fn every_crate_of_the_workspace_is_checked() {
    let manifest = std::fs::read_to_string(workspace().join("Cargo.toml")).expect("Cargo.toml");
    let members: Vec<&str> = manifest
        .split("members")
        .nth(1)
        .and_then(|m| m.split(']').next())
        .expect("[workspace] members")
        .split('"')
        .skip(1)
        .step_by(2)
        .collect();
    for member in members {
        if workspace().join(member).join("src").is_dir() {
            assert!(CRATES.contains(&member), "{member} has a src/ the layers test does not read");
        }
    }
}

/// The scan sees the layers it must: the daemon's console reads what the tasks publish and the
/// owner and the connections share the messages below them; in the simulation the actors are
/// written against the node API, which the engine runs, and the observers read the engine.
#[test]
fn the_scan_sees_the_layers_it_must() {
    let daemon = Crate::read(&workspace().join("native-server/src")).graph(&[]);
    let sim = Crate::read(&workspace().join("sim/src")).graph(&[]);
    for (graph, from, to) in [
        (&daemon, "http", "observe"),
        (&daemon, "http", "messages"),
        (&daemon, "owner", "messages"),
        (&daemon, "conn", "messages"),
        (&sim, "actors", "node"),
        (&sim, "engine", "actors"),
        (&sim, "engine", "node"),
        (&sim, "observe", "engine"),
        (&sim, "timeline", "engine"),
    ] {
        assert!(graph[from].contains(to), "{from} should import {to}: {graph:#?}");
    }
    // Through a re-export of lib.rs (`crate::Sim`), and inside a folder.
    let engine = Crate::read(&workspace().join("sim/src")).graph(&["engine"]);
    assert!(engine.contains_key("actor") && engine.contains_key("net"), "{engine:#?}");
}
