//! The project's configuration files as module resolution reads them: every directory's
//! `tsconfig.json` (or `jsconfig.json`) with its `extends` chain, and the repository's
//! packages by their `package.json` `name` — the workspace packages that `npm install`
//! would link into `node_modules`, so that `import { x } from '@org/util'` reaches
//! `packages/util`'s entry point through its `exports`, `types` or `main`.
//!
//! Everything here is parsed from texts the caller hands in ([`Project::set`]); nothing
//! is read from the disk. A configuration that does not parse counts as absent, so a
//! broken file costs resolution through it and nothing else.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::Value;

use crate::paths::{dir, join, strip_jsonc};

/// Whether `path` is a configuration file module resolution reads: `package.json`,
/// `jsconfig.json` and `tsconfig*.json`, in any directory.
pub fn is_config_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == "package.json"
        || name == "jsconfig.json"
        || (name.starts_with("tsconfig") && name.ends_with(".json"))
}

/// The compiler options of a `tsconfig.json` that change how specifiers resolve, with
/// its `extends` chain applied (see `project.rs`).
#[derive(Debug, Clone, Default)]
pub struct TsPaths {
    /// `baseUrl`, relative to the repository root (`""` for the root itself).
    pub(crate) base_url: Option<String>,
    /// `paths`: pattern (at most one `*`) to substitutions, in file order.
    pub(crate) paths: Vec<(String, Vec<String>)>,
    /// The directory `paths` are relative to when there is no `baseUrl`: that of the
    /// configuration file that set them.
    pub(crate) paths_base: String,
    /// `customConditions`: `exports` conditions tried first.
    pub(crate) conditions: Vec<String>,
}

impl TsPaths {
    /// Reads a root `tsconfig.json` (JSON with comments and trailing commas, as
    /// TypeScript accepts it), without following `extends`. Anything unreadable gives no
    /// aliases rather than an error: the graph then resolves relative specifiers only.
    pub fn parse(tsconfig: &str) -> Self {
        let raw = parse_tsconfig(tsconfig);
        Self {
            base_url: raw.base_url.and_then(|b| join("", &b)),
            paths: raw.paths.unwrap_or_default(),
            paths_base: String::new(),
            conditions: raw.custom_conditions.unwrap_or_default(),
        }
    }

    /// Candidate paths (relative to the root, before extension probing) for a
    /// non-relative specifier.
    pub(crate) fn candidates(&self, spec: &str) -> Vec<String> {
        // `paths` are relative to `baseUrl`, or to the tsconfig that set them without it.
        let base = self.base_url.as_deref().unwrap_or(&self.paths_base);
        let mut out = Vec::new();
        for (pattern, subs) in &self.paths {
            let star = match pattern.split_once('*') {
                Some((pre, post)) => spec
                    .strip_prefix(pre)
                    .and_then(|rest| rest.strip_suffix(post))
                    .map(Some),
                None => (pattern == spec).then_some(None),
            };
            let Some(star) = star else { continue };
            for sub in subs {
                let filled = match star {
                    Some(s) => sub.replacen('*', s, 1),
                    None => sub.clone(),
                };
                if let Some(p) = join(base, &filled) {
                    out.push(p);
                }
            }
        }
        if let Some(base) = &self.base_url
            && let Some(p) = join(base, spec)
        {
            out.push(p);
        }
        out
    }
}

/// Most `extends` links followed from one configuration (cycles end there too).
const EXTENDS_MAX: usize = 8;

/// The configuration files of the repository.
#[derive(Debug, Default, Clone)]
pub(crate) struct Project {
    /// `tsconfig*.json` / `jsconfig.json` by path.
    tsconfigs: HashMap<String, RawTsConfig>,
    /// `package.json` by path.
    packages: BTreeMap<String, Package>,
    /// Package name → the directories of the packages with that name, shallowest first.
    by_name: HashMap<String, Vec<String>>,
    /// Paths set through the older single-file interface (`Graph::set_ts_paths`), used
    /// where no `tsconfig.json` or `jsconfig.json` applies.
    pub(crate) fallback: TsPaths,
}

/// One `tsconfig.json` as written: its own options, before `extends` is applied.
#[derive(Debug, Clone, Default)]
struct RawTsConfig {
    extends: Vec<String>,
    base_url: Option<String>,
    paths: Option<Vec<(String, Vec<String>)>>,
    custom_conditions: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TsConfigFile {
    #[serde(default)]
    extends: Option<Value>,
    #[serde(default)]
    compiler_options: Option<CompilerOptions>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CompilerOptions {
    #[serde(default)]
    base_url: Option<String>,
    #[serde(default)]
    paths: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    custom_conditions: Option<Vec<String>>,
}

/// One `package.json`: its name and entry points.
#[derive(Debug, Clone, Default, Deserialize)]
struct Package {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    exports: Option<Value>,
    #[serde(default)]
    types: Option<String>,
    #[serde(default)]
    typings: Option<String>,
    #[serde(default)]
    module: Option<String>,
    #[serde(default)]
    main: Option<String>,
}

/// The `exports` conditions tried, in this order. Every one whose target is an indexed
/// file will do: the graph wants the source of the package, and `types` (often the
/// source itself in a workspace) comes first as TypeScript has it.
const CONDITIONS: &[&str] = &[
    "types", "typings", "import", "require", "node", "module", "default", "source",
];

impl Project {
    /// Sets (`Some`) or forgets (`None`) the configuration file at `path`; whether
    /// anything resolution reads changed.
    pub(crate) fn set(&mut self, path: &str, text: Option<&str>) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        if name == "package.json" {
            self.set_package(path, text.and_then(parse_package));
            true
        } else if is_config_file(path) {
            match text.map(parse_tsconfig) {
                Some(raw) => self.tsconfigs.insert(path.to_owned(), raw),
                None => self.tsconfigs.remove(path),
            };
            true
        } else {
            false
        }
    }

    /// The paths of every configuration file set.
    pub(crate) fn paths(&self) -> impl Iterator<Item = &str> {
        self.tsconfigs
            .keys()
            .chain(self.packages.keys())
            .map(String::as_str)
    }

    /// Whether the configuration file at `path` is set.
    pub(crate) fn has(&self, path: &str) -> bool {
        self.tsconfigs.contains_key(path) || self.packages.contains_key(path)
    }

    fn set_package(&mut self, path: &str, package: Option<Package>) {
        let pkg_dir = dir(path).to_owned();
        if let Some(old) = self.packages.remove(path)
            && let Some(name) = old.name
            && let Some(dirs) = self.by_name.get_mut(&name)
        {
            dirs.retain(|d| d != &pkg_dir);
            if dirs.is_empty() {
                self.by_name.remove(&name);
            }
        }
        let Some(package) = package else { return };
        if let Some(name) = package.name.clone().filter(|n| valid_package_name(n)) {
            let dirs = self.by_name.entry(name).or_default();
            dirs.push(pkg_dir);
            // Shallowest first: a fixture or example copy of a package deeper in the tree
            // loses to the package itself.
            dirs.sort_by_key(|d| (d.matches('/').count(), d.clone()));
        }
        self.packages.insert(path.to_owned(), package);
    }

    /// The effective `baseUrl` and `paths` for a file in `from_dir`: those of the nearest
    /// `tsconfig.json` (or `jsconfig.json`) above it, its `extends` chain applied; else
    /// the fallback.
    pub(crate) fn ts_paths(&self, from_dir: &str) -> TsPaths {
        let mut d = Some(from_dir.to_owned());
        while let Some(cur) = d {
            for name in ["tsconfig.json", "jsconfig.json"] {
                let p = if cur.is_empty() {
                    name.to_owned()
                } else {
                    format!("{cur}/{name}")
                };
                if self.tsconfigs.contains_key(&p) {
                    return self.effective(&p, 0);
                }
            }
            d = (!cur.is_empty()).then(|| dir(&cur).to_owned());
        }
        self.fallback.clone()
    }

    /// The options of the configuration at `path` with its `extends` chain applied: each
    /// base in order, then the file's own options over them (TypeScript's rule). A
    /// relative `baseUrl` is relative to the file that sets it, and so are `paths`
    /// without a `baseUrl`.
    fn effective(&self, path: &str, depth: usize) -> TsPaths {
        let Some(raw) = self.tsconfigs.get(path) else {
            return TsPaths::default();
        };
        let mut out = TsPaths::default();
        if depth < EXTENDS_MAX {
            for base in &raw.extends {
                if let Some(base_path) = self.extends_target(path, base) {
                    let inherited = self.effective(&base_path, depth + 1);
                    if inherited.base_url.is_some() {
                        out.base_url = inherited.base_url;
                    }
                    if !inherited.paths.is_empty() {
                        out.paths = inherited.paths;
                        out.paths_base = inherited.paths_base;
                    }
                    if !inherited.conditions.is_empty() {
                        out.conditions = inherited.conditions;
                    }
                }
            }
        }
        let here = dir(path);
        if let Some(b) = &raw.base_url {
            out.base_url = join(here, b);
        }
        if let Some(paths) = &raw.paths {
            out.paths = paths.clone();
            out.paths_base = here.to_owned();
        }
        if let Some(c) = &raw.custom_conditions {
            out.conditions = c.clone();
        }
        out
    }

    /// The configuration file an `extends` entry of `from` names: a relative path (with
    /// or without `.json`), or a package of the repository (its `tsconfig.json`, or the
    /// file named after the package).
    fn extends_target(&self, from: &str, spec: &str) -> Option<String> {
        let relative = spec.starts_with("./") || spec.starts_with("../");
        let bases: Vec<String> = if relative {
            join(dir(from), spec).into_iter().collect()
        } else {
            let (name, sub) = split_package(spec)?;
            self.by_name
                .get(name)
                .into_iter()
                .flatten()
                .filter_map(|d| {
                    if sub.is_empty() {
                        join(d, "tsconfig.json")
                    } else {
                        join(d, sub)
                    }
                })
                .collect()
        };
        bases.into_iter().find_map(|b| {
            if self.tsconfigs.contains_key(&b) {
                Some(b)
            } else {
                let with = format!("{b}.json");
                self.tsconfigs.contains_key(&with).then_some(with)
            }
        })
    }

    /// Candidate paths (before extension probing) for a package specifier (`pkg`,
    /// `@scope/pkg`, `pkg/sub/path`) naming a package of the repository. With an
    /// `exports` field only what it exports is reachable (Node's rule); without one, the
    /// package root goes through `types`, `typings`, `module`, `main` and then its index
    /// file, and a subpath is a path inside the package.
    ///
    /// `conditions` are the importing project's `customConditions`, tried before the
    /// usual ones (a workspace often points its source at a condition of its own, such as
    /// `"@org/source": "./src/index.ts"`); then every other condition of the entry, since
    /// any of them that names a file of the repository is that package's code.
    pub(crate) fn package_candidates(&self, spec: &str, conditions: &[String]) -> Vec<String> {
        let Some((name, sub)) = split_package(spec) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for pkg_dir in self.by_name.get(name).into_iter().flatten() {
            let manifest = if pkg_dir.is_empty() {
                "package.json".to_owned()
            } else {
                format!("{pkg_dir}/package.json")
            };
            let Some(pkg) = self.packages.get(&manifest) else {
                continue;
            };
            if let Some(exports) = &pkg.exports {
                let key = if sub.is_empty() {
                    ".".to_owned()
                } else {
                    format!("./{sub}")
                };
                out.extend(
                    export_targets(exports, &key, conditions)
                        .iter()
                        .filter_map(|t| join(pkg_dir, t)),
                );
                continue;
            }
            if sub.is_empty() {
                let fields = [&pkg.types, &pkg.typings, &pkg.module, &pkg.main];
                out.extend(
                    fields
                        .into_iter()
                        .flatten()
                        .filter_map(|f| join(pkg_dir, f)),
                );
                out.push(pkg_dir.clone());
            } else if let Some(p) = join(pkg_dir, sub) {
                out.push(p);
            }
        }
        out
    }
}

/// `(name, subpath)` of a bare package specifier: `@scope/name/a/b` → (`@scope/name`,
/// `a/b`); `name/a` → (`name`, `a`).
fn split_package(spec: &str) -> Option<(&str, &str)> {
    let split_at = if spec.starts_with('@') {
        let first = spec.find('/')?;
        spec[first + 1..].find('/').map(|i| first + 1 + i)
    } else {
        spec.find('/')
    };
    let (name, sub) = match split_at {
        Some(i) => (&spec[..i], &spec[i + 1..]),
        None => (spec, ""),
    };
    valid_package_name(name).then_some((name, sub))
}

/// A name npm would accept, roughly: no empty part, no `.`/`..`, no spaces or backslashes.
/// Anything else in a `package.json` is ignored, so a planted name cannot take over
/// relative-looking specifiers.
fn valid_package_name(name: &str) -> bool {
    let parts: Vec<&str> = name.split('/').collect();
    let ok_part = |p: &str| {
        !p.is_empty() && p != "." && p != ".." && !p.chars().any(|c| c.is_whitespace() || c == '\\')
    };
    match parts.as_slice() {
        [one] => ok_part(one) && !one.starts_with('@') && !one.starts_with('.'),
        [scope, one] => scope.starts_with('@') && scope.len() > 1 && ok_part(scope) && ok_part(one),
        _ => false,
    }
}

/// The targets `exports` gives the subpath `key` (`.` or `./sub`), relative to the
/// package, in condition order: an exact subpath first, else the longest matching `*`
/// pattern with the star filled in.
fn export_targets(exports: &Value, key: &str, custom: &[String]) -> Vec<String> {
    let subpaths = match exports {
        Value::Object(map) if map.keys().any(|k| k.starts_with('.')) => map,
        // A string, an array or a conditions object: the package root's entry.
        other => {
            return if key == "." {
                conditions(other, None, custom)
            } else {
                Vec::new()
            };
        }
    };
    if let Some(v) = subpaths.get(key) {
        return conditions(v, None, custom);
    }
    let mut best: Option<(&str, &Value, &str)> = None;
    for (pattern, v) in subpaths {
        let Some((pre, post)) = pattern.split_once('*') else {
            continue;
        };
        if let Some(star) = key
            .strip_prefix(pre)
            .and_then(|rest| rest.strip_suffix(post))
            && best.is_none_or(|(p, _, _)| pattern.len() > p.len())
        {
            best = Some((pattern, v, star));
        }
    }
    best.map_or_else(Vec::new, |(_, v, star)| conditions(v, Some(star), custom))
}

/// The target paths of one `exports` value: a string, an array of alternatives, or an
/// object of conditions (nested ones too): `custom` ones first, then [`CONDITIONS`], then
/// any other; `null` excludes.
fn conditions(v: &Value, star: Option<&str>, custom: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    collect_conditions(v, star, custom, 0, &mut out);
    out
}

fn collect_conditions(
    v: &Value,
    star: Option<&str>,
    custom: &[String],
    depth: usize,
    out: &mut Vec<String>,
) {
    if depth > 8 {
        return;
    }
    match v {
        Value::String(s) => {
            let filled = match star {
                Some(st) => s.replace('*', st),
                None => s.clone(),
            };
            if !out.contains(&filled) {
                out.push(filled);
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_conditions(item, star, custom, depth + 1, out);
            }
        }
        Value::Object(map) => {
            let known = custom
                .iter()
                .map(String::as_str)
                .chain(CONDITIONS.iter().copied());
            let rest = map
                .keys()
                .map(String::as_str)
                .filter(|k| !custom.iter().any(|c| c == k) && !CONDITIONS.contains(k));
            for cond in known.chain(rest) {
                if let Some(inner) = map.get(cond) {
                    collect_conditions(inner, star, custom, depth + 1, out);
                }
            }
        }
        _ => {}
    }
}

fn parse_tsconfig(text: &str) -> RawTsConfig {
    let Ok(file) = serde_json::from_str::<TsConfigFile>(&strip_jsonc(text)) else {
        return RawTsConfig::default();
    };
    let extends = match file.extends {
        Some(Value::String(s)) => vec![s],
        Some(Value::Array(items)) => items
            .into_iter()
            .filter_map(|i| i.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let (base_url, paths, custom_conditions) = match file.compiler_options {
        Some(o) => (o.base_url, o.paths.map(paths_of), o.custom_conditions),
        None => (None, None, None),
    };
    RawTsConfig {
        extends,
        base_url,
        paths,
        custom_conditions,
    }
}

/// `paths` as (pattern, substitutions) pairs.
pub(crate) fn paths_of(map: serde_json::Map<String, Value>) -> Vec<(String, Vec<String>)> {
    map.into_iter()
        .map(|(pattern, targets)| {
            let subs = targets
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t.as_str().map(str::to_owned))
                .collect();
            (pattern, subs)
        })
        .collect()
}

fn parse_package(text: &str) -> Option<Package> {
    serde_json::from_str(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Project {
        fn package_candidates_plain(&self, spec: &str) -> Vec<String> {
            self.package_candidates(spec, &[])
        }
    }

    #[test]
    fn package_specifiers_split_and_bad_names_are_refused() {
        assert_eq!(split_package("@a/b/c/d"), Some(("@a/b", "c/d")));
        assert_eq!(split_package("@a/b"), Some(("@a/b", "")));
        assert_eq!(split_package("lodash/fp"), Some(("lodash", "fp")));
        assert_eq!(split_package("@a"), None);
        assert_eq!(split_package(".hidden"), None);
        assert!(!valid_package_name("../evil"));
        assert!(!valid_package_name("a b"));
    }

    #[test]
    fn exports_subpaths_patterns_and_conditions() {
        let exports: Value = serde_json::from_str(
            r#"{
              ".": { "types": "./src/index.ts", "import": "./dist/index.mjs", "default": "./dist/index.js" },
              "./utils": "./src/utils.ts",
              "./*": { "import": "./src/*.ts" },
              "./internal/*": null
            }"#,
        )
        .unwrap();
        assert_eq!(
            export_targets(&exports, ".", &[]),
            ["./src/index.ts", "./dist/index.mjs", "./dist/index.js"]
        );
        assert_eq!(export_targets(&exports, "./utils", &[]), ["./src/utils.ts"]);
        assert_eq!(export_targets(&exports, "./a/b", &[]), ["./src/a/b.ts"]);
        assert!(export_targets(&exports, "./internal/x", &[]).is_empty());
        let plain = Value::String("./index.js".into());
        assert_eq!(export_targets(&plain, ".", &[]), ["./index.js"]);
        assert!(export_targets(&plain, "./x", &[]).is_empty());
        // A condition of the workspace's own (tsconfig `customConditions`) comes first;
        // one nobody named still comes after the usual ones.
        let own: Value = serde_json::from_str(
            r#"{ ".": { "@org/source": "./src/index.ts", "import": "./dist/index.js", "weird": "./src/alt.ts" } }"#,
        )
        .unwrap();
        let custom = ["@org/source".to_owned()];
        assert_eq!(
            export_targets(&own, ".", &custom),
            ["./src/index.ts", "./dist/index.js", "./src/alt.ts"]
        );
        assert_eq!(
            export_targets(&own, ".", &[]),
            ["./dist/index.js", "./src/index.ts", "./src/alt.ts"]
        );
    }

    #[test]
    fn extends_chains_merge_base_url_and_paths_relative_to_their_files() {
        let mut p = Project::default();
        p.set(
            "tsconfig.base.json",
            Some(r#"{ "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["libs/*/src"] } } }"#),
        );
        p.set(
            "apps/web/tsconfig.json",
            Some(r#"{ "extends": "../../tsconfig.base", "compilerOptions": { "strict": true } }"#),
        );
        p.set(
            "apps/api/tsconfig.json",
            Some(r#"{ "extends": ["../../tsconfig.base.json"], "compilerOptions": { "paths": { "~/*": ["./src/*"] } } }"#),
        );
        let web = p.ts_paths("apps/web/src");
        assert_eq!(web.candidates("@lib/ui"), ["libs/ui/src", "@lib/ui"]);
        let api = p.ts_paths("apps/api/src/routes");
        // Its own `paths` replace the inherited ones, relative to `baseUrl` (the root).
        assert_eq!(api.candidates("~/db"), ["src/db", "~/db"]);
        // A cycle ends.
        p.set(
            "a/tsconfig.json",
            Some(r#"{ "extends": "./tsconfig.json" }"#),
        );
        assert!(p.ts_paths("a").candidates("x").is_empty());
    }

    #[test]
    fn workspace_packages_resolve_through_their_entry_points() {
        let mut p = Project::default();
        p.set(
            "packages/util/package.json",
            Some(r#"{ "name": "@org/util", "exports": { ".": "./src/index.ts", "./fmt": "./src/fmt.ts" } }"#),
        );
        p.set(
            "packages/old/package.json",
            Some(r#"{ "name": "old", "main": "lib/main.js", "types": "lib/main.d.ts" }"#),
        );
        assert_eq!(
            p.package_candidates_plain("@org/util"),
            ["packages/util/src/index.ts"]
        );
        assert_eq!(
            p.package_candidates_plain("@org/util/fmt"),
            ["packages/util/src/fmt.ts"]
        );
        assert!(p.package_candidates_plain("@org/util/src/fmt").is_empty());
        assert_eq!(
            p.package_candidates_plain("old"),
            [
                "packages/old/lib/main.d.ts",
                "packages/old/lib/main.js",
                "packages/old"
            ]
        );
        assert_eq!(
            p.package_candidates_plain("old/lib/x"),
            ["packages/old/lib/x"]
        );
        assert!(p.package_candidates_plain("react").is_empty());
        p.set("packages/old/package.json", None);
        assert!(p.package_candidates_plain("old").is_empty());
    }
}
