//! What a command does, as a reply or a typed confirmation may name it.
//!
//! Each program the command runs (wrappers, remote and nested shells seen through by the
//! classifier) is read by its own name and its sub-command — never by its options, paths, names or
//! other operands, so a snapshot called `pre-migrate`
//! names no migration and a dataset called `rpool/restore` no restore. Each action keeps the level
//! the classifier gave the program, so the most destructive one of a compound command is known.

use nomos_types::Risk;

use crate::shell::Invocation;
use crate::Policy;

/// One action of a command: its verb as replies spell it, the level it was judged at, and which
/// program of the command takes it (`pct destroy 101 --purge` is one program with two verbs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// The verb's base form (`destroy`, `delete`, `restart`).
    pub verb: &'static str,
    pub risk: Risk,
    /// The program's place among the command's programs that take actions.
    pub part: usize,
}

/// The verbs, weakest first: among actions judged at the same level, a later one loses more.
#[rustfmt::skip]
const SEVERITY: &[&str] = &[
    "apply", "renew", "clone", "backup", "snapshot", "create", "mount", "enable", "start", "rename", "move",
    "resize", "install", "update", "upgrade", "reload", "restart", "unmount", "mask", "disable", "migrate",
    "uninstall", "reboot", "stop", "halt", "shutdown", "poweroff", "kill", "restore", "reset", "rollback",
    "prune", "flush", "truncate", "drop", "delete", "overwrite", "purge", "format", "wipe", "destroy",
];

/// How verbs are spelled, in replies and in commands, and the base each spelling stands for.
#[rustfmt::skip]
const SPELLINGS: &[(&str, &str)] = &[
    ("destroy", "destroy"), ("destroying", "destroy"), ("wipe", "wipe"), ("wiping", "wipe"), ("erase", "wipe"),
    ("erasing", "wipe"), ("shredding", "wipe"), ("format", "format"), ("formatting", "format"), ("purge", "purge"),
    ("purging", "purge"), ("overwrite", "overwrite"), ("overwriting", "overwrite"), ("delete", "delete"),
    ("deleting", "delete"), ("remove", "delete"), ("removing", "delete"), ("drop", "drop"), ("dropping", "drop"),
    ("truncate", "truncate"), ("truncating", "truncate"), ("flush", "flush"), ("flushing", "flush"),
    ("prune", "prune"), ("pruning", "prune"), ("rollback", "rollback"), ("rolling back", "rollback"),
    ("roll back", "rollback"), ("reset", "reset"), ("resetting", "reset"), ("restore", "restore"),
    ("restoring", "restore"), ("kill", "kill"), ("killing", "kill"), ("poweroff", "poweroff"),
    ("power off", "poweroff"), ("powering off", "poweroff"), ("shutdown", "shutdown"), ("shut down", "shutdown"),
    ("shutting down", "shutdown"), ("halt", "halt"), ("halting", "halt"), ("stop", "stop"), ("stopping", "stop"),
    ("reboot", "reboot"), ("rebooting", "reboot"), ("uninstall", "uninstall"), ("uninstalling", "uninstall"),
    ("migrate", "migrate"), ("migrating", "migrate"), ("disable", "disable"), ("disabling", "disable"),
    ("mask", "mask"), ("masking", "mask"), ("unmount", "unmount"), ("unmounting", "unmount"), ("restart", "restart"),
    ("restarting", "restart"), ("reload", "reload"), ("reloading", "reload"), ("upgrade", "upgrade"),
    ("upgrading", "upgrade"), ("update", "update"), ("updating", "update"), ("install", "install"),
    ("installing", "install"), ("resize", "resize"), ("resizing", "resize"), ("move", "move"), ("moving", "move"),
    ("rename", "rename"), ("renaming", "rename"), ("start", "start"), ("starting", "start"), ("enable", "enable"),
    ("enabling", "enable"), ("mount", "mount"), ("mounting", "mount"), ("create", "create"), ("creating", "create"),
    ("snapshot", "snapshot"), ("snapshotting", "snapshot"), ("backup", "backup"), ("backing up", "backup"),
    ("back up", "backup"), ("clone", "clone"), ("cloning", "clone"), ("renew", "renew"), ("renewing", "renew"),
];

/// How commands alone spell verbs: programs' names and sub-commands no reply uses as a verb
/// (`rm`, `vzdump`, compose's `up` and `down`).
#[rustfmt::skip]
const COMMAND_SPELLINGS: &[(&str, &str)] = &[
    ("shred", "wipe"), ("wipefs", "wipe"), ("blkdiscard", "wipe"), ("zap", "wipe"), ("mkfs", "format"),
    ("dd", "overwrite"), ("del", "delete"), ("rm", "delete"), ("rmi", "delete"), ("rmdir", "delete"),
    ("unlink", "delete"), ("autoremove", "delete"), ("dropdb", "drop"), ("flushall", "flush"), ("flushdb", "flush"),
    ("forget", "prune"), ("qmrestore", "restore"), ("pkill", "kill"), ("killall", "kill"), ("down", "stop"),
    ("umount", "unmount"), ("try-restart", "restart"), ("reload-or-restart", "restart"), ("mv", "move"),
    ("up", "start"), ("vzdump", "backup"),
];

/// Verbs that name one action by more than one base: powering off, shutting down and halting a
/// machine are one act. Deleting is not destroying: a reply names the action as the command does.
const SAME: &[&[&str]] = &[&["poweroff", "shutdown", "halt"]];

/// The base a reply's word or phrase spells (`restarting` → `restart`, `shut down` → `shutdown`).
pub(super) fn reply_verb(spelled: &str) -> Option<&'static str> {
    SPELLINGS.iter().find(|(s, _)| *s == spelled).map(|(_, base)| *base)
}

/// The spellings of replies' verbs: every one, single words and phrases.
pub(super) fn spellings() -> impl Iterator<Item = &'static str> {
    SPELLINGS.iter().map(|(s, _)| *s)
}

/// Whether a reply's verb `said` names the action `verb`.
pub(super) fn names(said: &str, verb: &str) -> bool {
    said == verb || SAME.iter().any(|group| group.contains(&said) && group.contains(&verb))
}

/// The base `verb` is, as the table spells it (`None`: no verb of the table).
pub(super) fn base(verb: &str) -> Option<&'static str> {
    SEVERITY.iter().copied().find(|v| *v == verb)
}

fn severity(verb: &str) -> usize {
    SEVERITY.iter().position(|v| *v == verb).unwrap_or(0)
}

/// The actions of `command`, in the order the command takes them. A program judged more than once
/// (other readings of an ambiguous line) counts once, at its highest level.
pub fn actions_of(command: &str) -> Vec<Action> {
    let mut out: Vec<Action> = Vec::new();
    let mut parts: Vec<(String, Vec<String>)> = Vec::new();
    let invocations = Policy::builtin().invocations(command);
    for invocation in invocations.iter().filter(|i| !runs_another(i, &invocations)) {
        let verbs = verbs_of_invocation(&invocation.program, &invocation.words);
        if verbs.is_empty() {
            continue;
        }
        let key = (invocation.program.clone(), invocation.words.clone());
        let part = match parts.iter().position(|p| *p == key) {
            Some(p) => p,
            None => {
                parts.push(key);
                parts.len() - 1
            }
        };
        for verb in verbs {
            match out.iter_mut().find(|a| a.verb == verb && a.part == part) {
                Some(a) => a.risk = a.risk.max(invocation.risk),
                None => out.push(Action { verb, risk: invocation.risk, part }),
            }
        }
    }
    out
}

/// Whether `wrapper` only runs another of the invocations (`sudo reboot`, `timeout 30 rm …`,
/// `pct exec 101 -- rm …`): a program judged within it is named among its words, followed by that
/// program's words.
/// The program run is read by itself; the wrapper names no action of its own.
fn runs_another(wrapper: &Invocation, all: &[Invocation]) -> bool {
    all.get(wrapper.inner.clone()).unwrap_or_default().iter().any(|inner| {
        wrapper.words.iter().enumerate().any(|(k, w)| {
            let named = w == &inner.program || w.rsplit('/').next() == Some(inner.program.as_str());
            let after = wrapper.words.get(k + 1..).unwrap_or_default();
            named && after.iter().zip(&inner.words).all(|(a, b)| a == b)
        })
    })
}

/// The verbs of the most destructive program among `actions`: the highest level, then the verb
/// that loses most; every verb of that program (`pct destroy 101 --purge`: destroy and purge), of
/// each such program when they tie.
pub fn most_destructive(actions: &[Action]) -> Vec<&'static str> {
    let key = |part: usize| {
        let of_part = actions.iter().filter(|a| a.part == part);
        (of_part.clone().map(|a| a.risk).max(), of_part.map(|a| severity(a.verb)).max())
    };
    let Some(top) = actions.iter().map(|a| key(a.part)).max() else { return Vec::new() };
    let mut out: Vec<&'static str> = Vec::new();
    for a in actions.iter().filter(|a| key(a.part) == top) {
        if !out.contains(&a.verb) {
            out.push(a.verb);
        }
    }
    out
}

/// The verbs one program invocation names: by the program's name and its sub-command (the first
/// word shaped like one; the second when the first names a group, `docker volume rm`). Options
/// are arguments: `--purge` on `qm destroy` names no action of its own.
fn verbs_of_invocation(program: &str, words: &[String]) -> Vec<&'static str> {
    let mut verbs: Vec<&'static str> = verb_of_word(program).into_iter().collect();
    // The system's power targets are actions, whatever the verb that reaches them (`systemctl
    // isolate poweroff.target`, `init 0`).
    let power = |w: &str| match w {
        "poweroff.target" | "halt.target" => Some("poweroff"),
        "reboot.target" | "kexec.target" | "soft-reboot.target" => Some("reboot"),
        _ => None,
    };
    if program == "systemctl" {
        verbs.extend(words.iter().filter_map(|w| power(w)));
    }
    if matches!(program, "init" | "telinit") {
        verbs.extend(words.first().and_then(|w| match w.as_str() {
            "0" => Some("poweroff"),
            "6" => Some("reboot"),
            _ => None,
        }));
    }
    for (looked, word) in words.iter().filter(|w| !w.starts_with('-')).enumerate() {
        if looked == 2 || !shaped_like_a_subcommand(word) {
            break;
        }
        if let Some(v) = verb_of_word(word) {
            verbs.push(v);
            break;
        }
    }
    let mut seen = Vec::new();
    verbs.retain(|v| {
        let new = !seen.contains(v);
        seen.push(*v);
        new
    });
    verbs
}

/// A sub-command is a word of lowercase letters and dashes (`delsnapshot`, `prune-backups`); a
/// path, an id, a slug or a name with digits is an operand.
fn shaped_like_a_subcommand(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase() || c == '-')
}

/// The verb a program's name or sub-command spells: whole (`restart`), by a part (`dist-upgrade`,
/// `prune-backups`, `mkfs.ext4`, `destroy-data`) or by a prefix that abbreviates a verb
/// (`delsnapshot`, `rmi`).
pub(super) fn verb_of_word(word: &str) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    if let Some(v) = command_verb(&lower) {
        return Some(v);
    }
    lower.split(['-', '_', '.', ':']).filter(|p| !p.is_empty()).find_map(|part| {
        command_verb(part).or_else(|| {
            let alpha = part.chars().all(|c| c.is_ascii_lowercase());
            if alpha && part.len() > 3 && part.starts_with("del") {
                Some("delete")
            } else if alpha && part.len() > 4 && part.starts_with("mkfs") {
                Some("format")
            } else {
                None
            }
        })
    })
}

/// A command's word as a verb: the one-word spellings of replies and of commands.
fn command_verb(word: &str) -> Option<&'static str> {
    SPELLINGS.iter().chain(COMMAND_SPELLINGS).find(|(s, _)| *s == word && !s.contains(' ')).map(|(_, base)| *base)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verbs(command: &str) -> Vec<&'static str> {
        actions_of(command).into_iter().map(|a| a.verb).collect()
    }

    #[test]
    fn actions_come_from_programs_and_subcommands_not_operands() {
        assert_eq!(verbs("pct delsnapshot 105 pre-migrate"), ["delete"]);
        assert_eq!(verbs("zfs destroy rpool/data/restore-old"), ["destroy"]);
        assert_eq!(verbs("qm stop 300 && qm destroy 300"), ["stop", "destroy"]);
        assert_eq!(verbs("systemctl restart caddy"), ["restart"]);
        assert_eq!(verbs("sudo reboot"), ["reboot"]);
        assert_eq!(verbs("ssh pve1 'rm -rf /srv/old'"), ["delete"]);
        assert_eq!(verbs("docker volume rm data"), ["delete"]);
        assert_eq!(verbs("apt-get dist-upgrade -y"), ["upgrade"]);
        assert!(verbs("qm set 100 --delete unused0").is_empty());
        assert_eq!(verbs("pct destroy 101 --purge"), ["destroy"]);
        assert_eq!(verbs("mkfs.ext4 /dev/sdb1"), ["format"]);
        assert!(verbs("cat /var/log/restart.log").is_empty());
        assert!(verbs("").is_empty());
    }

    #[test]
    fn the_most_destructive_action_is_known() {
        assert_eq!(most_destructive(&actions_of("qm stop 300 && qm destroy 300")), ["destroy"]);
        assert_eq!(most_destructive(&actions_of("systemctl stop caddy; systemctl start caddy")), ["stop"]);
        assert!(most_destructive(&[]).is_empty());
    }
}
