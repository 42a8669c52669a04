//! Walking a list operation to its end: the first page gives `paginacao.total`, the rest are
//! fetched concurrently.
//!
//! A list is either read whole or not at all. A page shorter than the first total promised is
//! asked again; a total that moves between pages restarts the walk, since the list changed
//! under it. If the service still contradicts itself after that, the walk ends in
//! `ApiError::IncompleteList`, so the task is recorded as failed (and retried by `--resume`)
//! instead of saved short; so does a full first page with no usable total. Benign oddities (a
//! page longer than `limite`, a short only page with no usable total) are warnings. The walk always terminates: pages are planned from the first total, and the first
//! bad page stops the requests after it. How one page is fetched (retries, throttling) is the
//! caller's closure; this module knows nothing of it.

use std::future::Future;
use std::time::Duration;

use futures::StreamExt;

use super::error::ApiError;
use super::ids::Page;
use super::models::{Envelope, Fonte};

/// How often one short page is asked for in all, and how many walks a moving total gets. Fewer
/// page attempts: a page a flaky service sends short a few times running fails its list (for
/// `--resume` to retry); with 4.3 % of pages short, a run of 18,000 pages fails one in about 1
/// run of 16 at 4 attempts, 1 of 9,000 at 6. More: a page that stays short is waited on longer
/// (1.5 s in all at 6).
const PAGE_ATTEMPTS: u32 = 6;
const WALK_ATTEMPTS: u32 = 3;
/// The pause before asking again grows with the attempt: the service may be mid-update.
const PAUSE_STEP: Duration = Duration::from_millis(100);

/// Everything a walk found.
#[derive(Debug, Clone)]
pub struct Walk<T> {
    pub items: Vec<T>,
    pub fonte: Option<Fonte>,
    /// `paginacao.total` of the first page.
    pub total: u64,
    pub pages: u32,
    /// Anomalies seen on the way that did not cost a record, in words a person can act on.
    pub warnings: Vec<String>,
}

/// Offsets of the pages after the first, for a list of `total` records.
pub fn remaining_offsets(total: u64, limite: u32) -> impl Iterator<Item = u64> {
    (u64::from(limite)..total).step_by(limite as usize)
}

/// How many pages a list of `total` records takes (one even when it is empty).
pub fn pages_for(total: u64, limite: u32) -> u64 {
    total.div_ceil(u64::from(limite)).max(1)
}

/// Why one walk stopped short.
enum Stop {
    /// `paginacao.total` differs from the first page's: walk again from the start.
    TotalMoved(String),
    /// The page stayed short, or the request failed: the walk ends here.
    Failed(ApiError),
}

impl From<ApiError> for Stop {
    fn from(e: ApiError) -> Self {
        Stop::Failed(e)
    }
}

fn incomplete(what: &str, detail: String) -> ApiError {
    ApiError::IncompleteList { what: what.to_string(), detail }
}

/// One page held against the first total.
enum Checked<T> {
    Whole(Vec<T>),
    /// Fewer records than the total promised for this offset: ask again.
    Short(String),
}

fn accept_page<T>(
    env: Envelope<T>,
    page: Page,
    first_total: u64,
    what: &str,
    warnings: &mut Vec<String>,
) -> Result<Checked<T>, Stop> {
    let mut items = env.itens;
    if let Some(t) = env.paginacao.as_ref().and_then(|p| p.total)
        && t != first_total as i64
    {
        return Err(Stop::TotalMoved(format!(
            "paginacao.total changed from {first_total} to {t} between pages (offset {})",
            page.offset
        )));
    }
    if items.len() > page.limite as usize {
        warnings.push(format!(
            "{what}: the page at offset {} held {} records for limite {}; the extra ones were dropped",
            page.offset,
            items.len(),
            page.limite
        ));
        items.truncate(page.limite as usize);
    }
    let expected = first_total.saturating_sub(page.offset).min(u64::from(page.limite)) as usize;
    if items.len() < expected {
        return Ok(Checked::Short(format!(
            "the page at offset {} held {} records where paginacao.total is {first_total} ({expected} expected)",
            page.offset,
            items.len()
        )));
    }
    Ok(Checked::Whole(items))
}

/// Fetches `page`, asking again while it comes back short; `attempt` is the first one's number
/// (the first page's first answer was already read to learn the total).
async fn checked_page<T, F, Fut>(
    fetch: &F,
    page: Page,
    total: u64,
    what: &str,
    mut attempt: u32,
) -> Result<(Vec<T>, Vec<String>), Stop>
where
    F: Fn(Page) -> Fut,
    Fut: Future<Output = Result<Envelope<T>, ApiError>>,
{
    loop {
        let mut warnings = Vec::new();
        match accept_page(fetch(page).await?, page, total, what, &mut warnings)? {
            Checked::Whole(items) => return Ok((items, warnings)),
            Checked::Short(short) if attempt >= PAGE_ATTEMPTS => {
                return Err(Stop::Failed(incomplete(what, format!("{short}, {PAGE_ATTEMPTS} times"))));
            }
            Checked::Short(_) => {
                tokio::time::sleep(PAUSE_STEP * attempt).await;
                attempt += 1;
            }
        }
    }
}

/// Walks a list with `limite=100`, fetching up to `concurrency` pages after the first at once.
pub async fn walk_pages<T, F, Fut>(what: &str, concurrency: usize, fetch: F) -> Result<Walk<T>, ApiError>
where
    F: Fn(Page) -> Fut,
    Fut: Future<Output = Result<Envelope<T>, ApiError>>,
{
    let mut walk = 1;
    loop {
        match walk_once(what, concurrency, &fetch).await {
            Ok(w) => return Ok(w),
            Err(Stop::Failed(e)) => return Err(e),
            Err(Stop::TotalMoved(detail)) if walk >= WALK_ATTEMPTS => {
                return Err(incomplete(what, format!("{detail}, in each of {WALK_ATTEMPTS} walks")));
            }
            Err(Stop::TotalMoved(_)) => {
                tokio::time::sleep(PAUSE_STEP * walk).await;
                walk += 1;
            }
        }
    }
}

async fn walk_once<T, F, Fut>(what: &str, concurrency: usize, fetch: &F) -> Result<Walk<T>, Stop>
where
    F: Fn(Page) -> Fut,
    Fut: Future<Output = Result<Envelope<T>, ApiError>>,
{
    let first_page = Page::first();
    let first = fetch(first_page).await?;
    let total = match first.paginacao.as_ref().and_then(|p| p.total) {
        Some(t) if t > 0 => t as u64,
        // No usable total: the page is the whole list only if it is not full.
        stated => {
            let n = first.itens.len();
            let said = stated.map_or("missing".to_string(), |t| t.to_string());
            if n >= first_page.limite as usize {
                let detail = format!(
                    "the first page is full ({n} records) but paginacao.total is {said}, so the list's \
                     length is unknown"
                );
                return Err(Stop::Failed(incomplete(what, detail)));
            }
            let mut warnings = Vec::new();
            if n > 0 || stated.is_none_or(|t| t < 0) {
                warnings.push(format!(
                    "{what}: paginacao.total is {said} but the only page holds {n} records; they were kept"
                ));
            }
            return Ok(Walk { total: n as u64, items: first.itens, fonte: first.fonte, pages: 1, warnings });
        }
    };
    let fonte = first.fonte.clone();
    // The first page is checked like the others; a short one is asked again from attempt 2.
    let mut warnings = Vec::new();
    let mut items = match accept_page(first, first_page, total, what, &mut warnings)? {
        Checked::Whole(items) => items,
        Checked::Short(_) => {
            let (items, again) = checked_page(fetch, first_page, total, what, 2).await?;
            warnings = again;
            items
        }
    };
    let rest = futures::stream::iter(remaining_offsets(total, first_page.limite))
        .map(|offset| checked_page(fetch, Page { limite: first_page.limite, offset }, total, what, 1))
        .buffered(concurrency.max(1));
    let mut rest = std::pin::pin!(rest);
    let mut pages = 1u32;
    // In order, stopping at the first bad page: dropping the stream cancels the pages after it.
    while let Some(page) = rest.next().await {
        let (page_items, page_warnings) = page?;
        items.extend(page_items);
        warnings.extend(page_warnings);
        pages += 1;
    }
    Ok(Walk { items, fonte, total, pages, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::Paginacao;

    fn env(items: Vec<u32>, total: i64) -> Envelope<u32> {
        Envelope {
            fonte: None,
            itens: items,
            paginacao: Some(Paginacao { limite: None, offset: None, total: Some(total) }),
        }
    }

    #[tokio::test]
    async fn walks_all_pages_in_order() {
        let data: Vec<u32> = (0..250).collect();
        let w = walk_pages("t", 4, |p: Page| {
            let d = data.clone();
            async move {
                let s = (p.offset as usize).min(d.len());
                let e = (s + p.limite as usize).min(d.len());
                Ok(env(d[s..e].to_vec(), 250))
            }
        })
        .await
        .unwrap();
        assert_eq!(w.items, data);
        assert_eq!(w.pages, 3);
        assert!(w.warnings.is_empty());
    }

    #[tokio::test]
    async fn total_zero_and_long_pages_are_warnings() {
        let w = walk_pages("t", 4, |_p: Page| async { Ok(env(vec![], 0)) }).await.unwrap();
        assert_eq!((w.items.len(), w.pages), (0, 1));
        // A first page longer than limite: the extra records are dropped, none duplicated.
        let w = walk_pages("t", 4, |p: Page| async move {
            let n = if p.offset == 0 { 150 } else { 250 - p.offset as u32 };
            Ok(env((0..n.min(150)).map(|i| i + p.offset as u32).collect(), 250))
        })
        .await
        .unwrap();
        assert_eq!(w.items, (0..250).collect::<Vec<u32>>());
        assert!(w.warnings.iter().any(|m| m.contains("held 150 records for limite 100")), "{:?}", w.warnings);
    }

    #[tokio::test]
    async fn without_a_usable_total_only_a_page_that_is_not_full_is_the_whole_list() {
        let page = |n: u32, total: Option<i64>| Envelope {
            fonte: None,
            itens: (0..n).collect::<Vec<u32>>(),
            paginacao: Some(Paginacao { limite: None, offset: None, total }),
        };
        for total in [None, Some(0), Some(-3)] {
            let w = walk_pages("t", 4, |_p: Page| async move { Ok(page(40, total)) }).await.unwrap();
            assert_eq!((w.items.len(), w.pages), (40, 1), "{total:?}");
            assert!(w.warnings.iter().any(|m| m.contains("only page holds 40")), "{:?}", w.warnings);
            let e = walk_pages("t", 4, |_p: Page| async move { Ok(page(100, total)) }).await.unwrap_err();
            assert!(e.to_string().contains("length is unknown"), "{total:?}: {e}");
        }
        let w = walk_pages("t", 4, |_p: Page| async { Ok(page(0, Some(0))) }).await.unwrap();
        assert!(w.items.is_empty() && w.warnings.is_empty(), "an empty list is no anomaly");
    }

    #[tokio::test]
    async fn a_short_page_is_asked_again_and_a_lasting_one_fails_the_walk() {
        use std::sync::atomic::{AtomicU32, Ordering};
        // The page at offset 100 is short twice, then whole: the list comes back complete.
        let asked = AtomicU32::new(0);
        let w = walk_pages("t", 4, |p: Page| {
            let short = p.offset == 100 && asked.fetch_add(1, Ordering::SeqCst) < 2;
            async move {
                let n = if short { 10 } else { 100.min(250 - p.offset as u32) };
                Ok(env((0..n).map(|i| i + p.offset as u32).collect(), 250))
            }
        })
        .await
        .unwrap();
        assert_eq!(w.items, (0..250).collect::<Vec<u32>>());
        assert_eq!(asked.load(Ordering::SeqCst), 3);

        // Empty itens with a non-zero total, every time: an error, not an empty list.
        let calls = AtomicU32::new(0);
        let e = walk_pages("t", 4, |_p: Page| {
            calls.fetch_add(1, Ordering::SeqCst);
            async { Ok(env(Vec::<u32>::new(), 500)) }
        })
        .await
        .unwrap_err();
        assert!(matches!(e, ApiError::IncompleteList { .. }) && e.is_retryable(), "{e}");
        assert!(e.to_string().contains("held 0 records where paginacao.total is 500"), "{e}");
        assert_eq!(calls.load(Ordering::SeqCst), PAGE_ATTEMPTS);
    }

    #[tokio::test]
    async fn a_moving_total_restarts_the_walk_then_fails_it() {
        use std::sync::atomic::{AtomicU32, Ordering};
        // The total moves once (a record added mid-walk); the second walk reads it whole.
        let walks = AtomicU32::new(0);
        let w = walk_pages("t", 1, |p: Page| {
            let walk = if p.offset == 0 {
                walks.fetch_add(1, Ordering::SeqCst)
            } else {
                walks.load(Ordering::SeqCst) - 1
            };
            let total = if walk == 0 && p.offset > 0 { 151 } else { 150 };
            async move {
                Ok(env((0..100.min(150 - p.offset as u32)).map(|i| i + p.offset as u32).collect(), total))
            }
        })
        .await
        .unwrap();
        assert_eq!(w.items, (0..150).collect::<Vec<u32>>());
        assert_eq!(walks.load(Ordering::SeqCst), 2);

        // A total that never holds still: an error naming both totals.
        let e = walk_pages("t", 4, |p: Page| async move {
            let total = if p.offset == 0 { 150 } else { 9999 };
            Ok(env((0..100).map(|i| i + p.offset as u32).collect(), total))
        })
        .await
        .unwrap_err();
        assert!(e.to_string().contains("changed from 150 to 9999"), "{e}");
        assert!(e.to_string().contains("3 walks"), "{e}");
    }

    #[test]
    fn page_arithmetic() {
        assert_eq!(remaining_offsets(250, 100).collect::<Vec<_>>(), vec![100, 200]);
        assert_eq!(remaining_offsets(100, 100).count(), 0);
        assert_eq!(pages_for(0, 100), 1);
        assert_eq!(pages_for(301, 100), 4);
    }
}
