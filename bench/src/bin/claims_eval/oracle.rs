//! What the replay is scored against, computed without the claims' code:
//!
//! - **Lines** (git's own diff, the analyzers' line ranges): a hunk touches the innermost
//!   definition of each non-blank line it replaces in the base and of each non-blank line
//!   it adds in the side's version of the file ([`hunk_defs`]). Definitions are told
//!   apart by [`ids`]: the qualified names of the definitions enclosing them, their own,
//!   and their kind. That is the scheme the forecast's match keys follow, written again
//!   here on purpose: this oracle takes nothing from the code it scores but the
//!   analyzers' definitions and line ranges.
//! - **Symbols** (`wit_forecast::diff_symbols`, the forecast's comparison of two versions
//!   of a file, which the claims build on): an edit touches the definitions
//!   `diff_symbols` reports changed between the file before and after it.
//!
//! Both answer, for an edit by one session: does it touch a definition the other session
//! changed since this session last edited it (a warning is due); and, for a whole-file
//! write, which of the other session's changed definitions it would put back otherwise
//! (a lost update).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use wit_bench::history::git::Hunk;
use wit_bench::history::lines;
use wit_core::Analysis;
use wit_forecast::{Version, diff_symbols};

use crate::edits::Side;

/// Each definition's identity in `analysis`, index for index: the qualified names of the
/// definitions enclosing it, outermost first, then its own and its kind
/// (`Flask/Flask.run#method`); a later definition with the same identity gets `#2`, `#3`.
pub fn ids(analysis: &Analysis) -> Vec<String> {
    let symbols = &analysis.symbols;
    // Outer before inner: by start, the longer first; a stack of the open definitions.
    let mut order: Vec<usize> = (0..symbols.len()).collect();
    order.sort_by_key(|&i| {
        (
            symbols[i].start_byte,
            std::cmp::Reverse(symbols[i].end_byte),
        )
    });
    let mut open: Vec<usize> = Vec::new();
    let mut out = vec![String::new(); symbols.len()];
    for i in order {
        let s = &symbols[i];
        while let Some(&top) = open.last() {
            let t = &symbols[top];
            if t.start_byte <= s.start_byte && s.end_byte <= t.end_byte {
                break;
            }
            open.pop();
        }
        let mut id: String = open
            .iter()
            .map(|&o| format!("{}/", symbols[o].qualified_name()))
            .collect();
        id.push_str(&format!("{}#{}", s.qualified_name(), s.kind.as_str()));
        out[i] = id;
        open.push(i);
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for id in &mut out {
        let n = seen.entry(id.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            id.push_str(&format!("#{n}"));
        }
    }
    out
}

/// One version of a file as the line oracle reads it: its text, its analysis and the
/// [`ids`] of its definitions.
#[derive(Debug, Clone, Copy)]
pub struct Lines<'a> {
    /// The text.
    pub text: &'a str,
    /// Its analysis.
    pub analysis: &'a Analysis,
    /// [`ids`] of the analysis.
    pub ids: &'a [String],
}

/// The definitions (by [`ids`]) a hunk touches by lines: the innermost definition of
/// each non-blank line it replaces in the base version and of each non-blank line it
/// adds in the side's (`None`: the file is absent on that side). Blank lines are no
/// definition's (a method added with a blank line above it does not change its class),
/// and an insertion is placed by its new lines alone (lines added below a function's
/// last line are that function's when they are indented into it).
pub fn hunk_defs(
    base: Option<Lines<'_>>,
    side: Option<Lines<'_>>,
    hunk: &Hunk,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (version, start, len) in [
        (base, hunk.start, hunk.len),
        (side, hunk.new_start, hunk.new_len),
    ] {
        let Some(v) = version else {
            continue;
        };
        for (i, line) in v
            .text
            .split_inclusive('\n')
            .enumerate()
            .skip(start)
            .take(len)
        {
            if line.trim().is_empty() {
                continue;
            }
            if let Some(d) = lines::owner(v.analysis, i) {
                out.insert(v.ids[d].clone());
            }
        }
    }
    out
}

/// Every definition of a file (a file created by a side touches all).
pub fn all_defs(v: Lines<'_>) -> BTreeSet<String> {
    v.ids.iter().cloned().collect()
}

/// The definitions `diff_symbols` reports changed from `before` to `after` (`None`: the
/// file absent), by their match keys.
pub fn changed_keys(before: Option<Version<'_>>, after: Option<Version<'_>>) -> BTreeSet<String> {
    diff_symbols(before, after)
        .iter()
        .map(|c| c.match_key().to_owned())
        .collect()
}

/// Each definition's whole text in a version of a file, by [`ids`].
pub fn texts(v: Lines<'_>) -> BTreeMap<&str, &str> {
    v.ids
        .iter()
        .zip(&v.analysis.symbols)
        .map(|(id, s)| {
            let text = v
                .text
                .get(s.start_byte..s.end_byte.min(v.text.len()))
                .unwrap_or_default();
            (id.as_str(), text)
        })
        .collect()
}

/// When each session last changed each definition of each file, by edit number: what
/// "changed since this session last edited it" is read from.
#[derive(Debug, Default, Clone)]
pub struct Timeline {
    last: HashMap<(Side, String, String), usize>,
}

impl Timeline {
    /// Notes that `session` changed `defs` of `file` at edit `at`.
    pub fn changed(&mut self, session: Side, file: &str, defs: &BTreeSet<String>, at: usize) {
        for d in defs {
            self.last.insert((session, file.to_owned(), d.clone()), at);
        }
    }

    /// The definitions among `defs` that `other` changed after `me` last changed them (or
    /// that `me` never changed): the ones an edit by `me` touching `defs` should be
    /// warned of.
    pub fn news(
        &self,
        me: Side,
        other: Side,
        file: &str,
        defs: &BTreeSet<String>,
    ) -> BTreeSet<String> {
        defs.iter()
            .filter(|d| {
                let key = |s: Side| (s, file.to_owned(), (*d).clone());
                match (self.last.get(&key(other)), self.last.get(&key(me))) {
                    (Some(theirs), Some(mine)) => theirs > mine,
                    (Some(_), None) => true,
                    _ => false,
                }
            })
            .cloned()
            .collect()
    }

    /// Every definition of `file` that `session` changed.
    pub fn all(&self, session: Side, file: &str) -> BTreeSet<String> {
        self.last
            .keys()
            .filter(|(s, f, _)| *s == session && f == file)
            .map(|(_, _, d)| d.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wit_core::{Symbol, SymbolKind};

    fn symbol(name: &str, container: Option<&str>, bytes: (usize, usize)) -> Symbol {
        Symbol {
            name: name.into(),
            kind: if container.is_some() {
                SymbolKind::Method
            } else {
                SymbolKind::Function
            },
            container: container.map(str::to_owned),
            start_byte: bytes.0,
            end_byte: bytes.1,
            start_line: 0,
            end_line: 0,
            signature: None,
        }
    }

    #[test]
    fn identities_name_the_enclosing_definitions_and_number_repeats() {
        let analysis = Analysis::new(vec![
            symbol("test_a", None, (0, 50)),
            symbol("index", None, (10, 20)),
            symbol("test_b", None, (60, 100)),
            symbol("index", None, (70, 80)),
            symbol("index", None, (82, 90)),
        ]);
        assert_eq!(
            ids(&analysis),
            [
                "test_a#function",
                "test_a/index#function",
                "test_b#function",
                "test_b/index#function",
                "test_b/index#function#2",
            ]
        );
    }

    #[test]
    fn news_are_the_others_changes_since_my_last_edit_of_them() {
        let mut t = Timeline::default();
        let d = |names: &[&str]| -> BTreeSet<String> {
            names.iter().map(|n| (*n).to_owned()).collect()
        };
        t.changed(Side::A, "f.py", &d(&["f", "g"]), 1);
        assert_eq!(t.news(Side::B, Side::A, "f.py", &d(&["f", "h"])), d(&["f"]));
        assert!(t.news(Side::B, Side::A, "other.py", &d(&["f"])).is_empty());
        t.changed(Side::B, "f.py", &d(&["f"]), 2);
        // B has changed f since A did: A's change was in front of it.
        assert!(t.news(Side::B, Side::A, "f.py", &d(&["f"])).is_empty());
        t.changed(Side::A, "f.py", &d(&["f"]), 3);
        assert_eq!(t.news(Side::B, Side::A, "f.py", &d(&["f"])), d(&["f"]));
        assert_eq!(t.all(Side::A, "f.py"), d(&["f", "g"]));
    }
}
