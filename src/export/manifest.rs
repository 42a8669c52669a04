//! `manifest.json`: what a run was asked, what it did, and every file it wrote with rows,
//! bytes and sha256, so a consumer can verify a dataset without trusting the directory.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::extract::{FetchSummary, PlanSpec};
use crate::periods::Periodos;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FileEntry {
    pub path: String,
    pub rows: u64,
    pub bytes: u64,
    pub sha256: String,
}

impl FileEntry {
    /// The entry of a file written whole from `content` (a report, `alertas.jsonl`).
    pub fn of_content(path: &str, rows: u64, content: &[u8]) -> Self {
        Self::of_parts(path, rows, &[content])
    }

    /// A file written as `parts`, one after another.
    pub fn of_parts(path: &str, rows: u64, parts: &[&[u8]]) -> Self {
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        parts.iter().for_each(|p| hasher.update(p));
        Self {
            path: path.to_string(),
            rows,
            bytes: parts.iter().map(|p| p.len() as u64).sum(),
            sha256: hex::encode(hasher.finalize()),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub tool: String,
    pub version: String,
    /// True when the data came from the embedded registry: synthetic, not real.
    pub demo: bool,
    /// The demo compared with the month before, which it committed first to a store of its own
    /// (`pipeline::demo`): that month, for the report's banner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub demo_comparacao: Option<String>,
    pub plan: PlanSpec,
    pub fetch: FetchSummary,
    /// Each source's reference period and whether it is stale or failing (`crate::periods`).
    /// Absent from manifests written before it existed: `periodos()` works it out then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub periodos: Option<Periodos>,
    /// Set once the aggregates and the report are written.
    #[serde(default)]
    pub run_id: Option<String>,
    /// Aggregate table -> sha256 of the SQL that made it.
    #[serde(default)]
    pub queries: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub files: Vec<FileEntry>,
    /// `freeze` when the fetch ran under `--schema-contract freeze`: the later commands
    /// (`merge`, `report --from`) then refuse a drifted shape too, unless told `evolve`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_contract: Option<crate::api::shape::SchemaContract>,
    /// With `--store`: the store version this run committed and what it fetched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<StoreNote>,
    /// Seconds each stage after the fetch took (`transform`, `analyze`, `store`, `export`,
    /// `report`), in the order they ran; the fetch's own is `fetch.wall_seconds`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<StageTime>,
    /// Requests sent after the fetch, by what for (`grupos`: the partner companies of
    /// `--expand-groups`; `dossies`: the dossiers' records): not in `fetch.requests`, which is
    /// the planned fetch the store and the benchmarks count.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub requests_after_fetch: std::collections::BTreeMap<String, u64>,
    /// With `--open-data`: the folder, every file read (size, sha256, rows read and kept),
    /// the datasets found and missing, and the release's periods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_data: Option<crate::extract::open_data::OpenDataNote>,
    /// With `--listas-dir` (a run over a service): the folder, each list read, the files no
    /// reader takes and the lists missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listas_dir: Option<crate::extract::open_data::ListasDirNote>,
    /// With `--regime-dir` (a run over a service): the folder and each regime CSV read, with
    /// its rows read, kept and out of layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regime_dir: Option<crate::extract::open_data::RegimeDirNote>,
    /// With `--cnpjs`: the portfolio file, the companies read from it, and the lines skipped
    /// (not a CNPJ) with their reasons: a company the run left out is said here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carteira: Option<crate::extract::portfolio::PortfolioNote>,
    /// With `--rules`: how many alerts the run holds, per rule and per state (they are in
    /// `alertas.jsonl`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alertas: Option<AlertsNote>,
    /// With `--email-to`: the last message this folder's report was mailed in (its month, to
    /// whom, what it carried). Carried from run to run in the same folder, so a re-run of a
    /// month already mailed does not mail again (unless `--email-again`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<EmailNote>,
}

/// A message the report was sent in (`run --email-to`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmailNote {
    /// The month reported (AAAAMM): a run of the same month does not mail again.
    pub mes: String,
    pub run_id: Option<String>,
    /// When the server accepted it (UTC, RFC 3339).
    pub enviado_em: String,
    pub para: Vec<String>,
    pub assunto: String,
    /// The files attached, as the manifest names them.
    pub anexos: Vec<String>,
    /// The files too large to attach, sent as a link (or only named, without one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nao_anexados: Vec<String>,
    /// The recipients the server refused, each with what it said: the others got it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recusados: Vec<String>,
}

/// One stage's wall time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageTime {
    pub stage: String,
    pub seconds: f64,
}

impl Manifest {
    /// Records that `stage` took the time since `started` (and says so in the log, so a run
    /// shows its stages after the fetch as they finish).
    pub fn time_stage(&mut self, stage: &str, started: std::time::Instant) {
        let seconds = (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
        tracing::info!("{stage}: done in {seconds:.2} s{}", crate::memory::peak_note());
        self.stages.retain(|s| s.stage != stage);
        self.stages.push(StageTime { stage: stage.to_string(), seconds });
    }
}

/// What the watch rules found, for a scheduler that reads the manifest only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlertsNote {
    /// The rules file, as given.
    pub regras: String,
    /// Every alert of the run, whatever its state (the lines of `alertas.jsonl`).
    pub total: usize,
    pub por_regra: std::collections::BTreeMap<String, usize>,
    /// By state: `nova`, `aberta` (still open, not sent again), `resolvida`.
    #[serde(default)]
    pub por_estado: std::collections::BTreeMap<String, usize>,
    /// By the rule's severity: `alta`, `media`, `baixa`.
    #[serde(default)]
    pub por_severidade: std::collections::BTreeMap<String, usize>,
}

/// The store version a run committed: its snapshot, the credit months it fetched (the others
/// came from the store) and its companies by what happened to their records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoreNote {
    pub dir: String,
    /// The run that committed it (the outputs of that run carry the same id).
    pub run_id: String,
    pub version: u64,
    pub snapshot: String,
    pub credit_months_fetched: Vec<String>,
    pub company_records: std::collections::BTreeMap<String, u64>,
}

impl Manifest {
    pub fn for_fetch(plan: &PlanSpec, fetch: &FetchSummary) -> Self {
        Self {
            tool: "fiscal-report".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            demo: plan.demo,
            demo_comparacao: None,
            plan: plan.clone(),
            fetch: fetch.clone(),
            periodos: Some(Periodos::of(&fetch.periodos, &fetch.fontes, &plan.months)),
            run_id: None,
            queries: Default::default(),
            files: Vec::new(),
            schema_contract: None,
            store: None,
            stages: Vec::new(),
            requests_after_fetch: Default::default(),
            open_data: None,
            listas_dir: None,
            regime_dir: None,
            carteira: None,
            alertas: None,
            email: None,
        }
    }

    /// The sources' periods: as recorded, or from the fetch's facts for an older manifest.
    pub fn periodos(&self) -> Periodos {
        self.periodos
            .clone()
            .unwrap_or_else(|| Periodos::of(&self.fetch.periodos, &self.fetch.fontes, &self.plan.months))
    }

    pub fn write(&self, out: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        crate::fsutil::write_atomic(&out.join("manifest.json"), &bytes)
    }

    pub fn read(out: &Path) -> std::io::Result<Self> {
        let bytes = std::fs::read(out.join("manifest.json"))?;
        serde_json::from_slice(&bytes).map_err(std::io::Error::other)
    }
}
