//! Lease patterns: the glob syntax a lease accepts, checked once, then compiled twice — to
//! a `globset` matcher for concrete files (a lock's file, an edited file, a staged file)
//! and to a small automaton for the glob-against-glob overlap test (`overlap.rs`).
//!
//! The syntax, relative to the repository root (forward slashes):
//! - `*` any characters but `/`; `?` one character but `/`;
//! - `**` as a whole segment: any number of segments, none included (`src/**/test.ts`);
//! - `[abc]`, `[a-z]`, `[!a]` (or `[^a]`): one character (never `/`) in / not in the set;
//! - `{a,b}`: either alternative (not nested; no empty alternative);
//! - `\c`: the character `c` itself;
//! - a trailing `/` means everything beneath: `src/auth/` is `src/auth/**`;
//! - anything else is itself: `src/auth.ts` leases exactly that file.
//!
//! Refused, with the reason: absolute paths, `..`, control characters, `**` inside a
//! segment (`a**b` — ambiguous, write `a*b`), nested or unbalanced braces or brackets, `/`
//! inside a bracket, and patterns longer than [`MAX_PATTERN_CHARS`].

use globset::{Glob, GlobBuilder, GlobMatcher};

/// Longest pattern accepted, in characters.
pub(crate) const MAX_PATTERN_CHARS: usize = 1024;
/// Most alternatives one pattern may expand to (the product of its brace groups).
const MAX_ALTERNATIVES: usize = 64;

/// One unit of a pattern after its braces are expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// The character itself.
    Char(char),
    /// `?`.
    One,
    /// `*`: any run of characters but `/`.
    Star,
    /// `**` as the last segment: any run of characters.
    AnyRun,
    /// `**/` before another segment: nothing, or any run of characters ending in `/`.
    Segments,
    /// `[...]`: one character in (or, negated, not in) the ranges; never `/`.
    Class {
        ranges: Vec<(char, char)>,
        negated: bool,
    },
}

/// A checked lease pattern.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    /// As the lease stores and shows it (a trailing `/` already written as `/**`).
    pub text: String,
    /// Each brace alternative, tokenized.
    pub alternatives: Vec<Vec<Token>>,
    /// The compiled glob, for sets of patterns ([`crate::leases::Covering`]).
    pub glob: Glob,
    matcher: GlobMatcher,
}

impl Pattern {
    /// Checks and compiles `raw`; `Err` says what is wrong, for the caller to show.
    pub(crate) fn parse(raw: &str) -> Result<Pattern, String> {
        if raw.is_empty() {
            return Err("must not be empty".into());
        }
        if raw.chars().count() > MAX_PATTERN_CHARS {
            return Err(format!("longer than {MAX_PATTERN_CHARS} characters"));
        }
        if raw.chars().any(char::is_control) {
            return Err("must not contain control characters".into());
        }
        if raw.starts_with('/') {
            return Err("must be relative to the repository root, not absolute".into());
        }
        let mut text = normalize_segments(raw)?;
        if raw.ends_with('/') {
            text.push_str("/**");
        }
        let alternatives = expand_braces(&text)?
            .iter()
            .map(|alt| tokenize(alt))
            .collect::<Result<Vec<_>, _>>()?;
        let glob = GlobBuilder::new(&text)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| format!("not a valid glob: {}", e.kind()))?;
        let matcher = glob.compile_matcher();
        Ok(Pattern {
            text,
            alternatives,
            glob,
            matcher,
        })
    }

    /// Whether the repository-relative `file` (normalized) is under this pattern.
    pub(crate) fn matches(&self, file: &str) -> bool {
        self.matcher.is_match(file)
    }
}

/// Drops `.` and empty segments; refuses `..`. Escapes and brackets cannot hide a `/`
/// (refused inside brackets, and `\/` is a plain separator), so splitting on `/` is exact.
fn normalize_segments(raw: &str) -> Result<String, String> {
    let mut segments = Vec::new();
    for segment in raw.split('/') {
        match segment {
            "" | "." => {}
            ".." => return Err("must not contain a '..' segment".into()),
            s if s.contains("**") && s != "**" => {
                return Err(format!(
                    "'**' must be a whole path segment (in {s:?}; write '*' within a segment)"
                ));
            }
            s => segments.push(s),
        }
    }
    if segments.is_empty() {
        return Err("names no path".into());
    }
    Ok(segments.join("/"))
}

/// Every alternative of the (non-nested) brace groups of `text`.
fn expand_braces(text: &str) -> Result<Vec<String>, String> {
    let mut out = vec![String::new()];
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let next = chars.next().ok_or("ends with a lone '\\'")?;
                for alt in &mut out {
                    alt.push('\\');
                    alt.push(next);
                }
            }
            '{' => {
                let mut options = vec![String::new()];
                loop {
                    match chars.next() {
                        None => return Err("has an unclosed '{'".into()),
                        Some('}') => break,
                        Some('{') => return Err("must not nest braces".into()),
                        Some(',') => options.push(String::new()),
                        Some('\\') => {
                            let next = chars.next().ok_or("ends with a lone '\\'")?;
                            let last = options.last_mut().ok_or("internal: no option")?;
                            last.push('\\');
                            last.push(next);
                        }
                        Some(other) => options.last_mut().ok_or("internal: no option")?.push(other),
                    }
                }
                if options.iter().any(String::is_empty) {
                    return Err("must not have an empty alternative in braces".into());
                }
                if options.iter().any(|o| o.contains('/')) {
                    return Err("must not have '/' inside braces".into());
                }
                if out.len() * options.len() > MAX_ALTERNATIVES {
                    return Err(format!(
                        "expands to more than {MAX_ALTERNATIVES} alternatives"
                    ));
                }
                out = out
                    .iter()
                    .flat_map(|prefix| options.iter().map(move |o| format!("{prefix}{o}")))
                    .collect();
            }
            '}' => return Err("has an unmatched '}'".into()),
            c => {
                for alt in &mut out {
                    alt.push(c);
                }
            }
        }
    }
    Ok(out)
}

/// The tokens of one brace-free alternative.
fn tokenize(alt: &str) -> Result<Vec<Token>, String> {
    let segments: Vec<&str> = alt.split('/').collect();
    let mut tokens = Vec::new();
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        if *segment == "**" {
            // `**/` swallows its separator: `a/**/b` is `a/` then (nothing | any…/) then `b`.
            tokens.push(if last { Token::AnyRun } else { Token::Segments });
            continue;
        }
        tokenize_segment(segment, &mut tokens)?;
        if !last {
            tokens.push(Token::Char('/'));
        }
    }
    Ok(tokens)
}

fn tokenize_segment(segment: &str, tokens: &mut Vec<Token>) -> Result<(), String> {
    let mut chars = segment.chars().peekable();
    while let Some(c) = chars.next() {
        tokens.push(match c {
            '*' => Token::Star,
            '?' => Token::One,
            '\\' => Token::Char(chars.next().ok_or("ends with a lone '\\'")?),
            '[' => {
                let negated = matches!(chars.peek(), Some('!' | '^'));
                if negated {
                    chars.next();
                }
                let mut ranges = Vec::new();
                let mut first = true;
                loop {
                    let c = match chars.next() {
                        None => return Err("has an unclosed '['".into()),
                        // A `]` first in the set is a member, as in globset.
                        Some(']') if !first => break,
                        Some(c) => c,
                    };
                    first = false;
                    if chars.peek() == Some(&'-') {
                        chars.next();
                        match chars.peek().copied() {
                            Some(']') | None => {
                                ranges.push((c, c));
                                ranges.push(('-', '-'));
                            }
                            Some(hi) => {
                                chars.next();
                                if hi < c {
                                    return Err(format!("has a reversed range '{c}-{hi}'"));
                                }
                                ranges.push((c, hi));
                            }
                        }
                    } else {
                        ranges.push((c, c));
                    }
                }
                if ranges.iter().any(|&(lo, hi)| lo <= '/' && '/' <= hi) {
                    return Err("must not have '/' inside brackets".into());
                }
                Token::Class { ranges, negated }
            }
            c => Token::Char(c),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trailing_slash_means_everything_beneath() {
        let p = Pattern::parse("src/auth/").unwrap();
        assert_eq!(p.text, "src/auth/**");
        assert!(p.matches("src/auth/token.ts"));
        assert!(p.matches("src/auth/deep/er.ts"));
        assert!(!p.matches("src/authx/a.ts"));
    }

    #[test]
    fn a_plain_path_is_that_file() {
        let p = Pattern::parse("./src//a.ts").unwrap();
        assert_eq!(p.text, "src/a.ts");
        assert!(p.matches("src/a.ts"));
        assert!(!p.matches("src/a.tsx"));
    }

    #[test]
    fn bad_patterns_are_refused_with_the_reason() {
        for (raw, why) in [
            ("", "empty"),
            ("/etc/passwd", "absolute"),
            ("src/../x", "'..'"),
            ("src/a**b", "whole path segment"),
            ("src/{a,{b}}", "nest"),
            ("src/{a,}", "empty alternative"),
            ("src/[a", "unclosed '['"),
            ("src/{a", "unclosed '{'"),
            ("src/a}", "unmatched"),
            ("src/[z-a]", "reversed"),
            ("src/a\u{1b}", "control"),
            ("src/{a/b,c}", "'/' inside braces"),
        ] {
            let err = Pattern::parse(raw).expect_err(raw);
            assert!(err.contains(why), "{raw:?}: {err}");
        }
    }

    #[test]
    fn braces_expand_to_each_alternative() {
        let p = Pattern::parse("src/{a,b}.{ts,py}").unwrap();
        assert_eq!(p.alternatives.len(), 4);
        assert!(p.matches("src/b.py"));
        assert!(!p.matches("src/c.py"));
    }
}
