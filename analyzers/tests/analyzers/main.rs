//! Integration tests of the built-in analyzers, on the fixtures in `testdata/fixtures`.
//!
//! One test target (with one module per concern) so the grammars are linked once.

mod common;
mod declarative;
mod graph_inputs;
mod members;
mod python;
mod registry;
mod robustness;
mod typescript;
