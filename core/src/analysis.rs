//! The result of analysing one file: symbols and call edges, as plain data.
//!
//! These types are also the JSON shape that crosses the plugin boundary, so their serde
//! form is part of the plugin ABI: add fields only with `#[serde(default)]`.

use serde::{Deserialize, Serialize};

/// What kind of definition a [`Symbol`] is.
///
/// The names are the ones the protocol notes use (`function`, `arrow`, `method`, …).
/// Plugins for other languages map their constructs onto these; `type` covers structs and
/// other named types that are neither classes nor interfaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
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
        match (&self.container, name.split_once('.')) {
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

/// Everything wit needs to know about one file, from one parse.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileAnalysis {
    /// Definitions in source order.
    pub symbols: Vec<Symbol>,
    /// De-duplicated call edges, in order of first appearance.
    pub calls: Vec<CallEdge>,
}

impl FileAnalysis {
    /// The definition `name` addresses: the first symbol in the file whose bare name is
    /// `name`, or else the method `Class.method` when `name` has that form.
    ///
    /// First-wins on bare names is the protocol's rule; the qualified form is how a caller
    /// reaches the second of two same-named methods.
    pub fn find(&self, name: &str) -> Option<&Symbol> {
        self.symbols
            .iter()
            .find(|s| s.name == name)
            .or_else(|| self.symbols.iter().find(|s| s.answers_to(name)))
    }

    /// Names of the functions called by `caller` (bare or qualified), de-duplicated.
    pub fn callees_of<'a>(&'a self, caller: &'a Symbol) -> impl Iterator<Item = &'a str> + 'a {
        let qualified = caller.qualified_name();
        self.calls
            .iter()
            .filter(move |e| e.caller == qualified)
            .map(|e| e.callee.as_str())
    }

    /// The symbols whose bodies call `callee`, each once.
    pub fn callers_of<'a>(&'a self, callee: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.calls
            .iter()
            .filter(move |e| e.callee == callee)
            .map(|e| e.caller.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let a = FileAnalysis {
            symbols: vec![sym("save", Some("A"), 0), sym("save", Some("B"), 10)],
            calls: vec![],
        };
        assert_eq!(a.find("save").unwrap().start_byte, 0);
        assert_eq!(a.find("B.save").unwrap().start_byte, 10);
        assert_eq!(a.find("A.save").unwrap().start_byte, 0);
        assert!(a.find("C.save").is_none());
        assert!(a.find("load").is_none());
    }

    #[test]
    fn symbol_kind_serializes_lowercase() {
        assert_eq!(
            serde_json::to_string(&SymbolKind::Arrow).unwrap(),
            "\"arrow\""
        );
    }
}
