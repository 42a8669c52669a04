//! Work that recurses deeply, run on a thread with a large stack: Polars plans and optimises a
//! long SQL file (a dozen unions of joins) recursively, and handlebars renders nested blocks and
//! partials recursively. A 2 MiB thread (a test's, a runtime worker's) is not enough for either
//! in a debug build; the main thread's 8 MiB only just is. The stack is reserved, not touched.

/// Stack of the thread `deep` runs its work on.
const DEEP_STACK_BYTES: usize = 256 << 20;

/// Runs `work` on a scoped thread with `DEEP_STACK_BYTES` of stack and returns its result (a
/// panic in it is resumed here).
pub fn deep<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("deep-stack".into())
            .stack_size(DEEP_STACK_BYTES)
            .spawn_scoped(s, work)
            .unwrap_or_else(|e| panic!("cannot start a thread for deeply recursive work: {e}"));
        handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}
