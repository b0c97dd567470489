; Reads and writes of attributes, for the conflict forecast's member-vs-uses kind: the
; receiver is scoped as a call's is (`self`, a parameter annotated with a class, a local
; built by a class call), which says whose member it is. One that is a call's callee
; (`order.total()`) is the call, not an access (the engine leaves it out). The members
; themselves (class attributes, `self.x = …`) are read in src/engine/members.rs.

(attribute
  object: (_) @receiver
  attribute: (identifier) @name) @reference.member

(assignment
  left: (attribute
    object: (_) @receiver
    attribute: (identifier) @name) @reference.member.write)

(augmented_assignment
  left: (attribute
    object: (_) @receiver
    attribute: (identifier) @name) @reference.member.write)
