//! Handlebars helpers for formatting, so templates stay declarative: `{{money v}}`,
//! `{{money_compact v}}`, `{{pct v}}`, `{{delta_money v}}` (exact), `{{delta_money_compact v}}`,
//! `{{delta_pct v}}`, `{{delta_class v}}`, `{{month m}}`, `{{int n}}`, `{{cnpj c}}`, `{{cell v kind}}`.
//!
//! Each helper escapes its own output with the engine's escape function (HTML or Markdown),
//! since helper output bypasses handlebars' escaping.

use std::str::FromStr;

use handlebars::{Context, Handlebars, Helper, HelperDef, HelperResult, Output, RenderContext};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde_json::Value;

use super::format;
use crate::report::format::Locale;

#[derive(Clone, Copy)]
enum Kind {
    Money,
    MoneyCompact,
    Pct,
    DeltaMoney,
    DeltaMoneyCompact,
    DeltaPct,
    DeltaClass,
    Month,
    Int,
    Cnpj,
    Cell,
}

struct Fmt {
    kind: Kind,
    locale: Locale,
    escape: fn(&str) -> String,
}

fn decimal(v: &Value) -> Option<Decimal> {
    match v {
        Value::String(s) => Decimal::from_str(s).ok(),
        Value::Number(n) => {
            n.as_i64().map(Decimal::from).or_else(|| n.as_f64().and_then(Decimal::from_f64_retain))
        }
        _ => None,
    }
}

fn float(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// What shows for a missing value.
const NONE: &str = "—";

impl Fmt {
    fn render(&self, v: &Value, extra: Option<&Value>) -> String {
        let l = self.locale;
        match self.kind {
            Kind::Money => decimal(v).map_or(NONE.into(), |d| format::money(d, l)),
            Kind::MoneyCompact => decimal(v).map_or(NONE.into(), |d| format::money_compact(d, l)),
            Kind::Pct => float(v).map_or(NONE.into(), |p| format::percent(p, 1, l)),
            Kind::DeltaMoney => decimal(v).map_or(NONE.into(), |d| format::delta_money(d, l)),
            Kind::DeltaMoneyCompact => decimal(v).map_or(NONE.into(), |d| format::delta_money_compact(d, l)),
            Kind::DeltaPct => float(v).map_or(NONE.into(), |p| format::delta_percent(p, l)),
            Kind::DeltaClass => {
                let x = float(v).or_else(|| decimal(v).and_then(|d| d.to_f64()));
                match x {
                    Some(x) if x > 0.0 => "up".into(),
                    Some(x) if x < 0.0 => "down".into(),
                    Some(_) => "flat".into(),
                    None => "none".into(),
                }
            }
            Kind::Month => v.as_str().map_or(NONE.into(), |m| format::month(m, l)),
            Kind::Int => match v {
                Value::Number(n) => {
                    n.as_i64().map_or(NONE.into(), |i| format::number(Decimal::from(i), 0, l))
                }
                _ => NONE.into(),
            },
            Kind::Cnpj => v.as_str().map_or(NONE.into(), format::mask_cnpj),
            Kind::Cell => match (v, extra.and_then(Value::as_str)) {
                (Value::Null, _) => NONE.into(),
                (v, Some("money")) => decimal(v).map_or(NONE.into(), |d| format::money(d, l)),
                (v, Some("number")) => match decimal(v) {
                    Some(d) if d.fract().is_zero() => format::number(d, 0, l),
                    Some(d) => format::number(d, 2, l),
                    None => v.as_str().unwrap_or(NONE).to_string(),
                },
                (Value::String(s), _) => s.clone(),
                (other, _) => other.to_string(),
            },
        }
    }
}

impl HelperDef for Fmt {
    fn call<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        _: &'reg Handlebars<'reg>,
        _: &'rc Context,
        _: &mut RenderContext<'reg, 'rc>,
        out: &mut dyn Output,
    ) -> HelperResult {
        let v = h.param(0).map(|p| p.value().clone()).unwrap_or(Value::Null);
        let extra = h.param(1).map(|p| p.value().clone());
        out.write(&(self.escape)(&self.render(&v, extra.as_ref())))?;
        Ok(())
    }
}

pub(crate) fn register(hb: &mut Handlebars<'_>, locale: Locale, escape: fn(&str) -> String) {
    let all = [
        ("money", Kind::Money),
        ("money_compact", Kind::MoneyCompact),
        ("pct", Kind::Pct),
        ("delta_money", Kind::DeltaMoney),
        ("delta_money_compact", Kind::DeltaMoneyCompact),
        ("delta_pct", Kind::DeltaPct),
        ("delta_class", Kind::DeltaClass),
        ("month", Kind::Month),
        ("int", Kind::Int),
        ("cnpj", Kind::Cnpj),
        ("cell", Kind::Cell),
    ];
    for (name, kind) in all {
        hb.register_helper(name, Box::new(Fmt { kind, locale, escape }));
    }
}

/// Escapes text for a GitHub-flavoured Markdown table cell: no value can open a tag, start a
/// link or emphasis, or split the cell.
pub(crate) fn markdown_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '~' | '{' | '}' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_cells_cannot_break_out() {
        assert_eq!(markdown_escape("a | b"), "a \\| b");
        assert_eq!(markdown_escape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_eq!(markdown_escape("{{x}}\nnext"), "\\{\\{x\\}\\} next");
    }
}
