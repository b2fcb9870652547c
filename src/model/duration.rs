//! Durations written as a number and a unit (`30s`, `10m`, `24h`, `7d`).

/// A whole number of seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration {
    secs: u64,
}

impl Duration {
    /// A duration of `secs` seconds.
    pub const fn from_secs(secs: u64) -> Duration {
        Duration { secs }
    }

    /// Seconds.
    pub const fn as_secs(self) -> u64 {
        self.secs
    }

    /// Parses `<number><unit>` with unit `s`, `m`, `h` or `d`. Zero is refused: a TTL of zero
    /// would make every key or preview expire before it could be used.
    pub fn parse(text: &str) -> Result<Duration, String> {
        let text = text.trim();
        let unit_at = text
            .find(|c: char| !c.is_ascii_digit())
            .ok_or_else(|| format!("`{text}` has no unit"))?;
        let (number, unit) = text.split_at(unit_at);
        let n: u64 = number
            .parse()
            .map_err(|_| format!("`{text}` does not start with a whole number"))?;
        // `1 d` reads as clearly as `1d`; the space is not part of the unit.
        let factor = match unit.trim_start() {
            "s" => 1,
            "m" => 60,
            "h" => 3600,
            "d" => 86400,
            other => {
                return Err(format!(
                    "`{other}` is not a unit: use s, m, h or d (`90s`, `10m`, `24h`, `7d`)"
                ));
            }
        };
        if n == 0 {
            return Err("a duration of zero would expire at once".into());
        }
        n.checked_mul(factor)
            .map(Duration::from_secs)
            .ok_or_else(|| format!("`{text}` is too long"))
    }
}

/// The shortest exact spelling of a duration (`86400` seconds is `24h`), as descriptions and
/// docs show it.
pub fn format_duration(d: Duration) -> String {
    let s = d.as_secs();
    if s.is_multiple_of(86400) && s >= 86400 * 2 {
        format!("{}d", s / 86400)
    } else if s.is_multiple_of(3600) {
        format!("{}h", s / 3600)
    } else if s.is_multiple_of(60) {
        format!("{}m", s / 60)
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_units() {
        assert_eq!(Duration::parse("24h").unwrap().as_secs(), 86400);
        assert_eq!(format_duration(Duration::parse("24h").unwrap()), "24h");
        assert_eq!(format_duration(Duration::parse("10m").unwrap()), "10m");
        assert_eq!(format_duration(Duration::parse("7d").unwrap()), "7d");
        assert_eq!(format_duration(Duration::parse("90s").unwrap()), "90s");
        assert_eq!(Duration::parse("1 d").unwrap().as_secs(), 86400);
        assert_eq!(
            Duration::parse("1 day").unwrap_err(),
            "`day` is not a unit: use s, m, h or d (`90s`, `10m`, `24h`, `7d`)"
        );
        for bad in ["", "24", "h", "0m", "5w", "-1h", "99999999999999999999d"] {
            assert!(Duration::parse(bad).is_err(), "{bad}");
        }
    }
}
