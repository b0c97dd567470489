; Calls in TypeScript, TSX and JavaScript. Captures: @reference.call on the call, @name on
; the called name. `new Foo()` is a new_expression, not a call, and is deliberately absent.

; f(), f<T>()
(call_expression
  function: (identifier) @name) @reference.call

; obj.f(), this.f(), obj?.f(), this.#f(), super.f(): the callee is the property name; the
; receiver (`obj`, `this`, `new Repo()`) serves cross-file resolution.
(call_expression
  function: (member_expression
    object: (_) @receiver
    property: (_) @name)) @reference.call

; A generic call after a prefix operator (`await f<T>(x)`, `void f<T>()`, `typeof`, `!`):
; the TypeScript grammar reads the operator as part of the callee, so the call's function
; is the await or unary expression.
(call_expression
  function: (await_expression
    (identifier) @name)) @reference.call

(call_expression
  function: (unary_expression
    argument: (identifier) @name)) @reference.call

(call_expression
  function: (await_expression
    (member_expression
      object: (_) @receiver
      property: (_) @name))) @reference.call

(call_expression
  function: (unary_expression
    argument: (member_expression
      object: (_) @receiver
      property: (_) @name))) @reference.call

; A non-null-asserted callee: `parse!(x)`, `this.opts.parse!(x)`.
(call_expression
  function: (non_null_expression
    (identifier) @name)) @reference.call

(call_expression
  function: (non_null_expression
    (member_expression
      object: (_) @receiver
      property: (_) @name))) @reference.call


; Both at once: `await parse!<T>(x)` (the await around the assertion) and
; `void this.opts.parse!(x)` (the assertion around the unary expression).
(call_expression
  function: (await_expression
    (non_null_expression
      (identifier) @name))) @reference.call

(call_expression
  function: (await_expression
    (non_null_expression
      (member_expression
        object: (_) @receiver
        property: (_) @name)))) @reference.call

(call_expression
  function: (non_null_expression
    (unary_expression
      argument: (identifier) @name))) @reference.call

(call_expression
  function: (non_null_expression
    (unary_expression
      argument: (member_expression
        object: (_) @receiver
        property: (_) @name)))) @reference.call
