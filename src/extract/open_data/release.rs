//! A release's own date, from the names its publishers give: PGFN publishes a quarter
//! (`2024_trimestre_01/`, or a month in its files' names, `arquivo_lai_SIDA_1_202403.csv`, which
//! sit inside its zips: a zip saved without its quarter's folder is dated by them), RFB a month
//! (`2024-05/`, or the date in an entry name, `K3241.K03200Y0.D40511.EMPRECSV`, which dates the
//! release only where no folder does: the file is written days before it is published). That
//! date gives only its year's last digit; the decade comes from when the copy being read was
//! written (its files' modification time), never from today's clock.

use std::collections::BTreeMap;

/// The periods of a release, as the service writes them (`2024T1`, `2024-05`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReleasePeriod {
    /// PGFN's quarter.
    pub quarter: Option<String>,
    /// RFB's month.
    pub month: Option<String>,
}

/// Names that date two releases: which publisher's periods, and the periods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TwoReleases {
    pub what: &'static str,
    pub periods: String,
}

/// Each period said, with the first name that said it.
type Said = BTreeMap<String, String>;

fn say(said: &mut Said, period: Option<String>, name: &str) {
    if let Some(p) = period {
        said.entry(p).or_insert_with(|| name.to_string());
    }
}

impl ReleasePeriod {
    /// The periods the `names` (paths relative to the folder) and the `entries` (the files
    /// inside its zips, as `zip/entry`) say; `TwoReleases` when they say more than one quarter
    /// or more than one month. `written_in`: the year the copy read was written (its newest
    /// file's modification time), which dates an entry name's one-digit year.
    pub fn of(names: &[String], entries: &[String], written_in: i32) -> Result<ReleasePeriod, TwoReleases> {
        let entry_date = |part: &str| rfb_entry_date(part, written_in);
        let (mut quarters, mut months, mut entry_months) = (Said::new(), Said::new(), Said::new());
        for name in names.iter().chain(entries) {
            for part in name.split(['/', '\\']) {
                say(&mut quarters, quarter_folder(part).or_else(|| pgfn_month_file(part)), name);
            }
        }
        for name in names {
            for part in name.split(['/', '\\']) {
                say(&mut months, month_folder(part).or_else(|| entry_date(part)), name);
            }
        }
        for name in entries {
            say(&mut entry_months, name.rsplit('/').next().and_then(entry_date), name);
        }
        if months.is_empty() {
            months = entry_months;
        }
        let single = |what: &'static str, said: Said| match said.len() {
            0 | 1 => Ok(said.into_keys().next()),
            _ => Err(TwoReleases {
                what,
                periods: said.iter().map(|(p, name)| format!("{p} by {name}")).collect::<Vec<_>>().join(", "),
            }),
        };
        Ok(ReleasePeriod {
            quarter: single("PGFN quarters", quarters)?,
            month: single("RFB months", months)?,
        })
    }

    /// The month the release stands for: RFB's month, else the last month of PGFN's quarter.
    pub fn month(&self) -> Option<crate::api::AnoMes> {
        let from_month = self.month.as_deref().and_then(|m| {
            let (y, m) = m.split_once('-')?;
            crate::api::AnoMes::new(y.parse().ok()?, m.parse().ok()?)
        });
        let from_quarter = self.quarter.as_deref().and_then(|q| {
            let (y, q) = q.split_once('T')?;
            crate::api::AnoMes::new(y.parse().ok()?, q.parse::<u8>().ok()? * 3)
        });
        from_month.or(from_quarter)
    }
}

fn year(text: &str) -> Option<u16> {
    (text.len() == 4).then(|| text.parse().ok()).flatten().filter(|y| (1990..2100).contains(y))
}

fn month(text: &str) -> Option<u8> {
    (text.len() == 2).then(|| text.parse().ok()).flatten().filter(|m| (1..=12).contains(m))
}

/// `2024_trimestre_01` -> `2024T1`.
fn quarter_folder(part: &str) -> Option<String> {
    let lower = part.to_lowercase();
    let (y, q) = lower.split_once("_trimestre_")?;
    let q: u8 = q.parse().ok().filter(|q| (1..=4).contains(q))?;
    Some(format!("{}T{q}", year(y)?))
}

/// `arquivo_lai_SIDA_SP_202403.csv` -> `2024T1`.
fn pgfn_month_file(part: &str) -> Option<String> {
    let lower = part.to_lowercase();
    if !lower.starts_with("arquivo_lai") {
        return None;
    }
    let stem = lower.split('.').next()?;
    let last = stem.rsplit('_').next()?;
    let (y, m) = (year(last.get(..4)?)?, month(last.get(4..)?)?);
    Some(format!("{y}T{}", (m - 1) / 3 + 1))
}

/// `2024-05` -> `2024-05` (and `2024-05.zip`, the folder downloaded as one archive).
fn month_folder(part: &str) -> Option<String> {
    let part = part.strip_suffix(".zip").unwrap_or(part);
    let (y, m) = part.split_once('-')?;
    Some(format!("{}-{:02}", year(y)?, month(m)?))
}

/// `K3241.K03200Y0.D40511.EMPRECSV` -> `2024-05` (the file's date: D, the year's last digit,
/// month, day). The year is the latest ending in that digit up to `written_in`, the year the
/// copy read was written: a file cannot be dated after the copy of it was made.
fn rfb_entry_date(part: &str, written_in: i32) -> Option<String> {
    let d = part
        .split('.')
        .find(|p| p.len() == 6 && p.starts_with('D') && p[1..].bytes().all(|b| b.is_ascii_digit()))?;
    let latest = written_in;
    let digit = i32::from(d.as_bytes()[1] - b'0');
    let y = latest - (latest - digit).rem_euclid(10);
    Some(format!("{y}-{:02}", month(&d[2..4])?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The year the tests' copies were written: pinned, so no test depends on today's clock.
    const WRITTEN: i32 = 2026;

    #[test]
    fn each_publisher_dates_its_release_in_its_own_names() {
        let names =
            ["pgfn/2024_trimestre_01/Dados_abertos_FGTS.zip", "cnpj/2024-05/Empresas0.zip", "cnpj/Cnaes.zip"]
                .map(String::from);
        let p = ReleasePeriod::of(&names, &[], WRITTEN).unwrap();
        assert_eq!(p.quarter.as_deref(), Some("2024T1"));
        assert_eq!(p.month.as_deref(), Some("2024-05"));
        let names = ["arquivo_lai_SIDA_SP_202012.csv", "K3241.K03200Y0.D40511.EMPRECSV"].map(String::from);
        let p = ReleasePeriod::of(&names, &[], WRITTEN).unwrap();
        assert_eq!((p.quarter.as_deref(), p.month.as_deref()), (Some("2020T4"), Some("2024-05")));
        assert_eq!(
            ReleasePeriod::of(&["Empresas0.zip".to_string()], &[], WRITTEN),
            Ok(ReleasePeriod::default())
        );
    }

    #[test]
    fn a_zip_saved_without_its_folder_is_dated_by_its_files() {
        let names = ["Dados_abertos_Nao_Previdenciario.zip", "2024-05/Empresas0.zip"].map(String::from);
        let entries = [
            "Dados_abertos_Nao_Previdenciario.zip/arquivo_lai_SIDA_1_202306.csv",
            "2024-05/Empresas0.zip/K3241.K03200Y0.D40511.EMPRECSV",
        ]
        .map(String::from);
        let p = ReleasePeriod::of(&names, &entries, WRITTEN).unwrap();
        assert_eq!((p.quarter.as_deref(), p.month.as_deref()), (Some("2023T2"), Some("2024-05")));
        // In a quarter's folder its files must agree with it: the error names both.
        let names = ["2024_trimestre_01/Dados_abertos_Nao_Previdenciario.zip".to_string()];
        let entries =
            ["2024_trimestre_01/Dados_abertos_Nao_Previdenciario.zip/arquivo_lai_SIDA_1_202306.csv"]
                .map(String::from);
        let two = ReleasePeriod::of(&names, &entries, WRITTEN).unwrap_err();
        assert!(
            two.periods.contains("2023T2 by ") && two.periods.contains("2024T1 by 2024_trimestre_01"),
            "{two:?}"
        );
        // A folder's month stands over the date the files were written.
        let entries = ["2024-06/Empresas0.zip/K3241.K03200Y0.D40530.EMPRECSV".to_string()];
        let p = ReleasePeriod::of(&["2024-06/Empresas0.zip".to_string()], &entries, WRITTEN).unwrap();
        assert_eq!(p.month.as_deref(), Some("2024-06"));
    }

    #[test]
    fn an_entry_date_takes_the_latest_year_of_its_digit_up_to_when_the_copy_was_written() {
        let date = |name: &str, written_in| rfb_entry_date(name, written_in);
        assert_eq!(date("K3241.K03200Y0.D40511.EMPRECSV", 2024).as_deref(), Some("2024-05"));
        assert_eq!(date("K3241.K03200Y0.D40511.EMPRECSV", 2033).as_deref(), Some("2024-05"));
        assert_eq!(date("K3241.K03200Y0.D40511.EMPRECSV", 2035).as_deref(), Some("2034-05"));
        assert_eq!(date("K3241.K03200Y0.D61212.EMPRECSV", 2026).as_deref(), Some("2026-12"));
        assert_eq!(date("K3241.K03200Y0.D71212.EMPRECSV", 2026).as_deref(), Some("2017-12"));
        assert_eq!(date("K3241.K03200Y0.D41311.EMPRECSV", 2026), None, "month 13");
        assert_eq!(date("Empresas0.zip", 2026), None);
    }
}
