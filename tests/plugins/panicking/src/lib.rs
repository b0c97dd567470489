//! A plugin built with `export_analyzer!` whose `analyze` panics: the macro's
//! `catch_unwind` must turn that into an error status, and the daemon must survive.

use wit_core::{AnalyzeError, FileAnalysis, LanguageAnalyzer};

/// Panics on every file.
pub struct Panicking;

impl LanguageAnalyzer for Panicking {
    fn id(&self) -> &str {
        "panicking"
    }
    fn extensions(&self) -> &[&str] {
        &["panic"]
    }
    fn analyze(&self, source: &str) -> Result<FileAnalysis, AnalyzeError> {
        panic!("deliberate panic while analysing {} bytes", source.len())
    }
}

wit_core::export_analyzer!(Panicking);
