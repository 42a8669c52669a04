//! Alerts with a lifecycle. An alert has an identity (its rule, its company and its subject: the
//! inscription, the record or the exposure it is about); it is new the run its rule first fires,
//! stays open (not fired nor sent again) while its condition holds, and is resolved the run the
//! condition no longer holds. The store keeps the alerts of each snapshot (`alertas`), so the
//! next run knows which are open.
//!
//! This module owns what an alert is across runs: its state, its identity, and how the store
//! keeps it. Judging a run's alerts against the new snapshot is `judge`'s: each rule kind
//! fires on a change (`mudancas`, `variacao_exposicao`), and a state of the new snapshot keeps
//! it open. A company that left the portfolio resolves its alerts, and so does a rule taken out
//! of the file. A run without rules carries the open alerts as they are: it cannot judge them.

use std::collections::{BTreeMap, BTreeSet};

use polars::prelude::*;
use serde::Serialize;

use super::alerts::Alert;
use super::rules::RuleKind;

/// Where an alert stands in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Estado {
    /// Fired for the first time (or again after it was resolved): sent.
    Nova,
    /// Fired earlier and its condition still holds: not sent again.
    Aberta,
    /// Open until the run before, and its condition no longer holds: sent.
    Resolvida,
}

impl Estado {
    pub fn name(self) -> &'static str {
        match self {
            Self::Nova => "nova",
            Self::Aberta => "aberta",
            Self::Resolvida => "resolvida",
        }
    }

    pub(super) fn parse(s: &str) -> Option<Self> {
        [Self::Nova, Self::Aberta, Self::Resolvida].into_iter().find(|e| e.name() == s)
    }

    /// Whether the webhook carries alerts in this state.
    pub fn is_sent(self) -> bool {
        self != Self::Aberta
    }
}

/// An alert in a run: what matched when it opened, and where it stands now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrackedAlert {
    #[serde(flatten)]
    pub alerta: Alert,
    pub estado: Estado,
    /// With `regra` and `cnpj`, the alert's identity.
    pub assunto: String,
    /// The snapshot (AAAAMM) the alert opened.
    pub aberta_em: String,
    /// The snapshot it was resolved, when it was.
    pub resolvida_em: Option<String>,
    /// Why it was resolved, in words an analyst reads.
    pub motivo: Option<String>,
    /// Judged by the run that wrote it, and sent then if at all: a re-render (`report --from`)
    /// carries it as that run left it and does not send it again (`rerender`).
    #[serde(skip)]
    pub carried_from_run: bool,
}

impl TrackedAlert {
    pub(super) fn identity(&self) -> (String, String, String) {
        (self.alerta.regra.clone(), self.alerta.cnpj.clone(), self.assunto.clone())
    }
}

/// What an alert is about, beside its rule and company: the record a change names (for
/// `qualquer_mudanca`, the change itself), or the exposure.
pub fn subject(alert: &Alert) -> String {
    let value = |k: &str| alert.valores.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_string();
    match RuleKind::parse(alert.tipo) {
        Some(RuleKind::AumentoExposicao) => "exposicao".into(),
        Some(RuleKind::QualquerMudanca) => {
            format!("{}|{}|{}", value("tabela"), value("chave"), value("mudanca"))
        }
        // A partner's entry and a later exit are two alerts; so are a new CEP and a new street.
        Some(kind) if kind.follows_a_change() => format!("{}|{}", value("mudanca"), value("chave")),
        _ => value("chave"),
    }
}

/// Every fired alert as new: a run with no alerts of the last snapshot to compare with (no store,
/// or one whose run failed tasks and commits nothing).
pub fn all_new(fired: Vec<Alert>, snapshot: &str) -> Vec<TrackedAlert> {
    dedupe(fired).into_iter().map(|a| opened(a, snapshot)).collect()
}

pub(super) fn opened(alerta: Alert, snapshot: &str) -> TrackedAlert {
    TrackedAlert {
        assunto: subject(&alerta),
        alerta,
        estado: Estado::Nova,
        aberta_em: snapshot.to_string(),
        resolvida_em: None,
        motivo: None,
        carried_from_run: false,
    }
}

/// One alert per identity (a rule may match one record twice in a run: the first is kept).
pub(super) fn dedupe(fired: Vec<Alert>) -> Vec<Alert> {
    let mut seen = BTreeSet::new();
    fired.into_iter().filter(|a| seen.insert((a.regra.clone(), a.cnpj.clone(), subject(a)))).collect()
}

/// The order alerts are listed in: by state, then rule, company and subject.
pub(super) fn in_order(alerts: &mut [TrackedAlert]) {
    alerts.sort_by(|a, b| {
        (a.estado, &a.alerta.regra, &a.alerta.cnpj, &a.assunto).cmp(&(
            b.estado,
            &b.alerta.regra,
            &b.alerta.cnpj,
            &b.assunto,
        ))
    });
}

/// The subject of an alert read back: as stored, but for the register rules, whose subject
/// names the change's kind since the CEP and the street were followed (a store written before
/// named only the company).
pub(super) fn read_subject(alerta: &Alert, stored: String) -> String {
    if RuleKind::parse(alerta.tipo).is_some_and(RuleKind::is_register) { subject(alerta) } else { stored }
}

/// A column as optional strings (whatever its type).
pub(super) fn strings(df: &DataFrame, name: &str) -> PolarsResult<Vec<Option<String>>> {
    let c = df.column(name)?.cast(&DataType::String)?;
    Ok(c.str()?.iter().map(|v| v.map(str::to_string)).collect())
}

/// The store table's columns, besides `snapshot` (the store sets it).
const COLUMNS: [&str; 11] = [
    "regra",
    "tipo",
    "cnpj",
    "razao_social",
    "assunto",
    "estado",
    "aberta_em",
    "resolvida_em",
    "motivo",
    "listas",
    "valores",
];

/// The alerts as the store keeps them (lists and values as JSON text).
pub fn to_frame(alerts: &[TrackedAlert]) -> PolarsResult<DataFrame> {
    let texts: [Vec<Option<String>>; 11] = [
        alerts.iter().map(|a| Some(a.alerta.regra.clone())).collect(),
        alerts.iter().map(|a| Some(a.alerta.tipo.to_string())).collect(),
        alerts.iter().map(|a| Some(a.alerta.cnpj.clone())).collect(),
        alerts.iter().map(|a| a.alerta.razao_social.clone()).collect(),
        alerts.iter().map(|a| Some(a.assunto.clone())).collect(),
        alerts.iter().map(|a| Some(a.estado.name().to_string())).collect(),
        alerts.iter().map(|a| Some(a.aberta_em.clone())).collect(),
        alerts.iter().map(|a| a.resolvida_em.clone()).collect(),
        alerts.iter().map(|a| a.motivo.clone()).collect(),
        alerts.iter().map(|a| serde_json::to_string(&a.alerta.listas).ok()).collect(),
        alerts.iter().map(|a| serde_json::to_string(&a.alerta.valores).ok()).collect(),
    ];
    let columns =
        COLUMNS.iter().zip(texts).map(|(name, values)| Column::new((*name).into(), values)).collect();
    DataFrame::new(alerts.len(), columns)
}

/// The alerts of a snapshot as the store kept them; rows of a rule kind this binary does not
/// know are left out.
pub fn from_frame(df: &DataFrame) -> PolarsResult<Vec<TrackedAlert>> {
    let cols: Vec<Vec<Option<String>>> =
        COLUMNS.iter().map(|c| strings(df, c)).collect::<PolarsResult<_>>()?;
    let snapshot = strings(df, "snapshot").unwrap_or_else(|_| vec![None; df.height()]);
    let mut out = Vec::with_capacity(df.height());
    for i in 0..df.height() {
        let at = |k: usize| cols[k][i].clone();
        let (Some(regra), Some(tipo), Some(cnpj), Some(assunto), Some(estado), Some(aberta_em)) = (
            at(0),
            at(1).and_then(|t| RuleKind::parse(&t)),
            at(2),
            at(4),
            at(5).and_then(|e| Estado::parse(&e)),
            at(6),
        ) else {
            continue;
        };
        let alerta = Alert {
            regra,
            tipo: tipo.name(),
            cnpj,
            razao_social: at(3),
            snapshot: snapshot[i].clone(),
            snapshot_anterior: None,
            listas: at(9).and_then(|l| serde_json::from_str(&l).ok()).unwrap_or_default(),
            valores: at(10).and_then(|v| serde_json::from_str(&v).ok()).unwrap_or_default(),
        };
        let (resolvida_em, motivo) = (at(7), at(8));
        out.push(TrackedAlert {
            assunto: read_subject(&alerta, assunto),
            alerta,
            estado,
            aberta_em,
            resolvida_em,
            motivo,
            carried_from_run: false,
        });
    }
    Ok(out)
}

/// How many alerts are in each state.
pub fn count_by_state(alerts: &[TrackedAlert]) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for a in alerts {
        *counts.entry(a.estado.name()).or_default() += 1;
    }
    counts
}
