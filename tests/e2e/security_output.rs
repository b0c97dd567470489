//! Security item 2: attacker-chosen text is never written raw, to the log or a terminal.

use crate::support::cli::CliRepo;

/// Clears the screen, sets the terminal title, moves the cursor home and hides what came
/// before on the line.
const HOSTILE: &str = "fix\u{1b}[2J\u{1b}]0;pwned\u{7}\u{1b}[H\rall good";

fn assert_no_control(what: &str, text: &str) {
    let bad: Vec<char> = text
        .chars()
        .filter(|c| c.is_control() && *c != '\n')
        .collect();
    assert!(
        bad.is_empty(),
        "{what} has raw control characters {bad:?}: {text:?}"
    );
}

#[test]
fn item2_log_lines_escape_a_plugin_path_with_newlines() {
    let r = CliRepo::new();
    r.write("wit.toml", "[[analyzers]]\npath = \"y\\ntouch PWNED\\n\"\n");
    r.wit(Some("s1"), &["status"]).ok();
    let log = std::fs::read_to_string(r.path().join(".wit/daemon.log")).unwrap();
    assert!(log.contains("touch PWNED"), "the refusal is logged: {log}");
    for line in log.lines() {
        assert!(
            line.len() >= 4 && line[..4].bytes().all(|b| b.is_ascii_digit()),
            "every log line is one event starting with its time stamp: {line:?}"
        );
    }
    assert_no_control("daemon.log", &log);
}

#[test]
fn item2_status_intent_list_and_conflicts_escape_other_agents_text() {
    let r = CliRepo::new();
    r.write("src/a.ts", "export function f() {}\n");
    let session = "evil\u{1b}[31m";
    r.wit(
        Some(session),
        &["declare", "--description", HOSTILE, "--files", "src/a.ts"],
    )
    .ok();
    r.wit(Some(session), &["lock", "src/a.ts:f"]).ok();
    for args in [&["status"][..], &["intent", "list"], &["contract", "list"]] {
        let out = r.wit(Some("victim"), args).ok();
        assert_no_control(&format!("wit {args:?}"), &out.stdout);
    }
    let status = r.wit(Some("victim"), &["status"]).ok();
    assert!(
        status.stdout.contains("\\u{1b}[2J"),
        "shown escaped: {}",
        status.stdout
    );
    let declare = r.wit(
        Some("victim"),
        &[
            "declare",
            "--description",
            "mine",
            "--files",
            "src/a.ts",
            "--symbols",
            "f",
        ],
    );
    assert_no_control("wit declare", &declare.stdout);
    let lock = r.wit(Some("victim"), &["lock", "src/a.ts:f"]);
    assert_eq!(lock.code, 3, "{lock:#?}");
    assert_no_control("wit lock (stderr)", &lock.stderr);
    // JSON keeps the exact text (escaped the JSON way).
    let v = r
        .wit(Some("victim"), &["intent", "list", "--json"])
        .ok()
        .json();
    assert!(v.to_string().contains("\\u001b[2J"), "{v}");
}

#[test]
fn item2_wit_trust_shows_a_decoy_library_name_as_what_it_is() {
    let r = crate::support::plugin_repo::PluginRepo::new();
    r.write(
        "wit.toml",
        "[[analyzers]]\npath = \"evil.so\\r  libwit_analyzer_go.so\"\n",
    );
    let out = r.wit(None, &["trust", "--yes"]);
    assert_no_control("wit trust", &out.stdout);
    assert_no_control("wit trust (stderr)", &out.stderr);
    assert!(
        out.stdout.contains("evil.so\\r  libwit_analyzer_go.so"),
        "the whole name, escaped: {out:#?}"
    );
    let list = r.wit(None, &["analyzers"]);
    assert_no_control("wit analyzers", &list.stdout);
}
