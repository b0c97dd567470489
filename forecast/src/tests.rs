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
            blob: None,
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
        TextVerdict::conflict(2)
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
            blob: None,
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

/// git's own merge of three texts (`git merge-file` with the histogram diff, as the
/// daemon runs it), located as the daemon locates it; `driver` is what wit's merge
/// driver would say.
fn git_merge(base: &str, a: &str, b: &str, driver: Driver) -> TextVerdict {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let (pa, pbase, pb) = (write("a", a), write("base", base), write("b", b));
    let out = std::process::Command::new("git")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args(["merge-file", "-p", "--diff-algorithm=histogram"])
        .args([&pa, &pbase, &pb])
        .output()
        .unwrap();
    match out.status.code() {
        Some(0) => TextVerdict::Clean,
        Some(n) => TextVerdict::Conflict {
            conflicts: n as usize,
            regions: colliding_regions(base, a, b),
            driver,
        },
        None => TextVerdict::Unknown,
    }
}

/// Two checkouts' changes of one analysed file from `base` to `a` and `b`, as the daemon
/// publishes them (with their whole contents, as blobs named by themselves here), and the
/// outcome with git's merge as `git_merge` runs it.
fn both_changed(path: &str, base: &str, a: &str, b: &str, driver: Driver) -> Outcome {
    let side = |now: &str| {
        BTreeMap::from([(
            path.to_owned(),
            FileChange::Symbols {
                symbols: changes(path, Some(base), Some(now)),
                deleted: false,
                blob: Some(now.to_owned()),
            },
        )])
    };
    let (fa, fb) = (side(a), side(b));
    compare(
        Checkout::new("/r/main", &fa),
        Checkout::new("/r/wt-b", &fb),
        &mut |m: Merge<'_>| {
            assert_eq!(m.base, None, "the base's own version");
            git_merge(base, m.a, m.b, driver)
        },
    )
}

const PRICING: &str = "export function price(n: number): number { return n * 2; }\nexport function tax(n: number): number { return n / 10; }\n\nexport function fee(): number { return 1; }\n";

#[test]
fn adjacent_changes_of_two_definitions_are_a_textual_forecast_naming_both() {
    let a = PRICING.replace("n * 2", "n * 3");
    let b = PRICING.replace("n / 10", "n / 5");
    let got = both_changed("src/pricing.ts", PRICING, &a, &b, Driver::Unknown);
    assert_eq!(got.forecasts.len(), 1, "{got:#?}");
    let f = &got.forecasts[0];
    assert_eq!(f.kind, Kind::Textual);
    assert_eq!(f.symbol_paths, ["src/pricing.ts"]);
    assert!(
        f.summary
            .contains("adjacent changes of price (main) and tax (wt-b)"),
        "{}",
        f.summary
    );
    assert!(
        f.summary
            .contains("although no definition is changed on both sides")
    );
    assert_eq!(f.sides[0].line, Some(1));
    assert_eq!(f.sides[1].line, Some(2));
    // With wit's merge driver installed and merging it: no forecast, a note.
    let got = both_changed(
        "src/pricing.ts",
        PRICING,
        &a,
        &b,
        Driver::Merges { installed: true },
    );
    assert!(got.forecasts.is_empty(), "{got:#?}");
    assert_eq!(got.driver_merges.len(), 1);
    assert!(
        got.driver_merges[0]
            .summary
            .contains("adjacent changes of price (main) and tax (wt-b)"),
        "{}",
        got.driver_merges[0].summary
    );
    // Not installed, it would: the forecast says how.
    let got = both_changed(
        "src/pricing.ts",
        PRICING,
        &a,
        &b,
        Driver::Merges { installed: false },
    );
    assert!(got.forecasts[0].summary.contains("wit hook install"));
    // Two definitions a line apart: git merges, nothing.
    let c = PRICING.replace("return 1", "return 2");
    assert_eq!(
        both_changed("src/pricing.ts", PRICING, &a, &c, Driver::Unknown),
        Outcome::default()
    );
}

#[test]
fn the_last_line_of_one_function_next_to_the_first_of_the_next_in_python() {
    let base = "def price(n):\n    return n * 2\ndef tax(n):\n    return n / 10\n";
    let a = base.replace("n * 2", "n * 3");
    let b = base.replace("def tax(n):", "def tax(n, rate=10):");
    let got = both_changed("shop.py", base, &a, &b, Driver::Unknown);
    assert_eq!(got.forecasts.len(), 1, "{got:#?}");
    assert!(
        got.forecasts[0]
            .summary
            .contains("adjacent changes of price (main) and tax (wt-b)"),
        "{}",
        got.forecasts[0].summary
    );
}

#[test]
fn one_definition_changed_by_both_is_same_symbol_and_not_textual_too() {
    let a = PRICING.replace("n * 2", "n * 3");
    let b = PRICING.replace("n * 2", "n * 4");
    let got = both_changed("src/pricing.ts", PRICING, &a, &b, Driver::Unknown);
    let kinds: Vec<Kind> = got.forecasts.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, [Kind::SameSymbol], "{got:#?}");
}

#[test]
fn a_blank_line_added_between_methods_next_to_a_line_the_other_side_changed() {
    // The shape of zod's merge e24b16d09 on src/types.ts: one side inserts blank lines
    // between methods, the other changes the first line of the next one.
    let base = "export class T {\n  nullable(): number {\n    return 1;\n  }\n  nullish(): number {\n    return 2;\n  }\n}\n";
    let a = base.replace("  }\n  nullish", "  }\n\n  nullish");
    let b = base.replace("nullish(): number", "nullish(): string");
    let got = both_changed("src/types.ts", base, &a, &b, Driver::Unknown);
    assert_eq!(got.forecasts.len(), 1, "{got:#?}");
    let summary = &got.forecasts[0].summary;
    assert!(
        summary.contains(
            "main's change outside its definitions (line 5) next to wt-b's change of T.nullish"
        ),
        "{summary}"
    );
}

/// Regression, zod's merge 0cd69b630 (src/helpers/util.ts): one side appended a function
/// after the last one of a namespace; the other changed that one's last statement and
/// appended another function inside it. git merges the two (the changes are a line
/// apart); the forecast compared the text outside the definitions, each definition one
/// marker line, where both additions landed next to the same marker: a textual forecast
/// git contradicted. The whole file is merged now.
#[test]
fn zod_0cd69b630_additions_after_one_definition_that_git_merges_are_no_forecast() {
    let base = "export namespace util {\n  export const values = (obj: any) => {\n    const keys = Object.keys(obj);\n    return Object.values(keys);\n  };\n}\n";
    let a = base.replace(
        "  };\n}\n",
        "  };\n\n  export const objectValues = (obj: any) => {\n    return obj;\n  };\n}\n",
    );
    let b = base.replace(
        "    return Object.values(keys);\n",
        "    return getValues(keys);\n  };\n\n  export const getValues = (obj: any) => {\n    return obj;\n",
    );
    assert_eq!(git_merge(base, &a, &b, Driver::Unknown), TextVerdict::Clean);
    let got = both_changed("src/helpers/util.ts", base, &a, &b, Driver::Unknown);
    assert_eq!(got, Outcome::default());
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

/// Regression, zod's merge 4d9d1155bc75 (src/helpers/util.ts): both sides added the very
/// same definition, one in place of a blank line, the other above it. No same-symbol
/// forecast (the same change), but git stops on the lines around it: the forecast said
/// nothing, taking the region for one a same-symbol forecast named.
#[test]
fn zod_4d9d1155bc75_the_same_definition_added_by_both_on_different_lines_is_textual() {
    let base = "export type A = number;\n\nexport function f() {\n  return 1;\n}\n";
    let a = base.replace("number;\n\n", "number;\nexport type B = string;\n");
    let b = base.replace("number;\n", "number;\nexport type B = string;\n");
    let got = both_changed("src/util.ts", base, &a, &b, Driver::Unknown);
    assert_eq!(got.forecasts.len(), 1, "{got:#?}");
    assert!(
        got.forecasts[0]
            .summary
            .contains("both made the same change of B, but not to the same lines around it"),
        "{}",
        got.forecasts[0].summary
    );
}

const ORDER: &str =
    "export interface Order {\n  id: string;\n  coupon?: string;\n  total: number;\n}\n";

/// `member change [to] (before → after)` of every member change of `cs`.
fn member_changes(cs: &[SymbolChange]) -> Vec<String> {
    cs.iter()
        .flat_map(|c| &c.members)
        .map(|m| {
            format!(
                "{} {}{} ({:?} → {:?})",
                m.member,
                m.change.as_str(),
                m.to.as_deref().map(|t| format!(" {t}")).unwrap_or_default(),
                m.before,
                m.after
            )
        })
        .collect()
}

#[test]
fn members_removed_renamed_and_retyped_are_told_apart_and_go_to_the_type_s_change() {
    let removed = changes(
        "src/order.ts",
        Some(ORDER),
        Some(&ORDER.replace("  coupon?: string;\n", "")),
    );
    assert_eq!(summary(&removed), ["body Order"]);
    assert_eq!(
        member_changes(&removed),
        ["Order.coupon removed (Some(\"string | undefined\") → None)"]
    );
    let renamed = changes(
        "src/order.ts",
        Some(ORDER),
        Some(&ORDER.replace("coupon?:", "voucher?:")),
    );
    assert_eq!(
        member_changes(&renamed),
        [
            "Order.coupon renamed voucher (Some(\"string | undefined\") → Some(\"string | undefined\"))"
        ]
    );
    let retyped = changes(
        "src/order.ts",
        Some(ORDER),
        Some(&ORDER.replace("total: number", "total: bigint")),
    );
    assert_eq!(
        member_changes(&retyped),
        ["Order.total retyped (Some(\"number\") → Some(\"bigint\"))"]
    );
    // A member added, or one whose type is only re-formatted, is no member change.
    let formatted = "export interface P {\n  seen?: { schema: any; objects: any[] }[];\n}\n";
    let got = changes(
        "src/p.ts",
        Some(formatted),
        Some(&formatted.replace("any[] }[]", "any[]; }[]")),
    );
    assert!(
        member_changes(&got).is_empty(),
        "{:?}",
        member_changes(&got)
    );
    let added = changes(
        "src/order.ts",
        Some(ORDER),
        Some(&ORDER.replace("  total", "  note: string;\n  total")),
    );
    assert!(member_changes(&added).is_empty());
    // Python: `self.coupon` dropped from `__init__` is that method's change.
    let py = "class Order:\n    def __init__(self, coupon):\n        self.coupon = coupon\n        self.id = 1\n";
    let got = changes(
        "shop/order.py",
        Some(py),
        Some(&py.replace("        self.coupon = coupon\n", "")),
    );
    assert_eq!(summary(&got), ["body Order.__init__"]);
    assert_eq!(member_changes(&got), ["Order.coupon removed (None → None)"]);
}

#[test]
fn a_member_removed_against_a_new_read_of_it_is_forecast_with_its_chain_and_an_unread_one_is_not() {
    let a = files(
        "src/order.ts",
        changes(
            "src/order.ts",
            Some(ORDER),
            Some(&ORDER.replace("  coupon?: string;\n", "")),
        ),
    );
    let mut added = changes(
        "src/checkout.ts",
        None,
        Some(
            "import { Order } from './order';\nexport function pay(order: Order) {\n  return order.coupon;\n}\n",
        ),
    );
    // What the reading checkout's code graph resolved.
    added[0].uses = vec![UseRef {
        member: "src/order.ts:Order.coupon".into(),
        line: 3,
        write: false,
        receiver: "new:Order".into(),
    }];
    let b = files("src/checkout.ts", added.clone());
    let got = forecast(
        Checkout::new("/r/main", &a),
        Checkout::new("/r/wt-b", &b),
        &mut no_merge,
    );
    assert_eq!(got.len(), 1, "{got:#?}");
    let f = &got[0];
    assert_eq!(f.kind, Kind::MemberVsUses);
    assert_eq!(
        f.symbol_paths,
        ["src/checkout.ts:pay", "src/order.ts:Order.coupon"]
    );
    assert_eq!(f.sides[0].change, "member-removed");
    assert_eq!(f.sides[0].before.as_deref(), Some("string | undefined"));
    assert_eq!(f.sides[1].change, "reads");
    let chain: Vec<_> = f
        .chain
        .iter()
        .map(|h| (h.symbol_path.as_str(), h.line))
        .collect();
    assert_eq!(
        chain,
        [
            ("src/checkout.ts:pay", Some(3)),
            ("src/order.ts:Order.coupon", None)
        ]
    );
    assert!(
        f.summary.contains(
            "main removes the member coupon of src/order.ts:Order and wt-b's new \
             src/checkout.ts:pay reads it on a value declared of type Order (line 3)"
        ),
        "{}",
        f.summary
    );
    // Seen from the other side: the same forecast, sides in the pair's order.
    let back = forecast(
        Checkout::new("/r/wt-b", &b),
        Checkout::new("/r/main", &a),
        &mut no_merge,
    );
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].sides[0].change, "reads");
    assert_eq!(back[0].sides[1].change, "member-removed");
    // The code reads another member: nothing.
    added[0].uses[0].member = "src/order.ts:Order.id".into();
    let b = files("src/checkout.ts", added);
    assert!(between(&a, &b).is_empty());
}

#[test]
fn a_python_class_attribute_removed_against_a_read_of_it_in_another_module_is_forecast() {
    let order = "class Order:\n    coupon: str = \"\"\n    total = 0\n\n    def show(self):\n        return self.total\n";
    let removed = changes(
        "shop/order.py",
        Some(order),
        Some(&order.replace("    coupon: str = \"\"\n", "")),
    );
    assert_eq!(
        member_changes(&removed),
        ["Order.coupon removed (Some(\"str\") → None)"]
    );
    let a = files("shop/order.py", removed);
    let mut added = changes(
        "shop/pay.py",
        None,
        Some("from shop.order import Order\n\ndef pay(order: Order):\n    return order.coupon\n"),
    );
    added[0].uses = vec![UseRef {
        member: "shop/order.py:Order.coupon".into(),
        line: 4,
        write: false,
        receiver: "order".into(),
    }];
    let b = files("shop/pay.py", added.clone());
    let got = between(&a, &b);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(got[0].kind, Kind::MemberVsUses);
    assert_eq!(
        got[0].symbol_paths,
        ["shop/pay.py:pay", "shop/order.py:Order.coupon"]
    );
    assert!(
        got[0]
            .summary
            .contains("removes the member coupon of shop/order.py:Order"),
        "{}",
        got[0].summary
    );
    // A read of the attribute that stays: nothing.
    added[0].uses[0].member = "shop/order.py:Order.total".into();
    assert!(between(&a, &files("shop/pay.py", added)).is_empty());
}
