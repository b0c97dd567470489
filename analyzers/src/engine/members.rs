//! The members of top-level types that the queries do not capture, read from the tree in
//! Rust (as `fields.rs` reads their classes): TypeScript/JavaScript class fields, a
//! constructor's parameter properties and `this.x = …` in methods, interface properties and
//! the properties of an object type alias; Python class attributes and `self.x = …` in
//! methods. The declarative languages capture theirs (`@member`, see `extract.rs`).
//!
//! Each member is reported once, at its first declaration, with its declared type as
//! written (canonical spacing; an optional property `coupon?: T` is `T | undefined`, what
//! a reader gets); a member only assigned (`this.x = 1`, `self.x = None`) has none.

use tree_sitter::Node;
use wit_core::Member;
use wit_core::signature::canonicalize;

use super::fields::{member_of, name as plain, named_children, opens_own_scope, text};

/// How deep into a method's statements assignments are looked for.
const MAX_DEPTH: usize = 12;

fn has_token(node: Node, token: &str) -> bool {
    let mut walk = node.walk();
    node.children(&mut walk)
        .any(|c| !c.is_named() && c.kind() == token)
}

/// The members of one type, each once.
struct Members<'o> {
    container: String,
    out: &'o mut Vec<Member>,
    from: usize,
}

impl<'o> Members<'o> {
    fn new(container: &str, out: &'o mut Vec<Member>) -> Self {
        let from = out.len();
        Members {
            container: container.to_owned(),
            out,
            from,
        }
    }

    /// `name` declared by `node`, of the type `type_text` when stated.
    fn add(&mut self, node: Node, name: &str, type_text: Option<String>) {
        if self.out[self.from..].iter().any(|m| m.name == name) {
            return;
        }
        let mut m = Member::new(
            self.container.clone(),
            name,
            node.start_byte(),
            node.end_byte(),
            node.start_position().row,
        );
        m.type_text = type_text;
        self.out.push(m);
    }
}

/// A TypeScript type annotation's type (`: string` → `string`), canonical; with
/// `optional`, `string | undefined`.
fn ts_type(annotation: Option<Node>, optional: bool, source: &str) -> Option<String> {
    let t = canonicalize(text(annotation?, source).trim_start_matches(':').trim());
    if t.is_empty() {
        return None;
    }
    Some(if optional {
        format!("{t} | undefined")
    } else {
        t
    })
}

/// TypeScript/JavaScript: the members of a top-level class, interface or object type
/// alias (`decl`, an `export`'s declaration or the node itself).
pub(crate) fn typescript(decl: Node, source: &str, out: &mut Vec<Member>) {
    let Some(name) = decl
        .child_by_field_name("name")
        .and_then(|n| plain(text(n, source)))
    else {
        return;
    };
    let mut members = Members::new(name, out);
    match decl.kind() {
        "class_declaration" | "abstract_class_declaration" | "class" => {
            let Some(body) = decl.child_by_field_name("body") else {
                return;
            };
            ts_class(body, source, &mut members);
        }
        "interface_declaration" => {
            if let Some(body) = decl.child_by_field_name("body") {
                ts_properties(body, source, &mut members);
            }
        }
        "type_alias_declaration" => {
            if let Some(value) = decl
                .child_by_field_name("value")
                .filter(|v| v.kind() == "object_type")
            {
                ts_properties(value, source, &mut members);
            }
        }
        _ => {}
    }
}

/// The property signatures of an interface body or an object type.
fn ts_properties(body: Node, source: &str, members: &mut Members) {
    for p in named_children(body) {
        if p.kind() != "property_signature" {
            continue;
        }
        let Some(name) = p
            .child_by_field_name("name")
            .and_then(|n| plain(text(n, source)))
        else {
            continue;
        };
        let ty = ts_type(p.child_by_field_name("type"), has_token(p, "?"), source);
        members.add(p, name, ty);
    }
}

/// A class body: its field declarations, its constructor's parameter properties, then
/// `this.x = …` in its methods.
fn ts_class(body: Node, source: &str, members: &mut Members) {
    let mut methods = Vec::new();
    for m in named_children(body) {
        match m.kind() {
            "public_field_definition" => {
                let Some(name) = m
                    .child_by_field_name("name")
                    .and_then(|n| plain(text(n, source)))
                else {
                    continue;
                };
                let ty = ts_type(m.child_by_field_name("type"), has_token(m, "?"), source);
                members.add(m, name, ty);
            }
            "method_definition" => {
                let is_constructor = m
                    .child_by_field_name("name")
                    .is_some_and(|n| text(n, source) == "constructor");
                if is_constructor && let Some(params) = m.child_by_field_name("parameters") {
                    ts_parameter_properties(params, source, members);
                }
                if let Some(b) = m.child_by_field_name("body") {
                    methods.push(b);
                }
            }
            _ => {}
        }
    }
    for b in methods {
        assigned(b, "this", source, members, 0);
    }
}

/// `constructor(private repo: Repo)`: parameters with an accessibility modifier or
/// `readonly` are members.
fn ts_parameter_properties(params: Node, source: &str, members: &mut Members) {
    for p in named_children(params) {
        if !matches!(p.kind(), "required_parameter" | "optional_parameter") {
            continue;
        }
        let property = {
            let mut walk = p.walk();
            p.children(&mut walk)
                .any(|c| c.kind() == "accessibility_modifier" || c.kind() == "readonly")
        };
        let name = p
            .child_by_field_name("pattern")
            .filter(|n| n.kind() == "identifier")
            .and_then(|n| plain(text(n, source)));
        if let (true, Some(name)) = (property, name) {
            let optional = p.kind() == "optional_parameter";
            members.add(
                p,
                name,
                ts_type(p.child_by_field_name("type"), optional, source),
            );
        }
    }
}

/// Assignments to `me.x` in a method's statements (not in nested functions or classes,
/// where `me` may be another object): each `x` a member of no stated type (Python's
/// annotated `self.x: T = …` states one).
fn assigned(node: Node, me: &str, source: &str, members: &mut Members, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            kind if opens_own_scope(kind) => continue,
            "assignment" | "assignment_expression" => {
                if let Some(left) = child.child_by_field_name("left")
                    && let Some(name) = member_of(left, me, source)
                {
                    let ty = child
                        .child_by_field_name("type")
                        .map(|t| canonicalize(text(t, source)));
                    members.add(child, name, ty);
                }
                assigned(child, me, source, members, depth + 1);
            }
            _ => assigned(child, me, source, members, depth + 1),
        }
    }
}

/// Python: the members of a top-level class: the names its body assigns or annotates
/// (class attributes, dataclass fields), then `self.x = …` in its methods (`self` being
/// each method's first parameter, whatever it is called).
pub(crate) fn python(class: Node, source: &str, out: &mut Vec<Member>) {
    let (Some(name), Some(body)) = (
        class
            .child_by_field_name("name")
            .and_then(|n| plain(text(n, source))),
        class.child_by_field_name("body"),
    ) else {
        return;
    };
    let mut members = Members::new(name, out);
    let mut methods = Vec::new();
    for statement in named_children(body) {
        match statement.kind() {
            "expression_statement" => {
                for a in named_children(statement) {
                    if a.kind() == "assignment"
                        && let Some(left) = a.child_by_field_name("left")
                        && left.kind() == "identifier"
                        && let Some(field) = plain(text(left, source))
                    {
                        let ty = a
                            .child_by_field_name("type")
                            .map(|t| canonicalize(text(t, source)));
                        members.add(a, field, ty);
                    }
                }
            }
            "function_definition" => methods.push(statement),
            "decorated_definition" => {
                if let Some(def) = statement
                    .child_by_field_name("definition")
                    .filter(|d| d.kind() == "function_definition")
                {
                    methods.push(def);
                }
            }
            _ => {}
        }
    }
    for def in methods {
        let me = def
            .child_by_field_name("parameters")
            .and_then(|p| p.named_child(0))
            .filter(|p| p.kind() == "identifier")
            .map(|p| text(p, source).to_owned());
        if let (Some(me), Some(b)) = (me, def.child_by_field_name("body")) {
            assigned(b, &me, source, &mut members, 0);
        }
    }
}
