//! Git worktrees share one coordination state.
//!
//! Agents most often run one git worktree each (`git worktree add ../wt-b`). Every
//! worktree of a repository (the same `git rev-parse --git-common-dir`) is served on its
//! own socket, with its own index (one process usually serves them all, `crate::host`)
//! — each analyses the files of its own checkout, so byte ranges and signatures are the
//! ones that worktree sees — but all of them keep their locks, intents, contracts,
//! leases, events and audit log in **one** SQLite database: the main worktree's
//! `.wit/state.db`. SQLite in WAL mode serialises the daemons' writes (atomic acquire keeps
//! exactly one winner), and each daemon notices the others' commits through
//! `PRAGMA data_version` and a counter that heartbeats leave alone (`crate::others`), so
//! event waiters, lock waiters and `wit watch` see changes made through any worktree.
//!
//! Decided: the main worktree holds the state because it is the one checkout that lives
//! as long as the repository (linked worktrees come and go). Its `.wit/` passes every
//! check a `.wit/` does (ours, private, never committed), and the main worktree must be
//! owned by the daemon's user. A bare main repository has no `.wit/`: each worktree then
//! keeps its own state, and says so. A linked worktree's own old `.wit/state.db` is
//! reported (log, `daemon.status`, `wit status`), never used.

use std::path::{Path, PathBuf};
use std::process::Command;

use wit_boundary::WitDir;

/// Where a daemon keeps its state, and why.
#[derive(Debug, Clone)]
pub(crate) struct Placement {
    /// The `.wit/` holding `state.db`: the main worktree's for a linked worktree, else
    /// this checkout's own.
    pub state: WitDir,
    /// The main worktree, when this daemon serves a linked worktree and shares its state.
    pub main_worktree: Option<PathBuf>,
    /// A `state.db` of this worktree's own `.wit/` that is not used (shared state wins).
    pub separate_state: Option<PathBuf>,
    /// The git common directory (`.git` of the main worktree), when in git.
    pub common_dir: Option<PathBuf>,
    /// Why this worktree does not share (a bare main repository), to tell the user.
    pub note: Option<String>,
}

impl Placement {
    /// Whether another worktree's daemon may write to the same database.
    pub(crate) fn may_be_shared(&self) -> bool {
        self.main_worktree.is_some() || self.common_dir.as_deref().is_some_and(has_linked_worktrees)
    }
}

/// Decides where the daemon serving `root` (canonical) keeps its state.
pub(crate) fn place(root: &Path, own: &WitDir) -> Placement {
    let solo = |common_dir: Option<PathBuf>, note: Option<String>| Placement {
        state: own.clone(),
        main_worktree: None,
        separate_state: None,
        common_dir,
        note,
    };
    let Some((git_dir, common_dir)) = git_dirs(root) else {
        return solo(None, None);
    };
    if git_dir == common_dir {
        return solo(Some(common_dir), None);
    }
    match main_worktree(root, &common_dir) {
        Ok(main) => {
            let own_db = own.database();
            let separate_state = std::fs::symlink_metadata(&own_db).is_ok().then_some(own_db);
            if let Some(path) = &separate_state {
                tracing::warn!(
                    "this worktree has a state database of its own ({}); it is not used: \
                     coordination state is shared with the main worktree {}",
                    wit_core::text::escape(&path.display().to_string()),
                    wit_core::text::escape(&main.display().to_string()),
                );
            }
            Placement {
                state: WitDir::new(&main),
                main_worktree: Some(main),
                separate_state,
                common_dir: Some(common_dir),
                note: None,
            }
        }
        Err(why) => {
            tracing::warn!("state not shared with the other worktrees: {why}");
            solo(Some(common_dir), Some(why))
        }
    }
}

/// `git rev-parse --git-dir --git-common-dir`, absolute and canonical.
fn git_dirs(root: &Path) -> Option<(PathBuf, PathBuf)> {
    let out = git(root)
        .args([
            "rev-parse",
            "--path-format=absolute",
            "--git-dir",
            "--git-common-dir",
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let mut lines = text.lines();
    let git_dir = Path::new(lines.next()?).canonicalize().ok()?;
    let common = Path::new(lines.next()?).canonicalize().ok()?;
    Some((git_dir, common))
}

/// The main worktree of the repository whose common directory is `common_dir`: the first
/// entry of `git worktree list`, checked to be a non-bare checkout of ours whose `.git`
/// directory is that common directory.
fn main_worktree(root: &Path, common_dir: &Path) -> Result<PathBuf, String> {
    let out = git(root)
        .args(["worktree", "list", "--porcelain", "-z"])
        .output()
        .map_err(|e| format!("running git worktree list: {e}"))?;
    if !out.status.success() {
        return Err("git worktree list failed".into());
    }
    let mut fields = out.stdout.split(|b| *b == 0);
    let first = fields
        .next()
        .and_then(|f| f.strip_prefix(b"worktree "))
        .ok_or("git worktree list named no main worktree")?;
    if fields.take_while(|f| !f.is_empty()).any(|f| f == b"bare") {
        return Err("the main repository is bare (each worktree keeps its own state)".into());
    }
    let main = std::str::from_utf8(first)
        .map(PathBuf::from)
        .map_err(|_| "the main worktree's path is not UTF-8")?
        .canonicalize()
        .map_err(|e| format!("the main worktree is gone: {e}"))?;
    let dot_git = main
        .join(".git")
        .canonicalize()
        .map_err(|e| format!("the main worktree has no .git: {e}"))?;
    if dot_git != common_dir {
        return Err(format!(
            "the main worktree's .git ({}) is not the common directory",
            dot_git.display()
        ));
    }
    let owner = std::os::unix::fs::MetadataExt::uid(
        &std::fs::metadata(&main).map_err(|e| format!("the main worktree: {e}"))?,
    );
    if owner != wit_boundary::identity::euid() {
        return Err(format!(
            "the main worktree {} belongs to another user (uid {owner})",
            main.display()
        ));
    }
    Ok(main)
}

fn git(root: &Path) -> Command {
    wit_boundary::git::command(root)
}

/// Whether the repository has linked worktrees (`<common>/worktrees/` has entries).
fn has_linked_worktrees(common_dir: &Path) -> bool {
    std::fs::read_dir(common_dir.join("worktrees"))
        .map(|mut d| d.next().is_some())
        .unwrap_or(false)
}

/// The file of the common `.wit/` that names this clone (see [`clone_id`]).
const CLONE_ID_FILE: &str = "clone.id";

/// A random id of this clone of the repository (16 hex digits), kept in the common
/// `.wit/` `wit` (the main worktree's, so its linked worktrees share it), made the first
/// time it is asked for.
///
/// **Why (decided).** A checkout is named by its absolute path, and on one machine that is
/// unique. A PostgreSQL store is shared across machines, where two sandboxes or
/// containers commonly check out at the same path (`/workspace`): by path alone they would
/// be one checkout row of the forecast (each daemon overwriting the other's changes and
/// withdrawing the other's row), and, without an `origin` remote or a trusted `[store]
/// project`, one project (each seeing the other's locks). On a PostgreSQL store the
/// checkout is therefore `<path>#<clone id>` and the fallback project key the main
/// worktree's path with the same suffix; on SQLite (one machine, one clone's `.wit/`) the
/// path alone, as before.
pub(crate) fn clone_id(wit: &WitDir) -> Result<String, wit_boundary::WitDirError> {
    let valid = |s: &str| s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit());
    if let Some(text) = wit.read_small(CLONE_ID_FILE, 64)?
        && valid(text.trim())
    {
        return Ok(text.trim().to_owned());
    }
    let id: String = uuid::Uuid::new_v4().simple().to_string()[..16].to_owned();
    let write = |access| -> Result<(), wit_boundary::WitDirError> {
        use std::io::Write;
        wit.open(CLONE_ID_FILE, access)?
            .write_all(format!("{id}\n").as_bytes())
            .map_err(|e| wit_boundary::WitDirError::Io {
                context: format!("writing {}", wit.file(CLONE_ID_FILE).display()),
                source: e,
            })
    };
    if write(wit_boundary::witdir::Access::CreateNew).is_ok() {
        return Ok(id);
    }
    // Another worktree's daemon made it first; one that does not read is replaced.
    match wit.read_small(CLONE_ID_FILE, 64)? {
        Some(text) if valid(text.trim()) => Ok(text.trim().to_owned()),
        _ => write(wit_boundary::witdir::Access::Truncate).map(|()| id),
    }
}

/// The path part of a checkout's name (`/workspace#1f2e…` → `/workspace`).
pub(crate) fn checkout_path(checkout: &str) -> &str {
    match checkout.rsplit_once('#') {
        Some((path, id)) if id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()) => path,
        _ => checkout,
    }
}
