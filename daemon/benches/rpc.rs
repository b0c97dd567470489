//! Latency bench (placeholder while the daemon is built).
fn main() {}
