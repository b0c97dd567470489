//! Assigning each call to the innermost named callable around it.

use std::collections::HashSet;

use wit_core::{CallEdge, Symbol};

use super::extract::Call;
use super::nesting::{Span, innermost};

/// Turns call sites into de-duplicated (caller, callee) edges in order of first appearance.
///
/// `scopes` are the call-owning ranges of callable symbols (values: indexes into
/// `symbols`). Calls outside every scope (module level, class field initializers) give no
/// edge; calls in anonymous callbacks land in the named function around the callback,
/// which has no scope of its own.
pub(super) fn resolve(
    symbols: &[Symbol],
    mut scopes: Vec<Span<usize>>,
    mut calls: Vec<Call>,
) -> Vec<CallEdge> {
    // Stable, so two calls starting together (`a.b().c()`) keep the query's order.
    calls.sort_by_key(|c| c.at);
    let points: Vec<usize> = calls.iter().map(|c| c.at).collect();
    let owners = innermost(&mut scopes, &points);

    let mut caller_names: Vec<Option<String>> = vec![None; symbols.len()];
    let mut seen: HashSet<(usize, &str)> = HashSet::new();
    let mut edges = Vec::new();
    for (call, owner) in calls.iter().zip(owners) {
        let Some(symbol) = owner else { continue };
        if seen.insert((symbol, call.callee)) {
            let caller = caller_names[symbol]
                .get_or_insert_with(|| symbols[symbol].qualified_name())
                .clone();
            edges.push(CallEdge {
                caller,
                callee: call.callee.to_owned(),
            });
        }
    }
    edges
}
