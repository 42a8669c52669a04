//! The embedded registry's dataset written as its publishers release it (`serve
//! --write-open-data DIR`): PGFN's three dívida ativa zips (a `;`-separated Latin-1 CSV with a
//! header each, one row per debtor) and RFB's Empresas, Estabelecimentos and Socios in ten parts
//! each (a company's rows in one part, the parts not sorted by CNPJ, as RFB's are) and Simples
//! in one zip (headerless, every field quoted), in the folders the publishers date them by; and
//! the public lists beside them (`listas`), and RFB's tax regime files (`regime`). A run over these files can then be checked
//! against a run over the service, record for record.

pub mod listas;
pub mod regime;

use std::io::Write;
use std::path::{Path, PathBuf};

use super::Dataset;
use registry_api::Categoria;
use registry_api::models::DividaPgfn;
use registry_api::published::rfb;

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
pub(crate) fn latin1(text: &str) -> Vec<u8> {
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

/// A zip being written with one CSV entry, streamed: rows go through the compressor as they
/// are made, so a release of millions of rows never sits in memory.
type ZipCsv = csv::Writer<zip::ZipWriter<std::io::BufWriter<std::fs::File>>>;

fn zip_csv(path: &Path, entry: &str, quoted: bool) -> std::io::Result<ZipCsv> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        // Entries of several GB, as PGFN's are.
        .large_file(true);
    zip.start_file(entry, options).map_err(std::io::Error::other)?;
    let style = if quoted { csv::QuoteStyle::Always } else { csv::QuoteStyle::Never };
    Ok(csv::WriterBuilder::new().delimiter(b';').quote_style(style).from_writer(zip))
}

/// A zip at `path` holding `entries` (name, bytes), each deflated.
pub(crate) fn zip_of<'a>(
    path: &Path,
    entries: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) -> std::io::Result<()> {
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(std::fs::File::create(path)?));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        zip.start_file(name, options).map_err(std::io::Error::other)?;
        zip.write_all(bytes)?;
    }
    zip.finish().map_err(std::io::Error::other)?.flush()
}

fn finish(w: ZipCsv) -> std::io::Result<()> {
    let zip = w.into_inner().map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut file = zip.finish().map_err(std::io::Error::other)?;
    file.flush()
}

/// Writes the whole dataset under `dir` as one release: `pgfn/<AAAA>_trimestre_<T>/` and
/// `cnpj/<AAAA-MM>/`, dated by the month the data stands at. Each file is written on its own
/// thread: at the scale of a real release (millions of companies) this is minutes, not tens.
pub fn write_open_data(ds: &Dataset, dir: &Path) -> std::io::Result<Written> {
    // Dated by the month the data stands at (`serve --as-of`), as a release of that month is.
    let as_of = ds.latest_month().to_string();
    let (year, m) = as_of.split_at(4);
    let q = format!("{}", (m.parse::<u8>().unwrap_or(9) - 1) / 3 + 1);
    let month = format!("{year}-{m}");
    let pgfn_dir = dir.join("pgfn").join(format!("{year}_trimestre_{q:0>2}"));
    let cnpj_dir = dir.join("cnpj").join(&month);
    let companies: Vec<_> = (0..ds.company_count()).map(|i| ds.company_cnpj(i)).collect();
    let d = month.replace('-', "");
    let entry = |part: usize, suffix: &str| {
        let (y, m) = (d.get(3..4).unwrap_or("6"), d.get(4..6).unwrap_or("09"));
        format!("K3241.K03200Y{part}.D{y}{m}01.{suffix}")
    };
    let mut rfb_files: Vec<(PathBuf, String)> = Vec::with_capacity(3 * PARTS + 1);
    for (table, suffix) in
        [("Empresas", "EMPRECSV"), ("Estabelecimentos", "ESTABELE"), ("Socios", "SOCIOCSV")]
    {
        for part in 0..PARTS {
            rfb_files.push((cnpj_dir.join(format!("{table}{part}.zip")), entry(part, suffix)));
        }
    }
    rfb_files.push((cnpj_dir.join("Simples.zip"), entry(0, "SIMPLES.CSV")));
    std::thread::scope(|scope| {
        let pgfn: Vec<_> = Categoria::ALL
            .into_iter()
            .map(|categoria| {
                let (zip, system) = pgfn_names(categoria);
                let path = pgfn_dir.join(zip);
                let entry = format!("arquivo_lai_{system}_{as_of}.csv");
                let companies = &companies;
                scope.spawn(move || {
                    pgfn_file(ds, companies, categoria, &path, &entry).map(|rows| (path, rows))
                })
            })
            .collect();
        let rfb = scope.spawn(|| rfb_tables(ds, &companies, &rfb_files));
        let mut written = Written { files: Vec::new(), companies: companies.len(), debt_rows: 0 };
        for handle in pgfn {
            let (path, rows) = joined(handle.join())?;
            written.debt_rows += rows;
            written.files.push(path);
        }
        joined(rfb.join())?;
        written.files.extend(rfb_files.iter().map(|(path, _)| path.clone()));
        written.files.extend(listas::write_listas(&ds.listas(), dir)?);
        written.files.extend(regime::write_regimes(ds, dir)?);
        Ok(written)
    })
}

fn joined<T>(result: std::thread::Result<std::io::Result<T>>) -> std::io::Result<T> {
    result.map_err(|_| std::io::Error::other("a writer thread panicked"))?
}

/// One PGFN system's zip: its header, then every company's inscriptions of `categoria`, each
/// company's followed by the people who are principal debtors of its co-debtor inscriptions.
fn pgfn_file(
    ds: &Dataset,
    companies: &[registry_api::Cnpj],
    categoria: Categoria,
    path: &Path,
    entry: &str,
) -> std::io::Result<usize> {
    let header = &pgfn_header(categoria)[..];
    let mut w = zip_csv(path, entry, false)?;
    w.write_record(header.iter().map(|h| h.as_bytes())).map_err(std::io::Error::other)?;
    let mut rows = 0;
    for cnpj in companies {
        for debt in ds.published_dividas(cnpj, categoria).unwrap_or_default() {
            write_debt(&mut w, header, &debt)?;
            rows += 1;
        }
    }
    finish(w)?;
    Ok(rows)
}

fn write_debt(w: &mut ZipCsv, header: &[&str], debt: &DividaPgfn) -> std::io::Result<()> {
    let map = fields(debt);
    let row: Vec<Vec<u8>> = header.iter().map(|h| field(&map, &h.to_lowercase())).collect();
    w.write_record(&row).map_err(std::io::Error::other)
}

/// The parts RFB publishes Empresas, Estabelecimentos and Socios in.
const PARTS: usize = 10;

/// The part a company's rows go in: spread by a hash of its root, so that no part holds a
/// range of CNPJs, as in RFB's releases.
fn part_of(cnpj: &registry_api::Cnpj) -> usize {
    let hash = cnpj
        .basico()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3));
    (hash % PARTS as u64) as usize
}

/// RFB's files in one pass over the companies (a profile is made once per company): each
/// company's Empresas, Estabelecimentos and Socios rows in its part's zips, its Simples row in
/// the one Simples zip, each row's fields in RFB's order. `files` holds the parts of the three
/// tables, then Simples.
fn rfb_tables(
    ds: &Dataset,
    companies: &[registry_api::Cnpj],
    files: &[(PathBuf, String)],
) -> std::io::Result<()> {
    let mut tables = Vec::with_capacity(files.len());
    for (path, entry) in files {
        tables.push(zip_csv(path, entry, true)?);
    }
    if tables.len() != 3 * PARTS + 1 {
        return Err(std::io::Error::other("three tables in parts and Simples expected"));
    }
    let put = |w: &mut ZipCsv, columns: &[&str], map: serde_json::Map<String, serde_json::Value>| {
        let row: Vec<Vec<u8>> = columns.iter().map(|c| field(&map, c)).collect();
        w.write_record(&row).map_err(std::io::Error::other)
    };
    for cnpj in companies {
        let part = part_of(cnpj);
        let profile = ds.profile(cnpj).unwrap_or_default();
        if let Some(e) = &profile.empresa {
            put(&mut tables[part], &rfb::EMPRESAS, fields(e))?;
        }
        if let Some(s) = &profile.simples {
            put(&mut tables[3 * PARTS], &rfb::SIMPLES, fields(s))?;
        }
        for e in ds.estabelecimentos(cnpj).unwrap_or_default() {
            put(&mut tables[PARTS + part], &rfb::ESTABELECIMENTOS, fields(&e))?;
        }
        for s in ds.socios(cnpj).unwrap_or_default() {
            put(&mut tables[2 * PARTS + part], &rfb::SOCIOS, fields(&s))?;
        }
    }
    tables.into_iter().try_for_each(finish)
}
