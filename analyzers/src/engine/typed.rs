//! Calls on a variable whose declaration states its type, in statically typed languages.
//!
//! `Node<K,V> e = first; e.getKey()` (Java), `func (c *Context) Next() { c.reset() }`
//! (Go): the receiver names a variable, and its declaration says what it is, so the call
//! site's receiver becomes `new:Node` (`new:Context`), which the code graph resolves as it
//! resolves `new Node().getKey()`: to the method of that type. The queries capture (see
//! `java/tags.scm`, `go/tags.scm`):
//!
//! | capture | meaning |
//! |---|---|
//! | `@typed.scope` | a node whose locals are its own: a block, a method, a lambda, a `for`, a `catch` |
//! | `@typed.local` + `@typed.name` (+ `@typed.type`) | a declaration of a local or parameter, visible from its start to the end of the innermost scope around it; without a type (a lambda's parameter, `var`), a variable of unknown type |
//! | `@typed.field` + `@typed.name` + `@typed.type` | a field, visible in the whole innermost type body around it (`@container.body`), nested types' bodies included |
//!
//! A bare name (`e.getKey()`) is looked up among the locals first (the innermost scope
//! declaring it before the call), then among the fields of the type bodies around the
//! call, innermost first; `this.map.get()` among the fields only. A variable whose type
//! is a primitive, an array, a map or a slice, or unknown, makes the receiver `""`, as
//! any other expression: nothing named so elsewhere (a class, an import) is what it
//! holds. A name declared nowhere around (a class `Collections.sort()`, a package
//! `fmt.Println()`, an inherited field) stays as written.

use std::collections::HashMap;

use tree_sitter::Node;

use super::call::{Call, Receiver};
use super::nesting::{Span, innermost};

/// A declared variable, as the query found it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Binding<'s> {
    name: &'s str,
    /// Where the declaration starts (a local is visible from here on).
    at: usize,
    /// The type's name within the source, when it names a type a method can be looked
    /// up in (see [`type_name`]); `None`: a primitive, an array, unknown.
    class: Option<(usize, usize)>,
    /// The type as written, when the declaration states one.
    pub(super) written: Option<&'s str>,
}

/// Scopes and declarations as the query found them, in no particular order.
#[derive(Default)]
pub(super) struct Typed<'s> {
    scopes: Vec<Span<()>>,
    locals: Vec<Binding<'s>>,
    fields: Vec<Binding<'s>>,
}

impl<'s> Typed<'s> {
    /// A `@typed.scope` node.
    pub(super) fn scope(&mut self, node: Node) {
        self.scopes.push(Span {
            start: node.start_byte(),
            end: node.end_byte(),
            value: (),
        });
    }

    /// A `@typed.local` (`field: false`) or `@typed.field` declaration of `name`, with its
    /// type node when the pattern captured one.
    pub(super) fn declare(
        &mut self,
        declaration: Node,
        name: Node,
        ty: Option<Node>,
        field: bool,
        source: &'s str,
    ) {
        let binding = Binding {
            name: &source[name.byte_range()],
            at: declaration.start_byte(),
            class: ty.and_then(|t| type_name(t.start_byte(), &source[t.byte_range()])),
            written: ty.map(|t| &source[t.byte_range()]),
        };
        if field {
            self.fields.push(binding);
        } else {
            self.locals.push(binding);
        }
    }

    /// The declarations, each placed in its scope (`bodies`: the type bodies of the tree,
    /// `@container.body` spans).
    pub(super) fn scoped<T: Copy>(self, bodies: &[Span<T>]) -> Scoped<'s> {
        let Typed {
            scopes,
            locals,
            fields,
        } = self;
        let within = |spans: &[Span<()>], points: Vec<usize>| -> Vec<Option<Span<()>>> {
            let mut indexed: Vec<Span<usize>> = spans
                .iter()
                .enumerate()
                .map(|(i, s)| Span {
                    start: s.start,
                    end: s.end,
                    value: i,
                })
                .collect();
            let mut order: Vec<usize> = (0..points.len()).collect();
            order.sort_by_key(|&i| points[i]);
            let sorted: Vec<usize> = order.iter().map(|&i| points[i]).collect();
            let mut out = vec![None; points.len()];
            for (&i, found) in order.iter().zip(innermost(&mut indexed, &sorted)) {
                out[i] = found.map(|j| spans[j]);
            }
            out
        };
        let local_scopes = within(&scopes, locals.iter().map(|l| l.at).collect());
        let body_spans: Vec<Span<()>> = bodies
            .iter()
            .map(|b| Span {
                start: b.start,
                end: b.end,
                value: (),
            })
            .collect();
        let field_bodies = within(&body_spans, fields.iter().map(|f| f.at).collect());
        let mut out = Scoped::default();
        for (l, scope) in locals.into_iter().zip(local_scopes) {
            if let Some(scope) = scope {
                out.locals.entry(l.name).or_default().push((scope, l));
            }
        }
        for (f, body) in fields.into_iter().zip(field_bodies) {
            if let Some(body) = body {
                out.fields.entry(f.name).or_default().push((body, f));
            }
        }
        out
    }
}

/// Declarations placed in their scopes, by name: what a name means at a position.
#[derive(Default)]
pub(super) struct Scoped<'s> {
    locals: HashMap<&'s str, Vec<(Span<()>, Binding<'s>)>>,
    fields: HashMap<&'s str, Vec<(Span<()>, Binding<'s>)>>,
}

impl<'s> Scoped<'s> {
    /// The declaration `name` means at byte `at`: a local or parameter (the innermost
    /// scope around `at` declaring it before `at`; one stating a type wins over another
    /// at the same place), else a field ([`Scoped::field`]).
    pub(super) fn variable(&self, name: &str, at: usize) -> Option<Binding<'s>> {
        let local = self.locals.get(name).and_then(|candidates| {
            candidates
                .iter()
                .filter(|(scope, l)| l.at <= at && scope.start <= at && at < scope.end)
                .max_by_key(|(scope, l)| (scope.start, l.at, l.class.is_some()))
                .map(|(_, l)| *l)
        });
        local.or_else(|| self.field(name, at))
    }

    /// The field `name` of the innermost type body around `at` that declares one.
    pub(super) fn field(&self, name: &str, at: usize) -> Option<Binding<'s>> {
        self.fields.get(name).and_then(|candidates| {
            candidates
                .iter()
                .filter(|(body, _)| body.start <= at && at < body.end)
                .max_by_key(|(body, _)| body.start)
                .map(|(_, f)| *f)
        })
    }

    /// Whether nothing was declared.
    fn is_empty(&self) -> bool {
        self.locals.is_empty() && self.fields.is_empty()
    }

    /// Rewrites the receivers of `calls` that name a declared variable (see the module
    /// docs); with `callable_variables` (Go), a plain call of a local variable (`h(c)`)
    /// gets the receiver `""`: no function of the package is what it calls.
    pub(super) fn receivers(&self, calls: &mut [Call<'s>], source: &str, callable_variables: bool) {
        if self.is_empty() {
            return;
        }
        for call in calls.iter_mut() {
            if callable_variables
                && call.receiver == Receiver::None
                && self.locals.get(call.callee).is_some_and(|c| {
                    c.iter().any(|(scope, l)| {
                        l.at <= call.at && scope.start <= call.at && call.at < scope.end
                    })
                })
            {
                call.receiver = Receiver::Local;
                continue;
            }
            let found = match call.receiver {
                Receiver::Name { start, end } | Receiver::Free { start, end } => {
                    self.variable(&source[start..end], call.at)
                }
                Receiver::Text { start, end } => match source[start..end]
                    .strip_prefix("this")
                    .map(str::trim_start)
                    .and_then(|r| r.strip_prefix('.'))
                    .map(str::trim)
                {
                    Some(field) if is_name(field) => self.field(field, call.at),
                    _ => None,
                },
                _ => None,
            };
            if let Some(binding) = found {
                call.receiver = match binding.class {
                    Some((start, end)) => Receiver::New { start, end },
                    None => Receiver::Local,
                };
            }
        }
    }
}

impl Scoped<'_> {
    /// The types of the arguments in the argument list `list` of a call at byte `at`, as
    /// far as their syntax shows (see [`wit_core::CallSite::arguments`]), comma-separated.
    pub(super) fn argument_types(&self, list: Node, at: usize, source: &str) -> String {
        let mut out = String::new();
        let mut walk = list.walk();
        for (i, arg) in list
            .named_children(&mut walk)
            .filter(|a| !a.is_extra())
            .enumerate()
        {
            if i > 0 {
                out.push_str(", ");
            }
            match self.argument_type(arg, at, source) {
                Some(t) => out.push_str(&erased(&t)),
                None => out.push('?'),
            }
        }
        out
    }

    /// The type of one argument expression, when its syntax says it (Java's kinds).
    fn argument_type(&self, mut arg: Node, at: usize, source: &str) -> Option<String> {
        while arg.kind() == "parenthesized_expression" {
            arg = arg.named_child(0)?;
        }
        let text = |n: Node| source[n.byte_range()].to_owned();
        Some(match arg.kind() {
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal" => {
                if text(arg).ends_with(['l', 'L']) {
                    "long".to_owned()
                } else {
                    "int".to_owned()
                }
            }
            "decimal_floating_point_literal" | "hex_floating_point_literal" => {
                if text(arg).ends_with(['f', 'F']) {
                    "float".to_owned()
                } else {
                    "double".to_owned()
                }
            }
            "string_literal" | "text_block" => "String".to_owned(),
            "character_literal" => "char".to_owned(),
            "true" | "false" => "boolean".to_owned(),
            "null_literal" => "null".to_owned(),
            "class_literal" => "Class".to_owned(),
            "lambda_expression" | "method_reference" => "->".to_owned(),
            "cast_expression" => text(arg.child_by_field_name("type")?),
            "object_creation_expression" => text(arg.child_by_field_name("type")?),
            "array_creation_expression" => {
                let element = text(arg.child_by_field_name("type")?);
                let mut walk = arg.walk();
                let dims = arg
                    .children(&mut walk)
                    .filter(|c| matches!(c.kind(), "dimensions_expr" | "dimensions"))
                    .map(|c| source[c.byte_range()].matches('[').count())
                    .sum::<usize>();
                format!("{element}{}", "[]".repeat(dims.max(1)))
            }
            "identifier" => self
                .variable(&source[arg.byte_range()], at)?
                .written?
                .to_owned(),
            _ => return None,
        })
    }
}

/// A type as written, without type arguments or whitespace (`Node<K,V>[]` is `Node[]`);
/// varargs `T...` read as the array they are, and no comma left (argument types are
/// joined with them).
pub(super) fn erased(written: &str) -> String {
    wit_core::signature::without_type_arguments(written)
        .replace("...", "[]")
        .replace(',', ";")
}

/// Whether `s` is one identifier.
fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// Types no method of the repository can belong to: Java's primitives and `var`, Go's
/// predeclared types.
const NOT_CLASSES: &[&str] = &[
    // Java
    "boolean",
    "byte",
    "char",
    "double",
    "float",
    "int",
    "long",
    "short",
    "void",
    "var",
    // Go
    "any",
    "bool",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
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

/// The byte range, within `written` (a type as written, starting at byte `at` of the
/// source), of the type's name a method can be looked up in: `Node<K,V>` → `Node`,
/// `Map.Entry<K,V>` → `Map.Entry`, `*Context` → `Context`, `pkg.T[K]` → `pkg.T`. `None`
/// for a primitive, an array or slice (`Node[]`, `[]T`), a map, a channel, a function
/// type, varargs, or anything else that is not a (dotted) name.
fn type_name(at: usize, written: &str) -> Option<(usize, usize)> {
    let trimmed = written.trim_start_matches(|c: char| c == '*' || c == '&' || c.is_whitespace());
    let start = at + (written.len() - trimmed.len());
    let end_in = trimmed.find(['<', '[']).unwrap_or(trimmed.len());
    let name = trimmed[..end_in].trim_end();
    // What follows the type arguments: an array's `[]` or varargs' `...` make it no class.
    let rest = &trimmed[end_in..];
    let after_arguments = match rest.chars().next() {
        Some('<') => closing(rest, '<', '>').map(|close| &rest[close + 1..]),
        // `Node[]` is an array; `Tree[K, V]` a Go generic.
        Some('[') if rest.starts_with("[]") => None,
        Some('[') if !name.is_empty() => closing(rest, '[', ']').map(|close| &rest[close + 1..]),
        Some(_) => None,
        None => Some(""),
    }?;
    let suffix = after_arguments.trim();
    if !suffix.is_empty() {
        return None;
    }
    let plain = !name.is_empty()
        && name.split('.').all(|segment| {
            let segment = segment.trim();
            segment
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && segment
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        });
    let last = name.rsplit('.').next().unwrap_or(name).trim();
    (plain && !NOT_CLASSES.contains(&last) && name.len() <= 256)
        .then_some((start, start + name.len()))
}

/// The offset in `s` (which starts with `open`) of its matching `close`.
fn closing(s: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(written: &str) -> Option<&str> {
        type_name(0, written).map(|(s, e)| &written[s..e])
    }

    #[test]
    fn a_type_as_written_names_a_class_or_nothing() {
        assert_eq!(name("Node<K,V>"), Some("Node"));
        assert_eq!(name("Map.Entry<K, V>"), Some("Map.Entry"));
        assert_eq!(name("*Context"), Some("Context"));
        assert_eq!(name("*binding.Form"), Some("binding.Form"));
        assert_eq!(name("Tree[K, V]"), Some("Tree"));
        assert_eq!(name("String"), Some("String"));
        for none in [
            "int",
            "var",
            "Node<K,V>[]",
            "Object...",
            "[]byte",
            "map[string]any",
            "chan int",
            "func(int) error",
            "error",
            "[4]Node",
            "String[]",
        ] {
            assert_eq!(name(none), None, "{none}");
        }
    }
}
