//! Where git's merge of the skeletons stopped on units alone (each line of each side
//! stands for a definition): which definitions go there, in which order, each with which
//! blank lines above it. What each definition's text becomes is decided per definition,
//! elsewhere; this only places them.
//!
//! The rules, for the stretch where git stopped:
//! - a definition both sides still have there stays, in our order;
//! - one a side took away stays away when that side moved it elsewhere in the file (its
//!   new place holds it), and stays otherwise (a deletion: the definition's own merge
//!   drops it, or keeps a conflict when the other side changed it);
//! - one a side added (or moved) there is placed after the definition it follows on that
//!   side; two added at the same point go ours first, then theirs.

/// One unit of a stretch: its key and its content (numbers of the skeletons' table).
pub(crate) type Entry = (usize, usize);

/// A definition placed: its key and the blank lines above it (a content number whose
/// lead to use).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placed {
    /// The key's number.
    pub key: usize,
    /// The content number whose lead goes above it.
    pub lead_of: usize,
}

/// Where a key is in the file, per side (not only in this stretch).
pub(crate) struct Presence<'p> {
    /// Whether our version has the key anywhere.
    pub ours: &'p dyn Fn(usize) -> bool,
    /// Whether theirs has it anywhere.
    pub theirs: &'p dyn Fn(usize) -> bool,
}

fn find(side: &[Entry], key: usize) -> Option<usize> {
    side.iter().find(|e| e.0 == key).map(|e| e.1)
}

/// The lead of a definition the three sides (or some) have here: the side that changed
/// it, ours when both did. `same(a, b)`: whether two contents have the same lead.
fn lead_of(
    key: usize,
    ours: &[Entry],
    base: &[Entry],
    theirs: &[Entry],
    same: &dyn Fn(usize, usize) -> bool,
) -> usize {
    match (find(ours, key), find(base, key), find(theirs, key)) {
        (Some(o), Some(b), Some(t)) if same(o, b) => t,
        (Some(o), _, _) => o,
        (None, _, Some(t)) => t,
        (None, Some(b), None) => b,
        (None, None, None) => unreachable!("a placed key is on some side"),
    }
}

/// The definitions of a stretch where git stopped, placed (see the module docs).
pub(crate) fn place(
    ours: &[Entry],
    base: &[Entry],
    theirs: &[Entry],
    presence: &Presence<'_>,
    same_lead: &dyn Fn(usize, usize) -> bool,
) -> Vec<Placed> {
    let here = |side: &[Entry], key: usize| side.iter().any(|e| e.0 == key);
    // (key, added here by ours)
    let mut out: Vec<(usize, bool)> = Vec::new();
    for &(key, _) in ours {
        let keep = if here(base, key) {
            here(theirs, key) || !(presence.theirs)(key)
        } else {
            true
        };
        if keep {
            out.push((key, !here(base, key)));
        }
    }
    for (i, &(key, _)) in theirs.iter().enumerate() {
        if here(ours, key) || (here(base, key) && (presence.ours)(key)) {
            continue;
        }
        // After the nearest definition before it on their side that is placed, and after
        // the definitions ours added right there.
        let after = theirs[..i]
            .iter()
            .rev()
            .find_map(|e| out.iter().position(|o| o.0 == e.0));
        let mut at = after.map_or(0, |p| p + 1);
        while at < out.len() && out[at].1 {
            at += 1;
        }
        out.insert(at, (key, false));
    }
    out.into_iter()
        .map(|(key, _)| Placed {
            key,
            lead_of: lead_of(key, ours, base, theirs, same_lead),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(placed: &[Placed]) -> Vec<usize> {
        placed.iter().map(|p| p.key).collect()
    }

    const EVERYWHERE: &dyn Fn(usize) -> bool = &|_| true;
    const NOWHERE: &dyn Fn(usize) -> bool = &|_| false;
    const SAME: &dyn Fn(usize, usize) -> bool = &|a, b| a == b;

    #[test]
    fn both_added_at_one_point_go_ours_first() {
        let p = Presence {
            ours: EVERYWHERE,
            theirs: EVERYWHERE,
        };
        let got = place(&[(1, 10)], &[], &[(2, 20)], &p, SAME);
        assert_eq!(keys(&got), [1, 2]);
        // After a definition both keep, each side's additions after it, ours first.
        let got = place(
            &[(0, 0), (1, 10), (3, 30)],
            &[(0, 0), (3, 30)],
            &[(0, 0), (2, 20), (3, 30)],
            &p,
            SAME,
        );
        assert_eq!(keys(&got), [0, 1, 2, 3]);
    }

    #[test]
    fn adjacent_changes_keep_their_places_and_the_changed_side_lead() {
        let p = Presence {
            ours: EVERYWHERE,
            theirs: EVERYWHERE,
        };
        // Key 0 changed by ours (content 1), key 5 by theirs (content 7).
        let got = place(
            &[(0, 1), (5, 6)],
            &[(0, 0), (5, 6)],
            &[(0, 0), (5, 7)],
            &p,
            SAME,
        );
        assert_eq!(
            got,
            [Placed { key: 0, lead_of: 1 }, Placed { key: 5, lead_of: 7 }]
        );
    }

    #[test]
    fn a_deletion_stays_for_the_definition_merge_and_a_move_follows_the_mover() {
        // Theirs deleted key 0 (nowhere in theirs): it stays here, for its own merge.
        let deleted = Presence {
            ours: EVERYWHERE,
            theirs: NOWHERE,
        };
        let got = place(
            &[(0, 1), (1, 2)],
            &[(0, 0), (1, 2)],
            &[(1, 3)],
            &deleted,
            SAME,
        );
        assert_eq!(keys(&got), [0, 1]);
        // Theirs moved key 0 elsewhere: it leaves this place.
        let moved = Presence {
            ours: EVERYWHERE,
            theirs: EVERYWHERE,
        };
        let got = place(
            &[(0, 1), (1, 2)],
            &[(0, 0), (1, 2)],
            &[(1, 3)],
            &moved,
            SAME,
        );
        assert_eq!(keys(&got), [1]);
        // Ours deleted key 0, theirs changed it: it stays, at their place.
        let ours_deleted = Presence {
            ours: NOWHERE,
            theirs: EVERYWHERE,
        };
        let got = place(
            &[(1, 2)],
            &[(0, 0), (1, 2)],
            &[(0, 5), (1, 3)],
            &ours_deleted,
            SAME,
        );
        assert_eq!(keys(&got), [0, 1]);
    }
}
