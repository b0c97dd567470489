//! A language added in `wit.toml` with no code (issue 24): Lua, which wit does not build
//! in, from a grammar library the test compiles from tree-sitter-lua's C sources with `cc`
//! and the grammar's own upstream `queries/tags.scm` (unchanged) plus a small query file of
//! wit's captures. Trusted like a plugin, listed by `wit analyzers`, used by the daemon;
//! a broken query file is reported with file, line and column and stops nothing else; a
//! changed query file makes the grant stale.

use serde_json::{Value, json};

use crate::support::daemon::wait_until;
use crate::support::plugin_repo::{BUILTINS, PluginRepo, analyzer_ids};
use crate::support::plugins::lua_grammar;

const SHOP_LUA: &str = r#"local M = {}

function M.price(qty, rate)
  return qty * rate
end

function M.total(qty)
  return M.price(qty, 2)
end

local function helper()
  return M.total(1)
end

function Cart:add(item)
  helper()
end

return M
"#;

/// wit's additions to the grammar's tags.scm: the node owning a function's signature and
/// calls (`@callable`), and a method's table as its container.
const WIT_SCM: &str = r#"; wit's captures for Lua, beside the grammar's own tags.scm.
(function_declaration
  name: (identifier) @name) @definition.function @callable
(function_declaration
  name: (dot_index_expression field: (identifier) @name)) @definition.function @callable
(function_declaration
  name: (method_index_expression
    table: (identifier) @container
    method: (identifier) @name)) @definition.method @callable
"#;

pub(crate) const LUA_TOML: &str = r#"[[languages]]
id = "lua"
extensions = ["lua"]
grammar = "grammars/liblua.so"
queries = ["queries/lua/tags.scm", "queries/lua/wit.scm"]
"#;

/// A repository with the Lua grammar library, its upstream tags.scm, wit.scm, `shop.lua`
/// and `wit_toml`; not yet trusted.
pub(crate) fn lua_repo(wit_toml: &str) -> PluginRepo {
    let grammar = lua_grammar();
    let r = PluginRepo::new();
    r.install(&grammar.library, "grammars/liblua.so");
    let upstream = std::fs::read_to_string(grammar.sources.join("queries/tags.scm"))
        .expect("tree-sitter-lua ships queries/tags.scm");
    r.write("queries/lua/tags.scm", &upstream);
    r.write("queries/lua/wit.scm", WIT_SCM);
    r.write("shop.lua", SHOP_LUA);
    r.write("wit.toml", wit_toml);
    r
}

fn entry<'a>(list: &'a Value, id: &str) -> &'a Value {
    list["analyzers"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["id"] == id))
        .unwrap_or_else(|| panic!("no analyzer {id} in {list:#}"))
}

fn failure<'a>(list: &'a Value, id: &str) -> &'a Value {
    list["failed"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["language"] == id))
        .unwrap_or_else(|| panic!("no failure of language {id} in {list:#}"))
}

#[test]
fn a_language_from_wit_toml_is_trusted_listed_and_used_like_a_built_in() {
    let r = lua_repo(LUA_TOML);

    // Untrusted: the grammar is code, so nothing loads, and `wit analyzers` says why.
    let before = r.analyzers();
    assert_eq!(analyzer_ids(&before), BUILTINS, "{before:#}");
    let refused = failure(&before, "lua");
    assert_eq!(
        refused["path"],
        r.path().join("grammars/liblua.so").display().to_string()
    );
    assert!(
        refused["reason"].as_str().unwrap().contains("not trusted"),
        "{refused}"
    );

    // `wit trust` shows the grammar and both query files with their hashes.
    let trusted = r.trust();
    for file in [
        "wit.toml",
        "grammars/liblua.so",
        "queries/lua/tags.scm",
        "queries/lua/wit.scm",
    ] {
        let shown = r.path().join(file).canonicalize().unwrap();
        assert!(
            trusted
                .stdout
                .contains(&format!("{}  sha256:", shown.display())),
            "{file}: {}",
            trusted.stdout
        );
    }

    let list = r.analyzers();
    assert_eq!(list["failed"], json!([]), "{list:#}");
    let lua = entry(&list, "lua");
    assert_eq!(lua["origin"], "language");
    assert_eq!(lua["extensions"], json!(["lua"]));
    assert_eq!(
        lua["path"],
        r.path().join("grammars/liblua.so").display().to_string()
    );
    assert_eq!(
        lua["queries"],
        json!([
            r.path().join("queries/lua/tags.scm").display().to_string(),
            r.path().join("queries/lua/wit.scm").display().to_string(),
        ])
    );
    let human = r.wit(None, &["analyzers"]).ok().stdout;
    assert!(
        human.contains("lua") && human.contains("wit.toml: grammar"),
        "{human}"
    );

    // Definitions: names, the method's container, signatures from the grammar's fields.
    let mut c = r.client();
    let listed = c.ok("symbols.list", json!({"file": "shop.lua"}));
    assert_eq!(listed["status"], "analysed", "{listed}");
    let outline: Vec<(String, String, String)> = listed["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["kind"].as_str().unwrap().to_owned(),
                s["address"].as_str().unwrap().to_owned(),
                s["signature"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let want: Vec<(String, String, String)> = [
        ("function", "price", "(qty, rate)"),
        ("function", "total", "(qty)"),
        ("function", "helper", "()"),
        ("method", "Cart.add", "(item)"),
    ]
    .iter()
    .map(|(k, a, s)| ((*k).to_owned(), (*a).to_owned(), (*s).to_owned()))
    .collect();
    assert_eq!(outline, want, "{listed}");

    // A lock on a symbol Lua's file does not define is refused like any other.
    let missing = r
        .wit(Some("s1"), &["lock", "shop.lua:nosuch", "--json"])
        .code(3);
    assert_eq!(missing.json()["error"]["message"], "SYMBOL_NOT_FOUND");

    // Callers within the file, and a caller warning from a lock.
    wait_until(
        "the index is built",
        std::time::Duration::from_secs(60),
        || c.ok("graph.status", json!({}))["state"] == "ready",
    );
    let callers = c.ok("code.callers", json!({"symbolPath": "shop.lua:total"}));
    let names: Vec<&str> = callers["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["caller"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["shop.lua:helper"], "{callers}");
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "shop.lua:helper", "sessionId": "A"}),
    );
    let lock = c.ok(
        "lock.acquire",
        json!({"symbolPath": "shop.lua:total", "sessionId": "B"}),
    );
    assert_eq!(
        lock["warnings"][0]["lockedSymbol"], "shop.lua:helper",
        "{lock}"
    );

    // An intent on a function covers exactly its definition.
    c.ok(
        "intent.declare",
        json!({"sessionId": "C", "description": "rework", "files": ["shop.lua"], "symbols": ["total"]}),
    );
    let intents = c.ok("intent.query", json!({"sessionId": "C"}));
    let (s, e) = (
        intents[0]["startByte"].as_u64().unwrap() as usize,
        intents[0]["endByte"].as_u64().unwrap() as usize,
    );
    assert_eq!(
        &SHOP_LUA[s..e],
        "function M.total(qty)\n  return M.price(qty, 2)\nend"
    );
}

#[test]
fn a_broken_query_file_is_reported_with_file_line_and_column_and_stops_nothing_else() {
    // Two languages on one grammar: `lua` with a broken query file, `luau` with good ones.
    let toml = format!(
        "{}queries = [\"queries/lua/tags.scm\", \"queries/lua/broken.scm\"]\n\n[[languages]]\nid = \"luau\"\nextensions = [\"luau\"]\ngrammar = \"grammars/liblua.so\"\nsymbol = \"tree_sitter_lua\"\nqueries = [\"queries/lua/tags.scm\", \"queries/lua/wit.scm\"]\n",
        LUA_TOML.replace(
            "queries = [\"queries/lua/tags.scm\", \"queries/lua/wit.scm\"]\n",
            ""
        )
    );
    let r = lua_repo(&toml);
    r.write(
        "queries/lua/broken.scm",
        "; a typo on line 3\n(function_declaration\n  name: (identifer) @name) @definition.function\n",
    );
    r.write("other.luau", "function greet(name)\n  return name\nend\n");
    r.trust();

    let list = r.analyzers();
    let broken = failure(&list, "lua");
    let reason = broken["reason"].as_str().unwrap();
    assert!(
        reason.contains("queries/lua/broken.scm:3:10:") && reason.contains("identifer"),
        "{broken}"
    );
    assert!(
        broken["hint"].as_str().unwrap().contains("line and column"),
        "{broken}"
    );
    let human = r.wit(None, &["analyzers"]).ok().stdout;
    assert!(
        human.contains("language not loaded: lua (grammar")
            && human.contains("queries/lua/broken.scm:3:10:"),
        "{human}"
    );

    // Everything else loaded: the built-ins, and the other language on the same grammar.
    let mut ids = analyzer_ids(&list);
    assert_eq!(ids.pop().as_deref(), Some("luau"), "{list:#}");
    assert_eq!(ids, BUILTINS);
    let mut c = r.client();
    let other = c.ok("symbols.list", json!({"file": "other.luau"}));
    assert_eq!(other["symbols"][0]["address"], "greet", "{other}");
    let unsupported = c.ok("symbols.list", json!({"file": "shop.lua"}));
    assert_eq!(unsupported["status"], "unsupported", "{unsupported}");
    assert!(
        r.log().contains("queries/lua/broken.scm:3:10:"),
        "{}",
        r.log()
    );
}

#[test]
fn a_changed_query_file_makes_the_grant_stale_until_trusted_again() {
    let r = lua_repo(LUA_TOML);
    r.trust();
    assert_eq!(entry(&r.analyzers(), "lua")["origin"], "language");

    r.write(
        "queries/lua/wit.scm",
        &format!("{WIT_SCM}; an edit after `wit trust`\n"),
    );
    r.restart();
    let list = r.analyzers();
    assert_eq!(list["trust"]["status"], "stale", "{list:#}");
    let changed = r
        .path()
        .join("queries/lua/wit.scm")
        .canonicalize()
        .unwrap()
        .display()
        .to_string();
    assert_eq!(list["trust"]["changed"], json!([changed]), "{list:#}");
    assert!(
        failure(&list, "lua")["reason"]
            .as_str()
            .unwrap()
            .contains("stale"),
        "{list:#}"
    );
    assert_eq!(analyzer_ids(&list), BUILTINS);

    r.trust();
    assert_eq!(entry(&r.analyzers(), "lua")["origin"], "language");
}

#[test]
fn a_grammar_without_the_named_function_is_refused_with_a_hint() {
    let r = lua_repo(&LUA_TOML.replace(
        "grammar = \"grammars/liblua.so\"\n",
        "grammar = \"grammars/liblua.so\"\nsymbol = \"tree_sitter_luax\"\n",
    ));
    r.trust();
    let list = r.analyzers();
    let refused = failure(&list, "lua");
    assert_eq!(
        refused["reason"],
        "the grammar function `tree_sitter_luax` is not in the library"
    );
    assert!(
        refused["hint"].as_str().unwrap().contains("symbol"),
        "{refused}"
    );
    assert_eq!(analyzer_ids(&list), BUILTINS);
}

/// A query file is repository content, so a hostile repository may make it a symlink out
/// of the tree (to a file of the user's) or a FIFO: `wit trust` refuses to pin either,
/// naming it, writes no grant, and nothing loads; it never hangs on the FIFO.
#[test]
fn a_query_file_that_is_a_symlink_out_or_a_fifo_is_refused_by_trust() {
    let r = lua_repo(LUA_TOML);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.scm"), WIT_SCM).unwrap();
    let wit_scm = r.path().join("queries/lua/wit.scm");
    std::fs::remove_file(&wit_scm).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.scm"), &wit_scm).unwrap();
    let refused = r.wit(None, &["trust", "--yes"]).code(1);
    assert!(
        refused.stderr.contains("queries/lua/wit.scm") && refused.stderr.contains("Not trusted"),
        "{refused:#?}"
    );
    assert!(!r.trust_store().exists(), "no grant was written");

    std::fs::remove_file(&wit_scm).unwrap();
    let c = std::ffi::CString::new(wit_scm.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let refused = r.wit_within(std::time::Duration::from_secs(20), &["trust", "--yes"]);
    assert_eq!(refused.code, 1, "{refused:#?}");
    assert!(
        refused.stderr.contains("queries/lua/wit.scm"),
        "{refused:#?}"
    );
    let list = r.analyzers();
    assert_eq!(list["trust"]["status"], "untrusted", "{list:#}");
    assert_eq!(analyzer_ids(&list), BUILTINS);
}

/// Issue 34, finding 9: a trusted query file nested 300,000 levels deep (600 KB, under
/// the 1 MiB cap) overflowed the stack while compiling, aborting the daemon at every start
/// until `wit untrust`; `wit trust` compiled nothing and said nothing. Now `wit trust`
/// refuses it, and one trusted before (a grant pinning its hash) is reported by the
/// daemon, which keeps running: the nesting is bounded before compiling, and compiling
/// runs on a thread with a known stack.
#[test]
fn a_query_nested_too_deep_is_refused_by_wit_trust_and_never_crashes_the_daemon() {
    use sha2::{Digest, Sha256};
    let hex = |t: &str| {
        Sha256::digest(t.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let deep = format!("{}{}\n", "(".repeat(300_000), ")".repeat(300_000));
    let r = lua_repo(LUA_TOML);
    r.write("queries/lua/wit.scm", &deep);
    let refused = r.wit(None, &["trust", "--yes"]);
    assert_ne!(refused.code, 0, "{refused:#?}");
    assert!(
        refused.stderr.contains("queries/lua/wit.scm")
            && refused.stderr.contains("nested more than 256 levels"),
        "{}",
        refused.stderr
    );
    assert!(!r.trust_store().exists(), "nothing trusted");

    // A grant pinning the deep file (as a wit without the check made it).
    r.write("queries/lua/wit.scm", WIT_SCM);
    r.trust();
    let store = std::fs::read_to_string(r.trust_store()).unwrap();
    assert!(store.contains(&hex(WIT_SCM)), "{store}");
    std::fs::write(r.trust_store(), store.replace(&hex(WIT_SCM), &hex(&deep))).unwrap();
    r.write("queries/lua/wit.scm", &deep);
    r.restart();
    let list = r.analyzers();
    let why = failure(&list, "lua")["reason"].as_str().unwrap().to_owned();
    assert!(why.contains("nested more than 256 levels"), "{list:#}");
    assert_eq!(r.client().ok("ping", json!({})), "pong");
}
