//! The evaluation end to end on a tiny real repository whose answers are known: one merge
//! whose branches edit one TypeScript function (git conflicts, same-symbol forecast) and
//! one whose branches edit two different files (clean, no forecast).

use std::path::Path;
use std::process::Command;

use wit_forecast::Kind;

use wit_bench::history::pairs::Source;

const CART: &str = "export function price(n: number): number {\n  return n * 2;\n}\n\nexport function total(items: number[]): number {\n  return items.reduce((a, b) => a + b, 0);\n}\n";
const OTHER: &str = "export function helper(x: number): number {\n  return x;\n}\n";

/// Runs git in `dir` with no user or system configuration and a fixed identity and
/// date, so that the repository is the same on every machine.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .env("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z")
        .output()
        .expect("git runs");
    assert!(
        out.status.success() || args[0] == "merge",
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn write(dir: &Path, file: &str, text: &str) {
    std::fs::write(dir.join(file), text).unwrap();
}

/// main: base → (x: price n*3, y: price n+1, merged by hand) → (p: total in cart.ts,
/// q: helper in other.ts, merged cleanly).
fn repository(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::create_dir(dir.join("src")).unwrap();
    write(dir, "src/cart.ts", CART);
    write(dir, "src/other.ts", OTHER);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "base"]);

    git(dir, &["checkout", "-q", "-b", "x"]);
    write(dir, "src/cart.ts", &CART.replace("n * 2", "n * 3"));
    git(dir, &["commit", "-q", "-am", "x: price times three"]);
    git(dir, &["checkout", "-q", "main"]);
    git(dir, &["checkout", "-q", "-b", "y"]);
    write(dir, "src/cart.ts", &CART.replace("n * 2", "n + 1"));
    git(dir, &["commit", "-q", "-am", "y: price plus one"]);
    git(dir, &["checkout", "-q", "main"]);
    git(dir, &["merge", "-q", "--no-ff", "--no-edit", "x"]);
    git(dir, &["merge", "-q", "--no-ff", "--no-edit", "y"]); // conflicts
    write(dir, "src/cart.ts", &CART.replace("n * 2", "n * 3 + 1"));
    git(dir, &["commit", "-q", "-am", "merge y (resolved by hand)"]);

    git(dir, &["checkout", "-q", "-b", "p"]);
    let merged = CART.replace("n * 2", "n * 3 + 1");
    write(dir, "src/cart.ts", &merged.replace("a + b, 0", "a + b, 10"));
    git(dir, &["commit", "-q", "-am", "p: total starts at ten"]);
    git(dir, &["checkout", "-q", "main"]);
    git(dir, &["checkout", "-q", "-b", "q"]);
    write(
        dir,
        "src/other.ts",
        &OTHER.replace("return x;", "return x + 1;"),
    );
    git(dir, &["commit", "-q", "-am", "q: helper adds one"]);
    git(dir, &["checkout", "-q", "main"]);
    git(dir, &["merge", "-q", "--no-ff", "--no-edit", "p"]);
    git(dir, &["merge", "-q", "--no-ff", "--no-edit", "q"]);
}

#[test]
fn a_known_conflict_and_a_known_clean_merge_score_one() {
    let dir = tempfile::tempdir().unwrap();
    repository(dir.path());
    let report = crate::run(dir.path(), 300).unwrap();
    assert!(report.failed.is_empty(), "{:?}", report.failed);

    // The merges: `merge x` (one side unchanged: skipped), `merge y` (conflict), `merge p`
    // (one side unchanged), `merge q` (clean, two files).
    let merges: Vec<_> = report
        .pairs
        .iter()
        .filter(|r| r.source == Source::Merge)
        .collect();
    assert_eq!(merges.len(), 2, "{:#?}", report.pairs);
    let conflict = merges.iter().find(|r| !r.truth.is_empty()).unwrap();
    assert_eq!(conflict.truth, ["src/cart.ts"]);
    assert_eq!(conflict.forecasts.len(), 1, "{:#?}", conflict.forecasts);
    assert_eq!(conflict.forecasts[0].kind, Kind::SameSymbol);
    assert_eq!(conflict.forecasts[0].files, ["src/cart.ts"]);
    let clean = merges.iter().find(|r| r.truth.is_empty()).unwrap();
    assert!(clean.forecasts.is_empty(), "{:#?}", clean.forecasts);

    for (name, f) in report
        .by_source
        .iter()
        .chain([(&"overall".to_owned(), &report.overall)])
    {
        assert!(f.pair.truth >= 1, "{name}: {f:#?}");
        assert_eq!(f.pair.precision, Some(1.0), "{name}: {f:#?}");
        assert_eq!(f.pair.recall, Some(1.0), "{name}: {f:#?}");
        assert_eq!(f.file.precision, Some(1.0), "{name}: {f:#?}");
        assert_eq!(f.file.recall, Some(1.0), "{name}: {f:#?}");
    }
    assert_eq!(report.missed_files, 0);
    // The table renders.
    assert!(report.table().contains("overall: pairs, any forecast"));
}
