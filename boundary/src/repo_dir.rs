//! Listing a directory of the repository without following anything out of it: the
//! directory is opened beneath the root as [`crate::repo_file`] opens files, and each
//! entry is `stat`ed through that descriptor without following a symlink. For the index's
//! watcher, which looks at directories it does not watch by listing them now and then.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{AtFlags, FileType};

use crate::repo_file::{RepoFileError, open_dir_beneath};

/// Most entries read from one directory (a bound on memory for absurd trees).
pub const MAX_DIR_ENTRIES: usize = 100_000;

/// What an entry of a repository directory is. A symlink is never followed: it is
/// [`EntryKind::Other`], whatever it points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory (itself, not a symlink to one).
    Dir,
    /// Anything else: a symlink, a FIFO, a socket, a device.
    Other,
}

/// One entry of a repository directory, and what tells that it changed: a file whose
/// size, modification or change time, or inode differs is not the same file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntryStamp {
    /// The entry's name (UTF-8 names only: others are left out, as the index leaves
    /// them out).
    pub name: String,
    /// What it is.
    pub kind: EntryKind,
    /// `(inode, size, mtime seconds, mtime nanoseconds, ctime seconds, ctime
    /// nanoseconds)`.
    pub stamp: (u64, u64, i64, i64, i64, i64),
}

/// The entries of the repository directory `rel` (`""`: the root), at most
/// [`MAX_DIR_ENTRIES`], in no particular order.
pub fn list_repo_dir(root: &Path, rel: &str) -> Result<Vec<DirEntryStamp>, RepoFileError> {
    let dir = open_dir_beneath(root, rel, if rel.is_empty() { "." } else { rel })?;
    let io = |e: rustix::io::Errno| RepoFileError::Io {
        path: rel.to_owned(),
        source: e.into(),
    };
    let entries = rustix::fs::Dir::read_from(&dir).map_err(io)?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io)?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        let Ok(text) = std::str::from_utf8(name) else {
            continue;
        };
        // Gone between the listing and the stat: not there.
        let Ok(st) = rustix::fs::statat(
            &dir,
            std::ffi::OsStr::from_bytes(name),
            AtFlags::SYMLINK_NOFOLLOW,
        ) else {
            continue;
        };
        let kind = match FileType::from_raw_mode(st.st_mode) {
            FileType::RegularFile => EntryKind::File,
            FileType::Directory => EntryKind::Dir,
            _ => EntryKind::Other,
        };
        out.push(DirEntryStamp {
            name: text.to_owned(),
            kind,
            stamp: (
                st.st_ino,
                st.st_size as u64,
                st.st_mtime,
                st.st_mtime_nsec as i64,
                st.st_ctime,
                st.st_ctime_nsec as i64,
            ),
        });
        if out.len() >= MAX_DIR_ENTRIES {
            break;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// Entries are listed with their kind; a symlink (here to a directory outside the
    /// repository) is never followed, and a directory that is a symlink out is refused.
    #[test]
    fn a_directory_is_listed_beneath_the_root_and_symlinks_are_never_followed() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src/sub")).unwrap();
        std::fs::write(root.join("src/a.ts"), "a").unwrap();
        symlink(outside.path(), root.join("src/out")).unwrap();
        symlink(outside.path(), root.join("away")).unwrap();
        let mut listed = list_repo_dir(&root, "src").unwrap();
        listed.sort_by(|a, b| a.name.cmp(&b.name));
        let kinds: Vec<(&str, EntryKind)> =
            listed.iter().map(|e| (e.name.as_str(), e.kind)).collect();
        assert_eq!(
            kinds,
            [
                ("a.ts", EntryKind::File),
                ("out", EntryKind::Other),
                ("sub", EntryKind::Dir)
            ]
        );
        assert_eq!(listed[0].stamp.1, 1);
        assert!(matches!(
            list_repo_dir(&root, "away"),
            Err(RepoFileError::Outside { .. })
        ));
        assert!(
            list_repo_dir(&root, "")
                .unwrap()
                .iter()
                .any(|e| e.name == "src")
        );
        assert!(list_repo_dir(&root, "../x").is_err());
        assert!(list_repo_dir(&root, "missing").unwrap_err().is_not_found());
    }
}
