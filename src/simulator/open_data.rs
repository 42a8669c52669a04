//! The embedded registry's dataset written as its publishers release it (`serve
//! --write-open-data DIR`): PGFN's three dívida ativa zips (a `;`-separated Latin-1 CSV with a
//! header each, one row per debtor) and RFB's Empresas, Estabelecimentos, Socios and Simples
//! zips (headerless, every field quoted), in the folders the publishers date them by. A run
//! over these files can then be checked against a run over the service, record for record.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::Dataset;
use crate::api::Categoria;
use crate::api::models::DividaPgfn;
use crate::api::published::rfb;

/// What was written, for the person who asked.
pub struct Written {
    pub files: Vec<PathBuf>,
    pub companies: usize,
    pub debt_rows: usize,
}

/// The columns of each PGFN system's file, as PGFN's 2020 headers name them: the same frame
/// for the three systems, FGTS adding its entity and unit, each system its own tax columns (FGTS
/// carries the credit type its records hold too).
fn pgfn_header(categoria: Categoria) -> Vec<&'static str> {
    let debtor = [
        "CPF_CNPJ",
        "TIPO_PESSOA",
        "TIPO_DEVEDOR",
        "NOME_DEVEDOR",
        "UF_UNIDADE_RESPONSAVEL",
        "UNIDADE_RESPONSAVEL",
    ];
    let (units, taxes): (&[&str], &[&str]) = match categoria {
        Categoria::NaoPrevidenciario => (&[], &["RECEITA_PRINCIPAL"]),
        Categoria::Previdenciario => (&[], &["TIPO_CREDITO"]),
        Categoria::Fgts => {
            (&["ENTIDADE_RESPONSAVEL", "UNIDADE_INSCRICAO"], &["RECEITA_PRINCIPAL", "TIPO_CREDITO"])
        }
    };
    let inscription = ["NUMERO_INSCRICAO", "TIPO_SITUACAO_INSCRICAO", "SITUACAO_INSCRICAO"];
    let amount = ["DATA_INSCRICAO", "INDICADOR_AJUIZADO", "VALOR_CONSOLIDADO"];
    [&debtor[..], units, &inscription, taxes, &amount].concat()
}

fn pgfn_names(categoria: Categoria) -> (&'static str, &'static str) {
    match categoria {
        Categoria::NaoPrevidenciario => ("Dados_abertos_Nao_Previdenciario.zip", "SIDA"),
        Categoria::Previdenciario => ("Dados_abertos_Previdenciario.zip", "PREV"),
        Categoria::Fgts => ("Dados_abertos_FGTS.zip", "FGTS"),
    }
}

/// Text as the publishers encode it: Latin-1, a character it cannot hold written as `?`.
fn latin1(text: &str) -> Vec<u8> {
    text.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect()
}

/// A record's fields by name, as its JSON has them (every field of the wire models is text).
fn fields(record: &impl serde::Serialize) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(record) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    }
}

fn field(map: &serde_json::Map<String, serde_json::Value>, name: &str) -> Vec<u8> {
    latin1(map.get(name).and_then(serde_json::Value::as_str).unwrap_or(""))
}

/// One CSV zipped under `entry` at `path`.
fn write_zip(path: &Path, entry: &str, csv: Vec<u8>) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path)?);
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    zip.start_file(entry, options).map_err(std::io::Error::other)?;
    zip.write_all(&csv)?;
    zip.finish().map_err(std::io::Error::other)?;
    Ok(())
}

fn csv_writer(quoted: bool) -> csv::Writer<Vec<u8>> {
    let style = if quoted { csv::QuoteStyle::Always } else { csv::QuoteStyle::Never };
    csv::WriterBuilder::new().delimiter(b';').quote_style(style).from_writer(Vec::new())
}

fn finish(w: csv::Writer<Vec<u8>>) -> std::io::Result<Vec<u8>> {
    w.into_inner().map_err(|e| std::io::Error::other(e.to_string()))
}

/// Writes the whole dataset under `dir` as one release: `pgfn/<AAAA>_trimestre_<T>/` and
/// `cnpj/<AAAA-MM>/`, dated by the month the data stands at.
pub fn write_open_data(ds: &Dataset, dir: &Path) -> std::io::Result<Written> {
    // Dated by the month the data stands at (`serve --as-of`), as a release of that month is.
    let as_of = ds.latest_month().to_string();
    let (year, m) = as_of.split_at(4);
    let q = format!("{}", (m.parse::<u8>().unwrap_or(9) - 1) / 3 + 1);
    let month = format!("{year}-{m}");
    let pgfn_dir = dir.join("pgfn").join(format!("{year}_trimestre_{q:0>2}"));
    let cnpj_dir = dir.join("cnpj").join(&month);
    let companies: Vec<_> = (0..ds.company_count()).map(|i| ds.company_cnpj(i)).collect();
    let mut written = Written { files: Vec::new(), companies: companies.len(), debt_rows: 0 };
    let stamp = as_of.clone();
    for categoria in Categoria::ALL {
        let header = &pgfn_header(categoria)[..];
        let mut w = csv_writer(false);
        w.write_record(header.iter().map(|h| h.as_bytes())).map_err(std::io::Error::other)?;
        for cnpj in &companies {
            for debt in ds.dividas(cnpj, categoria).unwrap_or_default() {
                write_debt(&mut w, header, &debt)?;
                written.debt_rows += 1;
            }
        }
        let (zip, system) = pgfn_names(categoria);
        let path = pgfn_dir.join(zip);
        write_zip(&path, &format!("arquivo_lai_{system}_{stamp}.csv"), finish(w)?)?;
        written.files.push(path);
    }
    let d = month.replace('-', "");
    let entry = |suffix: &str| {
        format!("K3241.K03200Y0.D{}{}01.{suffix}", d.get(3..4).unwrap_or("6"), d.get(4..6).unwrap_or("09"))
    };
    let [empresas, estabelecimentos, socios, simples] = rfb_tables(ds, &companies)?;
    for (zip, suffix, rows) in [
        ("Empresas0.zip", "EMPRECSV", empresas),
        ("Estabelecimentos0.zip", "ESTABELE", estabelecimentos),
        ("Socios0.zip", "SOCIOCSV", socios),
        ("Simples.zip", "SIMPLES.CSV", simples),
    ] {
        let path = cnpj_dir.join(zip);
        write_zip(&path, &entry(suffix), rows)?;
        written.files.push(path);
    }
    Ok(written)
}

fn write_debt(w: &mut csv::Writer<Vec<u8>>, header: &[&str], debt: &DividaPgfn) -> std::io::Result<()> {
    let map = fields(debt);
    let row: Vec<Vec<u8>> = header.iter().map(|h| field(&map, &h.to_lowercase())).collect();
    w.write_record(&row).map_err(std::io::Error::other)
}

/// RFB's four files in one pass over the companies (a profile is made once per company):
/// Empresas, Estabelecimentos, Socios, Simples, each row's fields in RFB's order.
fn rfb_tables(ds: &Dataset, companies: &[crate::api::Cnpj]) -> std::io::Result<[Vec<u8>; 4]> {
    let mut tables = [(); 4].map(|_| csv_writer(true));
    let [empresas, estabelecimentos, socios, simples] = &mut tables;
    let put =
        |w: &mut csv::Writer<Vec<u8>>, columns: &[&str], map: serde_json::Map<String, serde_json::Value>| {
            let row: Vec<Vec<u8>> = columns.iter().map(|c| field(&map, c)).collect();
            w.write_record(&row).map_err(std::io::Error::other)
        };
    for cnpj in companies {
        let profile = ds.profile(cnpj).unwrap_or_default();
        if let Some(e) = &profile.empresa {
            put(empresas, &rfb::EMPRESAS, fields(e))?;
        }
        if let Some(s) = &profile.simples {
            put(simples, &rfb::SIMPLES, fields(s))?;
        }
        for e in ds.estabelecimentos(cnpj).unwrap_or_default() {
            put(estabelecimentos, &rfb::ESTABELECIMENTOS, fields(&e))?;
        }
        for s in ds.socios(cnpj).unwrap_or_default() {
            put(socios, &rfb::SOCIOS, fields(&s))?;
        }
    }
    let [a, b, c, d] = tables;
    Ok([finish(a)?, finish(b)?, finish(c)?, finish(d)?])
}
