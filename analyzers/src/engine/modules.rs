//! Imports and exports of one top-level node of a tree, for cross-file resolution.
//!
//! Module structure lives at the top of a file (ESM `import`/`export` may only appear
//! there; `require` and `module.exports` almost always do; Python imports too, sometimes
//! inside a top-level `if`/`try`), so reading them is a walk over the children of one
//! top-level node, per language, in Rust: a few node kinds, no query pass. Being per
//! top-level node, the result is kept with the node's chunk and reused by incremental
//! analysis like its symbols.
//!
//! What is not read: dynamic `import()`, `require` inside functions, Python imports inside
//! functions or classes, `__all__`. Calls through those names stay name-only.

use tree_sitter::Node;
use wit_core::{ClassBase, Export, Import, Member, ValueClass};

use super::{fields, members};

/// The imports and exports found so far, in source order, with what top-level classes
/// extend, their fields of evident class and the members of top-level types
/// (`engine/fields.rs`; positions absolute, made relative to the chunk by its maker).
#[derive(Debug, Clone, Default)]
pub(crate) struct Modules {
    pub(crate) imports: Vec<Import>,
    pub(crate) exports: Vec<Export>,
    pub(crate) bases: Vec<ClassBase>,
    pub(crate) fields: Vec<ValueClass>,
    pub(crate) members: Vec<Member>,
}

/// A language's reader of one top-level node.
pub(crate) type ModulesFn = fn(Node, &str, &mut Modules);

/// Longest module specifier or name kept (longer ones are not real code).
const MAX_NAME: usize = 512;

fn text<'s>(node: Node, source: &'s str) -> &'s str {
    &source[node.byte_range()]
}

fn name(node: Node, source: &str) -> Option<String> {
    let t = text(node, source);
    (!t.is_empty() && t.len() <= MAX_NAME).then(|| t.to_owned())
}

/// The content of a string literal node (`'./a'` → `./a`).
fn string_value(node: Node, source: &str) -> Option<String> {
    if node.kind() != "string" {
        return None;
    }
    let t = text(node, source);
    let inner = t.get(1..t.len().checked_sub(1)?)?;
    (!inner.is_empty() && inner.len() <= MAX_NAME && !inner.contains(['\\', '\n']))
        .then(|| inner.to_owned())
}

fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut walk = node.walk();
    node.named_children(&mut walk).collect()
}

fn has_token(node: Node, token: &str) -> bool {
    let mut walk = node.walk();
    node.children(&mut walk)
        .any(|c| !c.is_named() && c.kind() == token)
}

/// TypeScript and JavaScript: ESM imports and exports, CommonJS `require`,
/// `module.exports` and `exports.x`.
pub(crate) fn typescript(node: Node, source: &str, out: &mut Modules) {
    match node.kind() {
        "import_statement" => ts_import(node, source, out),
        "export_statement" => {
            ts_export(node, source, out);
            if let Some(decl) = node.child_by_field_name("declaration") {
                ts_class(decl, source, out);
                members::typescript(decl, source, &mut out.members);
            }
        }
        "class_declaration" | "abstract_class_declaration" => {
            ts_class(node, source, out);
            members::typescript(node, source, &mut out.members);
        }
        "interface_declaration" | "type_alias_declaration" => {
            members::typescript(node, source, &mut out.members);
        }
        "lexical_declaration" | "variable_declaration" => ts_require(node, source, out),
        "expression_statement" => {
            if let Some(assign) = node.named_child(0)
                && assign.kind() == "assignment_expression"
            {
                cjs_export(assign, source, out);
            }
        }
        _ => {}
    }
}

fn ts_import(node: Node, source: &str, out: &mut Modules) {
    let Some(module) = node
        .child_by_field_name("source")
        .and_then(|s| string_value(s, source))
    else {
        // `import x = require('m')` (TypeScript).
        for child in named_children(node) {
            if child.kind() == "import_require_clause" {
                let local = child.named_child(0).and_then(|n| name(n, source));
                let module = child
                    .child_by_field_name("source")
                    .and_then(|s| string_value(s, source));
                if let (Some(local), Some(module)) = (local, module) {
                    out.imports.push(Import::new(module, None, local));
                }
            }
        }
        return;
    };
    for clause in named_children(node) {
        if clause.kind() != "import_clause" {
            continue;
        }
        for part in named_children(clause) {
            match part.kind() {
                "identifier" => {
                    if let Some(local) = name(part, source) {
                        out.imports.push(Import::new(
                            module.clone(),
                            Some("default".to_owned()),
                            local,
                        ));
                    }
                }
                "namespace_import" => {
                    if let Some(local) = part.named_child(0).and_then(|n| name(n, source)) {
                        out.imports.push(Import::new(module.clone(), None, local));
                    }
                }
                "named_imports" => {
                    for spec in named_children(part) {
                        if spec.kind() != "import_specifier" {
                            continue;
                        }
                        let imported = spec
                            .child_by_field_name("name")
                            .and_then(|n| name(n, source));
                        let alias = spec
                            .child_by_field_name("alias")
                            .and_then(|n| name(n, source));
                        if let Some(imported) = imported {
                            let local = alias.unwrap_or_else(|| imported.clone());
                            out.imports
                                .push(Import::new(module.clone(), Some(imported), local));
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// The names a declaration binds (`function f`, `class C`, `const a = …, b = …`).
fn declared_names(decl: Node, source: &str) -> Vec<String> {
    match decl.kind() {
        "lexical_declaration" | "variable_declaration" => named_children(decl)
            .into_iter()
            .filter(|d| d.kind() == "variable_declarator")
            .filter_map(|d| d.child_by_field_name("name"))
            .filter(|n| n.kind() == "identifier")
            .filter_map(|n| name(n, source))
            .collect(),
        _ => decl
            .child_by_field_name("name")
            .and_then(|n| name(n, source))
            .into_iter()
            .collect(),
    }
}

fn ts_export(node: Node, source: &str, out: &mut Modules) {
    let module = node
        .child_by_field_name("source")
        .and_then(|s| string_value(s, source));
    let default = has_token(node, "default");
    if let Some(decl) = node.child_by_field_name("declaration") {
        for local in declared_names(decl, source) {
            out.exports.push(Export::new(
                if default {
                    "default".to_owned()
                } else {
                    local.clone()
                },
                Some(local),
                None,
            ));
        }
        return;
    }
    if default {
        // `export default foo;`
        if let Some(value) = node.child_by_field_name("value")
            && value.kind() == "identifier"
            && let Some(local) = name(value, source)
        {
            out.exports
                .push(Export::new("default".to_owned(), Some(local), None));
        }
        return;
    }
    let mut listed = false;
    for child in named_children(node) {
        match child.kind() {
            "export_clause" => {
                listed = true;
                for spec in named_children(child) {
                    if spec.kind() != "export_specifier" {
                        continue;
                    }
                    let local = spec
                        .child_by_field_name("name")
                        .and_then(|n| name(n, source));
                    let alias = spec
                        .child_by_field_name("alias")
                        .and_then(|n| name(n, source));
                    if let Some(local) = local {
                        out.exports.push(Export::new(
                            alias.unwrap_or_else(|| local.clone()),
                            Some(local),
                            module.clone(),
                        ));
                    }
                }
            }
            "namespace_export" => {
                listed = true;
                if let Some(ns) = child.named_child(0).and_then(|n| name(n, source)) {
                    out.exports.push(Export::new(ns, None, module.clone()));
                }
            }
            _ => {}
        }
    }
    if !listed && module.is_some() && has_token(node, "*") {
        out.exports.push(Export::new("*".to_owned(), None, module));
    }
}

/// What a class declaration extends (`class A extends B`, `extends mod.B`), and its
/// fields.
fn ts_class(decl: Node, source: &str, out: &mut Modules) {
    if !matches!(
        decl.kind(),
        "class_declaration" | "abstract_class_declaration"
    ) {
        return;
    }
    fields::typescript(decl, source, &mut out.fields);
    let Some(class) = decl
        .child_by_field_name("name")
        .and_then(|n| name(n, source))
    else {
        return;
    };
    for heritage in named_children(decl) {
        if heritage.kind() != "class_heritage" {
            continue;
        }
        for clause in named_children(heritage) {
            if clause.kind() != "extends_clause" {
                continue;
            }
            if let Some(value) = clause.child_by_field_name("value")
                && matches!(value.kind(), "identifier" | "member_expression")
                && let Some(base) = name(value, source)
            {
                out.bases.push(ClassBase::new(class.clone(), base));
            }
        }
    }
}

/// `require('m')` → `m`.
fn require_of(node: Node, source: &str) -> Option<String> {
    if node.kind() != "call_expression" {
        return None;
    }
    let f = node.child_by_field_name("function")?;
    if f.kind() != "identifier" || text(f, source) != "require" {
        return None;
    }
    let args = node.child_by_field_name("arguments")?;
    string_value(args.named_child(0)?, source)
}

fn ts_require(node: Node, source: &str, out: &mut Modules) {
    for decl in named_children(node) {
        if decl.kind() != "variable_declarator" {
            continue;
        }
        let (Some(target), Some(value)) = (
            decl.child_by_field_name("name"),
            decl.child_by_field_name("value"),
        ) else {
            continue;
        };
        // `require('m')` or `require('m').x`.
        let (module, member) = match require_of(value, source) {
            Some(m) => (m, None),
            None if value.kind() == "member_expression" => {
                let Some(m) = value
                    .child_by_field_name("object")
                    .and_then(|o| require_of(o, source))
                else {
                    continue;
                };
                let prop = value
                    .child_by_field_name("property")
                    .and_then(|p| name(p, source));
                (m, prop)
            }
            None => continue,
        };
        match target.kind() {
            "identifier" => {
                if let Some(local) = name(target, source) {
                    out.imports.push(Import::new(module, member, local));
                }
            }
            "object_pattern" if member.is_none() => {
                for part in named_children(target) {
                    let (imported, local) = match part.kind() {
                        "shorthand_property_identifier_pattern" => {
                            (name(part, source), name(part, source))
                        }
                        "pair_pattern" => (
                            part.child_by_field_name("key")
                                .and_then(|k| name(k, source)),
                            part.child_by_field_name("value")
                                .filter(|v| v.kind() == "identifier")
                                .and_then(|v| name(v, source)),
                        ),
                        _ => (None, None),
                    };
                    if let (Some(imported), Some(local)) = (imported, local) {
                        out.imports
                            .push(Import::new(module.clone(), Some(imported), local));
                    }
                }
            }
            _ => {}
        }
    }
}

/// `module.exports = …`, `exports.x = …`, `module.exports.x = …`.
fn cjs_export(assign: Node, source: &str, out: &mut Modules) {
    let (Some(left), Some(right)) = (
        assign.child_by_field_name("left"),
        assign.child_by_field_name("right"),
    ) else {
        return;
    };
    let left_text = text(left, source);
    // `exports = module.exports = createApplication` (express): the inner assignment is
    // the export.
    if left_text == "exports" && right.kind() == "assignment_expression" {
        cjs_export(right, source, out);
        return;
    }
    if left_text == "module.exports" {
        // `module.exports = exports = x`: the value is the last one of the chain.
        let mut right = right;
        while right.kind() == "assignment_expression"
            && let Some(inner) = right.child_by_field_name("right")
        {
            right = inner;
        }
        if let Some(module) = require_of(right, source) {
            out.exports
                .push(Export::new("*".to_owned(), None, Some(module)));
            return;
        }
        match right.kind() {
            "identifier" => {
                out.exports
                    .push(Export::new("default".to_owned(), name(right, source), None))
            }
            "function_expression" | "class" => {
                if let Some(local) = right
                    .child_by_field_name("name")
                    .and_then(|n| name(n, source))
                {
                    out.exports
                        .push(Export::new("default".to_owned(), Some(local), None));
                }
            }
            "object" => {
                for part in named_children(right) {
                    let (exported, local) = match part.kind() {
                        "shorthand_property_identifier" => (name(part, source), name(part, source)),
                        "pair" => {
                            let key = part
                                .child_by_field_name("key")
                                .and_then(|k| name(k, source));
                            let value = part.child_by_field_name("value");
                            let local = match value {
                                Some(v) if v.kind() == "identifier" => name(v, source),
                                // `{ parse() {} }` / `{ parse: () => … }`: the symbol
                                // itself is named `parse`.
                                Some(_) => key.clone(),
                                None => None,
                            };
                            (key, local)
                        }
                        "method_definition" => {
                            let n = part
                                .child_by_field_name("name")
                                .and_then(|n| name(n, source));
                            (n.clone(), n)
                        }
                        _ => (None, None),
                    };
                    if let (Some(exported), Some(local)) = (exported, local) {
                        out.exports.push(Export::new(exported, Some(local), None));
                    }
                }
            }
            _ => {}
        }
        return;
    }
    if left.kind() != "member_expression" {
        return;
    }
    let object = left.child_by_field_name("object").map(|o| text(o, source));
    if !matches!(object, Some("exports" | "module.exports")) {
        return;
    }
    let Some(exported) = left
        .child_by_field_name("property")
        .and_then(|p| name(p, source))
    else {
        return;
    };
    let local = match right.kind() {
        "identifier" => name(right, source),
        _ => Some(exported.clone()),
    };
    out.exports.push(Export::new(exported, local, None));
}

/// Python: `import a.b [as c]`, `from m import a [as b]`, relative imports, also inside a
/// top-level `if`/`try` (compatibility imports).
pub(crate) fn python(node: Node, source: &str, out: &mut Modules) {
    python_at(node, source, out, 0);
}

/// The bases of a Python class definition.
fn python_class_bases(node: Node, source: &str, out: &mut Modules) {
    let class = node
        .child_by_field_name("name")
        .and_then(|n| name(n, source));
    let supers = node.child_by_field_name("superclasses");
    if let (Some(class), Some(supers)) = (class, supers) {
        for base in named_children(supers) {
            // `Generic[T]`, `ProxyMixin[Flask]`: the generic class itself.
            let base = match base.kind() {
                "subscript" => match base.child_by_field_name("value") {
                    Some(v) => v,
                    None => continue,
                },
                _ => base,
            };
            if matches!(base.kind(), "identifier" | "attribute")
                && let Some(base) = name(base, source)
            {
                out.bases.push(ClassBase::new(class.clone(), base));
            }
        }
    }
}

/// The bases of classes defined inside a function or class body (a test's local
/// `class Index(View)`), a few levels deep; imports there stay out (they are local to
/// the function).
fn python_nested_bases(node: Node, source: &str, out: &mut Modules, depth: usize) {
    if depth > 4 {
        return;
    }
    match node.kind() {
        "class_definition" => {
            python_class_bases(node, source, out);
            if let Some(body) = node.child_by_field_name("body") {
                python_nested_bases(body, source, out, depth + 1);
            }
        }
        "function_definition" => {
            if let Some(body) = node.child_by_field_name("body") {
                python_nested_bases(body, source, out, depth + 1);
            }
        }
        "decorated_definition" => {
            if let Some(def) = node.child_by_field_name("definition") {
                python_nested_bases(def, source, out, depth);
            }
        }
        "block" => {
            for child in named_children(node) {
                if matches!(
                    child.kind(),
                    "class_definition" | "function_definition" | "decorated_definition"
                ) {
                    python_nested_bases(child, source, out, depth);
                }
            }
        }
        _ => {}
    }
}

fn python_at(node: Node, source: &str, out: &mut Modules, depth: usize) {
    match node.kind() {
        "class_definition" => {
            python_class_bases(node, source, out);
            fields::python(node, source, &mut out.fields);
            members::python(node, source, &mut out.members);
            if let Some(body) = node.child_by_field_name("body") {
                python_nested_bases(body, source, out, 1);
            }
        }
        "function_definition" => {
            if let Some(body) = node.child_by_field_name("body") {
                python_nested_bases(body, source, out, 1);
            }
        }
        "decorated_definition" => {
            if let Some(def) = node.child_by_field_name("definition") {
                python_at(def, source, out, depth);
            }
        }
        "import_statement" => {
            for part in named_children(node) {
                match part.kind() {
                    "dotted_name" => {
                        if let Some(module) = name(part, source) {
                            out.imports.push(Import::new(module.clone(), None, module));
                        }
                    }
                    "aliased_import" => {
                        let module = part
                            .child_by_field_name("name")
                            .and_then(|n| name(n, source));
                        let alias = part
                            .child_by_field_name("alias")
                            .and_then(|n| name(n, source));
                        if let (Some(module), Some(local)) = (module, alias) {
                            out.imports.push(Import::new(module, None, local));
                        }
                    }
                    _ => {}
                }
            }
        }
        "import_from_statement" => {
            let Some(module_node) = node.child_by_field_name("module_name") else {
                return;
            };
            let Some(module) = name(module_node, source) else {
                return;
            };
            for part in named_children(node) {
                if part.id() == module_node.id() {
                    continue;
                }
                let (imported, local) = match part.kind() {
                    "dotted_name" => (name(part, source), name(part, source)),
                    "aliased_import" => (
                        part.child_by_field_name("name")
                            .and_then(|n| name(n, source)),
                        part.child_by_field_name("alias")
                            .and_then(|n| name(n, source)),
                    ),
                    "wildcard_import" => (Some("*".to_owned()), Some("*".to_owned())),
                    _ => (None, None),
                };
                if let (Some(imported), Some(local)) = (imported, local) {
                    out.imports
                        .push(Import::new(module.clone(), Some(imported), local));
                }
            }
        }
        "if_statement" | "try_statement" | "block" | "else_clause" | "elif_clause"
        | "except_clause" | "finally_clause"
            if depth < 4 =>
        {
            for child in named_children(node) {
                python_at(child, source, out, depth + 1);
            }
        }
        _ => {}
    }
}
