//! Temporary repositories.

use std::path::{Path, PathBuf};

/// A temporary directory used as a repository root; deleted on drop.
pub struct TempRepo {
    dir: tempfile::TempDir,
    root: PathBuf,
}

impl TempRepo {
    /// An empty repository.
    pub fn new() -> Self {
        // Short prefix: Unix socket paths are limited to ~108 bytes.
        let dir = tempfile::Builder::new()
            .prefix("wit-e2e-")
            .tempdir()
            .expect("create temp dir");
        let root = dir.path().canonicalize().expect("canonical temp dir");
        Self { dir, root }
    }

    /// Writes `content` to `rel` (creating parent directories) and returns `self`.
    pub fn with_file(self, rel: &str, content: &str) -> Self {
        self.write(rel, content);
        self
    }

    /// Writes `content` to `rel`, creating parent directories.
    pub fn write(&self, rel: &str, content: &str) {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent dirs");
        }
        std::fs::write(&path, content).expect("write file");
    }

    /// Creates a symlink at `rel` pointing to `target`.
    pub fn symlink(&self, target: &Path, rel: &str) {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent dirs");
        }
        std::os::unix::fs::symlink(target, path).expect("create symlink");
    }

    /// The (canonical) root.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// `<root>/.wit`.
    pub fn wit_dir(&self) -> PathBuf {
        self.root.join(".wit")
    }

    /// `<root>/.wit/daemon.sock`.
    pub fn socket(&self) -> PathBuf {
        self.wit_dir().join("daemon.sock")
    }

    /// `<root>/.wit/daemon.pid`.
    pub fn pid_file(&self) -> PathBuf {
        self.wit_dir().join("daemon.pid")
    }

    /// Keeps the temp dir alive for `self`'s lifetime (used by tests that need the value).
    pub fn temp_dir(&self) -> &tempfile::TempDir {
        &self.dir
    }
}

impl Default for TempRepo {
    fn default() -> Self {
        Self::new()
    }
}

/// A TypeScript file exercising functions, arrows, methods, a class, an interface, a type
/// alias and call edges (`handler` → `validateToken` → `decode`).
pub const AUTH_TS: &str = r#"import { db } from "./db";

export interface User {
  id: string;
  name: string;
}

export type Token = string;

export function decode(token: string): User | null {
  return null;
}

export async function validateToken(token: string): Promise<User | null> {
  const user = decode(token);
  return user;
}

export const handler = (req: Request): boolean => {
  const u = validateToken(req.headers.get("x"));
  db.log(u);
  return true;
};

export class Session {
  save(user: User): void {
    persist(user);
  }
}

function persist(user: User): void {}
"#;

/// A Python file with a decorated function, a nested call chain and a class.
pub const UTIL_PY: &str = r#"import functools


def helper(name: str, retries: int = 3) -> bool:
    return len(name) > retries


@functools.cache
def main(name: str) -> bool:
    return helper(name)


class Greeter:
    def greet(self, x):
        return helper(x)
"#;
