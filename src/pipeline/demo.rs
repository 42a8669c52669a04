//! The demo compares with the month before, as a monthly user's run does. Without it a first
//! run has no earlier snapshot, so a newcomer never sees what changed, the estimated
//! standing's moves or an alert. Before the demo's own run, the month before it is run into a
//! store of its own (`.demo-store` beside the outputs, made anew each time), and the demo's run
//! then goes on that store with the example watch rules (`regras/exemplo.toml`) on. The report's
//! banner says so. Both runs also read the embedded dataset's own public lists of their month,
//! written in their published layouts to `.demo-listas` beside the outputs, so the report shows
//! the companies listed and what entered or left a list, and its tax regime files (`.demo-regime`). A run given a portfolio, a service, the publishers' files, a store, rules,
//! months or a shard is not the plain demo and is left as it is.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::api::AnoMes;
use crate::config::{RunConfig, RunSettings};
use crate::exit::{Classified, ExitStatus};
use crate::extract::plan::MonthSelection;

/// The example watch rules the demo turns on.
pub(crate) const EXAMPLE_RULES: &str = include_str!("../../regras/exemplo.toml");

/// The store's folder name, beside the outputs.
const STORE_NAME: &str = ".demo-store";
/// The folder of the embedded dataset's public lists, beside the outputs.
const LISTAS_NAME: &str = ".demo-listas";
/// The folder of the embedded dataset's tax regime files, beside the outputs.
const REGIME_NAME: &str = ".demo-regime";

/// Whether `run` with these settings is the plain demo: the embedded registry and its own
/// portfolio, nothing of the user's to compare with or watch.
fn wanted(settings: &RunSettings) -> bool {
    let cfg = &settings.fetch;
    let local_out = cfg.out.as_deref().is_none_or(|o| !crate::bucket::is_remote(o));
    cfg.base_url.is_none()
        && cfg.open_data.is_none()
        && cfg.cnpjs.is_none()
        && cfg.store.is_none()
        && !cfg.resume
        && cfg.shard.count <= 1
        && matches!(cfg.months, MonthSelection::Latest(_))
        && settings.report.watch.rules.is_none()
        && local_out
}

/// The month before the demo's, to run first with these settings; `then` once it has run.
pub(crate) struct MonthBefore {
    pub settings: RunSettings,
    pub then: Compare,
}

/// Where the month before left what the demo's own run compares with.
pub(crate) struct Compare {
    previous: AnoMes,
    newest: AnoMes,
    scale: f64,
    store: PathBuf,
    scratch: PathBuf,
}

/// The month before, when `run` with these settings is the plain demo (an earlier demo's store
/// removed); `None` otherwise.
pub(crate) fn month_before(settings: &RunSettings) -> Result<Option<MonthBefore>> {
    if !wanted(settings) {
        return Ok(None);
    }
    let cfg = &settings.fetch;
    let newest = cfg.as_of.unwrap_or_else(crate::simulator::Dataset::newest_month);
    let previous = newest.plus_months(-1).context("the month before the demo's")?;
    let store = store_dir(cfg.out.as_deref());
    remove_earlier_demo_store(&store)?;
    crate::say!(
        "demo: first the month before ({previous}) into {}, so the report shows what changed and the \
         example rules' alerts",
        store.display()
    );
    let scratch =
        std::env::temp_dir().join(format!("fiscal-report-demo-{}", crate::fsutil::process_unique()));
    let mut before = baseline(settings);
    before.fetch = baseline_config(cfg, previous, &store, &scratch);
    write_demo_files(&mut before.fetch, &store, previous, cfg.demo_scale)?;
    Ok(Some(MonthBefore {
        settings: before,
        then: Compare { previous, newest, scale: cfg.demo_scale, store, scratch },
    }))
}

impl Compare {
    /// Once the month before has run (`outcome`): its scratch outputs gone, and the demo's
    /// settings pointed at the store it committed to. The month the demo compares with.
    pub(crate) fn on(self, outcome: Result<ExitStatus>, settings: &mut RunSettings) -> Result<AnoMes> {
        let _ = std::fs::remove_dir_all(&self.scratch);
        let previous = self.previous;
        match outcome? {
            ExitStatus::Ok => {}
            other => {
                return Err(Classified::new(
                    other,
                    format!("the demo's month before ({previous}) did not finish; run the demo again"),
                )
                .into());
            }
        }
        write_demo_files(&mut settings.fetch, &self.store, self.newest, self.scale)?;
        settings.fetch.store = Some(self.store);
        Ok(previous)
    }
}

/// The embedded dataset's own public lists and tax regime files at `month`, written by its
/// writers in their published layouts beside the demo's `store` (`.demo-listas/listas/`,
/// `.demo-regime/regime_tributario/`), for the run of `fetch` to read unless it names folders of
/// its own: the month before's first, then the demo's own month's in their place, so the store
/// sees the lists move as they would from one monthly run to the next. The dataset is made once.
fn write_demo_files(fetch: &mut RunConfig, store: &Path, month: AnoMes, scale: f64) -> Result<()> {
    use crate::simulator::{Dataset, RegistryConfig, open_data};
    if fetch.listas_dir.is_some() && fetch.regime_dir.is_some() {
        return Ok(());
    }
    let ds = Dataset::generate(RegistryConfig::DEFAULT_SEED, scale)
        .as_of(month)
        .map_err(|e| anyhow::anyhow!("the demo's public lists and tax regimes: {e}"))?;
    if fetch.listas_dir.is_none() {
        let dir = store.with_file_name(LISTAS_NAME);
        remove_earlier(&dir.join("listas"))?;
        open_data::listas::write_listas(&ds.listas(), &dir)
            .with_context(|| format!("writing the demo's public lists into {}", dir.display()))?;
        fetch.listas_dir = Some(dir);
    }
    if fetch.regime_dir.is_none() {
        let dir = store.with_file_name(REGIME_NAME);
        remove_earlier(&dir.join(open_data::regime::FOLDER))?;
        open_data::regime::write_regimes(&ds, &dir)
            .with_context(|| format!("writing the demo's tax regimes into {}", dir.display()))?;
        fetch.regime_dir = Some(dir);
    }
    Ok(())
}

/// An earlier demo's folder of files, gone before this one's are written.
fn remove_earlier(folder: &Path) -> Result<()> {
    if folder.exists() {
        std::fs::remove_dir_all(folder)
            .with_context(|| format!("removing the earlier demo's {}", folder.display()))?;
    }
    Ok(())
}

/// `.demo-store` beside the outputs: in `output/` for the default folder.
fn store_dir(out: Option<&Path>) -> PathBuf {
    match out {
        Some(out) => out.parent().unwrap_or(Path::new("")).join(STORE_NAME),
        None => Path::new("output").join(STORE_NAME),
    }
}

/// The store of an earlier demo goes: the demo makes its own each time. A folder by that name
/// that is not a fiscal-report store is someone else's and is refused untouched.
fn remove_earlier_demo_store(store: &Path) -> Result<()> {
    if !store.exists() {
        return Ok(());
    }
    if !crate::store::is_local_store(store) {
        return Err(Classified::new(
            ExitStatus::BadInput,
            format!(
                "{} is not a store the demo made, and the demo keeps its own store there: move that folder, \
                 or give the demo another --out",
                store.display()
            ),
        )
        .into());
    }
    std::fs::remove_dir_all(store)
        .with_context(|| format!("removing the earlier demo store {}", store.display()))
}

/// The month before: its credits alone, the same portfolio, its outputs in a scratch folder
/// that goes when it is done.
fn baseline_config(cfg: &RunConfig, previous: AnoMes, store: &Path, scratch: &Path) -> RunConfig {
    let mut before = cfg.clone();
    before.as_of = Some(previous);
    before.months = MonthSelection::Range(previous, previous);
    before.store = Some(store.to_path_buf());
    before.out = Some(scratch.to_path_buf());
    before
}

/// No dossiers, no partner companies, no PDF, no e-mail: the month before is only compared with.
fn baseline(settings: &RunSettings) -> RunSettings {
    let mut before = settings.clone();
    before.dossies = Some(0);
    before.expand_groups = Some(false);
    before.report.pdf = false;
    before.email = None;
    before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_sits_beside_the_outputs() {
        assert_eq!(store_dir(None), Path::new("output/.demo-store"));
        assert_eq!(store_dir(Some(Path::new("runs/demo"))), Path::new("runs/.demo-store"));
        assert_eq!(store_dir(Some(Path::new("demo"))), Path::new(".demo-store"));
    }
}
