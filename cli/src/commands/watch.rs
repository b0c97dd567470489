//! `wit watch`: a live view, redrawn when the state changes.
//!
//! The protocol has no subscriptions, so the view polls; it redraws when what it shows
//! changes (and every few seconds on a terminal, so that "time left" stays true). On a
//! terminal it uses the alternate screen and hides the cursor; a guard restores both on
//! every way out (Ctrl-C, SIGTERM, errors, panics).

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::signal::unix::{SignalKind, signal};

use crate::autostart;
use crate::commands::status::{Snapshot, render, snapshot};
use crate::context::Ctx;
use crate::exit::{CmdResult, Failure};
use crate::output::{local_clock, now_ms};
use crate::session::Session;

/// Restores the terminal when dropped.
struct Screen {
    active: bool,
}

impl Screen {
    fn enter(tty: bool) -> Self {
        if tty {
            // Alternate screen, hidden cursor.
            print!("\x1b[?1049h\x1b[?25l");
            let _ = std::io::stdout().flush();
        }
        Screen { active: tty }
    }

    fn draw(&self, frame: &str) {
        let mut out = std::io::stdout().lock();
        if self.active {
            // Home, the frame with each line cleared to its end, then clear the rest.
            let _ = write!(out, "\x1b[H");
            for line in frame.lines() {
                let _ = writeln!(out, "{line}\x1b[K");
            }
            let _ = write!(out, "\x1b[J");
        } else {
            let _ = writeln!(out, "{frame}");
        }
        let _ = out.flush();
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        if self.active {
            print!("\x1b[?25h\x1b[?1049l");
            let _ = std::io::stdout().flush();
        }
    }
}

/// What a frame depends on, apart from the clock.
fn state_key(s: &Snapshot) -> String {
    let locks: Vec<_> = s
        .locks
        .iter()
        .map(|l| (&l.symbol_path, &l.session_id, &l.expires_at))
        .collect();
    json!({"i": s.intents, "l": locks, "c": s.contracts}).to_string()
}

/// `wit watch`.
pub async fn run(ctx: &Ctx, interval_ms: u64) -> CmdResult {
    let mut client = ctx.client().await?;
    let session = Session::lookup(&ctx.repo);
    let tty = !ctx.json && std::io::stdout().is_terminal();
    let mut sigint = signal(SignalKind::interrupt()).map_err(Failure::other)?;
    let mut sigterm = signal(SignalKind::terminate()).map_err(Failure::other)?;
    let screen = Screen::enter(tty);
    let interval = Duration::from_millis(interval_ms);
    let mut last_key = String::new();
    let mut last_draw = Instant::now();
    let mut connected = true;
    loop {
        if !connected
            && let Ok(c) = autostart::connect_existing(&ctx.repo, autostart::CALL_TIMEOUT).await
        {
            client = c;
            connected = true;
        }
        if connected {
            match snapshot(ctx, &mut client, session.as_ref()).await {
                Ok(snap) => {
                    let key = state_key(&snap);
                    let stale = tty && last_draw.elapsed() >= Duration::from_secs(5);
                    if key != last_key || stale {
                        if ctx.json {
                            println!("{}", serde_json::to_string(&snap).map_err(Failure::other)?);
                        } else {
                            let mut frame = render(&snap, &ctx.style);
                            frame.push_str(&ctx.style.dim(&format!(
                                "\nupdated {} · Ctrl-C to quit",
                                local_clock(now_ms())
                            )));
                            screen.draw(&frame);
                        }
                        last_key = key;
                        last_draw = Instant::now();
                    }
                }
                Err(Failure::Unreachable(m)) => {
                    connected = false;
                    last_key.clear();
                    if ctx.json {
                        println!(
                            "{}",
                            json!({"error": {"code": 4, "message": "DAEMON_UNREACHABLE", "data": {"explanation": m}}})
                        );
                    } else {
                        screen.draw(&format!("daemon unreachable ({m}); retrying…"));
                    }
                }
                Err(e) => return Err(e),
            }
        }
        tokio::select! {
            _ = sigint.recv() => break,
            _ = sigterm.recv() => break,
            _ = tokio::time::sleep(interval) => {}
        }
    }
    drop(screen);
    Ok(())
}
