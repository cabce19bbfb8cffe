//! The clock, read here and nowhere else: the pure crates take the time as an argument
//! (the evidence's ages, the ledger's review dates).

/// Today's date as `YYYY-MM-DD` (UTC), for the ledger's expiry warnings: the clock is read
/// here, never in the pure crates. `TORCHCTS_LSP_TODAY=YYYY-MM-DD` fixes it (tests, replays).
pub fn today() -> String {
    if let Ok(day) = std::env::var("TORCHCTS_LSP_TODAY") {
        return day;
    }
    torchcts_core::evidence::time::utc_date(now_seconds())
}

/// The clock in Unix seconds, for the evidence's ages: read here, never in the pure crates.
/// `TORCHCTS_LSP_NOW=2026-12-02T16:24:12Z` fixes it (tests, replays).
pub fn now_seconds() -> i64 {
    if let Some(now) =
        std::env::var("TORCHCTS_LSP_NOW").ok().and_then(|t| torchcts_core::evidence::time::unix_seconds(&t))
    {
        return now;
    }
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}
