//! One company's dossier: its records as the service sent them, typed with the monthly run's
//! own parsers (money exact, dates read in every published form, codes named from `codes/`),
//! rendered with `templates/dossie.html.hbs` and `dossie.md.hbs` into `dossies/<cnpj>.html|md`.
//!
//! Every section is always there: an empty one says so in words, so a reader can tell "none"
//! from "not looked at". Fetching is `extract::dossier_records`'s; the words are the strings files'.

use std::path::Path;

use rust_decimal::Decimal;
use serde::Serialize;

use super::strings::Strings;
use super::{Locale, ReportError, TemplateSet};
use crate::api::models::{DividaPgfn, Estabelecimento};
use crate::codes::CodeTables;
use crate::export::DOSSIER_DIR;
use crate::export::manifest::FileEntry;
use crate::extract::dossier_records::DossierRecords;
use crate::periods::{Periodos, PeriodsSeen};
use crate::tables::Table;
use crate::transform::parse::{cnae_section, parse_brl_amount, parse_registry_date};

/// A value with the name its code stands for (`2062` — Sociedade Empresária Limitada).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Coded {
    pub code: Option<String>,
    pub name: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Establishment {
    pub cnpj: String,
    pub kind: Coded,
    pub nome_fantasia: Option<String>,
    pub municipio: Option<String>,
    pub uf: Option<String>,
    pub situacao: Coded,
    pub inicio: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Partner {
    pub nome: Option<String>,
    pub documento: Option<String>,
    /// A partner that is itself a company (a CNPJ): its group is linked to this one.
    pub empresa: bool,
    pub qualificacao: Coded,
    pub entrada: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorkLink {
    pub responsavel: Option<String>,
    pub qualificacao: Option<String>,
    pub inicio: Option<String>,
    pub fim: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorkArea {
    pub tipo: Option<String>,
    pub categoria: Option<String>,
    pub destinacao: Option<String>,
    pub metragem: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Work {
    pub cno: Option<String>,
    pub nome: Option<String>,
    pub situacao: Option<String>,
    pub municipio: Option<String>,
    pub uf: Option<String>,
    pub inicio: Option<String>,
    pub area_total: Option<String>,
    pub unidade: Option<String>,
    pub cnaes: Vec<Coded>,
    pub areas: Vec<WorkArea>,
    pub vinculos: Vec<WorkLink>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Debt {
    pub numero: Option<String>,
    /// The company's role in the inscription, in the reader's words (`principal`,
    /// `corresponsável`, `solidária`); the role as published when it is none of these.
    pub papel: Option<String>,
    /// It owes the inscription as co-responsible or jointly liable, not as principal.
    pub corresponsavel: bool,
    pub situacao: Option<String>,
    pub ajuizada: bool,
    pub receita: Option<String>,
    pub inscricao: Option<String>,
    /// Exact decimal text (the templates' `money` helper formats it).
    pub valor: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct DebtCategory {
    pub categoria: String,
    pub rows: Vec<Debt>,
    pub total: String,
    pub ajuizado: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Plan {
    pub adesao: Option<String>,
    pub parcelas: Option<i64>,
    pub valor_parcelado: Option<String>,
    pub saldo: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Deal {
    pub processo: Option<String>,
    pub data: Option<String>,
    pub divida_transacionada: Option<String>,
    pub saldo: Option<String>,
}

/// The estimated tax standing of a company (`situacao_fiscal_estimada`), as the queries judge it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct Standing {
    pub situacao: String,
    pub inscricoes_ativas: i64,
    pub inscricoes_em_cobranca: i64,
    /// With a store: the first snapshot (`AAAAMM`) of its unbroken stretch in this standing.
    pub desde: Option<String>,
}

/// What the queries and the store add to the records: each company's standing and, when a
/// store was read, its exposure history.
#[derive(Debug, Clone, Default)]
pub(crate) struct Judged {
    pub standings: std::collections::BTreeMap<String, Standing>,
    pub history: Option<ExposureHistory>,
    /// With a store: each company's changes over its snapshots (`timeline_of`).
    pub timeline: Option<Timeline>,
    /// The run's `sancoes` when it read public lists: each dossier shows its company's rows.
    pub sancoes: Option<polars::prelude::DataFrame>,
    /// The run's `regime_tributario` when it read RFB's regime files: each dossier shows its
    /// company's years.
    pub regimes: Option<polars::prelude::DataFrame>,
}

/// One year of a company's ECF, as the dossier shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct RegimeYear {
    pub ano: i32,
    /// Its forms of taxation in pt-BR, two in one year joined by " + ".
    pub formas: String,
    /// The forms its SCPs filed that year, when any.
    pub scp: Option<String>,
}

/// Each company's ECF years from `regime_tributario`, newest first, by CNPJ root.
pub(crate) fn regimes_by_company(
    df: &polars::prelude::DataFrame,
) -> std::collections::BTreeMap<String, Vec<RegimeYear>> {
    use crate::api::regime::Forma;
    use std::collections::{BTreeMap, BTreeSet};
    let text = |c: &str, i: usize| super::cells::text(df, c, i);
    // A year's forms, each by its order in the files (or its text): the company's own, its SCPs'.
    type Forms = [BTreeSet<(usize, String)>; 2];
    let mut years: BTreeMap<String, BTreeMap<i32, Forms>> = BTreeMap::new();
    for i in 0..df.height() {
        let (Some(root), Some(ano)) = (text("cnpj_basico", i), super::cells::int(df, "ano", i)) else {
            continue;
        };
        let code = text("regime", i).unwrap_or_default();
        let form = match Forma::ALL.iter().position(|f| f.codigo() == code) {
            Some(at) => (at, Forma::ALL[at].nome().to_string()),
            None => (Forma::ALL.len(), text("forma_tributacao", i).unwrap_or_default()),
        };
        let scp = usize::from(text("cnpj_scp", i).is_some());
        years.entry(root).or_default().entry(ano as i32).or_default()[scp].insert(form);
    }
    let joined = |forms: &BTreeSet<(usize, String)>| {
        (!forms.is_empty()).then(|| forms.iter().map(|(_, f)| f.as_str()).collect::<Vec<_>>().join(" + "))
    };
    years
        .into_iter()
        .map(|(root, by_year)| {
            let rows = by_year
                .into_iter()
                .rev()
                .map(|(ano, [own, scp])| RegimeYear {
                    ano,
                    formas: joined(&own).unwrap_or_else(|| "—".to_string()),
                    scp: joined(&scp),
                })
                .collect();
            (root, rows)
        })
        .collect()
}

/// Each company's changes over a store's snapshots, oldest first, by CNPJ (digits).
pub(crate) type Timeline = std::collections::BTreeMap<String, Vec<TimelineEvent>>;

/// One change of a company's timeline, as the dossier shows it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TimelineEvent {
    /// The event's date when the files give one, else the first day of its snapshot's month.
    pub data: String,
    pub fato_datado: bool,
    pub mudanca: String,
    pub valor_anterior: Option<String>,
    pub valor_novo: Option<String>,
    pub snapshot: String,
}

/// The timeline of every company from the series' `linha_do_tempo`
/// (`queries/historico/06_linha_do_tempo.sql`), amounts in the reader's format and codes with
/// their names (`codes`); `None` without it.
pub(crate) fn timeline_of(
    series: Option<&crate::analyze::Aggregates>,
    codes: &CodeTables,
    locale: Locale,
) -> Option<Timeline> {
    use crate::analyze::cells::text;
    let df = series?.get("linha_do_tempo")?;
    let mut out = Timeline::new();
    for i in 0..df.height() {
        let Some(cnpj) = text(df, "cnpj", i) else { continue };
        let day = text(df, "data", i).and_then(|d| chrono::NaiveDate::parse_from_str(&d, "%Y-%m-%d").ok());
        // Amounts (of debts, plans, settlements and the share capital) in the reader's format.
        let kind = text(df, "mudanca", i).unwrap_or_default();
        let money_table = super::format::change_in_money(&text(df, "tabela", i).unwrap_or_default(), &kind);
        let value = |name: &str| {
            let v = text(df, name, i)?;
            Some(match v.parse::<Decimal>() {
                Ok(d) if money_table => super::format::money(d, locale),
                _ => super::view::changes::with_code_names(codes, &kind, v),
            })
        };
        let event = TimelineEvent {
            data: day.map(|d| format_day(d, locale)).unwrap_or_default(),
            fato_datado: text(df, "fato_datado", i).is_some_and(|v| v == "true"),
            mudanca: kind.clone(),
            valor_anterior: value("valor_anterior"),
            valor_novo: value("valor_novo"),
            snapshot: text(df, "snapshot", i).unwrap_or_default(),
        };
        out.entry(cnpj).or_default().push(event);
    }
    Some(out)
}

fn format_day(d: chrono::NaiveDate, locale: Locale) -> String {
    match locale {
        Locale::PtBr => d.format("%d/%m/%Y").to_string(),
        Locale::En => d.format("%Y-%m-%d").to_string(),
    }
}

/// Each company's standing from the aggregate `situacao_fiscal_estimada`, by CNPJ (digits).
pub(crate) fn standings(aggs: &crate::analyze::Aggregates) -> std::collections::BTreeMap<String, Standing> {
    use crate::analyze::cells::{int, text};
    let Some(df) = aggs.get("situacao_fiscal_estimada") else { return Default::default() };
    (0..df.height())
        .filter_map(|i| {
            Some((
                text(df, "cnpj", i)?,
                Standing {
                    situacao: text(df, "situacao_fiscal_estimada", i)?,
                    inscricoes_ativas: int(df, "inscricoes_ativas", i).unwrap_or(0),
                    inscricoes_em_cobranca: int(df, "inscricoes_em_cobranca", i).unwrap_or(0),
                    desde: None,
                },
            ))
        })
        .collect()
}

/// `standings`, each with the snapshot since which the company has held it when the store's
/// series (`situacao_fiscal_desde`) say so for the same standing.
pub(crate) fn standings_since(
    aggs: &crate::analyze::Aggregates,
    history: Option<&crate::analyze::Aggregates>,
) -> std::collections::BTreeMap<String, Standing> {
    use crate::analyze::cells::text;
    let mut all = standings(aggs);
    let Some(df) = history.and_then(|h| h.get("situacao_fiscal_desde")) else { return all };
    for i in 0..df.height() {
        let (Some(cnpj), Some(situacao), desde) =
            (text(df, "cnpj", i), text(df, "situacao_fiscal_estimada", i), text(df, "desde", i))
        else {
            continue;
        };
        if let Some(s) = all.get_mut(&cnpj).filter(|s| s.situacao == situacao) {
            s.desde = desde;
        }
    }
    all
}

/// Each company's exposure at each store snapshot (`AAAAMM`), oldest first, by CNPJ (digits).
pub(crate) type ExposureHistory = std::collections::BTreeMap<String, Vec<(String, Decimal)>>;

/// One snapshot's exposure, for the Markdown table under the chart.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HistoryPoint {
    pub snapshot: String,
    pub exposicao: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct DossierView {
    pub t: super::strings::Strings,
    pub lang: &'static str,
    pub demo: bool,
    pub source: String,
    pub generated_at: String,
    pub cnpj: String,
    pub razao_social: Option<String>,
    pub nome_fantasia: Option<String>,
    pub natureza_juridica: Coded,
    pub porte: Coded,
    pub capital_social: Option<String>,
    pub situacao_cadastral: Coded,
    pub data_situacao: Option<String>,
    pub inicio_atividade: Option<String>,
    pub endereco: Option<String>,
    pub municipio: Option<String>,
    pub uf: Option<String>,
    pub cnae: Coded,
    pub cnae_secao: Option<String>,
    pub simples: Option<String>,
    pub simples_desde: Option<String>,
    pub mei: Option<String>,
    pub estabelecimentos: Vec<Establishment>,
    pub socios: Vec<Partner>,
    pub obras: Vec<Work>,
    pub dividas: Vec<DebtCategory>,
    /// With a store: the exposure at each snapshot (a chart from two snapshots on).
    pub historico: Vec<HistoryPoint>,
    pub historico_grafico: Option<super::charts::LineChart>,
    /// Whether a store was read (no store: the section says where a history comes from).
    pub historico_consultado: bool,
    /// With a store: its changes over the snapshots, oldest first.
    pub linha_do_tempo: Vec<TimelineEvent>,
    /// Its records on the public lists read, in force first; `listas_lidas` false: none read.
    pub listas: Vec<super::view::SancoesRow>,
    pub listas_lidas: bool,
    /// Its ECF years in RFB's regime files, newest first; `regime_lido` false: none read.
    pub regime_anos: Vec<RegimeYear>,
    pub regime_lido: bool,
    /// The estimate the queries make from the active debts (`19_situacao_fiscal_por_retrato`).
    pub situacao_fiscal: Option<Standing>,
    pub inscricoes: usize,
    pub divida_total: String,
    /// Of `divida_total`, what it owes as principal and as co-responsible or jointly liable.
    pub divida_principal: String,
    pub divida_corresponsavel: String,
    pub parcelamentos: Vec<Plan>,
    pub parcelamentos_saldo: String,
    pub transacoes: Vec<Deal>,
    pub transacoes_saldo: String,
    pub exposicao_total: String,
    /// The periods its figures come from: the debts' quarter and the registry's month as this
    /// company's records carry them, the profile's `fontes` with their flags.
    pub fontes: super::view::Sources,
}

fn clean(s: &Option<String>) -> Option<String> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(String::from)
}

fn money(s: &Option<String>) -> Option<Decimal> {
    s.as_deref().and_then(|s| parse_brl_amount(s).ok().flatten())
}

/// A date as the report's language writes it; text the parsers cannot read is shown as sent.
fn date(s: &Option<String>, locale: Locale) -> Option<String> {
    let raw = clean(s)?;
    match parse_registry_date(&raw) {
        Ok(Some(d)) => Some(format_day(d, locale)),
        Ok(None) => None,
        Err(_) => Some(raw),
    }
}

fn coded(codes: &CodeTables, table: &str, code: &Option<String>) -> Coded {
    let code = clean(code);
    let name = code.as_deref().and_then(|c| codes.name(table, c)).map(String::from);
    Coded { code, name }
}

fn sum(values: impl Iterator<Item = Option<Decimal>>) -> Decimal {
    values.flatten().sum()
}

fn establishment(e: &Estabelecimento, codes: &CodeTables, locale: Locale) -> Establishment {
    Establishment {
        cnpj: clean(&e.cnpj_completo).unwrap_or_default(),
        kind: coded(codes, "identificador_matriz_filial", &e.identificador_matriz_filial),
        nome_fantasia: clean(&e.nome_fantasia),
        municipio: clean(&e.municipio)
            .map(|m| codes.name("municipio_rfb", &m).map(String::from).unwrap_or(m)),
        uf: clean(&e.uf),
        situacao: coded(codes, "situacao_cadastral", &e.situacao_cadastral),
        inicio: date(&e.data_inicio_atividade, locale),
    }
}

fn debt(d: &DividaPgfn, locale: Locale, strings: &Strings) -> Debt {
    let role = clean(&d.tipo_devedor).map(|t| crate::transform::parse::debtor_role(&t).map_err(|_| t));
    Debt {
        numero: clean(&d.numero_inscricao),
        papel: role.clone().map(|r| match r {
            Ok(role) => strings.get(&format!("dossie_papel_{}", role.to_lowercase())),
            Err(published) => published,
        }),
        // As the queries count it: only a stated principal is one.
        corresponsavel: !matches!(role, Some(Ok("PRINCIPAL"))),
        situacao: clean(&d.situacao_inscricao),
        ajuizada: clean(&d.indicador_ajuizado).is_some_and(|v| v.eq_ignore_ascii_case("SIM")),
        receita: clean(&d.receita_principal),
        inscricao: date(&d.data_inscricao, locale),
        valor: money(&d.valor_consolidado).map(|v| v.to_string()),
    }
}

/// The periods of one company's records: its debts' `dataset_trimester`, its profile's
/// `dataset_month` and `fontes` (`crate::periods`).
fn periods(r: &DossierRecords) -> Periodos {
    let mut seen = PeriodsSeen::new();
    let mut add = |table: &str, value: &Option<String>| {
        if let Some(v) = clean(value) {
            seen.entry(table.to_string()).or_default().insert(v);
        }
    };
    r.dividas
        .iter()
        .flat_map(|(_, rows)| rows)
        .for_each(|d| add(Table::DividasPgfn.name(), &d.dataset_trimester));
    if let Some(e) = &r.profile.empresa {
        add(Table::Empresas.name(), &e.dataset_month);
    }
    if let Some(e) = &r.profile.estabelecimento {
        add(Table::Empresas.name(), &e.dataset_month);
    }
    Periodos::of(&seen, &r.profile.fontes.clone().unwrap_or_default(), &[])
}

/// What every dossier of one rendering shares: code names, words, language, where the data
/// came from.
#[derive(Clone, Copy)]
pub(crate) struct Context<'a> {
    pub codes: &'a CodeTables,
    pub strings: &'a super::strings::Strings,
    pub locale: Locale,
    /// The service's URL; `None` for the embedded registry.
    pub source: Option<&'a str>,
    pub demo: bool,
}

/// The view of one company's dossier.
pub(crate) fn dossier_view(
    r: &DossierRecords,
    ctx: &Context<'_>,
    standing: Option<&Standing>,
    history: Option<&[(String, Decimal)]>,
) -> DossierView {
    let Context { codes, strings, locale, source, demo } = *ctx;
    let points = history.unwrap_or_default();
    let historico_grafico = (points.len() >= 2).then(|| {
        let months: Vec<String> = points.iter().map(|(s, _)| s.clone()).collect();
        let values = points.iter().map(|(_, v)| Some(*v)).collect();
        super::charts::line_chart(&months, &[(strings.get("exposicao_total"), values)])
    });
    let empresa = r.profile.empresa.clone().unwrap_or_default();
    let sede = r.profile.estabelecimento.clone().unwrap_or_default();
    let simples = r.profile.simples.clone().unwrap_or_default();
    let endereco = [&sede.tipo_logradouro, &sede.logradouro, &sede.numero, &sede.complemento, &sede.bairro]
        .iter()
        .filter_map(|p| clean(p))
        .collect::<Vec<_>>()
        .join(" ");
    let dividas: Vec<DebtCategory> = r
        .dividas
        .iter()
        .map(|(categoria, rows)| {
            let rows: Vec<Debt> = rows.iter().map(|d| debt(d, locale, strings)).collect();
            let value = |d: &Debt| d.valor.as_deref().and_then(|v| v.parse::<Decimal>().ok());
            DebtCategory {
                categoria: strings.get(&format!("dossie_categoria_{}", categoria.as_str())),
                total: sum(rows.iter().map(value)).to_string(),
                ajuizado: sum(rows.iter().filter(|d| d.ajuizada).map(value)).to_string(),
                rows,
            }
        })
        .collect();
    let divida_total: Decimal = dividas.iter().filter_map(|c| c.total.parse::<Decimal>().ok()).sum();
    let owed = |co_debtor: bool| {
        let rows = dividas.iter().flat_map(|c| &c.rows).filter(|d| d.corresponsavel == co_debtor);
        sum(rows.map(|d| d.valor.as_deref().and_then(|v| v.parse::<Decimal>().ok())))
    };
    let (divida_principal, divida_corresponsavel) = (owed(false), owed(true));
    let parcelamentos: Vec<Plan> = r
        .parcelamentos
        .iter()
        .map(|p| Plan {
            adesao: date(&p.adesao_deferimento, locale),
            parcelas: p.quantidade_parcelas,
            valor_parcelado: money(&p.valor_parcelado).map(|v| v.to_string()),
            saldo: money(&p.saldo_devedor).map(|v| v.to_string()),
        })
        .collect();
    let transacoes: Vec<Deal> = r
        .transacoes
        .iter()
        .map(|t| Deal {
            processo: clean(&t.processo),
            data: date(&t.data_negociacao, locale),
            divida_transacionada: money(&t.divida_transacionada).map(|v| v.to_string()),
            saldo: money(&t.saldo_devedor).map(|v| v.to_string()),
        })
        .collect();
    let parcelamentos_saldo = sum(r.parcelamentos.iter().map(|p| money(&p.saldo_devedor)));
    let transacoes_saldo = sum(r.transacoes.iter().map(|t| money(&t.saldo_devedor)));
    let cnae = coded(codes, "cnae", &sede.cnae_fiscal_principal);
    DossierView {
        t: strings.clone(),
        lang: if locale == Locale::PtBr { "pt-BR" } else { "en" },
        demo,
        // The embedded registry has no URL worth showing: its name in the reader's language.
        source: source.map_or_else(|| strings.get("fonte_embutida"), String::from),
        generated_at: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
        cnpj: r.cnpj.as_str().to_string(),
        razao_social: clean(&empresa.razao_social),
        nome_fantasia: clean(&sede.nome_fantasia),
        natureza_juridica: coded(codes, "natureza_juridica", &empresa.natureza_juridica),
        porte: coded(codes, "porte_empresa", &empresa.porte_empresa),
        capital_social: money(&empresa.capital_social_raw).map(|v| v.to_string()),
        situacao_cadastral: coded(codes, "situacao_cadastral", &sede.situacao_cadastral),
        data_situacao: date(&sede.data_situacao_cadastral, locale),
        inicio_atividade: date(&sede.data_inicio_atividade, locale),
        endereco: Some(endereco).filter(|e| !e.is_empty()),
        municipio: clean(&sede.municipio)
            .map(|m| codes.name("municipio_rfb", &m).map(String::from).unwrap_or(m)),
        uf: clean(&sede.uf),
        cnae_secao: cnae
            .code
            .as_deref()
            .and_then(cnae_section)
            .map(|(letter, name)| format!("{letter} — {name}")),
        cnae,
        simples: clean(&simples.opcao_pelo_simples),
        simples_desde: date(&simples.data_opcao_simples, locale),
        mei: clean(&simples.opcao_pelo_mei),
        estabelecimentos: r.estabelecimentos.iter().map(|e| establishment(e, codes, locale)).collect(),
        socios: r
            .socios
            .iter()
            .map(|s| Partner {
                nome: clean(&s.nome_socio_razao_social),
                documento: clean(&s.cnpj_cpf_socio),
                empresa: clean(&s.cnpj_cpf_socio).is_some_and(|d| crate::api::Cnpj::parse(&d).is_ok()),
                qualificacao: coded(codes, "qualificacao_socio", &s.qualificacao_socio),
                entrada: date(&s.data_entrada_sociedade, locale),
            })
            .collect(),
        obras: r
            .obras
            .iter()
            .map(|w| Work {
                cno: clean(&w.obra.cno),
                nome: clean(&w.obra.nome),
                situacao: clean(&w.obra.situacao),
                municipio: clean(&w.obra.nome_municipio),
                uf: clean(&w.obra.estado),
                inicio: date(&w.obra.data_inicio, locale),
                area_total: clean(&w.obra.area_total),
                unidade: clean(&w.obra.unidade_medida),
                cnaes: w.cnaes.iter().map(|c| coded(codes, "cnae", &c.cnae)).collect(),
                areas: w
                    .areas
                    .iter()
                    .map(|a| WorkArea {
                        tipo: clean(&a.tipo_area_raw),
                        categoria: clean(&a.categoria_raw),
                        destinacao: clean(&a.destinacao_raw),
                        metragem: clean(&a.metragem),
                    })
                    .collect(),
                vinculos: w
                    .vinculos
                    .iter()
                    .map(|v| WorkLink {
                        responsavel: clean(&v.ni_responsavel),
                        qualificacao: clean(&v.qualificacao_contribuinte),
                        inicio: date(&v.data_inicio, locale),
                        fim: date(&v.data_fim, locale),
                    })
                    .collect(),
            })
            .collect(),
        historico: points
            .iter()
            .map(|(snapshot, v)| HistoryPoint { snapshot: snapshot.clone(), exposicao: v.to_string() })
            .collect(),
        historico_grafico,
        historico_consultado: history.is_some(),
        linha_do_tempo: Vec::new(),
        listas: Vec::new(),
        listas_lidas: false,
        regime_anos: Vec::new(),
        regime_lido: false,
        situacao_fiscal: standing.cloned(),
        inscricoes: dividas.iter().map(|c| c.rows.len()).sum(),
        divida_total: divida_total.to_string(),
        divida_principal: divida_principal.to_string(),
        divida_corresponsavel: divida_corresponsavel.to_string(),
        dividas,
        parcelamentos,
        parcelamentos_saldo: parcelamentos_saldo.to_string(),
        transacoes,
        transacoes_saldo: transacoes_saldo.to_string(),
        exposicao_total: (divida_total + parcelamentos_saldo + transacoes_saldo).to_string(),
        fontes: super::view::sources(&periods(r), strings),
    }
}

/// Renders the dossiers of `records` into `out/dossies/<cnpj>.html` and `.md`; returns their
/// manifest entries. Templates are compiled before anything is written.
pub(crate) fn render_dossiers(
    records: &[DossierRecords],
    judged: &Judged,
    codes: &CodeTables,
    options: &super::ReportOptions,
    source: Option<&str>,
    demo: bool,
    out: &Path,
) -> Result<Vec<FileEntry>, ReportError> {
    if records.is_empty() {
        return Ok(Vec::new());
    }
    let mut templates = TemplateSet::load(options.templates.as_deref())?;
    // A templates folder copied before the dossiers existed renders them with the built-in pages.
    if !templates.has("dossie.html.hbs") && !templates.has("dossie.md.hbs") {
        templates = TemplateSet::builtin();
    }
    let engines = [
        ("dossie.html.hbs", "html", templates.engine("dossie.html.hbs", options.locale, false)?),
        ("dossie.md.hbs", "md", templates.engine("dossie.md.hbs", options.locale, true)?),
    ];
    let strings = templates.strings(options.locale)?;
    let ctx = Context { codes, strings: &strings, locale: options.locale, source, demo };
    let listas =
        judged.sancoes.as_ref().map(|df| super::view::sancoes::by_company(df, options.locale, &strings));
    let regimes = judged.regimes.as_ref().map(regimes_by_company);
    let mut entries = Vec::new();
    for r in records {
        let standing = judged.standings.get(r.cnpj.as_str());
        let history =
            judged.history.as_ref().map(|h| h.get(r.cnpj.as_str()).map(Vec::as_slice).unwrap_or_default());
        let mut view = dossier_view(r, &ctx, standing, history);
        view.linha_do_tempo =
            judged.timeline.as_ref().and_then(|t| t.get(r.cnpj.as_str())).cloned().unwrap_or_default();
        view.listas_lidas = listas.is_some();
        view.listas = listas.as_ref().and_then(|l| l.get(r.cnpj.as_str())).cloned().unwrap_or_default();
        view.regime_lido = regimes.is_some();
        view.regime_anos = regimes.as_ref().and_then(|m| m.get(r.cnpj.basico())).cloned().unwrap_or_default();
        for (main, ext, hb) in &engines {
            let text = crate::stack::deep(|| hb.render(main, &view)).map_err(|e| ReportError::Render {
                file: format!("{}/{main}", templates.origin),
                reason: e.to_string(),
            })?;
            let file = format!("{DOSSIER_DIR}/{}.{ext}", view.cnpj);
            let path = out.join(&file);
            crate::fsutil::write_atomic(&path, text.as_bytes())
                .map_err(|source| ReportError::Write { path, source })?;
            entries.push(FileEntry::of_content(&file, 0, text.as_bytes()));
        }
    }
    Ok(entries)
}
