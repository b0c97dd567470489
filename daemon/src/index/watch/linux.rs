//! The watcher's source on Linux: inotify, read by the index thread itself.
//!
//! `notify` (the portable source) asks inotify for every open of a file in a watched
//! directory; the daemon's own reads of source files are such opens, so each request
//! would queue an event and wake a thread for nothing (~15 µs of CPU per file read,
//! measured). Here the mask holds only what can change a file's content or existence,
//! and the same thread that re-reads files waits on the descriptor: no event thread, no
//! channel.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

use super::{Change, Source, Status, Waker};

/// Content changes, creations, deletions and renames in a directory, and the directory's
/// own removal. Never a symlink followed (`DONT_FOLLOW`), only directories (`ONLYDIR`).
fn mask() -> WatchMask {
    WatchMask::MODIFY
        | WatchMask::CLOSE_WRITE
        | WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::DONT_FOLLOW
        | WatchMask::ONLYDIR
}

/// inotify, the directory (relative) of each watch, and the eventfd its waker writes.
pub(super) struct InotifySource {
    inotify: Inotify,
    dirs: HashMap<WatchDescriptor, String>,
    buffer: Vec<u8>,
    wake: Arc<OwnedFd>,
}

impl InotifySource {
    pub(super) fn new() -> std::io::Result<Self> {
        // SAFETY: eventfd takes no pointers; a non-negative result is a new descriptor
        // that nothing else owns.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and is owned by nothing else.
        let wake = Arc::new(unsafe { OwnedFd::from_raw_fd(fd) });
        Ok(Self {
            inotify: Inotify::init()?,
            dirs: HashMap::new(),
            buffer: vec![0; 64 * 1024],
            wake,
        })
    }

    /// Waits until inotify's descriptor is readable, the waker was called, or `timeout`
    /// passes; whether inotify's descriptor is readable.
    fn readable(&self, timeout: Option<Duration>) -> bool {
        let ms = timeout.map_or(-1, |t| t.as_millis().min(i32::MAX as u128) as i32);
        let mut fds =
            [self.inotify.as_fd().as_raw_fd(), self.wake.as_raw_fd()].map(|fd| libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            });
        // SAFETY: two valid pollfds, for descriptors this value owns, for the duration of
        // the call.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
        if n > 0 && fds[1].revents & libc::POLLIN != 0 {
            // Reset the counter (non-blocking): the wake-up has been seen.
            let mut count = 0u64;
            // SAFETY: reads at most 8 bytes into `count`, which has 8.
            unsafe { libc::read(self.wake.as_raw_fd(), (&raw mut count).cast(), 8) };
        }
        n > 0 && fds[0].revents & libc::POLLIN != 0
    }
}

impl Source for InotifySource {
    fn waker(&self) -> Waker {
        let wake = self.wake.clone();
        Box::new(move || {
            let one = 1u64;
            // SAFETY: writes the 8 bytes of `one` to an eventfd this closure keeps open.
            // It cannot fail but by overflowing the counter, which still wakes the wait.
            unsafe { libc::write(wake.as_raw_fd(), (&raw const one).cast(), 8) };
        })
    }

    fn watch(&mut self, root: &Path, rel: &str) -> Result<(), String> {
        let wd = self
            .inotify
            .watches()
            .add(root.join(rel), mask())
            .map_err(|e| e.to_string())?;
        self.dirs.insert(wd, rel.to_owned());
        Ok(())
    }

    fn wait(
        &mut self,
        timeout: Option<Duration>,
        out: &mut Vec<(Instant, Change)>,
        forgotten: &mut Vec<String>,
    ) -> Status {
        if !self.readable(timeout) {
            return Status::Ok;
        }
        let mut status = Status::Ok;
        loop {
            let events = match self.inotify.read_events(&mut self.buffer) {
                Ok(events) => events,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    tracing::warn!("the file watcher stopped: {e}");
                    return Status::Closed;
                }
            };
            let now = Instant::now();
            let mut any = false;
            for event in events {
                any = true;
                if event.mask.contains(EventMask::Q_OVERFLOW) {
                    status = Status::Overflow;
                    continue;
                }
                if event.mask.contains(EventMask::IGNORED) {
                    // The directory is gone (or unmounted): its watch with it.
                    if let Some(dir) = self.dirs.remove(&event.wd) {
                        forgotten.push(dir);
                    }
                    continue;
                }
                let Some(dir) = self.dirs.get(&event.wd) else {
                    continue;
                };
                // Events about the watched directory itself carry no name.
                let Some(name) = event.name.and_then(|n| n.to_str()) else {
                    continue;
                };
                let rel = if dir.is_empty() {
                    name.to_owned()
                } else {
                    format!("{dir}/{name}")
                };
                let new_dir = event.mask.contains(EventMask::ISDIR)
                    && event
                        .mask
                        .intersects(EventMask::CREATE | EventMask::MOVED_TO);
                out.push((now, Change { rel, new_dir }));
            }
            if !any {
                break;
            }
        }
        status
    }
}
