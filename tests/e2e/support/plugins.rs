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
