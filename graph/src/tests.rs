//! Multi-file fixtures for every resolution form, with exact edges.

use std::sync::Arc;

use super::*;

fn graph(files: &[(&str, &str)]) -> Graph {
    let mut g = Graph::new();
    for (path, source) in files {
        if is_config_file(path) {
            g.set_config_file(path, Some(source));
            continue;
        }
        g.insert(path, analyse(path, source));
    }
    g
}

/// `source` analysed as the file at `path` by the built-in analyzer of its language.
fn analyse(path: &str, source: &str) -> Arc<Analysis> {
    let registry = wit_analyzers::builtin_registry();
    let analyzer = registry.for_path(path).expect("supported");
    Arc::new(analyzer.analyze_full(source).expect("analyses"))
}

fn sym(g: &Graph, path: &str) -> SymbolRef {
    let (file, name) = path.split_once(':').unwrap();
    g.symbol(file, name).unwrap_or_else(|| panic!("no {path}"))
}

/// `callee (resolution)` of every direct callee of `path`.
fn callees(g: &Graph, path: &str) -> Vec<String> {
    g.callees(&sym(g, path), 1)
        .iter()
        .map(|e| format!("{} ({})", e.callee.path(), e.resolution.as_str()))
        .collect()
}

/// `caller (resolution) line` of every direct caller of `path`, sorted.
fn callers(g: &Graph, path: &str) -> Vec<String> {
    let mut v: Vec<String> = g
        .callers(&sym(g, path), 1)
        .iter()
        .map(|e| {
            format!(
                "{} ({}) L{}",
                e.caller.path(),
                e.resolution.as_str(),
                e.line + 1
            )
        })
        .collect();
    v.sort();
    v
}

const DB: &str = "export function query(sql: string) { return run(sql); }\nfunction run(s: string) { return s; }\nexport default function connect() {}\nexport class Repo {\n  find(id: string) { return this.load(id); }\n  load(id: string) { return query(id); }\n}\n";

#[test]
fn esm_named_default_namespace_and_aliased_imports_resolve_across_files() {
    let g = graph(&[
        ("src/db.ts", DB),
        (
            "src/api.ts",
            "import connect, { query as q, Repo } from './db';\nimport * as db from './db.js';\nexport function handler() {\n  q('a');\n  db.query('b');\n  connect();\n  new Repo().find('x');\n  missing();\n  obj.run();\n}\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "src/api.ts:handler"),
        [
            "src/db.ts:query (resolved)",
            "src/db.ts:connect (resolved)",
            "src/db.ts:Repo.find (resolved)",
            "?:missing (unresolved)",
            "src/db.ts:run (name-only)",
        ]
    );
    assert_eq!(
        callers(&g, "src/db.ts:query"),
        [
            "src/api.ts:handler (resolved) L4",
            "src/db.ts:Repo.load (resolved) L6"
        ]
    );
    // `this.load()` inside the class.
    assert_eq!(
        callees(&g, "src/db.ts:Repo.find"),
        ["src/db.ts:Repo.load (resolved)"]
    );
}

#[test]
fn chains_of_re_exports_index_files_export_star_and_cycles() {
    let g = graph(&[
        (
            "src/core/impl.ts",
            "export function parse(s: string) { return s; }\nexport function other() {}\n",
        ),
        (
            "src/core/index.ts",
            "export { parse as parseIt } from './impl';\nexport * from './impl';\nexport * from '../cycle';\n",
        ),
        (
            "src/cycle.ts",
            "export * from './core';\nexport * from './cycle';\n",
        ),
        (
            "src/lib.ts",
            "import { parseIt } from './core';\nexport { parseIt };\nexport { other as renamed } from './cycle';\n",
        ),
        (
            "src/main.ts",
            "import { parseIt, renamed } from './lib';\nimport { nothere } from './cycle';\nexport function main() { parseIt('x'); renamed(); nothere(); }\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "src/main.ts:main"),
        [
            "src/core/impl.ts:parse (resolved)",
            "src/core/impl.ts:other (resolved)",
            "?:nothere (unresolved)",
        ]
    );
    assert_eq!(
        callers(&g, "src/core/impl.ts:parse"),
        ["src/main.ts:main (resolved) L3"]
    );
}

#[test]
fn commonjs_require_module_exports_and_exports_x_resolve() {
    let g = graph(&[
        (
            "lib/response.js",
            "var res = module.exports = {};\nres.status = function status(code) { return this; };\nexports.send = function (body) { return format(body); };\nfunction format(b) { return b; }\n",
        ),
        (
            "lib/util.js",
            "function helper() {}\nfunction other() {}\nmodule.exports = { helper, alias: other };\n",
        ),
        (
            "lib/Repo.js",
            "function Repo() {}\nRepo.prototype.find = function () { return 1; };\nmodule.exports = Repo;\n",
        ),
        (
            "lib/app.js",
            "const response = require('./response');\nconst { helper, alias } = require('./util');\nconst Repo = require('./Repo');\nfunction handle() {\n  response.send('x');\n  helper();\n  alias();\n  new Repo().find();\n}\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "lib/app.js:handle"),
        [
            "lib/response.js:send (resolved)",
            "lib/util.js:helper (resolved)",
            "lib/util.js:other (resolved)",
            "lib/Repo.js:Repo.find (resolved)",
        ]
    );
    assert!(g.symbol("lib/response.js", "res.status").is_some());
}

#[test]
fn tsconfig_paths_and_inherited_and_super_methods() {
    let g = graph(&[
        (
            "tsconfig.json",
            "{ \"compilerOptions\": { \"baseUrl\": \".\", \"paths\": { \"@/*\": [\"src/*\"] } } }",
        ),
        (
            "src/base.ts",
            "export class Base {\n  save() { return 1; }\n  log() {}\n}\n",
        ),
        (
            "src/user.ts",
            "import { Base } from '@/base';\nexport class User extends Base {\n  save() { super.save(); this.log(); return this.save(); }\n}\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "src/user.ts:User.save"),
        [
            "src/base.ts:Base.save (resolved)",
            "src/base.ts:Base.log (resolved)",
            "src/user.ts:User.save (resolved)",
        ]
    );
}

#[test]
fn python_imports_packages_init_re_exports_relative_and_self_cls_super() {
    let g = graph(&[
        (
            "pkg/__init__.py",
            "from .db import query as q\nfrom . import models\n",
        ),
        (
            "pkg/db.py",
            "def query(sql):\n    return run(sql)\n\ndef run(s):\n    return s\n",
        ),
        (
            "pkg/models.py",
            "from .db import query\n\nclass Base:\n    def save(self):\n        return query('x')\n\n    @classmethod\n    def make(cls):\n        return cls.build()\n\n    @classmethod\n    def build(cls):\n        pass\n",
        ),
        (
            "app/views.py",
            "import pkg.db\nimport pkg.db as database\nfrom pkg import q, models\nfrom pkg.models import Base as B\n\nclass User(B):\n    def save(self):\n        super().save()\n        self.make()\n        pkg.db.query('a')\n        database.run('b')\n        q('c')\n        models.Base()\n        return print('d')\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "app/views.py:User.save"),
        [
            "?:super (unresolved)",
            "pkg/models.py:Base.save (resolved)",
            "pkg/models.py:Base.make (resolved)",
            "pkg/db.py:query (resolved)",
            "pkg/db.py:run (resolved)",
            "pkg/models.py:Base (resolved)",
            "?:print (unresolved)",
        ]
    );
    assert_eq!(
        callees(&g, "pkg/models.py:Base.make"),
        ["pkg/models.py:Base.build (resolved)"]
    );
    assert_eq!(
        callers(&g, "pkg/db.py:query"),
        [
            "app/views.py:User.save (resolved) L10",
            "pkg/models.py:Base.save (resolved) L5"
        ]
    );
}

#[test]
fn depth_walks_callers_of_callers_once_each_even_in_cycles() {
    let g = graph(&[
        (
            "a.ts",
            "import { b } from './b';\nexport function a() { b(); }\n",
        ),
        (
            "b.ts",
            "import { c } from './c';\nexport function b() { c(); }\n",
        ),
        (
            "c.ts",
            "import { a } from './a';\nexport function c() { a(); }\n",
        ),
    ]);
    let edges: Vec<(String, String, usize)> = g
        .callers(&sym(&g, "c.ts:c"), 5)
        .iter()
        .map(|e| (e.caller.path(), e.callee.path(), e.depth))
        .collect();
    assert_eq!(
        edges,
        [
            ("b.ts:b".to_owned(), "c.ts:c".to_owned(), 1),
            ("a.ts:a".to_owned(), "b.ts:b".to_owned(), 2),
            ("c.ts:c".to_owned(), "a.ts:a".to_owned(), 3),
        ]
    );
    let down: Vec<String> = g
        .callees(&sym(&g, "a.ts:a"), 2)
        .iter()
        .map(|e| e.callee.path())
        .collect();
    assert_eq!(down, ["b.ts:b", "c.ts:c"]);
}

#[test]
fn a_removed_or_renamed_file_leaves_no_edges_and_the_new_name_resolves() {
    let mut g = graph(&[
        ("db.ts", "export function query() {}\n"),
        (
            "api.ts",
            "import { query } from './db';\nexport function h() { query(); }\n",
        ),
    ]);
    assert_eq!(callees(&g, "api.ts:h"), ["db.ts:query (resolved)"]);
    let moved = g.get("db.ts").unwrap().clone();
    g.remove("db.ts");
    assert_eq!(callees(&g, "api.ts:h"), ["?:query (unresolved)"]);
    g.insert("store.ts", moved);
    assert_eq!(callees(&g, "api.ts:h"), ["?:query (unresolved)"]);
    let registry = wit_analyzers::builtin_registry();
    let edited = registry
        .for_path("api.ts")
        .unwrap()
        .analyze_full("import { query } from './store';\nexport function h() { query(); }\n")
        .unwrap();
    g.insert("api.ts", Arc::new(edited));
    assert_eq!(callees(&g, "api.ts:h"), ["store.ts:query (resolved)"]);
    assert_eq!(callers(&g, "store.ts:query"), ["api.ts:h (resolved) L2"]);
}

#[test]
fn analyses_without_call_sites_and_plugin_languages_use_same_file_and_same_package() {
    let mut g = Graph::new();
    let def = |name: &str| wit_core::Symbol {
        name: name.into(),
        kind: wit_core::SymbolKind::Function,
        container: None,
        start_byte: 0,
        end_byte: 1,
        start_line: 0,
        end_line: 0,
        signature: Some("()".into()),
    };
    let edge = |a: &str, b: &str| wit_core::CallEdge {
        caller: a.into(),
        callee: b.into(),
    };
    g.insert(
        "pkg/a.go",
        Arc::new(Analysis::from(wit_core::FileAnalysis {
            symbols: vec![def("Run"), def("local")],
            calls: vec![
                edge("Run", "helper"),
                edge("Run", "local"),
                edge("Run", "Println"),
            ],
        })),
    );
    g.insert("pkg/b.go", Arc::new(Analysis::new(vec![def("helper")])));
    g.insert("other/c.go", Arc::new(Analysis::new(vec![def("Println")])));
    assert_eq!(
        callees(&g, "pkg/a.go:Run"),
        [
            "pkg/b.go:helper (resolved)",
            "pkg/a.go:local (resolved)",
            "?:Println (unresolved)"
        ]
    );
    assert_eq!(
        callers(&g, "pkg/b.go:helper"),
        ["pkg/a.go:Run (resolved) L1"]
    );
}

#[test]
fn nearest_names_suggest_close_addresses() {
    let g = graph(&[(
        "a.ts",
        "export function validateToken() {}\nexport function validate() {}\nclass A { save() {} }\n",
    )]);
    let a = g.get("a.ts").unwrap();
    assert_eq!(
        Graph::nearest_names(a, "validateTokn", 3),
        ["validateToken", "validate"]
    );
    assert_eq!(Graph::nearest_names(a, "A.sav", 3), ["A.save"]);
    assert!(Graph::nearest_names(a, "zzzzzzzzzz", 3).is_empty());
}

#[test]
fn resolution_counts_cover_every_site() {
    let g = graph(&[
        ("db.ts", "export function query() {}\n"),
        (
            "api.ts",
            "import { query } from './db';\nexport function h() { query(); x.query(); nope(); }\n",
        ),
    ]);
    assert_eq!(g.resolution_counts(), (1, 1, 1));
}

#[test]
fn callers_through_a_renamed_default_import_are_found() {
    let g = graph(&[
        ("src/db.ts", DB),
        (
            "src/b.ts",
            "import c from './db';\nexport function b() { c(); }\n",
        ),
        ("src/other.ts", "export default function unrelated() {}\n"),
        (
            "src/d.ts",
            "import u from './other';\nexport function d() { u(); }\n",
        ),
    ]);
    assert_eq!(
        callers(&g, "src/db.ts:connect"),
        ["src/b.ts:b (resolved) L2"]
    );
    assert_eq!(
        callers(&g, "src/other.ts:unrelated"),
        ["src/d.ts:d (resolved) L2"]
    );
}

/// Re-inserting a file updates the callee index by difference: names it stopped calling
/// lose it, names it started calling gain it, names it still calls keep it, and removing
/// it afterwards leaves nothing behind.
#[test]
fn a_reinserted_file_gains_and_loses_exactly_the_callers_its_edit_changed() {
    let mut g = graph(&[("src/db.ts", DB)]);
    let v1 =
        "import { query, connect } from './db';\nexport function a() { query('x'); connect(); }\n";
    let v2 = "import { query, Repo } from './db';\nexport function a() { query('y'); new Repo().find('1'); }\n";
    g.insert("src/api.ts", analyse("src/api.ts", v1));
    assert_eq!(
        callers(&g, "src/db.ts:query"),
        [
            "src/api.ts:a (resolved) L2",
            "src/db.ts:Repo.load (resolved) L6"
        ]
    );
    assert_eq!(
        callers(&g, "src/db.ts:connect"),
        ["src/api.ts:a (resolved) L2"]
    );
    assert!(callers(&g, "src/db.ts:Repo.find").is_empty());
    g.insert("src/api.ts", analyse("src/api.ts", v2));
    assert_eq!(
        callers(&g, "src/db.ts:query"),
        [
            "src/api.ts:a (resolved) L2",
            "src/db.ts:Repo.load (resolved) L6"
        ]
    );
    assert!(callers(&g, "src/db.ts:connect").is_empty());
    assert_eq!(
        callers(&g, "src/db.ts:Repo.find"),
        ["src/api.ts:a (resolved) L2"]
    );
    assert_eq!(
        callees(&g, "src/api.ts:a"),
        [
            "src/db.ts:query (resolved)",
            "src/db.ts:Repo.find (resolved)"
        ]
    );
    g.remove("src/api.ts");
    assert_eq!(
        callers(&g, "src/db.ts:query"),
        ["src/db.ts:Repo.load (resolved) L6"]
    );
    assert!(callers(&g, "src/db.ts:Repo.find").is_empty());
    assert!(g.by_callee.values().all(|files| {
        !files
            .iter()
            .any(|&n| g.paths_by_id[n as usize].as_deref() == Some("src/api.ts"))
    }));
    // Its number is free again, and reused by the next file.
    assert_eq!(g.free_ids.len(), 1);
}

/// Every edge of every symbol of `g`, to depth 2, both ways (with `overlay` when given),
/// as text: what an overlay must reproduce exactly.
fn every_edge(g: &Graph, overlay: Option<Overlay<'_>>) -> Vec<String> {
    let mut paths: Vec<&Arc<str>> = g.paths().collect();
    paths.sort();
    let mut out = Vec::new();
    for file in paths {
        let a = g.get(file).unwrap().clone();
        for s in &a.symbols {
            let of = g.symbol(file, &a.address_of(s)).unwrap();
            for (way, edges) in [
                ("callers", g.callers_with(&of, 2, overlay)),
                ("callees", g.callees_with(&of, 2, overlay)),
            ] {
                for e in edges {
                    out.push(format!(
                        "{} {way}: {} -> {} ({}) L{} d{}",
                        of.path(),
                        e.caller.path(),
                        e.callee.path(),
                        e.resolution.as_str(),
                        e.line + 1,
                        e.depth
                    ));
                }
            }
        }
    }
    out
}

const OVERLAY_FILES: [(&str, &str); 5] = [
    ("src/db.ts", DB),
    // Two helpers of one name, each nested in its own function: which one a call means
    // depends on the call's line.
    (
        "src/walk.ts",
        "export function a() {\n  function walk() { return 1; }\n  return walk();\n}\nexport function b() {\n  function walk() { return 2; }\n  return walk();\n}\n",
    ),
    (
        "src/api.ts",
        "import connect, { query as q, Repo } from './db';\nimport * as db from './db.js';\nexport function handler() {\n  q('a');\n  db.query('b');\n  connect();\n}\nexport class Svc {\n  go() { return this.stop(); }\n  stop() { return new Repo().find('x'); }\n}\n",
    ),
    (
        "pkg/db.py",
        "def query(sql):\n    return run(sql)\n\ndef run(s):\n    return s\n",
    ),
    (
        "pkg/views.py",
        "from .db import query, run as r\n\nclass V:\n    def get(self):\n        return query('a')\n\n    def put(self):\n        return self.get()\n",
    ),
];

/// An overlay of a file whose edit kept its interface answers exactly as the graph does
/// once the edited file is re-inserted: callers and callees, both ways, to depth 2, in
/// every file (the overlaid file's own sites, and other files' sites into it).
#[test]
fn an_overlay_of_a_body_edit_answers_as_the_reinserted_file_would() {
    // Body edits: calls added, removed, moved to another function; lines shifted.
    let edits = [
        // `a` grows by four lines: its call of `walk` now stands on a line that was `b`'s.
        (
            "src/walk.ts",
            "export function a() {\n  function walk() { return 1; }\n  // one\n  // two\n  // three\n  // four\n  return walk();\n}\nexport function b() {\n  function walk() { return 2; }\n  return walk();\n}\n",
        ),
        (
            "src/api.ts",
            "import connect, { query as q, Repo } from './db';\nimport * as db from './db.js';\n\n\nexport function handler() {\n  connect();\n  new Repo().load('y');\n}\nexport class Svc {\n  go() { q('z'); return this.stop(); }\n  stop() { db.query('w'); return 1; }\n}\n",
        ),
        (
            "src/db.ts",
            "export function query(sql: string) { return sql; }\nfunction run(s: string) { return query(s); }\nexport default function connect() { run('a'); }\nexport class Repo {\n  find(id: string) { return id; }\n  load(id: string) { return this.find(id); }\n}\n",
        ),
        (
            "pkg/views.py",
            "from .db import query, run as r\n\nclass V:\n    def get(self):\n        return r('a')\n\n    def put(self):\n        query('b')\n        return self.get()\n",
        ),
        (
            "pkg/db.py",
            "def query(sql):\n    return sql\n\ndef run(s):\n    return query(s)\n",
        ),
    ];
    for (file, source) in edits {
        let mut g = graph(&OVERLAY_FILES);
        let fresh = analyse(file, source);
        assert!(g.same_interface(file, &fresh), "{file}: a body edit");
        let before = g.interface;
        let overlaid = every_edge(
            &g,
            Some(Overlay {
                file,
                analysis: &fresh,
            }),
        );
        g.insert(file, fresh.clone());
        assert_eq!(
            g.interface, before,
            "{file}: a body edit keeps the interface"
        );
        let reinserted = every_edge(&g, None);
        assert_eq!(overlaid, reinserted, "{file}");
        // And the edit did change some answer (else this would test nothing).
        assert_ne!(
            every_edge(&graph(&OVERLAY_FILES), None),
            reinserted,
            "{file}"
        );
    }
}

/// `callers_within` answers exactly the direct callers in the files it is given, in the
/// order of the whole answer: computed for those files alone (nothing remembered yet, or
/// with an overlay), or filtered from the remembered whole answer.
#[test]
fn callers_within_some_files_are_the_whole_answer_filtered() {
    let text = |edges: Vec<Edge>| -> Vec<String> {
        edges
            .iter()
            .map(|e| {
                format!(
                    "{} -> {} ({}) L{} d{}",
                    e.caller.path(),
                    e.callee.path(),
                    e.resolution.as_str(),
                    e.line + 1,
                    e.depth
                )
            })
            .collect()
    };
    let (edited, source) = (
        "src/db.ts",
        "export function query(sql: string) { return sql; }\nfunction run(s: string) { return query(s); }\nexport default function connect() { run('a'); }\nexport class Repo {\n  find(id: string) { return id; }\n  load(id: string) { return this.find(id); }\n}\n",
    );
    let fresh = analyse(edited, source);
    let overlays = [
        None,
        Some(Overlay {
            file: edited,
            analysis: &fresh,
        }),
    ];
    let mut compared = 0;
    for overlay in overlays {
        let g = graph(&OVERLAY_FILES);
        let mut paths: Vec<Arc<str>> = g.paths().cloned().collect();
        paths.sort();
        for file in &paths {
            let a = g.get(file).unwrap().clone();
            for s in &a.symbols {
                let of = g.symbol(file, &a.address_of(s)).unwrap();
                for keep in &paths {
                    let only = |f: &str| f == keep.as_ref();
                    let but = |f: &str| f != keep.as_ref();
                    // Before the whole answer is remembered, then after.
                    let cold = [
                        text(g.callers_within(&of, overlay, &only)),
                        text(g.callers_within(&of, overlay, &but)),
                    ];
                    let whole = g.callers_with(&of, 1, overlay);
                    let expected = |within: &dyn Fn(&str) -> bool| {
                        text(
                            whole
                                .iter()
                                .filter(|e| within(&e.caller.file))
                                .cloned()
                                .collect(),
                        )
                    };
                    let expected = [expected(&only), expected(&but)];
                    let warm = [
                        text(g.callers_within(&of, overlay, &only)),
                        text(g.callers_within(&of, overlay, &but)),
                    ];
                    assert_eq!(cold, expected, "{} within {keep}", of.path());
                    assert_eq!(warm, expected, "{} within {keep}", of.path());
                    compared += usize::from(!expected[0].is_empty());
                }
            }
        }
    }
    // Some callers were found in a file on its own (else this would test nothing).
    assert!(compared > 10, "{compared}");
}

/// Resolutions are remembered per file, and forgotten when any file's interface changes:
/// a re-export pointed elsewhere moves the caller to the new definition at once, while a
/// body edit elsewhere leaves what was remembered in place.
#[test]
fn remembered_resolutions_are_forgotten_when_an_interface_changes() {
    let impl_ = "export function parse(s: string) { return s; }\n";
    let mut g = graph(&[
        ("src/impl.ts", impl_),
        ("src/impl2.ts", impl_),
        ("src/index.ts", "export { parse } from './impl';\n"),
        (
            "src/main.ts",
            "import { parse } from './index';\nexport function main() { parse('x'); }\n",
        ),
    ]);
    assert_eq!(
        callers(&g, "src/impl.ts:parse"),
        ["src/main.ts:main (resolved) L2"]
    );
    assert!(callers(&g, "src/impl2.ts:parse").is_empty());
    let remembered = |g: &Graph| {
        let memo = g.files["src/main.ts"].memo.lock().unwrap();
        (memo.generation == g.interface) as usize * memo.found.as_ref().map_or(0, |f| f.len())
    };
    assert_eq!(remembered(&g), 1);
    // A body edit of another file: the interface stands, so does the memo.
    let before = g.interface;
    g.insert(
        "src/impl2.ts",
        analyse(
            "src/impl2.ts",
            "export function parse(s: string) { return s + s; }\n",
        ),
    );
    assert_eq!(g.interface, before);
    assert_eq!(remembered(&g), 1);
    // The re-export now points at the other file: every memo is stale.
    g.insert(
        "src/index.ts",
        analyse("src/index.ts", "export { parse } from './impl2';\n"),
    );
    assert_ne!(g.interface, before);
    assert_eq!(remembered(&g), 0);
    assert!(callers(&g, "src/impl.ts:parse").is_empty());
    assert_eq!(
        callers(&g, "src/impl2.ts:parse"),
        ["src/main.ts:main (resolved) L2"]
    );
    // Removing a file, or adding one, is an interface change too.
    let before = g.interface;
    g.remove("src/impl.ts");
    assert_ne!(g.interface, before);
    let before = g.interface;
    g.insert("src/new.ts", analyse("src/new.ts", impl_));
    assert_ne!(g.interface, before);
}

/// Issue 24: the declarative languages across files, where imports are simple (see
/// `packages.rs`): Go packages by import path, Java imports and packages, Rust
/// `use crate::…`, C# types of one directory. A name only shared is never resolved.
#[test]
fn declarative_languages_resolve_across_files() {
    let g = graph(&[
        (
            "cmd/main.go",
            "package main\n\nimport (\n\t\"fmt\"\n\ttax \"example.com/acme/tax\"\n)\n\nfunc Run() {\n\ttax.Apply(1)\n\tfmt.Println(\"x\")\n}\n",
        ),
        (
            "tax/apply.go",
            "package tax\n\nfunc Apply(n int) int { return n }\n",
        ),
        (
            "other/apply.go",
            "package other\n\nfunc Apply(n int) int { return n }\n",
        ),
        (
            "src/main/java/com/acme/shop/Shop.java",
            "package com.acme.shop;\nimport com.acme.tax.Rates;\nclass Shop {\n  int total(int n) { return Rates.price(n) + Cart.count(); }\n}\n",
        ),
        (
            "src/main/java/com/acme/shop/Cart.java",
            "package com.acme.shop;\nclass Cart { static int count() { return 0; } }\n",
        ),
        (
            "src/main/java/com/acme/tax/Rates.java",
            "package com.acme.tax;\npublic class Rates { public static int price(int n) { return n; } }\n",
        ),
        (
            "src/shop.rs",
            "use crate::store::save;\nuse crate::model::Order;\nuse crate::store;\n\nfn checkout() {\n    save(1);\n    store::load();\n    Order::new();\n    crate::store::load();\n}\n",
        ),
        ("src/store.rs", "pub fn save(n: u32) {}\npub fn load() {}\n"),
        (
            "src/model/mod.rs",
            "pub struct Order;\nimpl Order {\n    pub fn new() -> Order { Order }\n}\n",
        ),
        (
            "app/Shop.cs",
            "class Shop { int Total() { return Rates.Price(1); } }\n",
        ),
        (
            "app/Rates.cs",
            "static class Rates { public static int Price(int n) { return n; } }\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "cmd/main.go:Run"),
        ["tax/apply.go:Apply (resolved)", "?:Println (unresolved)"]
    );
    assert_eq!(callers(&g, "other/apply.go:Apply"), Vec::<String>::new());
    assert_eq!(
        callees(&g, "src/main/java/com/acme/shop/Shop.java:Shop.total"),
        [
            "src/main/java/com/acme/tax/Rates.java:Rates.price (resolved)",
            "src/main/java/com/acme/shop/Cart.java:Cart.count (resolved)"
        ]
    );
    assert_eq!(
        callees(&g, "src/shop.rs:checkout"),
        [
            "src/store.rs:save (resolved)",
            "src/store.rs:load (resolved)",
            "src/model/mod.rs:Order.new (resolved)"
        ]
    );
    assert_eq!(
        callers(&g, "src/store.rs:load"),
        ["src/shop.rs:checkout (resolved) L7"]
    );
    assert_eq!(
        callees(&g, "app/Shop.cs:Shop.Total"),
        ["app/Rates.cs:Rates.Price (resolved)"]
    );
}

/// A plain call inside a Java or C# method is a call of its own type's method (implicit
/// `this`); `this.m()` and Rust's `self.m()` are too. A Rust or Go plain call never is.
#[test]
fn declarative_languages_resolve_calls_of_the_callers_own_type() {
    let g = graph(&[
        (
            "src/Shop.java",
            "class Shop {\n  int price(int n) { return n; }\n  int total() { return price(1) + this.price(2); }\n}\n",
        ),
        (
            "src/Shop.cs",
            "class Shop {\n  int Price(int n) { return n; }\n  int Total() { return Price(1) + this.Price(2); }\n}\n",
        ),
        (
            "src/shop.rs",
            "struct Shop;\nimpl Shop {\n    fn price(&self) -> u32 { 1 }\n    fn total(&self) -> u32 { self.price() + price() }\n}\nfn price() -> u32 { 2 }\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "src/Shop.java:Shop.total"),
        ["src/Shop.java:Shop.price (resolved)"]
    );
    assert_eq!(
        callees(&g, "src/Shop.cs:Shop.Total"),
        ["src/Shop.cs:Shop.Price (resolved)"]
    );
    assert_eq!(
        callees(&g, "src/shop.rs:Shop.total"),
        [
            "src/shop.rs:Shop.price (resolved)",
            // `#function`: the bare name `price` is shared with the method.
            "src/shop.rs:price#function (resolved)"
        ]
    );
}

/// Issue 23's forms: a call through an `export *` barrel ending in a renaming re-export,
/// and an import of a folder whose `index.ts` re-exports the name, resolve; a call through
/// a non-null assertion on a member of `this` (`this.opts.parseBody!(s)`, a function the
/// options object carries) is seen, and never claimed as the class's own `parseBody`.
#[test]
fn barrels_and_folder_indexes_resolve_and_a_non_null_member_call_is_not_misclaimed() {
    let g = graph(&[
        (
            "src/helpers.ts",
            "export function helper(n: number) { return n; }\n",
        ),
        (
            "src/barrel.ts",
            "export { helper as assist } from './helpers';\n",
        ),
        ("src/top.ts", "export * from './barrel';\n"),
        (
            "src/use.ts",
            "import { assist } from './top';\nexport function run() { return assist(1); }\n",
        ),
        (
            "src/utils/format.ts",
            "export function format(s: string) { return s; }\n",
        ),
        ("src/utils/index.ts", "export * from './format';\n"),
        (
            "src/page.ts",
            "import { format } from './utils';\nexport function show() { return format('x'); }\n",
        ),
        (
            "src/server.ts",
            "interface Opts { parseBody?: (s: string) => string }\nexport class Server {\n  opts: Opts = {};\n  handle(s: string) { return this.opts.parseBody!(s); }\n  parseBody(s: string) { return s; }\n}\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "src/use.ts:run"),
        ["src/helpers.ts:helper (resolved)"]
    );
    assert_eq!(
        callees(&g, "src/page.ts:show"),
        ["src/utils/format.ts:format (resolved)"]
    );
    let server = callees(&g, "src/server.ts:Server.handle");
    assert_eq!(server.len(), 1, "{server:?}");
    assert!(server[0].contains("parseBody"), "{server:?}");
    assert!(!server[0].ends_with("(resolved)"), "{server:?}");
}

#[test]
fn workspace_packages_nested_tsconfig_extends_and_python_namespace_packages() {
    let mut g = graph(&[
        (
            "package.json",
            r#"{ "name": "mono", "private": true, "workspaces": ["packages/*"] }"#,
        ),
        (
            "packages/util/package.json",
            r#"{ "name": "@org/util", "exports": { ".": { "types": "./src/index.ts", "default": "./dist/index.js" }, "./fmt": "./src/fmt.ts" } }"#,
        ),
        (
            "packages/util/src/index.ts",
            "export { pad } from './fmt';\nexport function slug(s: string) { return s; }\n",
        ),
        (
            "packages/util/src/fmt.ts",
            "export function pad(s: string) { return s; }\n",
        ),
        (
            "packages/legacy/package.json",
            r#"{ "name": "legacy", "main": "lib/index.js" }"#,
        ),
        (
            "packages/legacy/lib/index.js",
            "function old() {}\nmodule.exports = { old };\n",
        ),
        (
            "tsconfig.base.json",
            r#"{ "compilerOptions": { "baseUrl": ".", "paths": { "@shared/*": ["shared/*"] } } }"#,
        ),
        ("shared/log.ts", "export function log(m: string) {}\n"),
        (
            "apps/web/tsconfig.json",
            r#"{ "extends": "../../tsconfig.base.json" }"#,
        ),
        (
            "apps/web/src/main.ts",
            "import { slug, pad } from '@org/util';\nimport { pad as p2 } from '@org/util/fmt';\nimport { log } from '@shared/log';\nconst { old } = require('legacy');\nexport function main() { slug('a'); pad('b'); p2('c'); log('d'); old(); }\n",
        ),
        // Namespace packages (no __init__.py) in a src/ layout.
        ("src/ns/tools/text.py", "def clean(s):\n    return s\n"),
        (
            "src/ns/app.py",
            "from ns.tools import text\nfrom .tools.text import clean\n\ndef run():\n    text.clean('a')\n    clean('b')\n",
        ),
    ]);
    // `pad` and `p2` are one callee, reached through the root entry and the subpath.
    assert_eq!(
        callees(&g, "apps/web/src/main.ts:main"),
        [
            "packages/util/src/index.ts:slug (resolved)",
            "packages/util/src/fmt.ts:pad (resolved)",
            "shared/log.ts:log (resolved)",
            "packages/legacy/lib/index.js:old (resolved)",
        ]
    );
    assert_eq!(
        callees(&g, "src/ns/app.py:run"),
        ["src/ns/tools/text.py:clean (resolved)"]
    );
    // A package.json that goes away takes its package with it.
    g.set_config_file("packages/legacy/package.json", None);
    assert!(callees(&g, "apps/web/src/main.ts:main").contains(&"?:old (unresolved)".to_owned()));
}

#[test]
fn a_nested_definition_is_seen_from_its_own_function_only() {
    let g = graph(&[
        (
            "src/errors.ts",
            "export function flatten(e: any) {\n  function walk(x: any) { return walk(x); }\n  return walk(e);\n}\nexport function treeify(e: any) {\n  function walk(x: any) { return walk(x); }\n  return walk(e);\n}\nexport function outside(fn: any) {\n  return walk(fn);\n}\nexport class Ky {\n  static create() { const retry = () => 1; return retry(); }\n  run() { return retry(); }\n}\n",
        ),
        (
            "tests/test_ctx.py",
            "def test_a():\n    def index():\n        return 1\n    index()\n\ndef test_b():\n    def index():\n        return 2\n    index()\n",
        ),
    ]);
    // Each `walk` call goes to the `walk` of its own function (the second one is
    // addressed `walk#2`); from a third function neither is in scope.
    assert_eq!(
        callees(&g, "src/errors.ts:flatten"),
        ["src/errors.ts:walk (resolved)"]
    );
    assert_eq!(
        callees(&g, "src/errors.ts:treeify"),
        ["src/errors.ts:walk#2 (resolved)"]
    );
    assert!(
        !callees(&g, "src/errors.ts:outside")
            .iter()
            .any(|c| c.ends_with("(resolved)")),
        "{:?}",
        callees(&g, "src/errors.ts:outside")
    );
    assert_eq!(
        callees(&g, "src/errors.ts:Ky.create"),
        ["src/errors.ts:retry (resolved)"]
    );
    assert!(
        !callees(&g, "src/errors.ts:Ky.run")
            .iter()
            .any(|c| c.ends_with("(resolved)"))
    );
    assert_eq!(
        callees(&g, "tests/test_ctx.py:test_a"),
        ["tests/test_ctx.py:index (resolved)"]
    );
    assert_eq!(
        callees(&g, "tests/test_ctx.py:test_b"),
        ["tests/test_ctx.py:index#2 (resolved)"]
    );
}

/// express's own shape: `index.js` is `module.exports = require('./lib/express')`, and
/// that file is `exports = module.exports = createApplication`; `require('../')` then
/// `express()` calls `createApplication`.
#[test]
fn a_module_called_as_a_function_goes_through_chained_commonjs_exports() {
    let g = graph(&[
        (
            "index.js",
            "'use strict';\nmodule.exports = require('./lib/express');\n",
        ),
        (
            "lib/express.js",
            "exports = module.exports = createApplication;\nfunction createApplication() {\n  return 1;\n}\nexports.Router = Router;\nfunction Router() {}\n",
        ),
        (
            "lib/other.js",
            "module.exports = exports = make;\nfunction make() {}\n",
        ),
        (
            "test/app.js",
            "var express = require('../');\nvar other = require('../lib/other');\nfunction t() {\n  var app = express();\n  express.Router();\n  other();\n}\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "test/app.js:t"),
        [
            "lib/express.js:createApplication (resolved)",
            "lib/express.js:Router (resolved)",
            "lib/other.js:make (resolved)",
        ]
    );
}

#[test]
fn classes_local_to_two_functions_each_answer_for_their_own_methods() {
    let g = graph(&[
        (
            "src/views.py",
            "class View:\n    @classmethod\n    def as_view(cls):\n        return cls\n",
        ),
        (
            "tests/test_views.py",
            "from views import View\n\ndef test_a():\n    class Index(View):\n        def get(self):\n            return 1\n    Index.as_view()\n    Index().get()\n\ndef test_b():\n    class Index(View):\n        def get(self):\n            return 2\n    Index.as_view()\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "tests/test_views.py:test_b"),
        ["src/views.py:View.as_view (resolved)"]
    );
    assert!(
        callees(&g, "tests/test_views.py:test_a")
            .contains(&"src/views.py:View.as_view (resolved)".to_owned())
    );
}

#[test]
fn this_in_a_constructor_function_and_self_in_a_nested_function_find_their_class() {
    let g = graph(&[
        (
            "lib/view.js",
            "function View(name) {\n  this.path = this.lookup(name);\n}\nView.prototype.lookup = function lookup(name) {\n  return name;\n};\nmodule.exports = View;\n",
        ),
        (
            "src/bp.py",
            "class Blueprint:\n    def record(self, f):\n        return f\n\n    def route(self, rule):\n        def decorator(f):\n            self.record(f)\n            return f\n        return decorator\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "lib/view.js:View"),
        ["lib/view.js:View.lookup (resolved)"]
    );
    assert_eq!(
        callees(&g, "src/bp.py:decorator"),
        ["src/bp.py:Blueprint.record (resolved)"]
    );
}

#[test]
fn calls_on_locals_of_evident_class_resolve_to_the_class_methods() {
    let g = graph(&[
        (
            "src/doc.ts",
            "export class Doc {\n  write(s: string) { return s; }\n  indented(f: (d: Doc) => void) { f(this); }\n}\n",
        ),
        (
            "src/gen.ts",
            "import { Doc } from './doc';\nconst shared = new Doc();\nexport function gen(doc: Doc) {\n  doc.write('a');\n}\nexport function make() {\n  const d = new Doc();\n  d.indented((x) => x.write('c'));\n  shared.write('b');\n}\nexport function other(doc) {\n  doc.write('d');\n}\n",
        ),
        (
            "src/web.py",
            "class Flask:\n    def route(self, rule):\n        return rule\n\n    def run(self):\n        pass\n",
        ),
        (
            "src/site.py",
            "from web import Flask\n\napp = Flask(__name__)\n\n\ndef create():\n    a = Flask(__name__)\n    a.run()\n\n\ndef serve(a: Flask):\n    a.run()\n\n\ndef index():\n    app.route('/')\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "src/gen.ts:gen"),
        ["src/doc.ts:Doc.write (resolved)"]
    );
    assert_eq!(
        callees(&g, "src/gen.ts:make"),
        [
            "src/doc.ts:Doc.indented (resolved)",
            "src/doc.ts:Doc.write (resolved)",
        ]
    );
    // A parameter without annotation says nothing: the name alone.
    assert_eq!(
        callees(&g, "src/gen.ts:other"),
        ["src/doc.ts:Doc.write (name-only)"]
    );
    assert_eq!(
        callees(&g, "src/site.py:create"),
        [
            "src/web.py:Flask (resolved)",
            "src/web.py:Flask.run (resolved)"
        ]
    );
    assert_eq!(
        callees(&g, "src/site.py:serve"),
        ["src/web.py:Flask.run (resolved)"]
    );
    assert_eq!(
        callees(&g, "src/site.py:index"),
        ["src/web.py:Flask.route (resolved)"]
    );
}

#[test]
fn a_local_of_a_dotted_class_resolves_its_methods() {
    let g = graph(&[
        (
            "web/__init__.py",
            "class Flask:\n    def route(self, rule):\n        return rule\n",
        ),
        (
            "app.py",
            "import web\n\ndef make():\n    a = web.Flask(__name__)\n    a.route('/')\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "app.py:make"),
        [
            "web/__init__.py:Flask (resolved)",
            "web/__init__.py:Flask.route (resolved)"
        ]
    );
}

#[test]
fn an_imported_variable_of_evident_class_resolves_to_its_class_methods() {
    let g = graph(&[
        (
            "pkg/ctx.py",
            "class AppContext:\n    def push(self):\n        pass\n\n\nclass Globals:\n    def get(self, name):\n        return name\n",
        ),
        // flask's `globals.py`: proxies annotated with a class declared for type checkers
        // only, whose bases are a generic mixin and the proxied class.
        (
            "pkg/globals.py",
            "import typing as t\n\nif t.TYPE_CHECKING:\n    from .ctx import AppContext\n    from .ctx import Globals\n\n    T = t.TypeVar('T')\n\n    class ProxyMixin(t.Protocol[T]):\n        def _get_current_object(self) -> T: ...\n\n    class AppContextProxy(ProxyMixin[AppContext], AppContext): ...\n\n    class GlobalsProxy(ProxyMixin[Globals], Globals): ...\n\n\napp_ctx: AppContextProxy = LocalProxy('app')\ng: GlobalsProxy = LocalProxy('g')\nrebound = Globals()\nrebound = None\n",
        ),
        ("pkg/__init__.py", "from .globals import g as g\n"),
        (
            "pkg/view.py",
            "import pkg\nfrom .globals import app_ctx, rebound\n\n\ndef view():\n    app_ctx.push()\n    app_ctx._get_current_object()\n    pkg.g.get('x')\n    rebound.get('y')\n\n\ndef shadowed():\n    app_ctx = make()\n    app_ctx.push()\n",
        ),
        (
            "src/api.ts",
            "export class Api {\n  get(url: string) { return url; }\n}\nexport const api = new Api();\nexport const typed: Api = make();\nfunction make(): any { return null; }\n",
        ),
        (
            "src/use.ts",
            "import { api, typed } from './api';\nexport function load() {\n  api.get('/a');\n  typed.get('/b');\n}\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "pkg/view.py:view"),
        [
            "pkg/ctx.py:AppContext.push (resolved)",
            "pkg/globals.py:ProxyMixin._get_current_object (resolved)",
            "pkg/ctx.py:Globals.get (resolved)",
            // Bound twice at the top level: it could hold either, so not resolved.
            "?:get (unresolved)",
        ]
    );
    // A local of the same name shadows the import: nothing proves `push` is the class's.
    assert_eq!(
        callees(&g, "pkg/view.py:shadowed"),
        ["?:make (unresolved)", "?:push (unresolved)"]
    );
    assert_eq!(
        callees(&g, "src/use.ts:load"),
        ["src/api.ts:Api.get (resolved)"]
    );
    assert_eq!(
        callers(&g, "pkg/ctx.py:Globals.get"),
        ["pkg/view.py:view (resolved) L8"]
    );
}

#[test]
fn calls_through_a_field_of_evident_class_resolve_to_its_class_methods() {
    let g = graph(&[
        (
            "src/repo.ts",
            "export class Repo {\n  find(id: string) { return id; }\n}\nexport class Log {\n  write(s: string) { return s; }\n}\n",
        ),
        (
            "src/svc.ts",
            "import { Repo, Log } from './repo';\nexport class Base {\n  protected log: Log;\n}\nexport class Svc extends Base {\n  cache = new Repo();\n  other: Repo | null = null;\n  constructor(private readonly repo: Repo, plain: Repo) { super(); }\n  get(id: string) {\n    this.repo.find(id);\n    this.cache.find(id);\n    this.log.write(id);\n    const later = () => this.repo.find(id);\n    return later();\n  }\n  peek(id: string) {\n    return this.other.find(id);\n  }\n}\n",
        ),
        (
            "src/legacy.js",
            "import { Repo } from './repo';\nexport class Q {\n  constructor() {\n    this.repo = new Repo();\n  }\n  run() {\n    this.repo.find(1);\n  }\n}\n",
        ),
        (
            "pkg/store.py",
            "class Repo:\n    def find(self, key):\n        return key\n\n\nclass Interface:\n    def save(self, s):\n        return s\n",
        ),
        (
            "pkg/app.py",
            "from .store import Repo, Interface\n\n\nclass App:\n    session_interface = Interface()\n    swapped = Repo()\n\n    def __init__(self):\n        self.repo = Repo()\n        self.maybe = Repo()\n\n    def reset(self):\n        self.maybe = None\n        self.swapped = Interface()\n\n    def run(self):\n        self.repo.find('a')\n        self.session_interface.save('b')\n\n    def check(self):\n        self.maybe.find('c')\n        self.swapped.find('d')\n",
        ),
    ]);
    assert_eq!(
        callees(&g, "src/svc.ts:Svc.get"),
        [
            "src/repo.ts:Repo.find (resolved)",
            "src/repo.ts:Log.write (resolved)",
            "src/svc.ts:later (resolved)",
        ]
    );
    // One file, two classes, one receiver text: each method's `this.repo` is its own
    // class's (answers remembered per file must not mix them).
    let g2 = graph(&[
        (
            "src/repo.ts",
            "export class Repo {\n  find(id: string) { return id; }\n}\nexport class Log {\n  find(s: string) { return s; }\n}\n",
        ),
        (
            "src/two.ts",
            "import { Repo, Log } from './repo';\nexport class A {\n  constructor(private repo: Repo) {}\n  go() { return this.repo.find('a'); }\n}\nexport class B {\n  constructor(private repo: Log) {}\n  go() { return this.repo.find('b'); }\n}\n",
        ),
    ]);
    assert_eq!(
        callees(&g2, "src/two.ts:A.go"),
        ["src/repo.ts:Repo.find (resolved)"]
    );
    assert_eq!(
        callees(&g2, "src/two.ts:B.go"),
        ["src/repo.ts:Log.find (resolved)"]
    );
    // JavaScript: the constructor's assignment says it.
    assert_eq!(
        callees(&g, "src/legacy.js:Q.run"),
        ["src/repo.ts:Repo.find (resolved)"]
    );
    // `Repo | null` names no one class: the name alone.
    assert_eq!(
        callees(&g, "src/svc.ts:Svc.peek"),
        ["src/repo.ts:Repo.find (name-only)"]
    );
    // The arrow keeps the method's `this`.
    assert_eq!(
        callees(&g, "src/svc.ts:later"),
        ["src/repo.ts:Repo.find (resolved)"]
    );
    assert_eq!(
        callees(&g, "pkg/app.py:App.run"),
        [
            "pkg/store.py:Repo.find (resolved)",
            "pkg/store.py:Interface.save (resolved)",
        ]
    );
    // Assigned twice (`None` in `reset`, another class): not known.
    assert_eq!(
        callees(&g, "pkg/app.py:App.check"),
        ["pkg/store.py:Repo.find (name-only)"]
    );
}

/// `same_layout` holds for the very content the graph holds, and for an edit that moves
/// no definition and adds no call (a call renamed in place: the daemon then compares
/// hashes); it fails for an edit that moves a definition or adds a call, and for a file
/// the graph does not hold.
#[test]
fn the_same_layout_holds_for_the_held_content_and_fails_for_moved_definitions() {
    let registry = wit_analyzers::builtin_registry();
    let analyse = |source: &str| {
        registry
            .for_path("src/a.ts")
            .unwrap()
            .analyze_full(source)
            .unwrap()
    };
    let held = "export function f() { return g(); }\nexport function g() { return 1; }\n";
    let g = graph(&[("src/a.ts", held)]);
    assert!(g.same_layout("src/a.ts", &analyse(held)));
    let renamed_call = held.replace("return g()", "return h()");
    assert!(g.same_layout("src/a.ts", &analyse(&renamed_call)));
    let longer_body = held.replace("return 1;", "return 12;");
    assert!(g.same_interface("src/a.ts", &analyse(&longer_body)));
    assert!(!g.same_layout("src/a.ts", &analyse(&longer_body)));
    // Two calls where there was none, the same length: the definitions stay in place.
    let more_calls = held.replace("return 1;", "g();g();;");
    assert_eq!(more_calls.len(), held.len());
    assert!(!g.same_layout("src/a.ts", &analyse(&more_calls)));
    assert!(!g.same_layout("src/b.ts", &analyse(held)));
}

/// Issue 32: a function assigned through a chain (`res.set = res.header = function …`) is
/// a definition under each name, with callers and callees under both.
#[test]
fn a_function_assigned_through_a_chain_is_called_and_calls_under_each_name() {
    let g = graph(&[(
        "lib/response.js",
        "var res = Object.create(http.ServerResponse.prototype);\nmodule.exports = res;\nres.send = function send(body) {\n  this.set('Content-Type', 'text/html');\n  return body;\n};\nres.json = function json(obj) {\n  this.header('Content-Type', 'application/json');\n  return this.send(obj);\n};\nres.set = res.header = function header(field, val) {\n  return stringify(field, val);\n};\nfunction stringify(a, b) { return a + b; }\n",
    )]);
    assert_eq!(
        callees(&g, "lib/response.js:res.send"),
        ["lib/response.js:res.set (resolved)"]
    );
    assert_eq!(
        callees(&g, "lib/response.js:res.json"),
        [
            "lib/response.js:res.header (resolved)",
            "lib/response.js:res.send (resolved)"
        ]
    );
    assert_eq!(
        callers(&g, "lib/response.js:res.header"),
        ["lib/response.js:res.json (resolved) L8"]
    );
    assert_eq!(
        callees(&g, "lib/response.js:res.header"),
        ["lib/response.js:stringify (resolved)"]
    );
    assert_eq!(
        callees(&g, "lib/response.js:res.set"),
        ["lib/response.js:stringify (resolved)"]
    );
}

/// `callee (resolution)` of every direct callee of `path`, as the callees query gives them.
fn callee_lines(g: &Graph, path: &str) -> Vec<String> {
    g.callees(&sym(g, path), 1)
        .iter()
        .map(|e| {
            format!(
                "{} ({}) L{}",
                e.callee.path(),
                e.resolution.as_str(),
                e.line + 1
            )
        })
        .collect()
}

const ABSTRACT_LIST: &str = r#"package java.util;

public abstract class AbstractList<E> extends AbstractCollection<E> implements List<E> {
    public boolean add(E e) {
        add(size(), e);
        return true;
    }
    public void add(int index, E element) {
        throw new UnsupportedOperationException();
    }
    public Iterator<E> iterator() {
        return new Itr();
    }
    private class Itr implements Iterator<E> {
        public boolean hasNext() { return cursor != size(); }
        public E next() {
            checkForComodification();
            return get(cursor);
        }
        final void checkForComodification() {}
    }
    private static class SubList<E> extends AbstractList<E> {
        public void add(int index, E element) {
            checkForComodification();
            root.add(index, element);
            AbstractList.this.add(index, element);
        }
        private void checkForComodification() {}
        public int size() { return 0; }
    }
    abstract public E get(int index);
}
"#;

/// Issue 32: a plain call inside nested classes goes to the innermost enclosing class
/// that has the method (declared or inherited), then outward, picking the overload by
/// its number of arguments; never to a same-named method of a sibling class.
#[test]
fn java_calls_in_nested_classes_follow_the_innermost_class_that_has_the_method() {
    let g = graph(&[
        ("src/java/util/AbstractList.java", ABSTRACT_LIST),
        (
            "src/java/util/AbstractCollection.java",
            "package java.util;\npublic abstract class AbstractCollection<E> {\n    public abstract int size();\n}\n",
        ),
    ]);
    let f = "src/java/util/AbstractList.java";
    assert_eq!(
        callee_lines(&g, &format!("{f}:AbstractList.add")),
        [
            format!("{f}:AbstractList.add#2 (resolved) L5"),
            "src/java/util/AbstractCollection.java:AbstractCollection.size (resolved) L5"
                .to_owned(),
        ]
    );
    assert_eq!(
        callee_lines(&g, &format!("{f}:Itr.next")),
        [
            format!("{f}:Itr.checkForComodification (resolved) L17"),
            format!("{f}:AbstractList.get (resolved) L18"),
        ]
    );
    // SubList's own checkForComodification, not Itr's; `root` is declared nowhere here;
    // `AbstractList.this.add(…)` is the outer class's two-argument add.
    assert_eq!(
        callee_lines(&g, &format!("{f}:SubList.add")),
        [
            format!("{f}:SubList.checkForComodification (resolved) L24"),
            "?:add (unresolved) L25".to_owned(),
            format!("{f}:AbstractList.add#2 (resolved) L26"),
        ]
    );
}

/// Issue 32: `Outer.this.m()` names the outer class's `m`; methods of an enum constant's
/// body belong to that anonymous body (no container), and a plain call there finds the
/// body's own method first, then the enum's; an anonymous class's method in another file
/// is nobody's plain call; a class name several files declare is no reason to pick one.
#[test]
fn java_outer_this_enum_constant_bodies_and_no_guess_across_files() {
    let g = graph(&[
        (
            "src/a/Outer.java",
            "package a;\n\
             class Outer {\n\
             \x20   void m() {}\n\
             \x20   class Inner {\n\
             \x20       void m() {}\n\
             \x20       void run() { Outer.this.m(); m(); hasNext(); check(); }\n\
             \x20   }\n\
             }\n\
             enum Op {\n\
             \x20   PLUS { int apply(int a) { return twice(a); } int twice(int a) { return base(a); } };\n\
             \x20   int base(int a) { return a; }\n\
             \x20   int apply(int a) { return 0; }\n\
             }\n",
        ),
        (
            "src/a/Lists.java",
            "package a;\n\
             class Lists {\n\
             \x20   Object it() { return new java.util.Iterator<Object>() { public boolean hasNext() { return false; } public Object next() { return null; } }; }\n\
             \x20   class ListItr { void check() {} }\n\
             }\n",
        ),
        (
            "src/a/Other.java",
            "package a;\nclass Other {\n    class ListItr { void check() {} }\n}\n",
        ),
    ]);
    assert_eq!(
        callee_lines(&g, "src/a/Outer.java:Inner.run"),
        [
            "src/a/Outer.java:Outer.m (resolved) L6",
            "src/a/Outer.java:Inner.m (resolved) L6",
            "?:hasNext (unresolved) L6",
            "?:check (unresolved) L6",
        ]
    );
    let a = g.get("src/a/Outer.java").unwrap();
    let apply = a.symbols.iter().find(|s| s.name == "apply").unwrap();
    assert_eq!(
        apply.container, None,
        "an enum constant's body is anonymous"
    );
    assert_eq!(
        callee_lines(&g, "src/a/Outer.java:twice"),
        ["src/a/Outer.java:Op.base (resolved) L10"]
    );
    assert_eq!(
        callee_lines(&g, "src/a/Outer.java:apply"),
        ["src/a/Outer.java:twice (resolved) L10"]
    );
}

/// Issue 32: overloads are told apart by the number of arguments, then by the types the
/// call's syntax shows (a literal, a cast, a declared variable), as javac would; when
/// nothing tells them apart the call stays unresolved rather than guessed.
#[test]
fn java_overloads_are_picked_by_their_arguments_or_left_unresolved() {
    let g = graph(&[(
        "src/F.java",
        "class F {\n\
         \x20   void print(char c, int n) {}\n\
         \x20   void print(String s, int n) {}\n\
         \x20   void print(Object o) {}\n\
         \x20   void sort(int[] a) {}\n\
         \x20   void sort(long[] a) {}\n\
         \x20   void run(long[] values, Object o, int k) {\n\
         \x20       print('c', 1);\n\
         \x20       print(\"s\", k);\n\
         \x20       print(o);\n\
         \x20       sort(values);\n\
         \x20       sort((int[]) o);\n\
         \x20       sort(o);\n\
         \x20   }\n\
         }\n",
    )]);
    assert_eq!(
        callee_lines(&g, "src/F.java:F.run"),
        [
            "src/F.java:F.print (resolved) L8",
            "src/F.java:F.print#2 (resolved) L9",
            "src/F.java:F.print#3 (resolved) L10",
            "src/F.java:F.sort#2 (resolved) L11",
            "src/F.java:F.sort (resolved) L12",
            "?:sort (unresolved) L13",
        ]
    );
}

/// Issue 32: in Go, a conversion `T2(x)` is no call (no edge, so a lock on `T2` warns of
/// no caller); a call with explicit type arguments (`getTyped[bool](c, key)`) is one; a
/// method call on a receiver whose type its declaration states resolves to that type's
/// method, and one on a value of unknown type is matched by name only to a method the
/// file defines once (`msg.Error()` is never the type `Error`; of two `Render` methods
/// neither is guessed).
#[test]
fn go_conversions_are_no_calls_generic_calls_are_and_receivers_have_their_declared_type() {
    let g = graph(&[
        (
            "render/json.go",
            "package render\n\n\
             type JSON struct{}\n\
             type AsciiJSON struct{}\n\
             type Error struct{}\n\n\
             func (r JSON) Render() error { return r.WriteContentType() }\n\
             func (r JSON) WriteContentType() error { return nil }\n\
             func (r AsciiJSON) Render() error { r.WriteContentType(); return nil }\n\
             func (r AsciiJSON) WriteContentType() error { return nil }\n\
             func (e Error) Error() string { return \"\" }\n\n\
             func getTyped[T any](c *AsciiJSON, key string) T { var v T; return v }\n\n\
             func use(msg error, c *AsciiJSON, x int) {\n\
             \x20   _ = Error(struct{}{})\n\
             \x20   _ = msg.Error()\n\
             \x20   _ = getTyped[bool](c, \"k\")\n\
             \x20   _ = string(rune(x))\n\
             \x20   c.Render()\n\
             \x20   any(c).(interface{ Render() error }).Render()\n\
             }\n",
        ),
        (
            "render/other.go",
            "package render\n\nfunc helper(j *JSON) { j.Render(); conv := AsciiJSON{}; conv.Render() }\n",
        ),
    ]);
    assert_eq!(
        callee_lines(&g, "render/json.go:AsciiJSON.Render"),
        ["render/json.go:AsciiJSON.WriteContentType (resolved) L9"]
    );
    // No edge for the conversions `Error(…)`, `string(…)`, `rune(…)`; `msg` is an
    // `error`: by name only, its `Error` is the one method of that name, never the type.
    assert_eq!(
        callee_lines(&g, "render/json.go:use"),
        [
            "render/json.go:Error.Error (name-only) L17",
            "render/json.go:getTyped (resolved) L18",
            "render/json.go:AsciiJSON.Render (resolved) L20",
            "?:Render (unresolved) L21",
        ]
    );
    assert!(callers(&g, "render/json.go:Error").is_empty());
    assert_eq!(
        callee_lines(&g, "render/other.go:helper"),
        [
            "render/json.go:JSON.Render (resolved) L3",
            "render/json.go:AsciiJSON.Render (resolved) L3",
        ]
    );
}

/// Two checkouts' graphs sharing names: the second takes the first's bodies for the files
/// they have in common and analyses only the one that differs; its answers are exactly
/// those of a graph built alone from its own files, and the first's stay its own.
#[test]
fn a_graph_built_from_shared_bodies_answers_as_one_built_alone() {
    let api = "import { query } from './db';\nexport function list() { return query('x'); }\n";
    let api_b =
        "import Repo from './repo';\nexport function list() { return new Repo().find('x'); }\n";
    let repo = "import { query } from './db';\nexport default class Repo {\n  find(id: string) { return query(id); }\n}\n";
    let shared = Shared::new();
    let mut first = Graph::sharing(&shared);
    for (k, (path, source)) in [
        ("src/db.ts", DB),
        ("src/api.ts", api),
        ("src/repo.ts", repo),
    ]
    .into_iter()
    .enumerate()
    {
        first.insert_tagged(path, analyse(path, source), [k as u8 + 1; 32]);
    }
    let mut second = Graph::sharing(&shared);
    for (path, tag) in [("src/db.ts", [1; 32]), ("src/repo.ts", [3; 32])] {
        assert!(second.insert_body(path, first.body(path).unwrap()));
        // The tag comes with the body, and so does the path: one allocation for both.
        assert_eq!(second.tag(path), Some(tag));
        assert!(Arc::ptr_eq(
            &first.body(path).unwrap().0.path,
            &second.body(path).unwrap().0.path
        ));
    }
    second.insert("src/api.ts", analyse("src/api.ts", api_b));
    let alone = graph(&[
        ("src/db.ts", DB),
        ("src/api.ts", api_b),
        ("src/repo.ts", repo),
    ]);
    for (g, want) in [
        (&second, &alone),
        (
            &first,
            &graph(&[
                ("src/db.ts", DB),
                ("src/api.ts", api),
                ("src/repo.ts", repo),
            ]),
        ),
    ] {
        for path in [
            "src/api.ts:list",
            "src/repo.ts:Repo.find",
            "src/db.ts:query",
        ] {
            assert_eq!(callees(g, path), callees(want, path), "callees of {path}");
            assert_eq!(callers(g, path), callers(want, path), "callers of {path}");
        }
    }
    assert_eq!(
        callees(&second, "src/api.ts:list"),
        ["src/repo.ts:Repo.find (resolved)"]
    );
    assert_eq!(
        callees(&first, "src/api.ts:list"),
        ["src/db.ts:query (resolved)"]
    );
    // The same content is held once.
    assert!(Arc::ptr_eq(
        &first.body("src/db.ts").unwrap().0,
        &second.body("src/db.ts").unwrap().0
    ));
    // A body of another set of names is refused, the graph unchanged.
    let mut other = Graph::new();
    assert!(!other.insert_body("src/db.ts", first.body("src/db.ts").unwrap()));
    assert!(other.is_empty());
    // So is another file's body, which depends on its path.
    let mut third = Graph::sharing(&shared);
    assert!(!third.insert_body("src/db2.ts", first.body("src/db.ts").unwrap()));
    assert!(third.is_empty());
    // A weak handle lives as long as some graph holds the body.
    let weak = first.body("src/api.ts").unwrap().downgrade();
    assert!(weak.upgrade().is_some());
    first.remove("src/api.ts");
    assert!(weak.upgrade().is_none());
}
