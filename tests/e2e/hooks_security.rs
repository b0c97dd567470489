//! Security item 7: "The pre-commit contract check cannot be skipped by a file name or by
//! volume" — each attack performed for real (real git, real `wit hook install`, a real
//! daemon, an accepted contract, a real `git commit`).
//!
//! Before the fix, any one failure skipped the whole check: `git show :1:x.ts` reads stage
//! 1, a lossy non-UTF-8 name names no file, and one `git show` per file ran past the 2 s
//! limit; the hook's "not found" line expanded `$(…)` in the install path; and wit's hook
//! ran any executable `pre-commit.pre-wit` beside it, one a repository can ship under
//! `core.hooksPath`.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::hooks_commit::{accepted_contract, head_message, repo_with_hooks};
use crate::support::cli::{CliRepo, Run, clean_env};
use crate::support::repo::AUTH_TS;
use crate::support::wit_bin;

const A: Option<&str> = Some("agent-a");

/// A repository with hooks, an accepted contract on `validateToken`, and a staged change
/// that breaks it.
fn repo_with_a_staged_break() -> CliRepo {
    let r = repo_with_hooks();
    accepted_contract(&r, "src/auth.ts:validateToken");
    r.write(
        "src/auth.ts",
        &AUTH_TS.replace(
            "validateToken(token: string): Promise<User | null>",
            "validateToken(token: string, now: number): Promise<User | null>",
        ),
    );
    r.git(&["add", "src/auth.ts"]);
    r
}

/// Commits and asserts the hook refused the commit for the broken contract.
#[track_caller]
fn assert_commit_refused(r: &CliRepo) -> Run {
    let out = r.git_run(&["commit", "-q", "-m", "break it"], A);
    assert_ne!(out.code, 0, "the commit must be refused: {out:#?}");
    assert!(
        out.stderr.contains("src/auth.ts:validateToken") && out.stderr.contains("commit refused"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("contract check skipped"),
        "{}",
        out.stderr
    );
    assert_eq!(head_message(r).trim(), "initial");
    out
}

fn make_executable(path: &Path) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn item7_a_file_named_1_colon_x_ts_does_not_skip_the_check() {
    let r = repo_with_a_staged_break();
    // `:1:x.ts` is stage 1 of `x.ts` to git: the old `git show :<path>` failed on it.
    r.write("1:x.ts", "export function x(): number { return 1; }\n");
    r.git(&["add", "--", "1:x.ts"]);
    assert_commit_refused(&r);
}

#[test]
fn item7_a_file_name_that_is_not_utf8_does_not_skip_the_check() {
    let r = repo_with_a_staged_break();
    let name = OsStr::from_bytes(b"caf\xe9.ts");
    std::fs::write(r.path().join(name), "export function c(): void {}\n").unwrap();
    let status = {
        let mut cmd = Command::new("git");
        cmd.arg("add")
            .arg("--")
            .arg(name)
            .current_dir(r.path())
            .stdin(Stdio::null());
        clean_env(&mut cmd);
        cmd.status().unwrap()
    };
    assert!(status.success());
    assert_commit_refused(&r);

    // `wit check-contracts --staged` agrees (exit 5), naming the skipped file escaped.
    let out = r.wit(A, &["check-contracts", "--staged"]).code(5);
    assert!(
        out.stderr.contains("its name is not UTF-8"),
        "{}",
        out.stderr
    );
}

#[test]
fn item7_fifteen_hundred_staged_files_do_not_skip_the_check() {
    let r = repo_with_a_staged_break();
    for i in 0..1500 {
        r.write(
            &format!("gen/f{i}.ts"),
            &format!("export function f{i}(n: number): number {{ return n + {i}; }}\n"),
        );
    }
    r.git(&["add", "gen"]);
    // Refused, not skipped: the check (one `git cat-file --batch`) ended within the hook's
    // 2 s limit, where one `git show` per file did not.
    assert_commit_refused(&r);
    assert_eq!(r.wit(A, &["check-contracts", "--staged"]).code, 5);
}

/// `$(touch …)` and backticks in the directory of the installed `wit` binary.
#[test]
fn item7_an_install_path_with_shell_syntax_is_not_run_by_the_hook() {
    let r = repo_with_hooks();
    accepted_contract(&r, "src/auth.ts:validateToken");
    let tmp = tempfile::Builder::new()
        .prefix("wit-e2e-")
        .tempdir()
        .unwrap();
    let tmp_path = tmp.path().canonicalize().unwrap();
    let pwned = tmp_path.join("PWNED");
    let pwned2 = tmp_path.join("PWNED2");
    // The slashes of the commands make nested directories; the path holds them verbatim.
    let dir = PathBuf::from(format!(
        "{}/bin$(touch {})x`touch {}`",
        tmp_path.display(),
        pwned.display(),
        pwned2.display()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("wit");
    if std::fs::hard_link(wit_bin(), &exe).is_err() {
        std::fs::copy(wit_bin(), &exe).unwrap();
    }
    let mut cmd = Command::new(&exe);
    cmd.args(["hook", "install"])
        .current_dir(r.path())
        .stdin(Stdio::null());
    clean_env(&mut cmd);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    std::fs::remove_file(&exe).unwrap();

    r.write("notes.txt", "x\n");
    r.git(&["add", "notes.txt"]);
    let out = r.git_run(&["commit", "-q", "-m", "binary gone"], A);
    assert_eq!(
        out.code, 0,
        "the hook fails open without its binary: {out:#?}"
    );
    assert!(!pwned.exists(), "$(…) in the install path was run");
    assert!(!pwned2.exists(), "backticks in the install path were run");
    assert!(
        out.stderr.contains(&format!(
            "wit: contract check skipped: {} not found (run wit hook install again)",
            exe.display()
        )),
        "{}",
        out.stderr
    );
}

/// What a wit from before the fix wrote: it ran any executable `.pre-wit`.
fn old_wit_script(exe: &str) -> String {
    format!(
        "#!/bin/sh\n# wit-managed-hook: pre-commit\n\
         chained=\"$(dirname \"$0\")/pre-commit.pre-wit\"\n\
         if [ -x \"$chained\" ]; then\n  \"$chained\" \"$@\" || exit $?\nfi\n\
         if [ -x '{exe}' ]; then\n  exec '{exe}' hook run pre-commit \"$@\"\nfi\nexit 0\n"
    )
}

#[test]
fn item7_a_repo_shipped_pre_wit_hook_under_core_hooks_path_is_not_run() {
    let r = CliRepo::new();
    let marker_dir = tempfile::tempdir().unwrap();
    let marker = marker_dir.path().join("CHAINED-RAN");
    r.write("src/auth.ts", AUTH_TS);
    // The repository ships .githooks/pre-commit.pre-wit, and no pre-commit: git itself
    // never runs it.
    r.write(
        ".githooks/pre-commit.pre-wit",
        &format!("#!/bin/sh\ntouch '{}'\nexit 0\n", marker.display()),
    );
    make_executable(&r.path().join(".githooks/pre-commit.pre-wit"));
    r.git(&["config", "core.hooksPath", ".githooks"]);
    r.git(&["add", "."]);
    r.git(&["commit", "-q", "-m", "initial"]);
    assert!(!marker.exists(), "git does not run it");

    r.wit(None, &["init"]).ok();
    let v = r.wit(None, &["hook", "install", "--json"]).ok().json();
    assert_eq!(v["hooks"][0]["action"], "installed");
    accepted_contract(&r, "src/auth.ts:validateToken");

    let commit = |msg: &str| {
        r.write("notes.txt", &format!("{msg}\n"));
        r.git(&["add", "notes.txt"]);
        let out = r.git_run(&["commit", "-q", "-m", msg], A);
        assert_eq!(out.code, 0, "{out:#?}");
    };
    commit("one");
    assert!(!marker.exists(), "wit's hook ran the repository's .pre-wit");

    // Installing again ("updated") does not start running it either.
    let v = r.wit(None, &["hook", "install", "--json"]).ok().json();
    assert_eq!(v["hooks"][0]["action"], "updated");
    commit("two");
    assert!(!marker.exists(), "an update started running the .pre-wit");

    // Nor does updating the script of an older wit, which ran any .pre-wit.
    let wit = std::fs::canonicalize(wit_bin()).unwrap();
    let hook = r.path().join(".githooks/pre-commit");
    std::fs::write(&hook, old_wit_script(&wit.display().to_string())).unwrap();
    let out = r.wit(None, &["hook", "install"]).ok();
    assert!(out.stderr.contains("is not run by wit's hook"), "{out:#?}");
    commit("three");
    assert!(!marker.exists(), "updating an old script kept the chain");

    // Uninstall does not move it to where git would run it.
    r.wit(None, &["hook", "uninstall"]).ok();
    assert!(!hook.exists());
    assert!(r.path().join(".githooks/pre-commit.pre-wit").exists());
    commit("four");
    assert!(!marker.exists());
}

#[test]
fn item7_install_never_writes_through_a_symlink() {
    let r = CliRepo::new();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "precious\n").unwrap();
    r.git(&["config", "core.hooksPath", ".githooks"]);
    // The temporary name the old install wrote through, planted as a symlink.
    r.repo.symlink(&victim, ".githooks/pre-commit.wit-tmp");
    r.repo
        .symlink(&victim, ".githooks/prepare-commit-msg.wit-tmp");
    r.wit(None, &["hook", "install"]).ok();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    let hook = r.path().join(".githooks/pre-commit");
    assert!(std::fs::symlink_metadata(&hook).unwrap().is_file());
    r.wit(None, &["hook", "uninstall"]).ok();

    // A hook that is a symlink out of the hooks directory is refused, even with --force.
    let target = outside.path().join("their-hook");
    std::fs::write(&target, "#!/bin/sh\nexit 0\n").unwrap();
    r.repo.symlink(&target, ".githooks/pre-commit");
    let out = r.wit(None, &["hook", "install", "--force"]).code(2);
    assert!(
        out.stderr.contains("symbolic link") && out.stderr.contains("Nothing was changed"),
        "{}",
        out.stderr
    );
    assert!(std::fs::symlink_metadata(&hook).unwrap().is_symlink());
    assert!(!r.path().join(".githooks/pre-commit.pre-wit").exists());
    assert!(!r.path().join(".githooks/prepare-commit-msg").exists());
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "#!/bin/sh\nexit 0\n"
    );
}
