//! Which process holds a task's lease, and whether it still lives; and this process's ancestors. A lease owner is
//! `<turn>@<boot id>.<pid namespace>:<pid>:<start time>`: in the same boot and pid namespace, a
//! claim can see at once that the owner's process is gone (no such pid, or the pid now belongs to
//! a process started at another time) instead of waiting for the lease to expire. Where that
//! cannot be told (another machine or boot, a container with its own pids, a system without
//! `/proc`), the owner counts as alive and only the lease's expiry frees the task.

use std::sync::OnceLock;

/// This process: where its pid means something (the machine's boot and the pid namespace), its
/// pid and its start time (clock ticks since boot).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity {
    boot: String,
    pid: u32,
    start: u64,
}

impl Identity {
    fn render(&self) -> String {
        format!("{}:{}:{}", self.boot, self.pid, self.start)
    }

    fn parse(s: &str) -> Option<Identity> {
        let mut parts = s.rsplitn(3, ':');
        let start = parts.next()?.parse().ok()?;
        let pid = parts.next()?.parse().ok()?;
        let boot = parts.next()?.to_string();
        (!boot.is_empty()).then_some(Identity { boot, pid, start })
    }
}

/// The boot id and the pid namespace's inode: two processes whose pids can be compared.
fn boot_id() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let id = id.trim();
    // `pid:[4026531836]`: a process in another container sees other pids.
    let ns = std::fs::read_link("/proc/self/ns/pid").ok()?;
    let ns: String = ns.to_string_lossy().chars().filter(char::is_ascii_digit).collect();
    (!id.is_empty() && !ns.is_empty()).then(|| format!("{id}.{ns}"))
}

/// Field `n` (1-based, `n` > 2) of `/proc/<pid>/stat`; `None` when there is no such process.
fn stat_field(pid: u32, n: usize) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may itself hold spaces or parentheses.
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(n.checked_sub(3)?)?.parse().ok()
}

/// A process's start time (field 22 of its stat).
fn start_time(pid: u32) -> Option<u64> {
    stat_field(pid, 22)
}

/// This process's ancestors, nearest first, up to (not including) init; empty without `/proc`.
pub fn ancestors() -> Vec<u32> {
    let mut found = Vec::new();
    let mut pid = std::process::id();
    // A chain of processes is short; the bound only guards against a cycle in a bad read.
    for _ in 0..256 {
        let Some(parent) = stat_field(pid, 4).and_then(|p| u32::try_from(p).ok()) else { break };
        if parent <= 1 || found.contains(&parent) {
            break;
        }
        found.push(parent);
        pid = parent;
    }
    found
}

fn current() -> Option<&'static Identity> {
    static ME: OnceLock<Option<Identity>> = OnceLock::new();
    ME.get_or_init(|| {
        let pid = std::process::id();
        Some(Identity { boot: boot_id()?, pid, start: start_time(pid)? })
    })
    .as_ref()
}

/// The lease owner for a turn of this process.
pub fn lease_owner(turn: &str) -> String {
    match current() {
        Some(me) => format!("{turn}@{}", me.render()),
        // Nothing to tell this process from another by: the owner is the turn alone.
        None => turn.to_string(),
    }
}

/// The lease owner for a turn of another process of this machine (`None` when it is not running).
#[cfg(test)]
pub(crate) fn lease_owner_of(turn: &str, pid: u32) -> Option<String> {
    let id = Identity { boot: current()?.boot.clone(), pid, start: start_time(pid)? };
    Some(format!("{turn}@{}", id.render()))
}

/// An owner as the operator reads it: the process, where it can be named.
pub fn describe(owner: &str) -> String {
    match owner.rsplit_once('@').and_then(|(_, id)| Identity::parse(id)) {
        Some(them) if current().is_some_and(|me| me.boot == them.boot) => {
            format!("by process {} on this machine", them.pid)
        }
        Some(them) => format!("by process {} of another machine, boot or container", them.pid),
        None => format!("by {owner}"),
    }
}

/// Whether the process that holds `owner` has certainly stopped: it ran on this machine in this
/// boot and pid namespace, and its pid is gone or belongs to a process that started at another time.
pub fn owner_is_dead(owner: &str) -> bool {
    let Some(them) = owner.rsplit_once('@').and_then(|(_, id)| Identity::parse(id)) else {
        return false;
    };
    let Some(me) = current() else {
        return false;
    };
    if them.boot != me.boot {
        return false;
    }
    start_time(them.pid) != Some(them.start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn the_ancestors_start_with_the_parent() {
        if std::path::Path::new("/proc/self/stat").exists() {
            let parent = std::os::unix::process::parent_id();
            assert_eq!(ancestors().first().copied(), (parent > 1).then_some(parent));
        }
    }

    #[test]
    fn an_owner_names_this_process_and_reads_back() {
        let owner = lease_owner("turn-1");
        let (turn, id) = owner.rsplit_once('@').unwrap();
        assert_eq!(turn, "turn-1");
        let id = Identity::parse(id).unwrap();
        assert_eq!(id.pid, std::process::id());
        assert!(!owner_is_dead(&owner), "this process is alive");
        assert_eq!(describe(&owner), format!("by process {} on this machine", std::process::id()));
        assert_eq!(describe("turn-a"), "by turn-a");
    }

    #[test]
    fn a_gone_or_reused_pid_is_dead_and_anything_unknown_is_alive() {
        let me = current().unwrap();
        // A child that has exited and been reaped: its pid is gone.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let start = start_time(pid);
        child.wait().unwrap();
        let gone = Identity { boot: me.boot.clone(), pid, start: start.unwrap_or(1) };
        assert!(owner_is_dead(&format!("t@{}", gone.render())));
        // This process's pid with another start time: the pid was reused.
        let reused = Identity { start: me.start + 1, ..me.clone() };
        assert!(owner_is_dead(&format!("t@{}", reused.render())));
        // Another boot (or machine), no identity at all, or garbage: nothing can be told.
        let other_boot = Identity { boot: "another-boot".into(), ..gone.clone() };
        assert!(!owner_is_dead(&format!("t@{}", other_boot.render())));
        let (boot, _) = me.boot.split_once('.').unwrap();
        let other_pids = Identity { boot: format!("{boot}.1"), ..gone };
        assert!(!owner_is_dead(&format!("t@{}", other_pids.render())), "a container's pids are its own");
        for owner in ["turn-a", "t@", "t@x:y:z", "t@:1:2"] {
            assert!(!owner_is_dead(owner), "{owner}");
        }
    }
}
