//! A compiled query with its capture names resolved once into roles.

use tree_sitter::{Language, Query};
use wit_core::SymbolKind;

use super::locals::Vocabulary;

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
    /// `@container.extends`: the class the type whose body is `@container.body` extends
    /// (Java: see [`wit_core::TypeBody`]).
    ContainerExtends,
    /// `@container.base`: an interface the type whose body is `@container.body`
    /// implements (or, anonymous, the type it is created from).
    ContainerBase,
    /// `@reference.call`: a call.
    Call,
    /// `@receiver`: the object of a member call (`db` in `db.query()`).
    Receiver,
    /// `@arguments`: the argument list of a call, whose length picks among overloads
    /// (Java: [`wit_core::CallSite::arguments`]).
    Arguments,
    /// `@qualifier`: the object a definition is a property of (`res` in
    /// `res.status = function …`, `api` in `const api = { get() {} }`).
    Qualifier,
    /// `@container`: the name of a definition's container, given by the definition's own
    /// pattern (a Go method's receiver type, a Rust `impl`'s type).
    Container,
    /// `@signature.type_parameters`, `@signature.parameters`, `@signature.return`: the
    /// pieces of a callable's signature, when the grammar's field names are not the
    /// engine's defaults (`type_parameters`, `parameters`, `return_type`).
    SignatureTypeParameters,
    /// See [`Role::SignatureTypeParameters`].
    SignatureParameters,
    /// See [`Role::SignatureTypeParameters`].
    SignatureReturn,
    /// `@export`: the definition of this match is exported (`pub`, `public`, a Go
    /// capital); a top-level one becomes an export of the file.
    Export,
    /// `@import`: an import; with `@import.module` (the module or path as written),
    /// optionally `@import.name` (one name imported from it) and `@import.alias` (the
    /// local name; default: the name, else the module's last segment).
    Import,
    /// See [`Role::Import`].
    ImportModule,
    /// See [`Role::Import`].
    ImportName,
    /// See [`Role::Import`].
    ImportAlias,
    /// `@bind.scope`: a function (its parameters bind in it), a TypeScript block, a Python
    /// class body (see `engine/locals.rs`).
    BindScope,
    /// `@bind`: a node declaring names: a declarator, a parameter list, an assignment
    /// (Python), a loop variable, an import, a catch parameter…
    Bind,
    /// `@bind.var`: a `var` declarator, which binds in its function, not its block.
    BindVar,
    /// `@bind.assign`: the target of an assignment that declares nothing (TypeScript).
    BindAssign,
    /// `@bind.global`: Python's `global` or `nonlocal` statement.
    BindGlobal,
    /// `@typed.scope`: a node whose declared locals are its own (see `engine/typed.rs`).
    TypedScope,
    /// `@typed.local`: a declaration of a local or parameter (with `@typed.name` and,
    /// when it states one, `@typed.type`).
    TypedLocal,
    /// `@typed.field`: a declaration of a field (with `@typed.name` and `@typed.type`).
    TypedField,
    /// See [`Role::TypedLocal`].
    TypedName,
    /// See [`Role::TypedLocal`].
    TypedType,
    /// A capture starting with `_`, or a `tags.scm` capture wit does not use
    /// (`@doc`, `@reference.class`, `@definition.module`, …): not read.
    Ignored,
}

/// How `@definition.<kind>` of the `tags.scm` vocabulary maps onto wit's kinds; `None`:
/// a kind wit knows but does not make a symbol of (not a unit agents lock or sign).
fn definition_kind(kind: &str) -> Result<Option<SymbolKind>, String> {
    Ok(Some(match kind {
        "function" => SymbolKind::Function,
        "arrow" => SymbolKind::Arrow,
        "method" | "constructor" => SymbolKind::Method,
        "class" => SymbolKind::Class,
        "interface" | "trait" | "protocol" => SymbolKind::Interface,
        "type" | "struct" | "enum" | "union" | "record" | "typedef" | "annotation" => {
            SymbolKind::Type
        }
        "module" | "namespace" | "package" | "constant" | "variable" | "field" | "property"
        | "macro" | "enum_variant" | "event" | "heading" | "selector" => {
            return Ok(None);
        }
        other => {
            return Err(format!(
                "unknown capture @definition.{other} (wit knows function, method, \
                 constructor, class, interface, trait, type, struct, enum, union, record, \
                 and ignores module, namespace, constant, variable, field, macro)"
            ));
        }
    }))
}

impl Role {
    fn from_capture(name: &str) -> Result<Self, String> {
        Ok(match name {
            d if d.starts_with("definition.") => {
                match definition_kind(&d["definition.".len()..])? {
                    Some(kind) => Role::Definition(kind),
                    None => Role::Ignored,
                }
            }
            "name" => Role::Name,
            "callable" => Role::Callable,
            "scope" => Role::Scope,
            "wrapper" => Role::Wrapper,
            "wrapped" => Role::Wrapped,
            "container.body" => Role::ContainerBody,
            "container.name" => Role::ContainerName,
            "container.base" => Role::ContainerBase,
            "container.extends" => Role::ContainerExtends,
            "reference.call" => Role::Call,
            "receiver" => Role::Receiver,
            "arguments" => Role::Arguments,
            "qualifier" => Role::Qualifier,
            "container" => Role::Container,
            "signature.type_parameters" => Role::SignatureTypeParameters,
            "signature.parameters" => Role::SignatureParameters,
            "signature.return" => Role::SignatureReturn,
            "export" => Role::Export,
            "import" => Role::Import,
            "import.module" => Role::ImportModule,
            "import.name" => Role::ImportName,
            "import.alias" => Role::ImportAlias,
            "bind.scope" => Role::BindScope,
            "bind" => Role::Bind,
            "bind.var" => Role::BindVar,
            "bind.assign" => Role::BindAssign,
            "bind.global" => Role::BindGlobal,
            "typed.scope" => Role::TypedScope,
            "typed.local" => Role::TypedLocal,
            "typed.field" => Role::TypedField,
            "typed.name" => Role::TypedName,
            "typed.type" => Role::TypedType,
            // tags.scm captures that carry nothing wit uses.
            "doc" | "ignore" => Role::Ignored,
            r if r.starts_with("reference.") || r.starts_with("local.") => Role::Ignored,
            other if other.starts_with('_') => Role::Ignored,
            // A typo in a query file would otherwise silently lose symbols.
            other => return Err(format!("unknown capture @{other}")),
        })
    }
}

/// Deepest nesting of parentheses and brackets a query may have. tree-sitter's query
/// parser recurses once per level, on the caller's stack: a 600 KB query nested 300,000
/// levels deep (under the 1 MiB cap of a query file) overflowed the daemon's stack at
/// every start. Real queries nest a dozen levels; this is far above any of them.
pub const MAX_QUERY_NESTING: usize = 256;

/// Stack of the thread a query is compiled on: known, whatever thread asks (the parser's
/// recursion is bounded by [`MAX_QUERY_NESTING`], which this leaves ample room for).
const COMPILE_STACK: usize = 8 << 20;

/// Why a query text was refused before tree-sitter saw it: where (0-based row and column
/// in the text) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryTextError {
    /// 0-based line.
    pub row: usize,
    /// 0-based column, in bytes.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// Checks a query's text for what would harm the process compiling it, without a
/// grammar: its nesting (of `(`…`)` and `[`…`]`, outside strings and `;` comments) must
/// stay within [`MAX_QUERY_NESTING`]. `wit trust` runs this on every query file, so a
/// query that would be refused at load time is refused when it is trusted.
pub fn check_query_text(source: &str) -> Result<(), QueryTextError> {
    let (mut depth, mut row, mut column) = (0usize, 0usize, 0usize);
    let mut in_string = false;
    let mut in_comment = false;
    let mut escaped = false;
    for b in source.bytes() {
        let here = (row, column);
        if b == b'\n' {
            row += 1;
            column = 0;
            in_comment = false;
        } else {
            column += 1;
        }
        if in_comment {
            continue;
        }
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b';' => in_comment = true,
            b'(' | b'[' => {
                depth += 1;
                if depth > MAX_QUERY_NESTING {
                    return Err(QueryTextError {
                        row: here.0,
                        column: here.1,
                        message: format!(
                            "nested more than {MAX_QUERY_NESTING} levels deep (the limit of a \
                             query wit compiles)"
                        ),
                    });
                }
            }
            b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Compiles `source` on a thread of its own with a [`COMPILE_STACK`] stack, whatever the
/// caller's stack is (the daemon's start-up, a runtime worker).
fn compile_off_thread(
    language: &Language,
    source: String,
) -> Result<Result<Query, tree_sitter::QueryError>, String> {
    let language = language.clone();
    std::thread::Builder::new()
        .name("wit-query".into())
        .stack_size(COMPILE_STACK)
        .spawn(move || Query::new(&language, &source))
        .map_err(|e| format!("cannot start the thread that compiles the query: {e}"))?
        .join()
        .map_err(|_| "compiling the query panicked".to_owned())
}

/// A query plus the role of each of its captures, indexed by capture index.
pub(crate) struct CompiledQuery {
    pub(crate) query: Query,
    pub(crate) roles: Vec<Role>,
    /// Whether the query captures scopes and bindings (`@bind.scope`), so that receivers
    /// of evident class are looked for (see `engine/locals.rs`).
    pub(crate) locals: bool,
    /// The kinds and fields the scoping reads, as the grammar's ids.
    pub(crate) vocabulary: Vocabulary,
    /// By node kind id: whether a pattern starts at nodes of that kind, so that their
    /// nesting costs the query engine (see `engine/roots.rs`).
    pub(crate) costly: Vec<bool>,
    /// Whether the query captures supertypes of type bodies (`@container.base`,
    /// `@container.extends`), so that the analysis reports its type bodies
    /// ([`wit_core::Analysis::bodies`]).
    pub(crate) bodies: bool,
}

impl CompiledQuery {
    /// Compiles `files` (name, text) as one query for `language`; the error names the
    /// file, the line and column in it, and the problem.
    pub(crate) fn new(language: &Language, files: &[(&str, &str)]) -> Result<Self, String> {
        let mut source = String::new();
        // (first line of the file in `source`, its name)
        let mut starts: Vec<(usize, &str)> = Vec::new();
        let mut line = 0;
        for (name, text) in files {
            starts.push((line, name));
            source.push_str(text);
            if !text.ends_with('\n') {
                source.push('\n');
            }
            line += text.lines().count().max(1);
        }
        // Where a row of the joined text is: the file it came from, and its line there.
        let at = |row: usize, column: usize| {
            let (first, file) = starts
                .iter()
                .rev()
                .find(|(first, _)| *first <= row)
                .copied()
                .unwrap_or((0, ""));
            format!("{file}:{}:{}", row - first + 1, column + 1)
        };
        check_query_text(&source).map_err(|e| format!("{}: {}", at(e.row, e.column), e.message))?;
        let query = compile_off_thread(language, source.clone())?
            .map_err(|e| format!("{}: {:?} error: {}", at(e.row, e.column), e.kind, e.message))?;
        let roles = query
            .capture_names()
            .iter()
            .map(|name| Role::from_capture(name).map_err(|e| locate(files, name, &e)))
            .collect::<Result<Vec<_>, _>>()?;
        let locals = roles.contains(&Role::BindScope);
        let vocabulary = if locals {
            Vocabulary::new(language)
        } else {
            Vocabulary::default()
        };
        let costly = super::roots::costly_kinds(language, &query, &source);
        let bodies =
            roles.contains(&Role::ContainerBase) || roles.contains(&Role::ContainerExtends);
        Ok(Self {
            query,
            roles,
            costly,
            bodies,
            locals,
            vocabulary,
        })
    }
}

/// `file:line:column: reason` for the first use of `@capture` in `files`.
fn locate(files: &[(&str, &str)], capture: &str, reason: &str) -> String {
    let needle = format!("@{capture}");
    for (name, text) in files {
        for (row, line) in text.lines().enumerate() {
            // Not inside a comment, and not a prefix of a longer capture name.
            let code = line.split(';').next().unwrap_or("");
            let mut from = 0;
            while let Some(at) = code[from..].find(&needle) {
                let end = from + at + needle.len();
                let next = code[end..].chars().next();
                if !next.is_some_and(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-')) {
                    return format!("{name}:{}:{}: {reason}", row + 1, from + at + 1);
                }
                from = end;
            }
        }
    }
    reason.to_owned()
}

#[cfg(test)]
mod nesting_tests {
    use super::{MAX_QUERY_NESTING, check_query_text};

    #[test]
    fn nesting_is_bounded_outside_strings_and_comments() {
        let at_limit = format!(
            "{}{}",
            "(".repeat(MAX_QUERY_NESTING),
            ")".repeat(MAX_QUERY_NESTING)
        );
        assert!(check_query_text(&at_limit).is_ok());
        let deep = format!("; a comment (((\n{}", "[".repeat(MAX_QUERY_NESTING + 1));
        let e = check_query_text(&deep).unwrap_err();
        assert_eq!((e.row, e.column), (1, MAX_QUERY_NESTING));
        // Parentheses inside strings and comments do not count.
        let quoted = format!(
            "((a) @x (#eq? @x \"{}\")) ; {}\n",
            "(".repeat(1000),
            "(".repeat(1000)
        );
        assert!(check_query_text(&quoted).is_ok());
        assert!(check_query_text("((a) @x (#eq? @x \"\\\"(\"))").is_ok());
    }
}
