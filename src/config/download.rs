//! `download`'s settings: where to (`--to`), which releases (`rfb_month`, `pgfn_quarter`), from
//! where (`rfb_url`, `pgfn_url`, today's addresses by default) and how patiently
//! (`stall_secs`), how many to keep (`keep`), whether the public lists come too (`lists`,
//! from `cgu_url`, `cgu_files_url`, `mte_url`, `ibama_url`) and RFB's tax regime files
//! (`regime`, from `regime_url`), each a flag, a `FISCAL_REPORT_*` variable or a config file key, so a moved
//! publisher or a mirror is a configuration change. `run --download` (`download` key) takes the
//! same settings, into its `--open-data` folder.

use std::path::PathBuf;
use std::time::Duration;

use super::{ConfigError, Settings, env_parsed, env_switch, env_var, invalid, pick, read_settings_file};
use crate::api::listas::Lista;
use crate::cli::{DownloadArgs, ReleaseArgs, RunArgs};
use crate::extract::download::{
    CGU_FILES_URL, CGU_URL, ListaSources, PGFN_URL, Pick, REGIME_URL, RFB_URL, Request,
};

/// Transfers at once to one host at first: the loaders' 4, which repeated stalls lower.
const PER_HOST: usize = 4;

/// `download`'s request, every setting checked.
pub(crate) fn resolve_download(args: &DownloadArgs) -> Result<Request, ConfigError> {
    let file = match &args.config {
        Some(p) => read_settings_file(p)?,
        None => Settings::default(),
    };
    resolve_release(args.to.clone(), &args.release, &file)
}

/// `run --download`'s request (into the `--open-data` folder), or `None` when not asked by the
/// flag, `FISCAL_REPORT_DOWNLOAD` or the file's `download` key; `open_data`, the folder the
/// run's settings resolved.
pub(super) fn resolve_run_download(
    args: &RunArgs,
    file: &Settings,
    open_data: Option<&std::path::Path>,
) -> Result<Option<Request>, ConfigError> {
    let asked = match pick(args.download.then_some(true), env_switch("download")?, file.download) {
        Some(s) => s.value,
        None => false,
    };
    if !asked {
        return Ok(None);
    }
    let Some(to) = open_data else {
        return Err(invalid(
            "download",
            true,
            "the settings",
            "it downloads into the --open-data folder: give --open-data DIR too",
        ));
    };
    resolve_release(to.to_path_buf(), &args.release, file).map(Some)
}

fn resolve_release(to: PathBuf, args: &ReleaseArgs, file: &Settings) -> Result<Request, ConfigError> {
    let text = |name: &'static str, flag: &Option<String>, key: &Option<String>| {
        pick(flag.clone(), env_var(name), key.clone())
    };
    let rfb_month = month_pick(
        "rfb_month",
        text("rfb_month", &args.rfb_month, &file.rfb_month),
        crate::extract::download::is_month,
        "latest or YYYY-MM, like 2026-01",
    )?;
    let pgfn_quarter = month_pick(
        "pgfn_quarter",
        text("pgfn_quarter", &args.pgfn_quarter, &file.pgfn_quarter),
        crate::extract::download::is_quarter,
        "latest or YYYY_trimestre_NN, like 2025_trimestre_04",
    )?;
    let rfb_url = address("rfb_url", text("rfb_url", &args.rfb_url, &file.rfb_url), RFB_URL)?;
    let pgfn_url = address("pgfn_url", text("pgfn_url", &args.pgfn_url, &file.pgfn_url), PGFN_URL)?;
    let stall = match pick(args.stall_secs, env_parsed("stall_secs")?, file.stall_secs) {
        Some(s) if s.value == 0 => return Err(invalid("stall_secs", 0, s.source, "it must be at least 1")),
        Some(s) => s.value,
        None => 60,
    };
    let keep = match pick(args.keep, env_parsed("keep")?, file.keep) {
        Some(k) if k.value == 0 => {
            return Err(invalid("keep", 0, k.source, "it must be at least 1: the release just downloaded"));
        }
        other => other.map(|k| k.value as usize),
    };
    let listas = match pick(args.listas.then_some(true), env_switch("listas")?, file.listas) {
        Some(s) if s.value => Some(ListaSources {
            cgu_url: address("cgu_url", text("cgu_url", &args.cgu_url, &file.cgu_url), CGU_URL)?,
            cgu_files_url: address(
                "cgu_files_url",
                text("cgu_files_url", &args.cgu_files_url, &file.cgu_files_url),
                CGU_FILES_URL,
            )?,
            moved: moved_listas([
                (Lista::TrabalhoEscravo, "mte_url", text("mte_url", &args.mte_url, &file.mte_url)),
                (Lista::Ibama, "ibama_url", text("ibama_url", &args.ibama_url, &file.ibama_url)),
            ])?,
        }),
        _ => None,
    };
    let regime = match pick(args.regime.then_some(true), env_switch("regime")?, file.regime) {
        Some(s) if s.value => {
            Some(address("regime_url", text("regime_url", &args.regime_url, &file.regime_url), REGIME_URL)?)
        }
        _ => None,
    };
    Ok(Request {
        to,
        rfb_url,
        rfb_month,
        pgfn_url,
        pgfn_quarter,
        stall: Duration::from_secs(stall),
        per_host: PER_HOST,
        keep,
        listas,
        regime,
    })
}

fn month_pick(
    setting: &'static str,
    given: Option<super::Sourced<String>>,
    valid: fn(&str) -> bool,
    rule: &str,
) -> Result<Pick, ConfigError> {
    match given {
        None => Ok(Pick::Latest),
        Some(g) if g.value.trim().eq_ignore_ascii_case("latest") => Ok(Pick::Latest),
        Some(g) if valid(g.value.trim()) => Ok(Pick::Named(g.value.trim().to_string())),
        Some(g) => Err(invalid(setting, &g.value, g.source, format!("write it as {rule}"))),
    }
}

/// The lists a setting moved to another address, each address checked.
fn moved_listas(
    given: [(Lista, &'static str, Option<super::Sourced<String>>); 2],
) -> Result<Vec<(Lista, String)>, ConfigError> {
    let mut moved = Vec::new();
    for (list, setting, given) in given {
        if given.is_some() {
            moved.push((list, address(setting, given, "")?));
        }
    }
    Ok(moved)
}

fn address(
    setting: &'static str,
    given: Option<super::Sourced<String>>,
    default: &str,
) -> Result<String, ConfigError> {
    let Some(g) = given else { return Ok(default.to_string()) };
    match url::Url::parse(g.value.trim()) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {
            Ok(g.value.trim().to_string())
        }
        _ => Err(invalid(
            setting,
            super::without_userinfo(&g.value),
            g.source,
            "write it as an http(s) address, like https://arquivos.receitafederal.gov.br/index.php/s/TOKEN",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(argv: &[&str]) -> DownloadArgs {
        let cli =
            crate::cli::Cli::parse_from([&["fiscal-report", "download", "--to", "d"][..], argv].concat());
        match cli.command {
            crate::cli::Command::Download(a) => a,
            _ => unreachable!("a download"),
        }
    }

    #[test]
    fn the_defaults_are_todays_addresses_and_the_latest_releases() {
        let r = resolve_download(&args(&[])).unwrap();
        assert_eq!((r.rfb_url.as_str(), r.pgfn_url.as_str()), (RFB_URL, PGFN_URL));
        assert_eq!((r.rfb_month, r.pgfn_quarter), (Pick::Latest, Pick::Latest));
    }

    #[test]
    fn run_download_goes_into_the_open_data_folder_and_needs_it() {
        let cli = crate::cli::Cli::parse_from([
            "fiscal-report",
            "run",
            "--open-data",
            "d",
            "--download",
            "--keep",
            "2",
        ]);
        let crate::cli::Command::Run(run) = cli.command else { unreachable!("a run") };
        let r = resolve_run_download(&run, &Settings::default(), Some(std::path::Path::new("d")))
            .unwrap()
            .expect("asked for");
        assert_eq!((r.to, r.keep), (PathBuf::from("d"), Some(2)));
        let file = Settings { download: Some(true), ..Settings::default() };
        let cli = crate::cli::Cli::parse_from(["fiscal-report", "run", "--open-data", "d"]);
        let crate::cli::Command::Run(run) = cli.command else { unreachable!("a run") };
        assert!(
            resolve_run_download(&run, &file, Some(std::path::Path::new("d"))).unwrap().is_some(),
            "the file's key asks for it too"
        );
        let e =
            crate::cli::Cli::try_parse_from(["fiscal-report", "run", "--download"]).unwrap_err().to_string();
        assert!(e.contains("--open-data"), "{e}");
        assert!(
            crate::cli::Cli::try_parse_from(["fiscal-report", "download", "--to", "d", "--keep", "0"])
                .is_err()
        );
    }

    #[test]
    fn a_month_or_quarter_not_in_its_form_is_refused_naming_the_form() {
        let e = resolve_download(&args(&["--rfb-month", "2026/01"])).unwrap_err().to_string();
        assert!(e.contains("rfb_month") && e.contains("YYYY-MM"), "{e}");
        let e = resolve_download(&args(&["--pgfn-quarter", "2026_trimestre_5"])).unwrap_err().to_string();
        assert!(e.contains("YYYY_trimestre_NN"), "{e}");
        let r = resolve_download(&args(&["--rfb-month", "2026-01", "--pgfn-quarter", "2025_trimestre_04"]))
            .unwrap();
        assert_eq!(r.rfb_month, Pick::Named("2026-01".into()));
        assert_eq!(r.pgfn_quarter, Pick::Named("2025_trimestre_04".into()));
    }
}
