//! The watcher's portable source: `notify` (FSEvents, kqueue, ReadDirectoryChangesW, and
//! inotify where the Linux source cannot start), events handed over by notify's own
//! thread through a channel.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

use notify::event::{Flag, ModifyKind};
use notify::{EventKind, RecursiveMode, Watcher as _};

use super::{Change, Source, Status, Waker};

/// What notify's thread (an event, with the moment it was read) or the waker (`None`)
/// hands to the waiting watcher.
type Message = Option<(Instant, notify::Event)>;

/// notify's watcher and the channel of its events.
pub(super) struct NotifySource {
    root: PathBuf,
    inner: notify::RecommendedWatcher,
    events: Receiver<Message>,
    /// The waker's end of the channel.
    wake: Sender<Message>,
}

impl NotifySource {
    pub(super) fn new(root: &Path) -> notify::Result<Self> {
        let (tx, events) = channel();
        let wake = tx.clone();
        // Only events that can change the index are passed on: every open and close in a
        // watched directory (the daemon's own reads included) would otherwise wake the
        // index thread for nothing.
        let inner = notify::recommended_watcher(move |e: notify::Result<notify::Event>| {
            if let Ok(e) = e
                && !matches!(e.kind, EventKind::Access(_))
            {
                let _ = tx.send(Some((Instant::now(), e)));
            }
        })?;
        Ok(Self {
            root: root.to_owned(),
            inner,
            events,
            wake,
        })
    }

    fn take(&self, at: Instant, event: notify::Event, out: &mut Vec<(Instant, Change)>) -> Status {
        if event.flag() == Some(Flag::Rescan) {
            return Status::Overflow;
        }
        for p in &event.paths {
            let Some(rel) = super::relative(&self.root, p) else {
                continue;
            };
            // A symlink to a directory is not one: it is never followed (see `watch`).
            let new_dir = matches!(
                event.kind,
                EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(_))
            ) && super::real_dir(p);
            out.push((at, Change { rel, new_dir }));
        }
        Status::Ok
    }
}

impl Source for NotifySource {
    fn waker(&self) -> Waker {
        let wake = self.wake.clone();
        Box::new(move || {
            let _ = wake.send(None);
        })
    }

    /// notify follows a symlink it is asked to watch: a directory that is a symlink (to
    /// anywhere, outside the repository included) is refused here instead.
    fn watch(&mut self, root: &Path, rel: &str) -> Result<(), String> {
        let path = root.join(rel);
        if !super::real_dir(&path) {
            return Err("not a directory (a symlink is never followed)".into());
        }
        self.inner
            .watch(&path, RecursiveMode::NonRecursive)
            .map_err(|e| e.to_string())
    }

    fn wait(
        &mut self,
        timeout: Option<Duration>,
        out: &mut Vec<(Instant, Change)>,
        _forgotten: &mut Vec<String>,
    ) -> Status {
        let first = match timeout {
            None => self
                .events
                .recv()
                .map_err(|_| RecvTimeoutError::Disconnected),
            Some(t) => self.events.recv_timeout(t),
        };
        let mut status = match first {
            Ok(Some((at, event))) => self.take(at, event, out),
            Ok(None) | Err(RecvTimeoutError::Timeout) => Status::Ok,
            Err(RecvTimeoutError::Disconnected) => return Status::Closed,
        };
        while let Ok(message) = self.events.try_recv() {
            if let Some((at, event)) = message
                && self.take(at, event, out) == Status::Overflow
            {
                status = Status::Overflow;
            }
        }
        status
    }
}
