//! The merge of three file contents, as a merge driver gets them: the analysis of each
//! version by the analyzer wit uses for the path, every reason to leave the file to git's
//! line merge, and a last check that a merge by definitions still parses.

use wit_core::Registry;
use wit_core::analyzer::source_text;

use crate::line::{LineMerge, MarkerStyle, Markers};
use crate::merged::{Fallback, Merged, Method, Version};
use crate::{Analysed, Answer, definitions, line_of};

/// Merges the contents of the file `path` (repository-relative; its extension chooses
/// the analyzer in `registry`): `[base, ours, theirs]`, each at most `max_bytes` long to
/// be analysed (`[analysis] max_file_bytes`). git's line merge goes first, and is the
/// result when it is clean or when the file cannot be merged by definitions (no
/// analyzer, a version too large, not text or not parsing cleanly: [`Method::GitBecause`]
/// says why). A merge by definitions that is clean but does not parse (two sides each
/// adding the last entry of a list that needed a comma between them) is replaced by git's
/// merge too.
///
/// # Errors
/// Only `git`'s: a conflict is a result, not an error.
pub fn merge_blobs<M: LineMerge>(
    path: &str,
    blobs: [&[u8]; 3],
    registry: &Registry,
    max_bytes: u64,
    markers: &Markers,
    git: &mut M,
) -> Result<Merged, M::Error> {
    let first = git.merge(
        blobs[0],
        blobs[1],
        blobs[2],
        markers,
        MarkerStyle::AsConfigured,
    )?;
    if first.conflicts == 0 {
        return Ok(Merged {
            text: first.text,
            conflicts: Vec::new(),
            method: Method::Git,
        });
    }
    let merged = analysed(
        path,
        blobs,
        registry,
        max_bytes,
        markers,
        Answer::Merge,
        git,
    )?;
    Ok(merged.unwrap_or_else(|why| Merged::by_git(first, why)))
}

/// Whether wit's merge driver merges cleanly the contents `[base, ours, theirs]` of
/// `path` that git's line merge is known to stop on: what
/// [`merge_blobs`]`(…).is_clean()` answers, without that line merge of the whole file
/// (the conflict forecast asks this about files it has just seen git stop on), and
/// ending at the first conflict the merge by definitions finds: nothing after it could
/// make the file clean.
///
/// # Errors
/// Only `git`'s (one that a whole merge would meet only after a conflict is not met).
pub fn merges_cleanly<M: LineMerge>(
    path: &str,
    blobs: [&[u8]; 3],
    registry: &Registry,
    max_bytes: u64,
    git: &mut M,
) -> Result<bool, M::Error> {
    let markers = Markers::default();
    let merged = analysed(
        path,
        blobs,
        registry,
        max_bytes,
        &markers,
        Answer::Clean,
        git,
    )?;
    Ok(merged.is_ok_and(|m| m.is_clean()))
}

/// The merge by definitions of the three contents, or why the file is left to git's line
/// merge of the whole file.
fn analysed<M: LineMerge>(
    path: &str,
    blobs: [&[u8]; 3],
    registry: &Registry,
    max_bytes: u64,
    markers: &Markers,
    answer: Answer,
    git: &mut M,
) -> Result<Result<Merged, Fallback>, M::Error> {
    let Some(analyzer) = registry.for_path(path) else {
        return Ok(Err(Fallback::NoAnalyzer));
    };
    let names = [Version::Base, Version::Ours, Version::Theirs];
    let mut texts = Vec::with_capacity(3);
    for (blob, version) in blobs.iter().zip(names) {
        let bytes = blob.len() as u64;
        if bytes > max_bytes {
            return Ok(Err(Fallback::TooLarge {
                version,
                bytes,
                limit: max_bytes,
            }));
        }
        match source_text(blob) {
            Ok(text) => texts.push(text),
            Err(e) => {
                let reason = e.to_string();
                return Ok(Err(Fallback::NotAnalysed { version, reason }));
            }
        }
    }
    let mut analyses = Vec::with_capacity(3);
    for (text, version) in texts.iter().zip(names) {
        match analyzer.analyze_full(text) {
            Ok(a) => analyses.push(a),
            Err(e) => {
                let reason = e.to_string();
                return Ok(Err(Fallback::NotAnalysed { version, reason }));
            }
        }
    }
    let versions = [0, 1, 2].map(|i| Analysed {
        text: texts[i],
        analysis: &analyses[i],
    });
    let merged = match definitions(versions, markers, answer, git)? {
        Ok(merged) if merged.is_clean() => merged,
        other => return Ok(other),
    };
    // Written out, the merge must parse as the versions did (the text is UTF-8: it is
    // made of the versions' text and git's merges of it).
    let broken = match std::str::from_utf8(&merged.text) {
        Ok(text) => match analyzer.analyze_full(text) {
            Ok(a) => a.syntax_error.map(|at| line_of(text, at)),
            Err(_) => Some(1),
        },
        Err(_) => Some(1),
    };
    Ok(match broken {
        Some(line) => Err(Fallback::BrokenResult { line }),
        None => Ok(merged),
    })
}
