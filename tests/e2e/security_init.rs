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
