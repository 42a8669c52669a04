//! Number, money and month formatting for the two report locales. Money is formatted from its
//! exact decimal, never through a float; only shares and percentages (already floats in the
//! aggregates) are.

use rust_decimal::Decimal;

/// The language and number format of a report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub enum Locale {
    /// R$ 1.234.567,89 and jan/2024
    #[default]
    PtBr,
    /// R$ 1,234,567.89 and Jan 2024
    En,
}

struct Seps {
    thousands: char,
    decimal: char,
}

fn seps(l: Locale) -> Seps {
    match l {
        Locale::PtBr => Seps { thousands: '.', decimal: ',' },
        Locale::En => Seps { thousands: ',', decimal: '.' },
    }
}

/// `1234567.891` with 2 places -> `1.234.567,89` (pt-BR), rounding half away from zero.
pub fn number(d: Decimal, places: u32, l: Locale) -> String {
    let s = seps(l);
    let r = d.round_dp_with_strategy(places, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
    let neg = r.is_sign_negative() && !r.is_zero();
    let text = r.abs().to_string();
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    out.push_str(&crate::api::forms::group_thousands(int, s.thousands));
    if places > 0 {
        out.push(s.decimal);
        let mut f = frac.to_string();
        while f.len() < places as usize {
            f.push('0');
        }
        out.push_str(&f[..places as usize]);
    }
    out
}

/// Whether a change of `mudancas` (its `tabela` and `mudanca`) has amounts in R$ for values:
/// a debt's, plan's or settlement's, and the share capital's.
pub fn change_in_money(table: &str, kind: &str) -> bool {
    use crate::tables::Table;
    [Table::DividasPgfn, Table::ParcelamentosRfb, Table::TransacoesRfb].iter().any(|t| t.name() == table)
        || kind == crate::monitor::rules::CAPITAL
}

/// `R$ 1.234.567,89`.
pub fn money(d: Decimal, l: Locale) -> String {
    let n = number(d.abs(), 2, l);
    if d.is_sign_negative() && !d.is_zero() { format!("-R$ {n}") } else { format!("R$ {n}") }
}

/// The compact figure as shown (rounded) and its unit (pt-BR, en), if any.
fn compact_parts(abs: Decimal) -> (Decimal, Option<(&'static str, &'static str)>) {
    // Smallest first, so a figure that rounds up to the next unit's size moves up one step.
    const UNITS: [(i64, &str, &str); 4] = [
        (1_000, "mil", "k"),
        (1_000_000, "mi", "mn"),
        (1_000_000_000, "bi", "bn"),
        (1_000_000_000_000, "tri", "tn"),
    ];
    let round = |v: Decimal, places: u32| {
        v.round_dp_with_strategy(places, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
    };
    let thousand = Decimal::from(1_000);
    // The unit is chosen on the rounded figure, else 999,96 mi would print as "1.000,0 mi".
    let mut shown = round(abs, 2);
    let mut unit = None;
    for (size, pt, en) in UNITS {
        if shown < thousand {
            break;
        }
        shown = round(abs / Decimal::from(size), 1);
        unit = Some((pt, en));
    }
    (shown, unit)
}

/// `R$ 1,2 bi`, `R$ 3,4 mi`, `R$ 12,3 mil` (pt-BR) or `R$ 1.2 bn`, `R$ 3.4 mn`, `R$ 12.3 k` (en).
pub fn money_compact(d: Decimal, l: Locale) -> String {
    let (shown, unit) = compact_parts(d.abs());
    let sign = if d.is_sign_negative() && !shown.is_zero() { "-" } else { "" };
    match unit {
        Some((pt, en)) => {
            let unit = if l == Locale::PtBr { pt } else { en };
            format!("{sign}R$ {} {unit}", number(shown, 1, l))
        }
        None => format!("{sign}R$ {}", number(shown, 2, l)),
    }
}

/// `12,3%` from a percentage (12.3).
pub fn percent(p: f64, places: u32, l: Locale) -> String {
    let d = Decimal::from_f64_retain(p).unwrap_or_default();
    format!("{}%", number(d, places, l))
}

/// The arrow and sign of a change: colour is never the only cue.
pub fn arrow(v: f64) -> &'static str {
    if v > 0.0 {
        "▲"
    } else if v < 0.0 {
        "▼"
    } else {
        "="
    }
}

/// The arrow of a money change, from the figure as shown so a change that rounds to zero is flat.
fn arrow_money(shown: Decimal) -> (&'static str, &'static str) {
    if shown.is_zero() {
        ("=", "")
    } else if shown.is_sign_negative() {
        ("▼", "")
    } else {
        ("▲", "+")
    }
}

/// `▲ +R$ 1.234,56`: exact to the cent, for tables where it sits next to exact amounts.
pub fn delta_money(d: Decimal, l: Locale) -> String {
    let shown = d.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
    let (arrow, sign) = arrow_money(shown);
    format!("{arrow} {sign}{}", money(shown, l))
}

/// `▲ +R$ 1,5 mi`: for the headline cards, which show compact figures on purpose.
pub fn delta_money_compact(d: Decimal, l: Locale) -> String {
    let (shown, _) = compact_parts(d.abs());
    let (arrow, sign) = if shown.is_zero() { ("=", "") } else { arrow_money(d) };
    format!("{arrow} {sign}{}", money_compact(d, l))
}

pub fn delta_percent(p: f64, l: Locale) -> String {
    let sign = if p > 0.0 { "+" } else { "" };
    format!("{} {sign}{}", arrow(p), percent(p, 1, l))
}

const MONTHS_PT: [&str; 12] =
    ["jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez"];
const MONTHS_EN: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// `202401` -> `jan/2024` or `Jan 2024`; anything else is returned as given.
pub fn month(ano_mes: &str, l: Locale) -> String {
    let ok = ano_mes.len() == 6 && ano_mes.bytes().all(|b| b.is_ascii_digit());
    let m: usize = if ok { ano_mes[4..].parse().unwrap_or(0) } else { 0 };
    if !(1..=12).contains(&m) {
        return ano_mes.to_string();
    }
    match l {
        Locale::PtBr => format!("{}/{}", MONTHS_PT[m - 1], &ano_mes[..4]),
        Locale::En => format!("{} {}", MONTHS_EN[m - 1], &ano_mes[..4]),
    }
}

/// `12.345.678/0001-95` for a 14-digit CNPJ; other text unchanged.
pub fn mask_cnpj(s: &str) -> String {
    if s.len() == 14 && s.bytes().all(|b| b.is_ascii_digit()) {
        format!("{}.{}.{}/{}-{}", &s[0..2], &s[2..5], &s[5..8], &s[8..12], &s[12..14])
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn money_in_both_locales() {
        assert_eq!(money(d("1234567.89"), Locale::PtBr), "R$ 1.234.567,89");
        assert_eq!(money(d("1234567.89"), Locale::En), "R$ 1,234,567.89");
        assert_eq!(money(d("-0.5"), Locale::PtBr), "-R$ 0,50");
        assert_eq!(money(d("999.995"), Locale::PtBr), "R$ 1.000,00");
        assert_eq!(money_compact(d("1234567890"), Locale::PtBr), "R$ 1,2 bi");
        assert_eq!(money_compact(d("3400000"), Locale::PtBr), "R$ 3,4 mi");
        assert_eq!(money_compact(d("3400000"), Locale::En), "R$ 3.4 mn");
        assert_eq!(money_compact(d("-2500000000000"), Locale::PtBr), "-R$ 2,5 tri");
    }

    #[test]
    fn percents_months_deltas() {
        assert_eq!(percent(12.345, 1, Locale::PtBr), "12,3%");
        assert_eq!(delta_percent(-0.54, Locale::En), "▼ -0.5%");
        assert_eq!(delta_money_compact(d("1500000"), Locale::PtBr), "▲ +R$ 1,5 mi");
        assert_eq!(month("202401", Locale::PtBr), "jan/2024");
        assert_eq!(month("202412", Locale::En), "Dec 2024");
        assert_eq!(month("2024", Locale::En), "2024");
        assert_eq!(mask_cnpj("33683111000280"), "33.683.111/0002-80");
    }

    #[test]
    fn compact_unit_is_chosen_after_rounding() {
        assert_eq!(money_compact(d("999960000"), Locale::PtBr), "R$ 1,0 bi");
        assert_eq!(money_compact(d("999949999"), Locale::PtBr), "R$ 999,9 mi");
        assert_eq!(money_compact(d("-999960000"), Locale::En), "-R$ 1.0 bn");
        assert_eq!(money_compact(d("999960"), Locale::PtBr), "R$ 1,0 mi");
        assert_eq!(money_compact(d("999999999960"), Locale::PtBr), "R$ 1,0 tri");
        assert_eq!(money_compact(d("999.995"), Locale::PtBr), "R$ 1,0 mil");
        assert_eq!(money_compact(d("999.99"), Locale::PtBr), "R$ 999,99");
        assert_eq!(money_compact(d("-0.001"), Locale::PtBr), "R$ 0,00");
    }

    #[test]
    fn table_deltas_are_exact() {
        assert_eq!(delta_money(d("21000000000.37"), Locale::PtBr), "▲ +R$ 21.000.000.000,37");
        assert_eq!(delta_money(d("-1234.565"), Locale::PtBr), "▼ -R$ 1.234,57");
        assert_eq!(delta_money(d("-1234.5"), Locale::En), "▼ -R$ 1,234.50");
        assert_eq!(delta_money(d("0"), Locale::PtBr), "= R$ 0,00");
        assert_eq!(delta_money(d("-0.004"), Locale::PtBr), "= R$ 0,00");
        assert_eq!(delta_money_compact(d("-21000000000"), Locale::PtBr), "▼ -R$ 21,0 bi");
        assert_eq!(delta_money_compact(d("0"), Locale::PtBr), "= R$ 0,00");
    }
}
