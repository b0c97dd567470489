; Definitions in Python. Captures as in ../typescript/symbols.scm, plus:
;   @scope   the node whose calls belong to the definition, when it is not @callable.
;            For a def it is the body: decorators, default values and annotations are
;            evaluated where the function is defined, not when it runs.

; Every def at any depth (nested and decorated ones included), async def too.
(function_definition
  name: (identifier) @name
  body: (block) @scope) @definition.function @callable

; A def directly in a class body is a method. It matched the pattern above too; the engine
; keeps the method.
(class_definition
  body: (block
    [
      (function_definition
        name: (identifier) @name
        body: (block) @scope) @definition.method @callable
      (decorated_definition
        definition: (function_definition
          name: (identifier) @name
          body: (block) @scope) @definition.method @callable)
    ]))

(class_definition
  name: (identifier) @name) @definition.class

; A decorated definition's range starts at its first decorator.
(decorated_definition
  definition: (_) @wrapped) @wrapper

; Class bodies, so that methods find their class's name.
(class_definition
  name: (identifier) @container.name
  body: (block) @container.body)
