//! Parsing with one reusable parser per grammar and thread, under the analysis's budget.

use std::cell::RefCell;
use std::ops::ControlFlow;

use tree_sitter::{ParseOptions, ParseState, Parser, Tree};
use wit_core::AnalyzeError;

use super::Grammar;
use super::budget::Budget;

/// How many progress callbacks pass between two clock reads; the callback runs often and a
/// clock read per call would show up in profiles.
const CLOCK_EVERY: u32 = 64;

thread_local! {
    /// A parser allocates its stacks once and reuses them, so keep one per grammar per
    /// thread rather than one per call (keyed by [`Grammar::key`]). Few grammars exist; a
    /// linear scan is fastest.
    static PARSERS: RefCell<Vec<(usize, Parser)>> = const { RefCell::new(Vec::new()) };
}

/// Parses `source` with `grammar`'s language; with `old` (the previous tree, already
/// `edit`ed to match `source`), tree-sitter reuses every subtree the edit left intact.
/// Tree-sitter parses linearly, so a parse outlasting `budget` is pathological (or
/// enormous): the caller gets an error rather than a stuck worker thread.
pub(super) fn parse(
    grammar: &'static Grammar,
    source: &str,
    old: Option<&Tree>,
    budget: &Budget,
) -> Result<Tree, AnalyzeError> {
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let index = match parsers.iter().position(|(key, _)| *key == grammar.key()) {
            Some(i) => i,
            None => {
                let mut parser = Parser::new();
                parser
                    .set_language(&grammar.language())
                    .map_err(|e| AnalyzeError::Failed(format!("{} grammar: {e}", grammar.name)))?;
                parsers.push((grammar.key(), parser));
                parsers.len() - 1
            }
        };
        let parser = &mut parsers[index].1;

        let mut calls = 0u32;
        let mut timed_out = false;
        let mut progress = |_: &ParseState| {
            calls = calls.wrapping_add(1);
            if calls.is_multiple_of(CLOCK_EVERY) && budget.exhausted() {
                timed_out = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        };
        let bytes = source.as_bytes();
        let tree = parser.parse_with_options(
            &mut |offset, _| bytes.get(offset..).unwrap_or_default(),
            old,
            Some(ParseOptions::new().progress_callback(&mut progress)),
        );
        match tree {
            Some(tree) => Ok(tree),
            None => {
                // A cancelled parse leaves state behind that the next parse would resume.
                parser.reset();
                Err(if timed_out {
                    budget.exceeded(&format!("parsing ({})", grammar.name))
                } else {
                    AnalyzeError::Failed(format!("{} parser returned no tree", grammar.name))
                })
            }
        }
    })
}
