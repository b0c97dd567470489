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

/// Which of several pattern lists cover a file, with one match per file whatever their
/// number (a `globset::GlobSet` of all their patterns): a 50,000-file declare under ten
/// leases is 50,000 matches, not 500,000.
pub(crate) struct Covering {
    set: globset::GlobSet,
    /// For each pattern of the set, the index of its list.
    owner: Vec<usize>,
}

impl Covering {
    /// Compiles the lists; `None` when the set cannot be built (it then covers nothing:
    /// each pattern compiled alone already, so this does not happen in practice).
    pub(crate) fn new(lists: &[Patterns]) -> Option<Covering> {
        let mut builder = globset::GlobSetBuilder::new();
        let mut owner = Vec::new();
        for (i, list) in lists.iter().enumerate() {
            for p in &list.0 {
                builder.add(p.glob.clone());
                owner.push(i);
            }
        }
        Some(Covering {
            set: builder.build().ok()?,
            owner,
        })
    }

    /// The lists covering `file`, each once, in order.
    pub(crate) fn lists_covering(&self, file: &str, scratch: &mut Vec<usize>) -> Vec<usize> {
        self.set.matches_into(file, scratch);
        let mut lists: Vec<usize> = scratch.iter().map(|&i| self.owner[i]).collect();
        lists.sort_unstable();
        lists.dedup();
        lists
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_set_of_every_lease_answers_as_each_lease_alone() {
        let lists: Vec<Patterns> = [
            vec!["src/auth/"],
            vec!["**/*.ts", "docs/*.md"],
            vec!["src/auth/token.ts"],
            vec!["lib/{a,b}/*"],
        ]
        .iter()
        .map(|l| Patterns::parse(l).unwrap())
        .collect();
        let covering = Covering::new(&lists).unwrap();
        let mut scratch = Vec::new();
        for file in [
            "src/auth/token.ts",
            "src/auth/x.py",
            "src/db.ts",
            "docs/a.md",
            "docs/x/a.md",
            "lib/a/x",
            "lib/c/x",
            "README",
        ] {
            let alone: Vec<usize> = (0..lists.len())
                .filter(|&i| lists[i].covers(file))
                .collect();
            assert_eq!(covering.lists_covering(file, &mut scratch), alone, "{file}");
        }
    }
}
