//! The conflict forecast against a hostile repository or environment (issue 34): what it
//! writes where, what it reads, how much git it runs, and which git it runs. Each test
//! performs the attack the audit found and asserts it no longer works.

use std::collections::BTreeSet;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use wit_testkit::postgres::Cluster;

use crate::forecast_worktrees::{Pair, git, kinds};
use crate::support::daemon::{Daemon, daemon_command};

const KEY_MAIN: &str = "-----BEGIN PRIVATE KEY-----\nmain-secret-0123456789\n";
const KEY_WT: &str = "-----BEGIN PRIVATE KEY-----\nworktree-secret-9876543210\n";

/// Every object id the repository's object database holds (loose and packed).
fn objects(dir: &Path) -> BTreeSet<String> {
    git(
        dir,
        &[
            "cat-file",
            "--batch-all-objects",
            "--batch-check=%(objectname)",
        ],
    )
    .lines()
    .map(str::to_owned)
    .collect()
}

fn write_private(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

/// Every directory and file under `dir`, with its permission bits.
fn modes(dir: &Path) -> Vec<(PathBuf, u32)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        out.push((path.clone(), meta.mode() & 0o777));
        if meta.is_dir() {
            out.extend(modes(&path));
        }
    }
    out
}

/// Issue 34, finding 3: an untracked 0600 `private.key` changed in two worktrees became
/// a 0444 loose object under `.git/objects/` (`git hash-object -w`), readable by every
/// local user. Now no object is written at all; the versions git's merge needs are kept
/// under the main worktree's `.wit/forecast/`, 0700/0600, and go when their daemon stops.
fn untracked_private_files_never_enter_the_object_database(pair: Pair) {
    let mut p = pair;
    let before = objects(p.m());
    write_private(&p.m().join("private.key"), KEY_MAIN);
    write_private(&p.wt.join("private.key"), KEY_WT);
    p.edit(p.m(), "docs/notes.md", "four", "FOUR (main)");
    p.edit(&p.wt, "docs/notes.md", "four", "four (feature)");
    // Both textual forecasts come: git's merge still runs, from the private copies.
    p.wait_kinds(
        "textual forecasts of the notes and the key",
        &["textual [\"docs/notes.md\"]", "textual [\"private.key\"]"],
    );
    assert_eq!(objects(p.m()), before, "the forecast wrote objects");
    let store = p.m().join(".wit").join("forecast");
    let found = modes(&store);
    assert!(
        found
            .iter()
            .any(|(path, _)| std::fs::read(path).is_ok_and(|b| b == KEY_WT.as_bytes())),
        "the worktree's key is kept for the merge: {found:?}"
    );
    for (path, mode) in &found {
        let want = if path.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(*mode, want, "{}", path.display());
    }
    // The worktree's daemon stops: what it kept goes with it.
    let mut dw = p.dw.take().unwrap();
    dw.signal_and_wait(libc::SIGTERM);
    assert!(
        !modes(&store)
            .iter()
            .any(|(path, _)| std::fs::read(path).is_ok_and(|b| b == KEY_WT.as_bytes())),
        "the stopped worktree's key is still kept"
    );
}

#[test]
fn untracked_private_files_never_enter_the_object_database_on_sqlite() {
    untracked_private_files_never_enter_the_object_database(Pair::new());
}

#[test]
fn untracked_private_files_never_enter_the_object_database_on_postgresql() {
    let pg = Cluster::start();
    pg.create_db("wit");
    let url = pg.url("wit");
    untracked_private_files_never_enter_the_object_database(Pair::with(|root| {
        let mut cmd = daemon_command(root);
        cmd.env("WIT_STORE_URL", &url);
        Daemon::start_with(root, cmd)
    }));
}

/// The peak resident memory of a process, in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM");
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap();
    kb * 1024
}

/// Issue 34, finding 4: a large, compressible blob at the merge base was read whole
/// (`git cat-file blob`) before its size was checked — about its size in RSS at every
/// rescan — and the file then silently dropped out of the forecast. Now its size is asked
/// first, it is never read, and a file both worktrees changed is named "too large to
/// compare".
#[test]
fn a_huge_blob_at_the_merge_base_is_too_large_to_compare_and_never_read() {
    const BIG: usize = 96 << 20;
    let line = "all work and no play makes jack a dull boy\n";
    let big = line.repeat(BIG / line.len() + 1);
    let p = Pair::prepared(|main| main.write("data/big.txt", &big), Daemon::start);
    p.write(p.m(), "data/big.txt", &format!("main\n{big}"));
    p.write(&p.wt, "data/big.txt", &format!("feature\n{big}"));
    let a = p.wait("the big file named in a forecast", |a| {
        kinds(a) == ["textual [\"data/big.txt\"]"]
    });
    let summary = a["forecasts"][0]["summary"].as_str().unwrap();
    assert!(summary.contains("too large to compare"), "{summary}");
    let changed: Vec<&Value> = a["checkouts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["changedFiles"])
        .collect();
    assert_eq!(changed, [&json!(1), &json!(1)], "{a}");
    // Neither daemon ever held the blob (nor the working file) in memory.
    for d in [p.dm.as_ref().unwrap(), p.dw.as_ref().unwrap()] {
        let peak = peak_rss(d.pid());
        assert!(
            peak < BIG as u64,
            "a daemon's peak RSS is {peak} bytes, more than the {BIG}-byte blob"
        );
    }
}

/// A `git` on `PATH` that logs each invocation's arguments to `$WIT_TEST_GIT_LOG` and
/// runs the real one.
fn logging_git(dir: &Path) -> PathBuf {
    let real = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("git");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$WIT_TEST_GIT_LOG\"\nexec {} \"$@\"\n",
            real.trim()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn count(log: &Path, what: &str) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(what))
        .count()
}

/// Issue 34, finding 11: the forecast ran about three git processes per changed file per
/// daemon per scan (1,228 for 200 files changed in both of two worktrees). Now a scan
/// runs a fixed few, every read of the forecast goes through one `cat-file --batch-check`
/// / `--batch` pair, nothing is written (no `hash-object`), and a merge's verdict is
/// remembered: a later save merges only what moved.
#[test]
fn the_forecast_runs_git_per_scan_not_per_changed_file() {
    let tools = tempfile::tempdir().unwrap();
    let bin = logging_git(tools.path());
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let logs = tools.path().to_owned();
    let p = Pair::prepared(
        |main| {
            for i in 0..200 {
                main.write(
                    &format!("docs/gen/page{i}.md"),
                    &format!("# page {i}\n\na\nb\nc\nd\ne\nf\ng\n"),
                );
            }
        },
        |root| {
            let mut cmd = daemon_command(root);
            let name = root.file_name().unwrap().to_str().unwrap().to_owned();
            cmd.env("PATH", &path)
                .env("WIT_TEST_GIT_LOG", logs.join(format!("{name}.log")));
            Daemon::start_with(root, cmd)
        },
    );
    let log_of = |root: &Path| {
        tools.path().join(format!(
            "{}.log",
            root.file_name().unwrap().to_str().unwrap()
        ))
    };
    // Two hundred files both change, in places git merges cleanly, and one they don't.
    for i in 0..200 {
        let rel = format!("docs/gen/page{i}.md");
        p.edit(p.m(), &rel, "\na\n", "\nA (main)\n");
        p.edit(&p.wt, &rel, "\ng\n", "\nG (feature)\n");
    }
    p.edit(p.m(), "docs/notes.md", "four", "FOUR (main)");
    p.edit(&p.wt, "docs/notes.md", "four", "four (feature)");
    p.wait("201 changed files each, and the notes' forecast", |a| {
        kinds(a) == ["textual [\"docs/notes.md\"]"]
            && a["checkouts"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c["changedFiles"] == 201)
    });
    for root in [p.m().to_owned(), p.wt.clone()] {
        let log = log_of(&root);
        assert_eq!(count(&log, "hash-object"), 0, "{}", log.display());
        // One reader pair for the daemon's reads, started again only after 10 s unused.
        let cats = count(&log, "cat-file");
        assert!(cats < 20, "{cats} cat-file processes ({})", log.display());
        let merges = count(&log, "merge-file");
        assert!(merges <= 2 * 201, "{merges} merges ({})", log.display());
        eprintln!(
            "{}: {} git processes, {cats} cat-file, {merges} merge-file",
            root.display(),
            count(&log, "")
        );
    }
    // One more save of one file: only that file is merged again.
    let merges: Vec<usize> = [p.m(), p.wt.as_path()]
        .iter()
        .map(|r| count(&log_of(r), "merge-file"))
        .collect();
    p.edit(p.m(), "docs/notes.md", "FOUR (main)", "FOUR");
    p.wait("the notes' forecast again", |a| {
        a["forecasts"][0]["summary"]
            .as_str()
            .is_some_and(|s| s.contains("notes.md"))
            && a["checkouts"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c["changedFiles"] == 201)
    });
    let main_merges = count(&log_of(p.m()), "merge-file");
    assert!(
        main_merges <= merges[0] + 2,
        "{} merges after one save",
        main_merges - merges[0]
    );
}

/// Issue 34, finding 11: a branch with more changed files than a scan compares is not
/// compared at all (a hostile branch of 50,000 cost minutes per scan), and says so: the
/// checkout is `too-many-changes`, in `conflicts.forecast` and `wit conflicts`, and its
/// pair's forecasts clear with that reason.
#[test]
fn a_branch_changing_more_files_than_the_cap_is_stated_too_many_changes() {
    let p = Pair::new();
    p.edit(p.m(), "src/pricing.ts", "n * 2", "n * 3");
    p.edit(&p.wt, "src/pricing.ts", "n * 2", "n * 4");
    p.wait_kinds("a forecast", &["same-symbol [\"src/pricing.ts:price\"]"]);
    let generated = p.wt.join("gen");
    std::fs::create_dir_all(&generated).unwrap();
    for i in 0..2_001 {
        std::fs::write(generated.join(format!("f{i}.txt")), format!("{i}\n")).unwrap();
    }
    // HEAD moves (a commit of one more file): the worktree is scanned afresh.
    git(&p.wt, &["add", "gen/f0.txt"]);
    git(&p.wt, &["commit", "-qm", "one generated file"]);
    let wt = p.wt.to_str().unwrap().to_owned();
    p.wait(
        "the worktree stated too-many-changes, its forecast cleared",
        |a| {
            a["forecasts"] == json!([])
                && a["checkouts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c["path"] == wt.as_str() && c["state"] == "too-many-changes")
        },
    );
    // The answer leaves out a pair of a checkout that is not ready at once; its daemon
    // withdraws the pair's rows, with the event, right after.
    let dm = p.dm.as_ref().unwrap();
    crate::support::daemon::wait_until(
        "the too-many-changes pair's forecast.cleared",
        std::time::Duration::from_secs(20),
        || {
            crate::forecast_worktrees::events(dm, "forecast.cleared")
                .iter()
                .any(|e| e["data"]["reason"] == "wt-b has too many changes to compare")
        },
    );
    let out = p.main.wit(None, &["conflicts"]).ok();
    assert!(
        out.stdout.contains("too-many-changes (more files changed"),
        "{}",
        out.stdout
    );
}

/// Issue 34, "also seen": the forecast's git calls cleared `GIT_DIR`, `GIT_WORK_TREE`
/// and `GIT_INDEX_FILE` only. A daemon started where `GIT_OBJECT_DIRECTORY`,
/// `GIT_ALTERNATE_OBJECT_DIRECTORIES`, `GIT_COMMON_DIR` and a `git -c` of a hook
/// (`GIT_CONFIG_PARAMETERS`) point elsewhere must still read its own repository, and
/// touch nothing there.
#[test]
fn git_variables_of_the_daemon_s_environment_never_redirect_the_forecast() {
    let decoy = tempfile::tempdir().unwrap();
    let odb = decoy.path().join("objects");
    let common = decoy.path().join("common");
    std::fs::create_dir_all(odb.join("info")).unwrap();
    std::fs::create_dir_all(common.join("objects")).unwrap();
    let p = Pair::with(|root| {
        let mut cmd = daemon_command(root);
        cmd.env("GIT_OBJECT_DIRECTORY", &odb)
            .env("GIT_ALTERNATE_OBJECT_DIRECTORIES", &odb)
            .env("GIT_COMMON_DIR", &common)
            .env("GIT_DIR", decoy.path())
            .env("GIT_INDEX_FILE", decoy.path().join("index"))
            .env("GIT_CONFIG_PARAMETERS", "'core.bare'='true'");
        Daemon::start_with(root, cmd)
    });
    p.edit(p.m(), "src/pricing.ts", "n * 2", "n * 3");
    p.edit(&p.wt, "src/pricing.ts", "n * 2", "n * 4");
    p.edit(p.m(), "docs/notes.md", "four", "FOUR (main)");
    p.edit(&p.wt, "docs/notes.md", "four", "four (feature)");
    p.wait_kinds(
        "both forecasts, from the repository's own git",
        &[
            "same-symbol [\"src/pricing.ts:price\"]",
            "textual [\"docs/notes.md\"]",
        ],
    );
    let left: Vec<_> = walk(decoy.path());
    assert_eq!(
        left,
        [
            common.clone(),
            common.join("objects"),
            odb.clone(),
            odb.join("info")
        ],
        "something was written in the decoy"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        out.push(path.clone());
        if path.is_dir() {
            out.extend(walk(&path));
        }
    }
    out
}
