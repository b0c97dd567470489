//! Which store the daemons under test keep their state in.
//!
//! By default SQLite (`.wit/state.db`), as for every user on one machine. With
//! `WIT_TEST_STORE=postgres` every daemon the tests start — directly, through the CLI's
//! autostart, or from a git hook — shares state in one throwaway PostgreSQL cluster
//! started once for the test process ([`wit_testkit::postgres::Cluster`]); each test's
//! repository is its own project there (its path: the test repositories have no
//! `origin` remote), so tests stay as independent as with SQLite. `.ci/run` runs the
//! daemon protocol suite both ways; the same tests, not copies.

use std::process::Command;
use std::sync::{Mutex, OnceLock};

use wit_testkit::postgres::Cluster;

/// The cluster of this test process, stopped and removed at exit.
static CLUSTER: Mutex<Option<Cluster>> = Mutex::new(None);

/// The PostgreSQL URL the daemons get as `WIT_STORE_URL`, when the tests run on it.
pub fn url() -> Option<&'static str> {
    static URL: OnceLock<Option<String>> = OnceLock::new();
    URL.get_or_init(|| {
        if std::env::var("WIT_TEST_STORE").as_deref() != Ok("postgres") {
            return None;
        }
        let cluster = Cluster::start();
        cluster.create_db("wit");
        let url = cluster.url("wit");
        *CLUSTER.lock().unwrap_or_else(|p| p.into_inner()) = Some(cluster);
        // SAFETY: `stop_cluster` is a plain function that may run at exit.
        unsafe {
            libc::atexit(stop_cluster);
        }
        Some(url)
    })
    .as_deref()
}

/// Whether the daemons under test use PostgreSQL.
pub fn is_postgres() -> bool {
    url().is_some()
}

extern "C" fn stop_cluster() {
    let cluster = CLUSTER.lock().unwrap_or_else(|p| p.into_inner()).take();
    drop(cluster);
}

/// Points `cmd` (a daemon, or anything that may start one) at the store under test, and
/// keeps the developer's own `WIT_STORE_URL` out of it.
pub fn apply(cmd: &mut Command) {
    match url() {
        Some(url) => cmd.env("WIT_STORE_URL", url),
        None => cmd.env_remove("WIT_STORE_URL"),
    };
}
