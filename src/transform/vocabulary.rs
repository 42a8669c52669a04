//! The labels of vocabulary columns (a debt's `situacao`, a credit's `grupo_tributo`): the
//! service publishes one label in several spellings (`Em cobrança`, `EM COBRANCA`), and a table
//! shows one spelling per label, chosen from the spellings it holds, whatever the rows' order
//! or how they were split into segments.
//!
//! It owns choosing and applying spellings, and telling whether segments typed apart agree;
//! typing the other kinds of column is `frames`'.

use std::collections::BTreeMap;

use polars::prelude::*;

use super::parse::trimmed;
use super::schema::{Kind, columns};
use crate::tables::Table;

/// A vocabulary value's key: upper case, without accents, single spaces. `Em  cobrança` and
/// `EM COBRANCA` share one.
fn fold_vocabulary(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .flat_map(char::to_uppercase)
        .collect()
}

/// The publishers' own spellings of the values the queries name (`docs/domain.md`): a group
/// holding one is shown so, however the rows spelled it (`BENEFICIO FISCAL` alone in a file
/// is `Benefício Fiscal`, which the estimated tax standing's rule names).
const OFFICIAL_SPELLINGS: [&str; 8] = [
    "Em cobrança",
    "Benefício Fiscal",
    "Em negociação",
    "Garantia",
    "Suspenso por decisão judicial",
    "Outros",
    "Pessoa física",
    "Pessoa jurídica",
];

/// For each published spelling of a column (trimmed), the spelling shown for its group: the one written as a person writes
/// it (accents kept, then upper and lower case mixed: `Em cobrança` over `EM COBRANCA`), then
/// the first in text order, with its spaces collapsed. How many rows use each spelling does
/// not count, so months, states or shards with other mixes of spellings still show the same
/// one, and a warehouse that keeps several runs sees one label per group.
pub(super) fn vocabulary_spellings(src: &StringChunked) -> std::collections::HashMap<&str, String> {
    spellings_of(src.iter().filter_map(trimmed))
}

/// `vocabulary_spellings` of published texts already trimmed.
fn spellings_of<'a>(texts: impl Iterator<Item = &'a str>) -> std::collections::HashMap<&'a str, String> {
    // A vocabulary has few distinct values among many rows: fold each distinct one once.
    let distinct: std::collections::HashSet<&str> = texts.collect();
    let mut groups: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for t in distinct {
        groups.entry(fold_vocabulary(t)).or_default().push(t);
    }
    let written = |s: &str| {
        let accents = s.chars().filter(|c| !c.is_ascii()).count();
        let mixed_case = s.chars().any(char::is_uppercase) && s.chars().any(char::is_lowercase);
        (accents, mixed_case)
    };
    let single_spaced = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut spelling = std::collections::HashMap::new();
    for (key, variants) in groups {
        let official = OFFICIAL_SPELLINGS.iter().find(|o| fold_vocabulary(o) == key).map(|o| o.to_string());
        let best = official.unwrap_or_else(|| {
            variants
                .iter()
                .map(|v| single_spaced(v))
                .max_by(|a, b| written(a).cmp(&written(b)).then(b.cmp(a)))
                .unwrap_or_default()
        });
        for v in variants {
            spelling.insert(v, best.clone());
        }
    }
    spelling
}

/// A vocabulary column: each published text shown as its group's spelling.
pub(super) fn vocabulary_column(name: PlSmallStr, src: &StringChunked) -> Column {
    spelled_column(name, src, &vocabulary_spellings(src))
}

/// `src` with each published text shown as `spelling` says (a text it does not name, trimmed).
pub(super) fn spelled_column(
    name: PlSmallStr,
    src: &StringChunked,
    spelling: &std::collections::HashMap<&str, String>,
) -> Column {
    let vals = src.iter().map(|v| trimmed(v).map(|t| spelling.get(t).map_or(t, String::as_str)));
    StringChunked::from_iter_options(name, vals).into_column()
}

/// Re-derives `table`'s vocabulary columns over all of `df`'s rows from the published text
/// they keep in `<column>_original`: rows typed in different runs (a snapshot that carries
/// some rows from the store) then show one spelling per group, as one run typing them all would.
pub(crate) fn respell_vocabulary(table: Table, df: &mut DataFrame) -> PolarsResult<()> {
    for spec in columns(table).iter().filter(|c| c.kind == Kind::Vocab) {
        let original = df.column(&format!("{}_original", spec.name))?.str()?.clone();
        df.with_column(vocabulary_column(spec.name.into(), &original))?;
    }
    Ok(())
}

/// The published texts of each vocabulary column of `typed` (a table typed by `type_table`),
/// distinct and trimmed: what its spellings were chosen from.
pub(crate) fn published_vocabulary(table: Table, typed: &DataFrame) -> PolarsResult<PublishedVocabulary> {
    let mut out = PublishedVocabulary::new();
    for spec in columns(table).iter().filter(|c| c.kind == Kind::Vocab) {
        let distinct = typed.column(&format!("{}_original", spec.name))?.as_materialized_series().unique()?;
        let mut texts: Vec<String> = distinct.str()?.iter().filter_map(trimmed).map(str::to_string).collect();
        texts.sort_unstable();
        texts.dedup();
        out.insert(spec.name.to_string(), texts);
    }
    Ok(out)
}

/// Per vocabulary column, the distinct published texts of a segment.
pub(crate) type PublishedVocabulary = BTreeMap<String, Vec<String>>;

/// Whether segments typed apart, each choosing its spellings from its own `published` texts,
/// show what typing them together would: for each column, every segment's choice for each of
/// its texts is the one all the segments' texts give. (Then `respell_vocabulary` would change
/// nothing, and costs a pass over every row to find that out.) `None` (a segment whose texts
/// are not known) is not agreement.
pub(crate) fn spellings_agree(table: Table, published: &[Option<PublishedVocabulary>]) -> bool {
    columns(table).iter().filter(|c| c.kind == Kind::Vocab).all(|spec| {
        let Some(each) = published.iter().map(|p| p.as_ref()?.get(spec.name)).collect::<Option<Vec<_>>>()
        else {
            return false;
        };
        let whole = spellings_of(each.iter().flat_map(|texts| texts.iter().map(String::as_str)));
        each.iter().all(|texts| {
            spellings_of(texts.iter().map(String::as_str)).iter().all(|(t, s)| whole.get(t) == Some(s))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Segments typed apart need no respelling only when typing them together would choose
    /// the spellings each chose alone.
    #[test]
    fn segments_agree_on_spellings_only_when_typing_them_together_changes_nothing() {
        let table = Table::CreditosAtivos;
        let seen = |texts: &[&str]| -> Option<PublishedVocabulary> {
            let texts: Vec<String> = texts.iter().map(|t| (*t).to_string()).collect();
            Some(
                columns(table)
                    .iter()
                    .filter(|c| c.kind == Kind::Vocab)
                    .map(|c| (c.name.to_string(), texts.clone()))
                    .collect(),
            )
        };
        assert!(spellings_agree(table, &[seen(&["Em cobrança"]), seen(&["Em cobrança", "Suspenso"])]));
        // Alone, a segment that saw only the capitals shows them; together the mixed case wins.
        assert!(!spellings_agree(table, &[seen(&["PARCELADO"]), seen(&["Parcelado"])]));
        // A value the publishers spell is shown their way, whatever each segment saw.
        assert!(spellings_agree(table, &[seen(&["EM COBRANCA"]), seen(&["Em cobrança"])]));
        assert!(!spellings_agree(table, &[seen(&["Suspenso"]), None]), "texts not known");
        assert!(spellings_agree(table, &[seen(&["Suspenso"])]));
    }

    #[test]
    fn the_publishers_spelling_of_a_value_the_queries_name_is_shown_even_when_no_row_has_it() {
        let spelled =
            spellings_of(["BENEFICIO FISCAL", "beneficio  fiscal", "GARANTIA", "PARCELADO"].into_iter());
        assert_eq!(spelled["BENEFICIO FISCAL"], "Benefício Fiscal");
        assert_eq!(spelled["beneficio  fiscal"], "Benefício Fiscal");
        assert_eq!(spelled["GARANTIA"], "Garantia");
        assert_eq!(spelled["PARCELADO"], "PARCELADO");
    }
}
