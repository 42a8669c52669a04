//! Reading one file of a release: a zip as a stream, entry by entry (never unpacked to disk),
//! or a bare table, while another thread hashes it; each table's rows decoded from Latin-1,
//! PGFN's by its header (rows split by a `;` in their text mended) and RFB's by position (cut
//! at `";"`, so that names with quotes of their own stay whole), only the portfolio's kept;
//! and the counts of what was read, kept, mended and skipped.

use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::Arc;

use super::layouts::{Kind, cnpj_chars, decode, is_pgfn_header_row, pgfn_header, rfb_shape_fits};
use super::national::{self, National, Profiles};
use super::rfb_rows::RfbRows;
use super::{OpenDataError, layout};
use crate::api::published::{Published, Row};

#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Counts {
    pub read: u64,
    pub kept: u64,
    pub malformed: u64,
    pub malformed_portfolio: u64,
    pub first_malformed_line: Option<u64>,
    pub mended: u64,
    /// NUL bytes dropped (RFB's files of 2021 carry them).
    pub nul_bytes: u64,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.read += other.read;
        self.kept += other.kept;
        self.malformed += other.malformed;
        self.malformed_portfolio += other.malformed_portfolio;
        self.first_malformed_line = self.first_malformed_line.or(other.first_malformed_line);
        self.mended += other.mended;
        self.nul_bytes += other.nul_bytes;
    }

    fn malformed_at(&mut self, line: Option<u64>, of_portfolio: bool) {
        self.malformed += 1;
        self.malformed_portfolio += u64::from(of_portfolio);
        self.first_malformed_line = self.first_malformed_line.or(line);
    }
}

pub(super) const MIB: u64 = 1 << 20;

/// A file that tells the progress display each MiB read from it.
struct Counted {
    file: std::fs::File,
    name: String,
    unreported: u64,
}

impl Counted {
    fn open(path: &Path) -> std::io::Result<Self> {
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        Ok(Self { file: std::fs::File::open(path)?, name, unreported: 0 })
    }
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        self.unreported += n as u64;
        if self.unreported >= MIB {
            crate::progress::advance(&self.name, self.unreported / MIB);
            self.unreported %= MIB;
        }
        Ok(n)
    }
}

impl std::io::Seek for Counted {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.file.seek(pos)
    }
}

/// Reads one file (a zip of one or more tables, or a bare CSV) while another thread hashes it;
/// `inner` names a zip inside the archive `path`, streamed out of it and hashed as it is read.
pub(super) fn read_file(
    path: &Path,
    inner: Option<&str>,
    kind: Kind,
    reader: &mut TableReader<'_>,
) -> Result<(Counts, String), OpenDataError> {
    if let Some(inner) = inner {
        return read_archived(path, inner, kind, reader);
    }
    std::thread::scope(|scope| {
        let hashing = scope.spawn(|| crate::fsutil::sha256_of(path));
        let counts = if path.to_string_lossy().to_lowercase().ends_with(".zip") {
            read_zip(path, kind, reader)
        } else {
            let file = Counted::open(path).map_err(|e| layout(path, format!("cannot be opened: {e}")))?;
            reader.table(file, kind, path)
        }?;
        let sha256 = hashing
            .join()
            .map_err(|_| layout(path, "its digest could not be computed".into()))?
            .map_err(|e| layout(path, format!("cannot be read: {e}")))?;
        Ok((counts, sha256))
    })
}

/// A zip reader's error, naming the zip (`archive.zip/inner.zip` for one inside an archive).
fn zip_error(path: &Path) -> impl Fn(zip::result::ZipError) -> OpenDataError + Copy + '_ {
    move |e| OpenDataError::Zip { path: path.to_path_buf(), message: e.to_string() }
}

/// Every data entry of a zip, decompressed as it is read.
fn read_zip(path: &Path, kind: Kind, reader: &mut TableReader<'_>) -> Result<Counts, OpenDataError> {
    let zip_error = zip_error(path);
    let file = Counted::open(path).map_err(|e| layout(path, format!("cannot be opened: {e}")))?;
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(zip_error)?;
    let mut total = Counts::default();
    let mut tables = 0;
    for i in 0..archive.len() {
        let entry = archive.by_index(i).map_err(zip_error)?;
        if entry.is_dir() {
            continue;
        }
        let inner = path.join(entry.name().map_err(zip_error)?.as_ref());
        let c = reader.table(entry, kind, &inner)?;
        tables += 1;
        total.add(c);
    }
    if tables == 0 {
        return Err(layout(path, "the zip holds no file".into()));
    }
    Ok(total)
}

/// A reader that hashes what it reads.
struct Hashing<R> {
    inner: R,
    hasher: sha2::Sha256,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use sha2::Digest;
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// Every data entry of the zip `inner` inside the archive `path`, streamed: the inner zip's
/// local headers are read in order (its directory, at its end, is not needed), each entry
/// decompressed as it is read; its digest is of the inner zip's bytes.
fn read_archived(
    path: &Path,
    inner: &str,
    kind: Kind,
    reader: &mut TableReader<'_>,
) -> Result<(Counts, String), OpenDataError> {
    use sha2::Digest;
    let at = path.join(inner);
    let zip_error = zip_error(&at);
    let file = Counted::open(path).map_err(|e| layout(path, format!("cannot be opened: {e}")))?;
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(zip_error)?;
    let entry = archive.by_name(inner).map_err(zip_error)?;
    let mut stream = Hashing { inner: entry, hasher: sha2::Sha256::new() };
    let mut total = Counts::default();
    let mut tables = 0;
    loop {
        let table = match zip::read::read_zipfile_from_stream(&mut stream) {
            Ok(Some(table)) => table,
            Ok(None) => break,
            // A zip written with its sizes after each file's data (data descriptors) cannot be
            // read as a stream: before any of its rows is read, it is read from a copy.
            Err(why) if tables == 0 => return read_copied(path, inner, kind, reader, &why),
            Err(e) => return Err(zip_error(e)),
        };
        if table.is_dir() {
            continue;
        }
        let name = at.join(table.name().map_err(zip_error)?.as_ref());
        total.add(reader.table(table, kind, &name)?);
        tables += 1;
    }
    // The inner zip's directory, so that the digest is of the whole of it.
    std::io::copy(&mut stream, &mut std::io::sink())
        .map_err(|e| layout(&at, format!("cannot be read: {e}")))?;
    if tables == 0 {
        return Err(layout(&at, "the zip holds no file".into()));
    }
    Ok((total, hex::encode(stream.hasher.finalize())))
}

/// The zip `inner` of the archive `path`, copied to a temporary file and read from there.
fn read_copied(
    path: &Path,
    inner: &str,
    kind: Kind,
    reader: &mut TableReader<'_>,
    why: &zip::result::ZipError,
) -> Result<(Counts, String), OpenDataError> {
    let at = path.join(inner);
    tracing::info!("{}: not readable as a stream ({why}); read from a temporary copy", at.display());
    let zip_error = zip_error(&at);
    let io_error = |e: std::io::Error| layout(&at, format!("cannot be copied out of its archive: {e}"));
    let file = std::fs::File::open(path).map_err(io_error)?;
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(zip_error)?;
    let mut entry = archive.by_name(inner).map_err(zip_error)?;
    let mut copy = tempfile::Builder::new().suffix(".zip").tempfile().map_err(io_error)?;
    std::io::copy(&mut entry, copy.as_file_mut()).map_err(io_error)?;
    read_file(copy.path(), None, kind, reader)
}

/// Reads tables into `out`, keeping the rows of `roots`; learns each company's profile from
/// RFB's into `profiles`, and sums every PGFN inscription into `national`.
pub(super) struct TableReader<'a> {
    pub roots: &'a super::Roots,
    pub out: &'a mut Published,
    pub national: &'a mut National,
    pub profiles: &'a Profiles,
    /// How the national sum reads a value in cents.
    pub cents: national::Cents,
}

impl TableReader<'_> {
    fn table<R: Read>(&mut self, source: R, kind: Kind, path: &Path) -> Result<Counts, OpenDataError> {
        let mut source = DropNul { inner: source, dropped: 0 };
        let buffered = std::io::BufReader::with_capacity(1 << 20, &mut source);
        let mut counts = match kind {
            Kind::Pgfn => self.pgfn(buffered, path),
            _ => self.rfb(buffered, kind, path),
        }?;
        counts.nul_bytes = source.dropped;
        Ok(counts)
    }

    fn kept(&self, root: &[u8]) -> bool {
        <&[u8; 8]>::try_from(root).is_ok_and(|r| self.roots.contains(r))
    }

    /// A PGFN file: `;`-separated, unquoted, a header naming the columns.
    fn pgfn<R: Read>(&mut self, source: R, path: &Path) -> Result<Counts, OpenDataError> {
        let mut csv = csv::ReaderBuilder::new()
            .delimiter(b';')
            .has_headers(false)
            .quoting(false)
            .flexible(true)
            .from_reader(source);
        let mut record = csv::ByteRecord::new();
        let read = |csv: &mut csv::Reader<R>, record: &mut csv::ByteRecord| {
            csv.read_byte_record(record).map_err(|e| layout(path, format!("cannot be read: {e}")))
        };
        if !read(&mut csv, &mut record)? {
            return Err(layout(path, "it is empty: a PGFN file starts with its header".into()));
        }
        let fields: Vec<String> = record.iter().map(decode).collect();
        let header = pgfn_header(&fields).map_err(|problem| layout(path, problem))?;
        let columns: Arc<[String]> = header.columns.iter().cloned().collect();
        let national = national::Columns::of(header.categoria, &header.columns, self.cents);
        let mut counts = Counts::default();
        while read(&mut csv, &mut record)? {
            let debtor = record.get(header.debtor).unwrap_or_default();
            if is_pgfn_header_row(debtor) {
                continue;
            }
            counts.read += 1;
            let digits = cnpj_chars(debtor);
            let ours = digits.is_some_and(|d| self.kept(&d[..8]));
            let fields: Vec<String> = if record.len() == header.columns.len() {
                self.national.add(self.profiles, &national, company(&digits), |i| record.get(i));
                if !ours {
                    continue;
                }
                record.iter().map(decode).collect()
            } else {
                let published: Vec<String> = record.iter().map(decode).collect();
                let Some(mended) = header.mend(&published) else {
                    counts.malformed_at(record.position().map(|p| p.line()), ours);
                    continue;
                };
                counts.mended += 1;
                let field = |i: usize| mended.get(i).map(String::as_bytes);
                self.national.add(self.profiles, &national, company(&digits), field);
                if !ours {
                    continue;
                }
                mended
            };
            let Some(digits) = digits else { continue };
            let root = String::from_utf8_lossy(&digits[..8]).to_string();
            self.out
                .dividas
                .entry((root, header.categoria))
                .or_default()
                .push(Row::new(columns.clone(), fields));
            counts.kept += 1;
        }
        if counts.read > 0 && counts.malformed == counts.read {
            let problem = format!(
                "none of its {} rows has its header's {} fields (the first at line {}): not the layout its \
                 header names",
                counts.read,
                header.columns.len(),
                counts.first_malformed_line.unwrap_or(2)
            );
            return Err(layout(path, problem));
        }
        Ok(counts)
    }

    /// An RFB file: headerless, every field quoted, `;`-separated, its columns by position.
    fn rfb<R: BufRead>(&mut self, source: R, kind: Kind, path: &Path) -> Result<Counts, OpenDataError> {
        let columns: Arc<[String]> =
            kind.rfb_columns().unwrap_or_default().iter().map(|c| c.to_string()).collect();
        let mut rows = RfbRows::new(source, columns.len());
        let profile = national::ProfileColumns::of(&columns);
        let mut counts = Counts::default();
        loop {
            let row = match rows.next_row() {
                Ok(Some(row)) => row,
                Ok(None) => break,
                Err(e) => return Err(layout(path, format!("cannot be read after row {}: {e}", counts.read))),
            };
            counts.read += 1;
            let root = row.first();
            if !rfb_shape_fits(kind, row.len(), root) {
                if counts.read == 1 {
                    let problem = format!(
                        "its first row has {} fields and starts with {:?}: not RFB's {} layout ({} quoted fields, \
                         an 8-digit root first)",
                        row.len(),
                        decode(root),
                        kind.dataset(),
                        columns.len()
                    );
                    return Err(layout(path, problem));
                }
                counts.malformed_at(Some(row.line), self.kept(root));
                continue;
            }
            if let Some(profile) = &profile {
                self.profiles.learn(profile, root, row.fields());
            }
            if !self.kept(root) {
                continue;
            }
            let root = decode(root);
            self.keep_rfb(kind, root, Row::new(columns.clone(), row.fields().map(decode)));
            counts.kept += 1;
        }
        Ok(counts)
    }

    fn keep_rfb(&mut self, kind: Kind, root: String, row: Row) {
        match kind {
            Kind::Empresas => {
                self.out.empresas.insert(root, row);
            }
            // RFB's files repeat some rows whole: one is kept.
            Kind::Estabelecimentos => push_once(self.out.estabelecimentos.entry(root).or_default(), row),
            Kind::Socios => push_once(self.out.socios.entry(root).or_default(), row),
            Kind::Simples => {
                self.out.simples.insert(root, row);
            }
            Kind::Pgfn => {}
        }
    }
}

/// A data file of the release to read: where it is (a zip inside an archive: `inner`), what it
/// holds, and its size.
#[derive(Debug, Clone, Copy)]
pub(super) struct DataFile<'a> {
    pub path: &'a Path,
    pub inner: Option<&'a str>,
    pub kind: Kind,
    pub bytes: u64,
}

/// What one file gave: the portfolio's rows and the file's national sums (finished), with the
/// file's account.
pub(super) struct FileOutcome {
    pub counts: Counts,
    pub sha256: String,
    pub published: Published,
    pub national: National,
}

/// Reads `files` on as many threads as the machine has cores, each file whole on one thread
/// into records and sums of its own, the largest first so that the last to finish is small.
/// The outcomes come back in `files`' order: added up in that order ([`merge_into`],
/// [`National::merge`]) they are what reading the files one after another gives. After a file
/// fails no other is begun, and the first failure in `files`' order is returned.
pub(super) fn read_files(
    files: &[DataFile<'_>],
    roots: &super::Roots,
    profiles: &Profiles,
    cents: national::Cents,
) -> Result<Vec<FileOutcome>, OpenDataError> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(files[i].bytes));
    let (next, failed) = (AtomicUsize::new(0), AtomicBool::new(false));
    let slots: Vec<std::sync::Mutex<Option<Result<FileOutcome, OpenDataError>>>> =
        files.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let threads =
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get).min(files.len());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while !failed.load(Ordering::Relaxed) {
                    let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                    let outcome = read_one(files[i], roots, profiles, cents);
                    failed.fetch_or(outcome.is_err(), Ordering::Relaxed);
                    *slots[i].lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(outcome);
                }
            });
        }
    });
    let outcomes: Vec<Option<Result<FileOutcome, OpenDataError>>> = slots
        .into_iter()
        .map(|s| s.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner))
        .collect();
    // Files not begun after a failure are `None`: the failure is among the others.
    outcomes.into_iter().flatten().collect()
}

fn read_one(
    file: DataFile<'_>,
    roots: &super::Roots,
    profiles: &Profiles,
    cents: national::Cents,
) -> Result<FileOutcome, OpenDataError> {
    let (mut published, mut national) = (Published::default(), National::default());
    let mut reader = TableReader { roots, out: &mut published, national: &mut national, profiles, cents };
    let (counts, sha256) = read_file(file.path, file.inner, file.kind, &mut reader)?;
    national.finish();
    Ok(FileOutcome { counts, sha256, published, national })
}

/// Adds one file's records to `out`'s, as reading it after `out`'s files would have: a later
/// company or Simples row replaces an earlier one, establishments and partners are kept once
/// each, debts follow one another.
pub(super) fn merge_into(out: &mut Published, part: Published) {
    out.empresas.extend(part.empresas);
    out.simples.extend(part.simples);
    for (root, rows) in part.estabelecimentos {
        let kept = out.estabelecimentos.entry(root).or_default();
        rows.into_iter().for_each(|row| push_once(kept, row));
    }
    for (root, rows) in part.socios {
        let kept = out.socios.entry(root).or_default();
        rows.into_iter().for_each(|row| push_once(kept, row));
    }
    for (key, rows) in part.dividas {
        out.dividas.entry(key).or_default().extend(rows);
    }
}

/// A reader that drops NUL bytes, counting them: RFB's files of 2021 carry them between rows
/// and fields, where no published text has one.
struct DropNul<R> {
    inner: R,
    dropped: u64,
}

impl<R: Read> Read for DropNul<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let n = self.inner.read(buf)?;
            let Some(first) = memchr::memchr(0, &buf[..n]) else { return Ok(n) };
            let mut kept = first;
            for i in first..n {
                if buf[i] != 0 {
                    buf[kept] = buf[i];
                    kept += 1;
                }
            }
            self.dropped += (n - kept) as u64;
            // A buffer of NULs alone is not the end of the file: read on.
            if kept > 0 || n == 0 {
                return Ok(kept);
            }
        }
    }
}

/// The root of a debtor's document that is a CNPJ.
fn company(digits: &Option<[u8; 14]>) -> Option<&[u8]> {
    digits.as_ref().map(|d| &d[..8])
}

/// Adds `row` unless an identical one is there.
fn push_once(rows: &mut Vec<Row>, row: Row) {
    if !rows.contains(&row) {
        rows.push(row);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::DropNul;

    #[test]
    fn nul_bytes_are_dropped_and_counted() {
        let text = b"\0\0\"07396865\";\0\"X\"\n\0";
        let mut reader = DropNul { inner: &text[..], dropped: 0 };
        let mut out = Vec::new();
        reader.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"\"07396865\";\"X\"\n");
        assert_eq!(reader.dropped, 4);
    }
}
