//! `download`: the publishers' release fetched into a folder, whole and verified: RFB's month
//! (a Nextcloud share listed over WebDAV, or the 2024-25 Apache listing) and PGFN's quarter (an
//! Apache listing of quarter folders). Each file is written to `NAME.part`, resumed with Range,
//! checked (its exact size, then every zip entry's CRC) before it takes its name, and recorded
//! in `DIR/download.json`; a file recorded complete whose ETag or Last-Modified has not moved is
//! not sent again.
//!
//! With `--listas` it also fetches the public lists (CGU's, the labour ministry's, IBAMA's) into
//! `listas/` (`lists`).
//!
//! It owns finding the release (`listing`), moving the bytes politely (`transfer`), checking
//! them (`verify`) and recording them (`record`). Reading the folder afterwards is
//! `open_data`'s, and the files land where it finds them: `cnpj/YYYY-MM/`,
//! `pgfn/YYYY_trimestre_NN/`.

mod keep;
mod listas;
mod listing;
mod progress;
mod record;
mod transfer;
mod verify;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use futures::StreamExt;

use crate::exit::{ExitStatus, HasExitStatus};
pub(crate) use listas::{CGU_FILES_URL, CGU_URL, FOLDER as LISTAS_FOLDER, ListaSources, brasilia_today};
pub(crate) use record::{Record, current_release, recorded_under};

/// Today's addresses: RFB's public share (month folders at its root) and PGFN's listing.
pub(crate) const RFB_URL: &str = "https://arquivos.receitafederal.gov.br/index.php/s/YggdBLfdninEJX9";
pub(crate) const PGFN_URL: &str = "https://dadosabertos.pgfn.gov.br/";
/// RFB's share of its tax regime files (apart from the CNPJ share since 2026).
pub(crate) const REGIME_URL: &str = "https://arquivos.receitafederal.gov.br/index.php/s/MPPfFit7g7zdA8C";
/// The folder the regime files go to.
pub(crate) const REGIME_FOLDER: &str = "regime_tributario";

/// An RFB month folder's name: `YYYY-MM`.
pub(crate) fn is_month(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() == 7 && b[4] == b'-' && b.iter().enumerate().all(|(i, c)| i == 4 || c.is_ascii_digit())
}

/// A PGFN quarter folder's name: `YYYY_trimestre_NN`.
pub(crate) fn is_quarter(name: &str) -> bool {
    name.split_once("_trimestre_").is_some_and(|(y, n)| {
        y.len() == 4 && matches!(n, "01" | "02" | "03" | "04") && y.bytes().all(|c| c.is_ascii_digit())
    })
}

/// Which release of a publisher: its latest, or one by its folder's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Pick {
    Latest,
    Named(String),
}

/// What to download, and how patiently.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub to: PathBuf,
    /// A share link (`…/index.php/s/TOKEN`) or an Apache listing of month folders.
    pub rfb_url: String,
    pub rfb_month: Pick,
    /// An Apache listing of quarter folders.
    pub pgfn_url: String,
    pub pgfn_quarter: Pick,
    /// A transfer with no byte for this long is cut and resumed.
    pub stall: Duration,
    /// Transfers at once to one host, at first (fewer after repeated stalls).
    pub per_host: usize,
    /// Once the release is whole: keep the last N months and quarters, remove older ones.
    pub keep: Option<usize>,
    /// `--listas`: the public lists too, into `listas/`.
    pub listas: Option<ListaSources>,
    /// `--regime`: RFB's tax regime files too, from this share or listing, into
    /// `regime_tributario/`.
    pub regime: Option<String>,
}

/// What a download did.
#[derive(Debug, Clone)]
pub(crate) struct Downloaded {
    pub rfb_month: String,
    pub pgfn_quarter: String,
    /// Files of the two releases.
    pub files: usize,
    /// Of them, fetched now (the others were complete already).
    pub fetched: usize,
    /// File bytes received now, resumed and restarted transfers included.
    pub received: u64,
    /// Older releases removed (`keep`): their folders under `to`.
    pub removed: Vec<String>,
    /// The public lists' files among `files` (`--listas`).
    pub listas: usize,
    /// RFB's tax regime files among `files` (`--regime`).
    pub regime: usize,
}

impl Downloaded {
    /// What it did, in a sentence for stderr.
    pub(crate) fn summary(&self, to: &Path) -> String {
        let removed = match self.removed.is_empty() {
            true => String::new(),
            false => format!("; removed the older {}", self.removed.join(", ")),
        };
        let listas = match (self.listas, self.regime) {
            (0, 0) => String::new(),
            (n, 0) => format!(" with {n} public lists"),
            (0, r) => format!(" with {r} tax regime files"),
            (n, r) => format!(" with {n} public lists and {r} tax regime files"),
        };
        format!(
            "RFB {} and PGFN {}{listas} are in {}: {} files, {} fetched now ({:.1} MB received){removed}",
            self.rfb_month,
            self.pgfn_quarter,
            to.display(),
            self.files,
            self.fetched,
            self.received as f64 / 1e6,
        )
    }
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum DownloadError {
    #[error("{url}: {problem}; expected {expected}")]
    Layout { url: String, problem: String, expected: String },
    #[error("{url} has no {what} {asked}; it has {listed}")]
    NoRelease { url: String, what: &'static str, asked: String, listed: String },
    #[error(
        "{file} ({url}) failed its check: {what}; it was not kept: run the download again, and if it fails \
         again the publisher's file is broken"
    )]
    Check { file: String, url: String, what: String },
    #[error(
        "{url}: {why}, {tries} times with no byte received; run the download again later (what arrived is kept)"
    )]
    Unreachable { url: String, why: String, tries: u32 },
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error(
        "the download into {} was stopped; what arrived is kept: the same command resumes it",
        to.display()
    )]
    Interrupted { to: PathBuf },
}

impl HasExitStatus for DownloadError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::Layout { .. } | Self::NoRelease { .. } => ExitStatus::BadInput,
            Self::Check { .. } => ExitStatus::DownloadFailed,
            Self::Unreachable { .. } => ExitStatus::ServiceUnavailable,
            Self::Write { source, .. } => crate::exit::io_status(source),
            Self::Interrupted { .. } => ExitStatus::Interrupted,
        }
    }
}

fn write_error(path: &Path) -> impl FnOnce(std::io::Error) -> DownloadError + '_ {
    move |source| DownloadError::Write { path: path.to_path_buf(), source }
}

/// One file of a release, as its listing names it.
#[derive(Debug, Clone)]
pub(crate) struct Remote {
    pub url: url::Url,
    /// How its requests introduce themselves.
    pub access: Access,
    /// Its path under the folder: `cnpj/2026-09/Empresas0.zip`.
    pub rel: String,
    /// The release's month or quarter.
    pub release: String,
    pub size: Option<u64>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

/// What a file's requests carry beyond the address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Access {
    /// Nothing more.
    #[default]
    Plain,
    /// A public share's token, sent as HTTP Basic `TOKEN:` (Nextcloud's `/public.php/webdav/`).
    Share(String),
    /// A browser-like User-Agent and the page the file is linked from, as CGU's servers expect.
    Browser { referer: String },
}

impl Remote {
    /// A file a listing or address names, at `url` under the folder's `rel`: its size, ETag and
    /// Last-Modified not known yet.
    fn listed(url: url::Url, access: Access, rel: String, release: String) -> Self {
        Self { url, access, rel, release, size: None, etag: None, last_modified: None }
    }

    fn name(&self) -> &str {
        self.rel.rsplit('/').next().unwrap_or(&self.rel)
    }
}

/// Gets RFB's and PGFN's releases into `req.to`. Ctrl-C or SIGTERM stops it at once (exit
/// 130): every file finished is recorded and every `.part` kept, so the next download resumes.
pub(crate) async fn download(req: &Request) -> Result<Downloaded, DownloadError> {
    tokio::select! {
        done = download_whole(req) => done,
        () = crate::shutdown::wait_for_signal() => Err(DownloadError::Interrupted { to: req.to.clone() }),
    }
}

async fn download_whole(req: &Request) -> Result<Downloaded, DownloadError> {
    let http = transfer::client();
    let rfb = listing::rfb(&http, &req.rfb_url, &req.rfb_month, req.stall).await?;
    let pgfn = listing::pgfn(&http, &req.pgfn_url, &req.pgfn_quarter, req.stall).await?;
    std::fs::create_dir_all(&req.to).map_err(write_error(&req.to))?;
    let mut record = record::load(&req.to);
    record.rfb_month = Some(rfb.period.clone());
    record.pgfn_quarter = Some(pgfn.period.clone());
    // Saved before any file moves, so a run never reads the folder as the older release while
    // this one is under way: its unfinished files make the folder a partial release.
    record::save(&req.to, &record).map_err(write_error(&req.to.join(record::FILE)))?;
    let listas = match &req.listas {
        Some(sources) => listas::files(&http, sources, brasilia_today(), req.stall).await?,
        None => Vec::new(),
    };
    let lista_files: Vec<String> = listas.iter().map(|f| f.rel.clone()).collect();
    let lista_count = listas.len();
    let regime = match &req.regime {
        Some(url) => listing::regime(&http, url, req.stall).await?,
        None => Vec::new(),
    };
    let regime_count = regime.len();
    let files: Vec<Remote> = rfb.files.into_iter().chain(pgfn.files).chain(listas).chain(regime).collect();
    let count = files.len();
    let job = Job {
        to: &req.to,
        transfer: transfer::Transfer::new(&http, req.stall, req.per_host),
        record: Mutex::new(record),
        progress: progress::Progress::start(&files),
    };
    let outcomes: Vec<Result<Option<u64>, DownloadError>> =
        futures::stream::iter(files.into_iter().map(|f| job.one(f))).buffer_unordered(16).collect().await;
    let mut done = Downloaded {
        rfb_month: rfb.period,
        pgfn_quarter: pgfn.period,
        files: count,
        fetched: 0,
        received: 0,
        removed: Vec::new(),
        listas: lista_count,
        regime: regime_count,
    };
    let mut first_error = None;
    for outcome in outcomes {
        match outcome {
            Ok(Some(received)) => {
                done.fetched += 1;
                done.received += received;
            }
            Ok(None) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    job.progress.finish();
    let mut record = job.record.into_inner().unwrap_or_else(|p| p.into_inner());
    if first_error.is_none() {
        listas::older_days(&req.to, &lista_files, &mut record)?;
        if let Some(n) = req.keep {
            done.removed = keep::older_than_last(&req.to, n, &mut record)?;
        }
    }
    record::save(&req.to, &record).map_err(write_error(&req.to.join(record::FILE)))?;
    match first_error {
        Some(e) => Err(e),
        None => Ok(done),
    }
}

struct Job<'a> {
    to: &'a Path,
    transfer: transfer::Transfer<'a>,
    record: Mutex<Record>,
    progress: progress::Progress,
}

impl Job<'_> {
    /// One file fetched, checked and named: the bytes received, or `None` when it was complete.
    async fn one(&self, mut remote: Remote) -> Result<Option<u64>, DownloadError> {
        if remote.size.is_none() {
            self.transfer.head(&mut remote).await?;
        }
        let size = remote.size.unwrap_or(0);
        let dest = self.to.join(&remote.rel);
        let part = dest.with_file_name(format!("{}.part", remote.name()));
        if self.record.lock().is_ok_and(|r| r.complete(&remote, &dest)) {
            self.progress.complete(&remote.rel, size);
            return Ok(None);
        }
        if let Some(dir) = dest.parent() {
            std::fs::create_dir_all(dir).map_err(write_error(dir))?;
        }
        // A file of an earlier version of the release is not this one's: never left as finished.
        remove_if_there(&dest)?;
        let mut received = 0;
        for attempt in 1..=2 {
            let bar = self.progress.file(&remote.rel, size, std::fs::metadata(&part).map_or(0, |m| m.len()));
            let mut checking = None;
            received += self.transfer.fetch(&remote, &part, size, &bar, &mut checking).await?;
            let (checked, name) = (part.clone(), remote.name().to_string());
            let verdict = tokio::task::spawn_blocking(move || verify::check(&checked, &name, size, checking))
                .await
                .unwrap_or_else(|e| Err(format!("the check stopped: {e}")));
            match verdict {
                Ok(sha256) => {
                    std::fs::rename(&part, &dest).map_err(write_error(&dest))?;
                    dated_as_served(&dest, remote.last_modified.as_deref());
                    tracing::info!(file = %remote.rel, bytes = size, "downloaded and checked");
                    let mut record = self.record.lock().unwrap_or_else(|p| p.into_inner());
                    record.insert(&remote, size, sha256);
                    record::save(self.to, &record).map_err(write_error(&self.to.join(record::FILE)))?;
                    return Ok(Some(received));
                }
                Err(what) => {
                    remove_if_there(&part)?;
                    tracing::warn!(file = %remote.rel, attempt, "failed its check: {what}");
                    if attempt == 2 {
                        return Err(DownloadError::Check {
                            file: remote.rel.clone(),
                            url: remote.url.to_string(),
                            what,
                        });
                    }
                }
            }
        }
        Ok(Some(received))
    }
}

/// The file's modification time set to the server's Last-Modified (as `curl -R` and `wget` do):
/// a file no name dates (IBAMA's embargoes) is dated by it, and a copy says when it was
/// published, not when it arrived. A date that cannot be read or set leaves the arrival's.
fn dated_as_served(path: &Path, last_modified: Option<&str>) {
    let Some(when) = last_modified.and_then(|t| chrono::DateTime::parse_from_rfc2822(t).ok()) else { return };
    let set = std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(std::time::SystemTime::from(when.with_timezone(&chrono::Utc))));
    if let Err(e) = set {
        tracing::warn!(file = %path.display(), "cannot date it as its server does: {e}");
    }
}

fn remove_if_there(path: &Path) -> Result<(), DownloadError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(write_error(path)(e)),
        _ => Ok(()),
    }
}
