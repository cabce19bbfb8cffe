//! The known-segfault ledger's expiry warnings as the IO layer gives them: today's date is
//! read here (the pure `accounting::ledger` takes it as an argument), for the CLI's `skips`
//! and the editor's hover.

/// Today's date as `YYYY-MM-DD` (UTC), for the ledger's expiry warnings: the clock is read
/// here, never in the pure crates. `TORCHCTS_LSP_TODAY=YYYY-MM-DD` fixes it (tests, replays).
pub fn today() -> String {
    if let Ok(day) = std::env::var("TORCHCTS_LSP_TODAY") {
        return day;
    }
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    // Howard Hinnant's days-to-civil.
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
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
