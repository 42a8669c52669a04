//! The dataset's tax regimes (`Dataset::regime_rows`) written as RFB's 2026 share publishes
//! them, under `regime_tributario/` of a release folder: `entidades-lucro-real.zip`,
//! `entidades-lucro-presumido.zip` (one `Lucro Presumido AAAA.csv` per year),
//! `entidades-lucro-arbitrado.zip` and `entidades-imunes-e-isentas.zip`, each CSV with the
//! header `ano,cnpj,cnpj_da_scp,forma_de_tributacao,quantidade_de_escrituracoes`,
//! comma-separated, the CNPJs punctuated, `0` for no SCP, CRLF in Lucro Presumido and Lucro
//! Arbitrado and LF in the others, as the real samples are (tests/fixtures/real/SOURCES.md,
//! section 6).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use registry_api::regime::{ARQUIVOS, Arquivo, COLUMNS};

use crate::dataset::{Dataset, RegimeRow};

/// The folder of a release the regime files go in.
pub const FOLDER: &str = "regime_tributario";

/// Writes every company's regime rows under `dir/regime_tributario/`; the files written.
pub fn write_regimes(ds: &Dataset, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let folder = dir.join(FOLDER);
    std::fs::create_dir_all(&folder)?;
    // Each member's text: (file, year for Lucro Presumido's members) -> CSV.
    let mut members: BTreeMap<(Arquivo, Option<i32>), Vec<u8>> = BTreeMap::new();
    for index in 0..ds.company_count() {
        for row in ds.regime_rows(index) {
            let file = row.forma.arquivo();
            let year = file.definicao().por_ano.then_some(row.ano);
            let text = members.entry((file, year)).or_insert_with(|| line(file, &COLUMNS.join(",")));
            text.extend(line(file, &csv_row(&row)));
        }
    }
    let mut written = Vec::new();
    for d in ARQUIVOS {
        let entries: Vec<(String, &Vec<u8>)> = members
            .iter()
            .filter(|((file, _), _)| *file == d.arquivo)
            .map(|((_, year), text)| match year {
                Some(y) => (format!("{} {y}.csv", d.membro), text),
                None => (format!("{}.csv", d.membro), text),
            })
            .collect();
        let path = folder.join(d.zip);
        super::zip_of(&path, entries.iter().map(|(name, text)| (name.as_str(), text.as_slice())))?;
        written.push(path);
    }
    Ok(written)
}

/// A row as RFB writes it.
fn csv_row(r: &RegimeRow) -> String {
    let scp = r.cnpj_scp.as_ref().map_or_else(|| "0".to_string(), |c| c.masked());
    format!("{},{},{scp},{},{}", r.ano, r.cnpj.masked(), r.forma.publicada(), r.escrituracoes)
}

/// A line ended as the file's real sample ends them.
fn line(file: Arquivo, text: &str) -> Vec<u8> {
    let crlf = matches!(file, Arquivo::LucroPresumido | Arquivo::LucroArbitrado);
    let mut out = text.as_bytes().to_vec();
    out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
    out
}
