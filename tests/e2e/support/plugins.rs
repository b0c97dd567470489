//! Builds the real plugin libraries for tests: the Go analyzer (examples/analyzer-go) and
//! the broken plugins (tests/plugins), each once per test process.
//!
//! They are built by a nested `cargo build` into their own target directory,
//! `target/e2e-plugins`, so that the nested cargo never waits for the build-directory lock
//! that the outer `cargo test` holds on `target/`. CI pre-builds them there (`.ci/run`), so
//! the nested build is then a no-op.
//!
//! Shared by the end-to-end tests (`support::plugins`) and the daemon's loader tests (which
//! include this file with `#[path]`): both crates sit one level below the repository root,
//! so `CARGO_MANIFEST_DIR/..` is the root for either.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The repository's root (the parent of daemon/ and cli/).
pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate has a parent directory")
        .to_owned()
}

/// The target directory the plugins are built into.
pub(crate) fn plugin_target_dir() -> PathBuf {
    repo_root().join("target").join("e2e-plugins")
}

/// Builds `packages` (`--workspace` or `-p <name>`) of the workspace at `manifest` into
/// [`plugin_target_dir`]; `what` names them in the failure.
fn cargo_build(manifest: &Path, packages: &[&str], what: &str) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["build", "--quiet", "--manifest-path"])
        .arg(manifest)
        .args(packages)
        .arg("--target-dir")
        .arg(plugin_target_dir())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "building {what} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn library(crate_name: &str) -> PathBuf {
    let file = format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        crate_name.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    );
    let path = plugin_target_dir().join("debug").join(file);
    assert!(path.is_file(), "{} was not built", path.display());
    path
}

/// The Go analyzer plugin, built once per process.
pub(crate) fn go_plugin() -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    // The Go crate is a member of the main workspace; `--workspace` with its manifest would
    // build every member, so build it by package instead.
    BUILT.get_or_init(|| {
        cargo_build(
            &repo_root().join("Cargo.toml"),
            &["-p", "wit-analyzer-go"],
            "wit-analyzer-go",
        )
    });
    library("wit-analyzer-go")
}

/// One of the broken plugins under tests/plugins (`"abi-mismatch"`, `"panicking"`, …),
/// all built once per process.
pub(crate) fn broken_plugin(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        let manifest = repo_root().join("tests/plugins/Cargo.toml");
        cargo_build(&manifest, &["--workspace"], &manifest.display().to_string())
    });
    library(&format!("wit-test-{name}"))
}

/// A grammar library built from a grammar crate's C sources, and that crate's directory
/// (for its `queries/`).
pub(crate) struct GrammarBuild {
    /// The shared library.
    pub(crate) library: PathBuf,
    /// The grammar crate's sources (`src/parser.c`, `queries/tags.scm`, …).
    pub(crate) sources: PathBuf,
}

/// The Lua grammar, compiled from tree-sitter-lua's `src/parser.c` and `src/scanner.c`
/// into `target/e2e-plugins/grammars/liblua.so` with the C compiler, the way a team adding
/// a language in `wit.toml` builds one (`cc -shared -fPIC`). Once per process; kept across
/// runs (the crate's version is pinned, so the sources never change). The sources come
/// from the registry: the tests/plugins workspace depends on the crate, and `cargo
/// metadata` names its directory.
pub(crate) fn lua_grammar() -> GrammarBuild {
    static BUILT: OnceLock<GrammarBuild> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(repo_root().join("tests/plugins/Cargo.toml"))
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "cargo metadata of tests/plugins failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let metadata: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
        let manifest = metadata["packages"]
            .as_array()
            .and_then(|packages| {
                packages
                    .iter()
                    .find(|p| p["name"] == "tree-sitter-lua")
                    .and_then(|p| p["manifest_path"].as_str())
            })
            .expect("tests/plugins depends on tree-sitter-lua");
        let sources = Path::new(manifest)
            .parent()
            .expect("a manifest has a directory")
            .to_owned();
        let dir = plugin_target_dir().join("grammars");
        let library = dir.join(format!(
            "{}lua{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        ));
        if !library.is_file() {
            std::fs::create_dir_all(&dir).expect("creating target/e2e-plugins/grammars");
            // Another test process may build it at the same time: each writes its own
            // file and renames it into place, so nobody loads half a library.
            let partial = dir.join(format!("liblua.{}.partial", std::process::id()));
            let src = sources.join("src");
            let output = Command::new(std::env::var_os("CC").unwrap_or_else(|| "cc".into()))
                .args(["-shared", "-fPIC", "-O1", "-I"])
                .arg(&src)
                .arg(src.join("parser.c"))
                .arg(src.join("scanner.c"))
                .arg("-o")
                .arg(&partial)
                .output()
                .expect("the C compiler (cc) runs");
            assert!(
                output.status.success(),
                "compiling the Lua grammar failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
            std::fs::rename(&partial, &library).expect("renaming the grammar library");
        }
        GrammarBuild { library, sources }
    });
    GrammarBuild {
        library: built.library.clone(),
        sources: built.sources.clone(),
    }
}
