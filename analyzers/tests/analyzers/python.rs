//! Python.

use crate::common::{analyze, callees, edges, outline, signature, symbol, text};

const KINDS: &str = include_str!("../../testdata/fixtures/kinds.py");
const SIGNATURES: &str = include_str!("../../testdata/fixtures/signatures.py");
const WRAPPED: &str = include_str!("../../testdata/fixtures/wrapped.py");
const CALLS: &str = include_str!("../../testdata/fixtures/calls.py");

#[test]
fn functions_nested_and_decorated_methods_and_classes_in_source_order() {
    let a = analyze("pkg/kinds.py", KINDS);
    let expected: Vec<(&str, String)> = [
        ("function", "plain"),
        ("function", "fetch"),
        ("function", "decorated"),
        ("function", "outer"),
        ("function", "inner"),
        ("class", "Service"),
        ("method", "Service.__init__"),
        ("method", "Service.label"),
        ("method", "Service.load"),
        // A def nested in a method is a function, not a method.
        ("function", "helper"),
        ("class", "Nested"),
        ("method", "Nested.deep"),
        ("class", "Other"),
        ("method", "Other.load"),
    ]
    .into_iter()
    .map(|(k, n)| (k, n.to_owned()))
    .collect();
    assert_eq!(outline(&a), expected);
}

#[test]
fn decorated_definitions_start_at_their_first_decorator() {
    let a = analyze("kinds.py", KINDS);
    assert_eq!(
        text(&a, KINDS, "decorated"),
        "@functools.cache\n@trace(\"x\")\ndef decorated(x: int) -> int:\n    return x"
    );
    assert_eq!(
        text(&a, KINDS, "Service.label"),
        "@property\n    def label(self) -> str:\n        return self.name"
    );
    let decorated = symbol(&a, "decorated");
    assert_eq!((decorated.start_line, decorated.end_line), (11, 14));
}

#[test]
fn class_range_covers_its_body() {
    let a = analyze("kinds.py", KINDS);
    let service = text(&a, KINDS, "Service");
    assert!(service.starts_with("class Service:\n"));
    assert!(service.ends_with("def deep(self):\n            pass"));
    assert_eq!(symbol(&a, "Service").signature, None);
}

#[test]
fn signatures_are_canonical_for_every_parameter_form() {
    let a = analyze("signatures.py", SIGNATURES);
    let cases = [
        ("no_return", "(self, x)"),
        ("typed", "(name: str, retries: int = 3) -> bool"),
        ("defaults", r#"(a, b=2, c="x")"#),
        ("star", "(*args, **kwargs)"),
        ("keyword_only", "(a, *, b, c=1)"),
        ("positional_only", "(a, b, /, c, *, d)"),
        ("annotated_star", "(*args: int, **kwargs: str) -> None"),
        // Decorators are not part of the signature.
        ("decorated", "(x: int) -> list[int]"),
        ("coroutine", "(url: str) -> dict[str, int] | None"),
        ("generic", "[T](items: list[T]) -> T"),
        // Comments between parameters and the trailing comma are not part of it either.
        ("commented", "(a, b)"),
    ];
    for (name, expected) in cases {
        assert_eq!(signature(&a, name), expected, "signature of {name}");
    }
}

#[test]
fn method_signatures_include_self() {
    let a = analyze("kinds.py", KINDS);
    assert_eq!(
        signature(&a, "Service.__init__"),
        "(self, name: str) -> None"
    );
    assert_eq!(signature(&a, "Service.load"), "(self, key)");
    assert_eq!(signature(&a, "fetch"), "(url: str) -> bytes");
}

#[test]
fn a_wrapped_parameter_list_with_trailing_comma_equals_the_one_line_form() {
    let a = analyze("wrapped.py", WRAPPED);
    let expected = "(name: str, retries: int = 3, *args, **kwargs) -> dict[str, int]";
    assert_eq!(signature(&a, "wrapped"), expected);
    assert_eq!(signature(&a, "one_line"), expected);
}

#[test]
fn plain_and_member_calls_deduplicated_in_order() {
    let a = analyze("calls.py", CALLS);
    // `helper()` twice gives one edge; the lambda's call belongs to `outer`.
    assert_eq!(
        callees(&a, "outer"),
        ["helper", "join", "sort", "score", "inner"]
    );
}

#[test]
fn self_calls_use_the_attribute_name() {
    let a = analyze("calls.py", CALLS);
    assert_eq!(callees(&a, "Service.run"), ["step", "run"]);
    assert_eq!(callees(&a, "Service.step"), ["helper"]);
    assert_eq!(callees(&a, "Other.run"), ["other"]);
}

#[test]
fn nested_functions_own_their_calls() {
    let a = analyze("calls.py", CALLS);
    assert_eq!(callees(&a, "inner"), ["deep"]);
    assert!(!callees(&a, "outer").contains(&"deep"));
}

#[test]
fn decorators_defaults_and_module_level_calls_give_no_edge() {
    let a = analyze("calls.py", CALLS);
    // Decorators and default values run where the function is defined, not inside it.
    assert_eq!(callees(&a, "decorated"), ["body_call"]);
    for (_, callee) in edges(&a) {
        assert!(
            !["setup", "main", "initialize", "register", "default_value"].contains(&callee),
            "unexpected edge to {callee}"
        );
    }
}

#[test]
fn same_named_methods_of_two_classes_stay_apart() {
    let a = analyze("calls.py", CALLS);
    assert_eq!(a.find("run").unwrap().container.as_deref(), Some("Service"));
    assert_eq!(
        a.find("Other.run").unwrap().container.as_deref(),
        Some("Other")
    );
    assert_ne!(
        a.find("run").unwrap().start_byte,
        a.find("Other.run").unwrap().start_byte
    );
}

#[test]
fn pyi_stubs_are_python() {
    let src = "def stub(x: int) -> str: ...\n\nclass C:\n    def m(self) -> None: ...\n";
    let a = analyze("types/mod.pyi", src);
    assert_eq!(
        outline(&a),
        [
            ("function", "stub".to_owned()),
            ("class", "C".to_owned()),
            ("method", "C.m".to_owned()),
        ]
    );
    assert_eq!(signature(&a, "stub"), "(x: int) -> str");
}
