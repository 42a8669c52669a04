//! Ground truth of the debts counted once: PGFN publishes one row per debtor of an inscription
//! (the principal and each co-responsible or jointly liable debtor), so a sum over rows counts
//! a shared inscription once per debtor. Here each company's own debt is split by its role, and
//! each inscription (categoria + numero_inscricao) is credited to one company only: the
//! principal when it is among the companies, else the smallest CNPJ that owes it.
//!
//! Computed from the generators' cents and the records' own fields, never by parsing the
//! rendered strings; the queries compute the same figures their own way.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Dataset;
use super::company::Core;
use super::debts::{DebtRow, dividas, parcelamentos, transacoes};
use super::truth::MoneyTruth;
use registry_api::ids::{Categoria, Cnpj};

/// One CNPJ's debts by role, and what of them counts for it in totals.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DebtRolesTruth {
    /// Readable amounts of the inscriptions it owes as principal, each once.
    pub principal_cents: i64,
    /// ... as co-responsible or jointly liable (`CORRESPONSAVEL`, `SOLIDARIO`), each once.
    pub co_debtor_cents: i64,
    /// Inscriptions it owes in any role.
    pub inscriptions: usize,
    /// The inscriptions credited to it in totals, in cents: categoria -> (filed in court, not
    /// filed).
    pub counted: BTreeMap<String, (i64, i64)>,
    /// Its instalment balance when it is the first CNPJ of its company (a portfolio listing a
    /// head office and a branch counts the company's plans once), else 0.
    pub counted_parcelamentos_cents: i64,
    /// Its transaction balance, likewise.
    pub counted_transacoes_cents: i64,
}

impl DebtRolesTruth {
    /// Everything credited to the CNPJ in totals: counted debts and plans.
    pub fn counted_cents(&self) -> i64 {
        self.counted.values().map(|(sim, nao)| sim + nao).sum::<i64>()
            + self.counted_parcelamentos_cents
            + self.counted_transacoes_cents
    }
}

/// One company's hold on one inscription.
struct Hold {
    cnpj: String,
    principal: bool,
    ajuizado: bool,
    cents: Option<i64>,
}

/// Only a row that says `PRINCIPAL` makes its company the principal.
fn is_co_debtor(row: &DebtRow) -> bool {
    row.priced.item.tipo_devedor.as_deref() != Some("PRINCIPAL")
}

/// `cnpjs`' debts split by role and credited once (see the module doc), keyed by bare CNPJ.
/// Inscriptions in `already_counted` (categoria, numero) are credited to nobody: another set of
/// companies counted them first. CNPJs not in the dataset are left out.
pub(super) fn debt_roles(
    ds: &Dataset,
    cnpjs: &[Cnpj],
    already_counted: &std::collections::BTreeSet<(String, String)>,
) -> BTreeMap<String, DebtRolesTruth> {
    let mut out: BTreeMap<String, DebtRolesTruth> = BTreeMap::new();
    let mut holds: BTreeMap<(String, String), Vec<Hold>> = BTreeMap::new();
    let mut first_of_company: BTreeMap<usize, String> = BTreeMap::new();
    for cnpj in cnpjs {
        let Some(index) = ds.company_index(cnpj) else { continue };
        let key = cnpj.as_str().to_string();
        let first = first_of_company.entry(index).or_insert_with(|| key.clone());
        if key < *first {
            *first = key.clone();
        }
        if out.contains_key(&key) {
            continue;
        }
        let core = Core::generate(ds, index);
        let mut roles = DebtRolesTruth::default();
        for c in Categoria::ALL {
            let mut own: BTreeMap<String, Hold> = BTreeMap::new();
            for row in dividas(ds, &core, c) {
                let numero = row.priced.item.numero_inscricao.clone().unwrap_or_default();
                let hold = own.entry(numero).or_insert(Hold {
                    cnpj: key.clone(),
                    principal: false,
                    ajuizado: false,
                    cents: None,
                });
                hold.principal |= !is_co_debtor(&row);
                hold.ajuizado |= row.ajuizado;
                hold.cents = hold.cents.max(row.priced.cents);
            }
            for (numero, hold) in own {
                let cents = hold.cents.unwrap_or(0);
                if hold.principal {
                    roles.principal_cents += cents;
                } else {
                    roles.co_debtor_cents += cents;
                }
                roles.inscriptions += 1;
                holds.entry((c.as_str().to_string(), numero)).or_default().push(hold);
            }
        }
        out.insert(key, roles);
    }
    credit_once(&mut out, holds, already_counted);
    for (index, cnpj) in first_of_company {
        let core = Core::generate(ds, index);
        if let Some(roles) = out.get_mut(&cnpj) {
            roles.counted_parcelamentos_cents = MoneyTruth::of(&parcelamentos(ds, &core)).saldo_devedor_cents;
            roles.counted_transacoes_cents = MoneyTruth::of(&transacoes(ds, &core)).saldo_devedor_cents;
        }
    }
    out
}

/// Credits each inscription to its principal among the holders, else to the smallest CNPJ.
fn credit_once(
    out: &mut BTreeMap<String, DebtRolesTruth>,
    holds: BTreeMap<(String, String), Vec<Hold>>,
    already_counted: &std::collections::BTreeSet<(String, String)>,
) {
    for (key, hs) in holds {
        if already_counted.contains(&key) {
            continue;
        }
        let owner = hs
            .iter()
            .filter(|h| h.principal)
            .min_by(|a, b| a.cnpj.cmp(&b.cnpj))
            .or_else(|| hs.iter().min_by(|a, b| a.cnpj.cmp(&b.cnpj)));
        let Some(owner) = owner else { continue };
        let Some(roles) = out.get_mut(&owner.cnpj) else { continue };
        let entry = roles.counted.entry(key.0.clone()).or_default();
        let cents = owner.cents.unwrap_or(0);
        if owner.ajuizado {
            entry.0 += cents;
        } else {
            entry.1 += cents;
        }
    }
}

/// The (categoria, numero_inscricao) of every inscription `cnpjs` owe.
pub(super) fn inscriptions_of(ds: &Dataset, cnpjs: &[Cnpj]) -> std::collections::BTreeSet<(String, String)> {
    let mut out = std::collections::BTreeSet::new();
    for cnpj in cnpjs {
        let Some(index) = ds.company_index(cnpj) else { continue };
        let core = Core::generate(ds, index);
        for c in Categoria::ALL {
            for row in dividas(ds, &core, c) {
                let numero = row.priced.item.numero_inscricao.clone().unwrap_or_default();
                out.insert((c.as_str().to_string(), numero));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::Dataset;
    use super::super::company::Core;
    use super::super::debts::{co_debtor_of, dividas, own_dividas};
    use registry_api::ids::Categoria;

    /// Every company's own inscriptions carry numbers no other company's own do, so the only
    /// inscriptions two companies share are the co-debtors' copies.
    #[test]
    fn own_inscription_numbers_are_unique_and_copies_repeat_the_principals() {
        let ds = Dataset::generate(7, 0.05);
        let mut owner: BTreeMap<(Categoria, String), (usize, Option<i64>)> = BTreeMap::new();
        for i in 0..ds.company_count() {
            let core = Core::generate(&ds, i);
            for c in Categoria::ALL {
                for r in own_dividas(&ds, &core, c) {
                    let numero = r.priced.item.numero_inscricao.clone().unwrap();
                    let before = owner.insert((c, numero.clone()), (i, r.priced.cents));
                    assert!(before.is_none(), "{numero} of company {i} also belongs to {before:?}");
                }
            }
        }
        let mut copies = 0;
        for i in 0..ds.company_count() {
            let core = Core::generate(&ds, i);
            let principals: Vec<usize> = co_debtor_of(i, ds.company_count()).iter().map(|p| p.0).collect();
            for c in Categoria::ALL {
                for r in dividas(&ds, &core, c) {
                    let item = &r.priced.item;
                    let (of, cents) = owner[&(c, item.numero_inscricao.clone().unwrap())];
                    if of == i {
                        continue;
                    }
                    copies += 1;
                    assert!(principals.contains(&of), "company {i} copies {of}'s inscription");
                    assert_eq!(r.priced.cents, cents, "a copy repeats the value");
                    assert!(matches!(item.tipo_devedor.as_deref(), Some("CORRESPONSAVEL" | "SOLIDARIO")));
                    assert_eq!(item.cpf_cnpj.as_deref(), Some(core.cnpj.masked().as_str()));
                }
            }
        }
        assert!(copies > 20, "{copies} co-debtor copies");
    }
}
