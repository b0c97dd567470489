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
    BTreeMap::from([(path.to_owned(), FileChange::Symbols { symbols: cs })])
}

fn no_merge(_: &str, _: &str, _: &str) -> TextVerdict {
    panic!("no textual merge expected")
}

#[test]
fn both_changing_one_function_is_a_same_symbol_forecast_two_functions_are_none() {
    let a = files(
        "src/cart.ts",
        changes(
            "src/cart.ts",
            Some(CART),
            Some(&CART.replace("n * 2", "n * 4")),
        ),
    );
    let b = files(
        "src/cart.ts",
        changes(
            "src/cart.ts",
            Some(CART),
            Some(&CART.replace("n * 2", "n + 1")),
        ),
    );
    let c = files(
        "src/cart.ts",
        changes(
            "src/cart.ts",
            Some(CART),
            Some(&CART.replace("a + b, 0", "a + b, 1")),
        ),
    );
    let (wa, wb, wc) = (
        Checkout {
            id: "/r/wt-a",
            files: &a,
        },
        Checkout {
            id: "/r/wt-b",
            files: &b,
        },
        Checkout {
            id: "/r/wt-c",
            files: &c,
        },
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
        Checkout {
            id: "/r/wt-a",
            files: &a,
        },
        Checkout {
            id: "/r/wt-b",
            files: &b,
        },
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
        Checkout {
            id: "/r/wt-b",
            files: &b,
        },
        Checkout {
            id: "/r/wt-a",
            files: &a,
        },
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
    let mut merge = |p: &str, a: &str, b: &str| {
        asked.push(format!("{p} {a} {b}"));
        TextVerdict::Conflict { conflicts: 2 }
    };
    let c = |id, files| Checkout { id, files };
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
    let mut clean = |_: &str, _: &str, _: &str| TextVerdict::Clean;
    assert!(forecast(c("/a", &x), c("/b", &y), &mut clean).is_empty());
}
