//! The `resumos` table: each company profile's summaries (`total` and `valor_total` of a list)
//! as typed rows, so a query can check them against the records the fetch brought.
//!
//! It owns reading the summaries out of the staged profile and naming the list each one
//! summarises. The comparison itself is a query (`queries/22_conciliacao_resumos.sql`).

use polars::prelude::*;

use super::schema::RESUMOS as RESUMOS_COLUMNS;
use super::typing::{QualityCount, TransformError, type_columns};
use crate::api::ids::Categoria;
use crate::tables::Table;

/// The table's name among the frames and in the output.
pub const RESUMOS: &str = "resumos";

/// One summary as staged text.
#[derive(Default)]
struct Staged {
    cnpj: Vec<Option<String>>,
    chave: Vec<Option<String>>,
    tabela: Vec<Option<String>>,
    categoria: Vec<Option<String>>,
    total: Vec<Option<String>>,
    valor_total: Vec<Option<String>>,
    href: Vec<Option<String>>,
}

/// The list a summary is of, and its categoria: read from its link (`/v1/cnpjs/{cnpj}/
/// dividas-pgfn?categoria=fgts`), which the spec gives a meaning to, and from its key (the
/// spec leaves keys free) only when the link names no list.
pub(crate) fn summarised_list(key: &str, href: Option<&str>) -> Option<(Table, Option<Categoria>)> {
    let from_link = href.and_then(|h| {
        let url = url::Url::parse("http://registry.invalid/").ok()?.join(h).ok()?;
        let last = url.path_segments()?.rfind(|s| !s.is_empty())?.to_string();
        let categoria =
            url.query_pairs().find(|(k, _)| k == "categoria").and_then(|(_, v)| Categoria::parse(&v).ok());
        list_named(&last.replace('-', "_"), categoria)
    });
    from_link.or_else(|| {
        let key = key.to_ascii_lowercase();
        let categoria = key.strip_prefix("dividas_pgfn_").and_then(|c| Categoria::parse(c).ok());
        list_named(&key, categoria)
    })
}

fn list_named(name: &str, categoria: Option<Categoria>) -> Option<(Table, Option<Categoria>)> {
    if name.starts_with("dividas_pgfn") {
        // A debt summary without a categoria cannot be matched to one list.
        return categoria.map(|c| (Table::DividasPgfn, Some(c)));
    }
    [Table::ParcelamentosRfb, Table::TransacoesRfb].into_iter().find(|t| name == t.name()).map(|t| (t, None))
}

/// The typed `resumos` frame from the staged `empresas` frame (its `resumos` column holds each
/// profile's map as JSON text). A map that is not JSON is counted in data quality.
pub(crate) fn resumos_frame(empresas: &DataFrame) -> Result<(DataFrame, Vec<QualityCount>), TransformError> {
    let ferr = |source| TransformError::Frame { table: RESUMOS, source };
    let text = |name: &str| empresas.column(name).and_then(|c| c.str().cloned()).map_err(ferr);
    let (cnpjs, maps) = (text("cnpj_consultado")?, text("resumos")?);
    let mut rows = Staged::default();
    let mut unreadable = QualityCount {
        table: Table::Empresas.name().to_string(),
        column: RESUMOS.to_string(),
        ..QualityCount::default()
    };
    for (cnpj, map) in cnpjs.iter().zip(maps.iter()) {
        let Some(map) = map.filter(|m| !m.trim().is_empty()) else { continue };
        let Ok(serde_json::Value::Object(entries)) = serde_json::from_str::<serde_json::Value>(map) else {
            unreadable.failures += 1;
            let shown: String = map.chars().take(80).collect();
            crate::transform::typing::note_example(&mut unreadable.examples, &shown);
            continue;
        };
        for (key, entry) in entries {
            let field = |name: &str| match entry.get(name) {
                None | Some(serde_json::Value::Null) => None,
                Some(serde_json::Value::String(s)) => Some(s.clone()),
                Some(other) => Some(other.to_string()),
            };
            let href = field("href");
            let list = summarised_list(&key, href.as_deref());
            rows.cnpj.push(cnpj.map(str::to_string));
            rows.chave.push(Some(key));
            rows.tabela.push(list.map(|(t, _)| t.name().to_string()));
            rows.categoria.push(list.and_then(|(_, c)| c).map(|c| c.as_str().to_string()));
            rows.total.push(field("total"));
            rows.valor_total.push(field("valor_total"));
            rows.href.push(href);
        }
    }
    let n = rows.cnpj.len();
    let staged = DataFrame::new(
        n,
        vec![
            Column::new("cnpj".into(), rows.cnpj),
            Column::new("chave".into(), rows.chave),
            Column::new("tabela".into(), rows.tabela),
            Column::new("categoria".into(), rows.categoria),
            Column::new("total".into(), rows.total),
            Column::new("valor_total".into(), rows.valor_total),
            Column::new("href".into(), rows.href),
        ],
    )
    .map_err(ferr)?;
    let (df, mut quality) = type_columns(RESUMOS, RESUMOS_COLUMNS, &staged)?;
    if unreadable.failures > 0 {
        quality.push(unreadable);
    }
    Ok((df, quality))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_names_the_list_and_the_key_is_the_fallback() {
        let of = |k, h| summarised_list(k, h).map(|(t, c)| (t.name(), c.map(Categoria::as_str)));
        assert_eq!(
            of("x", Some("/v1/cnpjs/1/dividas-pgfn?categoria=fgts")),
            Some(("dividas_pgfn", Some("fgts")))
        );
        assert_eq!(of("dividas_pgfn_previdenciario", None), Some(("dividas_pgfn", Some("previdenciario"))));
        assert_eq!(
            of("anything", Some("https://h/v1/cnpjs/1/transacoes-rfb")),
            Some(("transacoes_rfb", None))
        );
        assert_eq!(of("parcelamentos_rfb", Some("/v1/other")), Some(("parcelamentos_rfb", None)));
        // A debt summary with no categoria, or a list we do not know, is not matched.
        assert_eq!(of("dividas_pgfn", Some("/v1/cnpjs/1/dividas-pgfn")), None);
        assert_eq!(of("obras", Some("/v1/cnpjs/1/obras")), None);
    }

    #[test]
    fn a_profile_map_becomes_typed_rows_and_bad_json_is_counted() {
        let empresas = DataFrame::new(
            2,
            vec![
                Column::new("cnpj_consultado".into(), ["11222333000181", "99888777000166"]),
                Column::new(
                    "resumos".into(),
                    [
                        r#"{"transacoes_rfb":{"href":"/v1/cnpjs/11222333000181/transacoes-rfb","total":2,"valor_total":"1234.56"}}"#,
                        "{not json",
                    ],
                ),
            ],
        )
        .unwrap();
        let (df, quality) = resumos_frame(&empresas).unwrap();
        assert_eq!(df.height(), 1);
        assert_eq!(df.column("total").unwrap().i64().unwrap().get(0), Some(2));
        assert_eq!(df.column("valor_total").unwrap().dtype(), &DataType::Decimal(18, 2));
        assert_eq!(df.column("tabela").unwrap().str().unwrap().get(0), Some("transacoes_rfb"));
        assert_eq!(quality.len(), 1);
        assert_eq!((quality[0].column.as_str(), quality[0].failures), ("resumos", 1));
    }
}
