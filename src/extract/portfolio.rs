//! Reading the portfolio file: a CSV with a `cnpj` column, or one CNPJ per line.
//!
//! People edit these by hand and export them from spreadsheets, so it copes with a BOM, CRLF,
//! Latin-1 bytes, `;` delimiters, quoted headers, masks and duplicates, and reports each bad
//! line with its number and reason. It does not fetch anything.

use std::path::{Path, PathBuf};

use crate::api::Cnpj;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LineIssue {
    pub line: usize,
    /// The line as written, cut at `SHOWN_CHARS` characters.
    pub input: String,
    pub reason: String,
}

/// How much of a skipped line is kept: enough to find it, not a whole pasted file.
const SHOWN_CHARS: usize = 60;

/// `text` cut at `SHOWN_CHARS` characters (`…` marking the cut).
fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// What the manifest says of the portfolio file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PortfolioNote {
    pub arquivo: String,
    pub cnpjs: usize,
    pub linhas_ignoradas: Vec<LineIssue>,
    pub duplicadas: usize,
}

impl Portfolio {
    /// The manifest's account of this portfolio, read from `path`.
    pub(crate) fn note(&self, path: &Path) -> PortfolioNote {
        PortfolioNote {
            arquivo: path.display().to_string(),
            cnpjs: self.cnpjs.len(),
            linhas_ignoradas: self.issues.clone(),
            duplicadas: self.duplicates,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Portfolio {
    /// Valid CNPJs in order of first appearance, without duplicates.
    pub cnpjs: Vec<Cnpj>,
    pub issues: Vec<LineIssue>,
    pub duplicates: usize,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum PortfolioError {
    #[error("cannot read the portfolio file {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error(
        "the portfolio file {path} has a header row but no `cnpj` column (columns: {columns}); name the column `cnpj`"
    )]
    NoCnpjColumn { path: PathBuf, columns: String },
    #[error("the portfolio file {path} is not valid CSV at line {line}: {reason}")]
    Csv { path: PathBuf, line: usize, reason: String },
    #[error(
        "the portfolio file {path} holds no valid CNPJ ({invalid} invalid lines{first}); write one CNPJ per line, \
         masked (12.345.678/0001-95) or bare, or a CSV with a `cnpj` column"
    )]
    NoValid { path: PathBuf, invalid: usize, first: String },
    #[error(
        "the portfolio file {path}, line {line}: {input:?} is not a valid CNPJ: {reason} (--strict stops at the first bad line)"
    )]
    Strict { path: PathBuf, line: usize, input: String, reason: String },
}

impl crate::exit::HasExitStatus for PortfolioError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        crate::exit::ExitStatus::BadInput
    }
}

/// UTF-8 (with or without BOM), falling back to Latin-1, which spreadsheets still export.
fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

fn unquote(s: &str) -> &str {
    s.trim().trim_matches('"').trim()
}

/// Reads the portfolio at `path`; `alphanumeric` takes the alphanumeric CNPJs too (read from
/// the publishers' files, which carry them; the service does not).
pub(crate) fn read_portfolio(
    path: &Path,
    strict: bool,
    alphanumeric: bool,
) -> Result<Portfolio, PortfolioError> {
    let bytes =
        std::fs::read(path).map_err(|source| PortfolioError::Read { path: path.to_path_buf(), source })?;
    parse_portfolio(&decode(&bytes), path, strict, alphanumeric)
}

pub(crate) fn parse_portfolio(
    text: &str,
    path: &Path,
    strict: bool,
    alphanumeric: bool,
) -> Result<Portfolio, PortfolioError> {
    let parse = if alphanumeric { Cnpj::parse_published } else { Cnpj::parse };
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let delimiter = if first.contains(';') { b';' } else { b',' };
    let header_cells: Vec<String> =
        first.split(delimiter as char).map(|c| unquote(c).to_ascii_lowercase()).collect();
    let looks_like_header =
        header_cells.iter().any(|c| c.chars().any(|ch| ch.is_ascii_alphabetic()) && Cnpj::parse(c).is_err())
            && (header_cells.len() > 1 || header_cells.iter().any(|c| c == "cnpj"));
    let mut rows: Vec<(usize, String)> = Vec::new();
    if looks_like_header {
        let Some(col) = header_cells.iter().position(|c| c == "cnpj") else {
            return Err(PortfolioError::NoCnpjColumn {
                path: path.to_path_buf(),
                columns: header_cells.join(", "),
            });
        };
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .has_headers(true)
            .flexible(true)
            .from_reader(text.as_bytes());
        for rec in reader.records() {
            let rec = rec.map_err(|e| PortfolioError::Csv {
                path: path.to_path_buf(),
                line: e.position().map_or(0, |p| p.line() as usize),
                reason: e.to_string(),
            })?;
            let line = rec.position().map_or(0, |p| p.line() as usize);
            rows.push((line, rec.get(col).unwrap_or("").to_string()));
        }
    } else {
        for (i, l) in text.lines().enumerate() {
            rows.push((i + 1, unquote(l).to_string()));
        }
    }
    let mut out = Portfolio::default();
    let mut seen = std::collections::HashSet::new();
    for (line, raw) in rows {
        let value = raw.trim();
        if value.is_empty() {
            continue;
        }
        match parse(value) {
            Ok(c) => {
                if seen.insert(c.clone()) {
                    out.cnpjs.push(c);
                } else {
                    out.duplicates += 1;
                }
            }
            Err(e) if strict => {
                return Err(PortfolioError::Strict {
                    path: path.to_path_buf(),
                    line,
                    input: value.to_string(),
                    reason: e.rule,
                });
            }
            Err(e) => out.issues.push(LineIssue { line, input: shown(value), reason: e.rule }),
        }
    }
    if out.cnpjs.is_empty() {
        let first = out
            .issues
            .first()
            .map(|i| format!("; line {}: {:?}: {}", i.line, i.input, i.reason))
            .unwrap_or_default();
        return Err(PortfolioError::NoValid { path: path.to_path_buf(), invalid: out.issues.len(), first });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Portfolio, PortfolioError> {
        parse_portfolio(text, Path::new("p.csv"), false, false)
    }

    #[test]
    fn plain_lines_masked_and_bare_with_duplicates() {
        let r = p("33.683.111/0002-80\r\n33683111000280\n\n11222333000181\n").unwrap();
        assert_eq!(r.cnpjs.len(), 2);
        assert_eq!(r.duplicates, 1);
    }

    #[test]
    fn csv_with_quoted_header_and_extra_columns() {
        let r = p("\"nome\";\"CNPJ\";\"x\"\n\"A\";\"33.683.111/0002-80\";1\nB;bad;2\n").unwrap();
        assert_eq!(r.cnpjs.len(), 1);
        assert_eq!(r.issues.len(), 1);
        assert_eq!(r.issues[0].line, 3);
    }

    #[test]
    fn bom_and_latin1() {
        let mut bytes = b"\xEF\xBB\xBFcnpj\n33683111000280\n".to_vec();
        assert_eq!(parse_portfolio(&decode(&bytes), Path::new("x"), false, false).unwrap().cnpjs.len(), 1);
        bytes = b"nome,cnpj\nJos\xE9,33683111000280\n".to_vec();
        assert_eq!(parse_portfolio(&decode(&bytes), Path::new("x"), false, false).unwrap().cnpjs.len(), 1);
    }

    #[test]
    fn errors_name_the_line() {
        let e = p("123\nabc\n").unwrap_err();
        assert!(e.to_string().contains("no valid CNPJ (2 invalid lines; line 1"), "{e}");
        let e = parse_portfolio("33683111000280\n33683111000281\n", Path::new("p"), true, false).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        assert!(matches!(p("nome,id\nA,33683111000280\n"), Err(PortfolioError::NoCnpjColumn { .. })));
        assert!(matches!(p(""), Err(PortfolioError::NoValid { .. })));
    }
}
