//! The [`LineMerge`] that runs git (feature `git`; the rest of the crate runs nothing):
//! `git merge-file -p` on files in a private temp directory, in the repository, so that
//! `merge.conflictStyle` applies as in git's own merge. The merge driver uses it, and so
//! can any process that has a git at hand (the conflict forecast).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::line::{LineMerge, LineMerged, MarkerStyle, Markers};

/// Runs `git merge-file` with the histogram diff, the algorithm git's `ort` merge uses,
/// so that a file git merges cleanly merges the same here.
pub struct GitMergeFile {
    cwd: PathBuf,
    dir: tempfile::TempDir,
    /// Whether this git knows `--diff-algorithm` (2.43 and later); learnt on first use.
    histogram: bool,
    /// Whether the user's and the system's git configuration are left out.
    isolated: bool,
}

impl GitMergeFile {
    /// A merger running git in `cwd` (with its configuration: the conflict style).
    pub fn new(cwd: &Path) -> std::io::Result<GitMergeFile> {
        Ok(GitMergeFile {
            cwd: cwd.to_owned(),
            dir: tempfile::Builder::new().prefix("wit-merge-").tempdir()?,
            histogram: true,
            isolated: false,
        })
    }

    /// The same, without the user's and the system's git configuration (tests,
    /// measurements: git's defaults, whatever the machine says).
    pub fn isolated(mut self) -> GitMergeFile {
        self.isolated = true;
        self
    }

    fn write(&self, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
        let path = self.dir.path().join(name);
        std::fs::File::create(&path)?.write_all(bytes)?;
        Ok(path)
    }

    fn run(
        &self,
        [base, ours, theirs]: [&Path; 3],
        markers: &Markers,
        style: MarkerStyle,
    ) -> std::io::Result<std::process::Output> {
        let mut cmd = Command::new("git");
        if self.isolated {
            cmd.env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_CONFIG_NOSYSTEM", "1");
        }
        cmd.args(["merge-file", "-p"]);
        if self.histogram {
            cmd.arg("--diff-algorithm=histogram");
        }
        if style == MarkerStyle::Diff3 {
            cmd.arg("--diff3");
        }
        cmd.arg(format!("--marker-size={}", markers.size))
            .args([
                "-L",
                &markers.ours,
                "-L",
                &markers.base,
                "-L",
                &markers.theirs,
            ])
            .arg(ours)
            .arg(base)
            .arg(theirs)
            .current_dir(&self.cwd)
            .stdin(Stdio::null())
            .output()
    }
}

impl LineMerge for GitMergeFile {
    type Error = String;

    fn merge(
        &mut self,
        base: &[u8],
        ours: &[u8],
        theirs: &[u8],
        markers: &Markers,
        style: MarkerStyle,
    ) -> Result<LineMerged, String> {
        let io = |e: std::io::Error| format!("git merge-file: {e}");
        let files = [
            self.write("base", base).map_err(io)?,
            self.write("ours", ours).map_err(io)?,
            self.write("theirs", theirs).map_err(io)?,
        ];
        let files = [files[0].as_path(), files[1].as_path(), files[2].as_path()];
        let mut out = self.run(files, markers, style).map_err(io)?;
        if self.histogram && out.status.code() == Some(129) {
            // An older git: its default diff algorithm, the one its merges use too.
            self.histogram = false;
            out = self.run(files, markers, style).map_err(io)?;
        }
        match out.status.code() {
            // 0: clean; 1‥127: the number of conflicts (git caps it at 127).
            Some(n @ 0..=127) => Ok(LineMerged {
                text: out.stdout,
                conflicts: n as usize,
            }),
            _ => Err(format!(
                "git merge-file failed: {}",
                wit_core::text::escape(String::from_utf8_lossy(&out.stderr).trim())
            )),
        }
    }
}
