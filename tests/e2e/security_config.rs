//! Settings a cloned repository or a typo must not turn against the user (issue 34): the
//! read cap of a committed `wit.toml`, and store credentials in logs and messages.

use serde_json::json;

use crate::support::daemon::{Daemon, daemon_command};
use crate::support::plugin_repo::PluginRepo;

/// A TypeScript file of about 2 MB: one function, then data.
fn big_source() -> String {
    let mut s = String::from("export function first(a: number): number {\n  return a;\n}\n");
    while s.len() < 2 << 20 {
        s.push_str("// padding padding padding padding padding padding padding padding\n");
    }
    s
}

/// Issue 34, finding 2: `[analysis] max_file_bytes = 4000000000` in a cloned repository
/// lifted the read cap (a 102 MB file then cost 934 MB RSS at start). Raising it is now
/// honoured only while `wit trust` pins that `wit.toml`; without, files over the default
/// 1 MiB are refused as before.
#[test]
fn an_untrusted_wit_toml_cannot_lift_the_read_cap() {
    let r = PluginRepo::new();
    r.write("wit.toml", "[analysis]\nmax_file_bytes = 4000000000\n");
    r.write("src/big.ts", &big_source());
    r.analyzers(); // the daemon started
    let propose = |r: &PluginRepo| {
        r.client().call(
            "contract.propose",
            json!({"sessionId": "agent-a", "symbolPath": "src/big.ts:first"}),
        )
    };
    let untrusted = propose(&r);
    assert_eq!(
        untrusted["error"]["message"], "SYMBOL_NOT_FOUND",
        "the 2 MB file was read: {untrusted}"
    );
    assert!(
        r.log().contains("raises [analysis] max_file_bytes"),
        "{}",
        r.log()
    );
    // Trusted (the prompt says what it grants), the raise is honoured, up to the ceiling.
    let trusted = r.trust();
    assert!(
        trusted
            .stdout
            .contains("read source files of up to 4000000000 bytes"),
        "{}",
        trusted.stdout
    );
    let answer = propose(&r);
    assert_eq!(
        answer["result"]["signature"], "(a: number): number",
        "{answer}"
    );
}

/// Issue 34, finding 6: an unterminated string in `~/.config/wit/config.toml`'s `[store]
/// url` put the whole line, password included, into `.wit/daemon.log` (the TOML parser's
/// excerpt). Now the log names the file, line and column only.
#[test]
fn a_typo_in_the_user_config_never_logs_the_store_password() {
    let r = PluginRepo::new();
    let dir = r.config_home().join("wit");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "[store]\nurl = \"postgresql://wit:Sup3rSecret@db.internal/wit\n",
    )
    .unwrap();
    let mut cmd = daemon_command(r.path());
    r.isolate(&mut cmd);
    cmd.env_remove("WIT_STORE_URL");
    let d = Daemon::start_with(r.path(), cmd);
    assert_eq!(d.client().ok("ping", json!({})), "pong");
    let log = r.log();
    assert!(
        log.contains("config.toml:2:")
            && log.contains(": not valid TOML; its [store] url is ignored"),
        "{log}"
    );
    assert!(!log.contains("Sup3rSecret"), "{log}");
}

/// Issue 34, finding 6: `WIT_STORE_URL=postgresql://wit:Pw4?secret@db/wit` (a `?` in
/// the password) was shown as `wit:Pw4/`, cut from the text. What is shown now comes
/// from the parsed URL: host, port and database.
#[test]
fn a_store_url_with_a_question_mark_in_its_password_is_shown_as_host_port_and_database() {
    let r = PluginRepo::new();
    let mut cmd = daemon_command(r.path());
    r.isolate(&mut cmd);
    // Port 1 of the loopback: refused at once, so the daemon says what it tried.
    cmd.env(
        "WIT_STORE_URL",
        "postgresql://wit:Pw4?secret@127.0.0.1:1/wit",
    );
    let out = cmd.output().unwrap();
    assert!(!out.status.success());
    let said = format!("{}{}", String::from_utf8_lossy(&out.stderr), r.log());
    assert!(
        said.contains("cannot reach the PostgreSQL store 127.0.0.1:1/wit"),
        "{said}"
    );
    assert!(!said.contains("Pw4") && !said.contains("secret"), "{said}");
}
