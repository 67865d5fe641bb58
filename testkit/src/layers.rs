//! Module layers: no module imports one that imports it back, at every level of a crate.
//!
//! A crate's `src/` is a tree of modules. At each folder of it (the crate root, then every
//! directory module), the children are the nodes: a file `x.rs`, a directory `x/` (with an
//! `x.rs` beside it if there is one), and the folder's own `lib.rs`/`mod.rs` unless it only
//! declares modules and re-exports. An edge goes from the child holding a path to the child
//! it names: `crate::…`, `super::…` and `self::…` paths in code, uses and doc links alike, and
//! in a `lib.rs`/`mod.rs` a path that starts with one of its own modules. A name re-exported by
//! a `lib.rs`/`mod.rs` (`pub use a::b::C`) resolves to where it comes from. Inline modules
//! (`mod tests { use super::*; }`) count as part of their file. Every folder's graph must be
//! acyclic. `src/bin/` holds separate crates and is left out, and so is a binary's `main.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One module: its file (if any), whether that file is more than declarations and
/// re-exports, its child modules, and the names it re-exports with the module path each
/// comes from (relative to the crate root).
#[derive(Debug, Default)]
struct Module {
    file: Option<PathBuf>,
    is_node: bool,
    children: BTreeMap<String, Self>,
    reexports: BTreeMap<String, Vec<String>>,
}

/// A crate's module tree, read from its `src/`.
#[derive(Debug)]
pub struct Crate {
    root: Module,
}

/// Each child of a folder with the children its files name.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// An import that lies on a cycle: in `folder` (`crate` for the root, else `a::b`), `from`
/// names `to`, and `back` is a way from `to` back to `from`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// The folder, `crate` or a module path.
    pub folder: String,
    /// The child that imports.
    pub from: String,
    /// The child it imports.
    pub to: String,
    /// A way back: `to`, …, `from`.
    pub back: Vec<String>,
}

impl Cycle {
    /// `folder: from -> to`, the import alone.
    #[must_use]
    pub fn edge(&self) -> String {
        format!("{}: {} -> {}", self.folder, self.from, self.to)
    }
}

impl std::fmt::Display for Cycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} -> {}", self.folder, self.from, self.back.join(" -> "))
    }
}

impl Crate {
    /// Reads `src` (a crate's `src/` directory): `lib.rs` and the modules under it.
    ///
    /// # Panics
    /// If `src` cannot be read.
    #[must_use]
    pub fn read(src: &Path) -> Self {
        let mut root = read_dir_module(src, &src.join("lib.rs"));
        root.file = Some(src.join("lib.rs"));
        let mut crate_ = Self { root };
        crate_.resolve_reexports();
        crate_
    }

    /// The graph of the folder at `path` (module names from the root; empty for the root).
    #[must_use]
    pub fn graph(&self, path: &[&str]) -> Graph {
        let Some(folder) = self.module(path) else { return Graph::new() };
        let own = own_name(path);
        let mut graph: Graph = folder.children.keys().map(|c| (c.clone(), BTreeSet::new())).collect();
        if folder.is_node {
            graph.insert(own.to_string(), BTreeSet::new());
        }
        let mut files = Vec::new();
        collect_files(folder, &path.iter().map(|s| (*s).to_string()).collect::<Vec<_>>(), &mut files);
        for (module_path, file) in files {
            let from = if module_path.len() == path.len() { own.to_string() } else { module_path[path.len()].clone() };
            if !graph.contains_key(&from) {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for target in self.references(&module_path, &text) {
                if target.len() < path.len() || target[..path.len()] != *path {
                    continue;
                }
                let to = if target.len() == path.len() { own.to_string() } else { target[path.len()].clone() };
                if to != from && graph.contains_key(&to) {
                    graph.get_mut(&from).unwrap().insert(to);
                }
            }
        }
        graph
    }

    /// Every import that lies on a cycle, folder by folder.
    #[must_use]
    pub fn cycles(&self) -> Vec<Cycle> {
        let mut folders = Vec::new();
        collect_folders(&self.root, &mut Vec::new(), &mut folders);
        let mut found = Vec::new();
        for folder in folders {
            let path: Vec<&str> = folder.iter().map(String::as_str).collect();
            let graph = self.graph(&path);
            for (from, tos) in &graph {
                for to in tos {
                    if let Some(back) = path_back(&graph, from, to) {
                        let folder = if folder.is_empty() { "crate".to_string() } else { folder.join("::") };
                        found.push(Cycle { folder, from: from.clone(), to: to.clone(), back });
                    }
                }
            }
        }
        found
    }

    fn module(&self, path: &[&str]) -> Option<&Module> {
        let mut m = &self.root;
        for p in path {
            m = m.children.get(*p)?;
        }
        Some(m)
    }

    /// Module paths (from the root) that the text of the file of module `at` names.
    fn references(&self, at: &[String], text: &str) -> Vec<Vec<String>> {
        let inline = inline_modules(text);
        let own_children: Vec<String> = self
            .module(&at.iter().map(String::as_str).collect::<Vec<_>>())
            .map(|m| m.children.keys().cloned().collect())
            .unwrap_or_default();
        let is_folder_file = self.module(&at.iter().map(String::as_str).collect::<Vec<_>>()).is_some_and(|m| {
            m.file.as_ref().is_some_and(|f| f.file_name().is_some_and(|n| n == "lib.rs" || n == "mod.rs"))
        });
        let mut out = Vec::new();
        let bytes = text.as_bytes();
        for (i, _) in text.char_indices() {
            if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b':') {
                continue;
            }
            let rest = &text[i..];
            let (base, after): (Vec<String>, &str) = if let Some(r) = rest.strip_prefix("crate::") {
                (Vec::new(), r)
            } else if rest.starts_with("super::") || rest.starts_with("self::") {
                let mut here: Vec<String> = at.to_vec();
                here.extend(inline.iter().filter(|(s, e, _)| *s <= i && i < *e).map(|(_, _, n)| n.clone()));
                let mut r = rest;
                loop {
                    if let Some(x) = r.strip_prefix("super::") {
                        here.pop();
                        r = x;
                    } else if let Some(x) = r.strip_prefix("self::") {
                        r = x;
                    } else {
                        break;
                    }
                }
                (here, r)
            } else if is_folder_file && starts_with_child(rest, &own_children) {
                (at.to_vec(), rest)
            } else {
                continue;
            };
            for names in split_path_lists(after) {
                let mut path = base.clone();
                path.extend(names);
                out.push(self.resolve(&path));
            }
        }
        out
    }

    /// The deepest module a path reaches, through re-exports.
    fn resolve(&self, path: &[String]) -> Vec<String> {
        let mut here: Vec<String> = Vec::new();
        let mut m = &self.root;
        for (depth, name) in path.iter().enumerate() {
            if let Some(child) = m.children.get(name) {
                here.push(name.clone());
                m = child;
            } else if let Some(from) = m.reexports.get(name) {
                if from.len() > here.len() || from[..] != here[..] {
                    let mut next = from.clone();
                    next.extend(path[depth + 1..].iter().cloned());
                    return self.resolve(&next);
                }
                return here;
            } else {
                return here;
            }
        }
        here
    }

    /// Makes every re-export's source a module path from the root.
    fn resolve_reexports(&mut self) {
        fn walk(m: &mut Module, at: &[String]) {
            let children: Vec<String> = m.children.keys().cloned().collect();
            for from in m.reexports.values_mut() {
                let relative = match from.first().map(String::as_str) {
                    Some("crate") => from[1..].to_vec(),
                    Some("self") => at.iter().cloned().chain(from[1..].iter().cloned()).collect(),
                    Some("super") => {
                        let mut here = at.to_vec();
                        here.pop();
                        here.into_iter().chain(from[1..].iter().cloned()).collect()
                    }
                    Some(first) if children.iter().any(|c| c == first) => {
                        at.iter().cloned().chain(from.iter().cloned()).collect()
                    }
                    _ => Vec::new(),
                };
                *from = relative;
            }
            m.reexports.retain(|_, from| !from.is_empty());
            for (name, child) in &mut m.children {
                let mut deeper = at.to_vec();
                deeper.push(name.clone());
                walk(child, &deeper);
            }
        }
        walk(&mut self.root, &[]);
    }
}

/// The node name of a folder's own file: `lib` at the root, `mod` elsewhere.
fn own_name(path: &[&str]) -> &'static str {
    if path.is_empty() { "lib" } else { "mod" }
}

fn starts_with_child(rest: &str, children: &[String]) -> bool {
    children.iter().any(|c| rest.strip_prefix(c.as_str()).is_some_and(|r| r.starts_with("::")))
}

/// A directory module: its own file (`mod.rs`, or `x.rs` beside `x/`) and its children.
fn read_dir_module(dir: &Path, own: &Path) -> Module {
    let mut m = Module::default();
    if own.exists() {
        m.file = Some(own.to_path_buf());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if dir.join("lib.rs") == own && name == "bin" {
                continue;
            }
            let beside = dir.join(format!("{name}.rs"));
            let own = if path.join("mod.rs").exists() { path.join("mod.rs") } else { beside };
            m.children.insert(name, read_dir_module(&path, &own));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let is_own = path == own
                || name == "mod"
                || (dir.join("lib.rs") == own && (name == "lib" || name == "main"))
                || dir.join(&name).is_dir();
            if !is_own {
                m.children.insert(name, Module { file: Some(path), ..Module::default() });
            }
        }
    }
    if let Some(file) = &m.file {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        m.is_node = !only_declares_and_reexports(&text);
        m.reexports = reexports(&text);
    }
    for child in m.children.values_mut() {
        if child.children.is_empty()
            && let Some(file) = &child.file
        {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            child.is_node = true;
            child.reexports = reexports(&text);
        }
    }
    m
}

fn collect_files(m: &Module, at: &[String], out: &mut Vec<(Vec<String>, PathBuf)>) {
    if let Some(file) = &m.file {
        out.push((at.to_vec(), file.clone()));
    }
    for (name, child) in &m.children {
        let mut deeper = at.to_vec();
        deeper.push(name.clone());
        collect_files(child, &deeper, out);
    }
}

fn collect_folders(m: &Module, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    if m.children.is_empty() {
        return;
    }
    out.push(at.clone());
    for (name, child) in &m.children {
        at.push(name.clone());
        collect_folders(child, at, out);
        at.pop();
    }
}

/// Comments removed (line, block and doc comments), strings left as they are.
fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.find('\n').map_or("", |i| &r[i..]);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.find("*/").map_or("", |i| &r[i + 2..]);
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Whether a `lib.rs`/`mod.rs` holds nothing but attributes, `mod x;`, `use …;` and
/// `extern crate …;`.
fn only_declares_and_reexports(text: &str) -> bool {
    let code = strip_comments(text);
    let mut rest = code.trim_start();
    while !rest.is_empty() {
        if rest.starts_with("#[") || rest.starts_with("#![") {
            let Some(end) = bracket_end(rest) else { return false };
            rest = rest[end..].trim_start();
            continue;
        }
        let item = rest.strip_prefix("pub").map_or(rest, |r| {
            let r = r.trim_start();
            if r.starts_with('(') { r.find(')').map_or(r, |i| r[i + 1..].trim_start()) } else { r }
        });
        let declares = item.starts_with("mod ") && item.find(';').is_some_and(|i| !item[..i].contains('{'));
        if !(declares || item.starts_with("use ") || item.starts_with("extern crate ")) {
            return false;
        }
        let Some(end) = item.find(';') else { return false };
        rest = item[end + 1..].trim_start();
    }
    true
}

fn bracket_end(text: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The names a file re-exports (`pub use a::b::{C, d::E};` and `pub(crate) use …`), each
/// with the path it comes from (as written: `crate`, `self`, `super` or a child first).
fn reexports(text: &str) -> BTreeMap<String, Vec<String>> {
    let code = strip_comments(text);
    let mut out = BTreeMap::new();
    for (i, _) in code.match_indices("use ") {
        let before = code[..i].trim_end();
        let restricted = before.rsplit_once("pub(").is_some_and(|(_, r)| r.ends_with(')') && !r.contains(['\n', ';']));
        if !(before.ends_with("pub") || restricted) {
            continue;
        }
        let Some(end) = code[i..].find(';') else { continue };
        let tree = code[i + 4..i + end].trim();
        for names in split_path_lists(tree) {
            let mut names = names;
            let Some(last) = names.last().cloned() else { continue };
            if last == "self" {
                names.pop();
            }
            let Some(name) = names.last().cloned() else { continue };
            if name == "*" {
                continue;
            }
            names.pop();
            out.insert(name, names);
        }
    }
    out
}

/// The paths a `use` tree or a path names: `a::{b, c::{d, e}}::…` gives `[a, b]`,
/// `[a, c, d]`, `[a, c, e]`; a plain path, its segments (stopping at what is not a name).
fn split_path_lists(text: &str) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    let mut rest = text;
    loop {
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if name.is_empty() {
            if let Some(list) = rest.strip_prefix('{') {
                let end = matching_brace(list).unwrap_or(list.len());
                return split_top(&list[..end])
                    .into_iter()
                    .flat_map(|part| {
                        let part = part.trim();
                        let part = part.split(" as ").next().unwrap_or(part).trim();
                        split_path_lists(part).into_iter().map(|tail| prefix.iter().cloned().chain(tail).collect())
                    })
                    .collect();
            }
            if rest.starts_with('*') {
                prefix.push("*".to_string());
            }
            return vec![prefix];
        }
        rest = &rest[name.len()..];
        prefix.push(name);
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => return vec![prefix],
        }
    }
}

fn matching_brace(list: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
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
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// Inline modules (`mod name { … }`) as (start, end, name) byte ranges of `text`.
fn inline_modules(text: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("mod ") {
        if i > 0 && (text.as_bytes()[i - 1].is_ascii_alphanumeric() || text.as_bytes()[i - 1] == b'_') {
            continue;
        }
        let rest = &text[i + 4..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let after = rest[name.len()..].trim_start();
        if name.is_empty() || !after.starts_with('{') {
            continue;
        }
        let open = i + 4 + name.len() + (rest[name.len()..].len() - after.len());
        let end = matching_brace(&text[open + 1..]).map_or(text.len(), |e| open + 1 + e + 1);
        out.push((open, end, name));
    }
    out
}

/// Each edge of `graph` that lies on a cycle, with the way back: `a -> b -> … -> a`.
#[must_use]
pub fn cycles(graph: &Graph) -> Vec<String> {
    graph
        .iter()
        .flat_map(|(from, tos)| tos.iter().map(move |to| (from, to)))
        .filter_map(|(from, to)| path_back(graph, from, to).map(|back| format!("{from} -> {}", back.join(" -> "))))
        .collect()
}

/// A path of imports from `to` back to `from`, if there is one.
#[must_use]
pub fn path_back(graph: &Graph, from: &str, to: &str) -> Option<Vec<String>> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![vec![to.to_string()]];
    while let Some(path) = stack.pop() {
        let last = path.last().unwrap();
        if last == from {
            return Some(path);
        }
        if seen.insert(last.clone()) {
            for next in graph.get(last).into_iter().flatten() {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push(longer);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_lists_split_into_names() {
        assert_eq!(
            split_path_lists("a::{b, c::{d, e as f}}::x"),
            [vec!["a", "b"], vec!["a", "c", "d"], vec!["a", "c", "e"]]
        );
        assert_eq!(split_path_lists("engine::Sim;"), [vec!["engine", "Sim"]]);
        assert_eq!(split_top("a, b::{c, d}, e"), ["a", " b::{c, d}", " e"]);
    }

    #[test]
    fn a_file_that_only_declares_is_not_a_node() {
        assert!(only_declares_and_reexports(
            "//! Docs.\n#![no_std]\nextern crate alloc;\npub mod a;\nmod b;\npub use a::{X, Y};\n"
        ));
        assert!(!only_declares_and_reexports("pub mod a;\npub fn f() {}\n"));
        assert!(!only_declares_and_reexports("mod a { }\n"));
        assert_eq!(reexports("pub use a::b::{C, d::E};\npub(crate) use self::f::G;\nuse h::I;"), {
            let v = |s: &[&str]| s.iter().map(|x| (*x).to_string()).collect::<Vec<_>>();
            BTreeMap::from([
                ("C".to_string(), v(&["a", "b"])),
                ("E".to_string(), v(&["a", "b", "d"])),
                ("G".to_string(), v(&["self", "f"])),
            ])
        });
    }

    #[test]
    fn the_way_back_closes_a_cycle() {
        let graph: Graph = [
            ("a".to_string(), BTreeSet::from(["b".to_string()])),
            ("b".to_string(), BTreeSet::from(["c".to_string()])),
            ("c".to_string(), BTreeSet::from(["a".to_string()])),
        ]
        .into();
        assert_eq!(path_back(&graph, "a", "b"), Some(vec!["b".into(), "c".into(), "a".into()]));
        let mut acyclic = graph.clone();
        acyclic.insert("c".to_string(), BTreeSet::new());
        assert!(cycles(&acyclic).is_empty());
        assert_eq!(cycles(&graph).len(), 3);
    }

    #[test]
    fn inline_modules_are_found() {
        let text = "fn f() {}\nmod tests {\n    use super::*;\n    fn g() { }\n}\n";
        let found = inline_modules(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].2, "tests");
        assert!(text[found[0].0..found[0].1].contains("use super::*;"));
    }
}
