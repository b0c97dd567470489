//! Starts a throwaway cluster, prints where it is (`dir server-pid guard-pid`, one line),
//! and holds it until killed: the testkit's tests kill this process with SIGKILL to see
//! that the cluster does not outlive it.

use std::io::Write;

fn main() {
    let cluster = wit_testkit::postgres::Cluster::start();
    let server = cluster.server_pid().expect("the server runs");
    let guard = cluster.guard_pid().expect("the cluster is guarded");
    let mut out = std::io::stdout();
    writeln!(out, "{} {server} {guard}", cluster.dir().display()).expect("stdout");
    out.flush().expect("stdout");
    loop {
        std::thread::park();
    }
}
