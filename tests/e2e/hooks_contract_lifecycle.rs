//! Contracts have a whole lifecycle: the wall the hook's own advice used to lead into
//! (propose and accept a new signature, and the old accepted contract still refuses the
//! commit) and both ways out — superseding and withdrawing — through real commits.

use crate::support::cli::CliRepo;

const V1: &str = "export function handler(a: string): void {}\n";
const V2: &str = "export function handler(a: string, b: number): void {}\n";
const V3: &str = "export function handler(a: string, b: number, c: boolean): void {}\n";

fn repo() -> CliRepo {
    let r = CliRepo::new();
    r.write("src/api.ts", V1);
    r.wit(None, &["hook", "install"]).ok();
    r.git(&["add", "."]);
    r.git(&["commit", "-q", "-m", "initial"]);
    r
}

fn propose(r: &CliRepo, session: &str) -> String {
    r.wit(
        Some(session),
        &["contract", "propose", "src/api.ts:handler", "--json"],
    )
    .ok()
    .json()["contractId"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn commit(r: &CliRepo, content: &str, message: &str) -> crate::support::cli::Run {
    r.write("src/api.ts", content);
    r.git(&["add", "src/api.ts"]);
    r.git_run(&["commit", "-q", "-m", message], Some("a"))
}

#[test]
fn accepting_a_new_contract_supersedes_the_old_one_and_the_commit_goes_through() {
    let r = repo();
    let old = propose(&r, "a");
    r.wit(Some("b"), &["contract", "accept", &old]).ok();

    let refused = commit(&r, V2, "change the signature");
    assert_ne!(refused.code, 0, "refused: {refused:#?}");
    assert!(
        refused.stderr.contains("supersedes") && refused.stderr.contains("wit contract withdraw"),
        "the refusal names the ways out: {}",
        refused.stderr
    );

    // The way out the message names: the new signature, proposed and accepted.
    let new = propose(&r, "a");
    r.wit(Some("b"), &["contract", "accept", &new]).ok();
    let ok = r.git_run(&["commit", "-q", "-m", "change the signature"], Some("a"));
    assert_eq!(ok.code, 0, "{ok:#?}");

    let listed = r.wit(None, &["contract", "list", "--json"]).ok().json();
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["contractId"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [new.as_str()],
        "v1 listings no longer show the superseded one"
    );
    let superseded = r
        .wit(
            None,
            &["contract", "list", "--status", "superseded", "--json"],
        )
        .ok()
        .json();
    assert_eq!(superseded[0]["contractId"], old.as_str());
    assert_eq!(superseded[0]["retired"]["supersededBy"], new.as_str());
    assert_eq!(superseded[0]["retired"]["by"], "b");
    // A superseded contract cannot be accepted or withdrawn again.
    let again = r.wit(Some("b"), &["contract", "withdraw", &old, "--reason", "x"]);
    assert_eq!(again.code, 3, "{again:#?}");
}

#[test]
fn a_withdrawn_contract_stops_refusing_and_another_session_must_say_why() {
    let r = repo();
    let id = propose(&r, "a");
    r.wit(Some("b"), &["contract", "accept", &id[..8]]).ok();
    let refused = commit(&r, V3, "break it");
    assert_ne!(refused.code, 0, "{refused:#?}");

    let no_reason = r.wit(Some("c"), &["contract", "withdraw", &id]);
    assert_eq!(no_reason.code, 2, "{no_reason:#?}");
    assert!(no_reason.stderr.contains("reason"), "{}", no_reason.stderr);
    let v = r
        .wit(
            Some("c"),
            &[
                "contract",
                "withdraw",
                &id[..6],
                "--reason",
                "API changed on purpose",
                "--json",
            ],
        )
        .ok()
        .json();
    assert_eq!(v["status"], "withdrawn");
    assert_eq!(v["retired"]["by"], "c");
    assert_eq!(v["retired"]["reason"], "API changed on purpose");

    let ok = r.git_run(&["commit", "-q", "-m", "break it"], Some("a"));
    assert_eq!(ok.code, 0, "{ok:#?}");
    let withdrawn = r
        .wit(
            None,
            &["contract", "list", "--status", "withdrawn", "--json"],
        )
        .ok()
        .json();
    assert_eq!(withdrawn[0]["contractId"], id.as_str());
    // Recorded in the daemon's log too (another session than the proposer).
    let log = std::fs::read_to_string(r.path().join(".wit/daemon.log")).unwrap();
    assert!(log.contains("withdrawn by another session"), "{log}");

    // Its proposer may withdraw its own without a reason.
    let own = propose(&r, "a");
    r.wit(Some("a"), &["contract", "withdraw", &own]).ok();
}

#[test]
fn the_pre_push_hook_refuses_a_push_breaking_an_accepted_contract_unless_warned() {
    let r = repo();
    let remote = tempfile::tempdir().unwrap();
    let bare = remote.path().join("origin.git");
    let out = std::process::Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(&bare)
        .status()
        .unwrap();
    assert!(out.success());
    r.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    r.git(&["push", "-q", "origin", "main"]);
    let id = propose(&r, "a");
    r.wit(Some("b"), &["contract", "accept", &id]).ok();

    // Committed past the pre-commit hook; the push is the last chance.
    r.write("src/api.ts", V2);
    r.git(&["add", "src/api.ts"]);
    r.git(&["commit", "-q", "--no-verify", "-m", "break it"]);
    let refused = r.git_run(&["push", "-q", "origin", "main"], Some("a"));
    assert_ne!(refused.code, 0, "{refused:#?}");
    assert!(
        refused.stderr.contains("push refused"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("src/api.ts:handler"),
        "{}",
        refused.stderr
    );
    let remote_head = |r: &CliRepo| r.git(&["ls-remote", "origin", "main"]);
    assert!(!remote_head(&r).contains(&r.git(&["rev-parse", "HEAD"]).trim().to_owned()));

    // Warn mode lets it through, saying so.
    let mut cmd = std::process::Command::new("git");
    cmd.args(["push", "-q", "origin", "main"])
        .current_dir(r.path());
    crate::support::cli::clean_env(&mut cmd);
    let warned = cmd.env("WIT_PRE_PUSH", "warn").output().unwrap();
    let stderr = String::from_utf8_lossy(&warned.stderr);
    assert!(warned.status.success(), "{stderr}");
    assert!(stderr.contains("pushing anyway"), "{stderr}");

    // A push that keeps the contract goes through silently.
    r.write("src/api.ts", V1);
    r.git(&["add", "src/api.ts"]);
    r.git(&["commit", "-q", "-m", "restore"]);
    let ok = r.git_run(&["push", "-q", "origin", "main"], Some("a"));
    assert_eq!(ok.code, 0, "{ok:#?}");
}
