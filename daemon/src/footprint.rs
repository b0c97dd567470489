//! The daemon's memory footprint after start-up.
//!
//! Most of an idle daemon's resident memory is not its data (about 3 MiB) but its own
//! executable: a page of code or of read-only data (tree-sitter's parse tables, among
//! others) is resident once any byte of it was used, and the kernel maps the cached pages
//! around each one that faults too ("fault-around", 64 KiB at a time). Start-up uses much
//! that never runs again (configuration, migrations, the analyzer registry, the index
//! build over every language present), spread over the 15 MiB of code and 11 MiB of
//! read-only data of the one `wit` binary (the CLI, the MCP server and the daemon); an
//! idle daemon kept about 14 MiB of its executable resident. Once start-up is over, those
//! pages are dropped from the daemon's page tables: what serving uses faults back in from
//! the page cache (a minor fault, microseconds), the rest stays out.

/// Drops this process's pages of its own executable that equal the file (Linux;
/// elsewhere nothing).
pub(crate) fn drop_executable_pages() {
    #[cfg(target_os = "linux")]
    linux::drop_executable_pages();
}

/// Gives free heap memory back to the system (glibc keeps freed memory for reuse).
pub(crate) fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free heap memory; it takes no pointers.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// How long a daemon must have answered no request before it sheds again.
const SHED_AFTER_QUIET: std::time::Duration = std::time::Duration::from_secs(30);

/// Sheds the daemon's footprint once start-up is over, and again whenever it has been
/// quiet (no request answered) for [`SHED_AFTER_QUIET`] since the last time: the timers of
/// an idle daemon (the purge, the worktree and repository checks, the forecast's beat and
/// its store reads) each run a little code, and every page of it that faults brings
/// 64 KiB of the executable back with it; over a minute that grew an idle daemon from
/// about 6.5 to 10 MiB. Shedding costs well under a millisecond (one read of
/// `/proc/self/smaps`, a few `madvise` calls), and what serving needs faults back in from
/// the page cache; a daemon under load is never shed (its pages are in use).
#[derive(Default)]
pub(crate) struct Shedder {
    /// When it last shed, and the count of requests answered then.
    last: Option<(std::time::Instant, u64)>,
    /// The count of requests answered at the last tick, and since when it stands.
    seen: (u64, Option<std::time::Instant>),
}

impl Shedder {
    /// Sheds now (start-up is over); `served` is the count of requests answered so far.
    pub(crate) fn shed(&mut self, served: u64) {
        trim_heap();
        drop_executable_pages();
        self.last = Some((std::time::Instant::now(), served));
    }

    /// Sheds again when nothing was served for [`SHED_AFTER_QUIET`] and something ran
    /// since the last time (the first time only after [`Shedder::shed`]).
    pub(crate) fn tick(&mut self, served: u64) {
        let now = std::time::Instant::now();
        if self.seen.0 != served || self.seen.1.is_none() {
            self.seen = (served, Some(now));
        }
        let quiet = self
            .seen
            .1
            .is_some_and(|since| now.duration_since(since) >= SHED_AFTER_QUIET);
        if let Some((at, _)) = self.last
            && quiet
            && now.duration_since(at) >= SHED_AFTER_QUIET
        {
            self.shed(served);
        }
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::path::Path;

    /// A mapping of `/proc/self/smaps`: its range, permissions, path, and whether any of
    /// its pages differs from the file (written by this process: anonymous).
    struct Mapping<'a> {
        start: usize,
        end: usize,
        perms: &'a str,
        path: Option<&'a str>,
        written: bool,
    }

    fn mappings(smaps: &str) -> Vec<Mapping<'_>> {
        let mut out: Vec<Mapping<'_>> = Vec::new();
        for line in smaps.lines() {
            let mut fields = line.split_whitespace();
            let Some(first) = fields.next() else { continue };
            if let Some((start, end)) = first.split_once('-')
                && let (Ok(start), Ok(end)) = (
                    usize::from_str_radix(start, 16),
                    usize::from_str_radix(end, 16),
                )
            {
                let perms = fields.next().unwrap_or("");
                let path = fields.nth(3);
                out.push(Mapping {
                    start,
                    end,
                    perms,
                    path,
                    written: false,
                });
                continue;
            }
            // A field of the current mapping: `Anonymous:  4 kB`. A page this process wrote
            // in a private file mapping became its own (copy-on-write): it counts as
            // anonymous. The `*_Dirty` fields do not tell that apart: they also count the
            // file's pages that are dirty in the page cache (a binary just linked, before
            // writeback), which still equal the file.
            if first == "Anonymous:"
                && fields.next().is_some_and(|kb| kb != "0")
                && let Some(m) = out.last_mut()
            {
                m.written = true;
            }
        }
        out
    }

    pub(super) fn drop_executable_pages() {
        let Ok(exe) = std::fs::read_link("/proc/self/exe") else {
            return;
        };
        let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
            return;
        };
        for m in mappings(&smaps) {
            // Read-only (code, or data never written: not the relocated RELRO pages,
            // copies of their own since the loader wrote them), private, of this
            // executable, no page differing from it.
            let read_only = m.perms == "r-xp" || m.perms == "r--p";
            if !read_only || m.written || m.path.map(Path::new) != Some(exe.as_path()) {
                continue;
            }
            if m.end <= m.start {
                continue;
            }
            // SAFETY: [start, end) is a whole private mapping of this process's executable
            // with no write permission and, as smaps listed it just now, no anonymous
            // (copy-on-write) page: every page is the file's, and without write
            // permission none can become a copy before this call. MADV_DONTNEED only removes
            // those pages from this process's page tables; the next use of any of them
            // (this function's own code included) faults the same bytes in again from the
            // file. No Rust object is owned by that range.
            let done = unsafe {
                libc::madvise(
                    m.start as *mut libc::c_void,
                    m.end - m.start,
                    libc::MADV_DONTNEED,
                )
            };
            if done != 0 {
                tracing::debug!(
                    "madvise(MADV_DONTNEED) of the executable's pages: {}",
                    std::io::Error::last_os_error()
                );
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::mappings;

        #[test]
        fn only_anonymous_pages_mark_a_mapping_written() {
            // The code's pages dirty in the page cache (just linked) are still the file's;
            // the RELRO segment's relocated pages are copies of this process's own.
            let smaps = "\
5588-5590 r--p 00000000 08:01 12 /usr/bin/wit
Rss:                   4 kB
Private_Dirty:         0 kB
Anonymous:             0 kB
5590-55a0 r-xp 00008000 08:01 12 /usr/bin/wit
Shared_Dirty:         64 kB
Private_Dirty:        32 kB
Anonymous:             0 kB
55a0-55a4 r--p 00018000 08:01 12 /usr/bin/wit
Private_Dirty:         8 kB
Anonymous:             8 kB
55a4-55a8 rw-p 00000000 00:00 0
Anonymous:             4 kB
";
            let m = mappings(smaps);
            let seen: Vec<(&str, Option<&str>, bool)> =
                m.iter().map(|m| (m.perms, m.path, m.written)).collect();
            assert_eq!(
                seen,
                [
                    ("r--p", Some("/usr/bin/wit"), false),
                    ("r-xp", Some("/usr/bin/wit"), false),
                    ("r--p", Some("/usr/bin/wit"), true),
                    ("rw-p", None, true),
                ]
            );
            assert_eq!((m[1].start, m[1].end), (0x5590, 0x55a0));
        }
    }
}
