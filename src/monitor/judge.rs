//! Judges a run's alerts (`track`): what the rules fired now against the alerts of the last
//! snapshot, one per rule and company. An open alert keeps each trigger that fires again or
//! whose condition still holds on the new snapshot (`Holding`, read from the aggregates and the
//! tables), takes the triggers that fire for the first time (an update), and is resolved when
//! none is left. What keeps each rule kind's trigger:
//! - `nova_inscricao`: the inscription is still active for the company;
//! - `inscricao_ajuizada`: the inscription is still active and filed in court;
//! - `saiu_de_ativa`: the cadastral situation is still not ATIVA;
//! - `regularidade_piorou`: the estimated standing is still worse than the one it fell from;
//! - `aumento_exposicao`: the exposure is still at least the threshold over the exposure the
//!   alert was measured from (the rule's % and minimum amount);
//! - `mudanca_socios`: a partner who entered is still there, one who left still gone, a new
//!   qualification still the partner's;
//! - `mudanca_cnae`, `mudanca_endereco`, `mudanca_capital`: the company still has the value it
//!   changed to;
//! - `qualquer_mudanca`: a change is an event: open only while the same change happens again;
//! - `lista_restritiva`: the record is still on its list and in force (the rule fires again
//!   every run while it is: a trigger it did not fire again holds no more).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use polars::prelude::*;
use rust_decimal::Decimal;

use super::alerts::{Alert, Gatilho};
use super::lifecycle::{Estado, TrackedAlert, in_order, opened, strings};
use super::rules::{self, Rule, RuleKind, Rules};
use crate::analyze::Aggregates;
use crate::transform::Frames;

/// What the new snapshot says of the conditions the open alerts watch. A part the analyst's
/// queries do not give is `None`: the alerts that need it stay open (they cannot be judged).
#[derive(Debug, Default)]
pub(crate) struct Holding {
    pub previous_snapshot: Option<String>,
    /// The companies found in this snapshot.
    pub(super) present: Option<BTreeSet<String>>,
    /// Each company's estimated standing's severity (`gravidade`) now and in the previous
    /// snapshot, and each standing's.
    pub(super) severity: Option<HashMap<String, i64>>,
    pub(super) severity_before: HashMap<String, i64>,
    pub(super) standing_severity: HashMap<String, i64>,
    pub(super) situacao: Option<HashMap<String, Option<String>>>,
    pub(super) exposure: Option<HashMap<String, Decimal>>,
    /// Each company's active inscriptions: whether filed in court.
    pub(super) inscriptions: Option<HashMap<(String, String), bool>>,
    /// Each company's partners, by `mudancas`' key (document and name): their qualification.
    pub(super) partners: Option<HashMap<(String, String), Option<String>>>,
    /// Each company's register values the register rules follow, by `mudancas` kind, as
    /// `mudancas` shows them.
    pub(super) register: Option<HashMap<(String, &'static str), Option<String>>>,
    /// Whether the lists' records (`sancoes`) were read, so a sanction not fired again is over.
    pub(super) sancoes_read: bool,
}

/// The `empresas` columns a register change of each `mudancas` kind shows, in order (the
/// street address joins four, as `queries/28_mudancas.sql` prints it).
const REGISTER: [(&str, &[&str]); 6] = [
    (rules::MAIN_CNAE, &["cnae_fiscal_principal"]),
    (rules::SECONDARY_CNAES, &["cnae_fiscal_secundaria"]),
    (rules::MUNICIPALITY, &["municipio"]),
    (rules::CEP, &["cep"]),
    (rules::STREET, &["tipo_logradouro", "logradouro", "numero", "complemento"]),
    (rules::CAPITAL, &["capital_social"]),
];

/// The street address as `queries/28_mudancas.sql` prints it: "RUA X, 123, SALA 4".
fn street_address(parts: &[Option<String>]) -> Option<String> {
    let present = |p: &[Option<String>]| {
        p.iter().flatten().filter(|v| !v.trim().is_empty()).cloned().collect::<Vec<_>>()
    };
    let named = present(parts.get(..2).unwrap_or_default()).join(" ");
    let rest = parts.get(2..).unwrap_or_default();
    let whole = present(&[&[Some(named)], rest].concat()).join(", ");
    (!whole.is_empty()).then_some(whole)
}

/// Two values that may be empty: both empty, or both there and the same (`same_value`).
fn same_optional(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => same_value(a, b),
        _ => false,
    }
}

/// The same value, read as amounts when both are (a decimal's text has one spelling per scale),
/// else as words (runs of spaces alike).
fn same_value(a: &str, b: &str) -> bool {
    let words = |v: &str| v.split_whitespace().collect::<Vec<_>>().join(" ");
    match (a.trim().parse::<Decimal>(), b.trim().parse::<Decimal>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => words(a) == words(b),
    }
}

impl Holding {
    /// Reads the conditions from the run's aggregates (`situacao_fiscal_por_retrato`,
    /// `carteira_cadastro`) and its debts table.
    pub(crate) fn read(aggregates: &Aggregates, frames: &Frames) -> PolarsResult<Self> {
        let mut h = Holding {
            previous_snapshot: aggregates.previous_snapshot.clone(),
            sancoes_read: aggregates.get("sancoes").is_some(),
            ..Self::default()
        };
        if let Some(df) = aggregates.get("situacao_fiscal_por_retrato") {
            let (cnpj, retrato, standing) =
                (strings(df, "cnpj")?, strings(df, "retrato")?, strings(df, "situacao_fiscal_estimada")?);
            let gravidade = df.column("gravidade")?.cast(&DataType::Int64)?;
            let gravidade = gravidade.i64()?;
            let mut severity = HashMap::new();
            for i in 0..df.height() {
                let (Some(c), Some(g)) = (&cnpj[i], gravidade.get(i)) else { continue };
                if let Some(s) = &standing[i] {
                    h.standing_severity.insert(s.clone(), g);
                }
                match retrato[i].as_deref() {
                    Some("agora") => severity.insert(c.clone(), g),
                    _ => h.severity_before.insert(c.clone(), g),
                };
            }
            h.present = Some(severity.keys().cloned().collect());
            h.severity = Some(severity);
        }
        if let Some(df) = aggregates.get("carteira_cadastro") {
            let (cnpj, situacao) = (strings(df, "cnpj")?, strings(df, "situacao_cadastral")?);
            let total = strings(df, "exposicao_total")?;
            let pairs =
                cnpj.iter().zip(situacao).zip(total).filter_map(|((c, s), t)| Some((c.clone()?, s, t)));
            let (mut situacoes, mut exposure) = (HashMap::new(), HashMap::new());
            for (c, s, t) in pairs {
                let owed = t.and_then(|t| t.parse::<Decimal>().ok()).unwrap_or_default();
                exposure.insert(c.clone(), owed);
                situacoes.insert(c, s);
            }
            h.situacao = Some(situacoes);
            h.exposure = Some(exposure);
        }
        if let Some(scan) = frames.scan(crate::tables::Table::Empresas.name()) {
            let read = REGISTER.iter().flat_map(|(_, columns)| columns.iter().copied());
            let df =
                &scan?.select(std::iter::once("cnpj").chain(read).map(col).collect::<Vec<_>>()).collect()?;
            let cnpj = strings(df, "cnpj")?;
            let mut register = HashMap::new();
            for (kind, columns) in REGISTER {
                let values = columns.iter().map(|c| strings(df, c)).collect::<PolarsResult<Vec<_>>>()?;
                for (i, c) in cnpj.iter().enumerate() {
                    let Some(c) = c else { continue };
                    let parts: Vec<Option<String>> = values.iter().map(|v| v[i].clone()).collect();
                    let shown = if kind == rules::STREET { street_address(&parts) } else { parts[0].clone() };
                    register.insert((c.clone(), kind), shown);
                }
            }
            h.register = Some(register);
        }
        if let Some(scan) = frames.scan(crate::tables::Table::Socios.name()) {
            let df = &scan?
                .select([
                    col("cnpj"),
                    col("cnpj_cpf_socio"),
                    col("nome_socio_razao_social"),
                    col("qualificacao_socio"),
                ])
                .collect()?;
            let (cnpj, doc, nome, qualificacao) = (
                strings(df, "cnpj")?,
                strings(df, "cnpj_cpf_socio")?,
                strings(df, "nome_socio_razao_social")?,
                strings(df, "qualificacao_socio")?,
            );
            let key = |i: usize| {
                let text = |v: &Option<String>| v.clone().unwrap_or_default();
                format!("{} {}", text(&doc[i]), text(&nome[i]))
            };
            h.partners = Some(
                (0..df.height())
                    .filter_map(|i| Some(((cnpj[i].clone()?, key(i)), qualificacao[i].clone())))
                    .collect(),
            );
        }
        if let Some(scan) = frames.scan(crate::tables::Table::DividasPgfn.name()) {
            let df =
                scan?.select([col("cnpj"), col("numero_inscricao"), col("indicador_ajuizado")]).collect()?;
            let (cnpj, numero, ajuizado) = (
                strings(&df, "cnpj")?,
                strings(&df, "numero_inscricao")?,
                strings(&df, "indicador_ajuizado")?,
            );
            let mut inscriptions = HashMap::new();
            for i in 0..df.height() {
                let (Some(c), Some(n)) = (&cnpj[i], &numero[i]) else { continue };
                let filed = ajuizado[i].as_deref().is_some_and(|a| a.trim().eq_ignore_ascii_case("SIM"));
                *inscriptions.entry((c.clone(), n.clone())).or_insert(false) |= filed;
            }
            h.inscriptions = Some(inscriptions);
        }
        Ok(h)
    }

    /// No condition read (nothing to judge): only the snapshot compared with.
    pub(crate) fn unread(aggregates: &Aggregates) -> Self {
        Holding { previous_snapshot: aggregates.previous_snapshot.clone(), ..Self::default() }
    }

    /// A `regularidade_piorou` trigger first seen now keeps the severity its company fell from
    /// (`gravidade_anterior`): the later runs compare with it.
    pub(super) fn note_fallen_from(&self, alert: &mut Alert) {
        if alert.tipo != RuleKind::RegularidadePiorou.name() {
            return;
        }
        if let Some(g) = self.severity_before.get(&alert.cnpj) {
            for t in &mut alert.gatilhos {
                t.valores.insert("gravidade_anterior".into(), (*g).into());
            }
        }
    }

    /// Whether the condition of `trigger`, of an alert of `rule` for `cnpj` (its rule's kind,
    /// above), still holds in this snapshot.
    pub(super) fn holds(&self, rule: &Rule, cnpj: &str, trigger: &Gatilho) -> bool {
        let cnpj = cnpj.to_string();
        let value = |k: &str| trigger.value(k).map(str::to_string);
        let inscription =
            || self.inscriptions.as_ref().map(|m| m.get(&(cnpj.clone(), trigger.assunto.clone())).copied());
        match rule.kind {
            RuleKind::NovaInscricao => inscription().is_none_or(|i| i.is_some()),
            RuleKind::InscricaoAjuizada => inscription().is_none_or(|i| i == Some(true)),
            RuleKind::SaiuDeAtiva => self
                .situacao
                .as_ref()
                .is_none_or(|m| !super::rules::is_ativa(m.get(&cnpj).cloned().flatten().as_deref())),
            RuleKind::RegularidadePiorou => {
                let noted = trigger.valores.get("gravidade_anterior").and_then(serde_json::Value::as_i64);
                let fell_from = noted.or_else(|| {
                    value("valor_anterior").and_then(|s| self.standing_severity.get(&s).copied())
                });
                match (self.severity.as_ref(), fell_from) {
                    (Some(now), Some(from)) => now.get(&cnpj).is_some_and(|g| *g > from),
                    _ => true,
                }
            }
            RuleKind::AumentoExposicao => {
                let base = value("exposicao_anterior").and_then(|b| b.parse::<Decimal>().ok());
                match (self.exposure.as_ref(), base) {
                    (Some(now), Some(base)) => {
                        let owed = now.get(&cnpj).copied().unwrap_or_default();
                        still_grown(rule, base, owed)
                    }
                    _ => true,
                }
            }
            RuleKind::MudancaSocios => {
                let partner = value("chave").unwrap_or_default();
                let Some(partners) = self.partners.as_ref() else { return true };
                let now = partners.get(&(cnpj.clone(), partner));
                // An entry holds while the partner stays, an exit while it stays away, a new
                // qualification while the partner keeps it.
                match value("mudanca").as_deref() {
                    Some(rules::PARTNER_ENTERED) => now.is_some(),
                    Some(rules::PARTNER_LEFT) => now.is_none(),
                    _ => now.is_some_and(|q| same_optional(q.as_deref(), value("valor_novo").as_deref())),
                }
            }
            RuleKind::MudancaCnae | RuleKind::MudancaEndereco | RuleKind::MudancaCapital => {
                // Open while the company still has the value it changed to.
                let kind =
                    value("mudanca").and_then(|m| REGISTER.iter().find(|(k, _)| *k == m).map(|(k, _)| *k));
                let (Some(kind), Some(register)) = (kind, self.register.as_ref()) else {
                    return true;
                };
                // A company no longer in the register is judged by `present`, before.
                let Some(now) = register.get(&(cnpj.clone(), kind)) else { return true };
                same_optional(now.as_deref(), value("valor_novo").as_deref())
            }
            RuleKind::QualquerMudanca => false,
            RuleKind::ListaRestritiva => !self.sancoes_read,
        }
    }
}

/// Whether `owed` is still at least the rule's growth over `base` (the exposure the alert was
/// measured from): the minimum amount, and the percentage (from nothing owed, anything owed).
fn still_grown(rule: &Rule, base: Decimal, owed: Decimal) -> bool {
    let grown = owed - base;
    if grown <= Decimal::ZERO || grown < rule.valor_minimo.unwrap_or(Decimal::ZERO) {
        return false;
    }
    let percent = Decimal::try_from(rule.percentual_minimo.unwrap_or(0.0)).unwrap_or(Decimal::ZERO);
    base.is_zero() || grown * Decimal::ONE_HUNDRED >= percent * base
}

/// The alerts of this run at `snapshot`: `fired` (what the rules matched now, one alert per
/// rule and company) against `before` (the alerts of the last snapshot: the open ones may stay
/// open, take new triggers or be resolved), judged on `now`. `rules` is `None` for a run
/// without rules, which carries the open alerts unjudged.
pub(crate) fn track(
    rules: Option<&Rules>,
    fired: Vec<Alert>,
    before: Vec<TrackedAlert>,
    now: &Holding,
    snapshot: &str,
) -> Vec<TrackedAlert> {
    let mut open: BTreeMap<(String, String), TrackedAlert> =
        before.into_iter().filter(|a| a.estado != Estado::Resolvida).map(|a| (a.identity(), a)).collect();
    let rule_of =
        |a: &Alert| rules.and_then(|r| r.rules.iter().find(|r| r.nome == a.regra && r.kind.name() == a.tipo));
    let mut out = Vec::new();
    for mut alert in fired {
        now.note_fallen_from(&mut alert);
        // A rule on the snapshot's state (`lista_restritiva`) reads no snapshot from its rows.
        if alert.snapshot.is_none() {
            alert = carried(&alert, now, snapshot);
            for t in alert.gatilhos.iter_mut().filter(|t| t.desde.is_empty()) {
                t.desde = snapshot.to_string();
            }
        }
        match open.remove(&alert.identity()) {
            Some(was) => out.push(matched_again(was, alert, rule_of, now)),
            None => out.push(opened(alert, snapshot)),
        }
    }
    for (_, was) in open {
        let mut alerta = carried(&was.alerta, now, snapshot);
        let rule = rule_of(&alerta);
        if let Some(rule) = rule {
            alerta.severidade = rule.severidade;
        }
        // The triggers whose condition still holds (all of them, unjudged, without rules).
        let still: Vec<Gatilho> = match rule {
            Some(rule) => {
                alerta.gatilhos.iter().filter(|t| now.holds(rule, &alerta.cnpj, t)).cloned().collect()
            }
            None => alerta.gatilhos.clone(),
        };
        let motivo = rules.and_then(|rules| {
            reason_resolved(rules, &was, now).or(still.is_empty().then_some("a condição deixou de valer"))
        });
        let (estado, resolvida_em, motivo) = match motivo {
            None => {
                alerta.gatilhos = still;
                (Estado::Aberta, None, None)
            }
            Some(m) => (Estado::Resolvida, Some(snapshot.to_string()), Some(m.to_string())),
        };
        out.push(TrackedAlert {
            alerta,
            estado,
            resolvida_em,
            motivo,
            atualizacao: None,
            reenviada: false,
            ..was
        });
    }
    in_order(&mut out);
    out
}

/// An open alert its rule holds for again: still open, since when it opened. It keeps each
/// earlier trigger that fired again (with what matched now where its condition reads the value
/// changed to, a register or partner change that happened again; else as it was measured) or
/// whose condition still holds, and takes the triggers new to it: an update, sent again when
/// its rule asks.
fn matched_again<'r>(
    was: TrackedAlert,
    now_alert: Alert,
    rule_of: impl Fn(&Alert) -> Option<&'r Rule>,
    now: &Holding,
) -> TrackedAlert {
    let rule = rule_of(&now_alert);
    let kind = RuleKind::parse(now_alert.tipo);
    let follows_value = kind.is_some_and(RuleKind::follows_a_change);
    let earlier: BTreeMap<&str, &Gatilho> =
        was.alerta.gatilhos.iter().map(|g| (g.assunto.as_str(), g)).collect();
    let mut gatilhos = Vec::new();
    let mut new = 0;
    for t in &now_alert.gatilhos {
        match earlier.get(t.assunto.as_str()) {
            Some(e) if follows_value => gatilhos.push(Gatilho { desde: e.desde.clone(), ..t.clone() }),
            Some(e) => gatilhos.push((*e).clone()),
            None => {
                new += 1;
                gatilhos.push(t.clone());
            }
        }
    }
    let fired_now: std::collections::BTreeSet<&str> =
        now_alert.gatilhos.iter().map(|g| g.assunto.as_str()).collect();
    for e in &was.alerta.gatilhos {
        if !fired_now.contains(e.assunto.as_str()) && rule.is_none_or(|r| now.holds(r, &now_alert.cnpj, e)) {
            gatilhos.push(e.clone());
        }
    }
    gatilhos.sort_by(|a, b| a.assunto.cmp(&b.assunto));
    let atualizacao = (new > 0).then(|| {
        let (one, many) = kind.map_or(("gatilho", "gatilhos"), RuleKind::trigger_words);
        format!("+{new} {}", if new == 1 { one } else { many })
    });
    let reenviada = atualizacao.is_some() && rule.is_some_and(|r| r.reenviar_atualizacoes);
    TrackedAlert {
        estado: Estado::Aberta,
        alerta: Alert { gatilhos, ..now_alert },
        atualizacao,
        reenviada,
        ..was
    }
}

/// An earlier alert restamped with this run's snapshots.
fn carried(alert: &Alert, now: &Holding, snapshot: &str) -> Alert {
    Alert {
        snapshot: Some(snapshot.to_string()),
        snapshot_anterior: now.previous_snapshot.clone(),
        ..alert.clone()
    }
}

/// Why an open alert is resolved whatever its triggers (its rule gone, its company out of the
/// rule's list or of the portfolio), or `None`.
fn reason_resolved(rules: &Rules, alert: &TrackedAlert, now: &Holding) -> Option<&'static str> {
    let Some(rule) =
        rules.rules.iter().find(|r| r.nome == alert.alerta.regra && r.kind.name() == alert.alerta.tipo)
    else {
        return Some("regra retirada do arquivo de regras");
    };
    let cnpj = alert.alerta.cnpj.as_str();
    if !rules.covers(rule, cnpj) {
        return Some("empresa fora da lista da regra");
    }
    if now.present.as_ref().is_some_and(|p| !p.contains(cnpj)) {
        return Some("empresa fora da carteira");
    }
    None
}

/// Whether judging these alerts needs the snapshot's conditions (`Holding::read`): some alert
/// was open, or a fall of standing opens one (it keeps the standing it fell from).
pub(crate) fn needs_conditions(fired: &[Alert], before: &[TrackedAlert]) -> bool {
    before.iter().any(|a| a.estado != Estado::Resolvida)
        || fired.iter().any(|a| a.tipo == RuleKind::RegularidadePiorou.name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::alerts::Severidade;
    use crate::monitor::lifecycle::{from_frame, to_frame};

    fn rules(text: &str) -> Rules {
        Rules::parse(text, std::path::Path::new("r.toml")).unwrap()
    }

    fn trigger(kind: RuleKind, values: &[(&str, &str)]) -> Gatilho {
        let valores = values.iter().map(|(k, v)| (k.to_string(), serde_json::Value::from(*v))).collect();
        Gatilho::new(kind.subject(&valores), valores, None, None, "202602")
    }

    /// An alert of rule `regra` for `cnpj`, set off by the inscriptions `numeros`.
    fn debt_alert(regra: &str, cnpj: &str, numeros: &[&str]) -> Alert {
        Alert {
            regra: regra.into(),
            tipo: "nova_inscricao",
            severidade: Severidade::Media,
            cnpj: cnpj.into(),
            razao_social: None,
            snapshot: Some("202602".into()),
            snapshot_anterior: Some("202601".into()),
            watchlists: vec![],
            gatilhos: numeros.iter().map(|n| trigger(RuleKind::NovaInscricao, &[("chave", n)])).collect(),
        }
    }

    fn holding(inscriptions: &[(&str, &str)]) -> Holding {
        Holding {
            present: Some(
                inscriptions.iter().map(|(c, _)| c.to_string()).chain(["11222333000181".into()]).collect(),
            ),
            inscriptions: Some(
                inscriptions.iter().map(|(c, n)| ((c.to_string(), n.to_string()), false)).collect(),
            ),
            ..Holding::default()
        }
    }

    fn subjects(a: &TrackedAlert) -> Vec<&str> {
        a.alerta.gatilhos.iter().map(|g| g.assunto.as_str()).collect()
    }

    #[test]
    fn new_then_open_with_new_triggers_then_resolved_when_none_holds_then_new_again() {
        let r = rules("[[regra]]\nnome = \"nova\"\ntipo = \"nova_inscricao\"\n");
        let c = "11222333000181";
        let m2 =
            track(Some(&r), vec![debt_alert("nova", c, &["X1"])], vec![], &holding(&[(c, "X1")]), "202602");
        assert_eq!(m2.iter().map(|a| a.estado).collect::<Vec<_>>(), [Estado::Nova]);
        assert!(m2[0].is_sent());
        // The store's round trip keeps what the next run needs.
        let kept = from_frame(&to_frame(&m2).unwrap()).unwrap();
        assert_eq!((subjects(&kept[0]), kept[0].aberta_em.as_str()), (vec!["X1"], "202602"));
        // Two more inscriptions while open: one alert, an update not sent (the rule does not ask).
        let mut more = debt_alert("nova", c, &["X2", "X3"]);
        more.gatilhos.iter_mut().for_each(|g| g.desde = "202603".into());
        let now = holding(&[(c, "X1"), (c, "X2"), (c, "X3")]);
        let m3 = track(Some(&r), vec![more.clone()], kept, &now, "202603");
        assert_eq!(m3.len(), 1);
        assert_eq!((m3[0].estado, m3[0].aberta_em.as_str()), (Estado::Aberta, "202602"));
        assert_eq!(subjects(&m3[0]), ["X1", "X2", "X3"], "the earlier trigger still holds");
        assert_eq!(m3[0].atualizacao.as_deref(), Some("+2 inscrições"));
        assert!(!m3[0].is_sent());
        let desde: Vec<&str> = m3[0].alerta.gatilhos.iter().map(|g| g.desde.as_str()).collect();
        assert_eq!(desde, ["202602", "202603", "202603"], "each trigger since its snapshot");
        // A rule that asks re-sends the update.
        let loud =
            rules("[[regra]]\nnome = \"nova\"\ntipo = \"nova_inscricao\"\nreenviar_atualizacoes = true\n");
        let resent = track(Some(&loud), vec![more], m2.clone(), &now, "202603");
        assert!(resent[0].reenviada && resent[0].is_sent());
        // X1 and X3 end: still open on X2, with no update.
        let m4 = track(Some(&r), vec![], m3, &holding(&[(c, "X2")]), "202604");
        assert_eq!((m4[0].estado, subjects(&m4[0])), (Estado::Aberta, vec!["X2"]));
        assert!(m4[0].atualizacao.is_none() && !m4[0].is_sent());
        let m5 = track(Some(&r), vec![], m4, &holding(&[]), "202605");
        assert_eq!((m5[0].estado, m5[0].resolvida_em.as_deref()), (Estado::Resolvida, Some("202605")));
        assert_eq!(m5[0].motivo.as_deref(), Some("a condição deixou de valer"));
        assert_eq!(subjects(&m5[0]), ["X2"], "a resolved alert shows what held last");
        let m6 = track(Some(&r), vec![], m5.clone(), &holding(&[]), "202606");
        assert!(m6.is_empty(), "a resolved alert is not carried");
        let m6 = track(Some(&r), vec![debt_alert("nova", c, &["X1"])], m5, &holding(&[(c, "X1")]), "202606");
        assert_eq!((m6[0].estado, m6[0].aberta_em.as_str()), (Estado::Nova, "202606"));
        // Without rules the open alerts are carried as they are; a rule taken out resolves them.
        let open = track(Some(&r), vec![debt_alert("nova", c, &["X1"])], vec![], &holding(&[]), "202602");
        assert_eq!(track(None, vec![], open.clone(), &holding(&[]), "202603")[0].estado, Estado::Aberta);
        let other = rules("[[regra]]\nnome = \"outra\"\ntipo = \"nova_inscricao\"\n");
        let gone = track(Some(&other), vec![], open, &holding(&[(c, "X1")]), "202603");
        assert_eq!(gone[0].motivo.as_deref(), Some("regra retirada do arquivo de regras"));
    }

    #[test]
    fn alerts_are_ranked_by_severity_then_money_at_stake() {
        let money = |regra: &str, cnpj: &str, severidade, valor: &str| {
            let mut a = debt_alert(regra, cnpj, &["X"]);
            a.severidade = severidade;
            a.gatilhos[0].valor = Some(valor.into());
            a
        };
        let fired = vec![
            money("a", "11222333000181", Severidade::Baixa, "9000000.00"),
            money("b", "11222333000181", Severidade::Alta, "10.00"),
            money("c", "19492317000110", Severidade::Media, "500.00"),
            money("d", "19492317000110", Severidade::Alta, "-2000.00"),
        ];
        let ranked = crate::monitor::lifecycle::all_new(fired, "202602");
        assert_eq!(ranked.iter().map(|a| a.alerta.regra.as_str()).collect::<Vec<_>>(), ["d", "b", "c", "a"]);
    }

    fn change_alert(tipo: &'static str, cnpj: &str, values: &[(&str, &str)]) -> TrackedAlert {
        let kind = RuleKind::parse(tipo).unwrap();
        let alerta = Alert {
            regra: "r".into(),
            tipo,
            severidade: Severidade::Media,
            cnpj: cnpj.into(),
            razao_social: None,
            snapshot: Some("202602".into()),
            snapshot_anterior: Some("202601".into()),
            watchlists: vec![],
            gatilhos: vec![trigger(kind, values)],
        };
        crate::monitor::lifecycle::opened(alerta, "202602")
    }

    #[test]
    fn a_change_to_nothing_holds_while_nothing_and_a_second_change_is_followed() {
        let c = "11222333000181";
        let r = rules("[[regra]]\nnome = \"r\"\ntipo = \"mudanca_cnae\"\n");
        let at = |shown: Option<&str>| Holding {
            present: Some([c.to_string()].into()),
            register: Some([((c.to_string(), rules::SECONDARY_CNAES), shown.map(str::to_string))].into()),
            ..Holding::default()
        };
        // The secondary CNAEs all dropped: no value changed to.
        let dropped = change_alert("mudanca_cnae", c, &[("chave", c), ("mudanca", rules::SECONDARY_CNAES)]);
        let first_trigger = |a: &TrackedAlert| a.alerta.gatilhos[0].clone();
        assert!(at(None).holds(&r.rules[0], c, &first_trigger(&dropped)));
        assert!(!at(Some("4744005")).holds(&r.rules[0], c, &first_trigger(&dropped)), "some came back");
        // Changed again while open: the alert follows the newer value, and it is no update.
        let first = change_alert(
            "mudanca_cnae",
            c,
            &[("chave", c), ("mudanca", rules::SECONDARY_CNAES), ("valor_novo", "4744005")],
        );
        let again = change_alert(
            "mudanca_cnae",
            c,
            &[("chave", c), ("mudanca", rules::SECONDARY_CNAES), ("valor_novo", "4751201")],
        );
        let open = track(Some(&r), vec![again.alerta], vec![first], &at(Some("4751201")), "202603");
        assert_eq!(open.len(), 1);
        assert!(open[0].estado == Estado::Aberta && open[0].atualizacao.is_none());
        assert!(at(Some("4751201")).holds(&r.rules[0], c, &first_trigger(&open[0])));
    }

    #[test]
    fn a_new_street_or_qualification_holds_while_the_company_keeps_it() {
        let c = "11222333000181";
        let street =
            |parts: [&str; 4]| street_address(&parts.map(|p| Some(p.to_string()).filter(|p| !p.is_empty())));
        assert_eq!(street(["RUA", "X", "12", "SALA 4"]).as_deref(), Some("RUA X, 12, SALA 4"));
        assert_eq!(street(["RUA", "X", "12", ""]).as_deref(), Some("RUA X, 12"));
        assert_eq!(street(["", "", "", ""]), None);
        let r = rules("[[regra]]\nnome = \"r\"\ntipo = \"mudanca_endereco\"\n");
        let moved = trigger(
            RuleKind::MudancaEndereco,
            &[("chave", c), ("mudanca", rules::STREET), ("valor_novo", "RUA X, 12")],
        );
        let at = |shown: &str| Holding {
            present: Some([c.to_string()].into()),
            register: Some([((c.to_string(), rules::STREET), Some(shown.to_string()))].into()),
            ..Holding::default()
        };
        assert!(at("RUA X,  12").holds(&r.rules[0], c, &moved), "runs of spaces alike");
        assert!(!at("RUA Y, 7").holds(&r.rules[0], c, &moved));
        let r = rules("[[regra]]\nnome = \"r\"\ntipo = \"mudanca_socios\"\n");
        let promoted = trigger(
            RuleKind::MudancaSocios,
            &[("chave", "***1** ANA"), ("mudanca", rules::PARTNER_REQUALIFIED), ("valor_novo", "49")],
        );
        let with = |q: Option<&str>| Holding {
            present: Some([c.to_string()].into()),
            partners: Some(
                q.map(|q| ((c.to_string(), "***1** ANA".to_string()), Some(q.to_string())))
                    .into_iter()
                    .collect(),
            ),
            ..Holding::default()
        };
        assert!(with(Some("49")).holds(&r.rules[0], c, &promoted));
        assert!(!with(Some("22")).holds(&r.rules[0], c, &promoted), "the qualification changed back");
        assert!(!with(None).holds(&r.rules[0], c, &promoted), "the partner left");
    }

    #[test]
    fn an_exposure_alert_holds_while_the_growth_does() {
        let r = rules(
            "[[regra]]\nnome = \"x\"\ntipo = \"aumento_exposicao\"\npercentual_minimo = 20\nvalor_minimo = 1000\n",
        );
        let rule = &r.rules[0];
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        assert!(still_grown(rule, d("10000"), d("12000.00")));
        assert!(!still_grown(rule, d("10000"), d("11999.99")), "under 20%");
        assert!(!still_grown(rule, d("1000"), d("1999.99")), "under the minimum amount");
        assert!(still_grown(rule, d("0"), d("1000")));
        assert!(!still_grown(rule, d("0"), d("0")));
    }
}
