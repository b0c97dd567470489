//! Which bytes of the current file an edit changes, as byte ranges of that content.
//!
//! The guard only needs to know *where* an edit lands, to ask the daemon which
//! definitions those bytes belong to (`symbols.at`). Ranges are half-open UTF-8 byte
//! ranges of the file's current content; an empty range is an insertion at that offset.
//! Every range is trimmed to the lines that really differ: an `Edit` whose `old_string`
//! carries a few anchor lines of a neighbouring function, unchanged in `new_string`, does
//! not touch that function.

/// A half-open byte range `[start, end)` of the current content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// First byte replaced (or the insertion offset).
    pub start: usize,
    /// One past the last byte replaced; `start` for an insertion.
    pub end: usize,
}

/// A range of the current content and the text that replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// What is replaced.
    pub range: Range,
    /// Its replacement.
    pub text: String,
}

/// The ranges replacing `old` by `new` changes in `content`, with the text that replaces
/// each: every occurrence when `all` (`replace_all`), else the first (an agent's edit tool
/// refuses an ambiguous one, so the first is the one it means whenever it succeeds).
/// `None` when `old` does not occur (or is empty): the edit cannot apply as written.
pub fn replacements(content: &str, old: &str, new: &str, all: bool) -> Option<Vec<Replaced>> {
    if old.is_empty() {
        return None;
    }
    let (prefix, suffix) = common_ends(old.as_bytes(), new.as_bytes());
    let text = new.get(prefix..new.len() - suffix)?.to_owned();
    let mut out = Vec::new();
    for (at, _) in content.match_indices(old) {
        out.push(Replaced {
            range: Range {
                start: at + prefix,
                end: at + old.len() - suffix,
            },
            text: text.clone(),
        });
        if !all {
            break;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The ranges of `old` that turning it into `new` changes, line by line, with the text of
/// `new` that replaces each: a line diff, each changed block trimmed to the bytes that
/// differ. Unchanged lines between two changes stay out, so a whole-file write that
/// touches two functions does not appear to touch everything between them.
pub fn diff_replaced(old: &str, new: &str) -> Vec<Replaced> {
    if old == new {
        return Vec::new();
    }
    let a = lines(old);
    let b = lines(new);
    // Common leading and trailing lines need no table.
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let max_tail = a.len().min(b.len()) - head;
    let tail = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_tail)
        .take_while(|(x, y)| x == y)
        .count();
    let (a_mid, b_mid) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let a_base = offset_of(&a, head);
    let b_base = offset_of(&b, head);
    let blocks = match lcs_blocks(a_mid, b_mid) {
        Some(blocks) => blocks,
        // Too large for the table: the middle as one changed block (over-approximates,
        // never misses a change).
        None => vec![Block {
            a: 0..a_mid.len(),
            b: 0..b_mid.len(),
        }],
    };
    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks {
        let a_start = a_base
            + a_mid[..block.a.start]
                .iter()
                .map(|l| l.len())
                .sum::<usize>();
        let a_len: usize = a_mid[block.a.clone()].iter().map(|l| l.len()).sum();
        let b_start = b_base
            + b_mid[..block.b.start]
                .iter()
                .map(|l| l.len())
                .sum::<usize>();
        let b_len: usize = b_mid[block.b.clone()].iter().map(|l| l.len()).sum();
        let old_text = &old.as_bytes()[a_start..a_start + a_len];
        let new_text = &new.as_bytes()[b_start..b_start + b_len];
        let (prefix, suffix) = common_ends(old_text, new_text);
        // Line boundaries on both sides: the slice is whole lines of `new`.
        let text = new
            .get(b_start + prefix..b_start + b_len - suffix)
            .unwrap_or_default()
            .to_owned();
        out.push(Replaced {
            range: Range {
                start: a_start + prefix,
                end: a_start + a_len - suffix,
            },
            text,
        });
    }
    out
}

/// Lengths of the common prefix and suffix of `a` and `b` (not overlapping in either),
/// both ending on line boundaries: the prefix ends just after a `\n`, the suffix starts
/// at the start of a line. Byte-exact trimming would be ambiguous at the seams —
/// inserting `function c() {}\nfunction ` before `function b` shares the bytes
/// `function ` with it, and an exact trim would land the insertion inside `b` — whereas
/// whole unchanged lines are never part of a change.
fn common_ends(a: &[u8], b: &[u8]) -> (usize, usize) {
    let bytes = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let prefix = a[..bytes]
        .iter()
        .rposition(|c| *c == b'\n')
        .map_or(0, |i| i + 1);
    let room = a.len().min(b.len()) - prefix;
    let bytes = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    let at_line_start = |text: &[u8], len: usize| {
        let start = text.len() - len;
        start == 0 || text[start - 1] == b'\n'
    };
    let suffix = if bytes == 0 || (at_line_start(a, bytes) && at_line_start(b, bytes)) {
        bytes
    } else {
        // Drop the partial line the common suffix starts with: after its first `\n`,
        // the rest starts a line in both.
        let tail = &a[a.len() - bytes..];
        tail.iter()
            .position(|c| *c == b'\n')
            .map_or(0, |i| bytes - i - 1)
    };
    (prefix, suffix)
}

/// The lines of `s`, each with its `\n` (the last one may lack it).
fn lines(s: &str) -> Vec<&str> {
    s.split_inclusive('\n').collect()
}

/// Byte offset of line `i` in the text split into `lines`.
fn offset_of(lines: &[&str], i: usize) -> usize {
    lines[..i].iter().map(|l| l.len()).sum()
}

/// One changed block: lines `a` of the old text became lines `b` of the new.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Block {
    a: std::ops::Range<usize>,
    b: std::ops::Range<usize>,
}

/// Largest LCS table (cells) the diff builds: 4 M cells of `u32` are 16 MB, a few
/// milliseconds; a bigger middle is treated as one block.
const MAX_CELLS: usize = 4 * 1024 * 1024;

/// The changed blocks between `a` and `b` from a longest common subsequence of lines;
/// `None` when the table would be too large.
fn lcs_blocks(a: &[&str], b: &[&str]) -> Option<Vec<Block>> {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return Some(if n == 0 && m == 0 {
            Vec::new()
        } else {
            vec![Block { a: 0..n, b: 0..m }]
        });
    }
    let width = m + 1;
    if (n + 1).checked_mul(width)? > MAX_CELLS {
        return None;
    }
    // table[i][j] = LCS length of a[i..] and b[j..].
    let mut table = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[i * width + j] = if a[i] == b[j] {
                table[(i + 1) * width + j + 1] + 1
            } else {
                table[(i + 1) * width + j].max(table[i * width + j + 1])
            };
        }
    }
    let mut blocks = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut open: Option<(usize, usize)> = None;
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            if let Some((si, sj)) = open.take() {
                blocks.push(Block { a: si..i, b: sj..j });
            }
            i += 1;
            j += 1;
            continue;
        }
        open.get_or_insert((i, j));
        if j >= m || (i < n && table[(i + 1) * width + j] >= table[i * width + j + 1]) {
            i += 1;
        } else {
            j += 1;
        }
    }
    if let Some((si, sj)) = open {
        blocks.push(Block { a: si..n, b: sj..m });
    }
    Some(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replacement(content: &str, old: &str, new: &str, all: bool) -> Option<Vec<Range>> {
        replacements(content, old, new, all).map(|r| r.into_iter().map(|r| r.range).collect())
    }

    fn diff(old: &str, new: &str) -> Vec<Range> {
        diff_replaced(old, new)
            .into_iter()
            .map(|r| r.range)
            .collect()
    }

    /// Applies `changes` (in order, not overlapping) to `old`.
    fn apply(old: &str, changes: &[Replaced]) -> String {
        let mut out = String::new();
        let mut at = 0;
        for c in changes {
            out.push_str(&old[at..c.range.start]);
            out.push_str(&c.text);
            at = c.range.end;
        }
        out.push_str(&old[at..]);
        out
    }

    #[test]
    fn the_replaced_ranges_with_their_texts_rebuild_the_new_content() {
        let old = "a\nb\nc\nd\ne\n";
        for new in [
            "a\nB\nc\nd\nE\n",
            "a\nx\nb\nc\n",
            "",
            "z\n",
            "a\nb\nc\nd\ne\nf",
        ] {
            assert_eq!(apply(old, &diff_replaced(old, new)), new, "{new:?}");
        }
        let content = "x = 1\ny = 1\n";
        let r = replacements(content, "1\ny", "2\ny", false).unwrap();
        assert_eq!(apply(content, &r), "x = 2\ny = 1\n");
        let r = replacements(content, "1", "3", true).unwrap();
        assert_eq!(apply(content, &r), "x = 3\ny = 3\n");
    }

    fn r(start: usize, end: usize) -> Range {
        Range { start, end }
    }

    #[test]
    fn a_replacement_is_trimmed_to_what_changes() {
        let content = "function a() {\n  return 1;\n}\nfunction b() {}\n";
        // The anchor "}\n" belongs to a; only the insertion after it changes.
        let ranges = replacement(
            content,
            "}\nfunction b",
            "}\nfunction c() {}\nfunction b",
            false,
        );
        let at = content.find("function b").unwrap();
        assert_eq!(ranges, Some(vec![r(at, at)]));
        // A real change inside a: the whole changed line of the occurrence.
        let ranges = replacement(content, "return 1;", "return 2;", false).unwrap();
        let at = content.find("return 1;").unwrap();
        assert_eq!(ranges, vec![r(at, at + 9)]);
        // Unchanged whole lines around the change are left out.
        let ranges = replacement(content, "{\n  return 1;\n}\n", "{\n  return 2;\n}\n", false);
        let at = content.find("  return").unwrap();
        assert_eq!(ranges, Some(vec![r(at, at + 12)]));
    }

    #[test]
    fn replace_all_finds_every_occurrence_and_a_missing_string_is_none() {
        let content = "x = 1\ny = 1\n";
        let all = replacement(content, "1", "2", true).unwrap();
        assert_eq!(all, vec![r(4, 5), r(10, 11)]);
        assert_eq!(
            replacement(content, "1", "2", false).unwrap(),
            vec![r(4, 5)]
        );
        assert_eq!(replacement(content, "zzz", "2", true), None);
        assert_eq!(replacement(content, "", "2", true), None);
    }

    #[test]
    fn a_line_diff_keeps_unchanged_lines_between_changes_out() {
        let old = "a\nb\nc\nd\ne\n";
        let new = "a\nB\nc\nd\nE\n";
        assert_eq!(diff(old, new), vec![r(2, 4), r(8, 10)]);
        assert_eq!(diff(old, old), vec![]);
    }

    #[test]
    fn a_line_diff_sees_insertions_and_deletions() {
        let old = "a\nb\nc\n";
        // Inserted line between a and b: an empty range at b's offset.
        assert_eq!(diff(old, "a\nx\nb\nc\n"), vec![r(2, 2)]);
        // Deleted line b.
        assert_eq!(diff(old, "a\nc\n"), vec![r(2, 4)]);
        // Appended without a final newline.
        assert_eq!(diff("a\n", "a\nb"), vec![r(2, 2)]);
        // Everything replaced.
        assert_eq!(diff("a\n", "b\n"), vec![r(0, 2)]);
        // To empty.
        assert_eq!(diff("a\nb\n", ""), vec![r(0, 4)]);
    }

    #[test]
    fn ranges_are_byte_offsets_in_utf8() {
        let content = "// é\nlet x = 1;\n";
        let ranges = replacement(content, "let x = 1;\n", "let x = 2;\n", false).unwrap();
        let at = content.find("let").unwrap();
        assert_eq!(at, 6, "after the two-byte é");
        assert_eq!(ranges, vec![r(at, at + 11)]);
    }
}
