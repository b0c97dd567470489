//! Analysing a new version of a file from the previous one: an incremental reparse, and the
//! query pass redone only for the top-level declarations the change touched.
//!
//! A file's results are kept per top-level node of the tree (a *chunk*: a function, a
//! class, an export statement), with offsets relative to the node's start. Every match of
//! the queries lies inside one top-level node (no pattern is rooted at the root node), so
//! the file's symbols and call sites are the chunks' concatenated in order, shifted to
//! where each chunk now starts; only the call-graph sweep ([`super::callers`]) runs over
//! the whole file, and it is cheap. So does the pass giving receivers that name a
//! top-level variable of evident class their class ([`super::locals::module_level`]):
//! each chunk keeps which of its receivers no scope of its own declares and what it
//! declares at the top level, and the pass joins them.
//!
//! When the source changes, the edit is the span between the common prefix and the
//! common suffix of the two versions (one `InputEdit`); tree-sitter reparses only around
//! it and reports where the tree's structure changed (`changed_ranges`). A new top-level
//! node touching neither the edit nor a changed range has the same text and the same
//! subtree as an old one (shifted), so its old chunk is reused; every other node is
//! queried again. A new tree with syntax errors is thrown away for a fresh parse (error
//! recovery depends on the parse's history; the result must not).

use tree_sitter::{InputEdit, Node, Point, Range, Tree};
use wit_core::{Analysis, AnalyzeError, CallSite, Member, Symbol, TypeBody};

use super::budget::{self, Budget};
use super::extract;
use super::locals::{self, ModuleNames};
use super::modules::Modules;
use super::query::CompiledQuery;
use super::{Grammar, Syntax, call, callers, parse};

/// What one top-level node of the tree gave, position-independent.
struct Chunk {
    /// Where the node is in the version this chunk was last used for.
    start_byte: usize,
    end_byte: usize,
    start_row: usize,
    /// The node's grammar kind, a cheap guard when matching old to new nodes.
    kind: u16,
    /// Symbols with bytes relative to `start_byte` and lines relative to `start_row`.
    symbols: Vec<Symbol>,
    /// Its call sites (see [`callers::resolve`]: calls resolve within their top-level
    /// declaration), bytes and lines relative as for `symbols`.
    sites: Vec<CallSite>,
    /// Indexes into `sites` of those whose receiver is free in its function (see
    /// [`locals::module_level`]).
    free: Vec<usize>,
    /// What the node binds at the module's top level, positions relative as for `symbols`.
    names: ModuleNames,
    /// Imports and exports of this top-level node (no offsets).
    modules: Modules,
    /// Type bodies, bytes relative as for `symbols`.
    bodies: Vec<TypeBody>,
    /// Members of its types (the query's and the language reader's), positions relative
    /// as for `symbols`.
    members: Vec<Member>,
}

impl Chunk {
    /// Runs the query over `node` alone, after checking that it does not nest too deeply
    /// in the kinds the query's patterns start at (see [`budget::MAX_NESTING_DEPTH`]: the
    /// query's cost grows with that depth). A reused chunk passed this check when it was
    /// made.
    fn extract(
        query: &CompiledQuery,
        syntax: &Syntax,
        node: Node,
        source: &str,
        budget: &Budget,
    ) -> Result<Self, AnalyzeError> {
        budget.check("running the queries")?;
        budget::check_depth(node, budget::MAX_NESTING_DEPTH, &query.costly)?;
        let (base, row) = (node.start_byte(), node.start_position().row);
        let mut found = extract::extract(query, syntax, node, source, budget)?;
        // Imports and exports: the language's reader, and whatever the queries captured.
        let mut modules = Modules {
            imports: std::mem::take(&mut found.imports),
            exports: std::mem::take(&mut found.exports),
            bases: Vec::new(),
            fields: Vec::new(),
            members: std::mem::take(&mut found.members),
        };
        if let Some(f) = syntax.modules {
            f(node, source, &mut modules);
        }
        let members = std::mem::take(&mut modules.members)
            .into_iter()
            .map(|mut m| {
                m.start_byte -= base;
                m.end_byte -= base;
                m.line -= row;
                m
            })
            .collect();
        let names = std::mem::take(&mut found.module).relative_to(base);
        let bodies = std::mem::take(&mut found.bodies)
            .into_iter()
            .map(|mut b| {
                b.start_byte -= base;
                b.end_byte -= base;
                b
            })
            .collect();
        let (mut sites, free) = callers::resolve(
            &found.symbols,
            found.scopes,
            found.calls,
            &found.arguments,
            source,
            (base, row),
        );
        for site in &mut sites {
            site.start_byte -= base;
            site.line -= row;
        }
        let symbols = found
            .symbols
            .into_iter()
            .map(|mut s| {
                s.start_byte -= base;
                s.end_byte -= base;
                s.start_line -= row;
                s.end_line -= row;
                s
            })
            .collect();
        Ok(Self {
            start_byte: base,
            end_byte: node.end_byte(),
            start_row: row,
            kind: node.kind_id(),
            symbols,
            sites,
            free,
            names,
            modules,
            bodies,
            members,
        })
    }

    /// Moves the chunk to `node`'s position (same text, so the same relative results).
    fn moved_to(mut self, node: Node) -> Self {
        self.start_byte = node.start_byte();
        self.end_byte = node.end_byte();
        self.start_row = node.start_position().row;
        self
    }
}

/// The state the built-in analyzers keep between two analyses of one file.
pub(super) struct State {
    /// The grammar's key ([`Grammar::key`]).
    grammar: usize,
    source: String,
    tree: Tree,
    chunks: Vec<Chunk>,
}

impl State {
    /// The grammar this state was built with (a file renamed to another language must not
    /// reuse it).
    pub(super) fn grammar(&self) -> usize {
        self.grammar
    }
}

/// Analyses `source`, reusing `previous` (the state of an earlier version of the same
/// file) when there is one; returns the analysis and the state for the next version.
/// Parsing and querying together must fit in `budget`.
pub(super) fn analyze(
    grammar: &'static Grammar,
    query: &CompiledQuery,
    syntax: &Syntax,
    source: &str,
    previous: Option<State>,
    budget: &Budget,
) -> Result<(Analysis, State), AnalyzeError> {
    let (tree, mut old) = match previous {
        Some(mut prev) if prev.source == source => {
            let mut analysis = assemble(&mut prev.chunks, Keep::Copy, source);
            analysis.syntax_error = first_error(&prev.tree);
            return Ok((analysis, prev));
        }
        Some(mut prev) => {
            let edit = edit_between(&prev.source, source);
            prev.tree.edit(&edit);
            let tree = parse::parse(grammar, source, Some(&prev.tree), budget)?;
            if tree.root_node().has_error() {
                // Error recovery is not history-free: an incremental reparse of broken
                // code may recover differently from a fresh parse. Broken files get a
                // fresh parse and a full query pass, so the result never depends on the
                // file's past.
                (parse::parse(grammar, source, None, budget)?, None)
            } else {
                let changed: Vec<Range> = prev.tree.changed_ranges(&tree).collect();
                let reusable = Reusable {
                    starts: prev.chunks.iter().map(|c| c.start_byte).collect(),
                    chunks: prev.chunks.into_iter().map(Some).collect(),
                    edit,
                    changed,
                };
                (tree, Some(reusable))
            }
        }
        None => (parse::parse(grammar, source, None, budget)?, None),
    };

    let mut chunks = chunks_of(&tree, old.as_mut(), query, syntax, source, budget)?;
    let mut analysis = assemble(&mut chunks, Keep::Copy, source);
    analysis.syntax_error = first_error(&tree);
    let state = State {
        grammar: grammar.key(),
        source: source.to_owned(),
        tree,
        chunks,
    };
    Ok((analysis, state))
}

/// [`analyze`] with no previous version and nothing kept for a next one (the repository
/// index's build, which analyses each file once): the chunks' results move into the
/// analysis instead of being copied, and no copy of the source or tree is made to be
/// dropped at once. The same analysis, always.
pub(super) fn analyze_once(
    grammar: &'static Grammar,
    query: &CompiledQuery,
    syntax: &Syntax,
    source: &str,
    budget: &Budget,
) -> Result<Analysis, AnalyzeError> {
    let tree = parse::parse(grammar, source, None, budget)?;
    let mut chunks = chunks_of(&tree, None, query, syntax, source, budget)?;
    let mut analysis = assemble(&mut chunks, Keep::Move, source);
    analysis.syntax_error = first_error(&tree);
    Ok(analysis)
}

/// One chunk per top-level node of `tree`: `old`'s where the change left it intact, else
/// queried.
fn chunks_of(
    tree: &Tree,
    mut old: Option<&mut Reusable>,
    query: &CompiledQuery,
    syntax: &Syntax,
    source: &str,
    budget: &Budget,
) -> Result<Vec<Chunk>, AnalyzeError> {
    let mut chunks = Vec::new();
    let mut cursor = tree.root_node().walk();
    if cursor.goto_first_child() {
        loop {
            let node = cursor.node();
            let chunk = match old.as_mut().and_then(|o| o.take(node)) {
                Some(chunk) => chunk,
                None => Chunk::extract(query, syntax, node, source, budget)?,
            };
            chunks.push(chunk);
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    Ok(chunks)
}

/// Where `tree` has its first syntax error (an `ERROR` or `MISSING` node), following
/// the children that contain one: a walk down one path, not over the whole tree.
pub(super) fn first_error(tree: &Tree) -> Option<usize> {
    let mut node = tree.root_node();
    if !node.has_error() {
        return None;
    }
    loop {
        if node.is_error() || node.is_missing() {
            return Some(node.start_byte());
        }
        let mut cursor = node.walk();
        let next = node.children(&mut cursor).find(|c| c.has_error());
        match next {
            Some(child) => node = child,
            // `has_error` without an erroneous child: the node itself is the error.
            None => return Some(node.start_byte()),
        }
    }
}

/// The previous version's chunks, and what tells which of them still hold.
struct Reusable {
    /// The old chunks' start bytes, ascending (kept apart from `chunks`, whose slots
    /// empty as they are reused, so that it stays searchable).
    starts: Vec<usize>,
    /// In the old version's order; taken when reused.
    chunks: Vec<Option<Chunk>>,
    edit: InputEdit,
    /// Where the new tree's structure differs from the (edited) old one.
    changed: Vec<Range>,
}

impl Reusable {
    /// The old chunk for the new top-level `node`, if the change left it intact.
    fn take(&mut self, node: Node) -> Option<Chunk> {
        let (start, end) = (node.start_byte(), node.end_byte());
        let e = &self.edit;
        // Touching counts as intersecting: a node ending where text was inserted may have
        // absorbed it.
        let (old_start, old_end) = if end < e.start_byte {
            (start, end)
        } else if start > e.new_end_byte {
            let back = |b: usize| b - e.new_end_byte + e.old_end_byte;
            (back(start), back(end))
        } else {
            return None;
        };
        if self
            .changed
            .iter()
            .any(|r| r.start_byte <= end && r.end_byte >= start)
        {
            return None;
        }
        let i = self.starts.binary_search(&old_start).ok()?;
        let slot = &mut self.chunks[i];
        if slot
            .as_ref()
            .is_some_and(|c| c.end_byte == old_end && c.kind == node.kind_id())
        {
            slot.take().map(|c| c.moved_to(node))
        } else {
            None
        }
    }
}

/// Whether [`assemble`] leaves the chunks' results in place (kept for the next version)
/// or moves them out (the chunks are dropped next).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    Copy,
    Move,
}

/// `v`'s items: a copy, or `v`'s own (leaving it empty).
fn take<T: Clone>(v: &mut Vec<T>, keep: Keep) -> Vec<T> {
    match keep {
        Keep::Copy => v.clone(),
        Keep::Move => std::mem::take(v),
    }
}

/// The file's analysis from its chunks: their results concatenated in order, shifted to
/// where each chunk now starts; then the file-level pass over receivers naming top-level
/// variables of evident class ([`locals::module_level`]).
fn assemble(chunks: &mut [Chunk], keep: Keep, source: &str) -> Analysis {
    let count = |f: fn(&Chunk) -> usize| chunks.iter().map(f).sum::<usize>();
    let mut symbols = Vec::with_capacity(count(|c| c.symbols.len()));
    let mut call_sites = Vec::with_capacity(count(|c| c.sites.len()));
    let mut imports = Vec::new();
    let mut exports = Vec::new();
    let mut bases = Vec::new();
    let mut fields = Vec::new();
    let mut free = Vec::new();
    let mut bodies = Vec::new();
    let mut members = Vec::new();
    for c in chunks.iter_mut() {
        members.extend(take(&mut c.members, keep).into_iter().map(|mut m| {
            m.start_byte += c.start_byte;
            m.end_byte += c.start_byte;
            m.line += c.start_row;
            m
        }));
        bodies.extend(take(&mut c.bodies, keep).into_iter().map(|mut b| {
            b.start_byte += c.start_byte;
            b.end_byte += c.start_byte;
            b
        }));
        symbols.extend(take(&mut c.symbols, keep).into_iter().map(|s| Symbol {
            start_byte: s.start_byte + c.start_byte,
            end_byte: s.end_byte + c.start_byte,
            start_line: s.start_line + c.start_row,
            end_line: s.end_line + c.start_row,
            ..s
        }));
        free.extend(c.free.iter().map(|i| i + call_sites.len()));
        call_sites.extend(take(&mut c.sites, keep).into_iter().map(|mut site| {
            site.start_byte += c.start_byte;
            site.line += c.start_row;
            site
        }));
        imports.append(&mut take(&mut c.modules.imports, keep));
        exports.append(&mut take(&mut c.modules.exports, keep));
        bases.append(&mut take(&mut c.modules.bases, keep));
        fields.append(&mut take(&mut c.modules.fields, keep));
    }
    let mut values = locals::module_level(
        &mut call_sites,
        &free,
        chunks.iter().map(|c| (&c.names, c.start_byte)),
        &imports,
        &symbols,
        source,
    );
    let (call_sites, accesses) = call::split_accesses(call_sites);
    members.sort_by_key(|m: &Member| m.start_byte);
    let mut analysis = Analysis::new(symbols);
    analysis.call_sites = call_sites;
    analysis.accesses = accesses;
    analysis.members = members;
    analysis.imports = imports;
    analysis.exports = exports;
    analysis.bases = bases;
    values.extend(fields);
    analysis.values = values;
    analysis.bodies = bodies;
    analysis
}

/// The one edit turning `old` into `new`: everything between their common prefix and
/// their common suffix. Boundaries fall on characters, so points stay meaningful.
fn edit_between(old: &str, new: &str) -> InputEdit {
    let (o, n) = (old.as_bytes(), new.as_bytes());
    let mut prefix = common_prefix(o, n);
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = o.len().min(n.len()) - prefix;
    let mut suffix = common_suffix(&o[prefix..], &n[prefix..]).min(max_suffix);
    while !old.is_char_boundary(o.len() - suffix) || !new.is_char_boundary(n.len() - suffix) {
        suffix -= 1;
    }
    let start_position = point_at(o, prefix);
    InputEdit {
        start_byte: prefix,
        old_end_byte: o.len() - suffix,
        new_end_byte: n.len() - suffix,
        start_position,
        old_end_position: point_after(o, prefix, start_position, o.len() - suffix),
        new_end_position: point_after(n, prefix, start_position, n.len() - suffix),
    }
}

/// Length of the common prefix, compared a block at a time (the files are mostly equal).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let len = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= len && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    while i < len && a[i] == b[i] {
        i += 1;
    }
    i
}

/// Length of the common suffix.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let len = a.len().min(b.len());
    let (ea, eb) = (a.len(), b.len());
    let mut i = 0;
    while i + BLOCK <= len && a[ea - i - BLOCK..ea - i] == b[eb - i - BLOCK..eb - i] {
        i += BLOCK;
    }
    while i < len && a[ea - i - 1] == b[eb - i - 1] {
        i += 1;
    }
    i
}

/// Row and byte column of `offset` in `text`.
fn point_at(text: &[u8], offset: usize) -> Point {
    point_after(text, 0, Point { row: 0, column: 0 }, offset)
}

/// Row and byte column of `offset`, counting on from `from` (at point `at`).
fn point_after(text: &[u8], from: usize, at: Point, offset: usize) -> Point {
    let span = &text[from..offset];
    let newlines = span.iter().filter(|&&b| b == b'\n').count();
    if newlines == 0 {
        Point {
            row: at.row,
            column: at.column + span.len(),
        }
    } else {
        let last = span.iter().rposition(|&b| b == b'\n').unwrap_or(0);
        Point {
            row: at.row + newlines,
            column: span.len() - last - 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_spans_between_common_prefix_and_suffix() {
        let e = edit_between("ab\ncd\nef", "ab\ncXYd\nef");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (4, 4, 6));
        assert_eq!(e.start_position, Point { row: 1, column: 1 });
        assert_eq!(e.new_end_position, Point { row: 1, column: 3 });
        // Repeated text: prefix and suffix never overlap.
        let e = edit_between("aaaa", "aaaaaa");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (4, 4, 6));
        let e = edit_between("x\ny\n", "x\n");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (2, 4, 2));
        assert_eq!(e.old_end_position, Point { row: 2, column: 0 });
        assert_eq!(e.new_end_position, Point { row: 1, column: 0 });
    }

    #[test]
    fn edit_boundaries_fall_on_characters() {
        // "é" and "è" share their first byte.
        let e = edit_between("aé", "aè");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (1, 3, 3));
    }
}
