//! `wit lock` and `wit release`.

use serde_json::json;
use wit_core::protocol::{LockAcquired, LockRecord};

use crate::args::{LockArgs, ReleaseArgs};
use crate::client::Client;
use crate::context::{Ctx, call};
use crate::exit::{CmdResult, Failure};
use crate::output::{print_json, shown, until};

/// The symbol paths of the command line, repo-relative (files are relative to the current
/// directory), without duplicates.
fn symbol_paths(
    ctx: &Ctx,
    positional: Vec<String>,
    flagged: Vec<String>,
) -> CmdResult<Vec<String>> {
    let mut paths: Vec<String> = Vec::new();
    for p in positional.into_iter().chain(flagged) {
        let p = ctx.repo.symbol_path(&p)?;
        if !paths.contains(&p) {
            paths.push(p);
        }
    }
    if paths.is_empty() {
        return Err(Failure::Usage(
            "name at least one symbol path (file:name)".into(),
        ));
    }
    Ok(paths)
}

/// The symbol paths `session_id` holds locks on.
async fn held_by(client: &mut Client, session_id: &str) -> CmdResult<Vec<String>> {
    let mine: Vec<LockRecord> = call(
        client,
        "lock.query",
        json!({"sessionId": session_id}),
        "locks",
    )
    .await?;
    Ok(mine.into_iter().map(|l| l.symbol_path).collect())
}

/// `wit lock`: all or nothing. On a conflict, the locks this call took are released again
/// (locks the session already held stay, refreshed), so a failed `wit lock A B` never
/// leaves the session holding half of what it asked for.
pub async fn lock(ctx: &Ctx, a: LockArgs) -> CmdResult {
    let paths = symbol_paths(ctx, a.symbols, a.symbol)?;
    let session = ctx.session()?;
    session.warn_if_shared();
    let mut client = ctx.client().await?;
    if !a.allow_missing {
        super::graph::require_existing(&mut client, &paths).await?;
    }
    let held_before: Vec<String> = if paths.len() > 1 {
        held_by(&mut client, &session.id).await?
    } else {
        Vec::new()
    };
    let mut acquired: Vec<LockAcquired> = Vec::new();
    // The answers as sent: `--json` prints them whole, extension fields included.
    let mut answers: Vec<serde_json::Value> = Vec::new();
    for p in &paths {
        let mut params = json!({"symbolPath": p, "sessionId": session.id});
        if let Some(ttl) = a.ttl {
            params["ttlMs"] = json!(ttl);
        }
        if let Some(wait) = a.wait {
            params["waitMs"] = json!(wait);
            // The answer may take the whole wait.
            client.set_timeout(
                std::time::Duration::from_millis(wait) + crate::autostart::CALL_TIMEOUT,
            );
        }
        let answer = call::<serde_json::Value>(&mut client, "lock.acquire", params, p)
            .await
            .and_then(|v| {
                let r: LockAcquired = serde_json::from_value(v.clone()).map_err(|e| {
                    Failure::other(format!("the daemon's lock.acquire answer: {e}"))
                })?;
                Ok((r, v))
            });
        match answer {
            Ok((r, v)) => {
                acquired.push(r);
                answers.push(v);
            }
            Err(failure) => {
                for r in &acquired {
                    if !held_before.contains(&r.symbol_path) {
                        let _ = client
                            .call_value(
                                "lock.release",
                                json!({"symbolPath": r.symbol_path, "sessionId": session.id}),
                            )
                            .await;
                    }
                }
                if !acquired.is_empty() && !ctx.json {
                    eprintln!(
                        "wit: nothing locked: {} of {} could not be taken",
                        shown(p),
                        paths.len()
                    );
                }
                return Err(failure);
            }
        }
    }
    if ctx.json {
        if answers.len() == 1 {
            print_json(&answers[0]);
        } else {
            print_json(&json!({"locks": answers}));
        }
        return Ok(());
    }
    for (r, raw) in acquired.iter().zip(&answers) {
        println!(
            "Locked {} {}.",
            ctx.style.bold(&r.symbol_path),
            until(&r.expires_at)
        );
        for w in &r.warnings {
            println!(
                "  {} {} calls it and is locked by {}; changes here may break their work, coordinate with {}",
                ctx.style.yellow("warning:"),
                shown(&w.locked_symbol),
                shown(&w.held_by),
                shown(&w.held_by)
            );
        }
        // Guesses by name only (an extension): said as such, apart from the warnings.
        for w in raw["nameOnlyWarnings"].as_array().into_iter().flatten() {
            let text = |k: &str| shown(w[k].as_str().unwrap_or("?")).into_owned();
            println!(
                "  {} {} may call it (a call of that name the code graph could not link) and is locked by {}",
                ctx.style.yellow("maybe:  "),
                text("lockedSymbol"),
                text("heldBy")
            );
        }
    }
    println!(
        "Re-read the file before editing it; release with: wit release {}",
        shown(&paths.join(" "))
    );
    Ok(())
}

/// `wit release`: each path in turn; the first failure decides the exit code, the others
/// are still released.
pub async fn release(ctx: &Ctx, a: ReleaseArgs) -> CmdResult {
    let session = ctx.session()?;
    let mut client = ctx.client().await?;
    let paths = if a.all {
        held_by(&mut client, &session.id).await?
    } else {
        symbol_paths(ctx, a.symbols, a.symbol)?
    };
    let mut released = Vec::new();
    let mut first_failure = None;
    for p in &paths {
        let r: CmdResult<serde_json::Value> = call(
            &mut client,
            "lock.release",
            json!({"symbolPath": p, "sessionId": session.id}),
            p,
        )
        .await;
        match r {
            Ok(_) => released.push(p.clone()),
            Err(f) => {
                if !ctx.json {
                    eprintln!("wit: {}", f.human());
                }
                first_failure.get_or_insert(f);
            }
        }
    }
    if let Some(f) = first_failure {
        if ctx.json && !released.is_empty() {
            let mut doc = f.json();
            doc["released"] = json!(released);
            print_json(&doc);
            return Err(Failure::Reported(Box::new(f)));
        }
        if !ctx.json {
            for p in &released {
                println!("Released {}.", shown(p));
            }
            return Err(Failure::Reported(Box::new(f)));
        }
        return Err(f);
    }
    if ctx.json {
        print_json(&json!({"released": released}));
    } else if released.is_empty() {
        println!("No locks to release.");
    } else {
        for p in &released {
            println!("Released {}.", ctx.style.bold(p));
        }
    }
    Ok(())
}
