//! The library's layers point one way. Read from the source text, so the next change cannot
//! quietly undo them: no top-level module imports one that imports it back (directly or
//! through others), nor any file or folder a sibling that imports it back; the stages import
//! nothing from the command line or the commands, and never a later stage. The embedded
//! registry's boundary (the interface crate alone, no Polars) is its crate's dependencies,
//! checked here with `cargo tree`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The library's source files: a test module of its own file (`tests.rs`, `tests_*.rs`, declared
/// `#[cfg(test)] mod tests;`) is no library code, as an inline `mod tests` is not.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        if path.is_dir() {
            rust_files(&path, out);
        } else if stem == "tests" || stem.starts_with("tests_") {
            continue;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`src/extract/staging/mod.rs` -> `extract`).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib" && name != "main").then(|| name.to_string())
}

/// The code of a file without its `#[cfg(test)]` module and without comments: what the
/// library itself depends on.
fn production_code(text: &str) -> String {
    let cut = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    text[..cut]
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("//") || t.starts_with("#[cfg(test)]"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every top-level module of `modules` that `code` names from the crate root, in both forms:
/// paths (`crate::api::Cnpj`) and grouped imports (`use crate::{api::Cnpj, exit}`).
fn crate_references(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    top_level_references(code, &[], modules)
}

/// The top-level modules of `modules` that the paths of `code`, a file of module `here`, name.
fn top_level_references(code: &str, here: &[String], modules: &BTreeSet<String>) -> BTreeSet<String> {
    referenced_paths(code, here)
        .into_iter()
        .filter_map(|p| p.into_iter().next())
        .filter(|m| modules.contains(m))
        .collect()
}

fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(&src, f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some(module) = module_of(&src, file) else { continue };
        let text = std::fs::read_to_string(file).expect("read a source file");
        let mut refs = top_level_references(&production_code(&text), &module_path(&src, file), &modules);
        refs.remove(&module);
        graph.entry(module).or_default().extend(refs);
    }
    graph
}

#[test]
fn the_reference_scanner_sees_both_import_forms() {
    let modules: BTreeSet<String> = ["api", "exit", "cli"].iter().map(|s| s.to_string()).collect();
    let code = "use crate::{api::Cnpj, exit::{ExitStatus}};\nlet x = crate::cli::Locale::PtBr;";
    let found = crate_references(code, &modules);
    assert_eq!(found, modules);
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let graph = import_graph();
    // A path from `to` back to `from` closes a cycle; report the first one found.
    fn reaches(graph: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> Option<Vec<String>> {
        let mut stack = vec![(from.to_string(), vec![from.to_string()])];
        let mut seen = BTreeSet::new();
        while let Some((node, path)) = stack.pop() {
            if node == to {
                return Some(path);
            }
            if !seen.insert(node.clone()) {
                continue;
            }
            for next in graph.get(&node).into_iter().flatten() {
                let mut p = path.clone();
                p.push(next.clone());
                stack.push((next.clone(), p));
            }
        }
        None
    }
    for (module, imports) in &graph {
        for imported in imports {
            if let Some(back) = reaches(&graph, imported, module) {
                panic!("{module} imports {imported}, which leads back to it: {}", back.join(" -> "));
            }
        }
    }
}

/// The stages in the order the data flows through them (README, "Layout").
const STAGES: [&str; 8] =
    ["extract", "transform", "store", "analyze", "monitor", "export", "report", "deliver"];

#[test]
fn stages_import_nothing_from_the_command_line_or_the_commands() {
    let graph = import_graph();
    for stage in STAGES {
        let imports = graph.get(stage).unwrap_or_else(|| panic!("no module {stage} in src/"));
        for top in ["cli", "commands", "config", "pipeline"] {
            assert!(!imports.contains(top), "{stage} imports {top}: {imports:?}");
        }
    }
}

/// Each file of `src/` (relative, `/`-separated) with its code, tests and comments left out.
fn production_files() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
            (rel, production_code(&std::fs::read_to_string(f).expect("read a source file")))
        })
        .collect()
}

#[test]
fn the_environment_is_read_by_the_settings_and_the_test_hooks_alone() {
    let readers: Vec<String> = production_files()
        .into_iter()
        .filter(|(file, _)| file != "environment.rs" && file != "test_hooks.rs")
        .filter(|(_, code)| code.contains("env::var") || code.contains("env::vars"))
        .map(|(file, _)| file)
        .collect();
    assert!(readers.is_empty(), "environment variables read outside src/environment.rs: {readers:?}");
}

#[test]
fn clap_stays_in_the_command_line_the_settings_and_the_commands() {
    let allowed = |file: &str| {
        file == "main.rs" || ["cli/", "config/", "commands/"].iter().any(|folder| file.starts_with(folder))
    };
    let users: Vec<String> = production_files()
        .into_iter()
        .filter(|(file, _)| !allowed(file))
        .filter(|(_, code)| {
            code.contains("clap::") || code.contains("use clap") || code.contains("crate::cli")
        })
        .map(|(file, _)| file)
        .collect();
    assert!(users.is_empty(), "clap or its structs used outside cli, config and commands: {users:?}");
}

#[test]
fn the_commands_are_thin_files_one_per_subcommand() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/commands");
    let dispatch = std::fs::read_to_string(dir.join("mod.rs")).expect("read commands/mod.rs");
    let subcommands: BTreeSet<String> = dispatch
        .match_indices("Command::")
        .map(|(at, m)| dispatch[at + m.len()..].chars().take_while(char::is_ascii_alphanumeric).collect())
        .map(|name: String| name.to_ascii_lowercase())
        .collect();
    assert!(subcommands.len() >= 8, "{subcommands:?}");
    for entry in std::fs::read_dir(&dir).expect("read src/commands") {
        let path = entry.expect("dir entry").path();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        let lines = std::fs::read_to_string(&path).expect("read a command file").lines().count();
        assert!(
            subcommands.contains(&stem) || stem == "mod" || stem == "error",
            "src/commands/{stem}.rs is not a subcommand's file: the run's wiring goes in src/pipeline/"
        );
        assert!(lines < 150, "src/commands/{stem}.rs has {lines} lines: its work belongs in src/pipeline/");
    }
}

#[test]
fn a_stage_never_imports_a_later_one() {
    let graph = import_graph();
    for (i, stage) in STAGES.iter().enumerate() {
        let imports = graph.get(*stage).unwrap_or_else(|| panic!("no module {stage} in src/"));
        let later: Vec<&&str> = STAGES[i + 1..].iter().filter(|s| imports.contains(**s)).collect();
        assert!(later.is_empty(), "{stage} imports the later stage(s) {later:?}");
    }
}

/// `cargo tree` of one workspace crate: its normal dependencies, one name per line.
fn dependency_tree(package: &str) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["tree", "--offline", "--locked", "-e", "normal", "--prefix", "none", "-p", package])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "cargo tree -p {package}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn the_embedded_registry_depends_on_the_interface_alone_and_builds_without_polars() {
    let tree = dependency_tree("registry-sim");
    let crates: BTreeSet<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(crates.contains("registry-api"), "registry-sim uses the interface crate: {crates:?}");
    for other in ["fiscal-report", "polars", "polars-core", "deltalake", "arrow", "parquet"] {
        assert!(!crates.contains(other), "registry-sim depends on {other}");
    }
    let interface = dependency_tree("registry-api");
    assert!(!interface.lines().any(|l| l.starts_with("registry-sim ")), "the interface knows no registry");
}

/// A file's module path below the crate root: `src/extract/staging/mod.rs` ->
/// `[extract, staging]`, `src/commands/run.rs` -> `[commands, run]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("a file of src/");
    let mut path: Vec<String> = rel.iter().map(|c| c.to_string_lossy().to_string()).collect();
    let last = path.pop().unwrap_or_default();
    let stem = last.strip_suffix(".rs").unwrap_or(&last);
    if stem != "mod" && stem != "lib" {
        path.push(stem.to_string());
    }
    path
}

/// Every module path `code` names from `crate::`, `super::` (any number) or `self::`, made
/// absolute from `here` (the file's module path) and recorded segment by segment; the grouped
/// form `use super::{a::X, b}` gives `a` and `b`.
fn referenced_paths(code: &str, here: &[String]) -> BTreeSet<Vec<String>> {
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let mut found = BTreeSet::new();
    let mut i = 0;
    while let Some(at) = code[i..].find("::").map(|k| i + k) {
        // The word before `::` opens a path when it is `crate`, `super` or `self`, and starts it.
        let word_start = code[..at].rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |k| k + 1);
        let opens_path = code[..word_start].chars().next_back().is_none_or(|c| c != ':');
        let mut base = match &code[word_start..at] {
            "crate" if opens_path => Vec::new(),
            "super" | "self" if opens_path => here.to_vec(),
            _ => {
                i = at + 2;
                continue;
            }
        };
        if &code[word_start..at] == "super" {
            base.pop();
        }
        let mut after = &code[at + 2..];
        while let Some(a) = after.strip_prefix("super::") {
            base.pop();
            after = a;
        }
        loop {
            if let Some(group) = after.strip_prefix('{') {
                let end = group.find(';').unwrap_or(group.len());
                for item in group[..end].split([',', '{', '}', ' ', '\n']) {
                    let head = ident(item.trim());
                    if !head.is_empty() {
                        found.insert([base.clone(), vec![head]].concat());
                    }
                }
                break;
            }
            let head = ident(after);
            if head.is_empty() {
                break;
            }
            base.push(head.clone());
            found.insert(base.clone());
            match after[head.len()..].strip_prefix("::") {
                Some(next) => after = next,
                None => break,
            }
        }
        i = code.len() - after.len();
    }
    found
}

#[test]
fn the_path_scanner_resolves_super_self_and_groups() {
    let here: Vec<String> = ["extract", "staging", "journal"].iter().map(|s| s.to_string()).collect();
    let code = "use super::super::pool::Pool;\nuse super::{segment::Seg, lock};\nlet x = crate::api::Cnpj;";
    let found = referenced_paths(code, &here);
    let p = |s: &str| s.split('/').map(String::from).collect::<Vec<_>>();
    for expected in ["extract/pool", "extract/staging/segment", "extract/staging/lock", "api"] {
        assert!(found.contains(&p(expected)), "{expected} not in {found:?}");
    }
    assert!(!found.contains(&p("extract/staging/pool")), "super::super:: read once: {found:?}");
}

/// Folder -> each of its children (files and subfolders) -> the siblings it names, for the
/// crate whose sources are in `src`.
fn folder_graphs(src: &Path) -> BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.retain(|f| !f.ends_with("main.rs"));
    let mut children: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    let mut graphs: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let here = module_path(src, file);
        let text = std::fs::read_to_string(file).expect("read a source file");
        let refs = referenced_paths(&production_code(&text), &here);
        for depth in 0..here.len() {
            let (folder, child) = (here[..depth].to_vec(), here[depth].clone());
            children.entry(folder.clone()).or_default().insert(child.clone());
            let named = graphs.entry(folder.clone()).or_default().entry(child.clone()).or_default();
            for r in refs.iter().filter(|r| r.len() > depth && r[..depth] == folder[..] && r[depth] != child)
            {
                named.insert(r[depth].clone());
            }
        }
    }
    // Only siblings count (a path may name a type or function at this level).
    for (folder, graph) in &mut graphs {
        let known = children.get(folder).cloned().unwrap_or_default();
        for named in graph.values_mut() {
            named.retain(|n| known.contains(n));
        }
    }
    graphs
}

#[test]
fn no_import_loop_inside_any_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut loops = Vec::new();
    for crate_src in ["src", "crates/registry-api/src", "crates/registry-sim/src"] {
        for (folder, graph) in folder_graphs(&root.join(crate_src)) {
            if let Some(cycle) = first_cycle(&graph) {
                loops.push(format!("{crate_src}/{}: {}", folder.join("/"), cycle.join(" -> ")));
            }
        }
    }
    assert!(loops.is_empty(), "import loops inside folders:\n{}", loops.join("\n"));
}

/// A cycle in `graph`, as the path that closes it, if there is one.
fn first_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    for start in graph.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((node, path)) = stack.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                let mut p = path.clone();
                p.push(next.clone());
                if next == start {
                    return Some(p);
                }
                if seen.insert(next.clone()) {
                    stack.push((next.clone(), p));
                }
            }
        }
    }
    None
}
