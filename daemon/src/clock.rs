//! The daemon's clock: wall time in Unix milliseconds, the unit of every stored time.
//!
//! Its own home, below everything that reads it (the store, the methods, the state), so
//! that none of them reaches up into another for the time.

/// Current time in Unix milliseconds.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
