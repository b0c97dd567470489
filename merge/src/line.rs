//! The one thing the merge does not do itself: git's three-way line merge, asked for
//! through [`LineMerge`] (the caller runs `git merge-file`).

/// The labels and length of conflict markers, as git would write them
/// (`<<<<<<< HEAD`, `||||||| 1a2b3c4`, `>>>>>>> feature`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Markers {
    /// After `<<<<<<<`: our side (git's `%X`, usually `HEAD`).
    pub ours: String,
    /// After `|||||||` in the diff3 styles: the common ancestor (git's `%S`).
    pub base: String,
    /// After `>>>>>>>`: their side (git's `%Y`, the branch merged).
    pub theirs: String,
    /// How many `<`, `=`, `|`, `>` make a marker (git's `%L`, 7 unless
    /// `conflict-marker-size` says otherwise).
    pub size: usize,
}

impl Default for Markers {
    fn default() -> Self {
        Markers {
            ours: "ours".to_owned(),
            base: "base".to_owned(),
            theirs: "theirs".to_owned(),
            size: 7,
        }
    }
}

/// How conflicts are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerStyle {
    /// As the user's git is configured (`merge.conflictStyle`): what ends up in the file.
    AsConfigured,
    /// Always diff3 (`--diff3`: ours, base and theirs): what the merge reads back itself.
    Diff3,
}

/// What a line merge gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineMerged {
    /// The merged text, with conflict markers where the merge stopped.
    pub text: Vec<u8>,
    /// How many conflicting regions it left (0: clean).
    pub conflicts: usize,
}

/// git's own three-way line merge: `git merge-file -p` of `ours`, `base` and `theirs`,
/// with the diff algorithm git's merge uses (histogram, as the `ort` strategy does).
///
/// The merge calls it for the whole file first (a file git merges cleanly is left exactly
/// as git merged it), then for the text around and within definitions. Implementations
/// run git; the tests use the real `git merge-file` too.
pub trait LineMerge {
    /// Why the line merge could not run (git missing, an I/O error).
    type Error;

    /// Merges the three texts; a conflict is not an error.
    fn merge(
        &mut self,
        base: &[u8],
        ours: &[u8],
        theirs: &[u8],
        markers: &Markers,
        style: MarkerStyle,
    ) -> Result<LineMerged, Self::Error>;
}
