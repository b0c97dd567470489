//! Daily use without dead ends: paths from where the user stands, short ids, `--json`
//! usage errors, shell completions, and a daemon that leaves with its repository.

use std::time::Duration;

use crate::support::cli::CliRepo;
use crate::support::daemon::{Daemon, ping, wait_until};
use crate::support::repo::TempRepo;

#[test]
fn paths_on_the_command_line_are_relative_to_the_current_directory() {
    let r = CliRepo::new();
    r.write("src/cli/client.ts", "export function spawnDaemon() {}\n");
    let sub = r.path().join("src/cli");
    let v = r
        .wit_in(
            &sub,
            Some("s1"),
            &["lock", "client.ts:spawnDaemon", "--json"],
        )
        .ok()
        .json();
    assert_eq!(v["symbolPath"], "src/cli/client.ts:spawnDaemon", "{v}");
    let human = r
        .wit_in(&sub, Some("s1"), &["lock", "./client.ts:spawnDaemon"])
        .ok();
    assert!(
        human.stdout.contains("src/cli/client.ts:spawnDaemon"),
        "shows the path it used: {}",
        human.stdout
    );
    let d = r
        .wit_in(
            &sub,
            Some("s1"),
            &["declare", "-d", "x", "--files", "client.ts", "--json"],
        )
        .ok()
        .json();
    let listed = r
        .wit_in(
            &sub,
            Some("s1"),
            &["intent", "list", "--file", "client.ts", "--json"],
        )
        .ok()
        .json();
    assert_eq!(listed[0]["intentId"], d["intentId"], "{listed}");
    r.wit_in(&sub, Some("s1"), &["release", "client.ts:spawnDaemon"])
        .ok();
    let out = r.wit_in(&sub, Some("s1"), &["lock", "../../../elsewhere.ts:f"]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(
        out.stderr.contains("outside the repository"),
        "{}",
        out.stderr
    );
}

#[test]
fn contract_and_intent_ids_take_any_unique_prefix() {
    let r = CliRepo::new();
    r.write("src/api.ts", "export function handler(a: string) {}\n");
    let c = r
        .wit(
            Some("s1"),
            &["contract", "propose", "src/api.ts:handler", "--json"],
        )
        .ok()
        .json();
    let id = c["contractId"].as_str().unwrap().to_owned();
    let v = r
        .wit(Some("s2"), &["contract", "accept", &id[..8], "--json"])
        .ok()
        .json();
    assert_eq!(v["contractId"], id.as_str());
    assert_eq!(v["status"], "accepted");
    // No match: the daemon's own answer (exit 3).
    let out = r.wit(Some("s2"), &["contract", "accept", "ffffffff"]);
    assert_eq!(out.code, 3, "{out:#?}");

    // 17 intents: two of them share their first hex digit (pigeonhole), so that digit is
    // an ambiguous prefix; the first intent's 12 characters are unique.
    let mut ids: Vec<String> = Vec::new();
    for n in 0..17 {
        let v = r
            .wit(
                Some("s1"),
                &[
                    "declare",
                    "-d",
                    &format!("d{n}"),
                    "--files",
                    "a.ts",
                    "--json",
                ],
            )
            .ok()
            .json();
        ids.push(v["intentId"].as_str().unwrap().to_owned());
    }
    let first = &ids[0];
    let u = r
        .wit(Some("s1"), &["intent", "start", &first[..12], "--json"])
        .ok()
        .json();
    assert_eq!(u["intentId"], first.as_str());
    let shared = ids
        .iter()
        .enumerate()
        .find_map(|(i, a)| {
            ids[i + 1..]
                .iter()
                .find(|b| b[..1] == a[..1])
                .map(|_| &a[..1])
        })
        .expect("pigeonhole");
    let out = r.wit(Some("s1"), &["intent", "done", shared]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stderr.contains("ambiguous"), "{}", out.stderr);
    let out = r.wit(Some("s1"), &["intent", "done", "not-an-id"]);
    assert_eq!(out.code, 3, "none: the daemon's INTENT_NOT_FOUND: {out:#?}");
}

#[test]
fn usage_errors_under_json_are_the_documented_error_object() {
    let r = CliRepo::new();
    for args in [
        &["status", "--bogus", "--json"][..],
        &["--json", "lock", "a.ts:f", "--ttl", "5x"],
        &["--json", "nosuchcommand"],
    ] {
        let out = r.wit(Some("s1"), args).code(2);
        let v = out.json();
        assert_eq!(v["error"]["code"], 2, "{args:?}: {v}");
        assert_eq!(v["error"]["message"], "USAGE_ERROR", "{args:?}: {v}");
        assert!(v["error"]["data"]["explanation"].is_string(), "{v}");
    }
}

#[test]
fn completions_are_generated_for_each_shell_and_help_points_to_them() {
    let r = CliRepo::new();
    for (shell, needle) in [
        ("bash", "_wit()"),
        ("zsh", "#compdef wit"),
        ("fish", "complete -c wit"),
    ] {
        let out = r.wit(None, &["completions", shell]).ok();
        assert!(
            out.stdout.contains(needle),
            "{shell}: {}",
            &out.stdout[..200.min(out.stdout.len())]
        );
        assert!(
            out.stdout.contains("declare"),
            "{shell} completes subcommands"
        );
    }
    let man = r.wit(None, &["man"]).ok();
    assert!(
        man.stdout.starts_with(".ie") || man.stdout.contains(".TH wit"),
        "{}",
        man.stdout
    );
    let help = r.wit(None, &["--help"]).ok();
    assert!(help.stdout.contains("wit completions"), "{}", help.stdout);
}

/// Deletes `dir` as `rm -rf` would while a daemon may still be writing into its `.wit/`
/// (its index, the forecast's store): a directory that gains an entry during the removal
/// is removed again.
fn remove_while_written(dir: &std::path::Path) {
    for _ in 0..50 {
        match std::fs::remove_dir_all(dir) {
            Ok(()) => return,
            Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => continue,
            Err(e) => panic!("remove {}: {e}", dir.display()),
        }
    }
    panic!("{} kept gaining entries", dir.display());
}

#[test]
fn a_daemon_of_a_deleted_repository_leaves_the_socket_of_the_one_made_again_alone() {
    let repo = TempRepo::new();
    let root = repo.path().to_owned();
    let mut old = Daemon::start(&root);
    remove_while_written(&root);
    std::fs::create_dir_all(&root).unwrap();
    let new = Daemon::start(&root);
    wait_until("the old daemon exits", Duration::from_secs(30), || {
        !old.is_running()
    });
    assert!(ping(new.socket()), "the new daemon's socket was removed");
    let pid: u32 = std::fs::read_to_string(root.join(".wit/daemon.pid"))
        .expect("the new daemon's pid file")
        .trim()
        .parse()
        .unwrap();
    assert_eq!(pid, new.pid());
}

#[test]
fn a_daemon_whose_repository_is_deleted_exits() {
    let r = CliRepo::new();
    r.wit(Some("s1"), &["status"]).ok();
    let pids = r.daemon_pids();
    assert_eq!(pids.len(), 1);
    let pid = pids[0];
    remove_while_written(r.path());
    wait_until("the daemon exits", Duration::from_secs(30), || {
        !std::path::Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|s| s.contains(") Z "))
                .unwrap_or(true)
    });
}
