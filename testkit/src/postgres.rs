//! A throwaway PostgreSQL cluster (see the crate documentation).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A running PostgreSQL server in a temp directory; stopped (fast) and removed on drop.
pub struct Cluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    as_postgres: bool,
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
        let dir = tempfile::Builder::new()
            .prefix("wit-pg-")
            .tempdir()
            .expect("temp dir for the cluster");
        let cluster = Cluster {
            dir,
            bin,
            as_postgres,
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

    /// Runs one of the server's programs, as `postgres` when we are root.
    fn run(&self, program: &str, args: &[&str]) -> Output {
        let exe = self.bin.join(program);
        let mut cmd = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        cmd.args(args)
            .stdin(Stdio::null())
            .env_remove("PGHOST")
            .env_remove("PGPORT")
            .env_remove("PGDATABASE")
            .env_remove("PGUSER");
        cmd.output()
            .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()))
    }
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
