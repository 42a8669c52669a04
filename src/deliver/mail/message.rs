//! The e-mail's words, in pt-BR: the subject (the month, the headline figure, the new alerts)
//! and the same summary as plain text and as HTML. Every figure comes from the report's digest
//! and is written with the report's own formats.

use rust_decimal::Decimal;

use crate::report::digest::Digest;
use crate::report::format::{self, Locale};

const PT: Locale = Locale::PtBr;
/// The mark of synthetic data, first in the subject and the body.
pub(crate) const DEMO_MARK: &str = "[DEMONSTRAÇÃO]";
/// Companies with new alerts listed in the body (the report lists them all).
const LISTED: usize = 20;

/// Where the report and what was not attached can be read, and what was attached.
#[derive(Debug, Clone, Default)]
pub(crate) struct Carried {
    /// The report itself (`--report-url`, or where `--out` put it in a bucket).
    pub link: Option<String>,
    pub attached: Vec<String>,
    /// Too large to attach: the file and, when there is one, its link.
    pub left_out: Vec<(String, Option<String>)>,
    pub cap_mb: u64,
}

/// The subject, the plain text and the HTML of the message about `month` (AAAAMM).
pub(crate) struct Composed {
    pub subject: String,
    pub text: String,
    pub html: String,
}

fn dec(s: Option<&str>) -> Option<Decimal> {
    s.and_then(|s| s.parse().ok())
}

/// `1 alerta novo`, `3 alertas novos`.
fn new_alerts_words(n: usize) -> String {
    if n == 1 { "1 alerta novo".into() } else { format!("{n} alertas novos") }
}

pub(crate) fn subject(digest: &Digest, month: &str) -> String {
    let mut s = String::new();
    if digest.demo {
        s.push_str(DEMO_MARK);
        s.push(' ');
    }
    s.push_str(&format!("Relatório fiscal {}", format::month(month, PT)));
    let mut parts = Vec::new();
    if let Some(total) = dec(digest.headline.as_ref().and_then(|h| h.total.as_deref())) {
        parts.push(format!("{} em cobrança", format::money_compact(total, PT)));
    }
    if let Some(n) = digest.new_alerts() {
        parts.push(new_alerts_words(n));
    }
    if !parts.is_empty() {
        s.push_str(": ");
        s.push_str(&parts.join(", "));
    }
    s
}

/// One block of the message: a heading and its lines (a line may be indented one step).
struct Block {
    heading: String,
    lines: Vec<(u8, String)>,
}

fn highlights(digest: &Digest) -> Option<Block> {
    let h = digest.headline.as_ref()?;
    let mut lines = Vec::new();
    if let Some(total) = dec(h.total.as_deref()) {
        lines.push((0, format!("Créditos ativos: {}", format::money(total, PT))));
    }
    let change = |label: &str, d: Option<&str>, pct: Option<f64>| {
        dec(d).map(|d| {
            let pct = pct.map(|p| format!(" ({})", format::delta_percent(p, PT))).unwrap_or_default();
            format!("{label}: {}{pct}", format::delta_money(d, PT))
        })
    };
    lines.extend(change("Variação no mês", h.change_month.as_deref(), h.change_month_pct).map(|l| (0, l)));
    lines.extend(change("Variação em 12 meses", h.change_year.as_deref(), h.change_year_pct).map(|l| (0, l)));
    if let Some(ufs) = h.ufs {
        lines.push((0, format!("UFs cobertas: {ufs}")));
    }
    if let Some(n) = h.companies {
        lines.push((0, format!("Empresas da carteira encontradas: {n}")));
    }
    Some(Block { heading: format!("Destaques de {}", format::month(&h.month, PT)), lines })
}

fn changes(digest: &Digest) -> Option<Block> {
    let c = digest.changes.as_ref()?;
    let mut lines = Vec::new();
    let heading = match c.snapshot_anterior.as_deref().filter(|_| c.compared) {
        Some(before) => format!("O que mudou na carteira desde {}", format::month(before, PT)),
        None => "O que mudou na carteira".to_string(),
    };
    if !c.compared {
        lines.push((0, "Primeiro retrato da carteira: não há um anterior com que comparar.".to_string()));
    } else if c.total == 0 {
        lines.push((0, "Nenhuma mudança desde o retrato anterior.".to_string()));
    } else {
        lines.push((0, format!("{} mudança(s) em {} empresa(s)", c.total, c.companies)));
        for k in &c.by_kind {
            let money = dec(k.variacao.as_deref())
                .map(|v| format!(" ({})", format::delta_money(v, PT)))
                .unwrap_or_default();
            lines.push((1, format!("{}: {}{money}", k.kind, k.count)));
        }
    }
    Some(Block { heading, lines })
}

fn new_alerts(digest: &Digest) -> Option<Block> {
    let c = digest.changes.as_ref().filter(|c| c.rules)?;
    let mut lines = Vec::new();
    if c.companies_new.is_empty() {
        lines.push((0, "Nenhum alerta novo neste retrato.".to_string()));
    }
    for company in c.companies_new.iter().take(LISTED) {
        let who = company.razao_social.as_deref().unwrap_or("(sem razão social)");
        lines.push((
            0,
            format!("{who} ({}), severidade {}", format::mask_cnpj(&company.cnpj), company.severidade),
        ));
        for a in &company.alerts {
            let stake =
                dec(a.at_stake.as_deref()).map(|d| format!(", {}", format::money(d, PT))).unwrap_or_default();
            lines
                .push((1, format!("{} ({}): {} gatilho(s){stake}", a.regra, a.severidade, a.triggers.len())));
        }
    }
    let more = c.companies_new.len().saturating_sub(LISTED);
    if more > 0 {
        lines.push((0, format!("e mais {more} empresa(s): veja o relatório")));
    }
    Some(Block { heading: format!("Alertas novos ({})", c.alerts_new), lines })
}

fn delivery(carried: &Carried) -> Block {
    let mut lines = Vec::new();
    if let Some(link) = &carried.link {
        lines.push((0, format!("Relatório completo: {link}")));
    }
    if !carried.attached.is_empty() {
        lines.push((0, format!("Anexos: {}", carried.attached.join(", "))));
    }
    for (file, link) in &carried.left_out {
        let at = link.as_deref().map(|l| format!(": {l}")).unwrap_or_default();
        lines.push((0, format!("Não anexado (acima de {} MB): {file}{at}", carried.cap_mb)));
    }
    Block { heading: "O relatório".into(), lines }
}

fn blocks(digest: &Digest, carried: &Carried) -> Vec<Block> {
    [highlights(digest), changes(digest), new_alerts(digest), Some(delivery(carried))]
        .into_iter()
        .flatten()
        .filter(|b| !b.lines.is_empty())
        .collect()
}

const DEMO_LINE: &str =
    "Dados sintéticos do registro embutido (demonstração): nenhum número desta mensagem é real.";

/// The message about the report of `month` (AAAAMM).
pub(crate) fn compose(digest: &Digest, month: &str, carried: &Carried) -> Composed {
    let title = format!("Relatório fiscal de {}", format::month(month, PT));
    let blocks = blocks(digest, carried);
    let mut text = String::new();
    let mut html = String::from(
        "<!DOCTYPE html>\n<html lang=\"pt-BR\"><head><meta charset=\"utf-8\"></head>\
         <body style=\"font-family:sans-serif\">\n",
    );
    let esc = handlebars::html_escape;
    if digest.demo {
        text.push_str(&format!("{DEMO_MARK} {DEMO_LINE}\n\n"));
        html.push_str(&format!("<p><strong>{}</strong> {}</p>\n", esc(DEMO_MARK), esc(DEMO_LINE)));
    }
    text.push_str(&format!("{title}\n"));
    html.push_str(&format!("<h1>{}</h1>\n", esc(&title)));
    for b in &blocks {
        text.push_str(&format!("\n{}\n", b.heading));
        html.push_str(&format!("<h2>{}</h2>\n<ul>\n", esc(&b.heading)));
        let mut open_sub = false;
        for (depth, line) in &b.lines {
            text.push_str(&format!("{}- {line}\n", "  ".repeat(usize::from(*depth))));
            match (*depth, open_sub) {
                (0, true) => {
                    html.push_str("</ul></li>\n");
                    open_sub = false;
                }
                (1.., false) => {
                    html.push_str("<li><ul>\n");
                    open_sub = true;
                }
                _ => {}
            }
            html.push_str(&format!("<li>{}</li>\n", linked(&esc(line))));
        }
        if open_sub {
            html.push_str("</ul></li>\n");
        }
        html.push_str("</ul>\n");
    }
    text.push_str("\n-- \nfiscal-report\n");
    html.push_str("<p style=\"color:#666\">fiscal-report</p>\n</body></html>\n");
    Composed { subject: subject(digest, month), text, html }
}

/// An escaped line whose URL (after `: `) becomes a link.
fn linked(line: &str) -> String {
    match line.split_once(": https://").or_else(|| line.split_once(": http://")) {
        Some((label, _)) => {
            let url = &line[label.len() + 2..];
            format!("{label}: <a href=\"{url}\">{url}</a>")
        }
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::view::Headline;

    fn digest(demo: bool) -> Digest {
        Digest {
            demo,
            headline: Some(Headline {
                month: "202609".into(),
                total: Some("1234567890.12".into()),
                change_month: Some("-1500.5".into()),
                change_month_pct: Some(-0.25),
                change_year: None,
                change_year_pct: None,
                ufs: Some(27),
                companies: Some(200),
            }),
            changes: None,
            alerts: None,
        }
    }

    #[test]
    fn the_subject_names_the_month_the_figure_and_marks_the_demo() {
        assert_eq!(subject(&digest(false), "202609"), "Relatório fiscal set/2026: R$ 1,2 bi em cobrança");
        assert!(subject(&digest(true), "202609").starts_with("[DEMONSTRAÇÃO] Relatório fiscal set/2026"));
        let text = compose(&digest(true), "202609", &Carried::default()).text;
        assert!(text.contains("Créditos ativos: R$ 1.234.567.890,12"), "{text}");
        assert!(text.contains("Variação no mês: ▼ -R$ 1.500,50"), "{text}");
        assert!(!text.contains("12 meses"), "a figure the report lacks is left out: {text}");
    }
}
