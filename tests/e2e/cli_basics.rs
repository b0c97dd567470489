//! The CLI without coordination semantics: help, usage errors, durations, repo discovery.

use crate::support::cli::CliRepo;
use crate::support::cli::wit_command;
use crate::support::repo::TempRepo;

#[test]
fn help_documents_exit_codes_and_every_command_has_an_example() {
    let r = CliRepo::new();
    let top = r.wit(None, &["--help"]).ok();
    for needle in [
        "Exit codes:",
        "2  usage error",
        "3  refused",
        "4  the daemon is unreachable",
        "WIT_SESSION",
    ] {
        assert!(
            top.stdout.contains(needle),
            "--help lacks {needle:?}: {}",
            top.stdout
        );
    }
    let commands: &[&[&str]] = &[
        &["init"],
        &["status"],
        &["declare"],
        &["intent", "update"],
        &["intent", "done"],
        &["intent", "list"],
        &["lock"],
        &["release"],
        &["contract", "propose"],
        &["contract", "accept"],
        &["contract", "reject"],
        &["contract", "list"],
        &["watch"],
        &["hook", "install"],
        &["hook", "uninstall"],
        &["check-contracts"],
        &["daemon", "run"],
        &["daemon", "start"],
        &["daemon", "stop"],
        &["daemon", "restart"],
        &["daemon", "status"],
    ];
    for cmd in commands {
        let mut args = cmd.to_vec();
        args.push("--help");
        let out = r.wit(None, &args).ok();
        assert!(
            out.stdout.contains("Example:"),
            "`wit {}` help has no example",
            cmd.join(" ")
        );
        assert!(
            out.stdout.contains("--json"),
            "`wit {}` help lacks --json",
            cmd.join(" ")
        );
    }
}

#[test]
fn usage_errors_exit_2_without_contacting_a_daemon() {
    let r = CliRepo::new();
    r.wit(None, &["lock"]).code(2);
    r.wit(None, &["frobnicate"]).code(2);
    r.wit(None, &["declare", "--description", "x"]).code(2);
    let out = r.wit(None, &["lock", "no-colon-here"]).code(2);
    assert!(out.stderr.contains("file:name"), "{}", out.stderr);
    let out = r.wit(None, &["lock", "--json", "no-colon-here"]).code(2);
    assert_eq!(out.json()["error"]["message"], "USAGE_ERROR");
    assert!(
        r.daemon_pids().is_empty(),
        "a usage error must not start a daemon"
    );
}

#[test]
fn durations_parse_human_units_and_bare_milliseconds() {
    let r = CliRepo::new();
    let cases = [
        ("90s", 90_000),
        ("30m", 1_800_000),
        ("2h", 7_200_000),
        ("1h30m", 5_400_000),
        ("60000", 60_000),
    ];
    for (ttl, ms) in cases {
        let path = format!("a.ts:f{ms}");
        let out = r
            .wit(Some("s1"), &["lock", &path, "--ttl", ttl, "--json"])
            .ok();
        let v = out.json();
        let acquired =
            wit_core::protocol::parse_iso8601_millis(v["acquiredAt"].as_str().unwrap()).unwrap();
        let expires =
            wit_core::protocol::parse_iso8601_millis(v["expiresAt"].as_str().unwrap()).unwrap();
        assert_eq!(expires - acquired, ms, "--ttl {ttl}");
    }
    for bad in ["0", "5x", "soon", "-1m", "1.5h"] {
        let out = r
            .wit(Some("s1"), &["lock", "a.ts:g", &format!("--ttl={bad}")])
            .code(2);
        assert!(out.stderr.contains("--ttl"), "{bad}: {}", out.stderr);
    }
}

#[test]
fn the_root_is_found_from_a_subdirectory_and_wit_repo_root_overrides() {
    let r = CliRepo::new();
    r.write("src/deep/x.ts", "export function f(): void {}\n");
    r.wit(Some("s1"), &["lock", "src/deep/x.ts:f"]).ok();
    // From a subdirectory: same repository, same daemon, so the lock is visible.
    let sub = r.path().join("src/deep");
    let out = r.wit_in(&sub, Some("s2"), &["status", "--json"]).ok();
    assert_eq!(out.json()["root"], r.path().display().to_string());
    assert_eq!(out.json()["locks"][0]["symbolPath"], "src/deep/x.ts:f");

    // WIT_REPO_ROOT wins over the working directory.
    let elsewhere = TempRepo::new();
    let mut cmd = wit_command(elsewhere.path(), Some("s2"), &["status", "--json"]);
    cmd.env("WIT_REPO_ROOT", r.path());
    let out = cmd.output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["root"], r.path().display().to_string());
    assert!(!elsewhere.path().join(".wit").exists());
}

#[test]
fn outside_any_repository_the_cli_says_so_and_exits_2() {
    let dir = TempRepo::new();
    let out = wit_command(dir.path(), None, &["status"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("wit init"));
}

/// Issue 32: `wit status --json | head -1` panicked ("failed printing to stdout: Broken
/// pipe"). Each command here runs with a stdout whose reader is already gone, so its first
/// write fails: it must end quietly with exit 0, in text and in `--json`.
#[test]
fn a_closed_stdout_ends_every_command_quietly_with_exit_0() {
    let r = CliRepo::new();
    r.write(
        "src/api.ts",
        "export function handler(req: string): string { return req; }\n",
    );
    r.wit(Some("s1"), &["init"]).ok();
    r.wit(Some("s1"), &["lock", "src/api.ts:handler"]).ok();
    let commands: &[&[&str]] = &[
        &["status"],
        &["status", "--json"],
        &["conflicts"],
        &["conflicts", "--json"],
        &["symbols", "src/api.ts"],
        &["symbols", "src/api.ts", "--json"],
        &["callers", "src/api.ts:handler"],
        &["contract", "list", "--json"],
        &["analyzers"],
        &["intent", "list"],
        &["man"],
        &["completions", "bash"],
        // Errors are output too: a usage error under --json, a refused lock.
        &["lock", "--json"],
        &["lock", "src/api.ts:handler", "--json"],
    ];
    for args in commands {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = wit_command(r.path(), Some("s2"), args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("run wit");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(0),
            "`wit {}` into a closed pipe: {:?}, stderr: {stderr}",
            args.join(" "),
            out.status
        );
        assert!(
            stderr.is_empty(),
            "`wit {}` into a closed pipe said: {stderr}",
            args.join(" ")
        );
    }
}
