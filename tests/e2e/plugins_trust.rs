//! The trust gate: plugins named by `wit.toml` load only after `wit trust`, and a changed
//! library or `wit.toml` makes the grant stale until trusted again.

use std::path::Path;

use serde_json::json;
use sha2::{Digest, Sha256};

use crate::support::cli::wit_command;
use crate::support::plugin_repo::{
    BUILTINS, BUILTINS_THEN_GO_PLUGIN, PluginRepo, analyzer_ids, failure_for,
};
use crate::support::plugins::go_plugin;
use crate::support::pty::{Pty, PtyExit};

const LIB: &str = "plugins/libwit_analyzer_go.so";
const TOML: &str = "[[analyzers]]\npath = \"plugins/libwit_analyzer_go.so\"\n";

fn untrusted_repo() -> PluginRepo {
    let r = PluginRepo::new();
    r.install(&go_plugin(), LIB);
    r.write("wit.toml", TOML);
    r
}

#[test]
fn nothing_loads_until_wit_trust_then_a_rebuilt_library_makes_it_stale() {
    let r = untrusted_repo();
    let lib = r.path().join(LIB);

    // Untrusted: only the built-ins; the plugin is listed with the reason and the command.
    let list = r.analyzers();
    assert_eq!(analyzer_ids(&list), BUILTINS);
    assert_eq!(list["trust"]["status"], "untrusted");
    let failed = failure_for(&list, &lib);
    assert!(
        failed["reason"]
            .as_str()
            .unwrap()
            .contains("the repository is not trusted")
            && failed["reason"].as_str().unwrap().contains("`wit trust`"),
        "{failed}"
    );
    let human = r.wit(None, &["analyzers"]).ok().stdout;
    assert!(
        human.contains(&format!("plugin not loaded: {}", lib.display())),
        "{human}"
    );
    assert!(
        r.wit(None, &["status"])
            .ok()
            .stdout
            .contains("run `wit trust`"),
        "wit status shows the refused plugin"
    );
    assert!(!r.trust_store().exists(), "nothing trusted yet");

    // Trusted: `wit trust` shows each file and its hash, and restarts the running daemon.
    let trusted = r.trust();
    assert!(
        trusted
            .stdout
            .contains(&r.path().join("wit.toml").display().to_string()),
        "{}",
        trusted.stdout
    );
    assert!(
        trusted
            .stdout
            .contains(&format!("{}  sha256:", lib.display())),
        "{}",
        trusted.stdout
    );
    assert!(
        trusted.stdout.contains("Restarted the running daemon"),
        "{}",
        trusted.stdout
    );
    assert!(r.trust_store().is_file(), "the grant is in XDG_CONFIG_HOME");
    let list = r.analyzers();
    assert_eq!(analyzer_ids(&list), BUILTINS_THEN_GO_PLUGIN);
    assert_eq!(list["failed"], json!([]));

    // The library changes (a rebuild): stale after a restart, and nothing loads.
    let mut bytes = std::fs::read(&lib).unwrap();
    bytes.extend_from_slice(b"rebuilt");
    std::fs::write(&lib, bytes).unwrap();
    r.restart();
    let list = r.analyzers();
    assert_eq!(analyzer_ids(&list), BUILTINS);
    assert_eq!(list["trust"]["status"], "stale");
    assert_eq!(list["trust"]["changed"], json!([lib.display().to_string()]));
    let failed = failure_for(&list, &lib);
    assert!(
        failed["reason"].as_str().unwrap().contains(&format!(
            "the trust grant is stale ({} changed since `wit trust`)",
            lib.display()
        )),
        "{failed}"
    );
    assert_eq!(
        failed["hint"],
        "review the change, then run `wit trust` again"
    );
}

#[test]
fn a_changed_wit_toml_makes_the_grant_stale() {
    let r = untrusted_repo();
    r.trust();
    assert!(analyzer_ids(&r.analyzers()).contains(&"go".to_owned()));

    r.write(
        "wit.toml",
        &format!("{TOML}\n[locks]\ndefault_ttl = \"1h\"\n"),
    );
    r.restart();
    let list = r.analyzers();
    assert_eq!(analyzer_ids(&list), BUILTINS);
    assert_eq!(list["trust"]["status"], "stale");
    assert_eq!(
        list["trust"]["changed"],
        json!([r.path().join("wit.toml").display().to_string()])
    );

    // Trusting again loads it again.
    r.trust();
    assert!(analyzer_ids(&r.analyzers()).contains(&"go".to_owned()));
}

#[test]
fn wit_trust_refuses_without_a_terminal_or_yes_and_grants_nothing() {
    let r = untrusted_repo();
    let out = r.wit(None, &["trust"]).code(2);
    assert!(
        out.stderr.contains("stdin is not a terminal") && out.stderr.contains("wit trust --yes"),
        "{}",
        out.stderr
    );
    // It still showed what it would trust.
    assert!(out.stdout.contains("sha256:"), "{}", out.stdout);
    assert!(!r.trust_store().exists());
}

/// Runs `wit trust` on a terminal, waits for its question and types `answer`.
fn trust_on_a_terminal(r: &PluginRepo, answer: &str) -> PtyExit {
    let mut cmd = wit_command(r.path(), None, &["trust"]);
    r.isolate(&mut cmd);
    let mut pty = Pty::spawn(&cmd);
    pty.wait_for("Trust these files? [y/N] ");
    pty.send(format!("{answer}\n").as_bytes());
    pty.finish()
}

/// The listing line `wit trust` shows for `file`, with a hash computed here.
fn pinned_line(file: &Path) -> String {
    let hash = Sha256::digest(std::fs::read(file).unwrap());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}  sha256:{hex}", file.display())
}

#[test]
fn wit_trust_on_a_terminal_shows_each_library_and_its_hash_before_asking() {
    let r = untrusted_repo();
    let shown = trust_on_a_terminal(&r, "n").output;
    let question = shown.find("Trust these files? [y/N]").unwrap();
    for file in [r.path().join(LIB), r.path().join("wit.toml")] {
        let line = pinned_line(&file);
        let at = shown
            .find(&line)
            .unwrap_or_else(|| panic!("{line:?} not shown: {shown:?}"));
        assert!(at < question, "listed before the question: {shown:?}");
    }
}

#[test]
fn answering_no_on_a_terminal_leaves_the_repository_untrusted() {
    let r = untrusted_repo();
    let exit = trust_on_a_terminal(&r, "n");
    assert_eq!(exit.code, 1, "{exit:?}");
    assert!(
        exit.output.contains("not trusted (nothing was changed)"),
        "{exit:?}"
    );
    assert!(!r.trust_store().exists(), "nothing was granted");

    let list = r.analyzers();
    assert_eq!(list["trust"]["status"], "untrusted");
    assert_eq!(analyzer_ids(&list), BUILTINS);
    let failed = failure_for(&list, &r.path().join(LIB));
    assert!(
        failed["reason"]
            .as_str()
            .unwrap()
            .contains("the repository is not trusted"),
        "{failed}"
    );
}

#[test]
fn answering_yes_on_a_terminal_trusts_the_plugins() {
    let r = untrusted_repo();
    let exit = trust_on_a_terminal(&r, "y");
    assert_eq!(exit.code, 0, "{exit:?}");
    assert!(exit.output.contains("Trusted."), "{exit:?}");
    assert!(r.trust_store().is_file(), "the grant is in XDG_CONFIG_HOME");

    let list = r.analyzers();
    assert_eq!(list["trust"]["status"], "trusted");
    assert_eq!(analyzer_ids(&list), BUILTINS_THEN_GO_PLUGIN);
    assert_eq!(list["failed"], json!([]));
}

#[test]
fn wit_untrust_revokes_and_restarts_the_daemon_without_the_plugins() {
    let r = untrusted_repo();
    r.trust();
    assert!(analyzer_ids(&r.analyzers()).contains(&"go".to_owned()));
    let out = r.wit(None, &["untrust", "--json"]).ok().json();
    assert_eq!(out, json!({"revoked": true, "daemonRestarted": true}));
    let list = r.analyzers();
    assert_eq!(analyzer_ids(&list), BUILTINS);
    assert_eq!(list["trust"]["status"], "untrusted");
    // Untrusting twice says so.
    let again = r.wit(None, &["untrust", "--json"]).ok().json();
    assert_eq!(again, json!({"revoked": false, "daemonRestarted": false}));
}

#[test]
fn a_wit_toml_without_plugins_needs_no_trust() {
    let r = PluginRepo::new();
    r.write("wit.toml", "[locks]\ndefault_ttl = \"10m\"\n");
    let out = r.wit(None, &["trust", "--yes"]).ok();
    assert!(out.stdout.contains("nothing to trust"), "{}", out.stdout);
    assert!(!r.trust_store().exists());
    let list = r.analyzers();
    assert_eq!(list["trust"]["status"], "not-needed");
    assert_eq!(analyzer_ids(&list), BUILTINS);
}

// Security item 5: the plugin that loads is the one that was hashed. The dependency, the
// file-type and the permission checks, through the real CLI and daemon. (The swap loop is
// a loader test: daemon/src/plugins/tests.rs.)

/// Within this, `wit trust` and a daemon start are done (both take well under a second).
const PROMPTLY: std::time::Duration = std::time::Duration::from_secs(30);

/// `libplug.so` linked against `libdep.so` beside it, found through `RUNPATH $ORIGIN`:
/// replacing only `libdep.so` (as a `git pull` would) would load new code. `libdep.so`'s
/// constructor creates `marker`, so a test sees whether its code ever ran.
fn origin_runpath_repo(marker: &Path) -> PluginRepo {
    let r = PluginRepo::new();
    let dir = r.path().join("plugins");
    r.gcc_shared(
        &dir.join("libdep.so"),
        &format!(
            "#include <stdio.h>\n\
             __attribute__((constructor)) static void ran(void) {{\n\
               FILE *f = fopen({:?}, \"w\"); if (f) fclose(f);\n\
             }}\n\
             int dep(void) {{ return 1; }}\n",
            marker.display().to_string()
        ),
        &[],
    );
    r.gcc_shared(
        &dir.join("libplug.so"),
        "int dep(void);\nint plug(void) { return dep(); }\n",
        &["-L.", "-Wl,--no-as-needed", "-ldep", "-Wl,-rpath,$ORIGIN"],
    );
    r.write("wit.toml", "[[analyzers]]\npath = \"plugins/libplug.so\"\n");
    r
}

#[test]
fn the_plugin_that_loads_is_the_one_that_was_hashed_a_runpath_origin_dependency_is_refused() {
    let marker = tempfile::tempdir().unwrap();
    let marker = marker.path().join("libdep-ran");
    let r = origin_runpath_repo(&marker);
    let lib = r.path().join("plugins/libplug.so");

    // `wit trust` refuses it, naming the entry, and offers nothing.
    let out = r.wit_within(PROMPTLY, &["trust", "--yes"]);
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(
        out.stderr
            .contains(&format!("cannot trust {}", lib.display()))
            && out.stderr.contains("DT_RUNPATH entry \"$ORIGIN\""),
        "{out:#?}"
    );
    assert!(!out.stdout.contains("sha256:"), "nothing offered: {out:#?}");
    assert!(!r.trust_store().exists(), "nothing granted");

    // A grant made before this check existed (by an older wit, or by hand) does not make
    // the daemon load it either: it is refused with the reason, before it is mapped.
    let root = r.path().canonicalize().unwrap();
    let hash = |p: &Path| {
        Sha256::digest(std::fs::read(p).unwrap())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let grant = json!({"version": 1, "repos": {root.display().to_string(): {
    "grantedAtMs": 1,
    "files": {
        root.join("wit.toml").display().to_string(): hash(&root.join("wit.toml")),
        root.join("plugins/libplug.so").display().to_string(): hash(&lib),
    }}}});
    std::fs::create_dir_all(r.trust_store().parent().unwrap()).unwrap();
    std::fs::write(r.trust_store(), grant.to_string()).unwrap();
    let list = r.wit_within(PROMPTLY, &["analyzers", "--json"]).ok().json();
    assert_eq!(list["trust"]["status"], "trusted", "{list:#}");
    assert_eq!(analyzer_ids(&list), BUILTINS);
    let failed = failure_for(&list, &lib);
    assert!(
        failed["reason"]
            .as_str()
            .unwrap()
            .contains("refused: its DT_RUNPATH entry \"$ORIGIN\""),
        "{failed}"
    );
    assert!(
        failed["hint"].as_str().unwrap().contains("relink"),
        "{failed}"
    );
    assert!(!marker.exists(), "libdep.so's code never ran");
}

#[test]
fn the_plugin_that_loads_is_the_one_that_was_hashed_dev_zero_and_a_fifo_never_hang() {
    let r = PluginRepo::new();
    let fifo = r.path().join("plugins/libfifo.so");
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    r.write(
        "wit.toml",
        "[[analyzers]]\npath = \"/dev/zero\"\n\n[[analyzers]]\npath = \"plugins/libfifo.so\"\n",
    );

    let out = r.wit_within(PROMPTLY, &["trust", "--yes"]);
    assert_ne!(out.code, 0, "{out:#?}");
    for (path, kind) in [
        (Path::new("/dev/zero"), "character device"),
        (fifo.as_path(), "FIFO"),
    ] {
        let line = format!(
            "cannot trust {}: refused: not a regular file (a {kind})",
            path.display()
        );
        assert!(out.stderr.contains(&line), "{line:?} not in {out:#?}");
    }
    assert!(!r.trust_store().exists());

    // The daemon starts (the CLI starts it) and says why, without trust to consult.
    let list = r.wit_within(PROMPTLY, &["analyzers", "--json"]).ok().json();
    assert_eq!(analyzer_ids(&list), BUILTINS);
    for path in [Path::new("/dev/zero"), fifo.as_path()] {
        let failed = failure_for(&list, path);
        assert!(
            failed["reason"]
                .as_str()
                .unwrap()
                .starts_with("refused: not a regular file"),
            "{failed}"
        );
    }
}

#[test]
fn the_plugin_that_loads_is_the_one_that_was_hashed_a_library_writable_by_others_is_warned_about() {
    use std::os::unix::fs::PermissionsExt;
    let r = untrusted_repo();
    let lib = r.path().join(LIB);
    std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o666)).unwrap();

    let trusted = r.trust();
    let warning = format!(
        "warning: the library {} is writable by group and others (mode 666)",
        lib.display()
    );
    assert!(trusted.stdout.contains(&warning), "{}", trusted.stdout);
    // Still pinned and loaded: the bytes are what was hashed; the warning says who else
    // could have replaced them.
    let list = r.analyzers();
    assert!(analyzer_ids(&list).contains(&"go".to_owned()), "{list:#}");
    let go = list["analyzers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "go")
        .unwrap();
    assert!(
        go["warnings"][0]
            .as_str()
            .unwrap()
            .contains("is writable by group and others"),
        "{go}"
    );
    let human = r.wit(None, &["analyzers"]).ok().stdout;
    assert!(human.contains("is writable by group and others"), "{human}");
    assert!(
        r.log().contains(&format!(
            "analyzer plugin {}: warning: the library",
            lib.display()
        )),
        "{}",
        r.log()
    );
}

#[test]
fn the_plugin_that_loads_is_the_one_that_was_hashed_wit_trust_lists_exactly_the_pinned_bytes() {
    let r = untrusted_repo();
    let lib = r.path().join(LIB);
    let out = r.trust().stdout;
    let size = std::fs::metadata(&lib).unwrap().len();
    assert!(
        out.contains(&format!("{}  ({size} bytes)", pinned_line(&lib))),
        "{out}"
    );
    assert!(
        out.contains("depends on, not pinned (system libraries): ") && out.contains("libc.so.6 ("),
        "{out}"
    );
}

#[test]
fn contract_propose_on_a_file_of_an_untrusted_plugin_says_why_it_is_not_found() {
    // The plugin routed to an extension no built-in handles (`.go` itself is the built-in
    // Go analyzer's while the plugin is not loaded).
    let r = untrusted_repo();
    r.write(
        "wit.toml",
        "[[analyzers]]\npath = \"plugins/libwit_analyzer_go.so\"\nextensions = [\"gop\"]\n",
    );
    r.write(
        "store.gop",
        "package store\n\nfunc Save(path string) error { return nil }\n",
    );
    let out = r.wit(
        Some("a"),
        &["contract", "propose", "store.gop:Save", "--json"],
    );
    assert_eq!(out.code, 3, "{out:#?}");
    let v = out.json();
    assert_eq!(v["error"]["message"], "SYMBOL_NOT_FOUND");
    let reason = v["error"]["data"]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("not loaded") && reason.contains("wit trust"),
        "{v}"
    );
    // A file of a built-in language gets no such note.
    r.write("a.ts", "export const x = 1;\n");
    let v = r
        .wit(
            Some("a"),
            &["contract", "propose", "a.ts:missing", "--json"],
        )
        .json();
    assert!(v["error"]["data"].get("reason").is_none(), "{v}");
}
