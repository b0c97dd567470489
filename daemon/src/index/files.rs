//! Which files the repository index holds: what git tracks or would track (`git ls-files
//! -co --exclude-standard`: `.gitignore`d files, build output and `node_modules/` are
//! out), in a supported language, narrowed by `wit.toml` `[graph] include`/`exclude`.

use std::path::Path;
use std::process::{Command, Stdio};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// Most files listed (a bound on memory for absurd trees).
pub(crate) const MAX_FILES: usize = 200_000;

/// `wit.toml` `[graph]` globs plus the rules that always hold.
pub(crate) struct PathFilter {
    include: Option<GlobSet>,
    exclude: GlobSet,
}

impl PathFilter {
    /// The filter of `config`; a glob that does not parse is logged and left out.
    pub(crate) fn new(config: &wit_core::config::GraphConfig) -> Self {
        let build = |globs: &[String]| {
            let mut b = GlobSetBuilder::new();
            for g in globs {
                // `*` stays within one path component, `**` crosses them (as in
                // .gitignore).
                match GlobBuilder::new(g).literal_separator(true).build() {
                    Ok(glob) => {
                        b.add(glob);
                    }
                    Err(e) => tracing::warn!(
                        "wit.toml [graph]: glob {} ignored: {}",
                        wit_core::text::escape(g),
                        wit_core::text::escape(&e.to_string())
                    ),
                }
            }
            b.build().unwrap_or_else(|_| GlobSet::empty())
        };
        Self {
            include: (!config.include.is_empty()).then(|| build(&config.include)),
            exclude: build(&config.exclude),
        }
    }

    /// Whether `rel` may be indexed (before the language check).
    pub(crate) fn allows(&self, rel: &str) -> bool {
        self.allows_config(rel) && self.include.as_ref().is_none_or(|i| i.is_match(rel))
    }

    /// Whether a configuration file module resolution reads (`tsconfig.json`,
    /// `package.json`) may be read at `rel`: the fixed rules and `exclude` apply, but not
    /// `include`, since `include = ["src/**"]` still wants the root `tsconfig.json`.
    pub(crate) fn allows_config(&self, rel: &str) -> bool {
        !(rel.is_empty()
            || rel.starts_with(".git/")
            || rel.starts_with(".wit/")
            || rel.split('/').any(|c| c == "node_modules")
            || self.exclude.is_match(rel))
    }
}

/// `git` for the repository at `root`, with nothing in the repository's own
/// configuration able to run a program (fsmonitor) or page output.
pub(crate) fn git(root: &Path) -> Command {
    wit_boundary::git::command(root)
}

/// The files whose content in the working tree differs from `base`'s (tracked files, and
/// files git does not ignore that it does not track), sorted; `None` when git cannot
/// answer.
pub(crate) fn changed_since(root: &Path, base: &str) -> Option<Vec<String>> {
    let list = |args: &[&str]| {
        let mut cmd = git(root);
        cmd.args(args);
        nul_separated(cmd, usize::MAX)
    };
    let mut names = list(&[
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        base,
        "--",
    ])?;
    names.extend(list(&["ls-files", "-z", "-o", "--exclude-standard"])?);
    names.sort();
    names.dedup();
    Some(names)
}

/// The files of the repository git does not ignore (tracked and untracked), or `None`
/// when git cannot answer (not a repository, no git).
pub(crate) fn git_files(root: &Path, only: &[&str]) -> Option<Vec<String>> {
    let mut cmd = git(root);
    cmd.args(["ls-files", "-z", "-c", "-o", "--exclude-standard", "--"]);
    cmd.args(only);
    nul_separated(cmd, MAX_FILES)
}

/// The paths a `-z` git command prints (at most `max`; a name that is not UTF-8 is left
/// out), or `None` when it fails.
fn nul_separated(mut cmd: Command, max: usize) -> Option<Vec<String>> {
    let out = cmd.output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(
        out.stdout
            .split(|b| *b == 0)
            .filter(|f| !f.is_empty())
            .filter_map(|f| std::str::from_utf8(f).ok())
            .take(max)
            .map(str::to_owned)
            .collect(),
    )
}

/// Whether git ignores `rel` (`false` when git cannot tell).
pub(crate) fn is_ignored(root: &Path, rel: &str) -> bool {
    let mut cmd = git(root);
    cmd.args(["check-ignore", "-q", "--", rel])
        .stdout(Stdio::null());
    cmd.status().is_ok_and(|s| s.code() == Some(0))
}

/// Without git: a walk of the tree that never follows a symlink and skips hidden
/// directories, `node_modules`, `target`, `dist` and `build`.
pub(crate) fn walk_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut dirs = vec![String::new()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let rel = if dir.is_empty() {
                name.clone()
            } else {
                format!("{dir}/{name}")
            };
            if kind.is_dir() {
                if !name.starts_with('.')
                    && !matches!(name.as_str(), "node_modules" | "target" | "dist" | "build")
                {
                    dirs.push(rel);
                }
            } else if kind.is_file() {
                out.push(rel);
                if out.len() >= MAX_FILES {
                    return out;
                }
            }
        }
    }
    out.sort();
    out
}

/// The files to index.
pub(crate) fn list(root: &Path) -> Vec<String> {
    git_files(root, &[]).unwrap_or_else(|| walk_files(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_applies_include_exclude_and_the_fixed_rules() {
        let f = PathFilter::new(&wit_core::config::GraphConfig {
            include: vec!["src/**".into(), "lib/*.py".into()],
            exclude: vec!["src/gen/**".into(), "**/*.d.ts".into()],
        });
        assert!(f.allows("src/a.ts"));
        assert!(f.allows("src/x/y.ts"));
        assert!(f.allows("lib/m.py"));
        assert!(!f.allows("lib/sub/m.py"));
        assert!(!f.allows("src/gen/a.ts"));
        assert!(!f.allows("src/types.d.ts"));
        assert!(!f.allows("other/a.ts"));
        assert!(!f.allows("src/node_modules/x.ts"));
        let open = PathFilter::new(&Default::default());
        assert!(open.allows("a.ts"));
        assert!(!open.allows(".wit/x.ts"));
        assert!(!open.allows("node_modules/react/index.js"));
    }
}
