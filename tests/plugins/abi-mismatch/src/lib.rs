//! A complete table that claims ABI version 999: the host must refuse it before any call.

use wit_core::plugin::WitAnalyzerV1;

static TABLE: WitAnalyzerV1 = WitAnalyzerV1 {
    abi_version: 999,
    ..wit_test_raw::table()
};

/// The entry symbol.
#[unsafe(no_mangle)]
pub extern "C" fn wit_analyzer_v1() -> *const WitAnalyzerV1 {
    &TABLE
}
