; Scopes and the names declared in them, for calls on a local whose class its declaration
; says (`const doc = new Doc(); doc.write()`, `function f(doc: Doc) { doc.write() }`): the
; engine (src/engine/locals.rs) reads the nodes' fields and does the scoping.
;   @bind.scope   a function (its parameters bind in it) or a block
;   @bind         a node declaring names: a let/const statement, a for-in/of statement,
;                 a catch clause
;   @bind.var     a `var` statement (it binds in its function)
;   @bind.assign  an assignment (a re-assignment, not a declaration)
; One node each, no fields or children: every pattern costs something on every file.

[
  (function_declaration)
  (generator_function_declaration)
  (function_expression)
  (generator_function)
  (arrow_function)
  (method_definition)
  (statement_block)
  (switch_body)
] @bind.scope

[(lexical_declaration) (for_in_statement) (catch_clause)] @bind

(variable_declaration) @bind.var

[(assignment_expression) (augmented_assignment_expression)] @bind.assign
