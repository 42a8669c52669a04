//! The report's settings, for `run`, `merge` and `report --from` (`dossie` takes the folders):
//! the analyst's folders and language, the PDF, and the watch rules with where their alerts go.
//! Resolved once from the flags, their variables and, for `run`, the config file's `pdf`; the
//! stages after the fetch take them as they are.

use std::path::PathBuf;

use super::{ConfigError, env_switch};
use crate::cli::{AnalystFolders, ReportArgs, WatchArgs};

/// The folders an analyst edits, each the one given, else `./queries`, `./templates` or
/// `./codes` when present (`None`: the built-in ones), decided here once; and the language of
/// what is rendered.
#[derive(Debug, Clone, Default)]
pub(crate) struct Folders {
    pub queries: Option<PathBuf>,
    pub templates: Option<PathBuf>,
    pub codes: Option<PathBuf>,
    pub locale: crate::report::Locale,
}

impl Folders {
    pub(crate) fn from_args(args: &AnalystFolders) -> Self {
        Self {
            queries: crate::analyze::default_queries_dir(args.queries.as_deref()),
            templates: crate::fsutil::explicit_or_local(args.templates.as_deref(), "templates"),
            codes: crate::codes::default_codes_dir(args.codes.as_deref()),
            locale: args.locale.into(),
        }
    }

    /// The report stage's own options.
    pub(crate) fn report_options(&self) -> crate::report::ReportOptions {
        crate::report::ReportOptions { templates: self.templates.clone(), locale: self.locale }
    }

    /// A folder given that is not there is said before the fetch, not after it: what is in one
    /// is checked where it is used.
    pub(crate) fn refuse_missing(&self) -> Result<(), ConfigError> {
        let given =
            [("--queries", &self.queries), ("--templates", &self.templates), ("--codes", &self.codes)];
        match given.into_iter().find_map(|(flag, dir)| Some(flag).zip(dir.as_ref().filter(|d| !d.is_dir()))) {
            Some((flag, dir)) => Err(ConfigError::MissingFolder { flag, dir: dir.clone() }),
            None => Ok(()),
        }
    }
}

/// The watch rules (`--rules`) and where their alerts go.
#[derive(Debug, Clone, Default)]
pub(crate) struct WatchSettings {
    pub rules: Option<PathBuf>,
    /// `--fail-on-alert[=alta|media|baixa]`: the least severity that pages (`baixa` when bare).
    pub fail_on_alert: Option<String>,
    pub notify_webhook: Option<String>,
    pub webhook_token: Option<String>,
}

impl WatchSettings {
    fn from_args(args: &WatchArgs) -> Self {
        Self {
            rules: args.rules.clone(),
            fail_on_alert: args.fail_on_alert.clone(),
            notify_webhook: args.notify_webhook.clone(),
            webhook_token: args.webhook_token.clone(),
        }
    }
}

/// What shapes the analysis, the watch and the report.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReportSettings {
    pub folders: Folders,
    /// Also print report.pdf.
    pub pdf: bool,
    /// The browser that prints it (`None`: the first one on PATH).
    pub browser: Option<PathBuf>,
    pub watch: WatchSettings,
}

impl ReportSettings {
    /// The flags, with `file_pdf` the config file's `pdf` (`run`'s only). FISCAL_REPORT_PDF when
    /// set says yes or no over the file (`false` turns the file's `pdf = true` off); `--pdf` can
    /// only add to them.
    pub(crate) fn resolve(args: &ReportArgs, file_pdf: Option<bool>) -> Result<Self, ConfigError> {
        Ok(Self {
            folders: Folders::from_args(&args.folders),
            pdf: args.pdf || env_switch("pdf")?.or(file_pdf).unwrap_or(false),
            browser: args.browser.clone(),
            watch: WatchSettings::from_args(&args.watch),
        })
    }
}

/// What `dossie` takes: the companies, each once, and where their dossiers go.
#[derive(Debug, Clone)]
pub(crate) struct DossieSettings {
    pub cnpjs: Vec<crate::api::Cnpj>,
    pub out: PathBuf,
    pub source: super::SourceSettings,
    pub folders: Folders,
    /// A store of monthly runs: each dossier gains the company's exposure at every snapshot.
    pub store: Option<PathBuf>,
}

impl DossieSettings {
    pub(crate) fn resolve(args: &crate::cli::DossieArgs) -> Result<Self, ConfigError> {
        let mut cnpjs = Vec::new();
        for raw in &args.cnpjs {
            let cnpj = crate::api::Cnpj::parse(raw)
                .map_err(|e| ConfigError::Cnpj { raw: raw.clone(), rule: e.to_string() })?;
            if !cnpjs.contains(&cnpj) {
                cnpjs.push(cnpj);
            }
        }
        Ok(Self {
            cnpjs,
            out: args.out.clone(),
            source: super::SourceSettings::from_service_args(&args.service),
            folders: Folders::from_args(&args.folders),
            store: args.store.clone(),
        })
    }
}
