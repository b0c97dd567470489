//! Daemons on separate checkouts of one repository sharing state in one real PostgreSQL
//! server (issue 13): locks, races, intents and events across daemons; a daemon killed
//! while the other serves; the database stopped and restarted under load; an unreachable
//! store at start. Each test starts its own throwaway cluster ([`Cluster`]), whatever
//! `WIT_TEST_STORE` says.

use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wit_testkit::postgres::Cluster;

use crate::support::daemon::{Daemon, daemon_command, wait_until};
use crate::support::repo::TempRepo;
use crate::support::sse::EventStream;

/// The project both checkouts share: their `origin` remote's key.
const PROJECT: &str = "example.invalid/acme/api";

/// A cluster with the `wit` database.
fn cluster() -> Cluster {
    let cluster = Cluster::start();
    cluster.create_db("wit");
    cluster
}

/// A checkout of the shared project (its own directory, its own files), a clone of one
/// remote (a committed `[store] project` is honoured only under `wit trust`).
fn checkout() -> TempRepo {
    let r = TempRepo::new().with_file(
        "src/auth.ts",
        "export function validateToken(t: string): boolean {\n  return t.length > 0;\n}\n",
    );
    for args in [
        &["init", "-q"][..],
        &[
            "remote",
            "add",
            "origin",
            "https://example.invalid/acme/api.git",
        ],
    ] {
        let mut cmd = Command::new("git");
        cmd.args(args).current_dir(r.path());
        crate::support::cli::clean_env(&mut cmd);
        assert!(cmd.output().unwrap().status.success(), "git {args:?}");
    }
    r
}

/// A daemon on `root` keeping its state in `cluster`.
fn daemon(cluster: &Cluster, root: &Path) -> Daemon {
    let mut cmd = daemon_command(root);
    cmd.env("WIT_STORE_URL", cluster.url("wit"));
    Daemon::start_with(root, cmd)
}

/// `d`'s answer to a long poll (up to 10 s, in a thread of its own) for the first
/// `lock.acquired` after the log's end as it stands now.
fn next_lock_acquired(d: &Daemon) -> std::thread::JoinHandle<Value> {
    let mut c = d.client();
    let since = c.ok("events.poll", json!({"timeoutMs": 0}))["last"]
        .as_i64()
        .unwrap();
    std::thread::spawn(move || {
        c.ok(
            "events.poll",
            json!({"since": since, "timeoutMs": 10_000, "kinds": ["lock.acquired"]}),
        )
    })
}

fn lock(session: &str) -> Value {
    json!({"symbolPath": "src/auth.ts:validateToken", "sessionId": session})
}

#[test]
fn a_lock_taken_through_one_daemon_is_a_conflict_through_the_other_and_intents_overlap() {
    let pg = cluster();
    let (a, b) = (checkout(), checkout());
    let (da, db) = (daemon(&pg, a.path()), daemon(&pg, b.path()));
    let (mut ca, mut cb) = (da.client(), db.client());

    ca.ok("lock.acquire", lock("agent-a"));
    let refused = cb.err("lock.acquire", lock("agent-b"));
    assert_eq!(refused["message"], "LOCK_CONFLICT", "{refused}");
    assert_eq!(refused["data"]["heldBy"], "agent-a");
    let held = cb.ok("lock.query", json!({}));
    assert_eq!(held[0]["sessionId"], "agent-a", "{held}");

    let declared = ca.ok(
        "intent.declare",
        json!({"sessionId": "agent-a", "description": "rework auth", "files": ["src/auth.ts"]}),
    );
    let other = cb.ok(
        "intent.declare",
        json!({"sessionId": "agent-b", "description": "also auth", "files": ["src/auth.ts"]}),
    );
    let items = other["conflicts"]["items"].as_array().unwrap();
    assert!(
        items
            .iter()
            .any(|i| i["type"] == "INTENT_OVERLAP"
                && i["overlappingIntentId"] == declared["intentId"]),
        "{other}"
    );

    // Released through the first daemon, the lock is free through the second.
    ca.ok("lock.release", lock("agent-a"));
    cb.ok("lock.acquire", lock("agent-b"));

    // What each daemon says of its store names the host and database, never more.
    let status = cb.ok("store.status", json!({}));
    assert_eq!(status["backend"], "postgres", "{status}");
    assert_eq!(status["project"], PROJECT, "{status}");
    assert!(
        status["database"].as_str().unwrap().ends_with("/wit"),
        "{status}"
    );
}

#[test]
fn thirty_two_clients_across_two_daemons_have_exactly_one_winner_each_round() {
    let pg = cluster();
    let (a, b) = (checkout(), checkout());
    let daemons = [daemon(&pg, a.path()), daemon(&pg, b.path())];
    let n = 32;
    let mut clients: Vec<_> = (0..n).map(|i| Some(daemons[i % 2].client())).collect();
    for round in 0..20 {
        let symbol = format!("src/auth.ts:round{round}");
        let barrier = Arc::new(Barrier::new(n));
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let mut client = clients[i].take().unwrap();
                let (barrier, symbol) = (barrier.clone(), symbol.clone());
                std::thread::spawn(move || {
                    let session = format!("racer-{i}");
                    barrier.wait();
                    let answer = client.call(
                        "lock.acquire",
                        json!({"symbolPath": symbol, "sessionId": session}),
                    );
                    (i, client, session, answer)
                })
            })
            .collect();
        let mut winners = Vec::new();
        for h in handles {
            let (i, client, session, answer) = h.join().unwrap();
            clients[i] = Some(client);
            if answer.get("result").is_some() {
                winners.push(session);
            } else {
                assert_eq!(answer["error"]["message"], "LOCK_CONFLICT", "{answer}");
            }
        }
        assert_eq!(winners.len(), 1, "round {round}: winners {winners:?}");
    }
}

#[test]
fn an_event_committed_through_one_daemon_reaches_the_others_stream_and_long_poll() {
    let pg = cluster();
    let (a, b) = (checkout(), checkout());
    let (da, db) = (daemon(&pg, a.path()), daemon(&pg, b.path()));
    let mut stream = EventStream::open(db.socket(), "/events?kinds=lock.acquired", &[]).unwrap();
    let poller = next_lock_acquired(&db);
    da.client().ok("lock.acquire", lock("agent-a"));
    let event = stream
        .next_event()
        .unwrap()
        .expect("an event on the stream");
    let data: Value = serde_json::from_str(event.data.as_deref().unwrap()).unwrap();
    assert_eq!(data["kind"], "lock.acquired", "{data}");
    assert_eq!(data["sessionId"], "agent-a", "{data}");
    let polled = poller.join().unwrap();
    assert_eq!(polled["events"][0]["kind"], "lock.acquired", "{polled}");
    assert_eq!(polled["events"][0]["subject"], "src/auth.ts:validateToken");
}

#[test]
fn a_daemon_killed_leaves_the_other_serving_and_its_locks_to_their_ttl() {
    let pg = cluster();
    let (a, b) = (checkout(), checkout());
    let (mut da, db) = (daemon(&pg, a.path()), daemon(&pg, b.path()));
    da.client().ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:validateToken", "sessionId": "agent-a", "ttlMs": 1500}),
    );
    da.crash();
    let mut cb = db.client();
    cb.ok("ping", json!({}));
    // The dead daemon's lock stays until its TTL, then is free.
    assert_eq!(
        cb.err("lock.acquire", lock("agent-b"))["message"],
        "LOCK_CONFLICT"
    );
    wait_until(
        "the dead daemon's lock expires",
        Duration::from_secs(10),
        || {
            cb.call("lock.acquire", lock("agent-b"))
                .get("result")
                .is_some()
        },
    );
}

#[test]
fn the_database_stopped_and_restarted_under_load_loses_no_acknowledged_write() {
    let pg = cluster();
    let (a, b) = (checkout(), checkout());
    let daemons = Arc::new([daemon(&pg, a.path()), daemon(&pg, b.path())]);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (daemons, stop) = (daemons.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut client = daemons[w % 2].client();
                let (mut acknowledged, mut failed) = (Vec::new(), Vec::new());
                let mut i = 0;
                while !stop.load(std::sync::atomic::Ordering::Acquire) {
                    let symbol = format!("src/auth.ts:w{w}_{i}");
                    let answer = client.call(
                        "lock.acquire",
                        json!({"symbolPath": symbol, "sessionId": format!("writer-{w}"), "ttlMs": 600_000}),
                    );
                    if answer.get("result").is_some() {
                        acknowledged.push(symbol);
                    } else {
                        failed.push(answer);
                    }
                    i += 1;
                }
                (acknowledged, failed)
            })
        })
        .collect();
    let until = |n: usize| {
        let mut c = daemons[0].client();
        wait_until("writes go through", Duration::from_secs(30), || {
            c.call("lock.query", json!({}))["result"]
                .as_array()
                .is_some_and(|l| l.len() >= n)
        });
    };
    until(20);
    pg.stop();
    // While it is down, requests fail naming the store, and pings still answer.
    let mut c = daemons[1].client();
    let down = c.call("lock.acquire", lock("during-outage"));
    let reason = down["error"]["data"]["reason"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(reason.contains("PostgreSQL store"), "{down}");
    assert!(!reason.contains("postgres@"), "credentials shown: {reason}");
    c.ok("ping", json!({}));
    pg.restart();
    let started = Instant::now();
    let recovered = |d: &Daemon| {
        let mut c = d.client();
        wait_until("the daemon recovers", Duration::from_secs(30), || {
            c.call("lock.query", json!({})).get("result").is_some()
        });
    };
    recovered(&daemons[0]);
    recovered(&daemons[1]);
    let before = daemons[0]
        .client()
        .ok("lock.query", json!({}))
        .as_array()
        .unwrap()
        .len();
    until(before + 20);
    assert!(started.elapsed() < Duration::from_secs(60));
    stop.store(true, std::sync::atomic::Ordering::Release);
    let mut acknowledged = Vec::new();
    for w in writers {
        let (ok, failed) = w.join().unwrap();
        for f in &failed {
            let reason = f["error"]["data"]["reason"].as_str().unwrap_or_default();
            assert!(reason.contains("PostgreSQL store"), "{f}");
        }
        acknowledged.extend(ok);
    }
    for d in daemons.iter() {
        let locks = d.client().ok("lock.query", json!({}));
        let held: std::collections::HashSet<&str> = locks
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["symbolPath"].as_str().unwrap())
            .collect();
        for symbol in &acknowledged {
            assert!(held.contains(symbol.as_str()), "acknowledged {symbol} lost");
        }
    }
}

#[test]
fn an_unreachable_store_at_start_is_a_clear_error_and_exit_code() {
    let repo = checkout();
    let mut cmd = daemon_command(repo.path());
    cmd.env(
        "WIT_STORE_URL",
        "postgresql://someone:s3cret@/wit?host=/nonexistent/socket/dir",
    );
    let out = cmd.output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let log = std::fs::read_to_string(repo.wit_dir().join("daemon.log")).unwrap_or_default();
    let said = format!("{stderr}{log}");
    assert!(said.contains("cannot reach the PostgreSQL store"), "{said}");
    assert!(
        !said.contains("s3cret") && !said.contains("someone"),
        "{said}"
    );
}

#[test]
fn wit_store_migrate_copies_the_sqlite_state_once_and_the_shared_store_serves_it() {
    let pg = cluster();
    let repo = checkout();
    let sqlite_daemon = |root: &Path| {
        let mut cmd = daemon_command(root);
        cmd.env_remove("WIT_STORE_URL");
        Daemon::start_with(root, cmd)
    };
    let intent = {
        let mut d = sqlite_daemon(repo.path());
        let mut c = d.client();
        c.ok("lock.acquire", lock("agent-a"));
        let intent = c.ok(
            "intent.declare",
            json!({"sessionId": "agent-a", "description": "rework auth", "files": ["src/auth.ts"]}),
        );
        let contract = c.ok(
            "contract.propose",
            json!({"symbolPath": "src/auth.ts:validateToken", "sessionId": "agent-a"}),
        );
        c.ok(
            "contract.respond",
            json!({"contractId": contract["contractId"], "sessionId": "agent-b", "accept": true}),
        );
        d.signal_and_wait(libc::SIGTERM);
        intent
    };
    let migrate = || {
        let mut cmd = crate::support::cli::wit_command(repo.path(), None, &["store", "migrate"]);
        cmd.env("WIT_STORE_URL", pg.url("wit"));
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let first = migrate();
    assert!(first.contains("copied"), "{first}");
    assert!(
        first.contains("1 locks") && first.contains("1 intents"),
        "{first}"
    );
    assert!(first.contains("1 contracts"), "{first}");
    assert!(!first.contains("postgres@"), "credentials shown: {first}");
    let second = migrate();
    assert!(
        second.contains("already") && second.contains("nothing copied"),
        "{second}"
    );

    // Daemons of the project now serve that state, on any checkout.
    let other = checkout();
    let d = daemon(&pg, other.path());
    let mut c = d.client();
    let locks = c.ok("lock.query", json!({}));
    assert_eq!(locks[0]["sessionId"], "agent-a", "{locks}");
    let overlap = c.ok(
        "intent.declare",
        json!({"sessionId": "agent-c", "description": "me too", "files": ["src/auth.ts"]}),
    );
    assert_eq!(
        overlap["conflicts"]["items"][0]["overlappingIntentId"], intent["intentId"],
        "{overlap}"
    );
    let contracts = c.ok("contract.query", json!({"status": "accepted"}));
    assert_eq!(contracts.as_array().map(Vec::len), Some(1), "{contracts}");
    // The event log came along, numbered as it was, and goes on from there.
    let events = c.ok("events.poll", json!({"since": 0}));
    let kinds = crate::support::events::kinds(&events);
    assert_eq!(
        &kinds[..3],
        ["session.started", "lock.acquired", "intent.declared"],
        "{kinds:?}"
    );
    let seqs = crate::support::events::seqs(&events);
    assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>());
}

#[test]
fn wit_store_migrate_without_a_store_says_how_to_name_one() {
    let repo = checkout();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(repo.path())
        .status()
        .unwrap();
    assert!(git.success());
    let mut cmd = crate::support::cli::wit_command(repo.path(), None, &["store", "migrate"]);
    cmd.env_remove("WIT_STORE_URL")
        .env("XDG_CONFIG_HOME", repo.path().join("no-config"));
    let out = cmd.output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("WIT_STORE_URL"), "{stderr}");
}

#[test]
fn a_committed_wit_toml_naming_a_store_is_not_used_until_trusted() {
    let pg = cluster();
    let r = crate::support::plugin_repo::PluginRepo::new();
    // A cloned repository that would send its users' state to a store of its choosing.
    r.write(
        "wit.toml",
        &format!(
            "[store]\nproject = \"{PROJECT}\"\nurl = \"{}\"\n",
            pg.url("wit")
        ),
    );
    let status = |r: &crate::support::plugin_repo::PluginRepo| {
        let mut cmd =
            crate::support::cli::wit_command(r.path(), None, &["store", "status", "--json"]);
        r.isolate(&mut cmd);
        cmd.env_remove("WIT_STORE_URL");
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let untrusted = status(&r);
    assert_eq!(untrusted["backend"], "sqlite", "{untrusted}");
    assert!(r.path().join(".wit/state.db").exists());
    let log = std::fs::read_to_string(r.path().join(".wit/daemon.log")).unwrap();
    assert!(
        log.contains("which a committed file cannot decide alone"),
        "{log}"
    );
    // Nothing reached the database: no project was ever created there.
    assert_eq!(
        psql(&pg, "SELECT to_regclass('public.wit_projects') IS NULL"),
        "t"
    );

    // Once the user trusts this wit.toml (pinned by its hash), its store is honoured.
    let mut stop = crate::support::cli::wit_command(r.path(), None, &["daemon", "stop"]);
    r.isolate(&mut stop);
    assert!(stop.output().unwrap().status.success());
    r.wit(None, &["trust", "--yes"]).ok();
    let trusted = status(&r);
    assert_eq!(
        trusted["backend"],
        "postgres",
        "{trusted}\n{}",
        std::fs::read_to_string(r.path().join(".wit/daemon.log")).unwrap_or_default()
    );
    assert_eq!(trusted["project"], PROJECT);
    let mut stop = crate::support::cli::wit_command(r.path(), None, &["daemon", "stop"]);
    r.isolate(&mut stop);
    let _ = stop.output();
}

/// Issue 34, finding 1: `[store] url` of a committed `wit.toml` was honoured only under
/// `wit trust`, but `[store] project` always. A user whose store URL is their own (here
/// `WIT_STORE_URL`) cloning a repository whose `wit.toml` names the real team's project
/// joined that project's state: its locks, its intents, its event log. Now the project is
/// trust-gated too, and `wit trust` says what it grants.
#[test]
fn a_cloned_wit_toml_naming_another_project_does_not_join_it_until_trusted() {
    let pg = cluster();
    // The real team's checkout holds a lock in its project.
    let team = checkout();
    let dt = daemon(&pg, team.path());
    dt.client().ok("lock.acquire", lock("agent-team"));
    // A hostile clone (no remote of the team's) naming the team's project.
    let r = crate::support::plugin_repo::PluginRepo::new();
    r.write("wit.toml", &format!("[store]\nproject = \"{PROJECT}\"\n"));
    r.write(
        "src/auth.ts",
        "export function validateToken(t: string): boolean {\n  return t.length > 0;\n}\n",
    );
    let start = |r: &crate::support::plugin_repo::PluginRepo| {
        let mut cmd = daemon_command(r.path());
        r.isolate(&mut cmd);
        cmd.env("WIT_STORE_URL", pg.url("wit"));
        Daemon::start_with(r.path(), cmd)
    };
    let mut d = start(&r);
    let mut c = d.client();
    let status = c.ok("store.status", json!({}));
    assert_eq!(status["backend"], "postgres", "{status}");
    assert_ne!(status["project"], PROJECT, "{status}");
    assert_eq!(c.ok("lock.query", json!({})), json!([]));
    c.ok("lock.acquire", lock("agent-clone"));
    // The team is not blocked by the clone's lock, nor sees it.
    let team_locks = dt.client().ok("lock.query", json!({}));
    assert_eq!(team_locks.as_array().unwrap().len(), 1, "{team_locks}");
    assert_eq!(team_locks[0]["sessionId"], "agent-team", "{team_locks}");
    let log = std::fs::read_to_string(r.path().join(".wit/daemon.log")).unwrap();
    assert!(log.contains("names the store project"), "{log}");
    d.signal_and_wait(libc::SIGTERM);

    // `wit trust` shows the project it grants, and only then is it honoured.
    let trusted = r.trust();
    assert!(
        trusted
            .stdout
            .contains(&format!("store project \"{PROJECT}\"")),
        "{}",
        trusted.stdout
    );
    let d = start(&r);
    let status = d.client().ok("store.status", json!({}));
    assert_eq!(status["project"], PROJECT, "{status}");
    let locks = d.client().ok("lock.query", json!({}));
    assert_eq!(locks[0]["sessionId"], "agent-team", "{locks}");
}

/// Issue 34, "also seen": a checkout was named by its absolute path alone, so two
/// sandboxes checked out at one path (`/workspace`) on one PostgreSQL store were one
/// checkout row of the forecast and, without a remote, one project. Each clone now has an
/// id of its own (in its `.wit/`), which names its checkouts and its fallback project on a
/// shared store. Two clones at one path are simulated one after the other: the second
/// has its own `.wit/`, as another sandbox's clone would.
#[test]
fn two_clones_at_one_path_on_one_postgresql_store_are_two_checkouts_and_two_projects() {
    let pg = cluster();
    let repo = TempRepo::new().with_file(
        "src/auth.ts",
        "export function validateToken(t: string): boolean {\n  return t.length > 0;\n}\n",
    );
    let mut cmd = Command::new("git");
    cmd.args(["init", "-q"]).current_dir(repo.path());
    crate::support::cli::clean_env(&mut cmd);
    assert!(cmd.status().unwrap().success());
    let seen = |d: &Daemon| {
        let mut c = d.client();
        let project = c.ok("store.status", json!({}))["project"].clone();
        let checkout = c.ok("conflicts.forecast", json!({}))["checkout"].clone();
        (project, checkout)
    };
    let mut first = daemon(&pg, repo.path());
    first.client().ok("lock.acquire", lock("agent-a"));
    let (project_a, checkout_a) = seen(&first);
    let path = repo.path().display().to_string();
    let named = checkout_a.as_str().unwrap();
    assert!(
        named.starts_with(&format!("{path}#")) && named.len() == path.len() + 17,
        "{named}"
    );
    first.signal_and_wait(libc::SIGTERM);
    // Another sandbox's clone at the same path: its own `.wit/`.
    std::fs::remove_dir_all(repo.wit_dir()).unwrap();
    let second = daemon(&pg, repo.path());
    let (project_b, checkout_b) = seen(&second);
    assert_ne!(project_a, project_b);
    assert_ne!(checkout_a, checkout_b);
    assert_eq!(second.client().ok("lock.query", json!({})), json!([]));
    // A checkout is still found by its path.
    let by_path = second
        .client()
        .ok("conflicts.forecast", json!({"checkout": path}));
    assert_eq!(by_path["forecasts"], json!([]), "{by_path}");
}

/// What `sql` answers in the `wit` database, unaligned (`psql -At`).
fn psql(pg: &Cluster, sql: &str) -> String {
    let out = Command::new("psql")
        .args(["-At", "-c", sql])
        .arg(pg.conninfo("wit"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// How many connections of the server listen for notifications (`LISTEN`).
fn listeners(pg: &Cluster) -> usize {
    psql(
        pg,
        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN %'",
    )
    .parse()
    .unwrap()
}

/// Waits in `to`'s long poll for the `lock.acquired` of a lock taken through `through`.
fn lock_seen(through: &Daemon, to: &Daemon, session: &str) {
    let poller = next_lock_acquired(to);
    through.client().ok("lock.acquire", lock(session));
    through.client().ok("lock.release", lock(session));
    let polled = poller.join().unwrap();
    assert_eq!(polled["events"][0]["sessionId"], session, "{polled}");
}

#[test]
fn the_worktrees_one_process_serves_share_its_postgresql_store_and_one_listener() {
    let pg = cluster();
    let main = checkout();
    for args in [&["add", "."][..], &["commit", "-q", "-m", "initial"]] {
        let mut cmd = Command::new("git");
        cmd.args(args).current_dir(main.path());
        crate::support::cli::clean_env(&mut cmd);
        assert!(cmd.output().unwrap().status.success(), "git {args:?}");
    }
    let wt_dir = TempRepo::new();
    let wt = wt_dir.path().join("wt-b");
    let mut add = Command::new("git");
    add.args(["worktree", "add", "-q", wt.to_str().unwrap()])
        .current_dir(main.path());
    crate::support::cli::clean_env(&mut add);
    assert!(add.output().unwrap().status.success());
    let dm = daemon(&pg, main.path());
    let dw = daemon(&pg, &wt);
    let pid = |d: &Daemon| d.client().ok("daemon.status", json!({}))["pid"].clone();
    assert_eq!(pid(&dm), pid(&dw), "one process serves both worktrees");

    // Each hears the other's commits (so every listener there is is connected).
    lock_seen(&dm, &dw, "agent-a");
    lock_seen(&dw, &dm, "agent-b");
    assert_eq!(
        listeners(&pg),
        1,
        "one listener for the process, not one per worktree"
    );

    // The worktree whose start began the listener stops (its `wit daemon run`, the
    // hosting process, serves on); started again, it is served by the same process and
    // joins the listener still serving the other (`process::Sharers` keeps it while a
    // worktree is on the store: its unit test), not a second one.
    dm.client().ok("daemon.stop", json!({}));
    wait_until("the main worktree stopped", Duration::from_secs(30), || {
        !crate::support::daemon::ping(dm.socket())
    });
    let _host = dm;
    let dm = daemon(&pg, main.path());
    assert_eq!(pid(&dm), pid(&dw), "served by the same process again");
    lock_seen(&dm, &dw, "agent-c");
    assert_eq!(listeners(&pg), 1);
}
