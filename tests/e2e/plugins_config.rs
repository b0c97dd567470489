//! `wit.toml` read by the daemon at start: the default lock TTL, and an invalid file
//! reported with file, line and key (the daemon then serves with the defaults).

use serde_json::json;
use wit_core::protocol::parse_iso8601_millis;

use crate::support::plugin_repo::{BUILTINS, PluginRepo, analyzer_ids};
use crate::support::repo::AUTH_TS;

/// The TTL of a lock taken without `ttlMs`.
fn default_ttl_ms(r: &PluginRepo, symbol: &str) -> i64 {
    let lock = r.client().ok(
        "lock.acquire",
        json!({"symbolPath": symbol, "sessionId": "A"}),
    );
    let at = |k: &str| parse_iso8601_millis(lock[k].as_str().unwrap()).unwrap();
    at("expiresAt") - at("acquiredAt")
}

#[test]
fn the_default_ttl_from_wit_toml_is_used_and_a_restart_picks_up_changes() {
    let r = PluginRepo::new();
    r.write("src/auth.ts", AUTH_TS);
    r.write("wit.toml", "[locks]\ndefault_ttl = \"90s\"\n");
    r.analyzers();
    assert_eq!(default_ttl_ms(&r, "src/auth.ts:decode"), 90_000);
    // An explicit ttlMs still wins.
    let lock = r.client().ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:persist", "sessionId": "A", "ttlMs": 5000}),
    );
    let at = |k: &str| parse_iso8601_millis(lock[k].as_str().unwrap()).unwrap();
    assert_eq!(at("expiresAt") - at("acquiredAt"), 5000);

    r.write("wit.toml", "[locks]\ndefault_ttl = 120000\n");
    r.restart();
    assert_eq!(default_ttl_ms(&r, "src/auth.ts:validateToken"), 120_000);
}

#[test]
fn an_unknown_key_is_reported_with_file_line_and_key_and_defaults_apply() {
    let r = PluginRepo::new();
    r.write("src/auth.ts", AUTH_TS);
    r.write(
        "wit.toml",
        "# wit settings\n[locks]\ndefault_tll = \"90s\"\n\n[[analyzers]]\npath = \"x.so\"\n",
    );
    let file = r.path().join("wit.toml").display().to_string();
    let expected = format!("{file}:3:1: locks.default_tll: unknown field `default_tll`");

    let list = r.analyzers();
    let error = list["config"]["error"].as_str().unwrap();
    assert!(error.starts_with(&expected), "{error}");
    assert_eq!(list["config"]["line"], 3);
    assert_eq!(list["config"]["key"], "locks.default_tll");
    // Served with the defaults and no plugins (not even an attempt: nothing in `failed`).
    assert_eq!(analyzer_ids(&list), BUILTINS);
    assert_eq!(list["failed"], json!([]));
    assert_eq!(
        default_ttl_ms(&r, "src/auth.ts:decode"),
        wit_core::protocol::DEFAULT_LOCK_TTL_MS as i64
    );

    // Shown by `wit analyzers`, `wit status` and `wit daemon status`, and logged.
    let human = r.wit(None, &["analyzers"]).ok().stdout;
    assert!(
        human.contains(&format!("wit.toml refused: {expected}")),
        "{human}"
    );
    let status = r.wit(None, &["status"]).ok().stdout;
    assert!(status.contains(&expected), "{status}");
    let daemon = r.wit(None, &["daemon", "status"]).ok().stdout;
    assert!(daemon.contains("wit.toml refused"), "{daemon}");
    assert!(r.log().contains(&expected), "{}", r.log());

    // `wit trust` refuses the same file with the same message.
    let trust = r.wit(None, &["trust", "--yes"]).code(1);
    assert!(trust.stderr.contains(&expected), "{}", trust.stderr);
}
