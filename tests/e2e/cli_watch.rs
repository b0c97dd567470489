//! `wit watch`: redraws on change, exits cleanly on Ctrl-C (SIGINT), and gives a terminal
//! back as it found it.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use crate::support::cli::{CliRepo, wit_command};
use crate::support::pty::Pty;

/// What `wit watch` writes on a terminal before its first frame: alternate screen, hidden
/// cursor.
const ENTER_SCREEN: &str = "\x1b[?1049h\x1b[?25l";
/// What it must write last: cursor shown again, alternate screen left.
const RESTORE_SCREEN: &str = "\x1b[?25h\x1b[?1049l";

#[test]
fn watch_redraws_on_change_and_exits_cleanly_on_sigint() {
    let r = CliRepo::new();
    r.wit(Some("a"), &["daemon", "start"]).ok();
    let mut child = wit_command(
        r.path(),
        Some("a"),
        &["watch", "--json", "--interval", "50ms"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let frame = |rx: &mpsc::Receiver<String>| -> serde_json::Value {
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("a frame from wit watch");
        serde_json::from_str(&line).unwrap()
    };
    let first = frame(&rx);
    assert_eq!(first["locks"], serde_json::json!([]));
    r.wit(Some("b"), &["lock", "x.ts:f"]).ok();
    let second = frame(&rx);
    assert_eq!(second["locks"][0]["symbolPath"], "x.ts:f");

    // SAFETY: kill(2) on our own un-reaped child with a valid signal.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "watch exits 0 on Ctrl-C");
}

#[test]
fn watch_on_a_pipe_prints_one_line_per_change_woken_by_events() {
    let r = CliRepo::new();
    r.wit(Some("b"), &["lock", "x.ts:g"]).ok();
    // An hour between polls: the changes below can only show because the daemon's event
    // log wakes the view (the test would otherwise wait far past any sane timeout).
    let mut child = wit_command(r.path(), Some("a"), &["watch", "--interval", "1h"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().expect("watch output").unwrap();
    assert!(
        first.contains("watching") && first.contains("1 locks"),
        "{first}"
    );
    r.wit(Some("b"), &["lock", "x.ts:h"]).ok();
    let change = lines.next().expect("a change line").unwrap();
    assert!(change.contains("lock x.ts:h taken by b"), "{change}");
    r.wit(Some("b"), &["release", "x.ts:g"]).ok();
    let change = lines.next().expect("a change line").unwrap();
    assert!(change.contains("lock x.ts:g released"), "{change}");
    for line in [&first, &change] {
        assert!(
            !line.contains('\x1b'),
            "no escape sequences on a pipe: {line:?}"
        );
    }
    // SAFETY: kill(2) on our own un-reaped child with a valid signal.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// Visible text of terminal output: escape sequences removed.
fn visible(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else if c != '\r' {
            out.push(c);
        }
    }
    out
}

#[test]
fn watch_fits_an_80_by_24_terminal_and_keeps_its_header() {
    let r = CliRepo::new();
    let mut body = String::new();
    for i in 0..30 {
        body.push_str(&format!(
            "export function f{i}(a: string, b: number): void {{}}\n"
        ));
    }
    r.write("src/a.ts", &body);
    for i in 0..30 {
        r.wit(
            Some(&format!("agent-with-a-long-name-{i}")),
            &[
                "declare",
                "-d",
                &format!("a rather long description of change number {i} that will not fit"),
                "--files",
                "src/a.ts",
            ],
        )
        .ok();
        r.wit(Some("b"), &["lock", &format!("src/a.ts:f{i}")]).ok();
    }
    for i in 0..8 {
        r.wit(
            Some("c"),
            &["contract", "propose", &format!("src/a.ts:f{i}")],
        )
        .ok();
    }
    let wit = crate::support::wit_bin();
    let mut cmd = wit_command(r.path(), Some("a"), &[]);
    cmd = {
        let mut sh = std::process::Command::new("sh");
        sh.args([
            "-c",
            &format!("stty cols 80 rows 24 && exec {wit} watch --interval 50ms"),
        ])
        .current_dir(r.path());
        for (k, v) in cmd.get_envs() {
            match v {
                Some(v) => sh.env(k, v),
                None => sh.env_remove(k),
            };
        }
        sh
    };
    let mut pty = Pty::spawn(&cmd);
    pty.wait_for("Ctrl-C to quit");
    let drawn = pty.output();
    let frame = drawn.rsplit("\x1b[H").next().unwrap();
    let frame = frame.split("Ctrl-C to quit").next().unwrap();
    let lines: Vec<String> = visible(frame).split('\n').map(str::to_owned).collect();
    assert!(lines.len() <= 24, "{} lines: {lines:#?}", lines.len());
    for l in &lines {
        assert!(l.chars().count() <= 80, "{} wide: {l:?}", l.chars().count());
    }
    assert!(lines[0].contains("wit-e2e-"), "header first: {lines:#?}");
    for title in ["Intents (30)", "Locks (30)", "Contracts (8)"] {
        assert!(
            lines.iter().any(|l| l.contains(title)),
            "{title}: {lines:#?}"
        );
    }
    assert!(
        lines.iter().any(|l| l.contains("more (wit intent list)")),
        "says how many rows are hidden: {lines:#?}"
    );
    pty.send(b"\x03");
    assert_eq!(pty.finish().code, 0);
}

#[test]
fn watch_on_a_terminal_restores_the_screen_and_cursor_on_ctrl_c() {
    let r = CliRepo::new();
    r.wit(Some("a"), &["daemon", "start"]).ok();
    let mut pty = Pty::spawn(&wit_command(
        r.path(),
        Some("a"),
        &["watch", "--interval", "50ms"],
    ));
    // The footer ends the first frame.
    pty.wait_for("Ctrl-C to quit");
    let drawn = pty.output();
    assert!(drawn.contains(ENTER_SCREEN), "{drawn:?}");
    assert!(drawn.contains("Locks:"), "{drawn:?}");

    // Ctrl-C typed on the terminal: the line discipline turns it into SIGINT.
    pty.send(b"\x03");
    let exit = pty.finish();
    assert_eq!(exit.code, 0, "watch exits 0 on Ctrl-C: {exit:?}");
    assert!(
        exit.output.ends_with(RESTORE_SCREEN),
        "the output ends by leaving the alternate screen and showing the cursor: {:?}",
        &exit.output[exit.output.len().saturating_sub(80)..]
    );
}
