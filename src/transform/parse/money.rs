//! Money amounts: every form the sources write, read exactly into a `Decimal`, and written
//! back in each form (for tests and the simulator).

use rust_decimal::{Decimal, RoundingStrategy};

use super::{ParseError, error, is_absent};

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
/// - thousands groups: the first has 1-3 digits, every later one exactly 3;
/// - a lone separator with no digit before it: the amount is below one real (`.33` is 0.33,
///   `,50` is 0.50). The PGFN files publish amounts under one real this way, and a person
///   reads them so; refusing them dropped real debts out of every sum.
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
/// separator with no digit after it (`5,`), a thousands separator with no digit before it
/// (`.123,45`), a repeated sign or `R$`, and more digits than a `Decimal` holds exactly.
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

/// `VALOR_CONSOLIDADO` as PGFN writes it, in cents, exact: dot-decimal (`22066.01`), or with a
/// comma for the point and dots grouping thousands in older files (`1.234.567,89`); at most two
/// decimals. `None` for anything else, a value with more decimals included. The narrow, fast
/// reading of the release's 28 million values while it is summed (`extract::open_data::national`
/// takes it from here): every value it reads, `parse_brl_amount` reads the same.
pub fn published_cents(text: &[u8]) -> Option<i128> {
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let (whole, fraction): (Vec<u8>, &[u8]) = match text.iter().rposition(|b| *b == b',') {
        Some(comma) => (text[..comma].iter().copied().filter(|b| *b != b'.').collect(), &text[comma + 1..]),
        None => match text.iter().position(|b| *b == b'.') {
            Some(dot) => (text[..dot].to_vec(), &text[dot + 1..]),
            None => (text.to_vec(), &[][..]),
        },
    };
    let digits = |d: &[u8]| d.iter().all(u8::is_ascii_digit);
    if whole.is_empty() || whole.len() > 30 || fraction.len() > 2 || !digits(&whole) || !digits(fraction) {
        return None;
    }
    let number = |d: &[u8]| d.iter().fold(0_i128, |n, b| n * 10 + i128::from(b - b'0'));
    let fraction_cents = number(fraction) * if fraction.len() == 1 { 10 } else { 1 };
    let value = number(&whole) * 100 + fraction_cents;
    Some(if negative { -value } else { value })
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
    // `.33`: below one real, as the PGFN files write it. Only a lone decimal separator may
    // open the number; a thousands separator there fails the group check below.
    if int_part.is_empty() && (decimal_at.is_none() || group.is_some()) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

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
            // Below one real as the PGFN files publish it: no digit before the point.
            (".33", "0.33"),
            (".5", "0.50"),
            (",50", "0.50"),
            ("-.33", "-0.33"),
            ("R$ ,99", "0.99"),
            (".500", "0.50"),
            (".125", "0.125"),
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
            (".", "no digit after"),
            (".,5", "thousands groups"),
            (".1.5", "thousands groups"),
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

    #[test]
    fn a_value_in_pgfns_forms_is_exact_any_other_is_none_and_the_general_reader_agrees() {
        let cents = published_cents;
        assert_eq!(cents(b"22066.01"), Some(2_206_601));
        assert_eq!(cents(b"312038.84"), Some(31_203_884), "not 100 times too much");
        assert_eq!(cents(b"1.234.567,89"), Some(123_456_789));
        assert_eq!(cents(b"0.1"), Some(10));
        assert_eq!(cents(b"7"), Some(700));
        assert_eq!(cents(b"-3,5"), Some(-350));
        for bad in [&b""[..], b"R$ 10", b"1e5", b"abc", b"12..3", b"1.234.567", b"0.125", b"."] {
            assert_eq!(cents(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
        // What it reads, the reader every other source uses reads the same.
        for good in ["22066.01", "312038.84", "1.234.567,89", "0.1", "7", "-3,5", "0,00"] {
            let general = parse_brl_amount(good).unwrap().unwrap();
            let as_cents = (general * Decimal::from(100)).trunc().mantissa();
            assert_eq!(cents(good.as_bytes()), Some(as_cents), "{good}");
        }
    }
}
