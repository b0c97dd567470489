//! Terminal output: colour (only on a terminal, never with `NO_COLOR`), aligned tables,
//! relative and local times.

use std::io::IsTerminal;

use serde::Serialize;

use crate::duration::human_span;

/// Whether and how to colour.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    color: bool,
}

impl Style {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset or empty.
    pub fn detect() -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            color: !no_color && std::io::stdout().is_terminal(),
        }
    }

    /// No colour at all.
    pub fn plain() -> Self {
        Style { color: false }
    }

    /// `s` (escaped: only wit's own colour codes reach the terminal) in colour `code`.
    fn paint(&self, code: &str, s: &str) -> String {
        let s = shown(s);
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.into_owned()
        }
    }

    /// Bold.
    pub fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    /// Dimmed.
    pub fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
    /// Red.
    pub fn red(&self, s: &str) -> String {
        self.paint("31", s)
    }
    /// Green.
    pub fn green(&self, s: &str) -> String {
        self.paint("32", s)
    }
    /// Yellow.
    pub fn yellow(&self, s: &str) -> String {
        self.paint("33", s)
    }
    /// Cyan.
    pub fn cyan(&self, s: &str) -> String {
        self.paint("36", s)
    }
}

/// Writes `args` (and a newline) to stdout: what the crate's `println!` and `print!` do
/// (see `main.rs`).
///
/// A closed stdout (the reader went away: `wit conflicts | head -3`) ends the process at
/// once, quietly, with exit 0: the output was wanted only up to there, and nothing more
/// the command could do would be seen. Another write error (a full disk behind a
/// redirection) is said on stderr and ends it with exit 1, where the standard macros
/// would panic.
pub fn write_out(args: std::fmt::Arguments<'_>, newline: bool) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| {
        if newline {
            out.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            std::process::exit(i32::from(crate::exit::OK))
        }
        Err(e) => {
            drop(out);
            eprintln!("wit: writing to stdout: {e}");
            std::process::exit(i32::from(crate::exit::OTHER))
        }
    }
}

/// Prints `value` as the one JSON document of this command.
pub fn print_json<T: Serialize>(value: &T) {
    match serde_json::to_string_pretty(value) {
        Ok(s) => println!("{s}"),
        Err(e) => println!(
            "{{\"error\":{{\"code\":1,\"message\":\"ERROR\",\"data\":{{\"explanation\":{:?}}}}}}}",
            e.to_string()
        ),
    }
}

/// A table cell: its plain text (for width) and how it is shown (maybe coloured).
pub struct Cell {
    text: String,
    shown: String,
}

/// `s` ready for the terminal: control characters escaped (see [`wit_core::text`]).
/// Everything a command prints that another party chose — descriptions, session ids,
/// paths, symbol names, plugin names — goes through this (table cells do by themselves).
pub fn shown(s: &str) -> std::borrow::Cow<'_, str> {
    wit_core::text::escape(s)
}

impl Cell {
    /// An uncoloured cell (its text escaped).
    pub fn plain(s: impl Into<String>) -> Self {
        let text = shown(&s.into()).into_owned();
        Cell {
            shown: text.clone(),
            text,
        }
    }

    /// A cell shown through `paint` (which must not change its visible width); its text
    /// is escaped first.
    pub fn styled(s: impl Into<String>, paint: impl Fn(&str) -> String) -> Self {
        let text = shown(&s.into()).into_owned();
        Cell {
            shown: paint(&text),
            text,
        }
    }
}

/// A session id, marked "(you)" in cyan when it is the caller's session `me`.
pub fn session_cell(session: &str, me: Option<&str>, style: &Style) -> Cell {
    if me == Some(session) {
        Cell::styled(format!("{session} (you)"), |t| style.cyan(t))
    } else {
        Cell::plain(session)
    }
}

/// Renders rows as aligned columns, two spaces apart, indented by two; the header dimmed.
pub fn table(style: &Style, header: &[&str], rows: Vec<Vec<Cell>>) -> String {
    let cols = header.len();
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (i, c) in row.iter().enumerate().take(cols) {
            width[i] = width[i].max(c.text.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: Vec<(String, usize)>, out: &mut String| {
        out.push_str("  ");
        let n = cells.len();
        for (i, (shown, visible)) in cells.into_iter().enumerate() {
            out.push_str(&shown);
            if i + 1 < n {
                out.push_str(&" ".repeat(width[i] - visible + 2));
            }
        }
        out.push('\n');
    };
    line(
        header
            .iter()
            .map(|h| (style.dim(h), h.chars().count()))
            .collect(),
        &mut out,
    );
    for row in rows {
        line(
            row.into_iter()
                .map(|c| {
                    let w = c.text.chars().count();
                    (c.shown, w)
                })
                .collect(),
            &mut out,
        );
    }
    out
}

/// Now, in Unix milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// `12 min ago` (or `just now`).
pub fn ago(unix_ms: i64) -> String {
    let d = now_ms() - unix_ms;
    if d < 1000 {
        "just now".into()
    } else {
        format!("{} ago", human_span(d))
    }
}

/// The local wall-clock time of `unix_ms` as `HH:MM`, with the date when it is not today.
pub fn local_clock(unix_ms: i64) -> String {
    let (Some(t), Some(today)) = (local_tm(unix_ms), local_tm(now_ms())) else {
        return wit_core::protocol::iso8601_millis(unix_ms);
    };
    if (t.tm_year, t.tm_yday) == (today.tm_year, today.tm_yday) {
        format!("{:02}:{:02}", t.tm_hour, t.tm_min)
    } else {
        format!(
            "{}-{:02}-{:02} {:02}:{:02}",
            t.tm_year + 1900,
            t.tm_mon + 1,
            t.tm_mday,
            t.tm_hour,
            t.tm_min
        )
    }
}

fn local_tm(unix_ms: i64) -> Option<libc::tm> {
    // time_t is i64 on every platform wit supports.
    let secs: libc::time_t = unix_ms.div_euclid(1000);
    // SAFETY: `tm` is plain old data for which all-zero bytes are a valid value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the duration of the call; localtime_r is the
    // re-entrant variant and writes only into `tm`.
    let r = unsafe { libc::localtime_r(&secs, &mut tm) };
    (!r.is_null()).then_some(tm)
}

/// `until 14:32 (12 min left)` for an ISO 8601 expiry.
pub fn until(expires_iso: &str) -> String {
    match wit_core::protocol::parse_iso8601_millis(expires_iso) {
        Some(ms) => format!(
            "until {} ({} left)",
            local_clock(ms),
            human_span(ms - now_ms())
        ),
        None => format!("until {expires_iso}"),
    }
}

/// Cuts a line (which may hold wit's own colour codes, `ESC [ … m`) to at most `width`
/// visible characters, ending with `…` (and a colour reset) when cut.
pub fn fit_line(line: &str, width: usize) -> String {
    let mut visible = 0;
    let mut out = String::with_capacity(line.len().min(width * 4));
    let mut chars = line.chars().peekable();
    let total: usize = visible_width(line);
    if total <= width {
        return line.to_owned();
    }
    let keep = width.saturating_sub(1);
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // A colour sequence: copied whole, takes no column.
            out.push(c);
            for d in chars.by_ref() {
                out.push(d);
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        if visible == keep {
            break;
        }
        out.push(c);
        visible += 1;
    }
    if width > 0 {
        out.push('…');
    }
    if out.contains('\x1b') {
        out.push_str("\x1b[0m");
    }
    out
}

/// Visible characters of a line, not counting colour sequences.
pub fn visible_width(line: &str) -> usize {
    let mut n = 0;
    let mut in_escape = false;
    for c in line.chars() {
        if in_escape {
            in_escape = !c.is_ascii_alphabetic();
        } else if c == '\x1b' {
            in_escape = true;
        } else {
            n += 1;
        }
    }
    n
}

/// Shortens `s` to at most `max` characters, ending with `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_on_visible_width() {
        let s = Style::plain();
        let out = table(
            &s,
            &["A", "BB"],
            vec![
                vec![Cell::plain("long value"), Cell::plain("x")],
                vec![Cell::plain("é"), Cell::plain("y")],
            ],
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "  A           BB");
        assert_eq!(lines[1], "  long value  x");
        assert_eq!(lines[2], "  é           y");
    }

    #[test]
    fn lines_fit_their_width_with_colour_codes_kept_whole() {
        assert_eq!(fit_line("abcdef", 4), "abc…");
        assert_eq!(fit_line("abc", 4), "abc");
        let coloured = "\x1b[1mbold text\x1b[0m and more";
        let cut = fit_line(coloured, 6);
        assert_eq!(visible_width(&cut), 6, "{cut:?}");
        assert!(cut.starts_with("\x1b[1mbold "), "{cut:?}");
        assert!(cut.ends_with("…\x1b[0m"), "{cut:?}");
    }

    #[test]
    fn truncation_marks_the_cut() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
