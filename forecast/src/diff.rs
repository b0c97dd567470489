//! How one file's definitions differ between the base and a checkout.
//!
//! Each definition is compared by its *own text*: its bytes with the bytes of the
//! definitions nested in it left out. So a class whose one method changed did not change
//! itself, and two checkouts editing two methods of one class (or two functions of one
//! file) change two different symbols: no collision. Text outside every definition
//! (imports, comments between functions) is no symbol's.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};
use wit_core::{Analysis, Symbol};

use crate::model::{Change, SymbolChange};

/// One version of a file: its text and its analysis.
#[derive(Debug, Clone, Copy)]
pub struct Version<'a> {
    /// The file's text.
    pub source: &'a str,
    /// Its analysis.
    pub analysis: &'a Analysis,
}

/// A definition of one version.
struct Def<'a> {
    symbol: &'a Symbol,
    /// Its address (`index#2`): what the graph and the protocol name it by.
    address: String,
    own: String,
}

/// The definitions of `version` by key (see [`SymbolChange::key`]), each with its
/// address and own text.
fn definitions<'a>(version: &Version<'a>) -> BTreeMap<String, Def<'a>> {
    let symbols = &version.analysis.symbols;
    // The enclosing definitions of each: a stack over the symbols in order of start
    // (outer before inner when two start together).
    let mut order: Vec<usize> = (0..symbols.len()).collect();
    order.sort_by_key(|&i| {
        (
            symbols[i].start_byte,
            std::cmp::Reverse(symbols[i].end_byte),
        )
    });
    let mut open: Vec<usize> = Vec::new();
    let mut keys: Vec<String> = vec![String::new(); symbols.len()];
    for i in order {
        let s = &symbols[i];
        while let Some(&top) = open.last() {
            let t = &symbols[top];
            if t.start_byte <= s.start_byte && s.end_byte <= t.end_byte {
                break;
            }
            open.pop();
        }
        let mut key: String = open
            .iter()
            .map(|&o| symbols[o].qualified_name() + "/")
            .collect();
        key.push_str(&s.qualified_name());
        key.push('#');
        key.push_str(s.kind.as_str());
        keys[i] = key;
        open.push(i);
    }
    let mut out: BTreeMap<String, Def<'a>> = BTreeMap::new();
    for (i, s) in symbols.iter().enumerate() {
        let mut key = std::mem::take(&mut keys[i]);
        // Two definitions alike in all of that (overloads): told apart by their order.
        if out.contains_key(&key) {
            let mut n = 2;
            while out.contains_key(&format!("{key}#{n}")) {
                n += 1;
            }
            key = format!("{key}#{n}");
        }
        let own = own_text(version.source, s, symbols);
        out.insert(
            key,
            Def {
                symbol: s,
                address: version.analysis.address_of(s),
                own,
            },
        );
    }
    out
}

/// One definition of a version as the forecast and the claims compare it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// What matches it with the same definition in another version (see
    /// [`SymbolChange::key`]).
    pub key: String,
    /// Its address in the file (`price`, `Cart.total`, `index#2`).
    pub name: String,
    /// What it is (`function`, `method`, `class`, …).
    pub kind: String,
    /// A digest of its own text (its text without its nested definitions).
    pub digest: String,
    /// Its own text, as digested: the pieces of its text around its nested definitions,
    /// each trimmed, joined by NUL.
    pub own: String,
    /// Its signature, for a callable.
    pub signature: Option<String>,
    /// One-based line where it starts.
    pub line: usize,
    /// Its UTF-8 byte range in the version (nested definitions included).
    pub range: std::ops::Range<usize>,
    /// The byte ranges of its own text: its range without the nested definitions'.
    pub own_ranges: Vec<std::ops::Range<usize>>,
    /// Its whole text, nested definitions included (for a short diff to show people).
    pub text: String,
}

/// The definitions of `version`, by key.
pub fn definitions_of(version: &Version<'_>) -> BTreeMap<String, Definition> {
    definitions(version)
        .into_iter()
        .map(|(key, d)| {
            let s = d.symbol;
            let text = version
                .source
                .get(s.start_byte..s.end_byte.min(version.source.len()))
                .unwrap_or_default()
                .to_owned();
            let def = Definition {
                key: key.clone(),
                name: d.address,
                kind: s.kind.as_str().to_owned(),
                digest: digest(&d.own),
                own: d.own,
                signature: s.signature.clone(),
                line: s.start_line + 1,
                range: s.start_byte..s.end_byte.min(version.source.len()),
                own_ranges: own_ranges(version.source, s, &version.analysis.symbols),
                text,
            };
            (key, def)
        })
        .collect()
}

/// `text` with the first whole-word occurrence of `from` replaced by `to` (a name inside
/// a longer word, such as `de` in `def`, is not that name).
fn replace_word(text: &str, from: &str, to: &str) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
    let mut at = 0;
    while let Some(i) = text[at..].find(from).map(|i| i + at) {
        let before = text[..i].chars().next_back();
        let after = text[i + from.len()..].chars().next();
        if !word(before) && !word(after) {
            return format!("{}{to}{}", &text[..i], &text[i + from.len()..]);
        }
        at = i + from.len();
    }
    text.to_owned()
}

/// `symbol`'s text without the text of the definitions nested in it: the pieces between
/// them, each trimmed, empty ones dropped. So adding or removing a method does not change
/// its class (the space it leaves is no piece), while a field added between two methods
/// does.
fn own_text(source: &str, symbol: &Symbol, all: &[Symbol]) -> String {
    own_pieces(
        own_ranges(source, symbol, all)
            .into_iter()
            .filter_map(|r| source.get(r)),
    )
}

/// The byte ranges of `symbol`'s own text (see [`own_text`]), in order; none when its
/// range is not a valid one of `source`.
fn own_ranges(source: &str, symbol: &Symbol, all: &[Symbol]) -> Vec<std::ops::Range<usize>> {
    let (start, end) = (symbol.start_byte, symbol.end_byte.min(source.len()));
    if start >= end || !source.is_char_boundary(start) || !source.is_char_boundary(end) {
        return Vec::new();
    }
    let mut inner: Vec<(usize, usize)> = all
        .iter()
        .filter(|o| {
            !std::ptr::eq(*o, symbol)
                && o.start_byte >= start
                && o.end_byte <= end
                && (o.start_byte, o.end_byte) != (start, end)
        })
        .map(|o| (o.start_byte, o.end_byte))
        .collect();
    inner.sort_unstable();
    let mut pieces = Vec::new();
    let mut at = start;
    for (s, e) in inner {
        if s < at {
            at = at.max(e); // nested within a nested definition already left out
            continue;
        }
        pieces.push(at..s);
        at = e;
    }
    pieces.push(at..end);
    pieces
}

/// The own text of a definition from its pieces (see [`own_text`]): each trimmed, empty
/// ones dropped, joined by NUL.
pub(crate) fn own_pieces<'a>(pieces: impl IntoIterator<Item = &'a str>) -> String {
    let kept: Vec<&str> = pieces
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    kept.join("\u{0}")
}

/// The digest of a definition's own text given as its pieces (the text between its nested
/// definitions, as [`Definition::own_ranges`] locates them in a version): what
/// [`Definition::digest`] is for the same pieces.
pub fn own_digest<'a>(pieces: impl IntoIterator<Item = &'a str>) -> String {
    digest(&own_pieces(pieces))
}

pub(crate) fn digest(text: &str) -> String {
    let d = Sha256::digest(text.as_bytes());
    d.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

fn change(def: &Def<'_>, key: &str, change: Change) -> SymbolChange {
    SymbolChange {
        name: def.address.clone(),
        key: key.to_owned(),
        kind: def.symbol.kind.as_str().to_owned(),
        change,
        from: None,
        before: None,
        after: None,
        line: def.symbol.start_line + 1,
        digest: None,
        calls: Vec::new(),
    }
}

/// The definitions of `current` that differ from `base`, in the order of the file
/// (removed ones after the others). `None` stands for a file absent in that version: a
/// file added has every definition added, a file deleted every one removed.
pub fn diff_symbols(base: Option<Version<'_>>, current: Option<Version<'_>>) -> Vec<SymbolChange> {
    let before = base.as_ref().map(definitions).unwrap_or_default();
    let after = current.as_ref().map(definitions).unwrap_or_default();

    let mut out: Vec<SymbolChange> = Vec::new();
    let mut added: Vec<(&String, &Def<'_>)> = Vec::new();
    for (key, now) in &after {
        match before.get(key) {
            None => added.push((key, now)),
            Some(was) => {
                let signature = was.symbol.signature != now.symbol.signature;
                if !signature && was.own == now.own {
                    continue;
                }
                let kind = if signature {
                    Change::Signature
                } else {
                    Change::Body
                };
                let mut c = change(now, key, kind);
                c.before = was.symbol.signature.clone();
                c.after = now.symbol.signature.clone();
                c.digest = Some(digest(&now.own));
                out.push(c);
            }
        }
    }
    let mut removed: Vec<(&String, &Def<'_>)> = before
        .iter()
        .filter(|(key, _)| !after.contains_key(*key))
        .collect();

    // A rename: a definition gone and one new of the same kind whose text is the old one
    // with the new name.
    let mut renamed_to: BTreeSet<usize> = BTreeSet::new();
    removed.retain(|(old_key, was)| {
        let found = added.iter().enumerate().find(|(i, (_, now))| {
            !renamed_to.contains(i)
                && now.symbol.kind == was.symbol.kind
                && now.symbol.name != was.symbol.name
                && replace_word(&was.own, &was.symbol.name, &now.symbol.name) == now.own
        });
        let Some((i, (_, now))) = found else {
            return true;
        };
        renamed_to.insert(i);
        let mut c = change(now, old_key, Change::Renamed);
        c.from = Some(was.address.clone());
        c.before = was.symbol.signature.clone();
        c.after = now.symbol.signature.clone();
        c.digest = Some(digest(&now.own));
        out.push(c);
        false
    });
    for (i, (key, now)) in added.iter().enumerate() {
        if renamed_to.contains(&i) {
            continue;
        }
        let mut c = change(now, key, Change::Added);
        c.after = now.symbol.signature.clone();
        c.digest = Some(digest(&now.own));
        out.push(c);
    }
    out.sort_by_key(|c| c.line);
    for (key, was) in removed {
        let mut c = change(was, key, Change::Removed);
        c.before = was.symbol.signature.clone();
        out.push(c);
    }
    out
}

/// The text of `version` outside its top-level definitions: each definition is replaced
/// by one marker line naming it, everything else is kept byte for byte. Two checkouts
/// whose edits of this text git cannot merge collide although no definition does (both
/// add an import on one line, both bump `__version__`, both edit one `describe(…)` block
/// of anonymous callbacks); edits inside definitions leave it as it was.
pub fn outside_text(version: &Version<'_>) -> String {
    let symbols = &version.analysis.symbols;
    let source = version.source;
    let mut top: Vec<&Symbol> = symbols
        .iter()
        .filter(|s| {
            !symbols.iter().any(|o| {
                !std::ptr::eq(o, *s)
                    && o.start_byte <= s.start_byte
                    && s.end_byte <= o.end_byte
                    && (o.start_byte, o.end_byte) != (s.start_byte, s.end_byte)
            })
        })
        .collect();
    top.sort_by_key(|s| s.start_byte);
    let mut out = String::with_capacity(source.len() / 4);
    let mut at = 0;
    for s in top {
        let (start, end) = (s.start_byte.min(source.len()), s.end_byte.min(source.len()));
        if start < at || !source.is_char_boundary(start) || !source.is_char_boundary(end) {
            continue; // two definitions over one range (an overload, a decorated one)
        }
        out.push_str(&source[at..start]);
        out.push('\u{1}');
        out.push_str(&s.qualified_name());
        at = end;
    }
    out.push_str(&source[at..]);
    out
}
