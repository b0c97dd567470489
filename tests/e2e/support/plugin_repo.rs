//! A temporary git repository for plugin tests, with its own isolated user configuration:
//! every `wit` and `git` run here gets `HOME` and `XDG_CONFIG_HOME` inside a temp dir, so
//! the trust store (`$XDG_CONFIG_HOME/wit/trust.json`) is never the real user's. The
//! daemon, auto-started by the CLI, inherits that environment.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::cli::{CliRepo, Run, clean_env, wit_command};
use super::client::Client;

/// A Go file: `Handler` calls `Validate` and `Lookup`; `Lookup` is a method-free function
/// with a multi-value result.
pub const USERS_GO: &str = r#"package users

import "context"

type User struct {
	ID string
}

func Handler(ctx context.Context, id string) (*User, error) {
	if err := Validate(id); err != nil {
		return nil, err
	}
	return Lookup(ctx, id)
}

func Validate(id string) error {
	return nil
}

func Lookup(ctx context.Context, id string) (*User, error) {
	return &User{ID: id}, nil
}
"#;

/// The built-in analyzers' ids, as `wit analyzers` lists them (sorted).
pub const BUILTINS: [&str; 8] = [
    "csharp",
    "go",
    "java",
    "javascript",
    "python",
    "rust",
    "tsx",
    "typescript",
];

/// The ids with the Go example plugin loaded: it replaces the built-in `go` (same id), so
/// it comes last, after the other built-ins.
pub const BUILTINS_THEN_GO_PLUGIN: [&str; 8] = [
    "csharp",
    "java",
    "javascript",
    "python",
    "rust",
    "tsx",
    "typescript",
    "go",
];

/// The first plugin entry of an `analyzers.list` answer.
pub fn first_plugin(list: &Value) -> &Value {
    list["analyzers"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["origin"] == "plugin"))
        .unwrap_or_else(|| panic!("no plugin in {list}"))
}

/// A git repository plus an isolated home directory.
pub struct PluginRepo {
    /// The repository (its daemon is stopped on drop).
    pub cli: CliRepo,
    home: tempfile::TempDir,
}

impl PluginRepo {
    /// A fresh repository (`git init` done) with an empty isolated home.
    pub fn new() -> Self {
        let home = tempfile::Builder::new()
            .prefix("wit-home-")
            .tempdir()
            .expect("create temp home");
        PluginRepo {
            cli: CliRepo::new(),
            home,
        }
    }

    /// The repository root.
    pub fn path(&self) -> &Path {
        self.cli.path()
    }

    /// The isolated `XDG_CONFIG_HOME`.
    pub fn config_home(&self) -> PathBuf {
        self.home.path().join("config")
    }

    /// Where the trust store of this test lives.
    pub fn trust_store(&self) -> PathBuf {
        self.config_home().join("wit").join("trust.json")
    }

    /// Gives `cmd` this test's isolated `HOME` and `XDG_CONFIG_HOME`.
    pub fn isolate(&self, cmd: &mut Command) {
        cmd.env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.config_home());
    }

    /// Writes a file in the repository.
    pub fn write(&self, rel: &str, content: &str) {
        self.cli.write(rel, content);
    }

    /// Copies `library` into the repository at `rel`, so a test may change it freely.
    pub fn install(&self, library: &Path, rel: &str) -> PathBuf {
        let dest = self.path().join(rel);
        std::fs::create_dir_all(dest.parent().expect("a parent")).expect("mkdir");
        std::fs::copy(library, &dest).expect("copy the plugin");
        dest
    }

    /// Runs `wit` at the root as `session`, in the isolated environment.
    pub fn wit(&self, session: Option<&str>, args: &[&str]) -> Run {
        let mut cmd = wit_command(self.path(), session, args);
        self.isolate(&mut cmd);
        run(cmd)
    }

    /// Runs `git` at the root as `session` (for the hooks), in the isolated environment.
    pub fn git_run(&self, args: &[&str], session: Option<&str>) -> Run {
        let mut cmd = Command::new("git");
        cmd.args(args).current_dir(self.path()).stdin(Stdio::null());
        clean_env(&mut cmd);
        self.isolate(&mut cmd);
        if let Some(s) = session {
            cmd.env("WIT_SESSION", s);
        }
        run(cmd)
    }

    /// Runs `git`, failing the test when it fails.
    #[track_caller]
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.git_run(args, None);
        assert_eq!(out.code, 0, "git {args:?} failed: {out:#?}");
        out.stdout
    }

    /// `wit trust --yes`, which must succeed.
    #[track_caller]
    pub fn trust(&self) -> Run {
        self.wit(None, &["trust", "--yes"]).ok()
    }

    /// `wit analyzers --json` (starting the daemon when needed).
    #[track_caller]
    pub fn analyzers(&self) -> Value {
        self.wit(None, &["analyzers", "--json"]).ok().json()
    }

    /// `wit daemon restart`.
    #[track_caller]
    pub fn restart(&self) {
        self.wit(None, &["daemon", "restart"]).ok();
    }

    /// A protocol client of the running daemon (start it first, e.g. with
    /// [`PluginRepo::analyzers`]).
    pub fn client(&self) -> Client {
        Client::connect(&self.path().join(".wit").join("daemon.sock"))
            .expect("connect to the daemon")
    }

    /// Runs `wit` like [`PluginRepo::wit`], failing the test when it has not finished
    /// within `limit` (it is killed then): for commands that must never hang.
    #[track_caller]
    pub fn wit_within(&self, limit: Duration, args: &[&str]) -> Run {
        let mut cmd = wit_command(self.path(), None, args);
        self.isolate(&mut cmd);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("run wit");
        let mut stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        // Read both pipes while waiting, so a chatty command never blocks on a full pipe.
        let out = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stdout.read_to_string(&mut s);
            s
        });
        let err = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for wit") {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("wit {args:?} did not finish within {limit:?} (killed)");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Run {
            code: status.code().unwrap_or(-1),
            stdout: out.join().unwrap_or_default(),
            stderr: err.join().unwrap_or_default(),
        }
    }

    /// Compiles the C `source` into the shared library `out` with `gcc -shared -fPIC`
    /// plus `args` (run in `out`'s directory, so `-L.` finds its siblings).
    #[track_caller]
    pub fn gcc_shared(&self, out: &Path, source: &str, args: &[&str]) {
        let dir = out.parent().expect("a parent");
        std::fs::create_dir_all(dir).expect("mkdir");
        let src = out.with_extension("c");
        std::fs::write(&src, source).expect("write the C source");
        let status = Command::new("gcc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(out)
            .arg(&src)
            .args(args)
            .current_dir(dir)
            .status()
            .expect("gcc runs");
        assert!(status.success(), "gcc failed for {}", out.display());
    }

    /// `.wit/daemon.log`.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.path().join(".wit").join("daemon.log")).unwrap_or_default()
    }
}

impl Default for PluginRepo {
    fn default() -> Self {
        Self::new()
    }
}

fn run(mut cmd: Command) -> Run {
    let out = cmd.output().expect("run the command");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The `failed` entry of an `analyzers.list` result for `path`.
#[track_caller]
pub fn failure_for<'a>(list: &'a Value, path: &Path) -> &'a Value {
    let path = path.display().to_string();
    list["failed"]
        .as_array()
        .expect("failed is an array")
        .iter()
        .find(|f| f["path"] == path.as_str())
        .unwrap_or_else(|| panic!("no failure for {path} in {list:#}"))
}

/// The ids of the analyzers in an `analyzers.list` result.
pub fn analyzer_ids(list: &Value) -> Vec<String> {
    list["analyzers"]
        .as_array()
        .expect("analyzers is an array")
        .iter()
        .map(|a| a["id"].as_str().unwrap_or_default().to_owned())
        .collect()
}
