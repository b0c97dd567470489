//! Setting up (and taking out) wit's merge driver with git's own mechanism, for
//! `wit hook install` and `wit hook remove`.
//!
//! - The driver: `merge.wit.driver` (and `.name`, and `.recursive = text`: the inner merges
//!   of several merge bases stay git's) in the repository's own config file
//!   (`git config --local`: the common config, shared by every worktree). The command is
//!   written by wit — the absolute path of this `wit` binary, quoted for `sh` — never taken
//!   from the repository's files.
//! - Which files: one `*.<ext> merge=wit` line per extension an analyzer covers (the
//!   built-ins, and `wit.toml`'s plugins and languages where they load: a trusted
//!   repository), in a block of `.git/info/attributes` of the common git directory
//!   between two marker lines, so the committed `.gitattributes` is never touched and
//!   removal takes out exactly that block.
//! - `info/attributes` takes precedence over `.gitattributes`, so a tracked file whose
//!   `merge` attribute something else already sets (`dist/*.js binary`, `merge=union`) is
//!   named in the block again with that value after the patterns: the driver never
//!   overrides a setting the user made. (That is decided at install; after changing those
//!   settings, run `wit hook install` again.)
//! - A `merge.wit.driver` that wit did not write is never replaced nor removed.

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;
use wit_core::text::escape;
use wit_merge::driver;

use crate::exit::{CmdResult, Failure};

/// The line opening wit's block in `info/attributes`.
const BEGIN: &str =
    "# wit merge driver: begin (written by `wit hook install`; `wit hook remove` takes it out)";
/// The line closing it.
const END: &str = "# wit merge driver: end";

/// The config keys wit writes under `merge.wit`.
const KEYS: [&str; 3] = ["name", "driver", "recursive"];

/// What install or remove did to the merge driver (`mergeDriver` in `--json`).
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// `installed`, `updated`, `removed`, `absent`, or `left alone (…)`.
    pub action: String,
    /// The driver's name in the attributes and the config.
    pub driver: &'static str,
    /// The attributes file.
    pub attributes: String,
    /// The patterns now merged by the driver (`*.ts`), sorted.
    pub patterns: Vec<String>,
    /// Tracked files whose own `merge` attribute is kept (named again after the patterns).
    pub kept: Vec<Kept>,
    /// Languages of `wit.toml` that did not load, so are not covered, and why.
    pub not_covered: Vec<String>,
}

/// A tracked file whose `merge` attribute was set by something else.
#[derive(Serialize, Debug)]
pub struct Kept {
    /// The path (lossy, when not UTF-8).
    pub path: String,
    /// Its `merge` attribute: `set`, `unset`, or a driver's name.
    pub merge: String,
}

/// Runs git in `root`: exit code and stdout. Codes 0 and 1 are answers (`--get` of an
/// unset key is 1), and so is 5 (`--unset` of one); any other is an error.
fn git(root: &Path, args: &[&OsStr], input: Option<&[u8]>) -> Result<(i32, Vec<u8>), String> {
    let mut child = Command::new("git")
        .args(args)
        .current_dir(root)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("running git: {e}"))?;
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin
            .write_all(bytes)
            .map_err(|e| format!("writing to git: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("running git: {e}"))?;
    let code = out.status.code().unwrap_or(-1);
    if !matches!(code, 0 | 1 | 5) {
        let shown: Vec<_> = args.iter().map(|a| a.to_string_lossy()).collect();
        return Err(format!(
            "git {} failed: {}",
            escape(&shown.join(" ")),
            escape(String::from_utf8_lossy(&out.stderr).trim())
        ));
    }
    Ok((code, out.stdout))
}

fn args<'a>(list: &'a [&'a str]) -> Vec<&'a OsStr> {
    list.iter().map(OsStr::new).collect()
}

/// `merge.wit.<key>` in the repository's own config file, if set.
fn config_get(root: &Path, key: &str) -> CmdResult<Option<String>> {
    let name = format!("merge.{}.{key}", driver::NAME);
    let (code, out) =
        git(root, &args(&["config", "--local", "--get", &name]), None).map_err(Failure::other)?;
    Ok((code == 0).then(|| {
        String::from_utf8_lossy(&out)
            .trim_end_matches('\n')
            .to_owned()
    }))
}

fn config_run(root: &Path, list: &[&str]) -> CmdResult<i32> {
    git(root, &args(list), None)
        .map(|(code, _)| code)
        .map_err(Failure::other)
}

/// `info/attributes` of the common git directory.
fn attributes_path(root: &Path) -> CmdResult<PathBuf> {
    let (_, out) = git(
        root,
        &args(&["rev-parse", "--git-path", "info/attributes"]),
        None,
    )
    .map_err(|e| Failure::Usage(format!("not a git repository? {e}")))?;
    let mut out = out;
    if out.last() == Some(&b'\n') {
        out.pop();
    }
    let p = PathBuf::from(OsStr::from_bytes(&out));
    Ok(if p.is_absolute() { p } else { root.join(p) })
}

/// The attributes file's text, without wit's block; and whether it had one. A file that
/// is not a regular file (a symlink) is refused: wit writes only its own kind of file.
fn read_attributes(path: &Path) -> CmdResult<(Option<String>, bool)> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((None, false)),
        Err(e) => return Err(Failure::other(format!("{}: {e}", path.display()))),
    };
    if !meta.file_type().is_file() {
        return Err(Failure::Usage(format!(
            "{} is not a regular file (a symbolic link?); wit does not write through it. \
             Nothing was changed",
            escape(&path.display().to_string())
        )));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::other(format!("{}: {e}", path.display())))?;
    let mut rest = String::with_capacity(text.len());
    let mut inside = false;
    let mut had = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if !inside && bare == BEGIN {
            inside = true;
            had = true;
        } else if inside {
            if bare == END {
                inside = false;
            }
        } else {
            rest.push_str(line);
        }
    }
    Ok((Some(rest), had))
}

/// Writes `text` to `path` through a new file renamed over it (never through a link).
fn write_attributes(path: &Path, text: &str) -> CmdResult<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Failure::other(format!("{}: {e}", dir.display())))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".attributes.wit-")
        .tempfile_in(dir)
        .map_err(|e| Failure::other(format!("{}: {e}", dir.display())))?;
    tmp.write_all(text.as_bytes())
        .and_then(|()| {
            use std::os::unix::fs::PermissionsExt;
            tmp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644))
        })
        .map_err(|e| Failure::other(format!("{}: {e}", path.display())))?;
    tmp.persist(path)
        .map_err(|e| Failure::other(format!("{}: {e}", path.display())))?;
    Ok(())
}

/// `path` (bytes, as git lists it) as a gitattributes pattern matching it alone: glob
/// characters escaped, and the whole in git's C-style quotes when it holds anything but
/// plain ASCII (a blank would end the pattern).
fn exact_pattern(path: &[u8]) -> String {
    let mut pattern = vec![b'/'];
    for &b in path {
        if matches!(b, b'*' | b'?' | b'[' | b'\\') {
            pattern.push(b'\\');
        }
        pattern.push(b);
    }
    if pattern.iter().all(|&b| b.is_ascii_graphic() && b != b'"') {
        return String::from_utf8_lossy(&pattern).into_owned();
    }
    let mut quoted = String::from("\"");
    for b in pattern {
        match b {
            b'"' => quoted.push_str("\\\""),
            b'\\' => quoted.push_str("\\\\"),
            b if b.is_ascii_graphic() => quoted.push(char::from(b)),
            b => quoted.push_str(&format!("\\{b:03o}")),
        }
    }
    quoted.push('"');
    quoted
}

/// Tracked files with one of `extensions` whose `merge` attribute is set by anything
/// (other than naming wit's driver), as `git check-attr` reports it now.
fn already_set(root: &Path, extensions: &[&str]) -> CmdResult<Vec<(Vec<u8>, String)>> {
    let (_, listed) = git(root, &args(&["ls-files", "-z"]), None).map_err(Failure::other)?;
    let mut input = Vec::new();
    for path in listed.split(|&b| b == 0).filter(|p| !p.is_empty()) {
        let ext = Path::new(OsStr::from_bytes(path))
            .extension()
            .and_then(OsStr::to_str);
        if ext.is_some_and(|e| extensions.contains(&e)) {
            input.extend_from_slice(path);
            input.push(0);
        }
    }
    if input.is_empty() {
        return Ok(Vec::new());
    }
    let (_, out) = git(
        root,
        &args(&["check-attr", "--stdin", "-z", "merge"]),
        Some(&input),
    )
    .map_err(Failure::other)?;
    let fields: Vec<&[u8]> = out.split(|&b| b == 0).collect();
    let mut set = Vec::new();
    for triple in fields.chunks(3) {
        let [path, _attribute, value] = triple else {
            continue;
        };
        let value = String::from_utf8_lossy(value);
        if value != "unspecified" && value != driver::NAME {
            set.push((path.to_vec(), value.into_owned()));
        }
    }
    Ok(set)
}

/// Refuses, before anything is written, a `merge.wit.driver` that wit did not write.
pub fn check(root: &Path) -> CmdResult<()> {
    match config_get(root, "driver")? {
        Some(value) if !driver::is_wit_command(&value) => Err(Failure::Usage(format!(
            "merge.{name}.driver is already set in this repository's config to {} (not by \
             wit); nothing was changed. Remove it (git config --local --remove-section \
             merge.{name}) and run wit hook install again",
            escape(&value),
            name = driver::NAME
        ))),
        _ => Ok(()),
    }
}

/// Sets up the driver for the repository at `root`, running the `wit` at `exe_quoted`
/// (already quoted for `sh`).
pub fn install(root: &Path, exe_quoted: &str) -> CmdResult<Report> {
    check(root)?;
    let analyzers = wit_daemon::analyzers(root);
    let mut extensions: Vec<&str> = analyzers.registry.extensions();
    // An extension is written into a pattern: only plain ones (wit.toml's are checked
    // when parsed, but a pattern character would widen the match).
    extensions.retain(|e| {
        !e.is_empty()
            && e.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '.'))
    });
    let path = attributes_path(root)?;
    let (text, had_block) = read_attributes(&path)?;
    let was_installed = had_block || config_get(root, "driver")?.is_some();
    let rest = text.unwrap_or_default();
    if had_block {
        // Without wit's block first, so that `check-attr` sees the user's own settings.
        write_attributes(&path, &rest)?;
    }
    let set = already_set(root, &extensions)?;

    let patterns: Vec<String> = extensions.iter().map(|e| format!("*.{e}")).collect();
    let mut block = format!("{BEGIN}\n");
    for p in &patterns {
        block.push_str(&format!("{p} merge={}\n", driver::NAME));
    }
    let mut kept = Vec::new();
    for (file, value) in set {
        let attribute = match value.as_str() {
            "set" => "merge".to_owned(),
            "unset" => "-merge".to_owned(),
            v => format!("merge={v}"),
        };
        block.push_str(&format!("{} {attribute}\n", exact_pattern(&file)));
        kept.push(Kept {
            path: String::from_utf8_lossy(&file).into_owned(),
            merge: value,
        });
    }
    block.push_str(END);
    block.push('\n');
    let mut new_text = rest;
    if !new_text.is_empty() && !new_text.ends_with('\n') {
        new_text.push('\n');
    }
    new_text.push_str(&block);
    write_attributes(&path, &new_text)?;

    let section = format!("merge.{}", driver::NAME);
    for (key, value) in [
        ("name", driver::DESCRIPTION.to_owned()),
        ("driver", driver::command(exe_quoted)),
        ("recursive", "text".to_owned()),
    ] {
        let name = format!("{section}.{key}");
        config_run(root, &["config", "--local", &name, &value])?;
    }
    let invalid = analyzers
        .config_error
        .iter()
        .map(|e| format!("wit.toml is invalid, so none of its plugins and languages: {e}"));
    let not_covered = invalid
        .chain(analyzers.plugins.failed.iter().map(|f| {
            let what = f
                .language
                .clone()
                .unwrap_or_else(|| f.path.display().to_string());
            format!("{what}: {}", f.error)
        }))
        .map(|line| escape(&line).into_owned())
        .collect();
    Ok(Report {
        action: if was_installed {
            "updated"
        } else {
            "installed"
        }
        .to_owned(),
        driver: driver::NAME,
        attributes: path.display().to_string(),
        patterns,
        kept,
        not_covered,
    })
}

/// Takes the driver out: wit's block of `info/attributes` (the file goes when nothing else
/// is left in it) and the `merge.wit` keys wit wrote; a driver wit did not write is left.
pub fn remove(root: &Path) -> CmdResult<Report> {
    let path = attributes_path(root)?;
    let (text, had_block) = read_attributes(&path)?;
    let report = |action: &str| Report {
        action: action.to_owned(),
        driver: driver::NAME,
        attributes: path.display().to_string(),
        patterns: Vec::new(),
        kept: Vec::new(),
        not_covered: Vec::new(),
    };
    let foreign = config_get(root, "driver")?.filter(|v| !driver::is_wit_command(v));
    if let Some(value) = foreign {
        return Ok(report(&format!(
            "left alone (merge.{}.driver was not written by wit: {})",
            driver::NAME,
            escape(&value)
        )));
    }
    if had_block {
        match text.as_deref() {
            Some("") | None => std::fs::remove_file(&path)
                .map_err(|e| Failure::other(format!("{}: {e}", path.display())))?,
            Some(rest) => write_attributes(&path, rest)?,
        }
    }
    let section = format!("merge.{}", driver::NAME);
    let mut had_config = false;
    for key in KEYS {
        let name = format!("{section}.{key}");
        had_config |= config_run(root, &["config", "--local", "--unset-all", &name])? == 0;
    }
    // An empty `[merge "wit"]` header is left behind by --unset; take it out when nothing
    // else is in the section.
    let pattern = format!("^{section}\\.");
    let (code, _) = git(
        root,
        &args(&["config", "--local", "--get-regexp", &pattern]),
        None,
    )
    .map_err(Failure::other)?;
    if code == 1 {
        let _ = git(
            root,
            &args(&["config", "--local", "--remove-section", &section]),
            None,
        );
    }
    Ok(report(if had_block || had_config {
        "removed"
    } else {
        "absent"
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_patterns_escape_globs_and_quote_what_is_not_plain() {
        assert_eq!(exact_pattern(b"dist/a.min.js"), "/dist/a.min.js");
        assert_eq!(exact_pattern(b"x/[id]*?.ts"), r"/x/\[id]\*\?.ts");
        assert_eq!(exact_pattern(b"a b.ts"), r#""/a\040b.ts""#);
        assert_eq!(exact_pattern(b"a\"b\\c.ts"), r#""/a\"b\\\\c.ts""#);
        assert_eq!(exact_pattern(b"caf\xe9.ts"), r#""/caf\351.ts""#);
    }
}
