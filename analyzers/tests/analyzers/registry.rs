//! Routing of files to the built-in analyzers.

use std::collections::HashSet;

#[test]
fn each_extension_routes_to_its_analyzer() {
    let registry = wit_analyzers::builtin_registry();
    let cases = [
        ("a.ts", "typescript"),
        ("a.mts", "typescript"),
        ("a.cts", "typescript"),
        ("src/a.tsx", "tsx"),
        ("src/a.jsx", "tsx"),
        ("a.js", "javascript"),
        ("a.mjs", "javascript"),
        ("a.cjs", "javascript"),
        ("pkg/a.py", "python"),
        ("pkg/a.pyi", "python"),
        ("src/Shop.java", "java"),
        ("shop/store.go", "go"),
        ("src/lib.rs", "rust"),
        ("src/Shop.cs", "csharp"),
    ];
    for (path, id) in cases {
        let analyzer = registry
            .for_path(path)
            .unwrap_or_else(|| panic!("no analyzer for {path}"));
        assert_eq!(analyzer.id(), id, "{path}");
    }
    for path in ["a.kt", "a.c", "Makefile", "a.TS", "a.d", "a.RS"] {
        assert!(registry.for_path(path).is_none(), "{path} has an analyzer");
    }
}

#[test]
fn built_ins_are_the_eight_analyzers_and_share_no_extension() {
    let registry = wit_analyzers::builtin_registry();
    let ids: Vec<&str> = registry.entries().iter().map(|e| e.analyzer.id()).collect();
    assert_eq!(
        ids,
        [
            "csharp",
            "go",
            "java",
            "javascript",
            "python",
            "rust",
            "tsx",
            "typescript"
        ]
    );
    let mut seen = HashSet::new();
    for entry in registry.entries() {
        for ext in entry.analyzer.extensions() {
            assert!(seen.insert(*ext), "extension {ext} claimed twice");
        }
    }
    assert_eq!(
        registry.extensions(),
        [
            "cjs", "cs", "cts", "go", "java", "js", "jsx", "mjs", "mts", "py", "pyi", "rs", "ts",
            "tsx"
        ]
    );
}
