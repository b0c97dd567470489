//! Plugins that cannot be loaded, and plugins that fail while analysing: each is reported
//! with its path and the reason (to the user and in `.wit/daemon.log`), and the daemon
//! keeps serving the other analyzers.

use serde_json::json;

use crate::support::plugin_repo::{
    BUILTINS_THEN_GO_PLUGIN, PluginRepo, analyzer_ids, failure_for, first_plugin,
};
use crate::support::plugins::{broken_plugin, go_plugin};
use crate::support::repo::AUTH_TS;

/// Asserts the built-in TypeScript analyzer still serves: a contract on a TS function.
#[track_caller]
fn builtins_still_serve(r: &PluginRepo) {
    let mut c = r.client();
    let proposed = c.ok(
        "contract.propose",
        json!({"sessionId": "A", "symbolPath": "src/auth.ts:validateToken"}),
    );
    assert_eq!(
        proposed["signature"],
        "(token: string): Promise<User | null>"
    );
}

#[test]
fn every_load_failure_is_reported_with_path_and_reason_and_the_rest_still_load() {
    let r = PluginRepo::new();
    r.write("src/auth.ts", AUTH_TS);
    r.write("plugins/not-a-library.so", "this is text, not ELF\n");
    r.write(
        "wit.toml",
        &format!(
            r#"[[analyzers]]
path = "{abi}"

[[analyzers]]
path = "{no_entry}"

[[analyzers]]
path = "plugins/not-a-library.so"

[[analyzers]]
path = "plugins/missing.so"

[[analyzers]]
path = "{claims_ts}"
extensions = ["ts"]

[[analyzers]]
path = "{go}"
"#,
            abi = broken_plugin("abi-mismatch").display(),
            no_entry = broken_plugin("no-entry").display(),
            claims_ts = broken_plugin("panicking").display(),
            go = go_plugin().display(),
        ),
    );
    // A library that is missing can be trusted (pinned as absent): it then fails to load.
    let trusted = r.trust();
    assert!(
        trusted.stdout.contains("plugins/missing.so  missing"),
        "{}",
        trusted.stdout
    );

    let list = r.analyzers();
    assert_eq!(
        analyzer_ids(&list),
        BUILTINS_THEN_GO_PLUGIN,
        "the good plugin loads next to the broken ones"
    );
    let expected = [
        (
            broken_plugin("abi-mismatch"),
            "plugin ABI version 999, but this wit speaks version 1".to_owned(),
        ),
        (
            broken_plugin("no-entry"),
            "not a wit analyzer plugin: the entry symbol `wit_analyzer_v1` is missing".to_owned(),
        ),
        (
            r.path().join("plugins/not-a-library.so"),
            "not a loadable shared library: ".to_owned(),
        ),
        (
            r.path().join("plugins/missing.so"),
            "file not found".to_owned(),
        ),
        (
            broken_plugin("panicking"),
            "extension .ts is already handled by analyzer \"typescript\"".to_owned(),
        ),
    ];
    assert_eq!(list["failed"].as_array().unwrap().len(), expected.len());
    let log = r.log();
    let human = r.wit(None, &["analyzers"]).ok().stdout;
    for (path, reason) in &expected {
        let failed = failure_for(&list, path);
        assert!(
            failed["reason"]
                .as_str()
                .unwrap()
                .starts_with(reason.as_str()),
            "{path:?}: {failed}"
        );
        assert!(failed["hint"].is_string(), "{failed}");
        let line = format!("analyzer plugin {}: {reason}", path.display());
        assert!(log.contains(&line), "log lacks {line:?}:\n{log}");
        assert!(
            human.contains(&format!("plugin not loaded: {}", path.display())),
            "{human}"
        );
    }
    // The remedy for another ABI version travels as the hint, in the reply and the log.
    let rebuild = "rebuild the plugin against this version of wit-core, then run `wit trust`";
    let abi = broken_plugin("abi-mismatch");
    assert_eq!(failure_for(&list, &abi)["hint"], rebuild);
    let line = format!(
        "analyzer plugin {}: plugin ABI version 999, but this wit speaks version 1; {rebuild}",
        abi.display()
    );
    assert!(log.contains(&line), "log lacks {line:?}:\n{log}");
    // The built-ins (and TypeScript in particular, which one plugin tried to take) serve.
    builtins_still_serve(&r);
}

#[test]
fn a_panicking_plugin_fails_only_the_analysis_and_the_daemon_keeps_serving() {
    let r = PluginRepo::new();
    r.write("src/auth.ts", AUTH_TS);
    r.write("boom.panic", "anything\n");
    let lib = broken_plugin("panicking");
    r.write(
        "wit.toml",
        &format!("[[analyzers]]\npath = \"{}\"\n", lib.display()),
    );
    r.trust();
    let list = r.analyzers();
    assert!(analyzer_ids(&list).contains(&"panicking".to_owned()));
    let mut c = r.client();
    // The code graph's index analyses every file once at start (boom.panic too, which
    // fails like any analysis of it): counted before the requests below.
    crate::support::daemon::wait_until(
        "the index is built",
        std::time::Duration::from_secs(60),
        || c.ok("graph.status", json!({}))["state"] == "ready",
    );
    let failures = |list: &serde_json::Value| {
        list["analyzers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == "panicking")
            .map_or(0, |p| p["failures"].as_u64().unwrap_or(0))
    };
    let before = failures(&r.analyzers());
    assert!(before <= 1, "the index analyses the file once: {before}");

    // lock.acquire: the lock is taken, without caller warnings (none can be computed).
    let lock = c.ok(
        "lock.acquire",
        json!({"symbolPath": "boom.panic:f", "sessionId": "A"}),
    );
    assert_eq!(lock["warnings"], json!([]));
    // intent.declare: stored, as a whole-file intent (no byte range, no dependencies).
    let declared = c.ok(
        "intent.declare",
        json!({"sessionId": "B", "description": "d", "files": ["boom.panic"], "symbols": ["g"]}),
    );
    assert_eq!(declared["conflicts"]["hasConflicts"], false);
    let intents = c.ok("intent.query", json!({"sessionId": "B"}));
    assert_eq!(intents[0]["startByte"], json!(null));
    // contract.propose: the symbol cannot be found.
    let err = c.err(
        "contract.propose",
        json!({"sessionId": "A", "symbolPath": "boom.panic:f"}),
    );
    assert_eq!(err["message"], "SYMBOL_NOT_FOUND");

    // Each failure is counted and shown, with the plugin's panic message, and logged with
    // the library path.
    let list = r.analyzers();
    let plugin = list["analyzers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "panicking")
        .unwrap()
        .clone();
    assert_eq!(plugin["failures"], before + 3, "{plugin}");
    assert!(
        plugin["lastFailure"]["reason"]
            .as_str()
            .unwrap()
            .contains("panicked: deliberate panic while analysing"),
        "{plugin}"
    );
    let log = r.log();
    assert!(
        log.contains(&format!(
            "analyzer plugin {}: analyze failed: analyzer \"panicking\" panicked: deliberate panic",
            lib.display()
        )),
        "{log}"
    );
    assert!(r.wit(None, &["analyzers"]).ok().stdout.contains(&format!(
        "{} failed analyses, last: analyzer \"panicking\" panicked",
        before + 3
    )),);

    // The daemon is alive and the built-ins serve.
    builtins_still_serve(&r);
}

#[test]
fn malformed_data_from_a_plugin_fails_the_analysis_like_a_panic() {
    let r = PluginRepo::new();
    r.write("x.broken", "anything\n");
    let lib = broken_plugin("bad-json");
    r.write(
        "wit.toml",
        &format!("[[analyzers]]\npath = \"{}\"\n", lib.display()),
    );
    r.write("src/auth.ts", AUTH_TS);
    r.trust();
    r.analyzers();
    let mut c = r.client();
    // The code graph's index analyses x.broken once at start (and fails the same way).
    crate::support::daemon::wait_until(
        "the index is built",
        std::time::Duration::from_secs(60),
        || c.ok("graph.status", json!({}))["state"] == "ready",
    );
    let before = first_plugin(&r.analyzers())["failures"]
        .as_u64()
        .unwrap_or(0);
    assert!(before <= 1, "{before}");
    let err = c.err(
        "contract.propose",
        json!({"sessionId": "A", "symbolPath": "x.broken:f"}),
    );
    assert_eq!(err["message"], "SYMBOL_NOT_FOUND");
    let list = r.analyzers();
    let plugin = first_plugin(&list);
    assert_eq!(plugin["failures"], before + 1, "{list}");
    assert!(
        plugin["lastFailure"]["reason"]
            .as_str()
            .unwrap()
            .contains("returned malformed analysis JSON"),
        "{plugin}"
    );
    assert!(r.log().contains(&format!(
        "analyzer plugin {}: analyze failed",
        lib.display()
    )));
    builtins_still_serve(&r);
}
