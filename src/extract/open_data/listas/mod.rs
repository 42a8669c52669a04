//! The public lists counterparty checks use, read from the `--open-data` folder beside the tax
//! files: CGU's CEIS, CNEP, CEPIM and Acordos de Leniência (daily zips `YYYYMMDD_CEIS.zip`
//! holding `YYYYMMDD_CEIS.csv`, or the CSV alone), the labour ministry's Cadastro de
//! Empregadores (`cadastro_de_empregadores.csv`) and IBAMA's embargoes (`termo_de_embargo.csv`),
//! each in any subfolder.
//!
//! It owns telling each list apart (by its file name, as `api::listas` defines them, then its
//! header), decoding it (`decode`), finding the dates its name and notes write (`DataLista`), and
//! reading every row into a `ListaRecord` of cells as written (`layouts`): a header that changed
//! is refused, naming the file and the columns missing; a row that breaks its layout is counted
//! with its line, and so is a Leniência placeholder that is no CNPJ (kept, never matched). Dates
//! (the list's own among them) and amounts are typed with every other source's, in
//! `transform::listas`; which portfolio company a record touches is the queries' business
//! (`queries/27_sancoes.sql`).

mod decode;
mod layouts;
#[cfg(test)]
mod tests;

use std::path::Path;

use chrono::NaiveDate;

use super::OpenDataError;
use super::folder::{Found, each_csv, relative};

/// One of the lists, as `sancoes.lista` names it: defined once, in `api::listas`.
pub(crate) use crate::api::listas::Lista;

/// A list's date as its files write it, still text: typed with every other source's dates by
/// `transform::listas::list_date`. `escritas` holds each date written for it, the most
/// believed first: the MTE's text lines, the MTE's note beside its CSV, the stamp before CGU's
/// file name (the day of a daily list, `20261130_CEIS`; the month of a monthly one,
/// `202610_PEP`), any `YYYYMMDD` in IBAMA's name. `gravada_em` is the day its file was written,
/// for when none of them is a date.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataLista {
    pub escritas: Vec<String>,
    pub gravada_em: NaiveDate,
}

/// How the run types a `DataLista` (`transform::listas::list_date`), handed in by the pipeline
/// for the manifest's notes: extract parses no date itself.
pub(crate) type ListDate = fn(&DataLista) -> NaiveDate;

/// One record of a list: one row, or for the MTE one period of a row's inclusion cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListaRecord {
    pub lista: Lista,
    /// The document as the list wrote it (a masked CPF, a punctuated CNPJ, a placeholder).
    pub sancionado: String,
    /// Its digits when they are a whole CNPJ (14) or CPF (11), or the 14 characters of a CNPJ
    /// with letters, upper-cased as the portfolio holds it; `None` for a masked CPF or a
    /// placeholder, which no document can equal.
    pub documento: Option<String>,
    pub tipo_pessoa: Option<String>,
    pub nome: Option<String>,
    pub categoria: Option<String>,
    pub orgao: Option<String>,
    /// The start and the end, the fine (CNEP) and the area embargoed in hectares (IBAMA), as
    /// the list writes them: typed, with what cannot be read counted, in `transform::listas`.
    pub inicio: Option<String>,
    pub fim: Option<String>,
    pub valor_multa: Option<String>,
    pub area: Option<String>,
    /// IBAMA's term cancelled (`SIT_CANCELADO = S`).
    pub cancelado: bool,
    /// The file (relative to the folder), and the list's own date, shared by its records.
    pub arquivo: String,
    pub data_lista: std::sync::Arc<DataLista>,
    /// The physical line of the file the row starts at.
    pub linha: u64,
}

/// One list file read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListaFile {
    pub path: String,
    pub lista: Lista,
    pub data_lista: std::sync::Arc<DataLista>,
    pub rows: u64,
}

/// Everything read of the lists in a folder.
#[derive(Debug, Default)]
pub struct Listas {
    pub records: Vec<ListaRecord>,
    pub files: Vec<ListaFile>,
    /// Rows whose fields do not fit their layout, each as `file:line`.
    pub malformed: Vec<String>,
    /// Leniência's CNPJ cells that are no CNPJ, each as written.
    pub placeholders: Vec<String>,
    /// The lists expected in the folder that no file of it holds, each with why it was
    /// expected (`Expected`).
    pub missing: Vec<(Lista, Expected)>,
    /// `--listas-dir`: the folder's files no list reader takes, each named on stderr.
    pub unread: Vec<String>,
}

/// Why a list was expected in a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// The folder's download record (`download.json`) names a file of it: it was downloaded.
    Downloaded,
    /// The run was given the folder as its lists (`--listas-dir`): every list is asked for.
    AskedFor,
}

impl Expected {
    /// As the manifest records it (`listas_ausentes[].motivo`).
    pub fn code(self) -> &'static str {
        match self {
            Self::Downloaded => "baixada",
            Self::AskedFor => "pedida",
        }
    }

    pub fn says(self) -> &'static str {
        match self {
            Self::Downloaded => "downloaded into it (download.json names its file)",
            Self::AskedFor => "asked for with --listas-dir",
        }
    }
}

impl Listas {
    /// Each list expected in `dir` (`asked_for`: every one; else those its download record
    /// names) that no file read gave, said on stderr.
    pub(super) fn expect(&mut self, dir: &Path, asked_for: bool) {
        let read: std::collections::BTreeSet<Lista> = self.files.iter().map(|f| f.lista).collect();
        let recorded: std::collections::BTreeSet<Lista> =
            crate::extract::download::recorded_under(dir, crate::extract::download::LISTAS_FOLDER)
                .iter()
                .filter_map(|rel| Lista::of_name(rel))
                .collect();
        for list in Lista::ALL {
            let why = match (asked_for, recorded.contains(&list)) {
                (true, _) => Expected::AskedFor,
                (false, true) => Expected::Downloaded,
                (false, false) => continue,
            };
            if !read.contains(&list) {
                tracing::warn!(
                    "{}: the list {} was expected, {}, but no file of it is there: run `download --listas` \
                     again, or put its file in the folder",
                    dir.display(),
                    list.codigo(),
                    why.says()
                );
                self.missing.push((list, why));
            }
        }
    }
}

/// Whether a file of the folder is one of the lists, or the MTE's note that dates its list
/// (`cadastro_de_empregadores.txt`).
pub(crate) fn is_lista_file(name: &str) -> bool {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name).to_lowercase();
    Lista::of_name(name).is_some() || (base.starts_with("cadastro_de_empregadores") && base.ends_with(".txt"))
}

/// Reads every list among `files` (the folder's, as `folder::find_files` lists them).
pub(super) fn read_listas(dir: &Path, files: &[Found]) -> Result<Listas, OpenDataError> {
    let mut listas = Listas::default();
    for found in files.iter().filter(|f| f.inner.is_none()) {
        let name = relative(dir, &found.path);
        let Some(list) = Lista::of_name(&name) else { continue };
        // Each list's text whole: its encoding is told from all of it (`decode`).
        each_csv(&found.path, &name, |entry, text| {
            let mut bytes = Vec::new();
            text.read_to_end(&mut bytes)
                .map_err(|e| super::layout(&found.path, format!("cannot be read: {e}")))?;
            let mut date = DataLista { escritas: Vec::new(), gravada_em: written_on(&found.path) };
            if list == Lista::TrabalhoEscravo {
                date.escritas.extend(mte_note_dates(&found.path));
            }
            date.escritas.extend(name_dates(list, entry));
            layouts::read_text(list, entry, &decode::decode(bytes), date, &mut listas)
        })?;
    }
    Ok(listas)
}

/// The dates a list's name writes, when its text does not say one: CGU's stamp before the file's
/// name (the zip's or the CSV's, the innermost first), and for IBAMA any run of eight digits,
/// which may be a `YYYYMMDD`. The MTE's own dates, in the text lines around its header, are
/// `layouts`' to find.
fn name_dates(list: Lista, entry: &str) -> Vec<String> {
    let mut dates = Vec::new();
    for part in entry.split('/').rev() {
        let lower = part.to_lowercase();
        let stem = lower.split('.').next().unwrap_or(&lower);
        dates.extend(crate::api::listas::cgu_stamp(stem).map(str::to_string));
        if list == Lista::Ibama {
            dates.extend(eight_digits(stem).map(str::to_string));
        }
    }
    dates
}

/// The dates the MTE's note beside its CSV writes (`cadastro_de_empregadores.txt`, cp1252): its
/// current CSV starts at the header, so the date it stands at is only said there.
fn mte_note_dates(csv: &Path) -> Vec<String> {
    std::fs::read(csv.with_extension("txt"))
        .map_or_else(|_| Vec::new(), |note| layouts::text_dates(&decode::decode(note)))
}

/// Each whole run of eight digits in `text` (none before or after it).
fn eight_digits(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    (0..b.len().saturating_sub(7)).filter_map(move |i| {
        let w = text.get(i..i + 8)?;
        let whole = w.bytes().all(|c| c.is_ascii_digit())
            && (i == 0 || !b[i - 1].is_ascii_digit())
            && b.get(i + 8).is_none_or(|c| !c.is_ascii_digit());
        whole.then_some(w)
    })
}

/// The day `path` was last written (UTC), or today.
fn written_on(path: &Path) -> NaiveDate {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_or_else(|_| chrono::Utc::now(), chrono::DateTime::<chrono::Utc>::from)
        .date_naive()
}
