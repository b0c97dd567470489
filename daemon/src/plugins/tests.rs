//! Loader tests against real libraries: the Go plugin and the broken ones (test_support).

use std::fs;
use std::path::Path;
use std::sync::Arc;

use wit_core::{
    AnalyzeError, AnalyzerOrigin, Config, FileAnalysis, LanguageAnalyzer, Registry, SymbolKind,
};

use super::test_support::{broken_plugin, go_plugin, lua_grammar};
use super::*;
use crate::trust::TrustCheck;

fn config_for(entries: &[(&Path, Option<&[&str]>)]) -> Config {
    let mut text = String::new();
    for (path, exts) in entries {
        text.push_str(&format!(
            "[[analyzers]]\npath = {:?}\n",
            path.display().to_string()
        ));
        if let Some(exts) = exts {
            text.push_str(&format!("extensions = {exts:?}\n"));
        }
    }
    Config::parse(&text, "wit.toml").unwrap()
}

/// The verdict "trusted as the files are now", with the libraries read for it.
fn trusted(root: &Path, config: &Config) -> TrustCheck {
    TrustCheck::assume_trusted(root, config)
}

fn root() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Loads `broken` next to the Go plugin and returns the failure; the Go plugin must load.
fn refuse(broken: &Path) -> PluginFailure {
    let go = go_plugin();
    let dir = root();
    let config = config_for(&[(broken, None), (&go, None)]);
    let mut registry = Registry::new();
    let report = load_into(
        &mut registry,
        dir.path(),
        &config,
        &trusted(dir.path(), &config),
    );
    assert_eq!(
        report.loaded.len(),
        1,
        "the good plugin still loads: {report:?}"
    );
    assert_eq!(report.loaded[0].path, go);
    assert_eq!(registry.for_extension("go").unwrap().id(), "go");
    assert_eq!(report.failed.len(), 1, "{report:?}");
    let failure = report.failed.into_iter().next().unwrap();
    assert_eq!(failure.path, broken);
    assert!(
        failure
            .to_string()
            .starts_with(&format!("analyzer plugin {}: ", broken.display())),
        "{failure}"
    );
    failure
}

#[test]
fn a_missing_file_is_refused() {
    let dir = root();
    let missing = dir.path().join("plugins/libnope.so");
    let f = refuse(&missing);
    assert_eq!(f.error, LoadError::Missing);
    assert_eq!(
        f.to_string(),
        format!("analyzer plugin {}: file not found", missing.display())
    );
}

#[test]
fn a_file_that_is_not_a_library_is_refused() {
    let dir = root();
    let fake = dir.path().join("libfake.so");
    fs::write(&fake, "this is text, not ELF").unwrap();
    let f = refuse(&fake);
    let LoadError::NotALibrary(why) = &f.error else {
        panic!("{f}")
    };
    assert!(
        why.contains("libfake.so"),
        "the dlopen error names the file: {why}"
    );
    assert!(
        f.to_string().contains("not a loadable shared library: "),
        "{f}"
    );
}

#[test]
fn a_library_without_the_entry_symbol_is_refused() {
    let f = refuse(&broken_plugin("no-entry"));
    assert_eq!(f.error, LoadError::NoEntrySymbol);
    assert!(
        f.to_string()
            .ends_with("not a wit analyzer plugin: the entry symbol `wit_analyzer_v1` is missing"),
        "{f}"
    );
}

#[test]
fn another_abi_version_is_refused() {
    let f = refuse(&broken_plugin("abi-mismatch"));
    assert_eq!(
        f.error,
        LoadError::Table(PluginError::AbiMismatch {
            found: 999,
            expected: 1
        })
    );
    assert!(
        f.to_string()
            .contains("plugin ABI version 999, but this wit speaks version 1"),
        "{f}"
    );
    assert_eq!(
        f.error.hint(),
        Some("rebuild the plugin against this version of wit-core, then run `wit trust`")
    );
}

#[test]
fn a_table_too_small_is_refused() {
    let f = refuse(&broken_plugin("small-table"));
    assert!(
        matches!(f.error, LoadError::Table(PluginError::TableTooSmall { found: 8, expected }) if expected > 8),
        "{f}"
    );
}

#[test]
fn an_invalid_id_is_refused() {
    let f = refuse(&broken_plugin("bad-id"));
    assert_eq!(
        f.error,
        LoadError::Table(PluginError::InvalidId(
            "\"bad id!\" may contain only ASCII letters, digits, '-' and '_'".into()
        ))
    );
}

#[test]
fn an_extension_already_claimed_is_refused_by_the_registry() {
    struct Builtin;
    impl LanguageAnalyzer for Builtin {
        fn id(&self) -> &str {
            "builtin-panic"
        }
        fn extensions(&self) -> &[&str] {
            &["panic"]
        }
        fn analyze(&self, _: &str) -> Result<FileAnalysis, AnalyzeError> {
            Ok(FileAnalysis::default())
        }
    }
    let go = go_plugin();
    let panicking = broken_plugin("panicking");
    let dir = root();
    let mut registry = Registry::new();
    registry
        .add(Arc::new(Builtin), AnalyzerOrigin::Builtin, None)
        .unwrap();
    let config = config_for(&[(&panicking, None), (&go, None)]);
    let report = load_into(
        &mut registry,
        dir.path(),
        &config,
        &trusted(dir.path(), &config),
    );
    assert_eq!(report.loaded.len(), 1);
    assert_eq!(
        report.failed,
        vec![PluginFailure {
            path: panicking.clone(),
            error: LoadError::Registry(RegistryError::ExtensionClaimed {
                extension: "panic".into(),
                owner: "builtin-panic".into()
            }),
            language: None,
        }]
    );
    assert_eq!(
        registry.for_extension("panic").unwrap().id(),
        "builtin-panic"
    );
    assert_eq!(registry.for_extension("go").unwrap().id(), "go");
    // wit.toml may route the plugin to other extensions instead, and then it loads.
    let mut registry = Registry::new();
    registry
        .add(Arc::new(Builtin), AnalyzerOrigin::Builtin, None)
        .unwrap();
    let config = config_for(&[(&panicking, Some(&["boom"]))]);
    let report = load_into(
        &mut registry,
        dir.path(),
        &config,
        &trusted(dir.path(), &config),
    );
    assert!(report.failed.is_empty(), "{report:?}");
    assert_eq!(report.loaded[0].extensions, vec!["boom".to_owned()]);
    assert_eq!(registry.for_extension("boom").unwrap().id(), "panicking");
}

#[test]
fn nothing_is_opened_unless_trusted() {
    let go = go_plugin();
    let dir = root();
    let config = config_for(&[(&go, None)]);
    let report = load(
        dir.path(),
        &config,
        &TrustCheck::not_trusted(dir.path(), &config, TrustStatus::Untrusted),
    );
    assert!(report.loaded.is_empty());
    assert_eq!(report.failed[0].error, LoadError::Untrusted);
    assert!(report.failed[0].to_string().contains("run `wit trust`"));
    let changed = vec![dir.path().join("wit.toml")];
    let report = load(
        dir.path(),
        &config,
        &TrustCheck::not_trusted(
            dir.path(),
            &config,
            TrustStatus::Stale {
                changed: changed.clone(),
            },
        ),
    );
    assert_eq!(report.failed[0].error, LoadError::TrustStale { changed });
    assert!(
        report.failed[0].to_string().contains(&format!(
            "({} changed since `wit trust`)",
            dir.path().join("wit.toml").display()
        )),
        "{}",
        report.failed[0]
    );
}

#[test]
fn relative_paths_resolve_against_the_repository_root() {
    let go = go_plugin();
    let dir = root();
    fs::create_dir_all(dir.path().join("tools")).unwrap();
    fs::copy(&go, dir.path().join("tools/libgo.so")).unwrap();
    let config = Config::parse("[[analyzers]]\npath = \"tools/libgo.so\"\n", "wit.toml").unwrap();
    let report = load(dir.path(), &config, &trusted(dir.path(), &config));
    assert!(report.failed.is_empty(), "{report:?}");
    assert_eq!(report.loaded[0].path, dir.path().join("tools/libgo.so"));
}

const GO: &str = r#"package users

import "context"

type Store interface {
	Get(ctx context.Context, id string) (*User, error)
}

type MemStore struct{}

func (s *MemStore) Get(ctx context.Context, id string) (*User, error) {
	if err := validate(id); err != nil {
		return nil, err
	}
	return s.lookup(id), nil
}

func validate(id string) error { return nil }
"#;

#[test]
fn the_go_plugin_analyzes_go_through_the_loader() {
    let go = go_plugin();
    let dir = root();
    let mut registry = Registry::with_builtins();
    let config = config_for(&[(&go, None)]);
    let report = load_into(
        &mut registry,
        dir.path(),
        &config,
        &trusted(dir.path(), &config),
    );
    assert!(report.failed.is_empty(), "{report:?}");
    let entry = registry
        .entries()
        .iter()
        .find(|e| e.analyzer.id() == "go")
        .unwrap();
    assert_eq!(entry.origin, AnalyzerOrigin::Plugin(go.clone()));
    assert_eq!(entry.extensions, vec!["go".to_owned()]);

    let analyzer = registry.for_path("pkg/users/store.go").unwrap();
    let a = analyzer.analyze_full(GO).unwrap();
    let kinds: Vec<(String, SymbolKind)> = a
        .symbols
        .iter()
        .map(|s| (s.qualified_name(), s.kind))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("Store".to_owned(), SymbolKind::Interface),
            ("MemStore".to_owned(), SymbolKind::Type),
            ("MemStore.Get".to_owned(), SymbolKind::Method),
            ("validate".to_owned(), SymbolKind::Function),
        ]
    );
    let get = a.find("MemStore.Get").unwrap();
    assert_eq!(
        get.signature.as_deref(),
        Some("(ctx context.Context, id string) (*User, error)")
    );
    assert!(GO[get.start_byte..get.end_byte].starts_with("func (s *MemStore) Get("));
    assert_eq!(
        a.callees_of(get).collect::<Vec<_>>(),
        ["validate", "lookup"]
    );
}

#[test]
fn a_panicking_plugin_gives_a_failed_error_and_the_process_survives() {
    let dir = root();
    let config = config_for(&[(&broken_plugin("panicking"), None)]);
    let report = load(dir.path(), &config, &trusted(dir.path(), &config));
    let plugin = &report.loaded[0];
    let reason = "analyzer \"panicking\" panicked: deliberate panic while analysing 5 bytes";
    for _ in 0..2 {
        assert_eq!(
            plugin.analyzer.analyze("x = 1").unwrap_err(),
            AnalyzeError::Failed(format!("plugin {}: {reason}", plugin.path.display()))
        );
    }
    // Recorded for `analyzers.list`, with the plugin's own reason.
    assert_eq!(plugin.health.failures(), 2);
    assert_eq!(plugin.health.last_failure().unwrap().reason, reason);
}

#[test]
fn malformed_json_from_a_plugin_is_a_failed_error() {
    let dir = root();
    let config = config_for(&[(&broken_plugin("bad-json"), None)]);
    let report = load(dir.path(), &config, &trusted(dir.path(), &config));
    let AnalyzeError::Failed(why) = report.loaded[0].analyzer.analyze("anything").unwrap_err()
    else {
        panic!("expected Failed")
    };
    let prefix = format!(
        "plugin {}: analyzer \"broken\": returned malformed analysis JSON: ",
        report.loaded[0].path.display()
    );
    assert!(why.starts_with(&prefix), "{why}");
    assert_eq!(report.loaded[0].health.failures(), 1);
}

/// A small copy of `library` (symbols stripped, so that the many copies below cost little
/// memory; the dynamic symbols a plugin needs stay), else a plain copy.
fn small_copy(library: &Path, dest: &Path) {
    let stripped = std::process::Command::new("strip")
        .arg("--strip-all")
        .arg("-o")
        .arg(dest)
        .arg(library)
        .status()
        .is_ok_and(|s| s.success());
    if !stripped {
        fs::copy(library, dest).unwrap();
    }
}

/// Security item 5: the plugin that loads is the one that was hashed. Library A is trusted;
/// a thread swaps A's and B's files (`renameat2(RENAME_EXCHANGE)`) in a loop while the
/// daemon's path (trust check, then load) runs. Each attempt must load A or refuse as
/// stale; B (never trusted) must never load. Each round is a fresh repository, so no
/// dynamic-loader cache of an earlier round can hide a swap.
#[test]
fn the_plugin_that_loads_is_the_one_that_was_hashed_even_while_swapped_in_a_loop() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;

    use crate::trust::TrustStore;

    const ROUNDS: usize = 30;
    let dir = root();
    let originals = dir.path().join("originals");
    fs::create_dir_all(&originals).unwrap();
    // A: id "panicking"; B: id "broken" (the raw ABI of bad-json); both valid plugins.
    let (a, b) = (originals.join("liba.so"), originals.join("libb.so"));
    small_copy(&broken_plugin("panicking"), &a);
    small_copy(&broken_plugin("bad-json"), &b);
    let mut store = TrustStore::load_from(dir.path().join("config/wit/trust.json")).unwrap();
    let config = Config::parse("[[analyzers]]\npath = \"plugins/liba.so\"\n", "wit.toml").unwrap();

    let (mut loaded, mut stale) = (0, 0);
    for round in 0..ROUNDS {
        let repo = dir.path().join(format!("repo{round}"));
        fs::create_dir_all(repo.join("plugins")).unwrap();
        fs::write(
            repo.join("wit.toml"),
            "[[analyzers]]\npath = \"plugins/liba.so\"\n",
        )
        .unwrap();
        let (liba, libb) = (repo.join("plugins/liba.so"), repo.join("plugins/libb.so"));
        fs::copy(&a, &liba).unwrap();
        fs::copy(&b, &libb).unwrap();
        store.grant(&store.plan(&repo, &config).unwrap()).unwrap();

        let stop = Arc::new(AtomicBool::new(false));
        let swaps = Arc::new(AtomicU64::new(0));
        let swapper = {
            let (stop, swaps) = (stop.clone(), swaps.clone());
            let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).unwrap();
            let (liba, libb) = (c(&liba), c(&libb));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    // SAFETY: two NUL-terminated paths that outlive the call; renameat2 only
                    // reads them. (The daemon has no rustix; libc has the same call.)
                    let rc = unsafe {
                        libc::renameat2(
                            libc::AT_FDCWD,
                            liba.as_ptr(),
                            libc::AT_FDCWD,
                            libb.as_ptr(),
                            libc::RENAME_EXCHANGE,
                        )
                    };
                    assert_eq!(rc, 0, "renameat2: {}", std::io::Error::last_os_error());
                    swaps.fetch_add(1, Ordering::Relaxed);
                }
            })
        };
        // Let the swapping start before the daemon's path runs.
        while swaps.load(Ordering::Relaxed) == 0 {
            std::thread::yield_now();
        }
        let check = store.check_and_read(&repo, &config);
        let report = load(&repo, &config, &check);
        stop.store(true, Ordering::Relaxed);
        swapper.join().unwrap();

        match (report.loaded.as_slice(), report.failed.as_slice()) {
            ([plugin], []) => {
                assert_eq!(
                    plugin.analyzer.id(),
                    "panicking",
                    "round {round}: an untrusted library was loaded"
                );
                loaded += 1;
            }
            ([], [failure]) => {
                assert!(
                    matches!(failure.error, LoadError::TrustStale { .. }),
                    "round {round}: {failure}"
                );
                stale += 1;
            }
            _ => panic!("round {round}: {report:?}"),
        }
    }
    assert_eq!(loaded + stale, ROUNDS);
    eprintln!("{loaded} rounds loaded A, {stale} were refused as stale; B never loaded");
}

/// Issue 24: a plugin written exactly as wit-core 0.1.0's README and Go example taught (a
/// `FileAnalysis { symbols, calls }` literal, `FileAnalysis::default()` and pushes) still
/// compiles against this wit-core (the build of tests/plugins would fail otherwise), loads,
/// and answers through the host's full analysis: its call edges become call sites' worth of
/// edges for the code graph.
#[test]
fn a_plugin_written_against_the_first_sdk_still_builds_loads_and_analyses() {
    let dir = root();
    let library = broken_plugin("first-sdk");
    let mut registry = Registry::with_builtins();
    let config = config_for(&[(&library, None)]);
    let report = load_into(
        &mut registry,
        dir.path(),
        &config,
        &trusted(dir.path(), &config),
    );
    assert!(report.failed.is_empty(), "{report:?}");
    let analyzer = registry
        .for_path("src/a.fsdk")
        .expect("the plugin's extension");
    assert_eq!(analyzer.id(), "mylang");

    let a = analyzer
        .analyze_full("fn main\ncall helper\nfn helper\n")
        .unwrap();
    let names: Vec<&str> = a.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["main", "helper"]);
    assert_eq!(a.symbols[1].start_byte, 20);
    assert_eq!(a.edges().collect::<Vec<_>>(), [("main", "helper")]);
    let main = a.find("main").unwrap();
    assert_eq!(a.callees_of(main).collect::<Vec<_>>(), ["helper"]);

    // The README's own example, byte for byte what it pushed (over a source long enough
    // for its 0..42 range: the host checks ranges).
    let source = format!("readme\n{}", "x\n".repeat(30));
    let readme = analyzer.analyze_full(&source).unwrap();
    assert_eq!(
        readme.find("save").unwrap().signature.as_deref(),
        Some("(path string) error")
    );
    assert_eq!(readme.edges().collect::<Vec<_>>(), [("save", "validate")]);
    // And the first shape, as such a plugin's own callers read it.
    let first: FileAnalysis = analyzer.analyze(&source).unwrap();
    assert_eq!(first.calls.len(), 1);
    assert_eq!(first.symbols[0].end_byte, 42);
}

/// A `[[languages]]` entry whose grammar library is at the absolute `grammar` and whose
/// query file `q.scm` (written into `root`) holds `query`.
fn language_config(root: &Path, grammar: &Path, query: &str) -> Config {
    fs::write(root.join("q.scm"), query).unwrap();
    Config::parse(
        &format!(
            "[[languages]]\nid = \"lua\"\nextensions = [\"lua\"]\ngrammar = {:?}\nqueries = [\"q.scm\"]\n",
            grammar.display().to_string()
        ),
        "wit.toml",
    )
    .unwrap()
}

const LUA_QUERY: &str = "(function_declaration name: (identifier) @name) @definition.function @callable\n(function_call name: (identifier) @name) @reference.call\n";

#[test]
fn a_language_loads_from_its_grammar_library_and_the_query_bytes_trust_read() {
    let dir = root();
    let grammar = lua_grammar().library;
    let config = language_config(dir.path(), &grammar, LUA_QUERY);
    let check = trusted(dir.path(), &config);
    // What was read for trust is what compiles: the file changing afterwards is not seen.
    fs::write(dir.path().join("q.scm"), "(this does not compile").unwrap();
    let mut registry = Registry::new();
    let (loaded, failed) = languages::load_into(&mut registry, dir.path(), &config, &check);
    assert_eq!(failed, [], "{failed:?}");
    assert_eq!(loaded.len(), 1);
    assert_eq!(loaded[0].grammar, grammar);
    assert_eq!(loaded[0].queries, [dir.path().join("q.scm")]);
    let analyzer = registry.for_path("shop.lua").expect("routed to lua");
    let a = analyzer
        .analyze_full(
            "function price(n)\n  return n\nend\nfunction total()\n  return price(2)\nend\n",
        )
        .unwrap();
    let names: Vec<&str> = a.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["price", "total"]);
    assert_eq!(a.symbols[0].signature.as_deref(), Some("(n)"));
    assert_eq!(a.edges().collect::<Vec<_>>(), [("total", "price")]);
    assert_eq!(
        registry.entries().last().unwrap().origin,
        AnalyzerOrigin::Plugin(grammar)
    );
}

#[test]
fn a_language_whose_grammar_is_not_a_library_or_whose_query_is_missing_fails_alone() {
    let dir = root();
    let not_a_library = dir.path().join("liblua.so");
    fs::write(&not_a_library, "not ELF").unwrap();
    let config = language_config(dir.path(), &not_a_library, LUA_QUERY);
    let mut registry = wit_analyzers::builtin_registry();
    let builtins = registry.entries().len();
    let (loaded, failed) = languages::load_into(
        &mut registry,
        dir.path(),
        &config,
        &trusted(dir.path(), &config),
    );
    assert!(loaded.is_empty());
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].language.as_deref(), Some("lua"));
    assert!(
        failed[0]
            .to_string()
            .starts_with("language \"lua\" (grammar "),
        "{}",
        failed[0]
    );
    assert_eq!(
        registry.entries().len(),
        builtins,
        "the built-ins are untouched"
    );

    let config = language_config(dir.path(), &lua_grammar().library, LUA_QUERY);
    fs::remove_file(dir.path().join("q.scm")).unwrap();
    let (loaded, failed) = languages::load_into(
        &mut registry,
        dir.path(),
        &config,
        &trusted(dir.path(), &config),
    );
    assert!(loaded.is_empty());
    assert!(
        matches!(&failed[0].error, LoadError::QueryFile { path, .. } if path == Path::new("q.scm")),
        "{failed:?}"
    );
}
