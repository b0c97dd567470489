//! `wit-core`: the vocabulary every other wit crate speaks.
//!
//! - [`analysis`]: the plain data an analyzer produces ([`Analysis`], [`Symbol`], [`CallEdge`]).
//! - [`analyzer`]: the [`LanguageAnalyzer`] trait, one `analyze(source)` call per file.
//! - [`registry`]: finds the analyzer for a file by extension; built-ins register with
//!   `inventory`, plugins are added at run time.
//! - [`signature`]: the canonical signature form shared by every analyzer.
//! - [`symbol_path`]: `file:name` symbol paths.
//! - [`plugin`]: the C ABI of analyzer plugins, [`export_analyzer!`] and the host-side
//!   [`PluginAnalyzer`].
//! - [`config`]: parsing `wit.toml`.
//! - [`text`]: escaping text others chose before it reaches a terminal or a log.
//! - [`protocol`]: the wire types of protocol v1 (`openrpc.json`) and its error codes.
//!
//! This crate does no I/O and knows nothing of tokio, SQLite or HTTP, so that a language
//! plugin can depend on it alone.

pub mod analysis;
pub mod analyzer;
pub mod config;
pub mod plugin;
pub mod protocol;
pub mod registry;
pub mod signature;
pub mod symbol_path;
pub mod text;

pub use analysis::{
    Analysis, CallEdge, CallSite, ClassBase, Export, FileAnalysis, Import, Symbol, SymbolKind,
    TypeBody, ValueClass,
};
pub use analyzer::{AnalyzeError, IncrementalState, LanguageAnalyzer};
pub use config::{AnalyzerConfig, Config, ConfigError, LanguageConfig};
pub use plugin::{PluginAnalyzer, PluginError};
pub use registry::{AnalyzerOrigin, BuiltinAnalyzer, Registry, RegistryError};
pub use symbol_path::SymbolPath;

/// Re-exported so that `inventory::submit!` in analyzer crates resolves without a direct
/// dependency on `inventory`.
pub use inventory;
