//! The service's summaries that disagree with the records fetched (`conciliacao_resumos`),
//! counted into `data_quality` so a run's quality table says how far to trust each company.

use polars::prelude::*;

use crate::analyze::Aggregates;
use crate::transform::QualityCount;

/// The aggregate that lists the disagreements (`queries/22_conciliacao_resumos.sql`).
pub(crate) const RECONCILIATION: &str = "conciliacao_resumos";

/// One `data_quality` entry per summary field (`resumos.total`, `resumos.valor_total`) that
/// disagreed at least once, with the first companies as examples. None when the query is gone
/// or found nothing.
pub(crate) fn summary_disagreements(aggregates: &Aggregates) -> Vec<QualityCount> {
    let Some(df) = aggregates.get(RECONCILIATION) else { return Vec::new() };
    let text = |name: &str| df.column(name).ok().and_then(|c| c.cast(&DataType::String).ok());
    let (Some(cnpj), Some(tabela), Some(categoria)) = (text("cnpj"), text("tabela"), text("categoria"))
    else {
        return Vec::new();
    };
    let pairs = [
        ("total", "registros_no_resumo", "registros_recebidos"),
        ("valor_total", "valor_no_resumo", "valor_recebido"),
    ];
    let mut out = Vec::new();
    for (field, said, got) in pairs {
        let (Some(said), Some(got)) = (text(said), text(got)) else { continue };
        let mut q = QualityCount {
            table: crate::transform::RESUMOS.to_string(),
            column: field.to_string(),
            ..QualityCount::default()
        };
        for i in 0..df.height() {
            let at = |c: &Column| c.str().ok().and_then(|s| s.get(i)).map(str::to_string);
            let (Some(s), Some(g)) = (at(&said), at(&got)) else { continue };
            if s == g {
                continue;
            }
            q.failures += 1;
            if q.examples.len() < 3 {
                let list = match at(&categoria) {
                    Some(c) => format!("{}/{c}", at(&tabela).unwrap_or_default()),
                    None => at(&tabela).unwrap_or_default(),
                };
                q.examples
                    .push(format!("{} {list}: resumo {s}, registros {g}", at(&cnpj).unwrap_or_default()));
            }
        }
        if q.failures > 0 {
            out.push(q);
        }
    }
    out
}
