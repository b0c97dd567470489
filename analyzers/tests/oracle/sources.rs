//! Where the real source files come from: the vendored samples under
//! `testdata/real/<lang>/` (Java, Go, C#, and TypeScript for the benchmark) and, for
//! Rust, the sources of a crate that is already a dependency in `Cargo.lock` (so nothing
//! is vendored and nothing is fetched).
//!
//! Shared by the oracle test and `benches/languages.rs` (included there with `#[path]`),
//! so that both measure the same files.

use std::path::{Path, PathBuf};

/// The registry crate whose sources stand in for "a real Rust project". `toml_edit` is a
/// direct dependency of the workspace (so it is downloaded before any test runs) and has
/// traits, trait impls for references and primitives, associated types, generics and
/// nested modules, in library code of a useful size (37 files, about 380 KB).
pub const RUST_CRATE: &str = "toml_edit";

/// One source file, read into memory.
pub struct SourceFile {
    /// Path relative to the sample's root, with `/` separators (the key in reports).
    pub rel: String,
    /// The file's text (UTF-8; a leading byte order mark, if any, is kept).
    pub text: String,
}

/// The root of the vendored sample of `lang` (`java`, `go`, `csharp`, `typescript`).
pub fn real_root(lang: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/real")
        .join(lang)
}

/// Every file ending in `.<ext>` under `root`, sorted by relative path.
pub fn files_under(root: &Path, ext: &str) -> Result<Vec<SourceFile>, String> {
    let mut paths = Vec::new();
    walk(root, ext, &mut paths).map_err(|e| format!("reading {}: {e}", root.display()))?;
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let rel = path
                .strip_prefix(root)
                .map_err(|e| e.to_string())?
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("reading {}: {e}", path.display()))?;
            Ok(SourceFile { rel, text })
        })
        .collect()
}

fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, ext, out)?;
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
    Ok(())
}

/// The vendored sample of `lang`; an empty or missing sample is an error.
pub fn real_files(lang: &str, ext: &str) -> Result<Vec<SourceFile>, String> {
    let root = real_root(lang);
    let files = files_under(&root, ext)?;
    if files.is_empty() {
        return Err(format!("no .{ext} files under {}", root.display()));
    }
    Ok(files)
}

/// The `src/` folder of the registry crate `name` at the version `Cargo.lock` pins, in
/// Cargo's registry cache (`$CARGO_HOME/registry/src/<index>/<name>-<version>/`).
///
/// Read from the lock file rather than asked of `cargo metadata`: that command wants the
/// manifest of every locked package, including those of other platforms that were never
/// downloaded here, and so fails offline.
pub fn registry_crate_src(name: &str) -> Result<PathBuf, String> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("the crate has no parent folder")?;
    let lock = std::fs::read_to_string(workspace.join("Cargo.lock"))
        .map_err(|e| format!("reading Cargo.lock: {e}"))?;
    let wanted = format!("name = \"{name}\"");
    let version = lock
        .split("[[package]]")
        .filter(|package| package.lines().any(|l| l == wanted))
        .find_map(|package| {
            package
                .lines()
                .find_map(|l| l.strip_prefix("version = \""))
                .map(|v| v.trim_end_matches('"').to_owned())
        })
        .ok_or_else(|| format!("`{name}` is not in Cargo.lock any more: pick another crate"))?;
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .ok_or("neither CARGO_HOME nor HOME is set")?;
    let registry = cargo_home.join("registry/src");
    let indexes = std::fs::read_dir(&registry).map_err(|e| {
        format!(
            "reading {}: {e}: run `cargo fetch` first",
            registry.display()
        )
    })?;
    indexes
        .filter_map(|index| Some(index.ok()?.path().join(format!("{name}-{version}/src"))))
        .find(|src| src.is_dir())
        .ok_or_else(|| {
            format!(
                "{name} {version} is not under {}: run `cargo fetch` first",
                registry.display()
            )
        })
}

/// The `.rs` files of [`RUST_CRATE`].
pub fn rust_files() -> Result<(PathBuf, Vec<SourceFile>), String> {
    let root = registry_crate_src(RUST_CRATE)?;
    let files = files_under(&root, "rs")?;
    Ok((root, files))
}
