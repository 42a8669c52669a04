//! Request validation as the real service does it: FastAPI-style 422 bodies with one entry
//! per invalid input (`loc`, `msg`, `type`, `input`, `ctx`).
//!
//! It checks only what `docs/service-api.md` §4 states (patterns, page bounds, enums, `AAAAMM`);
//! whether a record exists is the handlers' business.

use serde_json::{Value, json};

use registry_api::models::ValidationIssue;

fn issue(loc: [&str; 2], msg: &str, kind: &str, input: &str, ctx: Value) -> ValidationIssue {
    ValidationIssue {
        loc: loc.iter().map(|s| Value::String((*s).to_string())).collect(),
        msg: msg.to_string(),
        kind: kind.to_string(),
        input: Value::String(input.to_string()),
        ctx: Some(ctx),
    }
}

/// Collects the issues of one request.
#[derive(Debug, Default)]
pub struct Checks {
    pub issues: Vec<ValidationIssue>,
}

impl Checks {
    pub fn digits(&mut self, name: &str, value: &str, len: usize) {
        if !(value.len() == len && value.bytes().all(|b| b.is_ascii_digit())) {
            let pattern = format!("^\\d{{{len}}}$");
            self.issues.push(issue(
                ["path", name],
                &format!("String should match pattern '{pattern}'"),
                "string_pattern_mismatch",
                value,
                json!({ "pattern": pattern }),
            ));
        }
    }

    fn int_in(&mut self, name: &str, raw: Option<&str>, default: i64, min: i64, max: Option<i64>) -> i64 {
        let Some(raw) = raw else { return default };
        let Ok(v) = raw.trim().parse::<i64>() else {
            self.issues.push(issue(
                ["query", name],
                "Input should be a valid integer, unable to parse string as an integer",
                "int_parsing",
                raw,
                json!({}),
            ));
            return default;
        };
        if v < min {
            self.issues.push(issue(
                ["query", name],
                &format!("Input should be greater than or equal to {min}"),
                "greater_than_equal",
                raw,
                json!({ "ge": min }),
            ));
        } else if let Some(max) = max.filter(|m| v > *m) {
            self.issues.push(issue(
                ["query", name],
                &format!("Input should be less than or equal to {max}"),
                "less_than_equal",
                raw,
                json!({ "le": max }),
            ));
        }
        v
    }

    /// `limite` (1..=100, default 20) and `offset` (>= 0, default 0), `docs/service-api.md` §4.1.
    pub fn page(&mut self, limite: Option<&str>, offset: Option<&str>) -> (usize, usize) {
        let l = self.int_in("limite", limite, 20, 1, Some(100));
        let o = self.int_in("offset", offset, 0, 0, None);
        (l.clamp(1, 100) as usize, o.max(0) as usize)
    }

    pub fn categoria(&mut self, raw: Option<&str>) -> registry_api::Categoria {
        use registry_api::Categoria;
        match raw {
            None => Categoria::NaoPrevidenciario,
            Some(r) => Categoria::parse(r).unwrap_or_else(|_| {
                let expected = "'nao_previdenciario', 'fgts' or 'previdenciario'";
                self.issues.push(issue(
                    ["query", "categoria"],
                    &format!("Input should be {expected}"),
                    "enum",
                    r,
                    json!({ "expected": expected }),
                ));
                Categoria::NaoPrevidenciario
            }),
        }
    }

    pub fn ano_mes(&mut self, raw: Option<&str>) -> Option<registry_api::AnoMes> {
        let r = raw?;
        match registry_api::AnoMes::parse(r) {
            Ok(a) => Some(a),
            Err(_) => {
                let pattern = "^\\d{4}(0[1-9]|1[0-2])$";
                self.issues.push(issue(
                    ["query", "ano_mes"],
                    &format!("String should match pattern '{pattern}'"),
                    "string_pattern_mismatch",
                    r,
                    json!({ "pattern": pattern }),
                ));
                None
            }
        }
    }
}
