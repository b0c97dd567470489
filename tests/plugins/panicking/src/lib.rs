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
        // One quiet line instead of the default message and backtrace: this panic is the
        // test, and a backtrace in the test output would look like a failure. The hook is
        // this library's own (a cdylib carries its own std), so the host is unaffected.
        static QUIET: std::sync::Once = std::sync::Once::new();
        QUIET.call_once(|| {
            std::panic::set_hook(Box::new(|info| {
                eprintln!("wit-test-panicking: deliberate panic (caught by export_analyzer!): {info}");
            }));
        });
        panic!("deliberate panic while analysing {} bytes", source.len())
    }
}

wit_core::export_analyzer!(Panicking);
