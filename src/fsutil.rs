//! File writes that are never seen half-done (write to a temporary name beside the target,
//! flush to disk, then rename), where an analyst's editable folder is found, and a file's sha256.

use std::io::Write;
use std::path::{Path, PathBuf};

pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_parts(path, &[bytes])
}

/// `write_atomic` of a file made of `parts`, written one after another (never joined in memory).
pub(crate) fn write_atomic_parts(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        for part in parts {
            f.write_all(part)?;
        }
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// The files of `dir` ending in `.{extension}`, sorted by name, each with its stem (the name an
/// analyst's file gives its query or code table).
pub(crate) fn files_with_extension(dir: &Path, extension: &str) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    Ok(files
        .into_iter()
        .map(|p| (p.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default(), p))
        .collect())
}

/// The folder to read an analyst's files from: the one given (`--queries`, `--templates`,
/// `--codes`), else `./<local>` when present; `None` means the copies built into the binary.
pub(crate) fn explicit_or_local(explicit: Option<&Path>, local: &str) -> Option<PathBuf> {
    explicit.map(Path::to_path_buf).or_else(|| {
        let local = PathBuf::from(local);
        local.is_dir().then_some(local)
    })
}

/// How the scratch directories of the stages after the fetch begin (`.scratch-spill-…` beside
/// the exported tables, `.scratch-respelled-…` beside the typed segments): each is removed by
/// the process that made it, and one a killed process left behind by the next process that
/// holds the run directory alone (`remove_scratch`).
pub(crate) const SCRATCH_PREFIX: &str = ".scratch-";

/// A scratch directory's name for `what`, unique to this process and call.
pub(crate) fn scratch_name(what: &str) -> String {
    format!("{SCRATCH_PREFIX}{what}-{}", process_unique())
}

/// Removes the scratch directories directly under `dir`: only for a process that holds the run
/// directory alone (its staging lock, exclusive), when none can be another's work in progress.
/// Best effort: one that cannot be removed stays, as it would have.
pub(crate) fn remove_scratch(dir: &Path) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_name().to_string_lossy().starts_with(SCRATCH_PREFIX) && e.path().is_dir() {
            match std::fs::remove_dir_all(e.path()) {
                Ok(()) => tracing::info!("removed {}, left by a run that was stopped", e.path().display()),
                Err(err) => tracing::debug!("{} not removed: {err}", e.path().display()),
            }
        }
    }
}

/// A name part no other process (nor another call in this one) uses at the same time, for
/// scratch directories that several readers of one folder may make at once: the process id
/// alone repeats across containers (each one's first process is 1).
pub(crate) fn process_unique() -> String {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{}-{nanos:x}-{call}", std::process::id())
}

/// The file's sha256, in hex: the open-data reader's note of each file read, and the
/// download's record of each file fetched.
pub(crate) fn sha256_of(path: &Path) -> std::io::Result<String> {
    use sha2::Digest;
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}
