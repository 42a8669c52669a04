//! The raw tables a fetch stages and the later stages type, export and merge: their names,
//! their staged columns (derived from the wire models, so they cannot drift) and the row types
//! that carry a record's text between them.
//!
//! It owns naming and flattening only: how rows are stored durably is `extract::staging`'s, how
//! their text becomes typed columns is `transform`'s.

pub(crate) mod record;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::api::models::{
    CompanyProfile, CreditoAtivo, DividaPgfn, Empresa, Estabelecimento, ParcelamentoRfb, Simples, Socio,
    TransacaoRfb,
};
use record::for_each_field;

/// The raw tables a fetch stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Table {
    CreditosAtivos,
    Empresas,
    DividasPgfn,
    ParcelamentosRfb,
    TransacoesRfb,
    Socios,
}

impl Table {
    pub const ALL: [Table; 6] = [
        Self::CreditosAtivos,
        Self::Empresas,
        Self::DividasPgfn,
        Self::ParcelamentosRfb,
        Self::TransacoesRfb,
        Self::Socios,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::CreditosAtivos => "creditos_ativos",
            Self::Empresas => "empresas",
            Self::DividasPgfn => "dividas_pgfn",
            Self::ParcelamentosRfb => "parcelamentos_rfb",
            Self::TransacoesRfb => "transacoes_rfb",
            Self::Socios => "socios",
        }
    }

    /// Staged columns: the wire fields (derived from the models, so they cannot drift) plus
    /// the context a record needs once it leaves its request.
    pub fn columns(self) -> &'static [String] {
        static CACHE: [OnceLock<Vec<String>>; 6] = [const { OnceLock::new() }; 6];
        CACHE[self as usize].get_or_init(|| {
            fn keys<T: Serialize + Default>() -> Vec<String> {
                let mut v = Vec::new();
                for_each_field(&T::default(), &mut |k, _| v.push(k.to_string()));
                v.sort();
                v
            }
            let ctx = |mut v: Vec<String>, extra: &[&str]| {
                v.extend(extra.iter().map(|s| (*s).to_string()));
                v
            };
            match self {
                Self::CreditosAtivos => keys::<CreditoAtivo>(),
                Self::Empresas => profile_columns(),
                Self::DividasPgfn => ctx(keys::<DividaPgfn>(), &["cnpj_consultado", "categoria"]),
                Self::ParcelamentosRfb => ctx(keys::<ParcelamentoRfb>(), &["cnpj_consultado"]),
                Self::TransacoesRfb => ctx(keys::<TransacaoRfb>(), &["cnpj_consultado"]),
                Self::Socios => ctx(keys::<Socio>(), &["cnpj_consultado"]),
            }
        })
    }

    /// The staged columns that date a record's release (`docs/service-api.md` §2): the
    /// registry's `dataset_month`, the debts' `dataset_trimester`, the credits' `ano_mes`.
    pub fn period_columns(self) -> &'static [&'static str] {
        match self {
            Self::CreditosAtivos => &["ano_mes"],
            Self::Empresas => &["empresa_dataset_month", "estabelecimento_dataset_month"],
            Self::DividasPgfn => &["dataset_trimester"],
            Self::Socios => &["dataset_month"],
            Self::ParcelamentosRfb | Self::TransacoesRfb => &[],
        }
    }

    fn column_index(self, name: &str) -> Option<usize> {
        self.columns().iter().position(|c| c == name)
    }
}

/// The text of `column` in `row` of `table` (`None` when empty or not a column of it).
pub fn value<'a>(table: Table, row: &'a Row, column: &str) -> Option<&'a str> {
    table.column_index(column).and_then(|i| row.get(i)).and_then(Option::as_deref)
}

/// One staged row: the text of each of its table's `columns()`, in that order.
pub type Row = Vec<Option<String>>;

/// A staged row by column name: how rows are read back and compared.
pub type RowMap = BTreeMap<String, Option<String>>;

/// `row` by column name.
pub fn row_map(table: Table, row: &Row) -> RowMap {
    table.columns().iter().cloned().zip(row.iter().cloned()).collect()
}

/// For each field of `T` in declaration order, its column in `table` (computed once per table).
fn field_positions<T: Serialize + Default>(table: Table) -> &'static [Option<usize>] {
    static CACHE: [OnceLock<Vec<Option<usize>>>; 6] = [const { OnceLock::new() }; 6];
    CACHE[table as usize].get_or_init(|| {
        let mut v = Vec::new();
        for_each_field(&T::default(), &mut |k, _| v.push(table.column_index(k)));
        v
    })
}

/// Stages a wire record of `table` (one model type per table), plus context columns.
pub fn flat_row<T: Serialize + Default>(table: Table, rec: &T, extra: &[(&str, &str)]) -> Row {
    let positions = field_positions::<T>(table);
    let mut row: Row = vec![None; table.columns().len()];
    let mut i = 0usize;
    for_each_field(rec, &mut |_, v| {
        if let Some(Some(p)) = positions.get(i) {
            row[*p] = v;
        }
        i += 1;
    });
    for (k, v) in extra {
        if let Some(p) = table.column_index(k) {
            row[p] = Some((*v).to_string());
        }
    }
    row
}

const PROFILE_PARTS: [&str; 3] = ["empresa", "estabelecimento", "simples"];

fn profile_columns() -> Vec<String> {
    let full = CompanyProfile {
        empresa: Some(Empresa::default()),
        estabelecimento: Some(Estabelecimento::default()),
        simples: Some(Simples::default()),
        ..CompanyProfile::default()
    };
    let mut cols: Vec<String> = profile_map(&full, "").into_keys().collect();
    cols.sort();
    cols
}

/// The profile flattened: `empresa_*`, `estabelecimento_*`, `simples_*`, maps as JSON text.
fn profile_map(p: &CompanyProfile, cnpj_consultado: &str) -> RowMap {
    fn text_of(v: serde_json::Value) -> Option<String> {
        match v {
            serde_json::Value::Null => None,
            serde_json::Value::String(s) => Some(s),
            other => Some(other.to_string()),
        }
    }
    let mut row = RowMap::new();
    row.insert("cnpj_consultado".into(), Some(cnpj_consultado.to_string()));
    if let Ok(serde_json::Value::Object(m)) = serde_json::to_value(p) {
        for (k, v) in m {
            match (PROFILE_PARTS.contains(&k.as_str()), v) {
                (true, serde_json::Value::Object(inner)) => {
                    for (ik, iv) in inner {
                        row.insert(format!("{k}_{ik}"), text_of(iv));
                    }
                }
                (true, _) => {}
                (false, v) => {
                    row.insert(k, text_of(v));
                }
            }
        }
    }
    row
}

/// Stages a company profile (one per company: the map's cost does not matter here).
pub fn profile_row(p: &CompanyProfile, cnpj_consultado: &str) -> Row {
    let mut map = profile_map(p, cnpj_consultado);
    Table::Empresas.columns().iter().map(|c| map.remove(c).flatten()).collect()
}
