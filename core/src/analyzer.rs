//! The [`LanguageAnalyzer`] trait: the one boundary between wit and a language.

use crate::analysis::{Analysis, FileAnalysis};

/// Why an analyzer could not produce a [`Analysis`].
///
/// Source that merely has syntax errors is *not* an error: analyzers recover what they can
/// (tree-sitter's error recovery) and return it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalyzeError {
    /// The bytes are not UTF-8 text (a binary file, or another encoding).
    #[error("file is not valid UTF-8 text (byte {valid_up_to} starts an invalid sequence)")]
    NotUtf8 {
        /// Length of the longest valid UTF-8 prefix.
        valid_up_to: usize,
    },
    /// The source looks binary (it contains NUL bytes).
    #[error("file looks binary (contains NUL bytes)")]
    Binary,
    /// The analyzer failed for another reason (a plugin panicked, returned malformed data, …).
    #[error("{0}")]
    Failed(String),
}

/// Analyses source code of one language.
///
/// Implementations must be cheap to call concurrently from several threads (`Send + Sync`);
/// an implementation that needs a mutable parser keeps one per thread.
pub trait LanguageAnalyzer: Send + Sync {
    /// A short stable identifier: `"typescript"`, `"python"`, `"go"`.
    fn id(&self) -> &str;

    /// File extensions handled, without the dot (`["ts", "mts"]`).
    fn extensions(&self) -> &[&str];

    /// Parses `source` once and returns its symbols and call edges: the first published
    /// shape ([`FileAnalysis`], frozen), which every analyzer implements.
    ///
    /// An analyzer that also reports call sites, imports, exports or class bases (the
    /// inputs of the cross-file code graph) implements [`LanguageAnalyzer::analyze_full`]
    /// too, and may implement this one as `self.analyze_full(source).map(Into::into)`.
    fn analyze(&self, source: &str) -> Result<FileAnalysis, AnalyzeError>;

    /// Everything the analyzer knows about `source` ([`Analysis`]); what wit calls.
    ///
    /// The default widens [`LanguageAnalyzer::analyze`]: an analyzer written against the
    /// first shape works unchanged, its files giving single-file call edges.
    fn analyze_full(&self, source: &str) -> Result<Analysis, AnalyzeError> {
        self.analyze(source).map(Analysis::from)
    }

    /// Like [`LanguageAnalyzer::analyze_full`], for a file analysed before: `state` is what
    /// the previous call on this file left behind (`None` the first time), and the analyzer
    /// may use it to redo only the part of the work the change needs, then leave new state
    /// for the next call. The result must equal `analyze_full(source)` exactly.
    ///
    /// The default ignores `state` and calls `analyze_full`; plugins never need to override
    /// it. The built-in tree-sitter analyzers keep the last syntax tree and reparse
    /// incrementally. Callers bound how much state they keep (see [`IncrementalState`]).
    fn analyze_incremental(
        &self,
        source: &str,
        state: &mut Option<IncrementalState>,
    ) -> Result<Analysis, AnalyzeError> {
        *state = None;
        self.analyze_full(source)
    }
}

/// What an analyzer keeps between two analyses of one file (opaque to the caller): for the
/// built-ins, the previous source, syntax tree and per-declaration results. Its memory is
/// of the order of a few times the source's length.
pub type IncrementalState = Box<dyn std::any::Any + Send + Sync>;

/// Turns raw file bytes into text an analyzer can take, or the error saying why not.
///
/// Callers reading files from disk (or from git) go through this so that binary and
/// non-UTF-8 input gives an error value rather than garbage symbols.
pub fn source_text(bytes: &[u8]) -> Result<&str, AnalyzeError> {
    let text = std::str::from_utf8(bytes).map_err(|e| AnalyzeError::NotUtf8 {
        valid_up_to: e.valid_up_to(),
    })?;
    if text.contains('\0') {
        return Err(AnalyzeError::Binary);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_text_rejects_invalid_utf8_and_nul() {
        assert_eq!(source_text(b"abc").unwrap(), "abc");
        assert_eq!(
            source_text(b"ab\xff").unwrap_err(),
            AnalyzeError::NotUtf8 { valid_up_to: 2 }
        );
        assert_eq!(source_text(b"a\0b").unwrap_err(), AnalyzeError::Binary);
    }
}
