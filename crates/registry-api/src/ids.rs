//! Validated identifiers and query values: CNPJ (with check digits), CNO, NIRF, `ano_mes`,
//! `categoria`, UF, and page bounds. Each enforces its rule from `docs/service-api.md` §4.1 or
//! §4.3 before any request is sent.
//!
//! The error texts name the input, the rule and the fix, since they reach people editing
//! portfolio files by hand. Nothing here talks to the network.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Why an input was refused before any request was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{input:?} is not a valid {what}: {rule}")]
pub struct InvalidInput {
    pub what: &'static str,
    pub input: String,
    pub rule: String,
}

fn invalid(what: &'static str, input: &str, rule: impl Into<String>) -> InvalidInput {
    InvalidInput { what, input: input.to_string(), rule: rule.into() }
}

/// Check-digit pair for 12 base characters (`0-9`, `A-Z`), per the mod-11 rule of `docs/domain.md`,
/// "CNPJ check digits (mod 11)". Returns `None` when a character is outside `0-9A-Z`.
pub fn cnpj_check_digits(base: &[u8; 12]) -> Option<[u8; 2]> {
    const W1: [u32; 12] = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    const W2: [u32; 13] = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    let mut values = [0u32; 13];
    for (v, &c) in values.iter_mut().zip(base) {
        if !(c.is_ascii_digit() || c.is_ascii_uppercase()) {
            return None;
        }
        *v = u32::from(c) - 48;
    }
    fn digit(values: &[u32], weights: &[u32]) -> u32 {
        let r = values.iter().zip(weights).map(|(v, w)| v * w).sum::<u32>() % 11;
        if r < 2 { 0 } else { 11 - r }
    }
    let dv1 = digit(&values[..12], &W1);
    values[12] = dv1;
    let dv2 = digit(&values, &W2);
    Some([b'0' + dv1 as u8, b'0' + dv2 as u8])
}

/// A full 14-digit numeric CNPJ with correct check digits: the only kind the service takes.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Cnpj(String);

impl Cnpj {
    /// Accepts bare (`12345678000195`) or masked (`12.345.678/0001-95`) input; refuses an
    /// alphanumeric CNPJ, which the service does not take.
    pub fn parse(input: &str) -> Result<Self, InvalidInput> {
        let cnpj = Self::parse_published(input)?;
        if cnpj.is_alphanumeric() {
            return Err(invalid(
                "CNPJ",
                input,
                "it is a valid alphanumeric CNPJ (IN RFB 2.229/2024), but the registry service only \
                 accepts numeric CNPJs (^\\d{14}$), so it cannot be looked up there",
            ));
        }
        Ok(cnpj)
    }

    /// As `parse`, and an alphanumeric CNPJ (IN RFB 2.229/2024, issued from July 2026) with
    /// correct check digits too: the publishers' files carry them.
    pub fn parse_published(input: &str) -> Result<Self, InvalidInput> {
        const WHAT: &str = "CNPJ";
        let trimmed = input.trim();
        let chars: String = trimmed
            .chars()
            .filter(|c| !matches!(c, '.' | '/' | '-' | ' '))
            .map(|c| c.to_ascii_uppercase())
            .collect();
        if chars.is_empty() {
            return Err(invalid(WHAT, input, "it is empty; write 14 digits, masked or bare"));
        }
        // Counted in characters, not bytes: the message is read by whoever typed them.
        let count = chars.chars().count();
        if count != 14 {
            return Err(invalid(
                WHAT,
                input,
                format!("it has {count} characters where a CNPJ has 14 (8 root + 4 order + 2 check digits)"),
            ));
        }
        if !chars.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(invalid(WHAT, input, "only digits (and the mask characters . / -) are allowed"));
        }
        let bytes = chars.as_bytes();
        let mut base = [0u8; 12];
        base.copy_from_slice(&bytes[..12]);
        let expected =
            cnpj_check_digits(&base).ok_or_else(|| invalid(WHAT, input, "unexpected character"))?;
        if bytes[12..] != expected {
            return Err(invalid(
                WHAT,
                input,
                format!(
                    "its check digits are {} but the first 12 characters give {}; check the number for a typo",
                    &chars[12..],
                    String::from_utf8_lossy(&expected)
                ),
            ));
        }
        Ok(Self(chars))
    }

    /// Whether its root or order has letters: the service cannot look it up.
    pub fn is_alphanumeric(&self) -> bool {
        self.0.bytes().any(|b| b.is_ascii_uppercase())
    }

    /// Builds the CNPJ for a 12-digit numeric base, computing the check digits.
    pub fn from_base(base: &str) -> Option<Self> {
        let bytes: [u8; 12] = base.as_bytes().try_into().ok()?;
        if !bytes.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let dv = cnpj_check_digits(&bytes)?;
        Some(Self(format!("{base}{}{}", dv[0] as char, dv[1] as char)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The 8-character root shared by a head office and its branches.
    pub fn basico(&self) -> &str {
        &self.0[..8]
    }

    /// `12.345.678/0001-95`.
    pub fn masked(&self) -> String {
        let s = &self.0;
        format!("{}.{}.{}/{}-{}", &s[0..2], &s[2..5], &s[5..8], &s[8..12], &s[12..14])
    }
}

impl fmt::Debug for Cnpj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cnpj({})", self.0)
    }
}

impl fmt::Display for Cnpj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for Cnpj {
    type Error = InvalidInput;
    /// A CNPJ written earlier (a journal, a manifest) reads back whatever its kind.
    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse_published(&s)
    }
}

impl From<Cnpj> for String {
    fn from(c: Cnpj) -> String {
        c.0
    }
}

impl FromStr for Cnpj {
    type Err = InvalidInput;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

fn fixed_digits(what: &'static str, input: &str, len: usize) -> Result<String, InvalidInput> {
    let s = input.trim();
    if s.len() == len && s.bytes().all(|b| b.is_ascii_digit()) {
        Ok(s.to_string())
    } else {
        Err(invalid(what, input, format!("it must be exactly {len} digits with no mask")))
    }
}

/// A 12-digit construction-work id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cno(String);

impl Cno {
    pub fn parse(input: &str) -> Result<Self, InvalidInput> {
        fixed_digits("CNO", input, 12).map(Self)
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An 8-digit rural-property id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Nirf(String);

impl Nirf {
    pub fn parse(input: &str) -> Result<Self, InvalidInput> {
        fixed_digits("NIRF", input, 8).map(Self)
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A reference month `AAAAMM`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AnoMes {
    year: u16,
    month: u8,
}

impl AnoMes {
    pub fn new(year: u16, month: u8) -> Option<Self> {
        ((1..=12).contains(&month) && (1900..=9999).contains(&year)).then_some(Self { year, month })
    }

    pub fn parse(input: &str) -> Result<Self, InvalidInput> {
        let s = input.trim();
        if s.len() != 6 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid("ano_mes", input, "it must be six digits AAAAMM, e.g. 202401"));
        }
        let year: u16 = s[..4].parse().map_err(|_| invalid("ano_mes", input, "bad year"))?;
        let month: u8 = s[4..].parse().map_err(|_| invalid("ano_mes", input, "bad month"))?;
        if !(1..=12).contains(&month) {
            let rule = format!("month {month:02} is outside 01-12; write AAAAMM, e.g. 202401");
            return Err(invalid("ano_mes", input, rule));
        }
        Self::new(year, month).ok_or_else(|| {
            invalid("ano_mes", input, format!("year {year} is before 1900; write AAAAMM, e.g. 202401"))
        })
    }

    pub fn year(self) -> u16 {
        self.year
    }
    pub fn month(self) -> u8 {
        self.month
    }

    /// Months since year 0, for ordering and distances.
    pub fn index(self) -> i32 {
        i32::from(self.year) * 12 + i32::from(self.month) - 1
    }

    pub fn from_index(i: i32) -> Option<Self> {
        let year = u16::try_from(i.div_euclid(12)).ok()?;
        Self::new(year, (i.rem_euclid(12) + 1) as u8)
    }

    pub fn plus_months(self, n: i32) -> Option<Self> {
        Self::from_index(self.index() + n)
    }
}

impl fmt::Display for AnoMes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}{:02}", self.year, self.month)
    }
}

impl FromStr for AnoMes {
    type Err = InvalidInput;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl TryFrom<String> for AnoMes {
    type Error = InvalidInput;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse(&s)
    }
}

impl From<AnoMes> for String {
    fn from(a: AnoMes) -> String {
        a.to_string()
    }
}

/// The debt systems of operation 5 (`docs/service-api.md` §4.3; `docs/domain.md`,
/// "Active-debt registrations (PGFN)").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Categoria {
    NaoPrevidenciario,
    Fgts,
    Previdenciario,
}

impl Categoria {
    pub const ALL: [Categoria; 3] = [Self::NaoPrevidenciario, Self::Fgts, Self::Previdenciario];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::NaoPrevidenciario => "nao_previdenciario",
            Self::Fgts => "fgts",
            Self::Previdenciario => "previdenciario",
        }
    }

    pub fn parse(input: &str) -> Result<Self, InvalidInput> {
        Self::ALL.into_iter().find(|c| c.as_str() == input.trim()).ok_or_else(|| {
            invalid("categoria", input, "it must be one of nao_previdenciario, fgts, previdenciario")
        })
    }
}

impl fmt::Display for Categoria {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The 27 federative units, in the order of `docs/domain.md`, "States (UF)".
pub const UFS: [&str; 27] = [
    "AC", "AL", "AP", "AM", "BA", "CE", "DF", "ES", "GO", "MA", "MT", "MS", "MG", "PA", "PB", "PR", "PE",
    "PI", "RJ", "RN", "RS", "RO", "RR", "SC", "SP", "SE", "TO",
];

/// A federative unit, upper-cased.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uf(&'static str);

impl Uf {
    pub fn parse(input: &str) -> Result<Self, InvalidInput> {
        let up = input.trim().to_ascii_uppercase();
        UFS.iter().find(|u| **u == up).map(|u| Self(u)).ok_or_else(|| {
            invalid("UF", input, format!("it must be one of the 27 state codes: {}", UFS.join(",")))
        })
    }
    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

impl fmt::Display for Uf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// `limite` and `offset` of a list request, within the bounds of `docs/service-api.md` §4.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub limite: u32,
    pub offset: u64,
}

impl Page {
    pub const MAX_LIMITE: u32 = 100;

    pub fn new(limite: i64, offset: i64) -> Result<Self, InvalidInput> {
        if !(1..=i64::from(Self::MAX_LIMITE)).contains(&limite) {
            return Err(invalid("limite", &limite.to_string(), "it must be between 1 and 100"));
        }
        if offset < 0 {
            return Err(invalid("offset", &offset.to_string(), "it must be 0 or more"));
        }
        Ok(Self { limite: limite as u32, offset: offset as u64 })
    }

    pub fn first() -> Self {
        Self { limite: Self::MAX_LIMITE, offset: 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_examples_from_domain_facts() {
        assert_eq!(cnpj_check_digits(b"336831110002"), Some(*b"80"));
        assert_eq!(cnpj_check_digits(b"112223330001"), Some(*b"81"));
        assert_eq!(cnpj_check_digits(b"12ABC34501DE"), Some(*b"35"));
    }

    #[test]
    fn cnpj_masked_and_bare_normalise() {
        let a = Cnpj::parse("33.683.111/0002-80").unwrap();
        let b = Cnpj::parse(" 33683111000280 ").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.masked(), "33.683.111/0002-80");
        assert_eq!(a.basico(), "33683111");
    }

    #[test]
    fn cnpj_refusals_say_why() {
        let e = Cnpj::parse("33683111000281").unwrap_err();
        assert!(e.rule.contains("check digits are 81"), "{e}");
        let e = Cnpj::parse("3368311100028").unwrap_err();
        assert!(e.rule.contains("13 characters"), "{e}");
        let e = Cnpj::parse("12.ABC.345/01DE-35").unwrap_err();
        assert!(e.rule.contains("alphanumeric") && e.rule.contains("only accepts numeric"), "{e}");
        let e = Cnpj::parse("12.ABC.345/01DE-36").unwrap_err();
        assert!(e.rule.contains("check digits"), "{e}");
        // The publishers' files carry them: read there, with their check digits checked.
        let alnum = Cnpj::parse_published("12.ABC.345/01DE-35").unwrap();
        assert_eq!(
            (alnum.as_str(), alnum.basico(), alnum.is_alphanumeric()),
            ("12ABC34501DE35", "12ABC345", true)
        );
        assert!(Cnpj::parse_published("12.ABC.345/01DE-36").is_err());
    }

    #[test]
    fn ano_mes_rules() {
        assert_eq!(AnoMes::parse("202401").unwrap().to_string(), "202401");
        assert!(AnoMes::parse("202413").unwrap_err().rule.contains("month 13"));
        assert!(AnoMes::parse("202400").is_err());
        assert!(AnoMes::parse("2024-01").is_err());
        let a = AnoMes::parse("202401").unwrap();
        assert_eq!(a.plus_months(-1).unwrap().to_string(), "202312");
        assert_eq!(a.plus_months(12).unwrap().to_string(), "202501");
    }

    #[test]
    fn page_bounds() {
        assert!(Page::new(0, 0).is_err());
        assert!(Page::new(101, 0).is_err());
        assert!(Page::new(100, -1).is_err());
        assert_eq!(Page::new(100, 5).unwrap(), Page { limite: 100, offset: 5 });
    }

    #[test]
    fn ano_mes_names_the_part_that_is_wrong() {
        assert!(AnoMes::parse("180001").unwrap_err().rule.contains("year 1800 is before 1900"));
        assert!(AnoMes::parse("180013").unwrap_err().rule.contains("month 13"));
    }

    /// The check digits by the published rule, written out apart from `Cnpj::from_base`: each
    /// character's value is its ASCII code less 48 (so '0'-'9' are 0-9 and 'A' is 17, the
    /// alphanumeric CNPJ's rule, IN RFB 2.229/2024), weighted 5,4,3,2,9,...,2 for the first digit
    /// and 6,5,4,3,2,9,...,2 over the base and that digit for the second; a remainder mod 11
    /// below 2 gives 0, else 11 less it.
    fn published_check_digits(base: &str) -> String {
        let digit = |chars: &[u8], weights: &[u32]| {
            let sum: u32 = chars.iter().zip(weights).map(|(c, w)| (u32::from(*c) - 48) * w).sum();
            if sum % 11 < 2 { 0 } else { 11 - sum % 11 }
        };
        let first = digit(base.as_bytes(), &[5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
        let with_first = format!("{base}{first}");
        let second = digit(with_first.as_bytes(), &[6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
        format!("{first}{second}")
    }

    #[test]
    fn published_cnpjs_are_read_and_their_digits_are_the_rules() {
        // Banco do Brasil, Petrobras, Itaú Unibanco and Vale as the Receita lists them, and the
        // Receita's own example of an alphanumeric CNPJ.
        for known in
            ["00000000000191", "33000167000101", "60701190000104", "33592510000154", "12ABC34501DE35"]
        {
            assert_eq!(published_check_digits(&known[..12]), &known[12..], "{known}");
            let numeric = known.bytes().all(|b| b.is_ascii_digit());
            if numeric {
                assert_eq!(Cnpj::parse(known).map(|c| c.as_str().to_string()), Ok(known.to_string()));
                assert_eq!(Cnpj::from_base(&known[..12]).map(|c| c.as_str().to_string()), Some(known.into()));
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn the_check_digits_are_the_published_rules(base in "[0-9]{12}") {
            let cnpj = Cnpj::from_base(&base).expect("12 digits");
            let published = published_check_digits(&base);
            proptest::prop_assert_eq!(&cnpj.as_str()[12..], published.as_str());
        }

        #[test]
        fn id_parsers_never_panic(s in proptest::prelude::any::<String>()) {
            let _ = Cnpj::parse(&s);
            let _ = Cno::parse(&s);
            let _ = Nirf::parse(&s);
            let _ = AnoMes::parse(&s);
            let _ = Uf::parse(&s);
            let _ = Categoria::parse(&s);
        }

        #[test]
        fn every_numeric_base_gives_a_cnpj_read_back_bare_or_masked(base in "[0-9]{12}") {
            let cnpj = Cnpj::from_base(&base).expect("12 digits");
            proptest::prop_assert_eq!(&cnpj.as_str()[..12], base.as_str());
            for text in [cnpj.as_str().to_string(), cnpj.masked(), format!(" {} ", cnpj.masked())] {
                proptest::prop_assert_eq!(Cnpj::parse(&text), Ok(cnpj.clone()), "{}", text);
            }
        }

        #[test]
        fn any_other_check_digit_pair_is_refused(base in "[0-9]{12}", dv in 0u8..100) {
            let right = Cnpj::from_base(&base).expect("12 digits");
            let candidate = format!("{base}{dv:02}");
            if candidate != right.as_str() {
                let e = Cnpj::parse(&candidate).unwrap_err();
                proptest::prop_assert!(e.rule.contains("check digits"), "{}", e);
                proptest::prop_assert!(e.rule.contains(&right.as_str()[12..]), "{}", e);
            }
        }

        #[test]
        fn a_wrong_length_is_named_in_characters(s in "[0-9é]{0,20}") {
            let n = s.chars().count();
            if n != 14 {
                let e = Cnpj::parse(&s).unwrap_err();
                let said = format!("{n} characters");
                proptest::prop_assert!(n == 0 || e.rule.contains(&said), "{}", e);
            }
        }

        #[test]
        fn ano_mes_round_trips_and_orders(year in 1900u16..=9999, month in 1u8..=12, step in -240i32..=240) {
            let text = format!("{year:04}{month:02}");
            let a = AnoMes::parse(&text).expect("valid month");
            proptest::prop_assert_eq!(a.to_string(), text);
            proptest::prop_assert_eq!(AnoMes::from_index(a.index()), Some(a));
            if let Some(b) = a.plus_months(step) {
                proptest::prop_assert_eq!(b.index() - a.index(), step);
                proptest::prop_assert_eq!(b.plus_months(-step), Some(a));
            }
        }
    }

    #[test]
    fn small_ids() {
        assert!(Cno::parse("123456789012").is_ok());
        assert!(Cno::parse("12345678901").is_err());
        assert!(Nirf::parse("12345678").is_ok());
        assert!(Nirf::parse("1234567a").is_err());
        assert_eq!(Uf::parse("sp").unwrap().as_str(), "SP");
        assert!(Uf::parse("XX").is_err());
        assert_eq!(Categoria::parse("fgts").unwrap(), Categoria::Fgts);
        assert!(Categoria::parse("FGTS ").is_err());
    }
}
