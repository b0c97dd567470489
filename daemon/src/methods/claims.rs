//! `claims.check`, `claims.record`, `claims.query` and `claims.end` (extensions):
//! the protection of agents sharing one checkout (see `crate::claims`), as the edit-time
//! guard and the people watching use it.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use wit_forecast::claims::{Claim, Hit};

use super::{Failure, validated};
use crate::params::Params;
use crate::state::AppState;
use crate::store::claims as rows;

/// Most files one `claims.check` or `claims.record` carries (a Codex patch may touch
/// many; the guard of Claude Code or Gemini CLI sends one).
pub(crate) const MAX_FILES: usize = 256;

/// A claim as the extensions answer it.
pub(crate) fn claim_json(checkout: &str, c: &Claim) -> Value {
    json!({
        "checkout": checkout,
        "file": c.file,
        "symbolPath": c.symbol_path(),
        "name": c.change.name,
        "kind": c.change.kind,
        "sessionId": (!c.session.is_empty()).then_some(&c.session),
        "change": c.change.change.as_str(),
        "before": c.change.before,
        "after": c.change.after,
        "line": c.change.line,
        "since": c.since,
        "editedAt": c.edited_at,
        "diff": c.diff,
        "calls": c.change.calls,
    })
}

fn hit_json(checkout: &str, h: &Hit) -> Value {
    let mut v = claim_json(checkout, &h.claim);
    v["undoes"] = json!(h.undoes);
    v["edit"] = json!({
        "name": h.touch.name,
        "line": h.touch.line,
        "removes": h.touch.after == wit_forecast::claims::ABSENT,
        "adds": h.touch.before == wit_forecast::claims::ABSENT,
        "signatureBefore": h.touch.signature_before,
        "signatureAfter": h.touch.signature_after,
    });
    v
}

/// `claims.check {sessionId, files: [{file, content}]}` → `{files: [{file, hits,
/// collisions}]}`: for each file an edit by `sessionId` would leave with `content`
/// (`null`: the edit deletes it), the other sessions' claims it runs into (`undoes`: it
/// writes back a version that session had changed, a lost update) and the
/// signature-vs-callers and member-vs-uses collisions it would make with their claimed
/// changes. Read-only,
/// but remembers the edit as expected, so that the file watcher credits the write to
/// the session.
pub(crate) async fn check(
    state: Arc<AppState>,
    params: Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(&params);
    let session = p.req_str("sessionId");
    let files = p.file_edits("files", MAX_FILES);
    p.finish()?;
    let (session, files) = (validated(session)?, validated(files)?);
    let checkout = state.worktree_name();
    tokio::task::spawn_blocking(move || {
        let mut out = Vec::new();
        let mut expected = Vec::new();
        for edit in files {
            let found = state.claims.check(
                &*state,
                &session,
                &edit.path,
                edit.content.as_deref(),
                edit.edits.as_deref(),
            )?;
            out.push(json!({
                "file": edit.path,
                "hits": found.hits.iter().map(|h| hit_json(&checkout, h)).collect::<Vec<_>>(),
                "collisions": found.collisions,
            }));
            if let Some(content) = edit.content {
                expected.push((edit.path, content));
            }
        }
        // Most checked edits are made at once: the edited content is analysed now, while
        // the agent writes it, so that the watcher's re-read and the post-edit hook find
        // the analysis made (after the answer, at a lower priority: the agent does not
        // wait for it, see `crate::prepare`).
        for (rel, content) in expected {
            state.prepare.later(rel, content);
        }
        Ok(json!({ "files": out }))
    })
    .await
    .map_err(Failure::from_join)?
}

/// `claims.record {sessionId, files: [path]}` → `{claims, appeared, updated, cleared}`:
/// the post-edit hook's report that `sessionId` has just edited these files; each is
/// compared with HEAD and the definitions the edit changed become the session's claims.
/// `claims` lists the session's claims in those files afterwards.
pub(crate) async fn record(
    state: Arc<AppState>,
    params: Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(&params);
    let session = p.req_str("sessionId");
    let files = p.file_array("files");
    p.finish()?;
    let (session, files) = (validated(session)?, validated(files)?);
    if files.len() > MAX_FILES {
        return Err(Failure(crate::params::invalid_request(
            Vec::new(),
            std::collections::BTreeMap::from([(
                "files".to_owned(),
                vec![format!("must have at most {MAX_FILES} items")],
            )]),
        )));
    }
    let st = state.clone();
    let (session2, files2) = (session.clone(), files.clone());
    let changed = tokio::task::spawn_blocking(move || {
        let mut total = rows::Changed::default();
        for rel in &files2 {
            let c = st
                .claims
                .observe(&*st, rel, crate::claims::Source::Hook(&session2))?;
            total.appeared += c.appeared;
            total.updated += c.updated;
            total.cleared += c.cleared;
        }
        Ok::<_, Failure>(total)
    })
    .await
    .map_err(Failure::from_join)??;
    let checkout = state.worktree_name();
    let claims = state
        .read(move |db| {
            let mut out = Vec::new();
            for f in &files {
                out.extend(
                    rows::of_file(db, &checkout, f)?
                        .into_iter()
                        .filter(|c| c.by(&session))
                        .map(|c| claim_json(&checkout, &c)),
                );
            }
            Ok(out)
        })
        .await?;
    Ok(json!({
        "claims": claims,
        "appeared": changed.appeared,
        "updated": changed.updated,
        "cleared": changed.cleared,
    }))
}

/// `claims.query {sessionId?, file?, checkout?}` → `{claims}`: the standing claims of
/// every checkout sharing this state (`checkout`: one checkout's path, directory name),
/// narrowed to a session (`""`: the unattributed ones) or a file; by checkout, file,
/// definition, session.
pub(crate) async fn query(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let session = p.opt_str("sessionId");
    let file = p.opt_file("file");
    let checkout = p.opt_str("checkout");
    p.finish()?;
    let all = state.read(|db| Ok(rows::all(db)?)).await?;
    let claims: Vec<Value> = all
        .iter()
        .filter(|r| session.as_ref().is_none_or(|s| r.claim.session == *s))
        .filter(|r| file.as_ref().is_none_or(|f| r.claim.file == *f))
        .filter(|r| {
            checkout
                .as_ref()
                .is_none_or(|q| r.checkout == *q || wit_forecast::short(&r.checkout) == q)
        })
        .map(|r| claim_json(&r.checkout, &r.claim))
        .collect();
    Ok(json!({ "claims": claims }))
}

/// `claims.end {sessionId, handOverTo?}` → `{ended}`: ends every claim of `sessionId`
/// (its session ended, but `[guard] release_on_session_end = false` keeps its locks), or
/// with `handOverTo` makes them that session's (a subagent's work handed to the session
/// that started it: Claude Code's `SubagentStop`). `session.end` ends a session's claims
/// too.
pub(crate) async fn end(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let session = p.req_str("sessionId");
    let to = p.opt_str("handOverTo").filter(|t| !t.is_empty());
    p.finish()?;
    let session = validated(session)?;
    if to.as_deref() == Some(session.as_str()) {
        return Ok(json!({ "ended": 0 }));
    }
    let n = state
        .write(move |db| {
            Ok(match &to {
                Some(to) => rows::hand_over(db, &session, to)?,
                None => rows::end_session(db, &session, "its session ended")?,
            })
        })
        .await?;
    Ok(json!({ "ended": n }))
}
