//! `wit-merge`: a three-way merge of one file, definition by definition.
//!
//! git merges lines: two agents changing two different functions of one file collide
//! when the changes are on adjacent lines (the last line of one function and the first
//! of the next, one-line functions one under the other), or when both add a function at
//! the end of the file. This crate merges such files the way their authors meant them:
//!
//! - git's own merge goes first: a file git merges cleanly is left exactly as git merged
//!   it, so the driver only ever changes the outcome of files git stops on;
//! - otherwise each version is cut into its definitions (the analyses the rest of wit
//!   uses) and the lines between them, and definitions changed, added or removed on
//!   different sides are merged; the text outside the definitions is merged by git's line
//!   merge; a definition changed on both sides is merged by git's line merge of its own
//!   three versions, then (when that stops) the same way one level down — methods of a
//!   class changed on different sides merge too; what git cannot merge there keeps git's
//!   conflict markers;
//! - a definition deleted on one side and changed on the other is a conflict, never a
//!   silent deletion; two definitions added at one place are both kept, ours first;
//! - nothing is lost: the result holds every definition each side added or changed,
//!   and the bytes of everything untouched are the files' own. When that cannot be made
//!   to hold (a definition moved on one side next to text the other changed, moved
//!   differently on both, a version that does not parse cleanly), the file is merged by
//!   git's line merge alone, as if the driver were not there.
//!
//! Pure: the caller runs git through [`LineMerge`] (`git merge-file`) and reads the
//! files; the feature `git` adds the implementation that runs it (`GitMergeFile`).
//! [`merge_blobs`] is what a merge driver needs (three file contents, the analyzers);
//! [`merge`] the same over analyses already made. Both answer "would this file merge
//! cleanly with wit's driver?" ([`Merged::is_clean`]); [`merges_cleanly`] answers only
//! that, for a file the caller has seen git's line merge stop on; [`driver`] says whether
//! git runs wit's driver for a path.

mod blobs;
pub mod driver;
#[cfg(any(test, feature = "git"))]
mod git;
mod level;
mod line;
mod merged;
mod place;
mod skeleton;
mod stretch;
mod units;

pub use blobs::{merge_blobs, merges_cleanly};
#[cfg(any(test, feature = "git"))]
pub use git::GitMergeFile;
pub use line::{LineMerge, LineMerged, MarkerStyle, Markers};
pub use merged::{Conflict, ConflictKind, Fallback, Merged, Method, Version};

use wit_core::Analysis;

use crate::level::{Failed, Merger, Side};
use crate::units::Def;

/// One version of the file: its text and its analysis.
#[derive(Debug, Clone, Copy)]
pub struct Analysed<'a> {
    /// The text.
    pub text: &'a str,
    /// Its analysis, by the analyzer wit uses for the file.
    pub analysis: &'a Analysis,
}

/// The 1-based line of byte `at` of `text`.
pub(crate) fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Merges `ours` and `theirs` from `base`, definition by definition where git's line
/// merge stops (see the crate docs). `markers` label the conflicts git's line merge
/// leaves; `git` runs it.
///
/// # Errors
/// Only `git`'s: a conflict is a result, not an error.
pub fn merge<M: LineMerge>(
    base: Analysed<'_>,
    ours: Analysed<'_>,
    theirs: Analysed<'_>,
    markers: &Markers,
    git: &mut M,
) -> Result<Merged, M::Error> {
    let texts = [base.text, ours.text, theirs.text].map(str::as_bytes);
    match git_first(texts, markers, git)? {
        Ok(merged) => Ok(merged),
        Err(first) => by_definitions([base, ours, theirs], first, markers, git),
    }
}

/// git's line merge of `[base, ours, theirs]`: `Ok` with it as the result when it is
/// clean, `Err` with it when it stopped.
pub(crate) fn git_first<M: LineMerge>(
    [base, ours, theirs]: [&[u8]; 3],
    markers: &Markers,
    git: &mut M,
) -> Result<Result<Merged, LineMerged>, M::Error> {
    let first = git.merge(base, ours, theirs, markers, MarkerStyle::AsConfigured)?;
    Ok(if first.conflicts == 0 {
        Ok(Merged {
            text: first.text,
            conflicts: Vec::new(),
            method: Method::Git,
        })
    } else {
        Err(first)
    })
}

/// The merge by definitions of three versions git's line merge (`first`) stopped on;
/// `first` when it cannot be made.
pub(crate) fn by_definitions<M: LineMerge>(
    versions: [Analysed<'_>; 3],
    first: LineMerged,
    markers: &Markers,
    git: &mut M,
) -> Result<Merged, M::Error> {
    let merged = definitions(versions, markers, Answer::Merge, git)?;
    Ok(merged.unwrap_or_else(|why| Merged::by_git(first, why)))
}

/// What a merge by definitions is asked for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// The merged file.
    Merge,
    /// Only whether it is clean: the merge ends at its first conflict, and a
    /// [`Merged`] with conflicts has no text.
    Clean,
}

/// The merge by definitions of three versions, or why it cannot be made (the caller then
/// keeps git's line merge of the whole file).
pub(crate) fn definitions<M: LineMerge>(
    versions: [Analysed<'_>; 3],
    markers: &Markers,
    answer: Answer,
    git: &mut M,
) -> Result<Result<Merged, Fallback>, M::Error> {
    let names = [Version::Base, Version::Ours, Version::Theirs];
    for (v, version) in versions.iter().zip(names) {
        if let Some(at) = v.analysis.syntax_error {
            let line = line_of(v.text, at);
            return Ok(Err(Fallback::SyntaxError { version, line }));
        }
    }
    let sides = versions.map(|v| Side {
        text: v.text,
        defs: Def::of_symbols(&v.analysis.symbols),
    });
    let mut merger = Merger {
        git,
        markers,
        until_conflict: answer == Answer::Clean,
    };
    let merged = |conflicts: Vec<Conflict>, text: Vec<u8>| Merged {
        text,
        conflicts,
        method: Method::Definitions,
    };
    match merger.units(&sides) {
        Ok(level) => Ok(Ok(merged(level.conflicts, level.text.into_bytes()))),
        Err(Failed::Git(e)) => Err(e),
        Err(Failed::Unfit(why)) => Ok(Err(Fallback::Unfit(why.0))),
        // Asked only whether it is clean: the first conflict, and no text.
        Err(Failed::Conflicted(first)) => Ok(Ok(merged(vec![first], Vec::new()))),
    }
}

#[cfg(test)]
mod tests;
