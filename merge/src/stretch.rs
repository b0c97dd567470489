//! A stretch of the skeletons where git's merge stopped, taken apart.
//!
//! Definitions all three sides have there, in the same order, are fixed points: each is
//! merged on its own, and the pieces between them are merged apart. So a changed field
//! line right above a method the other side changed, or an import added right above a
//! function the other side changed, no longer collide: they are in different pieces. A
//! piece changed on one side only is that side's; changed on both, definitions alone are
//! placed (`place.rs`), definitions added on one side next to text added on the other are
//! both kept, and anything else goes back to git's line merge (a conflict there is git's).

use crate::place::{Entry, Presence, place};
use crate::skeleton::Line;

/// A piece of a merged level, before the definitions are written out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item {
    /// Text, as it goes into the result.
    Text(String),
    /// A definition (its key's number) with the lead of a content (a number).
    Unit { key: usize, lead_of: usize },
    /// Lines for git's line merge, definitions written out.
    Merge {
        ours: Vec<Line>,
        base: Vec<Line>,
        theirs: Vec<Line>,
    },
}

impl From<Line> for Item {
    fn from(line: Line) -> Item {
        match line {
            Line::Text(t) => Item::Text(t),
            Line::Unit { key, content } => Item::Unit {
                key,
                lead_of: content,
            },
        }
    }
}

/// What the pieces of a stretch need to know of the whole level.
pub(crate) struct Context<'c> {
    /// Where each key is, per side.
    pub presence: Presence<'c>,
    /// Whether two contents have the same lead.
    pub same_lead: &'c dyn Fn(usize, usize) -> bool,
}

fn unit(line: &Line) -> Option<Entry> {
    match line {
        Line::Unit { key, content } => Some((*key, *content)),
        Line::Text(_) => None,
    }
}

fn position(lines: &[Line], key: usize) -> Option<usize> {
    lines
        .iter()
        .position(|l| unit(l).is_some_and(|e| e.0 == key))
}

/// The keys all three sides have in the stretch, in an order all three agree on (a key
/// out of order on one side is not a fixed point), with each side's position of each.
fn anchors(ours: &[Line], base: &[Line], theirs: &[Line]) -> Vec<[usize; 3]> {
    let mut found: Vec<[usize; 3]> = Vec::new();
    for (b, line) in base.iter().enumerate() {
        let Some((key, _)) = unit(line) else {
            continue;
        };
        let (Some(o), Some(t)) = (position(ours, key), position(theirs, key)) else {
            continue;
        };
        if found.last().is_none_or(|last| o > last[0] && t > last[2]) {
            found.push([o, b, t]);
        }
    }
    found
}

/// The stretch `ours` / `base` / `theirs` (git stopped on it) as items.
pub(crate) fn resolve(
    ours: &[Line],
    base: &[Line],
    theirs: &[Line],
    cx: &Context<'_>,
) -> Vec<Item> {
    let mut out = Vec::new();
    let mut from = [0, 0, 0];
    for [o, b, t] in anchors(ours, base, theirs) {
        out.extend(piece(
            &ours[from[0]..o],
            &base[from[1]..b],
            &theirs[from[2]..t],
            cx,
        ));
        let (Some(oe), Some(be), Some(te)) = (unit(&ours[o]), unit(&base[b]), unit(&theirs[t]))
        else {
            unreachable!("anchors are units on every side")
        };
        let lead_of = if (cx.same_lead)(oe.1, be.1) {
            te.1
        } else {
            oe.1
        };
        out.push(Item::Unit { key: be.0, lead_of });
        from = [o + 1, b + 1, t + 1];
    }
    out.extend(piece(
        &ours[from[0]..],
        &base[from[1]..],
        &theirs[from[2]..],
        cx,
    ));
    out
}

/// One piece between fixed points.
fn piece(ours: &[Line], base: &[Line], theirs: &[Line], cx: &Context<'_>) -> Vec<Item> {
    let lines = |side: &[Line]| side.iter().cloned().map(Item::from).collect::<Vec<_>>();
    if ours == base {
        return lines(theirs);
    }
    if theirs == base || ours == theirs {
        return lines(ours);
    }
    let only_units = |side: &[Line]| side.iter().all(|l| unit(l).is_some());
    if only_units(ours) && only_units(base) && only_units(theirs) {
        let entries = |side: &[Line]| side.iter().filter_map(unit).collect::<Vec<_>>();
        return place(
            &entries(ours),
            &entries(base),
            &entries(theirs),
            &cx.presence,
            cx.same_lead,
        )
        .into_iter()
        .map(|p| Item::Unit {
            key: p.key,
            lead_of: p.lead_of,
        })
        .collect();
    }
    if base.is_empty() && (only_units(ours) || only_units(theirs)) {
        // Both inserted here, one side definitions only: both, ours first (the text is
        // one side's, so nothing of it clashes).
        let mut both = lines(ours);
        both.extend(lines(theirs));
        return both;
    }
    vec![Item::Merge {
        ours: ours.to_vec(),
        base: base.to_vec(),
        theirs: theirs.to_vec(),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(key: usize, content: usize) -> Line {
        Line::Unit { key, content }
    }

    fn t(s: &str) -> Line {
        Line::Text(s.to_owned())
    }

    const EVERYWHERE: &dyn Fn(usize) -> bool = &|_| true;

    fn cx() -> Context<'static> {
        Context {
            presence: Presence {
                ours: EVERYWHERE,
                theirs: EVERYWHERE,
            },
            same_lead: &|a, b| a == b,
        }
    }

    #[test]
    fn a_text_line_next_to_a_changed_definition_is_its_own_piece() {
        // Ours changes the field line, theirs the method right under it.
        let got = resolve(
            &[t("x = 2\n"), u(0, 0)],
            &[t("x = 1\n"), u(0, 0)],
            &[t("x = 1\n"), u(0, 1)],
            &cx(),
        );
        assert_eq!(
            got,
            [
                Item::Text("x = 2\n".into()),
                Item::Unit { key: 0, lead_of: 1 }
            ]
        );
    }

    #[test]
    fn text_changed_on_both_sides_goes_back_to_git() {
        let got = resolve(
            &[t("a\n"), u(0, 0), t("b1\n")],
            &[t("a\n"), u(0, 0), t("b\n")],
            &[t("a\n"), u(0, 0), t("b2\n")],
            &cx(),
        );
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(matches!(&got[2], Item::Merge { base, .. } if base == &[t("b\n")]));
    }

    #[test]
    fn a_definition_out_of_order_on_one_side_is_no_fixed_point() {
        // Ours swapped 0 and 1: only one of them can be a fixed point.
        let fixed = anchors(
            &[u(1, 1), u(0, 0)],
            &[u(0, 0), u(1, 1)],
            &[u(0, 0), u(1, 2)],
        );
        assert_eq!(fixed, [[1, 0, 0]]);
    }
}
