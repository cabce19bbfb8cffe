//! torchcts's UTC ISO-8601 times (`2026-11-30T16:24:12.093778Z`) as Unix seconds, and an
//! age in words. The clock is the caller's: "now" is always a parameter.

/// Unix seconds of `YYYY-MM-DDTHH:MM:SS[.frac][Z|+00:00]` (a date alone is midnight);
/// `None` for anything else. Offsets other than UTC are applied.
pub fn unix_seconds(text: &str) -> Option<i64> {
    let text = text.trim();
    let number = |s: &str| -> Option<i64> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
    };
    let (date, time) = match text.find(['T', ' ']) {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, ""),
    };
    let mut parts = date.splitn(3, '-');
    let (year, month, day) = (number(parts.next()?)?, number(parts.next()?)?, number(parts.next()?)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let (clock, offset) = split_offset(time)?;
    let clock = clock.split('.').next().unwrap_or("");
    let mut hms = clock.split(':');
    let hour = hms.next().filter(|s| !s.is_empty()).map_or(Some(0), number)?;
    let minute = hms.next().map_or(Some(0), number)?;
    let second = hms.next().map_or(Some(0), number)?;
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset)
}

/// The clock part and its UTC offset in seconds (`Z`, `+HH:MM`, `-HH:MM` or none).
fn split_offset(time: &str) -> Option<(&str, i64)> {
    if let Some(clock) = time.strip_suffix('Z').or_else(|| time.strip_suffix('z')) {
        return Some((clock, 0));
    }
    match time.rfind(['+', '-']) {
        Some(i) => {
            let (h, m) = time[i + 1..].split_once(':').unwrap_or((&time[i + 1..], "0"));
            let seconds = h.parse::<i64>().ok()? * 3600 + m.parse::<i64>().ok()? * 60;
            Some((&time[..i], if &time[i..=i] == "-" { -seconds } else { seconds }))
        }
        None => Some((time, 0)),
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `2026-11-30 16:24 UTC` of Unix seconds.
pub fn utc_minutes(seconds: i64) -> String {
    let rest = seconds.rem_euclid(86_400);
    format!("{} {:02}:{:02} UTC", utc_date(seconds), rest / 3600, rest % 3600 / 60)
}

/// `2026-11-30` (UTC) of Unix seconds.
pub fn utc_date(seconds: i64) -> String {
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    format!("{year:04}-{month:02}-{day:02}")
}

/// The date of a day count since 1970-01-01 (the inverse of [`days_from_civil`]).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// "just now", "5 min ago", "3 h ago", "2 d ago"; a time after `now` (another machine's
/// clock) reads "just now".
pub fn age(seconds: i64) -> String {
    match seconds {
        s if s < 60 => "just now".into(),
        s if s < 3600 => format!("{} min ago", s / 60),
        s if s < 86_400 => format!("{} h ago", s / 3600),
        s => format!("{} d ago", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torchcts_times() {
        assert_eq!(unix_seconds("1970-01-01T00:00:00Z"), Some(0));
        // date -u -d 2026-11-30T16:24:12Z +%s
        assert_eq!(unix_seconds("2026-11-30T16:24:12.093778Z"), Some(1_796_055_852));
        assert_eq!(unix_seconds("2026-11-30T17:24:12+01:00"), Some(1_796_055_852));
        assert_eq!(unix_seconds("2026-11-30"), Some(1_796_055_852 - 16 * 3600 - 24 * 60 - 12));
        assert_eq!(unix_seconds("2000-02-29T00:00:00Z"), Some(951_782_400));
        for bad in ["", "yesterday", "2026-13-01T00:00:00Z", "2026-11-30T25:00:00Z", "2026-1x-01"] {
            assert_eq!(unix_seconds(bad), None, "{bad}");
        }
    }

    #[test]
    fn dates_back() {
        assert_eq!(utc_minutes(1_796_055_852), "2026-11-30 16:24 UTC");
        assert_eq!(utc_minutes(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc_minutes(0), "1970-01-01 00:00 UTC");
    }

    #[test]
    fn ages() {
        assert_eq!(age(-5), "just now");
        assert_eq!(age(59), "just now");
        assert_eq!(age(61), "1 min ago");
        assert_eq!(age(3 * 3600 + 5), "3 h ago");
        assert_eq!(age(2 * 86_400 + 7), "2 d ago");
    }
}
