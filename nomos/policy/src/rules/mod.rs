//! What each program does with its arguments. Programs whose rule is a matter of options and
//! subcommands (these only read, these write, run another program or destroy) are entries of the
//! program table (`rules/*.yaml`, see `table`); programs that need code have it here, one file per
//! family. Wrappers and shells are judged by what they run. A program with no rule is not known to
//! be read-only.

mod args;
mod awk;
mod builtins;
mod containers;
mod coreutils;
mod databases;
mod disclosure;
mod effects;
mod escapes;
mod firewall;
mod hardware;
mod interpreters;
mod links;
mod lockout;
mod meaning;
mod network;
mod outage;
mod proxmox;
mod pve_api;
mod pve_cli;
mod requests;
mod routes;
mod sed;
mod signals;
mod sql;
mod storage;
mod storage_effect;
mod systemd;
mod teardown;
mod text;
mod vcs;
mod wrappers;

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE, ReadOnly as RO};

pub use network::percent_decode_bytes;

pub(crate) use args::{is_identifier, Args};
pub(crate) use coreutils::vim_command;
pub(crate) use disclosure::judge as disclosure;
pub(crate) use interpreters::code_literals;
pub(crate) use lockout::{kernel_knob, lockout_write};
pub(crate) use routes::{cgroup_write, shell_exhaustion};
pub(crate) use storage_effect::ceph_own_config;
pub(crate) use text::reader;
pub(crate) use wrappers::loads_unseen_code;

use crate::secrets::holds_secrets;
use crate::shell::{Analysis, Arg, Stdin};
use crate::table::{check_options, interpret, table, Entry, OWN_GRAMMAR};

/// A rule written as code: the analysis, the program's name, its arguments, its standard input.
type Rule = fn(&mut Analysis<'_>, &str, &Args<'_>, &Stdin);

/// Directories whose programs are the system's own (`/usr/bin/cat` is `cat`; `./cat` is not).
#[rustfmt::skip]
const TRUSTED_DIRS: &[&str] = &[
    "/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin",
];

/// Programs that look at paths without reading what is in them; secret paths are fine there.
#[rustfmt::skip]
pub(super) const METADATA_ONLY: &[&str] = &[
    "ls", "stat", "du", "find", "test", "[", "[[", "chmod", "chown", "chgrp", "lsattr", "getfacl", "namei",
    "realpath", "readlink", "basename", "dirname", "ssh-add", "ssh-keygen", "touch", "mkdir", "cd", "pushd", "popd",
    "echo", "printf",
    // A minion target (`'*'`, `web*`) is a pattern of machine names, not of files.
    "salt", "salt-ssh",
];

/// Services (and their processes) whose loss cuts the operator off or takes the cluster down.
pub(super) const LIFELINES: &[&str] = &[
    "ssh",
    "sshd",
    "networking",
    "network",
    "systemd-networkd",
    "NetworkManager",
    "pve-firewall",
    "corosync",
    "pve-cluster",
    "pmxcfs",
    "ifupdown2-pre",
    "nftables",
    "iptables",
    "ufw",
    "firewalld",
    "wpa_supplicant",
    "dhclient",
    "pveproxy",
    "pve-ha-lrm",
    "pve-ha-crm",
    "watchdog-mux",
    "pve-guests",
    "tailscaled",
    "zerotier-one",
    "wg-quick",
    "openvpn",
    "openvpn-client",
    "dbus",
    "dbus-broker",
];

/// The program's name as the system knows it, and whether it is the system's program at all.
pub(super) fn identity(name: &str) -> (&str, bool) {
    match name.rsplit_once('/') {
        None => (name, true),
        Some((dir, base)) => (base, TRUSTED_DIRS.contains(&dir)),
    }
}

/// A command line another program is told to run (a compress program, a pager, a proxy command):
/// judged as shell text, and rated at the worst it could do when what it runs cannot be seen — a
/// program outside the system's directories, or a bare shell or interpreter, whose script is then
/// whatever data it is fed.
pub(crate) fn run_given(an: &mut Analysis<'_>, what: &str, command: &str) {
    let command = command.trim();
    an.script(command);
    let mut words = command.split_whitespace();
    let Some(first) = words.next() else { return };
    let (base, trusted) = identity(first);
    let rest: Vec<&str> = words.collect();
    let bare = rest.iter().all(|w| w.starts_with('-') && !w.contains('c') && !w.contains('e'))
        && (interpreters::SHELLS.contains(&base) || interpreters::is_interpreter(base));
    if !trusted {
        an.raise(DE, format!("{what} runs `{first}`, a program that cannot be judged"));
    } else if bare {
        an.raise(DE, format!("{what} feeds data to `{base}` as its script, which cannot be judged"));
    }
}

/// Whether a program word names the system's program (a bare name or one in the system's
/// directories), not a file anywhere.
pub(crate) fn identity_trusted(name: &str) -> bool {
    identity(name).1
}

/// The quoted words of a text (`'core.pager'='less'`).
pub(crate) fn quoted_words(text: &str) -> Vec<String> {
    quoted_literals(text)
}

/// Judges one program invocation. `name` is the word as written, `args` what follows it.
pub(crate) fn program(an: &mut Analysis<'_>, name: &str, args: &[Arg], stdin: &Stdin) {
    let (mark, first) = (an.mark(), an.invocations_so_far());
    judge_program(an, name, args, stdin);
    an.note_invocation(identity(name).0, args, mark, first);
}

fn judge_program(an: &mut Analysis<'_>, name: &str, args: &[Arg], stdin: &Stdin) {
    // An init script is the service it starts and stops: `/etc/init.d/ssh stop` is `service ssh stop`.
    if let Some(script) = name.strip_prefix("/etc/init.d/").filter(|s| !s.is_empty() && !s.contains('/')) {
        let mut words = vec![Arg::Static(script.to_string())];
        words.extend(args.iter().cloned());
        return systemd::service(an, "service", &Args::new(&words), stdin);
    }
    // The dynamic loader runs the program it is given; `/proc/self/exe` is the running shell.
    let loader =
        name.rsplit('/').next().is_some_and(|b| b.starts_with("ld-linux") || b == "ld.so" || b.starts_with("ld64.so"));
    if loader && name.starts_with('/') {
        an.raise(CM, format!("`{name}` loads and runs another program"));
        let start = args.iter().position(|a| a.as_static().is_none_or(|w| !w.starts_with("--"))).unwrap_or(args.len());
        return an.run(args.get(start..).unwrap_or(&[]), stdin);
    }
    if matches!(name, "/proc/self/exe" | "/proc/$$/exe") {
        return program(an, "bash", args, stdin);
    }
    let (base, trusted) = identity(name);
    // `lvm lvremove …` runs `lvremove …`: the LVM command is judged as itself too.
    if base == "lvm" {
        let lvm_command = |s: &&str| {
            (s.starts_with("lv") || s.starts_with("vg") || s.starts_with("pv"))
                && s.len() > 2
                && s.chars().all(|c| c.is_ascii_lowercase())
        };
        if let Some(sub) = args.first().and_then(Arg::as_static).filter(lvm_command) {
            program(an, sub, args.get(1..).unwrap_or(&[]), stdin);
        }
    }
    if !trusted {
        an.raise(CM, format!("runs `{name}` by path, which is not the system's `{base}`"));
    }
    if let Some(words) = proxmox::long_options(base, args) {
        return program(an, name, &words, stdin);
    }
    if trusted && proxmox::only_help(base, args) {
        return ro(an, format!("`{base}` only prints its usage"));
    }
    let mark = an.mark();
    let entry = table().get(base);
    // Each known value of a computed word, in its place (`c=destroy; zfs $c …`); when those are
    // all the values each can take, the invocation is those invocations and nothing else.
    let (alternatives, exhaustive) = with_known_values(args);
    // Signals are judged by which processes a word names (`$(pidof sshd)`), not by a process id
    // standing in for it.
    let signals = matches!(base, "kill" | "pkill" | "killall" | "skill");
    // A process id looked up at run time is judged by the lookup in whatever runs it (`sudo kill
    // $(pidof sshd)`), so the word is kept as written beside its stand-in value.
    let looked_up = args.iter().any(
        |a| matches!(a, Arg::Static(w) if matches!(w.as_str(), "kill" | "pkill" | "killall" | "prlimit" | "renice")),
    ) && args.iter().any(|a| {
        matches!(a, Arg::Dynamic { text, .. }
            if ["pgrep", "pidof", "lsof", "fuser", ".pid"].iter().any(|p| text.contains(p)))
    });
    let exhaustive = exhaustive && !signals && !looked_up;
    if !exhaustive {
        for reason in an.policy.destructive_matches(base, args) {
            an.raise(DE, reason);
        }
        check_secrets(an, base, args);
        check_unproven_reads(an, base, args);
        check_lockout(an, base, args);
        rule(an, base, entry, args, stdin);
    }
    for alt in &alternatives {
        for reason in an.policy.destructive_matches(base, alt) {
            an.raise(DE, reason);
        }
        check_secrets(an, base, alt);
        check_unproven_reads(an, base, alt);
        check_lockout(an, base, alt);
        rule(an, base, entry, alt, stdin);
    }
    meaning::judge(an, base, args, mark);
    if an.max_risk() < Some(DE) {
        meaning::package_runner(an, base, args);
    }
    // A program with no rule is judged by what its words mean; clients of service APIs by what
    // their requests ask for.
    let ruled = entry.is_some() || code_rule(base).is_some();
    // Already destroying (a site's own pattern): one reason says it.
    if !ruled && an.max_risk() < Some(DE) {
        meaning::unknown(an, base, args);
    }
    if !ruled || requests::CLIENTS.contains(&base) {
        requests::client(an, base, args);
    }
    outage::judge(an, base, args);
    effects::judge(an, base, args);
    storage_effect::judge(an, base, args, stdin);
    storage_effect::device_output(an, base, args, mark);
    lockout::judge(an, base, args, stdin);
    teardown::packages(an, base, args);
    disclosure::judge(an, base, args);
    disclosure::secret_filter(an, base, args, stdin);
    escapes::judge(an, base, args, stdin);
    routes::judge(an, base, args, stdin);
    // A computed word with no known value could be any option or subcommand.
    let inert = entry.map_or(builtins::INERT.contains(&base), |e| e.inert) || proxmox::reads_whatever_follows(base, args)
            // `printf '%s\n' "$(hostname)"`: with its format written out, the words after it are
            // only printed (`-v`, which sets a variable, must come first).
            || (base == "printf"
                && args.first().and_then(Arg::as_static).is_some_and(|f| !f.starts_with('-')));
    if !inert && !exhaustive {
        if let Some(text) = args.iter().find_map(|x| match x {
            // A process id read at run time is some process, whichever stands in for it.
            Arg::Dynamic { text, candidates, complete } if candidates.is_empty() || (signals && *complete) => {
                Some(text)
            }
            _ => None,
        }) {
            an.raise(
                CM,
                format!("`{base}` takes a word computed at run time (`{text}`), which could change what it does"),
            );
        }
    }
}

/// Judges one invocation by the program's table entry, else its code, else the site's additions.
fn rule(an: &mut Analysis<'_>, base: &str, entry: Option<&Entry>, args: &[Arg], stdin: &Stdin) {
    // `tar --version`, `rsync --help`: a known program asked only for its version or help prints
    // it and stops; what it is named for does not run. Other rules still judge the line.
    // Power programs are left to their rules: a halt or reboot may ignore what follows it.
    const ACTS_REGARDLESS: &[&str] = &["reboot", "halt", "poweroff", "shutdown", "init", "telinit", "kexec"];
    if (entry.is_some() || code_rule(base).is_some())
        && !ACTS_REGARDLESS.contains(&base)
        && !interpreters::is_interpreter(base)
        && !interpreters::SHELLS.contains(&base)
        && matches!(args, [only] if matches!(only.as_static(), Some("--version" | "--help")))
    {
        return ro(an, format!("`{base}` only prints its version or help"));
    }
    if let Some(entry) = entry {
        return interpret(an, base, entry, args, stdin);
    }
    let a = Args::new(args);
    match code_rule(base) {
        Some(rule) => {
            let mark = an.mark();
            rule(an, base, &a, stdin);
            // Read-only is proven, never presumed: the rule must have judged the invocation, and
            // every option it was given must be known.
            match an.max_since(mark) {
                None => an.raise(CM, format!("`{base}` was not judged, so it is not known to be read-only")),
                Some(RO) if !OWN_GRAMMAR.contains(&base) && !interpreters::is_interpreter(base) => {
                    check_options(an, base, args)
                }
                Some(_) => {}
            }
        }
        None => match an.policy.extra_read_only(base, args) {
            Some(reason) => ro(an, reason),
            None => unknown(an, base),
        },
    }
}

/// The system's programs a program name written as a pattern may run (`/???/r?` is `/bin/rm`):
/// every known program in the system's directories whose path the pattern fits, as bash would
/// expand it (`*` and `?` within a component, `[…]` classes).
pub(crate) fn programs_matching(pattern: &str) -> Vec<String> {
    let names = table().program_names().chain(code_programs());
    let mut out = Vec::new();
    for name in names {
        let fits = if pattern.contains('/') {
            TRUSTED_DIRS.iter().any(|dir| shell_glob(pattern, &format!("{dir}/{name}")))
        } else {
            shell_glob(pattern, name)
        };
        if fits && !out.iter().any(|o| o == name) {
            out.push(name.to_string());
        }
        if out.len() >= 16 {
            break;
        }
    }
    out
}

/// Bash's pathname pattern: `*` any run and `?` any one character but `/`, `[…]` a class
/// (`[!…]`/`[^…]` negated, `a-z` ranges), `\x` a literal.
pub(crate) fn shell_glob(pattern: &str, text: &str) -> bool {
    fn go(p: &[char], t: &[char]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some(('*', rest)) => (0..=t.len())
                .take_while(|&i| !t.get(..i).is_some_and(|s| s.contains(&'/')))
                .any(|i| go(rest, t.get(i..).unwrap_or(&[]))),
            Some(('?', rest)) => t.split_first().is_some_and(|(c, tail)| *c != '/' && go(rest, tail)),
            Some(('[', rest)) => {
                let Some((c, tail)) = t.split_first() else { return false };
                let (negated, body) = match rest.split_first() {
                    Some(('!' | '^', b)) => (true, b),
                    _ => (false, rest),
                };
                // A `]` first in the class is one of its characters.
                let close = body.iter().skip(1).position(|x| *x == ']').map(|i| i + 1);
                let Some(close) = close else { return t.first() == Some(&'[') && go(rest, tail) };
                let class = body.get(..close).unwrap_or(&[]);
                let mut hit = false;
                let mut i = 0;
                while let Some(&x) = class.get(i) {
                    if let (Some('-'), Some(&end)) = (class.get(i + 1), class.get(i + 2)) {
                        hit |= (x..=end).contains(c);
                        i += 3;
                    } else {
                        hit |= x == *c;
                        i += 1;
                    }
                }
                hit != negated && *c != '/' && go(body.get(close + 1..).unwrap_or(&[]), tail)
            }
            Some(('\\', rest)) => match rest.split_first() {
                Some((x, r)) => t.first() == Some(x) && go(r, t.get(1..).unwrap_or(&[])),
                None => false,
            },
            Some((x, rest)) => t.first() == Some(x) && go(rest, t.get(1..).unwrap_or(&[])),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    go(&p, &t)
}

/// The programs whose rule is code, by name. None of them is in the table (a test checks);
/// interpreters are also known by versioned names (`python3.11`).
#[rustfmt::skip]
const CODE_RULES: &[(&[&str], Rule)] = &[
    (builtins::SETTERS, builtins::setter),
    (interpreters::SHELLS, interpreters::shell),
    (databases::SQL_CLIENTS, databases::sql_client),
    (&["printf"], builtins::printf),
    (&["trap"], builtins::trap),
    (&["alias"], builtins::alias),
    (&["coproc"], builtins::coproc),
    // Wrappers whose rule is more than options (the others are table entries).
    (&["parallel"], wrappers::parallel),
    (&["pee", "mispipe"], wrappers::each_a_command),
    (&["tmux"], wrappers::tmux),
    (&["keyctl"], wrappers::keyctl),
    (&["start-stop-daemon"], signals::start_stop_daemon),
    (&["perf"], wrappers::perf),
    (&["eval"], wrappers::eval),
    (&["source", "."], wrappers::source),
    // Files and processes.
    // `unlink` and `rmdir` remove what they name as `rm` does, and matter by the same paths.
    (&["rm", "srm", "unlink", "rmdir"], coreutils::rm),
    (&["ldd"], coreutils::ldd),
    (&["cp", "mv", "install", "ln"], coreutils::copy),
    (&[
        "mkdir", "touch", "mkfifo", "mknod", "truncate", "split", "csplit", "dos2unix", "unix2dos", "chattr", "setfacl",
        "ed", "ex", "vi", "vim", "nvim", "nano", "emacs", "view", "pico", "joe", "mcedit",
    ], coreutils::make_or_edit),
    (&["chmod", "chown", "chgrp"], coreutils::permissions),
    (&["dd"], coreutils::dd),
    (&["find"], coreutils::find),
    (&["tar", "bsdtar"], coreutils::tar),
    (&["date"], coreutils::date),
    (&["kill"], signals::kill),
    (&["pkill", "killall", "skill"], signals::pkill),
    (&["fuser"], signals::fuser),
    // Text tools with a script of their own.
    (&["sed", "gsed"], sed::sed),
    (&["awk", "gawk", "mawk", "nawk", "busybox-awk"], awk::awk),
    // Services and the system.
    (&["systemctl"], systemd::systemctl),
    (&["service", "invoke-rc.d", "rc-service"], systemd::service),
    (&["busctl", "dbus-send", "gdbus", "qdbus", "qdbus6"], systemd::dbus),
    (&["crontab"], systemd::crontab),
    (&["init", "telinit"], systemd::init),
    (&["loginctl"], systemd::loginctl),
    (&["systemd-analyze"], systemd::systemd_analyze),
    (&["sysctl"], systemd::sysctl),
    // Network.
    (&["ip"], network::ip),
    (&["ifconfig"], links::ifconfig),
    (&["ifdown", "dhclient"], links::ifdown),
    (&["rfkill"], links::rfkill),
    (&["brctl", "bridge", "tc"], network::bridge),
    (&["nmcli"], network::nmcli),
    (&["resolvectl", "systemd-resolve"], network::resolvectl),
    (&[
        "iptables", "ip6tables", "iptables-legacy", "ip6tables-legacy", "iptables-nft", "ip6tables-nft", "ebtables",
        "arptables",
    ], firewall::iptables),
    (&["nft"], firewall::nft),
    (&["ufw"], firewall::ufw),
    (&["curl"], network::curl),
    (&["wget"], network::wget),
    (&["nc", "ncat", "netcat", "socat", "telnet"], network::netcat),
    (&["openssl"], network::openssl),
    (&["ssh"], network::ssh),
    (&["gdb"], interpreters::gdb),
    (&["scp", "sftp"], network::scp),
    (&["rsync"], network::rsync),
    (&["wg"], network::wg),
    (&["chronyc"], network::chronyc),
    // Storage.
    (&["parted"], storage::parted),
    (&["lvresize"], storage::lvresize),
    (&["zfs"], storage::zfs),
    (&["zpool"], storage::zpool),
    (&["btrfs"], storage::btrfs),
    (&["qemu-img"], storage::qemu_img),
    (&["fio"], storage::fio),
    // Proxmox and Ceph.
    (&["pct"], proxmox::pct),
    (&["qm"], proxmox::qm),
    (&["pvesh"], pve_api::pvesh),
    (&["proxmox-backup-debug"], pve_api::pbs_debug),
    (&["rados", "rbd"], proxmox::ceph_storage),
    (&["ipmitool"], proxmox::ipmitool),
    // Hardware: RAID controllers, firmware, the iLO, partitions, disks' power, the backup console.
    (&["storcli", "storcli64", "perccli", "perccli64", "ssacli", "hpssacli", "hpacucli", "arcconf"], hardware::raid),
    (&["megacli", "megacli64", "MegaCli", "MegaCli64"], hardware::megacli),
    (&["sas2flash", "sas3flash", "sas2flsh", "sas3flsh"], hardware::sasflash),
    (&["flashrom"], hardware::flashrom),
    (&["fwupdmgr", "fwupdtool"], hardware::fwupd),
    (&["efivar"], hardware::efivar),
    (&["delpart", "resizepart", "addpart"], hardware::partition),
    (&["sg_start"], hardware::sg_start),
    (&["ilorest"], hardware::ilorest),
    (&["bconsole", "bacula-console"], hardware::bconsole),
    // Containers.
    (&["docker", "podman", "nerdctl"], containers::docker),
    (&["docker-compose", "podman-compose"], containers::compose_tool),
    (&["kubectl", "oc"], containers::kubectl),
    // Version control and databases.
    (&["git"], vcs::git),
    (&["etckeeper"], vcs::etckeeper),
    (&["mongosh", "mongo"], databases::mongosh),
];

/// The rule of a program judged by code.
pub(crate) fn code_rule(base: &str) -> Option<Rule> {
    if interpreters::is_interpreter(base) && !interpreters::SHELLS.contains(&base) {
        return Some(interpreters::interpreter);
    }
    CODE_RULES.iter().find(|(names, _)| names.contains(&base)).map(|(_, rule)| *rule)
}

/// Every program judged by code (interpreters by their plain names).
pub(crate) fn code_programs() -> impl Iterator<Item = &'static str> {
    CODE_RULES.iter().flat_map(|(names, _)| names.iter().copied()).chain(interpreters::INTERPRETERS.iter().copied())
}

/// The argument lists obtained by giving each computed word each of its known values (bounded);
/// a value that splits into several words stands as those words. Whether they are every list the
/// words can make (each word's values complete, none left out).
fn with_known_values(args: &[Arg]) -> (Vec<Vec<Arg>>, bool) {
    if !args.iter().any(|a| matches!(a, Arg::Dynamic { candidates, .. } if !candidates.is_empty())) {
        return (Vec::new(), false);
    }
    let complete = args.iter().all(|a| a.is_complete() && a.values().len() <= 16);
    let words = |c: &str| -> Vec<Arg> {
        c.split(crate::shell::FIELD).filter(|w| !w.is_empty()).map(|w| Arg::Static(w.to_string())).collect()
    };
    let choices_of = |arg: &Arg| -> Vec<Vec<Arg>> {
        match arg {
            Arg::Dynamic { candidates, .. } if !candidates.is_empty() => {
                candidates.iter().take(16).map(|c| words(c)).collect()
            }
            other => vec![vec![other.clone()]],
        }
    };
    let mut out: Vec<Vec<Arg>> = vec![Vec::new()];
    for arg in args {
        let choices = choices_of(arg);
        if out.len() * choices.len() > 16 {
            // Too many combinations: vary one word at a time.
            let some = args
                .iter()
                .enumerate()
                .filter(|(_, a)| matches!(a, Arg::Dynamic { candidates, .. } if !candidates.is_empty()))
                .flat_map(|(i, a)| {
                    choices_of(a).into_iter().map(move |choice| {
                        let mut v: Vec<Arg> = args.get(..i).unwrap_or(&[]).to_vec();
                        v.extend(choice);
                        v.extend(args.get(i + 1..).unwrap_or(&[]).iter().cloned());
                        v
                    })
                })
                .take(64)
                .collect();
            return (some, false);
        }
        out = out.iter().flat_map(|prefix| choices.iter().map(move |c| [prefix.clone(), c.clone()].concat())).collect();
    }
    (out, complete)
}

/// Options whose value is a secret the program uses without printing it (the key a client
/// authenticates with, the configuration a VPN starts from).
const USES_SECRET: &[(&str, &[&str])] = &[
    ("ssh", &["-i"]),
    ("scp", &["-i"]),
    ("sftp", &["-i"]),
    ("rsync", &["-i"]),
    ("openvpn", &["--config", "--secret", "--auth-user-pass", "--key", "--tls-auth", "--tls-crypt", "--pkcs12"]),
    ("wpa_supplicant", &["-c"]),
    ("restic", &["-p", "--password-file"]),
    ("cryptsetup", &["-d", "--key-file"]),
];

/// Programs whose file operands are not read out: removing, moving, linking or naming a
/// credential file does not disclose it (a secret location itself still counts, as before).
#[rustfmt::skip]
const NOT_READING: &[&str] = &[
    "rm", "srm", "unlink", "rmdir", "shred", "wipe", "mv", "ln", "echo", "printf", "mkfifo", "mknod", "chattr",
    "setfacl", "truncate", "systemctl", "journalctl",
];

/// The quoted paths an expression passes to a function: `load("/etc/shadow")`, `f('~/.aws/x')`.
fn called_with_paths(value: &str) -> impl Iterator<Item = &str> {
    value.match_indices(['(', ',']).filter_map(move |(i, _)| {
        // After the one-byte `(` or `,`.
        let rest = value.get(i + 1..)?.trim_start();
        let quote = rest.chars().next().filter(|c| matches!(c, '"' | '\''))?;
        let (path, _) = rest.strip_prefix(quote)?.split_once(quote)?;
        path.starts_with(['/', '~']).then_some(path)
    })
}

/// Programs that print or copy a file's bytes as they are: given a disk or memory device, they
/// read every secret stored on it (where `lsblk` or `smartctl` only ask the device about itself).
#[rustfmt::skip]
const RAW_READERS: &[&str] = &[
    "cat", "tac", "head", "tail", "dd", "xxd", "od", "hexdump", "hd", "strings", "base64", "base32", "basenc",
    "less", "more", "pv", "cp", "gzip", "pigz", "zstd", "xz", "bzip2", "lz4", "nc", "ncat", "socat", "curl", "tee",
    "grep", "rg", "sed", "awk", "mbuffer", "dcfldd", "partclone.dd", "zcat", "zstdcat", "xzcat", "lzcat", "bzcat",
    "lz4cat", "zless", "zmore", "zgrep", "zegrep", "zfgrep", "unzstd", "gunzip", "unxz", "bunzip2", "pzstd",
    "unpigz", "7z", "7za", "vma", "nl", "cut", "tr", "sort", "uniq", "rev", "fold", "column", "split", "bat",
    "batcat", "view", "mawk", "gawk", "egrep", "fgrep", "ag", "ack", "scp", "rsync",
];

/// Programs that print a whole file (a guest configuration's every line, its password hash too).
#[rustfmt::skip]
const WHOLE_FILE_READERS: &[&str] = &[
    "cat", "tac", "head", "tail", "xxd", "od", "hexdump", "hd", "strings", "base64", "base32", "basenc", "less",
    "more", "pv", "nl", "bat", "batcat", "view", "cp", "scp", "rsync", "tee",
];

/// Whether `tar` extracts to its standard output (`-O`, `--to-stdout`, `-xOf`): the archive's
/// files are printed.
fn tar_to_stdout(args: &[Arg]) -> bool {
    args.iter().filter_map(Arg::as_static).any(|w| {
        w == "--to-stdout"
            || w.starts_with("--to-command")
            || (w.starts_with('-') && !w.starts_with("--") && w.contains('O'))
            || (!w.starts_with('-') && w.contains('x') && w.contains('O') && w.chars().all(|c| c.is_ascii_alphabetic()))
    })
}

/// Reading, copying or sending a secret is never routine, whatever the program.
pub(super) fn check_secrets(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    if METADATA_ONLY.contains(&base) {
        return;
    }
    let uses = USES_SECRET.iter().find(|(p, _)| *p == base).map_or(&[][..], |(_, o)| *o);
    let reads = !NOT_READING.contains(&base);
    // ssh's remote command is judged as the shell text it is; its words are not files here.
    let args = if base == "ssh" { network::ssh_local_words(args) } else { args };
    let mut skip_next = false;
    for arg in args {
        if skip_next {
            skip_next = false;
            continue;
        }
        // A path computed at run time whose own name is written out: what it may be
        // (`/proc/$$/root/etc/shadow`).
        if let Arg::Dynamic { text, .. } = arg {
            let glob = crate::shell::as_glob(text);
            let named = glob.rsplit('/').next().is_some_and(|last| !last.is_empty() && !last.contains('*'));
            if named && glob.contains('/') && an.is_secret(&glob) {
                an.raise_secret(DE, format!("`{base}` touches what may be secret material (`{text}`)"));
            }
        }
        if let Some(word) = arg.as_static() {
            let option = word.split('=').next().unwrap_or(word);
            if uses.contains(&option) {
                skip_next = !word.contains('=');
                continue;
            }
        }
        for value in arg.values() {
            // A file named inside an expression's function call (`yq 'load("/etc/shadow")'`).
            for named in called_with_paths(value) {
                if an.is_secret(named) {
                    an.raise_secret(DE, format!("`{base}` reads `{named}`, named inside its expression"));
                }
            }
            let url_path = super::paths::file_url_path(value);
            let value = url_path.as_deref().unwrap_or(value);
            // `-f/etc/shadow`: a value glued to a short option.
            let value = if value.starts_with('-') && !value.starts_with("--") {
                value.find(['/', '~']).and_then(|i| value.get(i..)).unwrap_or(value)
            } else {
                value
            };
            // `k@/etc/shadow` (curl --variable).
            let value = value
                .split_once('@')
                .filter(|(k, p)| !k.is_empty() && !k.contains('/') && p.starts_with(['/', '~']))
                .map_or(value, |(_, p)| p);
            // `host:path` for the copy tools.
            let value = match (matches!(base, "scp" | "rsync" | "sftp"), value.split_once(':')) {
                (true, Some((host, path))) if !host.contains('/') => path,
                _ => value,
            };
            // `head -3`, `sort -r`: an option word is no file, wherever the command runs.
            if value.len() > 1 && value.starts_with('-') && !value.contains(['/', '~', '=']) {
                continue;
            }
            let path = value.trim_start_matches('@').trim_start_matches('<');
            // `--file=/etc/shadow`, `name=@/etc/shadow`, `if=/etc/shadow`.
            let path = path
                .rsplit_once("=@")
                .map(|(_, p)| p)
                .or_else(|| path.strip_prefix("if="))
                .or_else(|| path.strip_prefix('-').and_then(|o| o.split_once('=')).map(|(_, p)| p))
                .unwrap_or(path);
            // Where the path may point, worked out once for the checks below.
            let resolved = an.resolve(path);
            let secret = resolved.iter().any(|p| crate::secrets::is_secret(p));
            let only_by_name = secret && resolved.iter().all(|p| crate::secrets::glob_secret_only_by_name(p));
            // A glob over a directory of configuration snippets reads those snippets.
            let snippets = only_by_name && resolved.iter().all(|p| crate::secrets::is_snippet_glob(p));
            let (secret, only_by_name) = if snippets { (false, false) } else { (secret, only_by_name) };
            let raw = (RAW_READERS.contains(&base) || (base == "tar" && tar_to_stdout(args)))
                && resolved.iter().any(|p| super::paths::is_raw_storage(p));
            if secret && !only_by_name {
                an.raise_secret(DE, format!("`{base}` touches secret material `{path}`"));
            } else if raw {
                an.raise_secret(DE, format!("`{base}` reads `{path}` raw, with every file and key on it"));
            } else if only_by_name {
                an.raise(CM, format!("`{base}` reads files matching `{path}`, which could be named like secrets"));
            } else if reads && crate::secrets::is_secret_location(path) {
                an.raise_secret(DE, format!("`{base}` reads `{path}`, a place that keeps secrets"));
            } else if WHOLE_FILE_READERS.contains(&base) && super::paths::has_secret_lines(path) {
                an.raise_secret(DE, format!("`{base}` prints `{path}` whole, a password hash among its lines"));
            } else if reads && path.contains('/') && an.is_credential(path) {
                credential_read(an, base, path);
            } else if an.may_be_secret(path) {
                an.raise(CM, format!("`{base}` touches `{path}` in a directory not known before it runs"));
            }
        }
    }
}

/// Programs that print the contents of the files they are given.
const CONTENT_READERS: &[&str] = &[
    "cat",
    "tac",
    "head",
    "tail",
    "less",
    "more",
    "most",
    "nl",
    "bat",
    "batcat",
    "view",
    "strings",
    "xxd",
    "od",
    "hexdump",
    "hd",
    "base64",
    "base32",
    "basenc",
    "zcat",
    "zstdcat",
    "xzcat",
    "lzcat",
    "bzcat",
    "lz4cat",
    "zless",
    "zmore",
    "cut",
    "sort",
    "uniq",
    "rev",
    "fold",
    "column",
    "pv",
    "paste",
    "expand",
    "unexpand",
    "fmt",
    "pr",
    "diff",
    "colordiff",
    "vimdiff",
    "sdiff",
    "jq",
    "yq",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "zgrep",
    "zegrep",
    "zfgrep",
    "xmllint",
    "json_pp",
    "iconv",
    "dos2unix",
];

/// Readers whose first operand is a pattern or a filter, not a file, unless one is given by option.
const PATTERN_FIRST: &[(&str, &[&str])] = &[
    ("grep", &["-e", "-f", "--regexp", "--file"]),
    ("egrep", &["-e", "-f", "--regexp", "--file"]),
    ("fgrep", &["-e", "-f", "--regexp", "--file"]),
    ("zgrep", &["-e", "-f", "--regexp", "--file"]),
    ("zegrep", &["-e", "-f"]),
    ("zfgrep", &["-e", "-f"]),
    ("rg", &["-e", "-f", "--regexp", "--file"]),
    ("ag", &[]),
    ("ack", &[]),
    ("jq", &["-f", "--from-file"]),
    ("yq", &["--from-file"]),
];

/// A file printed is read-only only when it is known to hold no secrets (system state, logs,
/// everyday configuration): an application's configuration, a database or a key store read out
/// needs approval even when no rule knows it for a secret.
fn check_unproven_reads(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    // `du --files0-from=F`, `find -files0-from F`: the names it prints are F's contents.
    let mut words = args.iter().filter_map(Arg::as_static);
    while let Some(word) = words.next() {
        let list = match word.split_once('=') {
            Some(("--files0-from" | "-files0-from", file)) => Some(file),
            None if matches!(word, "--files0-from" | "-files0-from") => words.next(),
            _ => None,
        };
        if let Some(file) = list.filter(|f| *f != "-") {
            if unproven_read(an, base, file) {
                return;
            }
        }
    }
    if !CONTENT_READERS.contains(&base) {
        return;
    }
    // `diff -q`, `cmp`: whether files differ, not what they hold.
    if base.ends_with("diff") && args.iter().filter_map(Arg::as_static).any(|w| w == "-q" || w == "--brief") {
        return;
    }
    let pattern_options = PATTERN_FIRST.iter().find(|(p, _)| *p == base).map(|(_, o)| *o);
    // A search prints only the lines it matches: what it can disclose is what its pattern finds.
    if base.contains("grep") || matches!(base, "rg" | "ag" | "ack") {
        let inverted = args
            .iter()
            .filter_map(Arg::as_static)
            .any(|w| w == "--invert-match" || (w.starts_with('-') && !w.starts_with("--") && w.contains('v')));
        let patterns = search_patterns(args);
        if !inverted && !patterns.is_empty() && patterns.iter().all(|p| narrow_pattern(p)) {
            return;
        }
    }
    let mut pattern_pending = pattern_options.is_some_and(|opts| {
        !args.iter().filter_map(Arg::as_static).any(|w| {
            opts.iter()
                .any(|o| w == *o || w.strip_prefix(o).is_some_and(|r| r.starts_with('=') || !o.starts_with("--")))
        })
    });
    let mut after_dashes = false;
    for arg in args {
        let Some(word) = arg.as_static() else { continue };
        if !after_dashes && word == "--" {
            after_dashes = true;
            continue;
        }
        if !after_dashes && word.starts_with('-') {
            continue;
        }
        if pattern_pending {
            pattern_pending = false;
            continue;
        }
        if looks_like_a_file(word) && unproven_read(an, base, word) {
            return;
        }
    }
}

/// The patterns a search is given: by `-e`/`--regexp`, or its first operand.
fn search_patterns(args: &[Arg]) -> Vec<String> {
    let mut out = Vec::new();
    let mut first = None;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        let Some(w) = arg.as_static() else {
            // A pattern computed at run time could be anything.
            if first.is_none() && out.is_empty() {
                return vec![String::new()];
            }
            continue;
        };
        if w == "-e" || w == "--regexp" {
            out.extend(args.get(i).map(|a| a.as_static().unwrap_or_default().to_string()));
            i += 1;
        } else if let Some(p) = w.strip_prefix("--regexp=") {
            out.push(p.to_string());
        } else if w == "-f" || w == "--file" || w.starts_with("--file=") {
            // Patterns from a file: unknown.
            return vec![String::new()];
        } else if matches!(w, "-A" | "-B" | "-C" | "-m" | "--max-count" | "-d" | "-D" | "--include" | "--exclude") {
            i += 1;
        } else if !w.starts_with('-') && first.is_none() {
            first = Some(w.to_string());
        }
    }
    if out.is_empty() {
        out.extend(first);
    }
    out
}

/// A pattern that finds particular lines, not everything nor what looks like a credential.
fn narrow_pattern(pattern: &str) -> bool {
    let lower = pattern.to_lowercase();
    let literal = lower.chars().filter(|c| c.is_alphanumeric()).count();
    let hunts = ["pass", "pwd", "secret", "token", "key", "auth", "cred", "bearer", "priv", "begin", "api"]
        .iter()
        .any(|w| lower.contains(w));
    literal >= 3 && !hunts && !lower.contains(".*") && !lower.contains('|')
}

/// Judges `base` printing the file `word`; says whether it was held up.
pub(super) fn unproven_read(an: &mut Analysis<'_>, base: &str, word: &str) -> bool {
    // A relative name where the directory is not known is judged by its name alone.
    let resolved = an.resolve(word);
    let candidates = if resolved.len() == 1 { resolved } else { vec![word.to_string()] };
    if candidates.iter().all(|p| super::paths::inert_to_read(p) || !super::paths::keeps_secrets_unnamed(p)) {
        return false;
    }
    an.raise(CM, format!("`{base}` prints `{word}`, which is not known to hold no secrets"));
    true
}

/// A word that names a file to read: a path, or a name shaped like configuration or data.
fn looks_like_a_file(word: &str) -> bool {
    if word.is_empty() || word.contains('\n') || word.starts_with("//") {
        return false;
    }
    if word.contains('/') {
        return word.chars().any(|c| c.is_alphanumeric() || c == '*' || c == '?');
    }
    let lower = word.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    (lower.starts_with('.') && lower.chars().any(char::is_alphanumeric))
        || crate::paths::SECRET_KEEPING_EXTENSIONS.contains(&ext)
        // Data and backups that are files to read here, though not secret-keeping anywhere.
        || matches!(ext, "json" | "yml" | "yaml" | "toml" | "xml" | "sql" | "bak" | "dump" | "backup" | "pass")
}

/// Account tools aimed at root: deleting, locking or expiring it, or giving it no login shell,
/// locks the operator out as removing it from /etc/passwd does.
fn check_lockout(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    if !matches!(base, "userdel" | "deluser" | "usermod" | "chsh" | "passwd" | "chage") {
        return;
    }
    let a = Args::new(args);
    // Deleting an account takes its logins, and with `-r` its files, for good.
    let deletes = match base {
        "userdel" => !a.any(&["-h", "--help"]),
        "deluser" => a.operands(&["-c", "--conf"]).len() == 1 && !a.any(&["-h", "--help", "--group"]),
        _ => false,
    };
    if deletes {
        an.raise(DE, format!("`{base}` deletes an account, its logins and what it owns"));
    }
    // Operators log in as root or an admin account; any spelling of one that is locked locks them out.
    if !args.iter().any(|w| w.values().iter().any(|v| *v == "root" || lockout::is_admin(v))) {
        return;
    }
    let no_shell = a.values(&["-s", "--shell"]).iter().any(|s| {
        let s = s.shown();
        s.ends_with("nologin") || s.ends_with("/false") || s == "false"
    });
    let locks = match base {
        "userdel" | "deluser" => true,
        // A password that is not a crypt hash (`-p x`) locks password logins as `-L` does.
        "usermod" => {
            a.short('L')
                || a.long("--lock")
                || no_shell
                || a.value(&["-e", "--expiredate"]).is_some()
                || a.values(&["-p", "--password"]).iter().any(|p| !p.shown().starts_with('$'))
        }
        "chsh" => no_shell,
        "passwd" => a.short('l') || a.long("--lock"),
        _ => a.value(&["-E", "--expiredate"]).is_some(),
    };
    if locks {
        an.raise(
            DE,
            format!("`{base}` deletes, locks, expires or unshells root or an admin account, locking the operator out"),
        );
    }
}

/// A file named like a credential is read out.
pub(super) fn credential_read(an: &mut Analysis<'_>, base: &str, path: &str) {
    an.raise_secret(DE, format!("`{base}` reads `{path}`, which is named like a credential"));
}

/// A read-only finding.
pub(super) fn ro(an: &mut Analysis<'_>, what: impl Into<String>) {
    an.raise(RO, what);
}

/// A program with no rule is not known to be read-only.
pub(super) fn unknown(an: &mut Analysis<'_>, base: &str) {
    if let Some(why) = teardown::named_teardown(base) {
        an.raise(DE, why);
    }
    an.raise(CM, format!("`{base}` is not known to be read-only"));
}

/// Reading (or copying) a whole tree that holds secrets is never routine.
pub(super) fn recursive_read(an: &mut Analysis<'_>, base: &str, paths: &[&Arg]) {
    for p in paths {
        for v in p.values() {
            let resolved = an.resolve(v);
            // A secret location itself (`~/.aws`, `/etc/pve/priv`) is read out in full; a broad
            // ancestor (`/etc`, `~`) holds secrets among much else and is judged less harshly.
            if resolved.iter().any(|r| crate::secrets::is_secret_location(r)) {
                an.raise_secret(DE, format!("`{base}` reads all of {v}, a place that keeps secrets"));
            } else if resolved.iter().any(|r| holds_secrets(r)) {
                an.raise_secret(CM, format!("`{base}` reads the whole of {v}, which holds secrets"));
            }
        }
    }
}

/// Runs a script given as text (`bash -c`, `ssh host CMD`, `su -c`).
pub(crate) fn script_arg(an: &mut Analysis<'_>, who: &str, arg: Option<&Arg>) {
    match arg {
        Some(Arg::Static(s)) => an.script(s),
        Some(Arg::Dynamic { text, candidates, .. }) => {
            an.raise(DE, format!("`{who}` runs a script built at run time (`{text}`), which cannot be seen"));
            for c in candidates.clone() {
                an.script(&c);
            }
        }
        None => an.raise(CM, format!("`{who}` starts an interactive shell")),
    }
}

/// A shell reading its script from standard input: judge what is known to flow in; a script
/// that flows in unseen (`curl … | sh`, `< file`) is rated at the worst it could do. With nothing
/// piped in it is an interactive shell, which runs only what is typed into it.
pub(super) fn script_from_stdin(an: &mut Analysis<'_>, who: &str, stdin: &Stdin) {
    if stdin.unknown {
        an.raise(DE, format!("`{who}` runs a script it reads from its input, which cannot be seen"));
    } else if stdin.texts.is_empty() {
        an.raise(CM, format!("`{who}` starts a shell that reads commands from its input"));
    }
    for text in stdin.texts.clone() {
        an.script(&text);
    }
}

/// String literals in a piece of code (`'…'` and `"…"`), for finding shell commands hidden in
/// `os.system("…")` and the like.
pub(super) fn quoted_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars();
    while let Some(c) = chars.next() {
        if c == '"' || c == '\'' {
            let mut lit = String::new();
            let mut escaped = false;
            for d in chars.by_ref() {
                if escaped {
                    lit.push(d);
                    escaped = false;
                } else if d == '\\' {
                    escaped = true;
                } else if d == c {
                    break;
                } else {
                    lit.push(d);
                }
            }
            if !lit.trim().is_empty() {
                out.push(lit);
            }
        }
        if out.len() >= 32 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_named_by_path() {
        assert_eq!(identity("/usr/bin/rm"), ("rm", true));
        assert_eq!(identity("./rm"), ("rm", false));
        assert_eq!(identity("/tmp/x/cat"), ("cat", false));
    }
}
