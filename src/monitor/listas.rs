//! The `lista_restritiva` watch rule: a portfolio company on a public list with a sanction in
//! force (`sancoes`, `queries/27_sancoes.sql`), on the lists (`listas_publicas`) and by the
//! links (`vinculos`) the rule names. Unlike the other kinds it reads the snapshot's state, not
//! its changes: it fires every run while the company is listed (the first run on a store too),
//! so its alert stays open while that lasts and is resolved the run it no longer fires.

use std::collections::{BTreeMap, BTreeSet};

use polars::prelude::DataFrame;
use toml::Spanned;

use super::alerts::{Alert, Gatilho};
use super::rules::{Checker, Rule, RuleKind, Rules, RulesError};
use crate::analyze::cells::text;

/// The lists `sancoes.lista` names, as `api::listas` defines them: all of them, or those that
/// restrict dealing with a party, which a rule watches unless it names some (a politically
/// exposed partner is no sanction, so PEP is watched only when named).
fn codigos(restrictive_only: bool) -> Vec<&'static str> {
    let all = crate::api::listas::LISTAS.iter();
    all.filter(|d| d.restritiva || !restrictive_only).map(|d| d.codigo).collect()
}

/// The links `sancoes.vinculo` names, and the ones a rule watches unless it says.
pub(crate) const LINKS: [&str; 5] = crate::analyze::sancoes::VINCULOS;
pub(crate) const DEFAULT_LINKS: [&str; 2] = ["cnpj", "raiz"];

/// The query result the rule reads.
const SANCOES: &str = "sancoes";

impl Checker<'_> {
    /// A rule's `listas_publicas` and `vinculos`, checked (`names`).
    pub(super) fn listas_and_links(
        &self,
        this: (&str, RuleKind),
        listas: &Option<Spanned<Vec<String>>>,
        vinculos: &Option<Spanned<Vec<String>>>,
    ) -> Result<(BTreeSet<String>, BTreeSet<String>), RulesError> {
        Ok((
            names(self, this, ("listas_publicas", listas), &codigos(false), &codigos(true))?,
            names(self, this, ("vinculos", vinculos), &LINKS, &DEFAULT_LINKS)?,
        ))
    }
}

/// A rule's `listas_publicas` or `vinculos`: each one of `known`; `default` when the rule
/// says none; refused on a rule of another kind.
fn names(
    check: &Checker<'_>,
    (nome, kind): (&str, RuleKind),
    (field, value): (&str, &Option<Spanned<Vec<String>>>),
    known: &[&str],
    default: &[&str],
) -> Result<BTreeSet<String>, RulesError> {
    let Some(v) = value else { return Ok(default.iter().map(|s| s.to_string()).collect()) };
    let at = v.span().start;
    if kind != RuleKind::ListaRestritiva {
        let problem = format!("rule {nome:?}: a {} rule takes no {field}", kind.name());
        return Err(check.invalid(at, problem, &format!("remove {field}, or use tipo lista_restritiva")));
    }
    let form = known.join(", ");
    let mut out = BTreeSet::new();
    for name in v.get_ref() {
        let name = name.trim();
        if !known.contains(&name) {
            let problem = format!("rule {nome:?}: {field} names {name:?}, which is none of them");
            return Err(check.invalid(at, problem, &format!("write some of {form}")));
        }
        out.insert(name.to_string());
    }
    if out.is_empty() {
        let problem = format!("rule {nome:?}: {field} is empty");
        return Err(check.invalid(
            at,
            problem,
            &format!("name some of {form}, or leave {field} out for the default"),
        ));
    }
    Ok(out)
}

impl Rules {
    /// The alerts of a `lista_restritiva` rule: one trigger per record of `sancoes` in force on
    /// its lists by its links, for the companies it covers.
    pub(super) fn sancoes_triggers(
        &self,
        rule: &Rule,
        aggregates: &crate::analyze::Aggregates,
    ) -> Vec<(Alert, Gatilho)> {
        let Some(df) = aggregates.get(SANCOES) else { return Vec::new() };
        let Ok(vigente) = df.column("vigente").and_then(|c| c.bool().cloned()) else { return Vec::new() };
        let mut out = Vec::new();
        for i in 0..df.height() {
            let (Some(lista), Some(vinculo)) = (text(df, "lista", i), text(df, "vinculo", i)) else {
                continue;
            };
            if vigente.get(i) != Some(true)
                || !rule.listas_publicas.contains(&lista)
                || !rule.vinculos.contains(&vinculo)
            {
                continue;
            }
            let Some(alert) = self.alert(rule, df, i) else { continue };
            out.push((alert, trigger(rule, df, i)));
        }
        out
    }
}

/// The trigger of row `i` of `sancoes`: the record (list, document as listed, start), how it
/// reaches the company, and the list's date.
fn trigger(rule: &Rule, df: &DataFrame, i: usize) -> Gatilho {
    let mut valores = BTreeMap::new();
    for k in ["lista", "vinculo", "sancionado", "nome", "categoria", "orgao", "inicio", "fim", "fonte"] {
        valores.insert(k.to_string(), text(df, k, i).into());
    }
    let valor = text(df, "valor_multa", i);
    Gatilho::new(rule.kind.subject(&valores), valores, valor, text(df, "data_lista", i), "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn parse(text: &str) -> Result<Rules, RulesError> {
        Rules::parse(text, Path::new("regras.toml"))
    }

    #[test]
    fn lists_and_links_default_to_all_lists_by_cnpj_and_root_and_are_checked() {
        let rule = "[[regra]]\nnome = \"x\"\ntipo = \"lista_restritiva\"\n";
        let r = parse(rule).unwrap();
        assert_eq!(r.rules[0].listas_publicas, codigos(true).into_iter().map(String::from).collect());
        assert_eq!(r.rules[0].vinculos, ["cnpj", "raiz"].map(String::from).into());
        let some = parse(&format!("{rule}listas_publicas = [\"CEIS\", \"IBAMA\"]\nvinculos = [\"grupo\"]\n"))
            .unwrap();
        assert_eq!(some.rules[0].listas_publicas, ["CEIS", "IBAMA"].map(String::from).into());
        assert_eq!(some.rules[0].vinculos, ["grupo"].map(String::from).into());
        let cases = [
            (format!("{rule}listas_publicas = [\"SERASA\"]\n"), 4, "write some of CEIS"),
            (format!("{rule}vinculos = []\n"), 4, "leave vinculos out"),
            (
                "[[regra]]\nnome = \"x\"\ntipo = \"saiu_de_ativa\"\nvinculos = [\"cnpj\"]\n".into(),
                4,
                "tipo lista_restritiva",
            ),
        ];
        for (text, line, fix) in cases {
            let e = parse(&text).unwrap_err().to_string();
            assert!(e.contains(&format!("regras.toml, line {line}:")) && e.contains(fix), "{e}");
        }
    }
}
