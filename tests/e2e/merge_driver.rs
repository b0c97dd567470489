//! wit's merge driver (issue 33) with real branches in real worktrees and a real
//! `git merge`: `wit hook install` sets it up, git runs `wit hook merge` for the files the
//! analyzers cover, and `wit hook remove` gives git its own merge back.
//!
//! Each scenario is merged twice, in two repositories with the same history: one with the
//! driver installed, one without, so every test also shows what git alone does.

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::languages_from_toml::{LUA_TOML, lua_repo};
use crate::support::cli::clean_env;
use crate::support::plugin_repo::PluginRepo;
use crate::support::wit_bin;
use crate::support::worktree::Worktree;

/// One file's three versions.
struct Case<'a> {
    path: &'a str,
    base: &'a str,
    ours: &'a str,
    theirs: &'a str,
}

impl<'a> Case<'a> {
    fn new(path: &'a str, base: &'a str, ours: &'a str, theirs: &'a str) -> Case<'a> {
        Case {
            path,
            base,
            ours,
            theirs,
        }
    }
}

/// What `git merge feature` did in `main`.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    /// git's exit code.
    code: i32,
    /// The merged files, in `cases` order.
    texts: Vec<String>,
    /// Files git lists as unmerged.
    unmerged: String,
    /// git's and the driver's messages.
    stderr: String,
}

/// A repository (`main`) with `cases`' base versions committed, the driver installed or
/// not, their versions committed on `feature` in a linked worktree and ours on `main`,
/// then `git merge feature` in `main`.
fn merge_in(r: &PluginRepo, cases: &[Case<'_>], install: bool) -> Outcome {
    for c in cases {
        r.write(c.path, c.base);
    }
    r.write(".gitignore", ".wit/\n");
    r.git(&["add", "."]);
    r.git(&["commit", "-q", "-m", "base"]);
    let wt = Worktree::add(&r.cli, "feature");
    if install {
        // From the linked worktree: the driver goes to the repository's common config
        // and common info/attributes, so the main worktree's merge uses it.
        wt.wit(None, &["hook", "install"]).ok();
    }
    for c in cases {
        wt.write(c.path, c.theirs);
    }
    assert_eq!(wt.git(&["commit", "-qam", "theirs"], None).code, 0);
    for c in cases {
        r.write(c.path, c.ours);
    }
    r.git(&["commit", "-qam", "ours"]);
    let out = r.git_run(&["merge", "--no-edit", "feature"], None);
    Outcome {
        code: out.code,
        texts: cases
            .iter()
            .map(|c| std::fs::read_to_string(r.path().join(c.path)).unwrap())
            .collect(),
        unmerged: r.git(&["diff", "--name-only", "--diff-filter=U"]),
        stderr: out.stderr,
    }
}

/// The same scenario with the driver and without: (with, without).
fn both_ways(cases: &[Case<'_>]) -> (Outcome, Outcome) {
    let with = merge_in(&PluginRepo::new(), cases, true);
    let without = merge_in(&PluginRepo::new(), cases, false);
    (with, without)
}

const PRICING_TS: &str = "export function price(n: number): number { return n * 2; }\nexport function tax(n: number): number { return n * 0.2; }\n\nexport function total(n: number): number {\n  return price(n) + tax(n);\n}\n";

fn ts_cases() -> (String, String) {
    // Ours: price changed, and a function appended; theirs: tax (the very next line)
    // changed, and another function appended.
    let ours = format!(
        "{}\nexport function discount(n: number): number {{\n  return n - 1;\n}}\n",
        PRICING_TS.replace("n * 2;", "n * 3;")
    );
    let theirs = format!(
        "{}\n/** Rounded to cents. */\nexport function round(n: number): number {{\n  return Math.round(n * 100) / 100;\n}}\n",
        PRICING_TS.replace("n * 0.2;", "n * 0.25;")
    );
    (ours, theirs)
}

#[test]
fn adjacent_definitions_and_both_appends_merge_with_the_driver_in_typescript() {
    let (ours, theirs) = ts_cases();
    let case = Case::new("src/pricing.ts", PRICING_TS, &ours, &theirs);
    let (with, without) = both_ways(&[case]);
    assert_ne!(without.code, 0, "git alone stops here: {without:#?}");
    assert_eq!(without.unmerged.trim(), "src/pricing.ts");
    assert_eq!(with.code, 0, "{with:#?}");
    assert_eq!(with.unmerged, "");
    assert_eq!(
        with.texts[0],
        format!(
            "{}\nexport function discount(n: number): number {{\n  return n - 1;\n}}\n\n/** Rounded to cents. */\nexport function round(n: number): number {{\n  return Math.round(n * 100) / 100;\n}}\n",
            PRICING_TS
                .replace("n * 2;", "n * 3;")
                .replace("n * 0.2;", "n * 0.25;")
        )
    );
    assert!(
        with.stderr
            .contains("wit: src/pricing.ts: merged definition by definition"),
        "{}",
        with.stderr
    );
}

const SHOP_PY: &str = "import math\n\n\ndef price(n):\n    return n * 2\ndef tax(n):\n    return n * 0.2\n\n\nclass Cart:\n    def add(self, item):\n        self.items.append(item)\n    def total(self):\n        return sum(self.items)\n";

#[test]
fn adjacent_definitions_methods_and_both_appends_merge_with_the_driver_in_python() {
    let ours = format!(
        "{}\n\ndef shipping(n):\n    return 5\n",
        SHOP_PY
            .replace("return n * 2", "return n * 3")
            .replace("self.items.append(item)", "self.items.insert(0, item)")
    );
    let theirs = format!(
        "{}\n\n# Free over 100.\ndef free(n):\n    return n > 100\n",
        SHOP_PY
            .replace("def tax(n):", "def tax(n, rate=0.2):")
            .replace("def total(self):", "def total(self, rounded=False):")
    );
    let case = Case::new("shop.py", SHOP_PY, &ours, &theirs);
    let (with, without) = both_ways(&[case]);
    assert_ne!(without.code, 0, "git alone stops here: {without:#?}");
    assert_eq!(with.code, 0, "{with:#?}");
    assert_eq!(
        with.texts[0],
        format!(
            "{}\n\ndef shipping(n):\n    return 5\n\n\n# Free over 100.\ndef free(n):\n    return n > 100\n",
            SHOP_PY
                .replace("return n * 2", "return n * 3")
                .replace("self.items.append(item)", "self.items.insert(0, item)")
                .replace("def tax(n):", "def tax(n, rate=0.2):")
                .replace("def total(self):", "def total(self, rounded=False):")
        )
    );
}

const SHOP_JAVA: &str = "package shop;\n\npublic class Shop {\n    public int price(int q) { return q * 2; }\n    public int tax(int q) { return q / 5; }\n}\n";

#[test]
fn methods_of_a_java_class_changed_on_different_sides_merge_with_the_driver() {
    let ours = SHOP_JAVA.replace("q * 2", "q * 3");
    let theirs = SHOP_JAVA.replace(
        "    public int tax(int q) { return q / 5; }\n",
        "    public int tax(int q) { return q / 4; }\n    public int total(int q) { return price(q) + tax(q); }\n",
    );
    let case = Case::new("src/shop/Shop.java", SHOP_JAVA, &ours, &theirs);
    let (with, without) = both_ways(&[case]);
    assert_ne!(without.code, 0, "git alone stops here: {without:#?}");
    assert_eq!(with.code, 0, "{with:#?}");
    assert_eq!(with.texts[0], theirs.replace("q * 2", "q * 3"));
}

#[test]
fn one_definition_changed_on_both_sides_still_stops_with_gits_markers() {
    let ours = PRICING_TS.replace("n * 2;", "n * 3;");
    let theirs = PRICING_TS.replace("n * 2;", "n * 4;");
    let case = Case::new("src/pricing.ts", PRICING_TS, &ours, &theirs);
    let (with, without) = both_ways(&[case]);
    assert_ne!(with.code, 0, "{with:#?}");
    assert_eq!(with.unmerged.trim(), "src/pricing.ts");
    assert_eq!(
        with.texts, without.texts,
        "git's own conflict, byte for byte"
    );
    assert!(
        with.texts[0].contains(
            "<<<<<<< HEAD\nexport function price(n: number): number { return n * 3; }\n=======\nexport function price(n: number): number { return n * 4; }\n>>>>>>> feature\n"
        ),
        "{}",
        with.texts[0]
    );
    assert!(
        with.stderr.contains("price changed on both sides"),
        "{}",
        with.stderr
    );
}

#[test]
fn markdown_and_files_git_merges_come_out_exactly_as_git_makes_them() {
    let notes = "# Notes\n\none\ntwo\nthree\n";
    let (ours, theirs) = (notes.replace("two", "TWO"), notes.replace("two", "2"));
    let cases = [
        // git stops on the markdown (no analyzer: git's merge), merges the TypeScript.
        Case::new("docs/notes.md", notes, &ours, &theirs),
        Case::new(
            "src/a.ts",
            "export function a(): number {\n  return 1;\n}\n\nexport function b(): number {\n  return 2;\n}\n",
            "export function a(): number {\n  return 10;\n}\n\nexport function b(): number {\n  return 2;\n}\n",
            "export function a(): number {\n  return 1;\n}\n\nexport function b(): number {\n  return 20;\n}\n",
        ),
    ];
    let (with, without) = both_ways(&cases);
    assert_eq!(with.code, without.code);
    assert_eq!(with.texts, without.texts);
    assert_eq!(with.unmerged, without.unmerged);
    assert_eq!(with.unmerged.trim(), "docs/notes.md");
    assert!(!with.stderr.contains("wit: src/a.ts"), "{}", with.stderr);
}

/// `git config --local --list` of the repository.
fn local_config(r: &PluginRepo) -> String {
    r.git(&["config", "--local", "--list"])
}

#[test]
fn removing_the_driver_restores_gits_merge_and_leaves_other_settings_alone() {
    let r = PluginRepo::new();
    let attributes = r.path().join(".git/info/attributes");
    std::fs::write(&attributes, "*.bin -diff\n").unwrap();
    r.git(&["config", "--local", "merge.ours.driver", "true"]);
    let before = local_config(&r);
    r.wit(None, &["hook", "install"]).ok();
    assert!(local_config(&r).contains("merge.wit.driver="));
    let removed = r.wit(None, &["hook", "remove", "--json"]).ok().json();
    assert_eq!(removed["mergeDriver"]["action"], "removed");
    assert_eq!(
        std::fs::read_to_string(&attributes).unwrap(),
        "*.bin -diff\n"
    );
    assert_eq!(local_config(&r), before);
    // Removing again finds nothing.
    let again = r.wit(None, &["hook", "uninstall", "--json"]).ok().json();
    assert_eq!(again["mergeDriver"]["action"], "absent");

    // git merges by itself again: the adjacent edits stop it.
    let (ours, theirs) = ts_cases();
    let case = Case::new("src/pricing.ts", PRICING_TS, &ours, &theirs);
    let without = merge_in(&r, &[case], false);
    assert_ne!(without.code, 0, "{without:#?}");
    assert!(!without.stderr.contains("wit:"), "{}", without.stderr);
}

#[test]
fn install_is_idempotent_says_what_it_covers_and_refuses_a_driver_it_did_not_write() {
    let r = PluginRepo::new();
    let first = r.wit(None, &["hook", "install", "--json"]).ok().json();
    let m = &first["mergeDriver"];
    assert_eq!(m["action"], "installed");
    assert_eq!(m["driver"], "wit");
    for p in [
        "*.ts", "*.tsx", "*.js", "*.py", "*.java", "*.go", "*.rs", "*.cs",
    ] {
        assert!(
            m["patterns"].as_array().unwrap().iter().any(|x| x == p),
            "{p} in {m:#}"
        );
    }
    let attributes = std::fs::read_to_string(r.path().join(".git/info/attributes")).unwrap();
    let config = local_config(&r);
    let second = r.wit(None, &["hook", "install", "--json"]).ok().json();
    assert_eq!(second["mergeDriver"]["action"], "updated");
    assert_eq!(
        std::fs::read_to_string(r.path().join(".git/info/attributes")).unwrap(),
        attributes
    );
    assert_eq!(local_config(&r), config);
    // The command is this wit, by absolute path, quoted.
    let exe = std::fs::canonicalize(wit_bin()).unwrap();
    assert!(
        config.contains(&format!(
            "merge.wit.driver='{}' hook merge --marker-size %L --path %P",
            exe.display()
        )),
        "{config}"
    );

    // A merge.wit.driver of someone else's: nothing changes, install or remove.
    r.wit(None, &["hook", "remove"]).ok();
    r.git(&["config", "--local", "merge.wit.driver", "my-merge %O %A %B"]);
    let refused = r.wit(None, &["hook", "install", "--json"]).code(2);
    let message = refused.json()["error"]["data"]["explanation"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("not by wit"), "{message}");
    assert!(!r.path().join(".git/info/attributes").exists());
    assert!(!r.path().join(".git/hooks/pre-commit").exists());
    let removed = r.wit(None, &["hook", "remove", "--json"]).ok().json();
    assert!(
        removed["mergeDriver"]["action"]
            .as_str()
            .unwrap()
            .starts_with("left alone"),
        "{removed:#}"
    );
    assert!(local_config(&r).contains("merge.wit.driver=my-merge %O %A %B"));
}

#[test]
fn a_file_whose_own_attributes_set_merge_keeps_them() {
    let r = PluginRepo::new();
    r.write(".gitattributes", "dist/*.js binary\n");
    r.write("dist/app.js", "function a() { return 1; }\n");
    r.write("src/app.js", "function a() { return 1; }\n");
    r.git(&["add", "."]);
    r.git(&["commit", "-q", "-m", "base"]);
    let out = r.wit(None, &["hook", "install", "--json"]).ok().json();
    let kept = &out["mergeDriver"]["kept"];
    assert_eq!(
        kept,
        &serde_json::json!([{"path": "dist/app.js", "merge": "unset"}])
    );
    let attr = r.git(&["check-attr", "merge", "dist/app.js", "src/app.js"]);
    assert_eq!(attr, "dist/app.js: merge: unset\nsrc/app.js: merge: wit\n");
}

#[test]
fn shell_syntax_in_the_install_location_is_never_run_by_git() {
    let tmp = tempfile::Builder::new()
        .prefix("wit-e2e-")
        .tempdir()
        .unwrap();
    let tmp_path = tmp.path().canonicalize().unwrap();
    let pwned = tmp_path.join("PWNED");
    let dir = tmp_path.join(format!("bin$(touch {})'x", pwned.display()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("wit");
    if std::fs::hard_link(wit_bin(), &exe).is_err() {
        std::fs::copy(wit_bin(), &exe).unwrap();
    }
    let r = PluginRepo::new();
    let mut cmd = Command::new(&exe);
    cmd.args(["hook", "install"])
        .current_dir(r.path())
        .stdin(Stdio::null());
    clean_env(&mut cmd);
    r.isolate(&mut cmd);
    assert!(cmd.output().unwrap().status.success());
    let (ours, theirs) = ts_cases();
    let case = Case::new("src/pricing.ts", PRICING_TS, &ours, &theirs);
    let with = merge_in(&r, &[case], false);
    assert_eq!(
        with.code, 0,
        "the driver ran, from its quoted path: {with:#?}"
    );
    assert!(!pwned.exists(), "$(…) in the install path was run");
}

#[test]
fn a_wit_toml_language_is_covered_once_trusted() {
    let r = lua_repo(LUA_TOML);
    let before = r.wit(None, &["hook", "install", "--json"]).ok().json();
    let m: &Value = &before["mergeDriver"];
    assert!(
        !m["patterns"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "*.lua"),
        "{m:#}"
    );
    assert!(
        m["notCovered"][0].as_str().unwrap().starts_with("lua: "),
        "{m:#}"
    );
    r.trust();
    let after = r.wit(None, &["hook", "install", "--json"]).ok().json();
    assert!(
        after["mergeDriver"]["patterns"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "*.lua"),
        "{after:#}"
    );
    // And git merges Lua by definitions: two adjacent functions changed apart.
    let base = "function price(q) return q * 2 end\nfunction tax(q) return q / 5 end\n";
    let (ours, theirs) = (
        base.replace("q * 2", "q * 3"),
        base.replace("q / 5", "q / 4"),
    );
    let case = Case::new("cart.lua", base, &ours, &theirs);
    let with = merge_in(&r, &[case], false);
    assert_eq!(with.code, 0, "{with:#?}");
    assert_eq!(
        with.texts[0],
        base.replace("q * 2", "q * 3").replace("q / 5", "q / 4")
    );
    assert!(
        with.stderr
            .contains("wit: cart.lua: merged definition by definition"),
        "{}",
        with.stderr
    );
}
