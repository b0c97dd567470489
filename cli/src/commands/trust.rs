//! `wit trust` and `wit untrust`: allow (or stop) the daemon loading the analyzer plugins
//! `wit.toml` names.
//!
//! Decisions:
//! - `wit trust` first shows what it is about to trust: `wit.toml` and each library (a
//!   plugin, or a `[[languages]]` grammar) and query file, with their SHA-256. On a terminal it asks `[y/N]`; `--yes` skips the question. Without a
//!   terminal on stdin and without `--yes` it refuses (exit 2) with a hint, since nobody
//!   could have read the list.
//! - It says exactly which bytes are pinned: `wit.toml` and each library, with SHA-256 and
//!   size (the daemon loads those bytes from a sealed in-memory copy, never the path
//!   again), and lists each library's system dependencies as not pinned (root's files).
//! - A library that can never be trusted as it is (not a regular file, a symlink, too
//!   large, or depending on code that would not be pinned: `RUNPATH $ORIGIN`, a
//!   `DT_NEEDED` that is not a system library) is refused with the reason; nothing is
//!   offered, nothing written.
//! - A library writable by group or others (or in such a directory) is trusted with a
//!   warning: anyone who can write it could have replaced it before you looked.
//! - A library that does not exist yet is listed as missing and pinned as absent: it does
//!   not load, and the grant goes stale when it appears (so its hash is seen first).
//! - A `wit.toml` that names no plugin, no `[store] url` or `project` and raises no read
//!   cap has nothing to trust: nothing is written. One that names a store or a project, or
//!   raises `[analysis] max_file_bytes`, is trusted like plugins (its hash pinned), and the
//!   prompt says what each grants: only then do the daemons keep this repository's state
//!   in that store, share it under that project, or read files that large.
//! - A running daemon is restarted after `trust` and `untrust`, so the change takes effect
//!   at once; a daemon that is not running is left alone (the next command starts it).

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use serde_json::json;
use wit_core::Config;
use wit_core::config::FILE_NAME;
use wit_daemon::trust::{MAX_WIT_TOML_SIZE, TrustError, TrustPlan, TrustStore};

use crate::autostart;
use crate::commands::analyzers::{self, AnalyzerList};
use crate::commands::daemon;
use crate::context::{Ctx, call};
use crate::exit::{CmdResult, Failure};
use crate::output::print_json;

/// What a `wit.toml` with nothing to trust lacks.
const NOTHING_TO_TRUST: &str = "no analyzer plugins, no languages, no store or store project, \
     and no raised read cap";

/// `wit trust [--yes]`.
pub async fn trust(ctx: &Ctx, yes: bool) -> CmdResult {
    let root = &ctx.repo.root;
    let config = read_config(root)?;
    let raises_cap = config.analysis.max_file_bytes > wit_core::config::DEFAULT_MAX_FILE_BYTES;
    if !config.needs_trust()
        && config.store.url.is_none()
        && config.store.project.is_none()
        && !raises_cap
    {
        if ctx.json {
            print_json(&json!({"trusted": false, "reason": NOTHING_TO_TRUST}));
        } else {
            println!(
                "{} names {NOTHING_TO_TRUST}: nothing to trust.",
                root.join(FILE_NAME).display()
            );
        }
        return Ok(());
    }
    let mut store = TrustStore::load().map_err(Failure::other)?;
    let plan = store.plan(root, &config).map_err(|e| match e {
        TrustError::Refused { refusals } => Failure::other(format!(
            "{}\nNot trusted (nothing was changed): fix these files, then run `wit trust` again",
            refusals
                .iter()
                .map(|(path, why)| format!("cannot trust {}: {why}", path.display()))
                .collect::<Vec<_>>()
                .join("\n")
        )),
        e => Failure::other(e),
    })?;
    // The list goes to stderr under --json, so stdout stays one JSON document.
    // File names come from wit.toml: escaped, so that a library named
    // "evil.so\r  libgood.so" shows as what it is.
    let listing =
        wit_core::text::escape_keep_newlines(&describe(&plan, &config, store.path())).into_owned();
    if ctx.json {
        eprint!("{listing}");
    } else {
        print!("{listing}");
    }
    if !yes {
        if !std::io::stdin().is_terminal() {
            return Err(Failure::Usage(
                "not trusting without confirmation: stdin is not a terminal. Review the list above, then run `wit trust --yes`".into(),
            ));
        }
        if !confirm()? {
            return Err(Failure::other("not trusted (nothing was changed)"));
        }
    }
    store.grant(&plan).map_err(Failure::other)?;
    let restarted = restart_if_running(ctx).await?;
    if ctx.json {
        print_json(&json!({
            "trusted": true,
            "root": plan.root.display().to_string(),
            "files": plan.files.iter().map(|f| json!({
                "path": f.path.display().to_string(),
                "sha256": f.sha256,
                "size": f.size,
                "warnings": f.warnings,
                "systemLibraries": f.system_libraries.iter().map(|l| json!({"name": l.name, "path": l.path.display().to_string(), "pinned": false})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "store": store.path().display().to_string(),
            "daemonRestarted": restarted.is_some(),
            "analyzers": restarted,
        }));
    } else {
        println!("Trusted. The plugins (and a [store] url) take effect when the daemon starts.");
        match &restarted {
            Some(list) => {
                println!("Restarted the running daemon:");
                print!("{}", analyzers::render(list, &ctx.style));
            }
            None => println!("(No daemon is running; the next wit command starts one.)"),
        }
    }
    Ok(())
}

/// `wit untrust`.
pub async fn untrust(ctx: &Ctx) -> CmdResult {
    let mut store = TrustStore::load().map_err(Failure::other)?;
    let removed = store.revoke(&ctx.repo.root).map_err(Failure::other)?;
    let restarted = if removed {
        restart_if_running(ctx).await?.is_some()
    } else {
        false
    };
    if ctx.json {
        print_json(&json!({"revoked": removed, "daemonRestarted": restarted}));
    } else if removed {
        println!(
            "No longer trusted: the plugins of {} will not load.{}",
            ctx.repo.root.display(),
            if restarted {
                " Restarted the running daemon without them."
            } else {
                ""
            }
        );
    } else {
        println!("{} was not trusted.", ctx.repo.root.display());
    }
    Ok(())
}

/// `wit.toml`, read through the file-system boundary (beneath the root, regular, 1 MiB).
fn read_config(root: &Path) -> CmdResult<Config> {
    let path = root.join(FILE_NAME);
    match wit_boundary::read_repo_file(root, FILE_NAME, MAX_WIT_TOML_SIZE) {
        Ok(bytes) => {
            let text = String::from_utf8(bytes).map_err(|_| {
                Failure::other(format!("cannot read {}: not UTF-8", path.display()))
            })?;
            Config::parse(&text, &path).map_err(|e| Failure::other(e.to_string()))
        }
        Err(e) if e.is_not_found() => Ok(Config::default()),
        Err(e) => Err(Failure::other(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

fn describe(plan: &TrustPlan, config: &Config, store: &Path) -> String {
    let mut out = String::new();
    if let Some(url) = &config.store.url {
        out.push_str(&format!(
            "Trusting {} lets its wit daemons keep this repository's locks, intents, contracts \
             and staged signatures in the PostgreSQL store {} (wit.toml [store] url).\n",
            plan.root.display(),
            wit_daemon::shown_store_url(url)
        ));
    }
    if let Some(project) = &config.store.project {
        out.push_str(&format!(
            "Trusting {} lets its wit daemons share this repository's coordination state \
             (locks, intents, contracts, events) with every checkout of the store project \
             {:?} in the PostgreSQL store they use (wit.toml [store] project).\n",
            plan.root.display(),
            project
        ));
    }
    if config.analysis.max_file_bytes > wit_core::config::DEFAULT_MAX_FILE_BYTES {
        out.push_str(&format!(
            "Trusting {} lets its wit daemons read source files of up to {} bytes (wit.toml \
             [analysis] max_file_bytes; the default is {}, the ceiling {}).\n",
            plan.root.display(),
            config.analysis.max_file_bytes,
            wit_core::config::DEFAULT_MAX_FILE_BYTES,
            wit_daemon::MAX_FILE_BYTES_CEILING
        ));
    }
    let what = if config.languages.is_empty() {
        "load and run these libraries"
    } else {
        "load and run these libraries (plugins and grammars) and analyse with these query files"
    };
    out.push_str(&format!(
        "Trusting {} lets the wit daemon {what}. Pinned: exactly these \
         bytes (SHA-256 and size; the daemon loads the bytes it hashed, and any change makes \
         the trust stale):\n",
        plan.root.display()
    ));
    for f in &plan.files {
        match &f.sha256 {
            Some(hash) => {
                out.push_str(&format!(
                    "  {}  sha256:{hash}  ({} bytes)\n",
                    f.path.display(),
                    f.size.unwrap_or(0)
                ));
                if !f.system_libraries.is_empty() {
                    out.push_str(&format!(
                        "    depends on, not pinned (system libraries): {}\n",
                        f.system_libraries
                            .iter()
                            .map(|l| format!("{} ({})", l.name, l.path.display()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                for warning in &f.warnings {
                    out.push_str(&format!("    warning: {warning}\n"));
                }
            }
            None => out.push_str(&format!(
                "  {}  missing (not built?): it will not load, and once it exists run `wit trust` again\n",
                f.path.display()
            )),
        }
    }
    out.push_str(&format!("The grant is stored in {}.\n", store.display()));
    out
}

fn confirm() -> CmdResult<bool> {
    eprint!("Trust these files? [y/N] ");
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes"))
}

/// Restarts the daemon when one is running; returns what it loaded then.
async fn restart_if_running(ctx: &Ctx) -> CmdResult<Option<AnalyzerList>> {
    if daemon::stop(&ctx.repo).await?.is_none() {
        return Ok(None);
    }
    let (mut client, _) = autostart::ensure_running(&ctx.repo).await?;
    let mut list: AnalyzerList =
        call(&mut client, "analyzers.list", json!({}), "analyzers").await?;
    analyzers::add_warnings(&mut list);
    Ok(Some(list))
}
