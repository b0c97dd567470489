; Calls in TypeScript, TSX and JavaScript. Captures: @reference.call on the call, @name on
; the called name. `new Foo()` is a new_expression, not a call, and is deliberately absent.

; f(), f<T>()
(call_expression
  function: (identifier) @name) @reference.call

; obj.f(), this.f(), obj?.f(), this.#f(), super.f(): the callee is the property name.
(call_expression
  function: (member_expression
    property: (_) @name)) @reference.call
