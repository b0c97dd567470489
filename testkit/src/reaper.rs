//! No cluster outlives the test process that started it.
//!
//! `pg_ctl start` detaches the server, so a test process killed with SIGKILL (a timeout,
//! an impatient Ctrl-\) never runs `Cluster`'s `Drop`, and the server would run on with its
//! temp directory. Two things prevent that:
//!
//! - **A guard per cluster**: a small `sh` in a session of its own, blocked reading a pipe
//!   whose only writer is the test process. When that process ends — normally or killed —
//!   the pipe closes, and the guard stops the server at once and removes its directory.
//!   (The pipe is close-on-exec, so no other child of the test holds it open.)
//! - **A sweep** at the first cluster of every test process: a directory left by an owner
//!   that is gone (its guard killed with it, a machine reset) is stopped and removed.
//!   Each cluster directory names its owner's pid in [`OWNER_FILE`].

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};

/// The file of a cluster directory holding its owner's pid.
pub const OWNER_FILE: &str = "owner.pid";

/// The prefix of every cluster directory (in the system's temp directory).
pub const DIR_PREFIX: &str = "wit-pg-";

/// Stops its cluster when dropped or when this process ends, whichever is first.
pub(crate) struct Guard {
    pipe: Option<ChildStdin>,
    child: Child,
}

impl Guard {
    /// Records this process as the owner of `dir` and starts its guard, which runs `stop`
    /// (a program and its arguments: an immediate stop of the server) and removes `dir`.
    pub(crate) fn start(dir: &Path, stop: &[OsString]) -> Guard {
        std::fs::write(dir.join(OWNER_FILE), std::process::id().to_string())
            .expect("write the cluster's owner file");
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(r#"read _; "$@" >/dev/null 2>&1; rm -rf -- "$WIT_GUARDED_DIR""#)
            .arg("wit-pg-guard")
            .args(stop)
            .env("WIT_GUARDED_DIR", dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: setsid is async-signal-safe; it only detaches the guard from the test's
        // process group, so that a signal to the whole group (Ctrl-C) does not end it
        // before it has done its work.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        let mut child = cmd.spawn().expect("start the cluster's guard (sh)");
        Guard {
            pipe: child.stdin.take(),
            child,
        }
    }

    /// The guard's pid (for tests that kill it).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        // Closing the pipe is the signal; then wait, so that no zombie is left behind.
        drop(self.pipe.take());
        let _ = self.child.wait();
    }
}

/// Stops and removes every cluster directory in `temp` whose owner process is gone;
/// `stop` stops the server of one data directory at once.
pub(crate) fn sweep(temp: &Path, stop: impl Fn(&Path)) {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let dir = entry.path();
        let is_cluster = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(DIR_PREFIX));
        // No owner file: being created right now, or not ours. Another local user can
        // make a `wit-pg-*` directory too, naming any pid and any `postmaster.pid`: only
        // an owner file this user wrote (a regular file, not a link, owned by us) is
        // believed, so the sweep never stops a server, signals a process or removes a
        // directory on someone else's word.
        let owner =
            owner_file(&dir.join(OWNER_FILE)).and_then(|t| t.trim().parse::<libc::pid_t>().ok());
        if let (true, Some(owner)) = (is_cluster, owner)
            && !alive(owner)
        {
            stop(&dir.join("data"));
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// The text of the owner file at `path`, when it is a regular file (not a symlink) owned
/// by this process's user.
fn owner_file(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).ok()?;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if !meta.file_type().is_file() || meta.uid() != me {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// Whether a process with this pid exists (a pid reused by another process counts as
/// alive: the directory is then left alone, never wrongly removed).
pub fn alive(pid: libc::pid_t) -> bool {
    // 0 and negative pids name process groups: never probe those.
    if pid <= 0 {
        return true;
    }
    // SAFETY: kill with signal 0 only checks that the process exists (EPERM: it does).
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}
