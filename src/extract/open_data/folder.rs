//! The files of a release folder: every file under it, the kind each name says, what each zip
//! holds (from its directory: nothing is decompressed), the saved pages of the release's
//! listing, and the data tables found twice. In a folder the download manages, the older
//! releases it keeps are not read.
//!
//! A month the publisher shares as a folder (RFB since 2026) arrives, downloaded whole, as one
//! archive holding its zips (`2026-05.zip` holding `Empresas0.zip`, ...). Each zip inside is
//! listed as a file of the release, and read as the zip it is, streamed out of the archive and
//! never unpacked to disk (`read::read_file`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::layouts::{Kind, is_data_file, kind_of_name};
use super::{OpenDataError, code_tables, whole};

/// What the folder's zips hold, read from their directories (nothing is decompressed): each
/// readable data zip's file names, by its index in the folder's files, and the zips whose
/// directory cannot be read, with why.
#[derive(Default)]
pub(super) struct ZipContents {
    pub(super) entries: BTreeMap<usize, Vec<String>>,
    pub(super) unreadable: Vec<(String, String)>,
}

/// `unreadable`: the zips no name says what they hold whose directory could not be read, as
/// the listing found them (`find_files`).
pub(super) fn zip_contents(dir: &Path, files: &[Found], unreadable: Vec<(String, String)>) -> ZipContents {
    let mut out = ZipContents { unreadable, ..ZipContents::default() };
    for (i, found) in files.iter().enumerate().filter(|(_, f)| f.kind.is_some() && f.bytes > 0) {
        // A zip inside an archive is read as a stream: its directory is not at hand.
        if found.inner.is_some() || !found.path.to_string_lossy().to_lowercase().ends_with(".zip") {
            continue;
        }
        match zip_listing(&found.path) {
            Ok(listed) => {
                out.entries.insert(i, listed.into_iter().map(|(name, _)| name).collect());
            }
            Err(message) => out.unreadable.push((found.name(dir), message)),
        }
    }
    out
}

/// Every data table of the folder that can be read: each bare file's name, each zip entry's as
/// `zip/entry` (relative to `dir`). A table found twice (a zip beside the file unpacked from it,
/// a download saved twice) is refused: its rows would count twice.
pub(super) fn data_entries(
    dir: &Path,
    files: &[Found],
    contents: &ZipContents,
) -> Result<Vec<String>, OpenDataError> {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, found) in files.iter().enumerate().filter(|(_, f)| f.kind.is_some() && f.bytes > 0) {
        let at = found.name(dir);
        let inner: Vec<String> = match contents.entries.get(&i) {
            Some(entries) => entries.iter().map(|e| format!("{at}/{e}")).collect(),
            None if at.to_lowercase().ends_with(".zip") && found.inner.is_none() => continue,
            None => vec![at],
        };
        for name in inner {
            let base = name.rsplit('/').next().unwrap_or(&name).to_lowercase();
            if let Some(first) = seen.insert(base.clone(), name.clone()) {
                return Err(OpenDataError::Twice { dir: dir.to_path_buf(), name: base, first, second: name });
            }
            out.push(name);
        }
    }
    Ok(out)
}

/// The text of the saved pages of the release's listing (`.html` files of the folder), if any.
pub(super) fn listing(dir: &Path, files: &[Found]) -> Option<String> {
    let pages: Vec<String> = files
        .iter()
        .filter(|f| {
            let name = f.name(dir).to_lowercase();
            name.ends_with(".html") || name.ends_with(".htm")
        })
        .filter_map(|f| std::fs::read(&f.path).ok())
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .collect();
    (!pages.is_empty()).then(|| pages.concat())
}

/// The year the newest of `files` was written (its modification time): when the copy read was
/// made, which no date inside it can follow. The clock's year where no file says.
pub(super) fn written_in(files: &[Found]) -> i32 {
    use chrono::Datelike;
    files
        .iter()
        .filter_map(|f| std::fs::metadata(&f.path).and_then(|m| m.modified()).ok())
        .max()
        .map_or_else(chrono::Utc::now, chrono::DateTime::<chrono::Utc>::from)
        .year()
}

pub(super) fn relative(dir: &Path, path: &Path) -> String {
    path.strip_prefix(dir).unwrap_or(path).to_string_lossy().replace('\\', "/")
}

/// Calls `f` with each CSV of a file beside the release (a public list, a tax regime file),
/// named `name` in the folder: the file itself, or every `.csv` inside its zip, named
/// `zip/entry`, each read as a stream. A zip that cannot be read is `OpenDataError::Zip`, a
/// read that fails names the file.
pub(super) fn each_csv(
    path: &Path,
    name: &str,
    mut f: impl FnMut(&str, &mut dyn std::io::Read) -> Result<(), OpenDataError>,
) -> Result<(), OpenDataError> {
    let io = |e: std::io::Error| super::layout(path, format!("cannot be read: {e}"));
    let file = std::fs::File::open(path).map_err(io)?;
    if !name.to_lowercase().ends_with(".zip") {
        return f(name, &mut std::io::BufReader::new(file));
    }
    let zip_err =
        |e: zip::result::ZipError| OpenDataError::Zip { path: path.to_path_buf(), message: e.to_string() };
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(zip_err)?;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(zip_err)?;
        let inner = entry.name().map_err(zip_err)?.to_string();
        if entry.is_dir() || !inner.to_lowercase().ends_with(".csv") {
            continue;
        }
        f(&format!("{name}/{inner}"), &mut entry)?;
    }
    Ok(())
}

/// A file of the folder (or a zip inside an archive of zips, `inner`): the kind its name says,
/// and its size.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Found {
    pub(super) path: PathBuf,
    pub(super) inner: Option<String>,
    pub(super) kind: Option<Kind>,
    pub(super) bytes: u64,
}

impl Found {
    /// Its name relative to `dir`; a zip inside an archive as `archive.zip/Inner.zip`.
    pub(super) fn name(&self, dir: &Path) -> String {
        let at = relative(dir, &self.path);
        match &self.inner {
            Some(inner) => format!("{at}/{inner}"),
            None => at,
        }
    }
}

/// Every file under `dir`, in path order, each archive of zips as the files it holds; and the
/// zips no name says what they hold whose directory cannot be read (an archive cut short, say),
/// each with why, by its name relative to `dir`.
pub(super) type Listing = (Vec<Found>, Vec<(String, String)>);

pub(super) fn find_files(dir: &Path) -> Result<Listing, OpenDataError> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    let kept = kept_releases(dir);
    while let Some(d) = pending.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|source| OpenDataError::Dir { dir: d.clone(), source })?;
        for entry in entries {
            let entry = entry.map_err(|source| OpenDataError::Dir { dir: d.clone(), source })?;
            let path = entry.path();
            if path.is_dir() && kept(&path) {
                tracing::debug!("{}: an older release the download keeps; not read", path.display());
            } else if path.is_dir() {
                pending.push(path);
            } else {
                let name = entry.file_name().to_string_lossy().to_lowercase();
                // A download not finished is no data yet, whatever its name says.
                let data = is_data_file(&name) && whole::unfinished_stem(&name).is_none();
                let bytes = entry.metadata().map(|m| m.len()).unwrap_or(0);
                out.push(Found { kind: kind_of_name(&name).filter(|_| data), path, inner: None, bytes });
            }
        }
    }
    out.sort();
    Ok(expand(dir, out))
}

/// In a folder the download manages (`download.json`), whether a folder is an older release
/// kept beside the current one (`cnpj/YYYY-MM/`, `pgfn/YYYY_trimestre_NN/` of another month or
/// quarter): the run reads the release the download last went for, not a mix of releases.
fn kept_releases(dir: &Path) -> impl Fn(&Path) -> bool {
    use crate::extract::download::{current_release, is_month, is_quarter};
    let current = current_release(dir);
    let (cnpj, pgfn) = (dir.join("cnpj"), dir.join("pgfn"));
    move |path: &Path| {
        let Some((month, quarter)) = &current else { return false };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        match path.parent() {
            Some(p) if p == cnpj => is_month(&name) && name != *month,
            Some(p) if p == pgfn => is_quarter(&name) && name != *quarter,
            _ => false,
        }
    }
}

/// `files` with each archive of zips replaced by the files it holds, and the zips no name says
/// what they hold that cannot be read (a code table's is code_tables' to say).
fn expand(dir: &Path, files: Vec<Found>) -> Listing {
    let mut unreadable = Vec::new();
    let mut out = Vec::with_capacity(files.len());
    for found in files {
        let name = found.name(dir);
        if found.kind.is_some() || !name.to_lowercase().ends_with(".zip") {
            out.push(found);
            continue;
        }
        match zip_listing(&found.path) {
            Ok(inside) if inside.iter().any(|(n, _)| n.to_lowercase().ends_with(".zip")) => {
                out.extend(inside.into_iter().map(|(inner, bytes)| {
                    let lower = inner.to_lowercase();
                    let kind = kind_of_name(&lower).filter(|_| is_data_file(&lower));
                    Found { path: found.path.clone(), kind, inner: Some(inner), bytes }
                }));
            }
            Ok(_) => out.push(found),
            Err(message) => {
                if code_tables::table_of(&name).is_none() {
                    unreadable.push((name, message));
                }
                out.push(found);
            }
        }
    }
    (out, unreadable)
}

/// The files of a zip with their sizes, from its directory (nothing is decompressed), or why
/// they cannot be read.
fn zip_listing(path: &Path) -> Result<Vec<(String, u64)>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot be opened: {e}"))?;
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for i in 0..archive.len() {
        let entry = archive.by_index_raw(i).map_err(|e| e.to_string())?;
        if !entry.is_dir() {
            out.push((entry.name().map_err(|e| e.to_string())?.to_string(), entry.size()));
        }
    }
    Ok(out)
}
