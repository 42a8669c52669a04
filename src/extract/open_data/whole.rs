//! Whether a folder holds a whole release, told before a row is read: a publisher present is
//! present whole. RFB publishes `Empresas`, `Estabelecimentos` and `Socios` in parts 0 to 9
//! (its parts are not sorted by CNPJ, so a company may be in any of them) and `Simples` in one
//! file; PGFN publishes three systems, one zip each. A part or system missing, a file left
//! half-downloaded by a browser (`.crdownload`, `.part`), an empty file and a zip whose
//! directory cannot be read are each a `Gap`, named by the file a whole release would have.
//!
//! A saved page of the release's listing (an `.html` file in the folder) names the parts the
//! publisher put there, for a release with another number of parts.

use std::collections::{BTreeMap, BTreeSet};

use super::layouts::Kind;
use crate::api::Categoria;

/// A file a whole release has that the folder lacks or holds broken.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Gap {
    /// Relative to the folder; a missing file by the name its publisher gives it.
    pub file: String,
    pub problem: Problem,
    /// Whose release it is part of (`pgfn`, `cnpj`), as the service's `fontes` name them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fonte: Option<String>,
    /// What the zip reader said of an unreadable zip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What is wrong with a gap's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Problem {
    /// Not in the folder.
    Missing,
    /// Zero bytes, or a zip holding no file.
    Empty,
    /// A browser's or download manager's file of a download not finished.
    Unfinished,
    /// A zip whose directory cannot be read: truncated or corrupt.
    Unreadable,
}

impl Gap {
    /// The gap in a sentence that says what to do.
    pub fn describe(&self) -> String {
        let file = &self.file;
        match self.problem {
            Problem::Missing => match self.fonte.as_deref() {
                Some("pgfn") => format!("{file} is missing (PGFN publishes its three systems together)"),
                _ => format!("{file} is missing (a company can be in any part of RFB's tables)"),
            },
            Problem::Empty => format!("{file} is empty"),
            Problem::Unfinished => format!("{file} is a download not finished"),
            Problem::Unreadable => format!(
                "{file} is not a readable zip ({}): truncated or corrupt, download it again",
                self.detail.as_deref().unwrap_or("no directory")
            ),
        }
    }

    /// Whether the file is in the folder but cannot be read (it is passed over with `--partial`).
    pub fn is_broken(&self) -> bool {
        matches!(self.problem, Problem::Empty | Problem::Unreadable)
    }
}

/// A file of the folder as the check sees it: its path relative to the folder, the kind its
/// name says, its size, and the names of the files inside it when it is a readable zip.
pub(super) struct Paged<'a> {
    pub path: &'a str,
    pub kind: Option<Kind>,
    pub bytes: u64,
    pub entries: Option<&'a [String]>,
}

/// The tables RFB publishes in parts, with the name each part's zip starts with.
const PARTED: [(Kind, &str); 3] =
    [(Kind::Empresas, "EMPRESAS"), (Kind::Estabelecimentos, "ESTABELECIMENTOS"), (Kind::Socios, "SOCIOS")];

/// What a browser or a download manager leaves beside (or instead of) a download not finished.
const UNFINISHED: [&str; 6] = [".crdownload", ".part", ".partial", ".download", ".opdownload", ".aria2"];

/// Every gap of the folder's `files`; `unreadable` are the zips whose directory could not be
/// read, with the reader's message; `listing` the text of the release's saved listing page.
pub(super) fn gaps(files: &[Paged], unreadable: &[(String, String)], listing: Option<&str>) -> Vec<Gap> {
    let mut out = Vec::new();
    let unfinished: Vec<&str> =
        files.iter().map(|f| f.path).filter(|p| unfinished_stem(p).is_some()).collect();
    for path in &unfinished {
        let fonte = unfinished_stem(path).and_then(kind_of).map(fonte_of);
        out.push(gap(path, Problem::Unfinished, fonte, None));
    }
    for f in files.iter().filter(|f| f.kind.is_some()) {
        let fonte = f.kind.map(fonte_of);
        if f.bytes == 0 || f.entries.is_some_and(<[String]>::is_empty) {
            out.push(gap(f.path, Problem::Empty, fonte, None));
        } else if let Some((_, message)) = unreadable.iter().find(|(p, _)| p == f.path) {
            out.push(gap(f.path, Problem::Unreadable, fonte, Some(message.clone())));
        }
    }
    // A zip no dataset's name says whose directory cannot be read: it may be an archive of the
    // release's zips.
    let named: BTreeSet<String> = out.iter().map(|g| g.file.clone()).collect();
    for (path, message) in unreadable.iter().filter(|(p, _)| !named.contains(p)) {
        out.push(gap(path, Problem::Unreadable, None, Some(message.clone())));
    }
    let waited: BTreeSet<String> =
        unfinished.iter().filter_map(|p| unfinished_stem(p)).map(|s| base(s).to_lowercase()).collect();
    let missing = missing_rfb(files, listing).into_iter().chain(missing_pgfn(files));
    out.extend(missing.filter(|g| !waited.contains(&base(&g.file).to_lowercase())));
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

fn gap(file: &str, problem: Problem, fonte: Option<&str>, detail: Option<String>) -> Gap {
    Gap { file: file.to_string(), problem, fonte: fonte.map(str::to_string), detail }
}

fn fonte_of(kind: Kind) -> &'static str {
    if kind == Kind::Pgfn { "pgfn" } else { "cnpj" }
}

fn kind_of(name: &str) -> Option<Kind> {
    super::layouts::kind_of_name(name)
}

fn base(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn in_folder(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") }
}

/// The name a download not finished will have (`Socios3.zip` of `Socios3.zip.crdownload`).
pub(super) fn unfinished_stem(path: &str) -> Option<&str> {
    let lower = path.to_lowercase();
    UNFINISHED.iter().find(|s| lower.ends_with(*s)).map(|s| &path[..path.len() - s.len()])
}

/// A part of an RFB table: its number and where its digits sit in `name`, for `Empresas3.zip`
/// (or `Empresas12.zip`, in a release of more parts) and for the names of releases before late
/// 2022 (`K3241.K03200Y3.D10710.EMPRECSV.zip`).
fn rfb_part(name: &str) -> Option<(Kind, u8, std::ops::Range<usize>)> {
    let upper = name.to_ascii_uppercase();
    let start = name.len() - base(name).len();
    let digits_at = |i: usize| {
        let n = upper.as_bytes()[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        let part = upper.get(i..i + n)?.parse().ok()?;
        Some((part, i..i + n))
    };
    let kind = kind_of(name)?;
    let (prefix, found) = PARTED.iter().find(|(k, _)| *k == kind).map(|(k, p)| (*p, *k))?;
    let (part, at) = if upper[start..].starts_with(prefix) {
        digits_at(start + prefix.len())?
    } else {
        let y = upper[start..].find(".K03200Y")? + start + ".K03200Y".len();
        digits_at(y)?
    };
    Some((found, part, at))
}

/// The parts of each RFB table the saved listing names (`Socios7.zip`), if it names any.
fn listed_parts(listing: &str) -> BTreeMap<Kind, BTreeSet<u8>> {
    let upper = listing.to_uppercase();
    let mut out: BTreeMap<Kind, BTreeSet<u8>> = BTreeMap::new();
    for (kind, prefix) in PARTED {
        for (i, _) in upper.match_indices(prefix) {
            let rest = &upper[i + prefix.len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse::<u8>()
                && rest[digits.len()..].starts_with(".ZIP")
            {
                out.entry(kind).or_default().insert(n);
            }
        }
    }
    out
}

/// RFB's tables and parts a whole release has and the folder lacks, when it holds any of RFB's.
fn missing_rfb(files: &[Paged], listing: Option<&str>) -> Vec<Gap> {
    let rfb: Vec<&Paged> =
        files.iter().filter(|f| f.kind.is_some_and(|k| k != Kind::Pgfn) && !f.path.is_empty()).collect();
    let Some(first) = rfb.first() else { return Vec::new() };
    let dir = folder(first.path);
    let listed = listing.map(listed_parts).unwrap_or_default();
    let mut out = Vec::new();
    for (kind, prefix) in PARTED {
        // Each part present, with a name to write a missing one's from.
        let mut present: BTreeMap<u8, (&str, std::ops::Range<usize>)> = BTreeMap::new();
        for f in rfb.iter().filter(|f| f.kind == Some(kind)) {
            if let Some((_, part, at)) = rfb_part(f.path) {
                present.entry(part).or_insert((f.path, at));
            }
        }
        let whole: BTreeSet<u8> = listed.get(&kind).cloned().unwrap_or_else(|| (0..=9).collect());
        let like = present.values().next().cloned();
        for part in whole.iter().filter(|p| !present.contains_key(p)) {
            let name = match &like {
                Some((path, at)) => format!("{}{part}{}", &path[..at.start], &path[at.end..]),
                None => in_folder(dir, &format!("{}{part}.zip", title(prefix))),
            };
            out.push(gap(&name, Problem::Missing, Some("cnpj"), None));
        }
    }
    if !rfb.iter().any(|f| f.kind == Some(Kind::Simples)) {
        out.push(gap(&in_folder(dir, "Simples.zip"), Problem::Missing, Some("cnpj"), None));
    }
    out
}

/// The files a whole release gives `dataset` in (`pgfn_fgts`: `Dados_abertos_FGTS.zip`;
/// `rfb_socios`: `Socios0.zip to Socios9.zip`), for a person.
pub(crate) fn files_of(dataset: &str) -> String {
    if let Some(system) = dataset.strip_prefix("pgfn_").and_then(|s| Categoria::parse(s).ok()) {
        return pgfn_zip(system).to_string();
    }
    match PARTED.iter().find(|(kind, _)| kind.dataset() == dataset) {
        Some((_, prefix)) => format!("{0}0.zip to {0}9.zip", title(prefix)),
        None if dataset == Kind::Simples.dataset() => "Simples.zip".to_string(),
        None => dataset.to_string(),
    }
}

/// `EMPRESAS` -> `Empresas`.
fn title(prefix: &str) -> String {
    let lower = prefix.to_lowercase();
    let mut chars = lower.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// The system a PGFN file or entry name says (`Dados_abertos_FGTS.zip`, `arquivo_lai_SIDA_…`).
fn pgfn_system(name: &str) -> Option<Categoria> {
    let upper = base(name).to_uppercase();
    if upper.contains("FGTS") {
        Some(Categoria::Fgts)
    } else if upper.contains("NAO_PREV") || upper.contains("SIDA") {
        Some(Categoria::NaoPrevidenciario)
    } else if upper.contains("PREV") {
        Some(Categoria::Previdenciario)
    } else {
        None
    }
}

/// The zip PGFN publishes a system in.
pub(super) fn pgfn_zip(system: Categoria) -> &'static str {
    match system {
        Categoria::Fgts => "Dados_abertos_FGTS.zip",
        Categoria::Previdenciario => "Dados_abertos_Previdenciario.zip",
        Categoria::NaoPrevidenciario => "Dados_abertos_Nao_Previdenciario.zip",
    }
}

/// PGFN's systems a whole release has and the folder lacks, when it holds any of PGFN's.
fn missing_pgfn(files: &[Paged]) -> Vec<Gap> {
    let pgfn: Vec<&Paged> = files.iter().filter(|f| f.kind == Some(Kind::Pgfn)).collect();
    let Some(first) = pgfn.first() else { return Vec::new() };
    let systems: BTreeSet<Categoria> = pgfn
        .iter()
        .flat_map(|f| std::iter::once(f.path).chain(f.entries.unwrap_or_default().iter().map(String::as_str)))
        .filter_map(pgfn_system)
        .collect();
    Categoria::ALL
        .into_iter()
        .filter(|c| !systems.contains(c))
        .map(|c| gap(&in_folder(folder(first.path), pgfn_zip(c)), Problem::Missing, Some("pgfn"), None))
        .collect()
}

/// The datasets the folder renews whole, as the store names them: each PGFN system a file
/// names (`pgfn_fgts`, ...) and each RFB table with no gap (`rfb_socios`, ...), a broken file
/// renewing nothing.
pub(super) fn renewed(files: &[Paged], gaps: &[Gap]) -> BTreeSet<String> {
    let broken: BTreeSet<&str> = gaps.iter().filter(|g| g.is_broken()).map(|g| g.file.as_str()).collect();
    let read: Vec<&Paged> = files.iter().filter(|f| f.kind.is_some() && !broken.contains(f.path)).collect();
    let systems = read
        .iter()
        .filter(|f| f.kind == Some(Kind::Pgfn))
        .flat_map(|f| std::iter::once(f.path).chain(f.entries.unwrap_or_default().iter().map(String::as_str)))
        .filter_map(pgfn_system)
        .map(|c| format!("pgfn_{}", c.as_str()));
    let gapped: BTreeSet<Kind> =
        gaps.iter().filter_map(|g| kind_of(unfinished_stem(&g.file).unwrap_or(&g.file))).collect();
    let tables = read
        .iter()
        .filter_map(|f| f.kind)
        .filter(|k| *k != Kind::Pgfn && !gapped.contains(k))
        .map(|k| k.dataset().to_string());
    systems.chain(tables).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(paths: &[&'static str]) -> Vec<Paged<'static>> {
        paths.iter().map(|p| Paged { path: p, kind: kind_of(p), bytes: 10, entries: None }).collect()
    }

    fn whole_rfb(dir: &str) -> Vec<String> {
        let mut names: Vec<String> = ["Empresas", "Estabelecimentos", "Socios"]
            .iter()
            .flat_map(|t| (0..10).map(move |n| format!("{dir}/{t}{n}.zip")))
            .collect();
        names.push(format!("{dir}/Simples.zip"));
        names
    }

    fn leak(names: Vec<String>) -> Vec<&'static str> {
        names.into_iter().map(|n| &*Box::leak(n.into_boxed_str())).collect()
    }

    #[test]
    fn a_whole_release_has_no_gap_and_each_missing_part_or_system_is_named() {
        let mut names = leak(whole_rfb("cnpj/2024-05"));
        names.extend(["pgfn/Dados_abertos_FGTS.zip", "pgfn/Dados_abertos_Previdenciario.zip"]);
        names.push("pgfn/Dados_abertos_Nao_Previdenciario.zip");
        assert_eq!(gaps(&listed(&names), &[], None), vec![]);
        names.retain(|n| !n.ends_with("Estabelecimentos3.zip") && !n.ends_with("FGTS.zip"));
        let got: Vec<(String, Problem)> =
            gaps(&listed(&names), &[], None).into_iter().map(|g| (g.file, g.problem)).collect();
        assert_eq!(
            got,
            vec![
                ("cnpj/2024-05/Estabelecimentos3.zip".to_string(), Problem::Missing),
                ("pgfn/Dados_abertos_FGTS.zip".to_string(), Problem::Missing),
            ]
        );
        // What it renews: the two systems there, the three RFB tables without a gap.
        let files = listed(&names);
        let got = renewed(&files, &gaps(&files, &[], None));
        let want =
            ["pgfn_nao_previdenciario", "pgfn_previdenciario", "rfb_empresas", "rfb_simples", "rfb_socios"];
        assert_eq!(got, want.map(String::from).into_iter().collect());
    }

    #[test]
    fn each_dataset_is_named_by_its_files() {
        assert_eq!(files_of("pgfn_fgts"), "Dados_abertos_FGTS.zip");
        assert_eq!(files_of("rfb_estabelecimentos"), "Estabelecimentos0.zip to Estabelecimentos9.zip");
        assert_eq!(files_of("rfb_simples"), "Simples.zip");
    }

    #[test]
    fn a_publisher_absent_as_a_whole_is_no_gap() {
        let names =
            ["x/Dados_abertos_FGTS.zip", "x/Dados_abertos_Previdenciario.zip", "x/arquivo_lai_SIDA_1.csv"];
        assert_eq!(gaps(&listed(&names), &[], None), vec![]);
    }

    #[test]
    fn old_names_unfinished_empty_and_unreadable_files_are_gaps() {
        let mut names: Vec<String> = (0..10)
            .filter(|n| *n != 4)
            .flat_map(|n| {
                ["EMPRECSV", "ESTABELE", "SOCIOCSV"].map(|t| format!("K3241.K03200Y{n}.D10710.{t}.zip"))
            })
            .collect();
        names.push("F.K03200$W.SIMPLES.CSV.D10710.zip".to_string());
        names.push("K3241.K03200Y4.D10710.ESTABELE.zip.crdownload".to_string());
        let names = leak(names);
        let mut files = listed(&names);
        files.iter_mut().find(|f| f.path.starts_with("K3241.K03200Y0.D10710.SOCIOCSV")).unwrap().bytes = 0;
        let unreadable = [("K3241.K03200Y1.D10710.EMPRECSV.zip".to_string(), "EOF".to_string())];
        let got: Vec<(String, Problem)> =
            gaps(&files, &unreadable, None).into_iter().map(|g| (g.file, g.problem)).collect();
        assert_eq!(
            got,
            vec![
                ("K3241.K03200Y0.D10710.SOCIOCSV.zip".to_string(), Problem::Empty),
                ("K3241.K03200Y1.D10710.EMPRECSV.zip".to_string(), Problem::Unreadable),
                ("K3241.K03200Y4.D10710.EMPRECSV.zip".to_string(), Problem::Missing),
                // Part 4 of Estabelecimentos is on its way: named once, as not finished.
                ("K3241.K03200Y4.D10710.ESTABELE.zip.crdownload".to_string(), Problem::Unfinished),
                ("K3241.K03200Y4.D10710.SOCIOCSV.zip".to_string(), Problem::Missing),
            ]
        );
    }

    #[test]
    fn a_saved_listing_says_how_many_parts_a_table_has() {
        let mut names: Vec<String> = ["Empresas", "Estabelecimentos", "Socios"]
            .iter()
            .flat_map(|t| (0..3).map(move |n| format!("{t}{n}.zip")))
            .collect();
        names.push("Simples.zip".to_string());
        let names = leak(names);
        let listing = ["Empresas", "Estabelecimentos", "Socios"]
            .iter()
            .flat_map(|t| (0..4).map(move |n| format!(r#"<a href="{t}{n}.zip">{t}{n}.zip</a>"#)))
            .collect::<String>();
        let got: Vec<String> =
            gaps(&listed(&names), &[], Some(&listing)).into_iter().map(|g| g.file).collect();
        assert_eq!(got, ["Empresas3.zip", "Estabelecimentos3.zip", "Socios3.zip"]);
    }
}
