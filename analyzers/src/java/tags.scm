; Java definitions and calls, in tree-sitter's tags.scm vocabulary plus wit's captures
; (see analyzers/src/declarative.rs for the whole list):
;   @definition.<kind> + @name   a definition (class, interface, enum/record/annotation as
;                                types, methods and constructors as methods)
;   @callable                    the node whose fields type_parameters/parameters give the
;                                signature; @signature.return the return type (Java writes
;                                it before the name)
;   @container.body/.name        a type body: definitions inside take its name as container;
;                                @container.extends/.base its supertypes (the graph's rules)
;   @typed.*                     variables of stated type (see engine/typed.rs)
;   @export                      `public` definitions
;   @reference.call + @name      a call; @receiver its object (`repo` in `repo.find()`),
;                                @arguments its argument list (overloads)
;   @import + @import.module     `import a.b.C;` (module `a.b.C`, local name `C`)

(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(annotation_type_declaration name: (identifier) @name) @definition.annotation

(method_declaration
  type_parameters: (_)? @signature.type_parameters
  type: (_) @signature.return
  name: (identifier) @name
  parameters: (formal_parameters) @signature.parameters) @definition.method

(constructor_declaration
  type_parameters: (_)? @signature.type_parameters
  name: (identifier) @name
  parameters: (formal_parameters) @signature.parameters) @definition.constructor

; An annotation type's elements (`boolean serialize() default true;`) are its methods, as
; in reflection: `(): boolean`.
(annotation_type_element_declaration
  type: (_) @signature.return
  name: (identifier) @name) @definition.method

; public types and members are the file's exports.
(class_declaration (modifiers "public") name: (identifier) @name) @definition.class @export
(interface_declaration (modifiers "public") name: (identifier) @name) @definition.interface @export
(enum_declaration (modifiers "public") name: (identifier) @name) @definition.enum @export
(record_declaration (modifiers "public") name: (identifier) @name) @definition.record @export

; Bodies of named types; an anonymous class's body has no name, so its methods have no
; container (not the enclosing class's), and neither has an enum constant's body, which
; is an anonymous class extending the enum. @container.extends: the class a type extends;
; @container.base: the interfaces it implements (an anonymous class: its one type), for
; the code graph's Java rules (wit_core::TypeBody).
(class_declaration name: (identifier) @container.name body: (class_body) @container.body)
(class_declaration
  name: (identifier) @container.name
  superclass: (superclass [(type_identifier) (generic_type) (scoped_type_identifier)] @container.extends)
  body: (class_body) @container.body)
(class_declaration
  name: (identifier) @container.name
  interfaces: (super_interfaces
    (type_list [(type_identifier) (generic_type) (scoped_type_identifier)] @container.base))
  body: (class_body) @container.body)
(interface_declaration name: (identifier) @container.name body: (interface_body) @container.body)
(interface_declaration
  name: (identifier) @container.name
  (extends_interfaces
    (type_list [(type_identifier) (generic_type) (scoped_type_identifier)] @container.base))
  body: (interface_body) @container.body)
(enum_declaration name: (identifier) @container.name body: (enum_body) @container.body)
(enum_declaration
  name: (identifier) @container.name
  interfaces: (super_interfaces
    (type_list [(type_identifier) (generic_type) (scoped_type_identifier)] @container.base))
  body: (enum_body) @container.body)
(record_declaration name: (identifier) @container.name body: (class_body) @container.body)
(record_declaration
  name: (identifier) @container.name
  interfaces: (super_interfaces
    (type_list [(type_identifier) (generic_type) (scoped_type_identifier)] @container.base))
  body: (class_body) @container.body)
(annotation_type_declaration name: (identifier) @container.name body: (annotation_type_body) @container.body)
(object_creation_expression
  type: [(type_identifier) (generic_type) (scoped_type_identifier)] @container.base
  (class_body) @container.body)
(enum_declaration
  name: (identifier) @container.extends
  body: (enum_body (enum_constant body: (class_body) @container.body)))

; Variables whose declaration states their type (engine/typed.rs): `v.m()` on one is a
; call of its type's method (receiver `new:Type`). Scopes of locals, locals and
; parameters (a lambda's without a type: unknown), fields.
[
  (block)
  (method_declaration)
  (constructor_declaration)
  (lambda_expression)
  (catch_clause)
  (enhanced_for_statement)
  (for_statement)
  (try_with_resources_statement)
  (switch_block_statement_group)
  (switch_rule)
] @typed.scope

(local_variable_declaration
  type: (_) @typed.type
  declarator: (variable_declarator name: (identifier) @typed.name)) @typed.local
(formal_parameter type: (_) @typed.type name: (identifier) @typed.name) @typed.local
(spread_parameter (variable_declarator name: (identifier) @typed.name)) @typed.local
(catch_formal_parameter (catch_type) @typed.type name: (identifier) @typed.name) @typed.local
(enhanced_for_statement type: (_) @typed.type name: (identifier) @typed.name) @typed.local
(resource type: (_) @typed.type name: (identifier) @typed.name) @typed.local
(instanceof_expression right: (_) @typed.type name: (identifier) @typed.name) @typed.local
(lambda_expression parameters: (identifier) @typed.name) @typed.local
(lambda_expression parameters: (inferred_parameters (identifier) @typed.name)) @typed.local

(field_declaration
  type: (_) @typed.type
  declarator: (variable_declarator name: (identifier) @typed.name)) @typed.field
(constant_declaration
  type: (_) @typed.type
  declarator: (variable_declarator name: (identifier) @typed.name)) @typed.field

; @arguments: the argument list, whose length picks among overloads.
(method_invocation
  object: (_) @receiver
  name: (identifier) @name
  arguments: (argument_list) @arguments) @reference.call
(method_invocation
  !object
  name: (identifier) @name
  arguments: (argument_list) @arguments) @reference.call

(import_declaration [(scoped_identifier) (identifier)] @import.module) @import
