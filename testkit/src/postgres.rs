//! A throwaway PostgreSQL cluster (see the crate documentation).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Once;
use std::time::{Duration, Instant};

use crate::reaper::{self, Guard};

/// A running PostgreSQL server in a temp directory; stopped (fast) and removed on drop,
/// and by its guard when the test process ends without dropping it (see `reaper`).
pub struct Cluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    as_postgres: bool,
    /// Dropped after `dir`: by then the server is stopped and the directory gone.
    guard: Option<Guard>,
}

/// Where the server binaries are: `pg_ctl` on `PATH`, else the newest
/// `/usr/lib/postgresql/<version>/bin`.
pub fn binaries() -> Option<PathBuf> {
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output()
        && out.status.success()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if dir.join("pg_ctl").exists() && dir.join("initdb").exists() {
            return Some(dir);
        }
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|p| p.join("pg_ctl").exists() && p.join("initdb").exists())
        .collect();
    versions.sort();
    versions.pop()
}

impl Cluster {
    /// Initialises and starts a cluster; panics (the test fails) with the server's own
    /// words when it cannot.
    pub fn start() -> Cluster {
        let bin = binaries().expect(
            "PostgreSQL server binaries (initdb, pg_ctl) are not installed: \
             apt-get install postgresql (.ci/run does)",
        );
        // SAFETY: geteuid has no preconditions.
        let as_postgres = unsafe { libc::geteuid() } == 0;
        static SWEPT: Once = Once::new();
        SWEPT.call_once(sweep_stale);
        let dir = tempfile::Builder::new()
            .prefix(reaper::DIR_PREFIX)
            .tempdir()
            .expect("temp dir for the cluster");
        let mut cluster = Cluster {
            dir,
            bin,
            as_postgres,
            guard: None,
        };
        if as_postgres {
            // The server's user must own its directory.
            let chown = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(cluster.dir.path())
                .output()
                .expect("chown");
            assert!(chown.status.success(), "chown: {chown:?}");
        }
        // Guarded before the server exists: a kill at any later moment is covered. (After
        // the chown: the owner file must stay this user's, or no sweep would believe it.)
        let stop = cluster.command_line(
            "pg_ctl",
            &["-D", path(&cluster.data()), "-m", "immediate", "-w", "stop"],
        );
        cluster.guard = Some(Guard::start(cluster.dir.path(), &stop));
        let data = cluster.data();
        let init = cluster.run(
            "initdb",
            &[
                "-D",
                path(&data),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ],
        );
        assert!(init.status.success(), "initdb failed: {}", text(&init));
        // Only the private socket; fsync off: the data is thrown away anyway.
        let conf = format!(
            "listen_addresses = ''\nunix_socket_directories = '{}'\nfsync = off\n\
             synchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n",
            cluster.socket_dir().display()
        );
        let conf_path = data.join("postgresql.conf");
        let mut all = std::fs::read_to_string(&conf_path).expect("read postgresql.conf");
        all.push_str(&conf);
        std::fs::write(&conf_path, all).expect("write postgresql.conf");
        cluster.ctl_start();
        cluster
    }

    /// The data directory.
    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The directory holding the server's Unix socket (`host` in a connection string).
    pub fn socket_dir(&self) -> PathBuf {
        self.dir.path().to_owned()
    }

    /// A key-value connection string for `dbname` as the `postgres` superuser.
    pub fn conninfo(&self, dbname: &str) -> String {
        format!(
            "host={} user=postgres dbname={dbname}",
            self.socket_dir().display()
        )
    }

    /// The same as a URL (`postgresql://postgres@/dbname?host=/path`).
    pub fn url(&self, dbname: &str) -> String {
        format!(
            "postgresql://postgres@/{dbname}?host={}",
            self.socket_dir().display()
        )
    }

    /// Creates a database.
    pub fn create_db(&self, name: &str) {
        let out = self.run(
            "createdb",
            &["-h", path(&self.socket_dir()), "-U", "postgres", name],
        );
        assert!(out.status.success(), "createdb {name}: {}", text(&out));
    }

    /// Stops the server (fast shutdown: connections are closed).
    pub fn stop(&self) {
        let out = self.run(
            "pg_ctl",
            &["-D", path(&self.data()), "-m", "fast", "-w", "stop"],
        );
        assert!(out.status.success(), "pg_ctl stop: {}", text(&out));
    }

    /// Starts it again after [`Cluster::stop`] (same data, same socket).
    pub fn restart(&self) {
        self.ctl_start();
    }

    fn ctl_start(&self) {
        let log = self.dir.path().join("server.log");
        let out = self.run(
            "pg_ctl",
            &[
                "-D",
                path(&self.data()),
                "-l",
                path(&log),
                "-w",
                "-t",
                "60",
                "start",
            ],
        );
        assert!(
            out.status.success(),
            "pg_ctl start: {}\n{}",
            text(&out),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        // pg_ctl -w returns once the server accepts connections; check the socket too.
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.socket_dir().join(".s.PGSQL.5432").exists() {
            assert!(
                Instant::now() < deadline,
                "the server's socket never appeared"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The pid of this cluster's guard (see `reaper`).
    pub fn guard_pid(&self) -> Option<u32> {
        self.guard.as_ref().map(Guard::pid)
    }

    /// The pid of the running server (its `postmaster.pid`), if it runs.
    pub fn server_pid(&self) -> Option<libc::pid_t> {
        server_pid(&self.data())
    }

    /// The cluster's directory.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// One of the server's programs with `args`, as `postgres` when we are root, as a
    /// program and its arguments.
    fn command_line(&self, program: &str, args: &[&str]) -> Vec<OsString> {
        command_line(&self.bin, self.as_postgres, program, args)
    }

    /// Runs one of the server's programs, as `postgres` when we are root.
    fn run(&self, program: &str, args: &[&str]) -> Output {
        let line = self.command_line(program, args);
        let exe = line[0].clone();
        let mut cmd = Command::new(&exe);
        cmd.args(&line[1..])
            .stdin(Stdio::null())
            .env_remove("PGHOST")
            .env_remove("PGPORT")
            .env_remove("PGDATABASE")
            .env_remove("PGUSER");
        cmd.output()
            .unwrap_or_else(|e| panic!("running {}: {e}", Path::new(&exe).display()))
    }
}

fn command_line(bin: &Path, as_postgres: bool, program: &str, args: &[&str]) -> Vec<OsString> {
    let mut line: Vec<OsString> = Vec::new();
    if as_postgres {
        line.extend(["runuser", "-u", "postgres", "--"].map(OsString::from));
    }
    line.push(bin.join(program).into_os_string());
    line.extend(args.iter().map(OsString::from));
    line
}

/// The pid in a data directory's `postmaster.pid`.
pub fn server_pid(data: &Path) -> Option<libc::pid_t> {
    std::fs::read_to_string(data.join("postmaster.pid"))
        .ok()?
        .lines()
        .next()?
        .trim()
        .parse()
        .ok()
}

/// Stops and removes the clusters of test processes that are gone (killed together with
/// their guards, or a machine reset): run once per process before its first cluster.
pub fn sweep_stale() {
    let Some(bin) = binaries() else {
        return;
    };
    // SAFETY: geteuid has no preconditions.
    let as_postgres = unsafe { libc::geteuid() } == 0;
    reaper::sweep(&std::env::temp_dir(), |data| {
        if server_pid(data).is_none() {
            return;
        }
        let line = command_line(
            &bin,
            as_postgres,
            "pg_ctl",
            &["-D", path(data), "-m", "immediate", "-w", "stop"],
        );
        let _ = Command::new(&line[0])
            .args(&line[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    });
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.run(
            "pg_ctl",
            &["-D", path(&self.data()), "-m", "immediate", "-w", "stop"],
        );
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("temp paths are UTF-8")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_starts_accepts_a_database_stops_and_restarts() {
        let c = Cluster::start();
        c.create_db("wit_test");
        let psql = |sql: &str| {
            c.run(
                "psql",
                &[
                    "-h",
                    path(&c.socket_dir()),
                    "-U",
                    "postgres",
                    "-d",
                    "wit_test",
                    "-tAc",
                    sql,
                ],
            )
        };
        let out = psql("SELECT 40 + 2");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "42",
            "{}",
            text(&out)
        );
        c.stop();
        assert!(!psql("SELECT 1").status.success(), "stopped");
        c.restart();
        assert!(psql("SELECT 1").status.success(), "restarted");
    }
}
