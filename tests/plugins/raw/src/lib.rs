//! Hand-written implementations of the plugin ABI functions, for test plugins that need a
//! table `export_analyzer!` would never produce.

use wit_core::plugin::{STATUS_OK, WitAnalyzerV1, WitBuffer};

fn write(out: *mut WitBuffer, bytes: &[u8]) -> i32 {
    // SAFETY: the host passes a valid `out` (ABI contract).
    unsafe { out.write(WitBuffer::from_vec(bytes.to_vec())) };
    STATUS_OK
}

/// `id` → `"broken"`.
///
/// # Safety
/// `out` is valid for a write (the host's side of the ABI).
pub unsafe extern "C" fn id(out: *mut WitBuffer) -> i32 {
    write(out, b"broken")
}

/// `extensions` → `["broken"]`.
///
/// # Safety
/// `out` is valid for a write (the host's side of the ABI).
pub unsafe extern "C" fn extensions(out: *mut WitBuffer) -> i32 {
    write(out, br#"["broken"]"#)
}

/// `analyze` → an empty analysis.
///
/// # Safety
/// `out` is valid for a write (the host's side of the ABI).
pub unsafe extern "C" fn analyze_empty(_src: *const u8, _len: usize, out: *mut WitBuffer) -> i32 {
    write(out, br#"{"symbols":[],"calls":[]}"#)
}

/// `analyze` → JSON cut off in the middle.
///
/// # Safety
/// `out` is valid for a write (the host's side of the ABI).
pub unsafe extern "C" fn analyze_malformed(
    _src: *const u8,
    _len: usize,
    out: *mut WitBuffer,
) -> i32 {
    write(out, br#"{"symbols":[{"name":"#)
}

/// `free_buffer` for buffers made by [`WitBuffer::from_vec`] in this library.
///
/// # Safety
/// `buf` was returned by one of the functions above and is freed once.
pub unsafe extern "C" fn free_buffer(buf: WitBuffer) {
    if !buf.ptr.is_null() {
        // SAFETY: every buffer handed out above comes from `WitBuffer::from_vec`.
        drop(unsafe { buf.into_vec() });
    }
}

/// A complete, valid version-1 table of the functions above.
pub const fn table() -> WitAnalyzerV1 {
    WitAnalyzerV1::new(id, extensions, analyze_empty, free_buffer)
}
