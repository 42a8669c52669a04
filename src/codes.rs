//! The public code tables (`codes/*.csv`: natureza jurídica, porte, situação cadastral,
//! motivo, qualificação do sócio, CNAE, país, município, ...): the official names of the codes
//! the registry publishes, as the RFB publishes them (sources in `codes/SOURCES.md`). Plain
//! CSV files with a `codigo,nome` header, so an analyst updates a table when the RFB does,
//! without Rust: `--codes DIR`, else `./codes` when present, else the copies in the binary.
//!
//! It owns reading the tables and looking a name up. A code no table knows is shown as the
//! code itself by the callers, never dropped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::exit::{ExitStatus, HasExitStatus};

#[derive(Debug, thiserror::Error)]
pub enum CodesError {
    #[error(
        "cannot read the code tables in {dir}: {source}; point --codes at a folder of codigo,nome CSV files"
    )]
    Dir { dir: PathBuf, source: std::io::Error },
    #[error("code table {file}, line {line}: {reason}; each line is codigo,nome under a codigo,nome header")]
    Table { file: String, line: usize, reason: String },
}

impl HasExitStatus for CodesError {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::BadInput
    }
}

/// Every code table by name (the file name without `.csv`).
#[derive(Debug, Clone, Default)]
pub struct CodeTables {
    tables: BTreeMap<String, BTreeMap<String, String>>,
    /// Where they came from: a folder, or `built-in`.
    pub origin: String,
}

fn parse_table(file: &str, text: &str) -> Result<BTreeMap<String, String>, CodesError> {
    let bad = |line: usize, reason: String| CodesError::Table { file: file.to_string(), line, reason };
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let header = reader.headers().map_err(|e| bad(1, e.to_string()))?;
    if header.iter().map(str::trim).collect::<Vec<_>>() != ["codigo", "nome"] {
        return Err(bad(1, format!("the header is {:?}", header.iter().collect::<Vec<_>>().join(","))));
    }
    let mut names = BTreeMap::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| bad(i + 2, e.to_string()))?;
        let (Some(code), Some(name)) = (record.get(0), record.get(1)) else {
            return Err(bad(i + 2, "it has fewer than two fields".into()));
        };
        if code.trim().is_empty() {
            return Err(bad(i + 2, "the code is empty".into()));
        }
        names.insert(code.trim().to_string(), name.trim().to_string());
    }
    Ok(names)
}

impl CodeTables {
    /// The tables of `dir`, or the built-in ones.
    pub fn load(dir: Option<&Path>) -> Result<Self, CodesError> {
        let Some(dir) = dir else {
            let tables = crate::builtin::CODES
                .iter()
                .map(|(name, text)| Ok(((*name).to_string(), parse_table(name, text)?)))
                .collect::<Result<_, CodesError>>()?;
            return Ok(Self { tables, origin: "built-in".into() });
        };
        let mut tables = BTreeMap::new();
        let files = crate::fsutil::files_with_extension(dir, "csv")
            .map_err(|source| CodesError::Dir { dir: dir.to_path_buf(), source })?;
        for (name, path) in files {
            // A file that cannot be read is named itself, not its folder.
            let text = std::fs::read_to_string(&path)
                .map_err(|source| CodesError::Dir { dir: path.clone(), source })?;
            tables.insert(name, parse_table(&path.display().to_string(), &text)?);
        }
        Ok(Self { tables, origin: dir.display().to_string() })
    }

    /// These tables, each of `dir`'s (a release's own, written by the fetch) standing over the
    /// one of its name; `self` as it is when `dir` does not exist.
    pub fn with_release(mut self, dir: &Path) -> Result<Self, CodesError> {
        if !dir.is_dir() {
            return Ok(self);
        }
        let release = Self::load(Some(dir))?;
        if release.tables.is_empty() {
            return Ok(self);
        }
        let names: Vec<&str> = release.tables.keys().map(String::as_str).collect();
        self.origin = format!("{} ({}: {})", self.origin, dir.display(), names.join(", "));
        self.tables.extend(release.tables);
        Ok(self)
    }

    /// The official name of `code` in `table`; `None` when the table or the code is unknown.
    pub fn name(&self, table: &str, code: &str) -> Option<&str> {
        self.tables.get(table)?.get(code.trim()).map(String::as_str)
    }

    /// Every table with its codes and names, by table name.
    pub fn tables(&self) -> impl Iterator<Item = (&str, &BTreeMap<String, String>)> {
        self.tables.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// The folder of a run's output where the fetch writes the code tables its release of the
/// publishers' files carried (`CodeTables::with_release`).
pub const RELEASE_DIR: &str = "codigos";

/// The code tables folder to use: `--codes DIR`, else `./codes` when present, else built-in.
pub fn default_codes_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    crate::fsutil::explicit_or_local(explicit, "codes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_tables_name_the_codes_the_registry_publishes() {
        let t = CodeTables::load(None).unwrap();
        assert_eq!(t.name("natureza_juridica", "2062"), Some("Sociedade Empresária Limitada"));
        assert_eq!(t.name("natureza_juridica", "0000"), Some("Natureza Jurídica não informada"));
        assert_eq!(t.name("situacao_cadastral", "02"), Some("ATIVA"));
        assert_eq!(t.name("natureza_juridica", "9999"), None, "an unknown code has no name");
        assert_eq!(t.name("no_such_table", "1"), None);
    }

    #[test]
    fn every_file_in_codes_is_built_in_and_identical() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("codes");
        let on_disk = CodeTables::load(Some(&dir)).unwrap();
        let built_in = CodeTables::load(None).unwrap();
        assert_eq!(on_disk.tables, built_in.tables);
    }

    #[test]
    fn a_releases_table_stands_over_the_one_of_its_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("cnae.csv"), "codigo,nome\n0111301,Arroz da publicação\n").unwrap();
        let t = CodeTables::load(None).unwrap().with_release(dir.path()).unwrap();
        assert_eq!(t.name("cnae", "0111301"), Some("Arroz da publicação"));
        assert_eq!(t.name("cnae", "0111302"), None, "the release's table is the whole table");
        assert_eq!(t.name("natureza_juridica", "2062"), Some("Sociedade Empresária Limitada"));
        assert!(t.origin.starts_with("built-in (") && t.origin.ends_with(": cnae)"), "{}", t.origin);
        let none = CodeTables::load(None).unwrap().with_release(&dir.path().join("absent")).unwrap();
        assert_eq!(none.origin, "built-in");
    }

    #[test]
    fn a_broken_table_is_refused_naming_the_file_and_line() {
        let e = parse_table("x.csv", "codigo,nome\n01,A\n,B\n").unwrap_err().to_string();
        assert!(e.contains("x.csv") && e.contains("line 3"), "{e}");
        let e = parse_table("y.csv", "code,name\n01,A\n").unwrap_err().to_string();
        assert!(e.contains("y.csv") && e.contains("line 1"), "{e}");
    }
}
