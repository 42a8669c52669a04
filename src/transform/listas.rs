//! The public lists' records (`extract::open_data::listas`) as the typed `listas` table the
//! queries read: one row per record, money as Decimal(18,2), dates as dates, each read by the
//! parsers every source shares (`transform::parse`), and what could not be read counted in
//! `data_quality` (rows out of layout with their line, Leniência's placeholders, cells in no
//! form the sources use, IBAMA's dates no embargo can have). A run without lists gets the table empty, in
//! the same columns, so `queries/27_sancoes.sql` runs the same on every run.

use chrono::NaiveDate;
use polars::prelude::*;
use rust_decimal::Decimal;

use super::parse::{parse_brl_amount, parse_date_dropping_time, parse_list_date};
use super::typing::{MONEY_PRECISION, MONEY_SCALE, QualityCount, days_since_epoch, note_example};
use super::{Frames, TransformError};
use crate::api::listas::Lista;
use crate::extract::open_data::listas::{DataLista, ListaRecord, Listas};

/// The table name the queries read.
pub(crate) const LISTAS: &str = "listas";

/// IBAMA's areas: hectares to the ten-thousandth, as published.
const AREA_SCALE: u32 = 4;

/// Adds `listas` to `frames`: the records of `lists` with their quality counts, or, without
/// lists, an empty table unless the frames hold one already (a run dir read back). Either way
/// the table ends with each record's in-force rule (`vigencia`), derived from its list.
pub(crate) fn attach_listas(frames: &mut Frames, listas: Option<&Listas>) -> Result<(), TransformError> {
    let err = |source: PolarsError| TransformError::Frame { table: LISTAS, source };
    match listas {
        Some(listas) => {
            let (df, mut quality) = listas_frame(&listas.records).map_err(err)?;
            quality.extend(listas_quality(listas));
            frames.tables.insert(LISTAS, df);
            frames.add_quality(quality);
        }
        None if frames.contains(LISTAS) => {}
        None => {
            frames.tables.insert(LISTAS, listas_frame(&[]).map_err(err)?.0);
        }
    }
    // A run dir written before the lists' rules were a column has none yet.
    if let Some(df) = frames.tables.get_mut(LISTAS)
        && !df.schema().contains("vigencia")
    {
        let rules = rules_of(df).map_err(err)?;
        df.with_column(rules).map_err(err)?;
    }
    Ok(())
}

/// A list's date: the first of the dates its files write that reads as one, else the day its
/// file was written (`DataLista`).
pub(crate) fn list_date(date: &DataLista) -> NaiveDate {
    date.escritas.iter().find_map(|text| parse_list_date(text).ok().flatten()).unwrap_or(date.gravada_em)
}

/// The `listas` frame of `records`, in their order, and what of them could not be read or
/// held: a date or amount in no form the sources use, an amount with more decimals than its
/// column keeps.
pub(crate) fn listas_frame(records: &[ListaRecord]) -> PolarsResult<(DataFrame, Vec<QualityCount>)> {
    let mut unreadable = Vec::new();
    // A file's records share its date: typed once per file, not once per record.
    let mut last: Option<(&std::sync::Arc<DataLista>, NaiveDate)> = None;
    let typed: Vec<Typed> = records
        .iter()
        .map(|r| {
            let day = match last {
                Some((date, day)) if std::sync::Arc::ptr_eq(date, &r.data_lista) => day,
                _ => list_date(&r.data_lista),
            };
            last = Some((&r.data_lista, day));
            Typed::of(r, day, &mut unreadable)
        })
        .collect();
    let text = |name: &str, f: &dyn Fn(&ListaRecord) -> Option<String>| {
        Column::new(name.into(), records.iter().map(f).collect::<Vec<Option<String>>>())
    };
    let date = |name: &str, f: &dyn Fn(&ListaRecord, &Typed) -> Option<chrono::NaiveDate>| {
        let days = records.iter().zip(&typed).map(|(r, t)| f(r, t).map(days_since_epoch));
        Int32Chunked::from_iter_options(name.into(), days).into_date().into_column()
    };
    let mut quality = unreadable_quality(&unreadable);
    let mut exact = |name: &str, scale: u32, f: &dyn Fn(&Typed) -> Option<Decimal>| {
        let mut failed = QualityCount {
            table: LISTAS.into(),
            column: name.into(),
            failures: 0,
            placeholders: 0,
            examples: Vec::new(),
        };
        let values: Vec<Option<i128>> = typed
            .iter()
            .map(|t| {
                let d = f(t)?;
                let held = at_scale(d, scale);
                if held.is_none() {
                    failed.failures += 1;
                    note_example(&mut failed.examples, &d.to_string());
                }
                held
            })
            .collect();
        if failed.failures > 0 {
            quality.push(failed);
        }
        Int128Chunked::from_iter_options(name.into(), values.into_iter())
            .into_decimal_unchecked(MONEY_PRECISION, scale as usize)
            .into_column()
    };
    let valor_multa = exact("valor_multa", MONEY_SCALE as u32, &|t| t.valor_multa);
    let area = exact("area_embargada", AREA_SCALE, &|t| t.area);
    let columns = vec![
        text("lista", &|r| Some(r.lista.codigo().to_string())),
        text("sancionado", &|r| Some(r.sancionado.clone())),
        text("documento", &|r| r.documento.clone()),
        text("tipo_pessoa", &|r| r.tipo_pessoa.clone()),
        text("nome", &|r| r.nome.clone()),
        text("categoria", &|r| r.categoria.clone()),
        text("orgao", &|r| r.orgao.clone()),
        date("inicio", &|_, t| t.inicio),
        date("fim", &|_, t| t.fim),
        valor_multa,
        area,
        Column::new("cancelado".into(), records.iter().map(|r| r.cancelado).collect::<Vec<bool>>()),
        date("data_lista", &|_, t| Some(t.data_lista)),
        Column::new(
            "fonte".into(),
            records
                .iter()
                .zip(&typed)
                .map(|(r, t)| format!("{} ({})", r.arquivo, t.data_lista.format("%d/%m/%Y")))
                .collect::<Vec<String>>(),
        ),
        Column::new("linha".into(), records.iter().map(|r| r.linha as i64).collect::<Vec<i64>>()),
        Column::new("registro".into(), (0..records.len() as i64).collect::<Vec<i64>>()),
    ];
    Ok((DataFrame::new(records.len(), columns)?, quality))
}

/// A record's dates and amounts, read by the parsers every source shares (`transform::parse`).
struct Typed {
    data_lista: NaiveDate,
    inicio: Option<NaiveDate>,
    fim: Option<NaiveDate>,
    valor_multa: Option<Decimal>,
    area: Option<Decimal>,
}

/// A cell that could not be read: the `listas` column, and `file:line: text`.
type Unreadable = Vec<(&'static str, String)>;

/// IBAMA's own start: Lei nº 7.735 of 22 February 1989 created it, so no term of its is older.
const IBAMA_CREATED: Option<NaiveDate> = NaiveDate::from_ymd_opt(1989, 2, 22);

impl Typed {
    /// `data_lista`: the record's list's date, typed (`list_date`).
    fn of(r: &ListaRecord, data_lista: NaiveDate, unreadable: &mut Unreadable) -> Typed {
        let mut note = |column: &'static str, text: &str| {
            unreadable.push((column, format!("{}:{}: {text}", r.arquivo, r.linha)));
        };
        let mut date = |column: &'static str, text: &Option<String>| {
            let text = text.as_deref()?;
            // An embargo dated before IBAMA existed, or lifted after its file's own date (the
            // real file has 1667 and 2925), is a cell misread, never a real date.
            let impossible = |d: &NaiveDate| {
                r.lista == Lista::Ibama && (IBAMA_CREATED.is_some_and(|c| *d < c) || *d > data_lista)
            };
            match parse_date_dropping_time(text) {
                Ok(Some(d)) if !impossible(&d) => Some(d),
                Ok(None) => None,
                _ => {
                    note(column, text);
                    None
                }
            }
        };
        let (inicio, fim) = (date("inicio", &r.inicio), date("fim", &r.fim));
        let mut amount = |column: &'static str, text: &Option<String>| {
            let text = text.as_deref()?;
            let read = parse_brl_amount(text);
            if read.is_err() {
                note(column, text);
            }
            read.ok().flatten()
        };
        let valor_multa = amount("valor_multa", &r.valor_multa);
        let area = amount("area_embargada", &r.area);
        Typed { data_lista, inicio, fim, valor_multa, area }
    }
}

/// The `vigencia` column of a `listas` frame, by its `lista` codes (`api::listas`); null for a
/// code no list has.
fn rules_of(df: &DataFrame) -> PolarsResult<Column> {
    let rules: Vec<Option<&str>> = df
        .column("lista")?
        .str()?
        .iter()
        .map(|code| {
            code.and_then(crate::api::listas::Lista::of_codigo).map(|l| l.definicao().vigencia.codigo())
        })
        .collect();
    Ok(Column::new("vigencia".into(), rules))
}

/// The cells in no form the sources use, counted by column, each example `file:line: text`.
fn unreadable_quality(unreadable: &Unreadable) -> Vec<QualityCount> {
    let mut columns: Vec<&str> = unreadable.iter().map(|(c, _)| *c).collect();
    columns.sort_unstable();
    columns.dedup();
    columns
        .into_iter()
        .map(|column| {
            let mut examples = Vec::new();
            let texts = unreadable.iter().filter(|(c, _)| *c == column);
            texts.clone().for_each(|(_, t)| note_example(&mut examples, t));
            let failures = texts.count() as u64;
            QualityCount { table: LISTAS.into(), column: column.into(), failures, placeholders: 0, examples }
        })
        .collect()
}

/// `d` as a mantissa at `scale`, when it has no more decimals than that and fits 18 digits.
fn at_scale(d: Decimal, scale: u32) -> Option<i128> {
    if d.normalize().scale() > scale {
        return None;
    }
    let mut d = d;
    d.rescale(scale);
    let m = d.mantissa();
    (m.abs() < 10_i128.pow(MONEY_PRECISION as u32)).then_some(m)
}

/// What of the lists' files could not be read, as `data_quality` counts it: rows out of layout
/// (`linha`, each example `file:line`) and Leniência's placeholders (`sancionado`, as markers
/// read as no document).
fn listas_quality(listas: &Listas) -> Vec<QualityCount> {
    let count = |column: &str, failures: u64, placeholders: u64, texts: &mut dyn Iterator<Item = &str>| {
        let mut examples = Vec::new();
        texts.for_each(|t| note_example(&mut examples, t));
        QualityCount { table: LISTAS.into(), column: column.into(), failures, placeholders, examples }
    };
    let mut out = Vec::new();
    if !listas.malformed.is_empty() {
        out.push(count(
            "linha",
            listas.malformed.len() as u64,
            0,
            &mut listas.malformed.iter().map(String::as_str),
        ));
    }
    if !listas.placeholders.is_empty() {
        let n = listas.placeholders.len() as u64;
        out.push(count("sancionado", 0, n, &mut listas.placeholders.iter().map(String::as_str)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::open_data::listas::Lista;
    use chrono::NaiveDate;

    fn record(lista: Lista, multa: Option<&str>) -> ListaRecord {
        let day = NaiveDate::from_ymd_opt(2026, 9, 28);
        ListaRecord {
            lista,
            sancionado: "12345678000195".into(),
            documento: Some("12345678000195".into()),
            tipo_pessoa: Some("J".into()),
            nome: Some("ALFA SA".into()),
            categoria: None,
            orgao: None,
            inicio: Some("10/01/2024".into()),
            fim: None,
            valor_multa: multa.map(String::from),
            area: None,
            cancelado: false,
            arquivo: "20260928_CNEP.zip/20260928_CNEP.csv".into(),
            data_lista: std::sync::Arc::new(DataLista {
                escritas: vec!["20260928".into()],
                gravada_em: day.unwrap_or_default(),
            }),
            linha: 2,
        }
    }

    #[test]
    fn listas_is_typed_and_counts_what_it_cannot_hold_or_read() {
        let records = [record(Lista::Cnep, Some("1.234.567,89")), record(Lista::Cnep, Some("0,125"))];
        let listas = Listas {
            records: records.to_vec(),
            malformed: vec!["x.csv:7".into()],
            placeholders: vec!["EXBILFINGER".into()],
            ..Listas::default()
        };
        let mut frames = Frames::default();
        attach_listas(&mut frames, Some(&listas)).unwrap();
        let df = frames.get(LISTAS).unwrap();
        assert_eq!(df.column("valor_multa").unwrap().dtype(), &DataType::Decimal(18, 2));
        assert_eq!(df.column("inicio").unwrap().dtype(), &DataType::Date);
        assert_eq!(df.column("cancelado").unwrap().dtype(), &DataType::Boolean);
        let multa = df.column("valor_multa").unwrap().cast(&DataType::String).unwrap();
        assert_eq!(multa.str().unwrap().get(0), Some("1234567.89"));
        assert_eq!(multa.str().unwrap().get(1), None, "0,125 is no amount in cents");
        let fonte = df.column("fonte").unwrap();
        assert_eq!(fonte.str().unwrap().get(0), Some("20260928_CNEP.zip/20260928_CNEP.csv (28/09/2026)"));
        let by_column = |c: &str| frames.quality.iter().find(|q| q.table == LISTAS && q.column == c).cloned();
        assert_eq!(by_column("valor_multa").map(|q| q.failures), Some(1));
        assert_eq!(by_column("linha").map(|q| q.examples), Some(vec!["x.csv:7".to_string()]));
        assert_eq!(by_column("sancionado").map(|q| (q.failures, q.placeholders)), Some((0, 1)));

        let mut empty = Frames::default();
        attach_listas(&mut empty, None).unwrap();
        let none = empty.get(LISTAS).unwrap();
        assert_eq!((none.height(), none.schema()), (0, df.schema()), "no lists: the same columns, empty");
    }

    /// The lists of a folder, read as a run reads them, and the frames they make.
    fn read_folder(dir: &std::path::Path) -> (Listas, Frames) {
        let listas = crate::extract::open_data::read_listas_dir(dir).unwrap();
        let mut frames = Frames::default();
        attach_listas(&mut frames, Some(&listas)).unwrap();
        (listas, frames)
    }

    /// A column's values as text (dates ISO, decimals at their scale).
    fn column_texts(df: &DataFrame, column: &str) -> Vec<Option<String>> {
        let c = df.column(column).unwrap().cast(&DataType::String).unwrap();
        c.str().unwrap().iter().map(|v| v.map(String::from)).collect()
    }

    /// The lists' cells go through the parsers every other source's do: each amount and date
    /// form the service's and the publishers' files are read in, written in a CNEP file and an
    /// IBAMA file, is read from the folder to the value typed here by hand; a form no source
    /// uses is counted with its file and line.
    #[test]
    fn the_lists_read_every_amount_and_date_form_the_other_sources_do() {
        let amounts = [
            ("1.234.567,89", "1234567.89"),
            ("1234567.89", "1234567.89"),
            ("1234567,89", "1234567.89"),
            ("1,234,567.89", "1234567.89"),
            ("1.234.567", "1234567.00"),
            ("R$ 1.234,56", "1234.56"),
            ("R$-1.234,56", "-1234.56"),
            ("(R$ 1.234,56)", "-1234.56"),
            ("+10,00", "10.00"),
            (".33", "0.33"),
            (",50", "0.50"),
            ("\u{a0}12,5\u{a0}", "12.50"),
        ];
        let dates = [
            ("10/01/2024", "2024-01-10"),
            ("2024-01-10", "2024-01-10"),
            ("20240110", "2024-01-10"),
            ("2024-01-10 10:20:30", "2024-01-10"),
        ];
        let header = "TIPO DE PESSOA;CPF OU CNPJ DO SANCIONADO;NOME DO SANCIONADO;CATEGORIA DA SANÇÃO;\
                      DATA INÍCIO SANÇÃO;DATA FINAL SANÇÃO;ÓRGÃO SANCIONADOR;VALOR DA MULTA";
        let mut cnep = vec![header.to_string()];
        for (i, (amount, _)) in amounts.iter().enumerate() {
            let (start, _) = dates[i % dates.len()];
            cnep.push(format!("J;12345678000195;ALFA SA;Multa;{start};00/00/0000;CGU;{amount}"));
        }
        cnep.push("J;12345678000195;ALFA SA;Multa;31/02/2020;;CGU;1 234,56".to_string());
        let ibama = "SEQ_TAD;DAT_EMBARGO;CPF_CNPJ_EMBARGADO;QTD_AREA_EMBARGADA;SIT_CANCELADO;DAT_DESEMBARGO\n\
                     1;2023-04-05 10:20:30;12.345.678/0001-95;1.234,5678;N;20240110\n\
                     2;1667-05-31 11:10:00;12.345.678/0001-95;12,5;N;2925-09-25 15:10:00\n";
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("20261130_CNEP.csv"), cnep.join("\n")).unwrap();
        std::fs::write(tmp.path().join("termo_de_embargo_20261130.csv"), ibama).unwrap();
        let (_, frames) = read_folder(tmp.path());
        let texts = |column: &str| column_texts(frames.get(LISTAS).unwrap(), column);
        let (multa, inicio, fim) = (texts("valor_multa"), texts("inicio"), texts("fim"));
        for (i, (amount, value)) in amounts.iter().enumerate() {
            assert_eq!(multa[i].as_deref(), Some(*value), "amount {amount:?}");
            let (start, day) = dates[i % dates.len()];
            assert_eq!(inicio[i].as_deref(), Some(day), "date {start:?}");
            assert_eq!(fim[i], None, "00/00/0000 is no date, as in the CNPJ files");
        }
        let bad = amounts.len();
        assert_eq!((inicio[bad].as_deref(), multa[bad].as_deref()), (None, None));
        let ibama = bad + 1;
        assert_eq!(texts("area_embargada")[ibama..], [Some("1234.5678".into()), Some("12.5000".into())]);
        assert_eq!(inicio[ibama..], [Some("2023-04-05".into()), None], "1667: before IBAMA existed");
        assert_eq!(fim[ibama..], [Some("2024-01-10".into()), None], "2925: after the file's date");
        let noted = |column: &str| {
            let q = frames.quality.iter().find(|q| q.table == LISTAS && q.column == column);
            q.map(|q| (q.failures, q.examples.clone())).unwrap_or_default()
        };
        let line = bad + 2;
        assert_eq!(
            noted("inicio"),
            (
                2,
                vec![
                    format!("20261130_CNEP.csv:{line}: 31/02/2020"),
                    "termo_de_embargo_20261130.csv:3: 1667-05-31 11:10:00".to_string()
                ]
            )
        );
        assert_eq!(noted("valor_multa"), (1, vec![format!("20261130_CNEP.csv:{line}: 1 234,56")]));
        assert_eq!(noted("fim").0, 1, "2925 is counted");
    }

    /// IBAMA's real file typed: every date the file gives within IBAMA's life and the file's date
    /// is a date, the two no embargo can have (1667 and 2925, found by hand) are counted, and
    /// line 12, read by hand, is an embargo of 2007 lifted in 2012 over 12286,5950 ha.
    #[test]
    fn ibamas_real_file_is_typed_and_its_impossible_dates_are_counted() {
        let tmp = tempfile::tempdir().unwrap();
        let real =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real/ibama_embargos.csv");
        std::fs::copy(real, tmp.path().join("termo_de_embargo_20261001.csv")).unwrap();
        let (listas, frames) = read_folder(tmp.path());
        let texts = |column: &str| column_texts(frames.get(LISTAS).unwrap(), column);
        let (inicio, fim, area, linha) =
            (texts("inicio"), texts("fim"), texts("area_embargada"), texts("linha"));
        let at = linha.iter().position(|l| l.as_deref() == Some("12")).unwrap();
        assert_eq!((inicio[at].as_deref(), fim[at].as_deref()), (Some("2007-03-15"), Some("2012-11-14")));
        assert_eq!(area[at].as_deref(), Some("12286.5950"));
        let starts = listas.records.iter().filter(|r| r.inicio.is_some()).count();
        assert_eq!(inicio.iter().flatten().count(), starts - 2, "all but 1667 and 2925");
        let noted = frames.quality.iter().find(|q| q.table == LISTAS && q.column == "inicio").unwrap();
        assert_eq!(noted.failures, 2, "{:?}", noted.examples);
        assert!(noted.examples.iter().any(|e| e.ends_with("1667-05-31 11:10:00")), "{:?}", noted.examples);
    }

    /// CGU's real PEP rows typed: every date in the file is a date (none counted unreadable),
    /// `Não informada` is no end, and each record carries the rule its list is decided by.
    #[test]
    fn pep_s_real_file_is_typed_with_no_cell_left_unread() {
        let tmp = tempfile::tempdir().unwrap();
        let real = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real/cgu_pep.csv");
        std::fs::copy(real, tmp.path().join("202509_PEP.csv")).unwrap();
        let (listas, frames) = read_folder(tmp.path());
        let df = frames.get(LISTAS).unwrap();
        let peps = listas.records.iter().filter(|r| r.lista == Lista::Pep).count();
        assert!(peps > 100, "{peps}");
        let noted: Vec<_> = frames.quality.iter().filter(|q| q.table == LISTAS).collect();
        assert!(noted.is_empty(), "{noted:?}");
        let (inicio, fim, linha) =
            (column_texts(df, "inicio"), column_texts(df, "fim"), column_texts(df, "linha"));
        let at = linha.iter().position(|l| l.as_deref() == Some("2")).unwrap();
        assert_eq!((inicio[at].as_deref(), fim[at].as_deref()), (Some("2019-12-21"), None));
        assert_eq!(inicio.iter().flatten().count(), peps, "every start is a date");
        assert!(column_texts(df, "vigencia").iter().all(|v| v.as_deref() == Some("periodo")));
    }
}
