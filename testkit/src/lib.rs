//! Test support shared by wit's crates.
//!
//! [`postgres::Cluster`] starts a real, throwaway PostgreSQL server for a test: `initdb`
//! into a temp directory and `pg_ctl start` listening only on a private Unix socket (no
//! TCP port, so parallel tests never collide). `initdb` refuses to run as root, so when
//! the tests run as root (CI containers) the server runs as the `postgres` user through
//! `runuser`. `.ci/run` makes sure the server binaries are installed. A cluster never
//! outlives its test process, even one killed with SIGKILL ([`reaper`]).

pub mod postgres;
pub mod reaper;
