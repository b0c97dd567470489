//! What the agent instructions `wit init` writes must teach, one phrase per step of the
//! workflow.
//!
//! Shared by the end-to-end test of `wit init` (`support::instructions`) and the unit test
//! of the instruction text in `cli/src/commands/init.rs` (which includes this file with
//! `#[path]`), so that a step added to the workflow is required by both at once.

/// Phrases the instructions must contain.
pub(crate) const WORKFLOW_PHRASES: [&str; 10] = [
    "WIT_SESSION",
    "wit status",
    "wit declare",
    "wit lock",
    "Re-read the file",
    "wit claims",
    "LOCK_CONFLICT",
    "retry later",
    "wit release",
    "wit intent done",
];
