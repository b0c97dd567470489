//! wit's built-in language analyzers, on tree-sitter: TypeScript, TSX, JavaScript, Python,
//! Java, Go, Rust and C#.
//!
//! Every language is the same generic analyzer ([`TreeSitterAnalyzer`]) driven by a grammar
//! and query files in its own folder (`src/<language>/*.scm`). TypeScript/JavaScript and
//! Python add hand-written rules in that folder's `mod.rs` (imports and exports, CommonJS
//! shapes); Java, Go, Rust and C# are declarative: a grammar crate and `tags.scm`, nothing
//! else ([`declarative`], which also loads the languages `wit.toml` adds).
//!
//! | id           | extensions          | grammar    | how        |
//! |--------------|---------------------|------------|------------|
//! | `typescript` | `ts`, `mts`, `cts`  | TypeScript | queries + rules |
//! | `tsx`        | `tsx`, `jsx`        | TSX        | queries + rules |
//! | `javascript` | `js`, `mjs`, `cjs`  | TSX        | queries + rules |
//! | `python`     | `py`, `pyi`         | Python     | queries + rules |
//! | `java`       | `java`              | Java       | `tags.scm` |
//! | `go`         | `go`                | Go         | `tags.scm` |
//! | `rust`       | `rs`                | Rust       | `tags.scm` |
//! | `csharp`     | `cs`                | C#         | `tags.scm` |
//!
//! # Linking
//! The analyzers register themselves with `inventory`, which only sees crates that are
//! linked into the binary. A binary that never names an item of this crate may have it
//! dropped by the linker, and then [`wit_core::Registry::with_builtins`] finds nothing.
//! Binaries therefore build their registry with [`builtin_registry`] (or call [`link`]
//! once) rather than calling `Registry::with_builtins` directly.
//!
//! # What the analyzers produce
//! See PROTOCOL-NOTES "What the analyzers must produce". Decisions beyond the notes:
//! - A symbol's range covers the whole definition: the `export` keyword, decorators (a
//!   Python `decorated_definition`, TypeScript method decorators), and for
//!   `const f = () => …` the whole declaration statement.
//! - Signatures include generic type parameters (`<T>(x: T): T`): changing them breaks
//!   callers as surely as changing a parameter. Decorators are never part of a signature.
//!   Each parameter keeps its own text (whitespace collapsed), so `x=1` and `x = 1` differ.
//! - Call edges come from call expressions only; `new Foo()` is not a call edge.
//! - Class fields holding an arrow or function expression (`handle = () => {…}`) are
//!   methods; abstract method signatures are methods; TypeScript overload signatures and
//!   interface members are not symbols. Methods of an anonymous class have no container.
//! - Functions assigned to properties are symbols: `res.status = function …` is
//!   `res.status` (container `res`), `exports.parse = …` and `module.exports.x = …` are the
//!   module's `parse` and `x` (no container), `Foo.prototype.bar = …` is the method
//!   `Foo.bar`; a chain (`res.set = res.header = function …`) names the function once per
//!   property, each name owning the function's calls. Object-literal methods and function-valued properties of an object bound
//!   to a name (`const api = { get() {}, post: () => … }`) are methods `api.get`,
//!   `api.post`; of `module.exports = {…}`, the module's own names. `this.x = …` is not.
//! - Two definitions sharing a name: the bare name is the first (the protocol's rule);
//!   `name#kind` is the first of that kind (`input#function` when `export type input`
//!   comes first) and `name#N` the N-th (see [`wit_core::analysis::split_qualifier`]).
//! - Call sites keep the receiver of member calls, and imports and exports are read per
//!   top-level statement (`engine/modules.rs`): the inputs of cross-file resolution. A
//!   receiver naming a local whose class its declaration says (`const doc = new Doc()`,
//!   `doc: Doc`, Python `app = Flask(…)`, `app: Flask`) is reported as `new:Doc`, like
//!   `new Doc().write()`, when no other binding of the name could be the one meant, and
//!   one naming a local whose class nothing says as `""` (`engine/locals.rs`); a class's
//!   fields of evident class are reported as values `Class.field` (`engine/fields.rs`).

pub mod csharp;
pub mod declarative;
mod engine;
#[doc(hidden)]
pub mod fixtures;
pub mod go;
pub mod java;
pub mod python;
pub mod rust;
pub mod typescript;

pub use engine::query::{MAX_QUERY_NESTING, QueryTextError, check_query_text};
pub use engine::{QueryFile, TreeSitterAnalyzer};

/// A registry holding every built-in analyzer (and nothing else).
///
/// Same as [`wit_core::Registry::with_builtins`], but calling it from a binary makes the
/// linker keep this crate and so its `inventory` registrations.
pub fn builtin_registry() -> wit_core::Registry {
    link();
    wit_core::Registry::with_builtins()
}

/// Does nothing, but referencing it forces this crate to be linked, so that its built-in
/// analyzers are visible to [`wit_core::Registry::with_builtins`]. Call it once at start-up
/// in any binary that builds its registry some other way.
#[inline(never)]
pub fn link() {}
