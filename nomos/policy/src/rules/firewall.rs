//! Firewalls: `iptables` and its relatives, `nft`, `ufw`. Listing reads; a rule, a policy or a
//! flush that cuts SSH (this session and the way back in) is rated as stopping `sshd` is.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::links::guest_interface;
use super::ro;
use super::Args;
use crate::shell::{Analysis, Arg, Stdin};

/// Whether a port list (`22`, `ssh`, `20:30`, `80,443,22`; `!22` inverts) takes in SSH's port.
pub(super) fn includes_ssh_port(ports: &str) -> bool {
    takes_port(ports, &[22])
}

/// TCP ports a Proxmox host is reached by: SSH and the web interface and API.
const LIFELINE_TCP: &[u32] = &[22, 8006];
/// UDP ports the cluster's heartbeat (corosync's links) uses.
const LIFELINE_UDP: &[u32] = &[5405, 5406, 5407, 5408, 5409, 5410, 5411, 5412];

/// Whether a port list (`8006`, `ssh`, `20:30`, `5405:5412`; `!22` inverts) takes in any of `wanted`.
fn takes_port(ports: &str, wanted: &[u32]) -> bool {
    if let Some(rest) = ports.strip_prefix('!') {
        return !takes_port(rest, wanted);
    }
    ports.split(',').any(|p| {
        let p = p.trim().to_ascii_lowercase();
        let p = p.trim_end_matches("/tcp").trim_end_matches("/udp");
        if p == "ssh" {
            return wanted.contains(&22);
        }
        match p.split_once([':', '-']) {
            Some((lo, hi)) => {
                let lo = lo.parse::<u32>().unwrap_or(0);
                let hi = hi.parse::<u32>().unwrap_or(65535);
                wanted.iter().any(|w| lo <= *w && *w <= hi)
            }
            None => p.parse::<u32>().is_ok_and(|n| wanted.contains(&n)),
        }
    })
}

/// Whether an iptables rule's matches take in SSH, the web interface or the cluster's links: no
/// source narrowing, a protocol and ports that take in one of their ports, an interface that may
/// carry the way in, and no other match module that narrows it.
fn covers_lifeline(a: &Args<'_>) -> bool {
    // A negated match (`! -s 10.0.0.5`) takes in everything but what it names: it narrows nothing.
    if a.all
        .iter()
        .any(|w| matches!(w.as_static(), Some("!")) || w.as_static().is_some_and(|w| w.starts_with('!') && w.len() > 1))
    {
        return true;
    }
    // A source of "anywhere" narrows nothing.
    let anywhere = |s: &str| matches!(s, "0.0.0.0/0" | "::/0" | "0/0" | "any");
    if a.values(&["-s", "--source", "--src-range"]).iter().any(|s| !anywhere(s.shown())) {
        return false;
    }
    // SSH and the web interface over TCP, the cluster's links over UDP.
    let protocol = a.value(&["-p", "--protocol"]).map(|p| p.shown().to_ascii_lowercase());
    let wanted: Vec<u32> = match protocol.as_deref() {
        None | Some("all" | "0") => LIFELINE_TCP.iter().chain(LIFELINE_UDP).copied().collect(),
        Some("tcp" | "6") => LIFELINE_TCP.to_vec(),
        Some("udp" | "17") => LIFELINE_UDP.to_vec(),
        Some(_) => return false,
    };
    let ports = a.values(&[
        "--dport",
        "--dports",
        "--destination-port",
        "--destination-ports",
        "--sport",
        "--sports",
        "--source-port",
        "--source-ports",
    ]);
    if !ports.is_empty() && !ports.iter().any(|p| takes_port(p.shown(), &wanted)) {
        return false;
    }
    let interfaces = a.values(&["-i", "--in-interface", "-o", "--out-interface"]);
    if !interfaces.is_empty() && interfaces.iter().all(|i| i.shown() == "lo" || guest_interface(i.shown())) {
        return false;
    }
    a.values(&["-m", "--match"])
        .iter()
        .all(|m| matches!(m.shown(), "state" | "conntrack" | "comment" | "tcp" | "udp" | "multiport" | "addrtype"))
}

/// iptables: listing reads; flushing, default policies, dropping SSH or taking away the rule that
/// lets it in destroy access.
pub(super) fn iptables(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    // `--modprobe=PROGRAM` runs PROGRAM to load kernel modules, also for a listing.
    for program in a.values(&["--modprobe"]) {
        an.raise(CM, format!("`{base} --modprobe` runs another program"));
        an.run(&[program], &Stdin::default());
    }
    if a.flag('F', "--flush") {
        return an.raise(DE, format!("`{base} -F` flushes firewall rules"));
    }
    if a.flag('P', "--policy") || a.flag('X', "--delete-chain") {
        return an.raise(DE, format!("`{base}` changes a default policy or deletes chains"));
    }
    let target = a.value(&["-j", "--jump"]).map(|t| t.shown().to_ascii_uppercase());
    let adding = a.value(&["-A", "--append", "-I", "--insert"]);
    let removing = a.value(&["-D", "--delete", "-R", "--replace"]);
    let on_way_in = |c: &str| matches!(c, "INPUT" | "PREROUTING" | "FORWARD" | "OUTPUT");
    // Redirecting SSH's port elsewhere cuts it as dropping it does.
    let redirects_ssh = target.as_deref().is_some_and(|t| matches!(t, "REDIRECT" | "DNAT"))
        && a.values(&["--dport", "--dports", "--destination-port", "--destination-ports"])
            .iter()
            .any(|p| includes_ssh_port(p.shown()));
    let drops = target.as_deref().is_some_and(|t| matches!(t, "DROP" | "REJECT" | "TARPIT")) || redirects_ssh;
    if adding.as_ref().is_some_and(|c| on_way_in(c.shown())) && drops && covers_lifeline(a) {
        return an.raise(
            DE,
            format!("`{base}` drops traffic that SSH (this session too), the web interface or the cluster needs"),
        );
    }
    if removing.as_ref().is_some_and(|c| on_way_in(c.shown()))
        && target.as_deref() == Some("ACCEPT")
        && covers_lifeline(a)
    {
        return an.raise(DE, format!("`{base}` removes a rule that lets SSH in"));
    }
    // Short options as getopt reads them (`-LZ` lists a chain `Z`), and also letter by letter: the
    // family's tools and versions differ, and a chain named like a command letter is not a name an
    // operator gives, so `-LZ` may zero counters as `-L -Z` does.
    let shorts = a.short_options("ACDRIMNEPopsdjitmcg", "LSFZXhwW");
    let in_value = |c: char| {
        shorts.iter().any(|(s, v)| {
            "LSFZX".contains(*s) && v.is_some_and(|v| v.chars().all(|x| x.is_ascii_alphabetic()) && v.contains(c))
        })
    };
    let short = |c: char| shorts.iter().any(|(s, _)| *s == c) || in_value(c);
    let lists = short('L')
        || short('S')
        || matches!(a.all.first().and_then(Arg::as_static), Some("-V"))
        || a.long("--list")
        || a.long("--list-rules")
        || a.long("--version");
    let changes = ['A', 'I', 'D', 'R', 'N', 'E', 'Z'].into_iter().any(short)
        || a.any(&["--append", "--insert", "--delete", "--replace", "--new-chain", "--rename-chain", "--zero"]);
    if lists && !changes {
        ro(an, format!("`{base} -L` only lists rules"));
    } else {
        an.raise(CM, format!("`{base}` changes firewall rules"));
    }
}

/// nft rule text that cuts SSH: a drop policy, or a drop or reject verdict not narrowed to other
/// sources, ports, protocols or interfaces.
fn nft_cuts_ssh(text: &str) -> bool {
    let t = text.to_lowercase();
    if t.contains("policy drop") {
        return true;
    }
    t.split([';', '\n', '{', '}']).any(|statement| {
        let words: Vec<&str> = statement.split_whitespace().collect();
        let verdict = words.last().is_some_and(|w| matches!(*w, "drop" | "reject"))
            || words.windows(2).any(|w| matches!(w, ["reject", "with"]));
        if !verdict {
            return false;
        }
        let narrowed_port = words.windows(2).any(|w| match w {
            [key, port] if matches!(*key, "dport" | "sport") => !includes_ssh_port(port.trim_matches(['{', '}', ','])),
            _ => false,
        });
        let narrowed = narrowed_port
            || statement.contains("saddr")
            || statement.contains("invalid")
            || statement.contains("icmp")
            || statement.contains("udp")
            || statement.contains("limit rate")
            || words.windows(2).any(|w| match w {
                [key, dev] if matches!(*key, "iifname" | "iif" | "oifname" | "oif") => {
                    let dev = dev.trim_matches('"');
                    dev == "lo" || guest_interface(dev)
                }
                _ => false,
            });
        !narrowed
    })
}

/// `nft`: listing reads; flushing or deleting tables or chains drops the firewall; a drop
/// policy or a drop rule that covers SSH cuts access.
pub(super) fn nft(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, stdin: &Stdin) {
    // `-c` checks the rules it reads without applying them.
    if a.flag('c', "--check") && !a.flag('i', "--interactive") {
        return ro(an, "`nft -c` only checks rules");
    }
    let reads_input = a.value(&["-f", "--file"]).is_some() || a.flag('i', "--interactive");
    let words: Vec<String> =
        a.operands(&["-I", "--includepath", "-f", "--file"]).iter().map(|o| o.shown().to_string()).collect();
    let mut texts = vec![words.join(" ")];
    if reads_input {
        an.raise(CM, "`nft -f/-i` loads rules it reads");
        texts.extend(stdin.texts.iter().cloned());
    }
    let flushes = texts.iter().any(|t| {
        let t = t.to_lowercase();
        [
            "flush ruleset",
            "flush table",
            "flush chain",
            "delete table",
            "destroy table",
            "delete chain",
            "destroy chain",
        ]
        .iter()
        .any(|f| t.contains(f))
    });
    let first = words.first().map(String::as_str);
    if flushes {
        an.raise(DE, "`nft` drops firewall rules");
    } else if texts.iter().any(|t| nft_cuts_ssh(t)) && !a.flag('c', "--check") {
        an.raise(DE, "`nft` drops SSH traffic (including this session)");
    } else if !reads_input
        && (matches!(first, Some("list" | "describe" | "monitor")) || a.flag('c', "--check") || words.is_empty())
    {
        ro(an, "`nft list` only reports");
    } else {
        an.raise(CM, "`nft` changes firewall rules");
    }
}

/// `ufw`: turning it on (its default denies what comes in) without first allowing SSH in the same
/// command, denying SSH or everything, or taking away SSH's allow rule cuts access; turning it
/// off or resetting it drops the firewall.
pub(super) fn ufw(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    // A dry run holds only if nothing after it undoes it (`--no-dry-run`, `--dry-run=false`).
    let last = a.options().filter(|o| o.starts_with("--dry-run") || o.starts_with("--no-dry-run")).last();
    if last == Some("--dry-run") {
        return ro(an, "`ufw --dry-run` only reports");
    }
    let words: Vec<String> = a.operands(&[]).iter().map(|o| o.shown().to_ascii_lowercase()).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let mentions_ssh = |rest: &[&str]| {
        rest.iter().any(|w| matches!(*w, "ssh" | "openssh") || includes_ssh_port(w))
            || rest.windows(2).any(|w| matches!(w, ["port", port] if includes_ssh_port(port)))
    };
    // A deny with no source, port or application named covers everything, SSH included.
    let covers_everything = |rest: &[&str]| {
        let narrowed = rest.windows(2).any(|w| matches!(w, ["from", source] if *source != "any"))
            || rest.windows(2).any(|w| matches!(w, ["on", dev] if *dev == "lo" || guest_interface(dev)))
            || rest.contains(&"port")
            || rest.contains(&"out")
            || rest.first().is_some_and(|w| !matches!(*w, "in" | "from" | "to" | "on" | "proto" | "log" | "log-all"));
        !narrowed
    };
    match words.as_slice() {
        [] | ["status", ..] | ["show", ..] | ["version"] | ["app", "list" | "info", ..] => {
            ro(an, "`ufw status` only reports")
        }
        ["disable"] | ["reset"] => an.raise(DE, "`ufw` drops the firewall"),
        ["enable"] | ["reload"] if !an.ssh_allowed() => {
            an.raise(DE, "`ufw enable` turns on a firewall that denies what comes in, SSH included unless allowed")
        }
        ["default", "deny" | "reject", rest @ ..] if !rest.iter().any(|w| matches!(*w, "outgoing" | "routed")) => {
            if an.ssh_allowed() {
                an.raise(CM, "`ufw default deny` changes the firewall")
            } else {
                an.raise(DE, "`ufw default deny` denies what comes in, SSH included unless allowed")
            }
        }
        ["allow" | "limit", rest @ ..] => {
            if mentions_ssh(rest) {
                an.note_ssh_allowed();
            }
            an.raise(CM, "`ufw allow` changes the firewall")
        }
        ["deny" | "reject", rest @ ..]
        | ["insert" | "prepend", _, "deny" | "reject", rest @ ..]
        | ["route", "deny" | "reject", rest @ ..]
            if mentions_ssh(rest) || covers_everything(rest) =>
        {
            an.raise(DE, "`ufw deny` cuts SSH (and this session)")
        }
        ["delete", "allow" | "limit", rest @ ..] if mentions_ssh(rest) => {
            an.raise(DE, "`ufw delete` takes away the rule that lets SSH in")
        }
        _ => an.raise(CM, "`ufw` changes the firewall"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssh_ports() {
        for p in ["22", "ssh", "20:30", "80,443,22", "22/tcp", "1-1024", "!80"] {
            assert!(includes_ssh_port(p), "{p}");
        }
        for p in ["80", "443,8006", "1000:2000", "!22"] {
            assert!(!includes_ssh_port(p), "{p}");
        }
    }
}
