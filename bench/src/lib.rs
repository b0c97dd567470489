//! What wit-bench's binaries share: the real daemon under test and a client of its socket
//! (`wit-bench`, `claims-eval`), and for the evaluations on real histories
//! (`forecast-eval`, `claims-eval`, `graph-eval`) git driven as a child process on a
//! throw-away clone and the pairs of changes taken from a history.

pub mod args;
pub mod client;
pub mod daemon;
pub mod git_tree;
pub mod history;
