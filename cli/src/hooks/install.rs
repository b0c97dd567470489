//! `wit hook install|uninstall` (`uninstall` is also `remove`): the git hooks, and the
//! merge driver (`merge_setup.rs`), installed and removed together.
//!
//! Hooks go where git runs them (`core.hooksPath` when set). A hook wit did not write is
//! never destroyed: without `--force`, install refuses and says why; with `--force` the
//! existing hook is moved to `<name>.pre-wit` and wit's hook runs it first (a failing
//! chained hook still stops the commit). Uninstall removes wit's hooks and moves the
//! chained ones back. The scripts call the `wit` binary by absolute path, so hooks work
//! whatever PATH git runs them with.
//!
//! **Which chained hook runs.** `core.hooksPath` may point into the repository (a repo can
//! ship `.githooks/`), so a `<name>.pre-wit` there may be a file the repository put there,
//! one git itself would never run. wit's script therefore runs a chained hook only when wit
//! put it there: the chain block (and a `# wit-chained: <name>.pre-wit` record) is written
//! only by the install that moved the previous hook away, and carried over by a later
//! install ("updated") only from a script that records it. A script of an older wit, which
//! ran any executable `.pre-wit`, records nothing: updating it drops the chain (and says
//! how to restore it), and uninstall leaves such a `.pre-wit` where it is rather than
//! moving it to where git runs it. (We considered pinning the chained file's SHA-256 in the
//! script instead; it needs a hashing tool in `sh` on every platform and would silently stop
//! running a hook its owner edited. A repository could ship a wit-looking script recording a
//! chain, but git runs that shipped script anyway, so carrying its record over runs nothing
//! git would not.)
//!
//! **The first implementation's hooks.** The first (TypeScript) wit wrote hooks beginning
//! `# Managed by wit.` that run `bun run … wit`; install replaces them like its own
//! ("replaced (a hook of the first wit implementation)") rather than chaining them, since
//! chained they would refuse every commit once Bun is gone.
//!
//! **Writing.** A hook is replaced by writing a new file in the hooks directory (created
//! exclusively, so no planted symlink is followed) and renaming it over the hook, which
//! replaces a symlink rather than writing through it. A hook path that is a symlink
//! pointing out of the hooks directory is refused outright.

use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::json;

use super::merge_setup;
use crate::context::Ctx;
use crate::exit::{CmdResult, Failure};
use crate::git;
use crate::output::print_json;
use wit_core::text::escape;

/// Marks a hook script written by wit.
pub const MARKER: &str = "wit-managed-hook";

/// The hooks wit installs.
const HOOKS: [&str; 3] = ["pre-commit", "prepare-commit-msg", "pre-push"];

/// How the first (TypeScript) wit implementation's hook scripts begin, on the line after
/// the shebang. Those scripts run `bun run … wit`: chained, they would refuse every commit
/// once Bun is gone, so install replaces them like its own.
const FIRST_IMPL_MARKER: &str = "# Managed by wit.";

/// What install reports for a replaced hook of the first implementation.
const REPLACED_FIRST_IMPL: &str = "replaced (a hook of the first wit implementation)";

/// Suffix of a chained (pre-existing) hook.
pub const CHAINED_SUFFIX: &str = ".pre-wit";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HookReport {
    hook: &'static str,
    path: String,
    action: &'static str,
}

impl HookReport {
    fn new(hook: &'static str, path: &Path, action: &'static str) -> Self {
        Self {
            hook,
            path: path.display().to_string(),
            action,
        }
    }
}

/// Prints what install or uninstall did: the JSON document both share, or one line per
/// hook as `line` words it, then the merge driver's.
fn print_report(
    ctx: &Ctx,
    dir: &Path,
    report: &[HookReport],
    merge: &merge_setup::Report,
    line: impl Fn(&HookReport) -> String,
) {
    if ctx.json {
        print_json(&json!({
            "hooksDir": dir.display().to_string(),
            "hooks": report,
            "mergeDriver": merge,
        }));
        return;
    }
    for r in report {
        println!("{}", line(r));
    }
    let attributes = escape(&merge.attributes);
    if merge.patterns.is_empty() {
        println!(
            "merge driver {}: {} ({attributes})",
            merge.driver, merge.action
        );
    } else {
        println!(
            "merge driver {}: {} for {} ({attributes}; merge.{}.driver in the repository's config)",
            merge.driver,
            merge.action,
            merge.patterns.join(" "),
            merge.driver
        );
    }
    for kept in &merge.kept {
        println!(
            "  {}: keeps its own merge attribute ({})",
            escape(&kept.path),
            escape(&kept.merge)
        );
    }
    for language in &merge.not_covered {
        println!("  not covered (not loaded): {language}");
    }
}

/// Records, in a script, that wit moved the previous hook to `<name>.pre-wit`.
pub const CHAIN_RECORD: &str = "wit-chained";

/// How much of a hook file is read to recognise wit's scripts (they are a few hundred
/// bytes; a hook is not read whole however big it is).
const SCRIPT_READ_LIMIT: u64 = 64 * 1024;

/// `s` as one single-quoted `sh` word: nothing in it is expanded (`$(…)`, backticks, `$x`),
/// and control characters are literal inside single quotes.
pub(crate) fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The line of a script recording that wit chained `name`'s previous hook.
fn chain_record(name: &str) -> String {
    format!("# {CHAIN_RECORD}: {name}{CHAINED_SUFFIX}")
}

/// The script of hook `name` calling `wit` at `exe`; with `chained`, it first runs the
/// previous hook that install moved to `<name>.pre-wit`.
pub fn script(name: &str, exe: &str, chained: bool) -> String {
    let wit = sh_quote(exe);
    let missing = if name == "pre-commit" {
        // printf with single-quoted words: the path is data, never shell syntax; its control
        // characters are escaped so that the message cannot act on the terminal.
        let message = format!(
            "wit: contract check skipped: {} not found (run wit hook install again)",
            wit_core::text::escape(exe)
        );
        format!("printf '%s\\n' {} >&2\n", sh_quote(&message))
    } else {
        String::new()
    };
    let (about, chain) = if chained {
        (
            format!(
                " and restores the\n# hook that was here before (kept as {name}{CHAINED_SUFFIX} \
                 and run first)."
            ),
            format!(
                "{}\n\
                 chained=\"$(dirname \"$0\")/{name}{CHAINED_SUFFIX}\"\n\
                 if [ -x \"$chained\" ]; then\n  \"$chained\" \"$@\" || exit $?\nfi\n",
                chain_record(name)
            ),
        )
    } else {
        (".".to_owned(), String::new())
    };
    format!(
        "#!/bin/sh\n\
         # {MARKER}: {name}\n\
         # Installed by `wit hook install`; `wit hook uninstall` removes it{about}\n\
         {chain}\
         if [ -x {wit} ]; then\n  exec {wit} hook run {name} \"$@\"\nfi\n\
         {missing}exit 0\n"
    )
}

/// The start of `path` as text, when it is a regular file (a symlink is not followed).
fn read_script(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_file() {
        return None;
    }
    let mut text = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(SCRIPT_READ_LIMIT)
        .read_to_end(&mut text)
        .ok()?;
    String::from_utf8(text).ok()
}

/// Whether `path` is a script wit wrote (a regular file holding the marker).
fn is_ours(path: &Path) -> bool {
    read_script(path).is_some_and(|s| s.contains(MARKER))
}

/// Whether `path` is a hook script of the first wit implementation (a regular file whose
/// second line is its marker).
fn is_first_impl(path: &Path) -> bool {
    read_script(path).is_some_and(|s| {
        let mut lines = s.lines();
        lines.next().is_some_and(|l| l.starts_with("#!"))
            && lines
                .next()
                .is_some_and(|l| l.starts_with(FIRST_IMPL_MARKER))
    })
}

/// Whether wit's script at `path` records that wit chained `name`'s previous hook.
fn records_chain(path: &Path, name: &str) -> bool {
    let record = chain_record(name);
    read_script(path).is_some_and(|s| s.lines().any(|l| l == record))
}

/// Whether anything (a dangling symlink included) is at `path`.
fn occupied(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// For a hook path that is a symlink: the error when it points out of `dir`.
fn outside_symlink(dir: &Path, path: &Path) -> Option<Failure> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    let inside = match (path.canonicalize(), dir.canonicalize()) {
        (Ok(target), Ok(dir)) => target.parent() == Some(dir.as_path()),
        _ => false,
    };
    (!inside).then(|| {
        let target = std::fs::read_link(path)
            .map(|t| t.display().to_string())
            .unwrap_or_default();
        Failure::Usage(format!(
            "{} is a symbolic link to {}, out of the hooks directory; wit does not replace \
             or chain such a hook. Nothing was changed: replace the link with a regular file \
             (or remove it) and run wit hook install again",
            escape(&path.display().to_string()),
            escape(&target)
        ))
    })
}

fn hooks_dir(ctx: &Ctx) -> CmdResult<PathBuf> {
    git::hooks_dir(&ctx.repo.root).map_err(|e| Failure::Usage(format!("not a git repository? {e}")))
}

/// Replaces `path` with an executable file holding `content`: a new file created
/// exclusively in the same directory (a symlink planted at its name is never followed),
/// then renamed over `path` (a symlink at `path` is replaced, not written through).
fn write_executable(path: &Path, content: &str) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut attempt = 0u32;
    let (tmp, mut file) = loop {
        let tmp = dir.join(format!(".{name}.wit-tmp-{}-{attempt}", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o755)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1;
            }
            Err(e) => return Err(e),
        }
    };
    let written = file
        .write_all(content.as_bytes())
        // The mode given at creation is reduced by the umask; hooks must be executable.
        .and_then(|()| file.set_permissions(std::fs::Permissions::from_mode(0o755)))
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// `wit hook install [--force]`.
pub fn install(ctx: &Ctx, force: bool) -> CmdResult {
    let dir = hooks_dir(ctx)?;
    std::fs::create_dir_all(&dir).map_err(|e| Failure::other(format!("{}: {e}", dir.display())))?;
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| Failure::other(format!("cannot find the wit binary: {e}")))?;
    // The script names the binary as text; a path that is not UTF-8 cannot be written
    // into it faithfully.
    let exe = exe.to_str().map(str::to_owned).ok_or_else(|| {
        Failure::other(format!(
            "the wit binary's path {} is not UTF-8; install wit elsewhere and run it from there",
            escape(&exe.to_string_lossy())
        ))
    })?;
    // Check both hooks before touching either, so a refusal changes nothing.
    let mut plan = Vec::new();
    let mut notes = Vec::new();
    for name in HOOKS {
        let path = dir.join(name);
        let chained = dir.join(format!("{name}{CHAINED_SUFFIX}"));
        if let Some(refusal) = outside_symlink(&dir, &path) {
            return Err(refusal);
        }
        let (action, chain) = if !occupied(&path) {
            ("installed", false)
        } else if is_ours(&path) {
            // Keep the chain only where wit recorded making it (see the module doc).
            let chain = records_chain(&path, name) && occupied(&chained);
            if !chain && occupied(&chained) {
                notes.push(format!(
                    "wit: {} is not run by wit's hook: nothing records that wit put it there. \
                     If it is your previous hook, move it back to {name} and run \
                     wit hook install --force",
                    escape(&chained.display().to_string())
                ));
            }
            ("updated", chain)
        } else if is_first_impl(&path) {
            if occupied(&chained) {
                notes.push(format!(
                    "wit: {} is not run by wit's hook: nothing records that wit put it there. \
                     If it is your previous hook, move it back to {name} and run \
                     wit hook install --force",
                    escape(&chained.display().to_string())
                ));
            }
            (REPLACED_FIRST_IMPL, false)
        } else if occupied(&chained) {
            return Err(Failure::Usage(format!(
                "{} exists and was not written by wit, and {} is taken too; move one of them \
                 away and run wit hook install again",
                escape(&path.display().to_string()),
                escape(&chained.display().to_string())
            )));
        } else if force {
            ("chained", true)
        } else {
            return Err(Failure::Usage(format!(
                "{} already exists and was not written by wit; nothing was changed. Run \
                 `wit hook install --force` to keep it: it will be moved to {} and run before \
                 wit's check (its failure still stops the commit)",
                escape(&path.display().to_string()),
                escape(&chained.display().to_string())
            )));
        };
        plan.push((name, path, chained, action, chain));
    }
    merge_setup::check(&ctx.repo.root)?;
    let mut report = Vec::new();
    for (name, path, chained, action, chain) in plan {
        if action == "chained" {
            // rename moves a symlink itself, never what it points to.
            std::fs::rename(&path, &chained)
                .map_err(|e| Failure::other(format!("{}: {e}", path.display())))?;
        }
        write_executable(&path, &script(name, &exe, chain))
            .map_err(|e| Failure::other(format!("{}: {e}", path.display())))?;
        report.push(HookReport::new(name, &path, action));
    }
    let merge = merge_setup::install(&ctx.repo.root, &sh_quote(&exe))?;
    for note in notes {
        eprintln!("{note}");
    }
    print_report(ctx, &dir, &report, &merge, |r| {
        let extra = if r.action == "chained" {
            format!(
                " (the previous hook is kept as {}{CHAINED_SUFFIX} and runs first)",
                r.hook
            )
        } else {
            String::new()
        };
        format!("{} {}{extra}", r.action, r.path)
    });
    Ok(())
}

/// `wit hook uninstall`.
pub fn uninstall(ctx: &Ctx) -> CmdResult {
    let dir = hooks_dir(ctx)?;
    let mut report = Vec::new();
    for name in HOOKS {
        let path = dir.join(name);
        let chained = dir.join(format!("{name}{CHAINED_SUFFIX}"));
        let action = if !occupied(&path) {
            "absent"
        } else if !is_ours(&path) {
            "left alone (not written by wit)"
        } else {
            // Only a hook wit moved away goes back to where git runs it; any other
            // `.pre-wit` may be the repository's, and git never ran it (see the module doc).
            let restore = records_chain(&path, name) && occupied(&chained);
            std::fs::remove_file(&path)
                .map_err(|e| Failure::other(format!("{}: {e}", path.display())))?;
            if restore {
                std::fs::rename(&chained, &path)
                    .map_err(|e| Failure::other(format!("{}: {e}", chained.display())))?;
                "restored"
            } else if occupied(&chained) {
                "removed (the .pre-wit file beside it was not put there by wit: left alone)"
            } else {
                "removed"
            }
        };
        report.push(HookReport::new(name, &path, action));
    }
    let merge = merge_setup::remove(&ctx.repo.root)?;
    print_report(ctx, &dir, &report, &merge, |r| {
        format!("{}: {}", r.path, r.action)
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_quote_the_binary_and_chain_only_when_asked() {
        let s = script("pre-commit", "/opt/it's/wit", true);
        assert!(
            s.contains(r"exec '/opt/it'\''s/wit' hook run pre-commit"),
            "{s}"
        );
        assert!(s.contains("pre-commit.pre-wit\""), "{s}");
        assert!(s.lines().any(|l| l == chain_record("pre-commit")), "{s}");
        assert!(s.contains(MARKER));

        let s = script("pre-commit", "/opt/wit", false);
        assert!(!s.contains(".pre-wit"), "no chain: {s}");
        assert!(!s.contains(CHAIN_RECORD), "{s}");
    }

    #[test]
    fn the_first_implementations_hooks_are_recognised_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let hook = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let old = include_str!("../../../tests/e2e/fixtures/first_impl/pre-commit");
        assert!(is_first_impl(&hook("pre-commit", old)));
        let old = include_str!("../../../tests/e2e/fixtures/first_impl/prepare-commit-msg");
        assert!(is_first_impl(&hook("prepare-commit-msg", old)));
        // Ours, a user's hook quoting the words further down, and a symlink are not.
        assert!(!is_first_impl(&hook(
            "a",
            &script("pre-commit", "/opt/wit", false)
        )));
        assert!(!is_first_impl(&hook(
            "b",
            "#!/bin/sh\nmake lint\n# Managed by wit. (not really)\n"
        )));
        let link = dir.path().join("c");
        std::os::unix::fs::symlink(dir.path().join("pre-commit"), &link).unwrap();
        assert!(!is_first_impl(&link));
    }

    /// Security item 7: the "not found" line must not expand `$(…)`, backticks or `$x`.
    #[test]
    fn the_missing_binary_message_expands_nothing() {
        let exe = "/tmp/$(touch PWNED)/`id`/$HOME/\"x\"/it's\n\u{1b}[2J/wit";
        let s = script("pre-commit", exe, false);
        let line = s
            .lines()
            .find(|l| l.starts_with("printf"))
            .expect("a printf line");
        assert!(
            line.starts_with("printf '%s\\n' 'wit: contract check skipped: "),
            "{line}"
        );
        // Control characters appear escaped in the message, never raw.
        assert!(line.contains(r"\n\u{1b}[2J"), "{line}");
        assert!(!s.contains("echo"), "{s}");
        assert!(!line.contains('\u{1b}'), "{line}");
    }
}
