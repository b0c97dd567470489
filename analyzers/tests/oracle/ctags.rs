//! Universal Ctags as the oracle for Java, Go and C# definitions.
//!
//! `ctags` runs as a subprocess over the sample's folder (JSON output, with each tag's
//! kind, scope and end line); it is not optional: without it the tests fail and say how
//! to install it. Its kinds are mapped to wit's kind classes; kinds wit does not report by
//! design (fields, properties, events, constants, variables, enum constants, packages and
//! namespaces, struct members, Go interface method specs) are dropped, and a scope that
//! is a package or namespace is no container (wit names `Shop.Checkout`, not
//! `Acme.Shop.Checkout`).
//!
//! ctags 5.9 (the Debian/Ubuntu package) is wrong in a few known ways. Each is a rule
//! below with its reason, and the report counts what each one left out:
//! [`ENUM_CONSTANT_AS_METHOD`] drops ctags' bogus tags; [`INSIDE_MEMBER_BODY`],
//! [`CSHARP_CONSTRAINT`] and [`CSHARP_LAMBDA`] drop wit's definitions of the shapes ctags
//! cannot see, and only those ctags has no tag for, so no rule ever hides a miss of wit's
//! or removes a definition both sides found. One failure has no rule: after a Java enum
//! constant with a body but no arguments (`DOUBLE {`), ctags loses the rest of the enum,
//! so the methods wit finds there count as extras (five in Gson's `ToNumberPolicy`).

use std::path::Path;
use std::process::Command;

use crate::score::{Def, Exclusions};
use crate::sources::SourceFile;

/// One ctags tag.
#[derive(Debug, Clone)]
pub struct Tag {
    /// Path relative to the sample's root.
    pub file: String,
    /// Bare name.
    pub name: String,
    /// ctags' long kind name (`method`, `class`, `func`, …).
    pub kind: String,
    /// Innermost enclosing scope's name, possibly dotted (`TypeAdapters.FloatAdapter`).
    pub scope: Option<String>,
    /// That scope's kind (`class`, `package`, `namespace`, …).
    pub scope_kind: Option<String>,
    /// One-based first line.
    pub line: usize,
    /// One-based last line, where ctags knows it.
    pub end: Option<usize>,
}

/// How to install ctags, for the error when it is missing.
const INSTALL: &str = "install Universal Ctags (Debian/Ubuntu: `apt-get install universal-ctags`)";

/// Runs `ctags -R` over `root` for one ctags language (`Java`, `Go`, `C#`).
pub fn run(root: &Path, language: &str) -> Result<Vec<Tag>, String> {
    let output = Command::new("ctags")
        .args(["--output-format=json", "--fields=+nKZe", "--sort=no"])
        .arg(format!("--languages={language}"))
        .args(["-R", "-f", "-", "."])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run `ctags` ({e}): {INSTALL}"))?;
    if !output.status.success() {
        return Err(format!(
            "`ctags` failed ({}): {}\n{INSTALL}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    if !text.contains("\"_type\": \"tag\"") {
        return Err(format!(
            "`ctags` printed no JSON tags: is it Universal Ctags? {INSTALL}"
        ));
    }
    text.lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).map_err(|e| e.to_string()))
        .filter(|t| t.as_ref().map_or(true, |t| t["_type"] == "tag"))
        .map(|t| {
            let t = t?;
            let str_of = |k: &str| t[k].as_str().map(str::to_owned);
            Ok(Tag {
                file: str_of("path")
                    .ok_or("a tag without a path")?
                    .trim_start_matches("./")
                    .to_owned(),
                name: str_of("name").ok_or("a tag without a name")?,
                kind: str_of("kind").ok_or("a tag without a kind")?,
                scope: str_of("scope"),
                scope_kind: str_of("scopeKind"),
                line: t["line"].as_u64().ok_or("a tag without a line")? as usize,
                end: t["end"].as_u64().map(|e| e as usize),
            })
        })
        .collect()
}

/// wit's kind class for a ctags kind of `language`, or `None` for kinds wit does not
/// report by design.
fn kind_class(language: &str, tag: &Tag) -> Option<&'static str> {
    Some(match (language, tag.kind.as_str()) {
        (_, "class") => "class",
        (_, "interface") => "interface",
        (_, "method") => "method",
        ("Java", "enum" | "annotation") => "type",
        ("C#", "struct" | "enum") => "type",
        ("Go", "struct" | "type" | "talias") => "type",
        // A Go `func` with a receiver is scoped by the receiver's type (whose kind is
        // `unknown` when it is declared in another file).
        ("Go", "func") if tag.scope_kind.as_deref().is_some_and(|k| k != "package") => "method",
        ("Go", "func") => "function",
        _ => return None,
    })
}

/// The tag's container: the last segment of its scope, unless that is a package or
/// namespace.
fn container(tag: &Tag) -> Option<String> {
    match tag.scope_kind.as_deref() {
        None | Some("package" | "namespace") => None,
        Some(_) => tag
            .scope
            .as_deref()
            .map(|s| s.rsplit('.').next().unwrap_or(s).to_owned()),
    }
}

/// Rule (Java): ctags reads an enum constant with arguments and a body, `NAME(…) {`,
/// twice, as the constant and as a method of the enum. The method is dropped from the
/// oracle: ctags itself tags an enum constant of that name on that line.
const ENUM_CONSTANT_AS_METHOD: &str = "ctags: an enum constant `NAME(…) {` also tagged as a method";

/// Rule (all): ctags tags no definition inside a member's body: not the methods of an
/// anonymous class or of an enum constant's body, nor local classes, nor C# local
/// functions, all of which wit reports. wit's definitions whose first line lies inside
/// the lines of a member ctags tagged (a method, or a field or property with an
/// initializer) are dropped.
const INSIDE_MEMBER_BODY: &str =
    "ctags: no tags inside a member's body (anonymous classes, local types and functions)";

/// Rule (C#): ctags drops a method with a generic constraint, `M<T>(…) where T : …`.
const CSHARP_CONSTRAINT: &str = "ctags: a C# method with a `where` constraint is not tagged";

/// Rule (C#): ctags reads an expression-bodied method of one parameter, `M(T x) => …;`,
/// as a lambda `(T x) => …`: it drops `M` (and mostly tags `x` as a field).
const CSHARP_LAMBDA: &str = "ctags: a C# `M(T x) => …;` is read as a lambda, not tagged";

/// ctags kinds whose lines are a member's, not a type's or namespace's.
const MEMBER_KINDS: &[&str] = &[
    "method",
    "func",
    "field",
    "property",
    "event",
    "enumConstant",
    "var",
    "const",
];

/// The oracle's definitions: the tags of kinds wit reports, as [`Def`]s, less those of
/// [`ENUM_CONSTANT_AS_METHOD`]. ctags names a C# explicit interface implementation
/// `I.M`; its name is `M`, as wit's is (the container stays the class).
pub fn definitions(language: &str, tags: &[Tag], ex: &mut Exclusions) -> Vec<Def> {
    let constant_at = |t: &Tag| {
        tags.iter().any(|c| {
            c.kind == "enumConstant" && c.file == t.file && c.line == t.line && c.name == t.name
        })
    };
    tags.iter()
        .filter_map(|t| {
            let kind = kind_class(language, t)?;
            if kind == "method" && constant_at(t) {
                ex.oracle(ENUM_CONSTANT_AS_METHOD);
                return None;
            }
            let name = match language {
                "C#" => t.name.rsplit('.').next().unwrap_or(&t.name),
                _ => &t.name,
            };
            Some(Def {
                file: t.file.clone(),
                name: name.to_owned(),
                container: container(t),
                kind: kind.to_owned(),
                line: t.line,
                end_line: t.end.unwrap_or(t.line),
            })
        })
        .collect()
}

/// wit's definitions less those the rules above leave out. A rule never leaves out a
/// definition ctags did tag (a tag of the same name within its lines): it only explains
/// what ctags lacks.
pub fn comparable(
    wit: Vec<Def>,
    tags: &[Tag],
    files: &[SourceFile],
    ex: &mut Exclusions,
) -> Vec<Def> {
    wit.into_iter()
        .filter(|d| match rule_leaving_out(d, tags, files) {
            Some(rule) => {
                ex.wit(rule);
                false
            }
            None => true,
        })
        .collect()
}

/// The rule that leaves wit's definition `d` out, if any.
fn rule_leaving_out(d: &Def, tags: &[Tag], files: &[SourceFile]) -> Option<&'static str> {
    let mut in_file = tags.iter().filter(|t| t.file == d.file);
    let lines = d.line..=d.end_line;
    let same_name = |t: &Tag| t.name.rsplit('.').next() == Some(d.name.as_str());
    if in_file
        .clone()
        .any(|t| same_name(t) && lines.contains(&t.line))
    {
        return None;
    }
    if in_file.any(|t| {
        MEMBER_KINDS.contains(&t.kind.as_str())
            && t.line < d.line
            && t.end.is_some_and(|end| d.line <= end)
    }) {
        return Some(INSIDE_MEMBER_BODY);
    }
    if !d.file.ends_with(".cs") || d.kind != "method" {
        return None;
    }
    let (header, stop) = header(files, d);
    if header
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| word == "where")
    {
        Some(CSHARP_CONSTRAINT)
    } else if stop == "=>" && parameter_count(header) == 1 {
        Some(CSHARP_LAMBDA)
    } else {
        None
    }
}

/// The text of a definition from its first line up to its body or terminator, and that
/// terminator (`{`, `=>` or `;`; empty at the end of the file).
fn header<'f>(files: &'f [SourceFile], d: &Def) -> (&'f str, &'static str) {
    let Some(file) = files.iter().find(|f| f.rel == d.file) else {
        return ("", "");
    };
    let start = file
        .text
        .split_inclusive('\n')
        .take(d.line - 1)
        .map(str::len)
        .sum::<usize>();
    let rest = &file.text[start..];
    ["{", "=>", ";"]
        .into_iter()
        .filter_map(|stop| Some((rest.find(stop)?, stop)))
        .min()
        .map_or((rest, ""), |(end, stop)| (&rest[..end], stop))
}

/// The number of parameters in the parameter list that ends `header` (commas outside
/// brackets, plus one; 0 for `()`).
fn parameter_count(header: &str) -> usize {
    let Some(list) = header.trim_end().strip_suffix(')') else {
        return 0;
    };
    let (mut depth, mut commas) = (0i32, 0);
    for (i, c) in list.char_indices().rev() {
        match c {
            ')' | ']' | '>' => depth += 1,
            '(' | '[' | '<' if depth > 0 => depth -= 1,
            '(' => {
                let inside = &list[i + 1..];
                return if inside.trim().is_empty() {
                    0
                } else {
                    commas + 1
                };
            }
            ',' if depth == 0 => commas += 1,
            _ => {}
        }
    }
    0
}
