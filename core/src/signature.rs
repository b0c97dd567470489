//! The canonical signature form, so that re-formatting code is never a contract change.
//!
//! Rules (PROTOCOL-NOTES, "What the analyzers must produce"):
//! - every whitespace run, newlines included, becomes one space;
//! - no space just inside `(` `)`, `[` `]`, `<` `>`;
//! - no trailing comma before a closing bracket.
//!
//! Decision: the trailing-comma rule applies to `)`, `]`, `>` and `}` alike, so that an
//! object pattern wrapped over several lines (`{\n a,\n b,\n}`) equals its one-line form
//! (`{ a, b }`). The price is that a one-element tuple default `(1,)` reads as `(1)`;
//! both spellings count as one signature, which is the safe direction for a contract check
//! (no false violation).

/// A type as written, without its type arguments or whitespace: `Map<K, V>` is `Map`,
/// `Node<K,V>[]` is `Node[]`. How the Java analyzer spells an argument's type and the
/// code graph a parameter's, so that the two compare (overloads).
pub fn without_type_arguments(written: &str) -> String {
    let mut out = String::with_capacity(written.len());
    let mut depth = 0usize;
    for c in written.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth > 0 || c.is_whitespace() => {}
            _ => out.push(c),
        }
    }
    out
}

/// Returns the canonical form of a signature fragment (a parameter list, a return type, or
/// a whole signature).
pub fn canonicalize(text: &str) -> String {
    // Pass 1: collapse whitespace runs and trim.
    let mut collapsed = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = !collapsed.is_empty();
        } else {
            if pending_space {
                collapsed.push(' ');
                pending_space = false;
            }
            collapsed.push(c);
        }
    }
    // Pass 2: drop spaces inside brackets and trailing commas before closers. Work on a
    // char stack so that `a, )` (comma, space, closer) is handled in one step.
    let mut out: Vec<char> = Vec::with_capacity(collapsed.len());
    for c in collapsed.chars() {
        match c {
            ')' | ']' | '>' | '}' => {
                // `=>` and `->` are arrows, not closing brackets.
                let is_arrow = c == '>' && matches!(out.last(), Some('=') | Some('-'));
                if !is_arrow {
                    if c != '}' && out.last() == Some(&' ') {
                        out.pop();
                    }
                    if out.last() == Some(&',') {
                        out.pop();
                        if c != '}' && out.last() == Some(&' ') {
                            out.pop();
                        }
                    } else if c == '}' && out.len() >= 2 && out[out.len() - 2] == ',' {
                        // `a, }` → `a }`
                        let last = out.pop();
                        out.pop();
                        out.extend(last);
                    }
                }
                out.push(c);
            }
            ' ' if matches!(out.last(), Some('(') | Some('[') | Some('<')) => {}
            _ => out.push(c),
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::canonicalize;

    #[test]
    fn wrapped_parameter_lists_equal_their_one_line_form() {
        let one_line = "(token: string, opts?: Options): Promise<User | null>";
        let wrapped = "(\n  token: string,\n  opts?: Options,\n): Promise<\n  User | null\n>";
        assert_eq!(canonicalize(one_line), one_line);
        assert_eq!(canonicalize(wrapped), one_line);
    }

    #[test]
    fn spaces_inside_brackets_are_removed_but_arrows_survive() {
        assert_eq!(canonicalize("( a: number[ ] )"), "(a: number[])");
        assert_eq!(
            canonicalize("(cb: (x: T) => void): Map< K, V >"),
            "(cb: (x: T) => void): Map<K, V>"
        );
        assert_eq!(canonicalize("(self, x)  ->  bool"), "(self, x) -> bool");
    }

    #[test]
    fn object_patterns_lose_their_trailing_comma_and_keep_brace_spacing() {
        assert_eq!(
            canonicalize("({\n  a,\n  b,\n}: Props)"),
            canonicalize("({ a, b }: Props)")
        );
        assert_eq!(canonicalize("({ a, b }: Props)"), "({ a, b }: Props)");
    }

    #[test]
    fn empty_and_whitespace_only_input() {
        assert_eq!(canonicalize(""), "");
        assert_eq!(canonicalize(" \n\t "), "");
        assert_eq!(canonicalize("(\n)"), "()");
    }
}
