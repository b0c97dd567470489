//! A perfectly good shared library that is not a wit plugin: no `wit_analyzer_v1`.

/// Something exported, so the library is not empty.
#[unsafe(no_mangle)]
pub extern "C" fn not_a_wit_plugin() -> i32 {
    42
}
