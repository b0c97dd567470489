; Go definitions and calls, in tree-sitter's tags.scm vocabulary plus wit's captures (see
; ../java/tags.scm for the list). A method's container is its receiver's type (`@container`,
; without `*` or type arguments); names starting with a capital letter are exported.

(function_declaration
  name: (identifier) @name
  type_parameters: (_)? @signature.type_parameters
  parameters: (parameter_list) @signature.parameters
  result: (_)? @signature.return) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @container
        (pointer_type (type_identifier) @container)
        (generic_type type: (type_identifier) @container)
        (pointer_type (generic_type type: (type_identifier) @container))
      ]))
  name: (field_identifier) @name
  parameters: (parameter_list) @signature.parameters
  result: (_)? @signature.return) @definition.method

(type_declaration (type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface)
; Every type spec is a type; an interface's is also the (more specific) interface above.
(type_declaration (type_spec name: (type_identifier) @name) @definition.type)
(type_declaration (type_alias name: (type_identifier) @name) @definition.type)

; Exported: a capital first letter.
(function_declaration name: (identifier) @name (#match? @name "^[A-Z]")) @definition.function @export
(type_declaration (type_spec name: (type_identifier) @name (#match? @name "^[A-Z]")) @definition.type @export)
(type_declaration (type_alias name: (type_identifier) @name (#match? @name "^[A-Z]")) @definition.type @export)
(method_declaration name: (field_identifier) @name (#match? @name "^[A-Z]")) @definition.method @export

; Calls. `string(b)`, `int64(n)` convert to a predeclared type: the Go spec makes them no
; calls, and neither does wit (a conversion to a type of the package, `T2(x)`, looks like
; a call here; the code graph tells it apart).
(call_expression
  function: (identifier) @name
  (#not-any-of? @name
    "bool" "byte" "rune" "string" "error" "any" "uintptr"
    "int" "int8" "int16" "int32" "int64" "uint" "uint8" "uint16" "uint32" "uint64"
    "float32" "float64" "complex64" "complex128")) @reference.call
(call_expression
  function: (selector_expression
    operand: (_) @receiver
    field: (field_identifier) @name)) @reference.call

; With explicit type arguments: `getTyped[bool](c, key)`, `pkg.Map[K, V](m)` (the grammar
; reads one type argument as an index, several as a generic type's conversion).
(call_expression
  function: (index_expression
    operand: (identifier) @name)) @reference.call
(call_expression
  function: (index_expression
    operand: (selector_expression
      operand: (_) @receiver
      field: (field_identifier) @name))) @reference.call
(type_conversion_expression
  type: (generic_type
    type: (type_identifier) @name)) @reference.call
(type_conversion_expression
  type: (generic_type
    type: (qualified_type
      package: (package_identifier) @receiver
      name: (type_identifier) @name))) @reference.call

; Variables whose declaration states their type (engine/typed.rs): `c.Next()` in a method
; of `*Context` is `Context.Next`. Scopes, then declarations: receivers and parameters,
; `var v T`, `v := T{…}` or `&T{…}`; any other `:=`, `var v = …`, a `range` or type-switch
; variable is of unknown type (declared after the typed forms, so that they win).
[
  (function_declaration)
  (method_declaration)
  (func_literal)
  (block)
  (if_statement)
  (for_statement)
  (expression_switch_statement)
  (type_switch_statement)
  (select_statement)
] @typed.scope

(parameter_declaration name: (identifier) @typed.name type: (_) @typed.type) @typed.local
(variadic_parameter_declaration name: (identifier) @typed.name) @typed.local
(var_spec name: (identifier) @typed.name type: (_) @typed.type) @typed.local
(var_spec name: (identifier) @typed.name !type) @typed.local
(short_var_declaration
  left: (expression_list . (identifier) @typed.name .)
  right: (expression_list . (composite_literal type: (_) @typed.type) .)) @typed.local
(short_var_declaration
  left: (expression_list . (identifier) @typed.name .)
  right: (expression_list
    . (unary_expression operand: (composite_literal type: (_) @typed.type)) .)) @typed.local
(short_var_declaration left: (expression_list (identifier) @typed.name)) @typed.local
(range_clause left: (expression_list (identifier) @typed.name)) @typed.local
(type_switch_statement alias: (expression_list (identifier) @typed.name)) @typed.local

(import_spec
  name: (package_identifier)? @import.alias
  path: (_) @import.module) @import
