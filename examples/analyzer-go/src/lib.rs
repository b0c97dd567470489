//! A Go analyzer for wit, built as a plugin.
//!
//! This crate is what an outside team writes to teach wit a language: it depends on
//! `wit-core` (for the [`LanguageAnalyzer`] trait, the data types and the ABI macro) and on
//! its own tree-sitter grammar, and ends with [`wit_core::export_analyzer!`]. Compiled as a
//! `cdylib`, it is loaded by the daemon from `wit.toml` (see README.md).
//!
//! What it reports, from one parse of a `.go` file:
//! - **functions** (`function`), with their signature;
//! - **methods** (`method`), with `container` = the receiver's type name without `*` or
//!   type arguments, so `Save` and `Store.Save` both address `func (s *Store) Save()`;
//! - **type declarations**: interfaces (`interface`), and structs, aliases and every other
//!   named type (`type`), each `type_spec` of a grouped `type ( … )` on its own.
//!
//! Signatures are the type parameters (if any), the parameter list and the result, in
//! wit's canonical form: `(ctx context.Context, id string) (*User, error)`,
//! `[T any](xs []T) []T`, `(x int) error`, `()`. Decision: a method's receiver is **not**
//! part of its signature. The receiver is the method's address (`Store.Save`), and a
//! contract is about how callers call the method, which the receiver's name or pointer-ness
//! does not change for them.
//!
//! Call edges: inside each named function or method, plain calls `f()` give callee `f`,
//! selector calls `pkg.F()` / `s.m()` give the selected name (`F`, `m`), explicit generic
//! calls `Map[int](xs)` give `Map`. The caller is the innermost enclosing named function
//! (`Type.Method` for methods); function literals belong to the function they are written
//! in; calls at package level (`var x = f()`) give no edge. Calls of Go's builtins and
//! predeclared type conversions (`len`, `append`, `string(b)`, …), and conversions to types
//! declared in the file (`UserID(s)`), are left out unless the file itself declares a
//! function of that name. Edges are de-duplicated, in order of first
//! appearance.

use std::collections::HashSet;

use tree_sitter::{Node, Parser};
use wit_core::signature::canonicalize;
use wit_core::{
    Analysis, AnalyzeError, CallEdge, CallSite, FileAnalysis, LanguageAnalyzer, Symbol, SymbolKind,
};

/// The Go analyzer: id `go`, extension `go`.
#[derive(Debug, Default, Clone, Copy)]
pub struct GoAnalyzer;

impl GoAnalyzer {
    /// A new analyzer (it holds no state; parsers are made per call).
    pub fn new() -> Self {
        Self
    }
}

/// Go's predeclared functions and types: calling them is not a call edge (see crate docs).
const PREDECLARED: &[&str] = &[
    "append",
    "cap",
    "clear",
    "close",
    "complex",
    "copy",
    "delete",
    "imag",
    "len",
    "make",
    "max",
    "min",
    "new",
    "panic",
    "print",
    "println",
    "real",
    "recover",
    "any",
    "bool",
    "byte",
    "comparable",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
];

impl LanguageAnalyzer for GoAnalyzer {
    fn id(&self) -> &str {
        "go"
    }

    fn extensions(&self) -> &[&str] {
        &["go"]
    }

    /// The first shape (symbols and call edges), for hosts that ask for it.
    fn analyze(&self, source: &str) -> Result<FileAnalysis, AnalyzeError> {
        self.analyze_full(source).map(Into::into)
    }

    /// Symbols, call edges and call sites (with receivers, for the code graph).
    fn analyze_full(&self, source: &str) -> Result<Analysis, AnalyzeError> {
        let mut parser = Parser::new();
        parser
            .set_language(&tree_sitter_go::LANGUAGE.into())
            .map_err(|e| AnalyzeError::Failed(format!("cannot load the Go grammar: {e}")))?;
        let tree = parser
            .parse(source, None)
            .ok_or_else(|| AnalyzeError::Failed("the Go parser returned no tree".into()))?;
        Ok(analyze_tree(tree.root_node(), source))
    }
}

/// One walk over the tree: symbols in source order, then call edges attributed to the
/// innermost enclosing named function.
fn analyze_tree(root: Node<'_>, src: &str) -> Analysis {
    let mut symbols = Vec::new();
    let mut raw_calls: Vec<CallEdge> = Vec::new();
    // Beside each raw call: its receiver (`fmt` in `fmt.Println(…)`, `s` in `s.Save()`) and
    // where it is, for the call sites wit's code graph resolves across files.
    let mut raw_sites: Vec<(Option<String>, usize, usize)> = Vec::new();

    // Iterative depth-first walk (deeply nested code must not overflow the stack). Each
    // entry carries the qualified name of the named function it sits in, if any.
    let mut stack: Vec<(Node<'_>, Option<String>)> = vec![(root, None)];
    while let Some((node, caller)) = stack.pop() {
        let mut inner_caller = caller.clone();
        match node.kind() {
            "function_declaration" => {
                if let Some(sym) = function_symbol(node, src, None) {
                    inner_caller = Some(sym.qualified_name());
                    symbols.push(sym);
                }
            }
            "method_declaration" => {
                let container = node
                    .child_by_field_name("receiver")
                    .and_then(|r| receiver_type_name(r, src));
                if let Some(sym) = function_symbol(node, src, container) {
                    inner_caller = Some(sym.qualified_name());
                    symbols.push(sym);
                }
            }
            "type_declaration" => {
                let mut cursor = node.walk();
                let specs: Vec<Node<'_>> = node
                    .named_children(&mut cursor)
                    .filter(|c| matches!(c.kind(), "type_spec" | "type_alias"))
                    .collect();
                for spec in &specs {
                    // A lone spec spans its whole declaration (with `type`); grouped specs
                    // span themselves only.
                    let extent = if specs.len() == 1 { node } else { *spec };
                    if let Some(sym) = type_symbol(*spec, extent, src) {
                        symbols.push(sym);
                    }
                }
            }
            "call_expression" | "type_conversion_expression" => {
                let callee = if node.kind() == "call_expression" {
                    node.child_by_field_name("function")
                        .and_then(|f| callee_name(f, src))
                } else {
                    generic_call_name(node, src)
                };
                if let (Some(caller), Some(callee)) = (&caller, callee) {
                    raw_calls.push(CallEdge {
                        caller: caller.clone(),
                        callee,
                    });
                    let receiver = node
                        .child_by_field_name("function")
                        .filter(|f| f.kind() == "selector_expression")
                        .and_then(|f| f.child_by_field_name("operand"))
                        .map(|o| {
                            let t = text(o, src);
                            // Only names and chains of names; anything else is "other".
                            if t.len() <= 256
                                && t.bytes()
                                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
                            {
                                t.to_owned()
                            } else {
                                String::new()
                            }
                        });
                    raw_sites.push((receiver, node.start_byte(), node.start_position().row));
                }
            }
            _ => {}
        }
        // Push children in reverse so they pop in source order.
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for child in children.into_iter().rev() {
            stack.push((child, inner_caller.clone()));
        }
    }

    let functions: HashSet<&str> = symbols
        .iter()
        .filter(|s| s.kind.is_callable())
        .map(|s| s.name.as_str())
        .collect();
    let types: HashSet<&str> = symbols
        .iter()
        .filter(|s| !s.kind.is_callable())
        .map(|s| s.name.as_str())
        .collect();
    // A conversion looks like a call; drop names known to be types rather than functions.
    let is_call = |name: &str| {
        functions.contains(name) || !(PREDECLARED.contains(&name) || types.contains(name))
    };
    let mut seen = HashSet::new();
    let mut seen_sites = HashSet::new();
    let mut calls = Vec::new();
    let mut call_sites = Vec::new();
    for (e, (receiver, start_byte, line)) in raw_calls.into_iter().zip(raw_sites) {
        if !is_call(&e.callee) {
            continue;
        }
        if seen_sites.insert((e.clone(), receiver.clone())) {
            call_sites.push(CallSite::new(
                e.caller.clone(),
                e.callee.clone(),
                receiver,
                start_byte,
                line,
            ));
        }
        if seen.insert(e.clone()) {
            calls.push(e);
        }
    }
    // Call sites are in walk order; wit wants source order.
    call_sites.sort_by_key(|c| c.start_byte);
    let mut analysis = Analysis::new(symbols);
    analysis.calls = calls;
    analysis.call_sites = call_sites;
    analysis
}

fn text<'a>(node: Node<'_>, src: &'a str) -> &'a str {
    &src[node.byte_range()]
}

fn symbol(name: &str, kind: SymbolKind, extent: Node<'_>) -> Symbol {
    Symbol {
        name: name.to_owned(),
        kind,
        container: None,
        start_byte: extent.start_byte(),
        end_byte: extent.end_byte(),
        start_line: extent.start_position().row,
        end_line: extent.end_position().row,
        signature: None,
    }
}

/// A function or method declaration; `None` when error recovery left it without a name.
fn function_symbol(node: Node<'_>, src: &str, container: Option<String>) -> Option<Symbol> {
    let name = node.child_by_field_name("name")?;
    if name.is_missing() || name.byte_range().is_empty() {
        return None;
    }
    let kind = if node.kind() == "method_declaration" {
        SymbolKind::Method
    } else {
        SymbolKind::Function
    };
    let mut sym = symbol(text(name, src), kind, node);
    sym.container = container;
    sym.signature = Some(signature(node, src));
    Some(sym)
}

/// `[type params](params) result`, canonicalized; the receiver is left out (crate docs).
fn signature(node: Node<'_>, src: &str) -> String {
    let mut sig = String::new();
    if let Some(tp) = node.child_by_field_name("type_parameters") {
        sig.push_str(text(tp, src));
    }
    match node.child_by_field_name("parameters") {
        Some(p) => sig.push_str(text(p, src)),
        None => sig.push_str("()"),
    }
    if let Some(result) = node.child_by_field_name("result") {
        sig.push(' ');
        sig.push_str(text(result, src));
    }
    canonicalize(&sig)
}

fn type_symbol(spec: Node<'_>, extent: Node<'_>, src: &str) -> Option<Symbol> {
    let name = spec.child_by_field_name("name")?;
    if name.is_missing() || name.byte_range().is_empty() {
        return None;
    }
    let is_interface = spec.kind() == "type_spec"
        && spec
            .child_by_field_name("type")
            .is_some_and(|t| t.kind() == "interface_type");
    let kind = if is_interface {
        SymbolKind::Interface
    } else {
        SymbolKind::Type
    };
    Some(symbol(text(name, src), kind, extent))
}

/// The receiver's type name: `(s *Store)`, `(Store)`, `(s *Stack[T])` → `Store`/`Stack`.
fn receiver_type_name(receiver: Node<'_>, src: &str) -> Option<String> {
    let mut cursor = receiver.walk();
    let param = receiver
        .named_children(&mut cursor)
        .find(|c| c.kind() == "parameter_declaration")?;
    let mut ty = param.child_by_field_name("type")?;
    loop {
        ty = match ty.kind() {
            "pointer_type" | "parenthesized_type" => ty.named_child(0)?,
            "generic_type" => ty.child_by_field_name("type")?,
            "type_identifier" => {
                let name = text(ty, src);
                return (!name.is_empty()).then(|| name.to_owned());
            }
            _ => return None,
        };
    }
}

/// The called name of a call's `function` expression, when it is a name at all.
fn callee_name(function: Node<'_>, src: &str) -> Option<String> {
    let mut f = function;
    loop {
        f = match f.kind() {
            "identifier" | "field_identifier" => {
                let name = text(f, src);
                return (!name.is_empty()).then(|| name.to_owned());
            }
            "selector_expression" => f.child_by_field_name("field")?,
            // `Map[int](xs)` may parse as an index expression on the function name.
            "index_expression" => f.child_by_field_name("operand")?,
            "parenthesized_expression" => f.named_child(0)?,
            // Conversions (`[]byte(s)`), calls of call results, func literals: no name.
            _ => return None,
        };
    }
}

/// `Generic[int](x)`: Go's grammar cannot tell an explicitly instantiated generic call from
/// a conversion to an instantiated generic type, and tree-sitter-go parses it as the
/// conversion. Calls are far more common, so it counts as a call of `Generic`.
fn generic_call_name(conversion: Node<'_>, src: &str) -> Option<String> {
    let ty = conversion.child_by_field_name("type")?;
    if ty.kind() != "generic_type" {
        return None;
    }
    let name = ty.child_by_field_name("type")?;
    (name.kind() == "type_identifier").then(|| text(name, src).to_owned())
}

wit_core::export_analyzer!(GoAnalyzer::new());

#[cfg(test)]
mod tests {
    use super::*;

    fn analyze(src: &str) -> Analysis {
        GoAnalyzer.analyze_full(src).unwrap()
    }

    fn edges(a: &Analysis) -> Vec<(&str, &str)> {
        a.calls
            .iter()
            .map(|e| (e.caller.as_str(), e.callee.as_str()))
            .collect()
    }

    const USERS: &str = r#"package users

import (
	"context"
	"errors"
)

// User is a user.
type User struct {
	ID   string
	Name string
}

type Store interface {
	Get(ctx context.Context, id string) (*User, error)
}

type MemStore struct{ users map[string]*User }

func NewMemStore() *MemStore {
	return &MemStore{users: make(map[string]*User)}
}

func (s *MemStore) Get(ctx context.Context, id string) (*User, error) {
	if err := validate(id); err != nil {
		return nil, err
	}
	u, ok := s.users[id]
	if !ok {
		return nil, errors.New("not found")
	}
	return u, nil
}

func validate(id string) error {
	if len(id) == 0 {
		return errors.New("empty id")
	}
	return nil
}
"#;

    #[test]
    fn functions_methods_and_types_with_kinds_and_containers() {
        let a = analyze(USERS);
        let got: Vec<(&str, SymbolKind, Option<&str>)> = a
            .symbols
            .iter()
            .map(|s| (s.name.as_str(), s.kind, s.container.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("User", SymbolKind::Type, None),
                ("Store", SymbolKind::Interface, None),
                ("MemStore", SymbolKind::Type, None),
                ("NewMemStore", SymbolKind::Function, None),
                ("Get", SymbolKind::Method, Some("MemStore")),
                ("validate", SymbolKind::Function, None),
            ]
        );
        let get = a.find("MemStore.Get").unwrap();
        assert_eq!(a.find("Get"), Some(get));
        assert_eq!(
            &USERS[get.start_byte..get.end_byte][..25],
            "func (s *MemStore) Get(ct"
        );
        assert!(USERS[get.start_byte..get.end_byte].ends_with("return u, nil\n}"));
        let line_of = |prefix: &str| USERS.lines().position(|l| l.starts_with(prefix)).unwrap();
        assert_eq!(get.start_line, line_of("func (s *MemStore) Get"));
        assert_eq!(get.end_line, line_of("func validate") - 2);
        let user = a.find("User").unwrap();
        assert!(USERS[user.start_byte..user.end_byte].starts_with("type User struct {"));
        assert_eq!(user.signature, None);
    }

    #[test]
    fn signatures_are_params_and_results_without_the_receiver() {
        let a = analyze(USERS);
        let sig = |n: &str| a.find(n).unwrap().signature.clone().unwrap();
        assert_eq!(
            sig("Get"),
            "(ctx context.Context, id string) (*User, error)"
        );
        assert_eq!(sig("NewMemStore"), "() *MemStore");
        assert_eq!(sig("validate"), "(id string) error");
    }

    #[test]
    fn reformatted_signatures_are_equal() {
        let wrapped = "package p\nfunc F(\n\ta int,\n\tb string,\n) (\n\tint,\n\terror,\n) {\n\treturn 0, nil\n}\n";
        let one_line = "package p\nfunc F(a int, b string) (int, error) { return 0, nil }\n";
        let s1 = analyze(wrapped).symbols[0].signature.clone();
        let s2 = analyze(one_line).symbols[0].signature.clone();
        assert_eq!(s1, s2);
        assert_eq!(s1.as_deref(), Some("(a int, b string) (int, error)"));
    }

    #[test]
    fn generics_pointer_receivers_and_grouped_types() {
        let src = r#"package p

type (
	ID = string
	Stack[T any] struct{ items []T }
	Reader interface{ Read(p []byte) (int, error) }
)

func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

func (s Stack[T]) Len() int { return len(s.items) }

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}
"#;
        let a = analyze(src);
        let got: Vec<(String, SymbolKind)> = a
            .symbols
            .iter()
            .map(|s| (s.qualified_name(), s.kind))
            .collect();
        assert_eq!(
            got,
            vec![
                ("ID".to_owned(), SymbolKind::Type),
                ("Stack".to_owned(), SymbolKind::Type),
                ("Reader".to_owned(), SymbolKind::Interface),
                ("Stack.Push".to_owned(), SymbolKind::Method),
                ("Stack.Len".to_owned(), SymbolKind::Method),
                ("Map".to_owned(), SymbolKind::Function),
            ]
        );
        let id = a.find("ID").unwrap();
        assert_eq!(&src[id.start_byte..id.end_byte], "ID = string");
        assert_eq!(
            a.find("Map").unwrap().signature.as_deref(),
            Some("[T, U any](xs []T, f func(T) U) []U")
        );
        assert_eq!(
            a.find("Stack.Push").unwrap().signature.as_deref(),
            Some("(v T)")
        );
        // `f(x)` is a call of a parameter: it is an edge like any other name.
        assert_eq!(edges(&a), vec![("Map", "f")]);
    }

    #[test]
    fn call_edges_plain_selector_closures_dedup_and_package_level() {
        let src = r#"package p

import "fmt"

var global = setup()

func setup() int { return 1 }

func (s *Server) Handle(req Request) {
	s.log("start")
	go func() {
		process(req)
		fmt.Println("done")
	}()
	defer s.log("end")
	process(req)
	Generic[int](1)
	b := []byte("x")
	_ = string(b)
	_ = Request(b)
}

type Request []byte

func helper() {
	inner := func() { deep() }
	inner()
}
"#;
        let a = analyze(src);
        assert_eq!(
            edges(&a),
            vec![
                ("Server.Handle", "log"),
                ("Server.Handle", "process"),
                ("Server.Handle", "Println"),
                ("Server.Handle", "Generic"),
                ("helper", "deep"),
                ("helper", "inner"),
            ]
        );
        let handle = a.find("Handle").unwrap();
        assert_eq!(
            a.callees_of(handle).collect::<Vec<_>>(),
            ["log", "process", "Println", "Generic"]
        );
    }

    #[test]
    fn a_builtin_name_declared_in_the_file_is_an_edge() {
        let src = "package p\nfunc max(a, b int) int { return a }\nfunc f() { _ = max(1, 2); _ = len(\"x\") }\n";
        assert_eq!(edges(&analyze(src)), vec![("f", "max")]);
    }

    #[test]
    fn broken_and_odd_input_does_not_fail() {
        // Syntax errors: what can be recovered is returned.
        let a = analyze("package p\nfunc ok() { helper() }\nfunc broken( {\n");
        assert_eq!(a.find("ok").unwrap().signature.as_deref(), Some("()"));
        assert!(analyze("").symbols.is_empty());
        // Multi-byte text before a symbol: offsets stay on character boundaries.
        let src = "package p\n// héllo wörld ✓\nfunc Ünïcode() {}\n";
        let s = &analyze(src).symbols[0];
        assert_eq!(&src[s.start_byte..s.end_byte], "func Ünïcode() {}");
        // Deep nesting does not overflow the stack.
        let deep = format!(
            "package p\nfunc f() {{ _ = {}1{} }}\n",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        assert_eq!(analyze(&deep).symbols.len(), 1);
    }

    #[test]
    fn the_exported_table_is_a_valid_plugin() {
        // SAFETY: the table is this crate's own static, built by export_analyzer!.
        let plugin = unsafe { wit_core::PluginAnalyzer::from_table(wit_analyzer_v1()) }.unwrap();
        assert_eq!(plugin.id(), "go");
        assert_eq!(plugin.extensions(), &["go"]);
        assert_eq!(plugin.analyze_full(USERS).unwrap(), analyze(USERS));
    }
}
