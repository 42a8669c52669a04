//! "Fontes e períodos": each source's reference period beside the highlights, a flag in words on
//! a stale or failing one, and the short lines that tell each section and the regularity
//! estimate which period their figures come from. The periods and the verdicts are
//! `crate::periods`'s; this module only puts them in the report's words.

use serde::Serialize;

use crate::periods::{PeriodoFonte, Periodos, Tipo};
use crate::report::strings::Strings;

/// The sources in the order an analyst reads them: what the figures rest on first.
const ORDER: [&str; 6] = ["creditos", "pgfn", "cnpj", "rfb", "cno", "cafir"];

#[derive(Debug, Clone, Serialize)]
pub struct SourceRow {
    pub key: String,
    /// The source's name in the report's language (`fonte_nome_<key>`), else its key.
    pub name: String,
    pub period: String,
    pub status: String,
    pub flagged: bool,
    /// Why it is flagged, in words (empty when it is not).
    pub note: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Sources {
    pub rows: Vec<SourceRow>,
    pub flagged: usize,
    /// The month the periods were measured against (`AAAA-MM`).
    pub reference: Option<String>,
    pub limit_quarters: i32,
    pub limit_months: i32,
    /// The line under the credit sections' headings.
    pub credits: Option<String>,
    /// The line under the portfolio sections' headings.
    pub portfolio: Option<String>,
    /// What date the regularity estimate holds for.
    pub estimate: Option<String>,
    /// The files a folder of the run held that no reader takes (`--open-data`, `--listas-dir`).
    pub unread: Vec<String>,
    /// The lists expected in that folder and missing, each with why it was expected.
    pub listas_missing: Vec<String>,
}

impl Sources {
    /// With what the manifest says the run's folders held unread or lacked, in `t`'s words:
    /// nothing skipped is left out of the report.
    pub fn with_unread(mut self, manifest: &crate::export::manifest::Manifest, t: &Strings) -> Self {
        let (unread, missing) = match (&manifest.open_data, &manifest.listas_dir) {
            (Some(note), _) => (&note.unread, &note.listas_ausentes),
            (None, Some(note)) => (&note.unread, &note.listas_ausentes),
            (None, None) => return self,
        };
        self.unread = unread.clone();
        self.listas_missing = missing
            .iter()
            .map(|m| {
                format!(
                    "{} ({})",
                    t.get(&format!("lista_nome_{}", m.lista)),
                    t.get(&format!("lista_esperada_{}", m.motivo))
                )
            })
            .collect();
        self
    }
}

/// A source's period as the report writes it: `2026T3`, `2026-09`, `2025-10 a 2026-09`.
fn period_text(p: &PeriodoFonte, t: &Strings) -> String {
    match (p.tipo, &p.primeiro, &p.ultimo) {
        (Tipo::Meses, Some(a), Some(b)) if a == b => a.clone(),
        (Tipo::Meses, Some(a), Some(b)) => format!("{a} {} {b}", t.get("periodo_ate")),
        _ => p.periodo.clone().unwrap_or_else(|| "—".to_string()),
    }
}

/// `⚠ DEFASADA: 3 trimestres antes de 2026-09 (limite: 1)`, `⚠ COM FALHA: situação "x"`.
fn note(p: &PeriodoFonte, all: &Periodos, t: &Strings) -> String {
    let mut parts = Vec::new();
    match p.status.as_deref().map(str::trim) {
        // `--open-data`: a dataset no published file carries.
        Some(s) if s.eq_ignore_ascii_case("ausente") => parts.push(format!("⚠ {}", t.get("fonte_ausente"))),
        Some(s) if !s.eq_ignore_ascii_case("ok") => {
            parts.push(format!("⚠ {}: {} “{s}”", t.get("fonte_com_falha"), t.get("fonte_situacao_informada")))
        }
        _ => {}
    }
    let (unit, limit) = match p.tipo {
        Tipo::Trimestre => (t.get("fonte_trimestres"), all.limite_trimestres),
        _ => (t.get("meses"), all.limite_meses),
    };
    if let (Some(lag), Some(reference)) = (p.atraso.filter(|l| *l > limit), all.referencia.as_deref()) {
        parts.push(format!(
            "⚠ {}: {lag} {unit} {} {reference} ({} {limit})",
            t.get("fonte_defasada"),
            t.get("fonte_antes_de"),
            t.get("fonte_limite")
        ));
    }
    if p.nos_registros.len() > 1 && p.tipo != Tipo::Meses {
        parts.push(format!("{} {}", t.get("fonte_varios_periodos"), p.nos_registros.join(", ")));
    }
    parts.join("; ")
}

fn row(key: &str, p: &PeriodoFonte, all: &Periodos, t: &Strings) -> SourceRow {
    let name_key = format!("fonte_nome_{key}");
    let name = t.get(&name_key);
    SourceRow {
        key: key.to_string(),
        name: if name == name_key { key.to_string() } else { name },
        period: period_text(p, t),
        status: p.status.clone().unwrap_or_default(),
        flagged: p.defasada,
        note: note(p, all, t),
    }
}

/// `<label> <period>`, with the flag when the source is flagged.
fn labelled(label: String, p: &PeriodoFonte, t: &Strings) -> String {
    let flag = if p.defasada { format!(" (⚠ {})", t.get("fonte_sinalizada")) } else { String::new() };
    format!("{label} {}{flag}", period_text(p, t))
}

fn portfolio_line(periods: &Periodos, t: &Strings) -> Option<String> {
    let parts: Vec<String> =
        [("pgfn", "periodo_divida_ativa"), ("cnpj", "periodo_cadastro"), ("rfb", "periodo_rfb")]
            .iter()
            .filter_map(|(k, label)| periods.get(k).map(|p| labelled(t.get(label), p, t)))
            .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The block, the flags and the period lines of `periods` in the words of `t`.
pub fn sources(periods: &Periodos, t: &Strings) -> Sources {
    let known = ORDER.iter().filter_map(|k| periods.get(k).map(|p| (*k, p)));
    let others =
        periods.fontes.iter().filter(|(k, _)| !ORDER.contains(&k.as_str())).map(|(k, p)| (k.as_str(), p));
    let rows: Vec<SourceRow> = known.chain(others).map(|(k, p)| row(k, p, periods, t)).collect();
    Sources {
        flagged: rows.iter().filter(|r| r.flagged).count(),
        rows,
        reference: periods.referencia.clone(),
        limit_quarters: periods.limite_trimestres,
        limit_months: periods.limite_meses,
        credits: periods.get("creditos").map(|p| labelled(t.get("periodo_creditos"), p, t)),
        portfolio: portfolio_line(periods, t),
        estimate: periods.get("pgfn").map(|p| labelled(t.get("periodo_estimativa"), p, t)),
        unread: Vec::new(),
        listas_missing: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::models::Fonte;
    use crate::periods::PeriodsSeen;
    use crate::report::format::Locale;

    fn periods(pgfn: &str, cnpj_status: &str) -> Periodos {
        let fonte = |s: &str, v: &str| Fonte { status: Some(s.into()), versao: Some(v.into()) };
        let fontes = [("pgfn", fonte("ok", pgfn)), ("cnpj", fonte(cnpj_status, "2026-09"))]
            .into_iter()
            .map(|(k, f)| (k.to_string(), f))
            .collect();
        let seen: PeriodsSeen =
            [("creditos_ativos".to_string(), ["202510".to_string(), "202609".to_string()].into())].into();
        Periodos::of(&seen, &fontes, &[])
    }

    #[test]
    fn a_current_run_names_its_periods_without_flags() {
        let s = sources(&periods("2026T3", "ok"), &Strings::builtin(Locale::PtBr));
        assert_eq!(s.flagged, 0);
        assert_eq!(s.credits.as_deref(), Some("Créditos de 2025-10 a 2026-09"));
        assert_eq!(s.portfolio.as_deref(), Some("Dívida ativa: PGFN 2026T3; cadastro: CNPJ 2026-09"));
        assert_eq!(s.estimate.as_deref(), Some("Estimativa com a dívida ativa de 2026T3"));
        assert_eq!(s.rows[0].key, "creditos");
    }

    #[test]
    fn an_old_quarter_and_a_failing_source_are_flagged_in_words() {
        let s = sources(&periods("2025T4", "indisponivel"), &Strings::builtin(Locale::PtBr));
        assert_eq!(s.flagged, 2);
        let pgfn = s.rows.iter().find(|r| r.key == "pgfn").unwrap();
        assert!(pgfn.note.contains("DEFASADA") && pgfn.note.contains("3 trimestres"), "{}", pgfn.note);
        let cnpj = s.rows.iter().find(|r| r.key == "cnpj").unwrap();
        assert!(cnpj.note.contains("indisponivel"), "{}", cnpj.note);
        assert!(s.estimate.unwrap_or_default().contains("2025T4 (⚠"));
    }
}
