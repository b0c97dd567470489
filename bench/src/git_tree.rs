//! What the evaluation binaries (`forecast-eval`, `claims-eval`, `graph-eval`) share about
//! git: one file of a tree as `git ls-tree -r -l -z` lists it, and `git` without the
//! machine's configuration.

use anyhow::{Context, Result, bail};

/// Mode of a symlink entry (its blob is the link target, not a file to analyse).
pub const SYMLINK: &str = "120000";
/// Mode of a submodule entry (a commit id, no blob).
pub const SUBMODULE: &str = "160000";

/// One file of the tree (`git ls-tree -r -l`).
#[derive(Debug, Clone)]
pub struct TreeEntry {
    /// `100644`, `100755`, [`SYMLINK`] or [`SUBMODULE`].
    pub mode: String,
    /// The blob id.
    pub oid: String,
    /// Size in bytes (none for a submodule).
    pub size: Option<u64>,
    /// Repository-relative path.
    pub path: String,
}

impl TreeEntry {
    /// A regular file (not a symlink or a submodule).
    pub fn is_regular(&self) -> bool {
        self.mode != SYMLINK && self.mode != SUBMODULE
    }
}

/// `<mode> SP <type> SP <oid> SP+ <size> TAB <path> NUL`, for every entry.
pub fn parse_ls_tree(out: &[u8]) -> Result<Vec<TreeEntry>> {
    let mut entries = Vec::new();
    for record in out.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        // A path that is not UTF-8 cannot be a repository-relative `&str` path of the
        // graph: the daemon leaves it out, and so does the evaluation.
        let Ok(record) = std::str::from_utf8(record) else {
            continue;
        };
        let (meta, path) = record.split_once('\t').context("ls-tree: no tab")?;
        let mut fields = meta.split_whitespace();
        let (Some(mode), Some(_kind), Some(oid), Some(size)) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            bail!("ls-tree: short record {record:?}");
        };
        entries.push(TreeEntry {
            mode: mode.to_owned(),
            oid: oid.to_owned(),
            size: size.parse().ok(),
            path: path.to_owned(),
        });
    }
    Ok(entries)
}

/// `git` with the user's and the system's configuration left out, so that no local
/// setting (a diff algorithm, a conflict style, rename limits) changes what is measured.
pub fn base_command() -> std::process::Command {
    let mut c = std::process::Command::new("git");
    c.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("LC_ALL", "C")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    c
}
