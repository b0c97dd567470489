//! The alarm of the lock expiry timer (`crate::purge`): the timer plans its wake-up on
//! the earliest lock expiry it read, and a lock taken or renewed rings the alarm only when
//! it expires sooner than that. So the everyday `lock.acquire` costs the timer nothing (no
//! wake-up, no read of the next expiry) unless it really moves the next expiry earlier.

use std::sync::atomic::{AtomicI64, Ordering};

use tokio::sync::Notify;

/// See the module documentation.
pub(crate) struct ExpiryAlarm {
    ring: Notify,
    /// The expiry (store clock, Unix ms) the timer will wake for; `i64::MAX` when it waits
    /// for none (only its interval) or has not planned yet: every lock rings then.
    planned: AtomicI64,
}

impl Default for ExpiryAlarm {
    fn default() -> Self {
        Self {
            ring: Notify::new(),
            planned: AtomicI64::new(i64::MAX),
        }
    }
}

impl ExpiryAlarm {
    /// A lock now expires at `expires_at`: wakes the timer when that is before its plan.
    pub(crate) fn lock_expires_at(&self, expires_at: i64) {
        if expires_at < self.planned.load(Ordering::Acquire) {
            self.ring.notify_one();
        }
    }

    /// The timer's plan: it wakes for `at` (`None`: for no lock). Set before it sleeps; a
    /// lock taken between its read of the next expiry and this still rang (the plan was
    /// older and later), and `Notify` keeps that one ring for the wait.
    pub(crate) fn plan(&self, at: Option<i64>) {
        self.planned
            .store(at.unwrap_or(i64::MAX), Ordering::Release);
    }

    /// Waits for a ring.
    pub(crate) async fn rung(&self) {
        self.ring.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_a_sooner_expiry_rings() {
        let alarm = ExpiryAlarm::default();
        alarm.lock_expires_at(5_000); // before any plan: rings
        tokio::time::timeout(std::time::Duration::from_secs(5), alarm.rung())
            .await
            .expect("rung");
        alarm.plan(Some(1_000));
        alarm.lock_expires_at(2_000);
        let later = tokio::time::timeout(std::time::Duration::from_millis(50), alarm.rung()).await;
        assert!(later.is_err(), "a later expiry does not ring");
        alarm.lock_expires_at(500);
        tokio::time::timeout(std::time::Duration::from_secs(5), alarm.rung())
            .await
            .expect("a sooner one does");
        alarm.plan(None);
        alarm.lock_expires_at(i64::MAX - 1);
        tokio::time::timeout(std::time::Duration::from_secs(5), alarm.rung())
            .await
            .expect("with no lock planned, any lock rings");
    }
}
