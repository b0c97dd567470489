//! The few git queries wit needs, through the `git` command.
//!
//! Paths stay bytes from git's output to git's input: a path need not be UTF-8, and a
//! lossy conversion reused as a git argument names another file (or none). Staged content
//! is read as explicit stage 0 (`:0:<path>`): with the short form `:<path>`, a file named
//! `1:x.ts` is read by git as stage 1 of `x.ts`, which does not exist in a normal index.
//!
//! All staged files are read through one `git cat-file --batch` process, not one `git`
//! process per file: a commit of thousands of files must be checked within the pre-commit
//! hook's time limit.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Largest staged blob read into memory. A bigger file could not be sent to the daemon
/// anyway (its request body limit), so it is reported as too large instead of read.
pub const MAX_BLOB_BYTES: u64 = wit_daemon::BODY_LIMIT_BYTES as u64;

fn git(root: &Path, args: &[&OsStr]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running git: {e}"))?;
    if !out.status.success() {
        let shown: Vec<_> = args.iter().map(|a| a.to_string_lossy()).collect();
        return Err(format!(
            "git {} failed: {}",
            wit_core::text::escape(&shown.join(" ")),
            wit_core::text::escape(String::from_utf8_lossy(&out.stderr).trim())
        ));
    }
    Ok(out.stdout)
}

/// One file the commit being prepared changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedPath {
    /// Repo-relative path, exactly the bytes git printed (not necessarily UTF-8).
    pub path: Vec<u8>,
    /// Whether the commit deletes it.
    pub deleted: bool,
}

impl StagedPath {
    /// The path as UTF-8, the only form the protocol (and so any contract) can name;
    /// `None` for a path that is not UTF-8.
    pub fn utf8(&self) -> Option<&str> {
        std::str::from_utf8(&self.path).ok()
    }

    /// The path for a message: lossy, control characters escaped.
    pub fn shown(&self) -> String {
        shown_path(&self.path)
    }
}

/// `path` (bytes) for a message: lossy, control characters escaped.
pub fn shown_path(path: &[u8]) -> String {
    wit_core::text::escape(&String::from_utf8_lossy(path)).into_owned()
}

/// Staged added, copied, modified and deleted files. Renames are reported as delete + add
/// (`--no-renames`), so a renamed and edited file is still checked, and so is the symbol
/// that left with the old path. Deletions count because deleting a file breaks every
/// accepted contract on its symbols.
pub fn staged_paths(root: &Path) -> Result<Vec<StagedPath>, String> {
    let args = [
        "diff",
        "--cached",
        "--name-status",
        "-z",
        "--no-renames",
        "--diff-filter=ACMD",
    ];
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    Ok(parse_name_status(&git(root, &args)?))
}

/// `-z --name-status` output: `STATUS NUL PATH NUL` pairs (`-z` also means no quoting).
fn parse_name_status(out: &[u8]) -> Vec<StagedPath> {
    let mut fields = out.split(|b| *b == 0).filter(|f| !f.is_empty());
    let mut paths = Vec::new();
    while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
        paths.push(StagedPath {
            path: path.to_vec(),
            deleted: status.first() == Some(&b'D'),
        });
    }
    paths
}

/// The staged content of one file, or why it could not be read. A per-file outcome: one
/// file that cannot be read does not stop the others being checked.
pub type FileContent = Result<Vec<u8>, String>;

/// The staged (index, stage 0) content of each of `paths`, in order, read with one
/// `git cat-file --batch` process.
///
/// A path that `--batch` cannot carry (it reads one object name per line, and strips a
/// trailing CR) is read alone with `git cat-file blob :0:<path>`, the path then being an
/// argument; such names are rare, so the extra process does not matter.
///
/// The outer error is a failure of the whole read (git cannot run, or its answers make no
/// sense); the inner ones concern one file (not in the index, not a regular file, too
/// large).
pub fn staged_contents(root: &Path, paths: &[&[u8]]) -> Result<Vec<FileContent>, String> {
    contents_at(root, b":0:", paths)
}

/// The content of each of `paths` in the commit `commit` (a full object id), in order,
/// with one `git cat-file --batch`; like [`staged_contents`] otherwise.
pub fn committed_contents(
    root: &Path,
    commit: &str,
    paths: &[&[u8]],
) -> Result<Vec<FileContent>, String> {
    if commit.is_empty() || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("not a commit id: {commit:?}"));
    }
    let prefix = format!("{commit}:");
    contents_at(root, prefix.as_bytes(), paths)
}

/// The contents of `paths` under the object-name `prefix` (`:0:` for the index,
/// `<commit>:` for a commit).
fn contents_at(root: &Path, prefix: &[u8], paths: &[&[u8]]) -> Result<Vec<FileContent>, String> {
    let batchable = |p: &[u8]| !p.contains(&b'\n') && !p.ends_with(b"\r");
    let batched: Vec<&[u8]> = paths.iter().copied().filter(|p| batchable(p)).collect();
    let mut from_batch = cat_file_batch(root, prefix, &batched)?.into_iter();
    let mut out = Vec::with_capacity(paths.len());
    for path in paths {
        if batchable(path) {
            out.push(
                from_batch
                    .next()
                    .ok_or_else(|| "git cat-file --batch answered too few objects".to_owned())?,
            );
        } else {
            out.push(cat_file_alone(root, prefix, path));
        }
    }
    Ok(out)
}

/// `:0:<path>`: the object name of `path`'s stage-0 index entry.
#[cfg(test)]
fn stage0_name(path: &[u8]) -> Vec<u8> {
    object_name(b":0:", path)
}

/// `<prefix><path>`: `:0:src/a.ts` (the index), `<commit>:src/a.ts` (a commit).
fn object_name(prefix: &[u8], path: &[u8]) -> Vec<u8> {
    let mut name = Vec::with_capacity(path.len() + prefix.len());
    name.extend_from_slice(prefix);
    name.extend_from_slice(path);
    name
}

fn cat_file_alone(root: &Path, prefix: &[u8], path: &[u8]) -> FileContent {
    let name = object_name(prefix, path);
    let args = [
        OsStr::new("cat-file"),
        OsStr::new("blob"),
        OsStr::from_bytes(&name),
    ];
    git(root, &args)
}

fn cat_file_batch(root: &Path, prefix: &[u8], paths: &[&[u8]]) -> Result<Vec<FileContent>, String> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let mut child = Command::new("git")
        .args(["cat-file", "--batch"])
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("running git cat-file --batch: {e}"))?;
    let (Some(stdin), Some(stdout), Some(mut stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        let _ = child.kill();
        let _ = child.wait();
        return Err("git cat-file --batch: no pipes to talk to it".into());
    };
    // Git answers while we still write: the requests go from their own thread, or a big
    // batch would fill both pipes and deadlock. Stderr is drained on a third thread for
    // the same reason.
    let requests: Vec<Vec<u8>> = paths.iter().map(|p| object_name(prefix, p)).collect();
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        let mut w = BufWriter::new(stdin);
        for name in requests {
            w.write_all(&name)?;
            w.write_all(b"\n")?;
        }
        w.flush()
        // Dropping `w` closes git's stdin: it exits after the last answer.
    });
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        text
    });
    let mut reader = BufReader::new(stdout);
    let mut answers = Vec::with_capacity(paths.len());
    let mut broken = None;
    for _ in paths {
        match read_answer(&mut reader, MAX_BLOB_BYTES) {
            Ok(a) => answers.push(a),
            Err(e) => {
                broken = Some(e);
                break;
            }
        }
    }
    if broken.is_some() {
        // Unblock the writer if git stopped reading, so the joins below return.
        let _ = child.kill();
    }
    drop(reader);
    let written = writer.join();
    let status = child.wait();
    let err_text = errors.join().unwrap_or_default();
    if let Some(e) = broken {
        let detail = String::from_utf8_lossy(&err_text);
        let detail = detail.trim();
        return Err(if detail.is_empty() {
            format!("git cat-file --batch: {e}")
        } else {
            format!(
                "git cat-file --batch: {e}: {}",
                wit_core::text::escape(detail)
            )
        });
    }
    // Every answer arrived; a failure to write or a bad exit now is not worth failing for.
    let _ = (written, status);
    Ok(answers)
}

/// Reads one `git cat-file --batch` answer: `<oid> <type> <size>\n<content>\n` for an
/// object found, `<name> missing\n` (or `ambiguous`) for one that is not. The outer error
/// means the stream is broken (nothing after it can be trusted); the inner result is the
/// answer for this one object. Content above `limit` bytes is skipped, not kept.
fn read_answer(r: &mut impl BufRead, limit: u64) -> Result<FileContent, String> {
    let mut header = Vec::new();
    r.read_until(b'\n', &mut header)
        .map_err(|e| format!("reading its answer: {e}"))?;
    if header.pop() != Some(b'\n') {
        return Err("its output ended early".into());
    }
    let Some((kind, size)) = parse_header(&header) else {
        // The name is echoed before the verdict; found-object headers never end this way
        // (they end with a size), so a path that ends with " missing" is no trouble.
        for verdict in [&b" missing"[..], b" ambiguous"] {
            if header.ends_with(verdict) {
                let verdict = String::from_utf8_lossy(&verdict[1..]).into_owned();
                return Ok(Err(format!("{verdict} in the index")));
            }
        }
        return Err(format!(
            "unexpected answer {:?}",
            shown_path(&header[..header.len().min(200)])
        ));
    };
    let answer = if size > limit {
        let skipped = std::io::copy(&mut r.by_ref().take(size), &mut std::io::sink())
            .map_err(|e| format!("reading its answer: {e}"))?;
        if skipped != size {
            return Err("its output ended inside an object".into());
        }
        Err(format!("too large to check ({size} bytes)"))
    } else {
        // `size` is at most `limit`, which fits in memory by construction.
        let mut content = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        r.by_ref()
            .take(size)
            .read_to_end(&mut content)
            .map_err(|e| format!("reading its answer: {e}"))?;
        if content.len() as u64 != size {
            return Err("its output ended inside an object".into());
        }
        if kind == b"blob" {
            Ok(content)
        } else {
            Err(format!("not a file (a {})", String::from_utf8_lossy(kind)))
        }
    };
    let mut end = [0u8; 1];
    r.read_exact(&mut end)
        .map_err(|e| format!("reading its answer: {e}"))?;
    if end != *b"\n" {
        return Err("an object's content is not followed by a newline".into());
    }
    Ok(answer)
}

/// `<oid> <type> <size>`: the type and the size, when `line` is such a header.
fn parse_header(line: &[u8]) -> Option<(&[u8], u64)> {
    let mut parts = line.rsplitn(3, |b| *b == b' ');
    let size = parts.next()?;
    let kind = parts.next()?;
    let oid = parts.next()?;
    // SHA-1 (40) or SHA-256 (64) hex object ids.
    let oid_ok = matches!(oid.len(), 40 | 64) && oid.iter().all(u8::is_ascii_hexdigit);
    let kind_ok = !kind.is_empty() && kind.iter().all(u8::is_ascii_lowercase);
    if !oid_ok || !kind_ok || size.is_empty() || !size.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let size = std::str::from_utf8(size).ok()?.parse().ok()?;
    Some((kind, size))
}

/// The directory git runs hooks from: `core.hooksPath` when set, else `.git/hooks`
/// (`git rev-parse --git-path hooks` resolves both, worktrees included).
pub fn hooks_dir(root: &Path) -> Result<PathBuf, String> {
    let args = ["rev-parse", "--git-path", "hooks"].map(OsStr::new);
    let mut out = git(root, &args)?;
    // One line; strip only its line break, not bytes a directory name may hold.
    if out.last() == Some(&b'\n') {
        out.pop();
    }
    let p = PathBuf::from(OsStr::from_bytes(&out));
    Ok(if p.is_absolute() { p } else { root.join(p) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    const OID: &str = "0123456789abcdef0123456789abcdef01234567";

    fn answers(stream: &[u8], n: usize) -> Vec<Result<FileContent, String>> {
        let mut r = Cursor::new(stream.to_vec());
        (0..n).map(|_| read_answer(&mut r, 1024)).collect()
    }

    #[test]
    fn batch_answers_found_missing_and_content_with_newlines() {
        let stream = format!(
            "{OID} blob 6\nab\ncd\n\n:0:1:x.ts missing\n{OID} blob 0\n\n:0:odd missing name missing\n"
        );
        let got = answers(stream.as_bytes(), 4);
        assert_eq!(got[0], Ok(Ok(b"ab\ncd\n".to_vec())));
        assert_eq!(got[1], Ok(Err("missing in the index".into())));
        assert_eq!(got[2], Ok(Ok(Vec::new())));
        assert_eq!(got[3], Ok(Err("missing in the index".into())));
    }

    #[test]
    fn batch_answers_sha256_ids_and_non_blobs() {
        let oid = "a".repeat(64);
        let stream = format!("{oid} blob 2\nhi\n{OID} commit 3\nabc\n");
        let got = answers(stream.as_bytes(), 2);
        assert_eq!(got[0], Ok(Ok(b"hi".to_vec())));
        assert_eq!(got[1], Ok(Err("not a file (a commit)".into())));
    }

    #[test]
    fn batch_skips_content_over_the_limit_and_stays_in_step() {
        let big = "x".repeat(2000);
        let stream = format!("{OID} blob 2000\n{big}\n{OID} blob 1\nz\n");
        let got = answers(stream.as_bytes(), 2);
        assert_eq!(got[0], Ok(Err("too large to check (2000 bytes)".into())));
        assert_eq!(got[1], Ok(Ok(b"z".to_vec())));
    }

    #[test]
    fn a_broken_batch_stream_is_an_error_of_the_whole_read() {
        // Truncated content, missing trailing newline, garbage header, nothing at all.
        for stream in [
            format!("{OID} blob 10\nabc"),
            format!("{OID} blob 3\nabcX"),
            "fatal: something\n".to_owned(),
            String::new(),
            format!("{OID} blob 3"),
        ] {
            let got = answers(stream.as_bytes(), 1);
            assert!(got[0].is_err(), "{stream:?} gave {got:?}");
        }
    }

    #[test]
    fn headers_are_recognised_strictly() {
        assert_eq!(
            parse_header(format!("{OID} blob 12").as_bytes()),
            Some((&b"blob"[..], 12))
        );
        assert_eq!(parse_header(b":0:a b 12"), None);
        assert_eq!(parse_header(format!("{OID} blob 1x").as_bytes()), None);
        assert_eq!(parse_header(format!("{OID} blob").as_bytes()), None);
        assert_eq!(parse_header(format!("{OID}  12").as_bytes()), None);
    }

    #[test]
    fn name_status_paths_stay_bytes() {
        let out = b"M\0src/a.ts\0D\0caf\xe9.ts\0A\x001:x.ts\0";
        let got = parse_name_status(out);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].utf8(), Some("src/a.ts"));
        assert!(!got[0].deleted);
        assert_eq!(got[1].path, b"caf\xe9.ts");
        assert!(got[1].deleted && got[1].utf8().is_none());
        assert_eq!(got[2].utf8(), Some("1:x.ts"));
    }

    #[test]
    fn stage_zero_is_explicit() {
        assert_eq!(stage0_name(b"1:x.ts"), b":0:1:x.ts");
    }

    /// A real index: odd names, a name with a newline (read alone), a missing path.
    #[test]
    fn staged_contents_reads_a_real_index_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let run = |args: &[&OsStr]| {
            let out = Command::new("git")
                .args(args)
                .current_dir(root)
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
        };
        run(&["init", "-q"].map(OsStr::new));
        let names: [&[u8]; 4] = [b"1:x.ts", b"caf\xe9.ts", b"new\nline.ts", b"cr.ts\r"];
        for (i, name) in names.iter().enumerate() {
            std::fs::write(root.join(OsStr::from_bytes(name)), format!("file {i}\n")).unwrap();
            run(&[OsStr::new("add"), OsStr::new("--"), OsStr::from_bytes(name)]);
        }
        let mut asked: Vec<&[u8]> = names.to_vec();
        asked.insert(2, b"not-staged.ts");
        let got = staged_contents(root, &asked).unwrap();
        assert_eq!(got.len(), 5);
        assert_eq!(got[0], Ok(b"file 0\n".to_vec()));
        assert_eq!(got[1], Ok(b"file 1\n".to_vec()));
        assert!(got[2].is_err(), "{:?}", got[2]);
        assert_eq!(got[3], Ok(b"file 2\n".to_vec()));
        assert_eq!(got[4], Ok(b"file 3\n".to_vec()));
        let paths = staged_paths(root).unwrap();
        assert_eq!(paths.len(), 4);
        assert!(paths.iter().any(|p| p.path == b"caf\xe9.ts"));
    }
}
