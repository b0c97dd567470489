//! The scoring on small hand-made inputs: matching by line and callee (multisets,
//! receivers first), sites wit de-duplicated, sites outside definitions, agreement by
//! address and by lines, and the recall and precision counts.

use std::collections::BTreeMap;
use std::path::Path;

use wit_graph::Resolution;

use crate::checkout::{parse_ls_tree, short_name};
use crate::oracle::{OracleSite, OracleTarget, parse};
use crate::report::spread;
use crate::score::{Match, agrees, match_file, score};
use crate::wit_side::{Callable, WitFile, WitSite, WitTarget, line_of, line_starts, scope};

fn target(file: &str, name: &str, line: usize) -> OracleTarget {
    OracleTarget {
        file: file.into(),
        name: name.into(),
        line,
        name_line: line,
        external: false,
        function: true,
        kind: "FunctionDeclaration".into(),
    }
}

fn external(name: &str) -> OracleTarget {
    OracleTarget {
        file: "lib.es5.d.ts".into(),
        name: name.into(),
        line: 1000,
        name_line: 1000,
        external: true,
        function: false,
        kind: "MethodSignature".into(),
    }
}

fn site(
    file: &str,
    line: usize,
    byte: usize,
    callee: &str,
    receiver: Option<&str>,
    t: Option<OracleTarget>,
) -> OracleSite {
    OracleSite {
        file: file.into(),
        line,
        byte,
        callee: callee.into(),
        receiver: receiver.map(str::to_owned),
        target: t,
        constructor: false,
    }
}

fn wit_site(
    line: usize,
    callee: &str,
    caller: &str,
    receiver: Option<&str>,
    resolution: Resolution,
    t: Option<(&str, &str, (usize, usize))>,
) -> WitSite {
    WitSite {
        line,
        callee: callee.into(),
        caller: caller.into(),
        receiver: receiver.map(str::to_owned),
        resolution,
        target: t.map(|(file, name, lines)| WitTarget {
            file: file.into(),
            name: name.into(),
            lines,
        }),
    }
}

fn callable(name: &str, scope: (usize, usize)) -> Callable {
    Callable {
        name: name.into(),
        scope,
    }
}

#[test]
fn agreement_by_address_or_by_last_segment_and_lines() {
    let w = WitTarget {
        file: "a.ts".into(),
        name: "Repo.find#method".into(),
        lines: (10, 20),
    };
    assert!(agrees(&w, &target("a.ts", "Repo.find", 3)), "address equal");
    assert!(
        agrees(&w, &target("a.ts", "module.Repo.find", 12)),
        "last segment, line inside"
    );
    assert!(
        !agrees(&w, &target("a.ts", "module.Repo.find", 25)),
        "line outside"
    );
    assert!(!agrees(&w, &target("b.ts", "Repo.find", 12)), "other file");
    assert!(!agrees(&w, &target("a.ts", "Repo.get", 12)), "other name");
    let mut ext = target("a.ts", "Repo.find", 12);
    ext.external = true;
    assert!(!agrees(&w, &ext), "never an external declaration");
    // A private name's `#` is part of the name, not a qualifier.
    let private = WitTarget {
        file: "k.ts".into(),
        name: "Ky.#retry".into(),
        lines: (1, 2),
    };
    assert!(agrees(&private, &target("k.ts", "Ky.#retry", 40)));
}

#[test]
fn multisets_by_line_and_callee_pair_equal_receivers_first() {
    // Line 3: `a.f(b.f())`; wit kept both (different receivers), listed b first.
    let wf = WitFile {
        sites: vec![
            wit_site(3, "f", "main", Some("b"), Resolution::Unresolved, None),
            wit_site(3, "f", "main", Some("a"), Resolution::Unresolved, None),
        ],
        callables: vec![callable("main", (0, 1000))],
    };
    let o1 = site("m.ts", 3, 40, "f", Some("a"), None);
    let o2 = site("m.ts", 3, 44, "f", Some("b"), None);
    let (m, used) = match_file(&[&o1, &o2], &wf);
    assert_eq!(m, vec![Match::Direct(1), Match::Direct(0)]);
    assert_eq!(used, vec![true, true]);

    // Receivers that differ in spelling still pair on the line, in order.
    let o3 = site("m.ts", 3, 40, "f", Some(""), None);
    let (m, used) = match_file(&[&o3], &wf);
    assert_eq!(m, vec![Match::Direct(0)]);
    assert_eq!(used, vec![true, false]);
}

#[test]
fn repeated_calls_match_the_site_wit_kept_and_module_level_is_outside() {
    // function main() { helper(); … helper(); } (bytes 10..200), then a nested
    // function inner (bytes 100..150) calling helper too, and a module-level call.
    let wf = WitFile {
        sites: vec![
            wit_site(
                2,
                "helper",
                "main",
                None,
                Resolution::Resolved,
                Some(("m.ts", "helper", (20, 22))),
            ),
            wit_site(
                6,
                "helper",
                "inner",
                None,
                Resolution::NameOnly,
                Some(("m.ts", "helper", (20, 22))),
            ),
        ],
        callables: vec![callable("main", (10, 200)), callable("inner", (100, 150))],
    };
    let first = site("m.ts", 2, 30, "helper", None, None);
    let again = site("m.ts", 4, 60, "helper", None, None);
    let in_inner = site("m.ts", 7, 120, "helper", None, None);
    let other = site("m.ts", 5, 70, "other", None, None);
    let module = site("m.ts", 30, 400, "helper", None, None);
    let (m, _) = match_file(&[&first, &again, &in_inner, &other, &module], &wf);
    assert_eq!(
        m,
        vec![
            Match::Direct(0),
            Match::Dedup(0),
            Match::Dedup(1),
            Match::NoSite,
            Match::Outside
        ]
    );
    // A later site cannot stand for an earlier one.
    let before = site("m.ts", 1, 15, "helper", Some("x"), None);
    assert_eq!(match_file(&[&before], &wf).0, vec![Match::NoSite]);
}

#[test]
fn a_repeated_call_follows_the_site_its_first_call_matched_whatever_its_spelling() {
    // def test(app: Flask):            (bytes 0..300)
    //     app.get("/")                 line 2: wit `new:Flask`
    //     client = app.test_client()
    //     client.get("/a")             line 4: wit `""` (a local of unknown class)
    //     client.get("/b")             line 5: no wit site (kept once)
    let wf = WitFile {
        sites: vec![
            wit_site(
                2,
                "get",
                "test",
                Some("new:Flask"),
                Resolution::Resolved,
                Some(("app.py", "Flask.get", (10, 12))),
            ),
            wit_site(4, "get", "test", Some(""), Resolution::Unresolved, None),
        ],
        callables: vec![callable("test", (0, 300))],
    };
    let on_app = site("t.py", 2, 20, "get", Some("app"), None);
    let first = site("t.py", 4, 80, "get", Some("client"), None);
    let again = site("t.py", 5, 110, "get", Some("client"), None);
    let (m, _) = match_file(&[&on_app, &first, &again], &wf);
    // The last is the `client` site's, never the `app` one's (which would be judged
    // wrong: `Flask.get` is not what `client.get` calls).
    assert_eq!(m, vec![Match::Direct(0), Match::Direct(1), Match::Dedup(1)]);
}

#[test]
fn recall_and_precision_counts() {
    let helper = target("m.ts", "helper", 20);
    let wf = WitFile {
        sites: vec![
            // Right.
            wit_site(
                1,
                "helper",
                "main",
                None,
                Resolution::Resolved,
                Some(("m.ts", "helper", (20, 22))),
            ),
            // Resolved elsewhere (an edge; wrong).
            wit_site(
                2,
                "save",
                "main",
                Some("repo"),
                Resolution::Resolved,
                Some(("db.ts", "save", (1, 3))),
            ),
            // Name-only to the right definition (an edge; a miss, not judged).
            wit_site(
                3,
                "helper",
                "main",
                Some("util"),
                Resolution::NameOnly,
                Some(("m.ts", "helper", (20, 22))),
            ),
            // Resolved, the oracle says `Array.map` (wrong, external).
            wit_site(
                4,
                "map",
                "main",
                Some("xs"),
                Resolution::Resolved,
                Some(("m.ts", "map", (30, 31))),
            ),
            // Resolved, the oracle cannot answer (out of precision).
            wit_site(
                5,
                "get",
                "main",
                Some("client"),
                Resolution::Resolved,
                Some(("m.ts", "get", (40, 41))),
            ),
            // Unresolved, the oracle has an edge.
            wit_site(6, "run", "main", None, Resolution::Unresolved, None),
            // A site the oracle does not list.
            wit_site(7, "weird", "main", None, Resolution::Unresolved, None),
        ],
        callables: vec![callable("main", (0, 500))],
    };
    let files = BTreeMap::from([("m.ts".to_owned(), wf)]);
    let mut ctor = site(
        "m.ts",
        8,
        300,
        "Repo",
        None,
        Some(target("m.ts", "Repo", 50)),
    );
    ctor.constructor = true;
    let oracle = vec![
        site("m.ts", 1, 10, "helper", None, Some(helper.clone())),
        // The same call again on line 9: the site wit kept stands for it (right again).
        site("m.ts", 9, 350, "helper", None, Some(helper.clone())),
        site(
            "m.ts",
            2,
            60,
            "save",
            Some("repo"),
            Some(target("repo.ts", "Repo.save", 5)),
        ),
        site("m.ts", 3, 80, "helper", Some("util"), Some(helper.clone())),
        site(
            "m.ts",
            4,
            100,
            "map",
            Some("xs"),
            Some(external("Array.map")),
        ),
        site("m.ts", 5, 120, "get", Some("client"), None),
        site(
            "m.ts",
            6,
            140,
            "run",
            None,
            Some(target("run.ts", "run", 0)),
        ),
        // Module level: not counted.
        site("m.ts", 40, 900, "helper", None, Some(helper.clone())),
        ctor,
    ];
    let s = score(&oracle, &files, &|_| {
        (
            Resolution::Resolved,
            Some(WitTarget {
                file: "m.ts".into(),
                name: "helper".into(),
                lines: (20, 22),
            }),
        )
    });
    let c = &s.counts;
    assert_eq!(c.oracle_sites, 9);
    assert_eq!(c.constructors, 1);
    assert_eq!((c.outside, c.outside_edges), (1, 1));
    assert_eq!(
        (c.outside_right, c.outside_judged, c.outside_agree),
        (1, 1, 1)
    );
    assert_eq!((c.direct, c.dedup, c.no_site), (6, 1, 0));
    assert_eq!((c.wit_sites, c.wit_unmatched), (7, 1));
    assert_eq!(c.edges, 5);
    assert_eq!(c.edges_right, 2);
    assert_eq!(c.edges_wrong, 1);
    assert_eq!((c.edges_name_only, c.edges_name_only_right), (1, 1));
    assert_eq!(c.edges_unresolved, 1);
    assert_eq!(c.recall(), Some(2.0 / 5.0));
    assert_eq!(c.resolved, 5);
    assert_eq!(c.resolved_no_answer, 1);
    assert_eq!(c.resolved_judged, 4);
    assert_eq!(c.resolved_agree, 2);
    assert_eq!(c.precision(), Some(0.5));
    let reasons: Vec<&str> = s.misses.iter().map(|f| f.reason.as_str()).collect();
    assert_eq!(
        reasons,
        vec![
            "resolved elsewhere",
            "name-only, the right definition",
            "unresolved"
        ]
    );
    let wrong: Vec<&str> = s.wrong.iter().map(|f| f.reason.as_str()).collect();
    assert_eq!(
        wrong,
        vec![
            "oracle: another in-repo function",
            "oracle: outside the repository (runtime, stdlib, dependency)"
        ]
    );
    assert_eq!(s.unmatched.len(), 1);
    assert_eq!(s.unmatched[0].callee, "weird");
}

#[test]
fn no_edges_means_no_figure() {
    let s = score(&[], &BTreeMap::new(), &|_| (Resolution::Unresolved, None));
    assert_eq!(s.counts.recall(), None);
    assert_eq!(s.counts.precision(), None);
}

#[test]
fn python_scope_leaves_out_decorators_and_signature() {
    let text = "@app.route(\"/\")\ndef index(x=default()):\n    return helper()\n";
    let start = 0;
    let end = text.len();
    let symbol = wit_core::Symbol {
        name: "index".into(),
        kind: wit_core::SymbolKind::Function,
        container: None,
        start_byte: start,
        end_byte: end,
        start_line: 0,
        end_line: 2,
        signature: None,
    };
    let (from, to) = scope(text, &symbol, true);
    assert_eq!(&text[from..to], "\n    return helper()\n");
    // TypeScript: the whole definition.
    assert_eq!(scope(text, &symbol, false), (0, end));
}

#[test]
fn lines_of_bytes() {
    let starts = line_starts("a\nbc\n\nd");
    assert_eq!(starts, vec![0, 2, 5, 6]);
    assert_eq!(line_of(&starts, 0), 0);
    assert_eq!(line_of(&starts, 1), 0);
    assert_eq!(line_of(&starts, 2), 1);
    assert_eq!(line_of(&starts, 5), 2);
    assert_eq!(line_of(&starts, 7), 3);
}

#[test]
fn oracle_lines_parse_and_noise_is_counted() {
    let input = concat!(
        "{\"file\":\"a.ts\",\"line\":3,\"byte\":40,\"callee\":\"f\",\"receiver\":null,\"target\":null}\n",
        "Resolving module 'x' from 'a.ts'\n",
        "{\"file\":\"a.py\",\"line\":1,\"byte\":4,\"callee\":\"Flask\",\"receiver\":null,\"target\":",
        "{\"file\":\"src/flask/app.py\",\"name\":\"Flask\",\"line\":9,\"name_line\":9,",
        "\"external\":false,\"function\":false,\"kind\":\"class\"},\"constructor\":true}\n",
    );
    let run = parse(input.as_bytes()).unwrap();
    assert_eq!(run.sites.len(), 2);
    assert_eq!(run.noise, 1);
    assert!(run.sites[1].constructor);
    assert_eq!(run.sites[1].target.as_ref().unwrap().name, "Flask");
}

#[test]
fn samples_spread_over_the_list() {
    assert_eq!(spread(3, 5), vec![0, 1, 2]);
    assert_eq!(spread(10, 5), vec![0, 2, 4, 6, 8]);
    assert_eq!(spread(10, 0), Vec::<usize>::new());
}

#[test]
fn ls_tree_and_names() {
    let out = b"100644 blob 0123 42\tsrc/a.ts\x00160000 commit 4567 -\tvendor/x\0";
    let entries = parse_ls_tree(out).unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].size, Some(42));
    assert!(entries[0].is_regular());
    assert!(!entries[1].is_regular());
    assert_eq!(
        short_name(Path::new("/work/.mirror/pallets+flask/repo")),
        "pallets/flask"
    );
    assert_eq!(short_name(Path::new("/src/zod.git")), "zod");
}

#[test]
fn type_members_are_not_judged() {
    // `ky.create()`: the checker names the interface member, wit the implementation.
    let wf = WitFile {
        sites: vec![wit_site(
            1,
            "create",
            "main",
            Some("ky"),
            Resolution::Resolved,
            Some(("index.ts", "ky.create", (10, 12))),
        )],
        callables: vec![callable("main", (0, 100))],
    };
    let mut member = target("types.ts", "KyInstance.create", 85);
    member.function = false;
    member.kind = "PropertySignature".into();
    let files = BTreeMap::from([("m.ts".to_owned(), wf)]);
    let oracle = vec![site("m.ts", 1, 10, "create", Some("ky"), Some(member))];
    let s = score(&oracle, &files, &|_| (Resolution::Unresolved, None));
    assert_eq!(s.counts.resolved, 1);
    assert_eq!(s.counts.resolved_type_member, 1);
    assert_eq!(s.counts.resolved_judged, 0);
    assert_eq!(s.counts.edges, 0);
    assert!(s.wrong.is_empty());
    assert_eq!(s.unjudged.len(), 1);
}

#[test]
fn outside_sites_are_asked_as_if_inside() {
    // `test('x', () => helper())` at module level: no wit site; the graph, asked, leaves
    // it unresolved (a secondary miss, not in recall).
    let wf = WitFile {
        sites: vec![],
        callables: vec![],
    };
    let files = BTreeMap::from([("t.ts".to_owned(), wf)]);
    let oracle = vec![site(
        "t.ts",
        4,
        50,
        "helper",
        None,
        Some(target("m.ts", "helper", 20)),
    )];
    let s = score(&oracle, &files, &|o| {
        assert_eq!((o.callee.as_str(), o.line), ("helper", 4));
        (Resolution::Unresolved, None)
    });
    assert_eq!((s.counts.outside, s.counts.outside_edges), (1, 1));
    assert_eq!(s.counts.outside_right, 0);
    assert_eq!(s.counts.edges, 0);
    assert_eq!(s.outside_misses.len(), 1);
    assert_eq!(s.outside_misses[0].reason, "unresolved");
    assert_eq!(s.outside_misses[0].wit.as_deref(), Some("unresolved"));
}

#[test]
fn a_conversion_never_agrees_and_edges_within_a_file_are_counted_apart() {
    let mut conversion = target("a.go", "T2", 3);
    conversion.kind = "conversion".into();
    conversion.function = false;
    let w = WitTarget {
        file: "a.go".into(),
        name: "T2".into(),
        lines: (3, 3),
    };
    assert!(!agrees(&w, &conversion), "a type is no call's target");

    // Two edges: one to the caller's own file, one to another file; wit resolves both.
    let oracle = vec![
        site("a.go", 10, 100, "f", None, Some(target("a.go", "f", 1))),
        site("a.go", 11, 120, "g", None, Some(target("b.go", "g", 1))),
    ];
    let mut files = BTreeMap::new();
    files.insert(
        "a.go".to_owned(),
        WitFile {
            sites: vec![
                wit_site(
                    10,
                    "f",
                    "main",
                    None,
                    Resolution::Resolved,
                    Some(("a.go", "f", (1, 2))),
                ),
                wit_site(
                    11,
                    "g",
                    "main",
                    None,
                    Resolution::Resolved,
                    Some(("b.go", "g", (1, 2))),
                ),
            ],
            callables: vec![callable("main", (90, 200))],
        },
    );
    let none = |_: &OracleSite| (Resolution::Unresolved, None);
    let s = score(&oracle, &files, &none);
    assert_eq!((s.counts.edges, s.counts.edges_right), (2, 2));
    assert_eq!(
        (s.counts.edges_in_file, s.counts.edges_in_file_right),
        (1, 1)
    );
    assert_eq!(s.counts.in_file_recall(), Some(1.0));
}
