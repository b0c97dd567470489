//! Which node kinds a query's patterns start at: where nesting costs the query engine.
//!
//! Tree-sitter's query cursor opens an in-progress state for a pattern at each node of
//! the pattern's root kind, and keeps it until it leaves that node; every node visited
//! inside is checked against every state still open. So the queries cost, per node, about
//! the number of *pattern roots* among its ancestors: 10,000 call expressions nested in
//! one another (`a.b().b()…`) cost seconds, 10,000 nested `+` (a long string
//! concatenation, no pattern starting there) cost nothing more than 10,000 siblings. The
//! nesting cap ([`super::budget::check_depth`]) counts these kinds only.
//!
//! The roots are read from each pattern's own text (tree-sitter's API gives each
//! pattern's byte range in the query source, not its steps): the first node of the
//! pattern, of each alternative of a top-level `[…]`, or of the first element of a
//! grouped sequence. A wildcard root (`(_)`, `_`) or a supertype makes every kind count.

use tree_sitter::{Language, Query};

/// A pattern's root, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Root {
    /// `(kind …)` (named) or `"kind"` (anonymous).
    Kind { name: String, named: bool },
    /// `(_)`, `_`, a supertype, or text this reader does not understand: any kind.
    Any,
}

/// For each node kind id of `language`, whether some pattern of `query` (compiled from
/// `source`) starts at nodes of that kind.
pub(crate) fn costly_kinds(language: &Language, query: &Query, source: &str) -> Vec<bool> {
    let count = language.node_kind_count();
    let mut costly = vec![false; count];
    let mut roots = Vec::new();
    for i in 0..query.pattern_count() {
        let (start, end) = (
            query.start_byte_for_pattern(i),
            query.end_byte_for_pattern(i),
        );
        match source.get(start..end) {
            Some(text) => first_nodes(text.as_bytes(), 0, &mut roots),
            None => roots.push(Root::Any),
        }
    }
    for root in roots {
        match root {
            Root::Any => return vec![true; count],
            Root::Kind { name, named } => {
                let mut found = false;
                for id in 0..count as u16 {
                    if language.node_kind_for_id(id) == Some(name.as_str())
                        && language.node_kind_is_named(id) == named
                    {
                        if language.node_kind_is_supertype(id) {
                            return vec![true; count];
                        }
                        costly[usize::from(id)] = true;
                        found = true;
                    }
                }
                // A kind the grammar does not know would not have compiled; be safe.
                if !found {
                    return vec![true; count];
                }
            }
        }
    }
    costly
}

/// Pushes the roots of the pattern element starting at or after `i` of `text`.
fn first_nodes(text: &[u8], i: usize, out: &mut Vec<Root>) {
    let i = skip_blank(text, i);
    match text.get(i) {
        Some(b'[') => {
            // Each alternative's first node.
            // Each alternative's first node; captures and quantifiers after one are not
            // alternatives.
            let mut at = skip_blank(text, i + 1);
            while at < text.len() && text[at] != b']' {
                if matches!(text[at], b'(' | b'[' | b'"' | b'_') {
                    first_nodes(text, at, out);
                }
                at = skip_blank(text, skip_element(text, at));
            }
        }
        Some(b'(') => {
            let inner = skip_blank(text, i + 1);
            match text.get(inner) {
                Some(b'(' | b'[' | b'"') => first_nodes(text, inner, out),
                Some(_) => {
                    let name = word(text, inner);
                    if name == "_" || name.is_empty() || name.contains('/') {
                        out.push(Root::Any);
                    } else {
                        out.push(Root::Kind {
                            name: name.to_owned(),
                            named: true,
                        });
                    }
                }
                None => out.push(Root::Any),
            }
        }
        Some(b'"') => match string_end(text, i) {
            Some(end) => out.push(Root::Kind {
                name: String::from_utf8_lossy(&text[i + 1..end - 1]).into_owned(),
                named: false,
            }),
            None => out.push(Root::Any),
        },
        // `_` (any node), and anything this reader does not understand.
        _ => out.push(Root::Any),
    }
}

/// The identifier-like word at `i` (a node kind, `_`, `a/b`).
fn word(text: &[u8], i: usize) -> &str {
    let end = text[i..]
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'/' | b'.' | b'-')))
        .map_or(text.len(), |n| i + n);
    std::str::from_utf8(&text[i..end]).unwrap_or("")
}

/// Past whitespace and `;` comments.
fn skip_blank(text: &[u8], mut i: usize) -> usize {
    loop {
        while i < text.len() && text[i].is_ascii_whitespace() {
            i += 1;
        }
        if text.get(i) == Some(&b';') {
            while i < text.len() && text[i] != b'\n' {
                i += 1;
            }
        } else {
            return i;
        }
    }
}

/// One past the closing quote of the string starting at `i`.
fn string_end(text: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < text.len() {
        match text[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// One past the element starting at `i`: a bracketed group (strings and comments inside
/// skipped), a string, or a word; then its quantifier, captures and field prefix are
/// just more words the caller skips.
fn skip_element(text: &[u8], i: usize) -> usize {
    match text.get(i) {
        Some(b'(' | b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < text.len() {
                match text[j] {
                    b'(' | b'[' => depth += 1,
                    b')' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    b'"' => {
                        j = string_end(text, j).unwrap_or(text.len());
                        continue;
                    }
                    b';' => {
                        while j < text.len() && text[j] != b'\n' {
                            j += 1;
                        }
                        continue;
                    }
                    _ => {}
                }
                j += 1;
            }
            text.len()
        }
        Some(b'"') => string_end(text, i).unwrap_or(text.len()),
        Some(_) => {
            // A capture (`@x`), quantifier, field name or anchor: up to the next blank or
            // bracket.
            let mut j = i + 1;
            while j < text.len() && !text[j].is_ascii_whitespace() && !b"()[]\"".contains(&text[j])
            {
                j += 1;
            }
            j
        }
        None => text.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(pattern: &str) -> Vec<Root> {
        let mut out = Vec::new();
        first_nodes(pattern.as_bytes(), 0, &mut out);
        out
    }

    fn kind(name: &str) -> Root {
        Root::Kind {
            name: name.to_owned(),
            named: true,
        }
    }

    #[test]
    fn the_first_node_of_a_pattern_its_alternatives_and_groups() {
        assert_eq!(
            roots("(call_expression function: (identifier) @name) @reference.call"),
            [kind("call_expression")]
        );
        assert_eq!(
            roots(
                "[\n  (function_declaration) ; a comment (x)\n  (arrow_function) @f\n  \"new\"\n] @bind.scope"
            ),
            [
                kind("function_declaration"),
                kind("arrow_function"),
                Root::Kind {
                    name: "new".to_owned(),
                    named: false
                }
            ]
        );
        assert_eq!(
            roots("((comment) @doc . (function_declaration))"),
            [kind("comment")]
        );
        assert_eq!(roots("(_ (identifier))"), [Root::Any]);
        assert_eq!(roots("(expression/identifier)"), [Root::Any]);
        assert_eq!(
            roots("[(a \"[\" (b)) ([(c) (d)] (e))]"),
            [kind("a"), kind("c"), kind("d")]
        );
    }

    #[test]
    fn the_built_in_queries_make_few_kinds_costly() {
        for analyzer in [
            crate::typescript::typescript(),
            crate::python::python(),
            crate::java::java(),
            crate::go::go(),
            crate::rust::rust(),
            crate::csharp::csharp(),
        ] {
            let grammar = analyzer.grammar;
            let query = grammar.query().expect("compiles");
            let costly = query.costly.iter().filter(|c| **c).count();
            let all = query.costly.len();
            // Wildcards would make every kind count: none of the built-ins has one.
            assert!(costly * 4 < all, "{}: {costly} of {all}", grammar.name);
            // Nested binary expressions (a long string concatenation) are never a root.
            let binary = grammar
                .language()
                .id_for_node_kind("binary_expression", true);
            if binary != 0 {
                assert!(!query.costly[usize::from(binary)], "{}", grammar.name);
            }
        }
    }
}
