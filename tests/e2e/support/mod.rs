//! Shared helpers for the end-to-end tests.
//!
//! - [`repo::TempRepo`]: a temporary repository with files written into it.
//! - [`daemon::Daemon`]: a real `wit daemon run` child on a repo, ready when it answers
//!   `ping`, killed on drop.
//! - [`client::Client`]: HTTP/1.1 over `std::os::unix::net::UnixStream` with keep-alive,
//!   plus raw byte access for malformed-input tests; [`client::rpc_request`] builds a v1
//!   request body.
//! - [`claims::claim_lines`]: the claims of an answer as sorted lines.
//! - [`instructions`]: what the instructions `wit init` writes must teach.
//! - [`plugins`]: builds the Go plugin and the broken test plugins (once per process).
//! - [`plugin_repo::PluginRepo`]: a git repository whose `wit` and `git` runs get an
//!   isolated `HOME`/`XDG_CONFIG_HOME` (the trust store), plus a Go source file.
//! - [`pty::Pty`]: a command on a real pseudo-terminal (util-linux `script`), for the
//!   terminal-only paths.
//! - [`fake_peer::FakePeer`]: a listener that is not wit (python3, maybe as another
//!   user), recording what reaches it; [`fake_peer::other_user`] makes a second user.
//! - [`sse::EventStream`]: a server-sent-events reader for `GET /events`.
//! - [`stand_in::OldDaemon`]: a stand-in daemon of another wit version on a repo's socket.
//! - [`store`]: which store the daemons under test use (`WIT_TEST_STORE`).
//! - [`worktree::Worktree`]: a linked git worktree, its daemon stopped on drop.

#![allow(dead_code)]

pub mod claims;
pub mod cli;
pub mod client;
pub mod daemon;
pub mod events;
pub mod fake_peer;
pub mod instructions;
pub mod plugin_repo;
pub mod plugins;
pub mod pty;
pub mod repo;
pub mod sse;
pub mod stand_in;
pub mod store;
pub mod worktree;

/// Path of the `wit` binary under test.
pub fn wit_bin() -> &'static str {
    env!("CARGO_BIN_EXE_wit")
}
