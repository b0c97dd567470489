//! Human durations (`90s`, `30m`, `2h`, `1h30m`) for `--ttl`, and their display.

/// Parses a duration into milliseconds.
///
/// Accepts one or more `<number><unit>` parts with units `ms`, `s`, `m`, `h`, `d`
/// (`1h30m`, `90s`, `500ms`). A bare integer is milliseconds, because `--ttl MS` is what
/// scripts written for the first implementation pass. Zero and overflow are refused.
pub fn parse_duration_ms(input: &str) -> Result<u64, String> {
    let s = input.trim();
    if s.is_empty() {
        return Err("empty duration (try 90s, 30m or 2h)".into());
    }
    if s.bytes().all(|b| b.is_ascii_digit()) {
        let ms: u64 = s.parse().map_err(|_| format!("{input:?} is too large"))?;
        return positive(ms, input);
    }
    let mut total: u64 = 0;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(format!(
                "{input:?} is not a duration (try 90s, 30m, 2h or 1h30m)"
            ));
        }
        let n: u64 = rest[..digits]
            .parse()
            .map_err(|_| format!("{input:?} is too large"))?;
        rest = &rest[digits..];
        let unit_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        let unit_ms: u64 = match &rest[..unit_len] {
            "ms" => 1,
            "s" | "sec" | "secs" => 1_000,
            "m" | "min" | "mins" => 60_000,
            "h" | "hr" | "hrs" => 3_600_000,
            "d" => 86_400_000,
            "" => {
                return Err(format!(
                    "{input:?}: a unit is missing after {n} (ms, s, m, h or d)"
                ));
            }
            other => {
                return Err(format!(
                    "{input:?}: unknown unit {other:?} (use ms, s, m, h or d)"
                ));
            }
        };
        rest = &rest[unit_len..];
        total = n
            .checked_mul(unit_ms)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(|| format!("{input:?} is too large"))?;
    }
    positive(total, input)
}

fn positive(ms: u64, input: &str) -> Result<u64, String> {
    // The daemon takes ttlMs as a JSON integer; keep it within i64 so it round-trips.
    if ms == 0 {
        Err(format!("{input:?}: a duration must be positive"))
    } else if ms > i64::MAX as u64 {
        Err(format!("{input:?} is too large"))
    } else {
        Ok(ms)
    }
}

/// A short human form of a span: `45 s`, `12 min`, `2 h 5 min`, `3 d 4 h`.
pub fn human_span(ms: i64) -> String {
    let ms = ms.max(0);
    let secs = ms / 1000;
    if secs < 60 {
        format!("{secs} s")
    } else if secs < 3600 {
        format!("{} min", secs / 60)
    } else if secs < 86_400 {
        let (h, m) = (secs / 3600, (secs % 3600) / 60);
        if m == 0 {
            format!("{h} h")
        } else {
            format!("{h} h {m} min")
        }
    } else {
        let (d, h) = (secs / 86_400, (secs % 86_400) / 3600);
        if h == 0 {
            format!("{d} d")
        } else {
            format!("{d} d {h} h")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_compounds() {
        assert_eq!(parse_duration_ms("90s"), Ok(90_000));
        assert_eq!(parse_duration_ms("30m"), Ok(1_800_000));
        assert_eq!(parse_duration_ms("2h"), Ok(7_200_000));
        assert_eq!(parse_duration_ms("1h30m"), Ok(5_400_000));
        assert_eq!(parse_duration_ms("500ms"), Ok(500));
        assert_eq!(parse_duration_ms("1d"), Ok(86_400_000));
        assert_eq!(parse_duration_ms(" 45min "), Ok(2_700_000));
    }

    #[test]
    fn bare_numbers_are_milliseconds() {
        assert_eq!(parse_duration_ms("60000"), Ok(60_000));
    }

    #[test]
    fn bad_input_is_refused_with_a_reason() {
        for bad in [
            "",
            "0",
            "0s",
            "-5m",
            "5x",
            "m",
            "1.5h",
            "10 m",
            "99999999999999999999d",
        ] {
            assert!(parse_duration_ms(bad).is_err(), "{bad:?} should be refused");
        }
        assert!(
            parse_duration_ms("5x")
                .unwrap_err()
                .contains("unknown unit")
        );
    }

    #[test]
    fn spans_read_naturally() {
        assert_eq!(human_span(45_000), "45 s");
        assert_eq!(human_span(12 * 60_000 + 5_000), "12 min");
        assert_eq!(human_span(7_500_000), "2 h 5 min");
        assert_eq!(human_span(3_600_000), "1 h");
        assert_eq!(human_span(-5), "0 s");
    }
}
