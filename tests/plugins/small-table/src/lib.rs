//! ABI version 1 but a `size` of 8 bytes (a header without functions): refused as too small.

use wit_core::plugin::WitAnalyzerV1;

static TABLE: WitAnalyzerV1 = WitAnalyzerV1 {
    size: 8,
    ..wit_test_raw::table()
};

/// The entry symbol.
#[unsafe(no_mangle)]
pub extern "C" fn wit_analyzer_v1() -> *const WitAnalyzerV1 {
    &TABLE
}
