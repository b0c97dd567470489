//! A plugin built with `export_analyzer!` whose id is not a valid analyzer id.

use wit_core::{AnalyzeError, FileAnalysis, LanguageAnalyzer};

/// Declares the id `"bad id!"`.
pub struct BadId;

impl LanguageAnalyzer for BadId {
    fn id(&self) -> &str {
        "bad id!"
    }
    fn extensions(&self) -> &[&str] {
        &["badid"]
    }
    fn analyze(&self, _source: &str) -> Result<FileAnalysis, AnalyzeError> {
        Ok(FileAnalysis::default())
    }
}

wit_core::export_analyzer!(BadId);
