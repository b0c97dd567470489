//! Claims as the tests compare them.

use serde_json::Value;

/// `session symbolPath change` of each claim of a `claims.query` answer (or `wit claims
/// --json`), sorted; `(unattributed)` where no session made it.
pub fn claim_lines(answer: &Value) -> Vec<String> {
    let mut out: Vec<String> = answer["claims"]
        .as_array()
        .expect("claims")
        .iter()
        .map(|c| {
            format!(
                "{} {} {}",
                c["sessionId"].as_str().unwrap_or("(unattributed)"),
                c["symbolPath"].as_str().unwrap(),
                c["change"].as_str().unwrap()
            )
        })
        .collect();
    out.sort();
    out
}
