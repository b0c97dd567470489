//! Fields of a class whose class is evident, for calls through them: `this.repo.find()`,
//! `self.session_interface.save_session()`.
//!
//! Each becomes a [`ValueClass`] named `Class.field` (the graph looks it up for a
//! receiver `this.field` / `self.field` in a method of `Class` or of a class extending
//! it). What makes a field's class evident, with the rules `locals.rs` applies to locals:
//! - TypeScript/JavaScript: a field declaration's annotation (`repo: Repo`,
//!   `repo: Repo<T>`), else its value `new Repo()`; a constructor's parameter property
//!   (`constructor(private repo: Repo)`); else `this.repo = new Repo()` in a method.
//! - Python: an annotation in the class body or on `self.x` (`x: Repo`, `self.x: Repo = …`,
//!   quoted too), else the value of an assignment in the class body or to `self.x` in a
//!   method, a call of a capitalised (dotted) name (`Repo()`, `db.Repo()`).
//!
//! A field is evident only when what declares it agrees: annotations must name one class,
//! and without one exactly one assignment may give it a value, evident. A second
//! assignment anywhere (`self.repo = other`) makes it unknown: it could hold either. Top-level
//! classes only (as their bases), so a chunk of the incremental engine holds all of it.

use std::collections::BTreeMap;

use tree_sitter::Node;
use wit_core::ValueClass;

use super::evident::{python_class_name, python_unquoted};

/// Longest class or field name kept.
const MAX_NAME: usize = 256;
/// How deep into a method's statements assignments are looked for.
const MAX_DEPTH: usize = 12;

/// What declares one field, in source order.
#[derive(Default)]
struct Field {
    /// Classes annotations name (`None`: an annotation naming no class).
    annotated: Vec<Option<String>>,
    /// Classes assignments give (`None`: a value of no evident class).
    assigned: Vec<Option<String>>,
}

impl Field {
    fn class(self) -> Option<String> {
        if let Some(first) = self.annotated.first() {
            return self
                .annotated
                .iter()
                .all(|a| a == first)
                .then(|| first.clone())
                .flatten();
        }
        match self.assigned.as_slice() {
            [only] => only.clone(),
            _ => None,
        }
    }
}

/// The fields of one class, by name.
#[derive(Default)]
struct Fields(BTreeMap<String, Field>);

impl Fields {
    fn annotated(&mut self, field: &str, class: Option<String>) {
        self.entry(field).annotated.push(class);
    }

    fn assigned(&mut self, field: &str, class: Option<String>) {
        self.entry(field).assigned.push(class);
    }

    fn entry(&mut self, field: &str) -> &mut Field {
        self.0.entry(field.to_owned()).or_default()
    }

    fn into_values(self, class: &str, out: &mut Vec<ValueClass>) {
        for (field, f) in self.0 {
            if let Some(c) = f.class() {
                out.push(ValueClass::new(format!("{class}.{field}"), c));
            }
        }
    }
}

pub(super) fn text<'s>(node: Node, source: &'s str) -> &'s str {
    &source[node.byte_range()]
}

pub(super) fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut walk = node.walk();
    node.named_children(&mut walk).collect()
}

/// A name of sane length and shape (letters, digits, `_`, `$`, `#`).
pub(super) fn name(s: &str) -> Option<&str> {
    let ok = !s.is_empty()
        && s.len() <= MAX_NAME
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '#'));
    ok.then_some(s)
}

/// [`name`], owned.
fn plain(s: &str) -> Option<String> {
    name(s).map(str::to_owned)
}

/// A class's name and body (both languages name the fields so).
fn name_and_body<'t>(class: Node<'t>, source: &str) -> Option<(String, Node<'t>)> {
    let name = plain(text(class.child_by_field_name("name")?, source))?;
    Some((name, class.child_by_field_name("body")?))
}

/// TypeScript/JavaScript: the fields of a class declaration.
pub(crate) fn typescript(class: Node, source: &str, out: &mut Vec<ValueClass>) {
    let Some((name, body)) = name_and_body(class, source) else {
        return;
    };
    let mut fields = Fields::default();
    for member in named_children(body) {
        match member.kind() {
            "public_field_definition" => {
                let Some(field) = member
                    .child_by_field_name("name")
                    .and_then(|n| plain(text(n, source)))
                else {
                    continue;
                };
                if let Some(t) = member.child_by_field_name("type") {
                    fields.annotated(&field, ts_annotation(t, source));
                } else if let Some(v) = member.child_by_field_name("value") {
                    fields.assigned(&field, ts_new(v, source));
                }
            }
            "method_definition" => {
                let is_constructor = member
                    .child_by_field_name("name")
                    .is_some_and(|n| text(n, source) == "constructor");
                if is_constructor && let Some(params) = member.child_by_field_name("parameters") {
                    ts_parameter_properties(params, source, &mut fields);
                }
                if let Some(b) = member.child_by_field_name("body") {
                    let search = Search {
                        me: "this",
                        evident: ts_new,
                        statements: false,
                    };
                    assignments(b, source, &search, &mut fields, 0);
                }
            }
            _ => {}
        }
    }
    fields.into_values(&name, out);
}

/// `constructor(private repo: Repo, readonly log: Log)`: parameters with an accessibility
/// modifier or `readonly` are fields.
fn ts_parameter_properties(params: Node, source: &str, fields: &mut Fields) {
    for p in named_children(params) {
        if !matches!(p.kind(), "required_parameter" | "optional_parameter") {
            continue;
        }
        let property = {
            let mut walk = p.walk();
            p.children(&mut walk)
                .any(|c| c.kind() == "accessibility_modifier" || c.kind() == "readonly")
        };
        if !property {
            continue;
        }
        let Some(field) = p
            .child_by_field_name("pattern")
            .filter(|n| n.kind() == "identifier")
            .and_then(|n| plain(text(n, source)))
        else {
            continue;
        };
        let class = p
            .child_by_field_name("type")
            .and_then(|t| ts_annotation(t, source));
        fields.annotated(&field, class);
    }
}

/// The class a TypeScript type annotation names: `Foo`, `Foo<T>` (unions, arrays,
/// literal and qualified types name none).
fn ts_annotation(annotation: Node, source: &str) -> Option<String> {
    let t = match annotation.kind() {
        "type_annotation" => annotation.named_child(0)?,
        _ => annotation,
    };
    match t.kind() {
        "type_identifier" => plain(text(t, source)),
        "generic_type" => t
            .child_by_field_name("name")
            .filter(|n| n.kind() == "type_identifier")
            .and_then(|n| plain(text(n, source))),
        _ => None,
    }
}

/// `new Foo(…)`: `Foo`.
fn ts_new(value: Node, source: &str) -> Option<String> {
    if value.kind() != "new_expression" {
        return None;
    }
    value
        .child_by_field_name("constructor")
        .filter(|c| c.kind() == "identifier")
        .and_then(|c| plain(text(c, source)))
}

/// Python: the fields of a class definition (its body's assignments, and `self.x` in
/// its methods).
pub(crate) fn python(class: Node, source: &str, out: &mut Vec<ValueClass>) {
    let Some((name, body)) = name_and_body(class, source) else {
        return;
    };
    let mut fields = Fields::default();
    for statement in named_children(body) {
        let def = match statement.kind() {
            "decorated_definition" => statement.child_by_field_name("definition"),
            "function_definition" => Some(statement),
            "expression_statement" => {
                for a in named_children(statement) {
                    if a.kind() == "assignment"
                        && let Some(left) = a.child_by_field_name("left")
                        && left.kind() == "identifier"
                        && let Some(field) = plain(text(left, source))
                    {
                        py_declared(a, &field, source, &mut fields);
                    }
                }
                None
            }
            _ => None,
        };
        let Some(def) = def.filter(|d| d.kind() == "function_definition") else {
            continue;
        };
        // `self` is the first parameter's name, whatever it is called (not in a
        // `@staticmethod`, whose first parameter is anything; a class method's is the
        // class, whose assignments are class attributes: both are rare enough to read
        // alike).
        let Some(me) = def
            .child_by_field_name("parameters")
            .and_then(|p| p.named_child(0))
            .filter(|p| p.kind() == "identifier")
            .map(|p| text(p, source).to_owned())
        else {
            continue;
        };
        if let Some(b) = def.child_by_field_name("body") {
            let search = Search {
                me: &me,
                evident: py_constructed,
                statements: true,
            };
            assignments(b, source, &search, &mut fields, 0);
        }
    }
    fields.into_values(&name, out);
}

/// An assignment declaring `field` (in the class body, or `self.field = …`): its
/// annotation, else its value.
fn py_declared(assignment: Node, field: &str, source: &str, fields: &mut Fields) {
    if let Some(t) = assignment.child_by_field_name("type") {
        fields.annotated(field, py_annotation(t, source));
    } else {
        let value = assignment.child_by_field_name("right");
        fields.assigned(field, value.and_then(|v| py_constructed(v, source)));
    }
}

/// The class a Python annotation names: a capitalised name or dotted name, maybe quoted.
fn py_annotation(annotation: Node, source: &str) -> Option<String> {
    let t = match annotation.kind() {
        "type" => annotation.named_child(0)?,
        _ => annotation,
    };
    let written = match t.kind() {
        "identifier" | "attribute" => text(t, source),
        "string" => python_unquoted(text(t, source))?,
        _ => return None,
    };
    py_class_name(written)
}

/// `Foo(…)`, `mod.Foo(…)`: the class called.
fn py_constructed(value: Node, source: &str) -> Option<String> {
    if value.kind() != "call" {
        return None;
    }
    let f = value.child_by_field_name("function")?;
    matches!(f.kind(), "identifier" | "attribute")
        .then(|| py_class_name(text(f, source)))
        .flatten()
}

/// `written` (whitespace dropped: `a . B`) when it names a class as `locals.rs` reads one
/// ([`python_class_name`]).
fn py_class_name(written: &str) -> Option<String> {
    let compact: String = written.chars().filter(|c| !c.is_whitespace()).collect();
    (compact.len() <= MAX_NAME && python_class_name(&compact)).then_some(compact)
}

/// How a language's method bodies are searched for assignments to `me.field`.
struct Search<'a> {
    /// The instance's name: `this`, or the method's first parameter (`self`).
    me: &'a str,
    /// The class of an assigned value, if evident.
    evident: fn(Node, &str) -> Option<String>,
    /// Whether assignments are statements (Python): then expressions are not entered.
    /// (TypeScript's are expressions, also inside arrows, which keep `this`.)
    statements: bool,
}

/// Whether a node of `kind` inside a method is a scope of its own, where `this`/`self`
/// is not the instance (arrows keep TypeScript's `this`, so they are not).
pub(crate) fn opens_own_scope(kind: &str) -> bool {
    matches!(
        kind,
        "function_definition"
            | "class_definition"
            | "function_declaration"
            | "function_expression"
            | "class_declaration"
            | "class"
            | "lambda"
    )
}

/// Assignments to `me.field` anywhere in a method's statements (not in nested functions
/// or classes, where `me` may be another object): `me.field = …` (TypeScript's `this`,
/// Python's `self`), an annotated one in Python. Any other assignment to `me.field`
/// (augmented, by tuple) counts as one of no evident class.
fn assignments(node: Node, source: &str, search: &Search, fields: &mut Fields, depth: usize) {
    let (me, evident) = (search.me, search.evident);
    if depth > MAX_DEPTH {
        return;
    }
    // A cursor, not a list of children: this walks every statement of every method.
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            kind if opens_own_scope(kind) => continue,
            "assignment"
            | "assignment_expression"
            | "augmented_assignment"
            | "augmented_assignment_expression" => {
                let left = child.child_by_field_name("left");
                // `self.a, self.b = …`: each is assigned something.
                if let Some(l) =
                    left.filter(|l| matches!(l.kind(), "pattern_list" | "tuple_pattern"))
                {
                    for part in named_children(l) {
                        if let Some(field) = member_of(part, me, source) {
                            fields.assigned(field, None);
                        }
                    }
                }
                if let Some(field) = left.and_then(|l| member_of(l, me, source)) {
                    let plain_assignment =
                        matches!(child.kind(), "assignment" | "assignment_expression");
                    if plain_assignment {
                        if child.kind() == "assignment" {
                            py_declared(child, field, source, fields);
                        } else {
                            let value = child.child_by_field_name("right");
                            fields.assigned(field, value.and_then(|v| evident(v, source)));
                        }
                    } else {
                        fields.assigned(field, None);
                    }
                }
                assignments(child, source, search, fields, depth + 1);
            }
            kind if search.statements
                && !(kind == "block"
                    || kind.ends_with("_statement")
                    || kind.ends_with("_clause")) => {}
            _ => assignments(child, source, search, fields, depth + 1),
        }
    }
}

/// `me.field` (TypeScript `member_expression`, Python `attribute`): `field`.
pub(super) fn member_of<'s>(left: Node, me: &str, source: &'s str) -> Option<&'s str> {
    let (object, property) = match left.kind() {
        "member_expression" => (
            left.child_by_field_name("object")?,
            left.child_by_field_name("property")?,
        ),
        "attribute" => (
            left.child_by_field_name("object")?,
            left.child_by_field_name("attribute")?,
        ),
        _ => return None,
    };
    (text(object, source) == me)
        .then(|| name(text(property, source)))
        .flatten()
}
