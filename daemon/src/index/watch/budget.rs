//! How many directories the watcher may watch: a cap on the inotify watches one daemon
//! uses, since they come out of the user's own allowance
//! (`/proc/sys/fs/inotify/max_user_watches`), shared with every editor, build watcher and
//! other daemon the user runs. Several worktrees of a large repository, a daemon each,
//! would otherwise take them all.
//!
//! The cap is the environment's `WIT_MAX_WATCHES` when set (a whole number; `0` watches
//! nothing, so every directory is polled), else a sixteenth of the user's allowance,
//! between [`MIN_DEFAULT`] and [`MAX_DEFAULT`] ([`FALLBACK`] where the allowance cannot be
//! read): eight daemons then take half of it at most. It is the environment's and not
//! `wit.toml`'s on purpose: the watches are the user's, and a repository (untrusted
//! input) does not decide how many of them it takes.

/// The environment variable that sets the cap.
pub(crate) const ENV: &str = "WIT_MAX_WATCHES";
/// Fewest watches the default gives (a small allowance still watches a small repository).
const MIN_DEFAULT: usize = 256;
/// Most watches the default gives.
const MAX_DEFAULT: usize = 65_536;
/// The default where the allowance cannot be read (other systems, no `/proc`).
const FALLBACK: usize = 8_192;

/// The cap, and where it comes from (for `daemon.status`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Budget {
    /// Most directories watched.
    pub(crate) cap: usize,
    /// `"WIT_MAX_WATCHES"`, or how the default was found.
    pub(crate) source: String,
}

impl Budget {
    /// The cap for this process (see the module docs); an unreadable `WIT_MAX_WATCHES` is
    /// logged and the default applies.
    pub(crate) fn from_env() -> Self {
        Self::decide(
            std::env::var(ENV).ok().as_deref(),
            std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches").ok(),
        )
    }

    fn decide(env: Option<&str>, allowance: Option<String>) -> Self {
        if let Some(value) = env {
            match value.trim().parse::<usize>() {
                Ok(cap) => {
                    return Budget {
                        cap,
                        source: ENV.into(),
                    };
                }
                Err(_) => tracing::warn!(
                    "{ENV}={} is not a whole number: the default cap applies",
                    wit_core::text::escape(value)
                ),
            }
        }
        match allowance.and_then(|a| a.trim().parse::<usize>().ok()) {
            Some(max) => Budget {
                cap: (max / 16).clamp(MIN_DEFAULT, MAX_DEFAULT),
                source: format!("default: a sixteenth of max_user_watches ({max})"),
            },
            None => Budget {
                cap: FALLBACK,
                source: "default".into(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_is_the_environments_else_a_sixteenth_of_the_allowance_within_bounds() {
        let b = |env: Option<&str>, max: Option<&str>| Budget::decide(env, max.map(String::from));
        assert_eq!(b(Some("12"), Some("8192\n")).cap, 12);
        assert_eq!(b(Some("0"), None).cap, 0);
        assert_eq!(b(Some("lots"), Some("8192\n")).cap, 512);
        assert_eq!(b(None, Some("192540\n")).cap, 12_033);
        assert_eq!(b(None, Some("1024")).cap, MIN_DEFAULT);
        assert_eq!(b(None, Some("1048576")).cap, MAX_DEFAULT);
        assert_eq!(b(None, None).cap, FALLBACK);
        assert_eq!(b(Some("12"), None).source, ENV);
    }
}
