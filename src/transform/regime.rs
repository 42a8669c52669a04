//! The portfolio's rows of RFB's tax regime files (`extract::open_data::regime`) as the typed
//! table `regime_tributario`: one row per company (or SCP), year and form of taxation, the
//! CNPJs bare, the year and the number of bookkeepings as integers, the form as published and
//! as a code (`api::regime::Forma`; `outro` for a text the files were not seen to write). The
//! same row repeated across files is kept once. What could not be read (a year, a CNPJ whose
//! check digits fail, a form unknown, a count) is counted in `data_quality`; a row out of its
//! layout was counted by the reader. A run without regime files gets the table empty, in the
//! same columns, so the queries run the same on every run.

use std::collections::HashSet;

use polars::prelude::*;

use super::typing::{QualityCount, note_example};
use super::{Frames, TransformError};
use crate::api::Cnpj;
use crate::api::regime::Forma;
use crate::extract::open_data::regime::{RegimeRecord, Regimes};

/// The table name the queries read.
pub(crate) const REGIME_TRIBUTARIO: &str = "regime_tributario";

/// The code of a form the files were not seen to write.
const OTHER: &str = "outro";

/// Adds `regime_tributario` to `frames` from `regimes`, or, without them, an empty table unless
/// the frames hold one already (a run dir read back).
pub(crate) fn attach_regimes(frames: &mut Frames, regimes: Option<&Regimes>) -> Result<(), TransformError> {
    let err = |source: PolarsError| TransformError::Frame { table: REGIME_TRIBUTARIO, source };
    if regimes.is_none() && frames.contains(REGIME_TRIBUTARIO) {
        return Ok(());
    }
    let records = regimes.map_or(&[][..], |r| r.records.as_slice());
    let (df, quality) = regime_frame(records).map_err(err)?;
    frames.tables.insert(REGIME_TRIBUTARIO, df);
    frames.add_quality(quality);
    Ok(())
}

/// A record's cells typed: `None` where the text cannot be read.
struct Typed {
    ano: Option<i32>,
    cnpj: String,
    cnpj_ok: bool,
    cnpj_scp: Option<String>,
    forma: String,
    regime: &'static str,
    escrituracoes: Option<i32>,
}

impl Typed {
    fn of(r: &RegimeRecord) -> Self {
        let ano = Some(r.ano.trim()).filter(|a| a.len() == 4).and_then(|a| a.parse::<i32>().ok());
        let (cnpj, cnpj_ok) = bare(&r.cnpj);
        let scp = r.cnpj_scp.trim();
        // `0` (or nothing) when the row is the company's own, not an SCP's.
        let cnpj_scp = (!scp.is_empty() && scp.chars().any(|c| c != '0')).then(|| bare(scp).0);
        let forma = r.forma.split_whitespace().collect::<Vec<_>>().join(" ");
        let regime = Forma::of_published(&forma).map_or(OTHER, Forma::codigo);
        let escrituracoes = r.escrituracoes.trim().parse::<i32>().ok();
        Self { ano, cnpj, cnpj_ok, cnpj_scp, forma, regime, escrituracoes }
    }
}

/// A CNPJ as the tables hold it (14 characters, no punctuation, upper case) and whether its
/// check digits hold.
fn bare(text: &str) -> (String, bool) {
    match Cnpj::parse_published(text) {
        Ok(c) => (c.as_str().to_string(), true),
        Err(_) => (
            text.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_uppercase()).collect(),
            false,
        ),
    }
}

/// The frame of `records` (each row once, in their order) and what of them could not be read.
pub(crate) fn regime_frame(records: &[RegimeRecord]) -> PolarsResult<(DataFrame, Vec<QualityCount>)> {
    let mut seen = HashSet::new();
    let mut kept: Vec<(&RegimeRecord, Typed)> = Vec::with_capacity(records.len());
    let mut duplicates = 0u64;
    for r in records {
        let t = Typed::of(r);
        if !seen.insert((t.cnpj.clone(), t.ano, t.cnpj_scp.clone(), t.forma.clone(), t.escrituracoes)) {
            duplicates += 1;
            continue;
        }
        kept.push((r, t));
    }
    let quality = quality_of(&kept, duplicates);
    let text = |name: &str, f: &dyn Fn(&RegimeRecord, &Typed) -> Option<String>| {
        Column::new(name.into(), kept.iter().map(|(r, t)| f(r, t)).collect::<Vec<Option<String>>>())
    };
    let int = |name: &str, f: &dyn Fn(&Typed) -> Option<i32>| {
        Column::new(name.into(), kept.iter().map(|(_, t)| f(t)).collect::<Vec<Option<i32>>>())
    };
    let columns = vec![
        text("cnpj", &|_, t| Some(t.cnpj.clone())),
        text("cnpj_basico", &|_, t| Some(t.cnpj.chars().take(8).collect())),
        int("ano", &|t| t.ano),
        text("cnpj_scp", &|_, t| t.cnpj_scp.clone()),
        text("forma_tributacao", &|_, t| Some(t.forma.clone())),
        text("regime", &|_, t| Some(t.regime.to_string())),
        int("escrituracoes", &|t| t.escrituracoes),
        text("arquivo", &|r, _| Some(r.arquivo.to_string())),
        Column::new("linha".into(), kept.iter().map(|(r, _)| r.linha as i64).collect::<Vec<i64>>()),
    ];
    Ok((DataFrame::new(kept.len(), columns)?, quality))
}

/// One count per column with unreadable cells, and the rows repeated across files.
fn quality_of(kept: &[(&RegimeRecord, Typed)], duplicates: u64) -> Vec<QualityCount> {
    let mut out = Vec::new();
    let mut count = |column: &str, failures: u64, placeholders: u64, texts: Vec<&str>| {
        if failures + placeholders == 0 {
            return;
        }
        let mut examples = Vec::new();
        texts.into_iter().for_each(|t| note_example(&mut examples, t));
        out.push(QualityCount {
            table: REGIME_TRIBUTARIO.into(),
            column: column.into(),
            failures,
            placeholders,
            examples,
        });
    };
    let bad = |f: &dyn Fn(&RegimeRecord, &Typed) -> Option<String>| -> Vec<String> {
        kept.iter().filter_map(|(r, t)| f(r, t)).collect()
    };
    let anos = bad(&|r, t| t.ano.is_none().then(|| r.ano.clone()));
    count("ano", anos.len() as u64, 0, anos.iter().map(String::as_str).collect());
    let cnpjs = bad(&|r, t| (!t.cnpj_ok).then(|| r.cnpj.clone()));
    count("cnpj", cnpjs.len() as u64, 0, cnpjs.iter().map(String::as_str).collect());
    let formas = bad(&|_, t| (t.regime == OTHER).then(|| t.forma.clone()));
    count("regime", formas.len() as u64, 0, formas.iter().map(String::as_str).collect());
    let counts = bad(&|r, t| t.escrituracoes.is_none().then(|| r.escrituracoes.clone()));
    count("escrituracoes", counts.len() as u64, 0, counts.iter().map(String::as_str).collect());
    // The same row in two files (a year's Lucro Presumido in two members): kept once.
    count("linha", 0, duplicates, Vec::new());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(ano: &str, cnpj: &str, scp: &str, forma: &str, n: &str) -> RegimeRecord {
        RegimeRecord {
            ano: ano.into(),
            cnpj: cnpj.into(),
            cnpj_scp: scp.into(),
            forma: forma.into(),
            escrituracoes: n.into(),
            arquivo: "f.csv".into(),
            linha: 2,
        }
    }

    #[test]
    fn cells_are_typed_and_what_cannot_be_read_is_counted() {
        let records = [
            record("2023", "00.000.000/0001-91", "0", "LUCRO REAL", "1"),
            record("2023", "00.000.000/0001-91", "0", "LUCRO REAL", "1"),
            record("2023", "00.000.000/0001-91", "33.683.111/0002-80", "lucro  presumido", "2"),
            record("20x3", "00.000.000/0001-92", "0", "SIMPLES", "um"),
        ];
        let (df, quality) = regime_frame(&records).unwrap();
        assert_eq!(df.height(), 3, "the repeated row kept once");
        let col = |c: &str| df.column(c).unwrap().as_materialized_series().clone();
        assert_eq!(col("cnpj").str().unwrap().get(0), Some("00000000000191"));
        assert_eq!(col("cnpj_basico").str().unwrap().get(0), Some("00000000"));
        assert_eq!(col("cnpj_scp").str().unwrap().get(0), None);
        assert_eq!(col("cnpj_scp").str().unwrap().get(1), Some("33683111000280"));
        assert_eq!(col("regime").str().unwrap().get(1), Some("lucro_presumido"));
        assert_eq!(col("forma_tributacao").str().unwrap().get(1), Some("lucro presumido"));
        assert_eq!(col("ano").i32().unwrap().get(2), None);
        assert_eq!(col("regime").str().unwrap().get(2), Some("outro"));
        let failures = |c: &str| quality.iter().find(|q| q.column == c).map(|q| (q.failures, q.placeholders));
        assert_eq!(failures("ano"), Some((1, 0)));
        assert_eq!(failures("cnpj"), Some((1, 0)));
        assert_eq!(failures("regime"), Some((1, 0)));
        assert_eq!(failures("escrituracoes"), Some((1, 0)));
        assert_eq!(failures("linha"), Some((0, 1)));
    }

    /// The four real samples (tests/fixtures/real/SOURCES.md, section 6) zipped as RFB's 2025
    /// folder named them, Lucro Presumido's member in its folder, read for the CNPJs they hold:
    /// each row's cells equal the sample's text, split here apart from the reader.
    #[test]
    fn rfbs_real_regime_samples_are_read_and_typed_as_published() {
        use std::io::Write;
        let real = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real");
        let tmp = tempfile::tempdir().unwrap();
        let samples = [
            ("rfb_regime_lucro_real.csv", "Lucro Real.zip", "Lucro Real.csv"),
            (
                "rfb_regime_lucro_presumido.csv",
                "Lucro Presumido.zip",
                "Lucro Presumido/Lucro Presumido 2018.csv",
            ),
            ("rfb_regime_lucro_arbitrado.csv", "Lucro Arbitrado.zip", "Lucro Arbitrado.csv"),
            ("rfb_regime_imunes_isentas.csv", "Imunes e Isentas.zip", "Imunes e Isentas.csv"),
        ];
        let mut want = Vec::new();
        for (sample, archive, member) in samples {
            let bytes = std::fs::read(real.join(sample)).unwrap();
            let text = String::from_utf8(bytes.clone()).unwrap();
            let row = text.lines().nth(1).unwrap().trim_end_matches('\r').to_string();
            let cells: Vec<String> = row.split(',').map(str::to_string).collect();
            let digits: String = cells[1].chars().filter(char::is_ascii_digit).collect();
            want.push((digits, cells[0].parse::<i32>().unwrap(), cells[3].clone()));
            let mut w = ::zip::ZipWriter::new(std::fs::File::create(tmp.path().join(archive)).unwrap());
            w.start_file(member, ::zip::write::SimpleFileOptions::default()).unwrap();
            w.write_all(&bytes).unwrap();
            w.finish().unwrap();
        }
        let portfolio: Vec<Cnpj> = want.iter().map(|(c, ..)| Cnpj::parse(c).unwrap()).collect();
        let regimes = crate::extract::open_data::read_regime_dir(tmp.path(), &portfolio).unwrap();
        assert_eq!(regimes.files.len(), 4);
        assert!(regimes.files.iter().all(|f| f.rows_read == 1 && f.rows_kept == 1 && f.rows_malformed == 0));
        let (df, quality) = regime_frame(&regimes.records).unwrap();
        assert!(quality.is_empty(), "{quality:?}");
        let col = |c: &str| df.column(c).unwrap().as_materialized_series().clone();
        let mut got: Vec<(String, i32, String)> = (0..df.height())
            .map(|i| {
                let cnpj = col("cnpj").str().unwrap().get(i).unwrap().to_string();
                let forma = col("forma_tributacao").str().unwrap().get(i).unwrap().to_string();
                (cnpj, col("ano").i32().unwrap().get(i).unwrap(), forma)
            })
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want);
        let regime = col("regime");
        let codes: std::collections::BTreeSet<&str> = regime.str().unwrap().iter().flatten().collect();
        assert_eq!(codes, ["imune", "lucro_arbitrado", "lucro_presumido", "lucro_real"].into());
        assert_eq!(col("cnpj_scp").null_count(), 4, "`0`: no SCP");
        assert!(col("escrituracoes").i32().unwrap().into_no_null_iter().all(|n| n == 1));
    }

    #[test]
    fn no_regime_files_make_an_empty_table_in_the_same_columns() {
        let (empty, quality) = regime_frame(&[]).unwrap();
        let (one, _) = regime_frame(&[record("2023", "00000000000191", "0", "LUCRO REAL", "1")]).unwrap();
        assert_eq!(empty.height(), 0);
        assert!(quality.is_empty());
        assert_eq!(empty.schema(), one.schema());
    }
}
