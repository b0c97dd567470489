//! The daemon protocol suite on both backends: every `daemon_*` test runs on SQLite in this
//! process, and this test runs the same tests again — the same binary, not copies — with
//! `WIT_TEST_STORE=postgres`, so that they all meet a real PostgreSQL store (see
//! `support::store`). `cargo test --workspace` therefore covers both.

use std::process::Command;

/// The modules of the daemon protocol suite.
const SUITE: &[&str] = &[
    "daemon_analysis_cache::",
    "daemon_claims::",
    "daemon_contracts::",
    "daemon_envelope::",
    "daemon_event_stream::",
    "daemon_events::",
    "daemon_graph::",
    "daemon_intents::",
    "daemon_leases::",
    "daemon_lifecycle::",
    "daemon_liveness::",
    "daemon_locks::",
    "daemon_robustness::",
    "daemon_shared_process::",
    "daemon_stalls::",
    "daemon_symbol_names::",
    "daemon_waiting::",
    "daemon_watch_budget::",
];

#[test]
fn every_daemon_module_is_in_the_suite() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/e2e");
    let mut modules: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|n| Some(format!("{}::", n.strip_suffix(".rs")?)))
        .filter(|m| m.starts_with("daemon_"))
        .collect();
    modules.sort();
    assert_eq!(modules, SUITE);
}

#[test]
fn the_daemon_protocol_suite_passes_on_postgresql() {
    if crate::support::store::is_postgres() {
        // Already the PostgreSQL run (a developer ran everything with the switch).
        return;
    }
    let me = std::env::current_exe().expect("the test binary");
    let out = Command::new(me)
        .args(SUITE)
        .args(["--test-threads", "4"])
        .env("WIT_TEST_STORE", "postgres")
        .output()
        .expect("run the suite on PostgreSQL");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary = stdout
        .lines()
        .find(|l| l.starts_with("test result:"))
        .unwrap_or("no summary");
    assert!(
        out.status.success(),
        "the daemon suite failed on PostgreSQL: {summary}\n{}\n{}",
        stdout
            .lines()
            .filter(|l| l.contains("FAILED") || l.contains("panicked"))
            .collect::<Vec<_>>()
            .join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    // Every module contributed (a renamed module would silently drop out of the filter).
    let passed: usize = summary
        .split_whitespace()
        .nth(3)
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        passed >= 90,
        "only {passed} tests ran on PostgreSQL: {summary}"
    );
    for module in SUITE {
        assert!(
            stdout.contains(&format!("test {module}")),
            "no test of {module} ran on PostgreSQL"
        );
    }
}
