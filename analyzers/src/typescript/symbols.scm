; Definitions in TypeScript, TSX and JavaScript (all three grammars share this file).
;
; Captures: see the table in src/engine/mod.rs. In short: @definition.<kind> and @name
; make a symbol; @callable is its function node (signature fields, and the calls inside);
; @wrapper/@wrapped widen a range; @container.body/@container.name name a method's class.
;
; Patterns stay flat on purpose: optional captures (`(_)? @x`) and classes matched around
; their members each cost the query engine about a tenth of a parse on every file (measured
; with callgrind); reading fields of @callable and joining class bodies in Rust cost ~nothing.

; function f() {}, async function f() {}, export (default) function f() {}
(function_declaration
  name: (identifier) @name) @definition.function @callable

; function* g() {}
(generator_function_declaration
  name: (identifier) @name) @definition.function @callable

; const f = (a) => …, let and var too, and function expressions bound to a name:
; const f = function (a) {…}, const g = function* () {…}. The range is the whole
; declaration statement (`const a = () => 1, b = () => 2;` gives both the same range).
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)] @callable)) @definition.arrow

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)] @callable)) @definition.arrow

; Class members: methods (getters, setters and the constructor included), abstract method
; signatures, and fields holding a function (`handle = () => {…}`), which are called like
; methods. (Object-literal methods are matched below, with the object's name.)
(class_body
  [
    (method_definition
      name: (_) @name)
    (abstract_method_signature
      name: (_) @name)
  ] @definition.method @callable)

(class_body
  (public_field_definition
    name: (_) @name
    value: [(arrow_function) (function_expression)] @callable) @definition.method)

;
; Functions assigned to properties: `res.status = function (…) {…}`, `exports.parse = (…) =>
; …`, `module.exports.x = …`, `Foo.prototype.bar = …`. @qualifier is the assigned object;
; the engine makes it the container (`res.status`), drops it for `exports` and
; `module.exports` (the function is the module's `parse`), and turns `Foo.prototype` into
; the class `Foo` (kind method: `Foo.bar`). `this.x = …` gives no symbol.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (_) @qualifier
      property: (property_identifier) @name)
    right: [(function_expression) (generator_function)] @callable)) @definition.function

(expression_statement
  (assignment_expression
    left: (member_expression
      object: (_) @qualifier
      property: (property_identifier) @name)
    right: (arrow_function) @callable)) @definition.arrow

; A chain of assignments names the function once per property it is assigned to:
; `res.set = res.header = function header() {}` defines `res.set` and `res.header`, one
; function (same range, signature and calls) under two names; `var proto =
; module.exports = function () {}` defines `proto` (above) and the module's export as a
; single assignment would. Chains of two assignments (more are rare and unnamed).
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (_) @qualifier
      property: (property_identifier) @name)
    right: (assignment_expression
      right: [(function_expression) (generator_function)] @callable))) @definition.function

(expression_statement
  (assignment_expression
    right: (assignment_expression
      left: (member_expression
        object: (_) @qualifier
        property: (property_identifier) @name)
      right: [(function_expression) (generator_function)] @callable))) @definition.function

(expression_statement
  (assignment_expression
    left: (member_expression
      object: (_) @qualifier
      property: (property_identifier) @name)
    right: (assignment_expression
      right: (arrow_function) @callable))) @definition.arrow

(expression_statement
  (assignment_expression
    right: (assignment_expression
      left: (member_expression
        object: (_) @qualifier
        property: (property_identifier) @name)
      right: (arrow_function) @callable))) @definition.arrow

[
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: (assignment_expression
        right: [(arrow_function) (function_expression) (generator_function)] @callable)))
  (variable_declaration
    (variable_declarator
      name: (identifier) @name
      value: (assignment_expression
        right: [(arrow_function) (function_expression) (generator_function)] @callable)))
] @definition.arrow

[
  (lexical_declaration
    (variable_declarator
      value: (assignment_expression
        left: (member_expression
          object: (_) @qualifier
          property: (property_identifier) @name)
        right: [(function_expression) (generator_function)] @callable)))
  (variable_declaration
    (variable_declarator
      value: (assignment_expression
        left: (member_expression
          object: (_) @qualifier
          property: (property_identifier) @name)
        right: [(function_expression) (generator_function)] @callable)))
] @definition.function

; Object-literal methods and function-valued properties of an object bound to a name or
; assigned to one: `const api = { get() {}, post: () => {} }` gives `api.get`, `api.post`
; (kind method); `module.exports = { parse() {} }` gives the module's `parse`.
(variable_declarator
  name: (identifier) @qualifier
  value: (object
    [
      (method_definition
        name: (property_identifier) @name) @definition.method @callable
      (pair
        key: (property_identifier) @name
        value: [(arrow_function) (function_expression) (generator_function)] @callable) @definition.method
    ]))

(assignment_expression
  left: (_) @qualifier
  right: (object
    [
      (method_definition
        name: (property_identifier) @name) @definition.method @callable
      (pair
        key: (property_identifier) @name
        value: [(arrow_function) (function_expression) (generator_function)] @callable) @definition.method
    ]))

(class_declaration
  name: (_) @name) @definition.class

(abstract_class_declaration
  name: (_) @name) @definition.class

(interface_declaration
  name: (_) @name) @definition.interface

(type_alias_declaration
  name: (_) @name) @definition.type

; What belongs to a definition beyond its node: the `export` keyword (`export function f`,
; `export default class X`, `export const f = …`), and decorators written before a class
; member, which are its siblings in the class body (a chain of them is followed).
(export_statement
  declaration: (_) @wrapped) @wrapper

(class_body
  (decorator) @wrapper
  .
  [(method_definition) (public_field_definition) (decorator)] @wrapped)

; Class bodies, so that methods find their class's name. `class` is a class expression
; (`export default class { … }` has no name; `const A = class B {…}` has one).
(class_declaration
  name: (_) @container.name
  body: (class_body) @container.body)

(abstract_class_declaration
  name: (_) @container.name
  body: (class_body) @container.body)

(class
  name: (_) @container.name
  body: (class_body) @container.body)

(class
  !name
  body: (class_body) @container.body)
