; Rust definitions and calls, in tree-sitter's tags.scm vocabulary plus wit's captures (see
; ../java/tags.scm for the list). Functions of an `impl` or a `trait` are methods of that
; type or trait; every other `fn` (free, nested, in a `mod`) is a function. Structs, enums,
; unions and type aliases are types (associated types of their impl's type or trait),
; traits interfaces. `pub` items are exported.
; Signatures come from the function node's own fields (type_parameters, parameters,
; return_type), the engine's defaults.

(function_item name: (identifier) @name) @definition.function @callable

(impl_item
  body: (declaration_list
    (function_item name: (identifier) @name) @definition.method @callable))
(trait_item
  body: (declaration_list
    [
      (function_item name: (identifier) @name) @definition.method @callable
      (function_signature_item name: (identifier) @name) @definition.method @callable
    ]))

(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.union
(type_item name: (type_identifier) @name) @definition.type
(trait_item name: (type_identifier) @name) @definition.trait

(function_item (visibility_modifier) name: (identifier) @name) @definition.function @callable @export
(struct_item (visibility_modifier) name: (type_identifier) @name) @definition.struct @export
(enum_item (visibility_modifier) name: (type_identifier) @name) @definition.enum @export
(trait_item (visibility_modifier) name: (type_identifier) @name) @definition.trait @export

; An `impl`'s type names its methods' container: `Shop`, `a::Shop`, `Shop<T>`, a primitive
; (`impl Tr for u64`), each also behind a reference (`impl<'a> Tr for &'a Shop`). A type
; that is no path is named as written, whitespace collapsed (the engine canonicalizes a
; container that is not a name): a slice or array (`impl Hex for [u8]` gives `[u8].hex`,
; `[u8; 4]`), a tuple (`(A, B)`), a pointer (`*const T`), a trait object (`dyn Any`), a
; function pointer, `()` and `!`; behind a reference too (`&[u8]` is `[u8]`).
(impl_item
  type: [
    (type_identifier) @container.name
    (primitive_type) @container.name
    (generic_type type: (type_identifier) @container.name)
    (scoped_type_identifier name: (type_identifier) @container.name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @container.name))
    (array_type) @container.name
    (tuple_type) @container.name
    (pointer_type) @container.name
    (dynamic_type) @container.name
    (function_type) @container.name
    (unit_type) @container.name
    (never_type) @container.name
    (reference_type
      type: [
        (type_identifier) @container.name
        (primitive_type) @container.name
        (generic_type type: (type_identifier) @container.name)
        (scoped_type_identifier name: (type_identifier) @container.name)
        (generic_type type: (scoped_type_identifier name: (type_identifier) @container.name))
        (array_type) @container.name
        (tuple_type) @container.name
        (pointer_type) @container.name
        (dynamic_type) @container.name
        (function_type) @container.name
        (unit_type) @container.name
        (never_type) @container.name
      ])
  ]
  body: (declaration_list) @container.body)
(trait_item
  name: (type_identifier) @container.name
  body: (declaration_list) @container.body)

; Associated types belong to their `impl`'s type or their trait, as methods do:
; `impl Iterator for Iter { type Item = Value; }` defines the type `Iter.Item`.
(impl_item
  type: [
    (type_identifier) @container
    (primitive_type) @container
    (generic_type type: (type_identifier) @container)
    (scoped_type_identifier name: (type_identifier) @container)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @container))
    (array_type) @container
    (tuple_type) @container
    (pointer_type) @container
    (dynamic_type) @container
    (function_type) @container
    (unit_type) @container
    (never_type) @container
    (reference_type
      type: [
        (type_identifier) @container
        (primitive_type) @container
        (generic_type type: (type_identifier) @container)
        (scoped_type_identifier name: (type_identifier) @container)
        (generic_type type: (scoped_type_identifier name: (type_identifier) @container))
        (array_type) @container
        (tuple_type) @container
        (pointer_type) @container
        (dynamic_type) @container
        (function_type) @container
        (unit_type) @container
        (never_type) @container
      ])
  ]
  body: (declaration_list (type_item name: (type_identifier) @name) @definition.type))
(trait_item
  name: (type_identifier) @container
  body: (declaration_list (associated_type name: (type_identifier) @name) @definition.type))

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression
    value: (_) @receiver
    field: (field_identifier) @name)) @reference.call
(call_expression
  function: (scoped_identifier
    path: (_) @receiver
    name: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function
    function: [
      (identifier) @name
      (scoped_identifier path: (_) @receiver name: (identifier) @name)
      (field_expression value: (_) @receiver field: (field_identifier) @name)
    ])) @reference.call

; `use a::b::c;` and `use a::b::c as d;` (lists are read as their paths' prefix).
(use_declaration argument: (scoped_identifier) @import.module) @import
(use_declaration argument: (identifier) @import.module) @import
(use_declaration
  argument: (use_as_clause path: (_) @import.module alias: (identifier) @import.alias)) @import
