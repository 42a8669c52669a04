//! An alert: one watch rule matched for one company. With where it stands (`lifecycle`), written
//! one JSON object per line to `alertas.jsonl`, shown in the report and summarised for the webhook.

use std::collections::BTreeMap;

use serde::Serialize;

/// One match of a rule. Money in `valores` is exact decimal text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alert {
    /// The rule's `nome`.
    pub regra: String,
    /// The rule's kind (`nova_inscricao`, ...).
    pub tipo: &'static str,
    pub cnpj: String,
    pub razao_social: Option<String>,
    pub snapshot: Option<String>,
    pub snapshot_anterior: Option<String>,
    /// The watched lists (their `rotulo`) holding the company.
    pub listas: Vec<String>,
    /// What matched: the change (kind, record, old and new value, change in R$) or the exposure
    /// (before, now, change in R$ and %).
    pub valores: BTreeMap<String, serde_json::Value>,
}

impl Alert {
    /// A key that orders one company's alerts of one rule (the record's key, if any).
    pub fn valores_chave(&self) -> String {
        self.valores.get("chave").and_then(|v| v.as_str()).unwrap_or_default().to_string()
    }
}

/// How many alerts each rule raised, by rule name.
pub fn count_by_rule<'a>(alerts: impl IntoIterator<Item = &'a Alert>) -> BTreeMap<&'a str, usize> {
    let mut counts = BTreeMap::new();
    for a in alerts {
        *counts.entry(a.regra.as_str()).or_default() += 1;
    }
    counts
}

/// The alerts (with where each stands) as JSON Lines.
pub fn to_jsonl<T: Serialize>(alerts: &[T]) -> String {
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
