//! Every environment variable the program reads itself, read here and nowhere else (the test
//! hooks are `test_hooks`'s; the report flags' own variables, `FISCAL_REPORT_RULES` and the
//! like, are clap's `env =` in `cli`; the cloud credentials are object_store's). Each is listed, with
//! what it does, in docs/cli.md ("Environment variables"), made from `SETTINGS`, `VARIABLES` and
//! clap's definitions.
//!
//! This module only reads: what a value means, and what to say of a bad one, is the caller's.

use std::ffi::OsString;
use std::path::PathBuf;

/// The settings `config` also reads from `FISCAL_REPORT_<NAME>` (`setting`): those of `run`,
/// `fetch` and `download`, by their config file key. Not `api_key`, whose variable is clap's
/// `REGISTRY_API_KEY`; `smtp_password` and `email_again` are variables with no key.
pub(crate) const SETTINGS: &[&str] = &[
    "base_url",
    "allow_insecure_http",
    "timeout_secs",
    "uf",
    "ano_mes",
    "cnpjs",
    "open_data",
    "listas_dir",
    "regime_dir",
    "partial",
    "strict",
    "out",
    "concurrency",
    "max_rps",
    "shard",
    "demo_scale",
    "schema_contract",
    "as_of",
    "store",
    "refresh_months",
    "max_age",
    "full",
    "pdf",
    "email_to",
    "smtp_url",
    "email_from",
    "report_url",
    "email_attach",
    "email_max_mb",
    "smtp_password_file",
    "smtp_password",
    "email_again",
    "rfb_url",
    "rfb_month",
    "pgfn_url",
    "pgfn_quarter",
    "stall_secs",
    "keep",
    "listas",
    "cgu_url",
    "cgu_files_url",
    "mte_url",
    "ibama_url",
    "regime",
    "regime_url",
    "download",
];

/// What a setting with no flag of its own sets, for docs/cli.md.
pub(crate) fn setting_help(name: &str) -> Option<&'static str> {
    match name {
        "smtp_password" => Some(
            "`run`'s SMTP password, when `--smtp-url` names a user; never a flag nor a config key (or \
             `--smtp-password-file`)",
        ),
        _ => None,
    }
}

/// The variables read for themselves rather than as a setting, with what each does.
pub(crate) const VARIABLES: &[(&str, &str)] = &[
    ("FISCAL_REPORT_TODAY", "the day taken for today (`AAAA-MM-DD`), to reproduce a run of another day"),
    (
        "FISCAL_REPORT_HELD_ROWS",
        "the rows above which a table is kept on disk rather than in memory while the run works",
    ),
    (
        "FISCAL_REPORT_WORK_DIR",
        "where a run to object storage (`--out s3://…`) works before uploading (default \
         `.fiscal-report-work`)",
    ),
    ("HOSTNAME", "names this machine in a store's lock"),
    ("PATH", "where `--pdf` looks for Chromium or Chrome when `--browser` is not given"),
];

/// `FISCAL_REPORT_<NAME>` (the setting's name upper-cased), when set and not empty: a fetch
/// setting between the config file and the flag (`config`).
pub(crate) fn setting(name: &str) -> Option<String> {
    debug_assert!(SETTINGS.contains(&name), "{name} is read from the environment: list it in SETTINGS");
    let read = |name: &str| {
        std::env::var(format!("FISCAL_REPORT_{}", name.to_ascii_uppercase())).ok().filter(|v| !v.is_empty())
    };
    read(name).or_else(|| RENAMED.iter().find(|(new, _)| *new == name).and_then(|(_, old)| read(old)))
}

/// Settings renamed, each with its old name, whose variable is still read when the new one is
/// not set: a schedule written before keeps working. The public lists are `listas` everywhere
/// (their flags were `--lists` and `--lists-dir` until 2026-12).
pub(crate) const RENAMED: &[(&str, &str)] = &[("listas", "lists"), ("listas_dir", "lists_dir")];

/// `FISCAL_REPORT_TODAY` (`AAAA-MM-DD`): the day to take for today, to reproduce a run of
/// another day.
pub(crate) fn today() -> Option<String> {
    std::env::var("FISCAL_REPORT_TODAY").ok()
}

/// `FISCAL_REPORT_HELD_ROWS`: the rows above which a table stays on disk.
pub(crate) fn held_rows() -> Option<String> {
    std::env::var("FISCAL_REPORT_HELD_ROWS").ok()
}

/// `FISCAL_REPORT_WORK_DIR`: where runs to object storage work.
pub(crate) fn work_dir() -> Option<PathBuf> {
    std::env::var_os("FISCAL_REPORT_WORK_DIR").map(PathBuf::from)
}

/// `PATH`, where a browser is looked for.
pub(crate) fn search_path() -> OsString {
    std::env::var_os("PATH").unwrap_or_default()
}

/// `HOSTNAME`, naming this machine in a store's lock.
pub(crate) fn host_name() -> Option<String> {
    std::env::var("HOSTNAME").ok()
}
