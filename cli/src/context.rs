//! What every command gets: the repository, the output mode, and a way to reach the daemon.

use serde_json::Value;

use crate::autostart;
use crate::client::{CallError, Client};
use crate::exit::{CmdResult, Failure};
use crate::explain::explain;
use crate::output::Style;
use crate::root::Repo;
use crate::session::Session;

/// The environment of one command.
pub struct Ctx {
    /// The repository.
    pub repo: Repo,
    /// `--json` was given.
    pub json: bool,
    /// Colours for human output.
    pub style: Style,
}

impl Ctx {
    /// A client of the repository's daemon, starting the daemon when none runs.
    pub async fn client(&self) -> CmdResult<Client> {
        let (client, started) = autostart::ensure_running(&self.repo).await?;
        if started && !self.json {
            eprintln!("wit: started the daemon for {}", self.repo.root.display());
        }
        Ok(client)
    }

    /// The caller's session, creating the shared id when needed.
    pub fn session(&self) -> CmdResult<Session> {
        Session::resolve(&self.repo)
    }
}

/// Turns a failed call into a [`Failure`]: daemon errors get a sentence about `subject`
/// (a symbol path or an id) written for the reader.
pub fn failure(err: CallError, subject: &str) -> Failure {
    match err {
        CallError::Rpc(e) => {
            let explanation = explain(&e, subject);
            Failure::Rpc {
                error: e,
                explanation,
            }
        }
        CallError::Transport(m) => Failure::Unreachable(m),
        CallError::Timeout => Failure::Unreachable("the daemon did not answer in time".into()),
    }
}

/// Calls `method` and turns an error into a [`Failure`] about `subject`.
pub async fn call<T: serde::de::DeserializeOwned>(
    client: &mut Client,
    method: &str,
    params: Value,
    subject: &str,
) -> CmdResult<T> {
    client
        .call(method, params)
        .await
        .map_err(|e| failure(e, subject))
}
