//! The git hooks with real `git commit`: contract checks, fail-open, trailers, chaining
//! to existing hooks, core.hooksPath, uninstall.

use std::os::unix::fs::PermissionsExt;

use crate::support::cli::CliRepo;
use crate::support::repo::AUTH_TS;

const A: Option<&str> = Some("agent-a");
const B: Option<&str> = Some("agent-b");

pub(crate) fn repo_with_hooks() -> CliRepo {
    let r = CliRepo::new();
    r.write("src/auth.ts", AUTH_TS);
    r.wit(None, &["init"]).ok();
    r.wit(None, &["hook", "install"]).ok();
    r.git(&["add", "."]);
    r.git(&["commit", "-q", "-m", "initial"]);
    r
}

/// `wit declare` as `session` of an intent on `file`; its id.
fn declare(r: &CliRepo, session: Option<&str>, description: &str, file: &str) -> String {
    r.wit(
        session,
        &["declare", "--json", "-d", description, "-f", file],
    )
    .ok()
    .json()["intentId"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A contract on `symbol` proposed by session A and accepted by session B.
pub(crate) fn accepted_contract(r: &CliRepo, symbol: &str) {
    let id = r
        .wit(A, &["contract", "propose", "--json", symbol])
        .ok()
        .json()["contractId"]
        .as_str()
        .unwrap()
        .to_owned();
    r.wit(B, &["contract", "accept", &id]).ok();
}

pub(crate) fn head_message(r: &CliRepo) -> String {
    r.git(&["log", "-1", "--format=%B"])
}

#[test]
fn a_commit_breaking_an_accepted_contract_is_refused_until_restored() {
    let r = repo_with_hooks();
    accepted_contract(&r, "src/auth.ts:validateToken");

    let broken = AUTH_TS.replace(
        "validateToken(token: string): Promise<User | null>",
        "validateToken(token: string, now: number): Promise<User | null>",
    );
    r.write("src/auth.ts", &broken);
    r.git(&["add", "src/auth.ts"]);
    let out = r.git_run(&["commit", "-m", "break it"], A);
    assert_ne!(out.code, 0, "the commit must be refused: {out:#?}");
    assert!(
        out.stderr.contains("src/auth.ts:validateToken"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("expected: (token: string): Promise<User | null>"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("actual:   (token: string, now: number): Promise<User | null>"),
        "{}",
        out.stderr
    );
    assert_eq!(head_message(&r).trim(), "initial");

    // The hook checks the *staged* content: fixing only the working tree is not enough.
    r.write("src/auth.ts", AUTH_TS);
    assert_ne!(
        r.git_run(&["commit", "-m", "still broken in the index"], A)
            .code,
        0
    );

    // Restored signature (reformatted over several lines: same canonical signature).
    let reformatted = AUTH_TS.replace(
        "validateToken(token: string): Promise<User | null>",
        "validateToken(\n  token: string,\n): Promise<User | null>",
    );
    r.write("src/auth.ts", &reformatted);
    r.git(&["add", "src/auth.ts"]);
    let out = r.git_run(&["commit", "-m", "reformat"], A);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(head_message(&r).lines().next(), Some("reformat"));
}

/// Regression: the hook used to look at added/copied/modified files only, so deleting (or
/// renaming) a file let every accepted contract on it break unnoticed.
#[test]
fn deleting_or_renaming_a_contracted_file_is_refused() {
    let r = repo_with_hooks();
    accepted_contract(&r, "src/auth.ts:validateToken");

    r.git(&["mv", "src/auth.ts", "src/session.ts"]);
    let out = r.git_run(&["commit", "-m", "rename"], A);
    assert_ne!(out.code, 0, "the rename must be refused: {out:#?}");
    assert!(
        out.stderr.contains("src/auth.ts:validateToken"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("actual:   (symbol not found in staged content)"),
        "{}",
        out.stderr
    );
    // `wit check-contracts --staged` (what a human runs to see why) agrees: exit 5.
    assert_eq!(r.wit(A, &["check-contracts", "--staged"]).code, 5);

    r.git(&["mv", "src/session.ts", "src/auth.ts"]);
    r.git(&["rm", "-q", "src/auth.ts"]);
    let out = r.git_run(&["commit", "-m", "delete"], A);
    assert_ne!(out.code, 0, "the deletion must be refused: {out:#?}");
    assert!(
        out.stderr.contains("src/auth.ts:validateToken"),
        "{}",
        out.stderr
    );
    assert_eq!(head_message(&r).trim(), "initial");

    // Deleting a file without contracts is not affected.
    r.git(&["reset", "-q", "--hard"]);
    r.write("src/other.ts", "export function other(): void {}\n");
    r.git(&["add", "src/other.ts"]);
    assert_eq!(r.git_run(&["commit", "-m", "add other"], A).code, 0);
    r.git(&["rm", "-q", "src/other.ts"]);
    let out = r.git_run(&["commit", "-m", "delete other"], A);
    assert_eq!(out.code, 0, "{out:#?}");
}

#[test]
fn the_commit_proceeds_when_the_daemon_is_stopped() {
    let r = repo_with_hooks();
    accepted_contract(&r, "src/auth.ts:decode");
    r.wit(None, &["daemon", "stop"]).ok();

    r.write(
        "src/auth.ts",
        &AUTH_TS.replace("decode(token: string)", "decode()"),
    );
    r.git(&["add", "src/auth.ts"]);
    let out = r.git_run(&["commit", "-m", "no daemon"], A);
    assert_eq!(out.code, 0, "fail open: {out:#?}");
    assert_eq!(
        out.stderr.matches("contract check skipped").count(),
        1,
        "{}",
        out.stderr
    );
    assert!(r.daemon_pids().is_empty(), "hooks never start a daemon");
}

#[test]
fn intent_trailers_are_added_once_even_on_amend() {
    let r = repo_with_hooks();
    let i1 = declare(&r, A, "one", "src/auth.ts");
    let i2 = declare(&r, A, "two", "src/b.ts");
    let done = declare(&r, A, "old", "src/c.ts");
    r.wit(A, &["intent", "done", &done]).ok();
    r.wit(B, &["declare", "-d", "other session", "-f", "src/auth.ts"])
        .ok();
    r.wit(A, &["intent", "start", &i2]).ok();

    r.write("notes.txt", "hello\n");
    r.git(&["add", "notes.txt"]);
    let out = r.git_run(&["commit", "-q", "-m", "add notes"], A);
    assert_eq!(out.code, 0, "{out:#?}");
    let msg = head_message(&r);
    assert_eq!(msg.matches("Wit-Intent: ").count(), 2, "{msg}");
    assert!(
        msg.contains(&format!("Wit-Intent: {i1}")) && msg.contains(&format!("Wit-Intent: {i2}")),
        "{msg}"
    );
    assert!(!msg.contains(&done), "{msg}");

    let out = r.git_run(&["commit", "-q", "--amend", "--no-edit"], A);
    assert_eq!(out.code, 0, "{out:#?}");
    let amended = head_message(&r);
    assert_eq!(
        amended.matches("Wit-Intent: ").count(),
        2,
        "no duplicates on --amend: {amended}"
    );

    // Without a session identity the hook stays silent and adds nothing.
    std::fs::remove_file(r.repo.wit_dir().join("session.id")).unwrap();
    r.write("notes.txt", "hello again\n");
    r.git(&["add", "notes.txt"]);
    let out = r.git_run(&["commit", "-q", "-m", "anonymous"], None);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(out.stderr, "");
    assert!(!head_message(&r).contains("Wit-Intent"));
}

#[test]
fn an_existing_hook_is_preserved_chained_and_restored() {
    let r = CliRepo::new();
    let hooks = r.path().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let mine = "#!/bin/sh\necho my-own-hook-ran >&2\nexit 0\n";
    std::fs::write(hooks.join("pre-commit"), mine).unwrap();
    std::fs::set_permissions(
        hooks.join("pre-commit"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();

    let out = r.wit(None, &["hook", "install"]).code(2);
    assert!(
        out.stderr
            .contains("already exists and was not written by wit")
            && out.stderr.contains("--force"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
        mine
    );
    assert!(
        !hooks.join("prepare-commit-msg").exists(),
        "a refusal changes nothing"
    );

    let v = r
        .wit(None, &["hook", "install", "--force", "--json"])
        .ok()
        .json();
    assert_eq!(v["hooks"][0]["action"], "chained");
    assert_eq!(v["hooks"][1]["action"], "installed");
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit.pre-wit")).unwrap(),
        mine
    );
    let script = std::fs::read_to_string(hooks.join("pre-commit")).unwrap();
    let wit = std::fs::canonicalize(env!("CARGO_BIN_EXE_wit")).unwrap();
    assert!(
        script.contains(&format!("'{}' hook run pre-commit", wit.display())),
        "absolute path: {script}"
    );

    // Both run on commit (no daemon: wit's check is skipped, the commit proceeds).
    r.write("a.txt", "x\n");
    r.git(&["add", "a.txt"]);
    let out = r.git_run(&["commit", "-m", "chained"], None);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains("my-own-hook-ran"), "{}", out.stderr);
    assert!(
        out.stderr.contains("contract check skipped"),
        "{}",
        out.stderr
    );

    // A failing chained hook still stops the commit.
    std::fs::write(hooks.join("pre-commit.pre-wit"), "#!/bin/sh\nexit 7\n").unwrap();
    r.write("a.txt", "y\n");
    r.git(&["add", "a.txt"]);
    assert_ne!(
        r.git_run(&["commit", "-m", "refused by mine"], None).code,
        0
    );
    std::fs::write(hooks.join("pre-commit.pre-wit"), mine).unwrap();

    // Installing again updates wit's hooks and keeps the chain.
    let v = r.wit(None, &["hook", "install", "--json"]).ok().json();
    assert_eq!(v["hooks"][0]["action"], "updated");

    let out = r.wit(None, &["hook", "uninstall"]).ok();
    assert!(out.stdout.contains("restored"), "{}", out.stdout);
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
        mine
    );
    assert!(!hooks.join("pre-commit.pre-wit").exists());
    assert!(!hooks.join("prepare-commit-msg").exists());
}

#[test]
fn install_respects_core_hooks_path() {
    let r = CliRepo::new();
    r.git(&["config", "core.hooksPath", "githooks"]);
    let v = r.wit(None, &["hook", "install", "--json"]).ok().json();
    let dir = r.path().join("githooks");
    assert_eq!(
        std::path::PathBuf::from(v["hooksDir"].as_str().unwrap()),
        dir
    );
    assert!(dir.join("pre-commit").exists() && dir.join("prepare-commit-msg").exists());
    assert!(!r.path().join(".git/hooks/pre-commit").exists());
    let mode = std::fs::metadata(dir.join("pre-commit"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "executable");

    // git runs it from there.
    r.write("a.txt", "x\n");
    r.git(&["add", "a.txt"]);
    let out = r.git_run(&["commit", "-m", "via hooksPath"], None);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(
        out.stderr.contains("contract check skipped"),
        "{}",
        out.stderr
    );

    r.wit(None, &["hook", "uninstall"]).ok();
    assert!(!dir.join("pre-commit").exists());
}
