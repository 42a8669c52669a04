//! Property tests across the parsers: round trips in every form, and no panic on any input.

use chrono::{Datelike, Days, NaiveDate};
use proptest::prelude::*;
use rust_decimal::Decimal;

use super::*;

const CENTS_BOUND: i64 = 1_000_000_000_000_000;
const FIRST_DAY: NaiveDate = match NaiveDate::from_ymd_opt(MIN_YEAR, 1, 1) {
    Some(d) => d,
    None => panic!("MIN_YEAR must be a valid year"),
};
// 1800-01-01 to 2100-12-31 inclusive.
const SPAN_DAYS: u64 = 109_937;

fn three_forms(d: NaiveDate) -> [String; 3] {
    let (y, m, day) = (d.year(), d.month(), d.day());
    [format!("{y:04}-{m:02}-{day:02}"), format!("{day:02}/{m:02}/{y:04}"), format!("{y:04}{m:02}{day:02}")]
}

#[test]
fn date_span_covers_exactly_the_accepted_years() {
    let last = FIRST_DAY.checked_add_days(Days::new(SPAN_DAYS));
    assert_eq!(last, NaiveDate::from_ymd_opt(MAX_YEAR, 12, 31));
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
        // The span ends on MAX_YEAR's last day (checked above), so every offset is a date.
        let Some(d) = FIRST_DAY.checked_add_days(Days::new(offset)) else {
            return Err(TestCaseError::fail(format!("offset {offset} is past the span")));
        };
        for text in three_forms(d) {
            prop_assert_eq!(parse_registry_date(&text), Ok(Some(d)), "{}", text);
        }
        let Some(first) = d.with_day(1) else {
            return Err(TestCaseError::fail(format!("{d} has no first day")));
        };
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
