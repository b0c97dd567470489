//! The built-in declarative languages (issue 24) through the real daemon, CLI and git
//! hook, with no plugin and no wit.toml: Java, Go, Rust and C# definitions with containers
//! and signatures, a lock on a missing symbol refused, callers within and across files, an
//! intent's byte range, and a contract enforced by the pre-commit hook.

use serde_json::{Value, json};

use crate::support::daemon::wait_until;
use crate::support::plugin_repo::PluginRepo;

/// One language's two-file project: `symbol` (in `file`) is called by `local_caller` in the
/// same file and by `remote_caller` in `other`.
struct Case {
    file: &'static str,
    source: &'static str,
    other: &'static str,
    other_source: &'static str,
    /// How the symbol is addressed (`Shop.price`), its kind, container and signature.
    symbol: &'static str,
    kind: &'static str,
    container: Option<&'static str>,
    signature: &'static str,
    /// Where its definition starts in `source`, and the text it ends with.
    starts: &'static str,
    local_caller: &'static str,
    remote_caller: &'static str,
    /// (old, new) text of the signature line, for a change that breaks the contract.
    change: (&'static str, &'static str),
    changed_signature: &'static str,
}

const JAVA: Case = Case {
    file: "src/shop/Shop.java",
    source: "package shop;\n\npublic class Shop {\n    public static int price(int qty) {\n        return qty * 2;\n    }\n\n    public int total(int qty) {\n        return price(qty) + 1;\n    }\n}\n",
    other: "src/shop/Cart.java",
    other_source: "package shop;\n\nclass Cart {\n    int sum() {\n        return Shop.price(3);\n    }\n}\n",
    symbol: "Shop.price",
    kind: "method",
    container: Some("Shop"),
    signature: "(int qty): int",
    starts: "public static int price(",
    local_caller: "src/shop/Shop.java:Shop.total",
    remote_caller: "src/shop/Cart.java:Cart.sum",
    change: (
        "public static int price(int qty)",
        "public static int price(long qty)",
    ),
    changed_signature: "(long qty): int",
};

const GO: Case = Case {
    file: "shop/price.go",
    source: "package shop\n\nfunc Price(n int) int {\n\treturn n * 2\n}\n\nfunc Total(n int) int {\n\treturn Price(n) + 1\n}\n",
    other: "shop/cart.go",
    other_source: "package shop\n\nfunc Sum() int {\n\treturn Price(3)\n}\n",
    symbol: "Price",
    kind: "function",
    container: None,
    signature: "(n int) int",
    starts: "func Price(",
    local_caller: "shop/price.go:Total",
    remote_caller: "shop/cart.go:Sum",
    change: (
        "func Price(n int) int",
        "func Price(n int, rate float64) int",
    ),
    changed_signature: "(n int, rate float64) int",
};

const RUST: Case = Case {
    file: "src/price.rs",
    source: "pub fn price(n: u32) -> u32 {\n    n * 2\n}\n\npub fn total(n: u32) -> u32 {\n    price(n) + 1\n}\n",
    other: "src/cart.rs",
    other_source: "use crate::price::price;\n\npub fn sum() -> u32 {\n    price(3)\n}\n",
    symbol: "price",
    kind: "function",
    container: None,
    signature: "(n: u32) -> u32",
    starts: "pub fn price(",
    local_caller: "src/price.rs:total",
    remote_caller: "src/cart.rs:sum",
    change: ("pub fn price(n: u32) -> u32", "pub fn price(n: u64) -> u32"),
    changed_signature: "(n: u64) -> u32",
};

const CSHARP: Case = Case {
    file: "app/Shop.cs",
    source: "public class Shop\n{\n    public static int Price(int qty)\n    {\n        return qty * 2;\n    }\n\n    public int Total(int qty)\n    {\n        return Price(qty) + 1;\n    }\n}\n",
    other: "app/Cart.cs",
    other_source: "class Cart\n{\n    int Sum()\n    {\n        return Shop.Price(3);\n    }\n}\n",
    symbol: "Shop.Price",
    kind: "method",
    container: Some("Shop"),
    signature: "(int qty): int",
    starts: "public static int Price(",
    local_caller: "app/Shop.cs:Shop.Total",
    remote_caller: "app/Cart.cs:Cart.Sum",
    change: (
        "public static int Price(int qty)",
        "public static int Price(int qty, int rate)",
    ),
    changed_signature: "(int qty, int rate): int",
};

fn repo(case: &Case) -> PluginRepo {
    let r = PluginRepo::new();
    r.write(case.file, case.source);
    r.write(case.other, case.other_source);
    r
}

/// Definitions, a refused lock on a missing symbol, callers, an intent's range.
fn exercise_the_daemon(case: &Case) {
    let r = repo(case);
    let path = format!("{}:{}", case.file, case.symbol);

    // A lock on a symbol the file does not define is refused, naming it.
    let missing = format!("{}:nosuch", case.file);
    let refused = r.wit(Some("s1"), &["lock", &missing]).code(3);
    assert!(
        refused.stderr.contains("no symbol `nosuch`"),
        "{}: {refused:#?}",
        case.file
    );
    let j = r
        .wit(Some("s1"), &["lock", &missing, "--json"])
        .code(3)
        .json();
    assert_eq!(j["error"]["message"], "SYMBOL_NOT_FOUND", "{}", case.file);

    let mut c = r.client();
    let listed = c.ok("symbols.list", json!({"file": case.file}));
    assert_eq!(listed["status"], "analysed", "{listed}");
    let def = listed["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["address"] == case.symbol)
        .unwrap_or_else(|| panic!("{}: no {} in {listed}", case.file, case.symbol))
        .clone();
    assert_eq!(def["kind"], case.kind, "{def}");
    assert_eq!(def["container"], json!(case.container), "{def}");
    assert_eq!(def["signature"], case.signature, "{def}");
    assert_eq!(def["exported"], true, "{def}");
    let start = case.source.find(case.starts).unwrap();
    assert_eq!(def["startByte"], start as u64, "{def}");

    // Callers within the file and across files, both resolved.
    wait_until(
        "the index is built",
        std::time::Duration::from_secs(60),
        || c.ok("graph.status", json!({}))["state"] == "ready",
    );
    let callers = c.ok("code.callers", json!({"symbolPath": path}));
    let mut got: Vec<(String, String)> = callers["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["caller"].as_str().unwrap().to_owned(),
                e["resolution"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    got.sort();
    let mut want = vec![
        (case.local_caller.to_owned(), "resolved".to_owned()),
        (case.remote_caller.to_owned(), "resolved".to_owned()),
    ];
    want.sort();
    assert_eq!(got, want, "{}: {callers}", case.file);

    // A lock held on the remote caller warns whoever locks the symbol.
    c.ok(
        "lock.acquire",
        json!({"symbolPath": case.remote_caller, "sessionId": "A"}),
    );
    let lock = c.ok(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": "B"}),
    );
    let warned: Vec<&Value> = lock["warnings"].as_array().unwrap().iter().collect();
    assert_eq!(warned.len(), 1, "{lock}");
    assert_eq!(warned[0]["lockedSymbol"], case.remote_caller, "{lock}");
    assert_eq!(warned[0]["heldBy"], "A");

    // An intent on the symbol covers exactly its definition.
    c.ok(
        "intent.declare",
        json!({"sessionId": "C", "description": "rework", "files": [case.file], "symbols": [case.symbol]}),
    );
    let intents = c.ok("intent.query", json!({"sessionId": "C"}));
    let (s, e) = (
        intents[0]["startByte"].as_u64().unwrap() as usize,
        intents[0]["endByte"].as_u64().unwrap() as usize,
    );
    assert_eq!(s, start, "{intents}");
    let body = &case.source[s..e];
    assert!(
        body.starts_with(case.starts) && body.trim_end().ends_with('}'),
        "{body}"
    );
    assert!(
        !body.contains(case.local_caller.rsplit(['.', ':']).next().unwrap()),
        "the range stops before the next definition: {body}"
    );
}

/// A contract on the symbol, accepted, then a commit changing its signature is refused by
/// the pre-commit hook; restoring it lets the commit through.
fn exercise_the_hook(case: &Case) {
    let r = repo(case);
    r.wit(None, &["init"]).ok();
    r.wit(None, &["hook", "install"]).ok();
    r.git(&["add", case.file, case.other]);
    r.git(&["commit", "-q", "-m", "initial"]);
    let path = format!("{}:{}", case.file, case.symbol);
    let proposed = r
        .wit(Some("agent-a"), &["contract", "propose", "--json", &path])
        .ok()
        .json();
    assert_eq!(proposed["signature"], case.signature, "{proposed}");
    let id = proposed["contractId"].as_str().unwrap().to_owned();
    r.wit(Some("agent-b"), &["contract", "accept", &id]).ok();

    r.write(
        case.file,
        &case.source.replace(case.change.0, case.change.1),
    );
    r.git(&["add", case.file]);
    let refused = r.git_run(&["commit", "-m", "break it"], Some("agent-a"));
    assert_ne!(
        refused.code, 0,
        "{}: must be refused: {refused:#?}",
        case.file
    );
    for needle in [
        path.as_str(),
        &format!("expected: {}", case.signature),
        &format!("actual:   {}", case.changed_signature),
    ] {
        assert!(
            refused.stderr.contains(needle),
            "{needle}: {}",
            refused.stderr
        );
    }
    assert_eq!(r.git(&["log", "-1", "--format=%s"]).trim(), "initial");

    r.write(case.file, &format!("{}\n", case.source));
    r.git(&["add", case.file]);
    let ok = r.git_run(&["commit", "-q", "-m", "keep it"], Some("agent-a"));
    assert_eq!(ok.code, 0, "{ok:#?}");
}

#[test]
fn java_symbols_locks_callers_and_intents() {
    exercise_the_daemon(&JAVA);
}

#[test]
fn go_symbols_locks_callers_and_intents() {
    exercise_the_daemon(&GO);
}

#[test]
fn rust_symbols_locks_callers_and_intents() {
    exercise_the_daemon(&RUST);
}

#[test]
fn csharp_symbols_locks_callers_and_intents() {
    exercise_the_daemon(&CSHARP);
}

#[test]
fn a_java_contract_is_enforced_by_the_pre_commit_hook() {
    exercise_the_hook(&JAVA);
}

#[test]
fn a_go_contract_is_enforced_by_the_pre_commit_hook() {
    exercise_the_hook(&GO);
}

#[test]
fn a_rust_contract_is_enforced_by_the_pre_commit_hook() {
    exercise_the_hook(&RUST);
}

#[test]
fn a_csharp_contract_is_enforced_by_the_pre_commit_hook() {
    exercise_the_hook(&CSHARP);
}
