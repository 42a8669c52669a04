//! Every relative link of README.md, CONTRIBUTING.md and the guides in docs/ leads somewhere: to
//! a file or folder of the repository and, where it names one, to a heading of that page (by
//! GitHub's rule for heading anchors). A guide moved or a heading renamed fails here, not in a
//! reader's browser.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The pages a reader follows links from.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md"), root().join("CONTRIBUTING.md")];
    let mut guides: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guides.sort();
    pages.extend(guides);
    pages
}

/// GitHub's anchor of a heading: lower case, spaces to '-', every other character that is not
/// a letter, a digit, '-' or '_' dropped; a repeated anchor gets -1, -2, ...
fn anchors(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut heading: Option<String> = None;
    for event in Parser::new_ext(text, Options::all()) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let h = heading.take().unwrap_or_default();
                let slug: String = h
                    .trim()
                    .to_lowercase()
                    .chars()
                    .filter_map(|c| match c {
                        ' ' => Some('-'),
                        c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                        _ => None,
                    })
                    .collect();
                let mut unique = slug.clone();
                let mut n = 0;
                while found.contains(&unique) {
                    n += 1;
                    unique = format!("{slug}-{n}");
                }
                found.insert(unique);
            }
            _ => {}
        }
    }
    found
}

/// The link targets of a page: links and images, with their line for the message.
fn links(text: &str) -> Vec<(usize, String)> {
    let line_of = |offset: usize| text[..offset].lines().count().max(1);
    Parser::new_ext(text, Options::all())
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::Link { dest_url, .. }) | Event::Start(Tag::Image { dest_url, .. }) => {
                Some((line_of(range.start), dest_url.to_string()))
            }
            _ => None,
        })
        .collect()
}

fn is_outside(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

#[test]
fn every_relative_link_of_the_readme_and_the_guides_leads_somewhere() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let Ok(text) = std::fs::read_to_string(&page) else {
            broken.push(format!("{} is missing", page.display()));
            continue;
        };
        let here = page.parent().unwrap();
        let name = page.strip_prefix(root()).unwrap().display().to_string();
        for (line, target) in links(&text) {
            if is_outside(&target) {
                continue;
            }
            checked += 1;
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file = if path.is_empty() { page.clone() } else { here.join(path) };
            if !file.exists() {
                broken.push(format!("{name}:{line}: {target} leads nowhere"));
                continue;
            }
            if anchor.is_empty() || file.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let heads = anchors(&std::fs::read_to_string(&file).unwrap());
            if !heads.contains(anchor) {
                broken.push(format!("{name}:{line}: {target}: no heading #{anchor} in {}", file.display()));
            }
        }
    }
    assert!(checked > 20, "only {checked} relative links found: is the link reader right?");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_anchor_rule_is_githubs() {
    let text = "# The `--store` flag: how it works\n## Exit codes\n## Exit codes\n";
    let got = anchors(text);
    let want: BTreeSet<String> = ["the---store-flag-how-it-works", "exit-codes", "exit-codes-1"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(got, want);
}

#[test]
fn the_readme_and_the_guides_hold_no_dated_notes() {
    // History belongs in bench/results/ and the commit bodies; a guide says what is true now.
    // ("the run before" alone is no such note: "stops the run before anything is fetched".)
    let dated = [
        "the night before",
        "this morning",
        "an hour before",
        "in the run before",
        "earlier today",
        "yesterday",
        "last night",
        "last session",
    ];
    let mut found = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap_or_default().to_lowercase();
        for phrase in dated {
            if text.contains(phrase) {
                found.push(format!("{}: {phrase:?}", page.display()));
            }
        }
    }
    assert!(found.is_empty(), "dated notes:\n{}", found.join("\n"));
}

#[test]
fn the_readme_is_a_front_door() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    assert!(lines.len() <= 300, "README.md has {} lines; depth goes in docs/", lines.len());
    let install = lines.iter().position(|l| *l == "## Install");
    assert!(install.is_some_and(|i| i < 80), "an ## Install section before line 80: {install:?}");
    let first_commands: Vec<&str> =
        lines.iter().filter(|l| l.starts_with("cargo ")).take(2).copied().collect();
    assert!(
        first_commands.len() == 2
            && first_commands[0].starts_with("cargo run --release -- run")
            && first_commands[1].starts_with("cargo test --locked"),
        "the README starts with the demo and the test command: {first_commands:?}"
    );
}

/// Every `FISCAL_REPORT_*` variable the program reads (its config keys' too), and the service's
/// key, is in the table of docs/operating.md.
#[test]
fn every_environment_variable_is_in_the_operating_guides_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let guide = std::fs::read_to_string(root.join("docs/operating.md")).unwrap();
    let table = guide.split("## Environment variables").nth(1).unwrap().split("\n## ").next().unwrap();
    let mut names: std::collections::BTreeSet<String> = ["REGISTRY_API_KEY".to_string()].into();
    let mut pending = vec![root.join("src")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (at, _) in text.match_indices("FISCAL_REPORT_") {
                let name: String =
                    text[at..].chars().take_while(|c| c.is_ascii_uppercase() || *c == '_').collect();
                if !name.starts_with("FISCAL_REPORT_TEST_") && name.len() > "FISCAL_REPORT_".len() {
                    names.insert(name);
                }
            }
        }
    }
    // The config file's keys, each read as FISCAL_REPORT_<KEY>.
    for entry in std::fs::read_dir(root.join("src/config")).unwrap() {
        let config = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for call in ["env_var(\"", "env_switch(\"", "env_parsed(\""] {
            for (at, _) in config.match_indices(call) {
                let key: String = config[at + call.len()..].chars().take_while(|c| *c != '"').collect();
                names.insert(format!("FISCAL_REPORT_{}", key.to_ascii_uppercase()));
            }
        }
    }
    assert!(names.len() > 25, "{names:?}");
    let missing: Vec<&String> = names.iter().filter(|n| !table.contains(&format!("`{n}`"))).collect();
    assert!(missing.is_empty(), "not in the table of docs/operating.md: {missing:?}");
}
