//! Calendar dates and reference months, in the three layouts the sources use.

use chrono::NaiveDate;

use super::{ParseError, error, is_absent};

/// Years accepted in any date. The sources contain typing errors such as year 202 or 4100
/// (`docs/domain.md`, "Company registry (CNPJ open data)"), and no registry event predates 1800 or lies
/// beyond 2100, so anything outside is reported rather than carried into a report as a
/// plausible-looking date.
pub const MIN_YEAR: i32 = 1800;
/// See [`MIN_YEAR`].
pub const MAX_YEAR: i32 = 2100;

/// Whether `s` is a date the publishers write for "no date": all zeros in any of the three
/// layouts (the CNPJ files' `00000000`), or the first day of the year 1000 (the PGFN files'
/// `01/01/1000`, which no registration can have). It reads as null and is counted as a
/// placeholder in `data_quality`, not as a failure.
pub fn is_date_placeholder(s: &str) -> bool {
    matches!(s.trim(), "00000000" | "0000-00-00" | "00/00/0000" | "01/01/1000" | "1000-01-01" | "10000101")
}

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

/// Reads a date that may carry a time of day, as its day: `2023-04-05 10:20:30` (IBAMA's
/// embargoes write every date so), `2023-04-05T10:20`, or any form [`parse_registry_date`]
/// reads. The time must have the shape `HH:MM`, `HH:MM:SS` or `HH:MM:SS.fff`, and is dropped;
/// the day is read, and refused, as [`parse_registry_date`] does, quoting the whole input.
pub fn parse_date_dropping_time(s: &str) -> Result<Option<NaiveDate>, ParseError> {
    let t = s.trim();
    let day = match t.split_once([' ', 'T']) {
        Some((day, time)) if is_time_of_day(time.trim()) => day,
        _ => t,
    };
    parse_registry_date(day).map_err(|e| ParseError { input: s.to_string(), ..e })
}

/// `HH:MM`, `HH:MM:SS` or `HH:MM:SS.fff`, each part within its range.
fn is_time_of_day(t: &str) -> bool {
    let (clock, fraction) = t.split_once('.').unwrap_or((t, "0"));
    let parts: Vec<&str> = clock.split(':').collect();
    let limits = [23, 59, 60];
    (2..=3).contains(&parts.len())
        && !fraction.is_empty()
        && fraction.bytes().all(|b| b.is_ascii_digit())
        && parts
            .iter()
            .zip(limits)
            .all(|(p, max)| p.len() == 2 && digits_value(p.as_bytes()).is_some_and(|v| v <= max))
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

/// Reads a public list's date as its publisher writes it: a day in any form
/// [`parse_registry_date`] reads (CGU's `20261130_CEIS`, the MTE's `30/11/2026`), or a month
/// `AAAAMM` (CGU's monthly `202610_PEP`) as its last day: the register as the month left it.
/// `Ok(None)` for the all-zero placeholders.
pub fn parse_list_date(s: &str) -> Result<Option<NaiveDate>, ParseError> {
    if s.trim().len() != 6 {
        return parse_registry_date(s);
    }
    let first = parse_ano_mes(s)?;
    let last = first.checked_add_months(chrono::Months::new(1)).and_then(|d| d.pred_opt());
    last.map(Some).ok_or_else(|| error("month (AAAAMM)", s, "its last day is past the calendar's end"))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).expect("test date")
    }

    #[test]
    fn a_time_of_day_is_dropped_and_the_day_read_as_any_date() {
        let cases = [
            ("2023-04-05 10:20:30", Some(date(2023, 4, 5))),
            ("2023-04-05T10:20", Some(date(2023, 4, 5))),
            ("05/04/2023 00:00:00.000", Some(date(2023, 4, 5))),
            (" 20230405 ", Some(date(2023, 4, 5))),
            ("", None),
        ];
        for (text, day) in cases {
            assert_eq!(parse_date_dropping_time(text), Ok(day), "{text:?}");
        }
        for bad in ["2023-02-30 10:00:00", "2023-04-05 25:00:00", "2023-04-05 ontem", "1667-05-31 11:10:00"] {
            let err = parse_date_dropping_time(bad).unwrap_err();
            assert_eq!(err.input, bad, "the whole input is quoted");
        }
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
    fn a_lists_date_is_a_day_in_any_form_or_a_month_as_its_last_day() {
        assert_eq!(parse_list_date("20261130"), Ok(Some(date(2026, 11, 30))));
        assert_eq!(parse_list_date("30/11/2026"), Ok(Some(date(2026, 11, 30))));
        assert_eq!(parse_list_date("2026-11-30"), Ok(Some(date(2026, 11, 30))));
        assert_eq!(parse_list_date("202610"), Ok(Some(date(2026, 10, 31))));
        assert_eq!(parse_list_date("202402"), Ok(Some(date(2024, 2, 29))), "a leap February");
        assert_eq!(parse_list_date("202312"), Ok(Some(date(2023, 12, 31))), "the year's last month");
        assert_eq!(parse_list_date("00000000"), Ok(None));
        for s in ["20261131", "202613", "31/02/2026", "2026113", "30112026x"] {
            assert!(parse_list_date(s).is_err(), "{s:?} should be refused");
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
}
