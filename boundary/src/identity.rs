//! Who we are: the effective uid every owned file and every peer is compared with.

/// The effective uid of this process.
pub fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}
