//! Economic groups of the synthetic registry: which companies own which. Every 61st company
//! (index 11, 72, 133, ...) is a holding; the 2-4 companies after it are its subsidiaries and
//! name it among their partners, and the third subsidiary is owned by the first one too, so a
//! group is reached through more than one link. A client sees these links only as full CNPJs
//! in the partners lists (operation 4); other company partners stay scattered over the
//! dataset (see `registry::socios`).
//!
//! It decides who owns whom by index arithmetic, so nothing is kept in memory; the partner
//! records themselves are built by `registry`.

pub(super) const PERIOD: usize = 61;
pub(super) const HOLDING_AT: usize = 11;

fn subsidiary_count(holding: usize) -> usize {
    2 + (holding / PERIOD) % 3
}

/// Whether company `index` heads a group (it has at least one subsidiary in the dataset).
pub(super) fn is_holding(index: usize, companies: usize) -> bool {
    index % PERIOD == HOLDING_AT && index + 1 < companies
}

/// The holdings of the dataset, ascending.
pub(super) fn holdings(companies: usize) -> impl Iterator<Item = usize> {
    (HOLDING_AT..companies).step_by(PERIOD).filter(move |&h| is_holding(h, companies))
}

/// The companies a holding owns, ascending (empty for a company that is not a holding).
pub(super) fn subsidiaries(index: usize, companies: usize) -> Vec<usize> {
    if !is_holding(index, companies) {
        return Vec::new();
    }
    (1..=subsidiary_count(index)).map(|k| index + k).filter(|&i| i < companies).collect()
}

/// The companies of its group among `index`'s partners, in partner order: its holding, and
/// for a third subsidiary also the first subsidiary.
pub(super) fn owners(index: usize, companies: usize) -> Vec<usize> {
    let offset = index % PERIOD;
    if offset <= HOLDING_AT || index >= companies {
        return Vec::new();
    }
    let k = offset - HOLDING_AT;
    let holding = index - k;
    if !is_holding(holding, companies) || k > subsidiary_count(holding) {
        return Vec::new();
    }
    if k == 3 { vec![holding, holding + 1] } else { vec![holding] }
}

/// Whether company `index` belongs to a group (as holding or subsidiary).
pub(super) fn is_member(index: usize, companies: usize) -> bool {
    is_holding(index, companies) || !owners(index, companies).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsidiaries_name_their_owners_and_owners_are_members() {
        let companies = 5000;
        let mut groups = 0;
        for h in holdings(companies) {
            groups += 1;
            let subs = subsidiaries(h, companies);
            assert!((2..=4).contains(&subs.len()), "holding {h}: {subs:?}");
            for (k, s) in subs.iter().enumerate() {
                let owners = owners(*s, companies);
                assert_eq!(owners[0], h);
                assert_eq!(owners.len(), if k == 2 { 2 } else { 1 });
                assert!(is_member(*s, companies));
            }
        }
        assert_eq!(groups, 82);
        // The companies right after a group's last subsidiary own nothing.
        assert!(owners(11 + 5, companies).is_empty());
        assert!(owners(10, companies).is_empty());
        // A holding whose subsidiaries fall past the end of a small dataset has only those inside.
        assert_eq!(subsidiaries(11, 13), vec![12]);
        assert!(!is_holding(11, 12));
    }
}
