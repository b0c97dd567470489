//! A level as git's line merge sees it: every unit one line naming it and its content,
//! every other line as it is (the *skeleton*), and git's diff3 answer on three skeletons
//! read back into chunks.
//!
//! On skeletons, git's line merge merges the text outside the definitions as it would in
//! the file, and sees a unit's change as a change of its one line. So an edit of `price`
//! and an edit of `tax` on the next line meet only as two adjacent changed lines: a
//! conflict the caller resolves unit by unit (`place.rs`), where git's merge of the file
//! stops.

use std::collections::HashMap;

use crate::line::Markers;
use crate::units::{Piece, Unfit};

/// The units of the three versions of a level, numbered: each key, and each distinct
/// (lead, text) of a unit, once.
#[derive(Default)]
pub(crate) struct Table<'a> {
    keys: Vec<String>,
    key_ids: HashMap<String, usize>,
    contents: Vec<(&'a str, &'a str)>,
    content_ids: HashMap<(&'a str, &'a str), usize>,
}

impl<'a> Table<'a> {
    /// The number of `key`.
    pub fn key_id(&mut self, key: &str) -> usize {
        if let Some(&id) = self.key_ids.get(key) {
            return id;
        }
        self.keys.push(key.to_owned());
        self.key_ids.insert(key.to_owned(), self.keys.len() - 1);
        self.keys.len() - 1
    }

    fn content_id(&mut self, lead: &'a str, text: &'a str) -> usize {
        *self.content_ids.entry((lead, text)).or_insert_with(|| {
            self.contents.push((lead, text));
            self.contents.len() - 1
        })
    }

    /// The key numbered `id`.
    pub fn key(&self, id: usize) -> &str {
        &self.keys[id]
    }

    /// How many keys there are.
    pub fn key_count(&self) -> usize {
        self.keys.len()
    }

    /// The (lead, text) numbered `id`.
    pub fn content(&self, id: usize) -> (&'a str, &'a str) {
        self.contents[id]
    }
}

/// What a skeleton line stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Line {
    /// A line of text outside the units, its newline included.
    Text(String),
    /// A unit: its key's number, and its (lead, text)'s.
    Unit {
        /// The key's number in the [`Table`].
        key: usize,
        /// The content's number in the [`Table`].
        content: usize,
    },
}

/// A stretch of git's merge of three skeletons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Chunk {
    /// Merged: the lines as git chose them.
    Clean(Vec<Line>),
    /// Where git stopped: each side's lines.
    Conflict {
        /// Our lines.
        ours: Vec<Line>,
        /// The common ancestor's.
        base: Vec<Line>,
        /// Theirs.
        theirs: Vec<Line>,
    },
}

/// How the skeletons of one merge mark units and conflicts: with a prefix that none of
/// the three texts contains, and a marker length longer than any line of `=` in them, so
/// that no line of the files can be mistaken for either.
pub(crate) struct Notation {
    prefix: String,
    /// The markers of the skeletons' merge.
    pub markers: Markers,
}

impl Notation {
    /// A notation for merging `texts`.
    pub fn for_texts(texts: [&str; 3]) -> Notation {
        let mut n = 0u32;
        let prefix = loop {
            let p = format!("\u{1}wit{n}:");
            if texts.iter().all(|t| !t.contains(&p)) {
                break p;
            }
            n += 1;
        };
        let longest_rule = texts
            .iter()
            .flat_map(|t| t.lines())
            .map(str::trim_end)
            .filter(|l| !l.is_empty() && l.bytes().all(|b| b == b'='))
            .map(str::len)
            .max()
            .unwrap_or(0);
        let markers = Markers {
            ours: format!("{prefix}ours"),
            base: format!("{prefix}base"),
            theirs: format!("{prefix}theirs"),
            size: (longest_rule + 1).max(7),
        };
        Notation { prefix, markers }
    }

    /// What starts every unit's line: a text none of the three versions contains.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The skeleton of one version's `pieces`: every line ends with a newline (a last
    /// line without one gets one; the caller keeps whether the file ended with one).
    pub fn skeleton<'a>(&self, pieces: &[Piece<'a>], table: &mut Table<'a>) -> String {
        let mut out = String::new();
        for piece in pieces {
            match piece {
                Piece::Line(l) => {
                    out.push_str(l);
                    if !l.ends_with('\n') {
                        out.push('\n');
                    }
                }
                Piece::Unit(u) => {
                    let key = table.key_id(&u.key);
                    let content = table.content_id(u.lead, u.text);
                    out.push_str(&format!("{}{key}.{content}\n", self.prefix));
                }
            }
        }
        out
    }

    fn line(&self, raw: &str) -> Line {
        let unit = raw
            .strip_prefix(self.prefix.as_str())
            .map(|rest| rest.trim_end_matches(['\n', '\r']))
            .and_then(|rest| rest.split_once('.'))
            .and_then(|(k, c)| Some((k.parse().ok()?, c.parse().ok()?)));
        match unit {
            Some((key, content)) => Line::Unit { key, content },
            None => Line::Text(raw.to_owned()),
        }
    }

    /// git's diff3 merge of three skeletons, read back into chunks.
    pub fn chunks(&self, merged: &str) -> Result<Vec<Chunk>, Unfit> {
        let m = &self.markers;
        let marker = |c: char, label: &str| {
            let mut s = c.to_string().repeat(m.size);
            if !label.is_empty() {
                s.push(' ');
                s.push_str(label);
            }
            s
        };
        let (start, mid, sep, end) = (
            marker('<', &m.ours),
            marker('|', &m.base),
            marker('=', ""),
            marker('>', &m.theirs),
        );
        enum State {
            Clean,
            Ours,
            Base,
            Theirs,
        }
        let mut state = State::Clean;
        let mut chunks = Vec::new();
        let mut clean = Vec::new();
        let (mut ours, mut base, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
        for raw in merged.split_inclusive('\n') {
            let bare = raw.trim_end_matches(['\n', '\r']);
            match state {
                State::Clean if bare == start => {
                    if !clean.is_empty() {
                        chunks.push(Chunk::Clean(std::mem::take(&mut clean)));
                    }
                    state = State::Ours;
                }
                State::Clean => clean.push(self.line(raw)),
                State::Ours if bare == mid => state = State::Base,
                State::Ours => ours.push(self.line(raw)),
                State::Base if bare == sep => state = State::Theirs,
                State::Base => base.push(self.line(raw)),
                State::Theirs if bare == end => {
                    chunks.push(Chunk::Conflict {
                        ours: std::mem::take(&mut ours),
                        base: std::mem::take(&mut base),
                        theirs: std::mem::take(&mut theirs),
                    });
                    state = State::Clean;
                }
                State::Theirs => theirs.push(self.line(raw)),
            }
        }
        if !matches!(state, State::Clean) {
            return Err(Unfit(
                "git's merge of the skeletons ends inside a conflict".into(),
            ));
        }
        if !clean.is_empty() {
            chunks.push(Chunk::Clean(clean));
        }
        Ok(chunks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Unit;

    #[test]
    fn the_notation_avoids_the_texts_and_reads_diff3_back() {
        let texts = ["a\n\u{1}wit0:x\n", "====\n", ""];
        let n = Notation::for_texts(texts);
        assert_eq!(n.prefix, "\u{1}wit1:");
        assert_eq!(n.markers.size, 7);
        let long = Notation::for_texts(["==========\n", "", ""]);
        assert_eq!(long.markers.size, 11);

        let mut table = Table::default();
        let pieces = [
            Piece::Line("top\n"),
            Piece::Unit(Unit {
                key: "f#function".into(),
                lead: "\n",
                text: "function f() {}\n",
                inner: Vec::new(),
            }),
            Piece::Line("end"),
        ];
        let skeleton = n.skeleton(&pieces, &mut table);
        assert_eq!(skeleton, "top\n\u{1}wit1:0.0\nend\n");
        let merged = format!(
            "top\n<<<<<<< {p}ours\n{p}0.0\n||||||| {p}base\n=======\nx\r\n>>>>>>> {p}theirs\nend\n",
            p = n.prefix
        );
        let chunks = n.chunks(&merged).unwrap();
        assert_eq!(
            chunks,
            [
                Chunk::Clean(vec![Line::Text("top\n".into())]),
                Chunk::Conflict {
                    ours: vec![Line::Unit { key: 0, content: 0 }],
                    base: vec![],
                    theirs: vec![Line::Text("x\r\n".into())],
                },
                Chunk::Clean(vec![Line::Text("end\n".into())]),
            ]
        );
        assert!(n.chunks(&format!("<<<<<<< {}ours\n", n.prefix)).is_err());
    }
}
