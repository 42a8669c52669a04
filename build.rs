//! Compiles copies of `queries/*.sql`, `queries/historico/*.sql`, `templates/**/*.hbs`, `templates/strings/*.toml`, `templates/explore.js` and
//! `codes/*.csv` into the binary, so the tool
//! works from any directory; `--queries` / `--templates` point at an analyst's own copies.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn files(dir: &Path, exts: &[&str], recurse: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if recurse {
                files(&p, exts, recurse, out);
            }
        } else if exts.iter().any(|ext| p.to_string_lossy().ends_with(ext)) {
            out.push(p);
        }
    }
}

fn list(root: &Path, sub: &str, exts: &[&str], strip_ext: bool, recurse: bool) -> String {
    let dir = root.join(sub);
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut found = Vec::new();
    files(&dir, exts, recurse, &mut found);
    found.sort();
    let mut s = String::from("&[\n");
    for p in found {
        println!("cargo:rerun-if-changed={}", p.display());
        let rel = p.strip_prefix(&dir).unwrap_or(&p).to_string_lossy().replace('\\', "/");
        let name =
            if strip_ext { exts.iter().fold(rel, |r, ext| r.trim_end_matches(ext).to_string()) } else { rel };
        let _ = writeln!(s, "    ({name:?}, include_str!({:?})),", p.display().to_string());
    }
    s.push(']');
    s
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    let code = format!(
        "/// Built-in `queries/*.sql`: (name, text).\npub(crate) const QUERIES: &[(&str, &str)] = {};\n\
         /// Built-in `queries/historico/*.sql`, the series over every snapshot of a store: (name, text).\n\
         pub(crate) const HISTORY_QUERIES: &[(&str, &str)] = {};\n\
         /// Built-in `templates/**/*.hbs`, `templates/strings/*.toml` and `templates/explore.js`: (relative path, text).\n\
         pub(crate) const TEMPLATES: &[(&str, &str)] = {};\n\
         /// Built-in `codes/*.csv`: (table name, text).\npub(crate) const CODES: &[(&str, &str)] = {};\n",
        list(&root, "queries", &[".sql"], true, false),
        list(&root, "queries/historico", &[".sql"], true, false),
        list(&root, "templates", &[".hbs", ".toml", ".js"], false, true),
        list(&root, "codes", &[".csv"], true, false)
    );
    let _ = std::fs::write(out.join("builtin.rs"), code);
}
