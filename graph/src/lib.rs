//! `wit-graph`: the repository code graph.
//!
//! A [`Graph`] holds one [`Analysis`] per indexed file (symbols, call sites with their
//! receivers, imports, exports, class bases) and answers, across files, which function a
//! call site calls ([`Graph::resolve_site`]), the callees of a symbol ([`Graph::callees`])
//! and its callers ([`Graph::callers`]). It is pure: the daemon reads files (through
//! `wit-boundary`), analyses them, persists them and feeds them in; nothing here touches
//! the disk.
//!
//! # How a call resolves
//! Each edge is marked with a [`Resolution`]:
//! - **resolved**: the definition was found by the language's own rules: a top-level
//!   definition of the same file; an imported binding, followed through aliases,
//!   re-exports (`export {x} from`, `export *`, chains of them, cycles cut), index files,
//!   `__init__.py` re-exports, the nearest `tsconfig.json`'s `paths` and `baseUrl` (its
//!   `extends` chain applied), the repository's own packages by their `package.json`
//!   name (`exports`, `types`, `main`: workspace packages), and Python modules of
//!   namespace packages; a namespace or module object
//!   (`import * as db` then `db.query()`, `const m = require('./m')`, Python
//!   `import a.b` then `a.b.f()`); `this.m()`/`self.m()`/`cls.m()` in the caller's class
//!   or a base class; `super.m()`/`super().m()` in a base class; `new Repo().find()` on
//!   an imported class; `api.get()` on an object whose methods are symbols. Java and Go
//!   by their own rules (`java.rs`: the innermost enclosing class having the method,
//!   overloads by their arguments; `golang.rs`: the package, conversions no calls). For
//!   files of other languages (plugins): a plain call to a top-level definition of a
//!   file in the same directory with the same extension (one Go package).
//! - **name-only**: no rule proves it, but the name matches a definition of the same file
//!   (the protocol's v1 rule: `obj.save()` is `file:save` when the file defines a
//!   `save`; in Java and Go only a function defined once under the name), or else of a
//!   file the caller's file imports.
//! - **unresolved**: nothing matches; the callee is written `?:name`.

mod golang;
mod java;
mod members;
mod modules;
mod packages;
mod paths;
mod project;
mod scopes;

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use wit_core::{Analysis, CallSite, Symbol};

pub use members::MemberUse;
pub use modules::Language;
pub use project::{TsPaths, is_config_file};

/// How a call edge's callee was found (see the crate docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resolution {
    /// Proven by the language's rules.
    Resolved,
    /// Matched by name only.
    NameOnly,
    /// Not found (`?:name`).
    Unresolved,
}

impl Resolution {
    /// `resolved`, `name-only` or `unresolved`.
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::Resolved => "resolved",
            Resolution::NameOnly => "name-only",
            Resolution::Unresolved => "unresolved",
        }
    }
}

/// A definition in an indexed file: its file and its address in the file (the name
/// [`Analysis::find`] resolves to it, see [`Analysis::address_of`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymbolRef {
    /// Repository-relative path.
    pub file: Arc<str>,
    /// Address within the file (`query`, `Repo.find`, `input#function`).
    pub name: String,
}

impl SymbolRef {
    /// `file:name`.
    pub fn path(&self) -> String {
        format!("{}:{}", self.file, self.name)
    }
}

/// Where a call resolved to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// A definition of an indexed file.
    Symbol(SymbolRef),
    /// Nothing known: the called name.
    Unknown(String),
}

impl Target {
    /// `file:name`, or `?:name`.
    pub fn path(&self) -> String {
        match self {
            Target::Symbol(s) => s.path(),
            Target::Unknown(n) => format!("?:{n}"),
        }
    }
}

/// One call edge of the graph.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Edge {
    /// The calling definition.
    pub caller: SymbolRef,
    /// The called one.
    pub callee: Target,
    /// How the callee was found.
    pub resolution: Resolution,
    /// Zero-based line of the (first) call site, in the caller's file.
    pub line: usize,
    /// 1 for direct edges, 2 for edges of a callee's callee (or a caller's caller), ….
    pub depth: usize,
}

/// What a lookup of a name in a file found.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Binding {
    Symbol(SymbolRef),
    Module(Arc<str>),
    /// A top-level variable of evident class ([`wit_core::ValueClass`]): the file that
    /// declares it and its index in that file's `values`.
    Value(Arc<str>, usize),
}

/// The state of one resolution: a step budget and the lookups under way (a cycle of
/// imports or re-exports ends at the first repeat).
struct Cx {
    budget: usize,
    visiting: HashSet<(usize, String, bool)>,
    /// The file and line of the call being resolved: a plain name there may mean a
    /// definition nested around that line (see `scopes.rs`).
    at: Option<(Arc<str>, usize)>,
}

impl Cx {
    fn new() -> Self {
        Self {
            budget: MAX_CHAIN * 4,
            visiting: HashSet::new(),
            at: None,
        }
    }

    /// Takes one step of the budget; `None` once it is spent.
    fn spend(&mut self) -> Option<()> {
        self.budget = self.budget.checked_sub(1)?;
        Some(())
    }

    /// The line of the call being resolved, when `file` is its file.
    fn line_in(&self, file: &Arc<str>) -> Option<usize> {
        self.at
            .as_ref()
            .filter(|(f, _)| Arc::ptr_eq(f, file))
            .map(|(_, l)| *l)
    }

    /// Enters the lookup of `name` in `file` (`export` or local); `false` when it is
    /// already under way or the budget is spent.
    fn enter(&mut self, file: &Arc<str>, name: &str, export: bool) -> bool {
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        self.visiting.insert((
            Arc::as_ptr(file) as *const u8 as usize,
            name.to_owned(),
            export,
        ))
    }

    fn leave(&mut self, file: &Arc<str>, name: &str, export: bool) {
        self.visiting.remove(&(
            Arc::as_ptr(file) as *const u8 as usize,
            name.to_owned(),
            export,
        ));
    }
}

/// Most steps a chain of imports and re-exports is followed.
const MAX_CHAIN: usize = 32;
/// Deepest `depth` of [`Graph::callers`] and [`Graph::callees`].
pub const MAX_DEPTH: usize = 8;

/// A call site as the graph keeps it: 16 bytes, names interned (see [`Interner`]).
#[derive(Debug, Clone, Copy)]
struct Site {
    /// Index into the file's callers.
    caller: u32,
    /// Interned called name.
    callee: u32,
    /// 0: a plain call; otherwise the interned receiver + 1.
    receiver: u32,
    line: u32,
}

/// A call site of a file, borrowed from the graph.
#[derive(Debug, Clone, Copy)]
pub struct SiteRef<'a> {
    /// Qualified name of the calling definition.
    pub caller: &'a str,
    /// The called name.
    pub callee: &'a str,
    /// The receiver (see [`CallSite::receiver`]).
    pub receiver: Option<&'a str>,
    /// Zero-based line.
    pub line: usize,
    /// Its arguments' types, when the analyzer reports them (Java: overloads; see
    /// [`CallSite::arguments`]).
    pub arguments: Option<&'a str>,
}

impl<'a> From<&'a CallSite> for SiteRef<'a> {
    fn from(c: &'a CallSite) -> Self {
        SiteRef {
            caller: &c.caller,
            callee: &c.callee,
            receiver: c.receiver.as_deref(),
            line: c.line,
            arguments: c.arguments.as_deref(),
        }
    }
}

/// Names shared by many files (called names, receivers, callers), stored once. The
/// graphs of one [`Shared`] use one interner, from several threads: names are only ever
/// added, so a name read is never moved or freed while the interner lives, and reading
/// one takes no lock (`boxcar`); looking an id up takes a read lock.
#[derive(Default)]
struct Interner {
    ids: std::sync::RwLock<HashMap<Arc<str>, u32>>,
    names: boxcar::Vec<Arc<str>>,
}

impl Interner {
    fn id(&self, name: &str) -> u32 {
        if let Some(id) = self.get(name) {
            return id;
        }
        let mut ids = self.ids.write().unwrap_or_else(|p| p.into_inner());
        if let Some(&id) = ids.get(name) {
            return id;
        }
        // Pushed under the write lock, so that the index boxcar gives is the next id.
        let name: Arc<str> = Arc::from(name);
        let id = self.names.push(name.clone()) as u32;
        ids.insert(name, id);
        id
    }

    fn get(&self, name: &str) -> Option<u32> {
        self.ids
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(name)
            .copied()
    }

    fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }
}

/// What the graphs of several checkouts of one repository share: the interned names,
/// and so every file's [`FileBody`] (a file with the same content in two worktrees is
/// held once). Clones share; [`Graph::new`] makes a graph with a `Shared` of its own.
#[derive(Clone, Default)]
pub struct Shared {
    names: Arc<Interner>,
}

impl Shared {
    /// A new, empty set of shared names.
    pub fn new() -> Self {
        Self::default()
    }
}

/// What a graph keeps of one file's content, shareable with the other graphs of the same
/// [`Shared`] (see [`Graph::body`], [`Graph::insert_body`]). It depends on the file's
/// path (its language) and content only: where its calls resolve is each graph's own. It
/// carries the path and the content's tag ([`Graph::insert_tagged`]), so that the graphs
/// sharing it keep neither a path nor a tag of their own for the file.
#[derive(Clone)]
pub struct FileBody(Arc<Body>);

/// A [`FileBody`] that does not keep it alive.
#[derive(Clone)]
pub struct WeakBody(std::sync::Weak<Body>);

impl FileBody {
    /// A handle that does not keep the body alive.
    pub fn downgrade(&self) -> WeakBody {
        WeakBody(Arc::downgrade(&self.0))
    }

    /// The file it was made of.
    pub fn path(&self) -> &str {
        &self.0.path
    }

    /// What its content was tagged with ([`Graph::insert_tagged`]).
    pub fn tag(&self) -> [u8; 32] {
        self.0.tag
    }
}

impl WeakBody {
    /// The body, while some graph (or handle) still holds it.
    pub fn upgrade(&self) -> Option<FileBody> {
        self.0.upgrade().map(FileBody)
    }
}

/// What the graph keeps of one file: its content's [`Body`] (shared with the other
/// graphs holding the same content) and where its sites were found to go in this graph.
struct Entry {
    body: Arc<Body>,
    /// The file's number in this graph ([`Graph::by_callee`]).
    id: u32,
    memo: Mutex<Memo>,
}

impl std::ops::Deref for Entry {
    type Target = Body;

    fn deref(&self) -> &Body {
        &self.body
    }
}

/// What the graph keeps of one file's content: its analysis without signatures, call
/// edges and call sites (symbols, imports, exports, bases), and the call sites in compact
/// form, their names interned in the graph's [`Shared`].
struct Body {
    /// The interner the ids below are of (a body is inserted only into graphs using it).
    names: std::sync::Weak<Interner>,
    /// The file's path: every graph holding the body keys the file by this allocation
    /// (a path of each graph's own was about 0.6 MiB per checkout of 10,400 files).
    path: Arc<str>,
    /// What the content was tagged with (the daemon: its SHA-256), see [`Graph::tag`].
    /// Here rather than in each graph's entry, where it took 32 bytes of every bucket of
    /// every checkout's table.
    tag: [u8; 32],
    analysis: Arc<Analysis>,
    callers: Box<[u32]>,
    sites: Box<[Site]>,
    /// The interned names of the file's top-level definitions, sorted (TypeScript,
    /// JavaScript, Python): a plain call of one of them goes to it, never elsewhere.
    defines: Box<[u32]>,
    /// Each symbol's innermost enclosing symbol (see `scopes.rs`).
    parents: Box<[u32]>,
    /// Each symbol's signature, for picking among overloads (Java only, whose sites
    /// report their arguments; empty elsewhere: the graph keeps no signatures).
    signatures: Box<[Option<Box<str>>]>,
    /// Each site's interned argument types + 1 ([`NO_ARGUMENTS`]: not reported), beside
    /// `sites`; empty when the analyzer reports none (every language but Java), so that
    /// sites stay 16 bytes.
    arguments: Box<[u32]>,
    /// The interned names of definitions nested in another definition, sorted: where a
    /// plain call of one goes depends on the call's line.
    nested: Box<[u32]>,
    /// The interned qualified names that more than one callable definition has (two
    /// `hasNext` of two anonymous classes), sorted: a call of such a caller is told
    /// apart by its line.
    shared_callers: Box<[u32]>,
}

/// Where a file's call sites resolve, remembered until some file's interface changes
/// ([`Graph::interface`]). Keyed by (caller, callee, receiver) interned ids; the caller
/// only for `this`/`self`/`cls`/`super` calls, whose target depends on the caller's
/// class (else [`ANY_CALLER`]).
#[derive(Default)]
struct Memo {
    /// The interface generation the resolutions hold for.
    generation: u64,
    /// `None` until a site of the file is resolved: most files of a checkout are never
    /// asked about, and an empty map inline took 48 bytes of every bucket of every
    /// checkout's table of files (issue 31).
    #[expect(
        clippy::box_collection,
        reason = "boxed, `None` is 8 bytes inline instead of an empty map's 48"
    )]
    found: Option<Box<HashMap<SiteKey, (Target, Resolution)>>>,
}

/// A call site's interned (caller, callee, receiver + 1 or 0, argument types + 1 or
/// [`NO_ARGUMENTS`]).
type SiteKey = (u32, u32, u32, u32);

/// A site's argument types when the analyzer does not report them.
const NO_ARGUMENTS: u32 = 0;

/// The memo key's caller for calls whose target does not depend on the caller.
const ANY_CALLER: u32 = u32::MAX;
/// Most resolutions remembered per file (a bound on memory; beyond it, sites resolve
/// each time).
const MEMO_MAX_PER_FILE: usize = 1024;

/// A file's current analysis standing in for the graph's copy of it, for one question.
///
/// The daemon asks about a file just edited before (or instead of) re-indexing it: when
/// the edit kept the file's interface ([`Graph::same_interface`]), every resolution the
/// graph makes is unchanged, and only the file's own call sites differ; those are taken
/// from here. Re-indexing a large file (interning every call site) then stays off the
/// request's path.
#[derive(Clone, Copy)]
pub struct Overlay<'a> {
    /// The file's path.
    pub file: &'a str,
    /// Its current analysis, with the same interface as the graph's copy.
    pub analysis: &'a Analysis,
}

/// The repository's files, their analyses, and the indexes that make callers cheap.
#[derive(Default)]
pub struct Graph {
    files: HashMap<Arc<str>, Entry>,
    names: Arc<Interner>,
    /// Interned called name → the numbers of the files with a call site of that name.
    /// Numbers rather than paths: a checkout's graph holds one entry per (name, file
    /// calling it), hundreds of thousands on a large repository, and a B-tree of `u32`s
    /// takes a quarter of the memory of one of paths.
    by_callee: HashMap<u32, BTreeSet<u32>>,
    /// Each file number's path (`None`: free, in `free_ids`).
    paths_by_id: Vec<Option<Arc<str>>>,
    /// File numbers to reuse.
    free_ids: Vec<u32>,
    /// Name → the other names it is called by somewhere (`import {a as b}`: `a` → `b`;
    /// `export {a as b}`: `a` → `b`; default imports and exports through `default`),
    /// with how many files say so.
    aliases: HashMap<Box<str>, HashMap<Box<str>, usize>>,
    /// The configuration files module resolution reads (`tsconfig`s, `package.json`s).
    project: project::Project,
    /// Module resolutions: (directory, specifier, python) → file. Cleared whenever the set
    /// of paths (or `tsconfig.json`) changes.
    modules: std::sync::Mutex<ModuleMemo>,
    /// Generation of what resolution reads: bumped whenever a file is added or removed,
    /// `tsconfig.json` paths change, or a re-inserted file's interface differs (its
    /// symbols' names, kinds, containers and order, its imports, exports and class
    /// bases). An edit inside function bodies leaves it, and so every remembered
    /// resolution ([`Memo`]), as it is: where a call goes never depends on another
    /// file's bodies.
    interface: u64,
    /// Generation of the whole graph: bumped by every insert, removal and `tsconfig.json`
    /// change. Answers computed in one generation hold for all of it ([`Answers`]).
    generation: u64,
    /// Direct callers and callees computed in the current generation.
    answers: Mutex<Answers>,
}

/// Direct callers and callees already computed, valid for one [`Graph::generation`]: the
/// answer is a function of the graph alone, so repeating a question about an unchanged
/// repository (an agent acquiring, renewing and re-acquiring; `wit callers` twice) costs
/// a lookup instead of a scan of every file calling the name.
#[derive(Default)]
struct Answers {
    generation: u64,
    callers: HashMap<SymbolRef, Vec<Edge>>,
    callees: HashMap<SymbolRef, Vec<Edge>>,
}

/// Most answers of each kind remembered (then they start afresh).
const ANSWERS_MAX: usize = 4096;

/// (directory, specifier, python) → the file the module resolves to.
type ModuleMemo = HashMap<(String, String, bool), Option<Arc<str>>>;

/// Most remembered module resolutions (then they start afresh).
const MODULE_MEMO_MAX: usize = 200_000;

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty graph whose files' bodies can be shared with the other graphs of
    /// `shared` ([`Graph::body`], [`Graph::insert_body`]).
    pub fn sharing(shared: &Shared) -> Self {
        Self {
            names: shared.names.clone(),
            ..Self::default()
        }
    }

    /// What the graph keeps of `file`'s content, to be inserted into another graph of the
    /// same [`Shared`] holding the same content (the caller knows the contents are
    /// equal: the daemon compares their hashes).
    pub fn body(&self, file: &str) -> Option<FileBody> {
        self.files.get(file).map(|e| FileBody(e.body.clone()))
    }

    /// Sets (`Some(text)`) or forgets (`None`) one of the project's configuration files:
    /// any path for which [`is_config_file`] holds (`tsconfig*.json`, `jsconfig.json`,
    /// `package.json`). Module resolution reads them: `tsconfig` `extends`, `baseUrl` and
    /// `paths` of the nearest configuration, and workspace packages by their
    /// `package.json` `name`, `exports`, `types` and `main`.
    pub fn set_config_file(&mut self, path: &str, text: Option<&str>) {
        if self.project.set(path, text) {
            self.config_changed();
        }
    }

    /// Whether the configuration file at `path` is set (see [`Graph::set_config_file`]).
    pub fn has_config_file(&self, path: &str) -> bool {
        self.project.has(path)
    }

    /// The paths of every configuration file set.
    pub fn config_files(&self) -> impl Iterator<Item = &str> {
        self.project.paths()
    }

    /// Sets path aliases used where no `tsconfig.json` set with
    /// [`Graph::set_config_file`] applies.
    pub fn set_ts_paths(&mut self, ts: TsPaths) {
        self.project.fallback = ts;
        self.config_changed();
    }

    fn config_changed(&mut self) {
        self.forget_modules();
        self.interface += 1;
        self.generation += 1;
    }

    fn forget_modules(&mut self) {
        self.modules
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file is indexed.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// What the graph keeps of `file`'s analysis, if indexed: symbols (without
    /// signatures), imports, exports and bases; no call edges or call sites.
    pub fn get(&self, file: &str) -> Option<&Arc<Analysis>> {
        self.files.get(file).map(|e| &e.analysis)
    }

    /// Every indexed path.
    pub fn paths(&self) -> impl Iterator<Item = &Arc<str>> {
        self.files.keys()
    }

    /// Adds or replaces `file`. The graph keeps a compact copy (see [`Graph::get`]).
    pub fn insert(&mut self, file: &str, analysis: Arc<Analysis>) {
        self.insert_tagged(file, analysis, [0; 32]);
    }

    /// [`Graph::insert`], the content tagged with `tag` (a hash of it, say), which
    /// [`Graph::tag`] gives back: the daemon keeps what it indexed of a file here, not in
    /// a map of its own beside the graph.
    pub fn insert_tagged(&mut self, file: &str, analysis: Arc<Analysis>, tag: [u8; 32]) {
        let body = Arc::new(self.make_body(file, &analysis, tag));
        self.link(body);
    }

    /// Adds or replaces `file` with `body`, what another graph of the same [`Shared`]
    /// keeps of the same file and content ([`Graph::body`]), with its tag. Returns
    /// `false`, leaving the graph as it was, when the body comes from a graph of another
    /// `Shared` (its names are not this graph's) or is another file's (a body depends on
    /// its path).
    pub fn insert_body(&mut self, file: &str, body: FileBody) -> bool {
        if !std::ptr::eq(body.0.names.as_ptr(), Arc::as_ptr(&self.names))
            || body.0.path.as_ref() != file
        {
            return false;
        }
        self.link(body.0);
        true
    }

    /// The tag `file`'s content was inserted with ([`Graph::insert_tagged`]), if indexed.
    pub fn tag(&self, file: &str) -> Option<[u8; 32]> {
        self.files.get(file).map(|e| e.body.tag)
    }

    /// Puts `body` in the graph as its file's, keeping the callee index, the aliases and
    /// the generations right.
    fn link(&mut self, body: Arc<Body>) {
        // The file is keyed by its body's path, whichever body held it before.
        let key = body.path.clone();
        let file: &str = &key;
        self.generation += 1;
        match self.files.get(file) {
            None => {
                self.forget_modules();
                self.interface += 1;
            }
            Some(old) if !same_interface(&old.analysis, &body.analysis) => self.interface += 1,
            Some(_) => {}
        }
        // The old version's distinct called names, to update `by_callee` by difference:
        // a file re-indexed after an edit mostly calls the same names, and each
        // `by_callee` update is a B-tree operation on paths.
        let old_callees = self
            .files
            .get(file)
            .map(|e| distinct_callees(&e.sites))
            .unwrap_or_default();
        let number = match self.unlink_keeping_callees(file) {
            Some(number) => {
                self.paths_by_id[number as usize] = Some(key.clone());
                number
            }
            None => self.number(&key),
        };
        let new_callees = distinct_callees(&body.sites);
        for id in old_callees
            .iter()
            .filter(|id| new_callees.binary_search(id).is_err())
        {
            self.drop_callee(*id, number);
        }
        for &id in new_callees
            .iter()
            .filter(|id| old_callees.binary_search(id).is_err())
        {
            self.by_callee.entry(id).or_default().insert(number);
        }
        for (from, to) in renames(&body.analysis) {
            *self
                .aliases
                .entry(from.into())
                .or_default()
                .entry(to.into())
                .or_default() += 1;
        }
        self.files.insert(
            key.clone(),
            Entry {
                body,
                id: number,
                memo: Mutex::default(),
            },
        );
    }

    /// What the graph keeps of `analysis`, the content of `file`: a function of the
    /// file's path and content alone (its names interned), so that graphs sharing names
    /// can share it.
    fn make_body(&self, file: &str, analysis: &Analysis, tag: [u8; 32]) -> Body {
        // Analyses without call sites (plugins of the first ABI) give one plain call per
        // call edge.
        let fallback: Vec<CallSite>;
        let sites: &[CallSite] = if analysis.call_sites.is_empty() {
            fallback = analysis
                .calls
                .iter()
                .map(|c| CallSite::new(c.caller.clone(), c.callee.clone(), None, 0, 0))
                .collect();
            &fallback
        } else {
            &analysis.call_sites
        };
        let mut callers: Vec<u32> = Vec::new();
        let mut compact = Vec::with_capacity(sites.len());
        let arguments: Box<[u32]> = if sites.iter().any(|c| c.arguments.is_some()) {
            sites
                .iter()
                .map(|c| {
                    c.arguments
                        .as_deref()
                        .map_or(NO_ARGUMENTS, |a| self.names.id(a) + 1)
                })
                .collect()
        } else {
            Box::default()
        };
        for c in sites {
            let caller = self.names.id(&c.caller);
            let idx = match callers.iter().position(|&x| x == caller) {
                Some(i) => i,
                None => {
                    callers.push(caller);
                    callers.len() - 1
                }
            };
            let callee = self.names.id(&c.callee);
            let receiver = c.receiver.as_deref().map_or(0, |r| self.names.id(r) + 1);
            compact.push(Site {
                caller: idx as u32,
                callee,
                receiver,
                line: c.line.min(u32::MAX as usize) as u32,
            });
        }
        // Signatures are not kept, but where overloads need them (Java).
        let signatures: Box<[Option<Box<str>>]> = if analysis.bodies.is_empty() {
            Box::default()
        } else {
            analysis
                .symbols
                .iter()
                .map(|s| s.signature.as_deref().map(Box::from))
                .collect()
        };
        let mut kept = Analysis::new(
            analysis
                .symbols
                .iter()
                .map(|s| wit_core::Symbol {
                    signature: None,
                    ..s.clone()
                })
                .collect(),
        );
        kept.imports = analysis.imports.clone();
        kept.exports = analysis.exports.clone();
        kept.bases = analysis.bases.clone();
        kept.values = analysis.values.clone();
        kept.bodies = analysis.bodies.clone();
        kept.members = analysis.members.clone();
        let parents = scopes::parents(&kept);
        let mut defines: Vec<u32> = if Language::of(file) == Language::Other {
            Vec::new()
        } else {
            kept.symbols
                .iter()
                .zip(parents.iter())
                .filter(|(d, p)| d.container.is_none() && **p == scopes::TOP)
                .map(|(d, _)| self.names.id(&d.name))
                .collect()
        };
        defines.sort_unstable();
        defines.dedup();
        let mut nested: Vec<u32> = kept
            .symbols
            .iter()
            .zip(parents.iter())
            .filter(|(d, p)| d.container.is_none() && **p != scopes::TOP)
            .map(|(d, _)| self.names.id(&d.name))
            .collect();
        nested.sort_unstable();
        nested.dedup();
        // Only Java's calls resolve by their caller's place (`java.rs`).
        let mut callables: Vec<u32> = kept
            .symbols
            .iter()
            .filter(|d| !kept.bodies.is_empty() && d.kind.is_callable())
            .map(|d| self.names.id(&d.qualified_name()))
            .collect();
        callables.sort_unstable();
        let mut shared_callers: Vec<u32> = callables
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| w[0])
            .collect();
        shared_callers.dedup();
        Body {
            names: Arc::downgrade(&self.names),
            path: Arc::from(file),
            tag,
            analysis: Arc::new(kept),
            callers: callers.into(),
            sites: compact.into(),
            defines: defines.into(),
            parents,
            signatures,
            arguments,
            nested: nested.into(),
            shared_callers: shared_callers.into(),
        }
    }

    /// Forgets `file` (deleted, renamed away, now ignored).
    pub fn remove(&mut self, file: &str) {
        if self.files.contains_key(file) {
            self.forget_modules();
            self.interface += 1;
            self.generation += 1;
        }
        self.unlink(file);
    }

    /// Whether `analysis` has the interface the graph holds for `file` (see
    /// [`Graph::interface`]): when it does, the graph answers for the file's current
    /// content with it as an [`Overlay`], without re-indexing it.
    pub fn same_interface(&self, file: &str, analysis: &Analysis) -> bool {
        self.files
            .get(file)
            .is_some_and(|e| same_interface(&e.analysis, analysis))
    }

    /// Whether `analysis` may well be of the very content the graph holds for `file`: the
    /// same interface, every definition at the same bytes, as many call sites. It says
    /// nothing for sure (a call renamed in place keeps all of it), but when it does not
    /// hold the contents differ: the daemon then answers with an [`Overlay`] at once,
    /// and only when it holds compares the contents' hashes, which is dearer.
    pub fn same_layout(&self, file: &str, analysis: &Analysis) -> bool {
        self.files.get(file).is_some_and(|e| {
            let sites = if analysis.call_sites.is_empty() {
                analysis.calls.len()
            } else {
                analysis.call_sites.len()
            };
            same_interface(&e.analysis, analysis)
                && e.sites.len() == sites
                && e.analysis
                    .symbols
                    .iter()
                    .zip(&analysis.symbols)
                    .all(|(x, y)| x.start_byte == y.start_byte && x.end_byte == y.end_byte)
        })
    }

    /// Drops `file` and its index entries, leaving the module memo alone.
    fn unlink(&mut self, file: &str) {
        let Some(callees) = self.files.get(file).map(|e| distinct_callees(&e.sites)) else {
            return;
        };
        if let Some(number) = self.unlink_keeping_callees(file) {
            for id in callees {
                self.drop_callee(id, number);
            }
            self.paths_by_id[number as usize] = None;
            self.free_ids.push(number);
        }
    }

    /// A number for the new file `key`.
    fn number(&mut self, key: &Arc<str>) -> u32 {
        match self.free_ids.pop() {
            Some(n) => {
                self.paths_by_id[n as usize] = Some(key.clone());
                n
            }
            None => {
                self.paths_by_id.push(Some(key.clone()));
                (self.paths_by_id.len() - 1) as u32
            }
        }
    }

    /// Drops `file` and its aliases, but neither its `by_callee` entries nor its number
    /// (the caller updates or frees them); returns the file's number.
    fn unlink_keeping_callees(&mut self, file: &str) -> Option<u32> {
        let old = self.files.remove(file)?;
        for (from, to) in renames(&old.analysis) {
            if let Some(map) = self.aliases.get_mut(from) {
                if let Some(n) = map.get_mut(to) {
                    *n -= 1;
                    if *n == 0 {
                        map.remove(to);
                    }
                }
                if map.is_empty() {
                    self.aliases.remove(from);
                }
            }
        }
        Some(old.id)
    }

    /// The file numbered `number` no longer calls the interned name `id`.
    fn drop_callee(&mut self, id: u32, number: u32) {
        if let Some(set) = self.by_callee.get_mut(&id) {
            set.remove(&number);
            if set.is_empty() {
                self.by_callee.remove(&id);
            }
        }
    }

    /// Every name a definition called `name` may be called by: itself and its aliases,
    /// transitively (bounded).
    fn called_as<'a>(&'a self, name: &'a str) -> BTreeSet<&'a str> {
        let mut names: BTreeSet<&str> = BTreeSet::new();
        let mut todo: Vec<&str> = vec![name];
        names.insert(name);
        while let Some(n) = todo.pop() {
            if names.len() > 64 {
                break;
            }
            for alias in self.aliases.get(n).into_iter().flat_map(|m| m.keys()) {
                if names.insert(alias) {
                    todo.push(alias);
                }
            }
        }
        names
    }

    /// The definition `name` addresses in `file`, as a [`SymbolRef`] with its address.
    pub fn symbol(&self, file: &str, name: &str) -> Option<SymbolRef> {
        let (key, entry) = self.files.get_key_value(file)?;
        let analysis = &entry.analysis;
        let def = analysis.find(name)?;
        Some(SymbolRef {
            file: key.clone(),
            name: analysis.address_of(def),
        })
    }

    fn sym_ref(&self, file: &Arc<str>, analysis: &Analysis, def: &Symbol) -> SymbolRef {
        SymbolRef {
            file: file.clone(),
            name: analysis.address_of(def),
        }
    }

    fn key(&self, file: &str) -> Option<Arc<str>> {
        self.files.get_key_value(file).map(|(k, _)| k.clone())
    }

    fn exists(&self, file: &str) -> bool {
        self.files.contains_key(file)
    }

    /// The indexed file the module `spec` names from `from`.
    pub fn module_file(&self, from: &str, spec: &str) -> Option<Arc<str>> {
        let language = Language::of(from);
        if language == Language::Other {
            return None;
        }
        // Resolution depends on the directory, the specifier, the language and the set of
        // paths only (not on contents), so it is remembered until a path comes or goes.
        let key = (
            paths::dir(from).to_owned(),
            spec.to_owned(),
            language == Language::Python,
        );
        let mut memo = self.modules.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = memo.get(&key) {
            return found.clone();
        }
        let exists = |p: &str| self.exists(p);
        let found = match language {
            Language::Script => modules::script_module(from, spec, &self.project, &exists),
            Language::Python => modules::python_module(from, spec, &exists),
            Language::Other => None,
        }
        .and_then(|f| self.key(&f));
        if memo.len() >= MODULE_MEMO_MAX {
            memo.clear();
        }
        memo.insert(key, found.clone());
        found
    }

    /// What `name` is bound to at the top level of `file`: a definition of the file, an
    /// import followed to its definition (or module), a Python wildcard import or
    /// submodule of a package.
    fn local_binding(&self, file: &Arc<str>, name: &str, cx: &mut Cx) -> Option<Binding> {
        if !cx.enter(file, name, false) {
            return None;
        }
        let found = self.local_binding_in(file, name, cx);
        cx.leave(file, name, false);
        found
    }

    /// The definition a plain `name` means in `entry`'s file at `line` (see
    /// [`scopes::visible`]; without a line, a top-level one). Most names are defined at
    /// the top level only: then the first one is the answer, with no scan for scopes.
    fn plain_definition<'e>(
        &self,
        entry: &'e Entry,
        name: &str,
        line: Option<usize>,
    ) -> Option<&'e Symbol> {
        let nested = self
            .names
            .get(name)
            .is_some_and(|id| entry.nested.binary_search(&id).is_ok());
        if nested {
            scopes::visible(&entry.analysis, &entry.parents, name, line)
        } else {
            entry
                .analysis
                .symbols
                .iter()
                .find(|s| s.container.is_none() && s.name == name)
        }
    }

    fn local_binding_in(&self, file: &Arc<str>, name: &str, cx: &mut Cx) -> Option<Binding> {
        let entry = self.files.get(file)?;
        let analysis = &entry.analysis;
        let found = self.plain_definition(entry, name, cx.line_in(file));
        if let Some(def) = found {
            return Some(Binding::Symbol(self.sym_ref(file, analysis, def)));
        }
        // Object-literal and property-assigned definitions addressed with their dots.
        if name.contains('.')
            && let Some(def) = analysis.find(name)
        {
            return Some(Binding::Symbol(self.sym_ref(file, analysis, def)));
        }
        // A top-level variable of evident class, seen from another module (in its own
        // file the analyzer has already given the receivers it reaches their class, and
        // left alone those a local of the same name shadows).
        if cx.at.as_ref().is_none_or(|(at, _)| at != file)
            && let Some(i) = analysis.values.iter().position(|v| v.name == name)
        {
            return Some(Binding::Value(file.clone(), i));
        }
        let python = Language::of(file) == Language::Python;
        for import in analysis.imports.iter().filter(|i| i.local == name) {
            let found = match self.module_file(file, &import.module) {
                None => None,
                Some(target) => match &import.name {
                    None => Some(Binding::Module(target)),
                    Some(n) => self.export_of(&target, n, cx),
                },
            };
            if found.is_some() {
                return found;
            }
            // `from pkg import sub` naming a module: of a namespace package (a directory
            // without `__init__.py`), or one its `__init__.py` does not import.
            if python
                && let Some(n) = &import.name
                && n != "*"
            {
                let sep = if import.module.ends_with('.') {
                    ""
                } else {
                    "."
                };
                let sub = format!("{}{sep}{n}", import.module);
                if let Some(target) = self.module_file(file, &sub) {
                    return Some(Binding::Module(target));
                }
            }
        }
        if python {
            for import in analysis
                .imports
                .iter()
                .filter(|i| i.name.as_deref() == Some("*"))
            {
                if let Some(target) = self.module_file(file, &import.module)
                    && let Some(b) = self.export_of(&target, name, cx)
                {
                    return Some(b);
                }
            }
            // `from pkg import sub` where `sub` is a module of the package.
            if file.ends_with("__init__.py") || file.ends_with("__init__.pyi") {
                let pkg = paths::dir(file);
                for ext in ["py", "pyi"] {
                    let sub = if pkg.is_empty() {
                        format!("{name}.{ext}")
                    } else {
                        format!("{pkg}/{name}.{ext}")
                    };
                    if let Some(k) = self.key(&sub) {
                        return Some(Binding::Module(k));
                    }
                }
                let sub_pkg = paths::join(pkg, &format!("{name}/__init__.py"))?;
                if let Some(k) = self.key(&sub_pkg) {
                    return Some(Binding::Module(k));
                }
            }
        }
        None
    }

    /// What `file` exports under `name`, followed through re-exports.
    fn export_of(&self, file: &Arc<str>, name: &str, cx: &mut Cx) -> Option<Binding> {
        if !cx.enter(file, name, true) {
            return None;
        }
        let found = self.export_of_in(file, name, cx);
        cx.leave(file, name, true);
        found
    }

    fn export_of_in(&self, file: &Arc<str>, name: &str, cx: &mut Cx) -> Option<Binding> {
        let analysis = self.get(file)?;
        if Language::of(file) != Language::Script || analysis.exports.is_empty() {
            return self.local_binding(file, name, cx);
        }
        for export in analysis.exports.iter().filter(|e| e.name == name) {
            let found = match (&export.module, &export.local) {
                (None, Some(local)) => self.local_binding(file, local, cx),
                (Some(m), local) => {
                    let target = self.module_file(file, m);
                    match (target, local) {
                        (Some(t), Some(l)) => self.export_of(&t, l, cx),
                        (Some(t), None) => Some(Binding::Module(t)),
                        (None, _) => None,
                    }
                }
                (None, None) => None,
            };
            if found.is_some() {
                return found;
            }
        }
        for export in analysis.exports.iter().filter(|e| e.name == "*") {
            if let Some(m) = &export.module
                && let Some(t) = self.module_file(file, m)
                && let Some(b) = self.export_of(&t, name, cx)
            {
                return Some(b);
            }
        }
        // A top-level definition the export list does not name (CommonJS files that
        // define `exports.x` symbols but also export by other means) still answers.
        let def = self.plain_definition(self.files.get(file)?, name, None)?;
        Some(Binding::Symbol(self.sym_ref(file, analysis, def)))
    }

    /// The method `method` of the class (or object) `class` defined in `file`, looked up
    /// in the class, then its bases (`extends`, Python superclasses) across files.
    fn method_in_class(
        &self,
        file: &Arc<str>,
        class: &str,
        method: &str,
        include_self: bool,
        cx: &mut Cx,
    ) -> Option<SymbolRef> {
        cx.spend()?;
        let analysis = self.get(file)?;
        // `Index#2`: the second class named `Index` of the file (classes local to two
        // test functions): its members are those inside its own range.
        let (class, within) = match class.split_once('#') {
            Some((plain, _)) => (
                plain,
                analysis.find(class).map(|d| d.start_byte..d.end_byte),
            ),
            None => (class, None),
        };
        if include_self
            && let Some(def) = analysis.symbols.iter().find(|s| {
                s.container.as_deref() == Some(class)
                    && s.name == method
                    && within.as_ref().is_none_or(|r| r.contains(&s.start_byte))
            })
        {
            return Some(self.sym_ref(file, analysis, def));
        }
        self.in_bases(file, class, cx, |g, b, cx| {
            g.method_in_class(&b.file, &b.name, method, true, cx)
        })
    }

    /// The first answer `find` gives for a base of `class` (defined in `file`): its
    /// `extends`, Python superclasses, in order, across files.
    fn in_bases<T>(
        &self,
        file: &Arc<str>,
        class: &str,
        cx: &mut Cx,
        mut find: impl FnMut(&Self, &SymbolRef, &mut Cx) -> Option<T>,
    ) -> Option<T> {
        let analysis = self.get(file)?;
        for base in analysis.bases.iter().filter(|b| b.class == class) {
            if let Some(b) = self.class_named(file, &base.base, cx)
                && let Some(found) = find(self, &b, cx)
            {
                return Some(found);
            }
        }
        None
    }

    /// The definition a class name (or dotted chain) as written in `file` means.
    fn class_named(&self, file: &Arc<str>, name: &str, cx: &mut Cx) -> Option<SymbolRef> {
        match self.name_binding(file, name, cx)? {
            Binding::Symbol(s) => Some(s),
            _ => None,
        }
    }

    /// The class of the field `field` of `class` (defined in `file`), or of a base that
    /// declares it, when its declaration makes it evident ([`wit_core::ValueClass`]
    /// `Class.field`).
    fn field_class(
        &self,
        file: &Arc<str>,
        class: &str,
        field: &str,
        cx: &mut Cx,
    ) -> Option<SymbolRef> {
        cx.spend()?;
        let analysis = self.get(file)?;
        let declared = analysis.values.iter().find(|v| {
            v.name
                .strip_prefix(class)
                .and_then(|rest| rest.strip_prefix('.'))
                == Some(field)
        });
        if let Some(v) = declared {
            return self.class_named(file, &v.class, cx);
        }
        self.in_bases(file, class, cx, |g, b, cx| {
            g.field_class(&b.file, &b.name, field, cx)
        })
    }

    /// A name or a dotted chain (`mod.Base`, `a.b`) as seen from `file`.
    fn name_binding(&self, file: &Arc<str>, name: &str, cx: &mut Cx) -> Option<Binding> {
        if let Some(b) = self.local_binding(file, name, cx) {
            return Some(b);
        }
        let (head, last) = name.rsplit_once('.')?;
        match self.name_binding(file, head, cx)? {
            Binding::Module(m) => self.export_of(&m, last, cx),
            Binding::Symbol(s) => {
                let qualified = format!("{}.{last}", s.name);
                self.symbol(&s.file, &qualified).map(Binding::Symbol)
            }
            // An attribute of an instance: its class is not known.
            Binding::Value(..) => None,
        }
    }

    /// Where the call site `site` of `file` goes, and how that was found.
    pub fn resolve_site(&self, file: &str, site: &CallSite) -> (Target, Resolution) {
        self.resolve(file, SiteRef::from(site))
    }

    /// [`Graph::resolve_site`] for a borrowed site.
    pub fn resolve(&self, file: &str, site: SiteRef<'_>) -> (Target, Resolution) {
        let Some(key) = self.key(file) else {
            return (
                Target::Unknown(site.callee.to_owned()),
                Resolution::Unresolved,
            );
        };
        let mut cx = Cx::new();
        cx.at = Some((key.clone(), site.line));
        if let Some(found) = self.resolve_rules(&key, site, &mut cx) {
            return (Target::Symbol(found), Resolution::Resolved);
        }
        let analysis = &self.files[&key].analysis;
        if let Some(def) = self.name_only(&key, analysis, site) {
            return (
                Target::Symbol(self.sym_ref(&key, analysis, def)),
                Resolution::NameOnly,
            );
        }
        // A definition of that name in a file this one imports.
        let mut seen = HashSet::new();
        for import in &analysis.imports {
            let Some(target) = self.module_file(&key, &import.module) else {
                continue;
            };
            if !seen.insert(target.clone()) {
                continue;
            }
            if let Some(a) = self.get(&target)
                && let Some(def) = a.find(site.callee)
            {
                return (
                    Target::Symbol(self.sym_ref(&target, a, def)),
                    Resolution::NameOnly,
                );
            }
        }
        (
            Target::Unknown(site.callee.to_owned()),
            Resolution::Unresolved,
        )
    }

    /// The definition of the caller's file that `site` calls by name only (v1's rule:
    /// `obj.save()` is `file:save` when the file defines `save`). In Java and Go, whose
    /// rules leave nothing to guess, only a function or method the file defines once
    /// under that name, never a type: a Go conversion `T(x)` calls nothing, `msg.Error()`
    /// is not the type `Error`, and of two `Render` methods neither is the one called.
    fn name_only<'a>(
        &self,
        key: &Arc<str>,
        analysis: &'a Analysis,
        site: SiteRef<'_>,
    ) -> Option<&'a Symbol> {
        use packages::Family;
        match Family::of(paths::extension(key)) {
            Some(Family::Go | Family::Java) => {
                if paths::extension(key) == "go" && self.go_conversion(key, site) {
                    return None;
                }
                let mut named = analysis
                    .symbols
                    .iter()
                    .filter(|s| s.name == site.callee && s.kind.is_callable());
                let first = named.next()?;
                named.next().is_none().then_some(first)
            }
            _ => analysis.find(site.callee),
        }
    }

    fn resolve_rules(&self, key: &Arc<str>, site: SiteRef<'_>, cx: &mut Cx) -> Option<SymbolRef> {
        // Java (with the type bodies the built-in analyzer reports) and Go have rules of
        // their own (`java.rs`, `golang.rs`).
        match packages::Family::of(paths::extension(key)) {
            Some(packages::Family::Java) if self.get(key).is_some_and(|a| !a.bodies.is_empty()) => {
                return self.java_resolve(key, site);
            }
            Some(packages::Family::Go) => return self.go_resolve(key, site),
            _ => {}
        }
        let callee = site.callee;
        let class = if by_own_class(site.receiver)
            && !site.caller.contains('.')
            && Language::of(key) != Language::Other
        {
            self.enclosing_class(key, site)
        } else {
            site.caller.rsplit_once('.').map(|(c, _)| c)
        };
        match site.receiver {
            None => match self.local_binding(key, callee, cx) {
                Some(Binding::Symbol(s)) => Some(s),
                Some(Binding::Module(m)) => match self.export_of(&m, "default", cx) {
                    Some(Binding::Symbol(s)) => Some(s),
                    _ => None,
                },
                // Calling an instance (`__call__`): left unresolved.
                Some(Binding::Value(..)) => None,
                None if Language::of(key) == Language::Other => self
                    .implicit_this(key, class, callee)
                    .or_else(|| self.same_package(key, callee))
                    .or_else(|| self.rust_used_function(key, callee)),
                None => None,
            },
            Some("this" | "self") if Language::of(key) == Language::Other => {
                self.own_member(key, class?, callee)
            }
            Some(r) if Language::of(key) == Language::Other => self.package_member(key, r, callee),
            Some("") => None,
            Some("this" | "self" | "cls") => self.method_in_class(key, class?, callee, true, cx),
            Some("super" | "super()") => self.method_in_class(key, class?, callee, false, cx),
            Some(r) => {
                // `this.repo.find()`: a field of the caller's class (or a base's) whose
                // class is evident.
                if let Some(field) = own_field(r)
                    && let Some(of) = class.and_then(|c| self.field_class(key, c, field, cx))
                {
                    return self.method_in_class(&of.file, &of.name, callee, true, cx);
                }
                if let Some(ctor) = r.strip_prefix("new:") {
                    let class = match self.name_binding(key, ctor, cx)? {
                        Binding::Symbol(s) => s,
                        Binding::Module(m) => match self.export_of(&m, "default", cx)? {
                            Binding::Symbol(s) => s,
                            _ => return None,
                        },
                        Binding::Value(..) => return None,
                    };
                    return self.method_in_class(&class.file, &class.name, callee, true, cx);
                }
                match self.name_binding(key, r, cx)? {
                    Binding::Module(m) => match self.export_of(&m, callee, cx)? {
                        Binding::Symbol(s) => Some(s),
                        _ => None,
                    },
                    Binding::Symbol(s) => self.method_in_class(&s.file, &s.name, callee, true, cx),
                    Binding::Value(file, i) => {
                        let class = self.get(&file)?.values.get(i)?.class.as_str();
                        let c = self.class_named(&file, class, cx)?;
                        self.method_in_class(&c.file, &c.name, callee, true, cx)
                    }
                }
            }
        }
    }

    /// The class whose `this`/`self` a caller without a class of its own sees: a
    /// constructor function with prototype methods (`function View() { this.lookup() }`
    /// beside `View.prototype.lookup = …`), or the method a nested function or arrow sits
    /// in (`def register(self): def decorator(f): self.record(f)`).
    fn enclosing_class<'s>(&'s self, key: &Arc<str>, site: SiteRef<'s>) -> Option<&'s str> {
        let entry = self.files.get(key)?;
        let a = &entry.analysis;
        if Language::of(key) == Language::Script
            && a.symbols
                .iter()
                .any(|s| s.container.as_deref() == Some(site.caller))
        {
            return Some(site.caller);
        }
        a.symbols
            .iter()
            .filter(|s| {
                s.container.is_some() && s.start_line <= site.line && site.line <= s.end_line
            })
            .min_by_key(|s| s.end_byte - s.start_byte)
            .and_then(|s| s.container.as_deref())
    }

    /// A plain call inside a Java or C# method names a method of its own type first, as
    /// the languages' scoping says (`price(qty)` in `Shop.total` is `this.price(qty)`).
    /// Rust and Go have no implicit receiver, so a plain call there is never a method.
    fn implicit_this(
        &self,
        key: &Arc<str>,
        class: Option<&str>,
        callee: &str,
    ) -> Option<SymbolRef> {
        use packages::Family;
        match Family::of(paths::extension(key))? {
            Family::Java | Family::CSharp => self.own_member(key, class?, callee),
            Family::Go | Family::Rust => None,
        }
    }

    /// `this.m()` / `self.m()`: the method `m` of the caller's own type, in its file or
    /// another file of its directory (a C# partial class, a Rust `impl` elsewhere).
    fn own_member(&self, key: &Arc<str>, class: &str, callee: &str) -> Option<SymbolRef> {
        self.member_of(key, class, callee)
            .or_else(|| self.member_in_dir(paths::dir(key), paths::extension(key), class, callee))
    }

    /// Go-style packages for plugin languages: a top-level definition of another file in
    /// the same directory with the same extension (files in path order).
    fn same_package(&self, file: &Arc<str>, name: &str) -> Option<SymbolRef> {
        let (d, ext) = (paths::dir(file), paths::extension(file));
        self.top_level_in_dir(d, ext, name, Some(file))
    }

    /// A member call in one of the declarative languages (see `packages.rs` for what
    /// resolves): `receiver` names a package, a module or a type.
    fn package_member(&self, key: &Arc<str>, receiver: &str, callee: &str) -> Option<SymbolRef> {
        use packages::{Family, is_type_name};
        let family = Family::of(paths::extension(key))?;
        let receiver = receiver.strip_prefix("new:").unwrap_or(receiver);
        let analysis = self.get(key)?;
        let imported = |local: &str| analysis.imports.iter().find(|i| i.local == local);
        match family {
            Family::Go => {
                let import = imported(receiver)?;
                let dirs: BTreeSet<&str> = self
                    .files
                    .keys()
                    .filter(|k| paths::extension(k) == "go")
                    .map(|k| paths::dir(k))
                    .collect();
                let dir = packages::go_package_dir(&import.module, dirs.into_iter())?;
                self.top_level_in_dir(dir, "go", callee, None)
            }
            Family::Java | Family::CSharp => {
                if !is_type_name(receiver) {
                    return None;
                }
                let ext = if family == Family::Java { "java" } else { "cs" };
                if let Some(found) = self.member_in_dir(paths::dir(key), ext, receiver, callee) {
                    return Some(found);
                }
                let import = imported(receiver).filter(|_| family == Family::Java)?;
                let suffix = packages::java_file_suffix(&import.module);
                let file = self
                    .files
                    .keys()
                    .filter(|k| k.ends_with(&suffix) || k.as_ref() == &suffix[1..])
                    .min()?;
                self.member_of(file, receiver, callee)
            }
            Family::Rust => {
                let parts: Vec<&str> = receiver.split("::").collect();
                if let [single] = parts[..]
                    && is_type_name(single)
                {
                    if let Some(found) = self.member_of(key, single, callee) {
                        return Some(found);
                    }
                    let import = imported(single)?;
                    let path: Vec<&str> = import.module.split("::").collect();
                    let files = packages::rust_module_files(key, &path[..path.len() - 1])?;
                    return files
                        .iter()
                        .find_map(|f| self.member_of(&self.key(f)?, single, callee));
                }
                let path: Vec<&str> = if matches!(parts[0], "crate" | "self" | "super") {
                    parts
                } else {
                    let import = imported(parts[0])?;
                    import
                        .module
                        .split("::")
                        .chain(parts[1..].iter().copied())
                        .collect()
                };
                packages::rust_module_files(key, &path)?
                    .iter()
                    .find_map(|f| self.top_level_of(&self.key(f)?, callee))
            }
        }
    }

    /// A plain Rust call of a function brought in by `use crate::a::f;`.
    fn rust_used_function(&self, key: &Arc<str>, callee: &str) -> Option<SymbolRef> {
        if packages::Family::of(paths::extension(key)) != Some(packages::Family::Rust) {
            return None;
        }
        let import = self.get(key)?.imports.iter().find(|i| i.local == callee)?;
        let path: Vec<&str> = import.module.split("::").collect();
        let name = path.last()?;
        packages::rust_module_files(key, &path[..path.len() - 1])?
            .iter()
            .find_map(|f| self.top_level_of(&self.key(f)?, name))
    }

    /// The method `name` of the type `class` defined in `file`.
    fn member_of(&self, file: &Arc<str>, class: &str, name: &str) -> Option<SymbolRef> {
        let a = self.get(file)?;
        let def = a
            .symbols
            .iter()
            .find(|s| s.container.as_deref() == Some(class) && s.name == name)?;
        Some(self.sym_ref(file, a, def))
    }

    /// The top-level definition `name` of `file`.
    fn top_level_of(&self, file: &Arc<str>, name: &str) -> Option<SymbolRef> {
        let a = self.get(file)?;
        let def = a
            .symbols
            .iter()
            .find(|s| s.container.is_none() && s.name == name)?;
        Some(self.sym_ref(file, a, def))
    }

    /// [`Graph::member_of`] over the files of `dir` with extension `ext`, in path order.
    fn member_in_dir(&self, dir: &str, ext: &str, class: &str, name: &str) -> Option<SymbolRef> {
        self.files_in_dir(dir, ext)
            .into_iter()
            .find_map(|k| self.member_of(k, class, name))
    }

    /// The indexed files of `dir` with extension `ext`, in path order (a Rust struct and
    /// its `impl`s, a C# partial class, may be spread over them).
    fn files_in_dir(&self, dir: &str, ext: &str) -> Vec<&Arc<str>> {
        let mut files: Vec<&Arc<str>> = self
            .files
            .keys()
            .filter(|k| paths::dir(k) == dir && paths::extension(k) == ext)
            .collect();
        files.sort();
        files
    }

    /// [`Graph::top_level_of`] over the files of `dir` with extension `ext` (but `except`),
    /// in path order.
    fn top_level_in_dir(
        &self,
        dir: &str,
        ext: &str,
        name: &str,
        except: Option<&str>,
    ) -> Option<SymbolRef> {
        let mut files: Vec<&Arc<str>> = self
            .files
            .keys()
            .filter(|k| {
                Some(k.as_ref()) != except && paths::dir(k) == dir && paths::extension(k) == ext
            })
            .collect();
        files.sort();
        files.into_iter().find_map(|k| self.top_level_of(k, name))
    }

    /// The call sites of `file`.
    fn sites<'a>(&'a self, file: &str) -> Vec<SiteRef<'a>> {
        let Some(e) = self.files.get(file) else {
            return Vec::new();
        };
        (0..e.sites.len())
            .map(|i| self.compact_site(e, i).0)
            .collect()
    }

    /// The address of the caller named `qualified` in `file`.
    fn caller_ref(&self, file: &Arc<str>, analysis: &Analysis, qualified: &str) -> SymbolRef {
        match analysis.find(qualified) {
            Some(def) => self.sym_ref(file, analysis, def),
            None => SymbolRef {
                file: file.clone(),
                name: qualified.to_owned(),
            },
        }
    }

    /// The memo of `entry`, emptied if an interface changed since it was filled.
    fn memo_of<'e>(&self, entry: &'e Entry) -> std::sync::MutexGuard<'e, Memo> {
        let mut memo = entry.memo.lock().unwrap_or_else(|p| p.into_inner());
        if memo.generation != self.interface {
            memo.found = None;
            memo.generation = self.interface;
        }
        memo
    }

    /// Where `site` of `file` goes, from `memo` (the file's, see [`Graph::memo_of`]) when
    /// this generation of interfaces resolved it before, else resolved and remembered.
    /// `key`: the site's interned (caller, callee, receiver); `None` when some name is
    /// not interned (an overlay's new name): resolved without the memo.
    fn resolve_remembered<'m>(
        &self,
        memo: &'m mut Memo,
        file: &Arc<str>,
        key: Option<SiteKey>,
        site: SiteRef<'_>,
    ) -> std::borrow::Cow<'m, (Target, Resolution)> {
        use std::borrow::Cow;
        let Some((caller, callee, receiver, arguments)) = key else {
            return Cow::Owned(self.resolve(file, site));
        };
        let by_class = by_own_class(site.receiver);
        // A plain call of a name defined inside some function goes where the call's
        // line says (`scopes.rs`): not remembered by name.
        if receiver == 0
            && let Some(entry) = self.files.get(file)
            && entry.nested.binary_search(&callee).is_ok()
        {
            return Cow::Owned(self.resolve(file, site));
        }
        // A Java call goes where its caller's place among the type bodies says: remembered
        // by caller, and not at all when two callers share the name (methods of two
        // anonymous classes), since then the call's line tells them apart.
        let java = self
            .files
            .get(file)
            .filter(|e| paths::extension(file) == "java" && !e.analysis.bodies.is_empty());
        if java.is_some_and(|e| e.shared_callers.binary_search(&caller).is_ok()) {
            return Cow::Owned(self.resolve(file, site));
        }
        // `this` in a caller without a class of its own: found by the line (see
        // `enclosing_class`), not remembered by caller.
        if by_class && !site.caller.contains('.') && java.is_none() {
            return Cow::Owned(self.resolve(file, site));
        }
        let key = (
            if by_class || java.is_some() {
                caller
            } else {
                ANY_CALLER
            },
            callee,
            receiver,
            arguments,
        );
        let remembered = memo.found.get_or_insert_with(Box::default);
        if !remembered.contains_key(&key) {
            let found = self.resolve(file, site);
            if remembered.len() >= MEMO_MAX_PER_FILE {
                return Cow::Owned(found);
            }
            remembered.insert(key, found);
        }
        match remembered.get(&key) {
            Some(hit) => Cow::Borrowed(hit),
            None => Cow::Owned(self.resolve(file, site)),
        }
    }

    /// A compact site of `entry` as a [`SiteRef`], with its interned key.
    fn compact_site<'a>(&'a self, entry: &Entry, i: usize) -> (SiteRef<'a>, Option<SiteKey>) {
        let s = &entry.sites[i];
        let caller = entry.callers[s.caller as usize];
        let arguments = entry.arguments.get(i).copied().unwrap_or(NO_ARGUMENTS);
        let site = SiteRef {
            caller: self.names.name(caller),
            callee: self.names.name(s.callee),
            receiver: (s.receiver > 0).then(|| self.names.name(s.receiver - 1)),
            line: s.line as usize,
            arguments: (arguments != NO_ARGUMENTS).then(|| self.names.name(arguments - 1)),
        };
        (site, Some((caller, s.callee, s.receiver, arguments)))
    }

    /// The interned key of an overlay's site, when all its names are interned.
    fn interned_key(&self, site: SiteRef<'_>) -> Option<SiteKey> {
        let receiver = match site.receiver {
            Some(r) => self.names.get(r)? + 1,
            None => 0,
        };
        Some((
            self.names.get(site.caller)?,
            self.names.get(site.callee)?,
            receiver,
            match site.arguments {
                Some(a) => self.names.get(a)? + 1,
                None => NO_ARGUMENTS,
            },
        ))
    }

    /// `compute` for `of`, or the answer this generation already computed (only for
    /// questions without an overlay: an overlay is a content the graph does not hold).
    fn remembered(
        &self,
        of: &SymbolRef,
        overlay: Option<Overlay<'_>>,
        pick: fn(&mut Answers) -> &mut HashMap<SymbolRef, Vec<Edge>>,
        compute: impl FnOnce() -> Vec<Edge>,
    ) -> Vec<Edge> {
        if overlay.is_some() {
            return compute();
        }
        if let Some(hit) = self.with_remembered(of, pick, <[Edge]>::to_vec) {
            return hit;
        }
        let edges = compute();
        let mut answers = self.answers.lock().unwrap_or_else(|p| p.into_inner());
        if answers.generation == self.generation {
            let map = pick(&mut answers);
            if map.len() >= ANSWERS_MAX {
                map.clear();
            }
            map.insert(of.clone(), edges.clone());
        }
        edges
    }

    /// What `read` makes of the answer this generation already computed for `of`, if any
    /// (the answers of an earlier generation are dropped on the way).
    fn with_remembered<T>(
        &self,
        of: &SymbolRef,
        pick: fn(&mut Answers) -> &mut HashMap<SymbolRef, Vec<Edge>>,
        read: impl FnOnce(&[Edge]) -> T,
    ) -> Option<T> {
        let mut answers = self.answers.lock().unwrap_or_else(|p| p.into_inner());
        if answers.generation != self.generation {
            answers.callers.clear();
            answers.callees.clear();
            answers.generation = self.generation;
        }
        pick(&mut answers).get(of).map(|hit| read(hit))
    }

    /// The direct callees of `of`, one edge per distinct target (the best resolution and
    /// the first line win), in call order.
    fn direct_callees(&self, of: &SymbolRef, overlay: Option<Overlay<'_>>) -> Vec<Edge> {
        self.remembered(
            of,
            overlay,
            |a| &mut a.callees,
            || self.compute_callees(of, overlay),
        )
    }

    /// The direct callers of `of`: every call site, in any file, resolving to it.
    fn direct_callers(&self, of: &SymbolRef, overlay: Option<Overlay<'_>>) -> Vec<Edge> {
        self.remembered(
            of,
            overlay,
            |a| &mut a.callers,
            || self.compute_callers(of, overlay, None),
        )
    }

    /// The direct callers of `of` in the files `within` accepts: the edges
    /// [`Graph::callers_with`] at depth 1 gives whose caller is in such a file, in the
    /// same order. Only those files' call sites are resolved, unless the whole answer is
    /// remembered already (then it is filtered); a partial answer is not remembered.
    ///
    /// For questions about a few files, such as which of the callers another session has
    /// locked: the whole answer resolves every call of the name in the repository (a
    /// name defined in a thousand files, called from a thousand more, costs milliseconds),
    /// and it is forgotten whenever an interface changes anywhere.
    pub fn callers_within(
        &self,
        of: &SymbolRef,
        overlay: Option<Overlay<'_>>,
        within: &dyn Fn(&str) -> bool,
    ) -> Vec<Edge> {
        let filtered = |hit: &[Edge]| -> Vec<Edge> {
            hit.iter()
                .filter(|e| within(&e.caller.file))
                .cloned()
                .collect()
        };
        if overlay.is_none()
            && let Some(edges) = self.with_remembered(of, |a| &mut a.callers, filtered)
        {
            return edges;
        }
        self.compute_callers(of, overlay, Some(within))
    }

    /// `site`, a call site of `overlay`'s analysis, with its line moved to where the
    /// graph's copy of the file has the definition around it: scoping (`scopes.rs`)
    /// compares a call's line with the graph's definition lines, which a body edit may
    /// have shifted. Definitions correspond one to one (an overlay has the same
    /// interface: the same definitions in the same order). A file without nested
    /// definitions, or no overlay, leaves the line alone.
    fn at_graph_line<'s>(
        &self,
        entry: &Entry,
        overlay: Option<Overlay<'_>>,
        site: SiteRef<'s>,
    ) -> SiteRef<'s> {
        let Some(o) = overlay else { return site };
        if entry.nested.is_empty() && entry.analysis.bodies.is_empty() {
            return site;
        }
        let around = o
            .analysis
            .symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| s.start_line <= site.line && site.line <= s.end_line)
            .min_by_key(|(_, s)| s.end_byte - s.start_byte)
            .map(|(i, _)| i);
        match around.and_then(|i| entry.analysis.symbols.get(i)) {
            Some(old) => SiteRef {
                line: old.start_line,
                ..site
            },
            None => site,
        }
    }

    fn compute_callees(&self, of: &SymbolRef, overlay: Option<Overlay<'_>>) -> Vec<Edge> {
        let Some((key, entry)) = self.files.get_key_value(of.file.as_ref()) else {
            return Vec::new();
        };
        let Some(def) = entry.analysis.find(&of.name) else {
            return Vec::new();
        };
        let qualified = def.qualified_name();
        let mut out: Vec<Edge> = Vec::new();
        let mine: Vec<(SiteRef<'_>, Option<SiteKey>)> =
            match overlay.filter(|o| o.file == key.as_ref()) {
                Some(o) => overlay_sites(o.analysis)
                    .filter(|s| s.caller == qualified)
                    .map(|site| (site, self.interned_key(site)))
                    .collect(),
                // Only the definition's own sites (a file has many callers; comparing
                // interned ids spares a string comparison and a site reference per other
                // site).
                None => {
                    let Some(caller) = self.names.get(&qualified) else {
                        return Vec::new();
                    };
                    (0..entry.sites.len())
                        .filter(|&i| entry.callers[entry.sites[i].caller as usize] == caller)
                        .map(|i| self.compact_site(entry, i))
                        .collect()
                }
            };
        let lines = overlay.filter(|o| o.file == key.as_ref());
        let mut memo = self.memo_of(entry);
        // A Go conversion `T(x)` is no call: no edge at all, not even `?:T`.
        let go = paths::extension(key) == "go";
        for (site, ids) in mine {
            if go && self.go_conversion(key, site) {
                continue;
            }
            let asked = self.at_graph_line(entry, lines, site);
            let (callee, resolution) = self
                .resolve_remembered(&mut memo, key, ids, asked)
                .into_owned();
            match out.iter_mut().find(|e| e.callee == callee) {
                Some(e) => e.resolution = e.resolution.min(resolution),
                None => out.push(Edge {
                    caller: of.clone(),
                    callee,
                    resolution,
                    line: site.line,
                    depth: 1,
                }),
            }
        }
        out
    }

    /// `within`: when given, only the files it accepts are looked at (see
    /// [`Graph::callers_within`]).
    fn compute_callers(
        &self,
        of: &SymbolRef,
        overlay: Option<Overlay<'_>>,
        within: Option<&dyn Fn(&str) -> bool>,
    ) -> Vec<Edge> {
        let Some(analysis) = self.get(&of.file) else {
            return Vec::new();
        };
        let Some(def) = analysis.find(&of.name) else {
            return Vec::new();
        };
        let target = Target::Symbol(of.clone());
        let mut out: Vec<Edge> = Vec::new();
        // A handful of names at most: a list compares faster than a tree.
        let names: Vec<&str> = self.called_as(&def.name).into_iter().collect();
        let ids: Vec<u32> = names.iter().filter_map(|n| self.names.get(n)).collect();
        let mut files: Vec<&Arc<str>> = ids
            .iter()
            .filter_map(|id| self.by_callee.get(id))
            .flatten()
            .filter_map(|&n| self.paths_by_id.get(n as usize)?.as_ref())
            .collect();
        // The overlaid file calls what its current sites say, whatever `by_callee` (made
        // from the graph's copy) says; its sites calling one of the names, found once.
        let overlaid: Vec<SiteRef<'_>> = match overlay {
            Some(o) if self.files.contains_key(o.file) => overlay_sites(o.analysis)
                .filter(|s| names.contains(&s.callee))
                .collect(),
            _ => Vec::new(),
        };
        if let Some(o) = overlay
            && let Some((key, _)) = self.files.get_key_value(o.file)
        {
            files.retain(|f| f.as_ref() != o.file);
            if !overlaid.is_empty() {
                files.push(key);
            }
        }
        if let Some(within) = within {
            files.retain(|f| within(f));
        }
        files.sort_unstable();
        files.dedup();
        for file in files {
            let entry = &self.files[file];
            let a = &entry.analysis;
            // A plain call in another file that defines the name at its top level goes
            // to that definition, never to ours (the overlay, with the same interface,
            // defines the same names).
            let shadowed: Vec<u32> = if file.as_ref() == of.file.as_ref() {
                Vec::new()
            } else {
                ids.iter()
                    .copied()
                    .filter(|id| entry.defines.binary_search(id).is_ok())
                    .collect()
            };
            // Only the sites calling one of the names (interned ids compared first: most
            // sites of a file call something else).
            let sites: Vec<(SiteRef<'_>, Option<SiteKey>)> = match overlay
                .filter(|o| o.file == file.as_ref())
            {
                Some(_) => overlaid
                    .iter()
                    .copied()
                    .filter(|s| {
                        s.receiver.is_some()
                            || !self
                                .names
                                .get(s.callee)
                                .is_some_and(|id| shadowed.contains(&id))
                    })
                    .map(|site| (site, self.interned_key(site)))
                    .collect(),
                None => (0..entry.sites.len())
                    .filter(|&i| {
                        let s = &entry.sites[i];
                        ids.contains(&s.callee) && (s.receiver > 0 || !shadowed.contains(&s.callee))
                    })
                    .map(|i| self.compact_site(entry, i))
                    .collect(),
            };
            if sites.is_empty() {
                continue;
            }
            let lines = overlay.filter(|o| o.file == file.as_ref());
            let mut memo = self.memo_of(entry);
            for (site, key) in sites {
                let asked = self.at_graph_line(entry, lines, site);
                let found = self.resolve_remembered(&mut memo, file, key, asked);
                let (callee, resolution) = found.as_ref();
                if *callee != target {
                    continue;
                }
                let resolution = *resolution;
                let caller = self.caller_ref(file, a, site.caller);
                match out.iter_mut().find(|e| e.caller == caller) {
                    Some(e) => e.resolution = e.resolution.min(resolution),
                    None => out.push(Edge {
                        caller,
                        callee: target.clone(),
                        resolution,
                        line: site.line,
                        depth: 1,
                    }),
                }
            }
        }
        out
    }

    /// The callees of `of`, then theirs, down to `depth` levels (1 = direct only, at most
    /// [`MAX_DEPTH`]); each definition is expanded once (cycles end).
    pub fn callees(&self, of: &SymbolRef, depth: usize) -> Vec<Edge> {
        self.callees_with(of, depth, None)
    }

    /// [`Graph::callees`], with `overlay` standing in for the graph's copy of its file.
    pub fn callees_with(
        &self,
        of: &SymbolRef,
        depth: usize,
        overlay: Option<Overlay<'_>>,
    ) -> Vec<Edge> {
        self.walk(
            of,
            depth,
            |g, s| g.direct_callees(s, overlay),
            |e| match &e.callee {
                Target::Symbol(s) => Some(s.clone()),
                Target::Unknown(_) => None,
            },
        )
    }

    /// The callers of `of`, then theirs, up to `depth` levels (see [`Graph::callees`]).
    pub fn callers(&self, of: &SymbolRef, depth: usize) -> Vec<Edge> {
        self.callers_with(of, depth, None)
    }

    /// [`Graph::callers`], with `overlay` standing in for the graph's copy of its file.
    pub fn callers_with(
        &self,
        of: &SymbolRef,
        depth: usize,
        overlay: Option<Overlay<'_>>,
    ) -> Vec<Edge> {
        self.walk(
            of,
            depth,
            |g, s| g.direct_callers(s, overlay),
            |e| Some(e.caller.clone()),
        )
    }

    fn walk(
        &self,
        start: &SymbolRef,
        depth: usize,
        step: impl Fn(&Self, &SymbolRef) -> Vec<Edge>,
        next: impl Fn(&Edge) -> Option<SymbolRef>,
    ) -> Vec<Edge> {
        let depth = depth.clamp(1, MAX_DEPTH);
        if depth == 1 {
            // Direct edges only (every lock.acquire and intent.declare): no walk.
            let mut out = step(self, start);
            for edge in &mut out {
                edge.depth = 1;
            }
            return out;
        }
        let mut seen: HashSet<SymbolRef> = HashSet::from([start.clone()]);
        let mut queue = VecDeque::from([(start.clone(), 1)]);
        let mut out = Vec::new();
        while let Some((at, level)) = queue.pop_front() {
            for mut edge in step(self, &at) {
                edge.depth = level;
                if level < depth
                    && let Some(n) = next(&edge)
                    && seen.insert(n.clone())
                {
                    queue.push_back((n, level + 1));
                }
                out.push(edge);
            }
        }
        out
    }

    /// Counts of call-site resolutions over the whole graph: (resolved, name-only,
    /// unresolved). For the bench's resolution rate.
    pub fn resolution_counts(&self) -> (usize, usize, usize) {
        let mut counts = (0, 0, 0);
        for file in self.files.keys() {
            for site in self.sites(file) {
                match self.resolve(file, site).1 {
                    Resolution::Resolved => counts.0 += 1,
                    Resolution::NameOnly => counts.1 += 1,
                    Resolution::Unresolved => counts.2 += 1,
                }
            }
        }
        counts
    }

    /// Names defined in `file` closest to `name` (for "did you mean"): up to `n`, by edit
    /// distance on the address, then by position.
    pub fn nearest_names(analysis: &Analysis, name: &str, n: usize) -> Vec<String> {
        let mut scored: Vec<(usize, usize, String)> = analysis
            .symbols
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let address = analysis.address_of(s);
                let d = distance(&address.to_lowercase(), &name.to_lowercase())
                    .min(distance(&s.name.to_lowercase(), &name.to_lowercase()));
                (d, i, address)
            })
            .filter(|(d, _, _)| *d <= (name.chars().count() / 3).max(2))
            .collect();
        scored.sort();
        scored.dedup_by(|a, b| a.2 == b.2);
        scored.into_iter().take(n).map(|(_, _, a)| a).collect()
    }
}

/// Levenshtein distance, bounded inputs (names).
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) =
        (a.chars().take(128).collect(), b.chars().take(128).collect());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The distinct interned called names of `sites`, sorted.
fn distinct_callees(sites: &[Site]) -> Vec<u32> {
    let mut ids: Vec<u32> = sites.iter().map(|s| s.callee).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The call sites of an overlay's analysis (one plain call per call edge for analyses
/// without call sites, as [`Graph::insert`] does).
fn overlay_sites(analysis: &Analysis) -> Box<dyn Iterator<Item = SiteRef<'_>> + '_> {
    if analysis.call_sites.is_empty() {
        Box::new(analysis.calls.iter().map(|c| SiteRef {
            caller: &c.caller,
            callee: &c.callee,
            receiver: None,
            line: 0,
            arguments: None,
        }))
    } else {
        Box::new(analysis.call_sites.iter().map(SiteRef::from))
    }
}

/// Whether a call's receiver is the caller's own instance or class, or a field of it
/// (`this`, `self`, `cls`, `super`, `super()`, `this.repo`, `self.repo`): where such a
/// call goes depends on the caller's class, not only on what is written.
fn by_own_class(receiver: Option<&str>) -> bool {
    match receiver {
        Some("this" | "self" | "cls" | "super" | "super()") => true,
        Some(r) => own_field(r).is_some(),
        None => false,
    }
}

/// `repo` of a receiver `this.repo` / `self.repo` (one field, no deeper chain).
fn own_field(receiver: &str) -> Option<&str> {
    receiver
        .strip_prefix("this.")
        .or_else(|| receiver.strip_prefix("self."))
        .filter(|f| !f.contains('.'))
}

/// Whether two analyses of a file give the same answers to every resolution: the same
/// symbols (names, kinds, containers, in order: addresses depend on the order), imports,
/// exports, class bases, values of evident class, type bodies (names and bases, in
/// order) and types' members (what member accesses resolve to). Positions, signatures,
/// call sites and member accesses do not count.
fn same_interface(a: &Analysis, b: &Analysis) -> bool {
    a.symbols.len() == b.symbols.len()
        && a.symbols
            .iter()
            .zip(&b.symbols)
            .all(|(x, y)| x.name == y.name && x.kind == y.kind && x.container == y.container)
        && a.imports == b.imports
        && a.exports == b.exports
        && a.bases == b.bases
        && a.values == b.values
        && a.bodies.len() == b.bodies.len()
        && a.bodies
            .iter()
            .zip(&b.bodies)
            .all(|(x, y)| x.name == y.name && x.bases == y.bases)
        && a.members.len() == b.members.len()
        && a.members.iter().zip(&b.members).all(|(x, y)| {
            x.container == y.container && x.name == y.name && x.type_text == y.type_text
        })
}

/// The renames an analysis declares: (name, another name it is called by).
fn renames(analysis: &Analysis) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    for i in &analysis.imports {
        if let Some(n) = i.name.as_deref()
            && n != i.local
            && n != "*"
        {
            out.push((n, i.local.as_str()));
        }
    }
    for e in &analysis.exports {
        if let Some(l) = e.local.as_deref()
            && l != e.name
        {
            out.push((l, e.name.as_str()));
        }
    }
    out
}

#[cfg(test)]
mod members_tests;
#[cfg(test)]
mod tests;
