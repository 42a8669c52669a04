//! Work that recurses deeply, run on a thread with a large stack: Polars plans and optimises a
//! long SQL file (a dozen unions of joins) recursively, and handlebars renders nested blocks and
//! partials recursively. A 2 MiB thread (a test's, a runtime worker's) is not enough for either
//! in a debug build; the main thread's 8 MiB only just is. The stack is reserved, not touched.

/// Stack of the thread `deep` runs its work on.
const DEEP_STACK_BYTES: usize = 256 << 20;

/// Runs `work` on a scoped thread with `DEEP_STACK_BYTES` of stack and returns its result (a
/// panic in it is resumed here).
pub(crate) fn deep<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| joined(spawn_deep(s, work)))
}

/// Starts `work` on a scoped thread with `DEEP_STACK_BYTES` of stack.
fn spawn_deep<'scope, T: Send + 'scope>(
    s: &'scope std::thread::Scope<'scope, '_>,
    work: impl FnOnce() -> T + Send + 'scope,
) -> std::thread::ScopedJoinHandle<'scope, T> {
    std::thread::Builder::new()
        .name("deep-stack".into())
        .stack_size(DEEP_STACK_BYTES)
        .spawn_scoped(s, work)
        .unwrap_or_else(|e| panic!("cannot start a thread for deeply recursive work: {e}"))
}

/// The thread's result, its panic resumed here.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Runs `work(i)` for every `i` below `n` on at most `threads` scoped threads of
/// `DEEP_STACK_BYTES` each, a thread taking the next `i` when it is done; the results in the
/// order of `i` (a panic in one is resumed here).
pub(crate) fn deep_each<T: Send>(n: usize, threads: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let take = || next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let run =
        || std::iter::from_fn(|| Some(take()).filter(|i| *i < n)).map(|i| (i, work(i))).collect::<Vec<_>>();
    let mut done: Vec<(usize, T)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.clamp(1, n.max(1))).map(|_| spawn_deep(s, run)).collect();
        handles.into_iter().flat_map(joined).collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}
