//! `wit hook merge`: the merge driver git runs for the files wit's analyzers cover (see
//! `wit hook install`), merging definition by definition where git's line merge stops
//! (`wit-merge`).
//!
//! git hands over three files (`%O %A %B`: base, ours, theirs) and takes the result from
//! the second, with exit 0 for a clean merge and non-zero for one with conflict markers.
//! The driver never needs a daemon: it builds the analyzers the daemon would use (the
//! built-ins, and `wit.toml`'s where the repository is trusted) and analyses the three
//! versions itself. Whatever goes wrong on the way (git's merge unrunnable, a file
//! unreadable), the result is git's own line merge when it can be made, and otherwise
//! our version left as it is with a conflict, as git's binary driver does: a merge never
//! loses a side silently.

use std::ffi::OsString;
use std::path::Path;

use wit_core::text::escape;
use wit_merge::{ConflictKind, GitMergeFile, Markers, Merged, Method};

use crate::args::MergeArgs;

/// Exit status for a clean merge, one with conflicts, and one that could not be made.
const CLEAN: u8 = 0;
const CONFLICTS: u8 = 1;
const FAILED: u8 = 2;

/// A label git passed, or `None` when git left the placeholder unreplaced (before 2.44).
fn label(value: &Option<OsString>) -> Option<String> {
    value
        .as_ref()
        .map(|v| v.to_string_lossy().into_owned())
        .filter(|v| !(v.len() == 2 && v.starts_with('%')))
}

/// What the driver prints about a file (nothing for a merge git would have made alike).
fn report(path: &str, merged: &Merged) -> Option<String> {
    let path = escape(path);
    match (&merged.method, merged.is_clean()) {
        (Method::Git, _) => None,
        (Method::Definitions, true) => Some(format!(
            "wit: {path}: merged definition by definition (git's line merge stopped on it)"
        )),
        (Method::Definitions, false) => {
            let what: Vec<String> = merged
                .conflicts
                .iter()
                .map(|c| match (&c.definition, c.kind) {
                    (Some(d), kind) => format!("{} {}", escape(d), kind.as_str()),
                    (None, ConflictKind::Text) => {
                        "text outside definitions changed on both sides".into()
                    }
                    (None, kind) => kind.as_str().to_owned(),
                })
                .collect();
            Some(format!(
                "wit: {path}: merged by definitions; {} conflict(s) left: {}",
                merged.conflicts.len(),
                what.join("; ")
            ))
        }
        (Method::GitBecause(why), false) => Some(format!(
            "wit: {path}: left to git's line merge: {}",
            escape(&why.to_string())
        )),
        (Method::GitBecause(_), true) => None,
    }
}

/// Runs the driver; the exit status git reads.
pub fn run(args: &MergeArgs) -> u8 {
    let read = |p: &OsString| std::fs::read(p);
    let (base, ours, theirs) = match (read(&args.base), read(&args.ours), read(&args.theirs)) {
        (Ok(b), Ok(o), Ok(t)) => (b, o, t),
        (b, o, t) => {
            let e = [b.err(), o.err(), t.err()].into_iter().flatten().next();
            eprintln!(
                "wit: merge driver: cannot read git's files: {}; our version is left as it is, conflicted",
                e.map(|e| e.to_string()).unwrap_or_default()
            );
            return FAILED;
        }
    };
    // Only its extension and messages use it: a name that is not UTF-8 is shown lossily.
    let path = args
        .path
        .as_ref()
        .unwrap_or(&args.ours)
        .to_string_lossy()
        .into_owned();
    let defaults = Markers::default();
    let markers = Markers {
        ours: label(&args.ours_label).unwrap_or(defaults.ours),
        base: label(&args.base_label).unwrap_or(defaults.base),
        theirs: label(&args.theirs_label).unwrap_or(defaults.theirs),
        size: usize::from(args.marker_size),
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let mut git = match GitMergeFile::new(&cwd) {
        Ok(g) => g,
        Err(e) => {
            eprintln!(
                "wit: merge driver: no temp directory for git merge-file: {e}; our version is left as it is, conflicted"
            );
            return FAILED;
        }
    };
    // The repository's analyzers (wit.toml's too, when trusted). git runs drivers at the
    // top of the work tree; without one (a bare repository's `git merge-tree`) the
    // current directory has no wit.toml, so the built-ins alone.
    let root = crate::root::discover().map_or(cwd, |repo| repo.root);
    let analyzers = wit_daemon::analyzers(&root);
    let merged = wit_merge::merge_blobs(
        &path,
        [&base, &ours, &theirs],
        &analyzers.registry,
        analyzers.max_file_bytes,
        &markers,
        &mut git,
    );
    let merged = match merged {
        Ok(m) => m,
        Err(e) => {
            eprintln!(
                "wit: {}: merge driver: {e}; our version is left as it is, conflicted",
                escape(&path)
            );
            return FAILED;
        }
    };
    if let Err(e) = write_result(Path::new(&args.ours), &merged.text) {
        eprintln!(
            "wit: {}: merge driver: writing the result: {e}",
            escape(&path)
        );
        return FAILED;
    }
    if let Some(line) = report(&path, &merged) {
        eprintln!("{line}");
    }
    if merged.is_clean() { CLEAN } else { CONFLICTS }
}

/// Writes the result over git's file for our version (a temp file git made for us).
fn write_result(path: &Path, text: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_git_left_unreplaced_are_no_labels() {
        assert_eq!(label(&Some("%X".into())), None);
        assert_eq!(label(&Some("HEAD".into())), Some("HEAD".to_owned()));
        assert_eq!(label(&None), None);
    }
}
