//! The publishers' own files as a source: a folder of PGFN's dívida ativa zips and RFB's CNPJ
//! zips, as a person downloads them, read into the service's models for a portfolio's
//! companies (`api::published::Published`). The service mirrors these files field for field,
//! so what is read here is served to the rest of the run as the service would send it.
//!
//! It owns finding the files (by name, in any subfolder), telling what each holds (by name,
//! then by header or shape), refusing a table found twice, dating the release, and accounting
//! for every file read; reading each file's rows is `read`'s (zips as streams, Latin-1, only
//! the portfolio's rows: people's never match a company). What is done with the records is
//! not its business.

mod code_tables;
mod folder;
pub(crate) mod layouts;
pub(crate) mod listas;
pub(crate) mod national;
mod read;
pub(crate) mod regime;
mod release;
mod rfb_rows;
pub(crate) mod whole;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use crate::api::Cnpj;
use crate::api::models::Fonte;
use crate::api::published::Published;
use folder::{Found, ZipContents, data_entries, find_files, listing, written_in, zip_contents};
use layouts::Kind;
use read::{Counts, DataFile, MIB, read_files};
pub(crate) use release::ReleasePeriod;
pub(crate) use whole::{Gap, files_of};

/// A folder or file that cannot be used, named with what is wrong and how to fix it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OpenDataError {
    #[error(
        "cannot read the open-data folder {dir}: {source}; point --open-data at the folder holding the downloaded files"
    )]
    Dir { dir: PathBuf, source: std::io::Error },
    #[error(
        "{dir} holds no PGFN or RFB open-data file (Dados_abertos_*.zip, Empresas*.zip, Estabelecimentos*.zip, \
         Socios*.zip, Simples.zip); point --open-data at the folder the files were downloaded to"
    )]
    Empty { dir: PathBuf },
    #[error(
        "{dir} holds more than one release ({what}: {periods}); point --open-data at one release's folder, \
         and load several one after another, oldest first, on a --store"
    )]
    Mixed { dir: PathBuf, what: &'static str, periods: String },
    #[error(
        "{path}: not a readable zip ({message}); the download is truncated or corrupt: download it again"
    )]
    Zip { path: PathBuf, message: String },
    #[error(
        "{dir} is not a whole release:{gaps}\ndownload those files again into {}, or give --partial to read what is \
         there (the manifest, the report's banner and \"Fontes e períodos\" then name what is missing; on a --store, \
         a dataset a file would have renewed is carried from the previous snapshot, not read as ended)",
        dir.display()
    )]
    Partial { dir: PathBuf, gaps: String },
    #[error(
        "{dir} holds none of RFB's tax regime files (entidades-lucro-real.zip, entidades-lucro-presumido.zip, \
         entidades-lucro-arbitrado.zip, entidades-imunes-e-isentas.zip, or the 2025 names Lucro Real.zip ...); \
         point --regime-dir at the folder they were downloaded to"
    )]
    NoRegime { dir: PathBuf },
    #[error("{path}: {problem}; remove the file from the folder or replace it with the publisher's file")]
    Layout { path: PathBuf, problem: String },
    #[error(
        "{file}: the header of the {list} list changed, it lacks the columns {missing}; the list is not read \
         with a layout it does not have: replace the file with the publisher's, or remove it from the folder"
    )]
    ListaHeader { file: String, list: &'static str, missing: String },
    #[error(
        "{dir} holds the data file {name} twice ({first} and {second}): its rows would be counted twice; \
         keep one of them (a zip or the file unpacked from it, not both; a download saved twice as \"(1)\")"
    )]
    Twice { dir: PathBuf, name: String, first: String, second: String },
}

impl crate::exit::HasExitStatus for OpenDataError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        crate::exit::ExitStatus::BadInput
    }
}

/// One file of the folder, as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileRead {
    /// Relative to the folder.
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
    /// The dataset it holds (`pgfn_dividas`, `rfb_empresas`, ...).
    pub dataset: String,
    /// Data rows read (headers not counted) and kept for the portfolio.
    pub rows_read: u64,
    pub rows_kept: u64,
    /// Rows whose number of fields is not their layout's, and which could not be mended:
    /// skipped and counted; and how many of them were rows of the portfolio's companies.
    pub rows_malformed: u64,
    #[serde(default)]
    pub rows_malformed_portfolio: u64,
    /// Rows one field too long (a `;` inside a name, or closing the line) read as the publisher
    /// meant them.
    #[serde(default)]
    pub rows_mended: u64,
    /// NUL bytes dropped from the file's text (RFB's files of 2021 carry them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub nul_bytes_dropped: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What the manifest says of the files a run read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OpenDataNote {
    pub dir: String,
    pub files: Vec<FileRead>,
    pub ignored: Vec<String>,
    /// Of `ignored`, the files no reader takes that are not the download's own bookkeeping:
    /// named on stderr and in the report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
    pub found: BTreeSet<String>,
    pub missing: BTreeSet<String>,
    pub period: ReleasePeriod,
    /// What a whole release has that this one lacks or holds broken (read with `--partial`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<Gap>,
    /// The datasets it renews whole (`pgfn_fgts`, `rfb_socios`, ...).
    #[serde(default)]
    pub renewed: BTreeSet<String>,
    /// The code tables it carries, each with its file: they name the codes of this run
    /// (`codes/` names those of the tables it lacks).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub codes: BTreeMap<String, String>,
    /// On a store, the datasets it did not renew, each carried from the snapshot named.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub carried: BTreeMap<String, String>,
    /// How long reading the folder took, in milliseconds.
    #[serde(default)]
    pub read_ms: u64,
    /// The public lists read beside the tax files, each with its date.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listas: Vec<ListaNote>,
    /// The lists expected in the folder (downloaded into it) that no file there holds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listas_ausentes: Vec<MissingLista>,
    /// Every PGFN inscription of the release (the portfolio's or not) summed once, by its
    /// principal debtor's row: by state, person type, system, tax group, situation and in court.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nacional: Option<NationalNote>,
    /// RFB's tax regime files read beside the CNPJ files, each CSV with its rows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regime: Vec<regime::RegimeFileNote>,
}

/// The release's national debt as the manifest records it: its totals (the table
/// `divida_ativa_nacional` holds its cells).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NationalNote {
    /// What the figures are, named plainly: "dívida ativa da União inscrita (PGFN), trimestre
    /// 2026T3", never the service's active credits.
    #[serde(default)]
    pub fonte: String,
    pub inscricoes: u64,
    /// Exact, as a decimal string (`1234567.89`).
    pub valor: String,
    /// Principal rows whose value could not be read: in no cell nor total.
    pub valores_ilegiveis: u64,
    /// Inscriptions of company debtors that RFB's files read in the run do not hold (neither a
    /// head office's CNAE nor a legal nature): `?` in both columns.
    #[serde(default)]
    pub inscricoes_empresas_sem_rfb: u64,
}

impl NationalNote {
    fn of(national: &national::National, quarter: Option<&str>) -> Option<Self> {
        let total = national.total();
        let quarter =
            quarter.map_or_else(|| "trimestre não identificado".to_string(), |q| format!("trimestre {q}"));
        let unmatched =
            national.sum(|k| k.tipo_pessoa == "J" && k.cnae_secao == "?" && k.natureza_grupo == "?");
        (total.inscricoes > 0 || national.unreadable > 0).then(|| Self {
            fonte: format!("dívida ativa da União inscrita (PGFN), {quarter}"),
            inscricoes: total.inscricoes,
            valor: total.valor.to_string(),
            valores_ilegiveis: national.unreadable,
            inscricoes_empresas_sem_rfb: unmatched.inscricoes,
        })
    }
}

/// A list expected in a folder and not found there, and why it was expected: `baixada` (the
/// folder's download record names its file) or `pedida` (`--listas-dir` asks for every list).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MissingLista {
    pub lista: String,
    pub motivo: String,
}

impl MissingLista {
    pub fn of(listas: &listas::Listas) -> Vec<Self> {
        listas
            .missing
            .iter()
            .map(|(list, why)| Self { lista: list.codigo().to_string(), motivo: why.code().to_string() })
            .collect()
    }
}

/// What the manifest says of `--listas-dir`: the folder, each list read, the files no reader
/// takes and the lists missing.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ListasDirNote {
    pub dir: String,
    pub listas: Vec<ListaNote>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listas_ausentes: Vec<MissingLista>,
}

impl ListasDirNote {
    /// `date` types each list's date (`listas::ListDate`).
    pub(crate) fn of(dir: &Path, listas: &listas::Listas, date: listas::ListDate) -> Self {
        Self {
            dir: dir.display().to_string(),
            listas: ListaNote::of(listas, date),
            unread: listas.unread.clone(),
            listas_ausentes: MissingLista::of(listas),
        }
    }
}

/// What the manifest says of `--regime-dir`: the folder and each regime CSV read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RegimeDirNote {
    pub dir: String,
    pub files: Vec<regime::RegimeFileNote>,
}

impl RegimeDirNote {
    pub(crate) fn of(dir: &Path, regimes: &regime::Regimes) -> Self {
        Self { dir: dir.display().to_string(), files: regimes.files.clone() }
    }
}

impl ListaNote {
    fn of(listas: &listas::Listas, date: listas::ListDate) -> Vec<Self> {
        listas
            .files
            .iter()
            .map(|f| ListaNote {
                path: f.path.clone(),
                lista: f.lista.codigo().to_string(),
                data_lista: date(&f.data_lista).to_string(),
                linhas: f.rows,
            })
            .collect()
    }
}

/// A public list read, as the manifest names it: its file, which list, the list's date and how
/// many rows it gave.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ListaNote {
    pub path: String,
    pub lista: String,
    pub data_lista: String,
    pub linhas: u64,
}

impl Release {
    /// The manifest's account of this release, read from `dir`.
    /// `date` types each list's date (`listas::ListDate`).
    pub(crate) fn note(&self, dir: &Path, date: listas::ListDate) -> OpenDataNote {
        OpenDataNote {
            dir: dir.display().to_string(),
            files: self.files.clone(),
            ignored: self.ignored.clone(),
            found: self.found.clone(),
            missing: self.missing.clone(),
            period: self.period.clone(),
            gaps: self.gaps.clone(),
            renewed: self.renewed.clone(),
            codes: self.codes.iter().map(|(table, (file, _))| (table.clone(), file.clone())).collect(),
            carried: self.carried.clone(),
            read_ms: self.read_ms,
            listas: ListaNote::of(&self.listas, date),
            unread: self.unread(),
            listas_ausentes: MissingLista::of(&self.listas),
            nacional: NationalNote::of(&self.national, self.period.quarter.as_deref()),
            regime: self.regimes.files.clone(),
        }
    }

    /// Of the files ignored, those that are data no reader takes: not the download's own
    /// bookkeeping.
    pub(crate) fn unread(&self) -> Vec<String> {
        self.ignored.iter().filter(|p| !bookkeeping(p)).cloned().collect()
    }

    /// The month the release stands for: RFB's month, else the last month of PGFN's quarter.
    pub(crate) fn month(&self) -> Option<crate::api::AnoMes> {
        self.period.month()
    }
}

/// Every dataset a release of both publishers renews, as the store's run record names them.
pub(crate) fn all_datasets() -> BTreeSet<String> {
    let systems = crate::api::Categoria::ALL.iter().map(|c| format!("pgfn_{}", c.as_str()));
    let tables = Kind::ALL.iter().filter(|k| **k != Kind::Pgfn).map(|k| k.dataset().to_string());
    systems.chain(tables).collect()
}

/// What a folder gave for a portfolio.
#[derive(Debug, Default)]
pub(crate) struct Release {
    pub published: Published,
    pub files: Vec<FileRead>,
    /// Files whose name says no dataset nor code table (notes), left alone.
    pub ignored: Vec<String>,
    /// The release's code tables: table -> (its file, code -> name).
    pub codes: BTreeMap<String, (String, BTreeMap<String, String>)>,
    /// Datasets found, and the ones a run reads that no file held.
    pub found: BTreeSet<String>,
    pub missing: BTreeSet<String>,
    pub period: ReleasePeriod,
    pub gaps: Vec<Gap>,
    /// The datasets it renews whole, as the store's run record names them.
    pub renewed: BTreeSet<String>,
    /// On a store, the datasets the previous snapshot holds that it did not renew, each with
    /// the snapshot it is carried from.
    pub carried: BTreeMap<String, String>,
    pub read_ms: u64,
    /// The public lists the folder holds beside the tax files (`lists`).
    pub listas: listas::Listas,
    /// Every PGFN inscription of the release summed once (`national`), the portfolio's or not.
    pub national: national::National,
    /// The portfolio's rows of RFB's tax regime files, when the folder holds them (`regime`),
    /// once `regimes_reading` has been waited for.
    pub regimes: regime::Regimes,
    /// The regime files still being read: `read_release` starts them on a thread of their own
    /// once the tax files are read, so they take the core the run's next step (the portfolio's
    /// records into staging) leaves free instead of slowing the tax files down. Whoever needs
    /// `regimes` joins it first.
    pub regimes_reading: Option<std::thread::JoinHandle<Result<regime::Regimes, OpenDataError>>>,
}

/// The public lists in `dir` (any subfolder), for a run over a service (`--listas-dir`): every
/// list is asked for, and a file no reader takes is named (the release's files and code tables
/// are not, as the folder may be the one `download --listas` filled).
pub(crate) fn read_listas_dir(dir: &Path) -> Result<listas::Listas, OpenDataError> {
    let (files, _) = find_files(dir)?;
    let mut listas = listas::read_listas(dir, &files)?;
    let names = files.iter().filter(|f| f.inner.is_none() && f.kind.is_none()).map(|f| f.name(dir));
    listas.unread = names
        .filter(|name| !listas::is_lista_file(name) && !regime::is_regime_file(name))
        .filter(|name| code_tables::table_of(name).is_none())
        .filter(|name| !bookkeeping(name))
        .collect();
    say_ignored(dir, &listas.unread);
    listas.expect(dir, true);
    Ok(listas)
}

/// RFB's tax regime files in `dir` (any subfolder), for a run over a service (`--regime-dir`):
/// the rows of `portfolio`'s companies. A folder that holds none is an error naming the files
/// looked for: the run was asked for them.
pub(crate) fn read_regime_dir(dir: &Path, portfolio: &[Cnpj]) -> Result<regime::Regimes, OpenDataError> {
    let (files, _) = find_files(dir)?;
    let regimes = regime::read_regimes(dir, &files, &roots_of(portfolio))?;
    if regimes.files.is_empty() {
        return Err(OpenDataError::NoRegime { dir: dir.to_path_buf() });
    }
    Ok(regimes)
}

/// The portfolio's CNPJ roots, looked up for every row of the release and of the regime files:
/// foldhash, not the default SipHash.
pub(crate) type Roots = foldhash::HashSet<[u8; 8]>;

fn roots_of(portfolio: &[Cnpj]) -> Roots {
    portfolio.iter().filter_map(|c| c.basico().as_bytes().try_into().ok()).collect()
}

/// Reads the open-data files under `dir` for `portfolio`. A release with gaps (a part or a
/// system missing, a file broken or half-downloaded) is refused unless `partial`, when what is
/// there is read and the gaps are kept in the release's account. `cents` reads the values the
/// national sum adds (`transform::parse::published_cents`: extract parses no amount itself).
pub(crate) fn read_release(
    dir: &Path,
    portfolio: &[Cnpj],
    partial: bool,
    cents: national::Cents,
) -> Result<Release, OpenDataError> {
    let started = std::time::Instant::now();
    let (files, unreadable) = find_files(dir)?;
    // The public lists on a thread of their own, beside the tax files (IBAMA's alone is about
    // 200 MB of text).
    let roots = roots_of(portfolio);
    let mut release = std::thread::scope(|scope| {
        let listas = scope.spawn(|| listas::read_listas(dir, &files));
        let release = read_tax_files(dir, &files, unreadable, &roots, partial, cents);
        // A list's error first: it names the one file to fix, whatever else the folder lacks.
        let listas = listas.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        release.map(|release| Release { listas, ..release })
    })?;
    release.listas.expect(dir, false);
    let dir_owned = dir.to_path_buf();
    release.regimes_reading =
        Some(std::thread::spawn(move || regime::read_regimes(&dir_owned, &files, &roots)));
    release.read_ms = started.elapsed().as_millis() as u64;
    Ok(release)
}

/// The release's tax files under `dir` (`files`), read for the portfolio's `roots` (see
/// `read_release`).
fn read_tax_files(
    dir: &Path,
    files: &[Found],
    unreadable: Vec<(String, String)>,
    roots: &Roots,
    partial: bool,
    cents: national::Cents,
) -> Result<Release, OpenDataError> {
    let mut release = Release::default();
    let names: Vec<String> = files.iter().map(|f| f.name(dir)).collect();
    let contents = zip_contents(dir, files, unreadable);
    (release.gaps, release.renewed) = gaps_of(dir, files, &names, &contents);
    if !release.gaps.is_empty() && !partial {
        return Err(OpenDataError::Partial { dir: dir.to_path_buf(), gaps: describe(&release.gaps) });
    }
    for g in &release.gaps {
        tracing::warn!("{}: {}; read without it (--partial)", dir.display(), g.describe());
    }
    let entries = data_entries(dir, files, &contents)?;
    release.period = ReleasePeriod::of(&names, &entries, written_in(files)).map_err(|two| {
        OpenDataError::Mixed { dir: dir.to_path_buf(), what: two.what, periods: two.periods }
    })?;
    let broken: HashSet<&str> =
        release.gaps.iter().filter(|g| g.is_broken()).map(|g| g.file.as_str()).collect();
    let readable = |f: &&Found| f.kind.is_some() && !broken.contains(f.name(dir).as_str());
    let bytes: u64 = files.iter().filter(readable).map(|f| f.bytes).sum();
    // An ETA over the bytes to read: the compressed bytes, which is what reading costs.
    let _stage = crate::progress::begin("open data", "MiB", bytes.div_ceil(MIB));
    let mut rfb = Vec::new();
    let mut pgfn = Vec::new();
    for found in files {
        let path = found.name(dir);
        let Some(kind) = found.kind else {
            match read_code_table(found, &path) {
                Some((table, codes)) => {
                    release.codes.insert(table.to_string(), (path, codes));
                }
                None if listas::is_lista_file(&path) || regime::is_regime_file(&path) => {}
                None => release.ignored.push(path),
            }
            continue;
        };
        if broken.contains(path.as_str()) {
            continue;
        }
        let file = DataFile { path: &found.path, inner: found.inner.as_deref(), kind, bytes: found.bytes };
        if kind == Kind::Pgfn { pgfn.push((path, file)) } else { rfb.push((path, file)) }
    }
    // RFB's files, every one of them, before PGFN's: the national sum takes each company
    // debtor's CNAE section and legal nature from them. Each set on every core.
    let profiles = national::Profiles::default();
    for set in [rfb, pgfn] {
        let data: Vec<DataFile<'_>> = set.iter().map(|(_, file)| *file).collect();
        for ((path, file), outcome) in set.into_iter().zip(read_files(&data, roots, &profiles, cents)?) {
            read::merge_into(&mut release.published, outcome.published);
            release.national.merge(outcome.national);
            let counts = outcome.counts;
            say_malformed(&path, &counts);
            release.found.insert(file.kind.dataset().to_string());
            release.files.push(FileRead {
                path,
                bytes: file.bytes,
                sha256: outcome.sha256,
                dataset: file.kind.dataset().to_string(),
                rows_read: counts.read,
                rows_kept: counts.kept,
                rows_malformed: counts.malformed,
                rows_malformed_portfolio: counts.malformed_portfolio,
                rows_mended: counts.mended,
                nul_bytes_dropped: counts.nul_bytes,
            });
        }
    }
    // RFB's facts are not needed once PGFN's files are summed.
    drop(profiles);
    release.files.sort_by(|a, b| a.path.cmp(&b.path));
    say_national(&release.national);
    say_ignored(dir, &release.unread());
    if release.files.is_empty() {
        return Err(match release.gaps.is_empty() {
            true => OpenDataError::Empty { dir: dir.to_path_buf() },
            // With --partial too: nothing of the release could be read.
            false => OpenDataError::Partial { dir: dir.to_path_buf(), gaps: describe(&release.gaps) },
        });
    }
    release.missing =
        Kind::ALL.iter().map(|k| k.dataset().to_string()).filter(|d| !release.found.contains(d)).collect();
    release.published.fontes = fontes(&release);
    Ok(release)
}

/// The release's national debt in a line on stderr: what every inscription adds to, the people's
/// and the companies' shares.
fn say_national(national: &national::National) {
    let (all, people, companies) =
        (national.total(), national.of_person_type("F"), national.of_person_type("J"));
    if all.inscricoes == 0 {
        return;
    }
    tracing::info!(
        "the release's dívida ativa: {} inscriptions, R$ {} (companies {} / R$ {}, people {} / R$ {}); {} \
         principal rows with a value that cannot be read",
        all.inscricoes,
        all.valor,
        companies.inscricoes,
        companies.valor,
        people.inscricoes,
        people.valor,
        national.unreadable
    );
}

/// The download's own record and a download not finished: no data, never named as unread.
fn bookkeeping(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_lowercase();
    name == "download.json" || whole::unfinished_stem(&name).is_some()
}

/// What the readers take, as said beside a file none of them takes.
pub(crate) const READERS_TAKE: &str = "PGFN's Dados_abertos_*.zip, RFB's Empresas, Estabelecimentos, Socios and Simples \
     zips and code tables, RFB's tax regime zips (entidades-lucro-real.zip, ...), and the public lists \
     (YYYYMMDD_CEIS.zip, _CNEP, _CEPIM, _AcordosLeniencia, YYYYMM_PEP.zip, cadastro_de_empregadores.csv, \
     termo_de_embargo.csv)";

/// Nothing is skipped in silence: each file of the folder no reader takes is named on stderr,
/// as well as in the manifest and the report's sources section.
fn say_ignored(dir: &Path, unread: &[String]) {
    for path in unread {
        tracing::warn!(
            "{}: no reader takes {path}, so it was not read (the readers take {READERS_TAKE}); it is \
             named in the manifest and the report (--strict stops the run on it)",
            dir.display()
        );
    }
}

/// The gaps of the folder's `files` (`names`, relative to `dir`), each said on stderr, and the
/// datasets it renews whole.
fn gaps_of(
    dir: &Path,
    files: &[Found],
    names: &[String],
    contents: &ZipContents,
) -> (Vec<Gap>, BTreeSet<String>) {
    let listed: Vec<whole::Paged> = files
        .iter()
        .zip(names)
        .enumerate()
        .map(|(i, (f, name))| whole::Paged {
            path: name,
            kind: f.kind,
            bytes: f.bytes,
            entries: contents.entries.get(&i).map(Vec::as_slice),
        })
        .collect();
    let gaps = whole::gaps(&listed, &contents.unreadable, listing(dir, files).as_deref());
    let renewed = whole::renewed(&listed, &gaps);
    (gaps, renewed)
}

/// Each gap in a sentence, one per line, for the error that stops the run.
fn describe(gaps: &[Gap]) -> String {
    gaps.iter().map(|g| format!("\n  - {}", g.describe())).collect()
}

/// The table and codes of `found` when it is one of the release's code tables; `None` when
/// it is none, or cannot be read (its codes are then named from `codes/`, as said).
fn read_code_table(found: &Found, path: &str) -> Option<(&'static str, BTreeMap<String, String>)> {
    let table = code_tables::table_of(path).filter(|_| found.inner.is_none())?;
    match code_tables::read(&found.path) {
        Ok(codes) => Some((table, codes)),
        Err(why) => {
            tracing::warn!(
                "{path}: the release's code table cannot be read ({why}); its codes are named from codes/"
            );
            None
        }
    }
}

/// Writes the release's code tables into `dir` as `codes/` holds them (`<table>.csv`,
/// `codigo,nome`), where the export takes them (`CodeTables::with_release`).
pub(crate) fn write_code_tables(release: &Release, dir: &Path) -> std::io::Result<()> {
    if release.codes.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    for (table, (_, codes)) in &release.codes {
        let mut w = csv::Writer::from_path(dir.join(format!("{table}.csv")))?;
        w.write_record(["codigo", "nome"])?;
        for (code, name) in codes {
            w.write_record([code, name])?;
        }
        w.flush()?;
    }
    Ok(())
}

/// Says on stderr what of a file could not be read, the portfolio's rows first: they are
/// missing from its figures.
fn say_malformed(path: &str, counts: &Counts) {
    if counts.malformed == 0 {
        return;
    }
    let line = counts.first_malformed_line.map_or(String::new(), |l| format!(", the first at line {l}"));
    let rows = counts.malformed;
    if counts.malformed_portfolio > 0 {
        tracing::warn!(
            "{path}: {} rows of the portfolio's companies could not be read ({rows} rows in all whose fields \
             do not fit the layout{line}): they are missing from this run's figures; the source is flagged \
             in the report",
            counts.malformed_portfolio
        );
    } else {
        tracing::info!(
            "{path}: {rows} rows whose fields do not fit the layout skipped, none of the portfolio's{line}"
        );
    }
}

/// `parcial` with what is missing (the files of `fonte`'s release the folder lacks or holds
/// broken, the rows of the portfolio's companies in `dataset`'s files that could not be read);
/// `ok` when nothing is.
fn read_status(release: &Release, fonte: &str, dataset: impl Fn(&str) -> bool) -> String {
    let mut parts = Vec::new();
    let files: Vec<&str> = release
        .gaps
        .iter()
        .filter(|g| g.fonte.as_deref() == Some(fonte))
        .map(|g| g.file.rsplit('/').next().unwrap_or(&g.file))
        .collect();
    if !files.is_empty() {
        parts.push(format!("faltam {}", files.join(", ")));
    }
    let lost: u64 =
        release.files.iter().filter(|f| dataset(&f.dataset)).map(|f| f.rows_malformed_portfolio).sum();
    if lost > 0 {
        parts.push(format!("{lost} linhas da carteira ilegíveis nos arquivos publicados"));
    }
    if parts.is_empty() { "ok".to_string() } else { format!("parcial: {}", parts.join("; ")) }
}

/// The service's `fontes` for what the folder held: PGFN and the CNPJ files with their
/// period, and `ausente` for the datasets no published file carries (instalment plans,
/// settlements and credits: `rfb`; works: `cno`; rural properties: `cafir`).
fn fontes(release: &Release) -> BTreeMap<String, Fonte> {
    let fonte = |status: Option<String>, versao: Option<String>| Fonte {
        status: Some(status.unwrap_or_else(|| "ausente".to_string())),
        versao,
    };
    let is_pgfn = |d: &str| d == Kind::Pgfn.dataset();
    let is_cnpj = |d: &str| d.starts_with("rfb_");
    // A publisher whose files are there, read or not (all broken: `parcial`, not `ausente`).
    let there = |fonte: &str, dataset: &dyn Fn(&str) -> bool| {
        release.found.iter().any(|d| dataset(d))
            || release.gaps.iter().any(|g| g.fonte.as_deref() == Some(fonte))
    };
    let pgfn = there("pgfn", &is_pgfn).then(|| read_status(release, "pgfn", is_pgfn));
    let cnpj = there("cnpj", &is_cnpj).then(|| read_status(release, "cnpj", is_cnpj));
    let absent = || fonte(None, None);
    BTreeMap::from([
        ("pgfn".to_string(), fonte(pgfn, release.period.quarter.clone())),
        ("cnpj".to_string(), fonte(cnpj, release.period.month.clone())),
        ("rfb".to_string(), absent()),
        ("cno".to_string(), absent()),
        ("cafir".to_string(), absent()),
    ])
}

fn layout(path: &Path, problem: String) -> OpenDataError {
    OpenDataError::Layout { path: path.to_path_buf(), problem }
}

#[cfg(test)]
mod tests;
