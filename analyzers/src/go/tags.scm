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

(call_expression
  function: (identifier) @name) @reference.call
(call_expression
  function: (selector_expression
    operand: (_) @receiver
    field: (field_identifier) @name)) @reference.call

(import_spec
  name: (package_identifier)? @import.alias
  path: (_) @import.module) @import
