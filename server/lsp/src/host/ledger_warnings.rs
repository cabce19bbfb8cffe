//! The known-segfault ledger's expiry warnings as the IO layer gives them: today's date is
//! read from the host's clock (the pure `accounting::ledger` takes it as an argument), for
//! the CLI's `skips` and the editor's hover.

use super::clock::today;

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
