//! Repository-root confinement: the daemon never reads a file outside its repository.

use std::path::{Component, Path, PathBuf};

/// Resolves `rel` (a path as a client wrote it) to an existing regular file inside `root`.
///
/// `root` must already be canonical. Returns `None` — "not found" to the caller — for an
/// empty path, an absolute path, any `..` component, a path whose resolution (symlinks
/// included) leaves the root, and anything that is not a regular file.
pub(crate) fn resolve_in_root(root: &Path, rel: &str) -> Option<PathBuf> {
    if rel.is_empty() || rel.contains('\0') {
        return None;
    }
    let rel_path = Path::new(rel);
    for component in rel_path.components() {
        match component {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    let canonical = root.join(rel_path).canonicalize().ok()?;
    if !canonical.starts_with(root) {
        return None;
    }
    canonical.metadata().ok()?.is_file().then_some(canonical)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_escapes_and_accepts_files_inside() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.ts"), "x").unwrap();
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.ts"), "a").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.ts"), root.join("src/link.ts"))
            .unwrap();
        std::os::unix::fs::symlink(root.join("src/a.ts"), root.join("src/inner.ts")).unwrap();

        assert!(resolve_in_root(&root, "src/a.ts").is_some());
        assert!(resolve_in_root(&root, "./src/a.ts").is_some());
        assert!(resolve_in_root(&root, "src/inner.ts").is_some());
        assert!(resolve_in_root(&root, "src/link.ts").is_none());
        assert!(resolve_in_root(&root, "src/../src/a.ts").is_none());
        assert!(resolve_in_root(&root, "../secret.ts").is_none());
        let abs = root.join("src/a.ts");
        assert!(resolve_in_root(&root, abs.to_str().unwrap()).is_none());
        assert!(resolve_in_root(&root, "").is_none());
        assert!(resolve_in_root(&root, "src").is_none());
        assert!(resolve_in_root(&root, "src/missing.ts").is_none());
    }
}
