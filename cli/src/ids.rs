//! Short ids: any unique prefix of an intent or contract id, as git takes for commits.
//!
//! A full id goes to the daemon unchanged. A shorter one is matched (case-insensitively)
//! against the ids the daemon lists; exactly one match is used, several are a usage error
//! naming them, and none goes to the daemon as typed, so the usual `INTENT_NOT_FOUND` /
//! `CONTRACT_NOT_FOUND` answer (exit 3) comes back.

use serde_json::json;
use wit_core::protocol::{ContractRecord, IntentRecord};

use crate::client::Client;
use crate::context::call;
use crate::exit::{CmdResult, Failure};
use crate::output::shown;

/// Length of a full UUID.
const FULL_ID_LEN: usize = 36;
/// Shortest prefix looked up. One character is enough when it is unique: an ambiguous
/// prefix is always refused, never guessed.
const MIN_PREFIX_LEN: usize = 1;

/// The full id of the contract `prefix` names.
pub async fn contract(client: &mut Client, prefix: &str) -> CmdResult<String> {
    if is_full_or_too_short(prefix) {
        return Ok(prefix.to_owned());
    }
    let all: Vec<ContractRecord> = call(client, "contract.query", json!({}), "contracts").await?;
    pick(
        "contract",
        prefix,
        all.iter().map(|c| {
            (
                c.contract_id.as_str(),
                format!("{} ({})", c.symbol_path, c.status.as_str()),
            )
        }),
    )
}

/// The full id of the intent `prefix` names (among intents of every status).
pub async fn intent(client: &mut Client, prefix: &str) -> CmdResult<String> {
    if is_full_or_too_short(prefix) {
        return Ok(prefix.to_owned());
    }
    let mut all: Vec<IntentRecord> = Vec::new();
    for status in ["declared", "active", "resolved", "abandoned"] {
        let mut got: Vec<IntentRecord> =
            call(client, "intent.query", json!({"status": status}), "intents").await?;
        all.append(&mut got);
    }
    pick(
        "intent",
        prefix,
        all.iter().map(|i| {
            (
                i.intent_id.as_str(),
                format!(
                    "{} by {}: {}",
                    i.status.as_str(),
                    i.session_id,
                    i.description
                ),
            )
        }),
    )
}

fn is_full_or_too_short(prefix: &str) -> bool {
    prefix.len() >= FULL_ID_LEN || prefix.len() < MIN_PREFIX_LEN
}

/// The one candidate id starting with `prefix`, or `prefix` itself when none does.
fn pick<'a>(
    kind: &str,
    prefix: &str,
    candidates: impl Iterator<Item = (&'a str, String)>,
) -> CmdResult<String> {
    let want = prefix.to_ascii_lowercase();
    let matches: Vec<(&str, String)> = candidates
        .filter(|(id, _)| id.to_ascii_lowercase().starts_with(&want))
        .collect();
    match matches.as_slice() {
        [] => Ok(prefix.to_owned()),
        [(id, _)] => Ok((*id).to_owned()),
        many => {
            let list: Vec<String> = many
                .iter()
                .take(5)
                .map(|(id, label)| format!("  {id}  {}", shown(label)))
                .collect();
            Err(Failure::Usage(format!(
                "{kind} id prefix {} is ambiguous: {} {kind}s start with it; give more \
                 characters:\n{}{}",
                shown(prefix),
                many.len(),
                list.join("\n"),
                if many.len() > 5 { "\n  …" } else { "" }
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unique_prefix_resolves_an_ambiguous_one_is_refused_and_none_passes_through() {
        let ids = [
            ("f04db275-0000-4000-8000-000000000001", "a".to_owned()),
            ("f04dc000-0000-4000-8000-000000000002", "b".to_owned()),
        ];
        let c = || ids.iter().map(|(i, l)| (*i, l.clone()));
        assert_eq!(
            pick("contract", "F04DB", c()).unwrap(),
            "f04db275-0000-4000-8000-000000000001"
        );
        let e = pick("contract", "f04d", c()).unwrap_err();
        assert!(
            matches!(&e, Failure::Usage(m) if m.contains("ambiguous")),
            "{e:?}"
        );
        assert_eq!(pick("contract", "abcd", c()).unwrap(), "abcd");
        assert!(is_full_or_too_short(""));
        assert!(is_full_or_too_short(ids[0].0));
    }
}
