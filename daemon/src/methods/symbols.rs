//! `symbols.at` (extension): the definitions a set of byte ranges of a file touches.
//!
//! Read-only. It exists for `wit guard`, the agents' pre-edit hook: the guard knows which
//! bytes of the current file an edit replaces, and asks which symbols those bytes belong
//! to, so that it can compare them with the locks. The file is analysed from disk with
//! the same service (and cache) as every other method, so the names are exactly the
//! canonical `file:qualifiedName` spellings locks are stored under.

use serde_json::{Map, Value, json};
use wit_core::{Analysis, Symbol};

use super::{Failure, validated};
use crate::analysis::FileOutcome;
use crate::params::{ByteRange, Params};
use crate::state::AppState;

/// Most ranges one request may carry: an edit touches a handful; a whole-file write that
/// differs everywhere is sent as one range by the guard.
pub(crate) const MAX_RANGES: usize = 10_000;

/// `symbols.at {file, ranges: [{startByte, endByte}]}` →
/// `{file, status, symbols: [{name, qualifiedName, kind, container?, startByte, endByte,
/// startLine, endLine, symbolPaths}]}`.
///
/// `status` is `analysed`, `notFound` (missing, or outside the repository), `unsupported`
/// (no analyzer for it) or `failed` (refused or not analysable; `reason` says why); only
/// an analysed file has symbols. A symbol is listed when one of the ranges intersects its
/// definition: `start < symbolEnd && end > symbolStart` for a non-empty range; an empty
/// range (an insertion at one offset) touches the definitions strictly containing the
/// offset, so inserting right before or after a function does not touch it. Nested
/// definitions are all listed (a method and its class), outermost first, in file order.
/// `symbolPaths` are the lock names that address this definition: the canonical
/// `file:qualifiedName` and, for a method that is the first definition of its bare name,
/// `file:name` too; a later duplicate's canonical path carries `#kind` or `#N`.
pub(crate) async fn at(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let file = p.req_file("file");
    let ranges = p.byte_ranges("ranges", MAX_RANGES);
    p.finish()?;
    let (file, ranges) = (validated(file)?, validated(ranges)?);
    let outcome = state.analyse_disk(vec![file.clone()]).await?;
    let outcome = outcome.into_iter().next().unwrap_or(FileOutcome::NotFound);
    Ok(match outcome {
        FileOutcome::NotFound => json!({"file": file, "status": "notFound", "symbols": []}),
        FileOutcome::Unsupported => json!({"file": file, "status": "unsupported", "symbols": []}),
        FileOutcome::Failed(reason) => {
            json!({"file": file, "status": "failed", "reason": reason, "symbols": []})
        }
        FileOutcome::Analysed(analysis) => {
            let symbols: Vec<Value> = touched(&analysis, &ranges)
                .map(|s| describe(&file, &analysis, s))
                .collect();
            json!({"file": file, "status": "analysed", "symbols": symbols})
        }
    })
}

/// Whether `range` touches the definition `s` (see [`at`]).
fn intersects(range: &ByteRange, s: &Symbol) -> bool {
    if range.start == range.end {
        s.start_byte < range.start && range.start < s.end_byte
    } else {
        range.start < s.end_byte && range.end > s.start_byte
    }
}

/// The definitions any of `ranges` touches, in file order.
fn touched<'a>(
    analysis: &'a Analysis,
    ranges: &'a [ByteRange],
) -> impl Iterator<Item = &'a Symbol> + 'a {
    let mut symbols: Vec<&Symbol> = analysis
        .symbols
        .iter()
        .filter(|s| ranges.iter().any(|r| intersects(r, s)))
        .collect();
    // Outermost first: by start, then the longer definition before the nested one.
    symbols.sort_by_key(|s| (s.start_byte, std::cmp::Reverse(s.end_byte)));
    symbols.into_iter()
}

fn describe(file: &str, analysis: &Analysis, s: &Symbol) -> Value {
    let qualified = s.qualified_name();
    // A name addresses this definition only when name resolution (the same `find` that
    // canonicalizes lock names) lands on it.
    let resolves = |name: &str| analysis.find(name).is_some_and(|d| std::ptr::eq(d, s));
    // The canonical address: the qualified name, or with `#kind`/`#N` for a definition
    // an earlier one shares a name with (the name its lock is stored under).
    let mut paths = vec![format!("{file}:{}", analysis.address_of(s))];
    if s.container.is_some() && resolves(&s.name) {
        paths.push(format!("{file}:{}", s.name));
    }
    let mut v = json!({
        "name": s.name,
        "qualifiedName": qualified,
        "kind": s.kind.as_str(),
        "startByte": s.start_byte,
        "endByte": s.end_byte,
        "startLine": s.start_line,
        "endLine": s.end_line,
        "symbolPaths": paths,
    });
    if let (Some(container), Some(obj)) = (&s.container, v.as_object_mut()) {
        obj.insert("container".into(), json!(container));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(start: usize, end: usize) -> Symbol {
        Symbol {
            name: "f".into(),
            kind: wit_core::SymbolKind::Function,
            container: None,
            start_byte: start,
            end_byte: end,
            start_line: 0,
            end_line: 0,
            signature: None,
        }
    }

    #[test]
    fn ranges_intersect_definitions_and_insertions_need_to_be_inside() {
        let s = sym(10, 20);
        let r = |start, end| ByteRange { start, end };
        assert!(intersects(&r(0, 11), &s));
        assert!(intersects(&r(19, 30), &s));
        assert!(intersects(&r(12, 13), &s));
        assert!(
            !intersects(&r(0, 10), &s),
            "ends where the definition starts"
        );
        assert!(
            !intersects(&r(20, 25), &s),
            "starts where the definition ends"
        );
        assert!(intersects(&r(15, 15), &s), "an insertion inside");
        assert!(!intersects(&r(10, 10), &s), "an insertion just before");
        assert!(!intersects(&r(20, 20), &s), "an insertion just after");
    }
}
