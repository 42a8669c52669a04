//! docs/cli.md is generated from the command-line definitions and must match them; every
//! variable the source reads is in it; and every `fiscal-report …` command line written in
//! README.md, CONTRIBUTING.md, docs/ and deploy/ parses with the real definitions, so a renamed
//! flag or subcommand fails here, not for the reader who copies the line.
//!
//!     UPDATE_DOCS=1 cargo test --test it docs_cli     # regenerate after changing a flag

use std::path::{Path, PathBuf};

use clap::Parser;
use clap::error::ErrorKind;
use fiscal_report::cli::Cli;
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser as Markdown, Tag, TagEnd};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_committed_cli_reference_matches_the_code() {
    let text = fiscal_report::commands::cli_reference();
    let path = root().join("docs/cli.md");
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(committed == text, "docs/cli.md is stale: run `UPDATE_DOCS=1 cargo test --test it docs_cli`");
}

#[test]
fn the_reference_names_every_flag_and_subcommand_of_the_help() {
    // Read apart from the generator: the names `--help` prints for each subcommand.
    let reference = fiscal_report::commands::cli_reference();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fiscal-report")).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let subcommands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A name starts its line at two spaces; a wrapped description goes deeper.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|s| s != "help")
        .collect();
    assert!(subcommands.len() >= 9, "{help}");
    for sub in &subcommands {
        assert!(reference.contains(&format!("## `fiscal-report {sub}`")), "no section for {sub}");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_fiscal-report"))
            .args([sub.as_str(), "--help"])
            .output()
            .unwrap();
        for word in String::from_utf8_lossy(&out.stdout).split(|c: char| c.is_whitespace() || c == ',') {
            if let Some(flag) = word.strip_prefix("--").filter(|f| f.len() > 1 && *f != "help") {
                let flag =
                    flag.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).next().unwrap_or_default();
                let named = reference.match_indices(&format!("--{flag}")).any(|(i, m)| {
                    !reference[i + m.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
                });
                assert!(named, "`{sub} --{flag}` is not in docs/cli.md");
            }
        }
    }
}

/// Every `*.rs` file under `dir`.
fn sources(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

/// The identifier that follows each occurrence of `prefix` in `text` (letters, digits, `_`).
fn names_after<'t>(text: &'t str, prefix: &str) -> Vec<&'t str> {
    text.match_indices(prefix)
        .map(|(i, _)| {
            let rest = &text[i + prefix.len()..];
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
            &rest[..end]
        })
        .filter(|n| !n.is_empty())
        .collect()
}

#[test]
fn every_variable_the_source_reads_is_in_the_reference() {
    let reference = fiscal_report::commands::cli_reference();
    let section = &reference[reference.find("## Environment variables").unwrap()..];
    let mut files = Vec::new();
    sources(&root().join("src"), &mut files);
    let mut read = std::collections::BTreeSet::new();
    for file in files.iter().filter(|f| !f.ends_with("test_hooks.rs") && !f.ends_with("tests.rs")) {
        let text = std::fs::read_to_string(file).unwrap();
        for name in names_after(&text, "\"FISCAL_REPORT_") {
            read.insert(format!("FISCAL_REPORT_{name}"));
        }
        // `config`'s readers of FISCAL_REPORT_<KEY> (`text` is download.rs's for its URLs).
        let calls: &[&str] = if file.starts_with(root().join("src/config")) {
            &["env_var(\"", "env_parsed(\"", "env_switch(\"", "text(\""]
        } else {
            &[]
        };
        for call in calls {
            for name in names_after(&text, call) {
                read.insert(format!("FISCAL_REPORT_{}", name.to_ascii_uppercase()));
            }
        }
        // clap's `env = "NAME"` (not cfg's `target_env = "msvc"`: a variable is upper case).
        for name in names_after(&text, "std::env::var(\"").into_iter().chain(names_after(&text, "env = \"")) {
            if name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') {
                read.insert(name.to_string());
            }
        }
    }
    assert!(read.len() > 40, "{read:?}");
    for var in read {
        assert!(section.contains(&format!("| `{var}` |")), "{var} is read in src/ but not in docs/cli.md");
    }
}

/// One command line found in a file, as words, and where, for the message.
struct Line {
    place: String,
    words: Vec<String>,
}

/// `$(…)` (a command substitution) and `{{ … }}` (a scheduler's template), which may hold
/// spaces, as one word each.
fn without_substitutions(line: &str) -> String {
    let line = without_templates(line);
    let mut out = String::new();
    let mut rest = line.as_str();
    while let Some(i) = rest.find("$(") {
        out.push_str(&rest[..i]);
        out.push_str("SUBST");
        let mut depth = 0;
        let mut end = rest.len();
        for (j, c) in rest[i..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn without_templates(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find('{') {
        let Some(len) = rest[i..].find('}') else { break };
        let end = i + len + rest[i + len..].find(|c: char| c != '}').unwrap_or(rest.len() - i - len);
        out.push_str(&rest[..i]);
        out.push_str("TEMPLATE");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The `fiscal-report` (or `cargo run … --`) command lines of a shell text: each program word
/// and the words after it, up to a shell operator.
fn command_lines(text: &str, place: &str, into: &mut Vec<Line>) {
    let joined = text.replace("\\\n", " ");
    for (n, raw) in joined.lines().enumerate() {
        let Some(words) = shlex::split(&without_substitutions(raw)) else { continue };
        let mut i = 0;
        while i < words.len() {
            // The program by name, or by its path (also after `ExecStart=`).
            let path = words[i].rsplit('=').next().unwrap_or_default();
            let program = words[i] == "fiscal-report" || path.ends_with("/fiscal-report");
            let after_flag = i > 0 && words[i - 1].starts_with('-');
            let cargo_run = words[i] == "cargo" && words.get(i + 1).is_some_and(|w| w == "run");
            let start = if program && !after_flag {
                Some(i + 1)
            } else if cargo_run {
                words[i..].iter().position(|w| w == "--").map(|p| i + p + 1)
            } else {
                None
            };
            let Some(start) = start else {
                i += 1;
                continue;
            };
            let mut args = vec!["fiscal-report".to_string()];
            let mut j = start;
            while let Some(w) = words.get(j) {
                if ["|", "||", "&&", "&", ";", ">", ">>", "2>", "2>&1", "<"].contains(&w.as_str()) {
                    break;
                }
                let ends = w.ends_with(';');
                // A usage line's optional parts (`[OPTIONS]`, `[ID]`) are no words of a command.
                if !(w.starts_with('[') && w.ends_with(']')) {
                    args.push(w.trim_end_matches(';').to_string());
                }
                j += 1;
                if ends {
                    break;
                }
            }
            if args.len() > 1 {
                into.push(Line { place: format!("{place}:{}", n + 1), words: args });
            }
            i = j;
        }
    }
}

/// The shell text of a Markdown page: its code blocks and inline code spans.
fn markdown_lines(path: &Path, into: &mut Vec<Line>) {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.strip_prefix(root()).unwrap().display().to_string();
    let line_of = |offset: usize| text[..offset].lines().count().max(1);
    let mut block: Option<(usize, bool, String)> = None;
    for (event, range) in Markdown::new_ext(&text, Options::all()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let shell = match kind {
                    CodeBlockKind::Fenced(lang) => {
                        ["", "sh", "bash", "shell", "console"].contains(&lang.as_ref())
                    }
                    CodeBlockKind::Indented => true,
                };
                block = Some((line_of(range.start), shell, String::new()));
            }
            Event::Text(t) => {
                if let Some((_, _, body)) = block.as_mut() {
                    body.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((line, true, body)) = block.take() {
                    let place = format!("{name} (block at line {line})");
                    command_lines(&body, &place, into);
                }
            }
            Event::Code(code) if code.starts_with("fiscal-report ") => {
                command_lines(&code, &format!("{name}:{} `{code}`", line_of(range.start)), into);
            }
            _ => {}
        }
    }
}

/// The argument lists of deploy/'s Kubernetes containers and Airflow tasks, read by Python
/// (YAML by PyYAML; a DAG's `bash_command` strings evaluated from its own constants).
fn deploy_structured(into: &mut Vec<Line>) {
    const SCRIPT: &str = r#"
import ast, json, pathlib, sys, yaml
root = pathlib.Path(sys.argv[1])
out = []
def walk(node, f):
    if isinstance(node, dict):
        if "fiscal-report" in str(node.get("image", "")) and "args" in node:
            out.append({"place": f, "words": ["fiscal-report"] + [str(a) for a in node["args"]]})
        for v in node.values(): walk(v, f)
    elif isinstance(node, list):
        for v in node: walk(v, f)
for f in sorted((root / "deploy").rglob("*.yaml")):
    for doc in yaml.safe_load_all(f.read_text()):
        walk(doc, str(f.relative_to(root)))
def value(node, names, f):
    # A name the file binds at run time (a loop's variable) stands for "0".
    while True:
        try: return eval(compile(ast.Expression(node), str(f), "eval"), names)
        except NameError as e: names[e.name] = "0"
for f in sorted((root / "deploy").rglob("*.py")):
    tree = ast.parse(f.read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try: names[node.targets[0].id] = value(node.value, names, f)
            except Exception: pass
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "bash_command":
            out.append({"place": f"{f.relative_to(root)}:{node.value.lineno}", "text": value(node.value, names, f)})
print(json.dumps(out))
"#;
    let o = std::process::Command::new("python3").args(["-c", SCRIPT]).arg(root()).output().unwrap();
    assert!(o.status.success(), "python3 with pyyaml: {}", String::from_utf8_lossy(&o.stderr));
    let found: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    for item in found {
        let place = item["place"].as_str().unwrap().to_string();
        if let Some(words) = item["words"].as_array() {
            into.push(Line { place, words: words.iter().map(|w| w.as_str().unwrap().to_string()).collect() });
        } else {
            command_lines(item["text"].as_str().unwrap(), &place, into);
        }
    }
}

#[test]
fn every_command_line_in_the_docs_and_deploy_parses() {
    let mut lines = Vec::new();
    let mut pages = vec![root().join("README.md"), root().join("CONTRIBUTING.md")];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    for page in &pages {
        markdown_lines(page, &mut lines);
    }
    for file in ["deploy/cron.txt", "deploy/systemd/fiscal-report.service"] {
        command_lines(&std::fs::read_to_string(root().join(file)).unwrap(), file, &mut lines);
    }
    deploy_structured(&mut lines);
    // Every kind of place was read: a change to the extraction cannot make this pass on nothing.
    for place in [
        "README.md",
        "docs/cli.md",
        "docs/service.md",
        "deploy/cron.txt",
        "deploy/systemd",
        "cronjob.yaml",
        "airflow",
    ] {
        assert!(lines.iter().any(|l| l.place.contains(place)), "no command line found in {place}");
    }
    let mut bad = Vec::new();
    for line in &lines {
        if let Err(e) = Cli::try_parse_from(&line.words)
            && matches!(e.kind(), ErrorKind::UnknownArgument | ErrorKind::InvalidSubcommand)
        {
            let first = e.to_string().lines().next().unwrap_or_default().to_string();
            bad.push(format!("{}: `{}`: {first}", line.place, line.words.join(" ")));
        }
    }
    assert!(bad.is_empty(), "command lines clap refuses:\n{}", bad.join("\n"));
}

#[test]
fn an_unknown_flag_or_subcommand_in_a_docs_line_is_caught() {
    // The check above on lines made wrong on purpose, so it cannot pass by parsing nothing.
    let mut lines = Vec::new();
    command_lines(
        "fiscal-report run --no-such-flag 1 | tee log\nFOO=1 fiscal-report frobnicate\n./target/release/fiscal-report run --out x",
        "t",
        &mut lines,
    );
    let kinds: Vec<Option<ErrorKind>> =
        lines.iter().map(|l| Cli::try_parse_from(&l.words).err().map(|e| e.kind())).collect();
    assert_eq!(kinds, [Some(ErrorKind::UnknownArgument), Some(ErrorKind::InvalidSubcommand), None]);
}
