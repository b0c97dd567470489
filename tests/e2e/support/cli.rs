//! Running the real `wit` CLI in a temporary git repository.
//!
//! [`CliRepo`] is a [`TempRepo`] with `git init` done, whose daemon (however it was
//! started: auto-start, `wit init`, `wit daemon start`) is stopped with `wit daemon stop`
//! when the value is dropped, so no test leaks a daemon.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use super::repo::TempRepo;
use super::wit_bin;

/// The outcome of one `wit` invocation.
#[derive(Debug)]
pub struct Run {
    /// The exit code (-1 when killed by a signal).
    pub code: i32,
    /// Stdout as text.
    pub stdout: String,
    /// Stderr as text.
    pub stderr: String,
}

impl Run {
    /// The exit code and the output, as text.
    pub fn from_output(out: Output) -> Self {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Asserts exit code 0 and returns `self`.
    #[track_caller]
    pub fn ok(self) -> Self {
        assert_eq!(self.code, 0, "wit failed: {self:#?}");
        self
    }

    /// Asserts exit code `code` and returns `self`.
    #[track_caller]
    pub fn code(self, code: i32) -> Self {
        assert_eq!(self.code, code, "unexpected exit code: {self:#?}");
        self
    }

    /// Stdout parsed as exactly one JSON document.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {self:#?}"))
    }
}

/// A `wit` command with a clean environment: no inherited session, repo root or colour
/// settings, git isolated from the user's configuration.
pub fn wit_command(cwd: &Path, session: Option<&str>, args: &[&str]) -> Command {
    let mut cmd = Command::new(wit_bin());
    cmd.args(args).current_dir(cwd).stdin(Stdio::null());
    clean_env(&mut cmd);
    if let Some(s) = session {
        cmd.env("WIT_SESSION", s);
    }
    cmd
}

/// Removes what would leak from the developer's environment into a test.
pub fn clean_env(cmd: &mut Command) {
    super::store::apply(cmd);
    for var in [
        "WIT_SESSION",
        "CLAUDE_SESSION_ID",
        "WIT_REPO_ROOT",
        "NO_COLOR",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Wit Test")
        .env("GIT_AUTHOR_EMAIL", "wit@example.invalid")
        .env("GIT_COMMITTER_NAME", "Wit Test")
        .env("GIT_COMMITTER_EMAIL", "wit@example.invalid");
}

/// A temp git repository driven through the `wit` CLI; stops its daemon on drop.
pub struct CliRepo {
    /// The directory.
    pub repo: TempRepo,
}

impl CliRepo {
    /// A fresh repository with `git init` done (no `.wit/` yet).
    pub fn new() -> Self {
        let repo = TempRepo::new();
        let r = CliRepo { repo };
        r.git(&["init", "-q", "-b", "main"]);
        // `wit init` puts `.wit/` in `.gitignore`; tests that start a daemon without it
        // would otherwise have `git add .` race the daemon's own files (its database, the
        // forecast's content store being renamed into place) and fail now and then.
        let exclude = r.path().join(".git/info/exclude");
        let mut text = std::fs::read_to_string(&exclude).unwrap_or_default();
        text.push_str("/.wit/\n");
        std::fs::write(&exclude, text).expect("write .git/info/exclude");
        r
    }

    /// The root.
    pub fn path(&self) -> &Path {
        self.repo.path()
    }

    /// Writes a file.
    pub fn write(&self, rel: &str, content: &str) {
        self.repo.write(rel, content);
    }

    /// Runs `wit` at the root as `session` (None: no WIT_SESSION).
    pub fn wit(&self, session: Option<&str>, args: &[&str]) -> Run {
        self.wit_in(self.path(), session, args)
    }

    /// Runs `wit` in `cwd` as `session`.
    pub fn wit_in(&self, cwd: &Path, session: Option<&str>, args: &[&str]) -> Run {
        Run::from_output(wit_command(cwd, session, args).output().expect("run wit"))
    }

    /// Runs `git` at the root (isolated from user config) and returns the output,
    /// failing the test when git fails.
    #[track_caller]
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.git_run(args, None);
        assert_eq!(out.code, 0, "git {args:?} failed: {out:#?}");
        out.stdout
    }

    /// Runs `git` at the root, as `session` for the hooks, whatever its exit code.
    pub fn git_run(&self, args: &[&str], session: Option<&str>) -> Run {
        let mut cmd = Command::new("git");
        cmd.args(args).current_dir(self.path()).stdin(Stdio::null());
        clean_env(&mut cmd);
        if let Some(s) = session {
            cmd.env("WIT_SESSION", s);
        }
        Run::from_output(cmd.output().expect("run git"))
    }

    /// Creates `.wit/` as wit would (a private directory, 0700), for tests that plant
    /// files in it before wit runs; returns its path.
    pub fn private_wit_dir(&self) -> std::path::PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let dir = self.path().join(".wit");
        std::fs::create_dir(&dir).expect("create .wit");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).expect("chmod .wit");
        dir
    }

    /// Pids of running `wit daemon run` processes serving this repository.
    pub fn daemon_pids(&self) -> Vec<u32> {
        daemon_pids_for(self.path())
    }
}

impl Default for CliRepo {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for CliRepo {
    fn drop(&mut self) {
        let mut cmd = wit_command(self.path(), None, &["daemon", "stop"]);
        cmd.env("WIT_REPO_ROOT", self.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let _ = cmd.status();
    }
}

/// Pids of live `wit daemon run` processes whose `WIT_REPO_ROOT` or working directory is
/// `root` (read from /proc), not counting their own children.
///
/// A daemon starts `git` and other programs: between its fork and the child's exec, the
/// child has the daemon's command line, environment and working directory, so a scan at
/// that moment saw two daemons now and then (the flaky `cli_daemon` tests). Such a child's
/// parent is the daemon itself, which a second daemon's never is (auto-start detaches
/// each with `setsid`, from a `wit` command).
pub fn daemon_pids_for(root: &Path) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        let is_daemon = args.len() >= 3 && args[1] == b"daemon" && args[2] == b"run";
        if !is_daemon {
            continue;
        }
        // `pid (comm) state ppid …`; comm may contain spaces and parentheses.
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let mut rest = stat
            .rsplit_once(')')
            .map(|(_, r)| r.split_whitespace())
            .into_iter()
            .flatten();
        let state = rest.next();
        let ppid = rest.next().and_then(|p| p.parse::<u32>().ok());
        if matches!(state, Some("Z" | "X")) {
            continue;
        }
        let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let want = format!("WIT_REPO_ROOT={}", root.display());
        let by_env = environ.split(|b| *b == 0).any(|v| v == want.as_bytes());
        if by_env || cwd.as_deref() == Some(root) {
            found.push((pid, ppid));
        }
    }
    not_their_children(&found)
}

/// The pids of `found` (pid, parent pid) whose parent is not itself among them.
pub fn not_their_children(found: &[(u32, Option<u32>)]) -> Vec<u32> {
    found
        .iter()
        .filter(|(_, parent)| !parent.is_some_and(|p| found.iter().any(|(q, _)| *q == p)))
        .map(|(pid, _)| *pid)
        .collect()
}
