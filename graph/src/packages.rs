//! Where a call in one of the declarative languages (Java, Go, Rust, C#, and plugins)
//! may land in another file: pure path logic over import paths, no lookups.
//!
//! What resolves (everything else stays name-only or unresolved, as for plugins):
//! - **Go** (the rules themselves in `golang.rs`): plain calls within the package (the
//!   directory); `pkg.F()` where `pkg` is an import whose path ends with a directory of
//!   the repository (`example.com/acme/tax` → `tax/` or `acme/tax/`, the longest matching
//!   suffix), to that package's top-level `F`.
//! - **Java** (the rules in `java.rs` for files with type bodies): `Type.m()` and `new
//!   Type().m()`-style receivers naming a type of the same package (directory) or
//!   imported by `import a.b.Type;` (→ a file ending `a/b/Type.java`).
//! - **Rust**: `use crate::a::b;` and `use crate::a::f;` (→ `src/a/b.rs`, `src/a/b/mod.rs`);
//!   calls `f()`, `b::f()`, `crate::a::b::f()`, and `Type::f()` for a type defined in the
//!   file or imported so.
//! - **C#**: `Type.M()` for a type defined in the same directory (namespaces do not map to
//!   directories, so an imported namespace's types are found only there).

/// The extensions handled here, and how each language names another file's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Go,
    Java,
    Rust,
    CSharp,
}

impl Family {
    /// The family of an extension, if it is one of the declarative languages.
    pub(crate) fn of(extension: &str) -> Option<Self> {
        Some(match extension {
            "go" => Family::Go,
            "java" => Family::Java,
            "rs" => Family::Rust,
            "cs" => Family::CSharp,
            _ => return None,
        })
    }
}

/// Whether a receiver names a type (`Rates`, `Order`): a capital first letter and a single
/// name. Go's receivers are packages, never types, so Go never asks.
pub(crate) fn is_type_name(receiver: &str) -> bool {
    receiver.chars().next().is_some_and(char::is_uppercase)
        && receiver.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// For Java `import a.b.Type;`: the path suffix of the file declaring `Type`.
pub(crate) fn java_file_suffix(module: &str) -> String {
    format!("/{}.java", module.replace('.', "/"))
}

/// The directory a Go import path names, among `dirs` (the repository's directories of Go
/// files): the one matching the longest suffix of the path, at least its last segment.
pub(crate) fn go_package_dir<'a>(
    import: &str,
    dirs: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let segments: Vec<&str> = import.split('/').filter(|s| !s.is_empty()).collect();
    let mut best: Option<(usize, &str)> = None;
    for dir in dirs {
        let parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
        let matched = segments
            .iter()
            .rev()
            .zip(parts.iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        if matched > 0 && best.is_none_or(|(m, d)| matched > m || (matched == m && dir < d)) {
            best = Some((matched, dir));
        }
    }
    best.map(|(_, d)| d)
}

/// The crate's source root for a Rust file: the path up to and including its last `src`
/// directory (`crates/x/src/a/b.rs` → `crates/x/src`), else its directory.
pub(crate) fn rust_crate_root(file: &str) -> &str {
    let mut end = None;
    let mut at = 0;
    for part in file.split('/') {
        let next = at + part.len();
        if part == "src" && next < file.len() {
            end = Some(next);
        }
        at = next + 1;
    }
    match end {
        Some(e) => &file[..e],
        None => file.rsplit_once('/').map_or("", |(d, _)| d),
    }
}

/// The files a Rust module path may live in, from `file`: `crate::a::b` → `ROOT/a/b.rs`,
/// `ROOT/a/b/mod.rs`; `self::x` and `super::x` relative to `file`'s module directory.
/// `None` for paths outside the crate (`std::…`, other crates).
pub(crate) fn rust_module_files(file: &str, path: &[&str]) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let base = match *first {
        "crate" => rust_crate_root(file).to_owned(),
        "self" | "super" => {
            let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
            let name = file.rsplit('/').next().unwrap_or(file);
            // A file `a/b.rs` is module `a::b`, whose children live in `a/b/`.
            let module_dir = if matches!(name, "mod.rs" | "lib.rs" | "main.rs") {
                dir.to_owned()
            } else {
                format!("{dir}/{}", name.trim_end_matches(".rs"))
            };
            if *first == "super" {
                module_dir
                    .rsplit_once('/')
                    .map_or(String::new(), |(d, _)| d.to_owned())
            } else {
                module_dir
            }
        }
        _ => return None,
    };
    if rest.is_empty() {
        return Some(Vec::new());
    }
    let joined = rest.join("/");
    let prefix = if base.is_empty() {
        String::new()
    } else {
        format!("{base}/")
    };
    Some(vec![
        format!("{prefix}{joined}.rs"),
        format!("{prefix}{joined}/mod.rs"),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_import_paths_pick_the_longest_matching_directory() {
        let dirs = ["tax", "acme/tax", "other", "internal/tax/rates"];
        assert_eq!(
            go_package_dir("example.com/acme/tax", dirs.iter().copied()),
            Some("acme/tax")
        );
        assert_eq!(go_package_dir("fmt", dirs.iter().copied()), None);
        assert_eq!(
            go_package_dir("example.com/x/tax/rates", dirs.iter().copied()),
            Some("internal/tax/rates")
        );
    }

    #[test]
    fn rust_module_paths_map_to_files_of_the_crate() {
        assert_eq!(
            rust_module_files("src/shop.rs", &["crate", "store"]).unwrap(),
            ["src/store.rs", "src/store/mod.rs"]
        );
        assert_eq!(
            rust_module_files("crates/x/src/a/b.rs", &["crate", "c", "d"]).unwrap(),
            ["crates/x/src/c/d.rs", "crates/x/src/c/d/mod.rs"]
        );
        assert_eq!(
            rust_module_files("src/a/mod.rs", &["self", "b"]).unwrap(),
            ["src/a/b.rs", "src/a/b/mod.rs"]
        );
        assert_eq!(
            rust_module_files("src/a/b.rs", &["super", "c"]).unwrap(),
            ["src/a/c.rs", "src/a/c/mod.rs"]
        );
        assert!(rust_module_files("src/a.rs", &["std", "fmt"]).is_none());
    }

    #[test]
    fn type_names_and_java_paths() {
        assert!(is_type_name("Rates") && !is_type_name("rates") && !is_type_name("a.B"));
        assert_eq!(java_file_suffix("com.acme.Rates"), "/com/acme/Rates.java");
    }
}
