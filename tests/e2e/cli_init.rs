//! `wit init`: files written once, existing content kept, daemon started.

use crate::support::cli::CliRepo;
use crate::support::instructions::WORKFLOW_PHRASES;

#[test]
fn init_is_idempotent_and_never_clobbers_existing_instructions() {
    let r = CliRepo::new();
    r.write("CLAUDE.md", "# Project rules\n\nUse tabs.\n");
    r.write("AGENTS.md", "Agents: be nice."); // no trailing newline
    r.write(".gitignore", "target/");

    let out = r.wit(None, &["init"]).ok();
    assert!(out.stdout.contains("wit is set up in"), "{}", out.stdout);
    assert_eq!(r.daemon_pids().len(), 1, "init starts the daemon");
    let claude = std::fs::read_to_string(r.path().join("CLAUDE.md")).unwrap();
    let agents = std::fs::read_to_string(r.path().join("AGENTS.md")).unwrap();
    assert!(
        claude.starts_with("# Project rules\n\nUse tabs.\n\n<!-- wit:coordination -->"),
        "{claude}"
    );
    assert!(
        agents.starts_with("Agents: be nice.\n\n<!-- wit:coordination -->"),
        "{agents}"
    );
    for text in [&claude, &agents] {
        for needle in WORKFLOW_PHRASES {
            assert!(text.contains(needle), "instructions lack {needle:?}");
        }
    }
    let gitignore = std::fs::read_to_string(r.path().join(".gitignore")).unwrap();
    assert_eq!(gitignore, "target/\n# wit coordination state\n.wit/\n");
    let session = std::fs::read_to_string(r.repo.wit_dir().join("session.id")).unwrap();
    assert!(session.trim().starts_with("agent-"), "{session}");

    // Second run: nothing changes, in JSON too.
    let v = r.wit(None, &["init", "--json"]).ok().json();
    assert_eq!(v["claudeMd"], "unchanged");
    assert_eq!(v["agentsMd"], "unchanged");
    assert_eq!(v["gitignore"], "unchanged");
    assert_eq!(v["sessionId"], session.trim());
    assert_eq!(
        std::fs::read_to_string(r.path().join("CLAUDE.md")).unwrap(),
        claude
    );
    assert_eq!(
        std::fs::read_to_string(r.path().join("AGENTS.md")).unwrap(),
        agents
    );
    assert_eq!(
        std::fs::read_to_string(r.path().join(".gitignore")).unwrap(),
        gitignore
    );
    assert_eq!(r.daemon_pids().len(), 1, "still one daemon");
    // git ignores .wit/.
    assert!(!r.git(&["status", "--porcelain"]).contains(".wit"));
}

#[test]
fn init_creates_missing_instruction_files() {
    let r = CliRepo::new();
    let v = r.wit(None, &["init", "--json"]).ok().json();
    assert_eq!(v["claudeMd"], "created");
    assert_eq!(v["agentsMd"], "created");
    assert_eq!(v["gitignore"], "created");
    assert!(v["daemonPid"].is_u64());
    let claude = std::fs::read_to_string(r.path().join("CLAUDE.md")).unwrap();
    assert_eq!(claude.matches("<!-- wit:coordination -->").count(), 1);
}
