//! What the edit-time guard and the agents' session hooks share: the time limit of one
//! hook run and the `[guard]` table of `wit.toml`. Below both, so that the guard (which
//! hands session events to `agent_session`) and `agent_session` import one way.

use std::time::Duration;

use wit_boundary::RepoFileError;
use wit_core::text::escape;

use crate::root::Repo;

/// The whole check's time limit: an agent waits on it before every edit.
pub const LIMIT: Duration = Duration::from_secs(2);

/// The `[guard]` table of the repository's `wit.toml` (defaults when there is none).
pub(crate) fn guard_config(repo: &Repo) -> Result<wit_core::config::GuardConfig, String> {
    config(repo).map(|c| c.guard)
}

/// How claims protect agents sharing the checkout (`[guard] claimed`, `claim_idle`).
pub(crate) fn claims_config(repo: &Repo) -> Result<wit_core::config::ClaimsConfig, String> {
    config(repo).map(|c| c.claims)
}

/// The repository's `wit.toml` (defaults when there is none).
fn config(repo: &Repo) -> Result<wit_core::Config, String> {
    use wit_core::config::FILE_NAME;
    match wit_boundary::read_repo_file(&repo.root, FILE_NAME, 1024 * 1024) {
        Ok(bytes) => {
            let text = String::from_utf8(bytes).map_err(|_| format!("{FILE_NAME} is not UTF-8"))?;
            wit_core::Config::parse(&text, repo.root.join(FILE_NAME))
                .map_err(|e| escape(&e.to_string()).into_owned())
        }
        Err(RepoFileError::NotFound { .. }) => Ok(Default::default()),
        Err(e) => Err(escape(&e.to_string()).into_owned()),
    }
}
