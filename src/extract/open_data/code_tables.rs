//! The code tables a release carries beside its data: `Cnaes.zip`, `Municipios.zip`,
//! `Naturezas.zip`, `Qualificacoes.zip`, `Motivos.zip`, `Paises.zip` (before late 2022 their
//! files alone, `F.K03200$Z.D10710.CNAECSV`). Each names that release's codes, so the run names
//! them from it rather than from the copies in `codes/`, which age; `codes/` stays the fallback
//! for a table the release lacks. They are read (Latin-1, `"code";"name"`, no header) into
//! the tables `codes/` holds under the same names.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use super::layouts::{decode, stem};

/// Each table: the name its zip starts with, the suffix of its file inside, and the name of
/// the table in `codes/`.
const TABLES: [(&str, &str, &str); 6] = [
    ("CNAES", ".CNAECSV", "cnae"),
    ("MUNICIPIOS", ".MUNICCSV", "municipio_rfb"),
    ("NATUREZAS", ".NATJUCSV", "natureza_juridica"),
    ("QUALIFICACOES", ".QUALSCSV", "qualificacao_socio"),
    ("MOTIVOS", ".MOTICSV", "motivo_situacao_cadastral"),
    ("PAISES", ".PAISCSV", "pais"),
];

/// The `codes/` table a file of the release holds, by its name.
pub(super) fn table_of(name: &str) -> Option<&'static str> {
    let base = stem(name);
    TABLES
        .iter()
        .find(|(zip, suffix, _)| {
            base.strip_prefix(zip)
                .is_some_and(|rest| rest.is_empty() || rest.bytes().all(|b| b.is_ascii_digit()))
                || base.ends_with(suffix)
        })
        .map(|(_, _, table)| *table)
}

/// The codes and names of the table in `path` (a zip of one file, or the file).
pub(super) fn read(path: &Path) -> Result<BTreeMap<String, String>, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    if !path.to_string_lossy().to_lowercase().ends_with(".zip") {
        return parse(file);
    }
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(|e| e.to_string())?;
    let entry = archive.by_index(0).map_err(|e| e.to_string())?;
    parse(entry)
}

fn parse(source: impl Read) -> Result<BTreeMap<String, String>, String> {
    let mut csv =
        csv::ReaderBuilder::new().delimiter(b';').has_headers(false).flexible(true).from_reader(source);
    let mut out = BTreeMap::new();
    let mut record = csv::ByteRecord::new();
    while csv.read_byte_record(&mut record).map_err(|e| e.to_string())? {
        let (Some(code), Some(name)) = (record.get(0), record.get(1)) else {
            return Err(format!("line {} has fewer than two fields", out.len() + 1));
        };
        let code = decode(code).trim().to_string();
        if !code.is_empty() {
            out.insert(code, decode(name).trim().to_string());
        }
    }
    if out.is_empty() {
        return Err("it holds no code".to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_are_told_by_their_names_old_and_new() {
        assert_eq!(table_of("cnpj/2024-05/Cnaes.zip"), Some("cnae"));
        assert_eq!(table_of("F.K03200$Z.D10710.CNAECSV"), Some("cnae"));
        assert_eq!(table_of("F.K03200$Z.D10710.NATJUCSV.zip"), Some("natureza_juridica"));
        assert_eq!(table_of("Municipios.zip"), Some("municipio_rfb"));
        assert_eq!(table_of("Empresas0.zip"), None);
        assert_eq!(table_of("LEIAME.pdf"), None);
    }

    #[test]
    fn a_table_reads_as_published_latin_1_and_quoted() {
        let bytes = b"\"0111301\";\"Cultivo de arroz\"\n\"4712100\";\"Com\xe9rcio varejista\"\n";
        let table = parse(&bytes[..]).unwrap();
        assert_eq!(table.get("4712100").map(String::as_str), Some("Comércio varejista"));
        assert_eq!(table.len(), 2);
        assert!(parse(&b""[..]).is_err());
    }
}
