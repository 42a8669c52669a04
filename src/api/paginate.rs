//! Walking a list operation to its end: the first page gives `paginacao.total`, the rest are
//! fetched concurrently.
//!
//! The walk always terminates: the pages are planned from the first total, never discovered
//! one after another, so a service whose total drifts or whose pages run short yields
//! warnings, not an endless loop. How one page is fetched (retries, throttling) is the
//! caller's closure; this module knows nothing of it.

use std::future::Future;

use futures::{StreamExt, TryStreamExt};

use super::error::ApiError;
use super::ids::Page;
use super::models::{Envelope, Fonte};

/// Everything a walk found.
#[derive(Debug, Clone)]
pub struct Walk<T> {
    pub items: Vec<T>,
    pub fonte: Option<Fonte>,
    /// `paginacao.total` of the first page.
    pub total: u64,
    pub pages: u32,
    /// Anomalies seen on the way, in words a person can act on.
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

fn accept_page<T>(
    env: Envelope<T>,
    page: Page,
    first_total: u64,
    what: &str,
    warnings: &mut Vec<String>,
) -> Vec<T> {
    let mut items = env.itens;
    let page_total = env.paginacao.as_ref().and_then(|p| p.total);
    if let Some(t) = page_total
        && t != first_total as i64
    {
        warnings.push(format!(
            "{what}: paginacao.total changed from {first_total} to {t} between pages (offset {}); \
             the list was read as it stood at the first page",
            page.offset
        ));
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
        warnings.push(format!(
            "{what}: the page at offset {} held {} records where {expected} were expected",
            page.offset,
            items.len()
        ));
    }
    items
}

/// Walks a list with `limite=100`, fetching up to `concurrency` pages after the first at once.
pub async fn walk_pages<T, F, Fut>(what: &str, concurrency: usize, fetch: F) -> Result<Walk<T>, ApiError>
where
    F: Fn(Page) -> Fut,
    Fut: Future<Output = Result<Envelope<T>, ApiError>>,
{
    let first_page = Page::first();
    let first = fetch(first_page).await?;
    let fonte = first.fonte.clone();
    let mut warnings = Vec::new();
    let total = match first.paginacao.as_ref().and_then(|p| p.total) {
        Some(t) if t >= 0 => t as u64,
        Some(t) => {
            warnings.push(format!("{what}: paginacao.total is negative ({t}); read as 0"));
            0
        }
        None => {
            warnings.push(format!("{what}: the first page has no paginacao.total; only that page was read"));
            first.itens.len() as u64
        }
    };
    if total == 0 && !first.itens.is_empty() {
        warnings.push(format!(
            "{what}: paginacao.total is 0 but the page holds {} records; they were kept",
            first.itens.len()
        ));
        return Ok(Walk { total: first.itens.len() as u64, items: first.itens, fonte, pages: 1, warnings });
    }
    let short_first = (first.itens.len() as u64) < total.min(u64::from(first_page.limite));
    let mut items = accept_page(first, first_page, total, what, &mut warnings);
    if short_first {
        // A short first page means the service has no more to give, whatever total says.
        return Ok(Walk { items, fonte, total, pages: 1, warnings });
    }
    let rest: Vec<(Page, Envelope<T>)> = futures::stream::iter(remaining_offsets(total, first_page.limite))
        .map(|offset| {
            let page = Page { limite: first_page.limite, offset };
            let fut = fetch(page);
            async move { fut.await.map(|env| (page, env)) }
        })
        .buffered(concurrency.max(1))
        .try_collect()
        .await?;
    let pages = 1 + rest.len() as u32;
    for (page, env) in rest {
        items.extend(accept_page(env, page, total, what, &mut warnings));
    }
    Ok(Walk { items, fonte, total, pages, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::models::Paginacao;

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
    async fn total_zero_and_drift_and_long_pages() {
        let w = walk_pages("t", 4, |_p: Page| async { Ok(env(vec![], 0)) }).await.unwrap();
        assert_eq!((w.items.len(), w.pages), (0, 1));

        // The total grows after the first page: a warning, and the walk still ends.
        let w = walk_pages("t", 4, |p: Page| async move {
            let total = if p.offset == 0 { 150 } else { 9999 };
            Ok(env((0..100).map(|i| i + p.offset as u32).collect(), total))
        })
        .await
        .unwrap();
        assert_eq!(w.pages, 2);
        assert!(w.warnings.iter().any(|m| m.contains("from 150 to 9999")), "{:?}", w.warnings);
        assert!(w.warnings.iter().any(|m| m.contains("held 100 records for limite")) || w.items.len() == 200);

        // Empty itens with a non-zero total: stops after the first page, says so.
        let w = walk_pages("t", 4, |_p: Page| async { Ok(env(vec![], 500)) }).await.unwrap();
        assert_eq!(w.pages, 1);
        assert!(w.warnings.iter().any(|m| m.contains("held 0 records where 100")), "{:?}", w.warnings);
    }

    #[test]
    fn page_arithmetic() {
        assert_eq!(remaining_offsets(250, 100).collect::<Vec<_>>(), vec![100, 200]);
        assert_eq!(remaining_offsets(100, 100).count(), 0);
        assert_eq!(pages_for(0, 100), 1);
        assert_eq!(pages_for(301, 100), 4);
    }
}
