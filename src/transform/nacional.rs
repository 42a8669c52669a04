//! The release's national debt (`extract::open_data::national`) as the table
//! `divida_ativa_nacional`: one row a cell (state, person type, system, tax group, situation,
//! in court, a company's CNAE section and legal-nature group, each with its name; `PF` in
//! both for a person),
//! its inscriptions and their value as Decimal(18,2). A run without a release of PGFN's files
//! gets the table empty, in the same columns.

use polars::prelude::*;

use super::parse::{cnae_section_name, natureza_group_name};
use super::typing::MONEY_PRECISION;
use super::{Frames, TransformError};
use crate::extract::open_data::national::National;

/// The table's name in the output and to the queries.
pub(crate) const DIVIDA_ATIVA_NACIONAL: &str = "divida_ativa_nacional";

/// Adds `divida_ativa_nacional` to `frames` from `national`, or, without it, an empty table
/// unless the frames hold one already (a run dir read back).
pub(crate) fn attach_national(
    frames: &mut Frames,
    national: Option<&National>,
) -> Result<(), TransformError> {
    let err = |source: PolarsError| TransformError::Frame { table: DIVIDA_ATIVA_NACIONAL, source };
    if national.is_none() && frames.contains(DIVIDA_ATIVA_NACIONAL) {
        return Ok(());
    }
    let df = national_frame(national.unwrap_or(&National::default())).map_err(err)?;
    frames.tables.insert(DIVIDA_ATIVA_NACIONAL, df);
    Ok(())
}

/// The frame of `national`'s cells, in their order (no row for an empty one, in the same columns).
pub(crate) fn national_frame(national: &National) -> PolarsResult<DataFrame> {
    let cells: Vec<_> = national.cells.iter().collect();
    let text = |name: &str, f: &dyn Fn(&crate::extract::open_data::national::NationalKey) -> String| {
        Column::new(name.into(), cells.iter().map(|(k, _)| f(k)).collect::<Vec<String>>())
    };
    // A cell's value is a sum of values of two decimals: it has two, and 18 digits hold
    // R$ 10 quadrillion, a thousand times the country's whole register.
    let valor: Vec<Option<i128>> = cells
        .iter()
        .map(|(_, t)| {
            let mut v = t.valor;
            v.rescale(2);
            Some(v.mantissa())
        })
        .collect();
    let columns = vec![
        text("uf", &|k| k.uf.clone()),
        text("tipo_pessoa", &|k| k.tipo_pessoa.clone()),
        text("sistema", &|k| k.categoria.as_str().to_string()),
        text("grupo_tributo", &|k| k.grupo_tributo.to_string()),
        text("situacao", &|k| k.situacao.clone()),
        text("ajuizado", &|k| k.ajuizado.clone()),
        text("cnae_secao", &|k| person_or(&k.cnae_secao)),
        text("cnae_secao_descricao", &|k| section_label(&k.cnae_secao).to_string()),
        text("natureza_grupo", &|k| person_or(&k.natureza_grupo)),
        text("natureza_grupo_descricao", &|k| nature_label(&k.natureza_grupo).to_string()),
        Column::new(
            "inscricoes".into(),
            cells.iter().map(|(_, t)| t.inscricoes as i64).collect::<Vec<i64>>(),
        ),
        Int128Chunked::from_iter_options("valor".into(), valor.into_iter())
            .into_decimal_unchecked(MONEY_PRECISION, 2)
            .into_column(),
    ];
    DataFrame::new(cells.len(), columns)
}

/// A company column's value, or `PF` for a person's cell: the queries group people under it.
fn person_or(value: &str) -> String {
    if value.is_empty() { PERSON_KEY.to_string() } else { value.to_string() }
}

/// The key of people's cells in the company columns.
const PERSON_KEY: &str = "PF";

/// What a cell's `cnae_secao` names: its section, or why it has none.
fn section_label(letter: &str) -> &'static str {
    match letter {
        "" => PERSON,
        "?" => "Empresa sem CNAE da matriz na publicação da RFB",
        letter => cnae_section_name(letter).unwrap_or("Seção desconhecida"),
    }
}

/// What a cell's `natureza_grupo` names: its group, or why it has none.
fn nature_label(digit: &str) -> &'static str {
    match digit {
        "" => PERSON,
        "?" => "Empresa sem natureza jurídica na publicação da RFB",
        digit => natureza_group_name(digit).unwrap_or("Grupo fora da tabela de naturezas jurídicas"),
    }
}

/// A person debtor's label in the company columns.
const PERSON: &str = "Pessoa física (sem CNAE nem natureza jurídica)";
