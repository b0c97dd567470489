//! Where git's line merge of a file stops, in each side's lines, so that a textual
//! forecast can say why in terms of the definitions each side changed ("adjacent changes
//! of `price` and `tax`").
//!
//! git's verdict itself always comes from git (`git merge-file`, run by the caller): this
//! only locates it. xdiff's three-way merge (what `git merge-file` and `git merge` run)
//! diffs the base against each side and stops wherever a change of one side overlaps or
//! *touches* a change of the other in the base's lines, unless both made the very same
//! change. The same rule is applied here to the two diffs, computed in-process with the
//! patience diff (`similar`), a close relative of the histogram diff git's merge uses: a
//! hunk boundary may occasionally fall a line apart from git's, which moves a reason, never
//! the verdict. When nothing is located, the forecast says git stops without naming where.

use std::ops::Range;

use similar::{Algorithm, DiffOp, TextDiff};

/// One place where the two sides' changes of a file collide: the lines of each side's
/// version that its colliding change wrote (one-based, end exclusive; an empty range
/// `n..n` is a deletion just before line `n`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Region {
    /// In the first side's version.
    pub a: Range<usize>,
    /// In the second side's version.
    pub b: Range<usize>,
}

/// One changed stretch of a side against the base, zero-based lines.
#[derive(Debug, Clone)]
struct Hunk {
    base: Range<usize>,
    side: Range<usize>,
}

/// The stretches of `side` that differ from `base`.
fn hunks(base: &str, side: &str) -> Vec<Hunk> {
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Patience)
        .diff_lines(base, side);
    let mut out: Vec<Hunk> = Vec::new();
    let mut open: Option<Hunk> = None;
    for op in diff.ops() {
        match op {
            DiffOp::Equal { .. } => {
                if let Some(h) = open.take() {
                    out.push(h);
                }
            }
            _ => {
                let (b, s) = (op.old_range(), op.new_range());
                match &mut open {
                    Some(h) => {
                        h.base.end = b.end;
                        h.side.end = s.end;
                    }
                    None => open = Some(Hunk { base: b, side: s }),
                }
            }
        }
    }
    out.extend(open);
    out
}

/// The lines `range` of `text` (zero-based), for comparing two changes' new text.
fn lines<'t>(text: &'t [&'t str], range: &Range<usize>) -> &'t [&'t str] {
    text.get(range.clone()).unwrap_or_default()
}

/// Where the changes of `a` and `b` (both from `base`) collide by xdiff's rule (see the
/// module docs), in order.
pub fn colliding_regions(base: &str, a: &str, b: &str) -> Vec<Region> {
    let (ha, hb) = (hunks(base, a), hunks(base, b));
    let split =
        |t: &'_ str| -> Vec<String> { t.split_inclusive('\n').map(str::to_owned).collect() };
    let (la, lb) = (split(a), split(b));
    let la: Vec<&str> = la.iter().map(String::as_str).collect();
    let lb: Vec<&str> = lb.iter().map(String::as_str).collect();
    let mut out: Vec<Region> = Vec::new();
    for x in &ha {
        for y in hb
            .iter()
            .filter(|y| x.base.start <= y.base.end && y.base.start <= x.base.end)
        {
            // The very same change on both sides merges cleanly.
            if x.base == y.base && lines(&la, &x.side) == lines(&lb, &y.side) {
                continue;
            }
            let region = Region {
                a: x.side.start + 1..x.side.end + 1,
                b: y.side.start + 1..y.side.end + 1,
            };
            if !out.contains(&region) {
                out.push(region);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_changes_collide_changes_a_line_apart_do_not() {
        let base = "a\nb\nc\nd\n";
        // The second and the third line: touching.
        let got = colliding_regions(base, "a\nB\nc\nd\n", "a\nb\nC\nd\n");
        assert_eq!(got, [Region { a: 2..3, b: 3..4 }]);
        // The second and the fourth: one unchanged line between them.
        assert!(colliding_regions(base, "a\nB\nc\nd\n", "a\nb\nc\nD\n").is_empty());
        // The very same change: git merges it.
        assert!(colliding_regions(base, "a\nB\nc\nd\n", "a\nB\nc\nd\n").is_empty());
        // Both inserting at one place.
        let got = colliding_regions(base, "a\nx\nb\nc\nd\n", "a\ny\nb\nc\nd\n");
        assert_eq!(got, [Region { a: 2..3, b: 2..3 }]);
    }
}
