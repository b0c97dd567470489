//! Bounds on one analysis: a time budget shared by parsing and extraction, and a cap on
//! how deeply the syntax tree may nest where nesting costs.
//!
//! Both exist because an analysis runs on one of the daemon's few blocking threads, and a
//! repository file is untrusted input. Tree-sitter parses linearly, but its query engine
//! keeps one in-progress state per open node where a pattern started (`(class_body
//! (method_definition))` opens one at each class body), so running the queries costs
//! O(nodes × such nodes around each): 2,000 class expressions nested in one another (88
//! KB) took seconds, 10,000 minutes; 10,000 nested calls (`a.b().b()…`) 2–5 s. Nesting
//! of any other kind costs nothing more than as many siblings would: a 10,000-term
//! string concatenation (`"…" + "…"`, the JDK's `LocaleISOData.java`), an `else if`
//! ladder, nested parentheses. So the cap counts only the kinds some pattern starts at
//! (`engine/roots.rs`); the time budget backs it up for anything no cap foresaw.
//!
//! Nothing of wit's own recurses over the tree's depth: this check walks with a cursor,
//! and the few walks of statements that recurse (`fields.rs`, `modules.rs`) stop a dozen
//! levels down.

use std::time::{Duration, Instant};

use tree_sitter::Node;
use wit_core::AnalyzeError;

/// Most time one analysis (parse plus queries) may take. A fresh analysis of a
/// 2,000-line file takes 18–31 ms in a release build, and a 1 MiB file (the daemon's
/// default size cap) a few hundred ms; past this the input is pathological.
pub(crate) const ANALYSIS_TIME_LIMIT: Duration = Duration::from_secs(3);

/// Most nodes of the kinds the queries' patterns start at (see `engine/roots.rs`) on one
/// path from a top-level declaration down. Real code stays far below (a nested class
/// expression costs about 5 such levels, a call 1); above this the file is refused,
/// since the query cost grows with this depth at every node. Counting only these kinds
/// bounds the query's cost per node exactly as a cap of 500 on every kind did, without
/// refusing long concatenations or `else if` ladders, where no pattern starts.
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

/// `Err` when the subtree of `node` nests more than `max` nodes of the `costly` kinds
/// (by kind id; see `engine/roots.rs`) on one path below `node`. One walk with a
/// tree cursor (no recursion, so no stack to overflow), stopping at the first node too
/// deep.
///
/// A subtree of `n` nodes nests at most `n - 1` levels below its root, and tree-sitter
/// keeps every node's count of visible descendants (read in constant time), so a subtree
/// whose count keeps it within `max` is not entered: in real code the walk visits a
/// handful of nodes per declaration instead of all of them (it was 9 % of a cold index
/// build), and the first node too deep is the same one a full walk finds.
pub(crate) fn check_depth(node: Node, max: usize, costly: &[bool]) -> Result<(), AnalyzeError> {
    let costs = |n: Node| usize::from(costly.get(usize::from(n.kind_id())) == Some(&true));
    let fits = |n: Node, depth: usize| depth + n.descendant_count().saturating_sub(1) <= max;
    // `depth`: the costly nodes below `node` down to the cursor's node, included.
    let mut depth = 0;
    if fits(node, depth) {
        return Ok(());
    }
    let mut cursor = node.walk();
    let mut level = 0usize;
    loop {
        if depth > max {
            return Err(AnalyzeError::Failed(format!(
                "nesting deeper than {max} levels (line {}): not analysed",
                cursor.node().start_position().row + 1
            )));
        }
        if !fits(cursor.node(), depth) && cursor.goto_first_child() {
            level += 1;
            depth += costs(cursor.node());
            continue;
        }
        loop {
            if level == 0 {
                return Ok(());
            }
            depth -= costs(cursor.node());
            if cursor.goto_next_sibling() {
                depth += costs(cursor.node());
                break;
            }
            cursor.goto_parent();
            level -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pruned walk finds exactly what a walk of every node finds: the same verdict
    /// and, when too deep, the same first node (its line).
    /// The pruned walk finds exactly what a walk of every node finds: the same verdict
    /// and, when too deep, the same first node (its line), counting every kind (as the
    /// cap was first) or only some.
    #[test]
    fn the_depth_check_agrees_with_a_walk_of_every_node() {
        fn full_walk(node: Node, max: usize, costly: &[bool]) -> Result<(), String> {
            let costs = |n: Node| usize::from(costly[usize::from(n.kind_id())]);
            let mut cursor = node.walk();
            let mut depths = vec![0usize];
            loop {
                if cursor.goto_first_child() {
                    let depth = depths.last().unwrap() + costs(cursor.node());
                    depths.push(depth);
                    if depth > max {
                        return Err(format!("line {}", cursor.node().start_position().row + 1));
                    }
                    continue;
                }
                loop {
                    if depths.len() == 1 {
                        return Ok(());
                    }
                    depths.pop();
                    if cursor.goto_next_sibling() {
                        let depth = depths.last().unwrap() + costs(cursor.node());
                        depths.push(depth);
                        if depth > max {
                            return Err(format!("line {}", cursor.node().start_position().row + 1));
                        }
                        break;
                    }
                    cursor.goto_parent();
                }
            }
        }
        let language: tree_sitter::Language = tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into();
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language).unwrap();
        // Shallow code first, then nesting that grows on later lines: arrays (costly in
        // the second run) and parentheses (never).
        let mut source = String::from("function f(a) { return g(a.b, [1, 2]); }\n");
        for depth in [3, 20, 60] {
            source.push_str("const x = ");
            source.push_str(&"[\n".repeat(depth));
            source.push('1');
            source.push_str(&"]".repeat(depth));
            source.push_str(";\n");
            source.push_str(&format!(
                "const y = {}1{};\n",
                "(".repeat(depth * 2),
                ")".repeat(depth * 2)
            ));
        }
        let tree = parser.parse(&source, None).unwrap();
        let root = tree.root_node();
        let every = vec![true; language.node_kind_count()];
        let mut arrays = vec![false; language.node_kind_count()];
        arrays[usize::from(language.id_for_node_kind("array", true))] = true;
        for costly in [&every, &arrays] {
            for max in [0, 1, 2, 5, 10, 25, 59, 61, 62, 70, 130, 500] {
                let pruned = check_depth(root, max, costly).map_err(|e| {
                    let e = e.to_string();
                    e[e.find("line ").unwrap()..e.find(')').unwrap()].to_owned()
                });
                assert_eq!(pruned, full_walk(root, max, costly), "max {max}");
            }
        }
        // Counting arrays only, the 60 nested arrays are within 60 and the 120 nested
        // parentheses never count.
        assert!(check_depth(root, 60, &arrays).is_ok());
        assert!(check_depth(root, 59, &arrays).is_err());
        assert!(check_depth(root, 120, &every).is_err());
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
