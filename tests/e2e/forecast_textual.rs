//! The textual forecast agrees with git (issue 33): where git's merge of a file both
//! worktrees changed would stop although no definition is changed on both sides
//! (adjacent one-line functions), the forecast says so, with why; once wit's merge
//! driver is installed for those files (it merges them), it says nothing and lists the
//! files as merging with the driver. Real worktrees, real daemons, real `git merge`.

use serde_json::{Value, json};

use crate::forecast_worktrees::{Pair, git, kinds};
use crate::support::daemon::Daemon;

/// Definitions one under the other in three languages (TypeScript, Python and Go, a
/// declarative one), each with the main worktree's edit of the first and the other
/// worktree's of the second, on adjacent lines: one-line functions, and in Python the
/// last line of one function and the first of the next.
/// A replacement in a file: what, by what.
type Edit = (&'static str, &'static str);

const FILES: [(&str, &str, Edit, Edit); 3] = [
    (
        "src/rates.ts",
        "export function price(n: number): number { return n * 2; }\nexport function tax(n: number): number { return n / 10; }\n",
        ("n * 2", "n * 3"),
        ("n / 10", "n / 5"),
    ),
    (
        "shop/rates.py",
        "def price(n):\n    return n * 2\ndef tax(n):\n    return n / 10\n",
        ("n * 2", "n * 3"),
        ("def tax(n):", "def tax(n, rate=10):"),
    ),
    (
        "rates/rates.go",
        "package rates\n\nfunc price(n int) int { return n * 2 }\nfunc tax(n int) int { return n / 10 }\n",
        ("n * 2", "n * 3"),
        ("n / 10", "n / 5"),
    ),
];

const TEXTUAL: [&str; 3] = [
    "textual [\"rates/rates.go\"]",
    "textual [\"shop/rates.py\"]",
    "textual [\"src/rates.ts\"]",
];

fn driver_files(a: &Value) -> Vec<String> {
    let mut files: Vec<String> = a["driverMerges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["file"].as_str().unwrap().to_owned())
        .collect();
    files.sort();
    files
}

#[test]
fn adjacent_definitions_are_textual_without_the_merge_driver_and_merge_with_it() {
    let p = Pair::prepared(
        |r| {
            for (path, text, _, _) in FILES {
                r.write(path, text);
            }
        },
        Daemon::start,
    );
    for (path, _, (from, to), (from2, to2)) in FILES {
        p.edit(p.m(), path, from, to);
        p.edit(&p.wt, path, from2, to2);
    }
    // git would stop on each file: a textual forecast says so, and why.
    let a = p.wait_kinds("three textual forecasts", &TEXTUAL);
    for f in a["forecasts"].as_array().unwrap() {
        let summary = f["summary"].as_str().unwrap();
        // The pair's parties come in the order of their checkouts' paths, which are
        // temporary directories here: either may be named first.
        assert!(
            summary.contains("although no definition is changed on both sides")
                && (summary.contains("adjacent changes of price (")
                    && summary.contains(") and tax (wt-b)")
                    || summary.contains("adjacent changes of tax (wt-b) and price (")),
            "{summary}"
        );
        // The driver is not installed, and would merge it: the forecast says how.
        assert!(summary.contains("wit hook install"), "{summary}");
    }
    assert_eq!(a["driverMerges"], json!([]), "{a}");
    // `wit conflicts` shows it.
    let shown = p.main.wit(None, &["conflicts"]).ok().stdout;
    assert!(shown.contains("adjacent changes of "), "{shown}");

    // wit's merge driver installed: git's merge will not stop, so no forecast; the files
    // are listed as merging with the driver.
    p.main.wit(None, &["hook", "install"]).ok();
    let a = p.wait("the driver taking the files over", |a| {
        kinds(a).is_empty() && driver_files(a).len() == 3
    });
    assert_eq!(
        driver_files(&a),
        ["rates/rates.go", "shop/rates.py", "src/rates.ts"]
    );
    let shown = p.main.wit(None, &["conflicts"]).ok().stdout;
    assert!(
        shown.contains("Will merge with wit's driver: 3 files"),
        "{shown}"
    );

    // Removed, git merges alone again: the forecasts are back.
    p.main.wit(None, &["hook", "remove"]).ok();
    p.wait_kinds("the forecasts back", &TEXTUAL);

    // And git agrees: without the driver `git merge` stops on the three files; with it,
    // the same merge is clean.
    git(&p.wt, &["commit", "-qam", "tax"]);
    git(p.m(), &["commit", "-qam", "price"]);
    let stopped = p.main.git_run(&["merge", "--no-edit", "feature"], None);
    assert_ne!(stopped.code, 0, "{stopped:?}");
    let mut unmerged: Vec<String> = p
        .main
        .git(&["diff", "--name-only", "--diff-filter=U"])
        .lines()
        .map(str::to_owned)
        .collect();
    unmerged.sort();
    assert_eq!(
        unmerged,
        ["rates/rates.go", "shop/rates.py", "src/rates.ts"]
    );
    git(p.m(), &["merge", "--abort"]);
    p.main.wit(None, &["hook", "install"]).ok();
    let merged = p.main.git_run(&["merge", "--no-edit", "feature"], None);
    assert_eq!(merged.code, 0, "{merged:?}");
    let ts = std::fs::read_to_string(p.m().join("src/rates.ts")).unwrap();
    assert!(ts.contains("n * 3") && ts.contains("n / 5"), "{ts}");
    let py = std::fs::read_to_string(p.m().join("shop/rates.py")).unwrap();
    assert!(py.contains("n * 3") && py.contains("rate=10"), "{py}");
}
