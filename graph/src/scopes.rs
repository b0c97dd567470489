//! Which definition a plain name means at a line of its file: definitions nested in a
//! function are visible inside that function only (`processError` defined inside two
//! functions is two functions, each called from its own), top-level ones everywhere.

use wit_core::{Analysis, Symbol};

/// No enclosing definition.
pub(crate) const TOP: u32 = u32::MAX;

/// For each symbol of `analysis`, the index of the innermost other symbol whose range
/// strictly contains its own, or [`TOP`]. Two symbols with the very same range
/// (`const a = () => 1, b = () => 2;`) do not contain each other.
pub(crate) fn parents(analysis: &Analysis) -> Box<[u32]> {
    let symbols = &analysis.symbols;
    let contains = |outer: &Symbol, inner: &Symbol| {
        outer.start_byte <= inner.start_byte
            && inner.end_byte <= outer.end_byte
            && (outer.start_byte, outer.end_byte) != (inner.start_byte, inner.end_byte)
    };
    let mut order: Vec<usize> = (0..symbols.len()).collect();
    // Outer before inner: by start, then the longer first.
    order.sort_by_key(|&i| {
        (
            symbols[i].start_byte,
            std::cmp::Reverse(symbols[i].end_byte),
        )
    });
    let mut out = vec![TOP; symbols.len()];
    // The symbols whose range has not ended yet, outermost first.
    let mut open: Vec<usize> = Vec::new();
    for i in order {
        let s = &symbols[i];
        while open
            .last()
            .is_some_and(|&t| symbols[t].end_byte <= s.start_byte)
        {
            open.pop();
        }
        if let Some(&p) = open.iter().rev().find(|&&t| contains(&symbols[t], s)) {
            out[i] = p as u32;
        }
        open.push(i);
    }
    out.into_boxed_slice()
}

/// The definition named `name` (no container) that a plain call at `line` sees: the one
/// nested innermost around `line`, else the top-level one. Without a line (a lookup from
/// another file: an import), only a top-level one.
pub(crate) fn visible<'a>(
    analysis: &'a Analysis,
    parents: &[u32],
    name: &str,
    line: Option<usize>,
) -> Option<&'a Symbol> {
    let mut best: Option<(&Symbol, usize)> = None;
    for (i, s) in analysis.symbols.iter().enumerate() {
        if s.container.is_some() || s.name != name {
            continue;
        }
        let parent = parents.get(i).copied().unwrap_or(TOP);
        if parent == TOP {
            if best.is_none() {
                best = Some((s, usize::MAX));
            }
            continue;
        }
        let Some(line) = line else { continue };
        let p = &analysis.symbols[parent as usize];
        if p.start_line <= line && line <= p.end_line {
            let width = p.end_byte - p.start_byte;
            if best.is_none_or(|(_, w)| width < w) {
                best = Some((s, width));
            }
        }
    }
    best.map(|(s, _)| s)
}
