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
fn watch_on_a_pipe_prints_readable_frames() {
    let r = CliRepo::new();
    r.wit(Some("b"), &["lock", "x.ts:g"]).ok();
    let mut child = wit_command(r.path(), Some("a"), &["watch", "--interval", "50ms"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = String::new();
    while !seen.contains("updated ") {
        seen.push_str(&lines.next().expect("watch output").unwrap());
        seen.push('\n');
    }
    assert!(
        seen.contains("x.ts:g") && seen.contains("Locks (1)"),
        "{seen}"
    );
    assert!(
        !seen.contains("\x1b[?1049h"),
        "no alternate screen on a pipe"
    );
    // SAFETY: kill(2) on our own un-reaped child with a valid signal.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(child.wait().unwrap().code(), Some(0));
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
