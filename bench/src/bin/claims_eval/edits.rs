//! One file as two sessions edit it, hunk by hunk: each side's commit is a list of git's
//! `-U0` hunks against the common base, and each hunk becomes the Claude Code `Edit` an
//! agent would make of the file as it is at that moment, with the other session's edits
//! in it.
//!
//! The file is kept as the base's lines with ranges of them replaced (*regions*), so that
//! a hunk of either side, in the base's line numbers, finds its place however many lines
//! the other session's edits added above it. A hunk whose base lines the other session
//! already replaced (the two commits change the same lines) cannot be made as the commit
//! made it: the agent would re-read the file and make its change there; it is replayed
//! as keeping the other session's lines and putting its own new lines beside them
//! (*merged*), which changes the same definition without undoing the other's change.
//!
//! An `Edit`'s `old_string` must occur exactly once in the file (Claude Code refuses it
//! otherwise) and cannot be empty: the changed lines are widened by whole lines of
//! context, one above, then one below, and so on, until they are unique.

use wit_bench::history::git::Hunk;

/// The two sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Side {
    /// The older commit's session (C1), which edits first.
    A,
    /// The newer commit's (C2).
    B,
}

impl Side {
    /// The other session.
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

/// Most unchanged lines between two hunks made as one edit, by default: `git diff`'s
/// three lines of context join such hunks into one, and an agent changes such a region
/// in one `Edit` too (made hunk by hunk, a change such as removing an overload would leave
/// the file unparseable in between, which no agent's edit of it does).
pub const JOIN_GAP: usize = 6;

/// Hunks made as one edit: the range from the first one's start to the last one's end,
/// and the hunks themselves (what the line oracle reads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The whole range, old and new lines.
    pub span: Hunk,
    /// Its hunks.
    pub parts: Vec<Hunk>,
}

/// `hunks` (in order, of one file) joined where at most `gap` unchanged lines part them
/// (see [`JOIN_GAP`]; `None`: each hunk alone).
pub fn group(hunks: &[Hunk], gap: Option<usize>) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for h in hunks {
        if let (Some(g), Some(gap)) = (out.last_mut(), gap)
            && h.start.saturating_sub(g.span.start + g.span.len) <= gap
        {
            g.span.len = h.start + h.len - g.span.start;
            g.span.new_len = h.new_start + h.new_len - g.span.new_start;
            g.parts.push(*h);
            continue;
        }
        out.push(Group {
            span: *h,
            parts: vec![*h],
        });
    }
    out
}

/// `text` as lines, each with its line ending (the last one may have none), as git
/// numbers them.
pub fn lines(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(str::to_owned).collect()
}

/// A range of base lines and what replaces it now.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Region {
    start: usize,
    end: usize,
    lines: Vec<String>,
}

/// One session's hunk as made: its base range and its new lines.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Made {
    side: Side,
    start: usize,
    end: usize,
    lines: Vec<String>,
}

/// A file under both sessions' edits.
#[derive(Debug, Clone)]
pub struct FileState {
    base: Vec<String>,
    /// Disjoint, sorted by (start, end): an insertion sorts before a range starting at
    /// the same line, as it goes before that line.
    regions: Vec<Region>,
    made: Vec<Made>,
}

/// An edit ready to be made: the `Edit` payload's strings, and the state once made.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The `old_string`: unique in the file, never empty.
    pub old: String,
    /// The `new_string`.
    pub new: String,
    /// Whether the hunk's lines had been replaced by the other session (see the module
    /// documentation).
    pub merged: bool,
    /// How many lines of context were added to make `old` unique.
    pub context: usize,
    next: FileState,
}

impl Planned {
    /// The file's text once the edit is made.
    pub fn text_after(&self) -> String {
        self.next.text()
    }
}

/// Whether two base ranges collide: they share a line, or one is an insertion strictly
/// inside the other, or both insert at one place.
fn overlaps(a: (usize, usize), b: (usize, usize)) -> bool {
    match (a.0 == a.1, b.0 == b.1) {
        (true, true) => a.0 == b.0,
        (true, false) => b.0 < a.0 && a.0 < b.1,
        (false, true) => a.0 < b.0 && b.0 < a.1,
        (false, false) => a.0 < b.1 && b.0 < a.1,
    }
}

impl FileState {
    /// The file at the base, no edit made.
    pub fn new(base: &str) -> Self {
        FileState {
            base: lines(base),
            regions: Vec::new(),
            made: Vec::new(),
        }
    }

    fn render(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.base.len());
        let mut at = 0;
        for r in &self.regions {
            out.extend_from_slice(&self.base[at..r.start]);
            out.extend(r.lines.iter().cloned());
            at = r.end;
        }
        out.extend_from_slice(&self.base[at..]);
        out
    }

    /// The file's text now.
    pub fn text(&self) -> String {
        self.render().concat()
    }

    /// What `side` believes the file holds if it read it before any edit of the other
    /// session's and never again: the base with its own hunks as it made them. Written
    /// back whole, this is the lost update of a stale read.
    pub fn stale(&self, side: Side) -> String {
        let mut own: Vec<&Made> = self.made.iter().filter(|m| m.side == side).collect();
        own.sort_by_key(|m| (m.start, m.end));
        let mut out = String::new();
        let mut at = 0;
        for m in own {
            out.push_str(&self.base[at..m.start].concat());
            out.push_str(&m.lines.concat());
            at = m.end;
        }
        out.push_str(&self.base[at..].concat());
        out
    }

    /// Where base line `line` is in the file now, counting the regions that end at or
    /// before it (`except` excluded).
    fn position(&self, line: usize, except: &[usize]) -> usize {
        let mut shift: isize = 0;
        for (i, r) in self.regions.iter().enumerate() {
            if r.end <= line && !except.contains(&i) {
                shift += r.lines.len() as isize - (r.end - r.start) as isize;
            }
        }
        (line as isize + shift) as usize
    }

    /// The edit that makes `group` of `side` (`side_lines`: the side's version of the
    /// file, where the group's new lines are) on the file as it is now; `None` when it
    /// would change nothing. The edit replaces the group's whole range; the other
    /// session's edits inside it are kept, and a hunk that meets one of them is put beside
    /// it (see the module documentation).
    pub fn plan(&self, side: Side, group: &Group, side_lines: &[String]) -> Option<Planned> {
        let span = (group.span.start, group.span.start + group.span.len);
        let over: Vec<usize> = self
            .regions
            .iter()
            .enumerate()
            .filter(|(_, r)| overlaps((r.start, r.end), span))
            .map(|(i, _)| i)
            .collect();
        let now = self.render();
        let (start, end) = over.iter().fold(span, |(s, e), &i| {
            (s.min(self.regions[i].start), e.max(self.regions[i].end))
        });
        // The span of the file now that the edit replaces.
        let from = self.position(start, &over);
        let replaced: usize = over
            .iter()
            .map(|&i| self.regions[i].end - self.regions[i].start)
            .sum();
        let kept: usize = over.iter().map(|&i| self.regions[i].lines.len()).sum();
        let to = from + (end - start) - replaced + kept;
        // What replaces it: the other session's edits in it and the group's hunks, in
        // the order of the base's lines; where a hunk meets one of theirs, side by side
        // (theirs first when they start together).
        let part_lines = |h: &Hunk| side_lines[h.new_start..h.new_start + h.new_len].to_vec();
        let mut items: Vec<(usize, usize, Vec<String>)> = over
            .iter()
            .map(|&i| {
                let r = &self.regions[i];
                (r.start, r.end, r.lines.clone())
            })
            .collect();
        items.extend(
            group
                .parts
                .iter()
                .map(|h| (h.start, h.start + h.len, part_lines(h))),
        );
        items.sort_by_key(|&(s, e, _)| (s, e));
        let mut clusters: Vec<(usize, usize, Vec<String>, usize)> = Vec::new();
        for (s, e, lines) in items {
            match clusters.last_mut() {
                Some(c) if overlaps((c.0, c.1), (s, e)) => {
                    c.1 = c.1.max(e);
                    c.2.extend(lines);
                    c.3 += 1;
                }
                _ => clusters.push((s, e, lines, 1)),
            }
        }
        let mut with: Vec<String> = Vec::new();
        let mut at = start;
        for (s, e, lines, _) in &clusters {
            with.extend_from_slice(&self.base[at..*s]);
            with.extend(lines.iter().cloned());
            at = *e;
        }
        with.extend_from_slice(&self.base[at..end]);
        if now[from..to] == with[..] {
            return None;
        }
        let (old, new, context) = unique_edit(&now, from, to, &with)?;
        let mut next = self.clone();
        let mut regions: Vec<Region> = next
            .regions
            .iter()
            .enumerate()
            .filter(|(i, _)| !over.contains(i))
            .map(|(_, r)| r.clone())
            .collect();
        regions.push(Region {
            start,
            end,
            lines: with,
        });
        regions.sort_by_key(|r| (r.start, r.end));
        next.regions = regions;
        next.made.extend(group.parts.iter().map(|h| Made {
            side,
            start: h.start,
            end: h.start + h.len,
            lines: part_lines(h),
        }));
        Some(Planned {
            old,
            new,
            merged: clusters.iter().any(|c| c.3 > 1),
            context,
            next,
        })
    }

    /// The state once `planned` is made.
    pub fn commit(&mut self, planned: Planned) {
        *self = planned.next;
    }
}

/// Whether `needle` occurs exactly once in `text` (overlapping occurrences count).
fn unique(text: &str, needle: &str) -> bool {
    !needle.is_empty() && text.find(needle).is_some() && text.find(needle) == text.rfind(needle)
}

/// The `old_string` and `new_string` replacing lines `from .. to` of `now` by `with`,
/// widened by whole lines of context (above first, then alternately below) until the old
/// string is unique in the file and not empty; and how many lines were added. `None`
/// when even the whole file is empty.
pub fn unique_edit(
    now: &[String],
    from: usize,
    to: usize,
    with: &[String],
) -> Option<(String, String, usize)> {
    let text = now.concat();
    let (mut i, mut j) = (from, to);
    let mut above_next = true;
    loop {
        let old = now[i..j].concat();
        if unique(&text, &old) || (i == 0 && j == now.len()) {
            if old.is_empty() {
                return None;
            }
            let new = format!(
                "{}{}{}",
                now[i..from].concat(),
                with.concat(),
                now[to..j].concat()
            );
            return Some((old, new, (from - i) + (j - to)));
        }
        if (above_next && i > 0) || j == now.len() {
            i -= 1;
        } else {
            j += 1;
        }
        above_next = !above_next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(start: usize, len: usize, new_start: usize, new_len: usize) -> Hunk {
        Hunk {
            start,
            len,
            new_start,
            new_len,
        }
    }

    fn l(text: &str) -> Vec<String> {
        lines(text)
    }

    /// Makes `p` on `text` as Claude Code's Edit does: the one occurrence replaced.
    fn apply(text: &str, p: &Planned) -> String {
        assert!(
            unique(text, &p.old),
            "{:?} is not unique in {text:?}",
            p.old
        );
        text.replacen(&p.old, &p.new, 1)
    }

    #[test]
    fn an_old_string_is_widened_until_it_is_unique_and_never_empty() {
        let now = l("a\nx\nb\nx\nc\n");
        // The second `x` alone is not unique: one line above makes it so.
        let (old, new, context) = unique_edit(&now, 3, 4, &l("y\n")).unwrap();
        assert_eq!(
            (old.as_str(), new.as_str(), context),
            ("b\nx\n", "b\ny\n", 1)
        );
        // An insertion before line 1 has no old text: a line above it.
        let (old, new, _) = unique_edit(&now, 1, 1, &l("new\n")).unwrap();
        assert_eq!((old.as_str(), new.as_str()), ("a\n", "a\nnew\n"));
        // At the top, below is the only way.
        let (old, new, _) = unique_edit(&now, 0, 0, &l("top\n")).unwrap();
        assert_eq!((old.as_str(), new.as_str()), ("a\n", "top\na\n"));
        // Repeated blocks: widened on both sides until unique.
        let now = l("x\ny\nx\ny\nx\n");
        let (old, _, context) = unique_edit(&now, 2, 3, &l("z\n")).unwrap();
        assert!(unique(&now.concat(), &old), "{old:?}");
        assert!(context >= 2, "{context}");
        // An empty file: no Edit can be made.
        assert_eq!(unique_edit(&[], 0, 0, &l("a\n")), None);
    }

    /// One hunk as a group of its own.
    fn one(h: Hunk) -> Group {
        Group {
            span: h,
            parts: vec![h],
        }
    }

    #[test]
    fn both_sides_hunks_land_where_the_other_sides_edits_moved_them() {
        let base = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
        let a_side = l("import os\ndef f():\n    return 10\n\n\ndef g():\n    return 2\n");
        let b_side = l("def f():\n    return 1\n\n\ndef g():\n    return 20\n    # done\n");
        let mut file = FileState::new(base);
        let mut disk = base.to_owned();
        // A: insert the import at the top, then change f's body.
        for h in [hunk(0, 0, 0, 1), hunk(1, 1, 2, 1)] {
            let p = file.plan(Side::A, &one(h), &a_side).unwrap();
            assert!(!p.merged);
            disk = apply(&disk, &p);
            file.commit(p);
            assert_eq!(disk, file.text());
        }
        // B's hunk in base lines 5..6 lands below A's added line.
        let p = file.plan(Side::B, &one(hunk(5, 1, 5, 2)), &b_side).unwrap();
        disk = apply(&disk, &p);
        file.commit(p);
        assert_eq!(
            disk,
            "import os\ndef f():\n    return 10\n\n\ndef g():\n    return 20\n    # done\n"
        );
        assert_eq!(disk, file.text());
        // The stale reads: each side's own changes on the base, without the other's.
        assert_eq!(file.stale(Side::B), b_side.concat());
        assert_eq!(file.stale(Side::A), a_side.concat());
    }

    #[test]
    fn a_hunk_on_lines_the_other_side_replaced_keeps_their_lines_beside_its_own() {
        let base = "one\ntwo\nthree\nfour\n";
        let mut file = FileState::new(base);
        let mut disk = base.to_owned();
        let a_side = l("one\nTWO-THREE\nfour\n");
        let p = file.plan(Side::A, &one(hunk(1, 2, 1, 1)), &a_side).unwrap();
        disk = apply(&disk, &p);
        file.commit(p);
        // B changes line 2 (three), which A's hunk replaced.
        let b_side = l("one\ntwo\n3\nfour\n");
        let p = file.plan(Side::B, &one(hunk(2, 1, 2, 1)), &b_side).unwrap();
        assert!(p.merged);
        disk = apply(&disk, &p);
        file.commit(p);
        assert_eq!(disk, "one\nTWO-THREE\n3\nfour\n");
        assert_eq!(disk, file.text());
        // B's stale read knows nothing of A's line.
        assert_eq!(file.stale(Side::B), "one\ntwo\n3\nfour\n");
    }

    #[test]
    fn a_group_around_the_other_sides_edit_keeps_it_in_its_place() {
        let base = "a\nb\nc\nd\ne\n";
        let mut file = FileState::new(base);
        let mut disk = base.to_owned();
        // B first: a line inserted after c.
        let b_side = l("a\nb\nc\nnote\nd\ne\n");
        let p = file.plan(Side::B, &one(hunk(3, 0, 3, 1)), &b_side).unwrap();
        disk = apply(&disk, &p);
        file.commit(p);
        // A changes b and e, one edit around B's line.
        let a_side = l("a\nB\nc\nd\nE\n");
        let parts = vec![hunk(1, 1, 1, 1), hunk(4, 1, 4, 1)];
        let group = Group {
            span: hunk(1, 4, 1, 4),
            parts,
        };
        let p = file.plan(Side::A, &group, &a_side).unwrap();
        assert!(!p.merged, "no line of B's was replaced");
        disk = apply(&disk, &p);
        file.commit(p);
        assert_eq!(disk, "a\nB\nc\nnote\nd\nE\n");
        assert_eq!(disk, file.text());
        assert_eq!(file.stale(Side::A), a_side.concat());
    }

    #[test]
    fn a_hunk_that_changes_nothing_now_is_no_edit() {
        // Both delete line 1: once A has, B's deletion leaves the file as it is.
        let mut file = FileState::new("a\nb\n");
        let side = l("a\n");
        let p = file.plan(Side::A, &one(hunk(1, 1, 1, 0)), &side).unwrap();
        file.commit(p);
        assert!(file.plan(Side::B, &one(hunk(1, 1, 1, 0)), &side).is_none());
        assert_eq!(file.text(), "a\n");
    }

    #[test]
    fn hunks_a_few_lines_apart_are_one_edit_as_in_gits_diff() {
        let hunks = [
            hunk(2, 1, 2, 2),   // lines 2 → 2-3
            hunk(9, 0, 10, 1),  // 6 unchanged lines later: joined
            hunk(16, 2, 17, 0), // 7 unchanged lines later: apart
        ];
        let groups = group(&hunks, Some(JOIN_GAP));
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].span, hunk(2, 7, 2, 9));
        assert_eq!(groups[0].parts, hunks[..2]);
        assert_eq!(groups[1].span, hunks[2]);
        assert_eq!(group(&hunks, None).len(), 3);
    }

    #[test]
    fn ranges_collide_when_they_share_a_line_or_an_insertion_falls_inside() {
        assert!(overlaps((2, 5), (4, 8)));
        assert!(!overlaps((2, 5), (5, 8)));
        assert!(overlaps((3, 3), (2, 5)));
        assert!(!overlaps((2, 2), (2, 5)));
        assert!(!overlaps((5, 5), (2, 5)));
        assert!(overlaps((4, 4), (4, 4)));
        assert!(!overlaps((4, 4), (5, 5)));
    }
}
