//! The alerts of a re-render (`report --from`) of a finished run, whose alerts were that run's to
//! send: what the run wrote of them (`alertas.jsonl`) is read back here (a file written before
//! alerts were grouped is folded into one alert per rule and company). Judged again against the
//! store the run committed to, the alerts the run had are marked carried (not sent again); with
//! no store to read, the run's alerts keep the states it gave them (`rerendered`).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::alerts::{Alert, Gatilho, Severidade};
use super::lifecycle::{Estado, RowAlert, TrackedAlert, fold_rows, in_order, opened};
use super::rules::{RuleKind, Rules};

/// The alerts of the re-render of a run's snapshot: `fired`, what `rules` match now, against
/// `run`, the alerts the run wrote.
/// - One the run had, unresolved there, is the run's (its state, since when; carried, not sent).
/// - One the run did not have (a rule added or changed since), or had resolved, is new.
/// - One of the run's that does not fire now stays as the run left it (open and not judged, or
///   resolved that run) while a rule of that name and kind is in the file; it goes with its rule.
pub(crate) fn rerendered(rules: &Rules, fired: Vec<Alert>, run: Vec<TrackedAlert>) -> Vec<TrackedAlert> {
    let snapshot = fired.iter().find_map(|a| a.snapshot.clone()).unwrap_or_default();
    let mut before: BTreeMap<_, TrackedAlert> = run.into_iter().map(|a| (a.identity(), a)).collect();
    let mut out = Vec::new();
    for alert in fired {
        let fresh = opened(alert, &snapshot);
        match before.remove(&fresh.identity()) {
            Some(was) if was.estado != Estado::Resolvida => out.push(carried(was)),
            _ => out.push(fresh),
        }
    }
    let has_rule = |a: &TrackedAlert| {
        rules.rules.iter().any(|r| r.nome == a.alerta.regra && r.kind.name() == a.alerta.tipo)
    };
    out.extend(before.into_values().filter(|a| has_rule(a)).map(carried));
    in_order(&mut out);
    out
}

/// `judged` (a re-render's own judgment, against the store its run committed to) with the
/// alerts `run` wrote in the same state marked carried: that run sent them, if at all.
pub(crate) fn carried_where_run_had(judged: Vec<TrackedAlert>, run: &[TrackedAlert]) -> Vec<TrackedAlert> {
    let had: std::collections::BTreeSet<_> = run.iter().map(|a| (a.identity(), a.estado)).collect();
    judged.into_iter().map(|a| if had.contains(&(a.identity(), a.estado)) { carried(a) } else { a }).collect()
}

fn carried(was: TrackedAlert) -> TrackedAlert {
    TrackedAlert { carried_from_run: true, ..was }
}

/// One line of `alertas.jsonl`, as `TrackedAlert` writes it; or as a run wrote it before alerts
/// were grouped (`assunto` and `valores` in place of `gatilhos`).
#[derive(Deserialize)]
struct Line {
    regra: String,
    tipo: String,
    severidade: Option<String>,
    cnpj: String,
    razao_social: Option<String>,
    snapshot: Option<String>,
    snapshot_anterior: Option<String>,
    #[serde(default, rename = "listas")]
    watchlists: Vec<String>,
    gatilhos: Option<Vec<Gatilho>>,
    estado: String,
    aberta_em: String,
    resolvida_em: Option<String>,
    motivo: Option<String>,
    atualizacao: Option<String>,
    #[serde(default)]
    reenviada: bool,
    assunto: Option<String>,
    #[serde(default)]
    valores: BTreeMap<String, serde_json::Value>,
}

/// The alerts of an `alertas.jsonl`, and how many of its lines could not be read (not JSON, or
/// a rule kind or state this binary does not know).
pub(crate) fn from_jsonl(text: &str) -> (Vec<TrackedAlert>, usize) {
    let mut unread = 0;
    let (mut alerts, mut rows) = (Vec::new(), Vec::new());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Line>(line).ok().and_then(tracked) {
            Some(Ok(alert)) => alerts.push(alert),
            Some(Err(row)) => rows.push(row),
            None => unread += 1,
        }
    }
    alerts.extend(fold_rows(rows));
    in_order(&mut alerts);
    (alerts, unread)
}

/// A line as an alert, or as a per-row alert of a file written before alerts were grouped.
fn tracked(line: Line) -> Option<Result<TrackedAlert, RowAlert>> {
    let kind = RuleKind::parse(&line.tipo)?;
    let estado = Estado::parse(&line.estado)?;
    let alerta = Alert {
        regra: line.regra,
        tipo: kind.name(),
        severidade: line.severidade.as_deref().and_then(Severidade::parse).unwrap_or_default(),
        cnpj: line.cnpj,
        razao_social: line.razao_social,
        snapshot: line.snapshot,
        snapshot_anterior: line.snapshot_anterior,
        watchlists: line.watchlists,
        gatilhos: Vec::new(),
    };
    let Some(gatilhos) = line.gatilhos else {
        let assunto = super::lifecycle::read_subject(kind, &line.valores, line.assunto?);
        return Some(Err(RowAlert {
            alerta,
            assunto,
            valores: line.valores,
            estado,
            aberta_em: line.aberta_em,
            resolvida_em: line.resolvida_em,
            motivo: line.motivo,
        }));
    };
    Some(Ok(TrackedAlert {
        alerta: Alert { gatilhos, ..alerta },
        estado,
        aberta_em: line.aberta_em,
        resolvida_em: line.resolvida_em,
        motivo: line.motivo,
        atualizacao: line.atualizacao,
        reenviada: line.reenviada,
        carried_from_run: false,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::alerts::to_jsonl;
    use crate::monitor::lifecycle::all_new;

    fn rules(text: &str) -> Rules {
        Rules::parse(text, std::path::Path::new("r.toml")).unwrap()
    }

    /// An alert of `regra` for company `company` (a CNPJ ending in it), set off by one inscription.
    fn debt_alert(regra: &str, company: &str) -> Alert {
        let valores = [("chave".to_string(), serde_json::Value::from(format!("N{company}")))].into();
        Alert {
            regra: regra.into(),
            tipo: "nova_inscricao",
            severidade: Severidade::Media,
            cnpj: format!("1122233300018{company}"),
            razao_social: Some("Empresa".into()),
            snapshot: Some("202603".into()),
            snapshot_anterior: Some("202602".into()),
            watchlists: vec!["Fornecedores".into()],
            gatilhos: vec![Gatilho::new(
                RuleKind::NovaInscricao.subject(&valores),
                valores,
                Some("10.00".into()),
                None,
                "202603",
            )],
        }
    }

    fn state(alerts: &[TrackedAlert], company: &str) -> Option<(Estado, String, bool)> {
        alerts
            .iter()
            .find(|a| a.alerta.cnpj.ends_with(company))
            .map(|a| (a.estado, a.aberta_em.clone(), a.carried_from_run))
    }

    #[test]
    fn a_rerender_keeps_the_states_its_run_gave_and_opens_only_what_the_run_lacked() {
        let r = rules("[[regra]]\nnome = \"nova\"\ntipo = \"nova_inscricao\"\n");
        // What the run wrote: 1 open since 202602, 2 new, 3 resolved, 4 open and not firing
        // (its condition could not be judged), 5 of a rule taken out of the file since.
        let mut run = all_new(vec![debt_alert("nova", "1"), debt_alert("nova", "2")], "202603");
        run[0].estado = Estado::Aberta;
        run[0].aberta_em = "202602".into();
        let mut resolved = all_new(vec![debt_alert("nova", "3")], "202601");
        resolved[0].estado = Estado::Resolvida;
        resolved[0].resolvida_em = Some("202603".into());
        let mut open = all_new(vec![debt_alert("nova", "4")], "202601");
        open[0].estado = Estado::Aberta;
        run.extend(resolved);
        run.extend(open);
        run.extend(all_new(vec![debt_alert("retirada", "5")], "202603"));
        in_order(&mut run);
        let (read, unread) = from_jsonl(&format!("{}not json\n", to_jsonl(&run)));
        assert_eq!(unread, 1);
        assert_eq!(read, run, "alertas.jsonl reads back as written");

        let fired = vec![debt_alert("nova", "1"), debt_alert("nova", "2"), debt_alert("nova", "6")];
        let now = rerendered(&r, fired.clone(), read);
        assert_eq!(state(&now, "1"), Some((Estado::Aberta, "202602".into(), true)));
        assert_eq!(
            state(&now, "2"),
            Some((Estado::Nova, "202603".into(), true)),
            "new in its run, not sent again"
        );
        assert_eq!(state(&now, "3"), Some((Estado::Resolvida, "202601".into(), true)));
        assert_eq!(state(&now, "4"), Some((Estado::Aberta, "202601".into(), true)));
        assert_eq!(now.iter().filter(|a| a.alerta.regra == "retirada").count(), 0, "its rule is gone");
        assert_eq!(state(&now, "6"), Some((Estado::Nova, "202603".into(), false)), "new to the re-render");
        assert_eq!(now.len(), 5);
        // Rendered again with the same rules, it is what the re-render wrote, all carried.
        let again = rerendered(&r, fired, from_jsonl(&to_jsonl(&now)).0);
        assert_eq!(to_jsonl(&again), to_jsonl(&now));
        assert!(again.iter().all(|a| a.carried_from_run));
    }

    #[test]
    fn a_file_of_per_row_alerts_is_folded_into_one_alert_per_rule_and_company() {
        // As a run wrote alertas.jsonl before alerts were grouped: three inscriptions of one
        // company (one open since 202601, one new, one resolved) and one of another, resolved.
        let row = |cnpj: &str, numero: &str, estado: &str, aberta: &str| {
            let resolvida = if estado == "resolvida" { "\"202603\"" } else { "null" };
            format!(
                r#"{{"regra":"nova","tipo":"nova_inscricao","cnpj":"{cnpj}","razao_social":"E","snapshot":"202603","snapshot_anterior":"202602","listas":[],"valores":{{"chave":"{numero}","mudanca":"nova inscrição","variacao":"100.00"}},"estado":"{estado}","assunto":"{numero}","aberta_em":"{aberta}","resolvida_em":{resolvida},"motivo":null}}"#
            )
        };
        let text = [
            row("11222333000181", "X1", "aberta", "202601"),
            row("11222333000181", "X2", "nova", "202603"),
            row("11222333000181", "X3", "resolvida", "202602"),
            row("19492317000110", "Y1", "resolvida", "202602"),
        ]
        .join("\n");
        let (read, unread) = from_jsonl(&text);
        assert_eq!(unread, 0);
        assert_eq!(read.len(), 2, "one alert per rule and company: {read:?}");
        let open = read.iter().find(|a| a.alerta.cnpj == "11222333000181").unwrap();
        assert_eq!((open.estado, open.aberta_em.as_str()), (Estado::Aberta, "202601"));
        let subjects: Vec<(&str, Option<&str>)> =
            open.alerta.gatilhos.iter().map(|g| (g.assunto.as_str(), g.valor.as_deref())).collect();
        assert_eq!(subjects, [("X1", Some("100.00")), ("X2", Some("100.00"))], "the open rows' triggers");
        let gone = read.iter().find(|a| a.alerta.cnpj == "19492317000110").unwrap();
        assert_eq!((gone.estado, gone.resolvida_em.as_deref()), (Estado::Resolvida, Some("202603")));
    }
}
