; Java definitions and calls, in tree-sitter's tags.scm vocabulary plus wit's captures
; (see analyzers/src/declarative.rs for the whole list):
;   @definition.<kind> + @name   a definition (class, interface, enum/record/annotation as
;                                types, methods and constructors as methods)
;   @callable                    the node whose fields type_parameters/parameters give the
;                                signature; @signature.return the return type (Java writes
;                                it before the name)
;   @container.body/.name        a type body: definitions inside take its name as container
;   @export                      `public` definitions
;   @reference.call + @name      a call; @receiver its object (`repo` in `repo.find()`)
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
; container (not the enclosing class's).
(class_declaration name: (identifier) @container.name body: (class_body) @container.body)
(interface_declaration name: (identifier) @container.name body: (interface_body) @container.body)
(enum_declaration name: (identifier) @container.name body: (enum_body) @container.body)
(record_declaration name: (identifier) @container.name body: (class_body) @container.body)
(annotation_type_declaration name: (identifier) @container.name body: (annotation_type_body) @container.body)
(object_creation_expression (class_body) @container.body)

(method_invocation
  object: (_) @receiver
  name: (identifier) @name) @reference.call
(method_invocation
  !object
  name: (identifier) @name) @reference.call

(import_declaration [(scoped_identifier) (identifier)] @import.module) @import
