//! Nothing to call: this crate exists so that `cargo metadata` of the tests/plugins
//! workspace downloads tree-sitter-lua and names the directory of its sources, which the
//! `[[languages]]` tests compile into `liblua.so` with the C compiler (see
//! `tests/e2e/support/plugins.rs`, `lua_grammar`). Lua is not one of wit's built-in
//! languages, and its crate ships tree-sitter's own `queries/tags.scm`, which the tests use
//! unchanged.
