//! A linked git worktree for the tests (`git worktree add`), its daemon stopped on drop.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::cli::{CliRepo, Run, clean_env, wit_command};
use super::client::Client;
use super::repo::TempRepo;

/// A linked worktree of `main` in a temp directory of its own, on a new branch named
/// like it; its daemon is stopped on drop.
pub struct Worktree {
    _dir: TempRepo,
    /// Its root.
    pub path: PathBuf,
}

impl Worktree {
    /// `git worktree add <tmp>/<name> -b <name>` in `main`.
    pub fn add(main: &CliRepo, name: &str) -> Worktree {
        let dir = TempRepo::new();
        let path = dir.path().join(name);
        main.git(&["worktree", "add", "-q", path.to_str().unwrap(), "-b", name]);
        Worktree { _dir: dir, path }
    }

    /// Runs `wit` at its root as `session`.
    pub fn wit(&self, session: Option<&str>, args: &[&str]) -> Run {
        self.wit_in(&self.path, session, args)
    }

    /// Runs `wit` in `cwd` as `session`.
    pub fn wit_in(&self, cwd: &Path, session: Option<&str>, args: &[&str]) -> Run {
        Run::from_output(wit_command(cwd, session, args).output().unwrap())
    }

    /// Writes a file of the checkout.
    pub fn write(&self, rel: &str, content: &str) {
        std::fs::write(self.path.join(rel), content).unwrap();
    }

    /// Runs `git` at its root (as `session`, for the hooks), whatever its exit code.
    pub fn git(&self, args: &[&str], session: Option<&str>) -> Run {
        let mut cmd = std::process::Command::new("git");
        cmd.args(args).current_dir(&self.path).stdin(Stdio::null());
        clean_env(&mut cmd);
        if let Some(s) = session {
            cmd.env("WIT_SESSION", s);
        }
        Run::from_output(cmd.output().unwrap())
    }

    /// A connection to its daemon.
    pub fn client(&self) -> Client {
        Client::connect(&self.path.join(".wit/daemon.sock")).unwrap()
    }
}

/// A main worktree (branch `main`) with `files` and a `.gitignore` of `.wit/` committed and
/// `wit init` done, and a linked worktree `wt-b` (branch `wt-b`) with its daemon started.
pub fn main_and_linked(files: &[(&str, &str)]) -> (CliRepo, Worktree) {
    let main = CliRepo::new();
    for (rel, content) in files {
        main.write(rel, content);
    }
    main.write(".gitignore", ".wit/\n");
    main.git(&["add", "."]);
    main.git(&["commit", "-q", "-m", "initial"]);
    main.wit(None, &["init"]).ok();
    let wt = Worktree::add(&main, "wt-b");
    // The linked worktree's daemon starts on its first command.
    wt.wit(None, &["daemon", "start"]).ok();
    (main, wt)
}

impl Drop for Worktree {
    fn drop(&mut self) {
        let mut cmd = wit_command(&self.path, None, &["daemon", "stop"]);
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        let _ = cmd.status();
    }
}
