//! One level of a file cut into pieces: the definitions at that level (*units*) and the
//! lines between them.
//!
//! A unit is whole lines: from the start of its first line (its indentation included) to
//! the end of its last line (its newline included), widened upward over the comment and
//! attribute lines directly above it (`/** … */`, `///`, `#`, `@`: a doc comment moves
//! and merges with its definition). The blank lines directly above it are its *lead*,
//! kept apart: a definition added between two others brings its own blank line, and a
//! blank line added above a definition does not change the definition. Definitions that
//! share a line (`a() {} b() {}`) make one unit. Everything else is lines.
//!
//! Units are named by *key*: the definition's qualified name and kind
//! (`Shop.price#method`); a second definition with the same key at the same level is
//! `…#2` (a Python property's getter and setter), a unit of several definitions joins
//! their keys with `+`.

use wit_core::Symbol;

/// A definition, as the merge sees it: a byte range and a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Def {
    /// First byte, relative to the text the definition is part of.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// `qualified_name#kind`.
    pub key: String,
}

impl Def {
    /// The definitions of a file's symbols.
    pub fn of_symbols(symbols: &[Symbol]) -> Vec<Def> {
        symbols
            .iter()
            .map(|s| Def {
                start: s.start_byte,
                end: s.end_byte,
                key: format!("{}#{}", s.qualified_name(), s.kind.as_str()),
            })
            .collect()
    }
}

/// A definition (or several sharing lines) at one level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unit<'a> {
    /// Its name at this level (see the module docs).
    pub key: String,
    /// The blank lines directly above it.
    pub lead: &'a str,
    /// Its lines: attached comments, the definition, the rest of its last line.
    pub text: &'a str,
    /// The definitions inside it, relative to `text`: the next level down. Empty for a
    /// unit of several definitions, which is merged as a whole.
    pub inner: Vec<Def>,
}

/// A piece of a level: a unit, or one line (its newline included, except a last line
/// without one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    /// A line outside every unit.
    Line(&'a str),
    /// A unit.
    Unit(Unit<'a>),
}

/// Why a level cannot be cut into units: the analysis does not fit the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unfit(pub String);

/// A definition's span being built: its definitions, their extent and its lines.
struct Span {
    keys: Vec<String>,
    /// Where its (first) definition starts, and the furthest end of its definitions.
    def_start: usize,
    def_end: usize,
    /// Its whole lines.
    line_start: usize,
    line_end: usize,
    inner: Vec<Def>,
}

/// Whether a line above a definition belongs to it: a comment, an attribute or a
/// decorator, by its first characters (any language: a `#` is a Python comment and a
/// Rust attribute alike).
fn attaches(line: &str) -> bool {
    let t = line.trim_start();
    ["//", "/*", "*", "#", "@", "--"]
        .iter()
        .any(|p| t.starts_with(p))
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// The start of the line holding byte `at`.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The end of the line holding the byte before `end` (the byte after its newline, or the
/// text's end): a range ending right after a newline already ends a line.
fn line_end(text: &str, end: usize) -> usize {
    if end == 0 || text.as_bytes()[end - 1] == b'\n' {
        return end;
    }
    text[end..].find('\n').map_or(text.len(), |i| end + i + 1)
}

/// The line ending just before `at` (a line start), if it starts at or after `floor`.
fn line_above(text: &str, at: usize, floor: usize) -> Option<(usize, &str)> {
    if at == 0 || at <= floor {
        return None;
    }
    let start = line_start(text, at - 1);
    (start >= floor).then(|| (start, &text[start..at]))
}

/// Where a block comment (`/** … */`) ends one blank line above `at` (a line start) and
/// starts at or after `floor`: the start of its first line. Many projects leave a blank
/// line between a function and its JSDoc (express does); the comment is still the
/// function's.
fn doc_block_above(text: &str, at: usize, floor: usize) -> Option<usize> {
    let (blank, line) = line_above(text, at, floor)?;
    if !is_blank(line) {
        return None;
    }
    let (mut start, last) = line_above(text, blank, floor)?;
    if !last.trim_end().ends_with("*/") {
        return None;
    }
    let mut line = last;
    loop {
        if line.trim_start().starts_with("/*") {
            return Some(start);
        }
        let (above, l) = line_above(text, start, floor)?;
        if is_blank(l) {
            return None;
        }
        (start, line) = (above, l);
    }
}

/// Cuts `text` into units and lines, from its definitions `defs` (relative to `text`; the
/// definition whose text this is must not be among them).
pub(crate) fn segment<'a>(text: &'a str, defs: &[Def]) -> Result<Vec<Piece<'a>>, Unfit> {
    for d in defs {
        if d.start > d.end
            || d.end > text.len()
            || !text.is_char_boundary(d.start)
            || !text.is_char_boundary(d.end)
        {
            return Err(Unfit(format!(
                "{} has the range {}..{} in a text of {} bytes",
                d.key,
                d.start,
                d.end,
                text.len()
            )));
        }
    }
    let mut order: Vec<&Def> = defs.iter().collect();
    order.sort_by_key(|d| (d.start, std::cmp::Reverse(d.end)));
    let mut spans: Vec<Span> = Vec::new();
    for d in order {
        if let Some(last) = spans.last_mut() {
            if d.start < last.def_end && d.end <= last.def_end {
                // Nested in the last definition: the next level down.
                // (A second definition over the very same range is the same unit.)
                if (d.start, d.end) != (last.def_start, last.def_end) {
                    last.inner.push(Def {
                        start: d.start,
                        end: d.end,
                        key: d.key.clone(),
                    });
                }
                continue;
            }
            let (ls, le) = (line_start(text, d.start), line_end(text, d.end));
            if d.start < last.def_end || ls < last.line_end {
                // Overlapping, or on a line of the last one: one unit of both.
                last.keys.push(d.key.clone());
                last.def_end = last.def_end.max(d.end);
                last.line_end = last.line_end.max(le);
                continue;
            }
            spans.push(Span {
                keys: vec![d.key.clone()],
                def_start: d.start,
                def_end: d.end,
                line_start: ls,
                line_end: le,
                inner: Vec::new(),
            });
        } else {
            spans.push(Span {
                keys: vec![d.key.clone()],
                def_start: d.start,
                def_end: d.end,
                line_start: line_start(text, d.start),
                line_end: line_end(text, d.end),
                inner: Vec::new(),
            });
        }
    }

    let mut pieces = Vec::new();
    let mut at = 0;
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for span in spans {
        let mut start = span.line_start;
        while let Some((above, line)) = line_above(text, start, at) {
            if is_blank(line) || !attaches(line) {
                break;
            }
            start = above;
        }
        if start == span.line_start
            && let Some(doc) = doc_block_above(text, start, at)
        {
            start = doc;
        }
        let mut lead_start = start;
        while let Some((above, line)) = line_above(text, lead_start, at) {
            if !is_blank(line) {
                break;
            }
            lead_start = above;
        }
        push_lines(&mut pieces, &text[at..lead_start]);
        let mut key = span.keys.join("+");
        let n = seen.entry(key.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            key = format!("{key}#{n}");
        }
        let inner = if span.keys.len() == 1 {
            span.inner
                .into_iter()
                .map(|d| Def {
                    start: d.start - start,
                    end: d.end - start,
                    key: d.key,
                })
                .collect()
        } else {
            Vec::new()
        };
        pieces.push(Piece::Unit(Unit {
            key,
            lead: &text[lead_start..start],
            text: &text[start..span.line_end],
            inner,
        }));
        at = span.line_end;
    }
    push_lines(&mut pieces, &text[at..]);
    Ok(pieces)
}

/// `text` as one piece per line.
fn push_lines<'a>(pieces: &mut Vec<Piece<'a>>, text: &'a str) {
    pieces.extend(text.split_inclusive('\n').map(Piece::Line));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(text: &str, from: &str, to: &str, key: &str) -> Def {
        let start = text.find(from).unwrap();
        let end = text[start..].find(to).unwrap() + start + to.len();
        Def {
            start,
            end,
            key: key.to_owned(),
        }
    }

    fn shape(pieces: &[Piece<'_>]) -> Vec<String> {
        pieces
            .iter()
            .map(|p| match p {
                Piece::Line(l) => format!("line {l:?}"),
                Piece::Unit(u) => format!("unit {} lead {:?} text {:?}", u.key, u.lead, u.text),
            })
            .collect()
    }

    #[test]
    fn units_take_whole_lines_their_doc_comments_and_blank_lines_as_lead() {
        let text =
            "import x\n\n/** doc */\nexport function f() {\n}\n\n\nfunction g() {}\n// tail\n";
        let defs = [
            def(text, "export function f", "}", "f#function"),
            def(text, "function g", "{}", "g#function"),
        ];
        let pieces = segment(text, &defs).unwrap();
        assert_eq!(
            shape(&pieces),
            [
                "line \"import x\\n\"",
                "unit f#function lead \"\\n\" text \"/** doc */\\nexport function f() {\\n}\\n\"",
                "unit g#function lead \"\\n\\n\" text \"function g() {}\\n\"",
                "line \"// tail\\n\"",
            ]
        );
        // Nothing is lost or reordered.
        let joined: String = pieces
            .iter()
            .map(|p| match p {
                Piece::Line(l) => l.to_string(),
                Piece::Unit(u) => format!("{}{}", u.lead, u.text),
            })
            .collect();
        assert_eq!(joined, text);
    }

    #[test]
    fn a_block_comment_one_blank_line_above_is_the_definitions() {
        let text = "var x = 1;\n\n/**\n * Status.\n */\n\nres.status = function status() {\n};\n";
        let defs = [def(text, "res.status", "};", "res.status#function")];
        let pieces = segment(text, &defs).unwrap();
        assert_eq!(
            shape(&pieces),
            [
                "line \"var x = 1;\\n\"",
                "unit res.status#function lead \"\\n\" text \"/**\\n * Status.\\n */\\n\\nres.status = function status() {\\n};\\n\"",
            ]
        );
        // Two blank lines, or a line comment: not attached.
        let text = "/** a */\n\n\nfunction f() {}\n";
        let pieces = segment(text, &[def(text, "function f", "{}", "f#function")]).unwrap();
        assert_eq!(pieces.len(), 2, "{pieces:?}");
    }

    #[test]
    fn nested_definitions_are_the_next_level_and_shared_lines_one_unit() {
        let text = "class A {\n  m() {}\n  n() {}\n}\nfunction p() {} function q() {}\n";
        let defs = [
            def(text, "class A", "}\n}", "A#class"),
            def(text, "m()", "{}", "A.m#method"),
            def(text, "n()", "{}", "A.n#method"),
            def(text, "function p", "{}", "p#function"),
            def(text, "function q", "{}", "q#function"),
        ];
        let pieces = segment(text, &defs).unwrap();
        let Piece::Unit(a) = &pieces[0] else {
            panic!("{pieces:?}")
        };
        assert_eq!(a.key, "A#class");
        assert_eq!(
            a.inner
                .iter()
                .map(|d| &a.text[d.start..d.end])
                .collect::<Vec<_>>(),
            ["m() {}", "n() {}"]
        );
        let Piece::Unit(pq) = &pieces[1] else {
            panic!("{pieces:?}")
        };
        assert_eq!(pq.key, "p#function+q#function");
        assert!(pq.inner.is_empty());
    }

    #[test]
    fn a_second_definition_of_a_key_is_numbered_and_a_bad_range_refused() {
        let text = "def x(self):\n    pass\n\ndef x(self, v):\n    pass\n";
        let first = def(text, "def x(self)", "pass", "x#method");
        let mut second = def(text, "def x(self, v)", "pass", "x#method");
        let pieces = segment(text, &[first.clone(), second.clone()]).unwrap();
        let keys: Vec<&str> = pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Unit(u) => Some(u.key.as_str()),
                Piece::Line(_) => None,
            })
            .collect();
        assert_eq!(keys, ["x#method", "x#method#2"]);
        second.end = text.len() + 1;
        assert!(segment(text, &[first, second]).is_err());
    }
}
