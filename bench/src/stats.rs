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

/// The CPU time (user and system) process `pid` has used so far, from `/proc`; with
/// `children`, also that of its children it has waited for (the git processes a daemon
/// runs).
pub fn process_cpu(pid: u32, children: bool) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (which may hold spaces, in parentheses), from the
    // state (field 3): utime, stime, cutime and cstime are fields 14 to 17.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| fields.get(i)?.parse::<u64>().ok();
    let mut ticks = field(11)? + field(12)?;
    if children {
        ticks += field(13)? + field(14)?;
    }
    // SAFETY: sysconf takes no pointers.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Some(Duration::from_micros(ticks * 1_000_000 / hz))
}

/// Resident set size of a process in KiB, from /proc.
pub fn rss_kib(pid: u32) -> Option<u64> {
    Memory::of(pid).map(|m| m.rss)
}

/// A process's memory, in KiB, from `/proc/PID/smaps_rollup`.
///
/// - `private`: `Private_Clean + Private_Dirty`, the pages no other process maps: what
///   the process costs the machine beyond what it shares.
/// - `anonymous`: its own memory (heap, stacks, written data), part of `private_dirty`.
/// - the rest of `private` is file-backed: pages of files it alone maps; on an idle
///   daemon, mostly the `wit` binary's code and read-only data (its page cache, clean),
///   which become shared as soon as another process maps them (another worktree's
///   daemon, an agent's `wit mcp`), and SQLite's shared-memory index files.
/// - `rss`: every page mapped, shared ones whole.
#[derive(Debug, Clone, Copy, Default)]
pub struct Memory {
    pub rss: u64,
    pub private_clean: u64,
    pub private_dirty: u64,
    pub anonymous: u64,
}

impl Memory {
    /// The memory of `pid` now; `None` when /proc cannot tell (gone, not Linux).
    pub fn of(pid: u32) -> Option<Memory> {
        let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
        let field = |name: &str| -> Option<u64> {
            rollup
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        };
        Some(Memory {
            rss: field("Rss:")?,
            private_clean: field("Private_Clean:")?,
            private_dirty: field("Private_Dirty:")?,
            anonymous: field("Anonymous:")?,
        })
    }

    /// `Private_Clean + Private_Dirty`.
    pub fn private(&self) -> u64 {
        self.private_clean + self.private_dirty
    }

    /// The larger of each field of two readings.
    pub fn max(self, other: Memory) -> Memory {
        Memory {
            rss: self.rss.max(other.rss),
            private_clean: self.private_clean.max(other.private_clean),
            private_dirty: self.private_dirty.max(other.private_dirty),
            anonymous: self.anonymous.max(other.anonymous),
        }
    }

    /// `private 18.1 MiB (anonymous 3.0 + file-backed 15.1) · RSS 20.4 MiB`.
    pub fn describe(&self) -> String {
        let mib = |k: u64| k as f64 / 1024.0;
        format!(
            "private {:.1} MiB (anonymous {:.1} + file-backed {:.1}) · RSS {:.1} MiB",
            mib(self.private()),
            mib(self.anonymous),
            mib(self.private().saturating_sub(self.anonymous)),
            mib(self.rss)
        )
    }

    /// The JSON of a report row.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "private_kib": self.private(),
            "private_clean_kib": self.private_clean,
            "private_dirty_kib": self.private_dirty,
            "anonymous_kib": self.anonymous,
            "rss_kib": self.rss,
        })
    }
}
