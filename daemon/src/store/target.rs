//! Which store a daemon uses, and how it is shown.
//!
//! SQLite (`.wit/state.db`, shared by the worktrees of one checkout) is the default. A
//! PostgreSQL store is named by a URL, which comes from the user — `WIT_STORE_URL` in the
//! daemon's environment — never from a committed file alone: a `wit.toml` that names a
//! store would let a hostile repository send your intents and staged signatures wherever
//! it likes, so its `[store] url` is honoured only once `wit trust` has pinned that file
//! (decided here; the trust check is the caller's). Credentials never leave this module
//! in anything shown: logs, `wit status` and `daemon.status` get [`shown`], the host and
//! database only.
//!
//! A **project key** says which repository's state a daemon shares, so that one database
//! serves many repositories: `[store] project` of `wit.toml`, else derived from the git
//! remote `origin` (scheme, credentials, port and a trailing `.git` dropped, lower-cased:
//! `git@github.com:acme/api.git` and `https://user:tok@github.com/Acme/api` are both
//! `github.com/acme/api`), else the checkout's path (without a remote, nothing says that
//! two checkouts are one repository).

/// Where a daemon keeps its state.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum StoreTarget {
    /// `.wit/state.db`.
    Sqlite,
    /// A PostgreSQL database.
    Postgres {
        /// The connection URL as given (may hold a password: never shown).
        url: String,
        /// The project whose state this daemon shares.
        project: String,
    },
}

impl std::fmt::Debug for StoreTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreTarget::Sqlite => f.write_str("Sqlite"),
            StoreTarget::Postgres { url, project } => f
                .debug_struct("Postgres")
                .field("at", &shown(url))
                .field("project", project)
                .finish(),
        }
    }
}

/// The environment variable naming a PostgreSQL store.
pub(crate) const URL_VAR: &str = "WIT_STORE_URL";

/// Which store the daemon of `root` uses: `WIT_STORE_URL`, else `[store] url` of the
/// user's own `~/.config/wit/config.toml` (`$XDG_CONFIG_HOME` respected), else `[store]
/// url` of the repository's `wit.toml` **if `wit trust` pinned that file** (the grant
/// pins `wit.toml`'s hash, so an edited file is stale and not honoured), else SQLite. An
/// untrusted `wit.toml` naming a store is logged with what to do. The project key is
/// `[store] project` of `wit.toml` **under the same trust** (a cloned repository naming
/// `github.com/acme/secret` would otherwise join that project's shared state with any
/// `wit` command), else derived from the `origin` remote, else the checkout's path.
pub(crate) fn resolve(
    root: &std::path::Path,
    main_root: &std::path::Path,
    config: &wit_core::Config,
    clone_id: &dyn Fn() -> Option<String>,
) -> StoreTarget {
    let file = &config.store;
    // Asked at most once, and only when wit.toml names something trust decides.
    let pinned = std::cell::OnceCell::new();
    let trusted = || *pinned.get_or_init(|| crate::trust::wit_toml_pinned(root));
    let url = std::env::var(URL_VAR)
        .ok()
        .filter(|u| !u.trim().is_empty())
        .or_else(user_config_url)
        .or_else(|| {
            let named = file.url.clone()?;
            if !trusted() {
                tracing::warn!(
                    "wit.toml names a PostgreSQL store ({}), which a committed file cannot \
                     decide alone: serving from .wit/state.db; `wit trust` this repository \
                     (it pins wit.toml), or set {URL_VAR} or [store] url in \
                     ~/.config/wit/config.toml",
                    wit_core::text::escape(&shown(&named))
                );
                return None;
            }
            Some(named)
        });
    let Some(url) = url else {
        return StoreTarget::Sqlite;
    };
    let explicit = file.project.as_deref().filter(|project| {
        let honoured = trusted();
        if !honoured {
            tracing::warn!(
                "wit.toml names the store project {:?}, which a committed file cannot decide \
                 alone (it would join that project's shared state): using the key derived \
                 from the origin remote or the path; `wit trust` this repository to honour it",
                wit_core::text::escape(project)
            );
        }
        honoured
    });
    let remote = wit_boundary::git::command(root)
        .args(["config", "--get", "remote.origin.url"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok());
    // Without a remote nothing says that two checkouts are one repository: each shares
    // only with itself (and its worktrees, which pass the main worktree's path), and the
    // clone's id keeps two machines' checkouts at one path (`/workspace`) apart (see
    // `crate::worktree::clone_id`).
    let fallback = match clone_id() {
        Some(id) => format!("{}#{id}", main_root.display()),
        None => main_root.display().to_string(),
    };
    StoreTarget::Postgres {
        url,
        project: project_key(explicit, remote.as_deref(), &fallback),
    }
}

/// `[store] url` of the user's own configuration file, if it names one. A file that is
/// not valid TOML is reported by its line and column only: the parser's own message
/// quotes the offending line, which may hold the store's password.
fn user_config_url() -> Option<String> {
    let dir = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".config"))
        })?;
    let path = dir.join("wit").join("config.toml");
    let text = std::fs::read_to_string(&path).ok()?;
    let value: toml::Table = match toml::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            let (line, column) = e.span().map_or((1, 1), |span| line_col(&text, span.start));
            tracing::warn!(
                "{}:{line}:{column}: not valid TOML; its [store] url is ignored",
                wit_core::text::escape(&path.display().to_string())
            );
            return None;
        }
    };
    value
        .get("store")?
        .get("url")?
        .as_str()
        .map(str::to_owned)
        .filter(|u| !u.trim().is_empty())
}

/// 1-based line and column (in characters) of a byte offset of `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

/// The host (and port) and database of a PostgreSQL URL or key-value connection string,
/// as the connection library parses it (never text cut from the URL, so a password
/// holding `?`, `/` or `@` cannot leak into what is shown): `db.internal:5432/wit`. A
/// URL that does not parse is shown as such, without any of its text.
pub fn shown(url: &str) -> String {
    use tokio_postgres::config::Host;
    let Ok(config) = url.trim().parse::<tokio_postgres::Config>() else {
        return "(a PostgreSQL URL that does not parse)".to_owned();
    };
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|h| match h {
            Host::Tcp(name) => name.clone(),
            Host::Unix(dir) => dir.display().to_string(),
        })
        .collect();
    let mut host = if hosts.is_empty() {
        "localhost".to_owned()
    } else {
        hosts.join(",")
    };
    // The port as parsed (a URL with a host names 5432 when it gives none).
    if let Some(port) = config.get_ports().first() {
        host.push_str(&format!(":{port}"));
    }
    format!("{host}/{}", config.get_dbname().unwrap_or(""))
}

/// The project key from `[store] project`, else the `origin` remote, else `fallback`
/// (the checkout's path).
pub(crate) fn project_key(explicit: Option<&str>, remote: Option<&str>, fallback: &str) -> String {
    if let Some(p) = explicit.map(str::trim).filter(|p| !p.is_empty()) {
        return p.to_owned();
    }
    if let Some(key) = remote.and_then(normalize_remote) {
        return key;
    }
    fallback.to_owned()
}

/// `host/path` of a git remote URL, without scheme, credentials, port, `.git`, case.
fn normalize_remote(remote: &str) -> Option<String> {
    let r = remote.trim();
    let rest = match r.split_once("://") {
        Some((_, rest)) => rest.to_owned(),
        // scp-like `git@host:path`.
        None => match r.split_once(':') {
            Some((host, path)) if !host.contains('/') => format!("{host}/{path}"),
            _ => return None,
        },
    };
    let rest = rest.rsplit_once('@').map_or(rest.as_str(), |(_, h)| h);
    let (host, path) = rest.split_once('/')?;
    let host = host.split(':').next().unwrap_or(host);
    let path = path.trim_end_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    if host.is_empty() || path.is_empty() {
        return None;
    }
    Some(format!("{host}/{path}").to_lowercase())
}

/// The PostgreSQL schema holding one project's tables: `wit_` and 16 hex digits of the
/// key's SHA-256 (any key, however long or odd, is a valid identifier).
pub(crate) fn schema_name(project: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(project.as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("wit_{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_never_shown() {
        for (url, expected) in [
            (
                "postgresql://wit:s3cret@db.internal:5432/wit",
                "db.internal:5432/wit",
            ),
            ("postgres://wit@db/wit?sslmode=require", "db:5432/wit"),
            ("postgresql://postgres@/wit?host=/tmp/pg", "/tmp/pg/wit"),
            (
                "host=/tmp/pg user=postgres password=hunter2 dbname=wit",
                "/tmp/pg/wit",
            ),
            ("host=db port=6432 dbname=wit password=x", "db:6432/wit"),
            // An unescaped `?` in the password: never a cut of the text.
            ("postgresql://wit:Pw4?secret@db/wit", "db:5432/wit"),
            ("postgresql://wit:x@db:6543", "db:6543/"),
        ] {
            let s = shown(url);
            assert_eq!(s, expected, "{url}");
            assert!(
                !s.contains("s3cret") && !s.contains("hunter2") && !s.contains("Pw4"),
                "{s}"
            );
            assert!(
                !format!(
                    "{:?}",
                    StoreTarget::Postgres {
                        url: url.into(),
                        project: "p".into()
                    }
                )
                .contains("s3cret")
            );
        }
    }

    #[test]
    fn every_spelling_of_one_remote_is_one_project() {
        for remote in [
            "git@github.com:acme/api.git",
            "https://github.com/acme/api.git",
            "https://user:token@github.com/Acme/API",
            "ssh://git@github.com:22/acme/api.git/",
        ] {
            assert_eq!(
                project_key(None, Some(remote), "x"),
                "github.com/acme/api",
                "{remote}"
            );
        }
        assert_eq!(
            project_key(Some(" billing "), Some("git@h:a/b"), "x"),
            "billing"
        );
        assert_eq!(project_key(None, None, "checkout"), "checkout");
        assert_eq!(
            project_key(None, Some("/srv/git/api.git"), "checkout"),
            "checkout"
        );
        assert_eq!(schema_name("github.com/acme/api").len(), "wit_".len() + 16);
        assert_ne!(schema_name("a"), schema_name("b"));
    }
}
