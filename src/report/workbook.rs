//! What `report.xlsx` shows, from the same view model as the HTML: the headline figures and the
//! portfolio's totals on a summary sheet, the portfolio's register next, then every aggregate in
//! the order of its query file. The sheet layout and the file itself are the export's
//! ([`crate::export::workbook`]); the words and number formats come from the strings file.

use std::str::FromStr;

use polars::prelude::DataFrame;
use rust_decimal::Decimal;

use super::strings::Strings;
use super::view::ReportView;
use crate::analyze::Aggregates;
use crate::export::workbook::{NumberFormats, SummaryLine, SummaryValue, TableSheet, WorkbookContent};

/// The aggregate shown as the portfolio's own sheet, right after the summary.
const PORTFOLIO_TABLE: &str = "carteira_cadastro";
/// The public lists' matches (`queries/27_sancoes.sql`), on a sheet named in words.
const SANCOES_TABLE: &str = "sancoes";
/// The partners possibly politically exposed (`queries/35_socios_pep.sql`), likewise.
const PEP_TABLE: &str = "socios_pep";
/// The values that could not be read (written beside the aggregates by the export).
const QUALITY_TABLE: &str = "data_quality";

fn money(text: Option<&str>) -> Option<SummaryValue> {
    text.and_then(|t| Decimal::from_str(t).ok()).map(SummaryValue::Money)
}

fn line(label: String, values: Vec<Option<SummaryValue>>) -> SummaryLine {
    SummaryLine { label, values }
}

fn summary_lines(view: &ReportView, t: &Strings) -> Vec<SummaryLine> {
    let mut lines = Vec::new();
    if let Some(h) = &view.headline {
        let month = crate::export::workbook::month_start(&h.month).map(SummaryValue::Month);
        lines.push(line(t.get("planilha_mes"), vec![month]));
        lines.push(line(t.get("creditos_ativos"), vec![money(h.total.as_deref())]));
        lines.push(line(
            t.get("variacao_no_mes"),
            vec![money(h.change_month.as_deref()), h.change_month_pct.map(SummaryValue::Percent)],
        ));
        lines.push(line(
            t.get("variacao_em_12_meses"),
            vec![money(h.change_year.as_deref()), h.change_year_pct.map(SummaryValue::Percent)],
        ));
        lines.push(line(t.get("ufs_cobertas"), vec![h.ufs.map(SummaryValue::Count)]));
    }
    if let Some(p) = &view.portfolio {
        let count =
            |key: &str| p.summary.get(key).and_then(serde_json::Value::as_i64).map(SummaryValue::Count);
        let amount = |key: &str| money(p.summary.get(key).and_then(serde_json::Value::as_str));
        let pct =
            |key: &str| p.summary.get(key).and_then(serde_json::Value::as_f64).map(SummaryValue::Percent);
        lines.push(line(t.get("empresas_na_carteira"), vec![count("empresas_carteira")]));
        lines.push(line(t.get("empresas_encontradas_rotulo"), vec![count("encontradas")]));
        lines.push(line(t.get("planilha_nao_encontradas"), vec![count("nao_encontradas")]));
        lines.push(line(t.get("planilha_com_divida"), vec![count("com_divida")]));
        lines.push(line(t.get("exposicao_total"), vec![amount("exposicao_total")]));
        lines
            .push(line(t.get("divida_ativa_ajuizada"), vec![amount("divida_ajuizada"), pct("ajuizado_pct")]));
        lines.push(line(t.get("divida_nao_previdenciaria"), vec![amount("nao_previdenciario")]));
        lines.push(line(t.get("divida_previdenciaria"), vec![amount("previdenciario")]));
        lines.push(line(t.get("fgts"), vec![amount("fgts")]));
        lines.push(line(t.get("parcelamentos_saldo"), vec![amount("parcelamentos_saldo")]));
        lines.push(line(t.get("transacoes_saldo"), vec![amount("transacoes_saldo")]));
        lines.push(line(t.get("divida_como_corresponsavel"), vec![amount("divida_como_corresponsavel")]));
        lines.push(line(t.get("contagem_dupla_evitada"), vec![amount("contagem_dupla_evitada")]));
    }
    if let Some(c) = view.changes.as_ref().filter(|c| c.compared) {
        let n = |v: usize| Some(SummaryValue::Count(i64::try_from(v).unwrap_or(i64::MAX)));
        lines.push(line(t.get("mudancas_na_carteira"), vec![n(c.total)]));
        lines.push(line(t.get("mudancas_empresas"), vec![n(c.companies)]));
        if c.rules {
            lines.push(line(t.get("alertas_novos"), vec![n(c.alerts_new)]));
            lines.push(line(t.get("alertas_abertos"), vec![n(c.alerts_open)]));
            lines.push(line(t.get("alertas_resolvidos"), vec![n(c.alerts_resolved)]));
        }
    }
    if let Some(s) = view.sanctions.as_ref().filter(|s| s.read) {
        let n = |v: usize| Some(SummaryValue::Count(i64::try_from(v).unwrap_or(i64::MAX)));
        lines.push(line(t.get("sancoes_vigentes"), vec![n(s.companies_in_force)]));
    }
    let run = &view.run;
    lines.push(line(t.get("coluna_fonte"), vec![Some(SummaryValue::Text(run.source.clone()))]));
    lines.push(line(t.get("requisicoes"), vec![Some(SummaryValue::Count(run.requests as i64))]));
    lines.push(line(t.get("planilha_execucao"), vec![Some(SummaryValue::Text(run.run_id.clone()))]));
    lines
}

/// The workbook's content: the summary from `view`, the sheets from `aggs` and `quality`
/// (`data_quality`, written beside the aggregates), in the order of the Parquet files' queries.
pub(crate) fn workbook_content<'a>(
    view: &ReportView,
    aggs: &'a Aggregates,
    quality: &'a DataFrame,
) -> WorkbookContent<'a> {
    let t = &view.t;
    let locale = view.locale;
    let mut sheets: Vec<TableSheet<'a>> = aggs
        .results
        .iter()
        .map(|(q, df)| TableSheet {
            name: match q.table.as_str() {
                PORTFOLIO_TABLE => t.get("planilha_carteira"),
                SANCOES_TABLE => t.get("planilha_sancoes"),
                PEP_TABLE => t.get("planilha_socios_pep"),
                _ => q.table.clone(),
            },
            title: super::view::title_of(q, locale),
            description: super::view::description_of(q, locale),
            source: format!("aggregates/{}.parquet", q.table),
            frame: df,
        })
        .collect();
    sheets.push(TableSheet {
        name: QUALITY_TABLE.to_string(),
        title: t.get("valores_nao_lidos_titulo"),
        description: t.get("planilha_qualidade_descricao"),
        source: format!("aggregates/{}.parquet", QUALITY_TABLE),
        frame: quality,
    });
    // The portfolio's register first: it is the sheet analysts filter and paste from.
    if let Some(i) = aggs.results.iter().position(|(q, _)| q.table == PORTFOLIO_TABLE) {
        let portfolio = sheets.remove(i);
        sheets.insert(0, portfolio);
    }
    let month = view.headline.as_ref().map(|h| crate::report::format::month(&h.month, locale));
    WorkbookContent {
        summary_sheet: t.get("planilha_resumo"),
        title: match month {
            Some(m) => format!("{} — {m}", t.get("titulo_relatorio")),
            None => t.get("titulo_relatorio"),
        },
        subtitle: format!(
            "{} · {} {} · {} {}",
            t.get("cabecalho_relatorio_mensal"),
            t.get("cabecalho_fonte"),
            view.run.source,
            t.get("cabecalho_gerado_em"),
            view.run.generated_at
        ),
        summary_header: [t.get("indicador"), t.get("valor")],
        summary: summary_lines(view, t),
        index_header: [
            t.get("planilha_coluna_planilha"),
            t.get("planilha_coluna_titulo"),
            t.get("coluna_descricao"),
            t.get("coluna_registros"),
        ],
        truncated_note: t.get("planilha_linhas_cortadas"),
        sheets,
        formats: NumberFormats {
            money: t.get("planilha_formato_moeda"),
            date: t.get("planilha_formato_data"),
            month: t.get("planilha_formato_mes"),
            integer: t.get("planilha_formato_inteiro"),
            decimal: t.get("planilha_formato_decimal"),
        },
    }
}
