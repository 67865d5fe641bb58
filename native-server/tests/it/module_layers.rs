//! No module of the daemon imports one that imports it back: every `crate::<module>` path in
//! `src/` (uses, paths in code and doc links alike) is an edge between top-level modules (a
//! file or a directory of `src/`), and the graph must have no cycle. The crate root
//! (`lib.rs`, `main.rs`) only wires the modules together and is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module with the top-level modules its files name.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let module_of = |path: &Path| {
        let first = path.strip_prefix(&src).unwrap().components().next().unwrap();
        first.as_os_str().to_string_lossy().trim_end_matches(".rs").to_string()
    };
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(f)).filter(|m| m != "lib" && m != "main").collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = modules.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    for file in &files {
        let from = module_of(file);
        let Some(edges) = graph.get_mut(&from) else { continue };
        let text = std::fs::read_to_string(file).unwrap();
        for (at, _) in text.match_indices("crate::") {
            let rest = &text[at + "crate::".len()..];
            // `crate::{a, b::c}` names a and b; `crate::a::…` names a.
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(list) => {
                    let mut depth = 0;
                    let end = list
                        .char_indices()
                        .find(|&(_, c)| {
                            depth += i32::from(c == '{') - i32::from(c == '}');
                            depth < 0
                        })
                        .map_or(list.len(), |(i, _)| i);
                    split_top(&list[..end])
                }
                None => vec![rest],
            };
            for name in names {
                let name: String = name.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if name != from && modules.contains(&name) {
                    edges.insert(name);
                }
            }
        }
    }
    graph
}

/// `a, b::{c, d}, e` split at the commas outside braces.
fn split_top(list: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    parts
}

/// A path of imports from `to` back to `from`, if there is one.
fn path_back(graph: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> Option<Vec<String>> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![vec![to.to_string()]];
    while let Some(path) = stack.pop() {
        let last = path.last().unwrap();
        if last == from {
            return Some(path);
        }
        if seen.insert(last.clone()) {
            for next in &graph[last] {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push(longer);
            }
        }
    }
    None
}

#[test]
fn no_daemon_module_imports_one_that_imports_it_back() {
    let graph = imports();
    // The scan sees the layers it must: the console reads what the tasks publish, and the
    // owner and the connections share the messages below them.
    for (from, to) in [("http", "observe"), ("http", "messages"), ("owner", "messages"), ("conn", "messages")] {
        assert!(graph[from].contains(to), "{from} should import {to}: {graph:#?}");
    }
    let cycles: Vec<String> = graph
        .iter()
        .flat_map(|(from, tos)| tos.iter().map(move |to| (from, to)))
        .filter_map(|(from, to)| path_back(&graph, from, to).map(|back| format!("{from} -> {}", back.join(" -> "))))
        .collect();
    assert!(cycles.is_empty(), "import cycles between daemon modules:\n{}", cycles.join("\n"));
}

#[test]
fn the_scan_finds_a_cycle_and_names_in_braces() {
    assert_eq!(split_top("a, b::{c, d}, e"), ["a", " b::{c, d}", " e"]);
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    assert_eq!(path_back(&graph, "a", "b"), Some(vec!["b".into(), "c".into(), "a".into()]));
    let mut acyclic = graph.clone();
    acyclic.insert("c".to_string(), BTreeSet::new());
    assert_eq!(path_back(&acyclic, "a", "b"), None);
}
