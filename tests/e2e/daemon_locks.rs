//! `register` and `lock.*`: shapes, errors, TTL expiry and takeover, caller warnings,
//! the 64-client race.

use std::sync::{Arc, Barrier};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::daemon::{Daemon, wait_until};
use crate::support::repo::{AUTH_TS, TempRepo};

/// Parses `2024-01-15T10:30:00.000Z` to Unix ms, asserting the exact format.
pub fn iso_ms(v: &Value) -> i64 {
    let s = v.as_str().unwrap_or_else(|| panic!("not a string: {v}"));
    let b = s.as_bytes();
    assert!(
        b.len() == 24 && b[4] == b'-' && b[10] == b'T' && b[19] == b'.' && b[23] == b'Z',
        "not ISO 8601 UTC with milliseconds: {s}"
    );
    wit_core::protocol::parse_iso8601_millis(s).unwrap_or_else(|| panic!("bad timestamp {s}"))
}

fn repo() -> TempRepo {
    TempRepo::new().with_file("src/auth.ts", AUTH_TS)
}

#[test]
fn register_returns_an_agent_id_and_reregistering_keeps_it() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let a = c.ok("register", json!({"name": "alpha", "sessionId": "s-a"}));
    let b = c.ok("register", json!({"name": "beta", "sessionId": "s-b"}));
    assert!(a["agentId"].is_i64() && b["agentId"].is_i64());
    assert_ne!(a["agentId"], b["agentId"]);
    let again = c.ok("register", json!({"name": "alpha-2", "sessionId": "s-a"}));
    assert_eq!(again, a);
}

#[test]
fn acquire_returns_the_lock_with_the_default_ttl() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let r = d.client().ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:decode", "sessionId": "s1"}),
    );
    assert_eq!(r["symbolPath"], "src/auth.ts:decode");
    assert_eq!(r["sessionId"], "s1");
    assert_eq!(
        iso_ms(&r["expiresAt"]) - iso_ms(&r["acquiredAt"]),
        1_800_000
    );
    assert_eq!(r["warnings"], json!([]));
    let keys: Vec<&String> = r.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 5, "{r}");
}

#[test]
fn conflict_refresh_release_and_query() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let path = "src/auth.ts:decode";
    let first = c.ok(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": "s1", "ttlMs": 600_000}),
    );
    assert_eq!(
        iso_ms(&first["expiresAt"]) - iso_ms(&first["acquiredAt"]),
        600_000
    );

    let err = c.err(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": "s2"}),
    );
    assert_eq!(err["code"], -32000);
    assert_eq!(err["message"], "LOCK_CONFLICT");
    assert_eq!(
        err["data"],
        json!({"heldBy": "s1", "expiresAt": first["expiresAt"]})
    );

    // The same session refreshes.
    let refreshed = c.ok(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": "s1", "ttlMs": 900_000}),
    );
    assert!(iso_ms(&refreshed["acquiredAt"]) >= iso_ms(&first["acquiredAt"]));
    assert_eq!(
        iso_ms(&refreshed["expiresAt"]) - iso_ms(&refreshed["acquiredAt"]),
        900_000
    );

    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:handler", "sessionId": "s2"}),
    );
    let all = c.ok("lock.query", json!({}));
    assert_eq!(all.as_array().unwrap().len(), 2);
    let mine = c.ok("lock.query", json!({"sessionId": "s1"}));
    let mine = mine.as_array().unwrap();
    assert_eq!(mine.len(), 1);
    let rec = &mine[0];
    assert_eq!(rec["symbolPath"], path);
    assert_eq!(rec["sessionId"], "s1");
    assert_eq!(rec["acquiredAt"], refreshed["acquiredAt"]);
    assert_eq!(rec["expiresAt"], refreshed["expiresAt"]);
    let remaining = rec["ttlRemainingMs"].as_i64().unwrap();
    assert!(remaining > 0 && remaining <= 900_000, "{rec}");
    assert_eq!(
        c.ok("lock.query", json!({"sessionId": "nobody"})),
        json!([])
    );

    let err = c.err(
        "lock.release",
        json!({"symbolPath": path, "sessionId": "s2"}),
    );
    assert_eq!(err["code"], -32000);
    assert_eq!(err["message"], "LOCK_NOT_HELD");
    assert_eq!(err["data"], json!({"heldBy": "s1"}));

    assert_eq!(
        c.ok(
            "lock.release",
            json!({"symbolPath": path, "sessionId": "s1"})
        ),
        json!({"released": true})
    );
    let err = c.err(
        "lock.release",
        json!({"symbolPath": path, "sessionId": "s1"}),
    );
    assert_eq!(err["code"], -32000);
    assert_eq!(err["message"], "LOCK_NOT_FOUND");
    let err = c.err(
        "lock.release",
        json!({"symbolPath": "never:locked", "sessionId": "s1"}),
    );
    assert_eq!(err["message"], "LOCK_NOT_FOUND");
    // After release another session can take it.
    c.ok(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": "s2"}),
    );
}

#[test]
fn expired_locks_are_absent_everywhere_and_can_be_taken_over() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let path = "src/auth.ts:decode";
    c.ok(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": "old", "ttlMs": 300}),
    );
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:persist", "sessionId": "old", "ttlMs": 300}),
    );
    wait_until("the locks to expire", Duration::from_secs(20), || {
        c.ok("lock.query", json!({})) == json!([])
    });
    // Release of an expired lock: not found.
    let err = c.err(
        "lock.release",
        json!({"symbolPath": "src/auth.ts:persist", "sessionId": "old"}),
    );
    assert_eq!(err["message"], "LOCK_NOT_FOUND");
    // No LOCK_INTERSECTION from an expired lock.
    let declared = c.ok(
        "intent.declare",
        json!({"sessionId": "new", "description": "d", "files": ["src/auth.ts"], "symbols": ["persist"]}),
    );
    assert_eq!(
        declared["conflicts"],
        json!({"hasConflicts": false, "items": []})
    );
    // Takeover by another session.
    let taken = c.ok(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": "new"}),
    );
    assert_eq!(taken["sessionId"], "new");
    let held = c.ok("lock.query", json!({}));
    assert_eq!(held.as_array().unwrap().len(), 1);
    assert_eq!(held[0]["sessionId"], "new");
}

#[test]
fn acquire_warns_about_callers_locked_by_other_sessions() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    // `handler` calls `validateToken`, which calls `decode`.
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:handler", "sessionId": "A"}),
    );
    let r = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:validateToken", "sessionId": "B"}),
    );
    assert_eq!(
        r["warnings"],
        json!([{
            "lockedSymbol": "src/auth.ts:handler",
            "heldBy": "A",
            "chain": ["src/auth.ts:handler", "src/auth.ts:validateToken"],
        }])
    );
    // A's own locked caller never warns A.
    let own = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:decode", "sessionId": "B"}),
    );
    assert_eq!(own["warnings"], json!([]));
    // A method calling a locked function: `Session.save` calls `persist`.
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:Session.save", "sessionId": "C"}),
    );
    let r = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:persist", "sessionId": "A"}),
    );
    assert_eq!(r["warnings"][0]["lockedSymbol"], "src/auth.ts:Session.save");
    assert_eq!(r["warnings"][0]["heldBy"], "C");
    // A file that does not exist gives a lock and no warnings.
    let r = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/missing.ts:f", "sessionId": "A"}),
    );
    assert_eq!(r["warnings"], json!([]));
}

#[test]
fn sixty_four_racing_clients_have_exactly_one_winner() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let n = 64;
    let barrier = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let mut client = d.client();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let session = format!("racer-{i}");
                barrier.wait();
                let resp = client.call(
                    "lock.acquire",
                    json!({"symbolPath": "src/auth.ts:validateToken", "sessionId": session}),
                );
                (session, resp)
            })
        })
        .collect();
    let results: Vec<(String, Value)> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let winners: Vec<&String> = results
        .iter()
        .filter(|(_, r)| r.get("result").is_some())
        .map(|(s, _)| s)
        .collect();
    assert_eq!(winners.len(), 1, "winners: {winners:?}");
    let winner = winners[0];
    for (session, resp) in &results {
        if session == winner {
            assert_eq!(resp["result"]["sessionId"], winner.as_str());
        } else {
            assert_eq!(resp["error"]["message"], "LOCK_CONFLICT", "{resp}");
            assert_eq!(resp["error"]["data"]["heldBy"], winner.as_str());
        }
    }
}

/// `sessions` clients at once, each on its own connection to `socket` and released
/// together (a barrier): `body(s, client, next)` for session `s`, `next` a xorshift
/// generator seeded with `seed ^ (s + 1)`; the results in session order.
fn sessions_at_once<T, F>(socket: &std::path::Path, sessions: usize, seed: u64, body: F) -> Vec<T>
where
    T: Send + 'static,
    F: Fn(usize, &mut crate::support::client::Client, &mut dyn FnMut() -> u64) -> T
        + Send
        + Sync
        + 'static,
{
    let body = Arc::new(body);
    let barrier = Arc::new(Barrier::new(sessions));
    let threads: Vec<_> = (0..sessions)
        .map(|s| {
            let (socket, barrier, body) = (socket.to_owned(), barrier.clone(), body.clone());
            std::thread::spawn(move || {
                let mut c = crate::support::client::Client::connect(&socket).unwrap();
                let mut next = xorshift(seed ^ (s as u64 + 1));
                barrier.wait();
                body(s, &mut c, &mut next)
            })
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

/// A xorshift generator from `seed`: the churn tests' choices, seeded per session and
/// round, are reproducible.
fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// One acknowledged operation of the churn test.
#[derive(Debug, Clone)]
struct Acked {
    session: usize,
    acquire: bool,
    ttl_ms: i64,
    ok: bool,
    /// Test-clock instants around the request, and the lock's expiry when acquired.
    sent: std::time::Instant,
    answered: std::time::Instant,
    expires_at: Option<i64>,
}

/// Sessions acquiring and releasing one symbol at once, by both of its names, long and
/// short TTLs mixed (short ones expire mid-run, so takeovers and releases of expired
/// locks race too), checked
/// against the acknowledged answers (issue 23): a lock taken with a long TTL is never
/// taken by another session between its acknowledgement and its holder's next request;
/// and the holder `lock.query` shows at the end is the session whose last acknowledged
/// success was that very acquisition (same expiry), while a session whose last success
/// was a long acquisition still holds. Several rounds, on both stores (the daemon suite).
#[test]
fn concurrent_churn_on_one_symbol_ends_as_the_acknowledged_answers_say() {
    const SESSIONS: usize = 6;
    const OPS: usize = 40;
    const LONG: i64 = 600_000;
    let repo = TempRepo::new().with_file("src/auth.ts", AUTH_TS);
    let d = Daemon::start(repo.path());
    // One method, by both of its names: the bare one and the qualified one.
    let spellings = ["src/auth.ts:save", "src/auth.ts:Session.save"];
    for round in 0..6u64 {
        let seed = 0x9E37_79B9_7F4A_7C15u64 ^ (round << 8);
        let history: Vec<Vec<Acked>> = sessions_at_once(
            d.socket(),
            SESSIONS,
            seed,
            move |s, c, next| {
                let session = format!("churn-{s}");
                (0..OPS)
                        .map(|_| {
                            let r = next();
                            let acquire = !r.is_multiple_of(3);
                            let ttl_ms = if r.is_multiple_of(3) { 5 + (r >> 8) as i64 % 60 } else { LONG };
                            let symbol = spellings[(r >> 20) as usize % 2];
                            let sent = std::time::Instant::now();
                            let answer = if acquire {
                                c.call(
                                    "lock.acquire",
                                    json!({"symbolPath": symbol, "sessionId": session, "ttlMs": ttl_ms}),
                                )
                            } else {
                                c.call(
                                    "lock.release",
                                    json!({"symbolPath": symbol, "sessionId": session}),
                                )
                            };
                            let answered = std::time::Instant::now();
                            let ok = answer.get("error").is_none();
                            let expires_at = (acquire && ok).then(|| iso_ms(&answer["result"]["expiresAt"]));
                            Acked { session: s, acquire, ttl_ms, ok, sent, answered, expires_at }
                        })
                        .collect::<Vec<Acked>>()
            },
        );

        // Mutual exclusion: a long acquisition of one session, then (strictly after its
        // answer and before that session's next release was sent) a successful
        // acquisition of another is impossible.
        for ops in &history {
            for (i, held) in ops.iter().enumerate() {
                if !(held.acquire && held.ok && held.ttl_ms == LONG) {
                    continue;
                }
                // Held until the session's next request (a release, or a refresh that may
                // shorten the TTL) was sent.
                let released = ops.get(i + 1).map(|o| o.sent);
                for other in history.iter().flatten() {
                    if other.session == held.session || !(other.acquire && other.ok) {
                        continue;
                    }
                    let inside =
                        other.sent > held.answered && released.is_none_or(|r| other.answered < r);
                    assert!(
                        !inside,
                        "round {round}: session {} acquired while session {} held it: {other:?} inside {held:?}",
                        other.session, held.session
                    );
                }
            }
        }

        // The end state.
        let mut c = d.client();
        let shown = c.ok("lock.query", json!({}));
        let holder = shown
            .as_array()
            .unwrap()
            .iter()
            .find(|l| spellings.iter().any(|s| l["symbolPath"] == *s));
        let last_success = |s: usize| history[s].iter().rev().find(|o| o.ok);
        match holder {
            Some(l) => {
                let who: usize = l["sessionId"].as_str().unwrap()["churn-".len()..]
                    .parse()
                    .unwrap();
                let last = last_success(who)
                    .unwrap_or_else(|| panic!("round {round}: {l} holds with no success"));
                assert!(
                    last.acquire && last.expires_at == Some(iso_ms(&l["expiresAt"])),
                    "round {round}: {l} is not session {who}'s last acknowledged acquisition {last:?}"
                );
            }
            None => {
                for s in 0..SESSIONS {
                    if let Some(last) = last_success(s) {
                        assert!(
                            !(last.acquire && last.ttl_ms == LONG),
                            "round {round}: session {s}'s last success was a long acquisition, yet nobody holds the lock: {last:?}"
                        );
                    }
                }
            }
        }
        // Other sessions' last long acquisitions cannot coexist with the holder.
        let long_holders: Vec<usize> = (0..SESSIONS)
            .filter(|s| last_success(*s).is_some_and(|o| o.acquire && o.ttl_ms == LONG))
            .collect();
        assert!(
            long_holders.len() <= 1,
            "round {round}: {long_holders:?} all hold it"
        );
        // The next round starts from a free lock: ending a session releases its locks.
        for s in 0..SESSIONS {
            c.ok("session.end", json!({"sessionId": format!("churn-{s}")}));
        }
        assert_eq!(c.ok("lock.query", json!({})), json!([]), "round {round}");
    }
}

/// One request of [`churn_with_waiters_hang_ups_renewals_and_ends_replays_as_answered`].
#[derive(Debug)]
struct Asked {
    method: &'static str,
    /// Index of the symbol in the round's list.
    symbol: usize,
    ttl_ms: i64,
    /// The client hung up before the answer: it may or may not have taken effect, at any
    /// time after it was sent (the daemon may not have noticed yet).
    hung_up: bool,
    ok: bool,
    /// The expiry an acquisition or renewal answered ok with.
    expires_at: Option<i64>,
}

/// The churn of issue 23 with what the test above lacks: `waitMs` acquisitions queued
/// behind the holder, clients that hang up before the answer, `lock.renew`, `session.end`,
/// TTLs of 1–5 ms that run out (and are purged) mid-churn, releases by either name, two
/// symbols. Checked against the answers: a hung-up request's outcome is unknown, an
/// error changed nothing, and an acquisition or renewal answered ok (expiry E) holds
/// until its session's next release or end, or E. The event log must replay as one holder
/// per symbol at a time, each acquisition in it one the session was answered (or a
/// hung-up one), and end where `lock.query` does; the holder shown must be justified by
/// its session's answers, and a session whose last word was a long acquisition still
/// holds. Several rounds, on both stores (the daemon suite).
#[test]
fn churn_with_waiters_hang_ups_renewals_and_ends_replays_as_answered() {
    const SESSIONS: usize = 6;
    const OPS: usize = 50;
    const ROUNDS: u64 = 3;
    const LONG: i64 = 600_000;
    let mut repo = TempRepo::new();
    for round in 0..ROUNDS {
        repo = repo.with_file(&format!("src/churn{round}.ts"), AUTH_TS);
    }
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    for round in 0..ROUNDS {
        // Each round has symbols of its own: a request hung up in an earlier round may
        // still land, but never on these.
        let file = format!("src/churn{round}.ts");
        let symbols: Vec<Vec<String>> = vec![
            vec![format!("{file}:save"), format!("{file}:Session.save")],
            vec![format!("{file}:decode")],
        ];
        let (socket, names) = (d.socket().to_owned(), symbols.clone());
        let seed = 0xD1B5_4A32_D192_ED03u64 ^ (round << 8);
        let history: Vec<Vec<Asked>> = sessions_at_once(
            d.socket(),
            SESSIONS,
            seed,
            move |s, c, next| {
                let symbols = &names;
                let session = format!("churn{round}-{s}");
                (0..OPS)
                        .map(|_| {
                            let (r, q) = (next(), next());
                            let symbol = usize::from(q % 4 == 0);
                            let names = &symbols[symbol];
                            let path = &names[(q >> 8) as usize % names.len()];
                            let ttl_ms = match (q >> 16) % 10 {
                                0..=2 => 1 + (q >> 24) as i64 % 5,
                                3..=7 => 10 + (q >> 24) as i64 % 50,
                                _ => LONG,
                            };
                            let (method, params) = match r % 100 {
                                0..=4 => ("session.end", json!({"sessionId": session})),
                                5..=14 => (
                                    "lock.renew",
                                    json!({"symbolPath": path, "sessionId": session, "ttlMs": ttl_ms}),
                                ),
                                15..=54 => {
                                    let mut p = json!({"symbolPath": path, "sessionId": session, "ttlMs": ttl_ms});
                                    if (q >> 32) % 3 == 0 {
                                        p["waitMs"] = json!(1 + (q >> 40) % 60);
                                    }
                                    ("lock.acquire", p)
                                }
                                _ => ("lock.release", json!({"symbolPath": path, "sessionId": session})),
                            };
                            let mut asked = Asked { method, symbol, ttl_ms, hung_up: false, ok: false, expires_at: None };
                            if (r >> 32) % 10 == 0 && method != "session.end" {
                                // Sent whole on a connection of its own, then hung up on.
                                let mut gone = crate::support::client::Client::connect(&socket).unwrap();
                                let body = serde_json::to_vec(&crate::support::client::rpc_request(method, Some(params))).unwrap();
                                let head = format!(
                                    "POST /rpc HTTP/1.1\r\nHost: wit\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                                    body.len()
                                );
                                gone.send_raw(&[head.into_bytes(), body].concat()).unwrap();
                                asked.hung_up = true;
                                return asked;
                            }
                            let answer = c.call(method, params);
                            asked.ok = answer.get("error").is_none();
                            if asked.ok && matches!(method, "lock.acquire" | "lock.renew") {
                                asked.expires_at = Some(iso_ms(&answer["result"]["expiresAt"]));
                            }
                            asked
                        })
                        .collect::<Vec<Asked>>()
            },
        );

        let symbol_of = |path: &str| symbols.iter().position(|n| n.iter().any(|p| p == path));
        let session_of = |id: &str| -> usize {
            id.strip_prefix(&format!("churn{round}-"))
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("round {round}: a session of another round: {id}"))
        };
        let hung_up_on = |s: usize, sym: usize| {
            history[s]
                .iter()
                .any(|a| a.hung_up && a.symbol == sym && a.method != "lock.release")
        };

        // The lock table, between two reads of the log's end: when they agree, the log up
        // to there is exactly what the table shows.
        let last_seq = |c: &mut crate::support::client::Client| {
            c.ok("events.poll", json!({"since": i64::MAX}))["last"]
                .as_i64()
                .unwrap()
        };
        let before = last_seq(&mut c);
        let shown = c.ok("lock.query", json!({}));
        let after = last_seq(&mut c);
        let shown: Vec<(usize, &Value)> = shown
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|l| Some((symbol_of(l["symbolPath"].as_str().unwrap())?, l)))
            .collect();
        let mut events: Vec<Value> = Vec::new();
        let mut since = 0;
        loop {
            let page = c.ok("events.poll", json!({"since": since}));
            let list = page["events"].as_array().unwrap();
            if list.is_empty() {
                break;
            }
            events.extend(list.iter().cloned());
            since = page["next"].as_i64().unwrap();
        }

        // The log replays as one holder per symbol at a time.
        let mut holder: Vec<Option<(usize, i64, i64)>> = vec![None; symbols.len()];
        let mut released = vec![vec![0usize; symbols.len()]; SESSIONS];
        for e in events
            .iter()
            .filter(|e| e["seq"].as_i64().unwrap() <= before)
        {
            let Some(sym) = symbol_of(e["subject"].as_str().unwrap_or_default()) else {
                continue;
            };
            let who = session_of(e["sessionId"].as_str().unwrap());
            match e["kind"].as_str().unwrap() {
                kind @ ("lock.acquired" | "lock.refreshed") => {
                    let (expires, ttl) = (
                        iso_ms(&e["data"]["expiresAt"]),
                        e["data"]["ttlMs"].as_i64().unwrap(),
                    );
                    let decided = expires - ttl;
                    if let Some((h, until, _)) = holder[sym] {
                        assert!(
                            h == who || until <= decided,
                            "round {round}: {e} while session {h} held it until {until}"
                        );
                    }
                    if kind == "lock.refreshed" {
                        assert!(
                            holder[sym].is_some_and(|(h, until, _)| h == who && until > decided),
                            "round {round}: {e} refreshes no lock of its own: {:?}",
                            holder[sym]
                        );
                    }
                    // An acquisition the session was answered, or one it hung up on.
                    assert!(
                        history[who]
                            .iter()
                            .any(|a| a.symbol == sym && a.expires_at == Some(expires))
                            || hung_up_on(who, sym),
                        "round {round}: {e} answers no request of session {who}"
                    );
                    holder[sym] = Some((who, expires, ttl));
                }
                kind @ ("lock.released" | "lock.expired") => {
                    assert!(
                        holder[sym].is_some_and(|(h, _, _)| h == who),
                        "round {round}: {e} ends a lock session {who} did not hold: {:?}",
                        holder[sym]
                    );
                    holder[sym] = None;
                    if kind == "lock.released" && e["data"]["sessionEnded"].is_null() {
                        released[who][sym] += 1;
                    }
                }
                _ => {}
            }
        }
        if before == after {
            for (sym, replayed) in holder.iter().enumerate() {
                let shown = shown.iter().find(|(s, _)| *s == sym).map(|(_, l)| *l);
                match (replayed, shown) {
                    (Some((h, until, _)), Some(l)) => assert!(
                        session_of(l["sessionId"].as_str().unwrap()) == *h
                            && iso_ms(&l["expiresAt"]) == *until,
                        "round {round}: the log says session {h} until {until}, lock.query {l}"
                    ),
                    (None, Some(l)) => panic!("round {round}: the log says free, lock.query {l}"),
                    (Some((h, _, ttl)), None) => assert!(
                        *ttl != LONG,
                        "round {round}: the log says session {h} holds it for long, lock.query nobody"
                    ),
                    (None, None) => {}
                }
            }
        }
        // Every release answered ok is in the log (and only those, or hung-up ones).
        for (s, (asked, logged)) in history.iter().zip(&released).enumerate() {
            for (sym, &logged) in logged.iter().enumerate() {
                let of = |hung_up: bool| {
                    asked
                        .iter()
                        .filter(|a| {
                            a.method == "lock.release"
                                && a.symbol == sym
                                && a.hung_up == hung_up
                                && (a.ok || hung_up)
                        })
                        .count()
                };
                assert!(
                    (of(false)..=of(false) + of(true)).contains(&logged),
                    "round {round}: session {s}: {logged} releases logged, {} answered ok, {} hung up",
                    of(false),
                    of(true)
                );
            }
        }

        // The holder shown was last answered that very acquisition or renewal, and was
        // not answered a release or an end after it.
        for (sym, l) in &shown {
            let h = session_of(l["sessionId"].as_str().unwrap());
            let expires = iso_ms(&l["expiresAt"]);
            let Some(i) = history[h]
                .iter()
                .rposition(|a| a.symbol == *sym && a.expires_at == Some(expires))
            else {
                assert!(
                    hung_up_on(h, *sym),
                    "round {round}: {l} answers no request of its session"
                );
                continue;
            };
            // An acquisition or renewal the session hung up on has an unknown outcome, and
            // it may land after requests sent later (its expiry is reckoned when it
            // arrives, its write comes after its file's analysis): the row shown may be
            // its, with an expiry that equals an answered one's to the millisecond. Seen
            // once in CI: the shown row's expiry was an answered 16 ms acquisition's,
            // answered before an acquisition of 53 ms that the table did not show.
            if hung_up_on(h, *sym) {
                continue;
            }
            for a in &history[h][i + 1..] {
                let ends = !a.hung_up
                    && (a.method == "session.end" && a.ok
                        || a.symbol == *sym
                            && (a.method == "lock.release" || a.ok && a.method != "session.end"));
                assert!(
                    !ends,
                    "round {round}: {l} still held after {a:?} (held by {:?})",
                    history[h][i]
                );
            }
        }
        // A session whose last word on a symbol was a long acquisition answered ok holds
        // it (unless a request it hung up on may have landed since).
        for (s, asked) in history.iter().enumerate() {
            if asked.iter().any(|a| a.hung_up) {
                continue;
            }
            for (sym, names) in symbols.iter().enumerate() {
                let Some(last) = asked
                    .iter()
                    .rev()
                    .find(|a| a.symbol == sym || a.method == "session.end")
                else {
                    continue;
                };
                if last.method != "session.end"
                    && last.symbol == sym
                    && last.ttl_ms == LONG
                    && last.expires_at.is_some()
                {
                    assert!(
                        shown.iter().any(|(x, l)| *x == sym
                            && session_of(l["sessionId"].as_str().unwrap()) == s
                            && Some(iso_ms(&l["expiresAt"])) == last.expires_at),
                        "round {round}: session {s} holds {} by {last:?}, yet lock.query shows {shown:?}",
                        names[0]
                    );
                }
            }
        }
    }
}

/// A lock row under another spelling of the symbol (as a version that kept locks under
/// the requested name left it) blocks others only while it lasts: once expired, another
/// session takes the lock by its canonical name.
#[test]
fn an_expired_lock_under_another_spelling_does_not_block() {
    // The old row is planted in the SQLite file itself; the suite's PostgreSQL run skips
    // this one (the decision it tests is the same code on both stores).
    if crate::support::store::is_postgres() {
        return;
    }
    let repo = TempRepo::new().with_file("src/auth.ts", AUTH_TS);
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok("ping", json!({}));
    let db = rusqlite::Connection::open(repo.path().join(".wit/state.db")).unwrap();
    db.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
    db.execute(
        "INSERT INTO locks (symbol_path, session_id, acquired_at, expires_at, spelling)
         VALUES ('src/auth.ts:save', 'old', 1, 2, 'src/auth.ts:save')",
        [],
    )
    .unwrap();
    let r = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:Session.save", "sessionId": "new"}),
    );
    assert_eq!(r["sessionId"], "new");
    // While it lasts, it blocks. (Written whole, not updated: the daemon's purge may
    // already have deleted the expired row, since the acquisition woke its timer.)
    db.execute(
        "INSERT OR REPLACE INTO locks (symbol_path, session_id, acquired_at, expires_at, spelling)
         VALUES ('src/auth.ts:save', 'old', 1, 9999999999999, 'src/auth.ts:save')",
        [],
    )
    .unwrap();
    c.ok(
        "lock.release",
        json!({"symbolPath": "src/auth.ts:Session.save", "sessionId": "new"}),
    );
    let err = c.err(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:Session.save", "sessionId": "new"}),
    );
    assert_eq!(err["message"], "LOCK_CONFLICT");
    assert_eq!(err["data"]["heldBy"], "old");
}
