//! Assigning each call to the innermost named callable around it.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use wit_core::{CallSite, Symbol};

use super::call::Call;
use super::nesting::{Span, innermost};

/// Turns calls into call sites, de-duplicated on (caller, callee, receiver, number of
/// arguments where the language counts them), each at its first position. (The call edges are these sites' (caller, callee) pairs: see
/// [`wit_core::Analysis::edges`]; the built-ins leave `calls` empty.)
///
/// `scopes` are the call-owning ranges of callable symbols (values: indexes into
/// `symbols`). Calls outside every scope (module level, class field initializers) give no
/// edge; calls in anonymous callbacks land in the named function around the callback,
/// which has no scope of its own. `origin`: a byte offset at or before every call, and
/// its zero-based line (lines are counted from there: a chunk counts its own lines only).
///
/// De-duplication is per calling *symbol* (two definitions sharing a name keep their
/// own sites), so the calls of one top-level declaration resolve on their own: the
/// incremental engine resolves each declaration once and concatenates the results.
///
/// Also returns the indexes of the sites whose receiver is free (a bare name no scope of
/// the function declares, which the module's top level may: see
/// [`super::locals::module_level`]); a site merged from free and bound calls of one name
/// is not free.
///
/// Several symbols owning the very same range are one function under several names
/// (`res.set = res.header = function header() {}`): each of them gets the calls.
pub(super) fn resolve(
    symbols: &[Symbol],
    mut scopes: Vec<Span<usize>>,
    mut calls: Vec<Call>,
    arguments: &[String],
    source: &str,
    origin: (usize, usize),
) -> (Vec<CallSite>, Vec<usize>) {
    // Stable, so two calls starting together (`a.b().c()`) keep the query's order.
    calls.sort_by_key(|c| c.at);
    let points: Vec<usize> = calls.iter().map(|c| c.at).collect();
    // Twins: scopes of one range after the first (in symbol order), which stands for them.
    scopes.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end), s.value));
    let mut twins: HashMap<usize, Vec<usize>> = HashMap::new();
    scopes.dedup_by(|later, first| {
        let same = (later.start, later.end) == (first.start, first.end);
        if same {
            twins.entry(first.value).or_default().push(later.value);
        }
        same
    });
    let owners = innermost(&mut scopes, &points);

    let mut caller_names: Vec<Option<String>> = vec![None; symbols.len()];
    let mut seen_sites: HashMap<SiteKey, (usize, bool)> = HashMap::new();
    let mut sites = Vec::new();
    let mut lines = LineIndex::new(source, origin);
    for (call, owner) in calls.iter().zip(owners) {
        let Some(owner) = owner else { continue };
        let receiver = call.receiver.to_text(source);
        let free = call.receiver.is_free();
        let line = lines.line_of(call.at);
        let named = std::iter::once(owner).chain(twins.get(&owner).into_iter().flatten().copied());
        for symbol in named {
            let caller =
                caller_names[symbol].get_or_insert_with(|| symbols[symbol].qualified_name());
            let args = call
                .arguments
                .and_then(|i| arguments.get(i as usize))
                .map(String::as_str);
            match seen_sites.entry((symbol, call.callee, receiver.clone(), args)) {
                Entry::Occupied(mut e) => e.get_mut().1 &= free,
                Entry::Vacant(e) => {
                    e.insert((sites.len(), free));
                    let mut site = CallSite::new(
                        caller.clone(),
                        call.callee.to_owned(),
                        receiver.clone(),
                        call.at,
                        line,
                    );
                    site.arguments = args.map(str::to_owned);
                    sites.push(site);
                }
            }
        }
    }
    let mut free: Vec<usize> = seen_sites
        .into_values()
        .filter(|&(_, free)| free)
        .map(|(i, _)| i)
        .collect();
    free.sort_unstable();
    (sites, free)
}

/// A site's identity: (symbol, callee, receiver, argument types); mapped to the index of
/// the site and whether it is free.
type SiteKey<'a> = (usize, &'a str, Option<String>, Option<&'a str>);

/// Line numbers of ascending byte offsets, counted on from the last one asked.
struct LineIndex<'s> {
    source: &'s [u8],
    at: usize,
    line: usize,
}

impl<'s> LineIndex<'s> {
    /// Counting from `origin`: (byte offset, its zero-based line).
    fn new(source: &'s str, origin: (usize, usize)) -> Self {
        Self {
            source: source.as_bytes(),
            at: origin.0.min(source.len()),
            line: origin.1,
        }
    }

    /// Zero-based line of `offset` (offsets must come in ascending order, from the
    /// origin on).
    fn line_of(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.source.len()).max(self.at);
        self.line += self.source[self.at..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.at = offset;
        self.line
    }
}
