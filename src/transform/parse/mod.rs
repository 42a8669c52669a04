//! Parsers for the registry service's string fields: money amounts, calendar dates, reference
//! months, CNAE sections and state names, each turned into an exact value (`Decimal`,
//! `NaiveDate`, a static code) or a [`ParseError`] that quotes the input and says why.
//!
//! This module owns parsing only: one string in, one value out. It does not build frames, pick
//! columns, or decide what a row with a bad field means; the callers that build frames do.
//! [`format_decimal`] is the inverse of [`parse_brl_amount`], for tests and the simulator.
//!
//! The service types every amount and most dates as plain strings and does not say their format
//! (`docs/service-api.md` §2.14), while the public files it republishes mix dot-decimal (`312038.84`),
//! decimal-comma (`1000,00`) and pt-BR (`7.598.208,15`) money and three date layouts
//! (`docs/domain.md`, "Number and date forms a client must expect"). So every reader here decides a
//! separator's role from the whole string, never by stripping characters first: blindly
//! dropping `.` and swapping `,` turns `312038.84` into `31203884`, the classic factor-100 bug.
//! Hot paths (amounts and dates run once per row of multi-gigabyte sets) allocate only on error.

/// Why a field could not be read. `input` is the text exactly as received.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{input:?} is not a valid {what}: {reason}")]
pub struct ParseError {
    pub what: &'static str,
    pub input: String,
    pub reason: String,
}

fn error(what: &'static str, input: &str, reason: impl Into<String>) -> ParseError {
    ParseError { what, input: input.to_string(), reason: reason.into() }
}

/// Tokens that mean "no value" in the public files and the service's string fields.
/// Checked after trimming, so padded blanks count too.
fn is_absent(trimmed: &str) -> bool {
    trimmed.is_empty()
        || trimmed.eq_ignore_ascii_case("null")
        || trimmed.eq_ignore_ascii_case("n/a")
        || trimmed == "-"
}

/// The text with its surrounding blanks removed, or `None` when nothing is left.
pub fn trimmed(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|s| !s.is_empty())
}

mod codes;
mod dates;
mod money;

pub use codes::{
    cnae_section, cnae_section_name, debtor_role, natureza_group_name, normalise_uf, uf_outside_states,
    uf_outside_states_label,
};
pub use dates::{
    MAX_YEAR, MIN_YEAR, is_date_placeholder, parse_ano_mes, parse_date_dropping_time, parse_list_date,
    parse_month_year, parse_registry_date,
};
pub use money::{AmountForm, format_decimal, parse_brl_amount, published_cents, to_cents_scale};

#[cfg(test)]
mod money_readings;
#[cfg(test)]
mod properties;
