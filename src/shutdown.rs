//! Stopping on Ctrl-C or SIGTERM (what Kubernetes and systemd send), the same way in every
//! command. The first signal is a request: the fetch stops taking tasks, and the stages after it
//! stop at the next point where stopping loses nothing (`requested`, asked between steps: before
//! the store commit, between its tables, before the outputs). A second signal ends the process
//! at once with 130; the staging and the store are safe against that too (a half-written store
//! version is rolled back when the store is next opened).
//!
//! Until something waits for a signal the process keeps the default (a signal ends it): the
//! listener is installed by the first `wait_for_signal`, once the work it protects has begun.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::watch;

static REQUESTED: AtomicBool = AtomicBool::new(false);
static STOP: OnceLock<watch::Sender<bool>> = OnceLock::new();

/// Whether a stop was asked for (by a signal, since the listener was installed).
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// Resolves when a stop is asked for (at once if one already was). Installs the listener.
pub async fn wait_for_signal() {
    let mut stop = listener().subscribe();
    // An error means the sender is gone, which a static never is.
    let _ = stop.wait_for(|asked| *asked).await;
}

/// The process's one signal listener, started the first time it is needed.
fn listener() -> &'static watch::Sender<bool> {
    STOP.get_or_init(|| {
        let (tx, _) = watch::channel(false);
        tokio::spawn(listen(tx.clone()));
        tx
    })
}

async fn listen(stop: watch::Sender<bool>) {
    loop {
        next_signal().await;
        if REQUESTED.swap(true, Ordering::SeqCst) {
            crate::say!("second stop signal: stopping now");
            std::process::exit(crate::exit::ExitStatus::Interrupted as i32);
        }
        tracing::warn!("stop requested: stopping at the next safe point (a second Ctrl-C stops at once)");
        stop.send_replace(true);
    }
}

async fn next_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
