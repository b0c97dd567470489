//! What a file will hold once an agent's edit is made: the current content with the
//! edit's replacements applied, the content a write gives it, or nothing (deleted). The
//! claims check compares that with the current content, definition by definition.

use std::path::Path;

use super::guard_payload::{Change, Replacement};

/// `content` with `reps` applied in order, as the agents' edit tools apply them (the first
/// occurrence, or every one); `None` when a replacement's text is not there (the tool will
/// fail by itself) or empty.
pub(crate) fn replaced(content: &str, reps: &[Replacement]) -> Option<String> {
    let mut out = content.to_owned();
    for rep in reps {
        if rep.old.is_empty() || !out.contains(&rep.old) {
            return None;
        }
        out = if rep.all {
            out.replace(&rep.old, &rep.new)
        } else {
            out.replacen(&rep.old, &rep.new, 1)
        };
    }
    Some(out)
}

/// What the file `rel` of `root` holds after `change` (`Some(None)`: deleted), or `None`
/// when that cannot be known (the current content cannot be read as text, a replacement
/// is not found). `resolve` turns a path of the payload (a move's source) into a
/// repository-relative one.
pub(crate) fn after(
    root: &Path,
    rel: &str,
    change: &Change,
    limit: u64,
    resolve: impl Fn(&str) -> Option<String>,
) -> Option<Option<String>> {
    let read = |rel: &str| {
        wit_boundary::read_repo_file(root, rel, limit)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
    };
    match change {
        Change::Write(content) => Some(Some(content.clone())),
        Change::Delete => Some(None),
        Change::Replace(reps) => replaced(&read(rel)?, reps).map(Some),
        Change::Moved { from, reps } => {
            let source = read(&resolve(from)?)?;
            if reps.is_empty() {
                Some(Some(source))
            } else {
                replaced(&source, reps).map(Some)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(old: &str, new: &str, all: bool) -> Replacement {
        Replacement {
            old: old.into(),
            new: new.into(),
            all,
        }
    }

    #[test]
    fn replacements_apply_in_order_and_a_missing_one_is_unknown() {
        assert_eq!(
            replaced("a b a", &[rep("a", "x", false)]).as_deref(),
            Some("x b a")
        );
        assert_eq!(
            replaced("a b a", &[rep("a", "x", true)]).as_deref(),
            Some("x b x")
        );
        assert_eq!(
            replaced("a b", &[rep("a", "c", false), rep("c b", "d", false)]).as_deref(),
            Some("d")
        );
        assert_eq!(replaced("a b", &[rep("z", "c", false)]), None);
        assert_eq!(replaced("a b", &[rep("", "c", false)]), None);
    }
}
