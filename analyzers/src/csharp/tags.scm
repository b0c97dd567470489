; C# definitions and calls, in tree-sitter's tags.scm vocabulary plus wit's captures (see
; ../java/tags.scm for the list). Classes, interfaces, structs/enums/records (types),
; methods, constructors and local functions; a type's members take its name as container
; (namespaces are not containers: a lock names `Shop.Checkout`, not `Acme.Shop.Checkout`).

(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record

(method_declaration
  returns: (_) @signature.return
  name: (identifier) @name
  type_parameters: (_)? @signature.type_parameters
  parameters: (parameter_list) @signature.parameters) @definition.method
(constructor_declaration
  name: (identifier) @name
  parameters: (parameter_list) @signature.parameters) @definition.constructor
(local_function_statement
  type: (_) @signature.return
  name: (identifier) @name
  type_parameters: (_)? @signature.type_parameters
  parameters: (parameter_list) @signature.parameters) @definition.function

(class_declaration (modifier "public") name: (identifier) @name) @definition.class @export
(interface_declaration (modifier "public") name: (identifier) @name) @definition.interface @export
(struct_declaration (modifier "public") name: (identifier) @name) @definition.struct @export
(enum_declaration (modifier "public") name: (identifier) @name) @definition.enum @export
(record_declaration (modifier "public") name: (identifier) @name) @definition.record @export

(class_declaration name: (identifier) @container.name body: (declaration_list) @container.body)
(interface_declaration name: (identifier) @container.name body: (declaration_list) @container.body)
(struct_declaration name: (identifier) @container.name body: (declaration_list) @container.body)
(record_declaration name: (identifier) @container.name body: (declaration_list) @container.body)

(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression
  function: (member_access_expression
    expression: (_) @receiver
    name: [(identifier) @name (generic_name (identifier) @name)])) @reference.call
(invocation_expression function: (generic_name (identifier) @name)) @reference.call

(using_directive [(qualified_name) (identifier)] @import.module .) @import

; Fields and properties (the type is the innermost body around them), and reads and
; writes of members on a receiver (`this.Total`, `order.Coupon = …`), for the conflict
; forecast's member-vs-uses kind. Without types inferred, only those on `this` say whose
; member it is. A member access that is a call's callee (`order.Total()`) is the call.
(field_declaration
  (variable_declaration
    type: (_) @member.type
    (variable_declarator name: (identifier) @member.name))) @member
(property_declaration
  type: (_) @member.type
  name: (identifier) @member.name) @member
; (`_`, not `(_)`: `this` is an anonymous node in this grammar.)
(member_access_expression
  expression: _ @receiver
  name: (identifier) @name) @reference.member
(assignment_expression
  left: (member_access_expression
    expression: _ @receiver
    name: (identifier) @name) @reference.member.write)
