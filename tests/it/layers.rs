//! The library's layers point one way. Read from the source text, so the next change cannot
//! quietly undo them: no top-level module imports one that imports it back (directly or
//! through others); the stages import nothing from the command line or the commands; the
//! embedded registry shares only the `api` models with the rest.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
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

/// Every top-level module named after `crate::` in `code`, in both forms: paths
/// (`crate::api::Cnpj`) and grouped imports (`use crate::{api::Cnpj, exit}`).
fn crate_references(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find(';').unwrap_or(group.len());
            for item in group[..end].split([',', '{', '}', ' ', '\n']) {
                let head = item.trim().split("::").next().unwrap_or("");
                if modules.contains(head) {
                    found.insert(head.to_string());
                }
            }
        } else {
            let head: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if modules.contains(&head) {
                found.insert(head);
            }
        }
    }
    found
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
        let mut refs = crate_references(&production_code(&text), &modules);
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

#[test]
fn stages_import_nothing_from_the_command_line_or_the_commands() {
    let graph = import_graph();
    for stage in ["extract", "transform", "analyze", "monitor", "export", "report"] {
        let imports = graph.get(stage).unwrap_or_else(|| panic!("no module {stage} in src/"));
        for top in ["cli", "commands", "config"] {
            assert!(!imports.contains(top), "{stage} imports {top}: {imports:?}");
        }
    }
}

#[test]
fn the_embedded_registry_shares_only_the_api_models() {
    let graph = import_graph();
    let imports = graph.get("simulator").expect("no module simulator in src/");
    let expected: BTreeSet<String> = ["api".to_string()].into();
    assert_eq!(imports, &expected);
}
