//! String formats checked by the validator: the JSON Schema ones agents meet most.
//!
//! Checks are deliberately syntactic and cheap: they catch the mistakes models make (a date
//! written `31/01/2025`, a missing `@`, a URL without a scheme) without pulling in parsers.

/// A well-known string format (JSON Schema `format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `local@domain.tld`: one `@`, a non-empty local part, a dotted domain, no spaces.
    Email,
    /// RFC 3339 date-time with a time zone: `2025-01-31T09:30:00Z`, `...+02:00`.
    DateTime,
    /// RFC 3339 full-date: `2025-01-31`.
    Date,
    /// An absolute URI: `scheme:rest` with an RFC 3986 scheme and no spaces.
    Uri,
    /// A UUID in the 8-4-4-4-12 hex form.
    Uuid,
}

impl Format {
    /// The JSON Schema name (`email`, `date-time`, `date`, `uri`, `uuid`).
    pub const fn name(self) -> &'static str {
        match self {
            Format::Email => "email",
            Format::DateTime => "date-time",
            Format::Date => "date",
            Format::Uri => "uri",
            Format::Uuid => "uuid",
        }
    }

    /// A valid value, shown in error messages.
    pub const fn example(self) -> &'static str {
        match self {
            Format::Email => "name@example.com",
            Format::DateTime => "2025-01-31T09:30:00Z",
            Format::Date => "2025-01-31",
            Format::Uri => "https://example.com/path",
            Format::Uuid => "123e4567-e89b-12d3-a456-426614174000",
        }
    }

    /// Whether `s` is in this format.
    pub fn is_valid(self, s: &str) -> bool {
        match self {
            Format::Email => is_email(s),
            Format::DateTime => is_date_time(s),
            Format::Date => is_date(s),
            Format::Uri => is_uri(s),
            Format::Uuid => is_uuid(s),
        }
    }
}

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && !s.chars().any(char::is_whitespace)
        && domain.split('.').count() >= 2
        && domain.split('.').all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
}

fn digits(s: &str) -> Option<u32> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    // ASCII only, so the byte slices below always fall on char boundaries.
    if !s.is_ascii() || b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (digits(&s[0..4]), digits(&s[5..7]), digits(&s[8..10]))
    else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

fn is_date_time(s: &str) -> bool {
    // RFC 3339 allows `t` and a space is not allowed; split on the first T/t.
    let Some(t) = s.find(['T', 't']) else {
        return false;
    };
    let (date, rest) = (&s[..t], &s[t + 1..]);
    if !is_date(date) {
        return false;
    }
    let (time, zone) = if let Some(stripped) = rest.strip_suffix(['Z', 'z']) {
        (stripped, None)
    } else if let Some(i) = rest.rfind(['+', '-']) {
        (&rest[..i], Some(&rest[i + 1..]))
    } else {
        return false;
    };
    if let Some(zone) = zone {
        let Some((h, m)) = zone.split_once(':') else {
            return false;
        };
        if h.len() != 2
            || m.len() != 2
            || !matches!((digits(h), digits(m)), (Some(0..=23), Some(0..=59)))
        {
            return false;
        }
    }
    let (hms, frac) = match time.split_once('.') {
        Some((hms, frac)) => (hms, Some(frac)),
        None => (time, None),
    };
    if frac.is_some_and(|f| f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let parts: Vec<&str> = hms.split(':').collect();
    let [h, m, sec] = parts.as_slice() else {
        return false;
    };
    h.len() == 2
        && m.len() == 2
        && sec.len() == 2
        // Second 60 is a leap second, allowed by RFC 3339.
        && matches!((digits(h), digits(m), digits(sec)), (Some(0..=23), Some(0..=59), Some(0..=60)))
}

fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn is_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::Format::*;

    #[test]
    fn formats_accept_and_refuse() {
        for ok in ["a@b.co", "first.last+tag@sub.example.org"] {
            assert!(Email.is_valid(ok), "{ok}");
        }
        for bad in ["a@b", "@b.co", "a b@c.co", "a@@b.co", "a@b..co"] {
            assert!(!Email.is_valid(bad), "{bad}");
        }
        for ok in [
            "2025-01-31T09:30:00Z",
            "2024-02-29t23:59:60.123+05:30",
            "2025-01-31T09:30:00-08:00",
        ] {
            assert!(DateTime.is_valid(ok), "{ok}");
        }
        for bad in [
            "2025-01-31",
            "2025-01-31 09:30:00Z",
            "2025-02-30T00:00:00Z",
            "2025-01-31T24:00:00Z",
            "2025-01-31T09:30:00",
            "2025-01-31T09:30:00+0200",
        ] {
            assert!(!DateTime.is_valid(bad), "{bad}");
        }
        assert!(
            Date.is_valid("2000-02-29")
                && !Date.is_valid("1900-02-29")
                && !Date.is_valid("31/01/2025")
        );
        assert!(Uri.is_valid("https://example.com/x?y=1") && Uri.is_valid("urn:isbn:123"));
        assert!(
            !Uri.is_valid("example.com/x")
                && !Uri.is_valid("https://a b")
                && !Uri.is_valid("1http://x")
        );
        assert!(Uuid.is_valid("123e4567-e89b-12d3-a456-426614174000"));
        assert!(
            !Uuid.is_valid("123e4567e89b12d3a456426614174000")
                && !Uuid.is_valid("123e4567-e89b-12d3-a456-42661417400g")
        );
    }
}
