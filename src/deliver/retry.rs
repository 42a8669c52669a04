//! How every channel retries a delivery that failed: the same few tries, a short pause apart,
//! so a scheduled run says what went wrong within seconds instead of hanging on a dead server.

use std::time::Duration;

use backon::ConstantBuilder;

/// Tries of one delivery.
pub(crate) const ATTEMPTS: usize = 3;
/// The pause between two tries.
const PAUSE: Duration = Duration::from_millis(500);

/// The pauses between tries (backon, as the registry client's).
pub(crate) fn pauses() -> ConstantBuilder {
    ConstantBuilder::default().with_delay(PAUSE).with_max_times(ATTEMPTS - 1)
}
