//! Percentiles and formatting.

use std::time::Duration;

/// Latency samples of one measure.
#[derive(Default, Clone)]
pub struct Samples(pub Vec<Duration>);

impl Samples {
    /// The `q`-quantile (0.0..=1.0), nearest-rank.
    pub fn quantile(&self, q: f64) -> Duration {
        if self.0.is_empty() {
            return Duration::ZERO;
        }
        let mut v = self.0.clone();
        v.sort_unstable();
        let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
        v[rank - 1]
    }

    /// Median.
    pub fn p50(&self) -> Duration {
        self.quantile(0.5)
    }

    /// 99th percentile.
    pub fn p99(&self) -> Duration {
        self.quantile(0.99)
    }
}

/// Microseconds as a float, for tables and JSON.
pub fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Resident set size of a process in KiB, from /proc.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
