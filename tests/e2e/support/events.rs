//! Reading an `events.poll` answer (or `wit_events`, MCP's view of it).

use serde_json::Value;

/// The `kind` of each event in `answer["events"]`, in order.
pub fn kinds(answer: &Value) -> Vec<String> {
    each(answer, |e| e["kind"].as_str().map(str::to_owned))
}

/// The `seq` of each event in `answer["events"]`, in order.
pub fn seqs(answer: &Value) -> Vec<i64> {
    each(answer, |e| e["seq"].as_i64())
}

fn each<T>(answer: &Value, field: impl Fn(&Value) -> Option<T>) -> Vec<T> {
    answer["events"]
        .as_array()
        .unwrap_or_else(|| panic!("no events array: {answer}"))
        .iter()
        .map(|e| field(e).unwrap_or_else(|| panic!("an event without that field: {e}")))
        .collect()
}
