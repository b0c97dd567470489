//! What cross-file resolution needs from one file (issue 10): the call-edge fixes, the new
//! addressable symbols, call sites with receivers, imports and exports.

use wit_core::{Export, Import};

use crate::common::{analyze, edges, outline, symbol};

fn imp(module: &str, name: Option<&str>, local: &str) -> Import {
    Import::new(module, name.map(Into::into), local)
}

fn exp(name: &str, local: Option<&str>, module: Option<&str>) -> Export {
    Export::new(name, local.map(Into::into), module.map(Into::into))
}

/// `(caller, callee, receiver, line)` of every call site.
fn sites(a: &wit_core::Analysis) -> Vec<(&str, &str, Option<&str>, usize)> {
    a.call_sites
        .iter()
        .map(|c| {
            (
                c.caller.as_str(),
                c.callee.as_str(),
                c.receiver.as_deref(),
                c.line,
            )
        })
        .collect()
}

#[test]
fn ky_generic_calls_after_a_prefix_operator_and_non_null_asserted_calls_give_edges() {
    let src = "async function a() {\n  await f<T>(x);\n  void g<T>(1);\n  typeof h<T>(2);\n  !k<T>(3);\n  await this.m<T>();\n  this.opts.parse!(x);\n  n!(y);\n}\n";
    for path in ["a.ts", "a.tsx"] {
        let a = analyze(path, src);
        assert_eq!(
            edges(&a),
            [
                ("a", "f"),
                ("a", "g"),
                ("a", "h"),
                ("a", "k"),
                ("a", "m"),
                ("a", "parse"),
                ("a", "n")
            ],
            "{path}"
        );
    }
    let a = analyze("a.ts", src);
    assert_eq!(
        sites(&a),
        [
            ("a", "f", None, 1),
            ("a", "g", None, 2),
            ("a", "h", None, 3),
            ("a", "k", None, 4),
            ("a", "m", Some("this"), 5),
            ("a", "parse", Some("this.opts"), 6),
            ("a", "n", None, 7)
        ]
    );
}

const PROPERTIES: &str = r#"exports.parse = function (a) { return helper(a); };
module.exports.v = (z) => z;
Foo.prototype.bar = function () { this.baz(); };
res.status = function status(code) { return this; };
app.response.json = function () {};
const api = { get() { return fetchIt(); }, post: async () => {}, n: 1, 'q': () => 1 };
this.skip = () => {};
a[0].skip = () => {};
class K { fld = () => this.go(); static s = function () {}; #p = () => 1; }
"#;

#[test]
fn functions_assigned_to_properties_object_literal_methods_and_arrow_fields_are_symbols() {
    let a = analyze("lib.js", PROPERTIES);
    assert_eq!(
        outline(&a),
        [
            ("function", "parse".to_owned()),
            ("arrow", "v".to_owned()),
            ("method", "Foo.bar".to_owned()),
            ("function", "res.status".to_owned()),
            ("function", "app.response.json".to_owned()),
            ("method", "api.get".to_owned()),
            ("method", "api.post".to_owned()),
            ("class", "K".to_owned()),
            ("method", "K.fld".to_owned()),
            ("method", "K.s".to_owned()),
            ("method", "K.#p".to_owned()),
        ]
    );
    assert_eq!(symbol(&a, "Foo.bar").signature.as_deref(), Some("()"));
    assert_eq!(
        symbol(&a, "res.status").signature.as_deref(),
        Some("(code)")
    );
    assert_eq!(symbol(&a, "app.response.json").name, "json");
    assert_eq!(
        &PROPERTIES[symbol(&a, "api.get").start_byte..symbol(&a, "api.get").end_byte],
        "get() { return fetchIt(); }"
    );
    assert_eq!(
        edges(&a),
        [
            ("parse", "helper"),
            ("Foo.bar", "baz"),
            ("api.get", "fetchIt"),
            ("K.fld", "go")
        ]
    );
}

#[test]
fn two_definitions_sharing_a_name_are_each_addressable_by_kind_or_ordinal() {
    let src = "export type input<T> = T;\nexport function input(x: string): string { return x; }\nclass A { save() {} }\nclass B { save() {} }\n";
    let a = analyze("zod.ts", src);
    assert_eq!(symbol(&a, "input").kind.as_str(), "type");
    assert_eq!(
        symbol(&a, "input#function").signature.as_deref(),
        Some("(x: string): string")
    );
    assert_eq!(symbol(&a, "input#2").kind.as_str(), "function");
    assert_eq!(a.address_of(symbol(&a, "input#function")), "input#function");
    assert_eq!(a.address_of(symbol(&a, "B.save")), "B.save");
    assert_eq!(symbol(&a, "save#2").container.as_deref(), Some("B"));
}

#[test]
fn esm_imports_and_exports_with_aliases_defaults_namespaces_and_re_exports() {
    let src = r#"import d, {a as b, c} from './m';
import * as db from "../db";
import type { T } from './types';
import './side-effect';
import x = require('./old');
export {x as y} from './x';
export * from './all';
export * as ns from './ns';
export default function main() { db.query(); new Repo().find(); b(); }
export const k = () => 1;
export class Repo {}
export { k as kk };
"#;
    let a = analyze("src/a.ts", src);
    assert_eq!(
        a.imports,
        [
            imp("./m", Some("default"), "d"),
            imp("./m", Some("a"), "b"),
            imp("./m", Some("c"), "c"),
            imp("../db", None, "db"),
            imp("./types", Some("T"), "T"),
            imp("./old", None, "x"),
        ]
    );
    assert_eq!(
        a.exports,
        [
            exp("y", Some("x"), Some("./x")),
            exp("*", None, Some("./all")),
            exp("ns", None, Some("./ns")),
            exp("default", Some("main"), None),
            exp("k", Some("k"), None),
            exp("Repo", Some("Repo"), None),
            exp("kk", Some("k"), None),
        ]
    );
    assert_eq!(
        sites(&a),
        [
            ("main", "query", Some("db"), 8),
            ("main", "find", Some("new:Repo"), 8),
            ("main", "b", None, 8)
        ]
    );
}

#[test]
fn commonjs_require_module_exports_and_exports_x() {
    let src = r#"const {p, q: r} = require('./cjs');
const lib = require('lib');
const one = require('./two').three;
module.exports = { p, s: r, t() {}, u: () => 1 };
exports.parse = function (a) { return a; };
module.exports.v = helper;
"#;
    let a = analyze("index.js", src);
    assert_eq!(
        a.imports,
        [
            imp("./cjs", Some("p"), "p"),
            imp("./cjs", Some("q"), "r"),
            imp("lib", None, "lib"),
            imp("./two", Some("three"), "one"),
        ]
    );
    assert_eq!(
        a.exports,
        [
            exp("p", Some("p"), None),
            exp("s", Some("r"), None),
            exp("t", Some("t"), None),
            exp("u", Some("u"), None),
            exp("parse", Some("parse"), None),
            exp("v", Some("helper"), None),
        ]
    );
    let bases = analyze(
        "k.ts",
        "export class A extends B {}\nclass C extends mod.D implements I {}\nabstract class E {}\n",
    );
    let pairs: Vec<(&str, &str)> = bases
        .bases
        .iter()
        .map(|b| (b.class.as_str(), b.base.as_str()))
        .collect();
    assert_eq!(pairs, [("A", "B"), ("C", "mod.D")]);
    let b = analyze("b.cjs", "module.exports = require('./impl');\n");
    assert_eq!(b.exports, [exp("*", None, Some("./impl"))]);
    let c = analyze("c.js", "function Repo() {}\nmodule.exports = Repo;\n");
    assert_eq!(c.exports, [exp("default", Some("Repo"), None)]);
}

#[test]
fn python_imports_relative_aliased_and_guarded_and_receivers_of_self_cls_super() {
    let src = "import a.b\nimport c as d\nfrom ..x import y as z, w\nfrom . import m\nfrom .pkg import *\ntry:\n    import json\nexcept ImportError:\n    pass\n\ndef f():\n    import os\n\nclass A(B):\n    def m(self):\n        super().m()\n        self.n()\n        a.b.f()\n\n    @classmethod\n    def k(cls):\n        cls.o()\n";
    let a = analyze("pkg/mod.py", src);
    assert_eq!(
        a.imports,
        [
            imp("a.b", None, "a.b"),
            imp("c", None, "d"),
            imp("..x", Some("y"), "z"),
            imp("..x", Some("w"), "w"),
            imp(".", Some("m"), "m"),
            imp(".pkg", Some("*"), "*"),
            imp("json", None, "json"),
        ]
    );
    assert!(a.exports.is_empty());
    assert_eq!(a.bases, [wit_core::ClassBase::new("A", "B")]);
    assert_eq!(
        sites(&a),
        [
            ("A.m", "super", None, 15),
            ("A.m", "m", Some("super()"), 15),
            ("A.m", "n", Some("self"), 16),
            ("A.m", "f", Some("a.b"), 17),
            ("A.k", "o", Some("cls"), 21),
        ]
    );
}
