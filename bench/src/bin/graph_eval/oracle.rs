//! The outside oracles: `bench/oracles/ts_calls.mjs` (the TypeScript type checker, for
//! TypeScript and JavaScript), `bench/oracles/py_calls.py` (jedi, for Python),
//! `bench/oracles/JavaCalls.java` (javac's attribution through its Tree API, for Java) and
//! `bench/oracles/go_calls.go` (go/parser and go/types, for Go), run as child processes on
//! the checkout, their JSON lines parsed into [`OracleSite`]s.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

/// The TypeScript the oracle runs (installed on first use).
const TYPESCRIPT: &str = "typescript@5";

/// What an oracle says a called name is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OracleTarget {
    /// Repository-relative path, or a short name for a file outside the repository
    /// (`lib.es5.d.ts`, `builtins.pyi`).
    pub file: String,
    /// Qualified name within the file (`Repo.find`, `helper`, `Flask.route`).
    pub name: String,
    /// 0-based line of the declaration's start.
    pub line: usize,
    /// 0-based line of the declaration's name.
    pub name_line: usize,
    /// Outside the repository (runtime library, dependency, stdlib), or a `.d.ts` /
    /// `.pyi` declaration.
    pub external: bool,
    /// A function: function or method declaration, or an arrow function / function
    /// expression bound to a name or property (jedi: type `function`).
    pub function: bool,
    /// The declaration's kind (a TypeScript `SyntaxKind` name, or jedi's type).
    pub kind: String,
}

/// One call site as an oracle sees it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct OracleSite {
    /// Repository-relative path.
    pub file: String,
    /// 0-based line of the call expression's start.
    pub line: usize,
    /// UTF-8 byte offset of the call expression's start.
    pub byte: usize,
    /// The called name.
    pub callee: String,
    /// The receiver as wit's analyzer would spell it (`None` for a plain call).
    pub receiver: Option<String>,
    /// The declaration the name resolves to; `None` when the oracle has no answer.
    pub target: Option<OracleTarget>,
    /// A class called as a constructor (Python): left out of every count.
    #[serde(default)]
    pub constructor: bool,
}

/// An oracle's answers for one repository.
#[derive(Debug, Default)]
pub struct OracleRun {
    /// Every call site it listed.
    pub sites: Vec<OracleSite>,
    /// Lines of its output that were not a site (they are reported, not fatal).
    pub noise: usize,
}

/// An oracle process (or several) under way.
pub struct Running {
    name: &'static str,
    children: Vec<(Child, JoinHandle<Result<OracleRun>>)>,
    started: Instant,
}

impl Running {
    /// Waits for the oracle and returns its sites and the seconds it took.
    pub fn wait(self) -> Result<(OracleRun, f64)> {
        let mut all = OracleRun::default();
        for (mut child, reader) in self.children {
            let run = reader
                .join()
                .map_err(|_| anyhow::anyhow!("{}: the reader thread panicked", self.name))??;
            let status = child.wait()?;
            if !status.success() {
                if status.code() == Some(3) {
                    bail!(
                        "{}: python3 cannot import jedi; install it with `pip install jedi`",
                        self.name
                    );
                }
                bail!("{} failed ({status})", self.name);
            }
            all.sites.extend(run.sites);
            all.noise += run.noise;
        }
        Ok((all, self.started.elapsed().as_secs_f64()))
    }
}

/// Where the oracle scripts are: `bench/oracles`.
fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("oracles")
}

/// Where the oracles' own packages are installed: `target/oracles` of the workspace.
fn install_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
        .join("target")
        .join("oracles")
}

/// The `typescript` package directory, installed with npm into `target/oracles` when
/// missing.
pub fn typescript() -> Result<PathBuf> {
    let dir = install_dir();
    let package = dir.join("node_modules").join("typescript");
    if package.join("package.json").is_file() {
        return Ok(package);
    }
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        bail!("the TypeScript oracle needs Node.js (`node`) on the PATH");
    }
    std::fs::create_dir_all(&dir)?;
    eprintln!("graph-eval: installing {TYPESCRIPT} into {}", dir.display());
    let status = Command::new("npm")
        .arg("install")
        .arg("--prefix")
        .arg(&dir)
        .args([TYPESCRIPT, "--no-audit", "--no-fund", "--silent"])
        .stdout(Stdio::null())
        .status()
        .context("running npm (the TypeScript oracle installs `typescript` with it)")?;
    if !status.success() || !package.join("package.json").is_file() {
        bail!(
            "npm install --prefix {} {TYPESCRIPT} failed ({status})",
            dir.display()
        );
    }
    Ok(package)
}

/// jedi's version; fails, with the command to fix it, when `python3` cannot import it.
pub fn jedi_version() -> Result<String> {
    let out = Command::new("python3")
        .args(["-c", "import jedi; print(jedi.__version__)"])
        .output()
        .context("running python3 (the Python oracle needs it)")?;
    if !out.status.success() {
        bail!("python3 cannot import jedi, which the Python oracle needs: `pip install jedi`");
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The version of the `typescript` package at `dir`.
pub fn typescript_version(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["version"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

/// The JDK the Java oracle runs on: `$JAVA_HOME`, else the one `javac` on the `PATH`
/// belongs to (its symlinks followed).
pub fn jdk_home() -> Result<PathBuf> {
    if let Some(home) = std::env::var_os("JAVA_HOME").map(PathBuf::from)
        && home.join("bin/javac").is_file()
    {
        return Ok(home);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let javac = dir.join("javac");
        if let Ok(real) = javac.canonicalize()
            && let Some(home) = real.parent().and_then(Path::parent)
        {
            return Ok(home.to_path_buf());
        }
    }
    bail!(
        "the Java oracle needs a JDK (`javac` on the PATH or JAVA_HOME): `apt-get install openjdk-17-jdk-headless`"
    )
}

/// The version of the JDK at `home` (`17.0.21`), from its `release` file.
pub fn jdk_version(home: &Path) -> String {
    std::fs::read_to_string(home.join("release"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("JAVA_VERSION="))
                .map(|v| v.trim_matches('"').to_owned())
        })
        .unwrap_or_else(|| "?".to_owned())
}

/// `go version`'s answer (`go1.19.8`); fails, with what to install, without `go`.
pub fn go_version() -> Result<String> {
    let out = Command::new("go").arg("version").output().context(
        "running go (the Go oracle needs the Go toolchain: `apt-get install golang-go`)",
    )?;
    if !out.status.success() {
        bail!("`go version` failed: the Go oracle needs the Go toolchain");
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.split_whitespace().nth(2).unwrap_or("?").to_owned())
}

/// Starts the Java oracle on `files` of the checkout at `root`, with the JDK at `jdk`.
pub fn spawn_java(jdk: &Path, root: &Path, files: &[String]) -> Result<Running> {
    let mut command = Command::new(jdk.join("bin/java"));
    // java.util's 121 files and their attribution outgrow the default heap of a small VM.
    command
        .arg("-Xmx2g")
        .arg(scripts().join("JavaCalls.java"))
        .arg(root);
    Ok(Running {
        name: "JavaCalls.java",
        children: vec![spawn(command, files)?],
        started: Instant::now(),
    })
}

/// Starts the Go oracle on `files` of the checkout at `root` (`go run`, from the oracles'
/// directory: a `go.mod` in the checkout is the checkout's, not the oracle's, and a newer
/// Go than the toolchain's there would stop `go run`).
pub fn spawn_go(root: &Path, files: &[String]) -> Result<Running> {
    let mut command = Command::new("go");
    command
        .current_dir(scripts())
        .env("GO111MODULE", "off")
        .env("GOTOOLCHAIN", "local")
        .env("GOFLAGS", "")
        .arg("run")
        .arg(scripts().join("go_calls.go"))
        .arg(root);
    Ok(Running {
        name: "go_calls.go",
        children: vec![spawn(command, files)?],
        started: Instant::now(),
    })
}

/// Starts the TypeScript oracle on `files` of the checkout at `root`.
pub fn spawn_typescript(typescript: &Path, root: &Path, files: &[String]) -> Result<Running> {
    let mut command = Command::new("node");
    // zod-sized programs outgrow Node's default heap.
    command
        .arg("--max-old-space-size=6144")
        .arg(scripts().join("ts_calls.mjs"))
        .arg(typescript)
        .arg(root);
    Ok(Running {
        name: "ts_calls.mjs",
        children: vec![spawn(command, files)?],
        started: Instant::now(),
    })
}

/// Starts the Python oracle on `files` of the checkout at `root`, in `jobs` processes
/// (jedi is single-threaded; files are independent questions).
pub fn spawn_python(root: &Path, files: &[String], jobs: usize) -> Result<Running> {
    let jobs = jobs.clamp(1, files.len().max(1));
    let mut children = Vec::new();
    for j in 0..jobs {
        // Every `jobs`-th file: big and small files spread evenly.
        let part: Vec<String> = files.iter().skip(j).step_by(jobs).cloned().collect();
        let mut command = Command::new("python3");
        command.arg(scripts().join("py_calls.py")).arg(root);
        children.push(spawn(command, &part)?);
    }
    Ok(Running {
        name: "py_calls.py",
        children,
        started: Instant::now(),
    })
}

/// Spawns `command`, writes `files` to its input (it reads them all before answering)
/// and reads its output on a thread.
fn spawn(mut command: Command, files: &[String]) -> Result<(Child, JoinHandle<Result<OracleRun>>)> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("running {command:?}"))?;
    {
        let mut input = child.stdin.take().context("the oracle's input")?;
        let mut list = files.join("\n");
        list.push('\n');
        input.write_all(list.as_bytes())?;
    }
    let output = child.stdout.take().context("the oracle's output")?;
    let reader = std::thread::spawn(move || parse(BufReader::new(output)));
    Ok((child, reader))
}

/// Reads JSON lines; a line that is not a site (a tool printing on stdout) is counted.
pub fn parse(input: impl BufRead) -> Result<OracleRun> {
    let mut run = OracleRun::default();
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<OracleSite>(&line) {
            Ok(site) => run.sites.push(site),
            Err(_) => run.noise += 1,
        }
    }
    Ok(run)
}
