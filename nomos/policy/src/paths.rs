//! What the classifier knows about paths: block devices, harmless sinks, "broad" places where a
//! recursive operation means losing a system, and "precious" data directories (secrets are in
//! `secrets`), and how paths are compared.
//!
//! Paths are compared after lexical normalisation (`//`, `/./`, `/../`, `$HOME`). Globs are
//! honoured on both sides: a pattern such as `/e?c/sha*` is a secret if it could match one.

use std::sync::LazyLock;

/// Directories where deleting files loses guests' or services' data.
const PRECIOUS: &[&str] = &[
    "/var/lib/vz/images",
    "/var/lib/vz/private",
    "/var/lib/vz/dump",
    "/var/lib/vz/template",
    "/rpool/data",
    "/var/lib/postgresql",
    "/var/lib/mysql",
    "/var/lib/docker/volumes",
    "/var/lib/pve-cluster",
    "/etc/pve",
    "/mnt/pve",
];

/// Block devices and raw memory: writing to them destroys data at once.
pub fn is_block_device(path: &str) -> bool {
    let p = normalise(path);
    let Some(dev) = p.strip_prefix("/dev/") else {
        return false;
    };
    const PREFIXES: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "mapper/", "disk/", "zd", "zvol/", "loop", "nbd",
        "rbd", "pve/", "sr", "ram", "mem", "kmem", "port", "fd0", "zram",
    ];
    // Tape drives (`st0`, `nst0`): an archive written there replaces the tape's contents.
    let tape =
        ["st", "nst"].iter().any(|t| dev.strip_prefix(t).is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit())));
    tape || PREFIXES.iter().any(|pre| dev.starts_with(pre) || (has_glob(dev) && globs_intersect(dev, &format!("{pre}*"))))
        // `/dev/<vg>/<lv>`: a volume group's logical volume.
        || (dev.contains('/') && !dev.starts_with("fd/") && !dev.starts_with("shm/") && !dev.starts_with("pts/"))
}

/// A disk, volume or memory device, the kernel's memory image, or a file that is a guest's disk,
/// a backup of one, swap, or a database's own files: its raw bytes hold every file, key and
/// password hash stored in it. (Tools that only look at such a file's header or size are fine.)
pub fn is_raw_storage(path: &str) -> bool {
    const IMAGES: &[&str] = &[
        "**/vzdump-*.vma",
        "**/vzdump-*.vma.*",
        "**/vzdump-*.tar",
        "**/vzdump-*.tar.*",
        "**/vzdump-*.tgz",
        "**/*.vma",
        "**/*.vma.zst",
        "**/*.vma.gz",
        "**/*.vma.lzo",
        "/var/lib/vz/images/**",
        "/mnt/pve/*/images/**",
        "**/vm-*-disk-*",
        "**/base-*-disk-*",
        "**/*.qcow2",
        "**/*.vmdk",
        "**/*.vdi",
        "**/*.vhd",
        "**/*.vhdx",
        "**/*.img.zst",
        "**/.chunks/**",
        // A container's backup by its name, Proxmox Backup Server archives and their indexes, and
        // any tar archive kept under a directory of backups: a guest's or host's files, keys among them.
        "**/ct-*.tar",
        "**/ct-*.tar.*",
        "**/*.pxar",
        "**/*.pxar.*",
        "**/*.didx",
        "**/*.fidx",
        "**/*backup*/**/*.tar",
        "**/*backup*/**/*.tar.*",
        "**/*backup*/**/*.tgz",
        "**/*backup*/**/*.tzst",
        "**/*backup*/**/*.vma*",
        "/swapfile",
        "/swap.img",
        "**/*.swap",
        "/var/lib/postgresql/**",
        "/var/lib/mysql/**",
        "/var/lib/mariadb/**",
        "/var/lib/redis/**",
        "/var/lib/mongodb/**",
        "/var/lib/etcd/**",
        "/var/lib/sss/db/**",
        "/var/lib/sss/secrets/**",
    ];
    // Where backups are kept: every file there is an archive of a guest, but for its log and notes.
    const BACKUP_DIRS: &[&str] =
        &["/var/lib/vz/dump/**", "/mnt/pve/*/dump/**", "/srv/backup/**", "/srv/backups/**", "/mnt/datastore/**"];
    let p = normalise(path);
    if is_block_device(&p) || p.starts_with("/proc/kcore") {
        return true;
    }
    let last = p.rsplit('/').next().unwrap_or("");
    if [".log", ".notes", ".txt", ".json", ".conf"].iter().any(|e| last.ends_with(e)) {
        return false;
    }
    if !has_glob(&p) {
        static INDEX: LazyLock<PatternIndex> = LazyLock::new(|| PatternIndex::new(&[IMAGES, BACKUP_DIRS]));
        return INDEX.matches(&p);
    }
    // A pattern: a sed script or a regular expression is not a path; a place is matched as a
    // place; a name found anywhere (`*.qcow2`) only by a pattern that names it (`*.zst` may be a
    // backup, `*` and `*.log` are not known to be one).
    if p.contains(['#', '(', ')', '|', '^', '$', '\\', '+', ' ', '&']) {
        return false;
    }
    let suffix = |name: &str| name.rsplit(['*', '?', ']']).next().unwrap_or("").to_string();
    let ours = suffix(last);
    IMAGES.iter().chain(BACKUP_DIRS).any(|i| {
        let located = !i.starts_with("**/");
        let theirs = suffix(i.rsplit('/').next().unwrap_or(""));
        let named = !ours.is_empty() && !theirs.is_empty() && (theirs.ends_with(&ours) || ours.ends_with(&theirs));
        (located && (matches_pattern(i, &p) || (p.starts_with('/') && globs_intersect(&p, i))))
            || (named && matches_pattern(i, &p))
    })
}

/// A guest's configuration file: a line of it may hold a cloud-init password's hash (which `qm
/// config` masks), so printing the whole file discloses it.
pub fn has_secret_lines(path: &str) -> bool {
    const GUEST_CONFIGS: &[&str] =
        &["/etc/pve/qemu-server/*.conf", "/etc/pve/nodes/*/qemu-server/*.conf", "/etc/pve/local/qemu-server/*.conf"];
    let p = normalise(path);
    if !has_glob(&p) {
        static INDEX: LazyLock<PatternIndex> = LazyLock::new(|| PatternIndex::new(&[GUEST_CONFIGS]));
        return INDEX.matches(&p);
    }
    GUEST_CONFIGS.iter().any(|g| matches_pattern(&p, g) || (has_glob(&p) && matches_pattern(g, &p)))
}

/// Where writing changes nothing that persists. Exact names only: `/dev/fd/../..` is not a sink.
pub fn is_harmless_sink(path: &str) -> bool {
    let p = path.trim();
    if p.contains("/.") || p.contains("//") {
        return false;
    }
    matches!(p, "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "-")
        || p.strip_prefix("/dev/fd/").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        || p.strip_prefix("/proc/self/fd/").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// A path whose meaning depends on symlinks the classifier cannot follow (`..` after `/dev/fd`,
/// `/proc/self`): writing there is judged as the worst it could be.
pub fn is_unresolvable(path: &str) -> bool {
    let p = path.trim();
    (p.starts_with("/dev/") || p.starts_with("/proc/") || p.starts_with("/sys/")) && p.split('/').any(|c| c == "..")
}

/// Writing here takes the machine down (magic SysRq: reboot, crash, kill all).
/// Writing here takes the machine down: magic SysRq (reboot, crash, kill all), the hardware
/// watchdog (opened and closed without the magic character, it resets the machine), the sleep
/// states.
pub fn is_power_trigger(path: &str) -> bool {
    const TRIGGERS: &[&str] = &["/proc/sysrq-trigger", "/dev/watchdog*", "/sys/power/state"];
    let p = normalise(path);
    if !has_glob(&p) {
        static INDEX: LazyLock<PatternIndex> = LazyLock::new(|| PatternIndex::new(&[TRIGGERS]));
        return INDEX.matches(&p);
    }
    TRIGGERS.iter().any(|t| matches_pattern(&p, t) || (has_glob(&p) && matches_pattern(t, &p)))
}

/// A directory that holds backups: a datastore, its chunk store, a dump directory, a backup
/// tool's repository.
pub fn holds_backups(path: &str) -> bool {
    let p = normalise(path).to_ascii_lowercase();
    p.starts_with("/var/lib/vz/dump")
        || p.split('/').any(|c| {
            matches!(
                c,
                ".chunks"
                    | "datastore"
                    | "datastores"
                    | "dump"
                    | "backup"
                    | "backups"
                    | "pbs"
                    | "borg"
                    | "restic"
                    | "vzdump"
                    | "bareos"
                    | "bacula"
            ) || c.starts_with("backup")
        })
}

/// A name pattern of backups' own files: Proxmox's indexes and archives, vzdump files.
pub fn names_backup_files(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    [".fidx", ".didx", ".blob", "vzdump-", ".vma", ".pxar", "index.json"].iter().any(|n| w.contains(n))
}

/// A sysfs control that removes, resets, unbinds or offlines a device when written
/// (`/sys/block/sda/device/delete`, `…/reset_controller`, `/sys/bus/pci/devices/…/remove`).
pub fn is_device_teardown(path: &str) -> bool {
    let p = normalise(path);
    let Some(rest) = p.strip_prefix("/sys/") else { return false };
    let last = rest.rsplit('/').next().unwrap_or("");
    matches!(last, "delete" | "remove" | "reset" | "unbind" | "eject" | "delete_device" | "remove_id")
        || last.starts_with("reset_")
        || (last == "state" && (rest.starts_with("block/") || rest.starts_with("class/")) && rest.contains("device/"))
}

/// Files every login depends on, or that decide who may connect: accounts, sudo, PAM, name
/// service switching, and the firewall configuration Proxmox applies as soon as it changes.
/// Overwriting or removing one locks the operator out.
pub fn is_access_file(path: &str) -> bool {
    const ACCESS: &[&str] = &[
        "/etc/passwd",
        "/etc/group",
        "/etc/shadow",
        "/etc/gshadow",
        "/etc/sudoers",
        "/etc/pam.d",
        "/etc/pam.d/*",
        "/etc/nsswitch.conf",
        "/etc/pve/firewall/*.fw",
        "/etc/pve/nodes/*/host.fw",
    ];
    let p = normalise(path);
    if !has_glob(&p) {
        static INDEX: LazyLock<PatternIndex> = LazyLock::new(|| PatternIndex::new(&[ACCESS]));
        return INDEX.matches(&p);
    }
    ACCESS.iter().any(|a| matches_pattern(&p, a) || (has_glob(&p) && matches_pattern(a, &p)))
}

/// Files that decide who may log in and how: any write to them, appending included, can lock the
/// operator out (`account requisite pam_deny.so`, `DenyUsers root`, a nologin file, an
/// `authorized_keys` emptied).
pub fn is_login_policy(path: &str) -> bool {
    const POLICY: &[&str] = &[
        "/etc/pam.d",
        "/etc/pam.d/*",
        "/etc/security/*",
        "/etc/security/**",
        "/etc/ssh/sshd_config",
        "/etc/ssh/sshd_config.d/*",
        "/etc/nologin",
        "/run/nologin",
        "/var/run/nologin",
        "/etc/shells",
        "/etc/login.defs",
        "/etc/pve/priv/authorized_keys",
        "/root/.ssh/authorized_keys",
        "~/.ssh/authorized_keys",
        "/etc/hosts.deny",
        // sudo refuses to run at all while any file it includes does not parse.
        "/etc/sudoers.d/*",
    ];
    let p = normalise(path);
    if !has_glob(&p) {
        static INDEX: LazyLock<PatternIndex> = LazyLock::new(|| PatternIndex::new(&[POLICY]));
        return INDEX.matches(&p);
    }
    POLICY.iter().any(|a| matches_pattern(&p, a) || (has_glob(&p) && matches_pattern(a, &p)))
}

/// Files the machine or the way in depends on: removing, emptying or replacing one (or opening
/// it to everyone) breaks booting, logging in, the network or a guest, beyond a quick undo.
pub fn is_vital(path: &str) -> bool {
    const VITAL: &[&str] = &[
        "/bin",
        "/bin/**",
        "/sbin",
        "/sbin/**",
        "/usr/bin",
        "/usr/bin/**",
        "/usr/sbin",
        "/usr/sbin/**",
        "/lib",
        "/lib/**",
        "/lib64",
        "/lib64/**",
        "/usr/lib",
        "/usr/lib/**",
        "/usr/libexec/**",
        "/boot",
        "/boot/**",
        "/etc/fstab",
        "/etc/crypttab",
        "/etc/network",
        "/etc/network/**",
        "/etc/ssh",
        "/etc/ssh/**",
        "/root",
        "~",
        "/root/.ssh",
        "/root/.ssh/**",
        "~/.ssh",
        "~/.ssh/**",
        "/etc/pve/qemu-server/*.conf",
        "/etc/pve/lxc/*.conf",
        "/etc/pve/nodes/**",
        "/etc/pve/priv/**",
        "/etc/passwd",
        "/etc/shadow",
        "/etc/group",
        "/etc/gshadow",
        "/etc/sudoers",
        "/etc/pam.d",
        "/etc/pam.d/**",
        "/etc/nsswitch.conf",
        "/etc/ld.so.conf",
        "/etc/ld.so.preload",
        "/etc/ld.so.cache",
        "/etc/systemd/system/*.target.wants/**",
        "/etc/default/grub",
        "/etc/kernel/cmdline",
        // Names, the resolver and the node's own name: a Proxmox node finds itself and its
        // cluster through them.
        "/etc/hosts",
        "/etc/hostname",
        "/etc/resolv.conf",
        "/etc/crontab",
        "/var/spool/cron/crontabs/*",
        "/etc/pve/*.cfg",
        "/etc/pve/corosync.conf",
        "/etc/corosync/*",
    ];
    let p = normalise(path);
    if !has_glob(&p) {
        static INDEX: LazyLock<PatternIndex> = LazyLock::new(|| PatternIndex::new(&[VITAL]));
        return INDEX.matches(&p);
    }
    VITAL.iter().any(|v| matches_pattern(&p, v) || (has_glob(&p) && matches_pattern(v, &p)))
}

/// Files whose overwriting loses guest disks, backups or cluster state, or unplugs hardware: an
/// edit there is not a routine configuration change.
pub fn is_irreplaceable(path: &str) -> bool {
    const IRREPLACEABLE: &[&str] = &[
        "/var/lib/vz/images/**",
        "/var/lib/vz/dump/**",
        // Backup datastores and shared storages' guest disks and dumps.
        "/mnt/datastore/**",
        "/mnt/pve/*/dump/**",
        "/mnt/pve/*/images/**",
        "/var/lib/pve-cluster/**",
        "/var/lib/ceph/**",
        "/etc/pve/storage.cfg",
        "/etc/pve/corosync.conf",
        "/etc/pve/user.cfg",
        "/etc/pve/domains.cfg",
        "/etc/corosync/**",
        "/dev/zvol/**",
        "/dev/pve/**",
        "/sys/**/remove",
        "/sys/**/delete",
        "/sys/**/unbind",
        "/sys/**/offline",
        // A disk's SCSI state set to offline fails all its I/O.
        "/sys/block/*/device/state",
        "/sys/class/scsi_device/*/device/state",
    ];
    let p = normalise(path);
    if !has_glob(&p) {
        static INDEX: LazyLock<PatternIndex> = LazyLock::new(|| PatternIndex::new(&[IRREPLACEABLE]));
        return INDEX.matches(&p);
    }
    IRREPLACEABLE.iter().any(|pattern| matches_pattern(&p, pattern))
}

/// Places where a recursive removal or permission change amounts to breaking the system: the root,
/// top-level directories, home, the current directory, and a few data directories that matter on a
/// Proxmox host.
pub fn is_broad(path: &str) -> bool {
    let p = normalise(path);
    let p = p.trim_end_matches(['*', '/']);
    if p.is_empty() || matches!(p, "." | ".." | "~") {
        return true;
    }
    if let Some(rest) = p.strip_prefix('/') {
        if !rest.contains('/') {
            return true;
        }
    }
    const IMPORTANT: &[&str] = &[
        "/var/lib",
        "/var/log",
        "/usr/local",
        "/usr/lib",
        "/usr/bin",
        "/usr/sbin",
        "/etc/ssh",
        "/etc/systemd",
        "/var/lib/vz",
        "/var/lib/lxc",
    ];
    IMPORTANT.contains(&p) || is_precious(p)
}

/// Inside a directory that holds guests' or services' data.
pub fn is_precious(path: &str) -> bool {
    let p = normalise(path);
    PRECIOUS.iter().any(|d| p == *d || p.starts_with(&format!("{d}/")))
}

/// The local path a `file:` URL names (`file:///etc/shadow`, `FILE://localhost/etc/sha%64ow`,
/// `file:/etc/shadow`), if it is one.
pub fn file_url_path(value: &str) -> Option<String> {
    let rest = value.get(5..).filter(|_| value.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("file:")))?;
    let rest = rest.strip_prefix("//localhost").or_else(|| rest.strip_prefix("//")).unwrap_or(rest);
    // Percent-decoding.
    let mut bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    // Bytes, not a `str` slice: the two after `%` may be half of a multi-byte character.
    let hex = |b: u8| (b as char).to_digit(16);
    while let Some((&b, tail)) = bytes.split_first() {
        if let (b'%', [h, l, after @ ..]) = (b, tail) {
            if let (Some(h), Some(l)) = (hex(*h), hex(*l)) {
                out.push((h * 16 + l) as u8);
                bytes = after;
                continue;
            }
        }
        out.push(b);
        bytes = tail;
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// Trees and files whose contents are known to hold no secrets: system state, logs, programs,
/// and the configuration an operator inspects every day. Reading anything else is not proven
/// inert, and does not run unasked.
const INERT_TO_READ: &[&str] = &[
    "/proc/**",
    "/sys/**",
    "/dev/fd/*",
    "/dev/stdin",
    "/dev/null",
    "/proc/self/fd/*",
    "/var/log/**",
    "/usr/**",
    "/lib/**",
    "/lib64/**",
    "/bin/**",
    "/sbin/**",
    "/boot/**",
    "/run/systemd/**",
    "/run/udev/**",
    "/run/*.pid",
    "/run/**/*.pid",
    "/var/run/*.pid",
    "/var/lib/dpkg/**",
    "/var/lib/apt/**",
    "/var/lib/dhcp/**",
    "/var/lib/lxc/*/config",
    "/var/cache/apt/**",
    "/var/spool/cron/**",
    "/etc/hosts",
    "/etc/hostname",
    "/etc/resolv.conf",
    "/etc/fstab",
    "/etc/mtab",
    "/etc/crypttab",
    "/etc/os-release",
    "/etc/debian_version",
    "/etc/issue",
    "/etc/issue.net",
    "/etc/motd",
    "/etc/timezone",
    "/etc/locale.gen",
    "/etc/default/locale",
    "/etc/default/grub",
    "/etc/default/grub.d/**",
    "/etc/default/keyboard",
    "/etc/default/zfs",
    "/etc/default/rsyslog",
    "/etc/default/cron",
    "/etc/default/ssh",
    "/etc/default/nfs-common",
    "/etc/default/nfs-kernel-server",
    "/etc/default/pve-ha-manager",
    "/etc/default/useradd",
    "/etc/default/rcS",
    "/etc/default/networking",
    "/etc/default/smartmontools",
    "/etc/default/chrony",
    "/etc/default/console-setup",
    "/etc/default/pveproxy",
    "/etc/passwd",
    "/etc/group",
    "/etc/shells",
    "/etc/services",
    "/etc/protocols",
    "/etc/networks",
    "/etc/nsswitch.conf",
    "/etc/host.conf",
    "/etc/hosts.allow",
    "/etc/hosts.deny",
    "/etc/sysctl.conf",
    "/etc/sysctl.d/**",
    "/etc/modules",
    "/etc/modules-load.d/**",
    "/etc/modprobe.d/**",
    "/etc/network/**",
    "/etc/systemd/**",
    "/etc/apt/sources.list",
    "/etc/apt/sources.list.d/**",
    "/etc/apt/preferences",
    "/etc/apt/preferences.d/**",
    "/etc/apt/apt.conf.d/**",
    "/etc/pve/**",
    "/etc/ssh/sshd_config",
    "/etc/ssh/sshd_config.d/**",
    "/etc/ssh/ssh_config",
    "/etc/ssh/ssh_config.d/**",
    "/etc/ssh/*.pub",
    "/etc/nginx/**",
    "/etc/apache2/**",
    "/etc/caddy/**",
    "/etc/cron.d/**",
    "/etc/crontab",
    "/etc/cron.daily/**",
    "/etc/cron.hourly/**",
    "/etc/cron.weekly/**",
    "/etc/cron.monthly/**",
    "/etc/logrotate.conf",
    "/etc/logrotate.d/**",
    "/etc/rsyslog.conf",
    "/etc/rsyslog.d/**",
    "/etc/security/limits.conf",
    "/etc/security/limits.d/**",
    "/etc/sudoers",
    "/etc/sudoers.d/**",
    "/etc/pam.d/**",
    "/etc/login.defs",
    "/etc/chrony/**",
    "/etc/ntp.conf",
    "/etc/ntpsec/**",
    "/etc/udev/**",
    "/etc/lvm/**",
    "/etc/zfs/**",
    "/etc/mdadm/**",
    "/etc/exports",
    "/etc/exports.d/**",
    "/etc/samba/smb.conf",
    "/etc/nfs.conf",
    "/etc/dnsmasq.conf",
    "/etc/dnsmasq.d/**",
    "/etc/unbound/unbound.conf",
    "/etc/corosync/corosync.conf",
    "/etc/ceph/ceph.conf",
    "/etc/docker/daemon.json",
    "/etc/containerd/config.toml",
    "/etc/fail2ban/**",
    "/etc/ufw/**",
    "/etc/iptables/**",
    "/etc/nftables.conf",
    "/etc/profile",
    "/etc/profile.d/**",
    "/etc/bash.bashrc",
    "/etc/inputrc",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d/**",
    "/etc/init.d/**",
    "/etc/initramfs-tools/**",
    "/etc/kernel/**",
    "/etc/mailname",
    "/etc/aliases",
    "/etc/postfix/main.cf",
    "/etc/postfix/master.cf",
    "/etc/smartd.conf",
    "/etc/sensors3.conf",
    "/etc/hdparm.conf",
    "/etc/tmpfiles.d/**",
    "/etc/adduser.conf",
    "/etc/ca-certificates.conf",
    "/etc/ssl/openssl.cnf",
    "/etc/ssl/certs/**",
    "/etc/vzdump.conf",
    "/etc/proxmox-backup/datastore.cfg",
    "/etc/proxmox-backup/user.cfg",
    "/etc/proxmox-backup/acl.cfg",
    "/etc/proxmox-backup/sync.cfg",
    "/etc/proxmox-backup/prune.cfg",
    "/etc/proxmox-backup/verification.cfg",
    "/etc/proxmox-backup/node.cfg",
    "/etc/frr/daemons",
    "/etc/lxc/default.conf",
    "/etc/subuid",
    "/etc/subgid",
    "/etc/environment.d/**",
    "/etc/machine-id",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/vim/**",
    "/etc/alternatives/**",
    "/var/run/**/*.pid",
    "/var/lib/vz/template/**",
    "/tmp/**",
    "/var/tmp/**",
    "~/.ssh/authorized_keys",
    "~/.ssh/known_hosts",
    "~/.ssh/*.pub",
    "~/.ssh/config",
    "~/.bashrc",
    "~/.profile",
    "~/.bash_profile",
    "~/.vimrc",
    "~/.inputrc",
    "**/*.pub",
    "**/*.log",
    "**/*.log.[0-9]",
    "**/*.log.[0-9].gz",
    "**/README",
    "**/README.md",
    "**/CHANGELOG*",
    "**/*.md",
];

/// Places under those trees that do keep secrets.
const NOT_INERT_TO_READ: &[&str] = &[
    "/etc/pve/priv/**",
    "/etc/pve/**/*.key",
    "/etc/pve/**/*.pw",
    "/etc/pve/**/*.shadow",
    "/etc/pve/**/*.secret",
    "/etc/nginx/**/*.key",
    "/etc/nginx/**/*htpasswd*",
    "/etc/apache2/**/*.key",
    "/etc/apache2/**/*htpasswd*",
    "/etc/caddy/**/*.key",
    "/etc/systemd/**/*.cred",
    // Drop-ins are where a service's `Environment=` passwords and tokens are set.
    "/etc/systemd/system/*.d/*.conf",
    "/run/systemd/system/*.d/*.conf",
    "/etc/fail2ban/**/*.local",
    "/proc/*/environ",
    "/proc/*/mem",
    "/proc/kcore",
];

/// Trees where services keep their configuration and state: a file there that no rule knows
/// may hold a password or a key.
const KEEPS_SECRETS: &[&str] = &[
    "/etc/**",
    "/opt/**",
    "/var/lib/**",
    "/var/www/**",
    "/usr/local/etc/**",
    "~/**",
    "/var/backups/**",
    "/var/spool/**",
    "/run/**",
    "/var/run/**",
    "/srv/*/config/**",
    "/srv/*/data/**",
    "/mnt/**/config/**",
    // Where container images keep their state and configuration (`/data`, `/config`).
    "/data/**",
    "/config/**",
];

/// Extensions of configuration, databases, key stores and credential files: such a file may hold a
/// secret wherever it lies.
pub(crate) const SECRET_KEEPING_EXTENSIONS: &[&str] = &[
    "env",
    "conf",
    "cfg",
    "ini",
    "php",
    "properties",
    "db",
    "sqlite",
    "sqlite3",
    "bolt",
    "tfstate",
    "tfvars",
    "pem",
    "key",
    "priv",
    "p12",
    "pfx",
    "jks",
    "keystore",
    "kdbx",
    "pw",
    "cnf",
    "htpasswd",
    "ovpn",
    "secret",
    "secrets",
    "creds",
    "credentials",
    "netrc",
];

/// Whether `path` may hold a secret no rule names: it lies where services keep configuration
/// and state, or is named like configuration, a database, a key store or a credential file.
pub fn keeps_secrets_unnamed(path: &str) -> bool {
    let path = normalise(path);
    let name = path.rsplit('/').next().unwrap_or_default().to_lowercase();
    if [".example", ".sample", ".dist", ".template", ".tmpl"].iter().any(|s| name.ends_with(s)) {
        return false;
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    let named = name.starts_with(".env") || SECRET_KEEPING_EXTENSIONS.contains(&ext);
    static INDEX: LazyLock<PatternIndex> = LazyLock::new(|| PatternIndex::new(&[KEEPS_SECRETS]));
    named || path.contains("..") || INDEX.matches(&path)
}

/// Whether every file `path` may name is known to hold no secrets, so that printing it is
/// inert. `path` is absolute or `~`-based; a glob is inert only if whatever it matches is.
pub fn inert_to_read(path: &str) -> bool {
    /// Public material kept beside private keys.
    const PUBLIC: &[&str] = &[
        "/etc/pve/priv/authorized_keys",
        "/etc/pve/priv/known_hosts",
        "/etc/letsencrypt/live/*/fullchain.pem",
        "/etc/letsencrypt/live/*/cert.pem",
        "/etc/letsencrypt/live/*/chain.pem",
    ];
    let path = normalise(path);
    if !has_glob(&path) && PUBLIC.iter().any(|p| matches_pattern(&path, p)) {
        return true;
    }
    static NOT_INERT: LazyLock<PatternIndex> = LazyLock::new(|| PatternIndex::new(&[NOT_INERT_TO_READ]));
    if path.contains("..") || NOT_INERT.matches(&path) {
        return false;
    }
    // A container's root filesystem holds what the host's does (`/var/lib/lxc/101/rootfs/etc/hostname`).
    for root in ["/var/lib/lxc/", "/var/lib/vz/private/"] {
        if let Some((_, inside)) = path.strip_prefix(root).and_then(|r| r.split_once("/rootfs/")) {
            return inert_to_read(&format!("/{inside}"));
        }
    }
    if !has_glob(&path) {
        static INERT: LazyLock<PatternIndex> = LazyLock::new(|| PatternIndex::new(&[INERT_TO_READ]));
        return INERT.matches(&path);
    }
    // `ssh_host_*_key.pub`: whatever it matches ends as an inert kind of file does.
    let last = path.rsplit('/').next().unwrap_or_default();
    let after_glob = last.rsplit(['*', '?', ']']).next().unwrap_or_default();
    if let Some((_, ext)) = after_glob.rsplit_once('.').filter(|(_, e)| !e.is_empty()) {
        if INERT_TO_READ.contains(&format!("**/*.{ext}").as_str()) {
            return true;
        }
    }
    // A glob: the directory it lies in must be inside an inert tree (`/etc/network/*`).
    let fixed: Vec<&str> = components(&path).into_iter().take_while(|c| !has_glob(c)).collect();
    let lead = if path.starts_with('~') { "" } else { "/" };
    let probe = format!("{lead}{}/x/x", fixed.join("/"));
    INERT_TO_READ.iter().filter(|p| p.ends_with("/**") && !p.starts_with("**")).any(|p| matches_pattern(&probe, p))
}

/// A pattern list made ready for paths without globs, built once from the list: a pattern whose
/// first component is a plain name is tried only on paths starting with that name, and a name
/// that holds anywhere (`**/*.qcow2`) only on a last component with its literal start and end.
/// Whatever it answers, `list.iter().any(|p| matches_pattern(path, p))` answers too.
pub(crate) struct PatternIndex {
    all: Vec<&'static str>,
    by_first: std::collections::HashMap<&'static str, Vec<&'static str>>,
    /// `**/NAME`: NAME's text before its first glob character and after its last, and NAME.
    names: Vec<(&'static str, &'static str, &'static str)>,
    rest: Vec<&'static str>,
}

/// Beyond this length a component is compared in full: a bound on the comparison may count it
/// as a match.
const INDEXED_NAME_MAX: usize = 4096;

impl PatternIndex {
    pub(crate) fn new(lists: &[&[&'static str]]) -> Self {
        let mut index = PatternIndex {
            all: Vec::new(),
            by_first: std::collections::HashMap::new(),
            names: Vec::new(),
            rest: Vec::new(),
        };
        for &pattern in lists.iter().flat_map(|l| l.iter()) {
            index.all.push(pattern);
            let first = pattern.split('/').find(|c| !c.is_empty());
            if let Some(name) = pattern.strip_prefix("**/").filter(|n| !n.contains('/') && !n.contains("**")) {
                let prefix = name.split(['*', '?', '[']).next().unwrap_or_default();
                let suffix = name.rsplit(['*', '?', ']']).next().filter(|s| !s.contains('[')).unwrap_or_default();
                index.names.push((prefix, suffix, name));
            } else if let Some(first) = first.filter(|c| !has_glob(c) && *c != "**") {
                index.by_first.entry(first).or_default().push(pattern);
            } else {
                index.rest.push(pattern);
            }
        }
        index
    }

    /// Whether `path` matches a pattern of the list.
    pub(crate) fn matches(&self, path: &str) -> bool {
        let mut components = path.split('/').filter(|c| !c.is_empty());
        let (Some(first), false) = (components.next(), has_glob(path)) else {
            return self.all.iter().any(|p| matches_pattern(path, p));
        };
        let last = components.next_back().unwrap_or(first);
        self.by_first.get(first).is_some_and(|list| list.iter().any(|p| plain_path_matches(path, p)))
            || self.names.iter().any(|(prefix, suffix, name)| {
                (last.len() > INDEXED_NAME_MAX || (last.starts_with(prefix) && last.ends_with(suffix)))
                    && glob_matches_literal(last, name)
            })
            || self.rest.iter().any(|p| plain_path_matches(path, p))
    }
}

pub(crate) fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Collapses `//`, resolves `.` and `..` lexically, maps `$HOME`/`/root` home forms to `~`.
pub fn normalise(path: &str) -> String {
    let path = path.trim();
    // `/proc/self/root/etc/shadow` is `/etc/shadow`.
    let owned;
    let path = match path.strip_prefix("/proc/").and_then(|r| r.split_once("/root")) {
        Some((pid, rest)) if !pid.contains('/') && (rest.is_empty() || rest.starts_with('/')) => {
            owned = if rest.is_empty() { "/".to_string() } else { rest.to_string() };
            owned.as_str()
        }
        _ => path,
    };
    let (prefix, rest) = if let Some(r) = path.strip_prefix("$HOME").or_else(|| path.strip_prefix("${HOME}")) {
        ("~", r)
    } else if let Some(r) = path.strip_prefix('~') {
        // `~` or `~user`: some home directory.
        let r = r.find('/').and_then(|i| r.get(i..)).unwrap_or("");
        ("~", r)
    } else if let Some(r) = path.strip_prefix("/root").filter(|r| r.is_empty() || r.starts_with('/')) {
        ("~", r)
    } else if let Some(r) = path.strip_prefix("/home/") {
        ("~", r.find('/').and_then(|i| r.get(i..)).unwrap_or(""))
    } else {
        ("", path)
    };
    let absolute = !prefix.is_empty() || rest.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for c in rest.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (prefix, absolute) {
        ("~", _) if joined.is_empty() => "~".into(),
        ("~", _) => format!("~/{joined}"),
        (_, true) => format!("/{joined}"),
        _ if joined.is_empty() && !rest.is_empty() => ".".into(),
        _ => joined,
    }
}

pub(crate) fn components(p: &str) -> Vec<&str> {
    p.split('/').filter(|c| !c.is_empty()).collect()
}

/// Whether a path (maybe with globs) could match a pattern (with `*`, `?`, `**`).
pub(crate) fn matches_pattern(path: &str, pattern: &str) -> bool {
    if !has_glob(path) {
        return plain_path_matches(path, pattern);
    }
    matches_pattern_walk(path, pattern)
}

/// [`matches_pattern`] for a path without globs: `**` takes any run of components and every
/// other pattern component matches one path component. Each pattern run between `**`s is fixed
/// in length, so its leftmost fit is the best one and a `**` is only ever widened: no allocation,
/// and time linear in the pattern times the path.
fn plain_path_matches(path: &str, pattern: &str) -> bool {
    let mut ps = path.split('/').filter(|c| !c.is_empty());
    let mut qs = pattern.split('/').filter(|c| !c.is_empty());
    // Where the last `**` was: the pattern after it and the path components it has not taken.
    let mut star = None;
    loop {
        let (mut pn, mut qn) = (ps.clone(), qs.clone());
        match (pn.next(), qn.next()) {
            (_, Some("**")) => {
                star = Some((qn.clone(), ps.clone()));
                qs = qn;
                continue;
            }
            (None, None) => return true,
            (Some(a), Some(b)) if glob_matches_literal(a, b) => {
                (ps, qs) = (pn, qn);
                continue;
            }
            _ => {}
        }
        // A mismatch: the last `**` takes one more component, or there is no match.
        let Some((after, taken)) = star.as_mut() else {
            return false;
        };
        if taken.next().is_none() {
            return false;
        }
        (ps, qs) = (taken.clone(), after.clone());
    }
}

/// The general walk of [`matches_pattern`], for paths that hold globs themselves.
fn matches_pattern_walk(path: &str, pattern: &str) -> bool {
    // Literal leading components decide most calls without building anything: `/usr/…` against
    // `/etc/…` differs at once.
    let (mut ps, mut qs) = (path.split('/').filter(|c| !c.is_empty()), pattern.split('/').filter(|c| !c.is_empty()));
    let plain = |c: &str| !has_glob(c) && c != "**";
    loop {
        let (mut pn, mut qn) = (ps.clone(), qs.clone());
        match (pn.next(), qn.next()) {
            (Some(a), Some(b)) if plain(a) && plain(b) => {
                if a != b {
                    return false;
                }
                (ps, qs) = (pn, qn);
            }
            (None, None) => return true,
            _ => break,
        }
    }
    let p: Vec<&str> = ps.collect();
    let q: Vec<&str> = qs.collect();
    // Patterns that hold anywhere (`**/*.key`) are matched against the path as written: a glob
    // such as `/tmp/*` is not taken to mean "maybe a key". Patterns naming a secret place are
    // matched glob against glob (`/e?c/sha*` is `/etc/shadow`).
    let literal = pattern.starts_with("**");
    // A walk over (path component, pattern component) states, each visited once: recursion here
    // was exponential in `**` and deep enough on long paths to overflow the stack.
    let width = q.len() + 1;
    let mut seen = vec![false; (p.len() + 1) * width];
    let mut todo = vec![(0usize, 0usize)];
    while let Some((i, j)) = todo.pop() {
        match seen.get_mut(i * width + j) {
            Some(slot) if !*slot => *slot = true,
            _ => continue,
        }
        match (p.get(i), q.get(j)) {
            (None, None) => return true,
            (_, Some(&"**")) => {
                todo.push((i, j + 1));
                if i < p.len() {
                    todo.push((i + 1, j));
                }
            }
            (Some(a), Some(b)) => {
                let fits = if literal { globs_intersect(&escape_glob(a), b) } else { globs_intersect(a, b) };
                if fits {
                    todo.push((i + 1, j + 1));
                }
            }
            _ => {}
        }
    }
    false
}

/// A path component with its glob characters made literal.
fn escape_glob(s: &str) -> String {
    s.chars().map(|c| if matches!(c, '*' | '?' | '[') { 'X' } else { c }).collect()
}

/// Pairs of positions beyond which two globs are not compared but presumed to meet: the answer
/// is only ever used to raise a verdict, and a word this long is no ordinary path.
const INTERSECT_STATES: usize = 1 << 22;

/// Whether two glob patterns (literal characters, `?`, `*`, `[…]`) can match a common string.
pub fn globs_intersect(a: &str, b: &str) -> bool {
    // Most comparisons are of a plain word with a pattern: matched without allocating.
    if !has_glob(a) {
        return glob_matches_literal(a, b);
    }
    if !has_glob(b) {
        return glob_matches_literal(b, a);
    }
    globs_intersect_walk(a, b)
}

/// [`globs_intersect`] of a text without globs and a pattern. Every pattern token but `*` takes
/// one character (a `[…]` class any one), so the leftmost fit after each `*` is the best one: a
/// `*` is only ever widened, and nothing is allocated.
fn glob_matches_literal(lit: &str, pat: &str) -> bool {
    if lit == pat {
        return true;
    }
    if !has_glob(pat) {
        return false;
    }
    // The same bound as the general walk, so both give the same answer on any input.
    let states = (lit.chars().count() + 1).checked_mul(pat.chars().count() + 1);
    if states.is_none_or(|n| n > INTERSECT_STATES) {
        return true;
    }
    let next = |s: &str, at: usize| s.get(at..).and_then(|t| t.chars().next());
    let (mut i, mut j) = (0usize, 0usize);
    // Where the last `*` was: the pattern after it, and the text it has taken up to.
    let mut star: Option<(usize, usize)> = None;
    loop {
        match (next(lit, i), next(pat, j)) {
            (_, Some('*')) => {
                star = Some((j + 1, i));
                j += 1;
                continue;
            }
            (None, None) => return true,
            (Some(x), Some(y)) if y == '?' || y == '[' || x == y => {
                i += x.len_utf8();
                j += if y == '[' { class_len(pat.as_bytes(), j) } else { y.len_utf8() };
                continue;
            }
            _ => {}
        }
        let Some((after, taken)) = star.as_mut() else {
            return false;
        };
        let Some(c) = next(lit, *taken) else {
            return false;
        };
        *taken += c.len_utf8();
        (i, j) = (*taken, *after);
    }
}

/// Bytes of the glob token at `k`, which is `[`: as [`glob_token`] counts characters (the
/// delimiters are all ASCII, so the two agree).
fn class_len(p: &[u8], k: usize) -> usize {
    let mut j = k + 1;
    if matches!(p.get(j), Some(b'!' | b'^')) {
        j += 1;
    }
    if p.get(j) == Some(&b']') {
        j += 1;
    }
    while let Some(&c) = p.get(j) {
        if c == b'[' && p.get(j + 1) == Some(&b':') {
            if let Some(e) = p.get(j + 2..).and_then(|t| t.windows(2).position(|w| w == b":]")) {
                j += e + 4;
                continue;
            }
        }
        if c == b']' {
            return j - k + 1;
        }
        j += 1;
    }
    1
}

/// [`globs_intersect`] of two patterns: a walk over pairs of positions.
fn globs_intersect_walk(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    if !has_glob(a) && !has_glob(b) {
        return false;
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let Some(states) = (a.len() + 1).checked_mul(width).filter(|n| *n <= INTERSECT_STATES) else {
        return true;
    };
    // Each state (i, j) is visited once, iteratively: long words must neither overflow the stack
    // nor take time beyond the product of the lengths.
    let mut seen = vec![false; states];
    let mut todo = vec![(0usize, 0usize)];
    while let Some((i, j)) = todo.pop() {
        match seen.get_mut(i * width + j) {
            Some(slot) if !*slot => *slot = true,
            _ => continue,
        }
        match (a.get(i), b.get(j)) {
            (None, None) => return true,
            (Some('*'), _) => {
                todo.push((i + 1, j));
                if j < b.len() {
                    todo.push((i, j + glob_token(&b, j)));
                }
            }
            (_, Some('*')) => {
                todo.push((i, j + 1));
                if i < a.len() {
                    todo.push((i + glob_token(&a, i), j));
                }
            }
            (Some(x), Some(y)) => {
                let wild = |c: &char| *c == '?' || *c == '[';
                if wild(x) || wild(y) || x == y {
                    todo.push((i + glob_token(&a, i), j + glob_token(&b, j)));
                }
            }
            _ => {}
        }
    }
    false
}

/// Length of the single-character glob token at k: a literal, `?`, or a `[…]` class (which may
/// hold `[:lower:]`-style names).
fn glob_token(p: &[char], k: usize) -> usize {
    if p.get(k) != Some(&'[') {
        return 1;
    }
    let mut j = k + 1;
    if matches!(p.get(j), Some('!' | '^')) {
        j += 1;
    }
    if p.get(j) == Some(&']') {
        j += 1;
    }
    while let Some(&c) = p.get(j) {
        if c == '[' && p.get(j + 1) == Some(&':') {
            if let Some(e) = p.get(j + 2..).and_then(|t| t.windows(2).position(|w| w == [':', ']'])) {
                j += e + 4;
                continue;
            }
        }
        if c == ']' {
            return j - k + 1;
        }
        j += 1;
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation() {
        assert_eq!(normalise("/etc/./shadow"), "/etc/shadow");
        assert_eq!(normalise("/root/.ssh/../.ssh/id_rsa"), "~/.ssh/id_rsa");
        assert_eq!(normalise("//etc//shadow"), "/etc/shadow");
        assert_eq!(normalise("$HOME/.ssh/id_rsa"), "~/.ssh/id_rsa");
        assert_eq!(normalise("/home/ops/.ssh/key"), "~/.ssh/key");
        assert_eq!(normalise("~ops/.ssh/key"), "~/.ssh/key");
        assert_eq!(normalise("/../../etc/shadow"), "/etc/shadow");
        assert_eq!(normalise("a/../b"), "b");
    }

    #[test]
    fn globs() {
        assert!(globs_intersect("sha*", "shadow"));
        assert!(globs_intersect("???dow", "shadow"));
        assert!(globs_intersect("ss[h]", "ssh"));
        assert!(globs_intersect("ssh_host_*", "ssh_host_*_key"));
        assert!(!globs_intersect("*.conf", "ssh_host_*_key"));
        assert!(!globs_intersect("passwd", "shadow"));
    }

    /// A small deterministic generator of texts from an alphabet.
    struct Words(u64);

    impl Words {
        fn next(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % n
        }

        fn word(&mut self, alphabet: &[&str], max: u64) -> String {
            let len = self.next(max + 1);
            (0..len).map(|_| alphabet[self.next(alphabet.len() as u64) as usize]).collect()
        }
    }

    /// The component walk with the general pairwise glob walk, as a reference.
    fn reference_matches(path: &str, pattern: &str) -> bool {
        let p = components(path);
        let q = components(pattern);
        let width = q.len() + 1;
        let mut seen = vec![false; (p.len() + 1) * width];
        let mut todo = vec![(0usize, 0usize)];
        while let Some((i, j)) = todo.pop() {
            if std::mem::replace(&mut seen[i * width + j], true) {
                continue;
            }
            match (p.get(i), q.get(j)) {
                (None, None) => return true,
                (_, Some(&"**")) => {
                    todo.push((i, j + 1));
                    if i < p.len() {
                        todo.push((i + 1, j));
                    }
                }
                (Some(a), Some(b)) if globs_intersect_walk(a, b) => todo.push((i + 1, j + 1)),
                _ => {}
            }
        }
        false
    }

    #[test]
    fn fast_matching_agrees_with_the_general_walk() {
        let mut g = Words(7);
        let text = ["a", "b", ".", "-", "]", "!", "^", ":", "é", "x"];
        let glob = ["a", "b", ".", "*", "?", "[", "]", "!", ":", "[:", ":]", "é", "[a]", "[!b]", "**"];
        for _ in 0..5_000 {
            let (lit, pat) = (g.word(&text, 6), g.word(&glob, 6));
            assert_eq!(glob_matches_literal(&lit, &pat), globs_intersect_walk(&lit, &pat), "{lit:?} {pat:?}");
            assert_eq!(globs_intersect(&pat, &lit), globs_intersect_walk(&pat, &lit), "{pat:?} {lit:?}");
        }
        let dirs = ["etc", "ssh", "a.conf", ".ssh", "~", "vm-1-disk-0", "é", "x.key", ""];
        let parts = ["etc", "ssh", "*", "**", "*.conf", ".ssh", "~", "vm-*-disk-*", "?", "x.[k]ey", "*.key", ""];
        for _ in 0..5_000 {
            let path = (0..g.next(6)).map(|_| dirs[g.next(dirs.len() as u64) as usize]).collect::<Vec<_>>();
            let pattern = (0..g.next(6)).map(|_| parts[g.next(parts.len() as u64) as usize]).collect::<Vec<_>>();
            let (path, pattern) = (format!("/{}", path.join("/")), pattern.join("/"));
            assert_eq!(matches_pattern(&path, &pattern), reference_matches(&path, &pattern), "{path} {pattern}");
        }
        // The lists themselves, against paths they name and paths near them.
        let lists = [INERT_TO_READ, NOT_INERT_TO_READ, KEEPS_SECRETS, PRECIOUS, crate::secrets::SECRET_DIRS];
        let patterns: Vec<&str> = lists.iter().flat_map(|l| l.iter().copied()).collect();
        for pattern in &patterns {
            let named = pattern.replace("**", "a/b").replace(['*', '?'], "x").replace('[', "(");
            for path in [named.as_str(), "/etc/x", "~/.ssh/id_rsa", "/var/lib/x/y.conf", "/", "x.log"] {
                assert_eq!(matches_pattern(path, pattern), reference_matches(path, pattern), "{path} {pattern}");
            }
        }
    }

    #[test]
    fn pattern_index_agrees_with_matching_each_pattern() {
        let lists: [&[&'static str]; 6] =
            [INERT_TO_READ, NOT_INERT_TO_READ, KEEPS_SECRETS, PRECIOUS, crate::secrets::SECRET_DIRS, &["**/README"]];
        let index = PatternIndex::new(&lists);
        let patterns: Vec<&str> = lists.iter().flat_map(|l| l.iter().copied()).collect();
        let mut g = Words(11);
        #[rustfmt::skip]
        let dirs = [
            "etc", "var", "lib", "log", "~", ".ssh", "pve", "priv", "nginx", "a.key", "x.log", "x.log.1", "README",
            "CHANGELOG.md", "rootfs", "proc", "1", "environ", "srv", "config", "é", "*", "?",
        ];
        for _ in 0..3_000 {
            let path = (0..g.next(7)).map(|_| dirs[g.next(dirs.len() as u64) as usize]).collect::<Vec<_>>().join("/");
            for path in [format!("/{path}"), path] {
                let each = patterns.iter().any(|p| matches_pattern(&path, p));
                assert_eq!(index.matches(&path), each, "{path}");
            }
        }
        for pattern in &patterns {
            let named = pattern.replace("**", "a/b").replace(['*', '?'], "x").replace('[', "(");
            assert_eq!(index.matches(&named), patterns.iter().any(|p| matches_pattern(&named, p)), "{named}");
        }
    }

    #[test]
    fn file_urls() {
        assert_eq!(file_url_path("file:///etc/shadow").as_deref(), Some("/etc/shadow"));
        assert_eq!(file_url_path("FILE://localhost/etc/sha%64ow").as_deref(), Some("/etc/shadow"));
        // A `%` before a multi-byte character is kept as it is.
        assert_eq!(file_url_path("file:///etc/%éx").as_deref(), Some("/etc/%éx"));
        assert_eq!(file_url_path("file:/etc/shadow").as_deref(), Some("/etc/shadow"));
        assert_eq!(file_url_path("https://x/"), None);
    }

    #[test]
    fn devices_sinks_and_broad_paths() {
        for p in [
            "/dev/sda",
            "/dev/nvme0n1p1",
            "/dev/mapper/pve-root",
            "/dev/pve/data",
            "/dev/disk/by-id/x",
            "/dev/zd16",
            "/dev/sd*",
        ] {
            assert!(is_block_device(p), "{p}");
        }
        for p in ["/dev/null", "/dev/stdout", "/dev/fd/2", "/tmp/x", "/dev/tty", "/dev/pts/0"] {
            assert!(!is_block_device(p), "{p}");
        }
        assert!(is_harmless_sink("/dev/null") && is_harmless_sink("/dev/stderr") && !is_harmless_sink("/tmp/x"));
        assert!(!is_harmless_sink("/dev/fd/../../sysrq-trigger") && !is_harmless_sink("/dev/./null"));
        assert!(is_unresolvable("/dev/fd/../../sysrq-trigger") && !is_unresolvable("/tmp/../x"));
        assert!(
            is_power_trigger("/proc/sysrq-trigger")
                && is_power_trigger("/proc/./sysrq-trigger")
                && is_power_trigger("/proc/sysrq*")
        );
        for p in
            ["/", "/*", "/etc", "/etc/", "/var/lib", "~", "~/*", ".", "/home", "/etc/pve", "/var/lib/vz/images/100"]
        {
            assert!(is_broad(p), "{p}");
        }
        for p in ["/tmp/build", "/var/tmp/x", "/srv/app/cache", "./node_modules/x", "~/build"] {
            assert!(!is_broad(p), "{p}");
        }
        assert!(is_precious("/var/lib/vz/images/100/vm-100-disk-0.qcow2"));
    }
}
