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
pub(crate) fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// Resolves when a stop is asked for (at once if one already was). Installs the listener.
pub(crate) async fn wait_for_signal() {
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
    let mut signals = Signals::new();
    loop {
        signals.next().await;
        if REQUESTED.swap(true, Ordering::SeqCst) {
            crate::say!("second stop signal: stopping now");
            std::process::exit(crate::exit::ExitStatus::Interrupted as i32);
        }
        tracing::warn!("stop requested: stopping at the next safe point (a second Ctrl-C stops at once)");
        stop.send_replace(true);
    }
}

/// The stop signals, each listened to by one stream made once: a signal that lands while the
/// one before is being handled waits in its stream. (A listener made anew for each signal missed
/// a second Ctrl-C sent just after the first was named.)
struct Signals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    fn new() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Self {
                interrupt: signal(SignalKind::interrupt()).ok(),
                terminate: signal(SignalKind::terminate()).ok(),
            }
        }
        #[cfg(not(unix))]
        {
            Self {}
        }
    }

    /// The next Ctrl-C or SIGTERM.
    async fn next(&mut self) {
        #[cfg(unix)]
        {
            let interrupt = async {
                match self.interrupt.as_mut() {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            let terminate = async {
                match self.terminate.as_mut() {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = interrupt => {}
                _ = terminate => {}
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
