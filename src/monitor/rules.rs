//! Watch rules: a TOML file an analyst edits (`--rules FILE`, example in `regras/exemplo.toml`)
//! and the alerts they raise over the changes since the previous snapshot.
//!
//! It owns reading and checking the file (every problem named with its file, line and fix,
//! before anything is fetched) and matching rules against the aggregates `mudancas` and
//! `variacao_exposicao` (and `sancoes`, for `lista_restritiva`: listas.rs). What counts as a
//! change is the SQL's; where alerts go is not decided here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use polars::prelude::DataFrame;
use rust_decimal::Decimal;
use serde::Deserialize;
use toml::Spanned;

use super::alerts::{Alert, Gatilho, Severidade};
use crate::analyze::Aggregates;
use crate::analyze::cells::{dec, float, text};
use crate::api::Cnpj;

/// A rules file that cannot be used: which file, where, what is wrong and how to fix it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RulesError {
    #[error("cannot read the rules file {path}: {source}; point --rules at a readable TOML file")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("rules file {path}, line {line}: {problem}\n  fix: {fix}")]
    Invalid { path: PathBuf, line: usize, problem: String, fix: String },
}

impl crate::exit::HasExitStatus for RulesError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        crate::exit::ExitStatus::BadInput
    }
}

/// What a rule watches for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RuleKind {
    /// A new debt inscription of at least `valor_minimo`: one the company owes as principal
    /// and, unless `somente_principal`, one it now owes as co-responsible or jointly liable.
    NovaInscricao,
    /// A company's exposure grew by at least `percentual_minimo` % (and `valor_minimo` R$).
    AumentoExposicao,
    /// The estimated tax standing got worse.
    RegularidadePiorou,
    /// The cadastral situation left ATIVA.
    SaiuDeAtiva,
    /// An inscription was filed in court.
    InscricaoAjuizada,
    /// A partner entered or left the company, or changed qualification.
    MudancaSocios,
    /// The head office's main or secondary CNAEs changed.
    MudancaCnae,
    /// The head office moved to another municipality, or its CEP or street address changed.
    MudancaEndereco,
    /// The share capital changed.
    MudancaCapital,
    /// Any change at all (for watchlists).
    QualquerMudanca,
    /// The company is on a public list with a sanction in force (`listas_publicas`, `vinculos`).
    ListaRestritiva,
}

impl RuleKind {
    const ALL: [RuleKind; 11] = [
        Self::NovaInscricao,
        Self::AumentoExposicao,
        Self::RegularidadePiorou,
        Self::SaiuDeAtiva,
        Self::InscricaoAjuizada,
        Self::MudancaSocios,
        Self::MudancaCnae,
        Self::MudancaEndereco,
        Self::MudancaCapital,
        Self::QualquerMudanca,
        Self::ListaRestritiva,
    ];

    /// The register rules: a change of the company's register that stays while the company
    /// keeps the value it changed to.
    pub(crate) fn is_register(self) -> bool {
        matches!(self, Self::MudancaCnae | Self::MudancaEndereco | Self::MudancaCapital)
    }

    /// The rules about one change of one record (a register field, a partner): their alert
    /// names the change's kind and follows the value it changed to.
    pub(crate) fn follows_a_change(self) -> bool {
        self.is_register() || self == Self::MudancaSocios
    }

    /// What one trigger of this kind is called, singular and plural, in the words of an update
    /// ("+3 inscrições").
    pub(crate) fn trigger_words(self) -> (&'static str, &'static str) {
        match self {
            Self::NovaInscricao => ("inscrição", "inscrições"),
            Self::InscricaoAjuizada => ("inscrição ajuizada", "inscrições ajuizadas"),
            Self::MudancaSocios => ("mudança de sócio", "mudanças de sócios"),
            Self::ListaRestritiva => ("sanção", "sanções"),
            _ => ("mudança", "mudanças"),
        }
    }

    /// What a trigger of this kind is about, beside its rule and company: the record a change
    /// names (for `qualquer_mudanca`, the change itself), or the exposure.
    pub(crate) fn subject(self, valores: &BTreeMap<String, serde_json::Value>) -> String {
        let value = |k: &str| valores.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_string();
        match self {
            Self::AumentoExposicao => "exposicao".into(),
            Self::QualquerMudanca => format!("{}|{}|{}", value("tabela"), value("chave"), value("mudanca")),
            // One record of one list: its document as listed and its start.
            Self::ListaRestritiva => {
                format!("{}|{}|{}", value("lista"), value("sancionado"), value("inicio"))
            }
            // A partner's entry and a later exit are two triggers; so are a new CEP and a new street.
            kind if kind.follows_a_change() => format!("{}|{}", value("mudanca"), value("chave")),
            _ => value("chave"),
        }
    }

    /// The kind a rules file (or the store's alerts table) names.
    pub(crate) fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::NovaInscricao => "nova_inscricao",
            Self::AumentoExposicao => "aumento_exposicao",
            Self::RegularidadePiorou => "regularidade_piorou",
            Self::SaiuDeAtiva => "saiu_de_ativa",
            Self::InscricaoAjuizada => "inscricao_ajuizada",
            Self::MudancaSocios => "mudanca_socios",
            Self::MudancaCnae => "mudanca_cnae",
            Self::MudancaEndereco => "mudanca_endereco",
            Self::MudancaCapital => "mudanca_capital",
            Self::QualquerMudanca => "qualquer_mudanca",
            Self::ListaRestritiva => "lista_restritiva",
        }
    }

    /// The `mudancas` kinds (as the SQL writes them) a rule of this kind matches, if it reads
    /// `mudancas` by kind.
    fn change_kinds(self, only_as_principal: bool) -> Option<&'static [&'static str]> {
        match self {
            Self::NovaInscricao if only_as_principal => Some(&["nova inscrição"]),
            Self::NovaInscricao => Some(&["nova inscrição", "nova corresponsabilidade"]),
            Self::RegularidadePiorou => Some(&["situação fiscal estimada piorou"]),
            Self::SaiuDeAtiva => Some(&[SITUATION]),
            Self::InscricaoAjuizada => Some(&["inscrição ajuizada"]),
            Self::MudancaSocios => Some(&[PARTNER_ENTERED, PARTNER_LEFT, PARTNER_REQUALIFIED]),
            Self::MudancaCnae => Some(&[MAIN_CNAE, SECONDARY_CNAES]),
            Self::MudancaEndereco => Some(&[MUNICIPALITY, CEP, STREET]),
            Self::MudancaCapital => Some(&[CAPITAL]),
            Self::AumentoExposicao | Self::QualquerMudanca | Self::ListaRestritiva => None,
        }
    }
}

/// The `mudancas` kinds of a partner entering, leaving and changing qualification
/// (`mudanca_socios`).
pub(crate) const PARTNER_ENTERED: &str = "sócio entrou";
pub(crate) const PARTNER_LEFT: &str = "sócio saiu";
pub(crate) const PARTNER_REQUALIFIED: &str = "qualificação do sócio alterada";
/// The `mudancas` kind of a new cadastral situation (`saiu_de_ativa`).
pub(crate) const SITUATION: &str = "situação cadastral alterada";
/// The `mudancas` kinds of the register rules (`mudanca_cnae`, `mudanca_endereco`,
/// `mudanca_capital`).
pub(crate) const MAIN_CNAE: &str = "CNAE principal alterado";
pub(crate) const SECONDARY_CNAES: &str = "CNAEs secundários alterados";
pub(crate) const MUNICIPALITY: &str = "sede mudou de município";
pub(crate) const CEP: &str = "CEP da sede alterado";
pub(crate) const STREET: &str = "endereço da sede alterado";
pub(crate) const CAPITAL: &str = "capital social alterado";

/// One checked rule.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rule {
    pub nome: String,
    pub kind: RuleKind,
    /// R$: the least new inscription (`nova_inscricao`) or exposure increase (`aumento_exposicao`).
    pub valor_minimo: Option<Decimal>,
    /// %: the least exposure growth (`aumento_exposicao`).
    pub percentual_minimo: Option<f64>,
    /// Only the companies of this watchlist (the rule's `lista`).
    pub watchlist: Option<String>,
    /// `nova_inscricao` only: only inscriptions the company owes as principal, not the ones it
    /// comes to owe as co-responsible or jointly liable for another debtor.
    pub somente_principal: bool,
    /// How much its alerts matter (`media` unless the file says).
    pub severidade: Severidade,
    /// Whether an open alert that takes new triggers is sent again (`reenviar_atualizacoes`).
    pub reenviar_atualizacoes: bool,
    /// `lista_restritiva` only: the public lists and the links it watches (listas.rs).
    pub listas_publicas: BTreeSet<String>,
    pub vinculos: BTreeSet<String>,
}

/// The checked rules file: its rules and its watchlists (label -> CNPJs).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Rules {
    pub rules: Vec<Rule>,
    pub watchlists: BTreeMap<String, BTreeSet<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileShape {
    #[serde(default)]
    regra: Vec<Spanned<RuleShape>>,
    /// The watchlists, `[[lista]]` in the file.
    #[serde(default, rename = "lista")]
    watchlists: Vec<Spanned<WatchlistShape>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleShape {
    nome: Spanned<String>,
    tipo: Spanned<String>,
    valor_minimo: Option<Spanned<toml::Value>>,
    percentual_minimo: Option<Spanned<toml::Value>>,
    #[serde(rename = "lista")]
    watchlist: Option<Spanned<String>>,
    somente_principal: Option<Spanned<bool>>,
    severidade: Option<Spanned<String>>,
    reenviar_atualizacoes: Option<bool>,
    listas_publicas: Option<Spanned<Vec<String>>>,
    vinculos: Option<Spanned<Vec<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WatchlistShape {
    rotulo: Spanned<String>,
    cnpjs: Vec<Spanned<String>>,
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|b| **b == b'\n').count() + 1
}

/// A number a rule may carry: its name, the kinds that take it, how it is read and written.
struct NumberField<T> {
    name: &'static str,
    taken_by: &'static [RuleKind],
    read: fn(&toml::Value) -> Option<T>,
    form: &'static str,
}

const VALOR_MINIMO: NumberField<Decimal> = NumberField {
    name: "valor_minimo",
    taken_by: &[RuleKind::NovaInscricao, RuleKind::AumentoExposicao],
    read: money_of,
    form: "a non-negative amount with at most two decimals, e.g. 150000 or \"150000.50\"",
};

const PERCENTUAL_MINIMO: NumberField<f64> = NumberField {
    name: "percentual_minimo",
    taken_by: &[RuleKind::AumentoExposicao],
    read: percent_of,
    form: "a non-negative number, e.g. 20 for 20%",
};

/// Checks the parts of one rules file, naming the file and line of each problem.
pub(super) struct Checker<'a> {
    text: &'a str,
    path: &'a Path,
}

impl Checker<'_> {
    pub(super) fn invalid(&self, offset: usize, problem: String, fix: &str) -> RulesError {
        RulesError::Invalid {
            path: self.path.to_path_buf(),
            line: line_of(self.text, offset),
            problem,
            fix: fix.to_string(),
        }
    }

    /// A watched list: its label and its CNPJs, each checked.
    fn list(&self, list: &WatchlistShape) -> Result<(String, BTreeSet<String>), RulesError> {
        let label = list.rotulo.get_ref().trim().to_string();
        if label.is_empty() {
            return Err(self.invalid(
                list.rotulo.span().start,
                "a list has an empty rotulo".into(),
                "name the list",
            ));
        }
        let cnpjs = list
            .cnpjs
            .iter()
            .map(|c| {
                Cnpj::parse(c.get_ref()).map(|cnpj| cnpj.as_str().to_string()).map_err(|e| {
                    let fix = "write the 14-digit CNPJ, with or without punctuation";
                    self.invalid(c.span().start, format!("list {label:?}: {e}"), fix)
                })
            })
            .collect::<Result<_, _>>()?;
        Ok((label, cnpjs))
    }

    /// An optional number of a rule, read as `field` says; refused on a kind that takes none.
    fn number<T>(
        &self,
        (nome, kind): (&str, RuleKind),
        value: &Option<Spanned<toml::Value>>,
        field: &NumberField<T>,
    ) -> Result<Option<T>, RulesError> {
        let Some(v) = value else { return Ok(None) };
        let name = field.name;
        if !field.taken_by.contains(&kind) {
            let taken_by = field.taken_by.iter().map(|k| k.name()).collect::<Vec<_>>().join(" or ");
            let problem = format!("rule {nome:?}: a {} rule takes no {name}", kind.name());
            return Err(self.invalid(
                v.span().start,
                problem,
                &format!("remove {name}, or use tipo {taken_by}"),
            ));
        }
        (field.read)(v.get_ref()).map(Some).ok_or_else(|| {
            let problem = format!("rule {nome:?}: {name} {} is not {}", v.get_ref(), field.form);
            self.invalid(v.span().start, problem, &format!("write {}", field.form))
        })
    }

    /// One rule, checked against the kinds and the watchlists.
    fn rule(
        &self,
        r: &RuleShape,
        watchlists: &BTreeMap<String, BTreeSet<String>>,
    ) -> Result<Rule, RulesError> {
        let nome = r.nome.get_ref().trim().to_string();
        if nome.is_empty() {
            return Err(self.invalid(
                r.nome.span().start,
                "a rule has an empty nome".into(),
                "name the rule",
            ));
        }
        let kind =
            RuleKind::ALL.into_iter().find(|k| k.name() == r.tipo.get_ref().trim()).ok_or_else(|| {
                let kinds = RuleKind::ALL.map(RuleKind::name).join(", ");
                let problem = format!("rule {nome:?}: tipo {:?} is not a kind of rule", r.tipo.get_ref());
                self.invalid(r.tipo.span().start, problem, &format!("use one of {kinds}"))
            })?;
        let this = (nome.as_str(), kind);
        let valor_minimo = self.number(this, &r.valor_minimo, &VALOR_MINIMO)?;
        let percentual_minimo = self.number(this, &r.percentual_minimo, &PERCENTUAL_MINIMO)?;
        if kind == RuleKind::AumentoExposicao && percentual_minimo.is_none() {
            return Err(self.invalid(
                r.tipo.span().start,
                format!("rule {nome:?}: an aumento_exposicao rule needs percentual_minimo"),
                "add e.g. `percentual_minimo = 20` (alert when exposure grows 20% or more)",
            ));
        }
        let watchlist = match &r.watchlist {
            None => None,
            Some(l) if watchlists.contains_key(l.get_ref().trim()) => Some(l.get_ref().trim().to_string()),
            Some(l) => {
                let labels = watchlists.keys().cloned().collect::<Vec<_>>().join(", ");
                return Err(self.invalid(
                    l.span().start,
                    format!("rule {nome:?}: no [[lista]] is labelled {:?}", l.get_ref()),
                    &format!("use one of the watchlists' rotulo ({labels}) or add that list"),
                ));
            }
        };
        if let Some(flag) = &r.somente_principal
            && kind != RuleKind::NovaInscricao
        {
            return Err(self.invalid(
                flag.span().start,
                format!("rule {nome:?}: a {} rule takes no somente_principal", kind.name()),
                "remove somente_principal, or use tipo nova_inscricao",
            ));
        }
        let somente_principal = r.somente_principal.as_ref().is_some_and(|f| *f.get_ref());
        let (listas_publicas, vinculos) = self.listas_and_links(this, &r.listas_publicas, &r.vinculos)?;
        let severidade = match &r.severidade {
            None => Severidade::Media,
            Some(s) => Severidade::parse(s.get_ref().trim()).ok_or_else(|| {
                self.invalid(
                    s.span().start,
                    format!("rule {nome:?}: severidade {:?} is not one of alta, media, baixa", s.get_ref()),
                    "write severidade = \"alta\", \"media\" or \"baixa\" (or leave it out: media)",
                )
            })?,
        };
        Ok(Rule {
            nome,
            kind,
            valor_minimo,
            percentual_minimo,
            watchlist,
            somente_principal,
            severidade,
            reenviar_atualizacoes: r.reenviar_atualizacoes.unwrap_or(false),
            listas_publicas,
            vinculos,
        })
    }
}

/// An amount in R$ as the file writes it: `150000`, `150000.50` or `"150000.50"`. A TOML float
/// is read through its shortest decimal text, which is the number as written.
fn money_of(v: &toml::Value) -> Option<Decimal> {
    let d = match v {
        toml::Value::Integer(i) => Some(Decimal::from(*i)),
        toml::Value::Float(f) if f.is_finite() => Decimal::from_str(&f.to_string()).ok(),
        toml::Value::String(s) => Decimal::from_str(s.trim()).ok(),
        _ => None,
    }?;
    (d >= Decimal::ZERO && d.scale() <= 2).then_some(d)
}

fn percent_of(v: &toml::Value) -> Option<f64> {
    let p = match v {
        toml::Value::Integer(i) => *i as f64,
        toml::Value::Float(f) => *f,
        toml::Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    (p.is_finite() && p >= 0.0).then_some(p)
}

impl Rules {
    /// Reads and checks `path`.
    pub(crate) fn load(path: &Path) -> Result<Self, RulesError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| RulesError::Read { path: path.to_path_buf(), source })?;
        Self::parse(&text, path)
    }

    /// Checks the text of a rules file (`path` names it in messages).
    pub(crate) fn parse(text: &str, path: &Path) -> Result<Self, RulesError> {
        let check = Checker { text, path };
        let shape: FileShape = toml::from_str(text).map_err(|e| {
            check.invalid(
                e.span().map_or(0, |s| s.start),
                e.message().to_string(),
                "write `[[regra]]` tables (nome, tipo, and valor_minimo, percentual_minimo or lista where the \
                 kind takes them) and `[[lista]]` tables (rotulo, cnpjs) as in regras/exemplo.toml",
            )
        })?;
        let mut watchlists: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for list in &shape.watchlists {
            let (label, cnpjs) = check.list(list.get_ref())?;
            if watchlists.insert(label.clone(), cnpjs).is_some() {
                let at = list.get_ref().rotulo.span().start;
                return Err(check.invalid(
                    at,
                    format!("two watchlists are labelled {label:?}"),
                    "give each [[lista]] its own rotulo",
                ));
            }
        }
        let rules = shape
            .regra
            .iter()
            .map(|r| check.rule(r.get_ref(), &watchlists))
            .collect::<Result<Vec<_>, _>>()?;
        // An alert is known by its rule's nome: two rules of one nome would merge their alerts.
        let mut named = BTreeSet::new();
        for (rule, shape) in rules.iter().zip(&shape.regra) {
            if !named.insert(rule.nome.as_str()) {
                return Err(check.invalid(
                    shape.get_ref().nome.span().start,
                    format!("two rules are named {:?}", rule.nome),
                    "give each [[regra]] its own nome",
                ));
            }
        }
        if rules.is_empty() {
            return Err(check.invalid(
                0,
                "the file holds no [[regra]]".into(),
                "add at least one rule, as in regras/exemplo.toml",
            ));
        }
        Ok(Self { rules, watchlists })
    }

    /// The labels of the watchlists holding `cnpj`.
    fn watchlists_of(&self, cnpj: &str) -> Vec<String> {
        self.watchlists.iter().filter(|(_, c)| c.contains(cnpj)).map(|(l, _)| l.clone()).collect()
    }

    /// Whether `rule` applies to `cnpj`.
    pub(crate) fn covers(&self, rule: &Rule, cnpj: &str) -> bool {
        rule.watchlist.as_ref().is_none_or(|l| self.watchlists.get(l).is_some_and(|c| c.contains(cnpj)))
    }

    /// The alerts the rules raise over this run's changes: one per rule and company, holding
    /// every change (or the exposure) that set it off, in rule order, then company.
    pub(crate) fn evaluate(&self, aggregates: &Aggregates) -> Vec<Alert> {
        let mut alerts = Vec::new();
        for rule in &self.rules {
            let found = match rule.kind {
                RuleKind::AumentoExposicao => aggregates
                    .get("variacao_exposicao")
                    .map(|df| self.exposure_triggers(rule, df))
                    .unwrap_or_default(),
                RuleKind::ListaRestritiva => self.sancoes_triggers(rule, aggregates),
                _ => aggregates.get("mudancas").map(|df| self.change_triggers(rule, df)).unwrap_or_default(),
            };
            // One alert per company: its triggers folded under it, one per subject.
            let mut by_company: BTreeMap<String, Alert> = BTreeMap::new();
            for (alert, trigger) in found {
                let held = by_company.entry(alert.cnpj.clone()).or_insert(alert);
                if !held.gatilhos.iter().any(|g| g.assunto == trigger.assunto) {
                    held.gatilhos.push(trigger);
                }
            }
            for mut a in by_company.into_values() {
                a.gatilhos.sort_by(|x, y| x.assunto.cmp(&y.assunto));
                alerts.push(a);
            }
        }
        alerts
    }

    /// The alert of `rule` for row `i`'s company, with no trigger yet; `None` when the rule's
    /// list leaves the company out.
    pub(super) fn alert(&self, rule: &Rule, df: &DataFrame, i: usize) -> Option<Alert> {
        let cnpj = text(df, "cnpj", i)?;
        self.covers(rule, &cnpj).then(|| Alert {
            regra: rule.nome.clone(),
            tipo: rule.kind.name(),
            severidade: rule.severidade,
            watchlists: self.watchlists_of(&cnpj),
            razao_social: text(df, "razao_social", i),
            snapshot: text(df, "snapshot", i),
            snapshot_anterior: text(df, "snapshot_anterior", i),
            cnpj,
            gatilhos: Vec::new(),
        })
    }

    fn change_triggers(&self, rule: &Rule, df: &DataFrame) -> Vec<(Alert, Gatilho)> {
        let mut out = Vec::new();
        for i in 0..df.height() {
            let kind = text(df, "mudanca", i).unwrap_or_default();
            if rule.kind.change_kinds(rule.somente_principal).is_some_and(|ks| !ks.contains(&kind.as_str())) {
                continue;
            }
            let (before, after) = (text(df, "valor_anterior", i), text(df, "valor_novo", i));
            let variacao = dec(df, "variacao", i);
            let matches = match rule.kind {
                RuleKind::NovaInscricao => {
                    variacao.is_some_and(|v| v >= rule.valor_minimo.unwrap_or(Decimal::ZERO))
                }
                RuleKind::SaiuDeAtiva => is_ativa(before.as_deref()) && !is_ativa(after.as_deref()),
                _ => true,
            };
            if !matches {
                continue;
            }
            let Some(a) = self.alert(rule, df, i) else { continue };
            let mut valores = BTreeMap::new();
            valores.insert("mudanca".to_string(), kind.into());
            for (k, v) in [("tabela", text(df, "tabela", i)), ("chave", text(df, "chave", i))] {
                valores.insert(k.to_string(), v.into());
            }
            valores.insert("valor_anterior".into(), before.into());
            valores.insert("valor_novo".into(), after.into());
            let trigger = Gatilho::new(
                rule.kind.subject(&valores),
                valores,
                variacao.map(|d| d.to_string()),
                text(df, "data_evento", i),
                a.snapshot.as_deref().unwrap_or_default(),
            );
            out.push((a, trigger));
        }
        out
    }

    fn exposure_triggers(&self, rule: &Rule, df: &DataFrame) -> Vec<(Alert, Gatilho)> {
        let mut out = Vec::new();
        for i in 0..df.height() {
            let Some(variacao) = dec(df, "variacao", i) else { continue };
            let pct = float(df, "variacao_percentual", i);
            // From nothing owed to something is growth beyond any percentage.
            let grew_enough = match pct {
                Some(p) => p >= rule.percentual_minimo.unwrap_or(0.0),
                None => true,
            };
            if variacao <= Decimal::ZERO
                || !grew_enough
                || variacao < rule.valor_minimo.unwrap_or(Decimal::ZERO)
            {
                continue;
            }
            let Some(a) = self.alert(rule, df, i) else { continue };
            let mut valores = BTreeMap::new();
            for k in ["exposicao_anterior", "exposicao_atual"] {
                valores.insert(k.to_string(), dec(df, k, i).map(|d| d.to_string()).into());
            }
            valores.insert("variacao_percentual".into(), pct.map(|p| (p * 100.0).round() / 100.0).into());
            let snapshot = a.snapshot.clone().unwrap_or_default();
            out.push((
                a,
                Gatilho::new(
                    rule.kind.subject(&valores),
                    valores,
                    Some(variacao.to_string()),
                    None,
                    &snapshot,
                ),
            ));
        }
        out
    }
}

/// Whether a `situacao_cadastral` value is ATIVA: the code `02` (as typed) or the word, with or
/// without the reason `mudancas` shows after it (`02 (motivo 00)`).
pub(super) fn is_ativa(v: Option<&str>) -> bool {
    v.and_then(|v| v.split_whitespace().next())
        .is_some_and(|v| v == "02" || v == "2" || v.eq_ignore_ascii_case("ATIVA"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Rules, RulesError> {
        Rules::parse(text, Path::new("regras.toml"))
    }

    #[test]
    fn ativa_is_read_with_or_without_its_reason() {
        assert!(is_ativa(Some("02")) && is_ativa(Some(" ATIVA ")) && is_ativa(Some("02 (motivo 12)")));
        assert!(!is_ativa(Some("04 (motivo 63)")) && !is_ativa(Some("08")) && !is_ativa(None));
    }

    #[test]
    fn the_example_file_is_valid_and_has_every_kind() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("regras/exemplo.toml");
        let rules = Rules::load(&path).unwrap();
        for kind in RuleKind::ALL {
            assert!(rules.rules.iter().any(|r| r.kind == kind), "the example lacks {}", kind.name());
        }
        for severity in Severidade::ALL {
            assert!(rules.rules.iter().any(|r| r.severidade == severity), "no {} rule", severity.name());
        }
        assert!(!rules.watchlists.is_empty());
    }

    #[test]
    fn amounts_are_exact_and_problems_name_the_line_and_the_fix() {
        let ok =
            parse("[[regra]]\nnome = \"x\"\ntipo = \"nova_inscricao\"\nvalor_minimo = 100000.10\n").unwrap();
        assert_eq!(ok.rules[0].valor_minimo, Some(Decimal::new(10_000_010, 2)));
        assert_eq!((ok.rules[0].severidade, ok.rules[0].reenviar_atualizacoes), (Severidade::Media, false));
        let loud = parse(
            "[[regra]]\nnome = \"x\"\ntipo = \"saiu_de_ativa\"\nseveridade = \"alta\"\nreenviar_atualizacoes = true\n",
        )
        .unwrap();
        assert_eq!((loud.rules[0].severidade, loud.rules[0].reenviar_atualizacoes), (Severidade::Alta, true));
        let cases = [
            ("[[regra]]\nnome = \"x\"\ntipo = \"nova\"\n", 3, "use one of nova_inscricao"),
            (
                "[[regra]]\nnome = \"x\"\ntipo = \"nova_inscricao\"\nvalor_minimo = \"10,5\"\n",
                4,
                "at most two decimals",
            ),
            ("[[regra]]\nnome = \"x\"\ntipo = \"aumento_exposicao\"\n", 3, "percentual_minimo = 20"),
            ("[[regra]]\nnome = \"x\"\ntipo = \"regularidade_piorou\"\nlista = \"y\"\n", 4, "add that list"),
            ("[[lista]]\nrotulo = \"a\"\ncnpjs = [\"11222333000180\"]\n", 3, "14-digit CNPJ"),
            ("[[regra]]\nnome = \"x\"\ntipo = \"saiu_de_ativa\"\nlimite = 3\n", 4, "regras/exemplo.toml"),
            ("[[regra]\n", 1, "regras/exemplo.toml"),
            ("[[regra]]\nnome = \"x\"\ntipo = \"saiu_de_ativa\"\nseveridade = \"urgente\"\n", 4, "\"baixa\""),
            (
                "[[regra]]\nnome = \"x\"\ntipo = \"saiu_de_ativa\"\n[[regra]]\nnome = \" x\"\ntipo = \"nova_inscricao\"\n",
                5,
                "its own nome",
            ),
        ];
        for (text, line, fix) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(&format!("regras.toml, line {line}:")), "{e}");
            assert!(e.contains(fix), "{e}");
        }
    }
}
