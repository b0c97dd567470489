//! What a merge gave: the text, the conflicts left in it, and how it was merged.

use crate::line::LineMerged;

/// What kind of conflict the merge left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictKind {
    /// Both sides changed one definition and git's line merge of it stopped.
    ChangedOnBothSides,
    /// One side deleted a definition the other changed.
    DeletedAndChanged,
    /// Both sides added a definition of one name, with different texts.
    AddedOnBothSides,
    /// git's line merge stopped on text: outside the definitions, or anywhere in a file
    /// merged by lines alone.
    Text,
}

impl ConflictKind {
    /// How a message says it.
    pub fn as_str(self) -> &'static str {
        match self {
            ConflictKind::ChangedOnBothSides => "changed on both sides",
            ConflictKind::DeletedAndChanged => "deleted on one side, changed on the other",
            ConflictKind::AddedOnBothSides => "added on both sides",
            ConflictKind::Text => "text changed on both sides",
        }
    }
}

/// One conflicting region of the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The definition it is in (`Shop.price`), when there is one.
    pub definition: Option<String>,
    /// What happened.
    pub kind: ConflictKind,
}

/// Which version of a file something is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// The common ancestor.
    Base,
    /// Our side.
    Ours,
    /// Their side.
    Theirs,
}

impl Version {
    /// `base`, `ours`, `theirs`.
    pub fn as_str(self) -> &'static str {
        match self {
            Version::Base => "base",
            Version::Ours => "ours",
            Version::Theirs => "theirs",
        }
    }
}

/// Why a file git could not merge was merged by git's line merge all the same (its
/// conflicts are git's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fallback {
    /// No analyzer covers the file's extension.
    NoAnalyzer,
    /// A version is larger than the analysis's size cap.
    TooLarge {
        /// The version.
        version: Version,
        /// Its size in bytes.
        bytes: u64,
        /// The cap (`[analysis] max_file_bytes`).
        limit: u64,
    },
    /// A version could not be analysed (not UTF-8 text, binary, too deeply nested, over
    /// the analysis's time budget, a plugin failing).
    NotAnalysed {
        /// The version.
        version: Version,
        /// Why.
        reason: String,
    },
    /// A version parses with a syntax error, so its definitions may have the wrong
    /// extent.
    SyntaxError {
        /// The version.
        version: Version,
        /// The error's line (1-based).
        line: usize,
    },
    /// The definitions did not fit together: a definition moved on one side next to text
    /// the other side changed, moved differently on both sides, or the analysis's ranges
    /// do not fit the text. The reason says which.
    Unfit(String),
    /// Merged by definitions, the text no longer parses (the versions did).
    BrokenResult {
        /// The first syntax error's line in the merged text (1-based).
        line: usize,
    },
}

impl std::fmt::Display for Fallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fallback::NoAnalyzer => write!(f, "no analyzer covers it"),
            Fallback::TooLarge {
                version,
                bytes,
                limit,
            } => write!(
                f,
                "the {} version has {bytes} bytes, over the analysis's cap of {limit}",
                version.as_str()
            ),
            Fallback::NotAnalysed { version, reason } => {
                write!(
                    f,
                    "the {} version was not analysed: {reason}",
                    version.as_str()
                )
            }
            Fallback::SyntaxError { version, line } => write!(
                f,
                "the {} version has a syntax error at line {line}",
                version.as_str()
            ),
            Fallback::Unfit(reason) => write!(f, "the definitions do not fit together: {reason}"),
            Fallback::BrokenResult { line } => write!(
                f,
                "merged by definitions, the result has a syntax error at line {line}"
            ),
        }
    }
}

/// How a file was merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    /// git's line merge was clean: the result is exactly git's.
    Git,
    /// Definition by definition (git's merge of the file had stopped).
    Definitions,
    /// By git's line merge, which stopped, because the definitions could not be used.
    GitBecause(Fallback),
}

/// A merged file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The result, with git's conflict markers where it stopped.
    pub text: Vec<u8>,
    /// The conflicting regions left in it (none: a clean merge).
    pub conflicts: Vec<Conflict>,
    /// How it was merged.
    pub method: Method,
}

impl Merged {
    /// Whether the merge is clean (no conflict markers).
    pub fn is_clean(&self) -> bool {
        self.conflicts.is_empty()
    }
}

impl Merged {
    /// git's line merge `first` (which stopped), as the result for the reason `why`.
    pub(crate) fn by_git(first: LineMerged, why: Fallback) -> Merged {
        Merged {
            conflicts: (0..first.conflicts)
                .map(|_| Conflict {
                    definition: None,
                    kind: ConflictKind::Text,
                })
                .collect(),
            text: first.text,
            method: Method::GitBecause(why),
        }
    }
}
