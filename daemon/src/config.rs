//! Daemon settings: `wit.toml` read once at start (`wit daemon restart` re-reads it).
//!
//! An invalid `wit.toml` never stops the daemon: the error (file:line:column: key: what)
//! is logged, the daemon serves with the defaults and **no plugins** (a file it could not
//! read says nothing trustworthy about which libraries to run), and the error is reported
//! by `daemon.status` and `analyzers.list`, hence by `wit status`, `wit daemon status` and
//! `wit analyzers`, until the file is fixed and the daemon restarted.

use std::path::{Path, PathBuf};

use wit_core::ConfigError;
use wit_core::config::FILE_NAME;

use crate::plugins::PluginsReport;

/// The state of `wit.toml` at start.
#[derive(Debug, Clone)]
pub(crate) struct ConfigFile {
    /// `<root>/wit.toml`.
    pub path: PathBuf,
    /// Whether it exists.
    pub present: bool,
    /// Why it was refused; the daemon then runs on the defaults.
    pub error: Option<String>,
    /// The structured error, when the text was parsed and refused.
    pub parse_error: Option<ConfigError>,
}

/// Settings the daemon needs at run time.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    /// TTL of a lock when `lock.acquire` has no `ttlMs` (`[locks] default_ttl`).
    pub default_lock_ttl_ms: u64,
    /// How often expired locks are purged.
    pub purge_interval: std::time::Duration,
    /// `wit.toml` as found at start.
    pub file: ConfigFile,
    /// The parsed file (defaults when absent or invalid).
    pub parsed: wit_core::Config,
    /// What became of the plugins it names (filled in once the registry is built).
    pub plugins: PluginsReport,
}

/// Highest `[analysis] max_file_bytes` honoured, trusted or not: 64 MiB (a syntax tree
/// costs about 47 bytes per source byte, on each of the analysis threads).
pub const MAX_FILE_BYTES_CEILING: u64 = 64 << 20;

/// The read cap the daemon uses for `asked` (`[analysis] max_file_bytes`). Lowering it is
/// always honoured; raising it above the default (1 MiB) only while `wit trust` pins this
/// `wit.toml` (`pinned`, asked only then): a cloned repository's `max_file_bytes =
/// 4000000000` would otherwise bring back the memory denial of service the cap exists
/// for. Never above [`MAX_FILE_BYTES_CEILING`].
pub(crate) fn read_cap(asked: u64, pinned: impl FnOnce() -> bool) -> u64 {
    let default = wit_core::config::DEFAULT_MAX_FILE_BYTES;
    if asked <= default {
        return asked;
    }
    if !pinned() {
        tracing::warn!(
            "wit.toml raises [analysis] max_file_bytes to {asked}, which a committed file \
             cannot decide alone: reading at most {default} bytes per file; `wit trust` this \
             repository (it pins wit.toml) to honour it"
        );
        return default;
    }
    if asked > MAX_FILE_BYTES_CEILING {
        tracing::warn!(
            "[analysis] max_file_bytes = {asked} is over the ceiling of \
             {MAX_FILE_BYTES_CEILING} bytes: reading at most that"
        );
        return MAX_FILE_BYTES_CEILING;
    }
    asked
}

/// Largest `wit.toml` read: far above any real configuration.
const CONFIG_LIMIT_BYTES: u64 = 1024 * 1024;

impl Config {
    /// Reads `<root>/wit.toml`; an absent file means the defaults, an invalid one the
    /// defaults plus a logged and reported error (module docs).
    pub fn load(root: &Path) -> Self {
        let path = root.join(FILE_NAME);
        // Through the boundary: a `wit.toml` that is a symlink out of the repository, a
        // FIFO or a huge file is refused (and reported), never followed or waited on.
        let read =
            wit_boundary::read_repo_file(root, FILE_NAME, CONFIG_LIMIT_BYTES).and_then(|bytes| {
                String::from_utf8(bytes).map_err(|_| wit_boundary::RepoFileError::Io {
                    path: FILE_NAME.into(),
                    source: std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8"),
                })
            });
        let (parsed, file) = match read {
            Ok(text) => match wit_core::Config::parse(&text, &path) {
                Ok(parsed) => (parsed, file_status(path, true, None)),
                Err(e) => {
                    tracing::error!(
                        "{e}; serving with the default settings and no analyzer plugins until it is fixed (then `wit daemon restart`)"
                    );
                    (
                        wit_core::Config::default(),
                        file_status(path, true, Some(e)),
                    )
                }
            },
            Err(e) if e.is_not_found() => {
                (wit_core::Config::default(), file_status(path, false, None))
            }
            Err(e) => {
                let error = format!("cannot read {e}");
                tracing::error!("{error}; serving with the default settings and no plugins");
                let mut file = file_status(path, true, None);
                file.error = Some(error);
                (wit_core::Config::default(), file)
            }
        };
        let mut parsed = parsed;
        parsed.analysis.max_file_bytes = read_cap(parsed.analysis.max_file_bytes, || {
            crate::trust::wit_toml_pinned(root)
        });
        // Stale sessions and idle claims are found by the purge task: it runs at least
        // twice per heartbeat timeout and per claim idle period (and every 30 s), so a dead
        // session is ended, and an idle claim ends, within 1.5 of its period.
        let period = parsed
            .sessions
            .heartbeat_timeout_ms
            .unwrap_or(u64::MAX)
            .min(parsed.claims.idle_ms);
        let purge_interval = std::time::Duration::from_millis((period / 2).clamp(100, 30_000));
        Self {
            default_lock_ttl_ms: parsed.locks.default_ttl_ms,
            purge_interval,
            file,
            parsed,
            plugins: PluginsReport::default(),
        }
    }
}

fn file_status(path: PathBuf, present: bool, error: Option<ConfigError>) -> ConfigFile {
    ConfigFile {
        path,
        present,
        error: error.as_ref().map(ToString::to_string),
        parse_error: error,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_a_pinned_wit_toml_raises_the_read_cap_and_never_past_the_ceiling() {
        let default = wit_core::config::DEFAULT_MAX_FILE_BYTES;
        let never = || panic!("trust asked for a value that needs none");
        assert_eq!(super::read_cap(1000, never), 1000);
        assert_eq!(super::read_cap(default, never), default);
        assert_eq!(super::read_cap(4_000_000_000, || false), default);
        assert_eq!(super::read_cap(4 << 20, || true), 4 << 20);
        assert_eq!(
            super::read_cap(4_000_000_000, || true),
            super::MAX_FILE_BYTES_CEILING
        );
    }

    use super::*;

    #[test]
    fn an_absent_file_means_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let c = Config::load(dir.path());
        assert!(!c.file.present);
        assert_eq!(c.file.error, None);
        assert_eq!(
            c.default_lock_ttl_ms,
            wit_core::protocol::DEFAULT_LOCK_TTL_MS
        );
    }

    #[test]
    fn the_default_ttl_comes_from_wit_toml() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("wit.toml"),
            "[locks]\ndefault_ttl = \"90s\"\n",
        )
        .unwrap();
        let c = Config::load(dir.path());
        assert!(c.file.present);
        assert_eq!(c.default_lock_ttl_ms, 90_000);
    }

    #[test]
    fn an_invalid_file_is_reported_with_file_line_and_key_and_means_defaults() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("wit.toml"),
            "[locks]\ndefault_tll = \"90s\"\n\n[[analyzers]]\npath = \"x.so\"\n",
        )
        .unwrap();
        let c = Config::load(dir.path());
        let error = c.file.error.clone().expect("an error");
        let expected = format!(
            "{}:2:1: locks.default_tll: ",
            dir.path().join("wit.toml").display()
        );
        assert!(error.starts_with(&expected), "{error}");
        let key = c.file.parse_error.as_ref().and_then(|e| e.key.as_deref());
        assert_eq!(key, Some("locks.default_tll"));
        assert_eq!(
            c.default_lock_ttl_ms,
            wit_core::protocol::DEFAULT_LOCK_TTL_MS
        );
        assert!(
            c.parsed.analyzers.is_empty(),
            "no plugins from an invalid file"
        );
    }
}
