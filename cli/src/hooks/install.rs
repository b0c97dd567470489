//! `wit hook install|uninstall`.
//!
//! Hooks go where git runs them (`core.hooksPath` when set). A hook wit did not write is
//! never destroyed: without `--force`, install refuses and says why; with `--force` the
//! existing hook is moved to `<name>.pre-wit` and wit's hook runs it first (a failing
//! chained hook still stops the commit). Uninstall removes wit's hooks and moves the
//! chained ones back. The scripts call the `wit` binary by absolute path, so hooks work
//! whatever PATH git runs them with.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::json;

use crate::context::Ctx;
use crate::exit::{CmdResult, Failure};
use crate::git;
use crate::output::print_json;

/// Marks a hook script written by wit.
pub const MARKER: &str = "wit-managed-hook";

/// The hooks wit installs.
const HOOKS: [&str; 2] = ["pre-commit", "prepare-commit-msg"];

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
/// hook as `line` words it.
fn print_report(
    ctx: &Ctx,
    dir: &Path,
    report: &[HookReport],
    line: impl Fn(&HookReport) -> String,
) {
    if ctx.json {
        print_json(&json!({"hooksDir": dir.display().to_string(), "hooks": report}));
    } else {
        for r in report {
            println!("{}", line(r));
        }
    }
}

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The script of hook `name` calling `wit` at `exe`.
pub fn script(name: &str, exe: &Path) -> String {
    let wit = sh_quote(&exe.to_string_lossy());
    let missing = if name == "pre-commit" {
        format!(
            "echo \"wit: contract check skipped: {} not found (run wit hook install again)\" >&2\n",
            exe.display()
        )
    } else {
        String::new()
    };
    format!(
        "#!/bin/sh\n\
         # {MARKER}: {name}\n\
         # Installed by `wit hook install`; `wit hook uninstall` removes it and restores the\n\
         # hook that was here before (kept as {name}{CHAINED_SUFFIX} and run first).\n\
         chained=\"$(dirname \"$0\")/{name}{CHAINED_SUFFIX}\"\n\
         if [ -x \"$chained\" ]; then\n  \"$chained\" \"$@\" || exit $?\nfi\n\
         if [ -x {wit} ]; then\n  exec {wit} hook run {name} \"$@\"\nfi\n\
         {missing}exit 0\n"
    )
}

fn is_ours(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|s| s.contains(MARKER))
}

fn hooks_dir(ctx: &Ctx) -> CmdResult<PathBuf> {
    git::hooks_dir(&ctx.repo.root).map_err(|e| Failure::Usage(format!("not a git repository? {e}")))
}

fn write_executable(path: &Path, content: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("wit-tmp");
    std::fs::write(&tmp, content)?;
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))?;
    std::fs::rename(&tmp, path)
}

/// `wit hook install [--force]`.
pub fn install(ctx: &Ctx, force: bool) -> CmdResult {
    let dir = hooks_dir(ctx)?;
    std::fs::create_dir_all(&dir).map_err(|e| Failure::other(format!("{}: {e}", dir.display())))?;
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| Failure::other(format!("cannot find the wit binary: {e}")))?;
    // Check both hooks before touching either, so a refusal changes nothing.
    let mut plan = Vec::new();
    for name in HOOKS {
        let path = dir.join(name);
        let chained = dir.join(format!("{name}{CHAINED_SUFFIX}"));
        let action = if !path.exists() {
            "installed"
        } else if is_ours(&path) {
            "updated"
        } else if chained.exists() {
            return Err(Failure::Usage(format!(
                "{} exists and was not written by wit, and {} is taken too; move one of them \
                 away and run wit hook install again",
                path.display(),
                chained.display()
            )));
        } else if force {
            "chained"
        } else {
            return Err(Failure::Usage(format!(
                "{} already exists and was not written by wit; nothing was changed. Run \
                 `wit hook install --force` to keep it: it will be moved to {} and run before \
                 wit's check (its failure still stops the commit)",
                path.display(),
                chained.display()
            )));
        };
        plan.push((name, path, chained, action));
    }
    let mut report = Vec::new();
    for (name, path, chained, action) in plan {
        if action == "chained" {
            std::fs::rename(&path, &chained)
                .map_err(|e| Failure::other(format!("{}: {e}", path.display())))?;
        }
        write_executable(&path, &script(name, &exe))
            .map_err(|e| Failure::other(format!("{}: {e}", path.display())))?;
        report.push(HookReport::new(name, &path, action));
    }
    print_report(ctx, &dir, &report, |r| {
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
        let action = if !path.exists() {
            "absent"
        } else if !is_ours(&path) {
            "left alone (not written by wit)"
        } else {
            std::fs::remove_file(&path)
                .map_err(|e| Failure::other(format!("{}: {e}", path.display())))?;
            if chained.exists() {
                std::fs::rename(&chained, &path)
                    .map_err(|e| Failure::other(format!("{}: {e}", chained.display())))?;
                "restored"
            } else {
                "removed"
            }
        };
        report.push(HookReport::new(name, &path, action));
    }
    print_report(ctx, &dir, &report, |r| format!("{}: {}", r.path, r.action));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_quote_the_binary_and_chain() {
        let s = script("pre-commit", Path::new("/opt/it's/wit"));
        assert!(
            s.contains(r"exec '/opt/it'\''s/wit' hook run pre-commit"),
            "{s}"
        );
        assert!(s.contains("pre-commit.pre-wit"));
        assert!(s.contains(MARKER));
    }
}
