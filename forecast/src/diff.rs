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

/// A definition of one version, keyed by its address.
struct Def<'a> {
    symbol: &'a Symbol,
    own: String,
}

/// The definitions of `version` by address, each with its own text.
fn definitions<'a>(version: &Version<'a>) -> BTreeMap<String, Def<'a>> {
    let symbols = &version.analysis.symbols;
    symbols
        .iter()
        .map(|s| {
            let own = own_text(version.source, s, symbols);
            (version.analysis.address_of(s), Def { symbol: s, own })
        })
        .collect()
}

/// `symbol`'s text without the text of the definitions nested in it: the pieces between
/// them, each trimmed, empty ones dropped. So adding or removing a method does not change
/// its class (the space it leaves is no piece), while a field added between two methods
/// does.
fn own_text(source: &str, symbol: &Symbol, all: &[Symbol]) -> String {
    let (start, end) = (symbol.start_byte, symbol.end_byte.min(source.len()));
    if start >= end || !source.is_char_boundary(start) || !source.is_char_boundary(end) {
        return String::new();
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
    let mut pieces: Vec<&str> = Vec::new();
    let mut at = start;
    for (s, e) in inner {
        if s < at {
            at = at.max(e); // nested within a nested definition already left out
            continue;
        }
        pieces.extend(source.get(at..s));
        at = e;
    }
    pieces.extend(source.get(at..end));
    let kept: Vec<&str> = pieces
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect();
    kept.join("\u{0}")
}

pub(crate) fn digest(text: &str) -> String {
    let d = Sha256::digest(text.as_bytes());
    d.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

fn change(symbol: &Symbol, name: String, change: Change) -> SymbolChange {
    SymbolChange {
        name,
        kind: symbol.kind.as_str().to_owned(),
        change,
        from: None,
        before: None,
        after: None,
        line: symbol.start_line + 1,
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
    for (name, now) in &after {
        match before.get(name) {
            None => added.push((name, now)),
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
                let mut c = change(now.symbol, name.clone(), kind);
                c.before = was.symbol.signature.clone();
                c.after = now.symbol.signature.clone();
                c.digest = Some(digest(&now.own));
                out.push(c);
            }
        }
    }
    let mut removed: Vec<(&String, &Def<'_>)> = before
        .iter()
        .filter(|(name, _)| !after.contains_key(*name))
        .collect();

    // A rename: a definition gone and one new of the same kind whose text is the old one
    // with the new name.
    let mut renamed_to: BTreeSet<usize> = BTreeSet::new();
    removed.retain(|(old_name, was)| {
        let found = added.iter().enumerate().find(|(i, (_, now))| {
            !renamed_to.contains(i)
                && now.symbol.kind == was.symbol.kind
                && now.symbol.name != was.symbol.name
                && was.own.replacen(&was.symbol.name, &now.symbol.name, 1) == now.own
        });
        let Some((i, (new_name, now))) = found else {
            return true;
        };
        renamed_to.insert(i);
        let mut c = change(now.symbol, (*new_name).clone(), Change::Renamed);
        c.from = Some((*old_name).clone());
        c.before = was.symbol.signature.clone();
        c.after = now.symbol.signature.clone();
        c.digest = Some(digest(&now.own));
        out.push(c);
        false
    });
    for (i, (name, now)) in added.iter().enumerate() {
        if renamed_to.contains(&i) {
            continue;
        }
        let mut c = change(now.symbol, (*name).clone(), Change::Added);
        c.after = now.symbol.signature.clone();
        c.digest = Some(digest(&now.own));
        out.push(c);
    }
    out.sort_by_key(|c| c.line);
    for (name, was) in removed {
        let mut c = change(was.symbol, name.clone(), Change::Removed);
        c.before = was.symbol.signature.clone();
        out.push(c);
    }
    out
}
