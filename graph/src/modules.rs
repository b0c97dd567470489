//! Module specifiers to indexed files: TypeScript/JavaScript (relative paths, extension
//! probing, `.js` written for `.ts`, index files, `tsconfig.json` `baseUrl` and `paths`)
//! and Python (relative imports, packages, source roots).
//!
//! Resolution is against the set of indexed files, never the disk: the index holds every
//! supported file that git does not ignore, so a specifier naming anything else (a
//! package in `node_modules/`, the standard library) does not resolve and the calls
//! through it stay unresolved. No symlink is ever followed, since nothing is opened.
//!
//! Non-relative script specifiers go through the nearest `tsconfig.json` (its `extends`
//! chain applied) and then the repository's own packages (`project.rs`).

use crate::paths::{dir, extension, join};
use crate::project::Project;
#[cfg(test)]
use crate::project::TsPaths;

/// The language family a file's extension puts it in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// `.ts`, `.tsx`, `.js`, `.jsx`, `.mjs`, `.cjs`, `.mts`, `.cts`.
    Script,
    /// `.py`, `.pyi`.
    Python,
    /// Anything else (plugins): calls resolve within the file and, for plain calls, to
    /// the files of the same directory with the same extension (one package, as in Go).
    Other,
}

impl Language {
    /// The family of `path`.
    pub fn of(path: &str) -> Self {
        match extension(path) {
            "ts" | "tsx" | "js" | "jsx" | "mjs" | "cjs" | "mts" | "cts" => Language::Script,
            "py" | "pyi" => Language::Python,
            _ => Language::Other,
        }
    }
}

/// Extensions tried, in TypeScript's order, after a specifier without one.
const SCRIPT_EXTENSIONS: &[&str] = &["ts", "tsx", "d.ts", "mts", "cts", "js", "jsx", "mjs", "cjs"];

/// The indexed file a script specifier names from the file `from`, given `exists`.
pub(crate) fn script_module(
    from: &str,
    spec: &str,
    project: &Project,
    exists: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let relative = spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../");
    let bases = if relative {
        join(dir(from), spec).into_iter().collect()
    } else if spec.starts_with('/') {
        Vec::new()
    } else {
        // TypeScript's order: the nearest tsconfig's `paths` and `baseUrl`, then the
        // packages (here: the repository's own, as a workspace install links them).
        let ts = project.ts_paths(dir(from));
        let mut c = ts.candidates(spec);
        c.extend(project.package_candidates(spec, &ts.conditions));
        c
    };
    bases
        .into_iter()
        .find_map(|base| probe_script(&base, exists))
}

fn probe_script(base: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    if !base.is_empty() && exists(base) {
        return Some(base.to_owned());
    }
    // `./a.js` written for `a.ts` (TypeScript's ESM convention).
    for (written, real) in [
        ("js", &["ts", "tsx"][..]),
        ("jsx", &["tsx"][..]),
        ("mjs", &["mts"][..]),
        ("cjs", &["cts"][..]),
    ] {
        if let Some(stem) = base.strip_suffix(written).and_then(|s| s.strip_suffix('.')) {
            for ext in real {
                let p = format!("{stem}.{ext}");
                if exists(&p) {
                    return Some(p);
                }
            }
        }
    }
    for ext in SCRIPT_EXTENSIONS {
        let p = if base.is_empty() {
            continue;
        } else {
            format!("{base}.{ext}")
        };
        if exists(&p) {
            return Some(p);
        }
    }
    for ext in SCRIPT_EXTENSIONS {
        let p = if base.is_empty() {
            format!("index.{ext}")
        } else {
            format!("{base}/index.{ext}")
        };
        if exists(&p) {
            return Some(p);
        }
    }
    None
}

/// The indexed file a Python module names from the file `from`: relative modules
/// (`.x`, `..x`, `.`) from `from`'s package; absolute ones (`a.b`) from the nearest
/// ancestor directory of `from` holding them (so `src/` layouts work), the root last,
/// then `src/`.
pub(crate) fn python_module(
    from: &str,
    spec: &str,
    exists: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let dots = spec.bytes().take_while(|&b| b == b'.').count();
    let rest = &spec[dots..];
    if rest.split('.').any(|p| p.is_empty()) && !rest.is_empty() {
        return None;
    }
    let rel_path = rest.replace('.', "/");
    if dots > 0 {
        let mut base = dir(from).to_owned();
        for _ in 1..dots {
            base = join(&base, "..")?;
        }
        return probe_python(&base, &rel_path, exists);
    }
    let mut ancestor = Some(dir(from).to_owned());
    while let Some(a) = ancestor {
        // Absolute imports start from a directory on `sys.path`, never from inside a
        // package: `import json` in `flask/json/provider.py` is the standard library's,
        // not `flask/json/`. A directory holding an `__init__.py` is a package.
        let package = !a.is_empty()
            && (exists(&format!("{a}/__init__.py")) || exists(&format!("{a}/__init__.pyi")));
        if !package && let Some(found) = probe_python(&a, &rel_path, exists) {
            return Some(found);
        }
        ancestor = if a.is_empty() {
            None
        } else {
            Some(dir(&a).to_owned())
        };
    }
    // A `src/` layout seen from outside it (`tests/` importing the package).
    probe_python("src", &rel_path, exists).filter(|_| !rel_path.is_empty())
}

fn probe_python(base: &str, rel: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    let path = match (base.is_empty(), rel.is_empty()) {
        (_, true) => base.to_owned(),
        (true, false) => rel.to_owned(),
        (false, false) => format!("{base}/{rel}"),
    };
    let prefix = if path.is_empty() {
        String::new()
    } else {
        format!("{path}/")
    };
    let mut candidates = vec![
        format!("{prefix}__init__.py"),
        format!("{prefix}__init__.pyi"),
    ];
    if !rel.is_empty() {
        candidates.insert(0, format!("{path}.py"));
        candidates.insert(1, format!("{path}.pyi"));
    }
    candidates.into_iter().find(|c| exists(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set<'a>(files: &'a [&'a str]) -> impl Fn(&str) -> bool + 'a {
        move |p: &str| files.contains(&p)
    }

    #[test]
    fn script_specifiers_probe_extensions_index_files_and_js_for_ts() {
        let files = [
            "src/db.ts",
            "src/util/index.ts",
            "src/view.tsx",
            "src/old.js",
            "lib/a.mts",
        ];
        let exists = set(&files);
        let project = Project::default();
        let r = |from, spec| script_module(from, spec, &project, &exists);
        assert_eq!(r("src/api.ts", "./db").as_deref(), Some("src/db.ts"));
        assert_eq!(r("src/api.ts", "./db.js").as_deref(), Some("src/db.ts"));
        assert_eq!(r("src/api.ts", "./db.ts").as_deref(), Some("src/db.ts"));
        assert_eq!(
            r("src/api.ts", "./util").as_deref(),
            Some("src/util/index.ts")
        );
        assert_eq!(r("src/a/b.ts", "../view").as_deref(), Some("src/view.tsx"));
        assert_eq!(r("src/api.ts", "./old").as_deref(), Some("src/old.js"));
        assert_eq!(r("src/x.ts", "../lib/a.mjs").as_deref(), Some("lib/a.mts"));
        assert_eq!(r("src/api.ts", "react"), None);
        assert_eq!(r("src/api.ts", "../../../etc/passwd"), None);
        assert_eq!(r("src/api.ts", "./missing"), None);
    }

    #[test]
    fn tsconfig_paths_and_base_url_with_comments_and_trailing_commas() {
        let ts = TsPaths::parse(
            r#"{
              // comment
              "compilerOptions": {
                "baseUrl": "./src", /* block */
                "paths": { "@app/*": ["app/*", "fallback/*"], "config": ["cfg/index.ts"], },
              },
            }"#,
        );
        let files = [
            "src/app/db.ts",
            "src/fallback/x.ts",
            "src/cfg/index.ts",
            "src/lib.ts",
        ];
        let exists = set(&files);
        let mut project = Project::default();
        project.fallback = ts;
        let r = |spec| script_module("src/a.ts", spec, &project, &exists);
        assert_eq!(r("@app/db").as_deref(), Some("src/app/db.ts"));
        assert_eq!(r("@app/x").as_deref(), Some("src/fallback/x.ts"));
        assert_eq!(r("config").as_deref(), Some("src/cfg/index.ts"));
        assert_eq!(r("lib").as_deref(), Some("src/lib.ts"));
        assert_eq!(r("nope"), None);
        assert!(TsPaths::parse("not json").candidates("x").is_empty());
    }

    #[test]
    fn python_relative_absolute_packages_and_src_layouts() {
        let files = [
            "src/flask/__init__.py",
            "src/flask/app.py",
            "src/flask/json/__init__.py",
            "src/flask/json/tag.py",
            "tests/test_app.py",
            "conftest.py",
        ];
        let exists = set(&files);
        let r = |from, spec| python_module(from, spec, &exists);
        assert_eq!(
            r("src/flask/app.py", ".json").as_deref(),
            Some("src/flask/json/__init__.py")
        );
        assert_eq!(
            r("src/flask/json/tag.py", "..app").as_deref(),
            Some("src/flask/app.py")
        );
        assert_eq!(
            r("src/flask/json/tag.py", ".").as_deref(),
            Some("src/flask/json/__init__.py")
        );
        assert_eq!(
            r("src/flask/app.py", "flask.json.tag").as_deref(),
            Some("src/flask/json/tag.py")
        );
        assert_eq!(
            r("src/flask/app.py", "conftest").as_deref(),
            Some("conftest.py")
        );
        assert_eq!(r("tests/test_app.py", "os"), None);
        // Not from inside a package: `json` in flask's own `json` package is the
        // standard library's.
        assert_eq!(r("src/flask/json/tag.py", "json"), None);
        assert_eq!(r("src/flask/app.py", "json"), None);
        assert_eq!(
            r("tests/test_app.py", "flask.app").as_deref(),
            Some("src/flask/app.py")
        );
        assert_eq!(r("src/flask/app.py", "....x"), None);
    }
}
