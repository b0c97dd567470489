//! Files of the repository itself (sources, `wit.toml`, `CLAUDE.md`, …), opened so that
//! no file name, symlink or file type a repository ships can make wit read or write
//! outside it, or hang.
//!
//! Every open is `openat2(root, rel, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)` with
//! `O_NONBLOCK | O_NOCTTY | O_CLOEXEC`: a symlink may point elsewhere *within* the
//! repository (the kernel resolves it and refuses any step out of the root), `..` cannot
//! climb out, and opening a FIFO or a device returns at once. The descriptor is then
//! `fstat`ed: only a regular file is read, and only up to a size cap (checked on the
//! descriptor, and again while reading, so a file that grows is caught too).
//!
//! On kernels without `openat2` (before Linux 5.6) the path is resolved with
//! `canonicalize`, required to stay inside the root, and opened with `O_NOFOLLOW`.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{Mode, OFlags, ResolveFlags};

/// Why a repository file was not read or written.
#[derive(Debug, thiserror::Error)]
pub enum RepoFileError {
    /// The file does not exist.
    #[error("{path}: no such file")]
    NotFound {
        /// The path as given (relative to the root).
        path: String,
    },
    /// The path is not a plain relative path inside the repository (`..`, absolute, NUL),
    /// or resolving it (symlinks included) leaves the repository.
    #[error("{path}: refused: it points outside the repository ({why})")]
    Outside {
        /// The path as given.
        path: String,
        /// What leaves the root.
        why: String,
    },
    /// The path resolves (through a symlink of the repository) into git's directory or
    /// `.wit/`, which wit never writes as repository files: a `CLAUDE.md -> .git/config`
    /// would otherwise have wit's instructions appended to git's configuration.
    #[error(
        "{path}: refused: it resolves to {target}, inside {area}; wit never writes there \
         (remove the symlink, or point it at a file of the work tree)"
    )]
    Reserved {
        /// The path as given.
        path: String,
        /// Where it resolves, relative to the root.
        target: String,
        /// `git's directory` or `.wit/`.
        area: &'static str,
    },
    /// A directory, FIFO, socket or device.
    #[error("{path}: refused: not a regular file (a {kind})")]
    NotRegular {
        /// The path as given.
        path: String,
        /// What it is instead.
        kind: &'static str,
    },
    /// Larger than the cap.
    #[error("{path}: refused: {size} bytes is more than the limit of {limit} bytes")]
    TooLarge {
        /// The path as given.
        path: String,
        /// Its size (or the bytes read so far, for a file that grew).
        size: u64,
        /// The cap.
        limit: u64,
    },
    /// Any other I/O error.
    #[error("{path}: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

impl RepoFileError {
    /// Whether the file simply does not exist (as opposed to being refused or failing).
    pub fn is_not_found(&self) -> bool {
        matches!(self, RepoFileError::NotFound { .. })
    }
}

/// A repository file opened for reading and checked (regular, under the cap).
#[derive(Debug)]
pub struct OpenedFile {
    file: File,
    /// The size `fstat` reported.
    pub size: u64,
    path: String,
}

impl OpenedFile {
    /// Reads the whole file, failing with [`RepoFileError::TooLarge`] when it grew past
    /// `limit` since it was opened.
    pub fn read_all(mut self, limit: u64) -> Result<Vec<u8>, RepoFileError> {
        let mut bytes = Vec::with_capacity(self.size.min(limit) as usize);
        (&mut self.file)
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| self.io(source))?;
        if bytes.len() as u64 > limit {
            return Err(RepoFileError::TooLarge {
                path: self.path,
                size: bytes.len() as u64,
                limit,
            });
        }
        Ok(bytes)
    }

    fn io(&self, source: std::io::Error) -> RepoFileError {
        RepoFileError::Io {
            path: self.path.clone(),
            source,
        }
    }
}

/// Reads the repository file `rel` (relative to `root`, which must be canonical) under the
/// rules of this module: beneath the root, non-blocking open, regular file, at most
/// `limit` bytes.
pub fn read_repo_file(root: &Path, rel: &str, limit: u64) -> Result<Vec<u8>, RepoFileError> {
    open_repo_file(root, rel, limit)?.read_all(limit)
}

/// Opens `rel` for reading and checks it (see [`read_repo_file`]) without reading it.
pub fn open_repo_file(root: &Path, rel: &str, limit: u64) -> Result<OpenedFile, RepoFileError> {
    let (file, meta) = open_regular(root, rel, OFlags::RDONLY, Mode::empty())?;
    if meta.size() > limit {
        return Err(RepoFileError::TooLarge {
            path: rel.to_owned(),
            size: meta.size(),
            limit,
        });
    }
    Ok(OpenedFile {
        file,
        size: meta.size(),
        path: rel.to_owned(),
    })
}

/// Appends `text` to the repository file `rel`, creating it (mode 0644, like any file a
/// user writes) when missing. The target must resolve inside the repository and be a
/// regular file: a `CLAUDE.md` that is a symlink to `~/.bashrc` is refused.
pub fn append_repo_file(root: &Path, rel: &str, text: &str) -> Result<(), RepoFileError> {
    check_relative(rel)?;
    refuse_reserved(rel, &resolve_target(root, rel)?)?;
    let (mut file, _) = open_regular(
        root,
        rel,
        OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE,
        Mode::from_raw_mode(0o644),
    )?;
    file.write_all(text.as_bytes())
        .map_err(|source| RepoFileError::Io {
            path: rel.to_owned(),
            source,
        })
}

/// Writes `bytes` as the whole content of the repository file `rel`, atomically: a fresh
/// temporary file is created beside it (`O_EXCL`, never through a symlink), filled, synced
/// and renamed over `rel`, so a reader sees the old content or the new, never half of
/// each. Missing parent directories are created (0755), each one beneath the root.
///
/// The rules of this module hold for every step: a directory on the way or the file itself
/// may be a symlink *within* the repository (the file it resolves to is the one written;
/// the link stays), one leading out is refused and nothing outside is touched. An
/// existing file keeps its permission bits; a new one is 0644.
pub fn write_repo_file(root: &Path, rel: &str, bytes: &[u8]) -> Result<(), RepoFileError> {
    check_relative(rel)?;
    let io = |source: std::io::Error| RepoFileError::Io {
        path: rel.to_owned(),
        source,
    };
    // Where the bytes go: `rel` itself, or the in-repository file a symlink there names;
    // never git's directory or `.wit/`.
    let target = resolve_final(root, rel)?;
    refuse_reserved(rel, &resolve_target(root, rel)?)?;
    let (parent, name) = split_parent(&target);
    let name = name.ok_or_else(|| RepoFileError::NotRegular {
        path: rel.to_owned(),
        kind: "directory",
    })?;
    let dir = ensure_dir_beneath(root, parent, rel)?;
    // An existing target must be a regular file; its mode is kept.
    let mode = match rustix::fs::statat(&dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => {
            let kind = rustix::fs::FileType::from_raw_mode(st.st_mode);
            if kind != rustix::fs::FileType::RegularFile {
                return Err(RepoFileError::NotRegular {
                    path: rel.to_owned(),
                    kind: file_type_name(kind),
                });
            }
            st.st_mode & 0o7777
        }
        Err(rustix::io::Errno::NOENT) => 0o644,
        Err(e) => return Err(io(e.into())),
    };
    let tmp = format!(".{name}.wit-tmp-{}", std::process::id());
    // A leftover of a crashed run (or anything planted under that name, a symlink
    // included) is unlinked, never opened: O_EXCL below then creates a fresh file.
    let _ = rustix::fs::unlinkat(&dir, tmp.as_str(), rustix::fs::AtFlags::empty());
    let fd = rustix::fs::openat(
        &dir,
        tmp.as_str(),
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )
    .map_err(|e| io(e.into()))?;
    let mut file = File::from(fd);
    let written = file
        .write_all(bytes)
        // The creation mode is reduced by the umask; set the intended bits explicitly.
        .and_then(|()| rustix::fs::fchmod(&file, Mode::from_raw_mode(mode)).map_err(Into::into))
        .and_then(|()| file.sync_all())
        .and_then(|()| {
            // renameat replaces the directory entry: it never writes through a symlink.
            rustix::fs::renameat(&dir, tmp.as_str(), &dir, name).map_err(Into::into)
        });
    if let Err(e) = written {
        let _ = rustix::fs::unlinkat(&dir, tmp.as_str(), rustix::fs::AtFlags::empty());
        return Err(io(e));
    }
    Ok(())
}

/// Removes the repository file `rel` (beneath the root, like every operation here). A
/// symlink within the repository is removed itself, not the file it names; a missing file
/// is [`RepoFileError::NotFound`]; a directory is refused.
pub fn remove_repo_file(root: &Path, rel: &str) -> Result<(), RepoFileError> {
    check_relative(rel)?;
    let (parent, name) = split_parent(rel);
    let name = name.ok_or_else(|| RepoFileError::NotRegular {
        path: rel.to_owned(),
        kind: "directory",
    })?;
    let dir = open_dir_beneath(root, parent, rel)?;
    match rustix::fs::statat(&dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st)
            if rustix::fs::FileType::from_raw_mode(st.st_mode)
                == rustix::fs::FileType::Directory =>
        {
            return Err(RepoFileError::NotRegular {
                path: rel.to_owned(),
                kind: "directory",
            });
        }
        Ok(_) => {}
        Err(e) => return Err(map_open_error(rel, e)),
    }
    rustix::fs::unlinkat(&dir, name, rustix::fs::AtFlags::empty())
        .map_err(|e| map_open_error(rel, e))
}

/// `rel`, or — when its last component is a symlink — the repository-relative path of the
/// file it resolves to, refused when that is outside the root.
fn resolve_final(root: &Path, rel: &str) -> Result<String, RepoFileError> {
    let (parent, name) = split_parent(rel);
    let Some(name) = name else {
        return Ok(rel.to_owned());
    };
    let dir = match open_dir_beneath(root, parent, rel) {
        Ok(d) => d,
        // The parent does not exist yet: no symlink can be there.
        Err(e) if e.is_not_found() => return Ok(rel.to_owned()),
        Err(e) => return Err(e),
    };
    match rustix::fs::statat(&dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st)
            if rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Symlink => {
        }
        _ => return Ok(rel.to_owned()),
    }
    let outside = |why: String| RepoFileError::Outside {
        path: rel.to_owned(),
        why,
    };
    let joined = root.join(rel);
    // A dangling link: resolve its directory and keep its last name.
    let resolved = match joined.canonicalize() {
        Ok(p) => p,
        Err(_) => {
            let link = std::fs::read_link(&joined).map_err(|source| RepoFileError::Io {
                path: rel.to_owned(),
                source,
            })?;
            let abs = joined.parent().unwrap_or(root).join(link);
            let dir = abs
                .parent()
                .and_then(|p| p.canonicalize().ok())
                .ok_or_else(|| outside(format!("it is a dangling symlink to {}", abs.display())))?;
            dir.join(abs.file_name().unwrap_or_default())
        }
    };
    let inner = resolved
        .strip_prefix(root)
        .map_err(|_| outside(format!("it is a symlink to {}", resolved.display())))?;
    let inner = inner
        .to_str()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| outside(format!("it is a symlink to {}", resolved.display())))?;
    Ok(inner.to_owned())
}

/// Checks, without writing, that a write of `rel` ([`write_repo_file`],
/// [`append_repo_file`]) would be allowed: beneath the root, and not resolving into git's
/// directory or `.wit/`. For callers that plan several writes and want none made when one
/// would be refused.
pub fn check_write_target(root: &Path, rel: &str) -> Result<(), RepoFileError> {
    check_relative(rel)?;
    refuse_reserved(rel, &resolve_target(root, rel)?)
}

/// Where a write of `rel` lands, relative to the (canonical) root: the last component's
/// symlink followed ([`resolve_final`]) and every directory on the way resolved, so that a
/// symlinked directory (`.codex -> .git/info`) is seen through too. A directory that does
/// not exist yet is kept as written (it will be created beneath the root).
fn resolve_target(root: &Path, rel: &str) -> Result<String, RepoFileError> {
    let target = resolve_final(root, rel)?;
    let (parent, name) = split_parent(&target);
    let Some(name) = name else {
        return Ok(target);
    };
    // The deepest existing directory on the way, resolved; the rest appended as written.
    let mut existing = parent;
    let mut rest: Vec<&str> = vec![name];
    loop {
        let dir = if existing.is_empty() {
            root.to_owned()
        } else {
            root.join(existing)
        };
        if let Ok(real) = dir.canonicalize() {
            let Ok(inner) = real.strip_prefix(root) else {
                return Err(RepoFileError::Outside {
                    path: rel.to_owned(),
                    why: format!("its directory is {}", real.display()),
                });
            };
            let mut parts: Vec<String> = inner
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            parts.extend(rest.iter().rev().map(|s| (*s).to_owned()));
            return Ok(parts.join("/"));
        }
        match existing.rsplit_once('/') {
            Some((up, last)) => {
                rest.push(last);
                existing = up;
            }
            None if !existing.is_empty() => {
                rest.push(existing);
                existing = "";
            }
            None => return Ok(target),
        }
    }
}

/// Refuses a write whose resolved `target` is in git's directory (a `.git` component
/// anywhere: a nested repository's too) or in `.wit/`.
fn refuse_reserved(rel: &str, target: &str) -> Result<(), RepoFileError> {
    let mut parts = target.split('/').filter(|c| !c.is_empty() && *c != ".");
    let first = parts.clone().next();
    let area = if first == Some(".wit") {
        ".wit/"
    } else if parts.any(|c| c == ".git") {
        "git's directory"
    } else {
        return Ok(());
    };
    Err(RepoFileError::Reserved {
        path: rel.to_owned(),
        target: target.to_owned(),
        area,
    })
}

/// Splits `a/b/c` into (`a/b`, `c`), and `c` into (``, `c`); `None` for a path ending in
/// `.` or with no name.
fn split_parent(rel: &str) -> (&str, Option<&str>) {
    let trimmed = rel.trim_end_matches('/');
    match trimmed.rsplit_once('/') {
        Some((p, n)) if !n.is_empty() && n != "." => (p, Some(n)),
        None if !trimmed.is_empty() && trimmed != "." => ("", Some(trimmed)),
        _ => (trimmed, None),
    }
}

/// Opens the directory `parent` (relative, may be empty for the root) beneath `root`.
pub(crate) fn open_dir_beneath(
    root: &Path,
    parent: &str,
    rel: &str,
) -> Result<OwnedFd, RepoFileError> {
    let parent = if parent.is_empty() { "." } else { parent };
    open_beneath(
        root,
        parent,
        OFlags::RDONLY | OFlags::DIRECTORY,
        Mode::empty(),
    )
    .map_err(|e| {
        match e {
            // Report the file the caller named, not the directory.
            RepoFileError::NotFound { .. } => RepoFileError::NotFound {
                path: rel.to_owned(),
            },
            RepoFileError::Outside { why, .. } => RepoFileError::Outside {
                path: rel.to_owned(),
                why,
            },
            RepoFileError::Io { source, .. } if source.raw_os_error() == Some(libc_enotdir()) => {
                RepoFileError::NotRegular {
                    path: rel.to_owned(),
                    kind: "file where a directory is needed",
                }
            }
            other => other,
        }
    })
}

/// `ENOTDIR`, without a libc dependency.
fn libc_enotdir() -> i32 {
    rustix::io::Errno::NOTDIR.raw_os_error()
}

/// Opens `parent` beneath `root`, creating each missing directory on the way (0755), each
/// created inside a directory itself opened beneath the root.
fn ensure_dir_beneath(root: &Path, parent: &str, rel: &str) -> Result<OwnedFd, RepoFileError> {
    let mut done = String::new();
    for comp in parent.split('/').filter(|c| !c.is_empty() && *c != ".") {
        let here = open_dir_beneath(root, &done, rel)?;
        match rustix::fs::mkdirat(&here, comp, Mode::from_raw_mode(0o755)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => {
                return Err(RepoFileError::Io {
                    path: rel.to_owned(),
                    source: e.into(),
                });
            }
        }
        if !done.is_empty() {
            done.push('/');
        }
        done.push_str(comp);
    }
    open_dir_beneath(root, &done, rel)
}

/// What a file type is, for messages.
fn file_type_name(kind: rustix::fs::FileType) -> &'static str {
    use rustix::fs::FileType as T;
    match kind {
        T::Directory => "directory",
        T::Symlink => "symlink",
        T::Fifo => "FIFO",
        T::Socket => "socket",
        T::CharacterDevice => "character device",
        T::BlockDevice => "block device",
        _ => "special file",
    }
}

/// Opens `rel` beneath `root` and requires a regular file (`fstat` of the descriptor).
fn open_regular(
    root: &Path,
    rel: &str,
    flags: OFlags,
    mode: Mode,
) -> Result<(File, std::fs::Metadata), RepoFileError> {
    let file = File::from(open_beneath(root, rel, flags, mode)?);
    let meta = file.metadata().map_err(|source| RepoFileError::Io {
        path: rel.to_owned(),
        source,
    })?;
    if !meta.file_type().is_file() {
        return Err(RepoFileError::NotRegular {
            path: rel.to_owned(),
            kind: kind_of(&meta),
        });
    }
    Ok((file, meta))
}

/// Opens `rel` beneath `root` with `flags` (plus non-blocking, no controlling terminal,
/// close-on-exec).
fn open_beneath(
    root: &Path,
    rel: &str,
    flags: OFlags,
    mode: Mode,
) -> Result<OwnedFd, RepoFileError> {
    check_relative(rel)?;
    let flags = flags | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let dir = rustix::fs::open(
        root,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| RepoFileError::Io {
        path: rel.to_owned(),
        source: e.into(),
    })?;
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
    match rustix::fs::openat2(&dir, rel, flags, mode, resolve) {
        Ok(fd) => Ok(fd),
        Err(rustix::io::Errno::NOSYS) => open_canonical(root, rel, flags, mode),
        // RESOLVE_BENEATH refuses every absolute symlink, even one pointing inside the
        // root: resolve it ourselves, require the result inside, and open the resolved
        // (symlink-free) path beneath the root again.
        Err(rustix::io::Errno::XDEV) => {
            let target = root
                .join(rel)
                .canonicalize()
                .map_err(|_| map_open_error(rel, rustix::io::Errno::XDEV))?;
            let inner = target
                .strip_prefix(root)
                .map_err(|_| RepoFileError::Outside {
                    path: rel.to_owned(),
                    why: format!("it resolves to {}", target.display()),
                })?;
            rustix::fs::openat2(&dir, inner, flags, mode, resolve)
                .map_err(|e| map_open_error(rel, e))
        }
        Err(e) => Err(map_open_error(rel, e)),
    }
}

/// The fallback without `openat2`: resolve, require the result inside the root, open it
/// without following a symlink at the last step.
fn open_canonical(
    root: &Path,
    rel: &str,
    flags: OFlags,
    mode: Mode,
) -> Result<OwnedFd, RepoFileError> {
    let joined = root.join(rel);
    let target: PathBuf = match joined.canonicalize() {
        Ok(p) => p,
        // A file to be created: its directory must resolve inside.
        Err(_) if flags.contains(OFlags::CREATE) => {
            let parent = joined
                .parent()
                .and_then(|p| p.canonicalize().ok())
                .ok_or_else(|| RepoFileError::NotFound {
                    path: rel.to_owned(),
                })?;
            parent.join(joined.file_name().unwrap_or_default())
        }
        Err(_) => {
            return Err(RepoFileError::NotFound {
                path: rel.to_owned(),
            });
        }
    };
    if !target.starts_with(root) {
        return Err(RepoFileError::Outside {
            path: rel.to_owned(),
            why: format!("it resolves to {}", target.display()),
        });
    }
    rustix::fs::open(&target, flags | OFlags::NOFOLLOW, mode).map_err(|e| map_open_error(rel, e))
}

fn map_open_error(rel: &str, e: rustix::io::Errno) -> RepoFileError {
    let path = rel.to_owned();
    match e {
        rustix::io::Errno::NOENT => RepoFileError::NotFound { path },
        rustix::io::Errno::XDEV => RepoFileError::Outside {
            path,
            why: "a symlink on the way leads out of the repository".into(),
        },
        rustix::io::Errno::LOOP => RepoFileError::Outside {
            path,
            why: "a symlink that cannot be followed safely".into(),
        },
        rustix::io::Errno::ISDIR => RepoFileError::NotRegular {
            path,
            kind: "directory",
        },
        e => RepoFileError::Io {
            path,
            source: e.into(),
        },
    }
}

/// A path as a client or a file names it: relative, no `..`, no NUL, not empty.
fn check_relative(rel: &str) -> Result<(), RepoFileError> {
    let outside = |why: &str| RepoFileError::Outside {
        path: rel.to_owned(),
        why: why.to_owned(),
    };
    if rel.is_empty() {
        return Err(RepoFileError::NotFound {
            path: rel.to_owned(),
        });
    }
    if rel.contains('\0') {
        return Err(outside("it contains a NUL byte"));
    }
    for c in Path::new(rel).components() {
        match c {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return Err(outside("it contains `..`")),
            Component::RootDir | Component::Prefix(_) => return Err(outside("it is absolute")),
        }
    }
    Ok(())
}

/// What a non-regular file is, for messages.
pub(crate) fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "directory"
    } else if t.is_symlink() {
        "symlink"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else {
        "special file"
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn writes_through_a_symlink_into_git_s_directory_or_wit_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git/info")).unwrap();
        std::fs::create_dir_all(root.join(".wit")).unwrap();
        std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
        std::os::unix::fs::symlink(".git/config", root.join("CLAUDE.md")).unwrap();
        std::os::unix::fs::symlink(".git/info", root.join(".codex")).unwrap();
        std::os::unix::fs::symlink(".wit/x", root.join("AGENTS.md")).unwrap();
        std::os::unix::fs::symlink(".git/info/new", root.join("dangling.md")).unwrap();
        for (rel, area) in [
            ("CLAUDE.md", "git's directory"),
            (".codex/config.toml", "git's directory"),
            ("AGENTS.md", ".wit/"),
            ("dangling.md", "git's directory"),
            (".git/config", "git's directory"),
        ] {
            for e in [
                append_repo_file(&root, rel, "x").unwrap_err(),
                write_repo_file(&root, rel, b"x").unwrap_err(),
            ] {
                assert!(
                    matches!(&e, RepoFileError::Reserved { area: a, .. } if *a == area),
                    "{rel}: {e}"
                );
            }
        }
        assert_eq!(
            std::fs::read_to_string(root.join(".git/config")).unwrap(),
            "[core]\n"
        );
        assert!(!root.join(".git/info/config.toml").exists());
        assert!(!root.join(".git/info/new").exists());
        // A symlink to a file of the work tree is still followed.
        std::fs::write(root.join("real.md"), "a\n").unwrap();
        std::os::unix::fs::symlink("real.md", root.join("link.md")).unwrap();
        append_repo_file(&root, "link.md", "b\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("real.md")).unwrap(),
            "a\nb\n"
        );
    }

    use super::*;
    use std::os::unix::fs::symlink;

    fn repo() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.ts"), "a").unwrap();
        (dir, root)
    }

    #[test]
    fn reads_files_and_symlinks_within_the_repository() {
        let (_d, root) = repo();
        symlink(root.join("src/a.ts"), root.join("src/inner.ts")).unwrap();
        symlink("a.ts", root.join("src/relative.ts")).unwrap();
        for p in ["src/a.ts", "./src/a.ts", "src/inner.ts", "src/relative.ts"] {
            assert_eq!(read_repo_file(&root, p, 10).unwrap(), b"a", "{p}");
        }
    }

    #[test]
    fn symlinks_out_of_the_repository_are_refused() {
        let (_d, root) = repo();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.ts"), "secret").unwrap();
        symlink(outside.path().join("secret.ts"), root.join("src/link.ts")).unwrap();
        symlink(outside.path(), root.join("out")).unwrap();
        symlink("../../etc/passwd", root.join("src/up.ts")).unwrap();
        for p in ["src/link.ts", "out/secret.ts", "src/up.ts"] {
            let e = read_repo_file(&root, p, 100).unwrap_err();
            assert!(matches!(e, RepoFileError::Outside { .. }), "{p}: {e}");
        }
        for p in ["../x", "/etc/passwd", "src/../src/a.ts", "a\0b"] {
            let e = read_repo_file(&root, p, 100).unwrap_err();
            assert!(matches!(e, RepoFileError::Outside { .. }), "{p}: {e}");
        }
    }

    #[test]
    fn fifos_directories_and_devices_are_refused_without_blocking() {
        let (_d, root) = repo();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            root.join("src/fifo.ts"),
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        let e = read_repo_file(&root, "src/fifo.ts", 100).unwrap_err();
        assert!(
            matches!(e, RepoFileError::NotRegular { kind: "FIFO", .. }),
            "{e}"
        );
        let e = read_repo_file(&root, "src", 100).unwrap_err();
        assert!(matches!(e, RepoFileError::NotRegular { .. }), "{e}");
    }

    #[test]
    fn files_over_the_cap_are_refused() {
        let (_d, root) = repo();
        std::fs::write(root.join("big.ts"), vec![b'x'; 101]).unwrap();
        let e = read_repo_file(&root, "big.ts", 100).unwrap_err();
        assert!(
            matches!(
                e,
                RepoFileError::TooLarge {
                    size: 101,
                    limit: 100,
                    ..
                }
            ),
            "{e}"
        );
        assert!(
            read_repo_file(&root, "missing.ts", 100)
                .unwrap_err()
                .is_not_found()
        );
    }

    #[test]
    fn write_creates_parents_replaces_atomically_and_keeps_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let (_d, root) = repo();
        write_repo_file(&root, ".cursor/rules/wit.mdc", b"one").unwrap();
        assert_eq!(
            std::fs::read(root.join(".cursor/rules/wit.mdc")).unwrap(),
            b"one"
        );
        std::fs::set_permissions(
            root.join(".cursor/rules/wit.mdc"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
        write_repo_file(&root, ".cursor/rules/wit.mdc", b"two").unwrap();
        let path = root.join(".cursor/rules/wit.mdc");
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(path.metadata().unwrap().permissions().mode() & 0o777, 0o600);
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(root.join(".cursor/rules"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("wit.mdc")]);
        remove_repo_file(&root, ".cursor/rules/wit.mdc").unwrap();
        assert!(!path.exists());
        assert!(
            remove_repo_file(&root, ".cursor/rules/wit.mdc")
                .unwrap_err()
                .is_not_found()
        );
    }

    #[test]
    fn write_refuses_symlinks_out_and_follows_those_within() {
        let (_d, root) = repo();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("mcp.json");
        std::fs::write(&target, "original").unwrap();
        symlink(&target, root.join(".mcp.json")).unwrap();
        let e = write_repo_file(&root, ".mcp.json", b"evil").unwrap_err();
        assert!(matches!(e, RepoFileError::Outside { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "original");
        assert!(root.join(".mcp.json").is_symlink());
        // A directory on the way that leads out, and a dangling link out.
        symlink(outside.path(), root.join(".cursor")).unwrap();
        let e = write_repo_file(&root, ".cursor/mcp.json", b"evil").unwrap_err();
        assert!(matches!(e, RepoFileError::Outside { .. }), "{e}");
        assert!(!outside.path().join("mcp.json.tmp").exists());
        symlink(outside.path().join("new.json"), root.join("dangling.json")).unwrap();
        let e = write_repo_file(&root, "dangling.json", b"evil").unwrap_err();
        assert!(matches!(e, RepoFileError::Outside { .. }), "{e}");
        assert!(!outside.path().join("new.json").exists());
        for p in ["../x", "/tmp/x", "a/../../x"] {
            let e = write_repo_file(&root, p, b"x").unwrap_err();
            assert!(matches!(e, RepoFileError::Outside { .. }), "{p}: {e}");
        }
        // Within the repository, the file the link names is written; the link stays.
        symlink("src/a.ts", root.join("inner.ts")).unwrap();
        write_repo_file(&root, "inner.ts", b"b").unwrap();
        assert!(root.join("inner.ts").is_symlink());
        assert_eq!(std::fs::read(root.join("src/a.ts")).unwrap(), b"b");
        // A directory in the file's place is refused.
        let e = write_repo_file(&root, "src", b"x").unwrap_err();
        assert!(matches!(e, RepoFileError::NotRegular { .. }), "{e}");
    }

    #[test]
    fn append_refuses_a_symlink_out_and_writes_inside() {
        let (_d, root) = repo();
        let outside = tempfile::tempdir().unwrap();
        let bashrc = outside.path().join(".bashrc");
        std::fs::write(&bashrc, "original\n").unwrap();
        symlink(&bashrc, root.join("CLAUDE.md")).unwrap();
        let e = append_repo_file(&root, "CLAUDE.md", "evil\n").unwrap_err();
        assert!(matches!(e, RepoFileError::Outside { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "original\n");
        append_repo_file(&root, "AGENTS.md", "hello\n").unwrap();
        append_repo_file(&root, "AGENTS.md", "again\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("AGENTS.md")).unwrap(),
            "hello\nagain\n"
        );
    }
}
