//! The public lists' records (`extract::open_data::lists`) as the typed `listas` table the
//! queries read: one row per record, money as Decimal(18,2), dates as dates, and what could
//! not be read counted in `data_quality` (rows out of layout with their line, Leniência's
//! placeholders, cells in no form the list uses). A run without lists gets the table empty, in
//! the same columns, so `queries/27_sancoes.sql` runs the same on every run.

use polars::prelude::*;
use rust_decimal::Decimal;

use super::typing::{MONEY_PRECISION, MONEY_SCALE, QualityCount, days_since_epoch, note_example};
use super::{Frames, TransformError};
use crate::extract::open_data::lists::{ListRecord, Lists};

/// The table name the queries read.
pub const LISTAS: &str = "listas";

/// IBAMA's areas: hectares to the ten-thousandth, as published.
const AREA_SCALE: u32 = 4;

/// Adds `listas` to `frames`: the records of `lists` with their quality counts, or, without
/// lists, an empty table unless the frames hold one already (a run dir read back).
pub fn attach_lists(frames: &mut Frames, lists: Option<&Lists>) -> Result<(), TransformError> {
    let err = |source: PolarsError| TransformError::Frame { table: LISTAS, source };
    match lists {
        Some(lists) => {
            let (df, mut quality) = listas_frame(&lists.records).map_err(err)?;
            quality.extend(list_quality(lists));
            frames.tables.insert(LISTAS, df);
            frames.add_quality(quality);
        }
        None if frames.contains(LISTAS) => {
            // A run dir written before the lists' rules were a column.
            if let Some(df) = frames.tables.get_mut(LISTAS)
                && !df.schema().contains("vigencia")
            {
                let rules = rules_of(df).map_err(err)?;
                df.with_column(rules).map_err(err)?;
            }
        }
        None => {
            frames.tables.insert(LISTAS, listas_frame(&[]).map_err(err)?.0);
        }
    }
    Ok(())
}

/// The `listas` frame of `records`, in their order, and the amounts it could not hold exactly.
pub fn listas_frame(records: &[ListRecord]) -> PolarsResult<(DataFrame, Vec<QualityCount>)> {
    let text = |name: &str, f: &dyn Fn(&ListRecord) -> Option<String>| {
        Column::new(name.into(), records.iter().map(f).collect::<Vec<Option<String>>>())
    };
    let date = |name: &str, f: &dyn Fn(&ListRecord) -> Option<chrono::NaiveDate>| {
        let days = records.iter().map(|r| f(r).map(days_since_epoch));
        Int32Chunked::from_iter_options(name.into(), days).into_date().into_column()
    };
    let mut quality = Vec::new();
    let mut exact = |name: &str, scale: u32, f: &dyn Fn(&ListRecord) -> Option<Decimal>| {
        let mut failed = QualityCount {
            table: LISTAS.into(),
            column: name.into(),
            failures: 0,
            placeholders: 0,
            examples: Vec::new(),
        };
        let values: Vec<Option<i128>> = records
            .iter()
            .map(|r| {
                let d = f(r)?;
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
    let valor_multa = exact("valor_multa", MONEY_SCALE as u32, &|r| r.valor_multa);
    let area = exact("area_embargada", AREA_SCALE, &|r| r.area);
    let columns = vec![
        text("lista", &|r| Some(r.lista.codigo().to_string())),
        text("vigencia", &|r| Some(r.lista.definicao().vigencia.codigo().to_string())),
        text("sancionado", &|r| Some(r.sancionado.clone())),
        text("documento", &|r| r.documento.clone()),
        text("tipo_pessoa", &|r| r.tipo_pessoa.clone()),
        text("nome", &|r| r.nome.clone()),
        text("categoria", &|r| r.categoria.clone()),
        text("orgao", &|r| r.orgao.clone()),
        date("inicio", &|r| r.inicio),
        date("fim", &|r| r.fim),
        valor_multa,
        area,
        Column::new("cancelado".into(), records.iter().map(|r| r.cancelado).collect::<Vec<bool>>()),
        date("data_lista", &|r| Some(r.data_lista)),
        text("fonte", &|r| Some(format!("{} ({})", r.arquivo, r.data_lista.format("%d/%m/%Y")))),
        Column::new("linha".into(), records.iter().map(|r| r.linha as i64).collect::<Vec<i64>>()),
        Column::new("registro".into(), (0..records.len() as i64).collect::<Vec<i64>>()),
    ];
    Ok((DataFrame::new(records.len(), columns)?, quality))
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
/// (`linha`, each example `file:line`), Leniência's placeholders (`sancionado`, as markers
/// read as no document) and cells in no form the list uses (by column).
fn list_quality(lists: &Lists) -> Vec<QualityCount> {
    let count = |column: &str, failures: u64, placeholders: u64, texts: &mut dyn Iterator<Item = &str>| {
        let mut examples = Vec::new();
        texts.for_each(|t| note_example(&mut examples, t));
        QualityCount { table: LISTAS.into(), column: column.into(), failures, placeholders, examples }
    };
    let mut out = Vec::new();
    if !lists.malformed.is_empty() {
        out.push(count(
            "linha",
            lists.malformed.len() as u64,
            0,
            &mut lists.malformed.iter().map(String::as_str),
        ));
    }
    if !lists.placeholders.is_empty() {
        let n = lists.placeholders.len() as u64;
        out.push(count("sancionado", 0, n, &mut lists.placeholders.iter().map(String::as_str)));
    }
    let mut columns: Vec<&str> = lists.unreadable.iter().map(|(c, _)| *c).collect();
    columns.dedup();
    for column in columns {
        let texts: Vec<&str> =
            lists.unreadable.iter().filter(|(c, _)| *c == column).map(|(_, t)| t.as_str()).collect();
        out.push(count(column, texts.len() as u64, 0, &mut texts.iter().copied()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::open_data::lists::List;
    use chrono::NaiveDate;

    fn record(lista: List, multa: Option<Decimal>) -> ListRecord {
        let day = NaiveDate::from_ymd_opt(2026, 9, 28);
        ListRecord {
            lista,
            sancionado: "12345678000195".into(),
            documento: Some("12345678000195".into()),
            tipo_pessoa: Some("J".into()),
            nome: Some("ALFA SA".into()),
            categoria: None,
            orgao: None,
            inicio: NaiveDate::from_ymd_opt(2024, 1, 10),
            fim: None,
            valor_multa: multa,
            area: None,
            cancelado: false,
            arquivo: "20260928_CNEP.zip/20260928_CNEP.csv".into(),
            data_lista: day.unwrap_or_default(),
            linha: 2,
        }
    }

    #[test]
    fn listas_is_typed_and_counts_what_it_cannot_hold_or_read() {
        let exact = Decimal::new(123_456_789, 2);
        let records = [record(List::Cnep, Some(exact)), record(List::Cnep, Some(Decimal::new(1_005, 3)))];
        let lists = Lists {
            records: records.to_vec(),
            malformed: vec!["x.csv:7".into()],
            placeholders: vec!["EXBILFINGER".into()],
            ..Lists::default()
        };
        let mut frames = Frames::default();
        attach_lists(&mut frames, Some(&lists)).unwrap();
        let df = frames.get(LISTAS).unwrap();
        assert_eq!(df.column("valor_multa").unwrap().dtype(), &DataType::Decimal(18, 2));
        assert_eq!(df.column("inicio").unwrap().dtype(), &DataType::Date);
        assert_eq!(df.column("cancelado").unwrap().dtype(), &DataType::Boolean);
        let multa = df.column("valor_multa").unwrap().cast(&DataType::String).unwrap();
        assert_eq!(multa.str().unwrap().get(0), Some("1234567.89"));
        assert_eq!(multa.str().unwrap().get(1), None, "1.005 is no amount in cents");
        let fonte = df.column("fonte").unwrap();
        assert_eq!(fonte.str().unwrap().get(0), Some("20260928_CNEP.zip/20260928_CNEP.csv (28/09/2026)"));
        let by_column = |c: &str| frames.quality.iter().find(|q| q.table == LISTAS && q.column == c).cloned();
        assert_eq!(by_column("valor_multa").map(|q| q.failures), Some(1));
        assert_eq!(by_column("linha").map(|q| q.examples), Some(vec!["x.csv:7".to_string()]));
        assert_eq!(by_column("sancionado").map(|q| (q.failures, q.placeholders)), Some((0, 1)));

        let mut empty = Frames::default();
        attach_lists(&mut empty, None).unwrap();
        let none = empty.get(LISTAS).unwrap();
        assert_eq!((none.height(), none.schema()), (0, df.schema()), "no lists: the same columns, empty");
    }
}
