//! File and glob leases (extension): a session reserves paths — `src/auth/`, `**/*.sql` —
//! exclusively or shared, for a time. An exclusive lease conflicts with any other
//! session's lease or symbol lock under it; a shared lease conflicts only with another
//! session's exclusive lease. A session never conflicts with itself.
//!
//! `pattern.rs` is the syntax; `overlap.rs` decides glob against glob.

pub(crate) mod overlap;
pub(crate) mod pattern;

pub(crate) use pattern::Pattern;

/// The patterns of one lease, compiled.
#[derive(Debug, Clone)]
pub(crate) struct Patterns(pub Vec<Pattern>);

impl Patterns {
    /// Compiles stored or requested pattern texts; `Err((index, reason))` for the first
    /// bad one.
    pub(crate) fn parse<S: AsRef<str>>(texts: &[S]) -> Result<Patterns, (usize, String)> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| Pattern::parse(t.as_ref()).map_err(|e| (i, e)))
            .collect::<Result<Vec<_>, _>>()
            .map(Patterns)
    }

    /// Whether `file` (repository-relative, normalized) is under one of the patterns.
    pub(crate) fn covers(&self, file: &str) -> bool {
        self.0.iter().any(|p| p.matches(file))
    }

    /// Whether some path is under one of ours and one of `other`'s.
    pub(crate) fn overlaps(&self, other: &Patterns) -> bool {
        self.0
            .iter()
            .any(|a| other.0.iter().any(|b| overlap::overlap(a, b)))
    }

    /// The texts, as stored and shown.
    pub(crate) fn texts(&self) -> Vec<String> {
        self.0.iter().map(|p| p.text.clone()).collect()
    }
}

/// How a lease shares its paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Nobody else may lease or lock anything under it.
    Exclusive,
    /// Others may share it; nobody else may hold it exclusively.
    Shared,
}

impl Mode {
    /// The wire and storage name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Mode::Exclusive => "exclusive",
            Mode::Shared => "shared",
        }
    }

    /// From the wire and storage name.
    pub(crate) fn parse(s: &str) -> Option<Mode> {
        match s {
            "exclusive" => Some(Mode::Exclusive),
            "shared" => Some(Mode::Shared),
            _ => None,
        }
    }

    /// Whether two overlapping leases of different sessions in these modes conflict.
    pub(crate) fn conflicts_with(self, other: Mode) -> bool {
        self == Mode::Exclusive || other == Mode::Exclusive
    }
}
