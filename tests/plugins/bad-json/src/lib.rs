//! A valid table whose `analyze` returns malformed JSON.

use wit_core::plugin::WitAnalyzerV1;

static TABLE: WitAnalyzerV1 = WitAnalyzerV1 {
    analyze: Some(wit_test_raw::analyze_malformed),
    ..wit_test_raw::table()
};

/// The entry symbol.
#[unsafe(no_mangle)]
pub extern "C" fn wit_analyzer_v1() -> *const WitAnalyzerV1 {
    &TABLE
}
