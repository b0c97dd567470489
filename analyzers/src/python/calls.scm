; Calls in Python. Captures: @reference.call on the call, @name on the called name.

; f()
(call
  function: (identifier) @name) @reference.call

; obj.f(), self.f(), module.f(): the callee is the attribute name; the receiver (`db`,
; `self`, `super()`) serves cross-file resolution.
(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call
