//! `syn`, the parser of Rust's procedural macros, as the oracle for Rust: definitions and
//! within-file call edges from a [`syn::visit::Visit`] over each file's syntax tree.
//!
//! What is a definition, and its container, follows wit's documented model, not
//! tree-sitter's: a `fn` in an `impl X` or `trait X` block is a method of `X` (the last
//! path segment of the `impl`'s self type, through references, so `impl Tr for &'a X` is
//! `X`'s); every other `fn`, nested ones included, is a function; structs, enums, unions
//! and type aliases are types, traits interfaces, and an associated type (`type Item`
//! in an `impl X` or `trait X`) is a type of container `X`. Nothing else (constants,
//! statics, modules, macros) is a definition.
//!
//! A call edge goes from the innermost enclosing `fn` (`X.name` for methods) to the
//! called name: the last segment of a path callee (`f()`, `Type::f()`, `Some(x)`: a
//! tuple struct or variant constructor is a call to syn and to tree-sitter alike), or a
//! method call's name. Calls inside closures belong to the `fn` around them; calls outside
//! any `fn` (a `const` initializer in an `impl`) have no caller. Macro arguments are
//! tokens to both parsers, so calls written inside `format!(…)` count on neither side.
//! syn's spans carry no line numbers without proc-macro2's `span-locations` feature,
//! which is not worth a dependency here: the report's Rust lines read 0.

use std::collections::BTreeSet;

use syn::visit::{self, Visit};

use crate::score::{Def, Edge};
use crate::sources::SourceFile;

/// The oracle's definitions and call edges of every file.
pub fn oracle(files: &[SourceFile]) -> Result<(Vec<Def>, BTreeSet<Edge>), String> {
    let mut defs = Vec::new();
    let mut edges = BTreeSet::new();
    for file in files {
        let tree = syn::parse_file(&file.text)
            .map_err(|e| format!("syn cannot parse {}: {e}", file.rel))?;
        let mut collector = Collector {
            file: &file.rel,
            defs: &mut defs,
            edges: &mut edges,
            container: None,
            caller: None,
        };
        collector.visit_file(&tree);
    }
    Ok((defs, edges))
}

struct Collector<'a> {
    file: &'a str,
    defs: &'a mut Vec<Def>,
    edges: &'a mut BTreeSet<Edge>,
    /// The type or trait whose `impl` or `trait` block is being visited.
    container: Option<String>,
    /// The qualified name of the innermost `fn` being visited.
    caller: Option<String>,
}

impl Collector<'_> {
    fn define(&mut self, name: &syn::Ident, kind: &str, container: Option<String>) {
        self.defs.push(Def {
            file: self.file.to_owned(),
            name: name.to_string(),
            container,
            kind: kind.to_owned(),
            line: 0,
            end_line: 0,
        });
    }

    /// Visits a function's body with `caller` as the caller and no container around.
    fn in_fn(&mut self, caller: String, visit: impl FnOnce(&mut Self)) {
        let caller = self.caller.replace(caller);
        let container = self.container.take();
        visit(self);
        self.caller = caller;
        self.container = container;
    }

    /// Visits an `impl` or `trait` block's items with `container` around them.
    fn in_block(&mut self, container: Option<String>, visit: impl FnOnce(&mut Self)) {
        let outer = std::mem::replace(&mut self.container, container);
        visit(self);
        self.container = outer;
    }

    /// A method `name` of the current container.
    fn method(&mut self, name: &syn::Ident, visit: impl FnOnce(&mut Self)) {
        let container = self.container.clone();
        let caller = match &container {
            Some(c) => format!("{c}.{name}"),
            None => name.to_string(),
        };
        self.define(name, "method", container);
        self.in_fn(caller, visit);
    }

    fn call(&mut self, callee: &syn::Ident) {
        if let Some(caller) = &self.caller {
            self.edges.insert(Edge {
                file: self.file.to_owned(),
                caller: caller.clone(),
                callee: callee.to_string(),
            });
        }
    }
}

/// The name of an `impl` block's self type: its path's last segment, through references,
/// parentheses and groups; `None` for tuples, slices, trait objects and the like (wit
/// names those as written, `[u8]`; `toml_edit` has no such `impl`, so the difference
/// never shows here, and a change of sample that brings one shows it as a miss).
fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => type_name(&r.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        syn::Type::Group(g) => type_name(&g.elem),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_fn(&mut self, i: &'ast syn::ItemFn) {
        self.define(&i.sig.ident, "function", None);
        self.in_fn(i.sig.ident.to_string(), |s| visit::visit_item_fn(s, i));
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        self.in_block(type_name(&i.self_ty), |s| visit::visit_item_impl(s, i));
    }

    fn visit_impl_item_fn(&mut self, i: &'ast syn::ImplItemFn) {
        self.method(&i.sig.ident, |s| visit::visit_impl_item_fn(s, i));
    }

    fn visit_item_trait(&mut self, i: &'ast syn::ItemTrait) {
        self.define(&i.ident, "interface", None);
        self.in_block(Some(i.ident.to_string()), |s| visit::visit_item_trait(s, i));
    }

    fn visit_trait_item_fn(&mut self, i: &'ast syn::TraitItemFn) {
        self.method(&i.sig.ident, |s| visit::visit_trait_item_fn(s, i));
    }

    fn visit_item_struct(&mut self, i: &'ast syn::ItemStruct) {
        self.define(&i.ident, "type", None);
        visit::visit_item_struct(self, i);
    }

    fn visit_item_enum(&mut self, i: &'ast syn::ItemEnum) {
        self.define(&i.ident, "type", None);
        visit::visit_item_enum(self, i);
    }

    fn visit_item_union(&mut self, i: &'ast syn::ItemUnion) {
        self.define(&i.ident, "type", None);
        visit::visit_item_union(self, i);
    }

    fn visit_item_type(&mut self, i: &'ast syn::ItemType) {
        self.define(&i.ident, "type", None);
        visit::visit_item_type(self, i);
    }

    fn visit_impl_item_type(&mut self, i: &'ast syn::ImplItemType) {
        self.define(&i.ident, "type", self.container.clone());
        visit::visit_impl_item_type(self, i);
    }

    fn visit_trait_item_type(&mut self, i: &'ast syn::TraitItemType) {
        self.define(&i.ident, "type", self.container.clone());
        visit::visit_trait_item_type(self, i);
    }

    fn visit_expr_call(&mut self, i: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*i.func
            && let Some(last) = p.path.segments.last()
        {
            self.call(&last.ident);
        }
        visit::visit_expr_call(self, i);
    }

    fn visit_expr_method_call(&mut self, i: &'ast syn::ExprMethodCall) {
        self.call(&i.method);
        visit::visit_expr_method_call(self, i);
    }
}
