//! Ground truth of a portfolio's economic groups: companies linked by a shared root or by one
//! being a partner of another, and each group's exposure with every debt counted once
//! (`counted`). Computed from the dataset's own links and cents, not from the client's tables.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Dataset;
use super::company::Core;
use super::counted::{debt_roles, inscriptions_of};
use registry_api::ids::Cnpj;

/// An economic group of a portfolio as the dataset knows it: companies (by `cnpj_basico`)
/// linked by sharing a root or by one being a partner of another. The members are the
/// portfolio's companies, the companies among their partners and, when the groups are
/// expanded, those companies' partners in turn up to `depth` steps away.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupTruth {
    /// Every member's `cnpj_basico`, ascending.
    pub members: Vec<String>,
    /// The members whose records count (in the portfolio or fetched by the expansion).
    pub counted: Vec<String>,
    /// Portfolio CNPJs in the group (two branches of one company are two).
    pub portfolio_cnpjs: usize,
    /// Debt (readable amounts), instalment and transaction balances of the counted members,
    /// each company and each inscription once: an inscription a portfolio company owes counts
    /// for the portfolio company credited with it (its principal first), wherever that one's
    /// group is; one only the fetched partner companies owe counts among them the same way.
    pub exposure_cents: i64,
    /// The member that names the group: the one that is a partner of the most other members
    /// (its holding, usually), the smaller root on a tie.
    pub head: String,
    /// The head's name: its register's when its records were fetched, else the name the first
    /// partners list that names it gives.
    pub head_name: Option<String>,
    /// Members that are companies of the portfolio (a company listed twice is one).
    pub portfolio_members: usize,
    /// What the portfolio's members count in the portfolio's totals.
    pub portfolio_exposure_cents: i64,
}

/// What counts for each counted company in its group's exposure: the portfolio's CNPJs credited
/// first, then the partner companies fetched, with what the portfolio owes already counted.
fn credited_by_company(
    ds: &Dataset,
    portfolio: &[Cnpj],
    counted: &std::collections::BTreeSet<usize>,
    in_portfolio: &BTreeMap<usize, usize>,
) -> BTreeMap<usize, i64> {
    let mut out: BTreeMap<usize, i64> = BTreeMap::new();
    for (cnpj, roles) in debt_roles(ds, portfolio, &Default::default()) {
        let Some(index) = ds.company_of_digits(&cnpj) else { continue };
        *out.entry(index).or_default() += roles.counted_cents();
    }
    let partners: Vec<Cnpj> =
        counted.iter().filter(|i| !in_portfolio.contains_key(i)).map(|i| ds.company_cnpj(*i)).collect();
    for (cnpj, roles) in debt_roles(ds, &partners, &inscriptions_of(ds, portfolio)) {
        let Some(index) = ds.company_of_digits(&cnpj) else { continue };
        *out.entry(index).or_default() += roles.counted_cents();
    }
    out
}

/// The groups of two or more members or portfolio CNPJs, by exposure (largest first), then
/// first member.
pub(super) fn groups(ds: &Dataset, cnpjs: &[Cnpj], depth: usize) -> Vec<GroupTruth> {
    use std::collections::BTreeSet;
    // Union-find over company indices, by map so only the companies met are held.
    fn root(parent: &mut BTreeMap<usize, usize>, x: usize) -> usize {
        let p = *parent.entry(x).or_insert(x);
        if p == x {
            return x;
        }
        let r = root(parent, p);
        parent.insert(x, r);
        r
    }
    let mut parent = BTreeMap::new();
    let mut counted = BTreeSet::new();
    let mut in_portfolio: BTreeMap<usize, usize> = BTreeMap::new();
    let mut frontier = Vec::new();
    // Who each member is a partner of, and the name the first partners list gave it.
    let mut partner_of: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    let mut named: BTreeMap<usize, String> = BTreeMap::new();
    for c in cnpjs {
        if let Some(i) = ds.company_index(c) {
            *in_portfolio.entry(i).or_default() += 1;
            root(&mut parent, i);
            if counted.insert(i) {
                frontier.push(i);
            }
        }
    }
    for step in 0..=depth {
        let mut next = Vec::new();
        for i in frontier {
            let core = Core::generate(ds, i);
            for s in super::registry::socios(ds, &core) {
                // A partner company written as the dataset writes it; a person's masked CPF
                // has too few digits to be one.
                let partner = s.cnpj_cpf_socio.as_deref().and_then(|d| ds.company_of_digits(d));
                let Some(p) = partner else { continue };
                if p == i {
                    continue;
                }
                partner_of.entry(p).or_default().insert(i);
                if let Some(name) =
                    s.nome_socio_razao_social.as_deref().map(str::trim).filter(|n| !n.is_empty())
                {
                    named.entry(p).or_insert_with(|| name.to_string());
                }
                let (a, b) = (root(&mut parent, i), root(&mut parent, p));
                parent.insert(a, b);
                if step < depth && counted.insert(p) {
                    next.push(p);
                }
            }
        }
        frontier = next;
    }
    let mut by_root: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in parent.keys().copied().collect::<Vec<_>>() {
        by_root.entry(root(&mut parent, i)).or_default().push(i);
    }
    let basico = |i: usize| ds.company_cnpj(i).basico().to_string();
    let credited = credited_by_company(ds, cnpjs, &counted, &in_portfolio);
    let mut out: Vec<GroupTruth> = by_root
        .into_values()
        .map(|members| {
            let portfolio_cnpjs = members.iter().filter_map(|m| in_portfolio.get(m)).sum();
            let counted_members: Vec<usize> =
                members.iter().copied().filter(|m| counted.contains(m)).collect();
            let exposure_cents = counted_members.iter().filter_map(|m| credited.get(m)).sum();
            let portfolio_exposure_cents =
                members.iter().filter(|m| in_portfolio.contains_key(m)).filter_map(|m| credited.get(m)).sum();
            let portfolio_members = members.iter().filter(|m| in_portfolio.contains_key(m)).count();
            let inside = |m: &usize| {
                partner_of.get(m).map_or(0, |of| of.iter().filter(|o| members.contains(o)).count())
            };
            let head = members
                .iter()
                .max_by(|a, b| inside(a).cmp(&inside(b)).then_with(|| basico(**b).cmp(&basico(**a))))
                .copied()
                .unwrap_or_default();
            let register_name = || {
                let profile =
                    counted.contains(&head).then(|| ds.profile(&ds.company_cnpj(head))).flatten()?;
                let name = profile.empresa?.razao_social?;
                Some(name.trim().to_string()).filter(|n| !n.is_empty())
            };
            let head_name = register_name().or_else(|| named.get(&head).cloned());
            let mut members: Vec<String> = members.into_iter().map(basico).collect();
            members.sort();
            let mut counted: Vec<String> = counted_members.into_iter().map(basico).collect();
            counted.sort();
            GroupTruth {
                members,
                counted,
                portfolio_cnpjs,
                exposure_cents,
                head: basico(head),
                head_name,
                portfolio_members,
                portfolio_exposure_cents,
            }
        })
        .filter(|g| g.members.len() >= 2 || g.portfolio_cnpjs >= 2)
        .collect();
    out.sort_by(|a, b| b.exposure_cents.cmp(&a.exposure_cents).then_with(|| a.members.cmp(&b.members)));
    out
}
