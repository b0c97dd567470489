//! A repository's HEAD tree written out into a temporary directory, and the list of what
//! git tracks in it. The repository (a bare mirror or a work tree) is only read.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use wit_bench::git_tree::base_command;
pub use wit_bench::git_tree::{TreeEntry, parse_ls_tree};

/// HEAD's tree on disk.
pub struct Checkout {
    /// Owns the directory: dropped, it is removed.
    _scratch: tempfile::TempDir,
    /// Where the tree is written.
    pub root: PathBuf,
    /// The commit.
    pub head: String,
    /// Every file of the tree, as git lists them.
    pub entries: Vec<TreeEntry>,
}

/// Writes `repository`'s HEAD into a fresh temporary directory: `git archive HEAD | tar -x`,
/// then any regular file the archive left out (an `export-ignore` attribute) from its blob,
/// so that the directory holds exactly what a checkout of HEAD holds.
pub fn checkout(repository: &Path) -> Result<Checkout> {
    let git_dir = git_dir(repository)?;
    let git = |args: &[&str]| -> Result<Vec<u8>> {
        let out = git_command(&git_dir)
            .args(args)
            .output()
            .with_context(|| format!("running git {}", args.join(" ")))?;
        if !out.status.success() {
            bail!(
                "git {} in {}: {}",
                args.join(" "),
                git_dir.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(out.stdout)
    };
    let head = String::from_utf8(git(&["rev-parse", "--verify", "HEAD^{commit}"])?)?
        .trim()
        .to_owned();
    let entries = parse_ls_tree(&git(&["ls-tree", "-r", "-l", "-z", "--full-tree", &head])?)?;

    let scratch = tempfile::Builder::new()
        .prefix("graph-eval-")
        .tempdir()
        .context("a temp directory for the checkout")?;
    let root = scratch.path().join("tree");
    std::fs::create_dir(&root)?;
    let mut archive = git_command(&git_dir)
        .args(["archive", "--format=tar", &head])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("running git archive")?;
    let tar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(&root)
        .stdin(archive.stdout.take().context("git archive's output")?)
        .status()
        .context("running tar")?;
    let archived = archive.wait()?;
    if !archived.success() || !tar.success() {
        bail!("git archive {head} | tar -x failed");
    }
    for e in entries.iter().filter(|e| e.is_regular()) {
        let path = root.join(&e.path);
        if path.symlink_metadata().is_err() {
            let bytes = git(&["cat-file", "blob", &e.oid])?;
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::File::create(&path)?.write_all(&bytes)?;
        }
    }
    Ok(Checkout {
        _scratch: scratch,
        root,
        head,
        entries,
    })
}

/// The git directory of `repository`, bare or not.
fn git_dir(repository: &Path) -> Result<PathBuf> {
    let out = base_command()
        .arg("-C")
        .arg(repository)
        .args(["rev-parse", "--absolute-git-dir"])
        .output()
        .context("running git rev-parse")?;
    if !out.status.success() {
        bail!(
            "{} is not a git repository: {}",
            repository.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(PathBuf::from(String::from_utf8(out.stdout)?.trim()))
}

fn git_command(git_dir: &Path) -> Command {
    let mut c = base_command();
    c.arg("--git-dir").arg(git_dir);
    c
}

/// A short name for a repository path: `/work/.mirror/owner+name/repo` → `owner/name`,
/// `…/name.git` → `name`.
pub fn short_name(path: &Path) -> String {
    let last = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let name = if last == "repo" || last == ".git" {
        path.parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or(last)
    } else {
        last
    };
    name.trim_end_matches(".git").replacen('+', "/", 1)
}
