//! `wit-forecast`: the conflict forecast between checkouts of one repository.
//!
//! Two agents editing in two checkouts (git worktrees) collide when their branches meet,
//! long after either could have avoided it. The forecast says it while both are still
//! editing, from what each checkout changed against the pair's merge base:
//!
//! - [`diff_symbols`] compares one file's definitions at the base and now (the daemon
//!   analyses both versions with the repository's analyzers): added, removed, body,
//!   signature, renamed. Each definition is compared by its own text, its nested
//!   definitions left out, so edits of two methods of one class are two changes.
//! - [`forecast`] compares two checkouts' changes: *same symbol* (both changed one
//!   definition, unless both made the very same change), *signature vs callers* (one
//!   changed, removed or renamed a definition, the other's changed or added code calls it,
//!   as that checkout's code graph resolves the call; name-only guesses are not used), and
//!   *textual* (a file no analyzer covers changed by both, when git's own three-way merge,
//!   run by the caller, does not apply cleanly).
//!
//! - [`claims`] attributes one checkout's uncommitted changes to the sessions (agents)
//!   that made them, finds the edits that would undo another session's change, and hands
//!   each session's claims to [`forecast`] as a party of its own: a collision between two
//!   sessions of one checkout is the same thing as one between two checkouts.
//!
//! Pure: no I/O. The daemon owns the watching, the git objects and the store.

pub mod claims;
mod diff;
mod model;
mod pair;
mod signature;

pub use diff::{Definition, Version, definitions_of, diff_symbols, outside_text, own_digest};
pub use model::{CallRef, Change, FileChange, Forecast, Hop, Kind, Outside, Side, SymbolChange};
pub use pair::{Checkout, Merge, TextVerdict, forecast, session_label, short};
pub use signature::breaks_callers;

#[cfg(test)]
mod claims_tests;
#[cfg(test)]
mod tests;
