//! A call site as the query finds it, before it becomes a `CallSite`: shared by the
//! extraction, the locals' scopes and the callers' resolution.

use tree_sitter::Node;

/// A call site: where it starts and the called name.
#[derive(Debug, Clone, Copy)]
pub(super) struct Call<'s> {
    pub(super) at: usize,
    pub(super) callee: &'s str,
    pub(super) receiver: Receiver,
    /// Where the query captures the argument list (`@arguments`): the index of its
    /// types' text among the extraction's argument texts ([`super::extract::Found`]).
    pub(super) arguments: Option<u32>,
}

/// The receiver of a call, as byte ranges into the source (text only when it becomes a
/// call site).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Receiver {
    /// A plain call `f()`.
    None,
    /// A name or chain of names, `this`, `self`, `super`, `super()`: the text at
    /// `start..end` (whitespace inside is dropped when it becomes a string).
    Text { start: usize, end: usize },
    /// A bare identifier at `start..end`, which [`super::locals`] may find declared with
    /// an evident class.
    Name { start: usize, end: usize },
    /// A bare identifier no scope of its function declares: the module's top level may
    /// (see [`super::locals::module_level`]).
    Free { start: usize, end: usize },
    /// `new Name(…)`, or a local whose class is evident from its declaration: the class's
    /// name (maybe dotted) at `start..end`.
    New { start: usize, end: usize },
    /// A bare identifier naming a variable of its function (or block) whose class its
    /// declaration does not say: nothing outside the function tells what it holds, so it
    /// is spelt as [`Receiver::Other`] is.
    Local,
    /// Any other expression (`f().g()`, `a[0].g()`).
    Other,
}

impl Receiver {
    /// Classifies the receiver node of a member call.
    ///
    /// TypeScript's non-null assertions are transparent: `opts!.parse()` is `opts.parse()`
    /// (the wrapper is looked through) and `this.a!.b.parse()` is `this.a.b.parse()` (a `!`
    /// inside a chain is dropped from its text, see [`Receiver::to_text`]).
    pub(super) fn of(mut node: Node, source: &str) -> Self {
        const MAX: usize = 256;
        while node.kind() == "non_null_expression" {
            match node.named_child(0) {
                Some(inner) => node = inner,
                None => return Receiver::Other,
            }
        }
        let (start, end) = (node.start_byte(), node.end_byte());
        if end - start > MAX {
            return Receiver::Other;
        }
        match node.kind() {
            "new_expression" => match node.child_by_field_name("constructor") {
                Some(c) if c.kind() == "identifier" => Receiver::New {
                    start: c.start_byte(),
                    end: c.end_byte(),
                },
                _ => Receiver::Other,
            },
            // Python's `super()`: a call without arguments of the name `super`.
            "call" if &source[start..end] == "super()" => Receiver::Text { start, end },
            // Java's `new Repo().find()`, C#'s `new Repo().Find()`.
            "object_creation_expression" => match node.child_by_field_name("type") {
                Some(c) if matches!(c.kind(), "type_identifier" | "identifier") => Receiver::New {
                    start: c.start_byte(),
                    end: c.end_byte(),
                },
                _ => Receiver::Other,
            },
            // TypeScript and Python, then the declarative languages' names and chains
            // (Java `a.b`, Go `pkg.F`, Rust `a.b` and `path::to`, C# `a.B`).
            "identifier"
            | "this"
            | "super"
            | "member_expression"
            | "attribute"
            | "field_access"
            | "selector_expression"
            | "field_expression"
            | "scoped_identifier"
            | "member_access_expression"
            | "self"
            | "crate"
            | "this_expression"
            | "base_expression"
            | "type_identifier"
            | "package_identifier"
            | "field_identifier"
            | "qualified_name" => {
                let text = &source[start..end];
                let plain = text.bytes().all(|b| {
                    b.is_ascii_alphanumeric()
                        || matches!(b, b'_' | b'$' | b'.' | b'#' | b':' | b'!')
                        || b.is_ascii_whitespace()
                        || b >= 0x80
                });
                if !plain {
                    Receiver::Other
                } else if node.kind() == "identifier" {
                    Receiver::Name { start, end }
                } else {
                    Receiver::Text { start, end }
                }
            }
            _ => Receiver::Other,
        }
    }

    /// Whether this is a bare identifier no scope of its function declares.
    pub(super) fn is_free(self) -> bool {
        matches!(self, Receiver::Free { .. })
    }

    /// The receiver as [`wit_core::CallSite::receiver`] spells it.
    pub(super) fn to_text(self, source: &str) -> Option<String> {
        // Whitespace and TypeScript's non-null `!` (the only `!` a plain receiver holds)
        // are not part of the name.
        let compact = |start: usize, end: usize| -> String {
            source[start..end]
                .chars()
                .filter(|&c| !c.is_whitespace() && c != '!')
                .collect()
        };
        match self {
            Receiver::None => None,
            Receiver::Other | Receiver::Local => Some(String::new()),
            Receiver::Text { start, end }
            | Receiver::Name { start, end }
            | Receiver::Free { start, end } => Some(compact(start, end)),
            Receiver::New { start, end } => Some(format!("new:{}", compact(start, end))),
        }
    }
}
