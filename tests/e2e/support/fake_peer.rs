//! A listener that is not wit's daemon, in a process of its own: what an attacker would
//! put behind a socket a repository points wit at. It answers every HTTP request with a
//! JSON-RPC result (claiming, in `daemon.status`, the pid it was told to claim) and
//! appends every request it receives to a file, so a test can prove nothing reached it.
//!
//! A separate process (python3, on every machine wit is tested on) rather than a thread:
//! `wit daemon stop` signals the peer process, which must not be the test runner, and the
//! peer may have to run as another user.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::daemon::wait_until;

const SERVER: &str = r#"
import json, os, socket, sys
path, log, claimed = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
os.chmod(path, 0o777)
s.listen(16)
while True:
    c, _ = s.accept()
    buf = b""
    while True:
        while b"\r\n\r\n" not in buf:
            d = c.recv(65536)
            if not d:
                break
            buf += d
        if b"\r\n\r\n" not in buf:
            break
        head, rest = buf.split(b"\r\n\r\n", 1)
        n = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                n = int(v.strip())
        while len(rest) < n:
            d = c.recv(65536)
            if not d:
                break
            rest += d
        body, buf = rest[:n], rest[n:]
        with open(log, "ab") as f:
            f.write(body + b"\n")
        try:
            req = json.loads(body)
        except Exception:
            req = {}
        result = "pong"
        if req.get("method") == "daemon.status":
            result = {"pid": claimed, "version": "0.1.0", "startedAt": 0, "uptimeMs": 0,
                      "root": "", "socket": path,
                      "counts": {"locks": 0, "intents": 0, "contracts": 0},
                      "analyzers": [], "config": {"file": "", "present": False}, "failed": []}
        elif req.get("method") == "analyzers.list":
            result = {"analyzers": [{"id": "typescript", "extensions": ["ts"], "origin": "builtin"}],
                      "failed": [], "config": {"file": "", "present": False},
                      "trust": {"status": "none"}}
        elif req.get("method") == "check-contracts":
            result = {"violations": []}
        out = json.dumps({"jsonrpc": "2.0", "witVersion": "1", "id": req.get("id"),
                          "result": result}).encode()
        c.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                  + str(len(out)).encode() + b"\r\n\r\n" + out)
    c.close()
"#;

/// A fake daemon process; killed on drop.
pub struct FakePeer {
    child: Child,
    /// The socket it listens on.
    pub socket: PathBuf,
    /// Where it appends the bodies it received.
    pub log: PathBuf,
}

impl FakePeer {
    /// Listens on `socket` (its directory must exist), claiming `claimed_pid` in
    /// `daemon.status`; as `uid`/`gid` when given (the caller must be root).
    pub fn start(socket: &Path, claimed_pid: u32, as_user: Option<(u32, u32)>) -> Self {
        let log = socket.with_extension("received");
        std::fs::write(&log, "").expect("create the peer's log");
        let mut cmd = match as_user {
            Some((uid, gid)) => {
                let mut c = Command::new("setpriv");
                c.args([
                    &format!("--reuid={uid}"),
                    &format!("--regid={gid}"),
                    "--clear-groups",
                    python(),
                ]);
                // Our own working directory may be closed to the other user.
                c.current_dir("/");
                c
            }
            None => Command::new(python()),
        };
        cmd.arg("-c")
            .arg(SERVER)
            .arg(socket)
            .arg(&log)
            .arg(claimed_pid.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if as_user.is_some() {
            // The peer's own log must be writable by it.
            std::fs::set_permissions(&log, std::os::unix::fs::PermissionsExt::from_mode(0o666))
                .expect("chmod the peer's log");
        }
        let child = cmd.spawn().expect("start python3");
        wait_until("the fake peer listens", Duration::from_secs(10), || {
            std::os::unix::net::UnixStream::connect(socket).is_ok()
        });
        // The readiness probe itself is no request; start from an empty log.
        FakePeer {
            child,
            socket: socket.to_owned(),
            log,
        }
    }

    /// The peer's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything it received.
    pub fn received(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Whether it still runs.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for FakePeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The system's python3: the one on PATH may live under a home directory another user
/// cannot enter (pyenv under /root).
fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

/// A second local user for the tests that need one: created when running as root
/// (`useradd --system`), `None` otherwise (the caller skips with a message).
pub fn other_user() -> Option<(u32, u32)> {
    const NAME: &str = "wit-e2e-other";
    if euid() != 0 {
        return None;
    }
    let id = |flag: &str| -> Option<u32> {
        let out = Command::new("id").args([flag, NAME]).output().ok()?;
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    };
    if id("-u").is_none() {
        let _ = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                NAME,
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    Some((id("-u")?, id("-g")?))
}

fn euid() -> u32 {
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}
