//! An alert: one watch rule holding for one company, with the triggers that set it off (the
//! changes, inscriptions or exposure, each with its amount and date). With where it stands
//! (`lifecycle`), written one JSON object per line to `alertas.jsonl`, shown in the report and
//! listed in the webhook's message, ranked by severity and then by the money at stake.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// How much a rule's alerts matter (`severidade` in the rules file). Ordered from the most
/// severe: `Alta < Media < Baixa`, so a sort puts the most severe first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severidade {
    Alta,
    #[default]
    Media,
    Baixa,
}

impl Severidade {
    pub const ALL: [Severidade; 3] = [Self::Alta, Self::Media, Self::Baixa];

    pub fn name(self) -> &'static str {
        match self {
            Self::Alta => "alta",
            Self::Media => "media",
            Self::Baixa => "baixa",
        }
    }

    /// The severity a rules file, a flag or a stored alert names (`média` read as `media`).
    pub fn parse(s: &str) -> Option<Self> {
        let s = if s == "média" { "media" } else { s };
        Self::ALL.into_iter().find(|v| v.name() == s)
    }

    /// Whether this severity is `at_least` (`alta` is at least `media`).
    pub fn at_least(self, at_least: Severidade) -> bool {
        self <= at_least
    }
}

/// One thing that set an alert off: a change of `mudancas` (its kind, record, values) or the
/// exposure's growth. Money is exact decimal text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gatilho {
    /// What it is about, within its alert: the inscription, the record and the change's kind,
    /// or `exposicao`. An alert holds one trigger per subject.
    pub assunto: String,
    /// Its amount in R$: the inscription's value, the change to the exposure.
    pub valor: Option<String>,
    /// The date the files give the event (`data_evento`, AAAA-MM-DD), when they give one.
    pub data: Option<String>,
    /// The snapshot (AAAAMM) it first set the alert off.
    pub desde: String,
    /// The rest of what matched: the change (`mudanca`, `tabela`, `chave`, `valor_anterior`,
    /// `valor_novo`) or the exposure (`exposicao_anterior`, `exposicao_atual`,
    /// `variacao_percentual`); what a later run judges the alert on.
    pub valores: BTreeMap<String, serde_json::Value>,
}

impl Gatilho {
    /// A trigger about `assunto` (`RuleKind::subject`), first seen at `snapshot`.
    pub fn new(
        assunto: String,
        valores: BTreeMap<String, serde_json::Value>,
        valor: Option<String>,
        data: Option<String>,
        snapshot: &str,
    ) -> Self {
        Self { assunto, valor, data, desde: snapshot.to_string(), valores }
    }

    /// A text value of `valores`.
    pub fn value(&self, key: &str) -> Option<&str> {
        self.valores.get(key).and_then(|v| v.as_str())
    }

    /// Its amount in R$ (zero when it has none).
    pub fn amount(&self) -> Decimal {
        self.valor.as_deref().and_then(|v| v.parse().ok()).unwrap_or_default()
    }
}

/// One rule holding for one company: its identity is the rule (`regra`) and the company.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alert {
    /// The rule's `nome`.
    pub regra: String,
    /// The rule's kind (`nova_inscricao`, ...).
    pub tipo: &'static str,
    /// The rule's severity.
    pub severidade: Severidade,
    pub cnpj: String,
    pub razao_social: Option<String>,
    pub snapshot: Option<String>,
    pub snapshot_anterior: Option<String>,
    /// The watchlists (their `rotulo`) holding the company; `listas` in the alert's JSON and
    /// the store's alert table, as consumers have read it since the first alerts.
    #[serde(rename = "listas")]
    pub watchlists: Vec<String>,
    /// What sets it off in this snapshot, one per subject, in the subjects' order.
    pub gatilhos: Vec<Gatilho>,
}

impl Alert {
    /// The money at stake: the sum of its triggers' amounts, each counted whatever its sign.
    pub fn at_stake(&self) -> Decimal {
        self.gatilhos.iter().map(|g| g.amount().abs()).sum()
    }

    /// The identity of the alert: its rule and its company.
    pub fn identity(&self) -> (String, String) {
        (self.regra.clone(), self.cnpj.clone())
    }
}

/// How many alerts each rule raised, by rule name.
pub(crate) fn count_by_rule<'a>(alerts: impl IntoIterator<Item = &'a Alert>) -> BTreeMap<&'a str, usize> {
    let mut counts = BTreeMap::new();
    for a in alerts {
        *counts.entry(a.regra.as_str()).or_default() += 1;
    }
    counts
}

/// How many alerts are of each severity, by its name.
pub(crate) fn count_by_severity<'a>(
    alerts: impl IntoIterator<Item = &'a Alert>,
) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for a in alerts {
        *counts.entry(a.severidade.name()).or_default() += 1;
    }
    counts
}

/// The alerts (with where each stands) as JSON Lines.
pub(crate) fn to_jsonl<T: Serialize>(alerts: &[T]) -> String {
    let mut out = String::new();
    for a in alerts {
        // An Alert holds strings, numbers and maps of them: it always serialises.
        if let Ok(line) = serde_json::to_string(a) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}
