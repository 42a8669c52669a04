//! The report speaks the analyst's language: under the default locale no English text of the
//! strings files or the query headers appears in either format, under `--locale en` no
//! Portuguese one does, every strings file has the same keys, and neither format shows an SQL
//! word. Rendered from a real run of the binary (`report --from` for the English one).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::common_bin::*;
use fiscal_report::analyze::load_queries;
use fiscal_report::report::strings::Strings;
use fiscal_report::report::{Locale, TemplateSet};
use fiscal_report::simulator::{Dataset, RegistryConfig};
use polars::prelude::*;

/// A small demo run rendered in pt-BR, and a copy of it re-rendered with `--locale en`.
fn runs() -> &'static (PathBuf, PathBuf) {
    static DIRS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    DIRS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, 0.05);
        let cnpjs: Vec<String> = d.demo_portfolio(8).iter().map(|c| c.to_string()).collect();
        let pt = demo_run_into(
            &dir,
            &cnpjs,
            &["--demo-scale", "0.05", "--ano-mes", "202607:202609", "--uf", "SP,RJ"],
        );
        let en = dir.join("en");
        copy_dir(&pt, &en);
        let o = bin().args(["report", "--locale", "en", "--from"]).arg(&en).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (pt, en)
    })
}

/// What a person reads: the text without tags, the style sheet, entities or Markdown escapes.
fn visible_text(path: &Path) -> String {
    let raw = std::fs::read_to_string(path).unwrap();
    // Neither the style nor the script (templates/explore.js) is text a reader sees.
    let without = |raw: String, open: &str, close: &str| match (raw.find(open), raw.find(close)) {
        (Some(a), Some(b)) if b > a => format!("{}{}", &raw[..a], &raw[b..]),
        _ => raw,
    };
    let no_style = without(without(raw, "<style", "</style>"), "<script", "</script>");
    let mut text = String::new();
    let mut in_tag = false;
    for c in no_style.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.replace("&#x27;", "'").replace("&quot;", "\"").replace("&amp;", "&").replace('\\', "")
}

fn builtin(locale: Locale) -> Strings {
    Strings::builtin(locale)
}

/// The texts of `other` that differ from this language's for the same key: words that
/// must not appear in a report of this language. Short ones (`UF`, `FGTS`) are shared.
fn foreign_texts(this: &Strings, other: &Strings) -> Vec<String> {
    other
        .keys()
        .filter_map(|k| {
            let theirs = other.get(k);
            (theirs != this.get(k) && theirs.chars().filter(|c| c.is_alphabetic()).count() >= 6)
                .then_some(theirs)
        })
        .collect()
}

fn query_texts(english: bool) -> Vec<String> {
    let queries = load_queries(Some(&Path::new(env!("CARGO_MANIFEST_DIR")).join("queries"))).unwrap();
    queries
        .iter()
        .flat_map(|q| {
            if english {
                [q.title_en.clone(), q.description.clone()]
            } else {
                [q.title.clone(), q.descricao.clone()]
            }
        })
        .filter(|t| !t.is_empty())
        .collect()
}

#[test]
fn both_languages_have_the_same_keys() {
    let (pt_strings, en_strings) = (builtin(Locale::PtBr), builtin(Locale::En));
    let pt: BTreeSet<&str> = pt_strings.keys().collect();
    let en: BTreeSet<&str> = en_strings.keys().collect();
    assert!(pt.len() > 50, "the built-in strings were not found");
    assert_eq!(pt, en, "templates/strings/pt-BR.toml and en.toml must hold the same keys");
    // A folder's strings file that lacks keys (copied before they were added) has them in the
    // built-in words of its own language; its own words stay.
    for (locale, words) in [(Locale::PtBr, &pt_strings), (Locale::En, &en_strings)] {
        let partial = Strings::parse("titulo_relatorio = \"x\"\n", "my/strings/file.toml").unwrap();
        assert!(partial.missing_keys().iter().any(|k| k == "destaques_titulo"));
        let completed = partial.completed(locale, "my/strings/file.toml");
        assert!(completed.missing_keys().is_empty());
        assert_eq!(completed.get("titulo_relatorio"), "x");
        assert_eq!(completed.get("destaques_titulo"), words.get("destaques_titulo"));
    }
    assert!(TemplateSet::load(None).unwrap().strings(Locale::En).is_ok());
}

#[test]
fn the_default_report_has_no_english_text_and_the_english_one_no_portuguese() {
    let (pt, en) = runs();
    let (pt_words, en_words) = (builtin(Locale::PtBr), builtin(Locale::En));
    for file in ["report.html", "report.md"] {
        let text = visible_text(&pt.join(file));
        for english in foreign_texts(&pt_words, &en_words).iter().chain(query_texts(true).iter()) {
            if query_texts(false).contains(english) {
                continue;
            }
            assert!(!text.contains(english.as_str()), "{file} (pt-BR) shows English: {english:?}");
        }
        assert!(text.contains(&pt_words.get("destaques_titulo")), "{file}: no pt-BR heading");
        let shown = query_texts(false).iter().filter(|t| text.contains(t.as_str())).count();
        assert!(shown >= 10, "{file}: only {shown} pt-BR query titles and descriptions shown");
        let text = visible_text(&en.join(file));
        for portuguese in foreign_texts(&en_words, &pt_words).iter().chain(query_texts(false).iter()) {
            if query_texts(true).contains(portuguese) {
                continue;
            }
            assert!(!text.contains(portuguese.as_str()), "{file} (en) shows Portuguese: {portuguese:?}");
        }
        assert!(text.contains(&en_words.get("destaques_titulo")), "{file}: no English heading");
        let shown = query_texts(true).iter().filter(|t| text.contains(t.as_str())).count();
        assert!(shown >= 10, "{file}: only {shown} English query titles and descriptions shown");
    }
}

#[test]
fn no_report_shows_an_sql_word() {
    let (pt, en) = runs();
    const SQL: [&str; 14] = [
        "SELECT",
        "FROM",
        "JOIN",
        "FULL JOIN",
        "LEFT JOIN",
        "GROUP BY",
        "ORDER BY",
        "WHERE",
        "COALESCE",
        "UNION",
        "NULL",
        "CTE",
        "SQL",
        "query",
    ];
    for dir in [pt, en] {
        for file in ["report.html", "report.md"] {
            let text = visible_text(&dir.join(file));
            for word in SQL {
                let found = text.match_indices(word).any(|(i, _)| {
                    let before =
                        text[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric() && c != '_');
                    let after = text[i + word.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| !c.is_alphanumeric() && c != '_');
                    before && after
                });
                assert!(!found, "{}/{file} shows the SQL word {word:?}", dir.display());
            }
        }
    }
}

/// The rows of the Markdown table that follows the heading `### {title}`.
fn table_after(md: &str, title: &str) -> Vec<Vec<String>> {
    let start = md.find(&format!("### {title}")).unwrap_or_else(|| panic!("no section {title:?}"));
    md[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().replace('\\', "")).collect())
        .collect()
}

#[test]
fn every_code_shown_has_its_official_name() {
    let (pt, _) = runs();
    let md = std::fs::read_to_string(pt.join("report.md")).unwrap();
    let codes = fiscal_report::codes::CodeTables::load(None).unwrap();
    let queries = load_queries(Some(&Path::new(env!("CARGO_MANIFEST_DIR")).join("queries"))).unwrap();
    let title = |table: &str| queries.iter().find(|q| q.table == table).unwrap().title.clone();
    let natureza = table_after(&md, &title("creditos_por_natureza_juridica"));
    assert!(natureza.len() > 2, "{natureza:?}");
    for row in &natureza {
        if row[0].starts_with("**") {
            continue; // the total
        }
        let name = codes.name("natureza_juridica", &row[0]);
        assert!(name.is_some(), "natureza {} has no official name in codes/natureza_juridica.csv", row[0]);
        assert_eq!(Some(row[1].as_str()), name, "natureza {}", row[0]);
    }
    // The portfolio's sections show their names beside their letters.
    let sections = md.lines().filter(|l| l.starts_with("| ") && l.contains(" — ")).count();
    assert!(sections > 0, "no CNAE section shown with its name");
    for letter in ["C", "G", "J"] {
        let name = fiscal_report::transform::parse::cnae_section_name(letter).unwrap();
        for line in md
            .lines()
            .filter(|l| l.contains(&format!("| {letter} |")) || l.contains(&format!("| {letter} — ")))
        {
            assert!(line.contains(name), "section {letter} is shown without its name ({name}): {line}");
        }
    }
    // The dimension tables a reader joins code columns with.
    let dims = pt.join("dimensoes/natureza_juridica.parquet");
    let df = ParquetReader::new(std::fs::File::open(&dims).unwrap()).finish().unwrap();
    assert_eq!(df.get_column_names(), ["codigo", "nome"]);
    assert!(df.height() >= 80);
}
