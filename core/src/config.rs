//! `wit.toml`: the per-repository configuration file, at the repository root.
//!
//! Every key is optional; a missing file is the same as an empty one. `wit.toml.example` at
//! the root of wit's sources documents each key with its default. The keys:
//!
//! ```toml
//! [locks]
//! # TTL of a lock when `lock.acquire` gives no `ttlMs`. Either an integer number of
//! # milliseconds, or a duration string: an integer followed by a unit, `ms`, `s`, `m`,
//! # `h` or `d`, several of them concatenated ("1h30m", "1h 30m"). Must be positive.
//! default_ttl = "30m"            # default: "30m" (1800000 ms)
//!
//! [analysis]
//! # Largest source file (in bytes) the daemon reads for analysis. A larger file, or one
//! # that is not a regular file, is treated as a file whose analysis failed.
//! max_file_bytes = 1048576        # default: 1048576 (1 MiB)
//!
//! [guard]
//! # What `wit guard` (the agents' pre-edit hook) answers when it cannot ask the daemon:
//! # false lets the edit through (one line on stderr), true refuses it.
//! fail_closed = false             # default: false
//! # Whether a Claude Code `SessionEnd` hook (`wit guard`) releases the session's locks.
//! release_on_session_end = true    # default: true
//! # An edit of a definition another session changed (uncommitted, its claim): "warn"
//! # lets it through with a warning, "refuse" refuses it. An edit that would undo another
//! # session's change (a write from a stale read) is refused whatever this says.
//! claimed = "warn"                 # default: "warn"
//! # A claim ends after this long without an edit by its session (also at the session's
//! # end, and when the definition equals HEAD again).
//! claim_idle = "2h"                # default: "2h"
//!
//! [sessions]
//! # End a session whose heartbeats (session.heartbeat) stopped for this long. Default: off.
//! heartbeat_timeout = "10m"
//!
//! # One table per analyzer plugin (a shared library built with wit_core::export_analyzer!).
//! [[analyzers]]
//! # The library: relative to the repository root, or absolute. `~` is not expanded.
//! path = "target/release/libwit_analyzer_go.so"
//! # Optional: the extensions (without the dot) to route to this analyzer, replacing the
//! # library's own list. Default: the library's own list.
//! extensions = ["go"]
//!
//! # One table per language added without code: a tree-sitter grammar library and query
//! # files in tags.scm's vocabulary (see wit_analyzers::declarative for the captures).
//! [[languages]]
//! id = "lua"                              # the analyzer's id (letters, digits, - and _)
//! extensions = ["lua"]                    # the files it analyses (without the dot)
//! grammar = "grammars/liblua.so"          # the grammar, compiled from its parser.c
//! symbol = "tree_sitter_lua"              # default: "tree_sitter_" + id (- becomes _)
//! queries = ["queries/lua/tags.scm"]      # relative to the repository root, in order
//! return_separator = " "                  # between parameters and return type; default " "
//! nested_types = false                    # types inside a type take it as container
//! ```
//!
//! This module only parses text ([`Config::parse`]); reading the file is the daemon's job,
//! since `wit-core` does no I/O. Unknown keys, wrong types and bad values are errors (a
//! typo must not silently fall back to a default), reported with the file, the 1-based
//! line and column, and the key path: `wit.toml:2:1: locks.default_tll: unknown field
//! `default_tll`, expected `default_ttl``.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};
use toml::Spanned;

use crate::plugin::{validate_extension, validate_id};
use crate::protocol::DEFAULT_LOCK_TTL_MS;

/// The configuration file's name, at the repository root.
pub const FILE_NAME: &str = "wit.toml";

/// The parsed `wit.toml`. [`Config::default`] is what an absent or empty file means.
///
/// `#[non_exhaustive]`: a new `wit.toml` key is a new field, an addition; build one with
/// [`Config::parse`] or [`Config::default`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Config {
    /// `[locks]`.
    pub locks: LocksConfig,
    /// `[analysis]`.
    pub analysis: AnalysisConfig,
    /// `[guard]`.
    pub guard: GuardConfig,
    /// `[sessions]`.
    pub sessions: SessionsConfig,
    /// `[[analyzers]]`, in file order.
    pub analyzers: Vec<AnalyzerConfig>,
    /// `[graph]`.
    pub graph: GraphConfig,
    /// `[store]`.
    pub store: StoreConfig,
    /// `[[languages]]`, in file order.
    pub languages: Vec<LanguageConfig>,
    /// `[guard] claimed` and `claim_idle`: how claims (agents sharing one checkout)
    /// protect their changes.
    pub claims: ClaimsConfig,
}

/// What `wit guard` does with an edit of a definition another session has changed,
/// uncommitted (`[guard] claimed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OnClaimed {
    /// Let it through with a warning naming the session, the definition and its change
    /// (the default).
    #[default]
    Warn,
    /// Refuse it.
    Refuse,
}

/// Default of `[guard] claim_idle`: two hours.
pub const DEFAULT_CLAIM_IDLE_MS: u64 = 2 * 60 * 60 * 1000;

/// How claims protect the uncommitted changes of agents sharing one checkout (keys of
/// `[guard]`; a struct of its own so that `GuardConfig` stays as 0.1 published it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClaimsConfig {
    /// `[guard] claimed`: an edit of a definition another session claims.
    pub on_claimed: OnClaimed,
    /// `[guard] claim_idle`, in milliseconds: a claim ends after this long without an
    /// edit by its session (default 2 h).
    pub idle_ms: u64,
}

impl Default for ClaimsConfig {
    fn default() -> Self {
        ClaimsConfig {
            on_claimed: OnClaimed::Warn,
            idle_ms: DEFAULT_CLAIM_IDLE_MS,
        }
    }
}

impl Config {
    /// The shared libraries `wit.toml` names, as written: every `[[analyzers]]` path, then
    /// every `[[languages]]` grammar. Trust pins and checks them in this order.
    pub fn libraries(&self) -> Vec<&Path> {
        self.analyzers
            .iter()
            .map(|a| a.path.as_path())
            .chain(self.languages.iter().map(|l| l.grammar.as_path()))
            .collect()
    }

    /// Whether loading what `wit.toml` names needs the user's trust: a plugin or a grammar
    /// library is code that would run inside the daemon.
    pub fn needs_trust(&self) -> bool {
        !self.analyzers.is_empty() || !self.languages.is_empty()
    }
}

/// The `[store]` table: which shared state this repository's daemons use.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StoreConfig {
    /// `project`: the key under which this repository's state is shared in a PostgreSQL
    /// store (default: derived from the `origin` remote).
    pub project: Option<String>,
    /// `url`: a PostgreSQL store. A committed file alone never decides where state goes:
    /// the daemon honours it only once `wit trust` has pinned it (see the daemon's
    /// `store::target`); `WIT_STORE_URL` or the user's own config win over it.
    pub url: Option<String>,
}

/// The `[graph]` table: which files the repository code graph indexes, beyond git's own
/// rule (files git ignores are never indexed).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GraphConfig {
    /// `include`: globs (gitignore-like, relative to the root); when non-empty, only
    /// matching files are indexed.
    pub include: Vec<String>,
    /// `exclude`: globs of files never indexed (wins over `include`).
    pub exclude: Vec<String>,
}

/// The `[sessions]` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SessionsConfig {
    /// `heartbeat_timeout`, in milliseconds: a session that sent `session.heartbeat` and
    /// then stopped for longer is ended by the daemon (its locks released, audited).
    /// `None` (the default): never, since v1 clients never send heartbeats.
    pub heartbeat_timeout_ms: Option<u64>,
}

/// The `[locks]` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocksConfig {
    /// `default_ttl`, in milliseconds (default 1,800,000: 30 minutes).
    pub default_ttl_ms: u64,
}

impl Default for LocksConfig {
    fn default() -> Self {
        Self {
            default_ttl_ms: DEFAULT_LOCK_TTL_MS,
        }
    }
}

/// Default of `[analysis] max_file_bytes`: 1 MiB. Hand-written source files are far
/// smaller (a 2,000-line TypeScript file is about 60 KB); a bigger one is generated code or
/// data. The cap also bounds memory: a syntax tree costs about 47 bytes per source byte, so
/// a 1 MiB file needs ~48 MB while it is analysed, on each of the daemon's 4 analysis
/// threads (a 4 MiB cap would allow ~800 MB at once).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The `[analysis]` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalysisConfig {
    /// `max_file_bytes`: the largest source file read for analysis (default 1 MiB).
    pub max_file_bytes: u64,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        Self {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        }
    }
}

/// The `[guard]` table: how `wit guard` behaves when it cannot check an edit, and at the
/// end of an agent's session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuardConfig {
    /// `fail_closed`: refuse edits when no daemon answers (default false: allow them).
    pub fail_closed: bool,
    /// `release_on_session_end`: a `SessionEnd` hook releases the session's locks
    /// (default true: a finished agent should not block others until its TTLs run out).
    pub release_on_session_end: bool,
}

impl Default for GuardConfig {
    fn default() -> Self {
        GuardConfig {
            fail_closed: false,
            release_on_session_end: true,
        }
    }
}

/// One `[[analyzers]]` entry: a plugin library to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalyzerConfig {
    /// The library path as written (relative to the repository root, or absolute).
    pub path: PathBuf,
    /// Extensions routed to the plugin instead of its own list; `None` keeps its own.
    pub extensions: Option<Vec<String>>,
    /// 1-based line of the entry's `path` key, for messages.
    pub line: usize,
}

impl AnalyzerConfig {
    /// The library's path: `path` itself when absolute, else `root.join(path)`.
    pub fn resolve(&self, root: &Path) -> PathBuf {
        resolve_path(root, &self.path)
    }
}

/// A library path as `wit.toml` writes it, resolved: itself when absolute, else relative
/// to the repository `root`. (`Path::join` already keeps an absolute path; named so
/// that every library path of `wit.toml` resolves through one rule.)
pub fn resolve_path(root: &Path, configured: &Path) -> PathBuf {
    root.join(configured)
}

/// One `[[languages]]` entry: a language analysed by query files over a grammar library,
/// without code of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LanguageConfig {
    /// The analyzer's id (`wit analyzers`); a built-in's id replaces that built-in.
    pub id: String,
    /// The extensions routed to it, without the dot.
    pub extensions: Vec<String>,
    /// The grammar library as written (relative to the repository root, or absolute).
    pub grammar: PathBuf,
    /// The grammar's entry function in the library (`tree_sitter_lua`).
    pub symbol: String,
    /// The query files, relative to the repository root (never absolute, never `..`:
    /// they are read beneath the root like every repository file), in order.
    pub queries: Vec<PathBuf>,
    /// Written between a signature's parameters and its return type.
    pub return_separator: String,
    /// Whether definitions inside a type body other than methods (a nested class) take the
    /// type's name as container.
    pub nested_types: bool,
    /// 1-based line of the entry's `id` key, for messages.
    pub line: usize,
}

impl LanguageConfig {
    /// The grammar library's path: `grammar` itself when absolute, else `root.join(grammar)`.
    pub fn resolve_grammar(&self, root: &Path) -> PathBuf {
        resolve_path(root, &self.grammar)
    }
}

/// The default entry symbol of a grammar: `tree_sitter_` and the id, `-` as `_` (the name
/// `tree-sitter generate` gives it).
pub fn default_grammar_symbol(id: &str) -> String {
    format!("tree_sitter_{}", id.replace('-', "_"))
}

/// Why `wit.toml` was refused: where, which key, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}:{column}: {}{message}", file.display(), key.as_deref().map(|k| format!("{k}: ")).unwrap_or_default())]
pub struct ConfigError {
    /// The file name given to [`Config::parse`].
    pub file: PathBuf,
    /// 1-based line of the offending text (1 when unknown).
    pub line: usize,
    /// 1-based column, in characters (1 when unknown).
    pub column: usize,
    /// Dotted key path (`locks.default_ttl`, `analyzers[1].extensions[0]`), when the error
    /// is about one key.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl Config {
    /// Parses the text of a `wit.toml`; `file` is only used in error messages.
    pub fn parse(text: &str, file: impl AsRef<Path>) -> Result<Self, ConfigError> {
        let file = file.as_ref();
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let span = e.span();
            error_at(text, file, span, trim_message(e.message()))
        })?;

        let mut config = Config::default();
        if let Some(sessions) = raw.sessions
            && let Some(t) = sessions.heartbeat_timeout
        {
            config.sessions.heartbeat_timeout_ms = Some(t.into_inner().0);
        }
        if let Some(locks) = raw.locks
            && let Some(ttl) = locks.default_ttl
        {
            config.locks.default_ttl_ms = ttl.into_inner().0;
        }
        if let Some(analysis) = raw.analysis
            && let Some(max) = analysis.max_file_bytes
        {
            let span = max.span();
            match max.into_inner() {
                0 => {
                    return Err(error_at(
                        text,
                        file,
                        Some(span),
                        "must be a positive number of bytes".to_owned(),
                    ));
                }
                n => config.analysis.max_file_bytes = n,
            }
        }
        if let Some(graph) = raw.graph {
            config.graph.include = graph.include;
            config.graph.exclude = graph.exclude;
        }
        if let Some(store) = raw.store {
            config.store.project = store.project.filter(|p| !p.trim().is_empty());
            config.store.url = store.url.filter(|u| !u.trim().is_empty());
        }
        if let Some(guard) = raw.guard {
            if let Some(fail_closed) = guard.fail_closed {
                config.guard.fail_closed = fail_closed;
            }
            if let Some(release) = guard.release_on_session_end {
                config.guard.release_on_session_end = release;
            }
            if let Some(claimed) = guard.claimed {
                let span = claimed.span();
                config.claims.on_claimed = match claimed.into_inner().as_str() {
                    "warn" => OnClaimed::Warn,
                    "refuse" => OnClaimed::Refuse,
                    other => {
                        return Err(error_at(
                            text,
                            file,
                            Some(span),
                            format!("must be \"warn\" or \"refuse\", got {other:?}"),
                        ));
                    }
                };
            }
            if let Some(idle) = guard.claim_idle {
                config.claims.idle_ms = idle.into_inner().0;
            }
        }
        for entry in raw.analyzers {
            let path_span = entry.path.span();
            let path = entry.path.into_inner();
            if path.trim().is_empty() {
                return Err(error_at(
                    text,
                    file,
                    Some(path_span),
                    "the library path is empty".to_owned(),
                ));
            }
            let path = PathBuf::from(path);
            if let Some(j) = config.analyzers.iter().position(|a| a.path == path) {
                return Err(error_at(
                    text,
                    file,
                    Some(path_span),
                    format!("{} is already listed as analyzers[{j}]", path.display()),
                ));
            }
            let extensions = match entry.extensions {
                None => None,
                Some(list) => Some(extension_list(
                    text,
                    file,
                    list,
                    "the extension list is empty (leave the key out to keep the library's own)",
                )?),
            };
            config.analyzers.push(AnalyzerConfig {
                path,
                extensions,
                line: line_col(text, path_span.start).0,
            });
        }
        for entry in raw.languages {
            let language = language_entry(text, file, entry, &config.languages)?;
            config.languages.push(language);
        }
        Ok(config)
    }
}

/// A non-empty list of valid, distinct extensions; `empty` says what an empty one means.
fn extension_list(
    text: &str,
    file: &Path,
    list: Spanned<Vec<Spanned<String>>>,
    empty: &str,
) -> Result<Vec<String>, ConfigError> {
    let list_span = list.span();
    let list = list.into_inner();
    if list.is_empty() {
        return Err(error_at(text, file, Some(list_span), empty.to_owned()));
    }
    let mut out: Vec<String> = Vec::with_capacity(list.len());
    for ext in list {
        let span = ext.span();
        let ext = ext.into_inner();
        if let Err(why) = validate_extension(&ext) {
            return Err(error_at(text, file, Some(span), why));
        }
        if out.contains(&ext) {
            return Err(error_at(
                text,
                file,
                Some(span),
                format!("extension {ext:?} is listed twice"),
            ));
        }
        out.push(ext);
    }
    Ok(out)
}

/// One `[[languages]]` entry, checked (`earlier`: the entries before it).
fn language_entry(
    text: &str,
    file: &Path,
    entry: RawLanguage,
    earlier: &[LanguageConfig],
) -> Result<LanguageConfig, ConfigError> {
    let at = |span: Range<usize>, why: String| error_at(text, file, Some(span), why);
    let id_span = entry.id.span();
    let id = entry.id.into_inner();
    validate_id(&id).map_err(|why| at(id_span.clone(), format!("the id {why}")))?;
    if let Some(j) = earlier.iter().position(|l| l.id == id) {
        return Err(at(
            id_span,
            format!("{id:?} is already languages[{j}]'s id"),
        ));
    }
    let extensions = extension_list(text, file, entry.extensions, "the extension list is empty")?;
    let grammar_span = entry.grammar.span();
    let grammar = entry.grammar.into_inner();
    if grammar.trim().is_empty() {
        return Err(at(
            grammar_span,
            "the grammar library path is empty".to_owned(),
        ));
    }
    let symbol = match entry.symbol {
        None => default_grammar_symbol(&id),
        Some(symbol) => {
            let span = symbol.span();
            let symbol = symbol.into_inner();
            let mut chars = symbol.chars();
            let c_identifier = chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !c_identifier {
                return Err(at(
                    span,
                    format!("{symbol:?} is not a C function name (letters, digits and '_')"),
                ));
            }
            symbol
        }
    };
    let queries_span = entry.queries.span();
    let mut queries: Vec<PathBuf> = Vec::new();
    for query in entry.queries.into_inner() {
        let span = query.span();
        let query = PathBuf::from(query.into_inner());
        let inside = !query.as_os_str().is_empty()
            && query.components().all(|c| {
                matches!(
                    c,
                    std::path::Component::Normal(_) | std::path::Component::CurDir
                )
            });
        if !inside {
            return Err(at(
                span,
                format!(
                    "{} must be a path inside the repository, relative to its root, without '..'",
                    query.display()
                ),
            ));
        }
        if queries.contains(&query) {
            return Err(at(span, format!("{} is listed twice", query.display())));
        }
        queries.push(query);
    }
    if queries.is_empty() {
        return Err(at(
            queries_span,
            "the query list is empty (name at least one tags.scm-style file)".to_owned(),
        ));
    }
    Ok(LanguageConfig {
        id,
        extensions,
        grammar: PathBuf::from(grammar),
        symbol,
        queries,
        return_separator: entry.return_separator.unwrap_or_else(|| " ".to_owned()),
        nested_types: entry.nested_types.unwrap_or(false),
        line: line_col(text, id_span.start).0,
    })
}

/// Parses a duration: an integer number of milliseconds, or `<int><unit>…` with units
/// `ms`, `s`, `m`, `h`, `d` (`"30m"`, `"1h30m"`, `"500ms"`). Zero is refused.
pub fn parse_duration_ms(text: &str) -> Result<u64, String> {
    let hint = "expected a duration such as \"30m\", \"90s\", \"1h30m\" or \"500ms\", or an integer number of milliseconds";
    let s = text.trim();
    if s.is_empty() {
        return Err(format!("empty duration; {hint}"));
    }
    let mut total: u64 = 0;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(format!("invalid duration {text:?}; {hint}"));
        }
        let number: u64 = rest[..digits]
            .parse()
            .map_err(|_| format!("duration {text:?} is too large"))?;
        rest = rest[digits..].trim_start();
        let unit_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        let factor: u64 = match &rest[..unit_len] {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            "" => {
                return Err(format!(
                    "duration {text:?} lacks a unit (ms, s, m, h or d); write an integer, not a string, for milliseconds"
                ));
            }
            other => {
                return Err(format!(
                    "unknown unit {other:?} in duration {text:?}; use ms, s, m, h or d"
                ));
            }
        };
        rest = rest[unit_len..].trim_start();
        total = number
            .checked_mul(factor)
            .and_then(|ms| total.checked_add(ms))
            .ok_or_else(|| format!("duration {text:?} is too large"))?;
    }
    if total == 0 {
        return Err("the duration must be positive".to_owned());
    }
    Ok(total)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    locks: Option<RawLocks>,
    analysis: Option<RawAnalysis>,
    guard: Option<RawGuard>,
    sessions: Option<RawSessions>,
    #[serde(default)]
    analyzers: Vec<RawAnalyzer>,
    graph: Option<RawGraph>,
    store: Option<RawStore>,
    #[serde(default)]
    languages: Vec<RawLanguage>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLanguage {
    id: Spanned<String>,
    extensions: Spanned<Vec<Spanned<String>>>,
    grammar: Spanned<String>,
    symbol: Option<Spanned<String>>,
    queries: Spanned<Vec<Spanned<String>>>,
    return_separator: Option<String>,
    nested_types: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStore {
    project: Option<String>,
    url: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGraph {
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSessions {
    heartbeat_timeout: Option<Spanned<DurationMs>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLocks {
    default_ttl: Option<Spanned<DurationMs>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAnalysis {
    max_file_bytes: Option<Spanned<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGuard {
    fail_closed: Option<bool>,
    release_on_session_end: Option<bool>,
    claimed: Option<Spanned<String>>,
    claim_idle: Option<Spanned<DurationMs>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAnalyzer {
    path: Spanned<String>,
    extensions: Option<Spanned<Vec<Spanned<String>>>>,
}

/// A positive duration in milliseconds, from an integer or a duration string.
struct DurationMs(u64);

impl<'de> Deserialize<'de> for DurationMs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = DurationMs;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a duration string such as \"30m\" or an integer number of milliseconds",
                )
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<DurationMs, E> {
                if v <= 0 {
                    return Err(E::custom("the duration must be positive"));
                }
                Ok(DurationMs(v as u64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<DurationMs, E> {
                if v == 0 {
                    return Err(E::custom("the duration must be positive"));
                }
                Ok(DurationMs(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<DurationMs, E> {
                parse_duration_ms(v).map(DurationMs).map_err(E::custom)
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// toml appends nothing useful after the first line of its own messages; keep them short.
/// Also names serde's "struct RawLocks" for what the user sees: a table.
fn trim_message(message: &str) -> String {
    let first = message.lines().next().unwrap_or(message).trim();
    [
        "RawConfig",
        "RawLocks",
        "RawAnalysis",
        "RawSessions",
        "RawAnalyzer",
        "RawGraph",
    ]
    .iter()
    .fold(first.to_owned(), |m, name| {
        m.replace(&format!("struct {name}"), "a table")
    })
}

fn error_at(text: &str, file: &Path, span: Option<Range<usize>>, message: String) -> ConfigError {
    let (line, column, key) = match span {
        Some(span) => {
            let (line, column) = line_col(text, span.start);
            (line, column, key_path_at(text, span.start))
        }
        None => (1, 1, None),
    };
    ConfigError {
        file: file.to_owned(),
        line,
        column,
        key,
        message,
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// The dotted path of the innermost key whose key or value covers `offset`.
fn key_path_at(text: &str, offset: usize) -> Option<String> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    let mut segments = Vec::new();
    find_in_table(doc.get_ref(), offset, &mut segments).then(|| segments.concat())
}

fn find_in_table(table: &toml::de::DeTable<'_>, offset: usize, path: &mut Vec<String>) -> bool {
    for (key, value) in table {
        let segment = if path.is_empty() {
            key.get_ref().to_string()
        } else {
            format!(".{}", key.get_ref())
        };
        path.push(segment);
        // Children first: a table opened by a `[header]` has a span that need not cover
        // its keys.
        if find_in_value(value.get_ref(), offset, path)
            || key.span().contains(&offset)
            || value.span().contains(&offset)
        {
            return true;
        }
        path.pop();
    }
    false
}

fn find_in_value(value: &toml::de::DeValue<'_>, offset: usize, path: &mut Vec<String>) -> bool {
    match value {
        toml::de::DeValue::Table(t) => find_in_table(t, offset, path),
        toml::de::DeValue::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(format!("[{i}]"));
                if find_in_value(item.get_ref(), offset, path) || item.span().contains(&offset) {
                    return true;
                }
                path.pop();
            }
            false
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        Config::parse(text, "wit.toml").unwrap_err().to_string()
    }

    #[test]
    fn max_file_bytes_is_read_and_must_be_a_positive_integer() {
        let c = Config::parse("[analysis]\nmax_file_bytes = 1024\n", "wit.toml").unwrap();
        assert_eq!(c.analysis.max_file_bytes, 1024);
        assert_eq!(
            Config::default().analysis.max_file_bytes,
            DEFAULT_MAX_FILE_BYTES
        );
        let e = err("[analysis]\nmax_file_bytes = 0\n");
        assert!(
            e.contains("analysis.max_file_bytes") && e.contains("positive"),
            "{e}"
        );
        let e = err("[analysis]\nmax_file_bytes = -1\n");
        assert!(e.contains("analysis.max_file_bytes"), "{e}");
        let e = err("[analysis]\nmax_file_bytes = \"4MiB\"\n");
        assert!(e.contains("analysis.max_file_bytes"), "{e}");
    }

    #[test]
    fn guard_fail_closed_is_read_and_must_be_a_boolean() {
        assert!(!Config::default().guard.fail_closed, "fail open by default");
        let c = Config::parse("[guard]\nfail_closed = true\n", "wit.toml").unwrap();
        assert!(c.guard.fail_closed);
        let c = Config::parse("[guard]\n", "wit.toml").unwrap();
        assert!(!c.guard.fail_closed);
        let e = err("[guard]\nfail_closed = \"yes\"\n");
        assert!(e.contains("guard.fail_closed"), "{e}");
        assert!(Config::default().guard.release_on_session_end);
        let c = Config::parse("[guard]\nrelease_on_session_end = false\n", "wit.toml").unwrap();
        assert!(!c.guard.release_on_session_end);
        let e = err("[guard]\nfail_close = true\n");
        assert!(e.contains("fail_close"), "{e}");
    }

    #[test]
    fn guard_claimed_warns_by_default_and_claims_idle_for_two_hours() {
        let d = Config::default();
        assert_eq!(d.claims.on_claimed, OnClaimed::Warn);
        assert_eq!(d.claims.idle_ms, 2 * 3_600_000);
        let c = Config::parse(
            "[guard]\nclaimed = \"refuse\"\nclaim_idle = \"45m\"\n",
            "wit.toml",
        )
        .unwrap();
        assert_eq!(c.claims.on_claimed, OnClaimed::Refuse);
        assert_eq!(c.claims.idle_ms, 45 * 60_000);
        let e = err("[guard]\nclaimed = \"block\"\n");
        assert!(e.contains("must be \"warn\" or \"refuse\""), "{e}");
        assert!(e.starts_with("wit.toml:2:"), "{e}");
        let e = err("[guard]\nclaim_idle = 0\n");
        assert!(e.contains("positive"), "{e}");
    }

    #[test]
    fn sessions_heartbeat_timeout_is_off_by_default_and_takes_a_duration() {
        assert_eq!(Config::default().sessions.heartbeat_timeout_ms, None);
        let c = Config::parse("[sessions]\nheartbeat_timeout = \"2m\"\n", "wit.toml").unwrap();
        assert_eq!(c.sessions.heartbeat_timeout_ms, Some(120_000));
        let e = err("[sessions]\nheartbeat = 5\n");
        assert!(e.contains("heartbeat"), "{e}");
    }

    #[test]
    fn an_empty_file_is_the_default() {
        let c = Config::parse("", "wit.toml").unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.locks.default_ttl_ms, 1_800_000);
        assert!(c.analyzers.is_empty());
    }

    #[test]
    fn a_full_file_parses() {
        let text = r#"
[locks]
default_ttl = "1h30m"

[[analyzers]]
path = "plugins/libgo.so"
extensions = ["go"]

[[analyzers]]
path = "/opt/wit/libzig.so"
"#;
        let c = Config::parse(text, "wit.toml").unwrap();
        assert_eq!(c.locks.default_ttl_ms, 5_400_000);
        assert_eq!(c.analyzers.len(), 2);
        assert_eq!(c.analyzers[0].path, PathBuf::from("plugins/libgo.so"));
        assert_eq!(c.analyzers[0].extensions, Some(vec!["go".to_owned()]));
        assert_eq!(c.analyzers[0].line, 6);
        assert_eq!(c.analyzers[1].extensions, None);
        assert_eq!(
            c.analyzers[0].resolve(Path::new("/repo")),
            PathBuf::from("/repo/plugins/libgo.so")
        );
        assert_eq!(
            c.analyzers[1].resolve(Path::new("/repo")),
            PathBuf::from("/opt/wit/libzig.so")
        );
    }

    #[test]
    fn ttl_accepts_integers_and_duration_strings() {
        let ttl = |v: &str| {
            Config::parse(&format!("[locks]\ndefault_ttl = {v}\n"), "wit.toml")
                .unwrap()
                .locks
                .default_ttl_ms
        };
        assert_eq!(ttl("60000"), 60_000);
        assert_eq!(ttl("\"500ms\""), 500);
        assert_eq!(ttl("\"90s\""), 90_000);
        assert_eq!(ttl("\"2h\""), 7_200_000);
        assert_eq!(ttl("\"1d\""), 86_400_000);
    }

    #[test]
    fn unknown_keys_name_file_line_and_key() {
        assert_eq!(
            err("[locks]\ndefault_tll = \"5m\"\n"),
            "wit.toml:2:1: locks.default_tll: unknown field `default_tll`, expected `default_ttl`"
        );
        assert_eq!(
            err("colour = \"blue\"\n"),
            "wit.toml:1:1: colour: unknown field `colour`, expected one of `locks`, `analysis`, `guard`, `sessions`, `analyzers`, `graph`, `store`, `languages`"
        );
        let g = Config::parse(
            "[graph]\ninclude = [\"src/**\"]\nexclude = [\"src/gen/**\"]\n",
            "wit.toml",
        )
        .unwrap()
        .graph;
        assert_eq!(
            (g.include, g.exclude),
            (vec!["src/**".to_owned()], vec!["src/gen/**".to_owned()])
        );
        assert!(err("[graph]\nexlude = []\n").contains("graph.exlude: unknown field"));
        assert_eq!(
            err(
                "[[analyzers]]\npath = \"a.so\"\n\n[[analyzers]]\npath = \"b.so\"\nextension = [\"b\"]\n"
            ),
            "wit.toml:6:1: analyzers[1].extension: unknown field `extension`, expected `path` or `extensions`"
        );
    }

    #[test]
    fn wrong_types_name_file_line_and_key() {
        assert_eq!(
            err("[locks]\ndefault_ttl = true\n"),
            "wit.toml:2:15: locks.default_ttl: invalid type: boolean `true`, expected a duration string such as \"30m\" or an integer number of milliseconds"
        );
        assert_eq!(
            err("[[analyzers]]\npath = 3\n"),
            "wit.toml:2:8: analyzers[0].path: invalid type: integer `3`, expected a string"
        );
        assert_eq!(
            err("[[analyzers]]\npath = \"a.so\"\nextensions = \"go\"\n"),
            "wit.toml:3:14: analyzers[0].extensions: invalid type: string \"go\", expected a sequence"
        );
        assert_eq!(
            err("locks = 5\n"),
            "wit.toml:1:9: locks: invalid type: integer `5`, expected a table"
        );
    }

    #[test]
    fn bad_values_name_file_line_and_key() {
        assert_eq!(
            err("[locks]\ndefault_ttl = \"30 minutes\"\n"),
            "wit.toml:2:15: locks.default_ttl: unknown unit \"minutes\" in duration \"30 minutes\"; use ms, s, m, h or d"
        );
        assert_eq!(
            err("[locks]\ndefault_ttl = \"1800\"\n"),
            "wit.toml:2:15: locks.default_ttl: duration \"1800\" lacks a unit (ms, s, m, h or d); write an integer, not a string, for milliseconds"
        );
        assert_eq!(
            err("[locks]\ndefault_ttl = 0\n"),
            "wit.toml:2:15: locks.default_ttl: the duration must be positive"
        );
        assert_eq!(
            err("[locks]\ndefault_ttl = -5\n"),
            "wit.toml:2:15: locks.default_ttl: the duration must be positive"
        );
        assert_eq!(
            err("[[analyzers]]\npath = \"a.so\"\nextensions = [\"go\", \".ts\"]\n"),
            "wit.toml:3:21: analyzers[0].extensions[1]: extension \".ts\" must be given without a dot and contain no '.', '/', '\\' or whitespace"
        );
        assert_eq!(
            err("[[analyzers]]\npath = \"a.so\"\nextensions = []\n"),
            "wit.toml:3:14: analyzers[0].extensions: the extension list is empty (leave the key out to keep the library's own)"
        );
        assert_eq!(
            err("[[analyzers]]\npath = \"\"\n"),
            "wit.toml:2:8: analyzers[0].path: the library path is empty"
        );
        assert_eq!(
            err("[[analyzers]]\npath = \"a.so\"\n[[analyzers]]\npath = \"a.so\"\n"),
            "wit.toml:4:8: analyzers[1].path: a.so is already listed as analyzers[0]"
        );
    }

    #[test]
    fn missing_required_keys_and_syntax_errors_are_located() {
        let e =
            Config::parse("[[analyzers]]\nextensions = [\"go\"]\n", "repo/wit.toml").unwrap_err();
        assert_eq!(e.message, "missing field `path`");
        assert_eq!(e.file, PathBuf::from("repo/wit.toml"));
        assert_eq!(e.line, 1);
        let e = Config::parse("[locks\n", "wit.toml").unwrap_err();
        assert_eq!(e.line, 1);
        assert_eq!(e.key, None);
        assert!(e.to_string().starts_with("wit.toml:1:"), "{e}");
    }

    #[test]
    fn the_documented_example_parses_to_the_defaults() {
        let example = include_str!("../../wit.toml.example");
        assert_eq!(
            Config::parse(example, "wit.toml.example").unwrap(),
            Config::default()
        );
        // With its commented-out [[analyzers]] table switched on, it parses too.
        let enabled: String = example
            .lines()
            .map(|l| {
                let on = [
                    "# [[analyzers]]",
                    "# path =",
                    "# extensions =",
                    "# [[languages]]",
                    "# id =",
                    "# grammar =",
                    "# symbol =",
                    "# queries =",
                    "# return_separator =",
                    "# nested_types =",
                ]
                .iter()
                .any(|p| l.starts_with(p));
                if on { &l[2..] } else { l }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let c = Config::parse(&enabled, "wit.toml.example").unwrap();
        assert_eq!(c.analyzers.len(), 1);
        assert_eq!(
            c.analyzers[0].path,
            PathBuf::from("tools/libwit_analyzer_go.so")
        );
        assert_eq!(c.analyzers[0].extensions, Some(vec!["go".to_owned()]));
        assert_eq!(c.languages.len(), 1);
        let lua = &c.languages[0];
        assert_eq!(lua.id, "lua");
        assert_eq!(lua.symbol, "tree_sitter_lua");
        assert_eq!(lua.queries, [PathBuf::from("queries/lua/tags.scm")]);
        assert_eq!(c.libraries().len(), 2);
    }

    #[test]
    fn a_language_entry_takes_defaults_and_resolves_its_grammar() {
        let c = Config::parse(
            "[[languages]]\nid = \"tree-lang\"\nextensions = [\"tl\"]\ngrammar = \"g/libtl.so\"\nqueries = [\"q/tags.scm\", \"./q/more.scm\"]\n",
            "wit.toml",
        )
        .unwrap();
        let l = &c.languages[0];
        assert_eq!(l.symbol, "tree_sitter_tree_lang");
        assert_eq!(l.return_separator, " ");
        assert!(!l.nested_types);
        assert_eq!(l.line, 2);
        assert_eq!(
            l.resolve_grammar(Path::new("/repo")),
            PathBuf::from("/repo/g/libtl.so")
        );
        assert_eq!(c.libraries(), [Path::new("g/libtl.so")]);
        assert!(c.needs_trust());
        assert!(!Config::default().needs_trust());
    }

    #[test]
    fn bad_language_entries_name_file_line_and_key() {
        let entry = |rest: &str| {
            err(&format!(
                "[[languages]]\nid = \"lua\"\nextensions = [\"lua\"]\ngrammar = \"l.so\"\n{rest}"
            ))
        };
        assert_eq!(
            entry("queries = []\n"),
            "wit.toml:5:11: languages[0].queries: the query list is empty (name at least one tags.scm-style file)"
        );
        assert_eq!(
            entry("queries = [\"../outside.scm\"]\n"),
            "wit.toml:5:12: languages[0].queries[0]: ../outside.scm must be a path inside the repository, relative to its root, without '..'"
        );
        assert_eq!(
            entry("queries = [\"/etc/tags.scm\"]\n"),
            "wit.toml:5:12: languages[0].queries[0]: /etc/tags.scm must be a path inside the repository, relative to its root, without '..'"
        );
        assert_eq!(
            entry("queries = [\"a.scm\"]\nsymbol = \"tree-sitter-lua\"\n"),
            "wit.toml:6:10: languages[0].symbol: \"tree-sitter-lua\" is not a C function name (letters, digits and '_')"
        );
        assert_eq!(
            entry("queries = [\"a.scm\"]\nquery = \"b.scm\"\n"),
            "wit.toml:6:1: languages[0].query: unknown field `query`, expected one of `id`, `extensions`, `grammar`, `symbol`, `queries`, `return_separator`, `nested_types`"
        );
        assert_eq!(
            err("[[languages]]\nid = \"lua\"\nextensions = [\"lua\"]\n"),
            "wit.toml:1:1: languages[0]: missing field `grammar`"
        );
        assert_eq!(
            err(
                "[[languages]]\nid = \"a b\"\nextensions = [\"x\"]\ngrammar = \"x.so\"\nqueries = [\"x.scm\"]\n"
            ),
            "wit.toml:2:6: languages[0].id: the id \"a b\" may contain only ASCII letters, digits, '-' and '_'"
        );
        let twice = "[[languages]]\nid = \"x\"\nextensions = [\"x\"]\ngrammar = \"x.so\"\nqueries = [\"x.scm\"]\n";
        assert_eq!(
            err(&format!("{twice}{twice}")),
            "wit.toml:7:6: languages[1].id: \"x\" is already languages[0]'s id"
        );
    }

    #[test]
    fn duration_strings() {
        assert_eq!(parse_duration_ms("1h30m"), Ok(5_400_000));
        assert_eq!(parse_duration_ms(" 45s "), Ok(45_000));
        assert_eq!(parse_duration_ms("1h 30m"), Ok(5_400_000));
        assert!(parse_duration_ms("").is_err());
        assert!(parse_duration_ms("m").is_err());
        assert!(parse_duration_ms("0s").is_err());
        assert!(parse_duration_ms("99999999999999999999d").is_err());
        assert!(
            parse_duration_ms("9999999999999999d")
                .unwrap_err()
                .contains("too large")
        );
    }
}
