//! The merge over the real analyzers and the real `git merge-file`.

use proptest::prelude::*;
use wit_core::{LanguageAnalyzer, Registry};

use crate::{
    Analysed, ConflictKind, Fallback, GitMergeFile, LineMerge, LineMerged, MarkerStyle, Markers,
    Merged, Method, merge, merge_blobs, merges_cleanly,
};

/// git's line merge as the driver runs it, without this machine's git configuration.
fn git() -> GitMergeFile {
    GitMergeFile::new(&std::env::temp_dir()).unwrap().isolated()
}

fn registry() -> Registry {
    wit_analyzers::builtin_registry()
}

fn markers() -> Markers {
    Markers {
        ours: "HEAD".into(),
        base: "base".into(),
        theirs: "feature".into(),
        size: 7,
    }
}

/// git's line merge, counting how often it runs.
struct Counted {
    git: GitMergeFile,
    runs: usize,
}

impl LineMerge for Counted {
    type Error = String;

    fn merge(
        &mut self,
        base: &[u8],
        ours: &[u8],
        theirs: &[u8],
        markers: &Markers,
        style: MarkerStyle,
    ) -> Result<LineMerged, Self::Error> {
        self.runs += 1;
        self.git.merge(base, ours, theirs, markers, style)
    }
}

/// The merge of three texts of the file `path`, as the driver makes it (capped at
/// `max_bytes`). Where git's line merge stops, [`merges_cleanly`] must say what the
/// merge's `is_clean` says, with at least one line merge fewer (that of the whole file).
fn merged_within(path: &str, [base, ours, theirs]: [&str; 3], max_bytes: u64) -> Merged {
    let blobs = [base.as_bytes(), ours.as_bytes(), theirs.as_bytes()];
    let mut whole = Counted {
        git: git(),
        runs: 0,
    };
    let m = merge_blobs(path, blobs, &registry(), max_bytes, &markers(), &mut whole).unwrap();
    if git_alone(base, ours, theirs).conflicts > 0 {
        let mut asked = Counted {
            git: git(),
            runs: 0,
        };
        let clean = merges_cleanly(path, blobs, &registry(), max_bytes, &mut asked).unwrap();
        assert_eq!(clean, m.is_clean(), "merges_cleanly against {m:?}");
        assert!(asked.runs < whole.runs, "line merges: {m:?}");
        if m.is_clean() {
            assert_eq!(asked.runs + 1, whole.runs, "line merges: {m:?}");
        }
    }
    m
}

/// The merge of three texts of the file `path`, as the driver makes it.
fn merged(path: &str, base: &str, ours: &str, theirs: &str) -> Merged {
    merged_within(path, [base, ours, theirs], 1024 * 1024)
}

fn text(m: &Merged) -> &str {
    std::str::from_utf8(&m.text).unwrap()
}

/// What git's merge alone gives.
fn git_alone(base: &str, ours: &str, theirs: &str) -> LineMerged {
    git()
        .merge(
            base.as_bytes(),
            ours.as_bytes(),
            theirs.as_bytes(),
            &markers(),
            MarkerStyle::AsConfigured,
        )
        .unwrap()
}

const PRICING: &str = "export function price(n: number): number { return n * 2; }\nexport function tax(n: number): number { return n * 0.2; }\nexport function total(n: number): number { return price(n) + tax(n); }\n";

#[test]
fn adjacent_one_line_functions_changed_on_each_side_merge_with_both_changes() {
    let ours = PRICING.replace("n * 2;", "n * 3;");
    let theirs = PRICING.replace("n * 0.2;", "n * 0.25;");
    assert!(
        git_alone(PRICING, &ours, &theirs).conflicts > 0,
        "git stops here"
    );
    let m = merged("src/pricing.ts", PRICING, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(m.method, Method::Definitions);
    assert_eq!(
        text(&m),
        PRICING
            .replace("n * 2;", "n * 3;")
            .replace("n * 0.2;", "n * 0.25;")
    );
}

#[test]
fn the_last_line_of_one_function_and_the_first_of_the_next_merge() {
    let base =
        "def price(n):\n    x = n * 2\n    return x\ndef tax(n):\n    y = n * 0.2\n    return y\n";
    let ours = base.replace("    return x\n", "    return x + 1\n");
    let theirs = base.replace("def tax(n):", "def tax(n, rate=0.2):");
    let m = merged("shop.py", base, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(
        text(&m),
        base.replace("    return x\n", "    return x + 1\n")
            .replace("def tax(n):", "def tax(n, rate=0.2):")
    );
}

#[test]
fn both_sides_appending_keep_both_ours_first() {
    let base = "export function a(): number {\n  return 1;\n}\n";
    let ours = format!("{base}\n/** Two. */\nexport function b(): number {{\n  return 2;\n}}\n");
    let theirs = format!("{base}\nexport function c(): number {{\n  return 3;\n}}\n");
    let m = merged("src/x.ts", base, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(
        text(&m),
        format!(
            "{base}\n/** Two. */\nexport function b(): number {{\n  return 2;\n}}\n\nexport function c(): number {{\n  return 3;\n}}\n"
        )
    );
    let base = "def a():\n    return 1\n";
    let ours = format!("{base}\n\ndef b():\n    return 2\n");
    let theirs = format!("{base}\n\n# Three.\ndef c():\n    return 3\n");
    let m = merged("x.py", base, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(
        text(&m),
        format!("{base}\n\ndef b():\n    return 2\n\n\n# Three.\ndef c():\n    return 3\n")
    );
}

#[test]
fn one_definition_changed_on_both_sides_stops_with_gits_markers() {
    let ours = PRICING.replace("n * 2;", "n * 3;");
    let theirs = PRICING.replace("n * 2;", "n * 4;");
    let m = merged("src/pricing.ts", PRICING, &ours, &theirs);
    assert_eq!(m.conflicts.len(), 1, "{m:?}");
    assert_eq!(m.conflicts[0].definition.as_deref(), Some("price"));
    assert_eq!(m.conflicts[0].kind, ConflictKind::ChangedOnBothSides);
    // git's conflict, exactly: the rest of the file as it was.
    assert_eq!(
        text(&m),
        std::str::from_utf8(&git_alone(PRICING, &ours, &theirs).text).unwrap()
    );
    assert!(text(&m).contains(
        "<<<<<<< HEAD\nexport function price(n: number): number { return n * 3; }\n=======\n"
    ));
}

/// `n` functions, each changed differently on both sides.
fn changed_on_both_sides(n: usize) -> [String; 3] {
    let file = |side: &str| -> String {
        (0..n)
            .map(|i| {
                format!("export function f{i}(n: number): number {{\n  return n * {side};\n}}\n\n")
            })
            .collect()
    };
    [file("1"), file("2"), file("3")]
}

#[test]
fn asked_only_whether_it_is_clean_the_merge_ends_at_its_first_conflict() {
    let runs = |n: usize| {
        let [base, ours, theirs] = changed_on_both_sides(n);
        let blobs = [base.as_bytes(), ours.as_bytes(), theirs.as_bytes()];
        let mut asked = Counted {
            git: git(),
            runs: 0,
        };
        let clean = merges_cleanly("src/f.ts", blobs, &registry(), 1 << 20, &mut asked).unwrap();
        assert!(!clean);
        let m = merged("src/f.ts", &base, &ours, &theirs);
        assert_eq!(m.conflicts.len(), n, "{m:?}");
        asked.runs
    };
    // Two conflicting definitions or eight: the same line merges, up to the first.
    assert_eq!(runs(2), runs(8));
}

#[test]
fn a_definition_deleted_on_one_side_and_changed_on_the_other_is_a_conflict() {
    let ours = PRICING.replace(
        "export function tax(n: number): number { return n * 0.2; }\n",
        "",
    );
    let theirs = PRICING
        .replace("n * 0.2;", "n * 0.25;")
        .replace("n * 2;", "n * 5;");
    let m = merged("src/pricing.ts", PRICING, &ours, &theirs);
    assert_eq!(m.method, Method::Definitions);
    let kinds: Vec<_> = m
        .conflicts
        .iter()
        .map(|c| (c.definition.as_deref(), c.kind))
        .collect();
    assert_eq!(
        kinds,
        [(Some("tax"), ConflictKind::DeletedAndChanged)],
        "{m:?}"
    );
    let t = text(&m);
    assert!(
        t.contains("n * 0.25"),
        "their change is kept in the conflict: {t}"
    );
    assert!(t.contains("n * 5;"), "their other change merged: {t}");
    assert!(
        t.contains("<<<<<<< HEAD\n=======\nexport function tax"),
        "{t}"
    );
}

#[test]
fn methods_of_a_class_changed_on_different_sides_merge() {
    let base = "export class Shop {\n  price(n: number): number {\n    return n * 2;\n  }\n  tax(n: number): number {\n    return n * 0.2;\n  }\n}\n";
    let ours = base.replace("return n * 2;", "return n * 3;\n  ");
    let ours = ours.replace("return n * 3;\n  \n", "return n * 3;\n");
    let ours = ours.replace("  }\n  tax", "  } // price\n  tax");
    let theirs = base.replace(
        "  tax(n: number): number {",
        "  tax(n: number, r = 0.2): number {",
    );
    assert!(git_alone(base, &ours, &theirs).conflicts > 0);
    let m = merged("src/shop.ts", base, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(
        text(&m),
        ours.replace(
            "  tax(n: number): number {",
            "  tax(n: number, r = 0.2): number {"
        )
    );
}

#[test]
fn a_field_line_next_to_a_method_and_text_after_a_function_merge_apart() {
    let base = "class A:\n    x = 1\n    def m(self):\n        return 1\n";
    let ours = base.replace("x = 1", "x = 2");
    let theirs = base.replace("def m(self):", "def m(self, k):");
    let m = merged("a.py", base, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(text(&m), ours.replace("def m(self):", "def m(self, k):"));
    let base = "a = 1\ndef f():\n    return 1\nb = 2\n";
    let ours = base.replace("return 1", "return 10");
    let theirs = base.replace("b = 2", "b = 3");
    let m = merged("b.py", base, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(text(&m), "a = 1\ndef f():\n    return 10\nb = 3\n");
    // Two text lines changed on both sides stay git's conflict.
    let ours = base.replace("a = 1", "a = 10");
    let theirs = base.replace("a = 1", "a = 20");
    let m = merged("b.py", base, &ours, &theirs);
    assert_eq!(m.conflicts.len(), 1);
    assert_eq!(m.conflicts[0].kind, ConflictKind::Text);
}

#[test]
fn one_name_added_on_both_sides_with_different_texts_is_a_conflict() {
    let base = "def a():\n    return 1\n";
    let ours = format!("{base}\ndef x():\n    return 9\n");
    let theirs = format!("{base}\ndef x():\n    return 8\n");
    let m = merged("x.py", base, &ours, &theirs);
    assert_eq!(m.conflicts.len(), 1, "{m:?}");
    assert_eq!(m.conflicts[0].kind, ConflictKind::AddedOnBothSides);
    let t = text(&m);
    assert!(t.contains("return 9") && t.contains("return 8"), "{t}");
}

#[test]
fn a_file_git_merges_is_left_exactly_as_git_merged_it() {
    let base = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n";
    let ours = base.replace("return 1;", "return 10;");
    let theirs = base.replace("return 2;", "return 20;");
    let m = merged("a.js", base, &ours, &theirs);
    assert_eq!(m.method, Method::Git);
    assert_eq!(m.text, git_alone(base, &ours, &theirs).text);
}

#[test]
fn markdown_is_merged_by_git_alone() {
    let base = "# A\n\none\ntwo\n";
    let ours = "# A\n\nONE\ntwo\n";
    let theirs = "# A\n\none\nTWO\n";
    let m = merged("notes.md", base, ours, theirs);
    assert_eq!(m.method, Method::GitBecause(Fallback::NoAnalyzer));
    assert_eq!(m.text, git_alone(base, ours, theirs).text);
    assert_eq!(m.conflicts.len(), 1);
}

#[test]
fn crlf_files_keep_their_line_endings() {
    let base = PRICING.replace('\n', "\r\n");
    let ours = base.replace("n * 2;", "n * 3;");
    let theirs = base.replace("n * 0.2;", "n * 0.25;");
    let m = merged("src/pricing.ts", &base, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(text(&m), ours.replace("n * 0.2;", "n * 0.25;"));
}

#[test]
fn no_newline_at_the_end_is_kept_and_appends_after_it_are_separated() {
    let base = "def a():\n    return 1\n\ndef b():\n    return 2";
    let ours = base
        .replace("return 1", "return 10")
        .replace("return 2", "return 20");
    let theirs = base.replace("\ndef b", "\ndef b0():\n    return 0\n\ndef b");
    let m = merged("x.py", base, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(
        text(&m),
        "def a():\n    return 10\n\ndef b0():\n    return 0\n\ndef b():\n    return 20"
    );
    // Both append after a last definition without a newline.
    let ours = format!("{base}\n\ndef c():\n    return 3\n");
    let theirs = format!("{base}\n\ndef d():\n    return 4\n");
    let m = merged("x.py", base, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(
        text(&m),
        format!("{base}\n\ndef c():\n    return 3\n\ndef d():\n    return 4\n")
    );
}

#[test]
fn a_definition_moved_on_one_side_and_changed_on_the_other_loses_neither() {
    let base = "def a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n";
    // Ours moves a to the end; theirs changes a.
    let ours = "def b():\n    return 2\n\ndef c():\n    return 3\n\ndef a():\n    return 1\n";
    let theirs = base.replace("return 1", "return 100");
    let m = merged("m.py", base, ours, &theirs);
    let t = text(&m);
    if m.is_clean() {
        assert_eq!(t, ours.replace("return 1", "return 100"));
    } else {
        assert!(t.contains("return 100"), "{t}");
    }
}

#[test]
fn a_rename_on_one_side_against_a_change_on_the_other_is_never_silent() {
    let base = "def a():\n    return 1\ndef b():\n    return 2\n";
    let ours = base.replace("def a():", "def first():");
    let theirs = base
        .replace("return 1", "return 10")
        .replace("return 2", "return 20");
    let m = merged("r.py", base, &ours, &theirs);
    let t = text(&m);
    assert!(!m.is_clean(), "{t}");
    assert!(t.contains("return 10") && t.contains("def first():"), "{t}");
}

#[test]
fn a_version_with_a_syntax_error_is_merged_by_git() {
    let ours = PRICING.replace("n * 2;", "n * 3;");
    let theirs = PRICING.replace("n * 0.2;", "n * 0.25; (");
    let m = merged("src/pricing.ts", PRICING, &ours, &theirs);
    assert_eq!(
        m.method,
        Method::GitBecause(Fallback::SyntaxError {
            version: crate::Version::Theirs,
            line: 2
        })
    );
    assert_eq!(m.text, git_alone(PRICING, &ours, &theirs).text);
}

#[test]
fn a_version_over_the_size_cap_is_merged_by_git() {
    let ours = PRICING.replace("n * 2;", "n * 3;");
    let theirs = PRICING.replace("n * 0.2;", "n * 0.25;");
    let m = merged_within("src/pricing.ts", [PRICING, &ours, &theirs], 64);
    assert!(matches!(
        m.method,
        Method::GitBecause(Fallback::TooLarge { .. })
    ));
    assert_eq!(m.text, git_alone(PRICING, &ours, &theirs).text);
}

#[test]
fn a_merge_that_would_not_parse_is_left_to_git() {
    // Each side adds the last method of an object literal: together they need a comma.
    let base = "export const api = {\n  get() { return 1; },\n};\n";
    let ours = "export const api = {\n  get() { return 1; },\n  put() { return 2; }\n};\n";
    let theirs = "export const api = {\n  get() { return 1; },\n  del() { return 3; }\n};\n";
    let m = merged("api.ts", base, ours, theirs);
    assert!(
        matches!(m.method, Method::GitBecause(Fallback::BrokenResult { .. })),
        "{m:?}"
    );
    assert_eq!(m.text, git_alone(base, ours, theirs).text);
}

#[test]
fn java_methods_of_a_class_merge() {
    let base = "package shop;\n\npublic class Shop {\n    public int price(int q) { return q * 2; }\n    public int tax(int q) { return q / 5; }\n}\n";
    let ours = base.replace("q * 2", "q * 3");
    let theirs = base.replace("q / 5", "q / 4");
    let m = merged("src/Shop.java", base, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(text(&m), ours.replace("q / 5", "q / 4"));
}

#[test]
fn merge_over_analyses_agrees_with_merge_blobs() {
    let ours = PRICING.replace("n * 2;", "n * 3;");
    let theirs = PRICING.replace("n * 0.2;", "n * 0.25;");
    let ts = wit_analyzers::typescript::typescript();
    let [b, o, t] = [PRICING, ours.as_str(), theirs.as_str()].map(|s| ts.analyze_full(s).unwrap());
    let m = merge(
        Analysed {
            text: PRICING,
            analysis: &b,
        },
        Analysed {
            text: &ours,
            analysis: &o,
        },
        Analysed {
            text: &theirs,
            analysis: &t,
        },
        &markers(),
        &mut git(),
    )
    .unwrap();
    assert_eq!(m, merged("src/pricing.ts", PRICING, &ours, &theirs));
}

/// What one side does to one function of the generated file.
#[derive(Debug, Clone, Copy)]
enum Edit {
    Keep,
    /// Its last line changes.
    ChangeEnd,
    /// Its first line changes.
    ChangeStart,
    Delete,
    /// A new function right after it.
    AddAfter,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => Just(Edit::Keep),
        2 => Just(Edit::ChangeEnd),
        2 => Just(Edit::ChangeStart),
        1 => Just(Edit::Delete),
        2 => Just(Edit::AddAfter),
    ]
}

/// Function `i` of the generated Python file, as `side` left it.
fn function(i: usize, edit: Edit, side: &str) -> String {
    let first = match edit {
        Edit::ChangeStart => format!("def f{i}(n, {side}=1):\n"),
        _ => format!("def f{i}(n):\n"),
    };
    let last = match edit {
        Edit::ChangeEnd => format!("    return n + {i} + len({side:?})\n"),
        _ => format!("    return n + {i}\n"),
    };
    let mut s = format!("{first}    x = n * {i}\n{last}");
    if let Edit::Delete = edit {
        s.clear();
    }
    if let Edit::AddAfter = edit {
        s.push_str(&format!("def g{i}_{side}(n):\n    return n - {i}\n"));
    }
    s
}

fn file(edits: &[Edit], side: &str) -> String {
    edits
        .iter()
        .enumerate()
        .map(|(i, e)| function(i, *e, side))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Two sides editing different functions of one file (adjacent ones included, no
    /// blank line between them): the merge is clean, every function a side changed or
    /// added is in it as that side wrote it, every function both left alone is in it
    /// unchanged, and what a side deleted is gone.
    #[test]
    fn edits_of_different_functions_all_survive_the_merge(
        plan in proptest::collection::vec((edit(), any::<bool>()), 2..9)
    ) {
        let keep = vec![Edit::Keep; plan.len()];
        let ours: Vec<Edit> = plan.iter().map(|(e, mine)| if *mine { *e } else { Edit::Keep }).collect();
        let theirs: Vec<Edit> = plan.iter().map(|(e, mine)| if *mine { Edit::Keep } else { *e }).collect();
        let (b, o, t) = (file(&keep, "base"), file(&ours, "ours"), file(&theirs, "theirs"));
        let m = merged("gen.py", &b, &o, &t);
        prop_assert!(m.is_clean(), "{:?}\nbase:\n{}\nours:\n{}\ntheirs:\n{}", m, b, o, t);
        let got = text(&m);
        for i in 0..plan.len() {
            let (edit, side) = if ours[i].is_changing() { (ours[i], "ours") } else { (theirs[i], "theirs") };
            let expected = function(i, edit, side);
            prop_assert!(got.contains(&expected), "f{} ({:?} by {}) missing from:\n{}", i, edit, side, got);
            if let Edit::Delete = edit {
                prop_assert!(!got.contains(&format!("def f{i}(")), "f{} deleted but in:\n{}", i, got);
            }
        }
        // Nothing else: the result is exactly the functions in order, each as changed.
        let expected: String = (0..plan.len())
            .map(|i| if ours[i].is_changing() { function(i, ours[i], "ours") } else { function(i, theirs[i], "theirs") })
            .collect();
        prop_assert_eq!(got, expected);
    }
}

impl Edit {
    fn is_changing(self) -> bool {
        !matches!(self, Edit::Keep)
    }
}
