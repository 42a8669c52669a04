//! The view model's types: what the templates receive, every figure already computed. Money is
//! exact decimal text; the templates' helpers format it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::super::cells::CellKind;
use super::super::charts::LineChart;
use crate::report::format::Locale;
use crate::report::strings::Strings;

#[derive(Debug, Clone, Serialize)]
pub struct Headline {
    pub month: String,
    pub total: Option<String>,
    pub change_month: Option<String>,
    pub change_month_pct: Option<f64>,
    pub change_year: Option<String>,
    pub change_year_pct: Option<f64>,
    pub ufs: Option<i64>,
    pub companies: Option<i64>,
}

/// The live alerts (new and open) counted by severity, and the five that matter most.
#[derive(Debug, Clone, Serialize)]
pub struct AlertHighlights {
    pub total: usize,
    pub alta: usize,
    pub media: usize,
    pub baixa: usize,
    pub top: Vec<TopAlert>,
}

/// One of the alerts that matter most: the most severe, then the most money at stake.
#[derive(Debug, Clone, Serialize)]
pub struct TopAlert {
    pub cnpj: String,
    pub razao_social: Option<String>,
    pub regra: String,
    pub severidade: String,
    pub severidade_codigo: &'static str,
    /// `nova` or `aberta`, in words.
    pub estado: String,
    pub triggers: usize,
    pub at_stake: Option<String>,
}

/// Alerts in the highlights' top list.
const TOP_ALERTS: usize = 5;

fn alert_highlights(alerts: &[crate::monitor::lifecycle::TrackedAlert], t: &Strings) -> AlertHighlights {
    use crate::monitor::alerts::Severidade;
    use crate::monitor::lifecycle::Estado;
    let mut live: Vec<_> = alerts.iter().filter(|a| a.estado != Estado::Resolvida).collect();
    live.sort_by(|a, b| {
        a.alerta
            .severidade
            .cmp(&b.alerta.severidade)
            .then_with(|| b.alerta.at_stake().cmp(&a.alerta.at_stake()))
            .then_with(|| a.estado.cmp(&b.estado))
            .then_with(|| (&a.alerta.cnpj, &a.alerta.regra).cmp(&(&b.alerta.cnpj, &b.alerta.regra)))
    });
    let of = |s: Severidade| live.iter().filter(|a| a.alerta.severidade == s).count();
    AlertHighlights {
        total: live.len(),
        alta: of(Severidade::Alta),
        media: of(Severidade::Media),
        baixa: of(Severidade::Baixa),
        top: live
            .iter()
            .take(TOP_ALERTS)
            .map(|a| {
                let stake = a.alerta.at_stake();
                TopAlert {
                    cnpj: a.alerta.cnpj.clone(),
                    razao_social: a.alerta.razao_social.clone(),
                    regra: a.alerta.regra.clone(),
                    severidade: super::changes::severity_words(a.alerta.severidade, t),
                    severidade_codigo: a.alerta.severidade.name(),
                    estado: t.get(&format!("alerta_estado_{}", a.estado.name())),
                    triggers: a.alerta.gatilhos.len(),
                    at_stake: (!stake.is_zero()).then(|| stake.to_string()),
                }
            })
            .collect(),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct BreakdownRow {
    pub key: String,
    pub label: Option<String>,
    pub value: Option<String>,
    pub share_pct: Option<f64>,
    pub change: Option<String>,
    pub change_pct: Option<f64>,
    pub bar_pct: f64,
    /// Bar length in chart units.
    pub bar_w: f64,
    pub bar_y: f64,
}

/// "Dívida ativa da União no país": every inscription of PGFN's release, counted once.
#[derive(Debug, Clone, Serialize)]
pub struct NationalDebt {
    /// The release's quarter, as the folder names it.
    pub quarter: String,
    pub inscricoes: i64,
    pub total: Option<String>,
    pub empresas: Option<String>,
    pub pessoas: Option<String>,
    pub by_uf: Breakdown,
    pub by_grupo: Option<Breakdown>,
    pub by_secao: Option<Breakdown>,
    pub by_natureza: Option<Breakdown>,
    /// State x tax group (`divida_nacional_uf_grupo`).
    pub crosstab: Option<CrossTab>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Breakdown {
    pub title: String,
    /// What the table shows, for an analyst, in the report's language.
    pub description: String,
    pub key_label: String,
    pub has_label: bool,
    /// Whether the query gives a change from the month before (`variacao_mes`): a table with
    /// none (the release's national debt) shows no empty change columns.
    pub has_change: bool,
    pub rows: Vec<BreakdownRow>,
    pub total: Option<BreakdownRow>,
    pub chart_height: f64,
    /// Width of the label column of the bar chart, from the longest key.
    pub label_w: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Tile {
    pub uf: String,
    pub x: f64,
    pub y: f64,
    pub change_pct: Option<f64>,
    pub class: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CrossCell {
    pub value: Option<String>,
    pub heat: u8,
}

#[derive(Debug, Clone, Serialize)]
pub struct CrossRow {
    pub uf: String,
    pub cells: Vec<CrossCell>,
    pub total: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CrossTab {
    pub title: String,
    pub description: String,
    pub groups: Vec<String>,
    pub rows: Vec<CrossRow>,
    pub totals: CrossRow,
}

#[derive(Debug, Clone, Serialize)]
pub struct Mover {
    pub uf: String,
    pub cnae_secao: String,
    pub cnae_secao_descr: Option<String>,
    pub grupo_tributo: String,
    pub before: Option<String>,
    pub now: Option<String>,
    pub change: Option<String>,
    pub change_pct: Option<f64>,
}

/// What a row of the portfolio owes, as the templates name it (flattened into its row).
#[derive(Debug, Clone, Serialize)]
pub struct Exposure {
    pub filed: Option<String>,
    pub not_filed: Option<String>,
    pub instalments: Option<String>,
    pub transactions: Option<String>,
    pub total: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PortfolioRow {
    pub key: String,
    /// The key's name (a CNAE section's, or a not-a-state code's such as `EX`), if it has one.
    pub name: Option<String>,
    pub companies: Option<i64>,
    #[serde(flatten)]
    pub exposure: Exposure,
}

#[derive(Debug, Clone, Serialize)]
pub struct TopCompany {
    pub rank: usize,
    pub cnpj: String,
    pub razao_social: Option<String>,
    pub uf: Option<String>,
    pub cnae_secao: Option<String>,
    pub cnae_secao_descr: Option<String>,
    #[serde(flatten)]
    pub exposure: Exposure,
    /// Its active debt as principal debtor, and as co-responsible or jointly liable.
    pub as_principal: Option<String>,
    pub as_co_debtor: Option<String>,
    /// Its estimated tax standing (`carteira_empresas` only).
    pub situacao: Option<String>,
    /// This run wrote the company's dossier (`dossies/<cnpj>.html`).
    pub dossier: bool,
}

/// Every company of the portfolio (`carteira_empresas`): the table the HTML report sorts,
/// filters and searches.
#[derive(Debug, Clone, Serialize)]
pub struct CompanyTable {
    pub title: String,
    pub description: String,
    /// Where the whole list is kept (the printed report leaves the table out).
    pub table: String,
    pub rows: Vec<TopCompany>,
    /// The rows as the HTML page shows them, each made by `partials/company_row.hbs` on its own
    /// (`report::render_company_rows`); `rows` is then empty.
    pub rows_html: Option<String>,
}

/// One economic group (`grupos_exposicao` query).
#[derive(Debug, Clone, Serialize)]
pub struct EconomicGroup {
    pub rank: usize,
    /// The root of the member that names the group.
    pub grupo: String,
    pub nome: Option<String>,
    pub companies: Option<i64>,
    pub in_portfolio: Option<i64>,
    /// Members whose records count (in the portfolio or fetched by the expansion).
    pub with_data: Option<i64>,
    pub exposure_portfolio: Option<String>,
    pub exposure_group: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Portfolio {
    pub summary: BTreeMap<String, serde_json::Value>,
    pub by_uf: Vec<PortfolioRow>,
    pub by_uf_total: Option<PortfolioRow>,
    pub by_cnae: Vec<PortfolioRow>,
    pub by_cnae_total: Option<PortfolioRow>,
    /// By tax regime, when RFB's regime files were read (`regime_read`).
    pub by_regime: Vec<PortfolioRow>,
    pub by_regime_total: Option<PortfolioRow>,
    pub regime_read: bool,
    pub top: Vec<TopCompany>,
    /// Every company, when the run has the query.
    pub companies: Option<CompanyTable>,
    pub not_found: Vec<String>,
    /// The groups of largest exposure (at most `GROUPS_SHOWN`), and how many there are.
    pub groups: Vec<EconomicGroup>,
    pub groups_total: usize,
    /// Whether the run had the query (a section absent from the queries is not rendered).
    pub has_groups: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct QualityRow {
    pub table: String,
    pub column: String,
    pub failures: u64,
    /// Values written for "unknown" (an all-zero date), read as empty: not failures.
    pub placeholders: u64,
    pub examples: Vec<String>,
}

/// A field the service added to an operation's records, or stopped sending.
#[derive(Debug, Clone, Serialize)]
pub struct DriftRow {
    pub operation: String,
    pub field: String,
    /// `true`: a field the models do not know; `false`: a field the service did not send.
    pub added: bool,
    pub records: u64,
    pub of_records: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct RequestRow {
    pub operation: String,
    pub outcomes: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    pub run_id: String,
    pub generated_at: String,
    pub version: String,
    pub source: String,
    pub first_month: String,
    pub last_month: String,
    pub month_count: usize,
    pub ufs: String,
    pub portfolio_size: usize,
    /// Lines of the portfolio file that were not a CNPJ (listed in the manifest).
    pub portfolio_skipped: usize,
    pub shard: String,
    pub fontes: Vec<(String, String, String)>,
    pub requests: u64,
    pub retries: u64,
    pub rate_limited: u64,
    pub failed_tasks: usize,
    pub wall_seconds: String,
    pub by_operation: Vec<RequestRow>,
    pub quality: Vec<QualityRow>,
    pub schema_drift: Vec<DriftRow>,
    pub warnings: Vec<String>,
    pub warnings_more: usize,
}

/// Which part of a split run a report is (1-based, as a person counts them).
#[derive(Debug, Clone, Serialize)]
pub struct ShardPart {
    pub part: u32,
    pub of: u32,
}

/// Why some figures are incomplete: tasks that failed after their retries and portfolio
/// companies whose lookup failed. Absent when nothing failed, so the banner shows only then.
#[derive(Debug, Clone, Serialize)]
pub struct Incomplete {
    pub failed_tasks: usize,
    pub failed_companies: i64,
}

/// A release of the publishers' files read with `--partial`: the files it lacked or held broken,
/// whose companies and inscriptions are missing from the figures. Absent for a whole release.
#[derive(Debug, Clone, Serialize)]
pub struct PartialRelease {
    pub files: Vec<String>,
    /// On a store: the snapshot the records those files would have renewed were carried from.
    pub carried_from: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AppendixCell {
    pub value: Option<String>,
    pub kind: CellKind,
}

#[derive(Debug, Clone, Serialize)]
pub struct AppendixTable {
    pub table: String,
    pub title: String,
    /// What the table shows, for an analyst, in the report's language.
    pub description: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<AppendixCell>>,
    pub truncated: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReportView {
    /// The words of the report's language (`templates/strings/<lang>.toml`).
    pub t: Strings,
    pub demo: bool,
    /// The demo compared with the month before, made by the same run: that month's label.
    pub demo_comparacao: Option<String>,
    pub incomplete: Option<Incomplete>,
    pub partial_release: Option<PartialRelease>,
    /// This run is one part of a portfolio split with `--shard`: its figures are that part's.
    pub shard_part: Option<ShardPart>,
    pub locale: Locale,
    pub lang: &'static str,
    pub headline: Option<Headline>,
    /// The watch rules' alerts in the highlights: the live ones (new and open) by severity, and
    /// the five that matter most. None without rules.
    pub alert_highlights: Option<AlertHighlights>,
    /// "Sanções e listas": the companies on a public list; None without the `sancoes` query.
    pub sanctions: Option<super::Sancoes>,
    /// Whether the run holds any national credit figure; without one, the credit sections give
    /// way to a sentence saying so, never an empty chart.
    pub credits_read: bool,
    /// On a run over the files: PGFN's whole release summed by state.
    pub national_debt: Option<NationalDebt>,
    pub trend_national: Option<LineChart>,
    pub trend_states: Option<LineChart>,
    pub by_uf: Option<Breakdown>,
    pub tiles: Vec<Tile>,
    pub by_cnae: Option<Breakdown>,
    pub by_grupo: Option<Breakdown>,
    pub by_situacao: Option<Breakdown>,
    pub by_tipo: Option<Breakdown>,
    pub by_natureza: Option<Breakdown>,
    pub trend_cnae: Option<LineChart>,
    pub trend_grupo: Option<LineChart>,
    pub crosstab: Option<CrossTab>,
    pub movers_up: Vec<Mover>,
    pub movers_down: Vec<Mover>,
    pub portfolio: Option<Portfolio>,
    /// "O que mudou na carteira"; absent when the changes query was taken away.
    pub changes: Option<super::changes::Changes>,
    /// "Fontes e períodos": each source's period and flag, and the sections' period lines.
    pub sources: super::sources::Sources,
    pub run: RunInfo,
    pub appendix: Vec<AppendixTable>,
    /// The HTML report's script; None leaves the page without one (every table still whole).
    pub script: Option<Script>,
    /// With a store: the portfolio's series over its snapshots.
    pub history: Option<History>,
}

/// The portfolio's history over the store's snapshots (`queries/historico/`).
#[derive(Debug, Clone, Serialize)]
pub struct History {
    pub title: String,
    pub description: String,
    /// Drawn from two snapshots on.
    pub chart: Option<super::super::charts::LineChart>,
    pub points: Vec<ExposurePoint>,
    pub standing: Option<StandingSeries>,
    /// PGFN's whole release at each snapshot that read it, with the latest quarter's moves.
    pub national: Option<NationalHistory>,
}

/// The national debt snapshot by snapshot (`divida_nacional_por_trimestre`) and the moves of
/// the latest one by state and CNAE section (`divida_nacional_maiores_variacoes`).
#[derive(Debug, Clone, Serialize)]
pub struct NationalHistory {
    pub title: String,
    pub description: String,
    /// Drawn from two snapshots on.
    pub chart: Option<super::super::charts::LineChart>,
    pub points: Vec<NationalPoint>,
    pub movers_title: String,
    pub movers_description: String,
    /// By state, then by CNAE section: the largest rises and falls of each.
    pub movers: Vec<NationalMovers>,
}

/// The national debt at one snapshot, exact decimal text.
#[derive(Debug, Clone, Serialize)]
pub struct NationalPoint {
    pub snapshot: String,
    pub inscricoes: Option<i64>,
    pub total: Option<String>,
    pub empresas: Option<String>,
    pub pessoas: Option<String>,
    pub change: Option<String>,
    pub change_pct: Option<f64>,
}

/// One dimension's largest moves in the latest quarter.
#[derive(Debug, Clone, Serialize)]
pub struct NationalMovers {
    pub key_label: String,
    pub rows: Vec<NationalMove>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NationalMove {
    pub key: String,
    pub before: Option<String>,
    pub after: Option<String>,
    pub change: Option<String>,
    pub change_pct: Option<f64>,
}

/// The portfolio's exposure at one snapshot (`serie_exposicao_carteira`), exact decimal text.
#[derive(Debug, Clone, Serialize)]
pub struct ExposurePoint {
    pub snapshot: String,
    pub companies: Option<i64>,
    pub owing: Option<i64>,
    pub nao_previdenciario: Option<String>,
    pub previdenciario: Option<String>,
    pub fgts: Option<String>,
    /// Filed and not, plans, settlements and the total, as the portfolio's rows name them.
    #[serde(flatten)]
    pub exposure: Exposure,
}

/// Companies per estimated standing at each snapshot (`serie_situacao_fiscal`).
#[derive(Debug, Clone, Serialize)]
pub struct StandingSeries {
    pub title: String,
    pub description: String,
    pub rows: Vec<StandingPoint>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StandingPoint {
    pub snapshot: String,
    pub none: Option<i64>,
    pub suspended: Option<i64>,
    pub irregular: Option<i64>,
    pub companies: Option<i64>,
}

/// The script that sorts, filters and searches the HTML report's tables, and the hash its
/// Content-Security-Policy allows it by (no other script runs in the page).
#[derive(Debug, Clone, Serialize)]
pub struct Script {
    pub text: String,
    /// `sha256-<base64>` of `text`, as CSP's `script-src` writes it.
    pub hash: String,
}

impl Script {
    /// Its file in a templates folder.
    pub const FILE: &'static str = "explore.js";

    pub fn new(text: &str) -> Self {
        use base64::Engine;
        use sha2::Digest;
        let digest = sha2::Sha256::digest(text.as_bytes());
        Self {
            text: text.to_string(),
            hash: format!("sha256-{}", base64::engine::general_purpose::STANDARD.encode(digest)),
        }
    }
}

impl ReportView {
    /// Marks the largest exposures whose dossiers this run writes, for the report's links.
    pub fn set_dossiers(&mut self, cnpjs: &std::collections::BTreeSet<String>) {
        if let Some(p) = &mut self.portfolio {
            let all = p.companies.iter_mut().flat_map(|c| c.rows.iter_mut());
            for row in p.top.iter_mut().chain(all) {
                row.dossier = cnpjs.contains(&row.cnpj);
            }
        }
    }

    /// The alerts of the watch rules (None: no rules were given), shown in the changes section
    /// and counted in the highlights.
    pub fn set_alerts(&mut self, alerts: Option<&[crate::monitor::lifecycle::TrackedAlert]>) {
        if let Some(c) = &mut self.changes {
            super::changes::set_alerts(c, alerts, self.locale, &self.t);
        }
        self.alert_highlights = alerts.map(|a| alert_highlights(a, &self.t));
    }
}
