//! Bounds on one analysis: a time budget shared by parsing and extraction, and a cap on
//! how deeply the syntax tree may nest.
//!
//! Both exist because an analysis runs on one of the daemon's few blocking threads, and a
//! repository file is untrusted input. Tree-sitter parses linearly, but its query engine
//! keeps one in-progress state per open enclosing node for patterns like
//! `(class_body (method_definition))`, so running the queries costs O(nodes × depth):
//! 2,000 class expressions nested in one another (88 KB) took seconds, 10,000 minutes.
//! Real code nests a few dozen levels; refusing what nests deeper bounds the query cost
//! per node, and the time budget backs that up for anything no cap foresaw.

use std::time::{Duration, Instant};

use tree_sitter::Node;
use wit_core::AnalyzeError;

/// Most time one analysis (parse plus queries) may take. A fresh analysis of a
/// 2,000-line file takes 18–31 ms in a release build, and a 1 MiB file (the daemon's
/// default size cap) a few hundred ms; past this the input is pathological.
pub(crate) const ANALYSIS_TIME_LIMIT: Duration = Duration::from_secs(3);

/// Deepest syntax tree (in nodes from a top-level declaration down) the queries are run
/// over. Real code stays below 30 (the fixtures: 5–14); one nested class expression costs
/// 5 levels, a nested array 1. Above this the file is refused, since the query cost grows
/// with the depth of every node.
pub(crate) const MAX_NESTING_DEPTH: usize = 500;

/// A deadline for one analysis, consulted by the parser's and the query cursor's progress
/// callbacks and between top-level declarations.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    started: Instant,
    limit: Duration,
}

impl Budget {
    /// A budget of `limit` from now.
    pub(crate) fn new(limit: Duration) -> Self {
        Self {
            started: Instant::now(),
            limit,
        }
    }

    /// Whether the time is up.
    pub(crate) fn exhausted(&self) -> bool {
        self.started.elapsed() >= self.limit
    }

    /// `Err` naming `stage` when the time is up.
    pub(crate) fn check(&self, stage: &str) -> Result<(), AnalyzeError> {
        if self.exhausted() {
            Err(self.exceeded(stage))
        } else {
            Ok(())
        }
    }

    /// The error for an analysis stopped during `stage` ("parsing", "running the queries").
    pub(crate) fn exceeded(&self, stage: &str) -> AnalyzeError {
        AnalyzeError::Failed(format!(
            "analysis gave up while {stage}: it took more than its budget of {} ms",
            self.limit.as_millis()
        ))
    }
}

/// `Err` when the subtree of `node` nests deeper than `max` levels below it. One walk with
/// a tree cursor (no recursion, so no stack to overflow), stopping at the first node too
/// deep.
///
/// A subtree of `n` nodes nests at most `n - 1` levels below its root, and tree-sitter
/// keeps every node's count of visible descendants (read in constant time), so a subtree
/// whose count keeps it within `max` is not entered: in real code the walk visits a
/// handful of nodes per declaration instead of all of them (it was 9 % of a cold index
/// build), and the first node too deep is the same one a full walk finds.
pub(crate) fn check_depth(node: Node, max: usize) -> Result<(), AnalyzeError> {
    let fits = |n: Node, depth: usize| depth + n.descendant_count().saturating_sub(1) <= max;
    if fits(node, 0) {
        return Ok(());
    }
    let mut cursor = node.walk();
    let mut depth = 0usize;
    loop {
        if !fits(cursor.node(), depth) && cursor.goto_first_child() {
            depth += 1;
            if depth > max {
                return Err(AnalyzeError::Failed(format!(
                    "nesting deeper than {max} levels (line {}): not analysed",
                    cursor.node().start_position().row + 1
                )));
            }
            continue;
        }
        loop {
            if depth == 0 {
                return Ok(());
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
            depth -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pruned walk finds exactly what a walk of every node finds: the same verdict
    /// and, when too deep, the same first node (its line).
    #[test]
    fn the_depth_check_agrees_with_a_walk_of_every_node() {
        fn full_walk(node: Node, max: usize) -> Result<(), String> {
            let mut cursor = node.walk();
            let mut depth = 0usize;
            loop {
                if cursor.goto_first_child() {
                    depth += 1;
                    if depth > max {
                        return Err(format!("line {}", cursor.node().start_position().row + 1));
                    }
                    continue;
                }
                loop {
                    if depth == 0 {
                        return Ok(());
                    }
                    if cursor.goto_next_sibling() {
                        break;
                    }
                    cursor.goto_parent();
                    depth -= 1;
                }
            }
        }
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into())
            .unwrap();
        // Shallow code first, then nesting that grows on later lines.
        let mut source = String::from("function f(a) { return g(a.b, [1, 2]); }\n");
        for depth in [3, 20, 60] {
            source.push_str("const x = ");
            source.push_str(&"[\n".repeat(depth));
            source.push('1');
            source.push_str(&"]".repeat(depth));
            source.push_str(";\n");
        }
        let tree = parser.parse(&source, None).unwrap();
        let root = tree.root_node();
        for max in [0, 1, 2, 5, 10, 25, 59, 61, 62, 70, 500] {
            let pruned = check_depth(root, max).map_err(|e| {
                let e = e.to_string();
                e[e.find("line ").unwrap()..e.find(')').unwrap()].to_owned()
            });
            assert_eq!(pruned, full_walk(root, max), "max {max}");
        }
    }

    #[test]
    fn an_expired_budget_is_exhausted_and_names_the_stage() {
        let budget = Budget::new(Duration::ZERO);
        assert!(budget.exhausted());
        let err = budget.check("parsing").unwrap_err().to_string();
        assert!(err.contains("while parsing"), "{err}");
        assert!(
            Budget::new(Duration::from_secs(3600))
                .check("parsing")
                .is_ok()
        );
    }
}
