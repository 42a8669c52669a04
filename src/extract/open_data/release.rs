//! A release's own date, from the names its publishers give: PGFN publishes a quarter
//! (`2024_trimestre_01/`, or a month in a per-state file name, `arquivo_lai_SIDA_SP_202403.csv`),
//! RFB a month (`2024-05/`, or the date in an entry name, `K3241.K03200Y0.D40511.EMPRECSV`).

use std::collections::BTreeSet;

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

impl ReleasePeriod {
    /// The periods the `names` (paths relative to the folder) say; `TwoReleases` when they say
    /// more than one quarter or more than one month.
    pub fn of(names: &[String]) -> Result<ReleasePeriod, TwoReleases> {
        let (mut quarters, mut months) = (BTreeSet::new(), BTreeSet::new());
        for name in names {
            for part in name.split(['/', '\\']) {
                quarters.extend(quarter_folder(part).or_else(|| pgfn_month_file(part)));
                months.extend(month_folder(part).or_else(|| rfb_entry_date(part)));
            }
        }
        let single = |what: &'static str, set: BTreeSet<String>| match set.len() {
            0 | 1 => Ok(set.into_iter().next()),
            _ => Err(TwoReleases { what, periods: set.into_iter().collect::<Vec<_>>().join(", ") }),
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

/// `2024-05` -> `2024-05`.
fn month_folder(part: &str) -> Option<String> {
    let (y, m) = part.split_once('-')?;
    Some(format!("{}-{:02}", year(y)?, month(m)?))
}

/// `K3241.K03200Y0.D40511.EMPRECSV` -> `2024-05` (the file's date: D, the year's last digit
/// in this decade, month, day).
fn rfb_entry_date(part: &str) -> Option<String> {
    let d = part
        .split('.')
        .find(|p| p.len() == 6 && p.starts_with('D') && p[1..].bytes().all(|b| b.is_ascii_digit()))?;
    let y = 2020 + u16::from(d.as_bytes()[1] - b'0');
    Some(format!("{y}-{:02}", month(&d[2..4])?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_publisher_dates_its_release_in_its_own_names() {
        let names =
            ["pgfn/2024_trimestre_01/Dados_abertos_FGTS.zip", "cnpj/2024-05/Empresas0.zip", "cnpj/Cnaes.zip"]
                .map(String::from);
        let p = ReleasePeriod::of(&names).unwrap();
        assert_eq!(p.quarter.as_deref(), Some("2024T1"));
        assert_eq!(p.month.as_deref(), Some("2024-05"));
        let names = ["arquivo_lai_SIDA_SP_202012.csv", "K3241.K03200Y0.D40511.EMPRECSV"].map(String::from);
        let p = ReleasePeriod::of(&names).unwrap();
        assert_eq!((p.quarter.as_deref(), p.month.as_deref()), (Some("2020T4"), Some("2024-05")));
        assert_eq!(ReleasePeriod::of(&["Empresas0.zip".to_string()]), Ok(ReleasePeriod::default()));
    }
}
