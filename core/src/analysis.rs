//! The result of analysing one file: symbols and call edges, as plain data.
//!
//! These types are also the JSON shape that crosses the plugin boundary, so their serde
//! form is part of the plugin ABI: add fields only with `#[serde(default)]`.
//!
//! # Compatibility (source and ABI)
//! Outside teams build analyzers on these types, so how each may grow is fixed:
//! - [`FileAnalysis`], [`Symbol`] and [`CallEdge`] are the shapes wit-core 0.1.0 published
//!   (the README and the Go example built them with struct literals). They are **frozen**:
//!   they never gain a field, so `FileAnalysis { symbols, calls }` and `Symbol { … }`
//!   literals written against 0.1.0 compile against every 0.1.x.
//! - Everything added since lives in [`Analysis`] (what [`crate::LanguageAnalyzer::analyze_full`]
//!   returns) and in the types it holds ([`CallSite`], [`Import`], [`Export`],
//!   [`ClassBase`], [`ValueClass`], [`TypeBody`]). They are `#[non_exhaustive]`: build them with
//!   `default()`, `new(…)` and field assignment, never with a literal, so a field added
//!   later breaks no one.
//!   [`SymbolKind`] is `#[non_exhaustive]` too: a `match` on it needs a `_` arm.

use serde::{Deserialize, Serialize};

/// What kind of definition a [`Symbol`] is.
///
/// The names are the ones the protocol notes use (`function`, `arrow`, `method`, …).
/// Plugins for other languages map their constructs onto these; `type` covers structs and
/// other named types that are neither classes nor interfaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SymbolKind {
    /// A function declaration (`function f() {}`, `def f():`, `func f()`).
    Function,
    /// A function expression or arrow function bound to a name (`const f = () => …`).
    Arrow,
    /// A method of a class (or, for Go, a method with a receiver).
    Method,
    /// A class.
    Class,
    /// An interface.
    Interface,
    /// A type alias or other named type (a Go struct, for instance).
    Type,
}

impl SymbolKind {
    /// The lowercase name used on the wire and in the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Function => "function",
            SymbolKind::Arrow => "arrow",
            SymbolKind::Method => "method",
            SymbolKind::Class => "class",
            SymbolKind::Interface => "interface",
            SymbolKind::Type => "type",
        }
    }

    /// Whether symbols of this kind are callable and so carry a signature.
    pub fn is_callable(self) -> bool {
        matches!(
            self,
            SymbolKind::Function | SymbolKind::Arrow | SymbolKind::Method
        )
    }
}

/// One named definition in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Symbol {
    /// The bare name (`validateToken`, `save`).
    pub name: String,
    /// What the definition is.
    pub kind: SymbolKind,
    /// For methods: the name of the enclosing class (or Go receiver type), so the method can
    /// also be addressed as `Container.name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// UTF-8 byte offset of the first byte of the definition.
    pub start_byte: usize,
    /// UTF-8 byte offset one past the last byte of the definition.
    pub end_byte: usize,
    /// Zero-based line of `start_byte`.
    pub start_line: usize,
    /// Zero-based line of the last byte of the definition.
    pub end_line: usize,
    /// The canonical signature (see [`crate::signature`]); `None` for non-callables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

impl Symbol {
    /// `Container.name` for methods, otherwise the bare name.
    pub fn qualified_name(&self) -> String {
        match &self.container {
            Some(c) => format!("{c}.{}", self.name),
            None => self.name.clone(),
        }
    }

    /// Whether `name` addresses this symbol: either its bare name or `Container.name`.
    pub fn answers_to(&self, name: &str) -> bool {
        if self.name == name {
            return true;
        }
        match (&self.container, name.rsplit_once('.')) {
            (Some(c), Some((qc, qn))) => c == qc && self.name == qn,
            _ => false,
        }
    }
}

/// A call from one named function to another, by name.
///
/// `caller` is the qualified name of the innermost enclosing named function, method or
/// arrow (`Class.method` for methods); `callee` is the called name as written (for member
/// calls `obj.f()`, the property name `f`). Resolution of callees to files (`file:name` or
/// `?:name`) is the daemon's job, since an analyzer does not know the file's path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CallEdge {
    /// Qualified name of the calling function.
    pub caller: String,
    /// Name of the called function.
    pub callee: String,
}

/// One call site: who calls what, on which receiver, and where.
///
/// [`Analysis::calls`] is the protocol's de-duplicated (caller, callee) view; call sites
/// add what cross-file resolution needs (set `arguments` after [`CallSite::new`] when
/// the language overloads by arity): the receiver of a member call as written
/// (`db` in `db.query()`, `this`, `self`, `super`, `new:Repo` for `new Repo().find()` and
/// for `repo.find()` on a local `repo` of evident class) and the position of the first
/// such call.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallSite {
    /// Qualified name of the calling function.
    pub caller: String,
    /// Name of the called function (the property name for member calls).
    pub callee: String,
    /// The receiver of a member call, when it is a plain name or a chain of names
    /// (`db`, `this.repo`, `a.b`), `this`/`self`/`cls`/`super`/`super()`, or
    /// `new:Name` for a call on a freshly constructed object (`new Repo().find()`) or on a
    /// local whose class is evident from its declaration: `const repo = new Repo()`,
    /// `function f(repo: Repo)`, Python `app = Flask(…)` or `def f(app: Flask)` (then
    /// `Name` may be dotted: `new:flask.Blueprint` for `bp = flask.Blueprint(…)`), and in
    /// statically typed languages a variable whose declaration states its type (Java
    /// `Node<K,V> e`, a field `this.map`, Go's receiver `c *Context`: `new:Node`,
    /// `new:Context`, without type arguments or pointer); `None`
    /// for a plain call `f()`. Receivers of other shapes (`f().g()`, `a[0].g()`), and (in
    /// the built-in analyzers) a variable of the calling function whose class its
    /// declaration does not say (`x = make(); x.go()`, a parameter without annotation),
    /// are `Some("")`: the module's binding of that name is not what it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<String>,
    /// UTF-8 byte offset of the call's start.
    pub start_byte: usize,
    /// Zero-based line of the call's start.
    pub line: usize,
    /// The call's arguments as far as their types show, comma-separated, where overloads
    /// make it matter (Java, whose analyzer reports it; two calls differing only in it
    /// are two sites): a literal's type (`int`, `long`, `String`, `char`, `boolean`,
    /// `null`), a cast's or `new`'s type, a variable's declared type (`int[]`, `Node`),
    /// type arguments dropped, `?` when nothing says; `""` for a call without arguments.
    /// `None` elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
}

/// One name a file imports from another module.
///
/// | source                                | module    | name        | local  |
/// |---------------------------------------|-----------|-------------|--------|
/// | `import d from './m'`                 | `./m`     | `default`   | `d`    |
/// | `import {a as b} from './m'`          | `./m`     | `a`         | `b`    |
/// | `import * as ns from './m'`           | `./m`     | —           | `ns`   |
/// | `const m = require('./m')`            | `./m`     | —           | `m`    |
/// | `const {a, b: c} = require('./m')`    | `./m`     | `a` / `b`   | `a`/`c`|
/// | `import a.b` (Python)                 | `a.b`     | —           | `a.b`  |
/// | `import a.b as c`                     | `a.b`     | —           | `c`    |
/// | `from ..a import b as c`              | `..a`     | `b`         | `c`    |
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Import {
    /// The module specifier as written (a path, a package, a dotted Python module with
    /// its leading dots for relative imports).
    pub module: String,
    /// The imported name; `None` for the whole module (namespace import, `require`,
    /// Python `import m`). `default` for an ESM default import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The name it is bound to in this file.
    pub local: String,
}

/// One name a file exports (TypeScript/JavaScript; Python modules export every
/// top-level name, so Python analyses list none).
///
/// | source                                | name      | local   | module  |
/// |---------------------------------------|-----------|---------|---------|
/// | `export function f`, `export const f` | `f`       | `f`     | —       |
/// | `export default function f`           | `default` | `f`     | —       |
/// | `export {a as b}`                     | `b`       | `a`     | —       |
/// | `export {a as b} from './m'`          | `b`       | `a`     | `./m`   |
/// | `export * from './m'`                 | `*`       | —       | `./m`   |
/// | `export * as ns from './m'`           | `ns`      | —       | `./m`   |
/// | `exports.x = …`, `module.exports.x =` | `x`       | `x`     | —       |
/// | `module.exports = {a, b: c}`          | `a` / `b` | `a`/`c` | —       |
/// | `module.exports = f`                  | `default` | `f`     | —       |
/// | `module.exports = require('./m')`     | `*`       | —       | `./m`   |
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Export {
    /// The exported name (`default` for default exports, `*` for `export *`).
    pub name: String,
    /// The local binding (or, with `module`, the name in that module); `None` for
    /// `export *` and `export * as ns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<String>,
    /// For re-exports: the module specifier as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
}

/// A class and one class it extends, as written (`class A extends B`, `class A(B):`,
/// `class A(mod.B)` gives base `mod.B`). Top-level classes only.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClassBase {
    /// The class.
    pub class: String,
    /// A base it extends (a name or a dotted chain of names).
    pub base: String,
}

/// A top-level variable whose class its declaration makes evident, as written:
/// `export const app: App = …` / `const app = new App()` (TypeScript/JavaScript),
/// `app = Flask(__name__)` / `current_app: FlaskProxy = LocalProxy(…)` (Python). Another
/// module calling `app.run()` through an import of `app` then reaches `App.run`.
///
/// Or a field of a top-level class, named `Class.field`: `repo: Repo`,
/// `constructor(private repo: Repo)`, `this.repo = new Repo()`, Python `self.repo =
/// Repo()`; a method of the class (or of one extending it) calling `this.repo.find()`
/// reaches `Repo.find`.
///
/// Only variables (fields) bound once, or declared with one class, and never imported
/// under the same name are listed (see the built-in analyzers' `engine/locals.rs` and
/// `engine/fields.rs`): a name bound twice could hold either.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ValueClass {
    /// The variable.
    pub name: String,
    /// Its class, a name or a dotted chain of names as written (`Flask`, `flask.Flask`).
    pub class: String,
}

/// The body of a type, in a language whose types nest and may be anonymous (Java): where
/// its members are, which type they belong to, and what that type extends.
///
/// The code graph resolves a Java call with them by the language's rules: a plain `m()`
/// goes to the innermost enclosing type that has a method `m` (declared, or inherited
/// through its supertypes), then outward; `Outer.this.m()` to `Outer`'s; `super.m()` to
/// the superclass's. A member (a [`Symbol`]) belongs to the innermost body containing
/// its start. `name` is the type's name as its members' [`Symbol::container`] gives it
/// (`SubList` for `ArrayList.SubList`), `None` for an anonymous class (`new
/// Iterator<E>() {…}`) or an enum constant's body, whose methods have no container.
/// Supertypes are as written, without type arguments (`AbstractList`, `Map.Entry`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TypeBody {
    /// UTF-8 byte offset of the body's start (its `{`).
    pub start_byte: usize,
    /// UTF-8 byte offset one past its end.
    pub end_byte: usize,
    /// The type's name as its members' container; `None` when anonymous.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The class it extends: a class's `extends`, the enum of an enum constant's body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superclass: Option<String>,
    /// The interfaces it implements (an interface: those it extends); for an anonymous
    /// class, its one type, which may be a class or an interface.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<String>,
}

/// Everything wit needs to know about one file, from one parse.
///
/// `call_sites`, `imports`, `exports`, `bases`, `values` and `bodies` were added after the first
/// plugin ABI: plugins that do not report them leave them empty (their files then give
/// single-file edges).
///
/// `#[non_exhaustive]`: start from [`Analysis::default`] (or `From<FileAnalysis>`) and set
/// the fields; fields added later then break no analyzer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Analysis {
    /// Definitions in source order.
    pub symbols: Vec<Symbol>,
    /// De-duplicated call edges, in order of first appearance. An analyzer that reports
    /// `call_sites` may leave this empty (the built-ins do): the edges are then the call
    /// sites' (caller, callee) pairs, de-duplicated, in order ([`Analysis::edges`]),
    /// and a large file's analysis holds half as many strings.
    pub calls: Vec<CallEdge>,
    /// Call sites, one per distinct (caller, callee, receiver, arguments), in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub call_sites: Vec<CallSite>,
    /// Imports, in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<Import>,
    /// Exports, in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exports: Vec<Export>,
    /// What top-level classes extend, in source order (for `super.m()` and inherited
    /// `this.m()`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<ClassBase>,
    /// Top-level variables of evident class, in source order, then fields of classes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<ValueClass>,
    /// Where the parse met its first syntax error (a UTF-8 byte offset into the source):
    /// `None` when the file parsed cleanly, or when the analyzer does not say. The
    /// built-in analyzers report it (tree-sitter's first `ERROR` or `MISSING` node); a
    /// definition found in recovered code may have the wrong extent, so what must rely on
    /// exact definitions (the merge driver, `wit-merge`) does not use an analysis that
    /// reports one. A plugin may send it as `syntaxError`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syntax_error: Option<usize>,
    /// Type bodies, in source order (languages whose types nest: Java), empty elsewhere.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bodies: Vec<TypeBody>,
}

/// A symbol name with an optional disambiguating suffix: `name#kind` (the first
/// definition of that kind: `input#function`, `input#type`) or `name#N` (the N-th
/// definition answering to `name`, from 1). A `#` that starts the name or follows a dot
/// belongs to the name (`#secret`, `Foo.#secret`).
pub fn split_qualifier(name: &str) -> (&str, Option<&str>) {
    match name.rsplit_once('#') {
        Some((base, q)) if !base.is_empty() && !base.ends_with('.') && !q.is_empty() => {
            let known = q.bytes().all(|b| b.is_ascii_digit()) || kind_from_str(q).is_some();
            if known { (base, Some(q)) } else { (name, None) }
        }
        _ => (name, None),
    }
}

fn kind_from_str(s: &str) -> Option<SymbolKind> {
    Some(match s {
        "function" => SymbolKind::Function,
        "arrow" => SymbolKind::Arrow,
        "method" => SymbolKind::Method,
        "class" => SymbolKind::Class,
        "interface" => SymbolKind::Interface,
        "type" => SymbolKind::Type,
        _ => return None,
    })
}

/// The analysis as wit-core 0.1.0 published it: symbols and call edges only.
///
/// What [`crate::LanguageAnalyzer::analyze`] returns, kept so that analyzers written
/// against 0.1.0 (`Ok(FileAnalysis { symbols, calls })`) keep compiling. **Frozen**: it
/// never gains a field (see the module docs). New analyzers that report call sites,
/// imports or exports return an [`Analysis`] from `analyze_full` as well.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileAnalysis {
    /// Definitions in source order.
    pub symbols: Vec<Symbol>,
    /// De-duplicated call edges, in order of first appearance.
    pub calls: Vec<CallEdge>,
}

impl From<FileAnalysis> for Analysis {
    fn from(a: FileAnalysis) -> Self {
        Analysis {
            symbols: a.symbols,
            calls: a.calls,
            ..Analysis::default()
        }
    }
}

impl From<Analysis> for FileAnalysis {
    /// The first shape: the symbols, and the call edges (derived from the call sites when
    /// the analysis reported only those).
    fn from(a: Analysis) -> Self {
        let calls = if a.calls.is_empty() {
            a.edges()
                .map(|(caller, callee)| CallEdge {
                    caller: caller.to_owned(),
                    callee: callee.to_owned(),
                })
                .collect()
        } else {
            a.calls
        };
        FileAnalysis {
            symbols: a.symbols,
            calls,
        }
    }
}

impl CallSite {
    /// A call site (see the fields).
    pub fn new(
        caller: impl Into<String>,
        callee: impl Into<String>,
        receiver: Option<String>,
        start_byte: usize,
        line: usize,
    ) -> Self {
        Self {
            caller: caller.into(),
            callee: callee.into(),
            receiver,
            start_byte,
            line,
            arguments: None,
        }
    }
}

impl Import {
    /// `local` bound to `name` of `module` (`name: None`: the whole module).
    pub fn new(module: impl Into<String>, name: Option<String>, local: impl Into<String>) -> Self {
        Self {
            module: module.into(),
            name,
            local: local.into(),
        }
    }
}

impl Export {
    /// `name` exported, bound to `local` (of `module`, for a re-export).
    pub fn new(name: impl Into<String>, local: Option<String>, module: Option<String>) -> Self {
        Self {
            name: name.into(),
            local,
            module,
        }
    }
}

impl ClassBase {
    /// `class` extends (or implements, embeds) `base`.
    pub fn new(class: impl Into<String>, base: impl Into<String>) -> Self {
        Self {
            class: class.into(),
            base: base.into(),
        }
    }
}

impl ValueClass {
    /// The variable (or `Class.field`) `name` holds an instance of `class`.
    pub fn new(name: impl Into<String>, class: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            class: class.into(),
        }
    }
}

impl TypeBody {
    /// The body `start_byte..end_byte` of the type `name` (`None`: anonymous); set
    /// `superclass` and `bases` as the type says.
    pub fn new(start_byte: usize, end_byte: usize, name: Option<String>) -> Self {
        Self {
            start_byte,
            end_byte,
            name,
            superclass: None,
            bases: Vec::new(),
        }
    }
}

impl Analysis {
    /// An analysis of `symbols` and nothing else (fill the other fields as needed).
    pub fn new(symbols: Vec<Symbol>) -> Self {
        Self {
            symbols,
            ..Self::default()
        }
    }
    /// The definition `name` addresses: the first symbol in the file whose bare name is
    /// `name`, or else the first whose qualified name `Container.name` is `name`.
    ///
    /// First-wins on bare names is the protocol's rule; the qualified form is how a caller
    /// reaches the second of two same-named methods, and a `#kind` or `#N` suffix (see
    /// [`split_qualifier`]) how it reaches any other definition sharing a name:
    /// `input#function` when `export type input` comes first, `save#2` for the second
    /// `save`.
    pub fn find(&self, name: &str) -> Option<&Symbol> {
        let (base, qualifier) = split_qualifier(name);
        match qualifier {
            None => self
                .symbols
                .iter()
                .find(|s| s.name == base)
                .or_else(|| self.symbols.iter().find(|s| s.answers_to(base))),
            Some(q) => {
                let mut answering = self.symbols.iter().filter(|s| s.answers_to(base));
                match q.parse::<usize>() {
                    Ok(n) => answering.nth(n.checked_sub(1)?),
                    Err(_) => {
                        let kind = kind_from_str(q)?;
                        answering.find(|s| s.kind == kind)
                    }
                }
            }
        }
    }

    /// The shortest name that [`Analysis::find`] resolves to `symbol` (a symbol of
    /// this analysis): its qualified name, else with `#kind`, else with `#N`.
    pub fn address_of(&self, symbol: &Symbol) -> String {
        let qualified = symbol.qualified_name();
        let is = |s: Option<&Symbol>| s.is_some_and(|s| std::ptr::eq(s, symbol));
        if is(self.find(&qualified)) {
            return qualified;
        }
        let by_kind = format!("{qualified}#{}", symbol.kind.as_str());
        if is(self.find(&by_kind)) {
            return by_kind;
        }
        let n = self
            .symbols
            .iter()
            .filter(|s| s.answers_to(&qualified))
            .position(|s| std::ptr::eq(s, symbol))
            .map_or(1, |i| i + 1);
        format!("{qualified}#{n}")
    }

    /// The call edges as (caller, callee): [`Analysis::calls`] when the analyzer
    /// reported them, else derived from the call sites (see `calls`).
    pub fn edges(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        let from_sites = self.calls.is_empty();
        let mut seen = std::collections::HashSet::new();
        self.calls
            .iter()
            .map(|e| (e.caller.as_str(), e.callee.as_str()))
            .chain(
                self.call_sites
                    .iter()
                    .filter(move |_| from_sites)
                    .map(|s| (s.caller.as_str(), s.callee.as_str()))
                    .filter(move |pair| seen.insert(*pair)),
            )
    }

    /// Names of the functions called by `caller` (bare or qualified), de-duplicated, in
    /// order of first call.
    pub fn callees_of<'a>(&'a self, caller: &'a Symbol) -> impl Iterator<Item = &'a str> + 'a {
        let qualified = caller.qualified_name();
        let mut seen: Vec<&str> = Vec::new();
        self.edges_where(move |caller, _| caller == qualified)
            .map(|(_, callee)| callee)
            .filter(move |c| !seen.contains(c) && (seen.push(c), true).1)
    }

    /// The symbols whose bodies call `callee`, each once, in order of first call.
    pub fn callers_of<'a>(&'a self, callee: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let mut seen: Vec<&str> = Vec::new();
        self.edges_where(move |_, c| c == callee)
            .map(|(caller, _)| caller)
            .filter(move |c| !seen.contains(c) && (seen.push(c), true).1)
    }

    /// The (caller, callee) pairs of [`Analysis::edges`] that `keep` keeps, without
    /// de-duplication (the filter comes first: it is cheaper than hashing every pair).
    fn edges_where<'a>(
        &'a self,
        keep: impl Fn(&str, &str) -> bool + 'a,
    ) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        let from_sites = self.calls.is_empty();
        self.calls
            .iter()
            .map(|e| (e.caller.as_str(), e.callee.as_str()))
            .chain(
                self.call_sites
                    .iter()
                    .filter(move |_| from_sites)
                    .map(|s| (s.caller.as_str(), s.callee.as_str())),
            )
            .filter(move |(caller, callee)| keep(caller, callee))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without `calls`, the edges are the call sites' (caller, callee) pairs, each once,
    /// in order: what an analyzer reporting both would have put in `calls`.
    #[test]
    fn edges_come_from_call_sites_when_calls_are_empty() {
        let site = |caller: &str, callee: &str, receiver: Option<&str>| {
            CallSite::new(caller, callee, receiver.map(Into::into), 0, 0)
        };
        let edge = |caller: &str, callee: &str| CallEdge {
            caller: caller.into(),
            callee: callee.into(),
        };
        let mut from_sites = Analysis {
            symbols: vec![sym("a", None, 0), sym("b", Some("C"), 5)],
            call_sites: vec![
                site("a", "f", None),
                site("a", "g", Some("db")),
                site("a", "f", Some("x")),
                site("C.b", "f", Some("this")),
                site("a", "h", None),
            ],
            ..Default::default()
        };
        let both = Analysis {
            calls: vec![
                edge("a", "f"),
                edge("a", "g"),
                edge("C.b", "f"),
                edge("a", "h"),
            ],
            ..from_sites.clone()
        };
        for a in [&from_sites, &both] {
            assert_eq!(
                a.edges().collect::<Vec<_>>(),
                [("a", "f"), ("a", "g"), ("C.b", "f"), ("a", "h")]
            );
            assert_eq!(
                a.callees_of(&a.symbols[0]).collect::<Vec<_>>(),
                ["f", "g", "h"]
            );
            assert_eq!(a.callees_of(&a.symbols[1]).collect::<Vec<_>>(), ["f"]);
            assert_eq!(a.callers_of("f").collect::<Vec<_>>(), ["a", "C.b"]);
        }
        // An analyzer's own `calls` win over its sites.
        from_sites.calls = vec![edge("a", "z")];
        assert_eq!(from_sites.edges().collect::<Vec<_>>(), [("a", "z")]);
    }

    fn sym(name: &str, container: Option<&str>, start: usize) -> Symbol {
        Symbol {
            name: name.into(),
            kind: SymbolKind::Method,
            container: container.map(Into::into),
            start_byte: start,
            end_byte: start + 1,
            start_line: 0,
            end_line: 0,
            signature: Some("()".into()),
        }
    }

    #[test]
    fn find_prefers_first_bare_name_and_accepts_qualified_names() {
        let a = Analysis {
            symbols: vec![sym("save", Some("A"), 0), sym("save", Some("B"), 10)],
            ..Default::default()
        };
        assert_eq!(a.find("save").unwrap().start_byte, 0);
        assert_eq!(a.find("B.save").unwrap().start_byte, 10);
        assert_eq!(a.find("A.save").unwrap().start_byte, 0);
        assert!(a.find("C.save").is_none());
        assert!(a.find("load").is_none());
    }

    #[test]
    fn kind_and_ordinal_suffixes_address_definitions_sharing_a_name() {
        let mut ty = sym("input", None, 0);
        ty.kind = SymbolKind::Type;
        let mut func = sym("input", None, 10);
        func.kind = SymbolKind::Function;
        let mut private = sym("#input", Some("C"), 20);
        private.kind = SymbolKind::Method;
        let a = Analysis {
            symbols: vec![ty, func, private],
            ..Default::default()
        };
        assert_eq!(a.find("input").unwrap().start_byte, 0);
        assert_eq!(a.find("input#type").unwrap().start_byte, 0);
        assert_eq!(a.find("input#function").unwrap().start_byte, 10);
        assert_eq!(a.find("input#2").unwrap().start_byte, 10);
        assert!(a.find("input#3").is_none());
        assert!(a.find("input#0").is_none());
        assert!(a.find("input#class").is_none());
        assert_eq!(a.find("C.#input").unwrap().start_byte, 20);
        assert_eq!(a.find("#input").unwrap().start_byte, 20);
        assert_eq!(a.address_of(&a.symbols[0]), "input");
        assert_eq!(a.address_of(&a.symbols[1]), "input#function");
        assert_eq!(a.address_of(&a.symbols[2]), "C.#input");
        // An unknown suffix is part of the name.
        assert_eq!(split_qualifier("a#b"), ("a#b", None));
        assert_eq!(split_qualifier("Foo.#x"), ("Foo.#x", None));
    }

    #[test]
    fn old_analyses_without_the_new_fields_still_deserialize() {
        let a: Analysis = serde_json::from_str(r#"{"symbols":[],"calls":[]}"#).unwrap();
        assert!(a.call_sites.is_empty() && a.imports.is_empty() && a.exports.is_empty());
    }

    #[test]
    fn symbol_kind_serializes_lowercase() {
        assert_eq!(
            serde_json::to_string(&SymbolKind::Arrow).unwrap(),
            "\"arrow\""
        );
    }
}
