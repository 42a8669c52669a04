//! A file's check before it takes its name: its exact size, then every zip entry read to its
//! end, which checks the entry's CRC-32 against the zip's directory. No checksum is published
//! (minha-receita #75), so this is what a complete, unbroken file means. Also its sha256, for the
//! record.

use std::path::Path;

/// The file's sha256 (hex), or what did not match.
pub(super) fn check(path: &Path, name: &str, size: u64) -> Result<String, String> {
    let len = std::fs::metadata(path).map_err(|e| format!("cannot read it back: {e}"))?.len();
    if len != size {
        return Err(format!("{len} bytes, where the listing and Content-Length say {size}"));
    }
    if name.to_ascii_lowercase().ends_with(".zip") {
        crcs(path)?;
    }
    crate::fsutil::sha256_of(path).map_err(|e| format!("cannot read it back: {e}"))
}

/// Every entry of the zip at `path` read to its end: the zip crate compares each one's CRC-32
/// with the directory's there.
fn crcs(path: &Path) -> Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it back: {e}"))?;
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| format!("not a readable zip: {e}"))?;
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| format!("zip entry {i} cannot be read ({e}), so its CRC-32 cannot be checked"))?;
        let entry_name = entry.name().map_or_else(|_| format!("#{i}"), |n| n.to_string());
        std::io::copy(&mut entry, &mut std::io::sink())
            .map_err(|e| format!("zip entry {entry_name}: {e} (its CRC-32 does not match its data)"))?;
    }
    Ok(())
}
