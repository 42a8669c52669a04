//! Parsers for the registry service's string fields: money amounts, calendar dates, reference
//! months, CNAE sections and state names, each turned into an exact value (`Decimal`,
//! `NaiveDate`, a static code) or a [`ParseError`] that quotes the input and says why.
//!
//! This module owns parsing only: one string in, one value out. It does not build frames, pick
//! columns, or decide what a row with a bad field means; the callers that build frames do.
//! [`format_decimal`] is the inverse of [`parse_brl_amount`], for tests and the simulator.
//!
//! The service types every amount and most dates as plain strings and does not say their format
//! (spec section 2.14), while the public files it republishes mix dot-decimal (`312038.84`),
//! decimal-comma (`1000,00`) and pt-BR (`7.598.208,15`) money and three date layouts
//! (domain.md, "Number and date forms a client must expect"). So every reader here decides a
//! separator's role from the whole string, never by stripping characters first: blindly
//! dropping `.` and swapping `,` turns `312038.84` into `31203884`, the classic factor-100 bug.
//! Hot paths (amounts and dates run once per row of multi-gigabyte sets) allocate only on error.

use chrono::NaiveDate;
use rust_decimal::{Decimal, RoundingStrategy};

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

// ---------------------------------------------------------------------------------------------
// Money
// ---------------------------------------------------------------------------------------------

/// Reads a money amount in any form the registry's sources use, exactly.
///
/// `Ok(None)` for an absent value: blank, `null`/`NULL`, `-` alone, `N/A`. Surrounding
/// whitespace, including NBSP, is ignored.
///
/// Sign and currency: one `-` (or U+2212 `−`), one `+`, or accounting parentheses `(…)` for a
/// negative, and one `R$`, in either order and with optional spaces between them, so
/// `-R$ 1.234,56`, `R$ -1.234,56`, `R$-1.234,56` and `(R$ 1.234,56)` are all -1234.56.
///
/// The number itself may hold only ASCII digits, `.` and `,`. The role of each separator:
/// - both `.` and `,` present: the last one is the decimal separator and must occur once; the
///   other groups thousands (`1.234,56`, `1,234.56`);
/// - one kind, occurring once: it is the decimal separator (`1234.56`, `1234,56`, `0,125`),
///   except before exactly three digits after a 1-3 digit whole part (`1.234`, `1,500`),
///   which is refused;
/// - one kind, occurring more than once: it groups thousands and the value is whole
///   (`1.234.567`, `1,234,567`);
/// - thousands groups: the first has 1-3 digits, every later one exactly 3.
///
/// Why `1.234` and `1.500` are refused: the sources write dot-decimal and decimal-comma money
/// without grouping (`312038.84`, `1000,00`), and pt-BR money always carries its `,dd`
/// (`7.598.208,15`), so a lone separator before three digits is not a known form either way;
/// read as a decimal, `1.500` would become R$ 1,50 where R$ 1.500,00 may have been meant. A
/// whole part of four digits or more, or a leading zero, cannot be a thousands group, so
/// `1234.500` and `0,125` are decimals.
///
/// Refused: letters, exponents (`1e5`), spaces inside the number (`1 234`: pt-BR never groups
/// with spaces, and a space inside a field more often means two values run together), a
/// separator without a digit both before and after it, a repeated sign or `R$`, and more digits
/// than a `Decimal` holds exactly.
///
/// The result is exact and has scale 2, or more when the input has significant digits beyond
/// the cents (`0,125` stays 0.125): rounding here would hide a malformed value. Trailing zeros
/// beyond the cents are dropped (`1.2300` is 1.23), and `-0,00` is plain zero.
pub fn parse_brl_amount(s: &str) -> Result<Option<Decimal>, ParseError> {
    const WHAT: &str = "amount";
    let trimmed = s.trim();
    if is_absent(trimmed) {
        return Ok(None);
    }
    let (negative, body) = split_sign_and_currency(trimmed).map_err(|r| error(WHAT, s, r))?;
    let (mantissa, scale) = read_number(body).map_err(|r| error(WHAT, s, r))?;
    let signed = if negative { -mantissa } else { mantissa };
    Decimal::try_from_i128_with_scale(signed, scale).map(Some).map_err(|_| error(WHAT, s, TOO_MANY_DIGITS))
}

const TOO_MANY_DIGITS: &str =
    "it has more digits than an exact decimal holds (its mantissa must stay below 2^96)";

/// Peels the sign, parentheses and `R$` off the front, in any order, each at most once.
/// Returns whether the amount is negative and the remaining number text.
fn split_sign_and_currency(trimmed: &str) -> Result<(bool, &str), &'static str> {
    const TWO_SIGNS: &str = "it has more than one sign (one '-', '+' or pair of parentheses)";
    let mut rest = trimmed;
    let mut sign: Option<bool> = None;
    let mut currency = false;
    loop {
        if let Some(r) = rest.strip_prefix("R$") {
            if currency {
                return Err("the currency symbol R$ appears more than once");
            }
            currency = true;
            rest = r.trim_start();
        } else if let Some(r) = rest.strip_prefix(['-', '\u{2212}']) {
            if sign.is_some() {
                return Err(TWO_SIGNS);
            }
            sign = Some(true);
            rest = r.trim_start();
        } else if let Some(r) = rest.strip_prefix('+') {
            if sign.is_some() {
                return Err(TWO_SIGNS);
            }
            sign = Some(false);
            rest = r.trim_start();
        } else if let Some(r) = rest.strip_prefix('(') {
            if sign.is_some() {
                return Err(TWO_SIGNS);
            }
            let inner = r.strip_suffix(')').ok_or("an opening parenthesis has no closing one")?;
            sign = Some(true);
            rest = inner.trim();
        } else {
            break;
        }
    }
    if rest.is_empty() {
        return Err("there are no digits");
    }
    Ok((sign == Some(true), rest))
}

/// Reads the unsigned number per the separator rules of [`parse_brl_amount`]. Returns the
/// mantissa and scale of the exact value, with the scale at least 2.
fn read_number(body: &str) -> Result<(i128, u32), String> {
    let mut dots = 0usize;
    let mut commas = 0usize;
    let mut last_separator = None;
    let mut has_space = false;
    for (i, c) in body.char_indices() {
        match c {
            '0'..='9' => {}
            '.' => {
                dots += 1;
                last_separator = Some(i);
            }
            ',' => {
                commas += 1;
                last_separator = Some(i);
            }
            // Reported only if nothing worse follows: in `1,00 R$` the stray `R` says more.
            c if c.is_whitespace() => has_space = true,
            'e' | 'E' => return Err("exponent notation (like 1e5) is not accepted".into()),
            '-' | '+' | '\u{2212}' | '(' | ')' => {
                return Err(format!("it has {c:?} inside the number; a sign goes in front"));
            }
            c => return Err(format!("it has the unexpected character {c:?}")),
        }
    }
    if has_space {
        return Err("it has a space inside the number (space-grouped thousands are not accepted)".into());
    }
    let bytes = body.as_bytes();

    // Where the decimal separator is, if any, and which byte groups thousands.
    let (decimal_at, group) = match (dots, commas, last_separator) {
        (0, 0, _) | (_, _, None) => (None, None),
        (d, c, Some(at)) if d > 0 && c > 0 => {
            let sep = bytes[at];
            let count = if sep == b'.' { d } else { c };
            if count > 1 {
                return Err(format!(
                    "the decimal separator {:?} (the last separator) appears {count} times",
                    char::from(sep)
                ));
            }
            (Some(at), Some(if sep == b'.' { b',' } else { b'.' }))
        }
        (1, 0, Some(at)) | (0, 1, Some(at)) => {
            let could_group = (1..=3).contains(&at) && bytes[0] != b'0' && bytes.len() - at - 1 == 3;
            if could_group {
                return Err(format!(
                    "one {:?} before exactly three digits reads as thousands or as decimals; write the \
                     cents (1.500,00 or 1,50)",
                    char::from(bytes[at])
                ));
            }
            (Some(at), None)
        }
        (d, _, Some(_)) => (None, Some(if d > 0 { b'.' } else { b',' })),
    };

    let (int_part, frac_part) = match decimal_at {
        Some(at) => (&bytes[..at], &bytes[at + 1..]),
        None => (bytes, &[][..]),
    };
    if int_part.is_empty() {
        return Err("it has no digit before the decimal separator".into());
    }
    if decimal_at.is_some() && frac_part.is_empty() {
        return Err("it has no digit after the decimal separator".into());
    }
    if let Some(g) = group {
        let mut groups = int_part.split(|&b| b == g);
        let first_ok = groups.next().is_some_and(|f| (1..=3).contains(&f.len()));
        if !first_ok || !groups.all(|rest| rest.len() == 3) {
            return Err(format!(
                "its thousands groups (separated by {:?}) must have three digits each after the \
                 first",
                char::from(g)
            ));
        }
    }

    let significant_frac = match frac_part.iter().rposition(|&b| b != b'0') {
        Some(last) => &frac_part[..=last],
        None => &[][..],
    };
    let scale = significant_frac.len().max(2);
    if scale > 28 {
        return Err(format!("it has {scale} decimal places; an exact decimal holds 28 at most"));
    }
    let mut mantissa: i128 = 0;
    let digits = int_part
        .iter()
        .chain(significant_frac)
        .filter(|b| b.is_ascii_digit())
        .map(|b| b - b'0')
        .chain(std::iter::repeat_n(0, scale - significant_frac.len()));
    for digit in digits {
        mantissa =
            mantissa.checked_mul(10).and_then(|m| m.checked_add(i128::from(digit))).ok_or(TOO_MANY_DIGITS)?;
    }
    // The scale is at most 28 here, so the conversion cannot fail.
    let scale = u32::try_from(scale).map_err(|_| TOO_MANY_DIGITS)?;
    Ok((mantissa, scale))
}

/// The value at scale 2, if it is a whole number of cents within `Decimal(18,2)`
/// (|value| < 10^16); `None` otherwise. This is where a caller that stores cents learns that an
/// amount has sub-cent digits (e.g. the ambiguous `1.234`) instead of having them rounded away.
pub fn to_cents_scale(d: Decimal) -> Option<Decimal> {
    let limit = Decimal::from(10_000_000_000_000_000_i64);
    let mut n = d.normalize();
    if n.scale() > 2 || n.abs() >= limit {
        return None;
    }
    // Widening the scale of a value under 10^16 to 2 needs at most 18 digits: always exact.
    n.rescale(2);
    if n.is_zero() {
        n.set_sign_positive(true);
    }
    Some(n)
}

/// The ways [`format_decimal`] writes an amount: the forms the registry's sources use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AmountForm {
    /// `1234.56`, as PGFN's `valor_consolidado`.
    DotDecimal,
    /// `1234,56`, as the CNPJ files' `capital_social`.
    CommaDecimal,
    /// `1.234,56`, pt-BR with thousands.
    PtBr,
    /// `1,234.56`, en-US with thousands.
    EnUs,
    /// `R$ 1.234,56`; negatives as `-R$ 1.234,56`.
    PtBrCurrency,
}

impl AmountForm {
    pub const ALL: [AmountForm; 5] =
        [Self::DotDecimal, Self::CommaDecimal, Self::PtBr, Self::EnUs, Self::PtBrCurrency];
}

/// Writes `d` in `form` with exactly two decimals. Values with more places are rounded half to
/// even first, since every form shows cents; callers that must not round check
/// [`to_cents_scale`] beforehand.
pub fn format_decimal(d: Decimal, form: AmountForm) -> String {
    let rounded = d.round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven);
    // After rounding the scale is at most 2, and 2^96 * 100 fits an i128.
    let cents = rounded.mantissa() * 10_i128.pow(2_u32.saturating_sub(rounded.scale()));
    let (group, decimal) = match form {
        AmountForm::DotDecimal => (None, '.'),
        AmountForm::CommaDecimal => (None, ','),
        AmountForm::PtBr | AmountForm::PtBrCurrency => (Some('.'), ','),
        AmountForm::EnUs => (Some(','), '.'),
    };
    let abs = cents.unsigned_abs();
    let whole = (abs / 100).to_string();
    let mut out = String::with_capacity(whole.len() * 4 / 3 + 8);
    if cents < 0 {
        out.push('-');
    }
    if form == AmountForm::PtBrCurrency {
        out.push_str("R$ ");
    }
    for (i, c) in whole.chars().enumerate() {
        if let Some(g) = group
            && i > 0
            && (whole.len() - i).is_multiple_of(3)
        {
            out.push(g);
        }
        out.push(c);
    }
    out.push(decimal);
    let frac = abs % 100;
    out.push(char::from(b'0' + (frac / 10) as u8));
    out.push(char::from(b'0' + (frac % 10) as u8));
    out
}

// ---------------------------------------------------------------------------------------------
// Dates
// ---------------------------------------------------------------------------------------------

/// Years accepted in any date. The sources contain typing errors such as year 202 or 4100
/// (domain.md), and no registry event predates 1800 or lies beyond 2100, so anything outside is
/// reported rather than carried into a report as a plausible-looking date.
pub const MIN_YEAR: i32 = 1800;
/// See [`MIN_YEAR`].
pub const MAX_YEAR: i32 = 2100;

/// Reads a date written `YYYY-MM-DD`, `DD/MM/YYYY` or `YYYYMMDD`, with exactly those widths.
///
/// `Ok(None)` for an absent value: blank, `null`, `-`, `N/A`, and the all-zero placeholders
/// `00000000`, `0000-00-00`, `00/00/0000`. Refused: impossible days (`20230230`), years outside
/// [`MIN_YEAR`]..=[`MAX_YEAR`] (`02021231` is year 202), other layouts, times of day, and signs.
pub fn parse_registry_date(s: &str) -> Result<Option<NaiveDate>, ParseError> {
    const WHAT: &str = "date";
    const LAYOUTS: &str = "it must be YYYY-MM-DD, DD/MM/YYYY or YYYYMMDD";
    let t = s.trim();
    if is_absent(t) || matches!(t, "00000000" | "0000-00-00" | "00/00/0000") {
        return Ok(None);
    }
    let b = t.as_bytes();
    let (y, m, d) = match b.len() {
        10 if b[4] == b'-' && b[7] == b'-' => (&b[0..4], &b[5..7], &b[8..10]),
        10 if b[2] == b'/' && b[5] == b'/' => (&b[6..10], &b[3..5], &b[0..2]),
        8 => (&b[0..4], &b[4..6], &b[6..8]),
        _ => return Err(error(WHAT, s, LAYOUTS)),
    };
    let (Some(y), Some(m), Some(d)) = (digits_value(y), digits_value(m), digits_value(d)) else {
        return Err(error(WHAT, s, LAYOUTS));
    };
    calendar_date(y, m, d).map(Some).map_err(|r| error(WHAT, s, r))
}

/// Reads a month written `MM/YYYY` (or `M/YYYY`), as in the negotiation exports, as the first
/// day of that month. `Ok(None)` for blank, `null`, `-`, `N/A` and `00/0000`.
pub fn parse_month_year(s: &str) -> Result<Option<NaiveDate>, ParseError> {
    const WHAT: &str = "month (MM/YYYY)";
    let t = s.trim();
    if is_absent(t) || t == "00/0000" {
        return Ok(None);
    }
    let parsed = t.split_once('/').and_then(|(m, y)| {
        let month = (1..=2).contains(&m.len()).then(|| digits_value(m.as_bytes()))??;
        let year = (y.len() == 4).then(|| digits_value(y.as_bytes()))??;
        Some((year, month))
    });
    let (year, month) = parsed.ok_or_else(|| error(WHAT, s, "it must be MM/YYYY, e.g. 01/2024"))?;
    calendar_date(year, month, 1).map(Some).map_err(|r| error(WHAT, s, r))
}

/// Reads a reference month `AAAAMM` (the service's `ano_mes`, e.g. `202401`) as the first day
/// of that month. Exactly six digits, month 01-12, year within [`MIN_YEAR`]..=[`MAX_YEAR`].
pub fn parse_ano_mes(s: &str) -> Result<NaiveDate, ParseError> {
    const WHAT: &str = "ano_mes";
    let b = s.trim().as_bytes();
    let parsed = (b.len() == 6).then(|| Some((digits_value(&b[..4])?, digits_value(&b[4..])?))).flatten();
    let (year, month) = parsed.ok_or_else(|| error(WHAT, s, "it must be six digits AAAAMM, e.g. 202401"))?;
    calendar_date(year, month, 1).map_err(|r| error(WHAT, s, r))
}

/// The value of a run of ASCII digits; `None` if empty or anything else is in it.
fn digits_value(b: &[u8]) -> Option<u32> {
    if b.is_empty() || b.len() > 9 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0, |acc, &d| acc * 10 + u32::from(d - b'0')))
}

fn calendar_date(year: u32, month: u32, day: u32) -> Result<NaiveDate, String> {
    let y = i32::try_from(year).unwrap_or(i32::MAX);
    if !(MIN_YEAR..=MAX_YEAR).contains(&y) {
        return Err(format!(
            "year {year} is outside {MIN_YEAR}-{MAX_YEAR} (the sources contain typing errors \
             such as year 202 or 4100)"
        ));
    }
    if !(1..=12).contains(&month) {
        return Err(format!("month {month:02} is outside 01-12"));
    }
    NaiveDate::from_ymd_opt(y, month, day)
        .ok_or_else(|| format!("day {day:02} does not exist in {year:04}-{month:02}"))
}

// ---------------------------------------------------------------------------------------------
// Codes
// ---------------------------------------------------------------------------------------------

/// CNAE 2.x sections: letter, first and last two-digit division, name (domain.md).
#[rustfmt::skip]
const CNAE_SECTIONS: [(char, u8, u8, &str); 21] = [
    ('A', 1, 3, "Agricultura, pecuária, produção florestal, pesca e aquicultura"),
    ('B', 5, 9, "Indústrias extrativas"),
    ('C', 10, 33, "Indústrias de transformação"),
    ('D', 35, 35, "Eletricidade e gás"),
    ('E', 36, 39, "Água, esgoto, atividades de gestão de resíduos e descontaminação"),
    ('F', 41, 43, "Construção"),
    ('G', 45, 47, "Comércio; reparação de veículos automotores e motocicletas"),
    ('H', 49, 53, "Transporte, armazenagem e correio"),
    ('I', 55, 56, "Alojamento e alimentação"),
    ('J', 58, 63, "Informação e comunicação"),
    ('K', 64, 66, "Atividades financeiras, de seguros e serviços relacionados"),
    ('L', 68, 68, "Atividades imobiliárias"),
    ('M', 69, 75, "Atividades profissionais, científicas e técnicas"),
    ('N', 77, 82, "Atividades administrativas e serviços complementares"),
    ('O', 84, 84, "Administração pública, defesa e seguridade social"),
    ('P', 85, 85, "Educação"),
    ('Q', 86, 88, "Saúde humana e serviços sociais"),
    ('R', 90, 93, "Artes, cultura, esporte e recreação"),
    ('S', 94, 96, "Outras atividades de serviços"),
    ('T', 97, 97, "Serviços domésticos"),
    ('U', 99, 99, "Organismos internacionais e outras instituições extraterritoriais"),
];

/// The section (letter and Portuguese name) of a 7-digit CNAE subclass, bare (`6201501`) or in
/// the official mask (`6201-5/01`), from its first two digits. `None` for divisions that no
/// section holds (00, 04, 34, 40, ...) and for anything else, including 6-digit codes whose
/// leading zero was lost: `111301` could be `0111301` (A) or a truncated code, and guessing
/// would file a company under the wrong section.
pub fn cnae_section(cnae: &str) -> Option<(char, &'static str)> {
    let b = cnae.trim().as_bytes();
    let digits: [u8; 7] = match b.len() {
        7 => b.try_into().ok()?,
        9 if b[4] == b'-' && b[6] == b'/' => [b[0], b[1], b[2], b[3], b[5], b[7], b[8]],
        _ => return None,
    };
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let division = (digits[0] - b'0') * 10 + (digits[1] - b'0');
    CNAE_SECTIONS
        .iter()
        .find(|(_, first, last, _)| (*first..=*last).contains(&division))
        .map(|&(letter, _, _, name)| (letter, name))
}

/// The 27 federative units in domain.md's order, with their names upper-cased and without
/// accents, as [`normalise_uf`] folds its input.
const UF_NAMES: [(&str, &str); 27] = [
    ("AC", "ACRE"),
    ("AL", "ALAGOAS"),
    ("AP", "AMAPA"),
    ("AM", "AMAZONAS"),
    ("BA", "BAHIA"),
    ("CE", "CEARA"),
    ("DF", "DISTRITO FEDERAL"),
    ("ES", "ESPIRITO SANTO"),
    ("GO", "GOIAS"),
    ("MA", "MARANHAO"),
    ("MT", "MATO GROSSO"),
    ("MS", "MATO GROSSO DO SUL"),
    ("MG", "MINAS GERAIS"),
    ("PA", "PARA"),
    ("PB", "PARAIBA"),
    ("PR", "PARANA"),
    ("PE", "PERNAMBUCO"),
    ("PI", "PIAUI"),
    ("RJ", "RIO DE JANEIRO"),
    ("RN", "RIO GRANDE DO NORTE"),
    ("RS", "RIO GRANDE DO SUL"),
    ("RO", "RONDONIA"),
    ("RR", "RORAIMA"),
    ("SC", "SANTA CATARINA"),
    ("SP", "SAO PAULO"),
    ("SE", "SERGIPE"),
    ("TO", "TOCANTINS"),
];

/// The two-letter code of a state given as its code (`sp`, ` SP `) or its full name in any case,
/// with or without accents (`São Paulo`, `SAO PAULO`, `SÃO PAULO`), as the negotiation exports
/// spell them out. Runs of whitespace (including NBSP) count as one space, and combining accents
/// (decomposed text) are ignored. `None` for anything else.
pub fn normalise_uf(s: &str) -> Option<&'static str> {
    // The longest name, RIO GRANDE DO NORTE, has 19 letters; folding into a fixed buffer keeps
    // this allocation-free on per-row use.
    let mut buf = [0u8; 24];
    let mut len = 0;
    for word in s.split_whitespace() {
        if len > 0 {
            *buf.get_mut(len)? = b' ';
            len += 1;
        }
        for c in word.chars() {
            if ('\u{300}'..='\u{36f}').contains(&c) {
                continue;
            }
            *buf.get_mut(len)? = fold_letter(c)?;
            len += 1;
        }
    }
    let folded = &buf[..len];
    UF_NAMES
        .iter()
        .find(|(code, name)| code.as_bytes() == folded || name.as_bytes() == folded)
        .map(|(code, _)| *code)
}

/// A Latin letter upper-cased and stripped of its accent; `None` for anything that cannot be
/// part of a state's name.
fn fold_letter(c: char) -> Option<u8> {
    let base = match c {
        'a'..='z' | 'A'..='Z' => c.to_ascii_uppercase(),
        'á' | 'à' | 'â' | 'ã' | 'ä' | 'Á' | 'À' | 'Â' | 'Ã' | 'Ä' => 'A',
        'é' | 'è' | 'ê' | 'ë' | 'É' | 'È' | 'Ê' | 'Ë' => 'E',
        'í' | 'ì' | 'î' | 'ï' | 'Í' | 'Ì' | 'Î' | 'Ï' => 'I',
        'ó' | 'ò' | 'ô' | 'õ' | 'ö' | 'Ó' | 'Ò' | 'Ô' | 'Õ' | 'Ö' => 'O',
        'ú' | 'ù' | 'û' | 'ü' | 'Ú' | 'Ù' | 'Û' | 'Ü' => 'U',
        'ç' | 'Ç' => 'C',
        _ => return None,
    };
    u8::try_from(base).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    use chrono::{Datelike, Days};
    use proptest::prelude::*;

    fn dec(s: &str) -> Decimal {
        Decimal::from_str(s).expect("test literal")
    }

    /// The parsed value and its text, so scale is checked along with the value.
    fn amount(s: &str) -> String {
        match parse_brl_amount(s) {
            Ok(Some(d)) => d.to_string(),
            other => panic!("{s:?} gave {other:?}"),
        }
    }

    fn refused(s: &str) -> ParseError {
        match parse_brl_amount(s) {
            Err(e) => e,
            other => panic!("{s:?} should be refused, gave {other:?}"),
        }
    }

    #[test]
    fn every_listed_amount_form() {
        for (input, want) in [
            ("1234.56", "1234.56"),
            ("1234,56", "1234.56"),
            ("1.234,56", "1234.56"),
            ("1,234.56", "1234.56"),
            ("R$ 1.234,56", "1234.56"),
            ("R$1.234,56", "1234.56"),
            ("-1.234,56", "-1234.56"),
            ("R$ -1.234,56", "-1234.56"),
            ("R$-1.234,56", "-1234.56"),
            ("-R$ 1.234,56", "-1234.56"),
            ("(1.234,56)", "-1234.56"),
            ("(R$ 1.234,56)", "-1234.56"),
            ("R$ (1.234,56)", "-1234.56"),
            ("+1.234,56", "1234.56"),
            ("\u{2212}1.234,56", "-1234.56"),
            ("312038.84", "312038.84"),
            ("1000,00", "1000.00"),
            ("7.598.208,15", "7598208.15"),
            ("1,234,567.89", "1234567.89"),
            ("1234", "1234.00"),
            ("0", "0.00"),
            ("0,5", "0.50"),
            ("12,3", "12.30"),
            ("007,10", "7.10"),
            ("  1.234,56  ", "1234.56"),
            ("\u{a0}R$\u{a0}1.234,56\u{a0}", "1234.56"),
            ("\t-312038.84\n", "-312038.84"),
        ] {
            assert_eq!(amount(input), want, "input {input:?}");
        }
    }

    #[test]
    fn dot_decimal_is_never_multiplied_by_100() {
        // The classic bug strips '.' then swaps ',' and reads 312038.84 as 31203884.
        assert_eq!(parse_brl_amount("312038.84"), Ok(Some(dec("312038.84"))));
        assert_eq!(parse_brl_amount("312038,84"), Ok(Some(dec("312038.84"))));
        assert_eq!(parse_brl_amount("312.038,84"), Ok(Some(dec("312038.84"))));
        assert_eq!(parse_brl_amount("312,038.84"), Ok(Some(dec("312038.84"))));
        assert_eq!(parse_brl_amount("0.01"), Ok(Some(dec("0.01"))));
    }

    #[test]
    fn a_lone_separator_is_decimal_and_a_repeated_one_groups() {
        // The ambiguous form is refused whatever its digits: 1.500 must not become R$ 1,50.
        for text in ["1.234", "1,234", "1.500", "R$ 1.000", "-999,000", "12.500"] {
            let e = parse_brl_amount(text).unwrap_err();
            assert!(e.to_string().contains("thousands or as decimals"), "{text}: {e}");
        }
        // No thousands reading exists for these, so they are decimals.
        assert_eq!(amount("1234.500"), "1234.50");
        assert_eq!(amount("0,500"), "0.50");
        assert_eq!(amount("1.5000"), "1.50");
        assert_eq!(amount("1.234.567"), "1234567.00");
        assert_eq!(amount("1,234,567"), "1234567.00");
        assert_eq!(amount("1.234,5"), "1234.50");
        assert_eq!(amount("1,234.5"), "1234.50");
        assert_eq!(amount("1.234,567"), "1234.567");
    }

    #[test]
    fn scale_is_two_unless_more_digits_matter() {
        assert_eq!(parse_brl_amount("1234").unwrap().unwrap().scale(), 2);
        assert_eq!(amount("1.2300"), "1.23");
        assert_eq!(amount("0,125"), "0.125");
        assert_eq!(amount("0,1250"), "0.125");
        assert_eq!(amount("0.0000000000000000000000000001"), "0.0000000000000000000000000001");
        // 26 integer digits plus the two cents fill the 28 digits a Decimal holds.
        assert_eq!(amount("12345678901234567890123456"), "12345678901234567890123456.00");
        // The largest mantissa a Decimal holds is 2^96 - 1; one cent more is refused.
        assert_eq!(amount("792281625142643375935439503,35"), "792281625142643375935439503.35");
    }

    #[test]
    fn negative_zero_is_zero() {
        for s in ["-0,00", "R$ -0.00", "(0,00)", "-0"] {
            let d = parse_brl_amount(s).unwrap().unwrap();
            assert!(d.is_zero() && d.is_sign_positive(), "{s:?} gave {d:?}");
            assert_eq!(d.to_string(), "0.00");
        }
    }

    #[test]
    fn absent_amounts() {
        for s in ["", "   ", "\u{a0}", "null", "NULL", "Null", "-", " - ", "N/A", "n/a"] {
            assert_eq!(parse_brl_amount(s), Ok(None), "input {s:?}");
        }
    }

    #[test]
    fn garbage_amounts_are_refused_with_a_reason() {
        for (input, reason) in [
            ("abc", "unexpected character"),
            ("12abc", "unexpected character"),
            ("1,2,3", "thousands groups"),
            ("12.34.56,7,8", "appears 2 times"),
            ("1.23,4.5", "appears 2 times"),
            ("--1", "more than one sign"),
            ("-(1,00)", "more than one sign"),
            ("(-1,00)", "more than one sign"),
            ("+-1", "more than one sign"),
            ("(1,00", "no closing"),
            ("1,00)", "inside the number"),
            ("1-2", "inside the number"),
            ("1e5", "exponent"),
            ("1.5E3", "exponent"),
            ("R$", "no digits"),
            ("R$ ", "no digits"),
            ("R$ -", "no digits"),
            ("()", "no digits"),
            ("R$ R$ 1", "more than once"),
            ("1 234", "space"),
            ("1\u{a0}234,56", "space"),
            ("1.234 ,56", "space"),
            ("1..2", "thousands groups"),
            ("1.2345.678", "thousands groups"),
            ("1234.567.890", "thousands groups"),
            ("12,34.567", "thousands groups"),
            ("1.234.56,78", "thousands groups"),
            (",50", "no digit before"),
            (".5", "no digit before"),
            ("5,", "no digit after"),
            ("1.234,", "no digit after"),
            ("1.", "no digit after"),
            ("1234567890123456789012345678", "more digits"),
            ("792281625142643375935439503,36", "more digits"),
            ("0.00000000000000000000000000001", "28 at most"),
            ("1234567890123456789012345678901234567890", "more digits"),
            ("US$ 1,00", "unexpected character"),
            ("1,00 R$", "unexpected character"),
            ("NaN", "unexpected character"),
            ("inf", "unexpected character"),
            ("١٢٣", "unexpected character"),
        ] {
            let e = refused(input);
            assert_eq!(e.input, input);
            assert_eq!(e.what, "amount");
            assert!(e.reason.contains(reason), "{input:?}: {e}");
            assert!(e.to_string().contains(&format!("{input:?}")), "{e}");
        }
    }

    #[test]
    fn cents_scale_bounds() {
        assert_eq!(to_cents_scale(dec("1.23")).map(|d| d.to_string()), Some("1.23".into()));
        assert_eq!(to_cents_scale(dec("1.230000")).map(|d| d.to_string()), Some("1.23".into()));
        assert_eq!(to_cents_scale(dec("7")).map(|d| d.to_string()), Some("7.00".into()));
        assert_eq!(to_cents_scale(dec("-0.000")).map(|d| d.to_string()), Some("0.00".into()));
        let max = "9999999999999999.99";
        assert_eq!(to_cents_scale(dec(max)).map(|d| d.to_string()), Some(max.into()));
        let min = "-9999999999999999.99";
        assert_eq!(to_cents_scale(dec(min)).map(|d| d.to_string()), Some(min.into()));
        assert_eq!(to_cents_scale(dec("10000000000000000")), None);
        assert_eq!(to_cents_scale(dec("-10000000000000000.00")), None);
        assert_eq!(to_cents_scale(dec("0.001")), None);
        assert_eq!(to_cents_scale(dec("1.234")), None);
    }

    #[test]
    fn format_every_form() {
        let d = dec("1234567.8");
        assert_eq!(format_decimal(d, AmountForm::DotDecimal), "1234567.80");
        assert_eq!(format_decimal(d, AmountForm::CommaDecimal), "1234567,80");
        assert_eq!(format_decimal(d, AmountForm::PtBr), "1.234.567,80");
        assert_eq!(format_decimal(d, AmountForm::EnUs), "1,234,567.80");
        assert_eq!(format_decimal(d, AmountForm::PtBrCurrency), "R$ 1.234.567,80");
        let n = dec("-1234.56");
        assert_eq!(format_decimal(n, AmountForm::PtBrCurrency), "-R$ 1.234,56");
        assert_eq!(format_decimal(n, AmountForm::EnUs), "-1,234.56");
        assert_eq!(format_decimal(dec("0.05"), AmountForm::PtBr), "0,05");
        assert_eq!(format_decimal(dec("123"), AmountForm::PtBr), "123,00");
        assert_eq!(format_decimal(dec("123456"), AmountForm::EnUs), "123,456.00");
        assert_eq!(format_decimal(Decimal::ZERO, AmountForm::PtBrCurrency), "R$ 0,00");
        // Half to even, and a negative that rounds to zero loses its sign.
        assert_eq!(format_decimal(dec("1.005"), AmountForm::DotDecimal), "1.00");
        assert_eq!(format_decimal(dec("1.015"), AmountForm::DotDecimal), "1.02");
        assert_eq!(format_decimal(dec("-0.001"), AmountForm::DotDecimal), "0.00");
        assert_eq!(
            format_decimal(Decimal::MAX, AmountForm::PtBr),
            "79.228.162.514.264.337.593.543.950.335,00"
        );
    }

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).expect("test date")
    }

    #[test]
    fn every_date_form() {
        let want = Some(date(2024, 1, 31));
        assert_eq!(parse_registry_date("2024-01-31"), Ok(want));
        assert_eq!(parse_registry_date("31/01/2024"), Ok(want));
        assert_eq!(parse_registry_date("20240131"), Ok(want));
        assert_eq!(parse_registry_date(" 20240131\u{a0}"), Ok(want));
        assert_eq!(parse_registry_date("29/02/2024"), Ok(Some(date(2024, 2, 29))));
        assert_eq!(parse_registry_date("18000101"), Ok(Some(date(1800, 1, 1))));
        assert_eq!(parse_registry_date("2100-12-31"), Ok(Some(date(2100, 12, 31))));
    }

    #[test]
    fn absent_dates() {
        for s in ["", "  ", "null", "NULL", "-", "N/A", "00000000", "0000-00-00", "00/00/0000"] {
            assert_eq!(parse_registry_date(s), Ok(None), "input {s:?}");
        }
    }

    #[test]
    fn bad_dates_are_refused_with_a_reason() {
        for (input, reason) in [
            ("20230230", "does not exist"),
            ("2023-02-29", "does not exist"),
            ("31/04/2024", "does not exist"),
            ("20240100", "does not exist"),
            ("02021231", "year 202 is outside 1800-2100"),
            ("41000101", "year 4100"),
            ("17991231", "year 1799"),
            ("2101-01-01", "year 2101"),
            ("20241301", "month 13"),
            ("2024-00-10", "month 00"),
            ("abc", "YYYY-MM-DD"),
            ("2024013", "YYYY-MM-DD"),
            ("202401311", "YYYY-MM-DD"),
            ("2024-1-31", "YYYY-MM-DD"),
            ("2024/01/31", "YYYY-MM-DD"),
            ("31-01-2024", "YYYY-MM-DD"),
            ("31/1/2024", "YYYY-MM-DD"),
            ("+2024-01-3", "YYYY-MM-DD"),
            ("2024-01-31T00:00:00", "YYYY-MM-DD"),
            ("2024-01-3a", "YYYY-MM-DD"),
            ("２０２４０１３１", "YYYY-MM-DD"),
            ("2024年01月31", "YYYY-MM-DD"),
        ] {
            let e = parse_registry_date(input).expect_err(input);
            assert_eq!((e.what, e.input.as_str()), ("date", input));
            assert!(e.reason.contains(reason), "{input:?}: {e}");
        }
    }

    #[test]
    fn month_year() {
        assert_eq!(parse_month_year("01/2024"), Ok(Some(date(2024, 1, 1))));
        assert_eq!(parse_month_year(" 12/2023 "), Ok(Some(date(2023, 12, 1))));
        assert_eq!(parse_month_year("3/2022"), Ok(Some(date(2022, 3, 1))));
        for s in ["", "null", "00/0000"] {
            assert_eq!(parse_month_year(s), Ok(None), "input {s:?}");
        }
        for s in ["13/2024", "00/2024", "01/0202", "2024/01", "012024", "01/24", "001/2024", "a/2024"] {
            assert!(parse_month_year(s).is_err(), "{s:?} should be refused");
        }
    }

    #[test]
    fn ano_mes() {
        assert_eq!(parse_ano_mes("202401"), Ok(date(2024, 1, 1)));
        assert_eq!(parse_ano_mes(" 202312 "), Ok(date(2023, 12, 1)));
        let e = parse_ano_mes("202413").unwrap_err();
        assert!(e.reason.contains("month 13"), "{e}");
        for s in ["202400", "2024-01", "20241", "2024011", "", "null", "abcdef", "020201", "+20241"] {
            let e = parse_ano_mes(s).expect_err(s);
            assert_eq!((e.what, e.input.as_str()), ("ano_mes", s));
        }
    }

    #[test]
    fn cnae_sections_by_division() {
        assert_eq!(cnae_section("6201501"), Some(('J', "Informação e comunicação")));
        assert_eq!(cnae_section("6201-5/01"), Some(('J', "Informação e comunicação")));
        assert_eq!(cnae_section(" 0111301 ").map(|s| s.0), Some('A'));
        let bounds = [
            ('A', 1, 3),
            ('B', 5, 9),
            ('C', 10, 33),
            ('D', 35, 35),
            ('E', 36, 39),
            ('F', 41, 43),
            ('G', 45, 47),
            ('H', 49, 53),
            ('I', 55, 56),
            ('J', 58, 63),
            ('K', 64, 66),
            ('L', 68, 68),
            ('M', 69, 75),
            ('N', 77, 82),
            ('O', 84, 84),
            ('P', 85, 85),
            ('Q', 86, 88),
            ('R', 90, 93),
            ('S', 94, 96),
            ('T', 97, 97),
            ('U', 99, 99),
        ];
        let mut known = 0;
        for division in 0..=99u8 {
            let code = format!("{division:02}12345");
            let want = bounds.iter().find(|(_, a, b)| (*a..=*b).contains(&division)).map(|t| t.0);
            assert_eq!(cnae_section(&code).map(|s| s.0), want, "division {division:02}");
            known += usize::from(want.is_some());
        }
        assert_eq!(known, 87);
        for unknown in ["0012345", "0412345", "3412345", "4012345", "4412345", "9812345"] {
            assert_eq!(cnae_section(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn cnae_garbage() {
        for s in [
            "",
            "abc",
            "620150",
            "111301",
            "62015011",
            "62-01501",
            "6201.5/01",
            "6201/5-01",
            "62a1501",
            "6201-5/0a",
            "６２０１５０１",
            "-6201501",
        ] {
            assert_eq!(cnae_section(s), None, "{s:?}");
        }
    }

    #[test]
    fn every_state_by_code_and_name() {
        let names = [
            "Acre",
            "Alagoas",
            "Amapá",
            "Amazonas",
            "Bahia",
            "Ceará",
            "Distrito Federal",
            "Espírito Santo",
            "Goiás",
            "Maranhão",
            "Mato Grosso",
            "Mato Grosso do Sul",
            "Minas Gerais",
            "Pará",
            "Paraíba",
            "Paraná",
            "Pernambuco",
            "Piauí",
            "Rio de Janeiro",
            "Rio Grande do Norte",
            "Rio Grande do Sul",
            "Rondônia",
            "Roraima",
            "Santa Catarina",
            "São Paulo",
            "Sergipe",
            "Tocantins",
        ];
        let domain_order = "AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC \
                            SP SE TO";
        let codes: Vec<&str> = UF_NAMES.iter().map(|(c, _)| *c).collect();
        assert_eq!(codes.join(" "), domain_order);
        for ((code, _), name) in UF_NAMES.iter().zip(names) {
            let variants = [
                code.to_string(),
                code.to_lowercase(),
                format!("  {code}\u{a0}"),
                name.to_string(),
                name.to_uppercase(),
                name.to_lowercase(),
                format!(" {} ", name.to_uppercase().replace(' ', "  ")),
            ];
            for v in &variants {
                assert_eq!(normalise_uf(v), Some(*code), "{v:?}");
            }
        }
        for v in ["SAO PAULO", "SÃO PAULO", "são paulo", "Sao Paulo", "Sa\u{303}o Paulo"] {
            assert_eq!(normalise_uf(v), Some("SP"), "{v:?}");
        }
        assert_eq!(normalise_uf("ESPIRITO SANTO"), Some("ES"));
        assert_eq!(normalise_uf("RIO GRANDE DO NORTE         "), Some("RN"));
    }

    #[test]
    fn unknown_states() {
        for v in [
            "",
            " ",
            "XX",
            "S",
            "S P",
            "São",
            "Sao Paulo SP",
            "SP1",
            "S.P.",
            "Rio Grande",
            "MATO-GROSSO",
            "SÃƒO PAULO",
            "RIO GRANDE DO NORTE AND MUCH MORE TEXT",
        ] {
            assert_eq!(normalise_uf(v), None, "{v:?}");
        }
    }

    const CENTS_BOUND: i64 = 1_000_000_000_000_000;
    const FIRST_DAY: NaiveDate = match NaiveDate::from_ymd_opt(MIN_YEAR, 1, 1) {
        Some(d) => d,
        None => panic!("MIN_YEAR must be a valid year"),
    };
    // 1800-01-01 to 2100-12-31 inclusive.
    const SPAN_DAYS: u64 = 109_937;

    fn three_forms(d: NaiveDate) -> [String; 3] {
        let (y, m, day) = (d.year(), d.month(), d.day());
        [
            format!("{y:04}-{m:02}-{day:02}"),
            format!("{day:02}/{m:02}/{y:04}"),
            format!("{y:04}{m:02}{day:02}"),
        ]
    }

    #[test]
    fn date_span_covers_exactly_the_accepted_years() {
        let last = FIRST_DAY.checked_add_days(Days::new(SPAN_DAYS)).unwrap();
        assert_eq!(last, date(MAX_YEAR, 12, 31));
    }

    proptest! {
        #[test]
        fn every_form_round_trips_exactly(cents in -CENTS_BOUND..=CENTS_BOUND) {
            let d = Decimal::new(cents, 2);
            for form in AmountForm::ALL {
                let text = format_decimal(d, form);
                let back = parse_brl_amount(&text);
                prop_assert_eq!(&back, &Ok(Some(d)), "{:?} written {:?}", form, text);
                // Equal value and the same scale: the text is the same too.
                let back = back.ok().flatten().map(|b| b.to_string());
                prop_assert_eq!(back, Some(d.to_string()));
                prop_assert_eq!(to_cents_scale(d), Some(d));
            }
        }

        #[test]
        fn parse_never_panics(s in any::<String>()) {
            let _ = parse_brl_amount(&s);
            let _ = parse_registry_date(&s);
            let _ = parse_month_year(&s);
            let _ = parse_ano_mes(&s);
            let _ = cnae_section(&s);
            let _ = normalise_uf(&s);
        }

        #[test]
        fn amount_like_strings_never_panic_and_accepted_cents_round_trip(
            s in "[-+(]{0,2}(R\\$)?[ \u{a0}]?[-(]?[0-9.,]{0,34}[)]?",
        ) {
            if let Ok(Some(d)) = parse_brl_amount(&s) {
                prop_assert!(d.scale() >= 2);
                if let Some(c) = to_cents_scale(d) {
                    prop_assert_eq!(c, d);
                    for form in AmountForm::ALL {
                        let text = format_decimal(c, form);
                        prop_assert_eq!(parse_brl_amount(&text), Ok(Some(c)), "{}", text);
                    }
                }
            }
        }

        #[test]
        fn dates_round_trip_in_every_form(offset in 0..=SPAN_DAYS) {
            let d = FIRST_DAY.checked_add_days(Days::new(offset)).unwrap();
            for text in three_forms(d) {
                prop_assert_eq!(parse_registry_date(&text), Ok(Some(d)), "{}", text);
            }
            let first = d.with_day(1).unwrap();
            let ano_mes = format!("{:04}{:02}", d.year(), d.month());
            prop_assert_eq!(parse_ano_mes(&ano_mes), Ok(first));
            let month_year = format!("{:02}/{:04}", d.month(), d.year());
            prop_assert_eq!(parse_month_year(&month_year), Ok(Some(first)));
        }

        #[test]
        fn digit_strings_of_date_width_never_panic(s in "[0-9/-]{8,10}") {
            if let Ok(Some(d)) = parse_registry_date(&s) {
                prop_assert!((MIN_YEAR..=MAX_YEAR).contains(&d.year()));
                prop_assert!(three_forms(d).contains(&s));
            }
        }
    }
}
