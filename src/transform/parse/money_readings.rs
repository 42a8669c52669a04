//! Property tests of money against a person's reading. An amount is written the way the
//! sources write money (sign, currency, thousands, decimal separator, a missing leading zero)
//! by a writer that knows the value it meant; the parser must read that value back. The same
//! writer knows which of its writings a person could not read unambiguously (one separator
//! before exactly three digits: thousands or decimals?), and those must be refused. Defects
//! added to a readable writing must be refused with a message that quotes the input and says
//! why. The writer shares no code with the parser.

use proptest::prelude::*;
use rust_decimal::Decimal;

use super::parse_brl_amount;

/// How a writer spells an amount.
#[derive(Debug, Clone)]
struct Writing {
    /// Whole reais and the fractional digits as written (may be empty, may exceed two).
    whole: u64,
    frac: String,
    negative: bool,
    sign: SignStyle,
    currency: Currency,
    /// `Some(('.', ','))`: thousands by '.', decimals by ','. `None`: no thousands grouping.
    grouping: Option<(char, char)>,
    /// The decimal separator when not grouping.
    decimal: char,
    /// `.33` instead of `0.33` when the whole part is zero.
    drop_leading_zero: bool,
}

#[derive(Debug, Clone, Copy)]
enum SignStyle {
    Minus,
    UnicodeMinus,
    Parentheses,
}

#[derive(Debug, Clone, Copy)]
enum Currency {
    None,
    BeforeSign,
    AfterSign,
}

/// What a person reading the text understands.
#[derive(Debug, PartialEq)]
enum Reading {
    Value(Decimal),
    /// One separator before exactly three digits and no other: thousands or decimals?
    Ambiguous,
}

fn group_thousands(whole: u64, sep: char) -> String {
    let digits = whole.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

impl Writing {
    fn text(&self) -> String {
        self.text_with(|n| n.to_string())
    }

    /// The writing with its number passed through `spoil` (a defect inside the number).
    fn text_with(&self, spoil: impl Fn(&str) -> String) -> String {
        let number = spoil(&self.number().0);
        let sign = match (self.negative, self.sign) {
            (false, _) => "",
            (true, SignStyle::Minus) => "-",
            (true, SignStyle::UnicodeMinus) => "\u{2212}",
            (true, SignStyle::Parentheses) => "(",
        };
        let close = if self.negative && matches!(self.sign, SignStyle::Parentheses) { ")" } else { "" };
        match self.currency {
            Currency::None => format!("{sign}{number}{close}"),
            Currency::BeforeSign => format!("R$ {sign}{number}{close}"),
            Currency::AfterSign if close.is_empty() => format!("{sign}R$ {number}"),
            Currency::AfterSign => format!("R$ {sign}{number}{close}"),
        }
    }

    /// The number's text and how many separators it holds.
    fn number(&self) -> (String, usize) {
        let (whole, decimal) = match self.grouping {
            Some((thousands, decimal)) => (group_thousands(self.whole, thousands), decimal),
            None => (self.whole.to_string(), self.decimal),
        };
        let whole = if self.whole == 0 && self.drop_leading_zero && !self.frac.is_empty() {
            String::new()
        } else {
            whole
        };
        let text = if self.frac.is_empty() { whole } else { format!("{whole}{decimal}{}", self.frac) };
        let separators = text.chars().filter(|c| matches!(c, '.' | ',')).count();
        (text, separators)
    }

    /// What a person reads, without looking at the parser.
    fn reading(&self) -> Reading {
        let (text, separators) = self.number();
        if separators == 1 {
            let at = text.find(['.', ',']).unwrap_or(0);
            let (before, after) = (&text[..at], &text[at + 1..]);
            let could_be_thousands = (1..=3).contains(&before.len()) && !before.starts_with('0');
            if after.len() == 3 && could_be_thousands {
                return Reading::Ambiguous;
            }
        }
        let magnitude: Decimal =
            format!("{}.{}", self.whole, if self.frac.is_empty() { "0" } else { &self.frac })
                .parse()
                .unwrap_or_default();
        let value = if self.negative { -magnitude } else { magnitude };
        Reading::Value(value)
    }
}

fn writing() -> impl Strategy<Value = Writing> {
    let whole = prop_oneof![0u64..=9, 10u64..=999, 1_000u64..=999_999, 1_000_000u64..=999_999_999_999];
    let frac = prop_oneof![Just(String::new()), "[0-9]{1,2}", "[0-9]{3,6}"];
    let sign =
        prop_oneof![Just(SignStyle::Minus), Just(SignStyle::UnicodeMinus), Just(SignStyle::Parentheses)];
    let currency = prop_oneof![Just(Currency::None), Just(Currency::BeforeSign), Just(Currency::AfterSign)];
    let grouping = prop_oneof![Just(None), Just(Some(('.', ','))), Just(Some((',', '.')))];
    (whole, frac, any::<bool>(), sign, currency, grouping, prop_oneof![Just('.'), Just(',')], any::<bool>())
        .prop_map(|(whole, frac, negative, sign, currency, grouping, decimal, drop_leading_zero)| Writing {
            whole,
            frac,
            negative,
            sign,
            currency,
            grouping,
            decimal,
            drop_leading_zero,
        })
}

/// A defect that makes a readable writing unreadable: whether it spoils the number inside the
/// writing (or the whole text), how, and words its refusal must use.
type Defect = (bool, fn(&str) -> String, &'static str);

fn defect() -> impl Strategy<Value = Defect> {
    let defects: Vec<Defect> = vec![
        (true, |n| format!("{n}x"), "unexpected character"),
        (true, |n| format!("{n}e5"), "exponent"),
        (true, |n| format!("{n},"), ""),
        (true, |n| n.replacen(char::is_numeric, "1 1", 1), "space"),
        (true, |n| n.replacen(char::is_numeric, "1-", 1), "inside the number"),
        (false, |s| format!("--{}", s.trim_start_matches(['-', '\u{2212}'])), "sign"),
        (false, |s| format!("R$ {s}").replacen("R$", "R$ R$", 1), "more than once"),
    ];
    proptest::sample::select(defects)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::test_hooks::proptest_cases(3000)))]

    #[test]
    fn every_accepted_form_reads_as_a_person_reads_it(w in writing()) {
        let text = w.text();
        match (w.reading(), parse_brl_amount(&text)) {
            (Reading::Value(want), Ok(Some(got))) => prop_assert_eq!(got, want, "{:?} from {:?}", text, w),
            (Reading::Ambiguous, Err(e)) => {
                prop_assert!(e.to_string().contains("thousands or as decimals"), "{}: {}", text, e);
            }
            (reading, got) => prop_assert!(false, "{:?} ({:?}) read as {:?}, a person reads {:?}", text, w, got, reading),
        }
    }

    #[test]
    fn every_refusal_names_the_value_and_why(w in writing(), (inside, spoil, why) in defect()) {
        let text = if inside { w.text_with(spoil) } else { spoil(&w.text()) };
        let Err(e) = parse_brl_amount(&text) else {
            return Err(TestCaseError::fail(format!("{text:?} (a defect added to {:?}) was accepted", w.text())));
        };
        prop_assert_eq!(&e.input, &text);
        prop_assert!(e.to_string().starts_with(&format!("{text:?} is not a valid amount: ")), "{}", e);
        prop_assert!(!e.reason.trim().is_empty());
        prop_assert!(e.reason.contains(why), "{:?}: {} (expected it to mention {:?})", text, e, why);
    }
}
