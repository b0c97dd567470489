//! The daemon's background threads (the index build's workers, the preparing thread) run
//! at nice 10, so that they never compete on equal terms with the threads answering
//! requests: they use the CPU nobody else is asking for, yet still progress on a busy
//! machine (a lower share, never none).

/// Lowers the calling thread's scheduling priority to nice 10 (only this thread's: on
/// Linux `setpriority` with a thread id applies to that thread). A thread whose priority
/// cannot be changed (a daemon already running nicer than that, with no right to raise
/// it back) keeps its own.
pub(crate) fn lower_this_thread() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: setpriority with PRIO_PROCESS and a thread id changes only that thread's
        // nice value; it takes no pointers.
        let result =
            unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10) };
        if result != 0 {
            tracing::debug!(
                "a background thread keeps the daemon's priority: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}
