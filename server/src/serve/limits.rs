//! Rate limits: one token bucket per principal and tool class (read / write),
//! with `governor`. Exceeding it is 429 `RATE_LIMITED` with `Retry-After`.
//!
//! With a shared store (PostgreSQL) the buckets are rows in the database
//! ([`super::store::Store::take_token`], bucket `read:PRINCIPAL` or
//! `write:PRINCIPAL`), so several processes enforce one limit; otherwise
//! they live in the process.
//!
//! Deliberately not done: limits on the document routes (they are cheap and
//! cached; a proxy can limit by address).

use super::AppState;
use super::error::ApiError;
use super::store::Bucket;
use axum::http::StatusCode;
use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use std::num::NonZeroU32;

type Keyed = RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock>;

/// The two bucket sets.
pub struct Limits {
    read: Keyed,
    write: Keyed,
    clock: DefaultClock,
}

fn quota(per_minute: u32, burst: u32) -> Quota {
    let per = NonZeroU32::new(per_minute.max(1)).unwrap_or(NonZeroU32::MIN);
    let burst = NonZeroU32::new(burst.max(1)).unwrap_or(NonZeroU32::MIN);
    Quota::per_minute(per).allow_burst(burst)
}

impl Limits {
    /// Buckets of `(per minute, burst)` for reads and writes.
    pub fn new(read: (u32, u32), write: (u32, u32)) -> Limits {
        Limits {
            read: RateLimiter::keyed(quota(read.0, read.1)),
            write: RateLimiter::keyed(quota(write.0, write.1)),
            clock: DefaultClock::default(),
        }
    }

    /// Forget principals whose buckets are full again (bounded memory).
    pub fn retain_recent(&self) {
        self.read.retain_recent();
        self.write.retain_recent();
    }

    /// Take one token for `principal` in the class, or 429.
    pub fn check(&self, principal: &str, read: bool) -> Result<(), ApiError> {
        let limiter = if read { &self.read } else { &self.write };
        let key = principal.to_string();
        match limiter.check_key(&key) {
            Ok(()) => Ok(()),
            Err(not_until) => {
                let wait = not_until.wait_time_from(self.clock.now());
                Err(limited(
                    read,
                    wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
                ))
            }
        }
    }
}

fn limited(read: bool, secs: u64) -> ApiError {
    let mut e = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "RATE_LIMITED",
        format!(
            "Too many {} calls; retry in {} s.",
            if read { "read" } else { "write" },
            secs.max(1)
        ),
    );
    e.retry_after = Some(secs.max(1));
    e
}

/// Take one token for `principal` in the class: from the shared store's
/// bucket when there is one, else from the process's [`Limits`].
pub(crate) async fn take(
    s: &AppState,
    live: &super::Live,
    principal: &str,
    read: bool,
) -> Result<(), ApiError> {
    let store = s.store();
    if !store.shared() {
        return live.limits.check(principal, read);
    }
    let (per_minute, burst) = if read {
        live.settings.read_limit
    } else {
        live.settings.write_limit
    };
    let bucket = format!("{}:{principal}", if read { "read" } else { "write" });
    match super::calls::blocking(move || store.take_token(&bucket, per_minute, burst)).await? {
        Bucket::Taken => Ok(()),
        Bucket::Empty(ms) => Err(limited(read, ms.div_ceil(1000))),
    }
}
