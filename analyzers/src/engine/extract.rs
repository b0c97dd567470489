//! One pass over the query's matches, then symbols built from what it found.
//!
//! Nothing here asks a node for its parent or siblings: tree-sitter answers those by
//! descending from the root, which makes them linear in the file and the whole analysis
//! quadratic. Everything structural (wrappers, containing classes) comes from query
//! captures instead, joined by node id or by the range sweep in [`super::nesting`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;

use tree_sitter::{Node, QueryCursor, QueryCursorOptions, QueryCursorState, StreamingIterator};
use wit_core::{
    AnalyzeError, Export, Import, Symbol, SymbolKind, TypeBody, signature::canonicalize,
};

use super::Syntax;
use super::budget::Budget;
use super::call::{Call, Receiver};
use super::locals::{self, Collected, ModuleNames};
use super::nesting::{Span, innermost};
use super::query::{CompiledQuery, Role};
use super::typed::Typed;

/// What one pass over a tree found.
pub(super) struct Found<'s> {
    /// Symbols in source order.
    pub(super) symbols: Vec<Symbol>,
    /// Imports captured by the query (`@import`), in source order.
    pub(super) imports: Vec<Import>,
    /// Exports: the exported (`@export`) definitions without a container.
    pub(super) exports: Vec<Export>,
    /// The call-owning range of every callable symbol (value: its index in `symbols`).
    pub(super) scopes: Vec<Span<usize>>,
    /// Call sites, unordered.
    pub(super) calls: Vec<Call<'s>>,
    /// What the tree binds at the module's top level (see [`super::locals`]).
    pub(super) module: ModuleNames,
    /// Type bodies, in source order, when the query captures their bases (Java).
    pub(super) bodies: Vec<TypeBody>,
    /// The argument types of the calls whose argument lists the query captures (see
    /// [`Call::arguments`]).
    pub(super) arguments: Vec<String>,
}

/// A definition as matched, before the pass is over.
struct Definition<'t> {
    kind: SymbolKind,
    node: Node<'t>,
    name: Node<'t>,
    callable: Option<Node<'t>>,
    scope: Option<Node<'t>>,
    qualifier: Option<Node<'t>>,
    /// `@container`: the container's name, given by the definition's own pattern.
    container: Option<Node<'t>>,
    /// `@signature.*` pieces, when the pattern names them.
    signature: SignatureParts<'t>,
    exported: bool,
}

/// The pieces of a signature a pattern captured (see [`Role::SignatureParameters`]).
#[derive(Clone, Copy, Default)]
struct SignatureParts<'t> {
    type_parameters: Option<Node<'t>>,
    parameters: Option<Node<'t>>,
    ret: Option<Node<'t>>,
}

impl SignatureParts<'_> {
    fn any(&self) -> bool {
        self.type_parameters.is_some() || self.parameters.is_some() || self.ret.is_some()
    }
}

/// A finished symbol with what ordering and call attribution still need.
struct Built {
    symbol: Symbol,
    /// Orders declarators sharing one statement by the position of their names.
    name_start: usize,
    /// The range owning the symbol's calls (callables only).
    scope: Option<std::ops::Range<usize>>,
    exported: bool,
}

/// Where a wrapped node's definition really starts: its wrapper's start and the wrapper's
/// id (the wrapper may be wrapped in turn).
#[derive(Clone, Copy)]
struct WrapperStart {
    id: usize,
    byte: usize,
    row: usize,
}

thread_local! {
    /// A query cursor keeps its match-state buffers between runs; reuse one per thread.
    static CURSOR: RefCell<QueryCursor> = RefCell::new(QueryCursor::new());
}

/// Runs `query` once over `node` (a whole tree's root, or one top-level declaration) and
/// turns its matches into symbols, scopes and calls.
///
/// The query cursor consults `budget` every thousand or so units of its work; when the
/// time is up it stops and the partial result is thrown away (an error, never a
/// truncated analysis that would be cached as the file's truth).
pub(super) fn extract<'s>(
    query: &CompiledQuery,
    syntax: &Syntax,
    node: Node,
    source: &'s str,
    budget: &Budget,
) -> Result<Found<'s>, AnalyzeError> {
    let text = |node: Node| -> &'s str { &source[node.byte_range()] };
    let mut definitions: Vec<Definition> = Vec::new();
    // A definition matched by several patterns (a Python method is also a `def`) is one
    // symbol. The key is the definition node and the name, since
    // `const a = () => 1, b = () => 2;` defines two symbols in one node.
    let mut seen: HashMap<(usize, usize), usize> = HashMap::new();
    let mut wrappers: HashMap<usize, WrapperStart> = HashMap::new();
    let mut classes: Vec<Span<Option<&'s str>>> = Vec::new();
    let mut calls: Vec<Call<'s>> = Vec::new();
    let mut imports: Vec<(usize, Import)> = Vec::new();
    let mut names = Collected::default();
    let mut declared = Typed::default();
    // (index into `calls`, its argument list), typed once the declarations are scoped.
    let mut argument_lists: Vec<(usize, Node)> = Vec::new();
    // Supertypes of each type body, by its (start, end): the class it extends, and the
    // interfaces in the order the patterns give them.
    let mut bases: HashMap<(usize, usize), Supertypes<'s>> = HashMap::new();

    let mut halted = false;
    CURSOR.with(|cell| {
        let mut cursor = cell.borrow_mut();
        let mut progress = |_: &QueryCursorState| {
            if budget.exhausted() {
                halted = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        };
        let mut matches = cursor.matches_with_options(
            &query.query,
            node,
            source.as_bytes(),
            QueryCursorOptions::new().progress_callback(&mut progress),
        );
        while let Some(m) = matches.next() {
            let mut definition = None;
            let mut name = None;
            let mut callable = None;
            let mut scope = None;
            let mut call = None;
            let mut wrapper = None;
            let mut wrapped = None;
            let mut container_body = None;
            let mut container_name = None;
            let mut receiver = None;
            let mut qualifier = None;
            let mut container = None;
            let mut sig = SignatureParts::default();
            let mut exported = false;
            let mut import = None;
            let mut import_module = None;
            let mut import_name = None;
            let mut import_alias = None;
            let mut base_names: Vec<(usize, &'s str)> = Vec::new();
            let mut extends = None;
            let mut arguments = None;
            let mut typed_declaration = None;
            let mut typed_name = None;
            let mut typed_type = None;
            for cap in m.captures() {
                let node = cap.node;
                match query.roles[cap.index as usize] {
                    Role::Definition(kind) => definition = Some((kind, node)),
                    Role::Name => name = Some(node),
                    Role::Callable => callable = Some(node),
                    Role::Scope => scope = Some(node),
                    Role::Call => call = Some(node),
                    Role::Wrapper => wrapper = Some(node),
                    Role::Wrapped => wrapped = Some(node),
                    Role::ContainerBody => container_body = Some(node),
                    Role::ContainerName => container_name = Some(node),
                    Role::Receiver => receiver = Some(node),
                    Role::Qualifier => qualifier = Some(node),
                    Role::Container => container = Some(node),
                    Role::SignatureTypeParameters => sig.type_parameters = Some(node),
                    Role::SignatureParameters => sig.parameters = Some(node),
                    Role::SignatureReturn => sig.ret = Some(node),
                    Role::Export => exported = true,
                    Role::Import => import = Some(node),
                    Role::ImportModule => import_module = Some(node),
                    Role::ImportName => import_name = Some(node),
                    Role::ImportAlias => import_alias = Some(node),
                    Role::BindScope => names.scope(&query.vocabulary, node),
                    Role::Bind => names.bind(&query.vocabulary, node, source, false),
                    Role::BindVar => names.bind(&query.vocabulary, node, source, true),
                    Role::BindAssign => names.assign(&query.vocabulary, node, source),
                    Role::BindGlobal => names.global(&query.vocabulary, node, source),
                    Role::ContainerBase => base_names.push((node.start_byte(), text(node))),
                    Role::ContainerExtends => extends = Some(text(node)),
                    Role::Arguments => arguments = Some(node),
                    Role::TypedScope => declared.scope(node),
                    Role::TypedLocal => typed_declaration = Some((node, false)),
                    Role::TypedField => typed_declaration = Some((node, true)),
                    Role::TypedName => typed_name = Some(node),
                    Role::TypedType => typed_type = Some(node),
                    Role::Ignored => {}
                }
            }
            if let (Some((declaration, field)), Some(name)) = (typed_declaration, typed_name) {
                declared.declare(declaration, name, typed_type, field, source);
                continue;
            }
            if let (Some(at), Some(module)) = (import, import_module) {
                if let Some(i) = import_of(module, import_name, import_alias, source) {
                    imports.push((at.start_byte(), i));
                }
                continue;
            }
            if let (Some(call), Some(name)) = (call, name) {
                if let Some(list) = arguments {
                    argument_lists.push((calls.len(), list));
                }
                calls.push(Call {
                    at: call.start_byte(),
                    callee: text(name),
                    receiver: receiver.map_or(Receiver::None, |r| Receiver::of(r, source)),
                    arguments: None,
                });
            } else if let (Some((kind, node)), Some(name)) = (definition, name) {
                let (kind, qualifier) = match qualifier.map(|q| Qualified::of(q, source)) {
                    // `this.x = …` and other shapes: not addressable.
                    Some(Qualified::Skip) => continue,
                    Some(Qualified::Prototype(class)) => (SymbolKind::Method, Some(class)),
                    Some(Qualified::Module) => (kind, None),
                    Some(Qualified::Object(q)) => (kind, Some(q)),
                    None => (kind, None),
                };
                let def = Definition {
                    kind,
                    node,
                    name,
                    callable,
                    scope,
                    qualifier,
                    container,
                    signature: sig,
                    exported,
                };
                match seen.get(&(node.id(), name.id())) {
                    // The more specific reading wins: a method over the function a def in a
                    // class body also is, an interface or class over a plain type (Go's
                    // `type X interface`). `@export` from any pattern sticks.
                    Some(&i) => {
                        let old = &mut definitions[i];
                        if specificity(kind) > specificity(old.kind) {
                            let exported = old.exported;
                            *old = def;
                            old.exported |= exported;
                        } else {
                            // Pieces one pattern names and another does not (an `@export`
                            // pattern without the signature's captures) add up.
                            old.exported |= def.exported;
                            old.callable = old.callable.or(def.callable);
                            old.scope = old.scope.or(def.scope);
                            old.container = old.container.or(def.container);
                            if !old.signature.any() {
                                old.signature = def.signature;
                            }
                        }
                    }
                    None => {
                        seen.insert((node.id(), name.id()), definitions.len());
                        definitions.push(def);
                    }
                }
            } else if let (Some(wrapper), Some(wrapped)) = (wrapper, wrapped) {
                wrappers.insert(
                    wrapped.id(),
                    WrapperStart {
                        id: wrapper.id(),
                        byte: wrapper.start_byte(),
                        row: wrapper.start_position().row,
                    },
                );
            } else if let Some(body) = container_body {
                classes.push(Span {
                    start: body.start_byte(),
                    end: body.end_byte(),
                    value: container_name.map(text),
                });
                if query.bodies {
                    let known = bases
                        .entry((body.start_byte(), body.end_byte()))
                        .or_default();
                    known.superclass = known.superclass.or(extends);
                    for b in base_names {
                        if !known.interfaces.contains(&b) {
                            known.interfaces.push(b);
                        }
                    }
                }
            }
        }
    });
    if halted {
        return Err(budget.exceeded("running the queries"));
    }

    let scoped = declared.scoped(&classes);
    scoped.receivers(&mut calls, source, syntax.callable_variables);
    let mut argument_texts = Vec::with_capacity(argument_lists.len());
    for (i, list) in argument_lists {
        calls[i].arguments = Some(argument_texts.len() as u32);
        argument_texts.push(scoped.argument_types(list, calls[i].at, source));
    }
    let bodies = if query.bodies {
        type_bodies(&classes, &bases)
    } else {
        Vec::new()
    };
    let containers = containers(&definitions, &mut classes, syntax, source);
    let mut built: Vec<Built> = definitions
        .iter()
        .zip(containers)
        .map(|(def, container)| {
            let symbol = symbol(def, container, &wrappers, syntax, source);
            let scope = symbol.kind.is_callable().then(|| {
                let node = def.scope.or(def.callable).unwrap_or(def.node);
                node.byte_range()
            });
            Built {
                symbol,
                name_start: def.name.start_byte(),
                scope,
                exported: def.exported,
            }
        })
        .collect();
    // Source order; declarators sharing one statement (`const a = …, b = …`) by name.
    built.sort_by_key(|b| (b.symbol.start_byte, b.name_start));
    // One function reached twice under one name (`module.exports.x = exports.x =
    // function () {}`: the module's `x` both times) is one definition.
    built.dedup_by(|b, a| {
        let (a, b) = (&a.symbol, &b.symbol);
        (a.start_byte, a.end_byte, a.kind) == (b.start_byte, b.end_byte, b.kind)
            && a.name == b.name
            && a.container == b.container
    });
    let mut scopes = Vec::new();
    let mut exports = Vec::new();
    let symbols: Vec<Symbol> = built
        .into_iter()
        .enumerate()
        .map(|(i, b)| {
            if let Some(range) = b.scope {
                scopes.push(Span {
                    start: range.start,
                    end: range.end,
                    value: i,
                });
            }
            if b.exported && b.symbol.container.is_none() {
                let name = b.symbol.name.clone();
                exports.push(Export::new(name.clone(), Some(name), None));
            }
            b.symbol
        })
        .collect();
    imports.sort_by_key(|(at, _)| *at);
    let module = if query.locals {
        locals::resolve(names, &query.vocabulary, &symbols, &mut calls, source)
    } else {
        ModuleNames::default()
    };
    Ok(Found {
        symbols,
        imports: imports.into_iter().map(|(_, i)| i).collect(),
        exports,
        scopes,
        calls,
        module,
        bodies,
        arguments: argument_texts,
    })
}

/// The supertypes a query captured for one type body (interfaces with where they are
/// written: several patterns' matches come in no particular order).
#[derive(Default)]
struct Supertypes<'s> {
    superclass: Option<&'s str>,
    interfaces: Vec<(usize, &'s str)>,
}

/// The type bodies the query found (each once, in source order) with their supertypes,
/// type arguments and whitespace dropped (`AbstractList<E>` is `AbstractList`).
fn type_bodies(
    classes: &[Span<Option<&str>>],
    bases: &HashMap<(usize, usize), Supertypes>,
) -> Vec<TypeBody> {
    let plain = |written: &str| -> Option<String> {
        let name = wit_core::signature::without_type_arguments(written);
        (!name.is_empty() && name.len() <= 256).then_some(name)
    };
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<TypeBody> = classes
        .iter()
        .filter(|c| seen.insert((c.start, c.end)))
        .map(|c| {
            let mut body = TypeBody::new(c.start, c.end, c.value.map(str::to_owned));
            if let Some(s) = bases.get(&(c.start, c.end)) {
                body.superclass = s.superclass.and_then(plain);
                let mut interfaces = s.interfaces.clone();
                interfaces.sort_unstable();
                body.bases = interfaces.iter().filter_map(|(_, b)| plain(b)).collect();
            }
            body
        })
        .collect();
    out.sort_by_key(|b| (b.start_byte, std::cmp::Reverse(b.end_byte)));
    out
}

/// How specific a reading of a definition is, when several patterns match it.
fn specificity(kind: SymbolKind) -> u8 {
    match kind {
        SymbolKind::Method => 2,
        SymbolKind::Interface | SymbolKind::Class => 1,
        _ => 0,
    }
}

/// What the object of a property-assigned definition makes of it.
enum Qualified<'t> {
    /// `exports.x`, `module.exports.x`, `module.exports = {…}`: the module's own `x`.
    Module,
    /// `Foo.prototype.x`: the method `Foo.x` (the node is `Foo`).
    Prototype(Node<'t>),
    /// `res.x`, `api.x`: container `res`.
    Object(Node<'t>),
    /// `this.x` and anything that is not a name or a chain of names.
    Skip,
}

impl<'t> Qualified<'t> {
    fn of(node: Node<'t>, source: &str) -> Self {
        let text = &source[node.byte_range()];
        if text == "exports" || text == "module.exports" {
            return Qualified::Module;
        }
        if node.kind() == "member_expression"
            && node
                .child_by_field_name("property")
                .is_some_and(|p| &source[p.byte_range()] == "prototype")
        {
            return match node.child_by_field_name("object") {
                Some(o) if o.kind() == "identifier" => Qualified::Prototype(o),
                _ => Qualified::Skip,
            };
        }
        let plain = text.len() <= 128
            && !text.is_empty()
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.') || b >= 0x80);
        match node.kind() {
            "identifier" | "member_expression" if plain && !text.starts_with("this.") => {
                Qualified::Object(node)
            }
            _ => Qualified::Skip,
        }
    }
}

/// For each definition, the name of its container: the innermost class body around it for
/// a method (for every kind with [`Syntax::contain_all_kinds`]); an anonymous class
/// (`export default class { … }`) gives `None`. A definition with a qualifier
/// (`res.status = …`, `Foo.prototype.bar = …`, `const api = {get() {}}`) takes the
/// qualifier's text instead, and one whose pattern captured `@container` that capture's.
fn containers<'s>(
    definitions: &[Definition],
    classes: &mut [Span<Option<&'s str>>],
    syntax: &Syntax,
    source: &'s str,
) -> Vec<Option<&'s str>> {
    let mut nested: Vec<(usize, usize)> = definitions
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            // A function inside a type is a local function of a method (C#), not a member.
            (d.kind == SymbolKind::Method || (syntax.contain_all_kinds && !d.kind.is_callable()))
                && d.qualifier.is_none()
                && d.container.is_none()
        })
        .map(|(i, d)| (d.node.start_byte(), i))
        .collect();
    nested.sort_unstable();
    let points: Vec<usize> = nested.iter().map(|&(at, _)| at).collect();
    let mut containers = vec![None; definitions.len()];
    for ((_, i), class) in nested.iter().zip(innermost(classes, &points)) {
        containers[*i] = class.flatten();
    }
    for (slot, def) in containers.iter_mut().zip(definitions) {
        if let Some(q) = def.qualifier.or(def.container) {
            *slot = Some(&source[q.byte_range()]);
        }
    }
    containers
}

/// The import a `@import` match describes, if its texts are names of a sane length.
fn import_of(
    module: Node,
    name: Option<Node>,
    alias: Option<Node>,
    source: &str,
) -> Option<Import> {
    const MAX: usize = 512;
    let text = |n: Node| {
        let t = source[n.byte_range()].trim_matches(|c| c == '"' || c == '\'' || c == '`');
        (!t.is_empty() && t.len() <= MAX && !t.contains(['\n', '\\'])).then(|| t.to_owned())
    };
    let module = text(module)?;
    let name = name.and_then(text);
    let local = match (alias.and_then(text), &name) {
        (Some(a), _) => a,
        (None, Some(n)) => n.clone(),
        // `import "a/b/c"` binds `c`; `use a::b` binds `b`; `import a.b.C` binds `C`.
        (None, None) => module
            .rsplit(['/', '.', ':'])
            .find(|s| !s.is_empty())
            .unwrap_or(&module)
            .to_owned(),
    };
    Some(Import::new(module, name, local))
}

/// Builds the symbol for one definition.
fn symbol(
    def: &Definition,
    container: Option<&str>,
    wrappers: &HashMap<usize, WrapperStart>,
    syntax: &Syntax,
    source: &str,
) -> Symbol {
    let node = def.node;
    // Widen over wrappers (`export`, decorators), following chains of them.
    let mut start = WrapperStart {
        id: node.id(),
        byte: node.start_byte(),
        row: node.start_position().row,
    };
    while let Some(&outer) = wrappers.get(&start.id) {
        start = outer;
    }
    let end = node.end_byte();
    let end_point = node.end_position();
    // A node ending just after a newline ends on the line before.
    let end_line = if end_point.column == 0 && end_point.row > start.row {
        end_point.row - 1
    } else {
        end_point.row
    };
    Symbol {
        name: source[def.name.byte_range()].to_owned(),
        kind: def.kind,
        container: container.map(container_text),
        start_byte: start.byte,
        end_byte: end,
        start_line: start.row,
        end_line,
        // Only a query bug leaves a callable without @callable; `()` then keeps the
        // symbol usable rather than losing it.
        signature: def.kind.is_callable().then(|| {
            if def.signature.any() {
                // A piece the pattern did not capture still comes from the callable's
                // field, so a query may capture only what its grammar names otherwise.
                let mut parts = def.signature;
                if let Some(c) = def.callable {
                    let field = |name| c.child_by_field_name(name);
                    parts.type_parameters =
                        parts.type_parameters.or_else(|| field("type_parameters"));
                    parts.parameters = parts.parameters.or_else(|| field("parameters"));
                    parts.ret = parts.ret.or_else(|| field("return_type"));
                }
                signature_of(parts, syntax, source)
            } else {
                def.callable
                    .map_or_else(|| "()".to_owned(), |c| signature(c, syntax, source))
            }
        }),
    }
}

/// A container as its symbols are addressed: a name or a chain of names as written, and
/// a type that is none (Rust's `impl Hex for [u8]`, `impl Tr for (A, B)`) in the
/// canonical form signatures take, so that a line break inside it changes no address.
fn container_text(written: &str) -> String {
    let plain = written
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.'));
    if plain {
        written.to_owned()
    } else {
        canonicalize(written)
    }
}

/// The canonical signature of a function node: its type parameters, its parameters joined
/// by `", "` inside parentheses, then the separator and return type.
///
/// The pieces are the grammar's fields `type_parameters`, `parameters` (or an arrow's bare
/// `parameter`) and `return_type`, names the TypeScript and Python grammars share. Reading
/// fields is cheap; optional captures for them cost the query engine far more (measured).
/// Parameters are taken one by one rather than as the list's text so that comments between
/// them and a trailing comma never count as a change.
fn signature(function: Node, syntax: &Syntax, source: &str) -> String {
    let parameter = function.child_by_field_name("parameter");
    let parts = SignatureParts {
        type_parameters: function.child_by_field_name("type_parameters"),
        parameters: function.child_by_field_name("parameters"),
        ret: function.child_by_field_name("return_type"),
    };
    if parts.parameters.is_none()
        && let Some(param) = parameter
    {
        let mut out = String::from("(");
        out.push_str(&source[param.byte_range()]);
        out.push(')');
        return canonicalize(&finish(out, parts, syntax, source));
    }
    signature_of(parts, syntax, source)
}

/// The canonical signature from its pieces (see [`signature`]).
fn signature_of(parts: SignatureParts, syntax: &Syntax, source: &str) -> String {
    let text = |node: Node| &source[node.byte_range()];
    let mut out = String::with_capacity(64);
    if let Some(tp) = parts.type_parameters {
        out.push_str(text(tp));
    }
    out.push('(');
    if let Some(params) = parts.parameters {
        let mut walk = params.walk();
        let mut first = true;
        for param in params.named_children(&mut walk) {
            // Comments are extras: they can appear anywhere and are never part of the API.
            if param.is_extra() {
                continue;
            }
            if !first {
                out.push_str(", ");
            }
            first = false;
            out.push_str(text(param));
        }
    }
    out.push(')');
    canonicalize(&finish(out, parts, syntax, source))
}

/// `out` (type parameters and parameters) followed by the separator and return type.
fn finish(mut out: String, parts: SignatureParts, syntax: &Syntax, source: &str) -> String {
    if let Some(ret) = parts.ret {
        // TypeScript's return annotation node includes its colon; the separator supplies it.
        let ret = source[ret.byte_range()]
            .trim_start_matches(':')
            .trim_start();
        out.push_str(syntax.return_separator);
        out.push_str(ret);
    }
    out
}
