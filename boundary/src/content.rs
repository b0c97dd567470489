//! A private store of file contents under `.wit/`, keyed by their SHA-256: what one
//! daemon of a repository hands another without putting it anywhere else.
//!
//! The conflict forecast needs, for git's three-way merge of a file two checkouts both
//! changed, each checkout's *uncommitted* version of it. Writing those into the
//! repository's object database (`git hash-object -w`) would make a `0600` private key a
//! world-readable loose object that stays until `git gc --prune` and travels with every
//! copy of `.git`. Instead each checkout's daemon keeps the versions it publishes in a
//! directory of its own under the common `.wit/` (the main worktree's, which every
//! worktree's daemon of the repository shares and nobody else can enter):
//!
//! ```text
//! .wit/<area>/            0700, a real directory of ours (never a symlink)
//! .wit/<area>/<owner>/    0700, one per writer (a checkout), named by the writer
//! .wit/<area>/<owner>/<sha256 hex>   0600, the exact bytes
//! ```
//!
//! Every directory is opened with `O_NOFOLLOW | O_DIRECTORY` and checked (ours, not
//! writable by others), every file with `O_NOFOLLOW` beneath its directory's descriptor.
//! A file is written under a temporary name and renamed into place, so a reader sees
//! nothing or the whole content; a read is bounded and checked against its name (a file
//! that does not hash to its name is treated as missing). Names are hex digests, never
//! paths a repository chose. What is kept, and for how long, is the writer's decision
//! ([`ContentStore::retain`], [`ContentStore::remove_owner`]).

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, Mode, OFlags};
use sha2::{Digest, Sha256};

use crate::identity::euid;
use crate::witdir::{WitDir, WitDirError};

/// The SHA-256 of `bytes`, as 64 lower-case hex digits: a content's name in the store.
pub fn content_id(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `s` can name a content or an owner: 1 to 64 lower-case hex digits.
fn is_name(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The name of an owner's directory for any string (a checkout's path): 16 hex digits of
/// its SHA-256.
pub fn owner_name(owner: &str) -> String {
    hex(&Sha256::digest(owner.as_bytes())[..8])
}

/// One area of contents under `.wit/` (see the module docs).
#[derive(Debug, Clone)]
pub struct ContentStore {
    area: PathBuf,
}

/// Temporary names are unique within the process (and carry its pid).
static NEXT_TMP: AtomicU64 = AtomicU64::new(0);

impl ContentStore {
    /// The area `name` of the checked `.wit/` `wit` (created 0700 when missing).
    pub fn open(wit: &WitDir, name: &str) -> Result<Self, WitDirError> {
        if !is_plain(name) {
            return Err(refused(wit.dir(), format!("{name:?} is not a plain name")));
        }
        if !wit.check()? {
            return Err(refused(wit.dir(), "it does not exist".to_owned()));
        }
        let area = wit.dir().join(name);
        drop(private_dir(&area, true)?);
        Ok(Self { area })
    }

    /// The area's directory.
    pub fn dir(&self) -> &Path {
        &self.area
    }

    fn owner_dir(&self, owner: &str, create: bool) -> Result<OwnedFd, WitDirError> {
        if !is_name(owner) {
            return Err(refused(
                &self.area,
                format!("{owner:?} is not an owner name"),
            ));
        }
        drop(private_dir(&self.area, false)?);
        private_dir(&self.area.join(owner), create)
    }

    /// Stores `bytes` in `owner`'s directory (created when missing); their id. Content
    /// already there is not written again.
    pub fn put(&self, owner: &str, bytes: &[u8]) -> Result<String, WitDirError> {
        let id = content_id(bytes);
        let dir = self.owner_dir(owner, true)?;
        let path = self.area.join(owner).join(&id);
        let io = |e: rustix::io::Errno| WitDirError::io_at(&path, e.into());
        match rustix::fs::statat(&dir, id.as_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st)
                if rustix::fs::FileType::from_raw_mode(st.st_mode)
                    == rustix::fs::FileType::RegularFile
                    && st.st_uid == euid()
                    && st.st_size as u64 == bytes.len() as u64 =>
            {
                return Ok(id);
            }
            _ => {}
        }
        let tmp = format!(
            "tmp-{}-{}",
            std::process::id(),
            NEXT_TMP.fetch_add(1, Ordering::Relaxed)
        );
        let fd = rustix::fs::openat(
            &dir,
            tmp.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )
        .map_err(io)?;
        let mut file = File::from(fd);
        let written = file.write_all(bytes).and_then(|()| {
            rustix::fs::renameat(&dir, tmp.as_str(), &dir, id.as_str()).map_err(Into::into)
        });
        if let Err(e) = written {
            let _ = rustix::fs::unlinkat(&dir, tmp.as_str(), AtFlags::empty());
            return Err(WitDirError::io_at(&path, e));
        }
        Ok(id)
    }

    /// The content `id` of `owner`, read only when at most `limit` bytes; `Ok(None)` when
    /// it is not there (never written, removed since, or not what its name says).
    pub fn get(&self, owner: &str, id: &str, limit: u64) -> Result<Option<Vec<u8>>, WitDirError> {
        if !is_name(id) {
            return Ok(None);
        }
        let dir = match self.owner_dir(owner, false) {
            Ok(d) => d,
            Err(WitDirError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let path = self.area.join(owner).join(id);
        let fd = match rustix::fs::openat(
            &dir,
            id,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOENT) => return Ok(None),
            Err(e) => return Err(WitDirError::io_at(&path, e.into())),
        };
        let st = rustix::fs::fstat(&fd).map_err(|e| WitDirError::io_at(&path, e.into()))?;
        if rustix::fs::FileType::from_raw_mode(st.st_mode) != rustix::fs::FileType::RegularFile
            || st.st_uid != euid()
        {
            return Err(refused(&path, "not a regular file of yours".to_owned()));
        }
        if st.st_size as u64 > limit {
            return Ok(None);
        }
        let mut bytes = Vec::with_capacity(st.st_size as usize);
        File::from(fd)
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| WitDirError::io_at(&path, e))?;
        Ok((bytes.len() as u64 <= limit && content_id(&bytes) == id).then_some(bytes))
    }

    /// Removes every content of `owner` whose id `keep` does not accept (and any
    /// temporary file left by a writer that died). What was removed, in bytes.
    pub fn retain(&self, owner: &str, keep: &dyn Fn(&str) -> bool) -> Result<u64, WitDirError> {
        let dir = match self.owner_dir(owner, false) {
            Ok(d) => d,
            Err(WitDirError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                return Ok(0);
            }
            Err(e) => return Err(e),
        };
        let mut freed = 0;
        for name in names(&dir, &self.area.join(owner))? {
            if name.to_str().is_ok_and(|n| is_name(n) && keep(n)) {
                continue;
            }
            if let Ok(st) = rustix::fs::statat(&dir, name.as_c_str(), AtFlags::SYMLINK_NOFOLLOW) {
                freed += st.st_size as u64;
            }
            let _ = rustix::fs::unlinkat(&dir, name.as_c_str(), AtFlags::empty());
        }
        Ok(freed)
    }

    /// Removes `owner`'s directory and everything in it.
    pub fn remove_owner(&self, owner: &str) -> Result<(), WitDirError> {
        self.retain(owner, &|_| false)?;
        match rustix::fs::unlinkat(&private_dir(&self.area, false)?, owner, AtFlags::REMOVEDIR) {
            Ok(()) | Err(rustix::io::Errno::NOENT) => Ok(()),
            Err(e) => Err(WitDirError::io_at(&self.area.join(owner), e.into())),
        }
    }

    /// The owners with a directory in the area, each with the age of its directory (time
    /// since its last change).
    pub fn owners(&self) -> Result<Vec<(String, std::time::Duration)>, WitDirError> {
        let dir = private_dir(&self.area, false)?;
        let mut out = Vec::new();
        for name in names(&dir, &self.area)? {
            let Some(owner) = name.to_str().ok().filter(|n| is_name(n)) else {
                continue;
            };
            let Ok(st) = rustix::fs::statat(&dir, owner, AtFlags::SYMLINK_NOFOLLOW) else {
                continue;
            };
            let changed = std::time::UNIX_EPOCH
                + std::time::Duration::new(st.st_mtime as u64, st.st_mtime_nsec as u32);
            let age = std::time::SystemTime::now()
                .duration_since(changed)
                .unwrap_or_default();
            out.push((owner.to_owned(), age));
        }
        Ok(out)
    }

    /// Writes `bytes` to a fresh private file of `owner`'s directory for a command that
    /// takes a path (git's merge of three files), removed when the result is dropped.
    pub fn scratch(&self, owner: &str, bytes: &[u8]) -> Result<Scratch, WitDirError> {
        let dir = self.owner_dir(owner, true)?;
        let name = format!(
            "tmp-{}-{}",
            std::process::id(),
            NEXT_TMP.fetch_add(1, Ordering::Relaxed)
        );
        let path = self.area.join(owner).join(&name);
        let fd = rustix::fs::openat(
            &dir,
            name.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )
        .map_err(|e| WitDirError::io_at(&path, e.into()))?;
        let scratch = Scratch { path };
        File::from(fd)
            .write_all(bytes)
            .map_err(|e| WitDirError::io_at(&scratch.path, e))?;
        Ok(scratch)
    }
}

/// A private temporary file (see [`ContentStore::scratch`]), removed on drop.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn is_plain(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn refused(path: &Path, why: String) -> WitDirError {
    WitDirError::FileRefused {
        path: path.to_owned(),
        why,
    }
}

/// Opens the directory `path` without following a symlink, creating it (0700) when
/// `create`; it must be a directory of ours that nobody else can write to. Group and
/// other bits are removed.
fn private_dir(path: &Path, create: bool) -> Result<OwnedFd, WitDirError> {
    if create {
        match rustix::fs::mkdir(path, Mode::from_raw_mode(0o700)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(WitDirError::io_at(path, e.into())),
        }
    }
    let fd = match rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
            return Err(refused(
                path,
                "not a directory wit made (a symlink or a file); remove it and run wit again"
                    .to_owned(),
            ));
        }
        Err(e) => return Err(WitDirError::io_at(path, e.into())),
    };
    let st = rustix::fs::fstat(&fd).map_err(|e| WitDirError::io_at(path, e.into()))?;
    if st.st_uid != euid() {
        return Err(refused(
            path,
            format!("it belongs to uid {}, not to you", st.st_uid),
        ));
    }
    if st.st_mode & 0o077 != 0 {
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(0o700))
            .map_err(|e| WitDirError::io_at(path, e.into()))?;
    }
    Ok(fd)
}

/// The entries of the directory `dir` (`.` and `..` left out).
fn names(dir: &OwnedFd, path: &Path) -> Result<Vec<std::ffi::CString>, WitDirError> {
    let mut out = Vec::new();
    let listing =
        rustix::fs::Dir::read_from(dir).map_err(|e| WitDirError::io_at(path, e.into()))?;
    for entry in listing {
        let entry = entry.map_err(|e| WitDirError::io_at(path, e.into()))?;
        let name = entry.file_name();
        if name.to_bytes() != b"." && name.to_bytes() != b".." {
            out.push(name.to_owned());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, symlink};

    fn store() -> (tempfile::TempDir, ContentStore) {
        let d = tempfile::tempdir().unwrap();
        let w = WitDir::new(d.path().canonicalize().unwrap());
        w.ensure().unwrap();
        let s = ContentStore::open(&w, "forecast").unwrap();
        (d, s)
    }

    fn mode(p: &Path) -> u32 {
        std::fs::symlink_metadata(p).unwrap().mode() & 0o777
    }

    #[test]
    fn contents_are_private_verified_and_bounded() {
        let (_d, s) = store();
        let owner = owner_name("/work/wt-b");
        let id = s.put(&owner, b"secret\n").unwrap();
        assert_eq!(id, content_id(b"secret\n"));
        assert_eq!(mode(s.dir()), 0o700);
        assert_eq!(mode(&s.dir().join(&owner)), 0o700);
        assert_eq!(mode(&s.dir().join(&owner).join(&id)), 0o600);
        assert_eq!(s.get(&owner, &id, 100).unwrap().unwrap(), b"secret\n");
        // Over the bound, or not what its name says: not there.
        assert_eq!(s.get(&owner, &id, 3).unwrap(), None);
        std::fs::write(s.dir().join(&owner).join(&id), "tampered").unwrap();
        assert_eq!(s.get(&owner, &id, 100).unwrap(), None);
        // A name that is not a digest never becomes a path.
        assert_eq!(s.get(&owner, "../../x", 100).unwrap(), None);
        assert!(s.put("../x", b"a").is_err());
    }

    #[test]
    fn retain_and_remove_owner_clean_up() {
        let (_d, s) = store();
        let owner = owner_name("a");
        let keep = s.put(&owner, b"keep").unwrap();
        let gone = s.put(&owner, b"gone").unwrap();
        assert_eq!(s.retain(&owner, &|id| id == keep).unwrap(), 4);
        assert!(s.get(&owner, &gone, 10).unwrap().is_none());
        assert!(s.get(&owner, &keep, 10).unwrap().is_some());
        assert_eq!(s.owners().unwrap().len(), 1);
        s.remove_owner(&owner).unwrap();
        assert!(s.owners().unwrap().is_empty());
    }

    #[test]
    fn a_symlinked_area_or_owner_is_refused_and_its_target_untouched() {
        let d = tempfile::tempdir().unwrap();
        let w = WitDir::new(d.path().canonicalize().unwrap());
        w.ensure().unwrap();
        let outside = tempfile::tempdir().unwrap();
        symlink(outside.path(), w.dir().join("forecast")).unwrap();
        assert!(ContentStore::open(&w, "forecast").is_err());
        std::fs::remove_file(w.dir().join("forecast")).unwrap();
        let s = ContentStore::open(&w, "forecast").unwrap();
        symlink(outside.path(), s.dir().join("0123")).unwrap();
        assert!(s.put("0123", b"x").is_err());
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}
