; Reads and writes of members, for the conflict forecast's member-vs-uses kind: the
; receiver is scoped as a call's is (`this`, a parameter annotated with a class, a local
; of evident class), which says whose member it is. One that is a call's callee
; (`order.total()`) is the call, not an access (the engine leaves it out). The members
; themselves (class fields, interface properties) are read in src/engine/members.rs.

(member_expression
  object: (_) @receiver
  property: (property_identifier) @name) @reference.member

(assignment_expression
  left: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name) @reference.member.write)

(augmented_assignment_expression
  left: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name) @reference.member.write)
