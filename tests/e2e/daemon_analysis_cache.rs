//! The analysis cache never serves what a file no longer says: edits between two calls are
//! seen by the next call, whatever the method, and staged content never mixes with disk.

use serde_json::json;

use crate::support::client::Client;
use crate::support::daemon::Daemon;
use crate::support::repo::TempRepo;

const V1: &str = "export function greet(name: string): string {\n  return helper(name);\n}\n\nfunction helper(x: string): string {\n  return x;\n}\n";

#[test]
fn an_edit_between_two_calls_is_seen_by_the_next_call() {
    let repo = TempRepo::new().with_file("src/a.ts", V1);
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let params =
        |symbol: &str| json!({"sessionId": "s1", "symbolPath": format!("src/a.ts:{symbol}")});
    let propose = |c: &mut Client, symbol: &str| c.ok("contract.propose", params(symbol));
    let missing = |c: &mut Client, symbol: &str| {
        c.err("contract.propose", params(symbol))["message"] == "SYMBOL_NOT_FOUND"
    };

    let r = propose(&mut c, "greet");
    assert_eq!(r["signature"], "(name: string): string");
    assert!(missing(&mut c, "farewell"), "not defined yet");

    // Same length, one parameter renamed: only the content tells the versions apart.
    let v2 = V1.replace("greet(name: string)", "greet(nome: string)");
    assert_eq!(v2.len(), V1.len());
    std::fs::write(repo.path().join("src/a.ts"), &v2).unwrap();
    let r = propose(&mut c, "greet");
    assert_eq!(r["signature"], "(nome: string): string");

    // A new function in the middle: it is found, and ranges after it moved.
    let v3 = v2.replace(
        "\nfunction helper",
        "\nexport function farewell(n: number): void {\n  helper(String(n));\n}\n\nfunction helper",
    );
    std::fs::write(repo.path().join("src/a.ts"), &v3).unwrap();
    let r = propose(&mut c, "farewell");
    assert_eq!(r["signature"], "(n: number): void");
    let declared = c.ok(
        "intent.declare",
        json!({"sessionId": "s1", "description": "d", "files": ["src/a.ts"], "symbols": ["helper"]}),
    );
    let id = declared["intentId"].as_str().unwrap().to_owned();
    let intents = c.ok("intent.query", json!({"sessionId": "s1"}));
    let rec = intents
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["intentId"] == id.as_str())
        .unwrap();
    let helper_at = v3.find("function helper").unwrap();
    assert_eq!(rec["startByte"], json!(helper_at));

    // Removed again: gone.
    std::fs::write(repo.path().join("src/a.ts"), V1).unwrap();
    assert!(missing(&mut c, "farewell"), "farewell was removed");
}

#[test]
fn staged_content_is_checked_as_given_even_when_the_disk_was_analysed() {
    let repo = TempRepo::new().with_file("src/a.ts", V1);
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let r = c.ok(
        "contract.propose",
        json!({"sessionId": "s1", "symbolPath": "src/a.ts:greet"}),
    );
    let id = r["contractId"].as_str().unwrap().to_owned();
    c.ok(
        "contract.respond",
        json!({"contractId": id, "sessionId": "s2", "accept": true}),
    );
    let check = |c: &mut Client, content: &str| {
        c.ok(
            "check-contracts",
            json!({"files": [{"path": "src/a.ts", "content": content}]}),
        )["violations"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(check(&mut c, V1), 0);
    let changed = V1.replace("greet(name: string)", "greet(name: number)");
    assert_eq!(check(&mut c, &changed), 1);
    // The disk still says V1, and a staged V1 is clean again.
    assert_eq!(check(&mut c, V1), 0);
    let r = c.ok(
        "contract.propose",
        json!({"sessionId": "s1", "symbolPath": "src/a.ts:greet"}),
    );
    assert_eq!(r["signature"], "(name: string): string");
}
