//! The plugin ABI: how a language analyzer in a shared library talks to wit.
//!
//! A plugin is a shared library (`.so`, `.dylib`) that exports one C function, the *entry
//! symbol*. Everything crosses as `#[repr(C)]` data or UTF-8/JSON byte buffers, never as
//! Rust types: the Rust ABI is not stable between compilers, and a plugin links its own
//! tree-sitter grammar, so no `Parser`, `Tree` or `Query` ever crosses either.
//!
//! # Writing a plugin in Rust
//!
//! Implement [`LanguageAnalyzer`] and end the crate (built as `crate-type = ["cdylib"]`)
//! with [`export_analyzer!`](crate::export_analyzer):
//!
//! ```
//! use wit_core::{AnalyzeError, FileAnalysis, LanguageAnalyzer};
//!
//! struct Toy;
//!
//! impl LanguageAnalyzer for Toy {
//!     fn id(&self) -> &str { "toy" }
//!     fn extensions(&self) -> &[&str] { &["toy"] }
//!     fn analyze(&self, _source: &str) -> Result<FileAnalysis, AnalyzeError> {
//!         Ok(FileAnalysis::default())
//!     }
//! }
//!
//! wit_core::export_analyzer!(Toy); // a unit struct
//! // or: wit_core::export_analyzer!(Toy::new()); // any expression, evaluated once
//! # fn main() {}
//! ```
//!
//! The macro generates the entry symbol and wraps every export in
//! [`std::panic::catch_unwind`], so a panic in the analyzer becomes an error status instead
//! of aborting the daemon (a panic unwinding out of an `extern "C"` function aborts the
//! process). Build plugins with the default `panic = "unwind"`; with `panic = "abort"` a
//! panic ends the daemon and no wrapper can help. The constructor expression runs once, on
//! the first call, inside the same guard.
//!
//! # The ABI, version 1 (enough to write a plugin in C)
//!
//! ```c
//! #include <stddef.h>
//! #include <stdint.h>
//!
//! /* A byte buffer allocated by the plugin. The host reads `ptr[0..len]` and hands the
//!  * buffer back, unchanged, to `free_buffer`. `cap` is the plugin's own bookkeeping
//!  * (the Rust macro stores the Vec capacity there); the host never interprets it.
//!  * An empty buffer may have ptr == NULL (then len must be 0). */
//! typedef struct {
//!     uint8_t *ptr;
//!     size_t   len;
//!     size_t   cap;
//! } WitBuffer;
//!
//! typedef struct {
//!     uint32_t abi_version;   /* must be 1 (WIT_ABI_VERSION) */
//!     uint32_t size;          /* sizeof(WitAnalyzerV1); may be larger in later minor
//!                                revisions that append fields, never smaller */
//!     int32_t (*id)(WitBuffer *out);
//!     int32_t (*extensions)(WitBuffer *out);
//!     int32_t (*analyze)(const uint8_t *src, size_t src_len, WitBuffer *out);
//!     void    (*free_buffer)(WitBuffer buf);
//! } WitAnalyzerV1;
//!
//! /* The entry symbol. Returns a pointer to a table that stays valid (and unchanged) for
//!  * as long as the library is loaded: in practice a static. */
//! const WitAnalyzerV1 *wit_analyzer_v1(void);
//! ```
//!
//! Rules:
//! - **Version check first.** The host calls `wit_analyzer_v1`, reads `abi_version` and
//!   `size` (the first 8 bytes) and refuses the library unless `abi_version == 1` and
//!   `size >= sizeof(WitAnalyzerV1)` for the host. Only then does it read the function
//!   pointers, all of which must be non-NULL. A future incompatible ABI uses a new entry
//!   symbol (`wit_analyzer_v2`), so old hosts simply do not find it.
//! - **Status codes.** Every function except `free_buffer` returns an `int32_t` status and
//!   writes one buffer to `*out` (the host initialises `*out` to `{NULL, 0, 0}` first):
//!   - `0` ([`STATUS_OK`]): `*out` holds the result;
//!   - `1` ([`STATUS_ERROR`]): `*out` holds a UTF-8 error message for the user;
//!   - `2` ([`STATUS_PANIC`]): the analyzer crashed (a caught panic); `*out` holds the
//!     panic message.
//!
//!   Any other status is reported as an error. Whatever the status, the host passes a
//!   non-NULL `out->ptr` back to `free_buffer` exactly once, and never frees it itself:
//!   **whatever the plugin allocates, the plugin frees.**
//! - **`id`** → the analyzer's id as UTF-8 (no NUL terminator needed): 1 to 64 bytes of
//!   ASCII letters, digits, `-` or `_` (`"go"`). The id names the analyzer in listings and
//!   error messages and must be unique in a registry.
//! - **`extensions`** → a JSON array of strings, the file extensions handled, without the
//!   dot: `["go"]`. At least one; each is 1 to 32 characters, none of `.`, `/`, `\` or
//!   whitespace. `wit.toml` may restrict or replace this list.
//! - **`analyze(src, src_len, out)`** → `src[0..src_len]` is the file's text, valid UTF-8
//!   without NUL bytes (not NUL-terminated; `src` may be NULL when `src_len` is 0). On
//!   success `*out` is the JSON form of [`Analysis`]:
//!
//!   ```json
//!   {"symbols": [{"name": "Save", "kind": "method", "container": "Store",
//!                 "startByte": 10, "endByte": 80, "startLine": 2, "endLine": 5,
//!                 "signature": "(ctx context.Context) error"}],
//!    "calls": [{"caller": "Store.Save", "callee": "validate"}]}
//!   ```
//!
//!   `kind` is one of `function`, `arrow`, `method`, `class`, `interface`, `type`;
//!   `container` (the class or receiver type of a method) and `signature` (only for
//!   callables, in the canonical form of [`crate::signature`]) may be omitted. Offsets are
//!   UTF-8 byte offsets into `src` (`endByte` exclusive) and must fall on character
//!   boundaries within `src_len`; lines are zero-based. `caller` is the qualified name
//!   (`Container.name` for methods) of the innermost enclosing named function; `callee`
//!   the called name as written. Unknown JSON fields are ignored, so later versions can
//!   add fields without breaking old plugins.
//!
//!   **Optional: the code graph** (same ABI version; a plugin that sends none of these
//!   keeps working, its files giving single-file edges plus the same-directory rule, see
//!   `wit_graph`). `callSites: [{caller, callee, receiver?, startByte, line}]` (one per
//!   distinct caller, callee and receiver; `receiver` is the object of a member call as
//!   written — `fmt` in `fmt.Println()` — or `""` for an expression; with them, `calls`
//!   may be empty: the edges are then the sites' (caller, callee) pairs), `imports:
//!   [{module, name?, local}]`, `exports: [{name, local?, module?}]`, `bases: [{class,
//!   base}]` and `values: [{name, class}]`, shaped as [`crate::analysis`] documents them.
//!   They are checked like the rest: names non-empty and at most 4,096 bytes, positions
//!   within the source; a violation fails the file's analysis with the reason.
//! - **Threads.** `analyze`, `id` and `extensions` may be called concurrently from several
//!   threads; the plugin must be thread safe. Calls never happen during or after unload:
//!   wit never unloads a plugin.
//! - **Failures stay contained.** Source with syntax errors is not a failure: return what
//!   could be recovered. A plugin must not unwind (C++ exceptions, Rust panics) across
//!   these functions.
//!
//! # The host side
//!
//! This module also holds the host half as pure data handling (no `dlopen` here: loading
//! libraries is the daemon's job). [`PluginAnalyzer::from_table`] validates a table
//! obtained from the entry symbol and wraps it as a [`LanguageAnalyzer`]; every result that
//! comes back is checked ([`decode_analysis`]), so a broken plugin yields
//! [`AnalyzeError::Failed`] with a clear message, never a panic or garbage offsets.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::analysis::{Analysis, FileAnalysis};
use crate::analyzer::{AnalyzeError, LanguageAnalyzer};

/// The ABI version this crate speaks (the value of [`WitAnalyzerV1::abi_version`]).
pub const ABI_VERSION: u32 = 1;

/// The name of the entry symbol, `wit_analyzer_v1`.
pub const ENTRY_SYMBOL: &str = "wit_analyzer_v1";

/// [`ENTRY_SYMBOL`] NUL-terminated, as `dlsym` wants it.
pub const ENTRY_SYMBOL_NUL: &[u8] = b"wit_analyzer_v1\0";

/// Status: success, the buffer holds the result.
pub const STATUS_OK: i32 = 0;
/// Status: the analyzer reported an error, the buffer holds a UTF-8 message.
pub const STATUS_ERROR: i32 = 1;
/// Status: the analyzer panicked (caught), the buffer holds the panic message.
pub const STATUS_PANIC: i32 = 2;

/// A byte buffer owned by the plugin that allocated it (see the module docs).
#[repr(C)]
#[derive(Debug)]
pub struct WitBuffer {
    /// First byte; may be null when `len` is 0.
    pub ptr: *mut u8,
    /// Number of valid bytes at `ptr`.
    pub len: usize,
    /// The allocator's bookkeeping (a Rust plugin stores the `Vec` capacity); the host
    /// never reads it.
    pub cap: usize,
}

impl WitBuffer {
    /// `{NULL, 0, 0}`: what the host puts in `*out` before each call.
    pub const fn empty() -> Self {
        Self {
            ptr: std::ptr::null_mut(),
            len: 0,
            cap: 0,
        }
    }

    /// Hands a `Vec`'s allocation over to a buffer; [`WitBuffer::into_vec`] takes it back.
    pub fn from_vec(bytes: Vec<u8>) -> Self {
        let mut bytes = std::mem::ManuallyDrop::new(bytes);
        Self {
            ptr: bytes.as_mut_ptr(),
            len: bytes.len(),
            cap: bytes.capacity(),
        }
    }

    /// Takes back the allocation made by [`WitBuffer::from_vec`].
    ///
    /// # Safety
    /// `self` must come from [`WitBuffer::from_vec`] *in the same binary* (same allocator),
    /// unchanged, and must not be used again afterwards.
    pub unsafe fn into_vec(self) -> Vec<u8> {
        // SAFETY: per this function's contract, ptr/len/cap are exactly what `from_vec`
        // took from a live Vec of this allocator, and ownership moves back here once.
        unsafe { Vec::from_raw_parts(self.ptr, self.len, self.cap) }
    }
}

/// `extern "C" fn(out) -> status` returning a buffer (`id`, `extensions`).
pub type TextFn = unsafe extern "C" fn(out: *mut WitBuffer) -> i32;
/// `extern "C" fn(src, src_len, out) -> status` (`analyze`).
pub type AnalyzeFn =
    unsafe extern "C" fn(src: *const u8, src_len: usize, out: *mut WitBuffer) -> i32;
/// `extern "C" fn(buf)` releasing a buffer the plugin allocated (`free_buffer`).
pub type FreeFn = unsafe extern "C" fn(buf: WitBuffer);
/// The type of the entry symbol [`ENTRY_SYMBOL`].
pub type EntryFn = unsafe extern "C" fn() -> *const WitAnalyzerV1;

/// The function table a plugin's entry symbol returns (ABI version 1).
///
/// The function pointers are `Option`s so that a NULL from a C plugin is a value the host
/// can check rather than undefined behaviour.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct WitAnalyzerV1 {
    /// Must be [`ABI_VERSION`].
    pub abi_version: u32,
    /// `size_of::<WitAnalyzerV1>()` as the plugin was compiled.
    pub size: u32,
    /// Writes the analyzer id.
    pub id: Option<TextFn>,
    /// Writes the extensions as a JSON array of strings.
    pub extensions: Option<TextFn>,
    /// Analyses one file.
    pub analyze: Option<AnalyzeFn>,
    /// Frees a buffer this plugin returned.
    pub free_buffer: Option<FreeFn>,
}

impl WitAnalyzerV1 {
    /// A complete version-1 table (what [`export_analyzer!`](crate::export_analyzer) builds).
    pub const fn new(
        id: TextFn,
        extensions: TextFn,
        analyze: AnalyzeFn,
        free_buffer: FreeFn,
    ) -> Self {
        Self {
            abi_version: ABI_VERSION,
            size: std::mem::size_of::<WitAnalyzerV1>() as u32,
            id: Some(id),
            extensions: Some(extensions),
            analyze: Some(analyze),
            free_buffer: Some(free_buffer),
        }
    }
}

/// The first 8 bytes of every table, read before anything else.
#[repr(C)]
#[derive(Clone, Copy)]
struct TableHeader {
    abi_version: u32,
    size: u32,
}

/// Why a plugin's table was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PluginError {
    /// The entry symbol returned NULL.
    #[error("the entry symbol {ENTRY_SYMBOL} returned a null table")]
    NullTable,
    /// The table is of another ABI version.
    #[error("plugin ABI version {found}, but this wit speaks version {expected}")]
    AbiMismatch {
        /// The plugin's `abi_version`.
        found: u32,
        /// [`ABI_VERSION`].
        expected: u32,
    },
    /// The table is smaller than a version-1 table.
    #[error(
        "plugin function table is {found} bytes, smaller than the {expected} bytes of ABI version 1"
    )]
    TableTooSmall {
        /// The plugin's `size`.
        found: u32,
        /// `size_of::<WitAnalyzerV1>()`.
        expected: u32,
    },
    /// A function pointer in the table is NULL.
    #[error("plugin function table has a null `{0}` function")]
    MissingFunction(&'static str),
    /// `id` failed or returned an unusable id.
    #[error("invalid analyzer id: {0}")]
    InvalidId(String),
    /// `extensions` failed or returned an unusable list.
    #[error("invalid extension list: {0}")]
    InvalidExtensions(String),
}

/// A plugin's analyzer behind the [`LanguageAnalyzer`] trait, calling through its table.
///
/// The function pointers are copied out of the validated table; the library must stay
/// loaded for the rest of the process (wit never unloads plugins).
#[derive(Debug)]
pub struct PluginAnalyzer {
    id: String,
    // Leaked once per loaded plugin, so that `extensions()` can hand out `&[&str]`;
    // plugins live as long as the process anyway.
    extensions: &'static [&'static str],
    analyze: AnalyzeFn,
    free_buffer: FreeFn,
}

impl PluginAnalyzer {
    /// Validates `table` (version and size first, then the function pointers), asks the
    /// plugin for its id and extensions, and wraps it.
    ///
    /// # Safety
    /// - `table` is null or the pointer returned by a plugin's [`ENTRY_SYMBOL`] function,
    ///   pointing to at least 8 readable bytes, and to `size` readable bytes when its
    ///   header is valid;
    /// - the library stays loaded (its code and the table stay valid) for the rest of the
    ///   process;
    /// - the plugin's functions follow the ABI in the module docs (they write one buffer to
    ///   `*out`, do not unwind, are thread safe, and accept their own buffers back).
    pub unsafe fn from_table(table: *const WitAnalyzerV1) -> Result<Self, PluginError> {
        if table.is_null() {
            return Err(PluginError::NullTable);
        }
        // SAFETY: non-null, and the caller guarantees at least 8 readable bytes; unaligned
        // read because nothing but the ABI text promises alignment.
        let header = unsafe { std::ptr::read_unaligned(table.cast::<TableHeader>()) };
        if header.abi_version != ABI_VERSION {
            return Err(PluginError::AbiMismatch {
                found: header.abi_version,
                expected: ABI_VERSION,
            });
        }
        let expected = std::mem::size_of::<WitAnalyzerV1>() as u32;
        if header.size < expected {
            return Err(PluginError::TableTooSmall {
                found: header.size,
                expected,
            });
        }
        // SAFETY: the header is valid, so per the caller's contract `size` bytes, at least
        // a whole WitAnalyzerV1, are readable; every bit pattern of the Option<fn> fields
        // is either NULL (None) or a function pointer the plugin put there.
        let table = unsafe { std::ptr::read_unaligned(table) };
        let id_fn = table.id.ok_or(PluginError::MissingFunction("id"))?;
        let extensions_fn = table
            .extensions
            .ok_or(PluginError::MissingFunction("extensions"))?;
        let analyze = table
            .analyze
            .ok_or(PluginError::MissingFunction("analyze"))?;
        let free_buffer = table
            .free_buffer
            .ok_or(PluginError::MissingFunction("free_buffer"))?;

        // SAFETY: both are functions of a validated table of a loaded plugin (caller's
        // contract), called with a valid `out`.
        let id = unsafe { call_text(id_fn, free_buffer) }.map_err(PluginError::InvalidId)?;
        validate_id(&id).map_err(PluginError::InvalidId)?;
        // SAFETY: as above.
        let json = unsafe { call_text(extensions_fn, free_buffer) }
            .map_err(PluginError::InvalidExtensions)?;
        let extensions = parse_extensions(&json).map_err(PluginError::InvalidExtensions)?;
        let extensions: Vec<&'static str> = extensions
            .into_iter()
            .map(|e| &*Box::leak(e.into_boxed_str()))
            .collect();
        Ok(Self {
            id,
            extensions: Box::leak(extensions.into_boxed_slice()),
            analyze,
            free_buffer,
        })
    }
}

impl LanguageAnalyzer for PluginAnalyzer {
    fn id(&self) -> &str {
        &self.id
    }

    fn extensions(&self) -> &[&str] {
        self.extensions
    }

    fn analyze(&self, source: &str) -> Result<FileAnalysis, AnalyzeError> {
        self.analyze_full(source).map(Into::into)
    }

    fn analyze_full(&self, source: &str) -> Result<Analysis, AnalyzeError> {
        let mut out = WitBuffer::empty();
        // SAFETY: `analyze` comes from a validated table of a plugin that stays loaded
        // (from_table's contract); `source` is valid for `len` bytes during the call and
        // `out` is a valid, initialised buffer slot.
        let status = unsafe { (self.analyze)(source.as_ptr(), source.len(), &mut out) };
        // SAFETY: `out` was written by this plugin's `analyze` and is returned to its own
        // `free_buffer` exactly once, here.
        let bytes = unsafe { take_buffer(out, self.free_buffer) }
            .map_err(|e| AnalyzeError::Failed(format!("analyzer {:?}: {e}", self.id)))?;
        match status {
            STATUS_OK => decode_analysis(&bytes, source)
                .map_err(|e| AnalyzeError::Failed(format!("analyzer {:?}: {e}", self.id))),
            STATUS_ERROR => Err(AnalyzeError::Failed(format!(
                "analyzer {:?} failed: {}",
                self.id,
                String::from_utf8_lossy(&bytes)
            ))),
            STATUS_PANIC => Err(AnalyzeError::Failed(format!(
                "analyzer {:?} panicked: {}",
                self.id,
                String::from_utf8_lossy(&bytes)
            ))),
            other => Err(AnalyzeError::Failed(format!(
                "analyzer {:?} returned unknown status {other}",
                self.id
            ))),
        }
    }
}

/// Copies a plugin buffer into a `Vec` and gives the original back to the plugin.
///
/// # Safety
/// `buf` was written by a function of the plugin whose `free_buffer` this is, and is
/// handed back only here.
unsafe fn take_buffer(buf: WitBuffer, free_buffer: FreeFn) -> Result<Vec<u8>, String> {
    if buf.ptr.is_null() {
        return if buf.len == 0 {
            Ok(Vec::new())
        } else {
            Err(format!(
                "plugin returned a null buffer of length {}",
                buf.len
            ))
        };
    }
    // SAFETY: the plugin promises `ptr[0..len]` is readable until it is freed, which
    // happens only below, after the copy.
    let bytes = unsafe { std::slice::from_raw_parts(buf.ptr, buf.len) }.to_vec();
    // SAFETY: the buffer came from this plugin and is returned exactly once.
    unsafe { free_buffer(buf) };
    Ok(bytes)
}

/// Calls `id` or `extensions` and returns the UTF-8 text, or why not.
///
/// # Safety
/// `f` and `free_buffer` belong to one validated table of a loaded plugin.
unsafe fn call_text(f: TextFn, free_buffer: FreeFn) -> Result<String, String> {
    let mut out = WitBuffer::empty();
    // SAFETY: caller's contract; `out` is a valid slot.
    let status = unsafe { f(&mut out) };
    // SAFETY: `out` was written by this plugin and is freed once, here.
    let bytes = unsafe { take_buffer(out, free_buffer) }?;
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8".to_owned())?;
    match status {
        STATUS_OK => Ok(text),
        STATUS_ERROR => Err(format!("the plugin reported an error: {text}")),
        STATUS_PANIC => Err(format!("the plugin panicked: {text}")),
        other => Err(format!("the plugin returned unknown status {other}")),
    }
}

/// Checks an analyzer id: 1 to 64 ASCII letters, digits, `-` or `_`.
pub fn validate_id(id: &str) -> Result<(), String> {
    if id.is_empty() || id.len() > 64 {
        return Err(format!("{id:?} must be 1 to 64 characters long"));
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(format!(
            "{id:?} may contain only ASCII letters, digits, '-' and '_'"
        ));
    }
    Ok(())
}

/// Checks one file extension (given without the dot).
pub fn validate_extension(ext: &str) -> Result<(), String> {
    if ext.is_empty() || ext.chars().count() > 32 {
        return Err(format!("extension {ext:?} must be 1 to 32 characters long"));
    }
    if ext
        .chars()
        .any(|c| c == '.' || c == '/' || c == '\\' || c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "extension {ext:?} must be given without a dot and contain no '.', '/', '\\' or whitespace"
        ));
    }
    Ok(())
}

/// Parses the `extensions` answer: a non-empty JSON array of valid, distinct extensions.
pub fn parse_extensions(json: &str) -> Result<Vec<String>, String> {
    let list: Vec<String> = serde_json::from_str(json).map_err(|e| {
        format!("expected a JSON array of strings such as [\"go\"], got {json:?} ({e})")
    })?;
    if list.is_empty() {
        return Err("the plugin declares no extensions".to_owned());
    }
    for (i, ext) in list.iter().enumerate() {
        validate_extension(ext)?;
        if list[..i].contains(ext) {
            return Err(format!("extension {ext:?} is listed twice"));
        }
    }
    Ok(list)
}

/// Decodes and checks the JSON an analyzer returned for `source`.
///
/// Beyond well-formed JSON of the [`Analysis`] shape, it requires non-empty names and
/// byte ranges within the source on character boundaries (`start <= end`), and line
/// ranges within the source's lines, so that nothing downstream can slice out of bounds.
pub fn decode_analysis(json: &[u8], source: &str) -> Result<Analysis, String> {
    let analysis: Analysis = serde_json::from_slice(json)
        .map_err(|e| format!("returned malformed analysis JSON: {e}"))?;
    let last_line = source.bytes().filter(|&b| b == b'\n').count();
    for s in &analysis.symbols {
        if s.name.is_empty() {
            return Err(format!(
                "returned a symbol with an empty name at bytes {}..{}",
                s.start_byte, s.end_byte
            ));
        }
        if s.start_byte > s.end_byte
            || s.end_byte > source.len()
            || !source.is_char_boundary(s.start_byte)
            || !source.is_char_boundary(s.end_byte)
        {
            return Err(format!(
                "symbol {:?} has byte range {}..{}, which is not a range of character boundaries within the {}-byte source",
                s.name,
                s.start_byte,
                s.end_byte,
                source.len()
            ));
        }
        if s.start_line > s.end_line || s.end_line > last_line {
            return Err(format!(
                "symbol {:?} has line range {}..={}, outside the source's lines 0..={last_line}",
                s.name, s.start_line, s.end_line
            ));
        }
        if let Some(c) = &s.container
            && c.is_empty()
        {
            return Err(format!("symbol {:?} has an empty container name", s.name));
        }
    }
    if let Some(e) = analysis
        .calls
        .iter()
        .find(|e| e.caller.is_empty() || e.callee.is_empty())
    {
        return Err(format!(
            "returned a call edge with an empty name ({:?} -> {:?})",
            e.caller, e.callee
        ));
    }
    // Call sites, imports and exports (optional; plugins built before them send none):
    // positions within the source, names non-empty and of bounded length.
    const MAX_NAME: usize = 4096;
    let bad = |s: &str| s.is_empty() || s.len() > MAX_NAME;
    for c in &analysis.call_sites {
        if bad(&c.caller)
            || bad(&c.callee)
            || c.receiver.as_ref().is_some_and(|r| r.len() > MAX_NAME)
        {
            return Err(format!(
                "returned a call site with an empty or over-long name ({:?} -> {:?})",
                c.caller, c.callee
            ));
        }
        if c.start_byte > source.len() || c.line > last_line {
            return Err(format!(
                "call site {:?} -> {:?} is at byte {} line {}, outside the source",
                c.caller, c.callee, c.start_byte, c.line
            ));
        }
    }
    for i in &analysis.imports {
        if bad(&i.module) || bad(&i.local) || i.name.as_deref().is_some_and(bad) {
            return Err(format!(
                "returned an import with an empty or over-long name ({:?})",
                i.module
            ));
        }
    }
    for e in &analysis.exports {
        if bad(&e.name)
            || e.local.as_deref().is_some_and(bad)
            || e.module.as_deref().is_some_and(bad)
        {
            return Err(format!(
                "returned an export with an empty or over-long name ({:?})",
                e.name
            ));
        }
    }
    for b in &analysis.bases {
        if bad(&b.class) || bad(&b.base) {
            return Err(format!(
                "returned a class base with an empty or over-long name ({:?})",
                b.class
            ));
        }
    }
    for v in &analysis.values {
        if bad(&v.name) || bad(&v.class) {
            return Err(format!(
                "returned a value with an empty or over-long name ({:?})",
                v.name
            ));
        }
    }
    for b in &analysis.bodies {
        if b.name.as_deref().is_some_and(bad)
            || b.superclass.as_deref().is_some_and(bad)
            || b.bases.iter().any(|n| bad(n))
        {
            return Err(format!(
                "returned a type body with an empty or over-long name ({:?})",
                b.name
            ));
        }
        if b.start_byte > b.end_byte || b.end_byte > source.len() {
            return Err(format!(
                "type body {:?} spans bytes {}..{}, outside the source",
                b.name, b.start_byte, b.end_byte
            ));
        }
    }
    Ok(analysis)
}

/// Support for [`export_analyzer!`](crate::export_analyzer). Not a stable API: only the
/// macro's expansion calls these.
#[doc(hidden)]
pub mod __export {
    use super::*;

    /// Returns the plugin's analyzer instance (generated by the macro).
    pub type Instance = fn() -> &'static dyn LanguageAnalyzer;

    /// `id` behind the panic guard.
    ///
    /// # Safety
    /// `out` is null or valid for a write.
    pub unsafe fn id(instance: Instance, out: *mut WitBuffer) -> i32 {
        // SAFETY: forwarded caller contract.
        unsafe { guarded(out, || Ok(instance().id().as_bytes().to_vec())) }
    }

    /// `extensions` behind the panic guard.
    ///
    /// # Safety
    /// `out` is null or valid for a write.
    pub unsafe fn extensions(instance: Instance, out: *mut WitBuffer) -> i32 {
        // SAFETY: forwarded caller contract.
        unsafe {
            guarded(out, || {
                serde_json::to_vec(instance().extensions()).map_err(|e| e.to_string())
            })
        }
    }

    /// `analyze` behind the panic guard.
    ///
    /// # Safety
    /// `src` is valid for `len` bytes (or `len` is 0); `out` is null or valid for a write.
    pub unsafe fn analyze(
        instance: Instance,
        src: *const u8,
        len: usize,
        out: *mut WitBuffer,
    ) -> i32 {
        let bytes: &[u8] = if len == 0 || src.is_null() {
            &[]
        } else {
            // SAFETY: the host passes `len` readable bytes at `src` for the whole call.
            unsafe { std::slice::from_raw_parts(src, len) }
        };
        // SAFETY: forwarded caller contract.
        unsafe {
            guarded(out, || {
                let text = crate::analyzer::source_text(bytes).map_err(|e| e.to_string())?;
                let analysis = instance().analyze_full(text).map_err(|e| e.to_string())?;
                serde_json::to_vec(&analysis).map_err(|e| e.to_string())
            })
        }
    }

    /// `free_buffer`: gives a buffer made by this binary's [`guarded`] back to its allocator.
    ///
    /// # Safety
    /// `buf` was returned by one of this plugin's exports and is freed once.
    pub unsafe extern "C" fn free_buffer(buf: WitBuffer) {
        if buf.ptr.is_null() {
            return;
        }
        // A panic must not unwind out of extern "C"; dropping a Vec<u8> cannot panic, but
        // the guard costs nothing.
        let _ = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: every non-null buffer this plugin hands out comes from
            // `WitBuffer::from_vec` in this binary (caller's contract).
            drop(unsafe { buf.into_vec() });
        }));
    }

    /// Runs `f` with panics caught, writes its bytes (or the message) to `*out`, and
    /// returns the status.
    ///
    /// # Safety
    /// `out` is null or valid for a write.
    unsafe fn guarded(out: *mut WitBuffer, f: impl FnOnce() -> Result<Vec<u8>, String>) -> i32 {
        if out.is_null() {
            return STATUS_ERROR;
        }
        let (status, bytes) = match catch_unwind(AssertUnwindSafe(f)) {
            Ok(Ok(bytes)) => (STATUS_OK, bytes),
            Ok(Err(message)) => (STATUS_ERROR, message.into_bytes()),
            Err(payload) => {
                let message = panic_message(&*payload);
                // Dropping an arbitrary payload could itself panic; keep that inside too.
                let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
                (STATUS_PANIC, message.into_bytes())
            }
        };
        // SAFETY: `out` is non-null and valid for a write (caller's contract).
        unsafe { out.write(WitBuffer::from_vec(bytes)) };
        status
    }

    fn panic_message(payload: &(dyn Any + Send)) -> String {
        if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_owned()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "panic with a non-string payload".to_owned()
        }
    }
}

/// Turns a [`LanguageAnalyzer`] into a wit plugin: generates the entry symbol
/// `wit_analyzer_v1` and its function table, every export guarded by `catch_unwind`.
///
/// Takes an expression producing the analyzer, evaluated once on first use: a unit
/// struct (`export_analyzer!(MyAnalyzer)`) or a constructor call
/// (`export_analyzer!(MyAnalyzer::new())`). The analyzer must be `'static`. Use it once per
/// crate, at the crate's top level, in a crate built as a `cdylib`. See the
/// [`plugin`](crate::plugin) module for the ABI.
#[macro_export]
macro_rules! export_analyzer {
    ($ctor:expr $(,)?) => {
        #[doc(hidden)]
        fn __wit_plugin_instance() -> &'static dyn $crate::LanguageAnalyzer {
            static INSTANCE: ::std::sync::OnceLock<
                ::std::boxed::Box<dyn $crate::LanguageAnalyzer>,
            > = ::std::sync::OnceLock::new();
            &**INSTANCE.get_or_init(|| -> ::std::boxed::Box<dyn $crate::LanguageAnalyzer> {
                ::std::boxed::Box::new($ctor)
            })
        }

        #[doc(hidden)]
        unsafe extern "C" fn __wit_plugin_id(out: *mut $crate::plugin::WitBuffer) -> i32 {
            // SAFETY: the host passes a valid `out` (ABI contract).
            unsafe { $crate::plugin::__export::id(__wit_plugin_instance, out) }
        }

        #[doc(hidden)]
        unsafe extern "C" fn __wit_plugin_extensions(out: *mut $crate::plugin::WitBuffer) -> i32 {
            // SAFETY: the host passes a valid `out` (ABI contract).
            unsafe { $crate::plugin::__export::extensions(__wit_plugin_instance, out) }
        }

        #[doc(hidden)]
        unsafe extern "C" fn __wit_plugin_analyze(
            src: *const u8,
            len: usize,
            out: *mut $crate::plugin::WitBuffer,
        ) -> i32 {
            // SAFETY: the host passes `len` readable bytes at `src` and a valid `out`.
            unsafe { $crate::plugin::__export::analyze(__wit_plugin_instance, src, len, out) }
        }

        #[doc(hidden)]
        static __WIT_PLUGIN_TABLE: $crate::plugin::WitAnalyzerV1 =
            $crate::plugin::WitAnalyzerV1::new(
                __wit_plugin_id,
                __wit_plugin_extensions,
                __wit_plugin_analyze,
                $crate::plugin::__export::free_buffer,
            );

        /// The wit plugin entry symbol (ABI version 1).
        #[unsafe(no_mangle)]
        pub extern "C" fn wit_analyzer_v1() -> *const $crate::plugin::WitAnalyzerV1 {
            &__WIT_PLUGIN_TABLE
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CallEdge, Symbol, SymbolKind, ValueClass};

    /// A real analyzer behind the real generated exports: the same code path a plugin
    /// library runs, minus `dlopen`.
    mod toy {
        use crate::{AnalyzeError, CallEdge, FileAnalysis, LanguageAnalyzer, Symbol, SymbolKind};

        pub struct Toy;

        impl LanguageAnalyzer for Toy {
            fn id(&self) -> &str {
                "toy"
            }
            fn extensions(&self) -> &[&str] {
                &["toy", "ty"]
            }
            fn analyze(&self, source: &str) -> Result<FileAnalysis, AnalyzeError> {
                if source.contains("PANIC") {
                    panic!("toy analyzer exploded");
                }
                if source.contains("FAIL") {
                    return Err(AnalyzeError::Failed("toy cannot read FAIL".into()));
                }
                // Every line `fn NAME` is a function; `call NAME` inside calls it.
                let mut analysis = FileAnalysis::default();
                let mut offset = 0;
                let mut current: Option<String> = None;
                for (line_no, line) in source.split_inclusive('\n').enumerate() {
                    let text = line.trim_end();
                    if let Some(name) = text.strip_prefix("fn ") {
                        analysis.symbols.push(Symbol {
                            name: name.into(),
                            kind: SymbolKind::Function,
                            container: None,
                            start_byte: offset,
                            end_byte: offset + text.len(),
                            start_line: line_no,
                            end_line: line_no,
                            signature: Some("()".into()),
                        });
                        current = Some(name.into());
                    } else if let (Some(callee), Some(caller)) =
                        (text.strip_prefix("call "), &current)
                    {
                        analysis.calls.push(CallEdge {
                            caller: caller.clone(),
                            callee: callee.into(),
                        });
                    }
                    offset += line.len();
                }
                Ok(analysis)
            }
        }

        crate::export_analyzer!(Toy);
    }

    fn toy() -> PluginAnalyzer {
        // SAFETY: the table is a static of this test binary, built by export_analyzer!.
        unsafe { PluginAnalyzer::from_table(toy::wit_analyzer_v1()) }.unwrap()
    }

    #[test]
    fn a_generated_table_round_trips_id_extensions_and_analysis() {
        let a = toy();
        assert_eq!(a.id(), "toy");
        assert_eq!(a.extensions(), &["toy", "ty"]);
        let src = "fn main\ncall helper\nfn helper\n";
        let analysis = a.analyze(src).unwrap();
        assert_eq!(
            analysis
                .symbols
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>(),
            ["main", "helper"]
        );
        assert_eq!(analysis.symbols[1].start_byte, 20);
        assert_eq!(
            analysis.calls,
            vec![CallEdge {
                caller: "main".into(),
                callee: "helper".into()
            }]
        );
        assert_eq!(a.analyze("").unwrap(), FileAnalysis::default());
        assert_eq!(a.analyze_full("").unwrap(), Analysis::default());
    }

    #[test]
    fn a_panic_in_the_analyzer_becomes_a_failed_error() {
        let err = toy().analyze("PANIC").unwrap_err();
        assert_eq!(
            err,
            AnalyzeError::Failed("analyzer \"toy\" panicked: toy analyzer exploded".into())
        );
        // The plugin keeps working afterwards.
        assert!(toy().analyze("fn ok\n").is_ok());
    }

    #[test]
    fn an_analyzer_error_carries_its_message() {
        assert_eq!(
            toy().analyze("FAIL").unwrap_err(),
            AnalyzeError::Failed("analyzer \"toy\" failed: toy cannot read FAIL".into())
        );
    }

    fn table_with(f: impl FnOnce(&mut WitAnalyzerV1)) -> WitAnalyzerV1 {
        // SAFETY: reading the static table of this test binary.
        let mut t = unsafe { *toy::wit_analyzer_v1() };
        f(&mut t);
        t
    }

    fn refuse(t: WitAnalyzerV1) -> PluginError {
        // SAFETY: `t` is a valid table whose functions are this binary's exports.
        unsafe { PluginAnalyzer::from_table(&t) }.unwrap_err()
    }

    #[test]
    fn tables_are_checked_before_any_call() {
        // SAFETY: null is explicitly allowed.
        let null = unsafe { PluginAnalyzer::from_table(std::ptr::null()) };
        assert_eq!(null.unwrap_err(), PluginError::NullTable);
        let e = refuse(table_with(|t| t.abi_version = 7));
        assert_eq!(
            e,
            PluginError::AbiMismatch {
                found: 7,
                expected: 1
            }
        );
        assert_eq!(
            e.to_string(),
            "plugin ABI version 7, but this wit speaks version 1"
        );
        let e = refuse(table_with(|t| t.size = 16));
        assert_eq!(
            e.to_string(),
            format!(
                "plugin function table is 16 bytes, smaller than the {} bytes of ABI version 1",
                std::mem::size_of::<WitAnalyzerV1>()
            )
        );
        let e = refuse(table_with(|t| t.analyze = None));
        assert_eq!(
            e.to_string(),
            "plugin function table has a null `analyze` function"
        );
        // A larger table (a later revision appending fields) is accepted.
        let bigger = table_with(|t| t.size += 8);
        // SAFETY: only the first size_of::<WitAnalyzerV1>() bytes are read.
        assert!(unsafe { PluginAnalyzer::from_table(&bigger) }.is_ok());
    }

    unsafe extern "C" fn bad_id(out: *mut WitBuffer) -> i32 {
        // SAFETY: the host passes a valid out.
        unsafe { out.write(WitBuffer::from_vec(b"has space".to_vec())) };
        STATUS_OK
    }
    unsafe extern "C" fn dotted_extensions(out: *mut WitBuffer) -> i32 {
        // SAFETY: the host passes a valid out.
        unsafe { out.write(WitBuffer::from_vec(br#"[".go"]"#.to_vec())) };
        STATUS_OK
    }
    unsafe extern "C" fn garbage_analysis(_: *const u8, _: usize, out: *mut WitBuffer) -> i32 {
        // SAFETY: the host passes a valid out.
        unsafe { out.write(WitBuffer::from_vec(b"{\"symbols\": [".to_vec())) };
        STATUS_OK
    }
    unsafe extern "C" fn out_of_range(_: *const u8, _: usize, out: *mut WitBuffer) -> i32 {
        let json = br#"{"symbols":[{"name":"f","kind":"function","startByte":0,"endByte":99,"startLine":0,"endLine":0}],"calls":[]}"#;
        // SAFETY: the host passes a valid out.
        unsafe { out.write(WitBuffer::from_vec(json.to_vec())) };
        STATUS_OK
    }
    unsafe extern "C" fn odd_status(_: *const u8, _: usize, _: *mut WitBuffer) -> i32 {
        42
    }

    #[test]
    fn invalid_ids_and_extensions_are_refused() {
        let e = refuse(table_with(|t| t.id = Some(bad_id)));
        assert_eq!(
            e.to_string(),
            "invalid analyzer id: \"has space\" may contain only ASCII letters, digits, '-' and '_'"
        );
        let e = refuse(table_with(|t| t.extensions = Some(dotted_extensions)));
        assert_eq!(
            e.to_string(),
            "invalid extension list: extension \".go\" must be given without a dot and contain no '.', '/', '\\' or whitespace"
        );
        assert_eq!(
            parse_extensions("[]").unwrap_err(),
            "the plugin declares no extensions"
        );
        assert_eq!(
            parse_extensions(r#"["go","go"]"#).unwrap_err(),
            "extension \"go\" is listed twice"
        );
        assert!(
            parse_extensions("go")
                .unwrap_err()
                .starts_with("expected a JSON array of strings such as [\"go\"], got \"go\"")
        );
    }

    fn analyze_with(f: AnalyzeFn, src: &str) -> AnalyzeError {
        let t = table_with(|t| t.analyze = Some(f));
        // SAFETY: valid table of this binary's functions.
        let a = unsafe { PluginAnalyzer::from_table(&t) }.unwrap();
        a.analyze(src).unwrap_err()
    }

    #[test]
    fn malformed_or_out_of_range_results_are_failed_errors() {
        let AnalyzeError::Failed(m) = analyze_with(garbage_analysis, "x") else {
            panic!("expected Failed");
        };
        assert!(
            m.starts_with("analyzer \"toy\": returned malformed analysis JSON: EOF while parsing"),
            "{m}"
        );
        assert_eq!(
            analyze_with(out_of_range, "func f() {}"),
            AnalyzeError::Failed(
                "analyzer \"toy\": symbol \"f\" has byte range 0..99, which is not a range of character boundaries within the 11-byte source".into()
            )
        );
        assert_eq!(
            analyze_with(odd_status, ""),
            AnalyzeError::Failed("analyzer \"toy\" returned unknown status 42".into())
        );
    }

    #[test]
    fn decode_analysis_checks_boundaries_and_lines() {
        let sym = |start: usize, end: usize, line: usize| Symbol {
            name: "f".into(),
            kind: SymbolKind::Function,
            container: None,
            start_byte: start,
            end_byte: end,
            start_line: line,
            end_line: line,
            signature: None,
        };
        let json = |s: Symbol| {
            serde_json::to_vec(&Analysis {
                symbols: vec![s],
                ..Default::default()
            })
            .unwrap()
        };
        let src = "é\nx";
        assert!(decode_analysis(&json(sym(0, 2, 0)), src).is_ok());
        assert!(
            decode_analysis(&json(sym(1, 2, 0)), src)
                .unwrap_err()
                .contains("byte range 1..2")
        );
        assert!(decode_analysis(&json(sym(3, 2, 0)), src).is_err());
        assert_eq!(
            decode_analysis(&json(sym(0, 2, 2)), src).unwrap_err(),
            "symbol \"f\" has line range 2..=2, outside the source's lines 0..=1"
        );
        // Unknown fields are ignored (forward compatibility).
        let extra = br#"{"symbols":[],"calls":[],"later":1}"#;
        assert!(decode_analysis(extra, src).is_ok());
    }

    #[test]
    fn decode_analysis_checks_the_names_of_bases_and_values() {
        let src = "x";
        let good = br#"{"symbols":[],"calls":[],"bases":[{"class":"A","base":"B"}],
            "values":[{"name":"app","class":"flask.Flask"}]}"#;
        let analysis = decode_analysis(good, src).unwrap();
        assert_eq!(analysis.values, vec![ValueClass::new("app", "flask.Flask")]);
        let empty_base = br#"{"symbols":[],"calls":[],"bases":[{"class":"A","base":""}]}"#;
        assert!(
            decode_analysis(empty_base, src)
                .unwrap_err()
                .contains("class base with an empty or over-long name")
        );
        let long = "C".repeat(5000);
        let long_value =
            format!(r#"{{"symbols":[],"calls":[],"values":[{{"name":"v","class":"{long}"}}]}}"#);
        assert!(
            decode_analysis(long_value.as_bytes(), src)
                .unwrap_err()
                .contains("value with an empty or over-long name")
        );
    }

    #[test]
    fn the_table_layout_is_the_documented_c_layout() {
        let word = std::mem::size_of::<usize>();
        assert_eq!(std::mem::size_of::<WitAnalyzerV1>(), 8 + 4 * word);
        assert_eq!(std::mem::offset_of!(WitAnalyzerV1, id), 8);
        assert_eq!(
            std::mem::offset_of!(WitAnalyzerV1, free_buffer),
            8 + 3 * word
        );
        assert_eq!(std::mem::size_of::<WitBuffer>(), 3 * word);
    }
}
