//! A month the publisher shares as a folder (RFB since 2026) arrives, downloaded whole, as one
//! archive holding its zips (`2026-05.zip` holding `Empresas0.zip`, ...). Each zip inside is
//! listed as a file of the release, and read as the zip it is, streamed out of the archive and
//! never unpacked to disk (`read::read_file`).

use std::path::Path;

use super::Found;
use super::layouts::{is_data_file, kind_of_name};

/// `files` with each archive of zips replaced by the files it holds.
pub(super) fn expand(files: Vec<Found>) -> Vec<Found> {
    files.into_iter().flat_map(|f| zips_inside(&f).unwrap_or_else(|| vec![f])).collect()
}

/// The files an archive holds, when `found` is a zip no dataset's name says whose files
/// include a zip; `None` for anything else (a broken zip is the reader's to name).
fn zips_inside(found: &Found) -> Option<Vec<Found>> {
    if found.kind.is_some() || !found.path.to_string_lossy().to_lowercase().ends_with(".zip") {
        return None;
    }
    let inside = entries(&found.path)?;
    let holds_zips = inside.iter().any(|(name, _)| name.to_lowercase().ends_with(".zip"));
    holds_zips.then(|| {
        inside
            .into_iter()
            .map(|(name, bytes)| {
                let lower = name.to_lowercase();
                Found {
                    path: found.path.clone(),
                    kind: kind_of_name(&lower).filter(|_| is_data_file(&lower)),
                    inner: Some(name),
                    bytes,
                }
            })
            .collect()
    })
}

/// The files of a zip with their sizes, from its directory.
fn entries(path: &Path) -> Option<Vec<(String, u64)>> {
    let file = std::fs::File::open(path).ok()?;
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file)).ok()?;
    let mut out = Vec::new();
    for i in 0..archive.len() {
        let entry = archive.by_index_raw(i).ok()?;
        if !entry.is_dir() {
            out.push((entry.name().ok()?.to_string(), entry.size()));
        }
    }
    Some(out)
}
