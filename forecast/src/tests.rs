//! The forecast over real analyses of real sources (the built-in analyzers).

use std::collections::BTreeMap;

use super::*;

fn analyse(path: &str, source: &str) -> wit_core::Analysis {
    let registry = wit_analyzers::builtin_registry();
    let analyzer = registry.for_path(path).expect("supported");
    analyzer.analyze_full(source).expect("analyses")
}

fn changes(path: &str, base: Option<&str>, now: Option<&str>) -> Vec<SymbolChange> {
    let a = base.map(|s| analyse(path, s));
    let b = now.map(|s| analyse(path, s));
    diff_symbols(
        base.zip(a.as_ref())
            .map(|(source, analysis)| Version { source, analysis }),
        now.zip(b.as_ref())
            .map(|(source, analysis)| Version { source, analysis }),
    )
}

fn summary(cs: &[SymbolChange]) -> Vec<String> {
    cs.iter()
        .map(|c| format!("{} {}", c.change.as_str(), c.name))
        .collect()
}

const CART: &str = "export function price(n: number): number {\n  return n * 2;\n}\n\nexport function total(items: number[]): number {\n  return items.reduce((a, b) => a + b, 0);\n}\n\nexport class Cart {\n  add(x: number) {\n    return x;\n  }\n  clear() {\n    return 0;\n  }\n}\n";

#[test]
fn a_body_edit_a_signature_change_an_addition_and_a_removal_are_told_apart() {
    let now = CART
        .replace("return n * 2;", "return n * 3;")
        .replace(
            "total(items: number[])",
            "total(items: number[], tax: number)",
        )
        .replace("  clear() {\n    return 0;\n  }\n", "")
        + "export function fresh() { return price(1); }\n";
    let got = changes("src/cart.ts", Some(CART), Some(&now));
    assert_eq!(
        summary(&got),
        [
            "body price",
            "signature total",
            "added fresh",
            "removed Cart.clear"
        ]
    );
    let total = &got[1];
    assert_eq!(total.before.as_deref(), Some("(items: number[]): number"));
    assert_eq!(
        total.after.as_deref(),
        Some("(items: number[], tax: number): number")
    );
}

#[test]
fn a_method_edit_is_the_method_s_change_not_its_class_s() {
    let now = CART.replace("return x;", "return x + 1;");
    assert_eq!(
        summary(&changes("src/cart.ts", Some(CART), Some(&now))),
        ["body Cart.add"]
    );
}

#[test]
fn a_rename_is_one_change() {
    let now = CART.replace("function price(", "function cost(");
    let got = changes("src/cart.ts", Some(CART), Some(&now));
    assert_eq!(summary(&got), ["renamed cost"]);
    assert_eq!(got[0].from.as_deref(), Some("price"));
}

#[test]
fn an_edit_outside_every_definition_changes_no_symbol() {
    let now = format!("import {{ x }} from './x';\n// a comment\n{CART}");
    assert!(changes("src/cart.ts", Some(CART), Some(&now)).is_empty());
}

#[test]
fn python_methods_and_a_deleted_file() {
    let base = "class Shop:\n    def buy(self, n):\n        return n\n\n    def sell(self, n):\n        return -n\n";
    let now = base.replace("return -n", "return 0 - n");
    assert_eq!(
        summary(&changes("shop.py", Some(base), Some(&now))),
        ["body Shop.sell"]
    );
    assert_eq!(
        summary(&changes("shop.py", Some(base), None)),
        ["removed Shop", "removed Shop.buy", "removed Shop.sell"]
    );
}

fn files(path: &str, cs: Vec<SymbolChange>) -> BTreeMap<String, FileChange> {
    BTreeMap::from([(
        path.to_owned(),
        FileChange::Symbols {
            symbols: cs,
            deleted: false,
            outside: None,
        },
    )])
}

/// A checkout whose one change is `CART` with `from` replaced by `to`.
fn cart_edited(from: &str, to: &str) -> BTreeMap<String, FileChange> {
    let now = CART.replace(from, to);
    files(
        "src/cart.ts",
        changes("src/cart.ts", Some(CART), Some(&now)),
    )
}

/// The forecasts between checkouts `/r/a` and `/r/b`, with no textual merge expected.
fn between(a: &BTreeMap<String, FileChange>, b: &BTreeMap<String, FileChange>) -> Vec<Forecast> {
    forecast(
        Checkout::new("/r/a", a),
        Checkout::new("/r/b", b),
        &mut no_merge,
    )
}

fn no_merge(_: Merge<'_>) -> TextVerdict {
    panic!("no textual merge expected")
}

#[test]
fn both_changing_one_function_is_a_same_symbol_forecast_two_functions_are_none() {
    let a = cart_edited("n * 2", "n * 4");
    let b = cart_edited("n * 2", "n + 1");
    let c = cart_edited("a + b, 0", "a + b, 1");
    let (wa, wb, wc) = (
        Checkout::new("/r/wt-a", &a),
        Checkout::new("/r/wt-b", &b),
        Checkout::new("/r/wt-c", &c),
    );
    let got = forecast(wa, wb, &mut no_merge);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(got[0].kind, Kind::SameSymbol);
    assert_eq!(got[0].symbol_paths, ["src/cart.ts:price"]);
    assert_eq!(got[0].sides[0].checkout, "/r/wt-a");
    assert_eq!(got[0].sides[1].change, "body");
    // The id is the same whichever daemon computes it.
    assert_eq!(got[0].id, forecast(wa, wb, &mut no_merge)[0].id);
    assert!(
        forecast(wa, wc, &mut no_merge).is_empty(),
        "two functions of one file"
    );
    // The very same change in both merges cleanly.
    assert!(forecast(wa, wa, &mut no_merge).is_empty());
}

#[test]
fn a_signature_change_against_a_new_caller_names_the_chain() {
    let pricing = "export function price(n: number): number {\n  return n;\n}\n";
    let a = files(
        "src/pricing.ts",
        changes(
            "src/pricing.ts",
            Some(pricing),
            Some(&pricing.replace("(n: number)", "(n: number, rate: number)")),
        ),
    );
    let mut added = changes(
        "src/checkout.ts",
        None,
        Some(
            "import { price } from './pricing';\nexport function pay() {\n  return price(3);\n}\n",
        ),
    );
    // What the calling checkout's code graph resolved.
    added[0].calls = vec![CallRef {
        callee: "src/pricing.ts:price".into(),
        line: 3,
    }];
    let b = files("src/checkout.ts", added);
    let got = forecast(
        Checkout::new("/r/wt-a", &a),
        Checkout::new("/r/wt-b", &b),
        &mut no_merge,
    );
    assert_eq!(got.len(), 1, "{got:#?}");
    let f = &got[0];
    assert_eq!(f.kind, Kind::SignatureVsCallers);
    assert_eq!(
        f.symbol_paths,
        ["src/checkout.ts:pay", "src/pricing.ts:price"]
    );
    let chain: Vec<_> = f
        .chain
        .iter()
        .map(|h| (h.symbol_path.as_str(), h.line))
        .collect();
    assert_eq!(
        chain,
        [
            ("src/checkout.ts:pay", Some(3)),
            ("src/pricing.ts:price", None)
        ]
    );
    assert_eq!(f.sides[0].change, "signature");
    assert_eq!(f.sides[1].change, "calls");
    assert!(
        f.summary
            .contains("wt-b's new src/checkout.ts:pay calls it"),
        "{}",
        f.summary
    );
    // The same pair seen from the other side: the same forecast, sides in pair order.
    let back = forecast(
        Checkout::new("/r/wt-b", &b),
        Checkout::new("/r/wt-a", &a),
        &mut no_merge,
    );
    assert_eq!(back[0].sides[0].checkout, "/r/wt-b");
    assert_eq!(back[0].sides[0].change, "calls");
}

#[test]
fn textual_forecasts_ask_git_only_when_both_sides_differ() {
    let text = |blob: Option<&str>| {
        BTreeMap::from([(
            "docs/notes.md".to_owned(),
            FileChange::Text {
                blob: blob.map(str::to_owned),
                note: None,
            },
        )])
    };
    let (x, y, gone) = (text(Some("aa")), text(Some("bb")), text(None));
    let mut asked = Vec::new();
    let mut merge = |m: Merge<'_>| {
        asked.push(format!("{} {} {}", m.path, m.a, m.b));
        TextVerdict::Conflict { conflicts: 2 }
    };
    let c = |id, files| Checkout::new(id, files);
    let got = forecast(c("/a", &x), c("/b", &y), &mut merge);
    assert_eq!(got[0].kind, Kind::Textual);
    assert!(
        got[0].summary.contains("2 conflicting hunks"),
        "{}",
        got[0].summary
    );
    assert!(forecast(c("/a", &x), c("/b", &x), &mut merge).is_empty());
    assert!(forecast(c("/a", &gone), c("/b", &gone), &mut merge).is_empty());
    let md = forecast(c("/a", &x), c("/b", &gone), &mut merge);
    assert!(md[0].summary.contains("modify/delete"), "{}", md[0].summary);
    assert_eq!(asked, ["docs/notes.md aa bb"]);
    let mut clean = |_: Merge<'_>| TextVerdict::Clean;
    assert!(forecast(c("/a", &x), c("/b", &y), &mut clean).is_empty());
}

#[test]
fn a_nested_definition_keeps_its_identity_when_one_of_the_same_name_is_added_above() {
    // Found on flask's history: two tests each with a nested `index`; one checkout adds a
    // third test above them, the other edits the second one's `index`. git merges it.
    let base = "def test_a():\n    def index():\n        return 'a'\n\ndef test_b():\n    def index():\n        return 'b'\n";
    let added = format!("def test_0():\n    def index():\n        return '0'\n\n{base}");
    let a = files("t.py", changes("t.py", Some(base), Some(&added)));
    assert_eq!(
        summary(match &a["t.py"] {
            FileChange::Symbols { symbols, .. } => symbols,
            _ => unreachable!(),
        }),
        ["added test_0", "added index"]
    );
    let b = files(
        "t.py",
        changes("t.py", Some(base), Some(&base.replace("'b'", "'B'"))),
    );
    let got = between(&a, &b);
    assert!(got.is_empty(), "{got:#?}");
}

#[test]
fn a_rename_is_found_when_the_old_name_is_inside_a_keyword() {
    let base = "def de(x):\n    return x\n";
    let got = changes(
        "m.py",
        Some(base),
        Some(&base.replace("def de(", "def dx(")),
    );
    assert_eq!(summary(&got), ["renamed dx"]);
    let ts = "export function port(): number {\n  return 1;\n}\n";
    let got = changes(
        "m.ts",
        Some(ts),
        Some(&ts.replace("function port(", "function host(")),
    );
    assert_eq!(summary(&got), ["renamed host"]);
}

#[test]
fn an_analysed_file_deleted_on_one_side_and_edited_outside_definitions_on_the_other() {
    let base =
        "import assert from 'assert';\ndescribe('x', function () {\n  assert.ok(true);\n});\n";
    let gone = BTreeMap::from([(
        "t.js".to_owned(),
        FileChange::Symbols {
            symbols: changes("t.js", Some(base), None),
            deleted: true,
            outside: None,
        },
    )]);
    let edited = files(
        "t.js",
        changes("t.js", Some(base), Some(&base.replace("ok(true)", "ok(1)"))),
    );
    let got = between(&gone, &edited);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(got[0].kind, Kind::Textual);
    assert!(
        got[0].summary.contains("modify/delete"),
        "{}",
        got[0].summary
    );
}

#[test]
fn a_parameter_renamed_is_a_signature_change_that_breaks_no_caller() {
    let pricing = "export function price(n: number): number {\n  return n;\n}\n";
    let a = files(
        "p.ts",
        changes(
            "p.ts",
            Some(pricing),
            Some(&pricing.replace("(n: number)", "(count: number)")),
        ),
    );
    let mut caller = changes(
        "c.ts",
        None,
        Some("export function pay() {\n  return price(3);\n}\n"),
    );
    caller[0].calls = vec![CallRef {
        callee: "p.ts:price".into(),
        line: 2,
    }];
    let b = files("c.ts", caller);
    assert!(between(&a, &b).is_empty());
}

#[test]
fn text_outside_definitions_is_merged_by_the_caller_only_when_both_changed_it() {
    let base = "import { a } from './a';\n\nexport function f() {\n  return 1;\n}\n";
    let analysis = analyse("m.ts", base);
    let edited = base.replace("return 1", "return 2");
    let edited_analysis = analyse("m.ts", &edited);
    // An edit inside a definition leaves the outside text as it was.
    assert_eq!(
        outside_text(&Version {
            source: base,
            analysis: &analysis
        }),
        outside_text(&Version {
            source: &edited,
            analysis: &edited_analysis
        })
    );
    let with = |now: &str| {
        BTreeMap::from([(
            "m.ts".to_owned(),
            FileChange::Symbols {
                symbols: Vec::new(),
                deleted: false,
                outside: Some(Outside {
                    base: Some("base".into()),
                    now: now.into(),
                }),
            },
        )])
    };
    let (x, y) = (with("x"), with("y"));
    let mut asked = Vec::new();
    let mut merge = |m: Merge<'_>| {
        asked.push(format!("{} {:?} {} {}", m.path, m.base, m.a, m.b));
        TextVerdict::Conflict { conflicts: 1 }
    };
    let got = forecast(
        Checkout::new("/r/a", &x),
        Checkout::new("/r/b", &y),
        &mut merge,
    );
    assert_eq!(got.len(), 1);
    assert!(
        got[0].summary.contains("outside its definitions"),
        "{}",
        got[0].summary
    );
    assert!(
        forecast(
            Checkout::new("/r/a", &x),
            Checkout::new("/r/b", &x),
            &mut merge,
        )
        .is_empty()
    );
    assert_eq!(asked, ["m.ts Some(\"base\") x y"]);
}

#[test]
fn a_file_one_side_could_not_compare_is_named_without_git_s_verdict() {
    let big = |why: &str| {
        BTreeMap::from([(
            "data/big.txt".to_owned(),
            FileChange::Uncompared { why: why.into() },
        )])
    };
    let text = BTreeMap::from([(
        "data/big.txt".to_owned(),
        FileChange::Text {
            blob: Some("ab".repeat(32)),
            note: None,
        },
    )]);
    let mut asked = false;
    let found = forecast(
        Checkout::new("/r/main", &big("too large to compare")),
        Checkout::new("/r/wt-b", &text),
        &mut |_| {
            asked = true;
            TextVerdict::Unknown
        },
    );
    assert!(!asked, "git's merge was asked about a file it cannot have");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, Kind::Textual);
    assert!(
        found[0]
            .summary
            .contains("main's version is not compared (too large to compare)"),
        "{}",
        found[0].summary
    );
    let changes: Vec<&str> = found[0].sides.iter().map(|s| s.change.as_str()).collect();
    assert_eq!(changes, ["uncompared", "modified"]);
    // Neither side changed it: nothing.
    assert!(between(&big("x"), &BTreeMap::new()).is_empty());
}
