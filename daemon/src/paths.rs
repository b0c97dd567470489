//! One name per file: the normal form of the repository paths clients send.
//!
//! `src//a.ts`, `./src/a.ts` and `src/./a.ts` all name `src/a.ts`; if each were stored as
//! written, they would be three locks on one symbol and mutual exclusion would be
//! defeated by a spelling. Parameters are normalized where they are validated
//! (`crate::params`): `.` segments and repeated or trailing `/` are dropped silently, and
//! what cannot be made a plain path inside the repository is refused by name. The files
//! themselves are read only through `wit_boundary`, which confines every open beneath the
//! root (symlinks included).

/// The normal form of the repository-relative file path `path`, or why it is refused:
/// empty, absolute, containing a `..` segment (refused rather than resolved: whether
/// `a/../b` is `b` depends on whether `a` is a symlink), a NUL or another control
/// character, or naming no file at all (`.`, `./`).
pub(crate) fn normalize_file(path: &str) -> Result<String, String> {
    if path.is_empty() {
        return Err("the file part must not be empty".to_owned());
    }
    if path.chars().any(char::is_control) {
        return Err("must not contain NUL or other control characters".to_owned());
    }
    if path.starts_with('/') {
        return Err("the file must be relative to the repository root, not absolute".to_owned());
    }
    let mut segments = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => return Err("the file must not contain a '..' segment".to_owned()),
            s => segments.push(s),
        }
    }
    if segments.is_empty() {
        return Err("the file part names no file".to_owned());
    }
    Ok(segments.join("/"))
}

/// [`normalize_file`] for an owned path: a path already in normal form (the usual case)
/// is handed back as it is, without a copy, so validating a declare of 50,000 files
/// allocates nothing more.
pub(crate) fn normalize_file_owned(path: String) -> Result<String, String> {
    let plain = !path.is_empty()
        && !path.chars().any(char::is_control)
        && path
            .split('/')
            .all(|segment| !matches!(segment, "" | "." | ".."));
    if plain {
        Ok(path)
    } else {
        normalize_file(&path)
    }
}

/// The normal form of a `file:symbol` path: the file part (before the first colon)
/// normalized, the symbol name kept as written but for control characters, which are
/// refused anywhere in the path.
pub(crate) fn normalize_symbol_path(symbol_path: &str) -> Result<String, String> {
    let Some((file, name)) = symbol_path.split_once(':') else {
        return Err("must have the form 'file:symbol' (contain ':')".to_owned());
    };
    if name.chars().any(char::is_control) {
        return Err("must not contain NUL or other control characters".to_owned());
    }
    Ok(format!("{}:{name}", normalize_file(file)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_one_file_have_one_normal_form() {
        for spelling in [
            "src/a.ts",
            "src//a.ts",
            "./src/a.ts",
            "src/./a.ts",
            ".//src///./a.ts",
            "src/a.ts/",
        ] {
            assert_eq!(normalize_file(spelling).unwrap(), "src/a.ts", "{spelling}");
        }
        assert_eq!(
            normalize_symbol_path("./src//a.ts:Store.get").unwrap(),
            "src/a.ts:Store.get"
        );
        // Only the first colon splits: the name keeps its own.
        assert_eq!(normalize_symbol_path("a.ts:ns:f").unwrap(), "a.ts:ns:f");
    }

    #[test]
    fn escapes_control_characters_and_empty_files_are_refused() {
        for bad in [
            "",
            ".",
            "./",
            "//",
            "/etc/passwd",
            "../a.ts",
            "src/../src/a.ts",
            "src/..",
            "a\0.ts",
            "a\n.ts",
            "a\u{1b}[31m.ts",
        ] {
            assert!(normalize_file(bad).is_err(), "{bad:?}");
        }
        for spelling in [
            "src/a.ts",
            "./src/a.ts",
            "src//a.ts",
            "",
            "../a",
            "a\0",
            "/a",
        ] {
            assert_eq!(
                normalize_file_owned(spelling.to_owned()),
                normalize_file(spelling),
                "{spelling:?}"
            );
        }
        for bad in [":f", "./:f", "../a.ts:f", "a.ts:f\0", "a.ts:f\r\n", "a.ts"] {
            assert!(normalize_symbol_path(bad).is_err(), "{bad:?}");
        }
    }
}
