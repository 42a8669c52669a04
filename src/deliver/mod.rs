//! The deliver stage, the last one: after the report is written, what the run made is sent to
//! the people who act on it. `webhook` posts the new and resolved alerts to a receiver's URL;
//! `mail` sends the report, its highlights and new alerts by e-mail, once per month. Both retry
//! as `retry` says.
//!
//! Each channel owns its retries and its checks of where it sends, and says only the scheme and
//! host of a destination, never a secret. What to send is decided by the earlier stages (the
//! alerts by `monitor`, the figures by `report`); this stage only carries it.

pub(crate) mod mail;
pub(crate) mod retry;
pub(crate) mod webhook;
