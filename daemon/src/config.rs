//! Daemon settings, read in one place so that `wit.toml` support plugs in here.

use std::path::Path;

use wit_core::protocol::DEFAULT_LOCK_TTL_MS;

/// Settings the daemon needs at run time.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    /// TTL of a lock when `lock.acquire` has no `ttlMs`.
    pub default_lock_ttl_ms: u64,
    /// How often expired locks are purged.
    pub purge_interval: std::time::Duration,
}

impl Config {
    /// The settings for the repository at `root`.
    // The repository root is where `wit.toml` will be read from.
    pub fn load(_root: &Path) -> Self {
        Self {
            default_lock_ttl_ms: DEFAULT_LOCK_TTL_MS,
            purge_interval: std::time::Duration::from_secs(30),
        }
    }
}
