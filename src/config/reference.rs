//! The command-line reference, docs/cli.md, made from what the program really takes: clap's
//! definitions (every subcommand, flag, default, value and variable), the config file's keys
//! (`Settings`' fields, read off its serde definition) and the variables `environment` reads.
//! Hand-kept flag tables drift; this one is checked against the code by
//! `tests/it/docs_cli.rs`, which regenerates it with `UPDATE_DOCS=1`.

use clap::{Arg, ArgAction, Command, CommandFactory};
use serde::Deserialize;

use super::Settings;
use crate::cli::Cli;
use crate::environment;

/// docs/cli.md as the code defines it today.
pub fn cli_reference() -> String {
    let cli = Cli::command();
    let keys = settings_keys();
    let mut out = String::from(HEADER);
    out.push_str("## Global flags\n\nEvery subcommand takes these.\n\n");
    let globals: Vec<&Arg> = cli.get_arguments().filter(|a| a.is_global_set() && shown(a)).collect();
    out.push_str(&flag_table(&globals, keys, ""));
    for sub in cli.get_subcommands() {
        subcommand_sections(&mut out, &format!("fiscal-report {}", sub.get_name()), sub, keys);
    }
    out.push_str(&config_keys_section(&cli, keys));
    out.push_str(&variables_section(&cli));
    out
}

const HEADER: &str = "# Command-line reference

Every subcommand of `fiscal-report`, each flag with its default, its environment variable and its
config file key, then [the config file's keys](#config-file-keys) and [the environment
variables](#environment-variables). What the settings mean in practice is in the guides
([service.md](service.md), [open-data.md](open-data.md), [store.md](store.md),
[operating.md](operating.md)).

A setting given several ways is taken from the flag, else the environment, else the config file
(`--config FILE`, TOML, the keys below).

This page is generated from the code (`src/cli/`, `src/config/`, `src/environment.rs`) and a
test fails when it is out of date: after changing a flag, run
`UPDATE_DOCS=1 cargo test --test it docs_cli`.

";

/// A section per subcommand, depth first: `store`'s own subcommands get theirs.
fn subcommand_sections(out: &mut String, path: &str, cmd: &Command, keys: &[&str]) {
    out.push_str(&format!("## `{path}`\n\n"));
    if let Some(about) = cmd.get_long_about().or(cmd.get_about()) {
        out.push_str(&format!("{}\n\n", one_paragraph(&about.to_string())));
    }
    let subs: Vec<&Command> = cmd.get_subcommands().filter(|s| s.get_name() != "help").collect();
    if !subs.is_empty() {
        let names: Vec<String> = subs
            .iter()
            .map(|s| format!("[`{}`](#{})", s.get_name(), anchor(&format!("{path} {}", s.get_name()))))
            .collect();
        out.push_str(&format!("Subcommands: {}.\n\n", names.join(", ")));
    }
    let args: Vec<&Arg> = cmd.get_arguments().filter(|a| !a.is_global_set() && shown(a)).collect();
    if !args.is_empty() {
        let top = path.split(' ').nth(1).unwrap_or_default();
        out.push_str(&format!("Usage: `{path} {}`\n\n", usage(&args)));
        out.push_str(&flag_table(&args, keys, top));
    }
    if let Some(after) = cmd.get_after_help() {
        let text = after.to_string();
        if let Some(examples) = text.strip_prefix("Examples:\n") {
            out.push_str("```sh\n");
            for line in examples.lines() {
                out.push_str(line.trim_start());
                out.push('\n');
            }
            out.push_str("```\n\n");
        }
    }
    for sub in subs {
        subcommand_sections(out, &format!("{path} {}", sub.get_name()), sub, keys);
    }
}

/// Not help, version nor a flag hidden from `--help`.
fn shown(a: &Arg) -> bool {
    !a.is_hide_set() && !matches!(a.get_action(), ArgAction::Help | ArgAction::HelpLong | ArgAction::Version)
}

/// The positionals in order, then `[OPTIONS]` when there are flags.
fn usage(args: &[&Arg]) -> String {
    let mut parts: Vec<String> = args
        .iter()
        .filter(|a| a.is_positional())
        .map(|a| {
            let name = value_names(a).join(" ");
            let many = if matches!(a.get_action(), ArgAction::Append) { "..." } else { "" };
            if a.is_required_set() { format!("{name}{many}") } else { format!("[{name}{many}]") }
        })
        .collect();
    if args.iter().any(|a| !a.is_positional()) {
        parts.insert(0, "[OPTIONS]".to_string());
    }
    parts.join(" ")
}

/// The subcommands whose settings `config` resolves from flags, the environment and a config
/// file; the others take their flags (and clap's own variables) alone.
const SETTLED: [&str; 3] = ["run", "fetch", "download"];

/// `command`'s flags, with the variable and config key of each (`command` is the top-level
/// subcommand, empty for the global flags).
fn flag_table(args: &[&Arg], keys: &[&str], command: &str) -> String {
    let mut out =
        String::from("| flag | default | environment | config key | what it does |\n|---|---|---|---|---|\n");
    for a in args {
        let key = config_key(a, keys, command);
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            cell(&form(a)),
            cell(&default(a)),
            cell(&variable(a, command).map(|v| format!("`{v}`")).unwrap_or_default()),
            cell(&key.map(|k| format!("`{k}`")).unwrap_or_default()),
            cell(&help(a)),
        ));
    }
    out.push('\n');
    out
}

/// How the flag is written: `--out DIR`, `-v, --verbose`, `--fail-on-alert[=SEVERIDADE]`, or
/// the positional's name.
fn form(a: &Arg) -> String {
    let names = value_names(a);
    if a.is_positional() {
        let many = if matches!(a.get_action(), ArgAction::Append) { "..." } else { "" };
        return format!("`{}{many}`", names.join(" "));
    }
    let long = a.get_long().map(|l| format!("--{l}")).unwrap_or_default();
    let mut text = match a.get_short() {
        Some(s) if long.is_empty() => format!("-{s}"),
        Some(s) => format!("-{s}, {long}"),
        None => long,
    };
    if takes_value(a) {
        let value = possible(a).map(|p| p.join("|")).unwrap_or_else(|| names.join(" "));
        let optional = a.get_num_args().is_some_and(|n| n.min_values() == 0);
        text.push_str(&match (optional, a.is_require_equals_set()) {
            (true, true) => format!("[={value}]"),
            (true, false) => format!(" [{value}]"),
            _ => format!(" {value}"),
        });
    }
    if matches!(a.get_action(), ArgAction::Append) && !a.is_positional() {
        text.push_str(" (repeatable)");
    }
    format!("`{text}`")
}

fn takes_value(a: &Arg) -> bool {
    matches!(a.get_action(), ArgAction::Set | ArgAction::Append)
}

fn value_names(a: &Arg) -> Vec<String> {
    match a.get_value_names() {
        Some(names) => names.iter().map(|n| n.to_string()).collect(),
        None => vec![a.get_id().as_str().to_uppercase()],
    }
}

/// The values a value-enum or a fixed list admits.
fn possible(a: &Arg) -> Option<Vec<String>> {
    let values = a.get_possible_values();
    (!values.is_empty())
        .then(|| values.iter().filter(|v| !v.is_hide_set()).map(|v| v.get_name().to_string()).collect())
}

fn default(a: &Arg) -> String {
    let values: Vec<String> =
        a.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
    if values.is_empty() || !takes_value(a) { String::new() } else { format!("`{}`", values.join(",")) }
}

/// The config file key a flag of `command` shares its value with: its long name with `_`, when
/// `Settings` has it.
fn config_key<'k>(a: &Arg, keys: &[&'k str], command: &str) -> Option<&'k str> {
    let key = a.get_long()?.replace('-', "_");
    keys.iter().copied().find(|k| *k == key && SETTLED.contains(&command))
}

/// The variable a flag's value can also come from: clap's own, else `FISCAL_REPORT_<KEY>` for a
/// setting `config` reads from the environment for `command`. `pdf` is read so for every
/// command that renders (`ReportSettings::resolve`).
fn variable(a: &Arg, command: &str) -> Option<String> {
    if let Some(env) = a.get_env() {
        return Some(env.to_string_lossy().into_owned());
    }
    let name = a.get_long()?.replace('-', "_");
    let read = SETTLED.contains(&command) || name == "pdf";
    (read && environment::SETTINGS.contains(&name.as_str()))
        .then(|| format!("FISCAL_REPORT_{}", name.to_ascii_uppercase()))
}

fn help(a: &Arg) -> String {
    let mut text =
        a.get_long_help().or(a.get_help()).map(|h| one_paragraph(&h.to_string())).unwrap_or_default();
    if let Some(values) = possible(a).filter(|_| a.get_value_parser().possible_values().is_some()) {
        let described: Vec<String> = a
            .get_possible_values()
            .iter()
            .filter_map(|v| v.get_help().map(|h| format!("`{}`: {}", v.get_name(), h)))
            .collect();
        if !described.is_empty() && described.len() == values.len() {
            text.push_str(&format!(" ({})", described.join("; ")));
        }
    }
    text
}

/// clap's help joins lines with a newline; a table cell needs one line.
fn one_paragraph(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A table cell: `|` escaped (also inside code spans, which GitHub's tables require).
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// GitHub's anchor of a heading whose text is `text` (as tests/it/docs_links.rs computes it).
fn anchor(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Every key a config file may hold, in `Settings`' order, read off its serde definition (the
/// same list serde's "unknown field" message gives).
pub(crate) fn settings_keys() -> &'static [&'static str] {
    use serde::de::{self, Visitor, value::Error};
    struct Fields(Option<&'static [&'static str]>);
    impl<'de> de::Deserializer<'de> for &mut Fields {
        type Error = Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
            Err(de::Error::custom("only a struct's fields are read"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Error> {
            self.0 = Some(fields);
            Err(de::Error::custom("fields read"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut fields = Fields(None);
    let _ = Settings::deserialize(&mut fields);
    fields.0.unwrap_or_default()
}

fn config_keys_section(cli: &Command, keys: &[&str]) -> String {
    let mut out = String::from(
        "## Config file keys\n\n`--config FILE` (of `run`, `fetch` and `download`) is a TOML file of these keys; an \
         unknown key is refused. Each is the long flag with `_` for `-`.\n\n\
         | key | flag | environment | subcommands |\n|---|---|---|---|\n",
    );
    for key in keys {
        if let Some((new, _)) = environment::RENAMED.iter().find(|(_, old)| old == key) {
            out.push_str(&format!("| `{key}` | the old name of `{new}`, still read | | |\n"));
            continue;
        }
        let long = key.replace('_', "-");
        let mut flag = None;
        let mut users = Vec::new();
        for sub in cli.get_subcommands().filter(|s| SETTLED.contains(&s.get_name())) {
            if let Some(a) = sub.get_arguments().find(|a| a.get_long() == Some(long.as_str())) {
                flag.get_or_insert((a, sub.get_name()));
                users.push(format!("`{}`", sub.get_name()));
            }
        }
        let env = flag.and_then(|(a, command)| variable(a, command));
        out.push_str(&format!(
            "| `{key}` | {} | {} | {} |\n",
            flag.map(|_| format!("`--{long}`")).unwrap_or_default(),
            env.map(|v| format!("`{v}`")).unwrap_or_default(),
            users.join(", "),
        ));
    }
    out.push('\n');
    out
}

fn variables_section(cli: &Command) -> String {
    use std::collections::BTreeMap;
    // Each variable a flag reads, with the flag (its help, for a flag `--help` hides) and the
    // subcommands that have it.
    let mut flags: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
    for top in cli.get_subcommands() {
        let mut walk = vec![top];
        while let Some(cmd) = walk.pop() {
            for a in cmd.get_arguments() {
                let (Some(var), Some(long)) = (variable(a, top.get_name()), a.get_long()) else { continue };
                let what = if a.is_hide_set() { help(a) } else { format!("as `--{long}`") };
                let entry = flags.entry(var).or_insert_with(|| (what, Vec::new()));
                let name = format!("`{}`", top.get_name());
                if !entry.1.contains(&name) {
                    entry.1.push(name);
                }
            }
            walk.extend(cmd.get_subcommands());
        }
    }
    let mut rows: BTreeMap<String, String> = BTreeMap::new();
    for (var, (what, users)) in flags {
        rows.insert(var, format!("{what} ({})", users.join(", ")));
    }
    for key in environment::SETTINGS {
        let var = format!("FISCAL_REPORT_{}", key.to_ascii_uppercase());
        let what = environment::setting_help(key)
            .map(str::to_string)
            .unwrap_or_else(|| format!("the setting `{key}`"));
        rows.entry(var).or_insert(what);
    }
    for (new, old) in environment::RENAMED {
        let var = |name: &str| format!("FISCAL_REPORT_{}", name.to_ascii_uppercase());
        rows.entry(var(old)).or_insert(format!("the old name of `{}`, read when that is not set", var(new)));
    }
    for (var, what) in environment::VARIABLES {
        rows.entry(var.to_string()).or_insert(what.to_string());
    }
    let mut out = String::from(
        "## Environment variables\n\nEvery variable the program reads, besides the cloud credentials of an \
         `s3://`, `gs://` or `az://` output (read by the object store client, \
         [scaling-out.md](scaling-out.md#object-storage)) and `RUST_LOG`.\n\n| variable | what it sets |\n|---|---|\n",
    );
    for (var, what) in rows {
        out.push_str(&format!("| `{var}` | {} |\n", cell(&what)));
    }
    out
}
