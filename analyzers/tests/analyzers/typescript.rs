//! TypeScript, TSX and JavaScript.

use wit_core::SymbolKind;

use crate::common::{analyze, callees, edges, outline, signature, symbol, text};

const KINDS: &str = include_str!("../../testdata/fixtures/kinds.ts");
const SIGNATURES: &str = include_str!("../../testdata/fixtures/signatures.ts");
const WRAPPED: &str = include_str!("../../testdata/fixtures/wrapped.ts");
const CALLS: &str = include_str!("../../testdata/fixtures/calls.ts");
const COMPONENT_TSX: &str = include_str!("../../testdata/fixtures/component.tsx");
const COMPONENT_JSX: &str = include_str!("../../testdata/fixtures/component.jsx");
const PLAIN_JS: &str = include_str!("../../testdata/fixtures/plain.js");

#[test]
fn every_symbol_kind_and_exported_form_is_found_in_source_order() {
    let a = analyze("src/kinds.ts", KINDS);
    let expected: Vec<(&str, String)> = [
        ("function", "plain"),
        ("function", "exported"),
        ("function", "defaulted"),
        ("function", "fetchAll"),
        ("function", "counter"),
        ("function", "pages"),
        ("arrow", "arrow"),
        ("arrow", "exportedArrow"),
        ("arrow", "fnExpr"),
        ("arrow", "genExpr"),
        ("type", "Id"),
        ("interface", "Repo"),
        ("class", "UserService"),
        ("method", "UserService.constructor"),
        ("method", "UserService.load"),
        ("method", "UserService.handle"),
        ("method", "UserService.create"),
        ("class", "Defaulted"),
        ("method", "Defaulted.run"),
        ("class", "Shape"),
        ("method", "Shape.area"),
        ("method", "Shape.describe"),
        ("class", "Admin"),
        ("method", "Admin.load"),
    ]
    .into_iter()
    .map(|(k, n)| (k, n.to_owned()))
    .collect();
    assert_eq!(outline(&a), expected);
}

#[test]
fn only_callables_have_signatures() {
    let a = analyze("kinds.ts", KINDS);
    for s in &a.symbols {
        assert_eq!(
            s.signature.is_some(),
            s.kind.is_callable(),
            "{} ({:?})",
            s.name,
            s.kind
        );
    }
}

#[test]
fn ranges_cover_the_whole_definition_with_export_keyword_and_decorators() {
    let a = analyze("kinds.ts", KINDS);
    let t = |name| text(&a, KINDS, name);
    assert_eq!(
        t("exported"),
        "export function exported(token: string): Promise<User | null> {\n  return db.find(token);\n}"
    );
    assert_eq!(t("defaulted"), "export default function defaulted() {}");
    assert_eq!(t("arrow"), "const arrow = (x: number) => x * 2;");
    assert_eq!(
        t("exportedArrow"),
        "export const exportedArrow = async (id: string): Promise<void> => {};"
    );
    assert_eq!(t("Id"), "export type Id = string | number;");
    assert!(t("Repo").starts_with("export interface Repo {"));
    assert!(t("UserService").starts_with("export class UserService {"));
    assert!(t("UserService").ends_with('}'));
    assert!(t("Defaulted").starts_with("export default class Defaulted {"));
    assert!(t("Shape").starts_with("export abstract class Shape {"));
    assert_eq!(t("Shape.area"), "abstract area(): number");
    assert!(t("Admin.load").starts_with("@Audit()\n  @Log\n  async load(id: Id)"));
    assert_eq!(
        t("UserService.handle"),
        "handle = (event: Event): void => {}"
    );
}

#[test]
fn lines_are_zero_based_and_inclusive() {
    let a = analyze("kinds.ts", KINDS);
    let plain = symbol(&a, "plain");
    assert_eq!((plain.start_line, plain.end_line), (2, 4));
    let admin_load = symbol(&a, "Admin.load");
    assert_eq!((admin_load.start_line, admin_load.end_line), (64, 68));
}

#[test]
fn signatures_are_canonical_for_every_parameter_form() {
    let a = analyze("signatures.ts", SIGNATURES);
    let cases = [
        ("noReturn", "(a, b)"),
        ("withReturn", "(token: string): Promise<User | null>"),
        ("defaults", r#"(retries: number = 3, label = "x")"#),
        ("optional", "(x?: number, y?: string): void"),
        ("generic", "<T>(x: T): T"),
        (
            "generics",
            "<K extends string, V = unknown>(map: Map<K, V>): V[]",
        ),
        (
            "destructured",
            "({ a, b }: Props, [first, second]: number[])",
        ),
        ("rest", "(first: string, ...others: string[]): number"),
        ("thisParam", "(this: Window, ev: MouseEvent): any"),
        ("predicate", "(x: unknown): x is string"),
        ("asserts", "(x: unknown): asserts x"),
        (
            "callback",
            "(cb: (err: Error | null, value?: string) => void): void",
        ),
        ("single", "(x)"),
        ("singleAsync", "(x)"),
        ("empty", "()"),
        ("typedArrow", "<T>(items: T[]): T | undefined"),
        ("commented", "(a: number, b: string)"),
    ];
    for (name, expected) in cases {
        assert_eq!(signature(&a, name), expected, "signature of {name}");
    }
}

#[test]
fn method_and_arrow_signatures() {
    let a = analyze("kinds.ts", KINDS);
    assert_eq!(
        signature(&a, "exported"),
        "(token: string): Promise<User | null>"
    );
    assert_eq!(signature(&a, "pages"), "(): AsyncGenerator<number>");
    assert_eq!(signature(&a, "counter"), "(start = 0)");
    assert_eq!(
        signature(&a, "exportedArrow"),
        "(id: string): Promise<void>"
    );
    assert_eq!(signature(&a, "fnExpr"), "(a, b)");
    assert_eq!(
        signature(&a, "UserService.constructor"),
        "(private readonly repo: Repo)"
    );
    assert_eq!(signature(&a, "UserService.load"), "(id: Id): Promise<User>");
    assert_eq!(signature(&a, "UserService.handle"), "(event: Event): void");
    assert_eq!(signature(&a, "Shape.area"), "(): number");
}

#[test]
fn a_wrapped_parameter_list_with_trailing_comma_equals_the_one_line_form() {
    let a = analyze("wrapped.ts", WRAPPED);
    let expected = "(token: string, options: { retries: number; label?: string; }, ...rest: Array<string>): Promise<User | null>";
    assert_eq!(signature(&a, "wrapped"), expected);
    assert_eq!(signature(&a, "oneLine"), expected);
}

#[test]
fn plain_calls_in_named_functions_are_edges_deduplicated_in_order() {
    let a = analyze("calls.ts", CALLS);
    // `helper()` twice gives one edge; `new Widget()` is not a call edge.
    assert_eq!(
        callees(&a, "outer"),
        ["helper", "info", "forEach", "process", "inner"]
    );
}

#[test]
fn member_and_this_calls_use_the_property_name() {
    let a = analyze("calls.ts", CALLS);
    assert_eq!(callees(&a, "Service.run"), ["step", "run", "maybe"]);
    assert_eq!(callees(&a, "Service.step"), ["helper"]);
}

#[test]
fn calls_belong_to_the_innermost_named_function() {
    let a = analyze("calls.ts", CALLS);
    assert_eq!(callees(&a, "inner"), ["deep"]);
    assert_eq!(callees(&a, "nested"), ["nestedCall"]);
    assert_eq!(callees(&a, "handler"), ["respond"]);
    // The anonymous callback's call belongs to `outer`.
    assert!(callees(&a, "outer").contains(&"process"));
    assert!(!callees(&a, "outer").contains(&"deep"));
}

#[test]
fn module_level_calls_and_field_initializers_give_no_edge() {
    let a = analyze("calls.ts", CALLS);
    for (_, callee) in edges(&a) {
        assert!(
            !["setup", "main", "initialize", "Widget"].contains(&callee),
            "unexpected edge to {callee}"
        );
    }
}

#[test]
fn same_named_methods_of_two_classes_stay_apart() {
    let a = analyze("calls.ts", CALLS);
    let runs: Vec<_> = a.symbols.iter().filter(|s| s.name == "run").collect();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].container.as_deref(), Some("Service"));
    assert_eq!(runs[1].container.as_deref(), Some("Other"));
    // First wins on the bare name; the qualified name reaches the second.
    assert_eq!(a.find("run").unwrap().container.as_deref(), Some("Service"));
    assert_eq!(a.find("Other.run").unwrap().start_byte, runs[1].start_byte);
    assert_eq!(callees(&a, "Other.run"), ["other"]);
}

#[test]
fn tsx_parses_jsx() {
    let a = analyze("src/Greeting.tsx", COMPONENT_TSX);
    let expected: Vec<(&str, String)> = [
        ("type", "Props"),
        ("function", "Greeting"),
        ("arrow", "Button"),
        ("function", "useCast"),
    ]
    .into_iter()
    .map(|(k, n)| (k, n.to_owned()))
    .collect();
    assert_eq!(outline(&a), expected);
    assert_eq!(
        signature(&a, "Greeting"),
        "({ name, onClick }: Props): JSX.Element"
    );
    assert!(text(&a, COMPONENT_TSX, "Greeting").ends_with("  );\n}"));
    // Calls inside JSX expressions and attribute callbacks belong to the component.
    assert_eq!(callees(&a, "Greeting"), ["format", "onClick", "map"]);
    assert_eq!(callees(&a, "Button"), ["render"]);
}

#[test]
fn jsx_parses_with_the_tsx_grammar() {
    let a = analyze("src/Greeting.jsx", COMPONENT_JSX);
    let expected: Vec<(&str, String)> = [
        ("function", "Greeting"),
        ("arrow", "Button"),
        ("class", "Panel"),
        ("method", "Panel.render"),
    ]
    .into_iter()
    .map(|(k, n)| (k, n.to_owned()))
    .collect();
    assert_eq!(outline(&a), expected);
    assert_eq!(signature(&a, "Greeting"), "({ name, onClick })");
    assert!(text(&a, COMPONENT_JSX, "Panel").ends_with("}\n}"));
    assert_eq!(callees(&a, "Greeting"), ["format", "onClick"]);
}

#[test]
fn plain_javascript_and_its_module_variants() {
    for path in ["lib/fs.js", "lib/fs.mjs", "lib/fs.cjs"] {
        let a = analyze(path, PLAIN_JS);
        let expected: Vec<(&str, String)> = [
            ("function", "read"),
            ("arrow", "write"),
            ("class", "Cache"),
            ("method", "Cache.get"),
        ]
        .into_iter()
        .map(|(k, n)| (k, n.to_owned()))
        .collect();
        assert_eq!(outline(&a), expected, "{path}");
        assert_eq!(signature(&a, "read"), r#"(path, encoding = "utf8")"#);
        assert_eq!(callees(&a, "Cache.get"), ["read"]);
    }
}

#[test]
fn ts_files_use_the_typescript_grammar_so_angle_bracket_casts_parse() {
    // `<T>x` is a type assertion in .ts; the TSX grammar would read it as a JSX tag.
    let src = "function cast(x: unknown): number {\n  return (<number>x) + twice(<number>x);\n}\n";
    let a = analyze("a.ts", src);
    assert_eq!(signature(&a, "cast"), "(x: unknown): number");
    assert_eq!(callees(&a, "cast"), ["twice"]);
    assert_eq!(symbol(&a, "cast").end_byte, src.len() - 1);
}

#[test]
fn methods_of_an_anonymous_default_class_have_no_container() {
    let src = "export default class {\n  save() { persist(); }\n}\n";
    let a = analyze("a.ts", src);
    assert_eq!(outline(&a), [("method", "save".to_owned())]);
    assert_eq!(symbol(&a, "save").container, None);
    assert_eq!(callees(&a, "save"), ["persist"]);
}

#[test]
fn a_class_nested_in_a_method_gives_its_own_container() {
    let src = "class Outer {\n  make() {\n    return class Inner {\n      go() { run(); }\n    };\n  }\n}\n";
    let a = analyze("a.ts", src);
    assert_eq!(
        outline(&a),
        [
            ("class", "Outer".to_owned()),
            ("method", "Outer.make".to_owned()),
            ("method", "Inner.go".to_owned()),
        ]
    );
    assert_eq!(callees(&a, "Inner.go"), ["run"]);
    assert!(callees(&a, "Outer.make").is_empty());
}

#[test]
fn two_arrows_in_one_declaration_are_two_symbols() {
    let src = "const a = () => one(), b = (x) => two(x);\n";
    let a = analyze("a.ts", src);
    assert_eq!(
        outline(&a),
        [("arrow", "a".to_owned()), ("arrow", "b".to_owned())]
    );
    assert_eq!(signature(&a, "b"), "(x)");
    assert_eq!(edges(&a), [("a", "one"), ("b", "two")]);
}

#[test]
fn overload_signatures_and_interface_members_are_not_symbols() {
    let src = "function f(a: string): void;\nfunction f(a: any) {}\ninterface I { m(): void }\n";
    let a = analyze("a.ts", src);
    assert_eq!(
        outline(&a),
        [("function", "f".to_owned()), ("interface", "I".to_owned())]
    );
    assert_eq!(signature(&a, "f"), "(a: any)");
    assert_eq!(symbol(&a, "I").kind, SymbolKind::Interface);
}

/// Issue 32: `this.opts.parseBody!(s)` must be the call `this.opts.parseBody(s)` is: the
/// same callee, receiver and caller (so the same edge, resolved or not, `?:parseBody` or
/// name-only, the graph making no difference either). Each shape, with the `!` and
/// without, in TypeScript and TSX, gives the same call sites but for their byte offsets.
#[test]
fn a_non_null_asserted_call_is_the_call_without_the_assertion() {
    let shapes = [
        "this.opts.parseBody!(s)",
        "this.opts!.parseBody!(s)",
        "this.opts!.parseBody(s)",
        "opts!.parseBody(s)",
        "this!.opts.parseBody!(s)",
        "this.opts?.parseBody!(s)",
        "parseBody!(s)",
        "opts.parseBody!(s)",
        "new Opts().parseBody!(s)",
        "this.opts.parseBody!<string>(s)",
        "await this.opts.parseBody!(s)",
        "void this.opts.parseBody!(s)",
        "void parseBody!<string>(s)",
        "await parseBody!<string>(s)",
        "await this.opts.parseBody!<string>(s)",
        "this.opts.parseBody!(s).trim()",
        "this.opts.parseBody!(this.opts.parseBody!(s))",
    ];
    for path in ["src/a.ts", "src/a.tsx"] {
        for shape in shapes {
            let with = format!(
                "class Opts {{ parseBody(s: string) {{ return s; }} }}\n\
                 function parseBody(s: string) {{ return s; }}\n\
                 export class A {{\n  opts: Opts = new Opts();\n  \
                 async run(s: string, opts: Opts) {{\n    return {shape};\n  }}\n}}\n"
            );
            let without = with
                .replace("!(", "(")
                .replace("!<", "<")
                .replace("!.", ".");
            let sites = |source: &str| {
                analyze(path, source)
                    .call_sites
                    .into_iter()
                    .map(|s| (s.caller, s.callee, s.receiver, s.line))
                    .collect::<Vec<_>>()
            };
            let (a, b) = (sites(&with), sites(&without));
            assert!(
                a.iter().any(|(_, callee, _, _)| callee == "parseBody"),
                "{path}: `{shape}` is no call of parseBody: {a:?}"
            );
            assert_eq!(a, b, "{path}: `{shape}` differs from its form without `!`");
        }
    }
}

const PROPERTY_FUNCTIONS: &str = r#"var app = exports = module.exports = {};
app.get = function () { return helper(); };
res.send = function send(body) { return this.set('a', body); };
res.set = res.header = function header(field, val) { return helper(field); };
module.exports.x = exports.x = function (y) { return y; };
var proto = module.exports = function (options) { return helper(options); };
exports.handler = async (e) => { return helper(e); };
Foo.prototype.bar = function (n) { this.baz(n); };
function helper(v) { return v; }
"#;

/// Issue 32: functions assigned to properties are definitions, named by one rule
/// (README, "Addressing symbols"): `app.get`, `res.send`, the module's own `handler`,
/// `Foo.bar` for a prototype method; a chain of assignments names the function once per
/// property (`res.set` and `res.header` are one function), and one name reached twice
/// (`module.exports.x = exports.x = …`) is one definition. Each has its signature and
/// its calls.
#[test]
fn property_functions_and_chains_of_assignments_are_named_definitions() {
    let a = analyze("lib/response.js", PROPERTY_FUNCTIONS);
    let names: Vec<String> = outline(&a).into_iter().map(|(_, n)| n).collect();
    assert_eq!(
        names,
        [
            "app.get",
            "res.send",
            "res.set",
            "res.header",
            "x",
            "proto",
            "module.exports",
            "handler",
            "Foo.bar",
            "helper",
        ]
    );
    assert_eq!(signature(&a, "res.header"), "(field, val)");
    assert_eq!(signature(&a, "res.set"), "(field, val)");
    assert_eq!(signature(&a, "handler"), "(e)");
    assert_eq!(signature(&a, "Foo.bar"), "(n)");
    // One function under two names: both call what it calls.
    assert_eq!(callees(&a, "res.set"), ["helper"]);
    assert_eq!(callees(&a, "res.header"), ["helper"]);
    assert_eq!(callees(&a, "proto"), ["helper"]);
    assert_eq!(callees(&a, "module.exports"), ["helper"]);
    assert_eq!(
        text(&a, PROPERTY_FUNCTIONS, "res.header"),
        text(&a, PROPERTY_FUNCTIONS, "res.set")
    );
}
