//! Merging one level of a file (the whole file, or the inside of a definition changed on
//! both sides) unit by unit.
//!
//! 1. git's line merge of the skeletons (`skeleton.rs`) merges the text outside the
//!    definitions and says where each definition goes; where it stops on definitions
//!    alone, `place.rs` places them; where it stops on text, git's line merge runs again
//!    on that stretch with the definitions written out (a conflict there is git's).
//! 2. Each definition's text is merged on its own: the side that changed it wins; changed
//!    on both sides, git's line merge of its three versions, and when that stops, the same
//!    merge one level down (the methods of a class); deleted on one side and changed on
//!    the other, a conflict; added on both sides with different texts, git's merge of the
//!    two additions.
//! 3. Checks: every definition kept is in the result exactly once. A level that fails it
//!    (a definition moved on one side next to text the other changed, moved differently
//!    by both) is merged by git's line merge alone.

use std::collections::{HashMap, HashSet};

use crate::line::{LineMerge, MarkerStyle, Markers};
use crate::merged::{Conflict, ConflictKind};
use crate::place::Presence;
use crate::skeleton::{Chunk, Line, Notation, Table};
use crate::stretch::{Context, Item, resolve};
use crate::units::{Def, Piece, Unfit, Unit, segment};

/// One version of a level: its text and the definitions in it (relative to the text).
pub(crate) struct Side<'a> {
    pub text: &'a str,
    pub defs: Vec<Def>,
}

/// A merged level.
pub(crate) struct Level {
    pub text: String,
    pub conflicts: Vec<Conflict>,
}

/// What a definition's own merge gave.
enum Outcome {
    /// Gone (deleted on one side, unchanged on the other; or on both).
    Drop,
    /// Its text, with the conflicts in it.
    Keep(String, Vec<Conflict>),
}

/// The merge of a file, level by level, asking `git` for every line merge.
pub(crate) struct Merger<'m, M> {
    pub git: &'m mut M,
    pub markers: &'m Markers,
    /// Whether only "is it clean?" is asked: the first conflict found ends the merge
    /// ([`Failed::Conflicted`]), since nothing after it can make the file clean.
    pub until_conflict: bool,
}

/// `key` as people name the definition (`Shop.price#method` → `Shop.price`,
/// `x#method#2` → `x`, `A.#secret#method` → `A.#secret`).
fn shown(key: &str) -> String {
    key.split('+')
        .map(|k| {
            let k = match k.rsplit_once('#') {
                Some((rest, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => rest,
                _ => k,
            };
            k.rsplit_once('#').map_or(k, |(name, _kind)| name)
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

fn text_conflicts(n: usize, definition: Option<&str>, kind: ConflictKind) -> Vec<Conflict> {
    (0..n)
        .map(|_| Conflict {
            definition: definition.map(shown),
            kind,
        })
        .collect()
}

/// The line ending `text` uses (its first line's), for a line break the merge must add.
fn eol(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

fn ends_line(text: &str) -> bool {
    text.is_empty() || text.ends_with('\n')
}

/// The side that changed a value, ours when both did.
fn pick<T: PartialEq + Copy>(base: T, ours: T, theirs: T) -> T {
    if ours == base { theirs } else { ours }
}

impl<M: LineMerge> Merger<'_, M> {
    /// `conflicts` found in the result; the first ends a merge asked only whether it is
    /// clean.
    fn found(&self, conflicts: Vec<Conflict>) -> Result<Vec<Conflict>, Failed<M::Error>> {
        match conflicts.first() {
            Some(first) if self.until_conflict => Err(Failed::Conflicted(first.clone())),
            _ => Ok(conflicts),
        }
    }

    /// git's line merge of three texts, as it ends up in the file.
    fn line(
        &mut self,
        base: &str,
        ours: &str,
        theirs: &str,
    ) -> Result<(String, usize), Failed<M::Error>> {
        let merged = self
            .git
            .merge(
                base.as_bytes(),
                ours.as_bytes(),
                theirs.as_bytes(),
                self.markers,
                MarkerStyle::AsConfigured,
            )
            .map_err(Failed::Git)?;
        let text = String::from_utf8(merged.text)
            .map_err(|_| Failed::Unfit(Unfit("git's merge of UTF-8 texts is not UTF-8".into())))?;
        Ok((text, merged.conflicts))
    }

    /// A level: git's line merge when it is clean, else unit by unit; when the units do
    /// not fit, git's line merge (conflicts included).
    fn level(&mut self, sides: [Side<'_>; 3]) -> Result<Level, Failed<M::Error>> {
        let (text, n) = self.line(sides[0].text, sides[1].text, sides[2].text)?;
        if n == 0 {
            return Ok(Level {
                text,
                conflicts: Vec::new(),
            });
        }
        match self.units(&sides) {
            Err(Failed::Unfit(_)) => Ok(Level {
                text,
                conflicts: self.found(text_conflicts(n, None, ConflictKind::Text))?,
            }),
            done => done,
        }
    }

    /// A level merged unit by unit (module docs); `Unfit` when the analysis does not fit
    /// the texts or the result would not hold every kept definition exactly once.
    pub fn units(&mut self, sides: &[Side<'_>; 3]) -> Result<Level, Failed<M::Error>> {
        let mut pieces = Vec::with_capacity(3);
        for side in sides {
            pieces.push(segment(side.text, &side.defs).map_err(Failed::Unfit)?);
        }
        let notation = Notation::for_texts([sides[0].text, sides[1].text, sides[2].text]);
        let mut table = Table::default();
        let skeletons: Vec<String> = pieces
            .iter()
            .map(|p| notation.skeleton(p, &mut table))
            .collect();
        // Each side's units by key number.
        let units: Vec<HashMap<usize, &Unit<'_>>> = pieces
            .iter()
            .map(|p| {
                p.iter()
                    .filter_map(|piece| match piece {
                        Piece::Unit(u) => Some((table.key_id(&u.key), u)),
                        Piece::Line(_) => None,
                    })
                    .collect()
            })
            .collect();
        let merged = self
            .git
            .merge(
                skeletons[0].as_bytes(),
                skeletons[1].as_bytes(),
                skeletons[2].as_bytes(),
                &notation.markers,
                MarkerStyle::Diff3,
            )
            .map_err(Failed::Git)?;
        let merged = String::from_utf8(merged.text)
            .map_err(|_| Failed::Unfit(Unfit("the skeletons' merge is not UTF-8".into())))?;
        let chunks = notation.chunks(&merged).map_err(Failed::Unfit)?;

        let in_ours = |k: usize| units[1].contains_key(&k);
        let in_theirs = |k: usize| units[2].contains_key(&k);
        let same_lead = |a: usize, b: usize| table.content(a).0 == table.content(b).0;
        let cx = Context {
            presence: Presence {
                ours: &in_ours,
                theirs: &in_theirs,
            },
            same_lead: &same_lead,
        };
        let mut planned: Vec<Item> = Vec::new();
        for chunk in chunks {
            match chunk {
                Chunk::Clean(lines) => planned.extend(lines.into_iter().map(Item::from)),
                Chunk::Conflict { ours, base, theirs } => {
                    planned.extend(resolve(&ours, &base, &theirs, &cx));
                }
            }
        }

        // What goes back to git's line merge, merged with the definitions written out.
        let mut items: Vec<Written> = Vec::with_capacity(planned.len());
        let mut consumed: HashSet<usize> = HashSet::new();
        let mut conflicts: Vec<Conflict> = Vec::new();
        for item in planned {
            let (ours, base, theirs) = match item {
                Item::Text(t) => {
                    items.push(Written::Text(t));
                    continue;
                }
                Item::Unit { key, lead_of } => {
                    items.push(Written::Unit { key, lead_of });
                    continue;
                }
                Item::Merge { ours, base, theirs } => (ours, base, theirs),
            };
            let stretches = [&base, &ours, &theirs];
            let keys: HashSet<usize> = stretches
                .iter()
                .flat_map(|lines| lines.iter())
                .filter_map(|l| match l {
                    Line::Unit { key, .. } => Some(*key),
                    Line::Text(_) => None,
                })
                .collect();
            // Each definition must be here on every side that has it, or a change made
            // elsewhere would not be in git's merge of this stretch.
            for &key in &keys {
                for (s, lines) in stretches.iter().enumerate() {
                    let here = lines
                        .iter()
                        .any(|l| matches!(l, Line::Unit { key: k, .. } if *k == key));
                    if units[s].contains_key(&key) && !here {
                        return Err(Failed::Unfit(Unfit(format!(
                            "{} moved next to text the other side changed",
                            shown(table.key(key))
                        ))));
                    }
                }
            }
            consumed.extend(keys);
            let written = |lines: &[Line]| -> String {
                lines
                    .iter()
                    .map(|l| match l {
                        Line::Text(t) => t.to_owned(),
                        Line::Unit { content, .. } => {
                            let (lead, text) = table.content(*content);
                            let mut s = format!("{lead}{text}");
                            if !s.ends_with('\n') {
                                s.push('\n');
                            }
                            s
                        }
                    })
                    .collect()
            };
            let (text, n) = self.line(&written(&base), &written(&ours), &written(&theirs))?;
            conflicts.extend(self.found(text_conflicts(n, None, ConflictKind::Text))?);
            items.push(Written::Text(text));
        }

        // Each definition's own merge, and the check that every kept one is placed once.
        let mut placed: HashMap<usize, usize> = HashMap::new();
        for item in &items {
            if let Written::Unit { key, .. } = item {
                *placed.entry(*key).or_insert(0) += 1;
            }
        }
        let mut outcomes: HashMap<usize, Outcome> = HashMap::new();
        for key in 0..table.key_count() {
            let times = placed.get(&key).copied().unwrap_or(0);
            if consumed.contains(&key) {
                if times > 0 {
                    return Err(Failed::Unfit(Unfit(format!(
                        "{} is both in text git merged and placed elsewhere",
                        shown(table.key(key))
                    ))));
                }
                continue;
            }
            let outcome = self.definition(
                table.key(key),
                [units[0].get(&key), units[1].get(&key), units[2].get(&key)],
                &notation,
            )?;
            if matches!(outcome, Outcome::Keep(..)) && times != 1 {
                return Err(Failed::Unfit(Unfit(format!(
                    "{} would be in the result {times} times",
                    shown(table.key(key))
                ))));
            }
            outcomes.insert(key, outcome);
        }

        let eol = eol(sides[1].text);
        let mut out = String::with_capacity(sides[1].text.len() + sides[2].text.len() / 4);
        let push = |out: &mut String, s: &str| {
            if !s.is_empty() && !ends_line(out) {
                out.push_str(eol);
            }
            out.push_str(s);
        };
        for item in &items {
            match item {
                Written::Text(t) => push(&mut out, t),
                Written::Unit { key, lead_of } => {
                    if let Some(Outcome::Keep(text, found)) = outcomes.get(key) {
                        push(&mut out, table.content(*lead_of).0);
                        push(&mut out, text);
                        conflicts.extend(found.iter().cloned());
                    }
                }
            }
        }
        let newline_at_end = pick(
            ends_line(sides[0].text),
            ends_line(sides[1].text),
            ends_line(sides[2].text),
        );
        if newline_at_end && !ends_line(&out) {
            out.push_str(eol);
        } else if !newline_at_end && out.ends_with('\n') {
            out.pop();
        }
        Ok(Level {
            text: out,
            conflicts,
        })
    }

    /// One definition's merge from its three versions (`None`: absent there).
    fn definition(
        &mut self,
        key: &str,
        [base, ours, theirs]: [Option<&&Unit<'_>>; 3],
        notation: &Notation,
    ) -> Result<Outcome, Failed<M::Error>> {
        Ok(match (base, ours, theirs) {
            (Some(b), Some(o), Some(t)) => {
                if o.text == b.text {
                    Outcome::Keep(t.text.to_owned(), Vec::new())
                } else if t.text == b.text || o.text == t.text {
                    Outcome::Keep(o.text.to_owned(), Vec::new())
                } else {
                    let sides = [b, o, t].map(|u| Side {
                        text: u.text,
                        defs: u.inner.clone(),
                    });
                    let level = self.level(sides)?;
                    let conflicts = level
                        .conflicts
                        .into_iter()
                        .map(|c| match c.definition {
                            Some(_) => c,
                            None => Conflict {
                                definition: Some(shown(key)),
                                kind: ConflictKind::ChangedOnBothSides,
                            },
                        })
                        .collect();
                    Outcome::Keep(level.text, conflicts)
                }
            }
            (Some(b), Some(o), None) if o.text != b.text => {
                self.deleted_and_changed(key, b.text, o.text, true, notation)?
            }
            (Some(b), None, Some(t)) if t.text != b.text => {
                self.deleted_and_changed(key, b.text, t.text, false, notation)?
            }
            (Some(_), _, _) | (None, None, None) => Outcome::Drop,
            (None, Some(o), Some(t)) if o.text != t.text => {
                let (text, n) = self.line("", o.text, t.text)?;
                let kind = ConflictKind::AddedOnBothSides;
                Outcome::Keep(text, self.found(text_conflicts(n, Some(key), kind))?)
            }
            (None, Some(u), _) | (None, None, Some(u)) => {
                Outcome::Keep(u.text.to_owned(), Vec::new())
            }
        })
    }

    /// A definition deleted on one side and changed on the other: a conflict holding the
    /// changed text on its side and nothing on the other, in git's markers (and style: a
    /// diff3 style shows the base too). git writes it, from a line that stands for the
    /// deletion and is then taken out.
    fn deleted_and_changed(
        &mut self,
        key: &str,
        base: &str,
        changed: &str,
        ours_changed: bool,
        notation: &Notation,
    ) -> Result<Outcome, Failed<M::Error>> {
        let gone = format!("{}deleted\n", notation.prefix());
        let (text, n) = if ours_changed {
            self.line(base, changed, &gone)?
        } else {
            self.line(base, &gone, changed)?
        };
        let at: Vec<usize> = text.match_indices(gone.as_str()).map(|(i, _)| i).collect();
        let [at] = at[..] else {
            return Err(Failed::Unfit(Unfit(format!(
                "git's conflict for the deleted {} is not one region",
                shown(key)
            ))));
        };
        let mut text = text;
        text.replace_range(at..at + gone.len(), "");
        let kind = ConflictKind::DeletedAndChanged;
        Ok(Outcome::Keep(
            text,
            self.found(text_conflicts(n.max(1), Some(key), kind))?,
        ))
    }
}

/// Why a level was not merged unit by unit: git failed (an error to pass on), the units
/// do not fit (the level is then merged by git's line merge alone), or a merge asked only
/// whether it is clean found a conflict.
pub(crate) enum Failed<E> {
    Git(E),
    Unfit(Unfit),
    Conflicted(Conflict),
}

/// A piece of a merged level once git merged what it had to: text, or a definition to
/// write out (its key's number, the content whose lead goes above it).
enum Written {
    Text(String),
    Unit { key: usize, lead_of: usize },
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_are_shown_as_names() {
        assert_eq!(super::shown("Shop.price#method"), "Shop.price");
        assert_eq!(super::shown("x#method#2"), "x");
        assert_eq!(super::shown("A.#secret#method"), "A.#secret");
        assert_eq!(super::shown("p#function+q#function"), "p + q");
    }
}
