//! Judges a run's alerts (`track`): what the rules fired now against the alerts of the last
//! snapshot. An alert fired again stays open; one that did not is judged on the new snapshot's
//! conditions (`Holding`), read from the aggregates and the tables. What keeps each rule kind's
//! alert open:
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
//! - `qualquer_mudanca`: a change is an event: open only while the same change happens again.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use polars::prelude::*;
use rust_decimal::Decimal;

use super::alerts::Alert;
use super::lifecycle::{Estado, TrackedAlert, dedupe, in_order, opened, strings};
use super::rules::{self, Rule, RuleKind, Rules};
use crate::analyze::Aggregates;
use crate::transform::Frames;

/// What the new snapshot says of the conditions the open alerts watch. A part the analyst's
/// queries do not give is `None`: the alerts that need it stay open (they cannot be judged).
#[derive(Debug, Default)]
pub struct Holding {
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
}

/// The `empresas` columns a register change of each `mudancas` kind shows, in order (the
/// street address joins four, as `queries/21_mudancas.sql` prints it).
const REGISTER: [(&str, &[&str]); 6] = [
    (rules::MAIN_CNAE, &["cnae_fiscal_principal"]),
    (rules::SECONDARY_CNAES, &["cnae_fiscal_secundaria"]),
    (rules::MUNICIPALITY, &["municipio"]),
    (rules::CEP, &["cep"]),
    (rules::STREET, &["tipo_logradouro", "logradouro", "numero", "complemento"]),
    (rules::CAPITAL, &["capital_social"]),
];

/// The street address as `queries/21_mudancas.sql` prints it: "RUA X, 123, SALA 4".
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
    pub fn read(aggregates: &Aggregates, frames: &Frames) -> PolarsResult<Self> {
        let mut h = Holding { previous_snapshot: aggregates.previous_snapshot.clone(), ..Self::default() };
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
    pub fn unread(aggregates: &Aggregates) -> Self {
        Holding { previous_snapshot: aggregates.previous_snapshot.clone(), ..Self::default() }
    }

    /// A `regularidade_piorou` alert opening now keeps the severity its company fell from
    /// (`gravidade_anterior`): the later runs compare with it.
    pub(super) fn note_fallen_from(&self, alert: &mut Alert) {
        if alert.tipo == RuleKind::RegularidadePiorou.name()
            && let Some(g) = self.severity_before.get(&alert.cnpj)
        {
            alert.valores.insert("gravidade_anterior".into(), (*g).into());
        }
    }

    /// Whether `alert`'s condition (its rule's kind, above) still holds in this snapshot.
    pub(super) fn holds(&self, rule: &Rule, alert: &TrackedAlert) -> bool {
        let cnpj = alert.alerta.cnpj.clone();
        let value = |k: &str| alert.alerta.valores.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let inscription =
            || self.inscriptions.as_ref().map(|m| m.get(&(cnpj.clone(), alert.assunto.clone())).copied());
        match rule.kind {
            RuleKind::NovaInscricao => inscription().is_none_or(|i| i.is_some()),
            RuleKind::InscricaoAjuizada => inscription().is_none_or(|i| i == Some(true)),
            RuleKind::SaiuDeAtiva => self
                .situacao
                .as_ref()
                .is_none_or(|m| !super::rules::is_ativa(m.get(&cnpj).cloned().flatten().as_deref())),
            RuleKind::RegularidadePiorou => {
                let noted =
                    alert.alerta.valores.get("gravidade_anterior").and_then(serde_json::Value::as_i64);
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

/// The alerts of this run at `snapshot`: `fired` (what the rules matched now) against `before`
/// (the alerts of the last snapshot: the open ones may stay open or be resolved), judged on
/// `now`. `rules` is `None` for a run without rules, which carries the open alerts unjudged.
pub fn track(
    rules: Option<&Rules>,
    fired: Vec<Alert>,
    before: Vec<TrackedAlert>,
    now: &Holding,
    snapshot: &str,
) -> Vec<TrackedAlert> {
    let mut open: BTreeMap<(String, String, String), TrackedAlert> =
        before.into_iter().filter(|a| a.estado != Estado::Resolvida).map(|a| (a.identity(), a)).collect();
    let mut out = Vec::new();
    for alert in dedupe(fired) {
        let mut fresh = opened(alert, snapshot);
        now.note_fallen_from(&mut fresh.alerta);
        match open.remove(&fresh.identity()) {
            Some(was) => out.push(matched_again(was, &fresh.alerta)),
            None => out.push(fresh),
        }
    }
    for (_, was) in open {
        let why_not = match rules {
            None => None,
            Some(rules) => reason_resolved(rules, &was, now),
        };
        let restamped = carried(&was.alerta, now, snapshot);
        out.push(match why_not {
            None => still_open(was, &restamped),
            Some(motivo) => TrackedAlert {
                estado: Estado::Resolvida,
                resolvida_em: Some(snapshot.to_string()),
                motivo: Some(motivo.to_string()),
                alerta: restamped,
                ..was
            },
        });
    }
    in_order(&mut out);
    out
}

/// An open alert in this run: what matched when it opened, this run's snapshots.
fn still_open(was: TrackedAlert, now: &Alert) -> TrackedAlert {
    let alerta = Alert {
        snapshot: now.snapshot.clone(),
        snapshot_anterior: now.snapshot_anterior.clone(),
        ..was.alerta
    };
    TrackedAlert { estado: Estado::Aberta, alerta, ..was }
}

/// An open alert its rule matched again: still open, with what matched now where its condition
/// reads the value changed to (a register or partner change that happened again).
fn matched_again(was: TrackedAlert, now: &Alert) -> TrackedAlert {
    let follows_value = RuleKind::parse(now.tipo).is_some_and(RuleKind::follows_a_change);
    let mut open = still_open(was, now);
    if follows_value {
        open.alerta.valores = now.valores.clone();
    }
    open
}

/// An earlier alert restamped with this run's snapshots.
fn carried(alert: &Alert, now: &Holding, snapshot: &str) -> Alert {
    Alert {
        snapshot: Some(snapshot.to_string()),
        snapshot_anterior: now.previous_snapshot.clone(),
        ..alert.clone()
    }
}

/// Why an open alert no longer holds, or `None` while it does.
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
    (!now.holds(rule, alert)).then_some("a condição deixou de valer")
}

/// Whether judging these alerts needs the snapshot's conditions (`Holding::read`): some alert
/// was open, or a fall of standing opens one (it keeps the standing it fell from).
pub fn needs_conditions(fired: &[Alert], before: &[TrackedAlert]) -> bool {
    before.iter().any(|a| a.estado != Estado::Resolvida)
        || fired.iter().any(|a| a.tipo == RuleKind::RegularidadePiorou.name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::lifecycle::{from_frame, subject, to_frame};

    fn rules(text: &str) -> Rules {
        Rules::parse(text, std::path::Path::new("r.toml")).unwrap()
    }

    fn debt_alert(regra: &str, cnpj: &str, numero: &str) -> Alert {
        Alert {
            regra: regra.into(),
            tipo: "nova_inscricao",
            cnpj: cnpj.into(),
            razao_social: None,
            snapshot: Some("202602".into()),
            snapshot_anterior: Some("202601".into()),
            listas: vec![],
            valores: [("chave".to_string(), serde_json::Value::from(numero))].into(),
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

    #[test]
    fn new_then_open_without_firing_then_resolved_then_new_again() {
        let r = rules("[[regra]]\nnome = \"nova\"\ntipo = \"nova_inscricao\"\n");
        let c = "11222333000181";
        let fired = vec![debt_alert("nova", c, "X1"), debt_alert("nova", c, "X1")];
        let m2 = track(Some(&r), fired, vec![], &holding(&[(c, "X1")]), "202602");
        assert_eq!(m2.iter().map(|a| a.estado).collect::<Vec<_>>(), [Estado::Nova], "one alert per identity");
        // The store's round trip keeps what the next run needs.
        let kept = from_frame(&to_frame(&m2).unwrap()).unwrap();
        assert_eq!((kept[0].assunto.as_str(), kept[0].aberta_em.as_str()), ("X1", "202602"));
        let m3 = track(Some(&r), vec![], kept, &holding(&[(c, "X1")]), "202603");
        assert_eq!((m3[0].estado, m3[0].aberta_em.as_str()), (Estado::Aberta, "202602"));
        let m4 = track(Some(&r), vec![], m3, &holding(&[]), "202604");
        assert_eq!((m4[0].estado, m4[0].resolvida_em.as_deref()), (Estado::Resolvida, Some("202604")));
        assert_eq!(m4[0].motivo.as_deref(), Some("a condição deixou de valer"));
        let m5 = track(Some(&r), vec![], m4.clone(), &holding(&[]), "202605");
        assert!(m5.is_empty(), "a resolved alert is not carried");
        let m5 = track(Some(&r), vec![debt_alert("nova", c, "X1")], m4, &holding(&[(c, "X1")]), "202605");
        assert_eq!((m5[0].estado, m5[0].aberta_em.as_str()), (Estado::Nova, "202605"));
        // Without rules the open alerts are carried as they are; a rule taken out resolves them.
        let open = track(Some(&r), vec![debt_alert("nova", c, "X1")], vec![], &holding(&[]), "202602");
        assert_eq!(track(None, vec![], open.clone(), &holding(&[]), "202603")[0].estado, Estado::Aberta);
        let other = rules("[[regra]]\nnome = \"outra\"\ntipo = \"nova_inscricao\"\n");
        let gone = track(Some(&other), vec![], open, &holding(&[(c, "X1")]), "202603");
        assert_eq!(gone[0].motivo.as_deref(), Some("regra retirada do arquivo de regras"));
    }

    fn change_alert(tipo: &'static str, cnpj: &str, values: &[(&str, &str)]) -> TrackedAlert {
        let valores = values.iter().map(|(k, v)| (k.to_string(), serde_json::Value::from(*v))).collect();
        let alerta = Alert {
            regra: "r".into(),
            tipo,
            cnpj: cnpj.into(),
            razao_social: None,
            snapshot: Some("202602".into()),
            snapshot_anterior: Some("202601".into()),
            listas: vec![],
            valores,
        };
        TrackedAlert {
            assunto: subject(&alerta),
            alerta,
            estado: Estado::Nova,
            aberta_em: "202602".into(),
            resolvida_em: None,
            motivo: None,
            carried_from_run: false,
        }
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
        assert!(at(None).holds(&r.rules[0], &dropped));
        assert!(!at(Some("4744005")).holds(&r.rules[0], &dropped), "some came back");
        // Changed again while open: the alert follows the newer value.
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
        assert!(open[0].estado == Estado::Aberta && at(Some("4751201")).holds(&r.rules[0], &open[0]));
        // A register alert stored before its subject named the kind is read with today's.
        let mut stored = to_frame(&open).unwrap();
        stored.with_column(Column::new("assunto".into(), [c])).unwrap();
        let back = from_frame(&stored).unwrap();
        assert_eq!(back[0].assunto, format!("{}|{c}", rules::SECONDARY_CNAES));
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
        let moved = change_alert(
            "mudanca_endereco",
            c,
            &[("chave", c), ("mudanca", rules::STREET), ("valor_novo", "RUA X, 12")],
        );
        let at = |shown: &str| Holding {
            present: Some([c.to_string()].into()),
            register: Some([((c.to_string(), rules::STREET), Some(shown.to_string()))].into()),
            ..Holding::default()
        };
        assert!(at("RUA X,  12").holds(&r.rules[0], &moved), "runs of spaces alike");
        assert!(!at("RUA Y, 7").holds(&r.rules[0], &moved));
        let r = rules("[[regra]]\nnome = \"r\"\ntipo = \"mudanca_socios\"\n");
        let promoted = change_alert(
            "mudanca_socios",
            c,
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
        assert!(with(Some("49")).holds(&r.rules[0], &promoted));
        assert!(!with(Some("22")).holds(&r.rules[0], &promoted), "the qualification changed back");
        assert!(!with(None).holds(&r.rules[0], &promoted), "the partner left");
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
