//! Java calls resolved by the language's own rules (JLS §15.12.1, §6.5.5), over the
//! type bodies the analyzer reports ([`wit_core::TypeBody`]).
//!
//! - `m()`: the innermost type body around the call that has a method `m`, declared or
//!   inherited (its superclass chain and interfaces, across files), then the next one
//!   outward; then a `static` import of `m`. Never a guess by name elsewhere: a class name
//!   that several files declare (`ListItr` in `ArrayList.java` and `LinkedList.java`) is
//!   not a reason to pick one, and a method of an anonymous class elsewhere is nobody's.
//! - `this.m()`: the innermost body's type; `super.m()`: its superclass (an anonymous
//!   class's type); `Outer.this.m()`: the enclosing body named `Outer`;
//!   `Iface.super.m()`: the type `Iface`.
//! - `Type.m()`, `new Type().m()` and `v.m()` on a variable whose declared type the
//!   analyzer read (`new:Type`): `Type` as seen from the call — a member type of an
//!   enclosing body, a top-level type of the file, a single-type import, a top-level type
//!   of the package (the directory), a fully qualified name — then its method `m`,
//!   declared or inherited.
//!
//! Overloads are told apart by the number of arguments, then by the types the call's
//! syntax shows ([`wit_core::CallSite::arguments`]: literals, casts, `new`, variables of
//! declared type), as javac ranks them; when that leaves several, or a method may come
//! from a type outside the repository (a superclass wit does not hold, `Object`), the
//! call stays unresolved rather than guessed. Types of other expressions (`f().g()`)
//! are not inferred.

use std::collections::HashSet;
use std::sync::Arc;

use wit_core::{Analysis, Symbol};

use crate::{Graph, SiteRef, SymbolRef, paths};

/// Deepest chain of supertypes followed.
const MAX_SUPERTYPES: usize = 16;

/// A type: the file declaring it and the index of its body in that file's analysis.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct TypeRef {
    file: Arc<str>,
    body: usize,
}

/// What looking a method up in a type found.
enum Lookup {
    /// The one method of the name the call can mean.
    Found(SymbolRef),
    /// The type has a method of the name, but which one the call means is not known:
    /// several overloads take that many arguments (their parameter types decide), none
    /// does, or one may be inherited from outside the repository (a superclass wit does
    /// not hold, `Object`'s `equals`, `hashCode`, `toString`…).
    Unknown,
    /// The type has no method of the name.
    NotMember,
}

impl Graph {
    /// Where the Java call `site` of `key` goes (see the module docs).
    pub(crate) fn java_resolve(&self, key: &Arc<str>, site: SiteRef<'_>) -> Option<SymbolRef> {
        let a = self.get(key)?;
        let at = caller_position(a, site)?;
        let around = bodies_around(a, at);
        let here = |body: usize| TypeRef {
            file: key.clone(),
            body,
        };
        let (callee, arguments) = (site.callee, site.arguments);
        let found = |lookup| match lookup {
            Lookup::Found(s) => Some(s),
            Lookup::Unknown | Lookup::NotMember => None,
        };
        let mut seen = HashSet::new();
        match site.receiver {
            None => {
                // The innermost type that has a method of the name decides (JLS 15.12.1).
                for &b in &around {
                    match self.java_lookup(&here(b), callee, arguments, &mut seen, 0) {
                        Lookup::Found(s) => return Some(s),
                        Lookup::Unknown => return None,
                        Lookup::NotMember => seen.clear(),
                    }
                }
                self.java_static_import(a, callee, arguments)
            }
            Some("this") => {
                found(self.java_lookup(&here(*around.first()?), callee, arguments, &mut seen, 0))
            }
            Some("super") => {
                let b = &a.bodies[*around.first()?];
                // An anonymous class's one type is its superclass when it is a class.
                let written = b.superclass.as_deref().or_else(|| {
                    (b.name.is_none())
                        .then(|| b.bases.first().map(String::as_str))
                        .flatten()
                })?;
                let t = self.java_type(key, written, Some(b.start_byte))?;
                found(self.java_lookup(&t, callee, arguments, &mut seen, 0))
            }
            Some("") => None,
            Some(r) => {
                if let Some(outer) = r.strip_suffix(".this") {
                    let b = around
                        .iter()
                        .copied()
                        .find(|&b| a.bodies[b].name.as_deref() == Some(outer))?;
                    return found(self.java_lookup(&here(b), callee, arguments, &mut seen, 0));
                }
                // `Iface.super.m()` names a default method of the interface `Iface`.
                let written = r
                    .strip_suffix(".super")
                    .or_else(|| r.strip_prefix("new:"))
                    .unwrap_or(r);
                let t = self.java_type(key, written, Some(at))?;
                found(self.java_lookup(&t, callee, arguments, &mut seen, 0))
            }
        }
    }

    /// The method `name` a call with `arguments` ([`choose`]) means in the type `t`:
    /// declared in its body, else inherited from its superclass chain, else from its
    /// interfaces (a method declared in a type overrides those above it).
    fn java_lookup(
        &self,
        t: &TypeRef,
        name: &str,
        arguments: Option<&str>,
        seen: &mut HashSet<TypeRef>,
        depth: usize,
    ) -> Lookup {
        if depth > MAX_SUPERTYPES || !seen.insert(t.clone()) {
            return Lookup::NotMember;
        }
        let Some(a) = self.get(&t.file) else {
            return Lookup::NotMember;
        };
        let Some(body) = a.bodies.get(t.body) else {
            return Lookup::NotMember;
        };
        let signatures = self
            .files
            .get(&t.file)
            .map_or(&[][..], |e| &e.signatures[..]);
        let declared: Vec<usize> = declared_methods(a, t.body)
            .filter(|&i| a.symbols[i].name == name)
            .collect();
        let signature = |i: usize| signatures.get(i).and_then(|s| s.as_deref());
        match choose(&declared, &signature, arguments) {
            Choice::One(i) => return Lookup::Found(self.sym_ref(&t.file, a, &a.symbols[i])),
            Choice::Several => return Lookup::Unknown,
            Choice::None => {}
        }
        let named = !declared.is_empty();
        match &body.superclass {
            Some(superclass) => match self.java_type(&t.file, superclass, Some(body.start_byte)) {
                Some(st) => match self.java_lookup(&st, name, arguments, seen, depth + 1) {
                    Lookup::NotMember => {}
                    other => return other,
                },
                // A superclass outside the repository may have it.
                None => return Lookup::Unknown,
            },
            // `Object` is the superclass of every class without one.
            None if is_object_method(name, arity(arguments)) => return Lookup::Unknown,
            None => {}
        }
        for base in &body.bases {
            if let Some(bt) = self.java_type(&t.file, base, Some(body.start_byte)) {
                match self.java_lookup(&bt, name, arguments, seen, depth + 1) {
                    Lookup::NotMember => {}
                    other => return other,
                }
            }
        }
        if named {
            Lookup::Unknown
        } else {
            Lookup::NotMember
        }
    }

    /// A `static` import of `name` (`import static java.util.Objects.requireNonNull;`,
    /// read as an import of the module `java.util.Objects.requireNonNull`): the method of
    /// the type the import names.
    fn java_static_import(
        &self,
        a: &Analysis,
        name: &str,
        arguments: Option<&str>,
    ) -> Option<SymbolRef> {
        let import = a
            .imports
            .iter()
            .find(|i| i.local == name && i.module.contains('.'))?;
        let (owner, _) = import.module.rsplit_once('.')?;
        let t = self.java_qualified_type(owner)?;
        match self.java_lookup(&t, name, arguments, &mut HashSet::new(), 0) {
            Lookup::Found(s) => Some(s),
            _ => None,
        }
    }

    /// The type `written` (a name or a dotted chain) as the code of `key` at byte `at`
    /// sees it.
    fn java_type(&self, key: &Arc<str>, written: &str, at: Option<usize>) -> Option<TypeRef> {
        let (head, rest) = match written.split_once('.') {
            Some((h, r)) => (h, Some(r)),
            None => (written, None),
        };
        let Some(mut t) = self.java_simple_type(key, head, at) else {
            // Not a type in scope: a fully qualified name (`java.util.Map.Entry`)?
            return rest.and_then(|_| self.java_qualified_type(written));
        };
        for member in rest.into_iter().flat_map(|r| r.split('.')) {
            let a = self.get(&t.file)?;
            t = TypeRef {
                file: t.file.clone(),
                body: member_type(a, Some(t.body), member)?,
            };
        }
        Some(t)
    }

    /// A simple type name as the code of `key` at `at` sees it: a member type of a body
    /// around `at` (or that body itself), a top-level type of the file, a single-type
    /// import, a top-level type of the package.
    fn java_simple_type(&self, key: &Arc<str>, name: &str, at: Option<usize>) -> Option<TypeRef> {
        let a = self.get(key)?;
        let local = |body| TypeRef {
            file: key.clone(),
            body,
        };
        for b in at.map(|at| bodies_around(a, at)).unwrap_or_default() {
            if a.bodies[b].name.as_deref() == Some(name) {
                return Some(local(b));
            }
            if let Some(m) = member_type(a, Some(b), name) {
                return Some(local(m));
            }
        }
        if let Some(top) = member_type(a, None, name) {
            return Some(local(top));
        }
        for import in a.imports.iter().filter(|i| i.local == name) {
            if let Some(t) = self.java_qualified_type(&import.module) {
                return Some(t);
            }
        }
        // The package: `Name.java` of the directory first, then any file of it. A name
        // in lower case is a variable or a package, not a class (Java's naming): not
        // looked for in every file of the directory.
        if !name.starts_with(|c: char| c.is_uppercase()) {
            return None;
        }
        let dir = paths::dir(key);
        let own = if dir.is_empty() {
            format!("{name}.java")
        } else {
            format!("{dir}/{name}.java")
        };
        let mut files: Vec<&Arc<str>> = self
            .files
            .keys()
            .filter(|k| paths::dir(k) == dir && paths::extension(k) == "java" && *k != key)
            .collect();
        files.sort_by(|a, b| (a.as_ref() != own, a).cmp(&(b.as_ref() != own, b)));
        files.into_iter().find_map(|f| {
            let body = member_type(self.get(f)?, None, name)?;
            Some(TypeRef {
                file: f.clone(),
                body,
            })
        })
    }

    /// A fully qualified type (`java.util.Map`, `java.util.Map.Entry`): the file whose
    /// path ends with the package's directories and the top-level type's name, then its
    /// member types.
    fn java_qualified_type(&self, qualified: &str) -> Option<TypeRef> {
        let parts: Vec<&str> = qualified.split('.').collect();
        // The top-level type is the first segment after the package; try each split.
        for top in (0..parts.len()).rev() {
            let suffix = format!("{}.java", parts[..=top].join("/"));
            let nested = format!("/{suffix}");
            let Some(file) = self
                .files
                .keys()
                .filter(|k| k.as_ref() == suffix || k.ends_with(&nested))
                .min()
            else {
                continue;
            };
            let a = self.get(file)?;
            let mut body = member_type(a, None, parts[top])?;
            for member in &parts[top + 1..] {
                body = member_type(a, Some(body), member)?;
            }
            return Some(TypeRef {
                file: file.clone(),
                body,
            });
        }
        None
    }
}

/// Where the caller of `site` starts: the callable definition of that qualified name
/// (the innermost one holding the call's line, when several share it: methods of two
/// anonymous classes have no container).
fn caller_position(a: &Analysis, site: SiteRef<'_>) -> Option<usize> {
    let (container, name) = match site.caller.rsplit_once('.') {
        Some((c, n)) => (Some(c), n),
        None => (None, site.caller),
    };
    let holds = |s: &Symbol| s.start_line <= site.line && site.line <= s.end_line;
    a.symbols
        .iter()
        .filter(|s| s.kind.is_callable() && s.name == name && s.container.as_deref() == container)
        .min_by_key(|s| (!holds(s), s.end_byte - s.start_byte))
        .map(|s| s.start_byte)
}

/// The bodies holding byte `at`, innermost first.
fn bodies_around(a: &Analysis, at: usize) -> Vec<usize> {
    let mut around: Vec<usize> = (0..a.bodies.len())
        .filter(|&b| a.bodies[b].start_byte <= at && at < a.bodies[b].end_byte)
        .collect();
    around.sort_by_key(|&b| std::cmp::Reverse(a.bodies[b].start_byte));
    around
}

/// The innermost body holding byte `at`.
fn body_at(a: &Analysis, at: usize) -> Option<usize> {
    bodies_around(a, at).first().copied()
}

/// The body directly inside `outer` (`None`: at the top level of the file) of the type
/// named `name`.
fn member_type(a: &Analysis, outer: Option<usize>, name: &str) -> Option<usize> {
    (0..a.bodies.len()).find(|&b| {
        a.bodies[b].name.as_deref() == Some(name) && {
            let start = a.bodies[b].start_byte;
            let parent = (0..a.bodies.len())
                .filter(|&p| {
                    p != b && a.bodies[p].start_byte < start && start < a.bodies[p].end_byte
                })
                .max_by_key(|&p| a.bodies[p].start_byte);
            parent == outer
        }
    })
}

/// The indexes of the methods declared in body `body` (not in a type nested in it), in
/// source order.
fn declared_methods(a: &Analysis, body: usize) -> impl Iterator<Item = usize> + '_ {
    let range = a
        .bodies
        .get(body)
        .map_or(0..0, |b| b.start_byte..b.end_byte);
    (0..a.symbols.len()).filter(move |&i| {
        let s = &a.symbols[i];
        s.kind.is_callable()
            && range.contains(&s.start_byte)
            && body_at(a, s.start_byte) == Some(body)
    })
}

/// Which declared methods of a name a call with `arguments` (its argument types, see
/// [`wit_core::CallSite::arguments`]; `None`: not reported) means.
enum Choice {
    One(usize),
    /// Several could be meant (their parameter types decide, and the arguments' types
    /// are not known well enough), or the arguments are not reported.
    Several,
    None,
}

/// Java's overload resolution as far as the call's syntax allows: the methods among
/// `candidates` (symbol indexes, `signature` of each) taking as many arguments (a
/// varargs method fewer or more), then those whose parameter types the known argument
/// types fit, then the one fitting most exactly (`int` to `int` beats `int` to `long`,
/// which beats boxing `int` to `Object`).
fn choose<'s>(
    candidates: &[usize],
    signature: &dyn Fn(usize) -> Option<&'s str>,
    arguments: Option<&str>,
) -> Choice {
    if candidates.is_empty() {
        return Choice::None;
    }
    let Some(arguments) = arguments else {
        return match candidates {
            [one] => Choice::One(*one),
            _ => Choice::Several,
        };
    };
    let args: Vec<&str> = if arguments.is_empty() {
        Vec::new()
    } else {
        arguments.split(", ").collect()
    };
    let mut best: Option<(usize, usize)> = None;
    let mut tie = false;
    let mut applicable = 0;
    for &i in candidates {
        let Some(params) = signature(i).and_then(parameters) else {
            // A method without a readable signature (an analysis that kept none) may be
            // any of them; alone, it is the one.
            return match candidates {
                [one] => Choice::One(*one),
                _ => Choice::Several,
            };
        };
        let Some(score) = params.fit(&args) else {
            continue;
        };
        applicable += 1;
        match best {
            Some((_, b)) if score < b => {}
            Some((_, b)) if score == b => tie = true,
            _ => {
                best = Some((i, score));
                tie = false;
            }
        }
    }
    match best {
        None if applicable == 0 => Choice::None,
        Some((i, _)) if !tie => Choice::One(i),
        _ => Choice::Several,
    }
}

/// A signature's parameters: their types (type arguments dropped), whether the last is
/// varargs, and the method's own type parameters.
struct Parameters {
    types: Vec<String>,
    varargs: bool,
    type_variables: Vec<String>,
}

impl Parameters {
    /// How exactly `args` fit (higher: more exact), or `None` when they cannot.
    fn fit(&self, args: &[&str]) -> Option<usize> {
        let n = self.types.len();
        let fixed = if self.varargs { n - 1 } else { n };
        if args.len() != n && !(self.varargs && args.len() >= fixed) {
            return None;
        }
        let mut score = 0;
        for (k, arg) in args.iter().enumerate() {
            let param = if k < fixed {
                self.types[k].as_str()
            } else {
                let array = self.types[n - 1].as_str();
                // The array itself, or one of its elements.
                if args.len() == n && fits(arg, array, &self.type_variables).is_some() {
                    array
                } else {
                    array.strip_suffix("[]").unwrap_or(array)
                }
            };
            score += fits(arg, param, &self.type_variables)?;
        }
        Some(score)
    }
}

/// The parameters of a signature (`<T>(T[] a, int n): T[]`), or `None` when it cannot be
/// read.
fn parameters(signature: &str) -> Option<Parameters> {
    let mut type_variables = Vec::new();
    let mut rest = signature;
    if let Some(inner) = rest.strip_prefix('<') {
        let close = matching(inner, '<', '>')?;
        for item in split_top(&inner[..close]) {
            if let Some(name) = item.split_whitespace().next() {
                type_variables.push(name.to_owned());
            }
        }
        rest = &inner[close + 1..];
    }
    let list = rest.trim_start().strip_prefix('(')?;
    let close = matching(list, '(', ')')?;
    let mut types = Vec::new();
    let mut varargs = false;
    for param in split_top(&list[..close]) {
        // Annotations and `final`, then the type, then the name (`int a[]`: dimensions
        // after the name belong to the type).
        let words: Vec<&str> = param
            .split_whitespace()
            .filter(|w| !w.starts_with('@') && *w != "final")
            .collect();
        let (name, ty) = words.split_last()?;
        let mut ty = wit_core::signature::without_type_arguments(&ty.join(" "));
        ty.push_str(&"[]".repeat(name.matches('[').count()));
        varargs = ty.ends_with("...");
        types.push(ty.replace("...", "[]"));
    }
    Some(Parameters {
        types,
        varargs,
        type_variables,
    })
}

/// How an argument of type `arg` fits a parameter of type `param` (2: the same type,
/// 1: a widening or `null`, 0: boxing, a type variable, an unknown or reference type
/// that may be a subtype), `None` when it cannot.
fn fits(arg: &str, param: &str, type_variables: &[String]) -> Option<usize> {
    const PRIMITIVES: [&str; 8] = [
        "boolean", "byte", "short", "char", "int", "long", "float", "double",
    ];
    let primitive = |t: &str| PRIMITIVES.contains(&t);
    let variable = |t: &str| {
        type_variables.iter().any(|v| v == t)
            || (t.len() <= 2 && t.starts_with(|c: char| c.is_ascii_uppercase()))
    };
    if arg == "?" {
        return Some(0);
    }
    if arg == param {
        return Some(2);
    }
    if arg == "null" {
        return (!primitive(param)).then_some(1);
    }
    if arg == "->" {
        return (!primitive(param) && !param.ends_with("[]")).then_some(0);
    }
    match (arg.strip_suffix("[]"), param.strip_suffix("[]")) {
        (Some(a), Some(p)) => {
            return if primitive(a) || primitive(p) {
                (a == p).then_some(2)
            } else {
                fits(a, p, type_variables)
            };
        }
        (Some(_), None) => {
            return (variable(param) || matches!(param, "Object" | "Cloneable" | "Serializable"))
                .then_some(0);
        }
        (None, Some(_)) => return None,
        (None, None) => {}
    }
    if variable(param) {
        return Some(0);
    }
    match (primitive(arg), primitive(param)) {
        (true, true) => widens(arg, param).then_some(1),
        (true, false) => (boxed(arg) == Some(param)
            || matches!(param, "Object" | "Number" | "Comparable" | "Serializable"))
        .then_some(0),
        (false, true) => (boxed(param) == Some(arg)).then_some(0),
        // A final class of the JDK has no subtypes; of any other two reference types one
        // may extend the other, and wit does not know the subtypes.
        (false, false) => (!FINAL_CLASSES.contains(&param)).then_some(0),
    }
}

/// Classes of `java.lang` no class extends: an argument of another type never fits.
const FINAL_CLASSES: [&str; 10] = [
    "String",
    "Boolean",
    "Byte",
    "Short",
    "Character",
    "Integer",
    "Long",
    "Float",
    "Double",
    "Class",
];

/// Whether Java widens the primitive `from` to `to`.
fn widens(from: &str, to: &str) -> bool {
    let order = |t: &str| match t {
        "byte" => Some(0),
        "short" => Some(1),
        "int" => Some(2),
        "long" => Some(3),
        "float" => Some(4),
        "double" => Some(5),
        _ => None,
    };
    match (from, order(from), order(to)) {
        ("char", _, Some(t)) => t >= 2,
        (_, Some(f), Some(t)) => f < t && !(f == 1 && to == "char"),
        _ => false,
    }
}

/// The class a primitive is boxed into.
fn boxed(primitive: &str) -> Option<&'static str> {
    Some(match primitive {
        "boolean" => "Boolean",
        "byte" => "Byte",
        "short" => "Short",
        "char" => "Character",
        "int" => "Integer",
        "long" => "Long",
        "float" => "Float",
        "double" => "Double",
        _ => return None,
    })
}

/// The offset in `s` of the `close` matching an `open` just before `s`.
fn matching(s: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            if depth == 0 {
                return Some(i);
            }
            depth -= 1;
        }
    }
    None
}

/// `s` split at its top-level commas, the pieces trimmed, empty ones dropped.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut from) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[from..i].trim());
                from = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[from..].trim());
    out.retain(|p| !p.is_empty());
    out
}

/// How many arguments `arguments` (see [`choose`]) lists.
fn arity(arguments: Option<&str>) -> Option<usize> {
    arguments.map(|a| {
        if a.is_empty() {
            0
        } else {
            a.split(", ").count()
        }
    })
}

/// Whether `name` with `arity` arguments is a public method of `java.lang.Object`, which
/// every class without a superclass inherits.
fn is_object_method(name: &str, arity: Option<usize>) -> bool {
    let arities: &[usize] = match name {
        "equals" => &[1],
        "hashCode" | "toString" | "getClass" | "notify" | "notifyAll" | "clone" | "finalize" => {
            &[0]
        }
        "wait" => &[0, 1, 2],
        _ => return false,
    };
    arity.is_none_or(|n| arities.contains(&n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_read_through_type_arguments_annotations_and_varargs() {
        let p =
            parameters("<K, V>(final Map<K, V> m, @Nullable int[] a, Object... rest): V").unwrap();
        assert_eq!(p.types, ["Map", "int[]", "Object[]"]);
        assert!(p.varargs);
        assert_eq!(p.type_variables, ["K", "V"]);
        assert_eq!(parameters("()").unwrap().types, Vec::<String>::new());
        assert_eq!(
            parameters("(int a[], long b): void").unwrap().types,
            ["int[]", "long"]
        );
    }

    #[test]
    fn overloads_are_told_apart_by_count_and_by_the_types_that_show() {
        let sigs = [
            "(char c, Locale l): void",
            "(String s, Locale l): void",
            "(int i, Locale l): void",
            "(Object o, Locale l): void",
            "(int[] a): void",
            "(long[] a): void",
            "(Object[] a, int from, int to): void",
        ];
        let signature = |i: usize| Some(sigs[i]);
        let all: Vec<usize> = (0..4).collect();
        let pick = |args: &str| match choose(&all, &signature, Some(args)) {
            Choice::One(i) => Some(i),
            _ => None,
        };
        assert_eq!(pick("String, ?"), Some(1));
        assert_eq!(pick("char, Locale"), Some(0));
        assert_eq!(pick("int, ?"), Some(2));
        assert_eq!(
            pick("Flags, ?"),
            Some(3),
            "a reference type fits Object only"
        );
        assert_eq!(pick("?, ?"), None, "nothing tells them apart");
        let arrays = [4, 5, 6];
        let pick = |args: &str| match choose(&arrays, &signature, Some(args)) {
            Choice::One(i) => Some(i),
            _ => None,
        };
        assert_eq!(pick("long[]"), Some(5));
        assert_eq!(pick("?, int, int"), Some(6), "by count alone");
        assert!(matches!(
            choose(&arrays, &signature, Some("String")),
            Choice::None
        ));
    }
}
