; Scopes and the names bound in them, for calls on a local whose class is evident
; (`app = Flask(__name__)` then `app.route(…)`, `def f(app: Flask): app.run()`): the engine
; (src/engine/locals.rs) reads the nodes' fields and does the scoping.
;   @bind.scope   a def or lambda (its parameters bind in it), a class body
;   @bind         a node binding names: an assignment, an augmented assignment, a loop,
;                 a comprehension's `for`, an `as` target, a walrus, an import
;   @bind.global  a `global` or `nonlocal` statement
; One node each (a class body aside), no fields: every pattern costs something on every file.

[(function_definition) (lambda)] @bind.scope

(class_definition body: (block) @bind.scope)

[
  (assignment)
  (augmented_assignment)
  (for_statement)
  (for_in_clause)
  (as_pattern)
  (named_expression)
  (import_statement)
  (import_from_statement)
] @bind

[(global_statement) (nonlocal_statement)] @bind.global
