//! The order the queries can run in. A query reads the typed tables and the results of the
//! queries before it that it names; two queries of which neither names the other's table can
//! run at the same time. Waves: each wave's queries name only tables the waves before it made.

use std::collections::HashSet;

use super::Query;

/// The queries' indices, wave by wave, each wave in file order. `stands_for` lists tables an
/// earlier query's run also makes (`(table read, query table that makes it)`), as the
/// portfolio exposure's query makes the partner companies' exposure when no group was expanded.
pub(super) fn waves(queries: &[Query], stands_for: &[(&str, &str)]) -> Vec<Vec<usize>> {
    let mut wave_of: Vec<usize> = Vec::with_capacity(queries.len());
    for (i, q) in queries.iter().enumerate() {
        let named = &q.names;
        let reads = |table: &str| {
            named.contains(&table.to_ascii_lowercase())
                || stands_for.iter().any(|(read, maker)| *maker == table && named.contains(*read))
        };
        let wave = queries[..i]
            .iter()
            .zip(&wave_of)
            .filter(|(earlier, _)| reads(&earlier.table))
            .map(|(_, w)| w + 1)
            .max()
            .unwrap_or(0);
        wave_of.push(wave);
    }
    let count = wave_of.iter().max().map_or(0, |w| w + 1);
    let mut waves = vec![Vec::new(); count];
    for (i, w) in wave_of.into_iter().enumerate() {
        waves[w].push(i);
    }
    waves
}

/// The wave's queries in the order to start them: the longest SQL first, ties in file order.
/// Planning a query grows with its text, and a long one started last kept one core busy after
/// the other had finished (the changes' query, 243 lines, ended the stage ~0.1 s after the
/// rest of its wave).
pub(super) fn longest_first(wave: &[usize], queries: &[Query]) -> Vec<usize> {
    let mut order = wave.to_vec();
    order.sort_by_key(|i| std::cmp::Reverse(queries[*i].sql.len()));
    order
}

/// Every word of the SQL that could name a table, lower-cased: comments and string literals
/// left out (a comment saying "empresas" names no table), and so is a word after a dot, a
/// column of a table or alias (`o.situacao_fiscal_estimada`: the changes' query waited a wave
/// for the query of that name). A word that only looks like a table's name (a column, an
/// alias) orders two queries that could have run together: the results are the same, only
/// later.
pub(super) fn names_in(sql: &str) -> HashSet<String> {
    let code = code_of(sql);
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut names = HashSet::new();
    let mut rest = code.as_str();
    while let Some(start) = rest.find(is_word) {
        let after_dot = rest[..start].ends_with('.');
        let len = rest[start..].find(|c: char| !is_word(c)).unwrap_or(rest.len() - start);
        if !after_dot {
            names.insert(rest[start..start + len].to_ascii_lowercase());
        }
        rest = &rest[start + len..];
    }
    names
}

/// `sql` with each comment and string literal replaced by a space (`'it''s'` reads as two
/// adjacent literals, both left out); a quoted identifier stays, whatever it holds.
fn code_of(sql: &str) -> String {
    let mut code = String::with_capacity(sql.len());
    let mut rest = sql;
    while !rest.is_empty() {
        let (skip_to, closing) = if rest.starts_with("--") {
            (2, "\n")
        } else if rest.starts_with("/*") {
            (2, "*/")
        } else if rest.starts_with('\'') {
            (1, "'")
        } else {
            let next = match rest.find(['-', '/', '\'', '"']) {
                // A quoted identifier, to its closing quote: a `'` or `--` in it opens nothing.
                Some(0) if rest.starts_with('"') => rest[1..].find('"').map_or(rest.len(), |i| i + 2),
                // A minus or a slash that opens no comment (ASCII: one byte).
                Some(0) => 1,
                Some(i) => i,
                None => rest.len(),
            };
            code.push_str(&rest[..next]);
            rest = &rest[next..];
            continue;
        };
        code.push(' ');
        rest = rest[skip_to..].find(closing).map_or("", |i| &rest[skip_to + i + closing.len()..]);
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(name: &str, sql: &str) -> Query {
        Query::parse(name, sql, "test")
    }

    #[test]
    fn a_query_runs_after_those_whose_tables_it_names_and_beside_the_others() {
        let qs = [
            q("01_a", "SELECT * FROM creditos"),
            q("02_b", "SELECT * FROM A JOIN creditos USING (uf)"),
            q("03_c", "SELECT * FROM dividas"),
            q("04_d", "SELECT * FROM b, c"),
            q("05_e", "SELECT * FROM socias"),
        ];
        assert_eq!(waves(&qs, &[]), vec![vec![0, 2, 4], vec![1], vec![3]]);
        // A table an earlier query's run makes besides its own orders the reader after it.
        assert_eq!(waves(&qs, &[("socias", "c")]), vec![vec![0, 2], vec![1, 4], vec![3]]);
    }

    #[test]
    fn the_longest_query_of_a_wave_starts_first() {
        let qs =
            [q("01_a", "SELECT 1"), q("02_b", "SELECT * FROM a JOIN b USING (x)"), q("03_c", "SELECT 2")];
        assert_eq!(longest_first(&[0, 1, 2], &qs), vec![1, 0, 2], "ties stay in file order");
        assert_eq!(longest_first(&[0, 2], &qs), vec![0, 2]);
    }

    #[test]
    fn comments_and_string_literals_name_no_table() {
        let sql =
            "-- owed by empresas\nSELECT 'dividas', \"socios\" /* carteira\n */ FROM creditos -- x\nJOIN b";
        let mut names: Vec<String> = names_in(sql).into_iter().collect();
        names.sort();
        assert_eq!(names, ["b", "creditos", "from", "join", "select", "socios"]);
        assert!(names_in("SELECT 'it''s' FROM a").contains("a"));
        assert!(names_in("SELECT v AS \"d'água--x\" FROM t1 WHERE uf <> 'SP'").contains("t1"));
        assert!(names_in("SELECT 1 - 2 / 3 FROM a").contains("a"), "a lone minus or slash is code");
        let qualified = names_in("SELECT o.empresas, n.x FROM t o JOIN \"u\".v n ON o.a = n.b");
        assert!(!qualified.contains("empresas") && qualified.contains("o") && qualified.contains("t"));
    }

    #[test]
    fn the_built_in_queries_run_after_what_they_read() {
        let qs = super::super::load_queries(None).unwrap();
        let w = waves(&qs, &[("socias_exposicao", "carteira_exposicao")]);
        let wave = |name: &str| {
            let i = qs.iter().position(|q| q.name == name).unwrap();
            w.iter().position(|w| w.contains(&i)).unwrap()
        };
        // What each file reads, from its FROM and JOIN lines.
        let reads = [
            ("15_carteira_por_uf", "14_carteira_exposicao"),
            ("18_carteira_resumo", "14_carteira_exposicao"),
            ("20_situacao_fiscal_estimada", "19_situacao_fiscal_por_retrato"),
            ("21_regime_carteira", "14_carteira_exposicao"),
            ("24_carteira_cadastro", "20_situacao_fiscal_estimada"),
            ("24_carteira_cadastro", "21_regime_carteira"),
            ("34_carteira_por_regime", "21_regime_carteira"),
            ("25_grupos_exposicao", "14_carteira_exposicao"),
            ("26_carteira_empresas", "20_situacao_fiscal_estimada"),
        ];
        for (reader, read) in reads {
            assert!(wave(read) < wave(reader), "{read} before {reader}: {w:?}");
        }
        // The credits' queries read only the typed tables: all in the first wave.
        for q in qs.iter().filter(|q| q.name.as_str() < "14") {
            assert_eq!(wave(&q.name), 0, "{}", q.name);
        }
        assert_eq!(w.len(), 3, "{w:?}");
        // The changes name the estimate only as a column (`o.situacao_fiscal_estimada`): they
        // run right after what they read, the standings and the regimes.
        let read = wave("19_situacao_fiscal_por_retrato").max(wave("21_regime_carteira"));
        assert_eq!(wave("28_mudancas"), read + 1, "{w:?}");
    }
}
