//! Economic groups: which companies of the portfolio belong together. Companies sharing a
//! `cnpj_basico` (a head office and its branches) are one company; a partner that is itself a
//! company (a valid CNPJ in `cnpj_cpf_socio`) links its group with the group of the company it
//! is a partner of. Closing those links transitively is a graph question SQL cannot answer, so
//! it is answered here (union-find over roots) and handed to the queries as the
//! `grupos_economicos` table: one row per member company. What a group owes is the queries'
//! business (`25_grupos_exposicao.sql`), not this module's.
//!
//! Members come from the portfolio's own rows and, with `--expand-groups`, from the partner
//! companies fetched for that purpose (`extract::partner_companies`); a partner company named but not
//! fetched is a member too, with nothing counted for it.

use std::collections::{BTreeMap, BTreeSet};

use polars::prelude::*;

use super::{Frames, TransformError};
use crate::api::Cnpj;

/// The table name the queries read.
pub(crate) const GRUPOS_ECONOMICOS: &str = "grupos_economicos";

/// The exposure of the partner companies `--expand-groups` fetched: the portfolio-exposure
/// query's result over their records (empty without the expansion).
pub(crate) const SOCIAS_EXPOSICAO: &str = "socias_exposicao";

/// The inscriptions (`categoria`, `numero_inscricao`) the portfolio owes, handed to the
/// portfolio-exposure query when it runs over the partner companies fetched for the groups, so
/// that an inscription a portfolio company already counts is not counted again for a partner.
/// Over the portfolio itself the queries read it empty.
pub(crate) const INSCRICOES_DA_CARTEIRA: &str = "inscricoes_da_carteira";

/// `INSCRICOES_DA_CARTEIRA` of `frames`: each numbered inscription of its debts once.
pub(crate) fn portfolio_inscriptions(frames: &Frames) -> PolarsResult<DataFrame> {
    let Some(scan) = frames.scan(crate::tables::Table::DividasPgfn.name()) else {
        return Ok(no_inscriptions());
    };
    scan?
        .select([col("categoria"), col("numero_inscricao")])
        .filter(col("numero_inscricao").is_not_null())
        .unique(None, UniqueKeepStrategy::Any)
        .collect()
}

/// An `INSCRICOES_DA_CARTEIRA` with no row.
pub(crate) fn no_inscriptions() -> DataFrame {
    let text = |name: &str| Column::new_empty(name.into(), &DataType::String);
    DataFrame::new(0, vec![text("categoria"), text("numero_inscricao")]).unwrap_or_default()
}

/// Adds `grupos_economicos` to `frames` (from its own rows and, when given, the expansion's),
/// unless it holds one already (a run dir read back by `report --from`) and there is no
/// expansion to add.
pub(crate) fn attach_groups(frames: &mut Frames, expansion: Option<&Frames>) -> Result<(), TransformError> {
    if expansion.is_none() && frames.tables.contains_key(GRUPOS_ECONOMICOS) {
        return Ok(());
    }
    let groups = economic_groups(frames, expansion)?;
    frames.tables.insert(GRUPOS_ECONOMICOS, groups);
    Ok(())
}

/// How a member came to be in its group; the `origem` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Origin {
    /// A company of the portfolio: its records count.
    Portfolio,
    /// A partner company fetched by `--expand-groups`: its records count for its group.
    Expansion,
    /// A partner company named in a partners list and not fetched: it links, nothing counts.
    Named,
}

impl Origin {
    fn code(self) -> &'static str {
        match self {
            Self::Portfolio => "carteira",
            Self::Expansion => "expansao",
            Self::Named => "socia_nao_buscada",
        }
    }
}

#[derive(Debug, Clone)]
struct Member {
    origin: Origin,
    /// The CNPJ whose records stand for the company: the portfolio's (smallest, when the
    /// portfolio lists several establishments), the one fetched, or the one a partner list gave.
    cnpj: String,
    razao_social: Option<String>,
    portfolio_cnpjs: i64,
    /// Roots of the companies this one is a partner of.
    partner_of: BTreeSet<String>,
}

/// Union-find over company roots.
#[derive(Default)]
struct Roots {
    parent: BTreeMap<String, String>,
}

impl Roots {
    fn find(&mut self, x: &str) -> String {
        let mut path = Vec::new();
        let mut at = x.to_string();
        loop {
            let up = self.parent.entry(at.clone()).or_insert_with(|| at.clone()).clone();
            if up == at {
                break;
            }
            path.push(std::mem::replace(&mut at, up));
        }
        for p in path {
            self.parent.insert(p, at.clone());
        }
        at
    }

    fn join(&mut self, a: &str, b: &str) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // The smaller root wins, so the result does not depend on the order of the links.
            let (keep, gone) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent.insert(gone, keep);
        }
    }
}

fn texts<'a>(df: &'a DataFrame, name: &str) -> PolarsResult<&'a StringChunked> {
    df.column(name)?.str()
}

/// The company rows (`empresas`) and partner rows (`socios`) of `frames` added to `members`.
fn add_companies(
    frames: &Frames,
    origin: Origin,
    members: &mut BTreeMap<String, Member>,
    roots: &mut Roots,
) -> PolarsResult<()> {
    if let Some(empresas) = frames.get(crate::tables::Table::Empresas.name()) {
        let (cnpjs, names) = (texts(empresas, "cnpj")?, texts(empresas, "razao_social")?);
        for (cnpj, name) in cnpjs.iter().zip(names.iter()) {
            let Some(cnpj) = cnpj.and_then(|c| Cnpj::parse(c).ok()) else { continue };
            let root = cnpj.basico().to_string();
            roots.find(&root);
            let m = members.entry(root).or_insert_with(|| Member {
                origin,
                cnpj: cnpj.as_str().to_string(),
                razao_social: None,
                portfolio_cnpjs: 0,
                partner_of: BTreeSet::new(),
            });
            if origin < m.origin || (origin == m.origin && cnpj.as_str() < m.cnpj.as_str()) {
                m.origin = origin;
                m.cnpj = cnpj.as_str().to_string();
            }
            // The register's name wins over the one a partners list gave.
            if let Some(name) = name.filter(|n| !n.trim().is_empty()) {
                m.razao_social = Some(name.to_string());
            }
            if origin == Origin::Portfolio {
                m.portfolio_cnpjs += 1;
            }
        }
    }
    if let Some(socios) = frames.get(crate::tables::Table::Socios.name()) {
        let (owned, docs, names) = (
            texts(socios, "cnpj")?,
            texts(socios, "cnpj_cpf_socio")?,
            texts(socios, "nome_socio_razao_social")?,
        );
        for ((owned, doc), name) in owned.iter().zip(docs.iter()).zip(names.iter()) {
            let (Some(owned), Some(partner)) =
                (owned.and_then(|c| Cnpj::parse(c).ok()), doc.and_then(|d| Cnpj::parse(d).ok()))
            else {
                continue;
            };
            let (owned, root) = (owned.basico().to_string(), partner.basico().to_string());
            if owned == root {
                continue;
            }
            roots.join(&owned, &root);
            let m = members.entry(root).or_insert_with(|| Member {
                origin: Origin::Named,
                cnpj: partner.as_str().to_string(),
                razao_social: None,
                portfolio_cnpjs: 0,
                partner_of: BTreeSet::new(),
            });
            if m.razao_social.is_none() {
                m.razao_social = name.filter(|n| !n.trim().is_empty()).map(str::to_string);
            }
            m.partner_of.insert(owned);
        }
    }
    Ok(())
}

/// The partner companies `frames` names that are not among its own companies: what
/// `--expand-groups` fetches next.
pub(crate) fn partner_companies(frames: &Frames, known: &BTreeSet<String>) -> PolarsResult<BTreeSet<Cnpj>> {
    let mut out = BTreeSet::new();
    let Some(socios) = frames.get(crate::tables::Table::Socios.name()) else { return Ok(out) };
    for doc in texts(socios, "cnpj_cpf_socio")?.iter().flatten() {
        if let Ok(c) = Cnpj::parse(doc)
            && !known.contains(c.basico())
        {
            out.insert(c);
        }
    }
    Ok(out)
}

/// The roots of the companies `frames` holds (its `empresas` rows).
pub(crate) fn company_roots(frames: &Frames) -> PolarsResult<BTreeSet<String>> {
    let Some(empresas) = frames.get(crate::tables::Table::Empresas.name()) else {
        return Ok(BTreeSet::new());
    };
    Ok(texts(empresas, "cnpj")?
        .iter()
        .flatten()
        .filter_map(|c| Cnpj::parse(c).ok())
        .map(|c| c.basico().to_string())
        .collect())
}

/// The `grupos_economicos` table of the portfolio in `frames` and the partner companies in
/// `expansion`: one row per member of every group of two or more companies (or of one company
/// the portfolio lists under two or more CNPJs). A group is named after its member that is a
/// partner of the most other members (its holding, usually); ties go to the smaller root.
pub(crate) fn economic_groups(
    frames: &Frames,
    expansion: Option<&Frames>,
) -> Result<DataFrame, TransformError> {
    let err = |source| TransformError::Frame { table: GRUPOS_ECONOMICOS, source };
    let mut members = BTreeMap::new();
    let mut roots = Roots::default();
    add_companies(frames, Origin::Portfolio, &mut members, &mut roots).map_err(err)?;
    if let Some(x) = expansion {
        add_companies(x, Origin::Expansion, &mut members, &mut roots).map_err(err)?;
    }
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for root in members.keys() {
        groups.entry(roots.find(root)).or_default().push(root.clone());
    }
    let mut columns: [Vec<Option<String>>; 6] = Default::default();
    let (mut portfolio_cnpjs, mut partner_of) = (Vec::new(), Vec::new());
    for group in groups.into_values() {
        let listed: i64 = group.iter().map(|r| members[r].portfolio_cnpjs).sum();
        if group.len() < 2 && listed < 2 {
            continue;
        }
        let inside = |r: &String| members[r].partner_of.iter().filter(|o| group.contains(o)).count();
        let head = group
            .iter()
            .max_by(|a, b| inside(a).cmp(&inside(b)).then_with(|| b.cmp(a)))
            .cloned()
            .unwrap_or_default();
        let head_name = members.get(&head).and_then(|m| m.razao_social.clone());
        let mut ordered = group.clone();
        ordered.sort_by(|a, b| members[a].origin.cmp(&members[b].origin).then_with(|| a.cmp(b)));
        for root in ordered {
            let m = &members[&root];
            let [grupo, grupo_nome, basico, cnpj, razao, origem] = &mut columns;
            grupo.push(Some(head.clone()));
            grupo_nome.push(head_name.clone());
            basico.push(Some(root.clone()));
            cnpj.push(Some(m.cnpj.clone()));
            razao.push(m.razao_social.clone());
            origem.push(Some(m.origin.code().to_string()));
            portfolio_cnpjs.push(m.portfolio_cnpjs);
            let of: Vec<&str> =
                m.partner_of.iter().filter(|o| group.contains(o)).map(String::as_str).collect();
            partner_of.push(of.join(","));
        }
    }
    let height = portfolio_cnpjs.len();
    let names = ["grupo", "grupo_nome", "cnpj_basico", "cnpj", "razao_social", "origem"];
    let mut cols: Vec<Column> = names.iter().zip(columns).map(|(n, v)| Column::new((*n).into(), v)).collect();
    cols.push(Column::new("cnpjs_na_carteira".into(), portfolio_cnpjs));
    cols.push(Column::new("socia_de".into(), partner_of));
    let mut df = DataFrame::new(height, cols).map_err(err)?;
    // The same order whatever the input's.
    df = df.sort(["grupo", "cnpj_basico"], SortMultipleOptions::default()).map_err(err)?;
    Ok(df)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cnpj(base: &str) -> String {
        Cnpj::from_base(base).unwrap().as_str().to_string()
    }

    fn frames(empresas: &[(&str, &str)], socios: &[(&str, &str)]) -> Frames {
        let e = DataFrame::new(
            empresas.len(),
            vec![
                Column::new("cnpj".into(), empresas.iter().map(|e| e.0).collect::<Vec<_>>()),
                Column::new("razao_social".into(), empresas.iter().map(|e| e.1).collect::<Vec<_>>()),
            ],
        )
        .unwrap();
        let s = DataFrame::new(
            socios.len(),
            vec![
                Column::new("cnpj".into(), socios.iter().map(|s| s.0).collect::<Vec<_>>()),
                Column::new("cnpj_cpf_socio".into(), socios.iter().map(|s| s.1).collect::<Vec<_>>()),
                Column::new(
                    "nome_socio_razao_social".into(),
                    socios.iter().map(|_| "SOCIA").collect::<Vec<_>>(),
                ),
            ],
        )
        .unwrap();
        Frames { tables: BTreeMap::from([("empresas", e), ("socios", s)]), ..Default::default() }
    }

    fn column(df: &DataFrame, name: &str) -> Vec<String> {
        df.column(name).unwrap().str().unwrap().iter().map(|v| v.unwrap_or("").to_string()).collect()
    }

    #[test]
    fn partners_link_transitively_and_a_shared_root_is_one_company() {
        let (a, a2, b, c, d, h) = (
            cnpj("111111110001"),
            cnpj("111111110002"),
            cnpj("222222220001"),
            cnpj("333333330001"),
            cnpj("444444440001"),
            cnpj("999999990001"),
        );
        // A (two establishments) and B are owned by H, which is not in the portfolio; C is
        // owned by B; D stands alone, with a person as partner.
        let f = frames(
            &[(&a, "A"), (&a2, "A"), (&b, "B"), (&c, "C"), (&d, "D")],
            &[(&a, &h), (&a2, &h), (&b, &h), (&c, &b), (&d, "***123456**")],
        );
        let df = economic_groups(&f, None).unwrap();
        assert_eq!(column(&df, "cnpj_basico"), ["11111111", "22222222", "33333333", "99999999"]);
        assert_eq!(column(&df, "grupo"), vec!["99999999"; 4], "H owns two members: it names the group");
        assert_eq!(column(&df, "grupo_nome"), vec!["SOCIA"; 4]);
        assert_eq!(column(&df, "origem"), ["carteira", "carteira", "carteira", "socia_nao_buscada"]);
        assert_eq!(column(&df, "cnpj")[0], a, "the smaller of the portfolio's CNPJs stands for A");
        assert_eq!(column(&df, "socia_de"), ["", "33333333", "", "11111111,22222222"]);
        let listed = df.column("cnpjs_na_carteira").unwrap().i64().unwrap();
        assert_eq!(listed.into_no_null_iter().collect::<Vec<_>>(), [2, 1, 1, 0]);

        // Fetched, H counts; the order of the links does not change the group.
        let expansion = frames(&[(&h, "HOLDING H")], &[]);
        let df = economic_groups(&f, Some(&expansion)).unwrap();
        assert_eq!(column(&df, "origem")[3], "expansao");
        assert_eq!(column(&df, "grupo_nome"), vec!["HOLDING H"; 4]);
    }

    #[test]
    fn one_company_under_two_cnpjs_is_a_group_and_a_lone_company_is_not() {
        let (a, a2, d) = (cnpj("111111110001"), cnpj("111111110002"), cnpj("444444440001"));
        let df = economic_groups(&frames(&[(&a2, "A"), (&a, "A"), (&d, "D")], &[]), None).unwrap();
        assert_eq!(column(&df, "cnpj_basico"), ["11111111"]);
        assert_eq!(column(&df, "cnpj"), std::slice::from_ref(&a));
        assert_eq!(partner_companies(&frames(&[(&d, "D")], &[(&d, &a)]), &BTreeSet::new()).unwrap().len(), 1);
    }
}
