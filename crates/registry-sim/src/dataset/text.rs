//! String forms of the dataset: money from integer cents, calendar dates in the three
//! layouts the sources use, and the deliberate source defects (blank/`null` values,
//! impossible dates, mojibake). It decides no values; the generators do.
//!
//! Money is always rendered from `i64` cents with integer arithmetic, never through `f64`
//! formatting, so the strings are exact and identical on every platform.

use super::rng::{DetRng, below, per_mille};

fn thousands(n: u64, sep: char) -> String {
    registry_api::forms::group_thousands(&n.to_string(), sep)
}

fn sign(cents: i64) -> &'static str {
    if cents < 0 { "-" } else { "" }
}

/// `312038.84`: dot decimal, no grouping.
pub(super) fn money_dot(cents: i64) -> String {
    let a = cents.unsigned_abs();
    format!("{}{}.{:02}", sign(cents), a / 100, a % 100)
}

/// `7.598.208,15`: pt-BR grouping and decimal comma.
pub(super) fn money_br(cents: i64) -> String {
    let a = cents.unsigned_abs();
    format!("{}{},{:02}", sign(cents), thousands(a / 100, '.'), a % 100)
}

/// `R$ 1.234,56`, and `-R$ 1.234,56` for negatives.
pub(super) fn money_brl(cents: i64) -> String {
    format!("{}R$ {}", sign(cents), money_br(cents.abs()))
}

/// `1000,00`: decimal comma, no grouping (raw CNPJ capital).
pub(super) fn money_comma(cents: i64) -> String {
    let a = cents.unsigned_abs();
    format!("{}{},{:02}", sign(cents), a / 100, a % 100)
}

/// A proleptic Gregorian date; `y` may be out of range on purpose (defects).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Date {
    pub y: i32,
    pub m: u32,
    pub d: u32,
}

/// Last day of the latest month (202609): nothing in the dataset happens after it.
pub(super) const TODAY: Date = Date::new(2026, 9, 30);

impl Date {
    pub(super) const fn new(y: i32, m: u32, d: u32) -> Date {
        Date { y, m, d }
    }

    /// Days since 1970-01-01 (H. Hinnant's civil algorithm).
    pub(super) fn days(self) -> i64 {
        let y = i64::from(self.y) - i64::from(self.m <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (i64::from(self.m) + 9) % 12;
        let doy = (153 * mp + 2) / 5 + i64::from(self.d) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    pub(super) fn from_days(z: i64) -> Date {
        let z = z + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let y = yoe + era * 400 + i64::from(m <= 2);
        Date { y: y as i32, m, d }
    }

    /// Uniform between `lo` and `hi`, both included (`lo` when the range is empty).
    pub(super) fn between(rng: &mut DetRng, lo: Date, hi: Date) -> Date {
        let (a, b) = (lo.days(), hi.days());
        if b <= a {
            return lo;
        }
        Date::from_days(a + below(rng, (b - a + 1) as usize) as i64)
    }

    pub(super) fn plus_days(self, n: i64) -> Date {
        Date::from_days(self.days() + n)
    }

    pub(super) fn min(self, other: Date) -> Date {
        if other < self { other } else { self }
    }

    pub(super) fn max(self, other: Date) -> Date {
        if other > self { other } else { self }
    }

    /// `YYYYMMDD` (raw CNPJ files).
    pub(super) fn compact(self) -> String {
        format!("{:04}{:02}{:02}", self.y, self.m, self.d)
    }

    /// `YYYY-MM-DD`.
    pub(super) fn iso(self) -> String {
        format!("{:04}-{:02}-{:02}", self.y, self.m, self.d)
    }

    /// `DD/MM/YYYY` (PGFN files).
    pub(super) fn br(self) -> String {
        format!("{:02}/{:02}/{:04}", self.d, self.m, self.y)
    }

    pub(super) fn render(self, form: DateForm) -> String {
        match form {
            DateForm::Compact => self.compact(),
            DateForm::Iso => self.iso(),
            DateForm::Br => self.br(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DateForm {
    Compact,
    Iso,
    Br,
}

/// The defect decision of one record: ~0.3% of company-table records carry one.
pub(super) fn defect(rng: &mut DetRng) -> bool {
    per_mille(rng, 3)
}

/// A broken money value as the sources publish it: empty or the literal `null`.
pub(super) fn broken_money(rng: &mut DetRng) -> String {
    if below(rng, 2) == 0 { String::new() } else { "null".to_string() }
}

/// A broken date: empty, `null`, or an impossible year (202 or 4100) in the field's layout.
pub(super) fn broken_date(rng: &mut DetRng, form: DateForm) -> String {
    match below(rng, 4) {
        0 => String::new(),
        1 => "null".to_string(),
        2 => Date::new(202, 12, 31).render(form),
        _ => Date::new(4100, 1, 1).render(form),
    }
}

/// Windows-1252 for bytes 0x80-0x9F, where it differs from Latin-1; undefined slots keep
/// the C1 control character, as a Latin-1 decoder would produce.
const CP1252_HIGH: [char; 32] = [
    '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}', '\u{90}',
    '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ',
];

/// UTF-8 bytes misread as Windows-1252: `Sócio` -> `SÃ³cio`, `JOÃO` -> `JOÃƒO`.
pub(super) fn mojibake(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            0x80..=0x9F => CP1252_HIGH[usize::from(b - 0x80)],
            _ => char::from(b),
        })
        .collect()
}

const ACCENTS: [(&str, &str); 18] = [
    ("CONCEICAO", "CONCEIÇÃO"),
    ("JOAO", "JOÃO"),
    ("SAO", "SÃO"),
    ("COMERCIO", "COMÉRCIO"),
    ("SERVICOS", "SERVIÇOS"),
    ("CONSTRUCAO", "CONSTRUÇÃO"),
    ("CONSTRUCOES", "CONSTRUÇÕES"),
    ("ASSOCIACAO", "ASSOCIAÇÃO"),
    ("GONCALVES", "GONÇALVES"),
    ("ARAUJO", "ARAÚJO"),
    ("INDUSTRIA", "INDÚSTRIA"),
    ("SEBASTIAO", "SEBASTIÃO"),
    ("ANTONIO", "ANTÔNIO"),
    ("MARCIA", "MÁRCIA"),
    ("PECAS", "PEÇAS"),
    ("LOGISTICA", "LOGÍSTICA"),
    ("ALIMENTACAO", "ALIMENTAÇÃO"),
    ("FARMACIA", "FARMÁCIA"),
];

/// The name as a Latin-1 reader mangles it: the ASCII form is re-accented first (adding an
/// accented surname when no word has an accent) so the defect always shows.
pub(super) fn mangled_name(name: &str) -> String {
    let mut changed = false;
    let mut words: Vec<&str> = Vec::new();
    for w in name.split(' ') {
        match ACCENTS.iter().find(|(plain, _)| *plain == w) {
            Some((_, accented)) => {
                changed = true;
                words.push(accented);
            }
            None => words.push(w),
        }
    }
    let mut accented = words.join(" ");
    if !changed {
        accented.push_str(" DA CONCEIÇÃO");
    }
    mojibake(&accented)
}

/// `name` right-padded with spaces to `width` characters, as fixed-width exports do.
pub(super) fn right_pad(name: &str, width: usize) -> String {
    format!("{name:<width$}")
}
