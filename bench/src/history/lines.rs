//! Which definitions of a file a diff's lines fall in, by line ranges alone: what git's
//! hunks touch, told without the forecast's or the claims' own code (the evaluations'
//! independent view of "which definitions did this change touch").

use std::collections::BTreeSet;

use wit_core::Analysis;

/// The definitions a run of lines touches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Owners {
    /// Indexes into the analysis' `symbols`: the innermost definition of each line.
    pub defs: BTreeSet<usize>,
    /// Whether some of the lines lie outside every definition (imports, module-level
    /// code, the lines between definitions).
    pub outside: bool,
}

/// The innermost definition of `analysis` that contains zero-based line `line`.
pub fn owner(analysis: &Analysis, line: usize) -> Option<usize> {
    analysis
        .symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| s.start_line <= line && line <= s.end_line)
        .min_by_key(|(_, s)| s.end_line - s.start_line)
        .map(|(i, _)| i)
}

/// The definitions that lines `start .. start + len` (zero-based) touch, each line given
/// its innermost definition. An insertion (`len == 0`, before line `start`) touches the
/// innermost definition spanning both lines around it, and is outside when there is
/// none (lines added between two definitions, or at the end of one: its last line is
/// the line before).
pub fn owners(analysis: &Analysis, start: usize, len: usize) -> Owners {
    let mut out = Owners::default();
    if len == 0 {
        let inside = start.checked_sub(1).and_then(|before| {
            analysis
                .symbols
                .iter()
                .enumerate()
                .filter(|(_, s)| s.start_line <= before && start <= s.end_line)
                .min_by_key(|(_, s)| s.end_line - s.start_line)
                .map(|(i, _)| i)
        });
        match inside {
            Some(i) => {
                out.defs.insert(i);
            }
            None => out.outside = true,
        }
        return out;
    }
    for line in start..start + len {
        match owner(analysis, line) {
            Some(i) => {
                out.defs.insert(i);
            }
            None => out.outside = true,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use wit_core::{Symbol, SymbolKind};

    fn symbol(name: &str, start_line: usize, end_line: usize) -> Symbol {
        Symbol {
            name: name.into(),
            kind: SymbolKind::Function,
            container: None,
            start_byte: 0,
            end_byte: 0,
            start_line,
            end_line,
            signature: None,
        }
    }

    #[test]
    fn lines_belong_to_their_innermost_definition_and_insertions_to_the_one_around_them() {
        // outer: lines 2-10, with inner at 4-6; line 0-1 and 11 outside.
        let analysis = Analysis::new(vec![symbol("outer", 2, 10), symbol("inner", 4, 6)]);
        assert_eq!(owners(&analysis, 5, 1).defs, BTreeSet::from([1]));
        let spanning = owners(&analysis, 3, 2);
        assert_eq!(spanning.defs, BTreeSet::from([0, 1]));
        assert!(!spanning.outside);
        let head = owners(&analysis, 0, 3);
        assert_eq!(head.defs, BTreeSet::from([0]));
        assert!(head.outside);
        // Inserted before line 5 (between 4 and 5): inside inner.
        assert_eq!(owners(&analysis, 5, 0).defs, BTreeSet::from([1]));
        // Inserted before line 7 (after inner's last line): outer's.
        assert_eq!(owners(&analysis, 7, 0).defs, BTreeSet::from([0]));
        // Inserted after outer's last line, and before the first line: outside.
        assert!(owners(&analysis, 11, 0).outside);
        assert!(owners(&analysis, 0, 0).outside);
    }
}
