//! A file's check before it takes its name: its exact size, then every zip entry's data against
//! its CRC-32, and its sha256 for the record. No checksum is published (minha-receita #75), so
//! this is what a complete, unbroken file means.
//!
//! The checks run as the bytes arrive (`Checking`, on a thread of its own fed by the transfer),
//! so a whole file is not read again: only its zip directory, at its end, is read back and
//! compared with the entries the stream held. Whenever the stream could not tell (a zip written
//! with its sizes after each entry's data, which cannot be read as a stream; a directory that
//! does not match the entries; bytes not fed in order), the file is read back whole and checked
//! as it always was: the stream only saves work, it never decides a file alone.

use std::io::Read;
use std::path::Path;

use sha2::Digest;

/// Chunks the transfer may run ahead of the checks before it waits for them.
const AHEAD: usize = 256;

/// The checks of one file, made as its bytes arrive (see the module).
pub(super) struct Checking {
    tx: tokio::sync::mpsc::Sender<bytes::Bytes>,
    thread: std::thread::JoinHandle<Streamed>,
    /// Bytes fed so far: the file's first `fed` bytes, in order.
    fed: u64,
}

/// What the stream of a file's bytes gave.
struct Streamed {
    sha256: String,
    entries: Entries,
    bytes: u64,
}

/// A zip's entries as the stream read them, each read to its end against its CRC-32.
enum Entries {
    Checked(Vec<Entry>),
    /// The stream could not tell (why): the file is read back whole.
    ReadBack(String),
    NotZip,
}

#[derive(Debug, PartialEq, Eq)]
struct Entry {
    name: String,
    crc32: u32,
    size: u64,
    /// Where its local header starts in the file.
    at: u64,
}

impl Checking {
    /// Checks for the file `name` (a zip's entries when it is one), fed from its first byte.
    pub(super) fn start(name: &str) -> Self {
        let zip = name.to_ascii_lowercase().ends_with(".zip");
        let (tx, rx) = tokio::sync::mpsc::channel(AHEAD);
        let thread = std::thread::spawn(move || stream(rx, zip));
        Self { tx, thread, fed: 0 }
    }

    /// The bytes fed so far.
    pub(super) fn fed(&self) -> u64 {
        self.fed
    }

    /// The file's next bytes. A check that stopped early (its thread gone) takes no more; its
    /// verdict says why.
    pub(super) async fn feed(&mut self, bytes: bytes::Bytes) {
        self.fed += bytes.len() as u64;
        let _ = self.tx.send(bytes).await;
    }

    /// Feeds the first `have` bytes of `part`, already on disk (a file resumed): the only part
    /// of it read back.
    pub(super) async fn feed_prefix(&mut self, part: &Path, have: u64) -> std::io::Result<()> {
        use tokio::io::AsyncReadExt;
        if have == 0 {
            return Ok(());
        }
        let mut file = tokio::fs::File::open(part).await?.take(have);
        loop {
            let mut buf = bytes::BytesMut::zeroed(1 << 20);
            let n = file.read(&mut buf).await?;
            if n == 0 {
                return Ok(());
            }
            buf.truncate(n);
            self.feed(buf.freeze()).await;
        }
    }
}

/// The thread's work: every byte into the digest, and a zip's entries read through.
fn stream(rx: tokio::sync::mpsc::Receiver<bytes::Bytes>, zip: bool) -> Streamed {
    let mut fed = Fed { rx, chunk: bytes::Bytes::new(), hasher: sha2::Sha256::new(), at: 0 };
    let entries = if zip { entries_of(&mut fed) } else { Entries::NotZip };
    // The rest (a zip's directory, or a file that is no zip) into the digest.
    let _ = std::io::copy(&mut fed, &mut std::io::sink());
    Streamed { sha256: hex::encode(fed.hasher.finalize()), entries, bytes: fed.at }
}

fn entries_of(fed: &mut Fed) -> Entries {
    let mut entries = Vec::new();
    loop {
        let at = fed.at;
        let mut entry = match zip::read::read_zipfile_from_stream(fed) {
            Ok(Some(entry)) => entry,
            Ok(None) => return Entries::Checked(entries),
            Err(e) => {
                return Entries::ReadBack(format!("its entry at byte {at} cannot be read as a stream: {e}"));
            }
        };
        let name = entry.name().map_or_else(|_| format!("#{}", entries.len()), |n| n.to_string());
        let (crc32, size) = (entry.crc32(), entry.size());
        if let Err(e) = std::io::copy(&mut entry, &mut std::io::sink()) {
            return Entries::ReadBack(format!("zip entry {name}: {e}"));
        }
        entries.push(Entry { name, crc32, size, at });
    }
}

/// The bytes fed, as a reader: each one into the digest as it is handed on.
struct Fed {
    rx: tokio::sync::mpsc::Receiver<bytes::Bytes>,
    chunk: bytes::Bytes,
    hasher: sha2::Sha256,
    at: u64,
}

impl Read for Fed {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.chunk.is_empty() {
            match self.rx.blocking_recv() {
                Some(chunk) => self.chunk = chunk,
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len());
        let taken = self.chunk.split_to(n);
        buf[..n].copy_from_slice(&taken);
        self.hasher.update(&taken);
        self.at += n as u64;
        Ok(n)
    }
}

/// The verdict on the file at `path`, all `size` bytes of it arrived, with what `checking` saw
/// on the way (none: the file was whole before any byte came): its sha256 (hex), or what did
/// not match.
pub(super) fn check(
    path: &Path,
    name: &str,
    size: u64,
    checking: Option<Checking>,
) -> Result<String, String> {
    let streamed = checking.map(|Checking { tx, thread, fed }| {
        drop(tx);
        (fed, thread.join())
    });
    let len = std::fs::metadata(path).map_err(|e| format!("cannot read it back: {e}"))?.len();
    if len != size {
        return Err(format!("{len} bytes, where the listing and Content-Length say {size}"));
    }
    let why_read_back = match &streamed {
        None => Some("no byte came this time".to_string()),
        Some((_, Err(_))) => Some("the check of the arriving bytes stopped".to_string()),
        Some((fed, Ok(s))) if *fed != size || s.bytes != size => {
            Some(format!("{} bytes were checked as they came, of {size}", s.bytes))
        }
        Some((_, Ok(s))) => match &s.entries {
            Entries::NotZip => None,
            Entries::ReadBack(why) => Some(why.clone()),
            Entries::Checked(entries) => directory_differs(path, entries),
        },
    };
    let Some(why) = why_read_back else {
        return streamed
            .and_then(|(_, s)| s.ok())
            .map(|s| s.sha256)
            .ok_or_else(|| "the check stopped".into());
    };
    tracing::debug!(file = %path.display(), "read back whole to check it: {why}");
    if name.to_ascii_lowercase().ends_with(".zip") {
        crcs(path)?;
    }
    crate::fsutil::sha256_of(path).map_err(|e| format!("cannot read it back: {e}"))
}

/// Whether the zip's directory names other entries than the stream read (each name, CRC-32,
/// size and place): why, or `None` when they are the same.
fn directory_differs(path: &Path, entries: &[Entry]) -> Option<String> {
    let listed = || -> zip::result::ZipResult<Vec<Entry>> {
        let file = std::fs::File::open(path)?;
        let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file))?;
        (0..archive.len())
            .map(|i| {
                let entry = archive.by_index_raw(i)?;
                let name = entry.name().map_or_else(|_| format!("#{i}"), |n| n.to_string());
                Ok(Entry { name, crc32: entry.crc32(), size: entry.size(), at: entry.header_start() })
            })
            .collect()
    };
    match listed() {
        Ok(mut listed) => {
            listed.sort_by_key(|e| e.at);
            (listed != entries).then(|| "its directory lists other entries than its data holds".to_string())
        }
        Err(e) => Some(format!("its directory cannot be read: {e}")),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut out);
        for (name, data) in entries {
            zip.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
            std::io::Write::write_all(&mut zip, data).unwrap();
        }
        zip.finish().unwrap();
        out.into_inner()
    }

    /// Feeds `bytes` in chunks of `step` and checks the file holding `on_disk`.
    fn checked(bytes: &[u8], on_disk: &[u8], step: usize) -> (Result<String, String>, Streamed) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.zip");
        std::fs::write(&path, on_disk).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let fed = |c: &mut Checking| {
            runtime.block_on(async {
                for chunk in bytes.chunks(step) {
                    c.feed(bytes::Bytes::copy_from_slice(chunk)).await;
                }
            })
        };
        let mut once = Checking::start("a.zip");
        fed(&mut once);
        let Checking { tx, thread, .. } = once;
        drop(tx);
        let streamed = thread.join().unwrap();
        let mut again = Checking::start("a.zip");
        fed(&mut again);
        (check(&path, "a.zip", on_disk.len() as u64, Some(again)), streamed)
    }

    #[test]
    fn a_whole_zip_is_checked_as_it_comes_and_only_its_directory_is_read_back() {
        let bytes = zip_of(&[("a.csv", &b"x;y\n".repeat(5000)), ("b.csv", b"1;2\n")]);
        let (verdict, streamed) = checked(&bytes, &bytes, 777);
        use sha2::Digest;
        assert_eq!(verdict.unwrap(), hex::encode(sha2::Sha256::digest(&bytes)));
        let Entries::Checked(entries) = streamed.entries else { panic!("not read as a stream") };
        assert_eq!(entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["a.csv", "b.csv"]);
        // The directory agrees with the entries read: the file is not read back whole.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.zip"), &bytes).unwrap();
        assert_eq!(directory_differs(&dir.path().join("a.zip"), &entries), None);
        let mut renamed = zip_of(&[("a.csv", &b"x;y\n".repeat(5000)), ("c.csv", b"1;2\n")]);
        std::fs::write(dir.path().join("a.zip"), &renamed).unwrap();
        assert!(directory_differs(&dir.path().join("a.zip"), &entries).is_some());
        renamed.clear();
    }

    #[test]
    fn a_flipped_byte_in_an_entrys_data_is_refused_naming_the_entry() {
        let mut bytes = zip_of(&[("a.csv", &b"abcdefgh;".repeat(4000))]);
        // Inside the compressed data, after the 30-byte local header and the name.
        bytes[30 + 5 + 20] ^= 0xFF;
        let (verdict, _) = checked(&bytes, &bytes, 4096);
        let why = verdict.unwrap_err();
        assert!(why.contains("a.csv"), "{why}");
    }

    #[test]
    fn bytes_fed_short_of_the_file_are_read_back_whole() {
        let bytes = zip_of(&[("a.csv", b"1;2\n")]);
        let (verdict, _) = checked(&bytes[..bytes.len() / 2], &bytes, 3);
        use sha2::Digest;
        assert_eq!(verdict.unwrap(), hex::encode(sha2::Sha256::digest(&bytes)));
    }
}
