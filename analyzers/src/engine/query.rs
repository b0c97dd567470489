//! A compiled query with its capture names resolved once into roles.

use tree_sitter::{Language, Query};
use wit_core::SymbolKind;

/// What a capture contributes to the analysis (see the header of a `symbols.scm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// `@definition.<kind>`: the definition node.
    Definition(SymbolKind),
    /// `@name`: the defined or called name.
    Name,
    /// `@callable`: the function node whose fields make the signature.
    Callable,
    /// `@scope`: the node owning the calls of a callable, when not the `@callable` itself.
    Scope,
    /// `@wrapper`: a node that belongs to the definition in its `@wrapped` capture (an
    /// `export` statement, a decorated definition, a decorator before a method).
    Wrapper,
    /// `@wrapped`: the node a `@wrapper` belongs to.
    Wrapped,
    /// `@container.body`: the body of a class; methods inside it belong to the class.
    ContainerBody,
    /// `@container.name`: the name of the class whose body is `@container.body`.
    ContainerName,
    /// `@reference.call`: a call.
    Call,
    /// `@receiver`: the object of a member call (`db` in `db.query()`).
    Receiver,
    /// `@qualifier`: the object a definition is a property of (`res` in
    /// `res.status = function …`, `api` in `const api = { get() {} }`).
    Qualifier,
    /// A capture starting with `_`: a helper for predicates, not read.
    Ignored,
}

impl Role {
    fn from_capture(name: &str) -> Result<Self, String> {
        Ok(match name {
            "definition.function" => Role::Definition(SymbolKind::Function),
            "definition.arrow" => Role::Definition(SymbolKind::Arrow),
            "definition.method" => Role::Definition(SymbolKind::Method),
            "definition.class" => Role::Definition(SymbolKind::Class),
            "definition.interface" => Role::Definition(SymbolKind::Interface),
            "definition.type" => Role::Definition(SymbolKind::Type),
            "name" => Role::Name,
            "callable" => Role::Callable,
            "scope" => Role::Scope,
            "wrapper" => Role::Wrapper,
            "wrapped" => Role::Wrapped,
            "container.body" => Role::ContainerBody,
            "container.name" => Role::ContainerName,
            "reference.call" => Role::Call,
            "receiver" => Role::Receiver,
            "qualifier" => Role::Qualifier,
            other if other.starts_with('_') => Role::Ignored,
            // A typo in a query file would otherwise silently lose symbols.
            other => return Err(format!("unknown capture @{other}")),
        })
    }
}

/// A query plus the role of each of its captures, indexed by capture index.
pub(crate) struct CompiledQuery {
    pub(crate) query: Query,
    pub(crate) roles: Vec<Role>,
}

impl CompiledQuery {
    /// Compiles `source` for `language`; the error names the problem and where it is.
    pub(crate) fn new(language: &Language, source: &str) -> Result<Self, String> {
        let query = Query::new(language, source).map_err(|e| {
            format!(
                "{:?} error at line {}, column {}: {}",
                e.kind,
                e.row + 1,
                e.column + 1,
                e.message
            )
        })?;
        let roles = query
            .capture_names()
            .iter()
            .map(|name| Role::from_capture(name))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { query, roles })
    }
}
