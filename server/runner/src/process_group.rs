//! The run's process group: signalling it only while it cannot have been recycled, stopping
//! it (TERM, then KILL after the grace), waiting for it to empty, and naming how it ended.

use std::process::ExitStatus;
use std::time::Duration;

use tokio::process::Child;
use tokio::time::{sleep, Instant};

use super::RunStatus;

/// Between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);

pub(crate) fn kill_group(pgid: i32, signal: i32) -> bool {
    if pgid <= 1 {
        return false;
    }
    // SAFETY: killpg has no memory-safety preconditions.
    unsafe { libc::killpg(pgid, signal) == 0 }
}

pub(crate) fn group_exists(pgid: i32) -> bool {
    kill_group(pgid, 0)
}

/// SIGTERM to the group; SIGKILL to the group after the grace (at once if it emptied sooner);
/// reaps the leader. Returns the leader's exit status.
pub(crate) async fn stop_group(pgid: i32, child: &mut Child) -> std::io::Result<ExitStatus> {
    kill_group(pgid, libc::SIGTERM);
    let grace_end = Instant::now() + GRACE;
    // The leader is not reaped while we wait here (nothing polls `child`), so its pid, and
    // with it the group id, cannot be reused before the SIGKILL below.
    while Instant::now() < grace_end && leader_running(pgid) {
        sleep(Duration::from_millis(20)).await;
    }
    // Members other than the leader (e.g. a child ignoring SIGTERM) get the rest of the grace.
    while Instant::now() < grace_end && group_alive(pgid) {
        sleep(Duration::from_millis(20)).await;
    }
    kill_group(pgid, libc::SIGKILL);
    let status = child.wait().await;
    wait_group_dead(pgid, Duration::from_secs(1)).await;
    status
}

/// After the leader exited by itself: TERM then KILL whatever is left alive in its group.
pub(crate) async fn stop_leftovers(pgid: i32) {
    if !group_alive(pgid) {
        return;
    }
    kill_group(pgid, libc::SIGTERM);
    if !wait_group_dead(pgid, GRACE).await {
        kill_group(pgid, libc::SIGKILL);
        wait_group_dead(pgid, Duration::from_secs(1)).await;
    }
}

/// Waits until no live process is left in the group; returns whether that happened in time.
/// Dead members may linger as zombies until init reaps them (which some inits do only every
/// second or two); they hold nothing and run nothing, so they are not waited for.
pub(crate) async fn wait_group_dead(pgid: i32, limit: Duration) -> bool {
    let end = Instant::now() + limit;
    loop {
        if !group_alive(pgid) {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        sleep(Duration::from_millis(20)).await;
    }
}

/// Whether the leader has not exited yet (it stays a zombie, unreaped, once it has).
pub(crate) fn leader_running(pid: i32) -> bool {
    // SAFETY: waitid writes only into `info`, a zeroed siginfo_t we own; WNOWAIT leaves the
    // child waitable, so tokio still reaps it.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let r = libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT);
        r == 0 && info.si_pid() == 0
    }
}

/// Whether any process of the group other than a zombie remains. Without /proc, any member.
pub(crate) fn group_alive(pgid: i32) -> bool {
    if !group_exists(pgid) {
        return false;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else { return true };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        // pid (comm) state ppid pgrp ...; comm may contain spaces and parentheses.
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
        let mut fields = after.split_whitespace();
        let state = fields.next().unwrap_or("");
        let _ppid = fields.next();
        if fields.next().and_then(|g| g.parse::<i32>().ok()) == Some(pgid) && state != "Z" && state != "X" {
            return true;
        }
    }
    false
}

pub(crate) fn exit_status(status: ExitStatus) -> RunStatus {
    use std::os::unix::process::ExitStatusExt;
    if let Some(signal) = status.signal() {
        return RunStatus::Crashed { signal: Some(signal), description: format!("killed by {}", signal_name(signal)) };
    }
    let code = status.code().unwrap_or(-1);
    // A shell wrapper around Python reports the crash as 128+signal.
    if (129..=159).contains(&code) && matches!(code - 128, 4 | 6 | 7 | 8 | 11) {
        let signal = code - 128;
        return RunStatus::Crashed {
            signal: Some(signal),
            description: format!("exited with {code} ({} in a child process)", signal_name(signal)),
        };
    }
    RunStatus::Completed { exit_code: code }
}

pub(crate) fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => signal_name(signal),
        _ => "an unknown status".into(),
    }
}

pub fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGSEGV => "SIGSEGV (segmentation fault)",
        libc::SIGABRT => "SIGABRT (abort)",
        libc::SIGBUS => "SIGBUS (bus error)",
        libc::SIGILL => "SIGILL (illegal instruction)",
        libc::SIGFPE => "SIGFPE (arithmetic error)",
        libc::SIGKILL => "SIGKILL (killed, e.g. out of memory)",
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        libc::SIGHUP => "SIGHUP",
        libc::SIGPIPE => "SIGPIPE",
        _ => return format!("signal {signal}"),
    };
    name.to_string()
}
