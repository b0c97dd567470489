//! The declarative languages (issue 24): Java, Go, Rust and C# from a grammar crate and a
//! `tags.scm`, and a language loaded at run time from query files, broken ones included.

use wit_analyzers::declarative::{self, Language, LanguageSpec, QueryFile};
use wit_core::LanguageAnalyzer;

use crate::common::{analyze, callees, outline, signature, symbol, text};

fn owned(v: &[(&str, &str)]) -> Vec<(&'static str, String)> {
    v.iter()
        .map(|(k, n)| {
            let kind = match *k {
                "function" => "function",
                "method" => "method",
                "class" => "class",
                "interface" => "interface",
                _ => "type",
            };
            (kind, (*n).to_owned())
        })
        .collect()
}

const JAVA: &str = r#"package com.acme.shop;

import java.util.List;
import com.acme.tax.Rates;

/** A shop. */
public class Shop {
    private final Repo repo;

    public Shop(Repo repo) {
        this.repo = repo;
    }

    public <T> Order checkout(String sku,
                              int qty) throws Exception {
        validate(sku);
        Item item = repo.find(sku);
        return new Order(item, Rates.price(qty));
    }

    private void validate(String sku) { }

    static class Cart {
        void add(Item item) { helper(); }
    }

    interface Listener { void onOrder(Order o); }

    enum State { OPEN, CLOSED; boolean isOpen() { return this == OPEN; } }
}

record Point(int x, int y) { }
"#;

#[test]
fn java_definitions_have_containers_and_signatures() {
    let a = analyze("src/Shop.java", JAVA);
    assert_eq!(
        outline(&a),
        owned(&[
            ("class", "Shop"),
            ("method", "Shop.Shop"),
            ("method", "Shop.checkout"),
            ("method", "Shop.validate"),
            ("class", "Shop.Cart"),
            ("method", "Cart.add"),
            ("interface", "Shop.Listener"),
            ("method", "Listener.onOrder"),
            ("type", "Shop.State"),
            ("method", "State.isOpen"),
            ("type", "Point"),
        ])
    );
    assert_eq!(signature(&a, "checkout"), "<T>(String sku, int qty): Order");
    assert_eq!(signature(&a, "Shop.Shop"), "(Repo repo)");
    assert_eq!(signature(&a, "validate"), "(String sku): void");
    assert!(text(&a, JAVA, "checkout").starts_with("public <T> Order checkout("));
    assert_eq!(callees(&a, "Shop.checkout"), ["validate", "find", "price"]);
    // `repo` is the field `private final Repo repo`: its declaration states its type.
    let find = a.call_sites.iter().find(|s| s.callee == "find").unwrap();
    assert_eq!(find.receiver.as_deref(), Some("new:Repo"));
    assert_eq!(callees(&a, "Cart.add"), ["helper"]);
    let modules: Vec<(&str, &str)> = a
        .imports
        .iter()
        .map(|i| (i.module.as_str(), i.local.as_str()))
        .collect();
    assert_eq!(
        modules,
        [("java.util.List", "List"), ("com.acme.tax.Rates", "Rates")]
    );
    let exports: Vec<&str> = a.exports.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(exports, ["Shop"]);
}

const GO: &str = r#"package shop

import (
	"fmt"
	tax "example.com/acme/tax"
)

type Store interface {
	Get(id string) (*Item, error)
}

type MemStore struct{ items map[string]*Item }

type ID = string

func (s *MemStore) Get(id string) (*Item, error) {
	validate(id)
	return s.lookup(id), nil
}

func Price[T any](n int, rate float64) float64 {
	fmt.Println(n)
	return tax.Apply(float64(n) * rate)
}

func validate(id string) error { return nil }
"#;

#[test]
fn go_definitions_have_receivers_as_containers() {
    let a = analyze("shop/store.go", GO);
    assert_eq!(
        outline(&a),
        owned(&[
            ("interface", "Store"),
            ("type", "MemStore"),
            ("type", "ID"),
            ("method", "MemStore.Get"),
            ("function", "Price"),
            ("function", "validate"),
        ])
    );
    assert_eq!(signature(&a, "MemStore.Get"), "(id string) (*Item, error)");
    assert_eq!(
        signature(&a, "Price"),
        "[T any](n int, rate float64) float64"
    );
    assert_eq!(signature(&a, "validate"), "(id string) error");
    assert!(text(&a, GO, "MemStore.Get").starts_with("func (s *MemStore) Get("));
    assert_eq!(callees(&a, "MemStore.Get"), ["validate", "lookup"]);
    // `float64(n)` converts: no call (issue 32).
    assert_eq!(callees(&a, "Price"), ["Println", "Apply"]);
    let sites: Vec<(&str, Option<&str>)> = a
        .call_sites
        .iter()
        .map(|s| (s.callee.as_str(), s.receiver.as_deref()))
        .collect();
    assert!(sites.contains(&("Apply", Some("tax"))), "{sites:?}");
    let imports: Vec<(&str, &str)> = a
        .imports
        .iter()
        .map(|i| (i.module.as_str(), i.local.as_str()))
        .collect();
    assert_eq!(imports, [("fmt", "fmt"), ("example.com/acme/tax", "tax")]);
    let exports: Vec<&str> = a.exports.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(exports, ["Store", "MemStore", "ID", "Price"]);
}

const RUST: &str = r#"use crate::store::Repo;
use std::fmt::{self, Display};

pub struct Shop<R> { repo: R }

pub trait Priced {
    fn price(&self, qty: u32) -> u64;
    fn total(&self) -> u64 { self.price(1) }
}

impl<R: Repo> Shop<R> {
    pub fn checkout<T>(&self, sku: &str,
                       qty: u32,) -> Result<T, Error> {
        validate(sku);
        let item = self.repo.find(sku);
        Order::new(item, qty)
    }
}

impl Display for Shop<u8> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { Ok(()) }
}

fn validate(sku: &str) {
    fn inner() {}
    inner();
}

enum State { Open, Closed }
type Id = u64;

mod tests {
    fn helper() {}
}
"#;

#[test]
fn rust_impl_and_trait_functions_are_methods() {
    let a = analyze("src/shop.rs", RUST);
    assert_eq!(
        outline(&a),
        owned(&[
            ("type", "Shop"),
            ("interface", "Priced"),
            ("method", "Priced.price"),
            ("method", "Priced.total"),
            ("method", "Shop.checkout"),
            ("method", "Shop.fmt"),
            ("function", "validate"),
            ("function", "inner"),
            ("type", "State"),
            ("type", "Id"),
            ("function", "helper"),
        ])
    );
    assert_eq!(
        signature(&a, "checkout"),
        "<T>(&self, sku: &str, qty: u32) -> Result<T, Error>"
    );
    assert_eq!(signature(&a, "Priced.price"), "(&self, qty: u32) -> u64");
    assert_eq!(signature(&a, "validate"), "(sku: &str)");
    assert_eq!(callees(&a, "Shop.checkout"), ["validate", "find", "new"]);
    assert_eq!(callees(&a, "Priced.total"), ["price"]);
    assert_eq!(callees(&a, "validate"), ["inner"]);
    let new = a.call_sites.iter().find(|s| s.callee == "new").unwrap();
    assert_eq!(new.receiver.as_deref(), Some("Order"));
    let find = a.call_sites.iter().find(|s| s.callee == "find").unwrap();
    assert_eq!(find.receiver.as_deref(), Some("self.repo"));
    let imports: Vec<&str> = a.imports.iter().map(|i| i.module.as_str()).collect();
    assert_eq!(imports, ["crate::store::Repo"]);
}

/// Found by the oracle test (tests/oracle) on `toml_edit`: `impl` blocks for a reference
/// or a primitive type, and associated types.
const RUST_IMPLS: &str = r#"pub struct Array;

impl<'a> IntoIterator for &'a Array {
    type Item = &'a Value;
    fn into_iter(self) -> Iter<'a> { self.iter() }
}

impl Repr for u64 {
    fn repr(&self) -> String { format(self) }
}

pub trait Parse {
    type Error;
    fn parse(s: &str) -> Result<Self, Self::Error>;
}

type Id = u64;
"#;

#[test]
fn rust_impls_name_their_type_through_references_and_own_their_associated_types() {
    let a = analyze("src/array.rs", RUST_IMPLS);
    assert_eq!(
        outline(&a),
        owned(&[
            ("type", "Array"),
            ("type", "Array.Item"),
            ("method", "Array.into_iter"),
            ("method", "u64.repr"),
            ("interface", "Parse"),
            ("type", "Parse.Error"),
            ("method", "Parse.parse"),
            ("type", "Id"),
        ])
    );
    assert_eq!(callees(&a, "Array.into_iter"), ["iter"]);
}

const RUST_IMPLS_FOR_NON_PATHS: &str = r#"
impl Hex for [u8] {
    fn to_hex(&self) -> String { hex(self) }
}
impl<'a> Hex for &'a [u16] { fn to_hex(&self) -> String { String::new() } }
impl Sum for [u8; 4] { fn sum(&self) -> u32 { 0 } }
impl<A, B> Swap for (A,
                     B) {
    fn swap(self) -> (B, A) { (self.1, self.0) }
}
impl<T> Raw for *const T { fn raw(self) -> usize { 0 } }
impl dyn Any { fn is_it(&self) -> bool { true } }
impl Unit for () { fn unit() {} }
fn hex(b: &[u8]) -> String { String::new() }
"#;

/// Issue 32: methods of `impl … for [u8]` (slices, arrays, tuples, pointers, trait
/// objects, references to them) had no container. Each is named after the type as
/// written, whitespace collapsed: `[u8].to_hex`, `(A, B).swap`.
#[test]
fn rust_impls_for_slices_arrays_tuples_and_references_give_their_methods_a_container() {
    let a = analyze("src/hex.rs", RUST_IMPLS_FOR_NON_PATHS);
    assert_eq!(
        outline(&a),
        owned(&[
            ("method", "[u8].to_hex"),
            ("method", "[u16].to_hex"),
            ("method", "[u8; 4].sum"),
            ("method", "(A, B).swap"),
            ("method", "*const T.raw"),
            ("method", "dyn Any.is_it"),
            ("method", "().unit"),
            ("function", "hex"),
        ])
    );
    // Addressable by the qualified name, and their calls belong to them.
    assert!(a.find("[u8].to_hex").is_some_and(|s| s.name == "to_hex"));
    assert_eq!(callees(&a, "[u8].to_hex"), ["hex"]);
}

const JAVA_ANNOTATION: &str = r#"package com.acme;

public @interface Since {
    double value();
    String[] alternate() default {};
}
"#;

/// Found by the oracle test on Gson: an annotation type's elements are its methods.
#[test]
fn java_annotation_elements_are_methods() {
    let a = analyze("src/Since.java", JAVA_ANNOTATION);
    assert_eq!(
        outline(&a),
        owned(&[
            ("type", "Since"),
            ("method", "Since.value"),
            ("method", "Since.alternate"),
        ])
    );
    assert_eq!(signature(&a, "Since.alternate"), "(): String[]");
}

const CSHARP: &str = r#"using System;
using Acme.Tax;

namespace Acme.Shop
{
    public class Shop
    {
        private readonly IRepo repo;

        public Shop(IRepo repo) { this.repo = repo; }

        public Order Checkout<T>(string sku, int qty)
        {
            Validate(sku);
            var item = repo.Find(sku);
            return new Order(item, Rates.Price(qty));
        }

        private void Validate(string sku)
        {
            int Local(int x) => x;
            Local(1);
        }

        public struct Line { public int Qty() { return 1; } }
    }

    public interface IRepo { Item Find(string sku); }

    enum State { Open, Closed }

    record Point(int X, int Y);
}
"#;

#[test]
fn csharp_definitions_have_containers_and_signatures() {
    let a = analyze("src/Shop.cs", CSHARP);
    assert_eq!(
        outline(&a),
        owned(&[
            ("class", "Shop"),
            ("method", "Shop.Shop"),
            ("method", "Shop.Checkout"),
            ("method", "Shop.Validate"),
            ("function", "Local"),
            ("type", "Shop.Line"),
            ("method", "Line.Qty"),
            ("interface", "IRepo"),
            ("method", "IRepo.Find"),
            ("type", "State"),
            ("type", "Point"),
        ])
    );
    assert_eq!(signature(&a, "Checkout"), "<T>(string sku, int qty): Order");
    assert_eq!(signature(&a, "IRepo.Find"), "(string sku): Item");
    assert_eq!(callees(&a, "Shop.Checkout"), ["Validate", "Find", "Price"]);
    assert_eq!(callees(&a, "Shop.Validate"), ["Local"]);
    let imports: Vec<&str> = a.imports.iter().map(|i| i.module.as_str()).collect();
    assert_eq!(imports, ["System", "Acme.Tax"]);
}

/// A language from query files at run time, as `wit.toml` gives one: here the Go grammar
/// with a query of its own (only functions, and calls), to show that nothing of the
/// built-in Go is used but the grammar.
fn runtime_spec(queries: Vec<QueryFile>) -> LanguageSpec {
    LanguageSpec {
        id: "mini-go".to_owned(),
        extensions: vec!["mgo".to_owned()],
        language: Language::new(tree_sitter_go::LANGUAGE),
        queries,
        return_separator: " ".to_owned(),
        contain_all_kinds: false,
    }
}

const MINI_QUERY: &str = r#"
(function_declaration
  name: (identifier) @name
  result: (_)? @signature.return) @definition.function @callable

(call_expression
  function: (identifier) @name) @reference.call
"#;

#[test]
fn a_language_loaded_from_query_files_analyses_like_a_built_in() {
    let analyzer = declarative::load(runtime_spec(vec![QueryFile {
        name: "mini.scm".to_owned(),
        text: MINI_QUERY.to_owned(),
    }]))
    .expect("the query compiles");
    assert_eq!(analyzer.id(), "mini-go");
    assert_eq!(analyzer.extensions(), ["mgo"]);
    let source = "package p\n\nfunc price(n int) int { return n }\n\nfunc total() int {\n\treturn price(2)\n}\n";
    let a = analyzer.analyze_full(source).expect("parses");
    assert_eq!(
        outline(&a),
        owned(&[("function", "price"), ("function", "total")])
    );
    assert_eq!(signature(&a, "price"), "(n int) int");
    assert_eq!(callees(&a, "total"), ["price"]);
    assert_eq!(
        text(&a, source, "price"),
        "func price(n int) int { return n }"
    );
    assert_eq!(
        symbol(&a, "total").start_byte,
        source.find("func total").unwrap()
    );
}

#[test]
fn a_broken_query_file_is_an_error_naming_file_line_and_column() {
    let broken = "(function_declaration\n  name: (identifier) @name) @definition.function\n\n(call_expression (nosuchnode) @name) @reference.call\n";
    let err = declarative::load(runtime_spec(vec![
        QueryFile {
            name: "good.scm".to_owned(),
            text: MINI_QUERY.to_owned(),
        },
        QueryFile {
            name: "broken.scm".to_owned(),
            text: broken.to_owned(),
        },
    ]))
    .err()
    .expect("the broken query is refused");
    assert!(err.contains("broken.scm:4:19:"), "{err}");
    assert!(err.contains("nosuchnode"), "{err}");
}

#[test]
fn a_capture_wit_does_not_know_is_an_error_where_it_is_written() {
    let query = "(function_declaration\n  name: (identifier) @name) @definition.gadget\n";
    let err = declarative::load(runtime_spec(vec![QueryFile {
        name: "kinds.scm".to_owned(),
        text: query.to_owned(),
    }]))
    .err()
    .expect("an unknown definition kind is refused");
    assert!(err.contains("kinds.scm:2:29:"), "{err}");
    assert!(err.contains("definition.gadget"), "{err}");
}

#[test]
fn no_query_files_is_an_error() {
    let err = declarative::load(runtime_spec(Vec::new()))
        .err()
        .expect("refused");
    assert!(err.contains("no query files"), "{err}");
}

const JAVA_NESTED: &str = r#"package java.util;

public class ArrayList<E> extends AbstractList<E> implements List<E>, RandomAccess {
    private final Object[] elementData = {};
    private AbstractList<E> root;
    public Iterator<E> iterator() {
        return new Iterator<E>() {
            public boolean hasNext() { return root.size() > 0; }
        };
    }
    private static class SubList<E> extends AbstractList<E> {
        void add(int index, E e) {
            Node<E, ?> n = first;
            for (Map.Entry<K, V> entry : map.entrySet()) { entry.getKey(); }
            n.link(index, 'c', "s", 2L, null, (E[]) elementData, new Node<>(), elementData);
            this.root.add(index, e);
            list -> list.clear();
        }
    }
}

enum Op {
    PLUS { int apply(int a) { return a; } };
    abstract int apply(int a);
}
"#;

/// Issue 32: the type bodies a Java file reports for the code graph's rules: each with
/// its name (none for an anonymous class or an enum constant's body, whose methods have
/// no container), the class it extends and the interfaces it implements.
#[test]
fn java_type_bodies_carry_their_supertypes_and_enum_constant_bodies_are_anonymous() {
    let a = analyze("src/java/util/ArrayList.java", JAVA_NESTED);
    let bodies: Vec<(Option<&str>, Option<&str>, Vec<&str>)> = a
        .bodies
        .iter()
        .map(|b| {
            (
                b.name.as_deref(),
                b.superclass.as_deref(),
                b.bases.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        bodies,
        [
            (
                Some("ArrayList"),
                Some("AbstractList"),
                vec!["List", "RandomAccess"]
            ),
            (None, None, vec!["Iterator"]),
            (Some("SubList"), Some("AbstractList"), vec![]),
            (Some("Op"), None, vec![]),
            (None, Some("Op"), vec![]),
        ]
    );
    let apply: Vec<Option<&str>> = a
        .symbols
        .iter()
        .filter(|s| s.name == "apply")
        .map(|s| s.container.as_deref())
        .collect();
    assert_eq!(
        apply,
        [None, Some("Op")],
        "the constant's method is the anonymous body's"
    );
}

/// Issue 32: a call on a variable whose declaration states its type names the type
/// (`new:Type`, type arguments dropped): a local, a for-each variable, a field (also as
/// `this.root`); a lambda's parameter says nothing (`""`). The call's argument types
/// are read as far as the syntax shows them, for the graph's choice among overloads.
#[test]
fn java_receivers_and_arguments_of_declared_type() {
    let a = analyze("src/java/util/ArrayList.java", JAVA_NESTED);
    let site = |callee: &str| {
        a.call_sites
            .iter()
            .find(|s| s.callee == callee)
            .unwrap_or_else(|| panic!("no call of {callee}: {:?}", a.call_sites))
    };
    assert_eq!(site("size").receiver.as_deref(), Some("new:AbstractList"));
    assert_eq!(site("getKey").receiver.as_deref(), Some("new:Map.Entry"));
    assert_eq!(site("link").receiver.as_deref(), Some("new:Node"));
    assert_eq!(site("add").receiver.as_deref(), Some("new:AbstractList"));
    assert_eq!(site("clear").receiver.as_deref(), Some(""));
    assert_eq!(
        site("link").arguments.as_deref(),
        Some("int, char, String, long, null, E[], Node, Object[]")
    );
    assert_eq!(site("size").arguments.as_deref(), Some(""));
}

const GO_TYPED: &str = r#"package gin

func (c *Context) Next() {
	c.reset()
	var w ResponseWriter
	w.WriteHeader(200)
	p := &Params{}
	p.Get("a")
	h := handlers[0]
	h(c)
	_ = getTyped[bool](c, "k")
	_ = binding.Default[int, string](c)
	_ = string(c.b)
	_ = T2(c)
}

func use(e *render.JSON, items []Item) { e.Render(); items.Len() }
"#;

/// Issue 32: Go receivers of declared type (a method's receiver, `var w T`, `p :=
/// &T{…}`, a parameter `*render.JSON`) name it; a local called as a function (`h(c)`) is
/// no function of the package; calls with explicit type arguments are calls; a
/// conversion to a predeclared type is none.
#[test]
fn go_receivers_of_declared_type_generic_calls_and_no_predeclared_conversions() {
    let a = analyze("context.go", GO_TYPED);
    let sites: Vec<(&str, Option<&str>)> = a
        .call_sites
        .iter()
        .map(|s| (s.callee.as_str(), s.receiver.as_deref()))
        .collect();
    assert_eq!(
        sites,
        [
            ("reset", Some("new:Context")),
            ("WriteHeader", Some("new:ResponseWriter")),
            ("Get", Some("new:Params")),
            ("h", Some("")),
            ("getTyped", None),
            ("Default", Some("binding")),
            ("T2", None),
            ("Render", Some("new:render.JSON")),
            ("Len", Some("")),
        ]
    );
}
