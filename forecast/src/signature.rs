//! Whether a signature change breaks the callers of the base version.
//!
//! Signatures are the analyzers' canonical text (`(n: number, rate?: number): number`,
//! `(self, n, rate=1)`, `(int n)`). A change breaks a caller written against the base
//! when a parameter it may pass is gone, a new one is required, a parameter's type
//! changed, or the result did; a parameter only renamed, or an optional one added at the
//! end, does not (a positional call still fits). A
//! Python caller passing that parameter by keyword would break, and is not seen: the
//! price of not reporting every rename of a parameter as a collision.

/// One parameter, its name left out.
#[derive(Debug, PartialEq, Eq)]
struct Param {
    optional: bool,
    kind: String,
}

/// Splits `s` at top-level occurrences of `sep` (outside brackets and quotes).
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut quote) = (0i32, 0usize, None::<char>);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'' | '`') => quote = Some(c),
            (None, '(' | '[' | '{' | '<') => depth += 1,
            (None, ')' | ']' | '}' | '>') => depth -= 1,
            (None, c) if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// The parameter list (inside the first top-level parentheses) and what follows it.
fn parts(sig: &str) -> Option<(&str, &str)> {
    let open = sig.find('(')?;
    let mut depth = 0i32;
    for (i, c) in sig[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    let close = open + i;
                    return Some((&sig[open + 1..close], &sig[close + 1..]));
                }
            }
            _ => {}
        }
    }
    None
}

fn param(p: &str) -> Param {
    let p = p.trim();
    let (decl, default) = match split_top(p, '=').as_slice() {
        [decl, _, ..] => (decl.trim(), true),
        _ => (p, false),
    };
    let typed = split_top(decl, ':');
    match typed.as_slice() {
        // `name: Type`, `name?: Type`
        [name, ty, ..] => Param {
            optional: default || name.trim_end().ends_with('?'),
            kind: ty.trim().to_owned(),
        },
        // `Type name` (Java, C#), `name` (Python, JavaScript), `...rest`, `*args`: the
        // last word is the name.
        _ => {
            let kind = match decl.rfind(|c: char| c.is_whitespace()) {
                Some(i) => decl[..i].trim().to_owned(),
                None => decl
                    .chars()
                    .take_while(|c| !c.is_alphanumeric() && *c != '_')
                    .collect(),
            };
            Param {
                optional: default || decl.starts_with('*') || decl.starts_with("..."),
                kind,
            }
        }
    }
}

fn params(list: &str) -> Vec<Param> {
    if list.trim().is_empty() {
        return Vec::new();
    }
    split_top(list, ',').into_iter().map(param).collect()
}

/// Whether a caller of `before` may not fit `after` (see the module docs); any signature
/// that does not read as a parameter list breaks when its text changed.
pub fn breaks_callers(before: &str, after: &str) -> bool {
    if before == after {
        return false;
    }
    let (Some((pb, rb)), Some((pa, ra))) = (parts(before), parts(after)) else {
        return true;
    };
    if rb.trim() != ra.trim() {
        return true;
    }
    let (b, a) = (params(pb), params(pa));
    let required = |v: &[Param]| v.iter().filter(|p| !p.optional).count();
    let kept = b.len().min(a.len());
    a.len() < b.len()
        || required(&a) > required(&b)
        || b[..kept]
            .iter()
            .zip(&a[..kept])
            .any(|(x, y)| x.kind != y.kind)
}

#[cfg(test)]
mod tests {
    use super::breaks_callers;

    #[test]
    fn renaming_a_parameter_breaks_no_caller_changing_its_type_or_count_does() {
        assert!(!breaks_callers(
            "(n: number): number",
            "(count: number): number"
        ));
        assert!(!breaks_callers("(self, n)", "(self, count)"));
        assert!(!breaks_callers("(int n)", "(int count)"));
        assert!(breaks_callers(
            "(n: number): number",
            "(n: number, rate: number): number"
        ));
        assert!(breaks_callers("(n: number): number", "(n: string): number"));
        assert!(breaks_callers("(n: number): number", "(n: number): string"));
        assert!(breaks_callers("(int n)", "(long n)"));
        assert!(breaks_callers("(self, n)", "(self)"));
        // An optional parameter added at the end, or a required one made optional, fits
        // every old call; one removed does not.
        assert!(!breaks_callers("(n: number)", "(n: number, rate?: number)"));
        assert!(!breaks_callers("(self, n, rate)", "(self, n, rate=1)"));
        assert!(breaks_callers("(self, n, rate=1)", "(self, n)"));
        assert!(breaks_callers("(a: Map<K, V>)", "(a: Map<K, W>)"));
        assert!(!breaks_callers(
            "(a: Map<K, V> = new Map())",
            "(b: Map<K, V> = new Map())"
        ));
        assert!(breaks_callers("weird", "other"));
    }
}
