//! Inside each crate of the workspace, imports run one way: no two source files reach into
//! each other, directly or around a circle (`store/db.rs` → `state.rs` → … → `store/db.rs`).
//! A piece two files share gets its own home below both (`daemon/src/clock.rs`,
//! `daemon/src/methods/holds.rs`, `cli/src/instructions.rs`, …).
//!
//! What counts as an import of a file: a path `crate::a::b`, `super::x` or `self::y`
//! anywhere in its code (a `use`, or a path written in place), resolved to the deepest
//! module that is a file; `use crate::{a, b::c}` names each member. Comments and string
//! literals are not code; unit-test modules (`#[cfg(test)] mod … { … }`, `tests.rs`,
//! `*_tests.rs`) may use whatever they test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// The crates' `src/` folders.
const CRATES: &[&str] = &[
    "analyzers",
    "bench",
    "boundary",
    "cli",
    "core",
    "daemon",
    "examples/analyzer-go",
    "graph",
    "merge",
    "testkit",
];

#[test]
fn no_two_files_of_a_crate_import_each_other_even_around_a_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut circles = Vec::new();
    for krate in CRATES {
        let src = root.join(krate).join("src");
        let files = modules(&src);
        let graph: BTreeMap<Module, BTreeSet<Module>> = files
            .iter()
            .map(|(module, path)| {
                let code = code_of(&std::fs::read_to_string(path).unwrap());
                let targets = imports(module, &code)
                    .into_iter()
                    .filter_map(|m| resolve(&files, &m))
                    .filter(|t| t != module && !t.is_empty())
                    .collect();
                (module.clone(), targets)
            })
            .collect();
        for circle in strongly_connected(&graph) {
            let shown: Vec<String> = circle.iter().map(|m| m.join("/")).collect();
            let edges: Vec<String> = circle
                .iter()
                .flat_map(|a| {
                    graph[a]
                        .iter()
                        .filter(|b| circle.contains(*b))
                        .map(move |b| format!("{} -> {}", a.join("/"), b.join("/")))
                })
                .collect();
            circles.push(format!(
                "{krate}/src: {shown:?}\n    {}",
                edges.join("\n    ")
            ));
        }
    }
    assert!(
        circles.is_empty(),
        "files importing each other:\n{}",
        circles.join("\n")
    );
}

/// The checker itself: a circle through a parent module is found, a test module is not
/// code, and comments and strings name nothing.
#[test]
fn the_layout_checker_sees_paths_and_ignores_tests_comments_and_strings() {
    let code = code_of(
        "use crate::a::b; // crate::c\nfn f() { let s = \"crate::d\"; super::e::g(); }\n\
         #[cfg(test)]\nmod tests { use crate::z; }\n",
    );
    let found: Vec<Module> = imports(&vec!["x".into(), "y".into()], &code);
    let want: Vec<Module> = vec![
        vec!["a".into(), "b".into()],
        vec!["x".into(), "e".into(), "g".into()],
    ];
    assert_eq!(found, want);
    let grouped = imports(&vec!["m".into()], "use crate::{p, q::r};");
    assert_eq!(
        grouped,
        vec![vec!["p".to_owned()], vec!["q".to_owned(), "r".to_owned()]]
    );
    let mut g = BTreeMap::new();
    let (a, b, c): (Module, Module, Module) =
        (vec!["a".into()], vec!["b".into()], vec!["c".into()]);
    g.insert(a.clone(), BTreeSet::from([b.clone()]));
    g.insert(b.clone(), BTreeSet::from([a.clone()]));
    g.insert(c.clone(), BTreeSet::from([a.clone()]));
    assert_eq!(strongly_connected(&g), vec![BTreeSet::from([a, b])]);
}

/// Every source file of `src` by its module path (`methods/locks`; `mod.rs`, `lib.rs` and
/// `main.rs` name their folder), test-only files left out.
fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Some(stem) = path
                .extension()
                .filter(|e| *e == "rs")
                .and(path.file_stem())
                .and_then(|s| s.to_str())
            else {
                continue;
            };
            if stem == "tests" || stem.ends_with("_tests") {
                continue;
            }
            let rel = path.parent().unwrap().strip_prefix(src).unwrap();
            let mut module: Module = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if !matches!(stem, "mod" | "lib" | "main") {
                module.push(stem.to_owned());
            }
            out.insert(module, path);
        }
    }
    out
}

/// The text with comments, string and character literals blanked and `#[cfg(test)]`
/// modules removed.
fn code_of(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'r' if matches!(b.get(i + 1), Some(b'#' | b'"'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                i += 2 + hashes;
                while i < b.len() && !b[i..].starts_with(&close) {
                    i += 1;
                }
                i += close.len();
                out.push_str("\"\"");
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            // A character literal (not a lifetime): 'x', '\n', '\u{..}'.
            b'\'' if b.get(i + 2) == Some(&b'\'') || b.get(i + 1) == Some(&b'\\') => {
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("' '");
            }
            _ => {
                let c = text[i..].chars().next().unwrap();
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    without_test_modules(&out)
}

fn without_test_modules(code: &str) -> String {
    let mut out = code.to_owned();
    while let Some(at) = out.find("#[cfg(test)]") {
        let rest = out[at + "#[cfg(test)]".len()..].trim_start();
        let is_inline_mod = (rest.starts_with("mod ") || rest.starts_with("pub(crate) mod "))
            && rest
                .find('{')
                .is_some_and(|b| rest.find(';').is_none_or(|s| b < s));
        let Some(open) = out[at..]
            .find('{')
            .map(|o| at + o)
            .filter(|_| is_inline_mod)
        else {
            // Not a module (a test-only item or a `mod x;` declaration): keep it.
            out.replace_range(at..at + "#[cfg(test)]".len(), "");
            continue;
        };
        let mut depth = 0usize;
        let mut end = out.len();
        for (k, ch) in out[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.replace_range(at..end, "");
    }
    out
}

/// The module paths `code` (of `module`) names through `crate::`, `super::`, `self::`.
fn imports(module: &Module, code: &str) -> Vec<Module> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for base in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(pos) = code[from..].find(base).map(|p| p + from) {
            from = pos + base.len();
            let word_start =
                pos == 0 || !(bytes[pos - 1].is_ascii_alphanumeric() || bytes[pos - 1] == b'_');
            // `super::super::` is read whole from its first `super`.
            if !word_start || (base == "super::" && code[..pos].ends_with("super::")) {
                continue;
            }
            let mut prefix: Module = match base {
                "crate::" => Vec::new(),
                "self::" => module.clone(),
                _ => module[..module.len().saturating_sub(1)].to_vec(),
            };
            let mut rest = &code[from..];
            while let Some(r) = rest.strip_prefix("super::") {
                prefix.pop();
                rest = r;
            }
            if let Some(group) = rest.strip_prefix('{') {
                let inner = &group[..group.find('}').unwrap_or(group.len())];
                for member in inner.split(',') {
                    let path = segments(member.trim());
                    if !path.is_empty() && path[0] != "self" {
                        out.push(prefix.iter().cloned().chain(path).collect());
                    }
                }
            } else {
                let path = segments(rest);
                if !path.is_empty() {
                    out.push(prefix.into_iter().chain(path).collect());
                }
            }
        }
    }
    out
}

/// `a::b::c` at the start of `s`, as segments.
fn segments(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    loop {
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        out.push(rest[..end].to_owned());
        match rest[end..].strip_prefix("::") {
            Some(r) if r.starts_with(|c: char| c.is_alphanumeric() || c == '_') => rest = r,
            _ => break,
        }
    }
    out
}

/// The deepest module of `path` that is a file.
fn resolve(files: &BTreeMap<Module, PathBuf>, path: &Module) -> Option<Module> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|m| files.contains_key(m))
}

/// The strongly connected components of more than one module (Tarjan).
fn strongly_connected(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<BTreeSet<Module>> {
    struct State<'g> {
        graph: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'g Module, usize>,
        low: BTreeMap<&'g Module, usize>,
        stack: Vec<&'g Module>,
        on_stack: BTreeSet<&'g Module>,
        out: Vec<BTreeSet<Module>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g Module) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let Some(w) = s.graph.get_key_value(w).map(|(k, _)| k) else {
                continue;
            };
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.insert(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}
