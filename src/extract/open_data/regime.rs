//! RFB's tax regime files (`api::regime`: Lucro Real, Lucro Presumido, Lucro Arbitrado, Imunes e
//! Isentas), read from a folder beside the CNPJ files: the 2026 share's
//! `entidades-lucro-real.zip`, the 2024-25 folder's `Lucro Real.zip`, or their CSVs unpacked, in
//! any subfolder.
//!
//! It owns telling the files apart (by name, as `api::regime` defines them), reading each CSV as
//! a stream (a header of the five columns in any order, or the older form without a header,
//! `;`- or `,`-separated, in the columns' order) and keeping the rows of the portfolio's
//! companies (by the CNPJ's root: a company files from its head office or a branch) as cells
//! as written. A row with another number of fields is counted with its line, never guessed at.
//! Typing the cells is `transform::regime`'s; which regime a company is in, the queries'.

use std::io::BufRead;
use std::path::Path;

use super::folder::{Found, each_csv, relative};
use super::{OpenDataError, Roots};
use crate::api::regime::{Arquivo, COLUMNS};

/// One row of a regime file kept for the portfolio, its cells as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RegimeRecord {
    pub ano: String,
    pub cnpj: String,
    pub cnpj_scp: String,
    pub forma: String,
    pub escrituracoes: String,
    /// The file (and the zip's member), shared by its rows, and the line it was read from.
    pub arquivo: std::sync::Arc<str>,
    pub linha: u64,
}

/// One regime CSV read, as the manifest names it: its name (`zip/member`), which file it is,
/// and its rows.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RegimeFileNote {
    pub path: String,
    pub arquivo: String,
    pub rows_read: u64,
    pub rows_kept: u64,
    pub rows_malformed: u64,
    /// The first malformed rows' lines, for whoever opens the file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub malformed_lines: Vec<u64>,
}

/// What a folder's regime files gave for a portfolio.
#[derive(Debug, Default)]
pub(crate) struct Regimes {
    pub records: Vec<RegimeRecord>,
    pub files: Vec<RegimeFileNote>,
}

/// Whether a file of the folder is one of the regime files.
pub(crate) fn is_regime_file(name: &str) -> bool {
    regime_file(name).is_some()
}

/// Which regime file a zip or CSV of the folder is.
fn regime_file(name: &str) -> Option<Arquivo> {
    let lower = name.to_lowercase();
    (lower.ends_with(".zip") || lower.ends_with(".csv")).then(|| Arquivo::of_name(name)).flatten()
}

/// Reads every regime file among `files` (the folder's), keeping the rows whose CNPJ's root is
/// one of `roots` (the portfolio's, 8 characters, as `Cnpj::basico` gives them).
pub(super) fn read_regimes(dir: &Path, files: &[Found], roots: &Roots) -> Result<Regimes, OpenDataError> {
    let mut out = Regimes::default();
    for found in files.iter().filter(|f| f.inner.is_none()) {
        let name = relative(dir, &found.path);
        let Some(arquivo) = regime_file(&name) else { continue };
        let io = |e: std::io::Error| super::layout(&found.path, format!("cannot be read: {e}"));
        each_csv(&found.path, &name, |entry, text| {
            let text = std::io::BufReader::with_capacity(1 << 20, text);
            read_csv(text, entry, arquivo, roots, &mut out).map_err(io)
        })?;
    }
    Ok(out)
}

/// How many malformed lines a file's note names.
const LINES_NAMED: usize = 5;

/// One CSV's rows: the header's order when it has one, else the columns' own. A row is looked
/// at as bytes, where the decompressor left it, until its CNPJ's root is the portfolio's: only
/// the rows kept are split and made text (the files hold about ten million rows, a portfolio a
/// few hundred thousand).
fn read_csv(
    text: impl BufRead,
    name: &str,
    arquivo: Arquivo,
    roots: &Roots,
    out: &mut Regimes,
) -> std::io::Result<()> {
    let mut note = RegimeFileNote {
        path: name.to_string(),
        arquivo: arquivo.definicao().membro.to_string(),
        rows_read: 0,
        rows_kept: 0,
        rows_malformed: 0,
        malformed_lines: Vec::new(),
    };
    let mut layout: Option<([usize; 5], u8)> = None;
    let mut unknown_header = None;
    let file: std::sync::Arc<str> = name.into();
    for_each_line(text, |number, row| {
        if row.is_empty() || unknown_header.is_some() {
            return;
        }
        let (order, separator) = match layout {
            Some(l) => l,
            None => {
                let separator = if row.contains(&b';') { b';' } else { b',' };
                let first = String::from_utf8_lossy(row);
                let (order, header) = match order_of(&first, separator as char) {
                    Some(found) => found,
                    None => {
                        unknown_header = Some(first.into_owned());
                        return;
                    }
                };
                layout = Some((order, separator));
                if header {
                    return;
                }
                (order, separator)
            }
        };
        note.rows_read += 1;
        // Four separators and a CNPJ of 14 characters, or the row is out of its layout.
        let cnpj = row.split(|b| *b == separator).nth(order[1]).unwrap_or_default();
        let fields = memchr::memchr_iter(separator, row).count() + 1;
        if fields != COLUMNS.len() || cnpj.iter().filter(|b| b.is_ascii_alphanumeric()).count() != 14 {
            note.rows_malformed += 1;
            if note.malformed_lines.len() < LINES_NAMED {
                note.malformed_lines.push(number);
            }
            return;
        }
        if !root_of(cnpj).is_some_and(|root| roots.contains(&root)) {
            return;
        }
        note.rows_kept += 1;
        let cells = String::from_utf8_lossy(row);
        let fields: Vec<&str> = cells.split(separator as char).map(str::trim).collect();
        out.records.push(RegimeRecord {
            ano: fields[order[0]].to_string(),
            cnpj: fields[order[1]].to_string(),
            cnpj_scp: fields[order[2]].to_string(),
            forma: fields[order[3]].to_string(),
            escrituracoes: fields[order[4]].to_string(),
            arquivo: file.clone(),
            linha: number,
        });
    })?;
    if let Some(header) = unknown_header {
        return Err(std::io::Error::other(format!(
            "its first line {header:?} is not RFB's regime header ({}) nor a row of its five columns",
            COLUMNS.join(",")
        )));
    }
    out.files.push(note);
    Ok(())
}

/// Calls `f` with each line of `text` (numbered from 1, without its `\n` or `\r\n`) where the
/// reader's buffer holds it; only a line across two fills is copied.
fn for_each_line(mut text: impl BufRead, mut f: impl FnMut(u64, &[u8])) -> std::io::Result<()> {
    let mut carry: Vec<u8> = Vec::new();
    let mut number = 0u64;
    loop {
        let buf = text.fill_buf()?;
        if buf.is_empty() {
            if !carry.is_empty() {
                f(number + 1, trim_end(&carry));
            }
            return Ok(());
        }
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', buf) {
            number += 1;
            if carry.is_empty() {
                f(number, trim_end(&buf[start..end]));
            } else {
                carry.extend_from_slice(&buf[start..end]);
                f(number, trim_end(&carry));
                carry.clear();
            }
            start = end + 1;
        }
        carry.extend_from_slice(&buf[start..]);
        let len = buf.len();
        text.consume(len);
    }
}

/// Where each of the columns is, and whether `first` (a file's first line) is a header: a line
/// naming the five columns and no other, in any order and case. A first line that names none
/// of them is a row of the older form, in the columns' own order; one that names some, or
/// others beside them, is a layout this reader does not know (`None`).
fn order_of(first: &str, separator: char) -> Option<([usize; 5], bool)> {
    let names: Vec<String> =
        first.split(separator).map(|c| c.trim().trim_matches('"').to_lowercase()).collect();
    let found: Vec<Option<usize>> = COLUMNS.iter().map(|c| names.iter().position(|n| n == c)).collect();
    if found.iter().all(Option::is_none) {
        return Some(([0, 1, 2, 3, 4], false));
    }
    if names.len() != COLUMNS.len() || found.iter().any(Option::is_none) {
        return None;
    }
    let mut order = [0; 5];
    for (i, at) in found.into_iter().enumerate() {
        order[i] = at?;
    }
    Some((order, true))
}

/// A line without the `\r` of a `\r\n` end.
fn trim_end(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The first 8 characters of a CNPJ written with or without its punctuation, upper-cased (a
/// CNPJ with letters); `None` when it has fewer.
fn root_of(cnpj: &[u8]) -> Option<[u8; 8]> {
    let mut root = [0u8; 8];
    let mut n = 0;
    for b in cnpj.iter().filter(|b| b.is_ascii_alphanumeric()) {
        root[n] = b.to_ascii_uppercase();
        n += 1;
        if n == root.len() {
            return Some(root);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, roots: &[&str]) -> Regimes {
        let roots: Roots = roots.iter().map(|r| r.as_bytes().try_into().unwrap()).collect();
        let mut out = Regimes::default();
        read_csv(text.as_bytes(), "f.csv", Arquivo::LucroReal, &roots, &mut out).unwrap();
        out
    }

    #[test]
    fn rows_are_kept_by_the_root_of_a_punctuated_or_bare_cnpj() {
        let text = "ano,cnpj,cnpj_da_scp,forma_de_tributacao,quantidade_de_escrituracoes\r\n\
                    2023,00.000.000/0001-91,0,LUCRO REAL,1\r\n\
                    2022,00000000000272,0,LUCRO REAL,1\r\n\
                    2023,11.222.333/0001-81,0,LUCRO REAL,1\r\n";
        let r = read(text, &["00000000"]);
        assert_eq!(r.records.len(), 2);
        assert_eq!((r.records[0].ano.as_str(), r.records[0].linha), ("2023", 2));
        assert_eq!(r.records[1].cnpj, "00000000000272");
        let note = &r.files[0];
        assert_eq!((note.rows_read, note.rows_kept, note.rows_malformed), (3, 2, 0));
    }

    #[test]
    fn a_header_in_another_order_is_followed_and_the_older_form_read_without_one() {
        let text = "cnpj;ano;forma_de_tributacao;cnpj_da_scp;quantidade_de_escrituracoes\n\
                    00.000.000/0001-91;2021;LUCRO REAL;0;2\n";
        let r = read(text, &["00000000"]);
        assert_eq!(r.records[0].ano, "2021");
        assert_eq!(r.records[0].forma, "LUCRO REAL");
        assert_eq!(r.records[0].escrituracoes, "2");
        let old = read("2019;00.000.000/0001-91;0;IMUNE DO IRPJ;1\n", &["00000000"]);
        assert_eq!(old.records[0].forma, "IMUNE DO IRPJ");
        assert_eq!(old.files[0].rows_read, 1, "the first line of the older form is a row");
    }

    #[test]
    fn a_line_across_two_fills_of_the_buffer_is_whole() {
        let text = "ano,cnpj,cnpj_da_scp,forma_de_tributacao,quantidade_de_escrituracoes\r\n\
                    2023,00.000.000/0001-91,0,LUCRO REAL,1\r\n\
                    2022,00.000.000/0001-91,0,LUCRO PRESUMIDO,1";
        let roots: Roots = [*b"00000000"].into_iter().collect();
        // Every buffer size: a line, and a \r\n, split across fills at each place; the last
        // line has no end.
        for capacity in 1..=text.len() + 1 {
            let mut out = Regimes::default();
            let small = std::io::BufReader::with_capacity(capacity, text.as_bytes());
            read_csv(small, "f.csv", Arquivo::LucroReal, &roots, &mut out).unwrap();
            let got: Vec<(&str, &str, u64)> =
                out.records.iter().map(|r| (r.ano.as_str(), r.forma.as_str(), r.linha)).collect();
            assert_eq!(got, [("2023", "LUCRO REAL", 2), ("2022", "LUCRO PRESUMIDO", 3)], "{capacity}");
        }
    }

    #[test]
    fn a_row_with_another_number_of_fields_or_a_cut_cnpj_is_counted_with_its_line() {
        let text = "ano,cnpj,cnpj_da_scp,forma_de_tributacao,quantidade_de_escrituracoes\n\
                    2023,00.000.000/0001-91,0,LUCRO REAL\n\
                    2023,00.000.000/0001-91,0,LUCRO REAL,1\n\
                    2023,0000000000191,0,LUCRO REAL,1\n";
        let r = read(text, &["00000000"]);
        assert_eq!(r.records.len(), 1);
        assert_eq!((r.files[0].rows_malformed, r.files[0].malformed_lines.clone()), (2, vec![2, 4]));
    }

    #[test]
    fn a_header_with_a_column_more_or_less_is_refused_not_guessed() {
        let roots: Roots = [*b"00000000"].into_iter().collect();
        for header in [
            "ano,cnpj,cnpj_da_scp,forma_de_tributacao,obs,quantidade_de_escrituracoes",
            "ano,cnpj,cnpj_da_scp,forma_de_tributacao",
        ] {
            let text = format!("{header}\n2023,00.000.000/0001-91,0,LUCRO REAL,1\n");
            let mut out = Regimes::default();
            let e = read_csv(text.as_bytes(), "f.csv", Arquivo::LucroReal, &roots, &mut out).unwrap_err();
            assert!(e.to_string().contains("is not RFB's regime header"), "{e}");
        }
    }
}
