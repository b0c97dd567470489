//! What a name's text says about it being a class, shared by the passes that look for
//! values of evident class (`locals.rs` for locals, `fields.rs` for class fields), so that
//! both read a declaration the same way.

/// A name or dotted name whose last part is capitalised (PEP 8's class names; leading
/// underscores of a private class aside).
pub(super) fn python_class_name(text: &str) -> bool {
    let plain = !text.is_empty()
        && text.split('.').all(|part| {
            part.chars().next().is_some_and(|c| !c.is_ascii_digit())
                && part.chars().all(|c| c.is_alphanumeric() || c == '_')
        });
    plain
        && text
            .rsplit('.')
            .next()
            .and_then(|last| last.trim_start_matches('_').chars().next())
            .is_some_and(|c| c.is_uppercase())
}

/// The content of a Python string literal quoted once, `"Flask"` or `'Flask'` (a quoted
/// annotation); `None` for any other literal.
pub(super) fn python_unquoted(text: &str) -> Option<&str> {
    let quote = text.chars().next().filter(|q| matches!(q, '"' | '\''))?;
    text.strip_prefix(quote)?.strip_suffix(quote)
}
