//! The code graph on the wire (extensions): `graph.status`, `symbols.list`,
//! `symbols.resolve`, `code.callers`, `code.callees`; and what `lock.acquire` and
//! `intent.declare` learn from it (cross-file callers and callees, unknown symbols).
//!
//! Edges on the wire: `{caller, callee, resolution, file, line, depth}` where `caller`
//! and `callee` are `file:name` symbol paths (`?:name` for an unresolved callee),
//! `resolution` is `resolved` | `name-only` | `unresolved` (see `wit_graph`), `file` and
//! `line` (zero-based, like `startLine`) locate the first call site in the caller's file.

use serde_json::{Map, Value, json};
use wit_core::protocol::ErrorCode;
use wit_core::{Analysis, Symbol, SymbolPath};
use wit_graph::{Edge, Graph, Language, Target};

use super::{Failure, validated};
use crate::analysis::{FileOutcome, symbol_spellings};
use crate::params::Params;
use crate::state::AppState;

/// Most suggestions for an unknown symbol.
const SUGGESTIONS: usize = 3;

/// `graph.status {resolution?}`: the index's state and counts; with `resolution: true`,
/// also how the graph's call sites resolve (a pass over every call site of the
/// repository: for benchmarks and diagnostics, not for every request).
pub(crate) async fn status(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let resolution = p.opt_bool("resolution");
    p.finish()?;
    let resolution = resolution.unwrap_or(false);
    state
        .with_index(move |ix| {
            let mut v = ix.status();
            if resolution && let Some(obj) = v.as_object_mut() {
                let (r, n, u) = ix.resolution_counts();
                obj.insert(
                    "resolution".into(),
                    json!({"resolved": r, "nameOnly": n, "unresolved": u}),
                );
            }
            v
        })
        .await
}

/// Whether `s` is visible to other modules: for TypeScript/JavaScript, named by an
/// export (or a member of an exported class or object); for Python, a top-level name or
/// a method of a top-level class not starting with `_`; the declarative languages (Java,
/// Go, Rust, C#): an exported (`public`, `pub`, capitalised) top-level definition or a
/// member of one, as their queries mark them; plugins that report no exports: `false`
/// (unknown).
fn exported(file: &str, a: &Analysis, s: &Symbol) -> bool {
    match Language::of(file) {
        Language::Script | Language::Other => {
            let named = |n: &str| {
                a.exports
                    .iter()
                    .any(|e| e.module.is_none() && e.local.as_deref() == Some(n))
            };
            match &s.container {
                None => named(&s.name),
                Some(c) => named(c) || c == "module.exports" || c == "exports",
            }
        }
        Language::Python => {
            !s.name.starts_with('_')
                && s.container
                    .as_deref()
                    .is_none_or(|c| !c.starts_with('_') && !c.contains('.'))
        }
    }
}

fn describe(file: &str, a: &Analysis, s: &Symbol) -> Value {
    let address = a.address_of(s);
    let mut v = json!({
        "name": s.name,
        "address": address,
        "symbolPath": format!("{file}:{address}"),
        "kind": s.kind.as_str(),
        "startByte": s.start_byte,
        "endByte": s.end_byte,
        "startLine": s.start_line,
        "endLine": s.end_line,
        "exported": exported(file, a, s),
    });
    if let Some(obj) = v.as_object_mut() {
        if let Some(c) = &s.container {
            obj.insert("container".into(), json!(c));
        }
        if let Some(sig) = &s.signature {
            obj.insert("signature".into(), json!(sig));
        }
    }
    v
}

fn outcome_status(outcome: &FileOutcome) -> (&'static str, Option<String>) {
    match outcome {
        FileOutcome::NotFound => ("notFound", None),
        FileOutcome::Unsupported => ("unsupported", None),
        FileOutcome::Failed(r) => ("failed", Some(r.clone())),
        FileOutcome::Analysed(_) => ("analysed", None),
    }
}

/// `symbols.list {file}` → `{file, status, reason?, symbols: [{name, address, symbolPath,
/// kind, container?, startByte, endByte, startLine, endLine, signature?, exported}]}`.
/// The file is analysed from its current disk content.
pub(crate) async fn list(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let file = p.req_file("file");
    p.finish()?;
    let file = validated(file)?;
    let outcome = state.analyse_disk(vec![file.clone()]).await?;
    let outcome = outcome.into_iter().next().unwrap_or(FileOutcome::NotFound);
    let (status, reason) = outcome_status(&outcome);
    let symbols: Vec<Value> = match &outcome {
        FileOutcome::Analysed(a) => a.symbols.iter().map(|s| describe(&file, a, s)).collect(),
        _ => Vec::new(),
    };
    let mut v = json!({"file": file, "status": status, "symbols": symbols});
    if let (Some(r), Some(obj)) = (reason, v.as_object_mut()) {
        obj.insert("reason".into(), json!(r));
    }
    Ok(v)
}

/// What resolving `file:name` against the file's current content found.
pub(crate) struct Resolved {
    /// `analysed`, `notFound`, `unsupported` or `failed`.
    pub status: &'static str,
    /// The canonical `file:address`, when the symbol exists.
    pub canonical: Option<String>,
    /// The kind, when it exists.
    pub kind: Option<&'static str>,
    /// The nearest names (as symbol paths) when it does not.
    pub suggestions: Vec<String>,
}

fn resolve_in(file: &str, name: &str, outcome: &FileOutcome) -> Resolved {
    let (status, _) = outcome_status(outcome);
    match outcome.analysis() {
        Some(a) => match a.find(name) {
            Some(def) => Resolved {
                status,
                canonical: Some(format!("{file}:{}", a.address_of(def))),
                kind: Some(def.kind.as_str()),
                suggestions: Vec::new(),
            },
            None => Resolved {
                status,
                canonical: None,
                kind: None,
                suggestions: Graph::nearest_names(a, name, SUGGESTIONS)
                    .into_iter()
                    .map(|n| format!("{file}:{n}"))
                    .collect(),
            },
        },
        None => Resolved {
            status,
            canonical: None,
            kind: None,
            suggestions: Vec::new(),
        },
    }
}

/// `symbols.resolve {symbolPath}` → `{symbolPath, exists, status, canonical?, kind?,
/// suggestions}`. `exists` is true when the file analyses and the name addresses a
/// definition (bare name, `Container.name`, `name#kind`, `name#N`); `suggestions` are
/// the nearest names of the file otherwise.
pub(crate) async fn resolve(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let symbol_path = p.symbol_path("symbolPath");
    p.finish()?;
    let symbol_path = validated(symbol_path)?;
    let sp = validated(SymbolPath::parse(&symbol_path))?;
    let outcome = state.analyse_disk(vec![sp.file.to_owned()]).await?;
    let outcome = outcome.into_iter().next().unwrap_or(FileOutcome::NotFound);
    let r = resolve_in(sp.file, sp.name, &outcome);
    let mut v = json!({
        "symbolPath": symbol_path,
        "exists": r.canonical.is_some(),
        "status": r.status,
        "suggestions": r.suggestions,
    });
    if let Some(obj) = v.as_object_mut() {
        if let Some(c) = r.canonical {
            obj.insert("canonical".into(), json!(c));
        }
        if let Some(k) = r.kind {
            obj.insert("kind".into(), json!(k));
        }
    }
    Ok(v)
}

/// An edge as the wire shows it.
pub(crate) fn edge_json(e: &Edge) -> Value {
    json!({
        "caller": e.caller.path(),
        "callee": e.callee.path(),
        "resolution": e.resolution.as_str(),
        "file": e.caller.file.as_ref(),
        "line": e.line,
        "depth": e.depth,
    })
}

async fn edges(
    state: &AppState,
    params: &Map<String, Value>,
    callers: bool,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let symbol_path = p.symbol_path("symbolPath");
    let depth = p.opt_positive_int("depth", wit_graph::MAX_DEPTH as u64);
    p.finish()?;
    let symbol_path = validated(symbol_path)?;
    let sp = validated(SymbolPath::parse(&symbol_path))?;
    let (file, name) = (sp.file.to_owned(), sp.name.to_owned());
    let depth = depth.unwrap_or(1) as usize;
    let (f, n) = (file.clone(), name.clone());
    let (found, ready) = state
        .with_index(move |ix| {
            let found = if callers {
                ix.callers(&f, &n, depth, None)
            } else {
                ix.callees(&f, &n, depth, None)
            };
            (found, ix.ready())
        })
        .await?;
    let Some((target, edges)) = found else {
        let outcome = state.analyse_disk(vec![file.clone()]).await?;
        let outcome = outcome.into_iter().next().unwrap_or(FileOutcome::NotFound);
        let r = resolve_in(&file, &name, &outcome);
        return Err(Failure::domain(
            ErrorCode::SymbolNotFound,
            json!({"symbolPath": symbol_path, "suggestions": r.suggestions}),
        ));
    };
    let key = if callers { "callers" } else { "callees" };
    let list: Vec<Value> = edges.iter().map(edge_json).collect();
    Ok(json!({
        "symbol": target.path(),
        "depth": depth,
        "complete": ready,
        key: list,
    }))
}

/// `code.callers {symbolPath, depth?}` → `{symbol, depth, complete, callers: [edge]}`.
/// `complete` is false while the index is still being built (callers in files not
/// indexed yet are missing).
pub(crate) async fn callers(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    edges(state, params, true).await
}

/// `code.callees {symbolPath, depth?}` → `{symbol, depth, complete, callees: [edge]}`.
pub(crate) async fn callees(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    edges(state, params, false).await
}

/// Every spelling a lock on the graph's definition `s` may have.
fn spellings_of(ix: &crate::index::RepoIndex, s: &wit_graph::SymbolRef) -> Vec<String> {
    // The graph names a definition by its address, which is its canonical spelling
    // already; only a method (`Class.m`) may also be locked by its bare name.
    if !s.name.contains('.') {
        return vec![format!("{}:{}", s.file, s.name)];
    }
    ix.read(|g| {
        let a = g.get(&s.file).cloned();
        symbol_spellings(&s.file, &s.name, a.as_deref())
    })
}

/// The callers of a symbol in the graph, each as the spellings its lock may have: those
/// resolution links to it, and apart, those that only call something of its name.
#[derive(Debug, Default)]
pub(crate) struct CallerSpellings {
    /// Whether the graph knows the definition (its answer is then the whole truth about
    /// callers; else only v1's same-file rule by name is left).
    pub known: bool,
    /// Resolved callers: v1's caller warnings.
    pub resolved: Vec<Vec<String>>,
    /// Name-only guesses (a call of that name the graph could not link): never mixed into
    /// the warnings, reported apart as what they are.
    pub name_only: Vec<Vec<String>>,
}

/// For `lock.acquire`: the callers of `file:name` in the graph, in any file or (`within`)
/// in those files only. Empty when the graph does not know the definition.
pub(crate) fn caller_spellings(
    ix: &crate::index::RepoIndex,
    file: &str,
    name: &str,
    fresh: &std::sync::Arc<Analysis>,
    within: Option<&std::collections::HashSet<String>>,
) -> CallerSpellings {
    let mut out = CallerSpellings::default();
    let found = match within {
        Some(files) => ix.callers_within(file, name, Some(fresh), &|f| files.contains(f)),
        None => ix.callers(file, name, 1, Some(fresh)),
    };
    let Some((_, edges)) = found else {
        return out;
    };
    out.known = true;
    for e in edges.iter() {
        match e.resolution {
            wit_graph::Resolution::Resolved => out.resolved.push(spellings_of(ix, &e.caller)),
            wit_graph::Resolution::NameOnly => out.name_only.push(spellings_of(ix, &e.caller)),
            wit_graph::Resolution::Unresolved => {}
        }
    }
    out
}

/// For `intent.declare`: the callees in *other* files of each declared `file:symbol`, as
/// `(intentSymbol, spellings of the callee's lock)` (the same-file ones are v1's).
pub(crate) fn cross_file_callees(
    ix: &crate::index::RepoIndex,
    files: &[String],
    outcomes: &[FileOutcome],
    symbols: &[String],
) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    // Only files that analysed can have callees; their analyses spare the index a read.
    for (file, fresh) in files
        .iter()
        .zip(outcomes)
        .filter_map(|(f, o)| o.analysis().map(|a| (f, a)))
    {
        if !ix.indexable(file) {
            continue;
        }
        for (name, found) in symbols
            .iter()
            .zip(ix.callees_of_each(file, symbols, 1, Some(fresh)))
        {
            let Some((_, edges)) = found else {
                continue;
            };
            for e in edges {
                let Target::Symbol(s) = &e.callee else {
                    continue;
                };
                if s.file.as_ref() == file.as_str()
                    || e.resolution == wit_graph::Resolution::Unresolved
                {
                    continue;
                }
                let pair = (format!("{file}:{name}"), spellings_of(ix, s));
                if !out.contains(&pair) {
                    out.push(pair);
                }
            }
        }
    }
    out
}

/// The declared names that no analysed file among `files` defines, as
/// `{symbolPath, suggestions}` (one per name; the path names the first analysed file).
/// Names are not reported when no file analysed (nothing is known).
pub(crate) fn unknown_symbols(
    files: &[String],
    outcomes: &[FileOutcome],
    symbols: &[String],
) -> Vec<Value> {
    let analysed: Vec<(&String, &FileOutcome)> = files
        .iter()
        .zip(outcomes)
        .filter(|(_, o)| o.analysis().is_some())
        .collect();
    let Some((first, _)) = analysed.first() else {
        return Vec::new();
    };
    symbols
        .iter()
        .filter(|name| {
            !analysed
                .iter()
                .any(|(_, o)| o.analysis().is_some_and(|a| a.find(name).is_some()))
        })
        .map(|name| {
            let mut suggestions: Vec<String> = Vec::new();
            for (f, o) in &analysed {
                suggestions.extend(resolve_in(f, name, o).suggestions);
            }
            suggestions.truncate(SUGGESTIONS);
            json!({"symbolPath": format!("{first}:{name}"), "suggestions": suggestions})
        })
        .collect()
}

/// `value` (a result object) with `unknownSymbols` added when `unknown` is non-empty: the
/// answer a v1 client ignores.
pub(crate) fn with_unknown(mut value: Value, unknown: Vec<Value>) -> Value {
    if !unknown.is_empty()
        && let Some(obj) = value.as_object_mut()
    {
        obj.insert("unknownSymbols".into(), Value::Array(unknown));
    }
    value
}
