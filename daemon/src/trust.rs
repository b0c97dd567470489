//! Workspace trust: plugins load only for a repository the user has trusted.
//!
//! A `wit.toml` naming a shared library means running that library's code inside the
//! daemon, and the daemon starts by itself on any `wit` command. So the grant (`wit trust`)
//! is stored outside the repository, where a checked-out repository cannot forge it:
//! `$XDG_CONFIG_HOME/wit/trust.json`, else `$HOME/.config/wit/trust.json`. A grant is keyed
//! by the canonical repository root and pinned by the SHA-256 of `wit.toml` and of each
//! library it names; when any of them changes (an edit, a rebuild, a `git pull`) the grant
//! is *stale* and nothing loads until the user trusts again.
//!
//! A library is read **once**, through [`wit_boundary::library`]: the bytes that are hashed
//! and compared with the grant are the bytes the daemon loads (from a sealed in-memory
//! copy), so a file swapped on disk at any moment makes the grant stale and never runs
//! code that was not trusted. A library whose ELF dependencies are not pinned and not the
//! system's (`RUNPATH $ORIGIN`, `DT_NEEDED libdep.so` beside it) cannot be trusted at all:
//! [`TrustStore::plan`] refuses it. Its system dependencies (`libc.so.6`, …) are listed but
//! not pinned: they are root's (see the boundary's module docs).
//!
//! A library that does not exist yet (not built) can be trusted: it is pinned as `absent`,
//! so it fails to load as "file not found" and, once it appears, the grant is stale until
//! the user has seen its hash with `wit trust`. `wit.toml` itself must exist.
//!
//! A `[[languages]]` entry is trusted the same way: its grammar is a library (listed after
//! the plugins, read, pinned and loaded exactly like one), and its query files are pinned
//! by hash too, read once beneath the root when trust is checked; the analyzer is compiled
//! from those bytes. A query file cannot run code, but it decides what wit reports as a
//! symbol, so a changed one is a change the user should see before it takes effect.
//!
//! The file is JSON, written atomically (temporary file + rename) with mode 0600:
//! `{"version": 1, "repos": {"/abs/root": {"grantedAtMs": …, "files": {"/abs/root/wit.toml":
//! "<sha256 hex>", "/abs/lib.so": "<sha256 hex>" | "absent"}}}}`.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use wit_boundary::RepoFileError;
use wit_boundary::library::{self, LibraryError, LibraryFile, SystemLibrary};
use wit_core::Config;
use wit_core::config::{FILE_NAME, resolve_path};

/// The most `wit.toml` may weigh: a configuration file, not a data file.
pub const MAX_WIT_TOML_SIZE: u64 = 1024 * 1024;

/// The most one query file may weigh (the largest `tags.scm` of tree-sitter's grammars is
/// a few KiB).
pub const MAX_QUERY_FILE_SIZE: u64 = 1024 * 1024;

/// Why the trust store could not be read or written, or a plan made.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// Neither `XDG_CONFIG_HOME` nor `HOME` is set to an absolute path.
    #[error(
        "cannot locate the trust store: neither XDG_CONFIG_HOME nor HOME is set to an absolute path"
    )]
    NoConfigDir,
    /// A file could not be read (the store, `wit.toml`, a library to hash).
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `wit.toml` could not be read (missing, refused by the file-system boundary).
    #[error("cannot read {}: {source}", path.display())]
    ReadConfig {
        /// `wit.toml`'s path.
        path: PathBuf,
        /// Why.
        source: RepoFileError,
    },
    /// Files that cannot be trusted, whatever the user says: a library or query file that
    /// is not a regular file, too large or a symlink, or a library depending on code that
    /// would not be pinned.
    #[error("not trusting {}", refusals.iter().map(|(p, e)| format!("{}: {e}", p.display())).collect::<Vec<_>>().join("; "))]
    Refused {
        /// Each refused library and why.
        refusals: Vec<(PathBuf, String)>,
    },
    /// The store exists but is not a trust file this wit understands.
    #[error("the trust store {} is corrupt: {message}", path.display())]
    Corrupt {
        /// The store's path.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The store could not be written.
    #[error("cannot write the trust store {}: {source}", path.display())]
    Write {
        /// The store's path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Whether a repository's plugins may load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustStatus {
    /// Granted, and `wit.toml` and every library still hash as granted.
    Trusted,
    /// Never granted (or revoked).
    Untrusted,
    /// Granted, but these files changed (or appeared, or vanished) since.
    Stale {
        /// The changed files, absolute.
        changed: Vec<PathBuf>,
    },
}

/// One file a grant pins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinnedFile {
    /// Absolute (canonical) path.
    pub path: PathBuf,
    /// SHA-256 of its content, lowercase hex; `None` for a library that does not exist
    /// (pinned as absent: it goes stale when it appears).
    pub sha256: Option<String>,
    /// The size of the bytes hashed (`None` when absent).
    pub size: Option<u64>,
    /// Who else could replace the file (see [`LibraryFile::warnings`]).
    pub warnings: Vec<String>,
    /// The system libraries a library depends on: **not pinned** (root's).
    pub system_libraries: Vec<SystemLibrary>,
}

/// What became of one library when trust was checked: read (and hashed) once, so that the
/// loader loads the very bytes that were compared with the grant.
#[derive(Debug)]
pub enum LibraryState {
    /// Read and hashed: the bytes to load.
    Read(Box<LibraryFile>),
    /// Opened and checked but not read: the repository has no grant to compare with.
    Unread,
    /// Not found, or refused by the file-system boundary (never loadable as it is).
    Refused(LibraryError),
}

/// One query file of a `[[languages]]` entry as trust found it.
#[derive(Debug)]
pub struct CheckedQuery {
    /// The path as written in `wit.toml` (relative to the root).
    pub configured: PathBuf,
    /// The bytes read (and hashed) beneath the root, or why they could not be: compile
    /// these, never the file again.
    pub bytes: Result<Vec<u8>, RepoFileError>,
}

/// One library (`[[analyzers]]` path or `[[languages]]` grammar) as trust found it.
#[derive(Debug)]
pub struct CheckedLibrary {
    /// The path as resolved from `wit.toml` (root joined with a relative path).
    pub path: PathBuf,
    /// Read, unread or refused.
    pub state: LibraryState,
    /// The hash the grant pins for it (`None`: no grant, or pinned as absent).
    pub trusted_sha256: Option<String>,
}

/// The verdict on a repository's plugins, with the libraries as read for it: load exactly
/// these ([`crate::plugins::load`]).
#[derive(Debug)]
pub struct TrustCheck {
    /// Trusted, untrusted or stale.
    pub status: TrustStatus,
    /// One per library, in [`Config::libraries`] order (plugins, then grammars).
    pub libraries: Vec<CheckedLibrary>,
    /// Per `[[languages]]` entry, its query files in order; empty lists when the
    /// repository is not trusted (nothing is read that would not be used).
    pub queries: Vec<Vec<CheckedQuery>>,
}

/// A query file, read beneath the root like every repository file.
fn read_query(root: &Path, configured: &Path) -> Result<Vec<u8>, RepoFileError> {
    wit_boundary::read_repo_file(root, &configured.to_string_lossy(), MAX_QUERY_FILE_SIZE)
}

/// Every query file of `config`, read, per language.
fn read_queries(root: &Path, config: &Config) -> Vec<Vec<CheckedQuery>> {
    config
        .languages
        .iter()
        .map(|l| {
            l.queries
                .iter()
                .map(|q| CheckedQuery {
                    configured: q.clone(),
                    bytes: read_query(root, q),
                })
                .collect()
        })
        .collect()
}

impl TrustCheck {
    /// Reads every library and declares the repository trusted with their current hashes:
    /// for tests of the loader, which has no trust store.
    #[cfg(test)]
    pub(crate) fn assume_trusted(root: &Path, config: &Config) -> Self {
        let libraries = config
            .libraries()
            .into_iter()
            .map(|a| {
                let path = resolve_path(root, a);
                let (state, trusted_sha256) = match LibraryFile::read(root, a) {
                    Ok(f) => {
                        let hash = f.sha256().to_owned();
                        (LibraryState::Read(Box::new(f)), Some(hash))
                    }
                    Err(e) => (LibraryState::Refused(e), None),
                };
                CheckedLibrary {
                    path,
                    state,
                    trusted_sha256,
                }
            })
            .collect();
        TrustCheck {
            status: TrustStatus::Trusted,
            libraries,
            queries: read_queries(root, config),
        }
    }

    /// The libraries of `config`, examined but not read, with `status` (not trusted).
    pub fn not_trusted(root: &Path, config: &Config, status: TrustStatus) -> Self {
        let libraries = config
            .libraries()
            .into_iter()
            .map(|a| CheckedLibrary {
                path: resolve_path(root, a),
                state: match library::examine(root, a) {
                    Ok(()) => LibraryState::Unread,
                    Err(e) => LibraryState::Refused(e),
                },
                trusted_sha256: None,
            })
            .collect();
        let queries = config.languages.iter().map(|_| Vec::new()).collect();
        TrustCheck {
            status,
            libraries,
            queries,
        }
    }
}

/// Whether the user's trust store pins the `wit.toml` of `root` as it is now (see
/// [`TrustStore::pins_wit_toml`]); `false` when the store cannot be read.
pub(crate) fn wit_toml_pinned(root: &Path) -> bool {
    TrustStore::load().is_ok_and(|t| t.pins_wit_toml(root))
}

/// How an absent library is recorded in the store.
const ABSENT: &str = "absent";

/// What `wit trust` would grant for a repository: show it to the user, then [`TrustStore::grant`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustPlan {
    /// The canonical repository root.
    pub root: PathBuf,
    /// `wit.toml` first, then each library in [`Config::libraries`] order, then each query
    /// file of each `[[languages]]` entry.
    pub files: Vec<PinnedFile>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TrustFile {
    version: u32,
    repos: BTreeMap<String, Grant>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Grant {
    granted_at_ms: u64,
    files: BTreeMap<String, String>,
}

const STORE_VERSION: u32 = 1;

/// The user's trust grants.
#[derive(Debug)]
pub struct TrustStore {
    path: PathBuf,
    data: TrustFile,
}

impl TrustStore {
    /// `$XDG_CONFIG_HOME/wit/trust.json`, else `$HOME/.config/wit/trust.json` (relative
    /// values are ignored, as the XDG spec says).
    pub fn default_path() -> Result<PathBuf, TrustError> {
        default_path_from(
            std::env::var_os("XDG_CONFIG_HOME"),
            std::env::var_os("HOME"),
        )
    }

    /// Loads the store at [`TrustStore::default_path`]; a missing file is an empty store.
    pub fn load() -> Result<Self, TrustError> {
        Self::load_from(Self::default_path()?)
    }

    /// Loads the store at `path`; a missing file is an empty store.
    pub fn load_from(path: impl Into<PathBuf>) -> Result<Self, TrustError> {
        let path = path.into();
        let data = read_store(&path)?;
        Ok(Self { path, data })
    }

    /// Where this store lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Hashes `wit.toml` and each library `config` names, for the repository at `root`,
    /// and checks each library's dependencies.
    ///
    /// # Errors
    /// [`TrustError::Read`] when the root cannot be resolved, [`TrustError::ReadConfig`]
    /// when `wit.toml` cannot be read, [`TrustError::Refused`] (naming every refused
    /// library) when a library exists but cannot be trusted. A library that does not exist
    /// is pinned as absent.
    pub fn plan(&self, root: &Path, config: &Config) -> Result<TrustPlan, TrustError> {
        let root = fs::canonicalize(root).map_err(|source| TrustError::Read {
            path: root.to_owned(),
            source,
        })?;
        let toml = read_wit_toml(&root)?;
        let mut files = vec![PinnedFile {
            path: root.join(FILE_NAME),
            sha256: Some(sha256_hex(&toml)),
            size: Some(toml.len() as u64),
            warnings: Vec::new(),
            system_libraries: Vec::new(),
        }];
        let mut refusals = Vec::new();
        for configured in config.libraries() {
            let path = pinned_path(&resolve_path(&root, configured));
            let file = match LibraryFile::read(&root, configured) {
                Ok(file) => file,
                Err(e) if e.is_not_found() => {
                    files.push(PinnedFile {
                        path,
                        sha256: None,
                        size: None,
                        warnings: Vec::new(),
                        system_libraries: Vec::new(),
                    });
                    continue;
                }
                Err(e) => {
                    refusals.push((path, e.to_string()));
                    continue;
                }
            };
            match file.dependencies() {
                Ok(system_libraries) => files.push(PinnedFile {
                    path,
                    sha256: Some(file.sha256().to_owned()),
                    size: Some(file.size()),
                    warnings: file.warnings().to_vec(),
                    system_libraries,
                }),
                Err(e) => refusals.push((path, e.to_string())),
            }
        }
        for configured in config.languages.iter().flat_map(|l| &l.queries) {
            let path = pinned_path(&root.join(configured));
            match read_query(&root, configured) {
                // What would harm the daemon compiling it (nesting that overflows the
                // parser's stack) is refused now, not found at every start.
                Ok(bytes) => match std::str::from_utf8(&bytes)
                    .map_err(|_| "not UTF-8".to_owned())
                    .and_then(|text| {
                        wit_analyzers::check_query_text(text).map_err(|e| {
                            format!("line {}, column {}: {}", e.row + 1, e.column + 1, e.message)
                        })
                    }) {
                    Err(why) => {
                        refusals.push((path, format!("a query wit would not compile: {why}")))
                    }
                    Ok(()) => files.push(PinnedFile {
                        path,
                        sha256: Some(sha256_hex(&bytes)),
                        size: Some(bytes.len() as u64),
                        warnings: Vec::new(),
                        system_libraries: Vec::new(),
                    }),
                },
                Err(e) if e.is_not_found() => files.push(PinnedFile {
                    path,
                    sha256: None,
                    size: None,
                    warnings: Vec::new(),
                    system_libraries: Vec::new(),
                }),
                Err(e) => refusals.push((path, e.to_string())),
            }
        }
        if !refusals.is_empty() {
            return Err(TrustError::Refused { refusals });
        }
        Ok(TrustPlan { root, files })
    }

    /// Records `plan` as trusted (replacing any earlier grant for its root) and saves.
    pub fn grant(&mut self, plan: &TrustPlan) -> Result<(), TrustError> {
        let grant = Grant {
            granted_at_ms: now_ms(),
            files: plan
                .files
                .iter()
                .map(|f| {
                    let hash = f.sha256.clone().unwrap_or_else(|| ABSENT.to_owned());
                    (key(&f.path), hash)
                })
                .collect(),
        };
        self.update(|data| {
            data.repos.insert(key(&plan.root), grant);
        })
    }

    /// Removes the grant for `root`; returns whether there was one.
    pub fn revoke(&mut self, root: &Path) -> Result<bool, TrustError> {
        let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_owned());
        let mut removed = false;
        self.update(|data| removed = data.repos.remove(&key(&root)).is_some())?;
        Ok(removed)
    }

    /// Whether the grant of the repository at `root` pins its `wit.toml` as it is on disk
    /// now: what decides whether the settings a committed file cannot decide alone
    /// (`[store] url`, `[store] project`, a raised `[analysis] max_file_bytes`) are
    /// honoured. Libraries are not read.
    pub fn pins_wit_toml(&self, root: &Path) -> bool {
        let Ok(root) = fs::canonicalize(root) else {
            return false;
        };
        let Some(grant) = self.data.repos.get(&key(&root)) else {
            return false;
        };
        let now = read_wit_toml(&root).ok().map(|t| sha256_hex(&t));
        now.is_some() && grant.files.get(&key(&root.join(FILE_NAME))) == now.as_ref()
    }

    /// Whether the plugins `config` names may load for the repository at `root`, given
    /// the files on disk now.
    pub fn check(&self, root: &Path, config: &Config) -> TrustStatus {
        self.check_and_read(root, config).status
    }

    /// [`TrustStore::check`], keeping the libraries as read: each is read once, its hash
    /// compared with the grant, and those bytes (not the path) are what the loader loads.
    pub fn check_and_read(&self, root: &Path, config: &Config) -> TrustCheck {
        let Ok(root) = fs::canonicalize(root) else {
            return TrustCheck::not_trusted(root, config, TrustStatus::Untrusted);
        };
        let Some(grant) = self.data.repos.get(&key(&root)) else {
            return TrustCheck::not_trusted(&root, config, TrustStatus::Untrusted);
        };
        let mut changed = Vec::new();
        let toml_path = root.join(FILE_NAME);
        let toml_hash = read_wit_toml(&root).ok().map(|t| sha256_hex(&t));
        // Unreadable: cannot be vouched for.
        if toml_hash.is_none() || grant.files.get(&key(&toml_path)) != toml_hash.as_ref() {
            changed.push(toml_path);
        }
        let mut libraries = Vec::new();
        for configured in config.libraries() {
            let path = resolve_path(&root, configured);
            let pinned = pinned_path(&path);
            let granted = grant.files.get(&key(&pinned));
            let (state, now) = match LibraryFile::read(&root, configured) {
                Ok(file) => {
                    let now = file.sha256().to_owned();
                    (LibraryState::Read(Box::new(file)), Some(now))
                }
                Err(e) if e.is_not_found() => (LibraryState::Refused(e), Some(ABSENT.to_owned())),
                Err(e) => (LibraryState::Refused(e), None),
            };
            if now.is_none() || granted != now.as_ref() {
                changed.push(pinned);
            }
            libraries.push(CheckedLibrary {
                path,
                state,
                trusted_sha256: granted.filter(|h| h.as_str() != ABSENT).cloned(),
            });
        }
        let queries = read_queries(&root, config);
        for query in queries.iter().flatten() {
            let pinned = pinned_path(&root.join(&query.configured));
            let now = match &query.bytes {
                Ok(bytes) => Some(sha256_hex(bytes)),
                Err(e) if e.is_not_found() => Some(ABSENT.to_owned()),
                Err(_) => None,
            };
            if now.is_none() || grant.files.get(&key(&pinned)) != now.as_ref() {
                changed.push(pinned);
            }
        }
        let status = if changed.is_empty() {
            TrustStatus::Trusted
        } else {
            TrustStatus::Stale { changed }
        };
        TrustCheck {
            status,
            libraries,
            queries,
        }
    }

    /// Re-reads the file, applies `change` and writes it back, so that a grant made by
    /// another `wit trust` since this store was loaded is not lost.
    fn update(&mut self, change: impl FnOnce(&mut TrustFile)) -> Result<(), TrustError> {
        let mut data = read_store(&self.path)?;
        change(&mut data);
        data.version = STORE_VERSION;
        write_store(&self.path, &data)?;
        self.data = data;
        Ok(())
    }
}

fn default_path_from(
    xdg_config_home: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Result<PathBuf, TrustError> {
    let absolute = |v: Option<std::ffi::OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    if let Some(dir) = absolute(xdg_config_home) {
        return Ok(dir.join("wit").join("trust.json"));
    }
    absolute(home)
        .map(|home| home.join(".config").join("wit").join("trust.json"))
        .ok_or(TrustError::NoConfigDir)
}

/// A library's key in a grant: absolute, canonical when it exists, so that a grant does not
/// depend on how the path was spelled. Only a name: the bytes read are what is compared.
fn pinned_path(resolved: &Path) -> PathBuf {
    fs::canonicalize(resolved).unwrap_or_else(|_| resolved.to_owned())
}

/// `wit.toml`, read beneath the root like every repository file (regular, capped).
fn read_wit_toml(root: &Path) -> Result<Vec<u8>, TrustError> {
    wit_boundary::read_repo_file(root, FILE_NAME, MAX_WIT_TOML_SIZE).map_err(|source| {
        TrustError::ReadConfig {
            path: root.join(FILE_NAME),
            source,
        }
    })
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn key(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn read_store(path: &Path) -> Result<TrustFile, TrustError> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(TrustFile {
                version: STORE_VERSION,
                repos: BTreeMap::new(),
            });
        }
        Err(source) => {
            return Err(TrustError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    let data: TrustFile = serde_json::from_str(&text).map_err(|e| TrustError::Corrupt {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    if data.version != STORE_VERSION {
        return Err(TrustError::Corrupt {
            path: path.to_owned(),
            message: format!(
                "version {} (this wit reads version {STORE_VERSION})",
                data.version
            ),
        });
    }
    Ok(data)
}

/// Temp file (0600) in the same directory, fsync, rename: readers see the old or the new
/// file, never half of one.
fn write_store(path: &Path, data: &TrustFile) -> Result<(), TrustError> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let write_err = |source| TrustError::Write {
        path: path.to_owned(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(write_err)?;
    let tmp = dir.join(format!(
        ".trust.json.{}.{}.tmp",
        std::process::id(),
        now_ms()
    ));
    let json = serde_json::to_vec_pretty(data).expect("the trust file serializes");
    let result = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        file.write_all(&json)?;
        file.write_all(b"\n")?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(write_err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    struct Repo {
        _dir: tempfile::TempDir,
        root: PathBuf,
        store: PathBuf,
    }

    fn repo(toml: &str) -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        fs::create_dir_all(root.join("plugins")).unwrap();
        fs::write(root.join("wit.toml"), toml).unwrap();
        fs::write(root.join("plugins/liba.so"), b"library a").unwrap();
        let store = dir.path().join("config/wit/trust.json");
        Repo {
            _dir: dir,
            root,
            store,
        }
    }

    const TOML: &str = "[[analyzers]]\npath = \"plugins/liba.so\"\n";

    fn config(r: &Repo) -> Config {
        Config::parse(
            &fs::read_to_string(r.root.join("wit.toml")).unwrap(),
            "wit.toml",
        )
        .unwrap()
    }

    #[test]
    fn grant_then_check_is_trusted_and_survives_reload() {
        let r = repo(TOML);
        let mut store = TrustStore::load_from(&r.store).unwrap();
        assert_eq!(store.check(&r.root, &config(&r)), TrustStatus::Untrusted);
        let plan = store.plan(&r.root, &config(&r)).unwrap();
        let canonical = fs::canonicalize(&r.root).unwrap();
        assert_eq!(plan.root, canonical);
        assert_eq!(
            plan.files
                .iter()
                .map(|f| f.path.clone())
                .collect::<Vec<_>>(),
            vec![
                canonical.join("wit.toml"),
                canonical.join("plugins/liba.so")
            ]
        );
        // sha256("library a")
        assert_eq!(plan.files[1].sha256.as_ref().unwrap().len(), 64);
        store.grant(&plan).unwrap();
        assert_eq!(store.check(&r.root, &config(&r)), TrustStatus::Trusted);
        let reloaded = TrustStore::load_from(&r.store).unwrap();
        assert_eq!(reloaded.check(&r.root, &config(&r)), TrustStatus::Trusted);
        // Spelled differently (with a `.` component), the root is the same repository.
        assert_eq!(
            reloaded.check(&r.root.join("."), &config(&r)),
            TrustStatus::Trusted
        );
    }

    #[test]
    fn the_store_is_private_and_written_whole() {
        let r = repo(TOML);
        let mut store = TrustStore::load_from(&r.store).unwrap();
        let plan = store.plan(&r.root, &config(&r)).unwrap();
        store.grant(&plan).unwrap();
        let mode = fs::metadata(&r.store).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let leftovers: Vec<_> = fs::read_dir(r.store.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("trust.json")]);
        let json: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&r.store).unwrap()).unwrap();
        assert_eq!(json["version"], 1);
    }

    #[test]
    fn a_changed_library_or_wit_toml_makes_the_grant_stale() {
        let r = repo(TOML);
        let mut store = TrustStore::load_from(&r.store).unwrap();
        store
            .grant(&store.plan(&r.root, &config(&r)).unwrap())
            .unwrap();
        let canonical = fs::canonicalize(&r.root).unwrap();

        fs::write(r.root.join("plugins/liba.so"), b"library a, rebuilt").unwrap();
        assert_eq!(
            store.check(&r.root, &config(&r)),
            TrustStatus::Stale {
                changed: vec![canonical.join("plugins/liba.so")]
            }
        );

        fs::write(
            r.root.join("wit.toml"),
            format!("{TOML}\n[[analyzers]]\npath = \"plugins/libb.so\"\n"),
        )
        .unwrap();
        assert_eq!(
            store.check(&r.root, &config(&r)),
            TrustStatus::Stale {
                changed: vec![
                    canonical.join("wit.toml"),
                    canonical.join("plugins/liba.so"),
                    canonical.join("plugins/libb.so"),
                ]
            }
        );
        // Granting again (once libb exists) makes it trusted again.
        fs::write(r.root.join("plugins/libb.so"), b"library b").unwrap();
        store
            .grant(&store.plan(&r.root, &config(&r)).unwrap())
            .unwrap();
        assert_eq!(store.check(&r.root, &config(&r)), TrustStatus::Trusted);
    }

    #[test]
    fn a_deleted_library_makes_a_grant_stale() {
        let r = repo(TOML);
        let mut store = TrustStore::load_from(&r.store).unwrap();
        store
            .grant(&store.plan(&r.root, &config(&r)).unwrap())
            .unwrap();
        fs::remove_file(r.root.join("plugins/liba.so")).unwrap();
        assert!(matches!(
            store.check(&r.root, &config(&r)),
            TrustStatus::Stale { changed } if changed == vec![fs::canonicalize(&r.root).unwrap().join("plugins/liba.so")]
        ));
    }

    #[test]
    fn a_missing_library_is_pinned_as_absent_and_goes_stale_when_it_appears() {
        let r = repo(TOML);
        fs::remove_file(r.root.join("plugins/liba.so")).unwrap();
        let mut store = TrustStore::load_from(&r.store).unwrap();
        let plan = store.plan(&r.root, &config(&r)).unwrap();
        assert_eq!(plan.files[1].sha256, None);
        store.grant(&plan).unwrap();
        assert_eq!(store.check(&r.root, &config(&r)), TrustStatus::Trusted);
        fs::write(r.root.join("plugins/liba.so"), b"library a").unwrap();
        assert!(matches!(
            store.check(&r.root, &config(&r)),
            TrustStatus::Stale { changed } if changed == vec![fs::canonicalize(&r.root).unwrap().join("plugins/liba.so")]
        ));
    }

    #[test]
    fn wit_toml_must_exist_to_be_planned() {
        let r = repo(TOML);
        fs::remove_file(r.root.join("wit.toml")).unwrap();
        let config = Config::parse(TOML, "wit.toml").unwrap();
        let store = TrustStore::load_from(&r.store).unwrap();
        let err = store.plan(&r.root, &config).unwrap_err();
        assert!(
            err.to_string().starts_with("cannot read ") && err.to_string().contains("wit.toml"),
            "{err}"
        );
    }

    #[test]
    fn revoke_removes_only_that_repository() {
        let a = repo(TOML);
        let b = repo(TOML);
        // Both repositories share one store file.
        let mut store = TrustStore::load_from(&a.store).unwrap();
        store
            .grant(&store.plan(&a.root, &config(&a)).unwrap())
            .unwrap();
        store
            .grant(&store.plan(&b.root, &config(&b)).unwrap())
            .unwrap();
        assert!(store.revoke(&a.root).unwrap());
        assert!(!store.revoke(&a.root).unwrap());
        assert_eq!(store.check(&a.root, &config(&a)), TrustStatus::Untrusted);
        assert_eq!(store.check(&b.root, &config(&b)), TrustStatus::Trusted);
    }

    #[test]
    fn grants_made_by_another_process_are_kept() {
        let a = repo(TOML);
        let b = repo(TOML);
        let mut first = TrustStore::load_from(&a.store).unwrap();
        let mut second = TrustStore::load_from(&a.store).unwrap();
        first
            .grant(&first.plan(&a.root, &config(&a)).unwrap())
            .unwrap();
        second
            .grant(&second.plan(&b.root, &config(&b)).unwrap())
            .unwrap();
        let reloaded = TrustStore::load_from(&a.store).unwrap();
        assert_eq!(reloaded.check(&a.root, &config(&a)), TrustStatus::Trusted);
        assert_eq!(reloaded.check(&b.root, &config(&b)), TrustStatus::Trusted);
    }

    #[test]
    fn a_corrupt_store_is_an_error_naming_it() {
        let r = repo(TOML);
        fs::create_dir_all(r.store.parent().unwrap()).unwrap();
        fs::write(&r.store, "{not json").unwrap();
        let err = TrustStore::load_from(&r.store).unwrap_err();
        assert!(
            err.to_string().starts_with(&format!(
                "the trust store {} is corrupt: ",
                r.store.display()
            )),
            "{err}"
        );
    }

    #[test]
    fn the_default_path_follows_xdg_config_home_then_home() {
        let os = |s: &str| Some(std::ffi::OsString::from(s));
        assert_eq!(
            default_path_from(os("/x/config"), os("/home/u")).unwrap(),
            PathBuf::from("/x/config/wit/trust.json")
        );
        // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
        assert_eq!(
            default_path_from(os("relative"), os("/home/u")).unwrap(),
            PathBuf::from("/home/u/.config/wit/trust.json")
        );
        assert!(matches!(
            default_path_from(None, None),
            Err(TrustError::NoConfigDir)
        ));
    }
}
