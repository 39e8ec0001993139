//! Lockouts and outages judged by what they take away, whatever the tool's spelling: an admin
//! account locked, expired, unshelled, renamed, stripped of its password or its admin group; an
//! admin group deleted; another account given root's identity; sessions ended; the services that
//! guests, storage and databases run on stopped; kernel settings that panic, starve or cut the
//! network; a process id that reads as init or every process however it is written; policy
//! routing that bypasses the main table; an interface pulled from its bridge or readdressed; a
//! firewall rule that drops a whole private range or is removed by number.

use nomos_types::Risk::Destructive as DE;

use super::links::guest_interface;
use super::{Args, LIFELINES};
use crate::paths::globs_intersect;
use crate::shell::{Analysis, Arg, Stdin};

/// Accounts an operator logs in as: locking one out of its login or its rights locks the
/// operator out.
#[rustfmt::skip]
const ADMIN_ACCOUNTS: &[&str] = &[
    "root", "admin", "administrator", "sysadmin", "toor", "ubuntu", "debian", "pi", "ec2-user", "centos", "rocky",
    "almalinux", "fedora", "opc", "cloud-user", "ansible", "operator", "ops", "pve", "proxmox",
];

/// Groups that give their members administration or the right to log in.
#[rustfmt::skip]
const ADMIN_GROUPS: &[&str] = &[
    "sudo", "wheel", "admin", "adm", "root", "ssh", "sshusers", "ssh-users", "sudoers", "admins",
];

/// Services whose stop halts the guests, storage, databases or cluster services that run on them.
#[rustfmt::skip]
const WORKLOADS: &[&str] = &[
    "pve*", "proxmox-*", "qmeventd", "spiceproxy", "lxcfs", "lxc", "lxc-net", "lxc@*", "libvirtd", "libvirt*",
    "virtqemud", "docker", "docker.socket", "containerd", "podman", "crio", "kubelet", "k3s", "k3s-agent",
    "rke2-*", "ceph", "ceph-*", "ceph.target", "zfs*", "zed", "iscsid", "open-iscsi", "multipathd", "nfs-server",
    "nfs-kernel-server", "rpcbind", "smbd", "nmbd", "glusterd", "drbd", "lvm2-*", "dm-event", "mdmonitor",
    "postgresql", "postgresql@*", "mysql", "mariadb", "mysqld", "mongod", "redis", "redis-server", "influxdb",
    "etcd", "clickhouse-server", "elasticsearch", "opensearch", "systemd-logind", "systemd-resolved",
    "systemd-journald", "systemd-udevd", "polkit", "cron", "chrony", "chronyd", "systemd-timesyncd",
    // The console logins: the way in when the network or SSH is gone.
    "getty", "serial-getty", "console-getty", "container-getty", "getty.target", "agetty",
];

/// Whether a unit (a name or a glob, with or without its type) is a lifeline or a workload.
pub(super) fn vital_unit(unit: &str) -> bool {
    let unit = unit.rsplit('/').next().unwrap_or(unit);
    let name = [".service", ".socket", ".scope", ".*"].iter().find_map(|s| unit.strip_suffix(s)).unwrap_or(unit);
    let name = if name.contains('*') { name } else { name.split('@').next().unwrap_or(name) };
    WORKLOADS.iter().chain(LIFELINES.iter()).any(|w| globs_intersect(name, w) || globs_intersect(unit, w))
}

/// The account an account tool acts on: its last operand.
fn target<'a>(operands: &[&'a str]) -> Option<&'a str> {
    operands.last().copied()
}

pub(super) fn is_admin(account: &str) -> bool {
    ADMIN_ACCOUNTS.contains(&account) || account.contains(['*', '?']) || account.starts_with('$')
}

fn is_admin_group(group: &str) -> bool {
    group.split(',').any(|g| ADMIN_GROUPS.contains(&g.trim()))
}

/// A login shell that lets nobody in.
fn refuses_login(shell: &str) -> bool {
    let shell = shell.trim();
    shell.is_empty()
        || shell.ends_with("nologin")
        || shell.ends_with("false")
        || shell.ends_with("/true")
        || shell == "true"
        || shell.starts_with("/dev/")
        || !shell.starts_with('/')
}

/// Raises destructive for the lockouts and outages described above.
pub(crate) fn judge(an: &mut Analysis<'_>, base: &str, args: &[Arg], stdin: &Stdin) {
    let a = Args::new(args);
    let why: Option<String> = match base {
        "usermod" => usermod(&a),
        "passwd" => passwd(&a, stdin),
        "chage" => chage(&a),
        "chpasswd" | "chgpasswd" => chpasswd(stdin),
        "gpasswd" => gpasswd(&a),
        "deluser" | "delgroup" | "groupdel" | "groupmod" => group_change(base, &a),
        "faillock" | "pam_tally2" | "pam_tally" => {
            let resets = a.any(&["--reset", "-r"]);
            let user = a.value(&["--user", "-u"]).map(|u| u.shown().to_string());
            (resets && user.as_deref().is_none_or(is_admin))
                .then(|| "clears the failed-login lockout that guards the admin accounts against guessing".into())
        }
        "loginctl" => {
            let ops = a.operands(&["-H", "--host", "-M", "--machine", "-p", "--property", "-s", "--signal"]);
            let verb = ops.first().map(|o| o.shown()).unwrap_or("");
            matches!(
                verb,
                "terminate-user"
                    | "kill-user"
                    | "terminate-session"
                    | "kill-session"
                    | "terminate-seat"
                    | "lock-sessions"
                    | "lock-session"
                    | "disable-linger"
            )
            .then(|| format!("{verb} ends or locks sessions, this one among them"))
        }
        "systemctl" => systemctl(&a),
        "service" | "update-rc.d" | "rc-update" | "chkconfig" | "invoke-rc.d" => init_scripts(base, &a),
        "sysctl" => sysctl(&a),
        "runlevel" | "init" | "telinit" => {
            let ops = a.operands(&[]);
            ops.iter()
                .map(|o| o.shown())
                .find(|l| matches!(*l, "0" | "1" | "6" | "s" | "S" | "single" | "emergency"))
                .map(|l| format!("switches to runlevel {l}, which halts, reboots or leaves single-user"))
        }
        "kill" => a
            .operands(&["-s", "-n", "--signal", "-q", "--queue", "--timeout"])
            .iter()
            .filter_map(|o| o.as_static())
            .find_map(|p| odd_pid(p).map(|n| (p, n)))
            .map(|(p, n)| match n {
                1 => format!("aims at `{p}`, which is process 1 (init): the machine goes down"),
                -1 => format!("aims at `{p}`, which is every process: the machine goes down"),
                _ => format!("aims at `{p}`, its own process group: this session is cut"),
            }),
        "ip" => ip(&a),
        "iptables" | "ip6tables" | "iptables-legacy" | "ip6tables-legacy" | "iptables-nft" | "ip6tables-nft" => {
            iptables(&a)
        }
        "ufw" => {
            let ops: Vec<&str> = a.operands(&[]).iter().map(|o| o.shown()).collect();
            match ops.as_slice() {
                ["default", "deny" | "reject", dir, ..] if dir.starts_with("out") || dir.starts_with("rout") => {
                    Some(format!("denies all {dir} traffic, which replies, names and the cluster need"))
                }
                _ => None,
            }
        }
        // A deleted entry is learned again; a fixed one, if wrong, stays until removed.
        "arp" => (a.short('s') || a.long("--set") || a.short('f') || a.long("--file"))
            .then(|| "fixes a neighbour's hardware address, cutting it off until removed if wrong".into()),
        // A ruleset file replaces the firewall: such files start by flushing every rule, and
        // what they load instead cannot be seen here.
        "nft" => a
            .value(&["-f", "--file"])
            .filter(|f| f.shown() != "-" && !a.flag('c', "--check"))
            .map(|f| format!("loads the ruleset file {}, which replaces the firewall's rules", f.shown())),
        // A host link forced to a low speed, half duplex or no negotiation drops or cripples it
        // when the other end does not match.
        "ethtool" => {
            let words: Vec<&str> = args.iter().filter_map(Arg::as_static).collect();
            let dev = words
                .windows(2)
                .find_map(|w| match w {
                    ["-s" | "--change", d] => Some(*d),
                    _ => None,
                })
                .filter(|d| !guest_interface(d));
            let forced = words.windows(2).any(|w| match w {
                ["speed", s] => s.parse::<u32>().is_ok_and(|s| s < 1000),
                ["duplex", "half"] | ["autoneg", "off"] => true,
                _ => false,
            });
            dev.filter(|_| forced)
                .map(|d| format!("-s {d} forces link settings the other end may not match, dropping the link"))
        }
        // Taking a VLAN off a host port cuts whatever traffic, the management's too, rides on it.
        "bridge" => {
            let ops: Vec<&str> = a.operands(&["-n", "-netns", "-b", "-batch"]).iter().map(|o| o.shown()).collect();
            let dev = ops.iter().position(|w| *w == "dev").and_then(|i| ops.get(i + 1));
            let vlan_del = ops.first().is_some_and(|o| "vlan".starts_with(o) && !o.is_empty())
                && ops.get(1).is_some_and(|v| v.len() >= 3 && "delete".starts_with(v));
            (vlan_del && dev.is_some_and(|d| !guest_interface(d)))
                .then(|| "vlan del takes a VLAN off a host port, cutting the traffic on it".into())
        }
        // Reloading every interface applies the files as they now are, an edit that cuts the
        // way in included; a syntax check or a dry run applies nothing.
        "ifreload" => {
            (a.flag('a', "--all") && !a.flag('s', "--syntax-check") && !a.flag('n', "--no-act") && !a.long("--dry-run"))
                .then(|| "applies every interface's configuration as written, which may cut off the way in".into())
        }
        "upsmon" => a
            .value(&["-c"])
            .filter(|c| c.shown() == "fsd")
            .map(|_| "tells the UPS monitor to shut the machine down".into()),
        _ => None,
    };
    if let Some(why) = why {
        an.raise(DE, format!("`{base}` {why}"));
    }
    // Setting a password from input nobody can see may be setting root's.
    if matches!(base, "chpasswd" | "chgpasswd") && stdin.unknown {
        an.raise(DE, format!("`{base}` sets passwords from input that cannot be seen, the admin's among them"));
    }
}

fn usermod(a: &Args<'_>) -> Option<String> {
    let valued = [
        "-c",
        "--comment",
        "-d",
        "--home",
        "-e",
        "--expiredate",
        "-f",
        "--inactive",
        "-g",
        "--gid",
        "-G",
        "--groups",
        "-l",
        "--login",
        "-p",
        "--password",
        "-R",
        "--root",
        "-P",
        "--prefix",
        "-s",
        "--shell",
        "-u",
        "--uid",
        "-v",
        "--add-subuids",
        "-V",
        "--del-subuids",
        "-w",
        "--add-subgids",
        "-W",
        "--del-subgids",
        "-Z",
        "--selinux-user",
    ];
    let ops: Vec<&str> = a.operands(&valued).iter().map(|o| o.shown()).collect();
    let user = target(&ops)?;
    // Any account made uid 0 alongside root has root's powers.
    let uid = a.value(&["-u", "--uid"]).map(|u| u.shown().trim_start_matches('0').to_string());
    if uid.as_deref() == Some("") && user != "root" {
        return Some(format!("gives `{user}` root's identity (uid 0)"));
    }
    if !is_admin(user) {
        return None;
    }
    let short = a.short_options("cdefgGlpRPsuvVwWZ", "");
    let has = |c: char| short.iter().any(|(s, _)| *s == c);
    let shell = a.value(&["-s", "--shell"]).map(|s| s.shown().to_string());
    let groups = a.value(&["-G", "--groups"]).map(|g| g.shown().to_string());
    let appends = has('a') || a.long("--append");
    let why = if has('L') || a.long("--lock") {
        "locks"
    } else if a.value(&["-e", "--expiredate"]).is_some_and(|e| !matches!(e.shown(), "" | "-1")) {
        "expires"
    } else if shell.as_deref().is_some_and(refuses_login) {
        "gives a shell that refuses logins to"
    } else if a.value(&["-p", "--password"]).is_some_and(|p| !p.shown().starts_with('$')) {
        "sets a password that is not a hash, locking out"
    } else if groups.as_deref().is_some_and(|g| !appends && !is_admin_group(g)) || a.any(&["-r", "--remove"]) {
        "takes the admin group from"
    } else if a.value(&["-d", "--home", "-l", "--login", "-u", "--uid", "-g", "--gid"]).is_some() {
        "renames, renumbers or moves the home of"
    } else {
        return None;
    };
    Some(format!("{why} `{user}`, an account the operator logs in as"))
}

fn passwd(a: &Args<'_>, stdin: &Stdin) -> Option<String> {
    let valued = [
        "-n",
        "--mindays",
        "-x",
        "--maxdays",
        "-w",
        "--warndays",
        "-i",
        "--inactive",
        "-r",
        "--repository",
        "-R",
        "--root",
        "-P",
        "--prefix",
    ];
    let ops: Vec<&str> = a.operands(&valued).iter().map(|o| o.shown()).collect();
    let user = target(&ops)?;
    if a.short('S') || a.long("--status") || !is_admin(user) {
        return (a.short('d') || a.long("--delete"))
            .then(|| format!("leaves `{user}` with no password, open to anyone who can reach a login"));
    }
    let why = if a.short('l') || a.long("--lock") {
        "locks"
    } else if a.short('d') || a.long("--delete") {
        "deletes the password of"
    } else if a.short('e')
        || a.long("--expire")
        || a.value(&["-x", "--maxdays", "-i", "--inactive"]).is_some_and(|v| v.shown() == "0")
    {
        "expires the password of"
    } else if stdin.unknown || !stdin.texts.is_empty() || a.long("--stdin") {
        "sets, from input given to it, the password of"
    } else {
        return None;
    };
    Some(format!("{why} `{user}`, an account the operator logs in as"))
}

fn chage(a: &Args<'_>) -> Option<String> {
    let valued = [
        "-d",
        "--lastday",
        "-E",
        "--expiredate",
        "-I",
        "--inactive",
        "-m",
        "--mindays",
        "-M",
        "--maxdays",
        "-W",
        "--warndays",
        "-R",
        "--root",
        "-P",
        "--prefix",
    ];
    let ops: Vec<&str> = a.operands(&valued).iter().map(|o| o.shown()).collect();
    let user = target(&ops).filter(|u| is_admin(u))?;
    let zero = |names: &[&str]| a.value(names).is_some_and(|v| v.shown() == "0");
    let expires = a.value(&["-E", "--expiredate"]).is_some_and(|e| e.shown() != "-1");
    (expires || zero(&["-M", "--maxdays"]) || zero(&["-I", "--inactive"]))
        .then(|| format!("expires `{user}` or its password, an account the operator logs in as"))
}

/// `chpasswd`'s input: `user:password` lines; an admin's password replaced (or `!` locked).
fn chpasswd(stdin: &Stdin) -> Option<String> {
    stdin
        .texts
        .iter()
        .flat_map(|t| t.lines())
        .filter_map(|l| l.trim().split_once(':').map(|(u, _)| u.trim().to_string()))
        .find(|u| is_admin(u))
        .map(|u| format!("replaces the password of `{u}`, an account the operator logs in as"))
}

fn gpasswd(a: &Args<'_>) -> Option<String> {
    let ops: Vec<&str> = a
        .operands(&["-a", "--add", "-d", "--delete", "-A", "--administrators", "-M", "--members", "-Q", "--root"])
        .iter()
        .map(|o| o.shown())
        .collect();
    let group = target(&ops).filter(|g| is_admin_group(g))?;
    let removes = a.value(&["-d", "--delete"]).is_some()
        || a.value(&["-M", "--members"]).is_some()
        || a.short('r')
        || a.long("--remove-password")
        || a.short('R');
    removes.then(|| format!("takes members out of `{group}`, the group that gives admin rights"))
}

fn group_change(base: &str, a: &Args<'_>) -> Option<String> {
    let valued = [
        "-g",
        "--gid",
        "-n",
        "--new-name",
        "-p",
        "--password",
        "-R",
        "--root",
        "-P",
        "--prefix",
        "--conf",
        "-U",
        "--users",
    ];
    let ops: Vec<&str> = a.operands(&valued).iter().map(|o| o.shown()).collect();
    match base {
        // `deluser USER GROUP` takes USER out of GROUP.
        "deluser" if ops.len() >= 2 => ops
            .last()
            .filter(|g| is_admin_group(g))
            .map(|g| format!("takes `{}` out of `{g}`, the group that gives admin rights", ops.first().unwrap_or(&""))),
        "deluser" => None,
        "groupmod" => target(&ops).filter(|g| is_admin_group(g)).and_then(|g| {
            a.value(&["-n", "--new-name", "-g", "--gid", "-U", "--users"]).map(|_| {
                format!("renames, renumbers or replaces the members of `{g}`, the group that gives admin rights")
            })
        }),
        _ => target(&ops)
            .filter(|g| is_admin_group(g))
            .map(|g| format!("deletes `{g}`, the group that gives admin rights")),
    }
}

fn systemctl(a: &Args<'_>) -> Option<String> {
    #[rustfmt::skip]
    let valued = [
        "-t", "--type", "-p", "--property", "-P", "-H", "--host", "-M", "--machine", "-n", "--lines", "-o", "--output",
        "--state", "-s", "--signal", "--kill-whom", "--kill-value", "--root", "--image", "--job-mode", "--what",
        "--timestamp", "--message", "--when", "--drop-in", "--preset-mode", "--kill-signal",
    ];
    let ops: Vec<&str> = a.operands(&valued).iter().map(|o| o.shown()).collect();
    let (verb, units) = ops.split_first()?;
    let stops = matches!(*verb, "stop" | "kill" | "mask" | "freeze" | "clean")
        || (matches!(*verb, "disable") && a.long("--now"));
    if !stops {
        return None;
    }
    // Stopping a target stops everything that is part of it; some only gather optional things.
    let whole_target = |u: &str| {
        matches!(*verb, "stop" | "kill" | "freeze")
            && u.strip_suffix(".target").is_some_and(|t| {
                !matches!(
                    t,
                    "sleep"
                        | "suspend"
                        | "hibernate"
                        | "hybrid-sleep"
                        | "suspend-then-hibernate"
                        | "timers"
                        | "printer"
                        | "bluetooth"
                        | "sound"
                        | "smartcard"
                        | "graphical"
                        | "getty"
                )
            })
    };
    units
        .iter()
        .find(|u| vital_unit(u) || whole_target(u))
        .map(|u| format!("{verb} {u} stops what guests, storage, a database or the way in run on"))
}

/// `service NAME stop`, `update-rc.d NAME disable|remove`, `rc-update del NAME`.
fn init_scripts(base: &str, a: &Args<'_>) -> Option<String> {
    let ops: Vec<&str> = a.operands(&[]).iter().map(|o| o.shown()).collect();
    let (name, action) = match (base, ops.as_slice()) {
        ("rc-update", [action, name, ..]) => (*name, *action),
        ("chkconfig", [name, action, ..]) => (*name, *action),
        (_, [name, action, ..]) => (*name, *action),
        _ => return None,
    };
    let off = matches!(action, "stop" | "disable" | "remove" | "del" | "delete" | "off" | "force-stop");
    (off && vital_unit(name)).then(|| format!("{name} {action} stops what guests, storage or the way in run on"))
}

/// A kernel setting that panics the machine, starves it, runs a program as root or cuts it off
/// the network. When `value` is not known, only settings where any value written does harm.
pub(crate) fn kernel_knob(key: &str, value: Option<&str>) -> Option<&'static str> {
    let key = key.trim().trim_start_matches("/proc/sys/").replace('/', ".").to_ascii_lowercase();
    let value = value.map(str::trim);
    let last = key.rsplit('.').next().unwrap_or(&key);
    let nonzero = value.is_none_or(|v| v != "0");
    let number = value.and_then(|v| v.parse::<u64>().ok());
    if last.contains("panic") && nonzero {
        return Some("makes the kernel panic or reboot on a fault");
    }
    if key == "kernel.modules_disabled" && nonzero {
        return Some("stops drivers loading until the next boot");
    }
    if matches!(key.as_str(), "kernel.core_pattern" | "kernel.modprobe" | "kernel.hotplug" | "kernel.poweroff_cmd")
        && value.is_none_or(|v| v.starts_with('|') || v.starts_with('/'))
    {
        return Some("makes the kernel run a program as root");
    }
    let starves = match last {
        "nr_hugepages" | "nr_overcommit_hugepages" => number.is_some_and(|n| n >= 8192),
        "min_free_kbytes" => number.is_some_and(|n| n >= 4_000_000),
        "pid_max" | "threads-max" | "file-max" | "nr_open" | "max_map_count" => number.is_some_and(|n| n < 4096),
        "overcommit_memory" => value == Some("2"),
        _ => false,
    };
    if starves {
        return Some("takes memory, processes or files away from guests and services");
    }
    let net = key.starts_with("net.");
    let cuts = net
        && match last {
            "forwarding" | "ip_forward" => value == Some("0"),
            "disable_ipv6" | "icmp_echo_ignore_all" => nonzero,
            "arp_ignore" => value == Some("8"),
            _ => false,
        };
    cuts.then_some("cuts the machine or its guests off the network")
}

/// What writing `path` takes away (`append`: adding to it), when it locks the operator out, cuts
/// the network or changes the kernel's running state beyond a quick undo.
pub(crate) fn lockout_write(path: &str, append: bool) -> Option<String> {
    use crate::paths::{matches_pattern, normalise};
    let p = normalise(path);
    let any = |patterns: &[&str]| patterns.iter().any(|x| matches_pattern(&p, x));
    // A line added to the main sudoers file that does not parse stops sudo for everyone; a line
    // added to the others refuses root a terminal or turns on a firewall rule at once.
    if any(&[
        "/etc/sudoers",
        "/etc/securetty",
        "/etc/securetty.d/*",
        "/etc/pve/firewall/*.fw",
        "/etc/pve/nodes/*/host.fw",
    ]) {
        return Some("which decides who may log in, with what rights, or through the firewall".into());
    }
    // Every login shell runs these first: a line added (`exit`, `exec false`, `kill -9 $$`) ends
    // each login before its prompt.
    if any(&[
        "/etc/profile",
        "/etc/profile.d/*",
        "/etc/bash.bashrc",
        "/etc/bashrc",
        "/etc/environment",
        "/etc/zsh/*",
        "/etc/zprofile",
        "/etc/zshenv",
        "/etc/zshrc",
        "/etc/csh.cshrc",
        "/etc/csh.login",
        "/root/.bashrc",
        "/root/.profile",
        "/root/.bash_profile",
        "/root/.bash_login",
        "/root/.zshrc",
        "/root/.zprofile",
        "/root/.zshenv",
        "~/.bashrc",
        "~/.profile",
        "~/.bash_profile",
        "~/.bash_login",
        "~/.zshrc",
        "~/.zprofile",
        "~/.zshenv",
        "/home/*/.bashrc",
        "/home/*/.profile",
        "/home/*/.bash_profile",
        "/home/*/.zshrc",
    ]) {
        return Some("which every login shell runs first, so a line there can end each login".into());
    }
    // Killing or freezing a control group stops every process in it at once; the kernel's crash
    // triggers crash it.
    if any(&[
        "/sys/fs/cgroup/cgroup.kill",
        "/sys/fs/cgroup/**/cgroup.kill",
        "/sys/fs/cgroup/cgroup.freeze",
        "/sys/fs/cgroup/**/cgroup.freeze",
        "/sys/fs/cgroup/**/freezer.state",
        "/sys/kernel/debug/provoke-crash/*",
        "/sys/kernel/debug/fail*/**",
        "/sys/kernel/kexec_crash_loaded",
    ]) {
        return Some("which kills or freezes every process of a control group, or crashes the kernel".into());
    }
    // Written in place of what is there, the value is not seen: only settings where any value
    // written is the harm count.
    if let Some(key) = p.strip_prefix("/proc/sys/") {
        return kernel_knob(key, None).map(|why| format!("a kernel setting which {why}"));
    }
    let hardware = any(&[
        "/sys/devices/system/cpu/*/online",
        "/sys/devices/system/memory/*/online",
        "/sys/**/reset",
        "/sys/class/net/*/*",
        "/sys/class/net/*/**",
    ]);
    (hardware && !append).then(|| "which takes a processor, a device or a link away, or its memory".into())
}

fn sysctl(a: &Args<'_>) -> Option<String> {
    a.operands(&["-p", "--load", "-f", "-r", "--pattern"]).iter().filter_map(|o| o.as_static()).find_map(|w| {
        let (k, v) = w.split_once('=')?;
        kernel_knob(k, Some(v)).map(|why| format!("sets `{w}`, which {why}"))
    })
}

/// A process id as `kill` may read it: decimal with spaces or a sign, hexadecimal, octal, a
/// fraction with nothing after the point; only init (1), every process (-1) and the own group (0)
/// matter.
fn odd_pid(word: &str) -> Option<i64> {
    let w = word.trim();
    // Plain spellings are judged where signals are; only the unusual ones come here.
    if w.parse::<i64>().is_ok() && w == word && !w.starts_with('+') && !w.starts_with("-0") && !w.starts_with('0') {
        return None;
    }
    let (sign, digits) = match w.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, w.strip_prefix('+').unwrap_or(w)),
    };
    let n = if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()?
    } else if let Some((whole, frac)) = digits.split_once('.') {
        if !frac.chars().all(|c| c == '0') {
            return None;
        }
        whole.parse::<i64>().ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(digits, 8).or_else(|_| digits.parse::<i64>()).ok()?
    } else {
        digits.parse::<i64>().ok()?
    };
    let n = sign * n;
    matches!(n, -1..=1).then_some(n)
}

fn ip(a: &Args<'_>) -> Option<String> {
    let valued = ["-n", "-netns", "-b", "-batch", "-f", "-family", "-l", "-loops", "-rc", "-rcvbuf"];
    let ops: Vec<&str> = a.operands(&valued).iter().map(|o| o.shown()).collect();
    let object = *ops.first()?;
    let verb = ops.get(1).copied().unwrap_or("");
    let is = |full: &str| !verb.is_empty() && full.starts_with(verb);
    let o = |full: &str, min: usize| object.len() >= min && full.starts_with(object);
    let adds = is("add") || is("append") || is("prepend") || is("replace") || is("change");
    let dev = ops.iter().position(|w| *w == "dev").and_then(|i| ops.get(i + 1)).or_else(|| ops.get(2)).copied();
    let host_dev = dev.is_some_and(|d| !guest_interface(d));
    if o("rule", 2) && adds {
        // A rule ahead of the main table that sends every packet elsewhere, or nowhere.
        let table = ops.windows(2).find_map(|w| match w {
            ["lookup" | "table", t] => Some(*t),
            _ => None,
        });
        let narrowed = ops.windows(2).any(|w| match w {
            [key, value] => {
                matches!(
                    *key,
                    "to" | "iif" | "oif" | "fwmark" | "dport" | "sport" | "ipproto" | "uidrange" | "tos" | "dsfield"
                ) || *key == "from" && !matches!(*value, "all" | "0/0" | "0.0.0.0/0" | "::/0")
            }
            _ => false,
        });
        let elsewhere = table.is_some_and(|t| !matches!(t, "main" | "254" | "local" | "255"));
        if !narrowed && elsewhere {
            return Some("rule add sends all traffic to another routing table, away from this session's route".into());
        }
    }
    if o("route", 1) && adds && ops.iter().any(|w| matches!(*w, "blackhole" | "unreachable" | "prohibit")) {
        let dest = ops.iter().skip(2).find(|w| !matches!(**w, "blackhole" | "unreachable" | "prohibit" | "to"));
        let broad = dest.is_some_and(|d| broad_or_private(d));
        if broad {
            return Some(format!("route makes {} unreachable, a range the way in may come from", dest.unwrap_or(&"")));
        }
    }
    if o("neighbour", 1) && adds && host_dev && ops.contains(&"permanent") {
        return Some("neigh fixes a neighbour's hardware address, cutting it off until removed if wrong".into());
    }
    if o("address", 1) && is("delete") && host_dev {
        return Some("address del removes an address of the host, perhaps the one this session uses".into());
    }
    if o("link", 1) && (is("set") || is("change")) && host_dev {
        let changes = ops.iter().any(|w| matches!(*w, "address" | "addr" | "master" | "vrf" | "name" | "type"));
        if changes {
            return Some(
                "link set readdresses, renames or rebridges a host interface, cutting what runs over it".into(),
            );
        }
    }
    if (o("link", 1) || o("tuntap", 2)) && is("delete") {
        return Some("removes an interface, unplugging what runs over it".into());
    }
    if o("xfrm", 1)
        && ops.get(2).is_some_and(|v| ["add", "update"].iter().any(|x| x.starts_with(v)))
        && ops.contains(&"block")
        && !ops.iter().any(|w| matches!(*w, "src" | "dst" | "proto" | "dport" | "sport"))
    {
        return Some("xfrm policy … block drops all traffic in that direction".into());
    }
    None
}

/// An address range that is broad (a /16 or wider) or private, where an operator may sit.
fn broad_or_private(range: &str) -> bool {
    let (addr, len) = range.split_once('/').unwrap_or((range, "32"));
    let len = len.parse::<u8>().unwrap_or(32);
    let private = addr.starts_with("10.")
        || addr.starts_with("192.168.")
        || addr.starts_with("169.254.")
        || (addr.starts_with("172.")
            && addr.split('.').nth(1).and_then(|o| o.parse::<u8>().ok()).is_some_and(|o| (16..=31).contains(&o)))
        || addr.starts_with("fd")
        || addr.starts_with("fe80");
    matches!(addr, "default" | "all" | "any") || (len <= 16 && !addr.contains(':')) || private
}

fn iptables(a: &Args<'_>) -> Option<String> {
    let words: Vec<&str> = a.all.iter().filter_map(Arg::as_static).collect();
    let value = |names: &[&str]| {
        words.windows(2).find_map(|w| match w {
            [n, v] if names.contains(n) => Some(*v),
            _ => None,
        })
    };
    // `-D CHAIN NUMBER`: which rule goes cannot be seen; it may be the one letting the way in.
    let deletes_by_number = words.windows(3).any(|w| match w {
        [d, _, n] => matches!(*d, "-D" | "--delete") && n.parse::<u32>().is_ok(),
        _ => false,
    });
    if deletes_by_number {
        return Some("deletes a rule by its number, which may be the one that lets SSH in".into());
    }
    let target = value(&["-j", "--jump"])?;
    if !matches!(target, "DROP" | "REJECT") {
        return None;
    }
    let input = value(&["-A", "--append", "-I", "--insert", "-R", "--replace"])
        .is_some_and(|c| c == "INPUT" || c == "OUTPUT" || c == "FORWARD");
    let ports = words.iter().any(|w| w.contains("port"));
    let source = value(&["-s", "--source", "-d", "--destination"]);
    (input && !ports && source.is_some_and(broad_or_private))
        .then(|| format!("drops all traffic of {}, a range the way in may come from", source.unwrap_or("")))
}

/// What a permission change lets other users (the group class or everyone else) do to a file.
#[derive(Clone, Copy, Default)]
pub(super) struct Opens {
    pub(super) read: bool,
    pub(super) write: bool,
}

/// What a `chmod` mode grants the group class or others (`644`, `o+w`, `a=rwx`, `g+r`).
pub(super) fn mode_opens(mode: &str) -> Opens {
    let mut out = Opens::default();
    if !mode.is_empty() && mode.chars().all(|c| c.is_ascii_digit()) {
        let digits: Vec<u32> = mode.chars().filter_map(|c| c.to_digit(8)).collect();
        if let [.., group, other] = digits.as_slice() {
            out.read = (group | other) & 4 != 0;
            out.write = (group | other) & 2 != 0;
        }
        return out;
    }
    for clause in mode.split(',') {
        let at = clause.find(['+', '=']).unwrap_or(clause.len());
        let (who, rest) = (clause.get(..at).unwrap_or_default(), clause.get(at..).unwrap_or_default());
        if rest.is_empty() || clause.get(..at).is_some_and(|w| w.contains('-')) {
            continue;
        }
        if who.is_empty() || who.contains(['a', 'g', 'o']) {
            out.read |= rest.contains('r');
            out.write |= rest.contains('w');
        }
    }
    out
}

/// What `setfacl` entries (`o::rwx`, `u:nobody:rw`, `g:users:r`, `m::rwx`) grant anyone but the
/// owner: the mask and named entries show in the group bits sshd and sudo check.
pub(super) fn acl_opens(entries: &[String]) -> Opens {
    let mut out = Opens::default();
    for entry in entries.iter().flat_map(|e| e.split(',')) {
        let entry = entry.trim().trim_start_matches("d:").trim_start_matches("default:");
        let mut parts = entry.split(':');
        let kind = parts.next().unwrap_or_default();
        let qualifier = parts.next().unwrap_or_default();
        let perms = parts.next().unwrap_or_default();
        if matches!(kind, "u" | "user") && qualifier.is_empty() {
            continue;
        }
        out.read |= perms.contains('r') || perms.chars().next().and_then(|c| c.to_digit(8)).is_some_and(|d| d & 4 != 0);
        out.write |=
            perms.contains('w') || perms.chars().next().and_then(|c| c.to_digit(8)).is_some_and(|d| d & 2 != 0);
    }
    out
}

/// A permission change that sshd or sudo refuses to work with: sshd ignores host keys others can
/// read (and then does not start) and keys in a home, `.ssh` or `authorized_keys` others can
/// write; sudo refuses to run while its rules are writable by others; an account database
/// others can write lets anyone make themselves root. `recursive` covers what lies below.
pub(super) fn opened_access(path: &str, recursive: bool, opens: Opens) -> Option<&'static str> {
    use crate::paths::{matches_pattern, normalise};
    let p = normalise(path);
    let p = p.trim_end_matches('/');
    let any = |patterns: &[&str]| patterns.iter().any(|x| matches_pattern(p, x));
    // A recursive change reaches everything below: the tree's root is enough.
    let covers = |inner: &str| recursive && (p.is_empty() || inner == p || inner.starts_with(&format!("{p}/")));
    let host_keys = any(&["/etc/ssh/ssh_host_*_key", "/etc/ssh/ssh_host_*key"]) || covers("/etc/ssh/ssh_host_key");
    if (opens.read || opens.write) && host_keys {
        return Some("sshd refuses host keys other users can read, and stops accepting logins");
    }
    if !opens.write {
        return None;
    }
    let homes =
        ["/root", "/root/.ssh", "/root/.ssh/*", "/home/*", "/home/*/.ssh", "/home/*/.ssh/*", "~", "~/.ssh", "~/.ssh/*"];
    if any(&homes) || any(&["/etc/pve/priv", "/etc/pve/priv/*"]) || covers("/root/.ssh") || covers("/home/x/.ssh") {
        return Some("sshd refuses keys in a home, `.ssh` or key file others can write, and key logins stop");
    }
    if any(&["/etc/sudoers", "/etc/sudoers.d", "/etc/sudoers.d/*"]) || covers("/etc/sudoers") {
        return Some("sudo refuses to run while its rules can be written by others");
    }
    if any(&["/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow", "/etc/pam.d", "/etc/pam.d/*"])
        || covers("/etc/passwd")
    {
        return Some("any user could then make themselves root or change who may log in");
    }
    None
}
