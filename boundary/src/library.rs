//! Plugin libraries: opened once without following symlinks, read from that descriptor,
//! hashed, checked, and loaded from a sealed in-memory copy of exactly the hashed bytes.
//!
//! # What is pinned, and why this way
//!
//! A trust grant pins a library by the SHA-256 of its bytes. Hashing a file by its path
//! and then `dlopen`ing the path again is a race: between the two, the file can be
//! replaced (`renameat2(RENAME_EXCHANGE)` swaps two files atomically), and the code that
//! runs is not the code that was hashed. So a library is handled here as bytes, never as a
//! path twice:
//!
//! 1. [`LibraryFile::read`] opens the path **once** (`O_NOFOLLOW | O_NONBLOCK |
//!    O_CLOEXEC`; a path relative to the repository is opened beneath the root with
//!    `openat2(RESOLVE_BENEATH)`, so it cannot escape it), `fstat`s the descriptor (only a
//!    regular file, so `/dev/zero` or a FIFO is refused at once and never hangs the
//!    caller; at most [`MAX_LIBRARY_SIZE`] bytes), and reads and hashes the bytes from that
//!    descriptor.
//! 2. [`LibraryFile::dependencies`] parses the ELF dynamic section of those bytes and
//!    refuses whatever would make the dynamic loader pull in code that is not pinned and
//!    not the system's: an `RPATH`/`RUNPATH` entry that is relative, uses `$ORIGIN`,
//!    `$LIB` or `$PLATFORM`, or is not a system library directory; a `DT_NEEDED` (or
//!    filter) entry that is a path or is not found in the system library directories.
//! 3. [`LibraryFile::load`] copies the bytes into a `memfd_create` file, seals it
//!    (`F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL`: nobody, not even this
//!    process, can change it any more), hashes the sealed copy again and compares it with
//!    the trusted hash, and `dlopen`s `/proc/self/fd/<memfd>`. What the loader maps is
//!    therefore exactly the bytes that were hashed and compared with the grant: a swap on
//!    disk at any moment can only make the grant stale, never run other code.
//!
//! # What is not pinned, and why that is acceptable
//!
//! A plugin's dependencies on system libraries (`libc.so.6`, `libgcc_s.so.1`, …) are not
//! hashed: they are found in `/lib`, `/lib64`, `/usr/lib`, `/usr/lib64` or their multiarch
//! subdirectories, which must be owned by root and not writable by others. Whoever can
//! change them is root and can change wit itself (and the daemon already runs on the same
//! libc), so pinning them would add no protection, only a stale grant on every system
//! update. What a repository can change (a `libdep.so` beside the plugin, found through
//! `RUNPATH $ORIGIN`, replaced by a `git pull`) is refused instead, because it would be
//! unpinned code that the repository controls.
//!
//! The daemon's own environment (`LD_LIBRARY_PATH`, `LD_PRELOAD`) is the user's, not the
//! repository's, and is out of scope; a library that `dlopen`s other files at run time is
//! running trusted code, which is what the grant is about.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use goblin::elf::dynamic::{DT_NEEDED, DT_RPATH, DT_RUNPATH};
use rustix::fs::{MemfdFlags, Mode, OFlags, ResolveFlags, SealFlags};
use sha2::{Digest, Sha256};

/// The largest library read: a plugin is a few MiB, and a bigger file is a mistake or an
/// attempt to make the daemon read without end.
pub const MAX_LIBRARY_SIZE: u64 = 512 * 1024 * 1024;

/// `DT_FILTER` and `DT_AUXILIARY` (`<elf.h>`; goblin has no names for them): libraries the
/// loader loads in place of (or besides) this one's symbols, so dependencies too.
const DT_FILTER: u64 = 0x7fff_ffff;
const DT_AUXILIARY: u64 = 0x7fff_fffd;

/// Why a library was not read, not accepted, or not loaded. The messages name no path:
/// callers put the library's path in front ("analyzer plugin /x/lib.so: …").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LibraryError {
    /// Nothing at the path.
    #[error("file not found")]
    NotFound,
    /// The path names a symlink; it is not followed (the file it points to today may not
    /// be the one it points to at load time).
    #[error("refused: it is a symlink (symlinks are not followed); name the library file itself")]
    Symlink,
    /// A relative path that leaves the repository (`..`, or a symlink on the way out).
    #[error("refused: it points outside the repository ({why})")]
    Outside {
        /// What leaves the root.
        why: String,
    },
    /// A directory, FIFO, socket or device.
    #[error("refused: not a regular file (a {kind})")]
    NotRegular {
        /// What it is instead.
        kind: &'static str,
    },
    /// Larger than [`MAX_LIBRARY_SIZE`].
    #[error("refused: {size} bytes is more than the limit of {limit} bytes for a library")]
    TooLarge {
        /// Its size (or the bytes read so far, for a file that grew).
        size: u64,
        /// The cap.
        limit: u64,
    },
    /// Reading failed.
    #[error("cannot read it: {message}")]
    Io {
        /// The kind of I/O error.
        kind: std::io::ErrorKind,
        /// The error, as text (so this error can be cloned and compared).
        message: String,
    },
    /// The file says it is ELF but its headers or dynamic section cannot be parsed.
    #[error("refused: not a valid ELF file: {0}")]
    MalformedElf(String),
    /// An `RPATH`/`RUNPATH` entry that would let the loader find dependencies outside the
    /// system library directories.
    #[error(
        "refused: its {tag} entry {entry:?} {why}; only system library directories are allowed (link without -rpath, or install the dependencies system-wide)"
    )]
    SearchPath {
        /// `DT_RPATH` or `DT_RUNPATH`.
        tag: &'static str,
        /// The entry (one element of the colon-separated list).
        entry: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A `DT_NEEDED` (or `DT_FILTER`/`DT_AUXILIARY`) entry that is not a system library.
    #[error(
        "refused: its {tag} entry {entry:?} {why}; a plugin may depend only on system libraries (link its other dependencies statically)"
    )]
    Dependency {
        /// `DT_NEEDED`, `DT_FILTER` or `DT_AUXILIARY`.
        tag: &'static str,
        /// The library name as written in the ELF file.
        entry: String,
        /// What is wrong with it.
        why: String,
    },
    /// The bytes about to be loaded do not hash as trusted.
    #[error("its content changed: sha256:{found} is not the trusted sha256:{expected}")]
    Changed {
        /// The trusted hash.
        expected: String,
        /// The hash of the bytes that would have been loaded.
        found: String,
    },
    /// The in-memory copy could not be made (`memfd_create`, sealing, `/proc` missing).
    #[error("cannot make the sealed in-memory copy to load: {0}")]
    Memfd(String),
    /// The dynamic loader refused the bytes.
    #[error("{0}")]
    Dlopen(String),
}

impl LibraryError {
    fn io(e: impl Into<std::io::Error>) -> Self {
        let e = e.into();
        LibraryError::Io {
            kind: e.kind(),
            message: e.to_string(),
        }
    }

    /// Whether the file simply does not exist (as opposed to being refused).
    pub fn is_not_found(&self) -> bool {
        matches!(self, LibraryError::NotFound)
    }
}

/// A system library a plugin depends on: found, root-owned, **not pinned** (see the module
/// docs for why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemLibrary {
    /// The `DT_NEEDED` name (`libc.so.6`).
    pub name: String,
    /// Where it was found (`/usr/lib/x86_64-linux-gnu/libc.so.6`).
    pub path: PathBuf,
}

/// A library file read once from one descriptor: its bytes, their hash, and warnings
/// about who else could change the file.
pub struct LibraryFile {
    path: PathBuf,
    bytes: Vec<u8>,
    sha256: String,
    warnings: Vec<String>,
}

impl std::fmt::Debug for LibraryFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LibraryFile")
            .field("path", &self.path)
            .field("size", &self.bytes.len())
            .field("sha256", &self.sha256)
            .field("warnings", &self.warnings)
            .finish()
    }
}

impl LibraryFile {
    /// Opens `configured` (a path from `wit.toml`: absolute, or relative to `root`, in
    /// which case it is opened beneath `root`) once and reads it (see the module docs).
    ///
    /// # Errors
    /// [`LibraryError::NotFound`], [`LibraryError::Symlink`], [`LibraryError::Outside`],
    /// [`LibraryError::NotRegular`], [`LibraryError::TooLarge`] or [`LibraryError::Io`].
    pub fn read(root: &Path, configured: &Path) -> Result<Self, LibraryError> {
        let (mut file, meta, path) = open_checked(root, configured)?;
        let mut bytes = Vec::with_capacity(meta.size() as usize);
        // `take` catches a file that grows while it is read.
        (&mut file)
            .take(MAX_LIBRARY_SIZE + 1)
            .read_to_end(&mut bytes)
            .map_err(LibraryError::io)?;
        if bytes.len() as u64 > MAX_LIBRARY_SIZE {
            return Err(LibraryError::TooLarge {
                size: bytes.len() as u64,
                limit: MAX_LIBRARY_SIZE,
            });
        }
        let warnings = warnings_for(&path, meta.mode(), meta.uid());
        Ok(LibraryFile {
            sha256: sha256_hex(&bytes),
            path,
            bytes,
            warnings,
        })
    }

    /// The path it was read from (absolute: `root` joined with a relative path).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// SHA-256 of the bytes read, lowercase hex.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// The number of bytes read.
    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// The bytes read.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Who else could replace the file: the file or its directory writable by group or
    /// others, or the file owned by another user. Shown by `wit trust`, logged by the
    /// daemon; not a refusal (the bytes are pinned anyway), a reason to fix permissions.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The system libraries these bytes depend on, after refusing any dependency or search
    /// path that is not the system's (module docs). A file that is not ELF at all has no
    /// dependencies here; the dynamic loader refuses it at [`LibraryFile::load`].
    ///
    /// # Errors
    /// [`LibraryError::MalformedElf`], [`LibraryError::SearchPath`] or
    /// [`LibraryError::Dependency`], naming the entry.
    pub fn dependencies(&self) -> Result<Vec<SystemLibrary>, LibraryError> {
        dependencies(&self.bytes)
    }

    /// Loads exactly these bytes, if they hash as `trusted_sha256`: checks the
    /// dependencies, copies the bytes into a sealed memfd, hashes the sealed copy, and
    /// `dlopen`s it. Running the library's initialisers is the point: call this only for a
    /// trusted library.
    ///
    /// The library is never unloaded (the handle is `'static`), and the same bytes are
    /// mapped once per process: loading them again returns the same handle, as `dlopen` of
    /// one path twice would.
    ///
    /// # Errors
    /// [`LibraryError::Changed`] when the bytes do not hash as `trusted_sha256`; the errors
    /// of [`LibraryFile::dependencies`]; [`LibraryError::Memfd`]; [`LibraryError::Dlopen`]
    /// when the dynamic loader refuses the bytes (not a shared library).
    pub fn load(&self, trusted_sha256: &str) -> Result<&'static libloading::Library, LibraryError> {
        if self.sha256 != trusted_sha256 {
            return Err(LibraryError::Changed {
                expected: trusted_sha256.to_owned(),
                found: self.sha256.clone(),
            });
        }
        self.dependencies()?;
        // One lock for the whole load: two threads loading the same bytes map them once.
        static LOADED: OnceLock<Mutex<HashMap<String, &'static libloading::Library>>> =
            OnceLock::new();
        let mut loaded = LOADED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(library) = loaded.get(&self.sha256) {
            return Ok(library);
        }
        let memfd = sealed_copy(&self.path, &self.bytes)?;
        let found = hash_fd(&memfd)?;
        if found != trusted_sha256 {
            return Err(LibraryError::Changed {
                expected: trusted_sha256.to_owned(),
                found,
            });
        }
        let proc_path = format!("/proc/self/fd/{}", memfd.as_raw_fd());
        // SAFETY: opening a library runs its initialisers: arbitrary code. That is what the
        // caller's trust check gates: these bytes hash as the trusted hash (checked on the
        // sealed copy just above, which nobody can change any more).
        let library = unsafe { libloading::Library::new(&proc_path) }.map_err(|e| {
            // The loader names /proc/self/fd/N; the user knows the library by its path.
            LibraryError::Dlopen(
                e.to_string()
                    .replace(&proc_path, &self.path.display().to_string()),
            )
        })?;
        // Keep the memfd open for the life of the process: the loader remembers libraries
        // by name, and a closed descriptor's number (so its /proc/self/fd/N name) would be
        // reused by the next memfd, which dlopen would then take for this library.
        std::mem::forget(memfd);
        // Never unloaded (see the daemon's plugin loader): leak the handle.
        let library: &'static libloading::Library = Box::leak(Box::new(library));
        loaded.insert(self.sha256.clone(), library);
        Ok(library)
    }
}

/// Opens and `fstat`s `configured` like [`LibraryFile::read`], without reading it: whether
/// it would be refused (not found, a symlink, outside, not a regular file, too large).
/// For a repository with no grant, where there is nothing to compare a hash with.
///
/// # Errors
/// The errors of [`LibraryFile::read`] that come before reading.
pub fn examine(root: &Path, configured: &Path) -> Result<(), LibraryError> {
    open_checked(root, configured).map(|_| ())
}

/// Opens `configured` and checks the descriptor: a regular file under the cap.
fn open_checked(
    root: &Path,
    configured: &Path,
) -> Result<(File, std::fs::Metadata, PathBuf), LibraryError> {
    let (fd, path) = open(root, configured)?;
    let file = File::from(fd);
    let meta = file.metadata().map_err(LibraryError::io)?;
    if !meta.file_type().is_file() {
        return Err(LibraryError::NotRegular {
            kind: crate::repo_file::kind_of(&meta),
        });
    }
    if meta.size() > MAX_LIBRARY_SIZE {
        return Err(LibraryError::TooLarge {
            size: meta.size(),
            limit: MAX_LIBRARY_SIZE,
        });
    }
    Ok((file, meta, path))
}

/// The permission warnings for the library at `path` as it is now (see
/// [`LibraryFile::warnings`]); empty when it cannot be examined. For listings made after
/// the load (`wit analyzers`), which see the same file the daemon named.
pub fn permission_warnings(path: &Path) -> Vec<String> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => warnings_for(path, meta.mode(), meta.uid()),
        Err(_) => Vec::new(),
    }
}

fn warnings_for(path: &Path, mode: u32, uid: u32) -> Vec<String> {
    let mut out = Vec::new();
    let euid = crate::identity::euid();
    if mode & 0o022 != 0 {
        out.push(format!(
            "the library {} is writable by {} (mode {:03o}): anyone who can write it can replace the code you trust; run `chmod go-w` on it",
            path.display(),
            who_writes(mode),
            mode & 0o777
        ));
    }
    if uid != euid && uid != 0 {
        out.push(format!(
            "the library {} is owned by uid {uid}, who can replace it",
            path.display()
        ));
    }
    if let Some(dir) = path.parent()
        && let Ok(meta) = std::fs::metadata(dir)
    {
        let dmode = meta.permissions().mode();
        // In a sticky directory (/tmp) others cannot rename or delete our file.
        if dmode & 0o022 != 0 && dmode & 0o1000 == 0 {
            out.push(format!(
                "the directory {} is writable by {} (mode {:03o}): anyone who can write it can swap the library for another; run `chmod go-w` on it",
                dir.display(),
                who_writes(dmode),
                dmode & 0o777
            ));
        }
    }
    out
}

fn who_writes(mode: u32) -> &'static str {
    match (mode & 0o020 != 0, mode & 0o002 != 0) {
        (true, true) => "group and others",
        (true, false) => "its group",
        _ => "others",
    }
}

/// Opens the library without following a symlink at the last step; a relative path
/// beneath `root` (no step out of it, symlinks on the way included).
fn open(root: &Path, configured: &Path) -> Result<(OwnedFd, PathBuf), LibraryError> {
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    if configured.is_absolute() {
        let fd = rustix::fs::open(configured, flags, Mode::empty()).map_err(map_open_error)?;
        return Ok((fd, configured.to_owned()));
    }
    let outside = |why: &str| LibraryError::Outside {
        why: why.to_owned(),
    };
    if configured.as_os_str().is_empty() {
        return Err(LibraryError::NotFound);
    }
    for c in configured.components() {
        match c {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return Err(outside("it contains `..`")),
            Component::RootDir | Component::Prefix(_) => return Err(outside("it is absolute")),
        }
    }
    let path = root.join(configured);
    let dir = rustix::fs::open(
        root,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(LibraryError::io)?;
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
    match rustix::fs::openat2(&dir, configured, flags, Mode::empty(), resolve) {
        Ok(fd) => Ok((fd, path)),
        Err(rustix::io::Errno::NOSYS) => {
            // Before Linux 5.6: resolve the directory, require it inside the root, and
            // open the last step without following a symlink.
            let root_c = root.canonicalize().map_err(LibraryError::io)?;
            let parent = path
                .parent()
                .and_then(|p| p.canonicalize().ok())
                .ok_or(LibraryError::NotFound)?;
            if !parent.starts_with(&root_c) {
                return Err(LibraryError::Outside {
                    why: format!("its directory resolves to {}", parent.display()),
                });
            }
            let name = path.file_name().ok_or(LibraryError::NotFound)?;
            let fd = rustix::fs::open(parent.join(name), flags, Mode::empty())
                .map_err(map_open_error)?;
            Ok((fd, path))
        }
        Err(rustix::io::Errno::XDEV) => Err(outside(
            "a symlink on the way leads out of the repository, or is absolute",
        )),
        Err(e) => Err(map_open_error(e)),
    }
}

fn map_open_error(e: rustix::io::Errno) -> LibraryError {
    match e {
        rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR => LibraryError::NotFound,
        // O_NOFOLLOW on a symlink (or a chain of symlinks too long to follow).
        rustix::io::Errno::LOOP => LibraryError::Symlink,
        rustix::io::Errno::ISDIR => LibraryError::NotRegular { kind: "directory" },
        e => LibraryError::io(e),
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Copies `bytes` into a new memfd and seals it against any change.
fn sealed_copy(path: &Path, bytes: &[u8]) -> Result<OwnedFd, LibraryError> {
    let memfd_err = |what: &str, e: rustix::io::Errno| {
        LibraryError::Memfd(format!("{what}: {}", std::io::Error::from(e)))
    };
    // The name shows in /proc/PID/maps, which helps whoever debugs the daemon.
    let name = format!(
        "wit-plugin:{}",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    let flags = MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING;
    // MFD_EXEC (Linux 6.3) says we mean to execute it, so `vm.memfd_noexec=1` does not
    // make it non-executable; older kernels reject the flag, and need none.
    let fd = match rustix::fs::memfd_create(&name, flags | MemfdFlags::EXEC) {
        Err(rustix::io::Errno::INVAL) => rustix::fs::memfd_create(&name, flags),
        other => other,
    }
    .map_err(|e| memfd_err("memfd_create", e))?;
    let mut file = File::from(fd);
    file.write_all(bytes)
        .map_err(|e| LibraryError::Memfd(format!("copying the library: {e}")))?;
    let fd = OwnedFd::from(file);
    rustix::fs::fcntl_add_seals(
        &fd,
        SealFlags::WRITE | SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL,
    )
    .map_err(|e| memfd_err("sealing", e))?;
    Ok(fd)
}

/// SHA-256 of a (sealed) file's whole content, read with `pread` from offset 0.
fn hash_fd(fd: &OwnedFd) -> Result<String, LibraryError> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut offset = 0u64;
    loop {
        let n = rustix::io::pread(fd, &mut buf[..], offset)
            .map_err(|e| LibraryError::Memfd(format!("reading the sealed copy: {e}")))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        offset += n as u64;
    }
    Ok(hex(&hasher.finalize()))
}

/// The directories the dynamic loader searches by default on this system, that exist, are
/// directories owned by root and are not writable by others (nor by a group other than
/// root's).
pub fn system_library_dirs() -> Vec<PathBuf> {
    let multiarch = multiarch();
    let mut candidates: Vec<PathBuf> = Vec::new();
    for base in ["/lib", "/lib64", "/usr/lib", "/usr/lib64"] {
        if let Some(triple) = multiarch {
            candidates.push(Path::new(base).join(triple));
        }
        candidates.push(PathBuf::from(base));
    }
    candidates
        .into_iter()
        .filter(|dir| std::fs::metadata(dir).is_ok_and(|m| m.is_dir() && root_owned_and_closed(&m)))
        .collect()
}

fn root_owned_and_closed(meta: &std::fs::Metadata) -> bool {
    let mode = meta.mode();
    meta.uid() == 0 && mode & 0o002 == 0 && (mode & 0o020 == 0 || meta.gid() == 0)
}

/// The Debian-style multiarch tuple of this architecture.
fn multiarch() -> Option<&'static str> {
    match std::env::consts::ARCH {
        "x86_64" => Some("x86_64-linux-gnu"),
        "aarch64" => Some("aarch64-linux-gnu"),
        "x86" => Some("i386-linux-gnu"),
        "arm" => Some("arm-linux-gnueabihf"),
        "riscv64" => Some("riscv64-linux-gnu"),
        "powerpc64" => Some("powerpc64le-linux-gnu"),
        "s390x" => Some("s390x-linux-gnu"),
        _ => None,
    }
}

/// Whether `dir` (absolute, already checked for `$` and emptiness) is one of `system`,
/// spelled plainly (no `..`, no `.`; a trailing `/` is fine).
fn is_system_dir(dir: &str, system: &[PathBuf]) -> bool {
    let p = Path::new(dir);
    let plain = p
        .components()
        .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
    // `components` hides `.` in the middle of a path: compare the text too.
    plain && !dir.contains("/./") && system.iter().any(|s| s == p)
}

fn dependencies(bytes: &[u8]) -> Result<Vec<SystemLibrary>, LibraryError> {
    if !bytes.starts_with(b"\x7fELF") {
        return Ok(Vec::new());
    }
    let elf =
        goblin::elf::Elf::parse(bytes).map_err(|e| LibraryError::MalformedElf(e.to_string()))?;
    let Some(dynamic) = &elf.dynamic else {
        return Ok(Vec::new());
    };
    let system = system_library_dirs();
    let string = |tag: &'static str, offset: u64| {
        elf.dynstrtab.get_at(offset as usize).ok_or_else(|| {
            LibraryError::MalformedElf(format!(
                "a {tag} entry points outside the dynamic string table"
            ))
        })
    };
    // Search paths first: they decide where every name below would be found.
    for d in &dynamic.dyns {
        let tag = match d.d_tag {
            DT_RPATH => "DT_RPATH",
            DT_RUNPATH => "DT_RUNPATH",
            _ => continue,
        };
        for entry in string(tag, d.d_val)?.split(':') {
            let why = if entry.is_empty() {
                Some("is empty (the current directory)")
            } else if entry.contains('$') {
                Some(
                    "uses a loader variable ($ORIGIN, $LIB or $PLATFORM): a directory the library's location decides",
                )
            } else if !entry.starts_with('/') {
                Some("is relative")
            } else if !is_system_dir(entry, &system) {
                Some("is not a system library directory")
            } else {
                None
            };
            if let Some(why) = why {
                return Err(LibraryError::SearchPath {
                    tag,
                    entry: entry.to_owned(),
                    why,
                });
            }
        }
    }
    let mut found = Vec::new();
    for d in &dynamic.dyns {
        let tag = match d.d_tag {
            DT_NEEDED => "DT_NEEDED",
            DT_FILTER => "DT_FILTER",
            DT_AUXILIARY => "DT_AUXILIARY",
            _ => continue,
        };
        let name = string(tag, d.d_val)?;
        let refuse = |why: String| LibraryError::Dependency {
            tag,
            entry: name.to_owned(),
            why,
        };
        if name.is_empty() {
            return Err(refuse("is empty".into()));
        }
        if name.contains('/') {
            return Err(refuse(
                "contains `/` (a path, not the name of a system library)".into(),
            ));
        }
        if name.contains('$') {
            return Err(refuse(
                "uses a loader variable ($ORIGIN, $LIB or $PLATFORM)".into(),
            ));
        }
        let path = system
            .iter()
            .map(|dir| dir.join(name))
            .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))
            .ok_or_else(|| {
                refuse(format!(
                    "is not found in the system library directories ({})",
                    system
                        .iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        // The file itself (past any symlink) must be root's too, like its directory.
        let real = path.canonicalize().unwrap_or_else(|_| path.clone());
        if !std::fs::metadata(&real).is_ok_and(|m| root_owned_and_closed(&m)) {
            return Err(refuse(format!(
                "resolves to {}, which is not owned by root or is writable by others",
                real.display()
            )));
        }
        if !found.iter().any(|s: &SystemLibrary| s.name == name) {
            found.push(SystemLibrary {
                name: name.to_owned(),
                path,
            });
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_stay_beneath_the_root_and_symlinks_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("lib")).unwrap();
        std::fs::write(root.join("lib/a.so"), b"bytes").unwrap();
        std::os::unix::fs::symlink("a.so", root.join("lib/link.so")).unwrap();
        let f = LibraryFile::read(root, Path::new("lib/a.so")).unwrap();
        assert_eq!(f.bytes(), b"bytes");
        assert_eq!(f.size(), 5);
        assert_eq!(f.path(), root.join("lib/a.so"));
        assert_eq!(f.sha256(), sha256_hex(b"bytes"));
        assert_eq!(
            f.dependencies().unwrap(),
            Vec::new(),
            "not ELF: nothing to check"
        );
        let e = LibraryFile::read(root, Path::new("lib/link.so")).unwrap_err();
        assert_eq!(e, LibraryError::Symlink);
        let e = LibraryFile::read(root, &root.join("lib/link.so")).unwrap_err();
        assert_eq!(e, LibraryError::Symlink);
        let e = LibraryFile::read(root, Path::new("../x.so")).unwrap_err();
        assert!(matches!(e, LibraryError::Outside { .. }), "{e}");
        assert!(
            LibraryFile::read(root, Path::new("lib/nope.so"))
                .unwrap_err()
                .is_not_found()
        );
    }

    #[test]
    fn devices_and_fifos_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.so");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        for p in [Path::new("/dev/zero"), &fifo] {
            let e = LibraryFile::read(dir.path(), p).unwrap_err();
            assert!(matches!(e, LibraryError::NotRegular { .. }), "{e}");
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
    }

    #[test]
    fn search_paths_must_be_system_directories() {
        let system = system_library_dirs();
        assert!(
            system.iter().any(|d| d == Path::new("/usr/lib")),
            "{system:?}"
        );
        assert!(is_system_dir("/usr/lib", &system));
        assert!(!is_system_dir("/usr/lib/../../tmp", &system));
        assert!(!is_system_dir("/usr/./lib", &system));
        assert!(!is_system_dir("/opt/lib", &system));
    }
}
