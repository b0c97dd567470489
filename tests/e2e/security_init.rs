//! Security item 3: `wit init` writes only inside the repository.

use crate::support::cli::CliRepo;

#[test]
fn item3_init_refuses_instruction_and_ignore_files_that_link_out_of_the_repository() {
    for name in ["CLAUDE.md", "AGENTS.md", ".gitignore"] {
        let home = tempfile::tempdir().unwrap();
        let bashrc = home.path().join(".bashrc");
        std::fs::write(&bashrc, "# mine\n").unwrap();
        let r = CliRepo::new();
        r.repo.symlink(&bashrc, name);
        let out = r.wit(None, &["init"]);
        assert_ne!(out.code, 0, "{name}: {out:#?}");
        assert!(
            out.stderr.contains(name) && out.stderr.contains("outside the repository"),
            "{name}: {}",
            out.stderr
        );
        assert_eq!(
            std::fs::read_to_string(&bashrc).unwrap(),
            "# mine\n",
            "{name}"
        );
    }
}

#[test]
fn item3_init_follows_a_symlink_that_stays_inside_the_repository() {
    let r = CliRepo::new();
    r.write("docs/AGENTS.md", "# Agents\n");
    r.repo
        .symlink(std::path::Path::new("docs/AGENTS.md"), "AGENTS.md");
    r.wit(None, &["init"]).ok();
    let text = std::fs::read_to_string(r.path().join("docs/AGENTS.md")).unwrap();
    assert!(
        text.starts_with("# Agents\n\n<!-- wit:coordination -->"),
        "{text}"
    );
}

/// `wit check-contracts` reads working-tree files through the boundary too: a symlink out
/// of the repository is refused (its target never read and sent), and a FIFO answers at
/// once instead of hanging the command.
#[test]
fn check_contracts_reads_no_symlink_out_and_never_waits_on_a_fifo() {
    let r = CliRepo::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.ts"), "export function s() {}\n").unwrap();
    r.repo
        .symlink(&outside.path().join("secret.ts"), "src/link.ts");
    let out = r.wit(Some("a"), &["check-contracts", "src/link.ts"]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(
        out.stderr.contains("outside the repository"),
        "{}",
        out.stderr
    );

    let fifo = r.path().join("src/pipe.ts");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // Nothing ever writes to the FIFO: a blocking open would hang here for good.
    let out = r.wit(Some("a"), &["check-contracts", "src/pipe.ts"]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
}

/// Issue 34, finding 5: a clone shipping `CLAUDE.md -> .git/config` got wit's
/// instructions appended to git's configuration by `wit init` (every git command then
/// failed: "bad config line 13"). A symlink may still point within the work tree, never
/// into git's directory or `.wit/`.
#[test]
fn init_never_writes_through_a_symlink_into_git_s_directory() {
    let r = CliRepo::new();
    let config = std::fs::read_to_string(r.path().join(".git/config")).unwrap();
    r.repo
        .symlink(std::path::Path::new(".git/config"), "CLAUDE.md");
    refused_inside_git(&r.wit(None, &["init"]), "CLAUDE.md");
    assert_eq!(
        std::fs::read_to_string(r.path().join(".git/config")).unwrap(),
        config
    );
    r.git(&["status", "--short"]);
}

/// Issue 34, finding 5: `.codex/config.toml -> ../.git/info/exclude` was written by `wit
/// integrate codex`. Now refused before any file is written.
#[test]
fn integrate_never_writes_through_a_symlink_into_git_s_directory() {
    let r = CliRepo::new();
    let exclude = r.path().join(".git/info/exclude");
    let before = std::fs::read_to_string(&exclude).unwrap_or_default();
    std::fs::create_dir_all(r.path().join(".codex")).unwrap();
    std::os::unix::fs::symlink("../.git/info/exclude", r.path().join(".codex/config.toml"))
        .unwrap();
    refused_inside_git(&r.wit(None, &["integrate", "codex"]), ".codex/config.toml");
    assert_eq!(
        std::fs::read_to_string(&exclude).unwrap_or_default(),
        before
    );
    assert!(
        !r.path().join("AGENTS.md").exists(),
        "written before the refusal"
    );
}

/// `out` failed, naming `file` as resolving into git's directory.
fn refused_inside_git(out: &crate::support::cli::Run, file: &str) {
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(
        out.stderr.contains(file) && out.stderr.contains("inside git's directory"),
        "{}",
        out.stderr
    );
}
