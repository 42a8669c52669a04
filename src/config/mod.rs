//! The settings every command takes, resolved once from clap's structs: `run`'s and `fetch`'s
//! merged from a TOML file, then the environment, then flags (each later source wins) and
//! validated into a `RunConfig`; the report's (`report`); a source's (`source`). `run` takes
//! them together as `RunSettings`. Past the commands, the pipeline and the stages see these
//! types, never clap's.
//!
//! Every rule lives here, so a bad value gets the same message whichever source gave it. It
//! does not read the portfolio file (extract does) and knows nothing of later stages.

mod download;
mod email;
mod reference;
mod report;
mod serve;
mod source;

pub(crate) use download::resolve_download;
pub use reference::cli_reference;
pub(crate) use report::{DossieSettings, ReportSettings, WatchSettings};
pub(crate) use serve::registry_config;
pub(crate) use source::SourceSettings;

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub(crate) use crate::api::shape::SchemaContract;
use crate::api::{AnoMes, ApiKey, UFS, Uf};
use crate::cli::{FetchArgs, RunArgs};
pub(crate) use crate::extract::plan::{MonthSelection, Shard};

/// A setting that breaks a rule. Names the setting, the source, the rule and the fix.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("config file {path} is not valid TOML for fiscal-report: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{setting} = {value:?} (from {source_name}): {rule}")]
    Invalid { setting: &'static str, value: String, source_name: &'static str, rule: String },
    #[error(
        "{flag} {}: no such folder; give the folder you copied from the project's (or drop {flag})",
        dir.display()
    )]
    MissingFolder { flag: &'static str, dir: PathBuf },
    #[error("{raw:?} is not a valid CNPJ: {rule}; write it masked (12.345.678/0001-95) or as 14 digits")]
    Cnpj { raw: String, rule: String },
}

impl crate::exit::HasExitStatus for ConfigError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        crate::exit::ExitStatus::BadInput
    }
}

/// The keys a config file may hold: the long flag names with `_` for `-`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Settings {
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    pub allow_insecure_http: Option<bool>,
    pub timeout_secs: Option<u64>,
    pub uf: Option<String>,
    pub ano_mes: Option<String>,
    pub cnpjs: Option<PathBuf>,
    pub open_data: Option<PathBuf>,
    /// Also read as `lists_dir`, its name until 2026-12.
    #[serde(alias = "lists_dir")]
    pub listas_dir: Option<PathBuf>,
    pub regime_dir: Option<PathBuf>,
    pub partial: Option<bool>,
    pub strict: Option<bool>,
    pub out: Option<PathBuf>,
    pub concurrency: Option<usize>,
    pub max_rps: Option<u32>,
    pub shard: Option<String>,
    pub demo_scale: Option<f64>,
    pub schema_contract: Option<String>,
    pub as_of: Option<String>,
    pub store: Option<PathBuf>,
    pub refresh_months: Option<u32>,
    pub max_age: Option<u32>,
    pub full: Option<bool>,
    /// `run` also writes report.pdf (the `--pdf` flag, or FISCAL_REPORT_PDF=true).
    pub pdf: Option<bool>,
    /// `run` mails the report (`config::email`): recipients, comma-separated.
    pub email_to: Option<String>,
    pub smtp_url: Option<String>,
    pub email_from: Option<String>,
    pub report_url: Option<String>,
    pub email_attach: Option<String>,
    pub email_max_mb: Option<u64>,
    /// A file holding the SMTP password alone (the password itself is never a key).
    pub smtp_password_file: Option<PathBuf>,
    /// `download`'s settings (config/download.rs).
    pub rfb_url: Option<String>,
    pub rfb_month: Option<String>,
    pub pgfn_url: Option<String>,
    pub pgfn_quarter: Option<String>,
    pub stall_secs: Option<u64>,
    pub keep: Option<u32>,
    /// Also read as `lists`, its name until 2026-12.
    #[serde(alias = "lists")]
    pub listas: Option<bool>,
    pub cgu_url: Option<String>,
    pub cgu_files_url: Option<String>,
    pub mte_url: Option<String>,
    pub ibama_url: Option<String>,
    pub regime: Option<bool>,
    pub regime_url: Option<String>,
    /// `run`: download the release into `open_data` first.
    pub download: Option<bool>,
}

/// Where a value came from, for error messages.
#[derive(Debug, Clone, Copy)]
struct Sourced<T> {
    value: T,
    source: &'static str,
}

fn pick<T: Clone>(flag: Option<T>, env: Option<T>, file: Option<T>) -> Option<Sourced<T>> {
    flag.map(|value| Sourced { value, source: "command line" })
        .or_else(|| env.map(|value| Sourced { value, source: "environment" }))
        .or_else(|| file.map(|value| Sourced { value, source: "config file" }))
}

/// A switch's value as clap reads one from the environment: yes or no, `None` for neither.
fn switch_value(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" | "t" | "true" | "on" | "1" => Some(true),
        "n" | "no" | "f" | "false" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// A switch from `FISCAL_REPORT_<NAME>`, for every switch alike (`strict`, `full`, `pdf`,
/// `allow_insecure_http`): `0` had been refused for some and taken as yes by clap for others.
fn env_switch(name: &'static str) -> Result<Option<bool>, ConfigError> {
    let Some(v) = env_var(name) else { return Ok(None) };
    switch_value(&v).map(Some).ok_or_else(|| ConfigError::Invalid {
        setting: name,
        value: v,
        source_name: "environment",
        rule: format!(
            "FISCAL_REPORT_{} must be true or false (or 1/0, yes/no, on/off)",
            name.to_ascii_uppercase()
        ),
    })
}

/// Reads `FISCAL_REPORT_<NAME>` (upper-cased setting name).
fn env_var(name: &str) -> Option<String> {
    crate::environment::setting(name)
}

fn env_parsed<T: std::str::FromStr>(name: &'static str) -> Result<Option<T>, ConfigError> {
    match env_var(name) {
        None => Ok(None),
        Some(v) => v.parse().map(Some).map_err(|_| ConfigError::Invalid {
            setting: name,
            value: v,
            source_name: "environment",
            rule: format!("FISCAL_REPORT_{} must be {}", name.to_ascii_uppercase(), form_of::<T>()),
        }),
    }
}

/// What a setting of type `T` is written as, for a message.
fn form_of<T>() -> &'static str {
    match std::any::type_name::<T>() {
        "bool" => "true or false",
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number",
        "f32" | "f64" => "a number",
        _ => "written as its flag's --help says",
    }
}

/// A URL as it may be shown: what sits between `://` and an `@` (a user name and password)
/// as `***`.
fn without_userinfo(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://***{}", &rest[at..]),
        None => url.to_string(),
    }
}

pub(crate) fn read_settings_file(path: &Path) -> Result<Settings, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
    toml::from_str(&text)
        .map_err(|e| ConfigError::Parse { path: path.to_path_buf(), message: toml_error(&e, &text) })
}

/// The parser's message with its line and column, but not the quoted source line that toml's
/// own rendering adds: that line may be `api_key = "..."`, and this text reaches logs.
fn toml_error(e: &toml::de::Error, text: &str) -> String {
    let message = e.message().trim_end().to_string();
    let Some(span) = e.span() else { return message };
    let before = text.get(..span.start).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let source_line = text.lines().nth(line - 1).unwrap_or("");
    let name = source_line.split_once('=').map_or(source_line, |(n, _)| n).trim();
    let message =
        if name.to_ascii_lowercase().contains("key") { redact_values(&message, name) } else { message };
    format!("line {line}, column {column}: {message}")
}

/// A type error quotes the value as the parser read it (`invalid type: integer `31415926``),
/// whatever its spelling in the file (`3141_5926`, `0x1DF5E76`, a trailing comment). On a key's
/// line every quoted part goes, except the setting's own name and the list of valid names.
fn redact_values(message: &str, name: &str) -> String {
    let names_from = message.find("expected one of").unwrap_or(usize::MAX);
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    let mut at = 0;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else { break };
        let quoted = &rest[open + 1..open + 1 + len];
        out.push_str(&rest[..open]);
        if quoted == name || at + open > names_from {
            out.push_str(&rest[open..open + len + 2]);
        } else {
            out.push_str("`<redacted>`");
        }
        at += open + len + 2;
        rest = &rest[open + len + 2..];
    }
    out.push_str(rest);
    out
}

/// Validated settings of a `run` or `fetch`.
#[derive(Debug, Clone)]
pub(crate) struct RunConfig {
    pub base_url: Option<String>,
    pub api_key: Option<ApiKey>,
    pub allow_insecure_http: bool,
    pub timeout_secs: u64,
    pub ufs: Vec<Uf>,
    pub months: MonthSelection,
    pub cnpjs: Option<PathBuf>,
    /// `--open-data DIR`: the publishers' files instead of a service.
    pub open_data: Option<PathBuf>,
    /// `--listas-dir DIR`: the public lists for a run over a service.
    pub listas_dir: Option<PathBuf>,
    /// `--regime-dir DIR`: RFB's tax regime files for a run over a service.
    pub regime_dir: Option<PathBuf>,
    /// `--partial`: a release that is not whole is read, its gaps said, not refused.
    pub partial: bool,
    pub strict: bool,
    pub out: Option<PathBuf>,
    pub concurrency: usize,
    pub max_rps: Option<u32>,
    pub resume: bool,
    pub shard: Shard,
    pub demo_scale: f64,
    pub schema_contract: SchemaContract,
    /// Embedded registry only: the month its data stands at.
    pub as_of: Option<AnoMes>,
    pub store: Option<PathBuf>,
    pub refresh_months: u32,
    pub max_age_months: u32,
    pub full: bool,
}

/// Everything `run` takes: the fetch's settings and the report's, from one read of the config
/// file, and what `run` adds to them.
#[derive(Debug, Clone)]
pub(crate) struct RunSettings {
    pub fetch: RunConfig,
    pub report: ReportSettings,
    /// `--dossies N` (`None`: 10 on the demo run, else none).
    pub dossies: Option<usize>,
    /// `--expand-groups` (`None`: on for the demo run, else off).
    pub expand_groups: Option<bool>,
    /// `--email-to` and its settings: the report mailed once the outputs are written.
    pub email: Option<crate::deliver::mail::MailSettings>,
    /// `--download`: the publishers' release completed into the `--open-data` folder first.
    pub download: Option<crate::extract::download::Request>,
}

impl RunSettings {
    pub(crate) fn resolve(args: &RunArgs) -> Result<Self, ConfigError> {
        let file = settings_file(&args.fetch)?;
        let fetch = RunConfig::from_sources(&args.fetch, &file)?;
        let download = download::resolve_run_download(args, &file, fetch.open_data.as_deref())?;
        let settings = Self {
            fetch,
            report: ReportSettings::resolve(&args.report, file.pdf)?,
            dossies: args.dossies,
            expand_groups: args.expand_groups,
            email: email::resolve(&args.email, &file)?,
            download,
        };
        settings.report.folders.refuse_missing()?;
        Ok(settings)
    }
}

/// The config file `--config` names, read; no settings without one.
fn settings_file(args: &FetchArgs) -> Result<Settings, ConfigError> {
    match &args.config {
        Some(p) => read_settings_file(p),
        None => Ok(Settings::default()),
    }
}

fn invalid(
    setting: &'static str,
    value: impl ToString,
    source: &'static str,
    rule: impl Into<String>,
) -> ConfigError {
    ConfigError::Invalid { setting, value: value.to_string(), source_name: source, rule: rule.into() }
}

pub(crate) fn parse_ufs(s: &str) -> Result<Vec<Uf>, String> {
    if s.trim().eq_ignore_ascii_case("all") {
        return Ok(UFS.iter().filter_map(|u| Uf::parse(u).ok()).collect());
    }
    let mut out: Vec<Uf> = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let uf = Uf::parse(part)
            .map_err(|_| format!("{part:?} is not a state code; use two letters such as SP,RJ or `all`"))?;
        if !out.contains(&uf) {
            out.push(uf);
        }
    }
    if out.is_empty() {
        return Err("no state given; use two-letter codes such as SP,RJ or `all`".into());
    }
    Ok(out)
}

/// How many months `latest` (the default) stands for: 13, so that a change over 12 months has
/// its base month and every highlight of the report shows a figure.
pub(crate) const LATEST_MONTHS: u32 = 13;

pub(crate) fn parse_months(s: &str) -> Result<MonthSelection, String> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("latest") {
        return Ok(MonthSelection::Latest(LATEST_MONTHS));
    }
    let month = |m: &str| AnoMes::parse(m).map_err(|e| e.rule);
    match s.split_once(':') {
        Some((a, b)) => {
            let (a, b) = (month(a)?, month(b)?);
            if a > b {
                return Err(format!("the range starts after it ends; write it as {b}:{a}"));
            }
            if b.index() - a.index() >= 240 {
                return Err("the range spans more than 20 years; split the run".into());
            }
            Ok(MonthSelection::Range(a, b))
        }
        None => {
            let m = month(s)?;
            Ok(MonthSelection::Range(m, m))
        }
    }
}

impl RunConfig {
    /// Merges file < env < flags and checks every rule: the one place settings are read.
    pub(crate) fn resolve(args: &FetchArgs) -> Result<Self, ConfigError> {
        Self::from_sources(args, &settings_file(args)?)
    }

    /// `resolve` with the config file already read.
    fn from_sources(args: &FetchArgs, file: &Settings) -> Result<Self, ConfigError> {
        let service = ServiceSettings::resolve(args, file)?;
        let (ufs, months) = selection(args, file)?;
        let (concurrency, max_rps, shard) = fetch_limits(args, file)?;
        let store = StoreSettings::resolve(args, file, shard)?;
        let as_of = as_of(args, file, service.base_url.is_some())?;
        let (demo_scale, schema_contract) = embedded_and_contract(args, file, service.base_url.is_some())?;
        Ok(Self {
            base_url: service.base_url,
            api_key: service.api_key,
            allow_insecure_http: service.allow_insecure_http,
            timeout_secs: service.timeout_secs,
            ufs,
            months,
            cnpjs: pick(args.cnpjs.clone(), env_var("cnpjs").map(PathBuf::from), file.cnpjs.clone())
                .map(|s| s.value),
            open_data: pick(
                args.open_data.clone(),
                env_var("open_data").map(PathBuf::from),
                file.open_data.clone(),
            )
            .map(|s| s.value),
            listas_dir: pick(
                args.listas_dir.clone(),
                env_var("listas_dir").map(PathBuf::from),
                file.listas_dir.clone(),
            )
            .map(|s| s.value),
            regime_dir: pick(
                args.regime_dir.clone(),
                env_var("regime_dir").map(PathBuf::from),
                file.regime_dir.clone(),
            )
            .map(|s| s.value),
            partial: pick(args.partial.then_some(true), env_switch("partial")?, file.partial)
                .is_some_and(|s| s.value),
            strict: pick(args.strict.then_some(true), env_switch("strict")?, file.strict)
                .is_some_and(|s| s.value),
            out: pick(args.out.clone(), env_var("out").map(PathBuf::from), file.out.clone()).map(|s| s.value),
            concurrency,
            max_rps,
            resume: args.resume,
            shard,
            demo_scale,
            schema_contract,
            as_of,
            store: store.store,
            refresh_months: store.refresh_months,
            max_age_months: store.max_age_months,
            full: store.full,
        })
    }
}

/// Where the service is and how to talk to it.
struct ServiceSettings {
    base_url: Option<String>,
    api_key: Option<ApiKey>,
    allow_insecure_http: bool,
    timeout_secs: u64,
}

impl ServiceSettings {
    fn resolve(args: &FetchArgs, file: &Settings) -> Result<Self, ConfigError> {
        let svc = &args.service;
        // The key flag and REGISTRY_API_KEY arrive together through clap's `env`.
        let api_key = pick(svc.api_key.clone(), None, file.api_key.clone()).map(|s| s.value);
        let base_url = pick(svc.base_url.clone(), env_var("base_url"), file.base_url.clone());
        if let Some(b) = &base_url {
            let shown = without_userinfo(&b.value);
            let parsed = url::Url::parse(&b.value);
            if parsed.is_err() {
                return Err(invalid(
                    "base_url",
                    &shown,
                    b.source,
                    "it is not a URL; write it like https://host/",
                ));
            }
            if parsed.is_ok_and(|u| !u.username().is_empty() || u.password().is_some()) {
                return Err(invalid(
                    "base_url",
                    &shown,
                    b.source,
                    "it carries a user name or password (user:pass@), which would be written wherever the \
                     service is named; the service takes its key in a header: set REGISTRY_API_KEY and give \
                     the URL without them",
                ));
            }
        }
        if base_url.is_some() && api_key.as_deref().is_none_or(|k| k.trim().is_empty()) {
            return Err(invalid(
                "api_key",
                "",
                "none of the flags, the environment or the config file",
                "a real --base-url needs a key: set REGISTRY_API_KEY (or api_key in the config file)",
            ));
        }
        let timeout = pick(svc.timeout_secs, env_parsed("timeout_secs")?, file.timeout_secs);
        if let Some(t) = timeout
            && !(1..=600).contains(&t.value)
        {
            return Err(invalid("timeout_secs", t.value, t.source, "it must be between 1 and 600 seconds"));
        }
        Ok(Self {
            base_url: base_url.map(|b| crate::extract::plan::one_spelling(&b.value).to_string()),
            api_key: api_key.map(ApiKey::new),
            // A switch on the command line can only say yes; the environment can say either, so
            // FISCAL_REPORT_ALLOW_INSECURE_HTTP=false overrides the file's `true` (as for strict).
            allow_insecure_http: pick(
                svc.allow_insecure_http.then_some(true),
                env_switch("allow_insecure_http")?,
                file.allow_insecure_http,
            )
            .is_some_and(|s| s.value),
            timeout_secs: timeout.map_or(30, |t| t.value),
        })
    }
}

/// Which states and months the run covers.
fn selection(args: &FetchArgs, file: &Settings) -> Result<(Vec<Uf>, MonthSelection), ConfigError> {
    let ufs = match pick(args.uf.clone(), env_var("uf"), file.uf.clone()) {
        Some(s) => parse_ufs(&s.value).map_err(|r| invalid("uf", &s.value, s.source, r))?,
        None => parse_ufs("all").unwrap_or_default(),
    };
    let months = match pick(args.ano_mes.clone(), env_var("ano_mes"), file.ano_mes.clone()) {
        Some(s) => parse_months(&s.value).map_err(|r| invalid("ano_mes", &s.value, s.source, r))?,
        None => MonthSelection::Latest(LATEST_MONTHS),
    };
    Ok((ufs, months))
}

/// The ceiling of requests in flight when none is given: polite to a small service (the limit
/// stays lower when answers queue) and room for a slow one with capacity to spare.
pub(crate) const DEFAULT_CONCURRENCY: usize = 64;

/// Requests in flight, the rate cap and the shard this process owns.
fn fetch_limits(args: &FetchArgs, file: &Settings) -> Result<(usize, Option<u32>, Shard), ConfigError> {
    let concurrency = pick(args.concurrency, env_parsed("concurrency")?, file.concurrency);
    if let Some(c) = concurrency
        && !(1..=512).contains(&c.value)
    {
        return Err(invalid("concurrency", c.value, c.source, "it must be between 1 and 512"));
    }
    let max_rps = pick(args.max_rps, env_parsed("max_rps")?, file.max_rps);
    if let Some(r) = max_rps
        && r.value == 0
    {
        return Err(invalid("max_rps", 0, r.source, "it must be at least 1 (omit it for no cap)"));
    }
    let shard = match pick(args.shard.clone(), env_var("shard"), file.shard.clone()) {
        Some(s) => Shard::parse(&s.value).map_err(|r| invalid("shard", &s.value, s.source, r))?,
        None => Shard { index: 0, count: 1 },
    };
    Ok((concurrency.map_or(DEFAULT_CONCURRENCY, |c| c.value), max_rps.map(|r| r.value), shard))
}

/// The embedded registry's scale and the shape contract's mode.
fn embedded_and_contract(
    args: &FetchArgs,
    file: &Settings,
    real_service: bool,
) -> Result<(f64, SchemaContract), ConfigError> {
    let scale = pick(args.demo_scale, env_parsed("demo_scale")?, file.demo_scale);
    if let Some(s) = scale
        && !(s.value > 0.0 && s.value <= 64.0)
    {
        return Err(invalid("demo_scale", s.value, s.source, "it must be above 0 and at most 64"));
    }
    if let Some(s) = scale.filter(|_| real_service) {
        return Err(invalid(
            "demo_scale",
            s.value,
            s.source,
            "it sizes the embedded registry's synthetic data; a real --base-url has its own: drop one of them",
        ));
    }
    let schema_contract =
        match pick(args.schema_contract.clone(), env_var("schema_contract"), file.schema_contract.clone()) {
            Some(s) => SchemaContract::parse(&s.value)
                .map_err(|r| invalid("schema_contract", &s.value, s.source, r))?,
            None => SchemaContract::Evolve,
        };
    Ok((scale.map_or(1.0, |s| s.value), schema_contract))
}

/// `--as-of`: the month the embedded registry stands at; meaningless against a real service.
fn as_of(args: &FetchArgs, file: &Settings, real_service: bool) -> Result<Option<AnoMes>, ConfigError> {
    match pick(args.as_of.clone(), env_var("as_of"), file.as_of.clone()) {
        Some(s) if real_service => Err(invalid(
            "as_of",
            &s.value,
            s.source,
            "it moves the embedded registry through time; a real --base-url serves only its present: drop one of them",
        )),
        Some(s) => {
            Ok(Some(AnoMes::parse(&s.value).map_err(|e| invalid("as_of", &s.value, s.source, e.rule))?))
        }
        None => Ok(None),
    }
}

/// The store and the settings that only mean something with one.
struct StoreSettings {
    store: Option<PathBuf>,
    refresh_months: u32,
    max_age_months: u32,
    full: bool,
}

impl StoreSettings {
    fn resolve(args: &FetchArgs, file: &Settings, shard: Shard) -> Result<Self, ConfigError> {
        let store = pick(args.store.clone(), env_var("store").map(PathBuf::from), file.store.clone());
        let refresh = pick(args.refresh_months, env_parsed("refresh_months")?, file.refresh_months);
        if let Some(r) = refresh
            && r.value > 36
        {
            return Err(invalid("refresh_months", r.value, r.source, "it must be between 0 and 36"));
        }
        let max_age = pick(args.max_age, env_parsed("max_age")?, file.max_age);
        if let Some(a) = max_age
            && !(1..=120).contains(&a.value)
        {
            return Err(invalid("max_age", a.value, a.source, "it must be between 1 and 120 months"));
        }
        let full_setting = pick(args.full.then_some(true), env_switch("full")?, file.full);
        let full = full_setting.as_ref().is_some_and(|s| s.value);
        if store.is_none() {
            let without_store = [
                refresh.map(|r| ("refresh_months", r.value.to_string(), r.source)),
                max_age.map(|a| ("max_age", a.value.to_string(), a.source)),
                full_setting.filter(|s| s.value).map(|s| ("full", "true".to_string(), s.source)),
            ];
            if let Some((setting, value, source)) = without_store.into_iter().flatten().next() {
                return Err(invalid(
                    setting,
                    value,
                    source,
                    "it only means something with a store: add --store DIR (or drop it)",
                ));
            }
        }
        if let Some(s) = &store
            && shard.count > 1
        {
            return Err(invalid(
                "store",
                s.value.display().to_string(),
                s.source,
                "a sharded fetch cannot commit to a store; merge the shards, or run without --shard",
            ));
        }
        Ok(Self {
            store: store.map(|s| s.value),
            refresh_months: refresh.map_or(2, |r| r.value),
            max_age_months: max_age.map_or(6, |a| a.value),
            full,
        })
    }
}

#[cfg(test)]
mod tests;
