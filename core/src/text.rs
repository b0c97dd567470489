//! Showing text that someone else chose (file names, descriptions, session ids, plugin
//! names) without letting it act on a terminal or a log.
//!
//! A description with `ESC [2J` clears the screen of whoever runs `wit status`; a path
//! with `\r` hides what came before it on the line; a newline in a log line forges a log
//! entry (or, in a shell start-up file, a command). Every such text goes through
//! [`escape`] (or [`Shown`]) before it reaches a terminal or a log: control characters
//! (C0, DEL, C1, and the Unicode line/paragraph separators and bidirectional overrides)
//! become visible escapes like `\n`, `\r`, `\u{1b}`.

use std::borrow::Cow;
use std::fmt;

/// Whether `c` must not be written raw.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `s` with every unsafe character escaped (`\n`, `\t`, `\r`, `\\u{..}`); borrowed when
/// nothing needed escaping.
///
/// ```
/// use wit_core::text::escape;
/// assert_eq!(escape("src/a.ts"), "src/a.ts");
/// assert_eq!(escape("evil.so\r  good.so"), "evil.so\\r  good.so");
/// assert_eq!(escape("\u{1b}[2J"), "\\u{1b}[2J");
/// ```
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if is_unsafe(c) => out.extend(c.escape_unicode()),
        c => out.push(c),
    }
}

/// Escapes every unsafe character of `s` except the line breaks in it, for multi-line
/// text that wit itself laid out (a table, a report) from parts that may not be safe.
pub fn escape_keep_newlines(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c != '\n' && is_unsafe(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c == '\n' {
            out.push('\n');
        } else {
            push_escaped(&mut out, c);
        }
    }
    Cow::Owned(out)
}

/// Displays a `&str` through [`escape`]: `format!("{}", Shown(name))`.
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a>(pub &'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&escape(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_become_visible_escapes() {
        assert_eq!(escape("a\nb\tc\u{7f}\u{9b}"), "a\\nb\\tc\\u{7f}\\u{9b}");
        assert_eq!(escape("\u{202e}txt.exe"), "\\u{202e}txt.exe");
        assert_eq!(escape("\u{1b}]0;title\u{7}"), "\\u{1b}]0;title\\u{7}");
        assert_eq!(escape("héllo wörld"), "héllo wörld");
        assert_eq!(escape_keep_newlines("a\nb\u{1b}c\n"), "a\nb\\u{1b}c\n");
        assert_eq!(format!("[{:>6}]", Shown("a\rb")), "[  a\\rb]");
    }
}
