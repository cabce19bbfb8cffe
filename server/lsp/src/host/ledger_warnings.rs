//! The known-segfault ledger's expiry warnings as the IO layer gives them: today's date is
//! read here (the pure `accounting::ledger` takes it as an argument), for the CLI's `skips`
//! and the editor's hover.

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

/// `Warning: known segfault ID review_after=DATE has expired` without its `Warning: `, for
/// the packaged ledger of `torchcts` then the project's (`facts.project_ledger`) on `device`
/// with `torch`, as of today. Hardware-specific entries count where the device's hardware
/// key is known (`accounting::ledger::hardware_key`).
pub fn expired(torchcts: &str, torch: &str, device: &str, facts: &accounting::ManifestFacts) -> Vec<String> {
    let project = &facts.project_ledger;
    let mut ledger = accounting::ledger::packaged_ledger(torchcts);
    ledger.extend(project.entries.iter().cloned());
    let hardware = accounting::ledger::hardware_key(device, facts, &project.host);
    let active = accounting::ledger::active_entries(&ledger, device, torch, hardware.as_deref());
    accounting::ledger::expired_warnings(&active, &today())
}
