//! What counts as secret material on a path: reading it out is a disclosure, rated destructive.
//!
//! Three kinds of knowledge, strongest first:
//! - locations: the system's secret files and the credential files of common services (mail
//!   relays, VPN and IPsec, Wi-Fi, backup and sync tools, vault, SMB, tailnets, cloud CLIs,
//!   container registries, databases), as patterns;
//! - aliases: the same file seen from elsewhere — another process's root or working directory
//!   (`/proc/*/root`, `/proc/*/cwd`), its open files and memory, and any root filesystem mounted
//!   or stored under a prefix (a container's rootfs, a ZFS subvolume, a mounted image, a backup),
//!   where `…/etc/shadow` is `/etc/shadow`;
//! - names: a file or directory named like a credential (`*secret*`, `*password*`, `*token*`,
//!   `*credential*`, `id_*` keys, `*.p12`, `.env` …), judged where a program reads files.

use std::sync::OnceLock;

use crate::paths::{components, has_glob, matches_pattern, normalise};

/// Secret files, as patterns: `*` and `?` match within one path component, `**` any number of
/// components, `~` any home directory.
const SECRET_FILES: &[&str] = &[
    // Accounts, old and backed-up password files.
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/security/opasswd",
    "**/shadow",
    "**/shadow-",
    "**/shadow.*",
    "**/gshadow",
    "**/gshadow-",
    "**/gshadow.*",
    "**/*.shadow",
    "/var/backups/shadow.bak",
    "/var/backups/gshadow.bak",
    "/etc/sudoers.d/*.pw",
    // SSH, TLS and GnuPG keys.
    "/etc/ssh/ssh_host_*_key",
    "**/ssh_host_*_key",
    "/etc/dropbear/**",
    "~/.ssh/**",
    "/etc/ssl/private/**",
    "/etc/**/private/**",
    "/etc/letsencrypt/archive/**",
    "/etc/letsencrypt/keys/**",
    "/etc/letsencrypt/accounts/**",
    "/etc/letsencrypt/live/*/privkey*",
    "~/.gnupg/private-keys-v1.d/**",
    "~/.gnupg/secring.gpg",
    "**/*.key",
    "**/privkey*.pem",
    "**/*-key.pem",
    "**/*_key.pem",
    "**/key.pem",
    "**/*.key.pem",
    "**/*.p12",
    "**/*.pfx",
    "**/*.jks",
    "**/*.keystore",
    "**/keystore",
    "**/*.ppk",
    "**/*.age",
    "**/*.keyring",
    "**/*.keytab",
    "/etc/krb5.keytab",
    // Proxmox VE, Proxmox Backup Server, Ceph, corosync.
    "/etc/pve/priv/**",
    "/etc/pve/**/*.key",
    "/etc/pve/**/*.pw",
    "/var/lib/pve-cluster/config.db*",
    "/etc/corosync/authkey",
    "/etc/ceph/*.keyring",
    "/var/lib/ceph/**/keyring",
    "/etc/proxmox-backup/*.key",
    "/etc/proxmox-backup/token.shadow",
    "/etc/proxmox-backup/shadow.json",
    "/etc/proxmox-backup/tape-encryption-keys.json",
    "/etc/proxmox-backup/remote.cfg",
    "/etc/proxmox-backup/tfa.json",
    "/etc/proxmox-backup/*priv*",
    "/etc/proxmox-backup/acme/**",
    "/etc/proxmox-backup/openid.cfg",
    "/var/lib/proxmox-backup/priv/**",
    "~/.config/proxmox-backup/**",
    "**/encryption-key.json",
    // ACME DNS plugins keep the DNS provider's API credentials.
    "**/acme/plugins.cfg",
    "/etc/pve/priv/acme/**",
    // Kernel keys, memory and credentials handed to services.
    "/proc/kcore",
    "/proc/keys",
    "/proc/*/environ",
    "/proc/*/mem",
    "/proc/*/task/*/environ",
    "/proc/*/task/*/mem",
    "/proc/*/map_files/**",
    "/run/credentials/**",
    "/etc/credstore/**",
    "/etc/credstore.encrypted/**",
    // Mail relays.
    "/etc/postfix/sasl_passwd*",
    "/etc/postfix/*sasl*",
    "~/.msmtprc",
    "/etc/msmtprc",
    "~/.config/msmtp/**",
    "/etc/ssmtp/ssmtp.conf",
    "/etc/exim4/passwd.client",
    "/etc/mail/authinfo*",
    "/etc/dma/auth.conf",
    "/etc/nullmailer/remotes",
    "~/.netrc",
    "**/.netrc",
    // VPN and IPsec.
    "/etc/openvpn/**",
    "**/*.ovpn",
    "/etc/wireguard/**",
    "/etc/systemd/network/*.netdev",
    "/etc/ipsec.secrets",
    "/etc/ipsec.d/private/**",
    "/etc/strongswan/**",
    "/etc/swanctl/**",
    "/etc/ppp/*-secrets",
    // Wi-Fi and network connections.
    "/etc/wpa_supplicant/**",
    "**/wpa_supplicant*.conf",
    "/etc/NetworkManager/system-connections/**",
    "**/*.nmconnection",
    "/var/lib/iwd/**",
    "**/*.psk",
    // Backup and sync tools.
    "/etc/restic/**",
    "~/.config/restic/**",
    "~/.config/borg/**",
    "~/.borg-passphrase",
    "/etc/borgmatic/**",
    "/etc/borgmatic.d/**",
    "~/.config/borgmatic/**",
    "**/rclone.conf",
    "~/.config/rclone/**",
    "~/.duply/**",
    "/etc/duply/**",
    // Secret stores, SMB, tailnets, directory services.
    "~/.vault-token",
    "~/.password-store/**",
    "~/.local/share/keyrings/**",
    "/etc/samba/smbpasswd",
    "/etc/samba/*cred*",
    "/var/lib/samba/private/**",
    "**/.smbcredentials",
    "/var/lib/tailscale/**",
    "/var/lib/zerotier-one/*.secret",
    "/etc/sssd/sssd.conf",
    // Cloud CLIs, clusters, registries, package indexes, databases.
    "~/.aws/credentials",
    "~/.aws/sso/cache/**",
    "~/.aws/cli/cache/**",
    "~/.config/gcloud/**",
    "~/.azure/**",
    "~/.kube/config",
    "**/kubeconfig",
    "/etc/kubernetes/*.conf",
    "/etc/kubernetes/pki/**",
    "/etc/rancher/k3s/k3s.yaml",
    "/var/lib/rancher/k3s/server/token",
    "~/.docker/config.json",
    "**/containers/**/auth.json",
    "~/.config/gh/hosts.yml",
    "~/.config/hcloud/**",
    "~/.config/doctl/**",
    "~/.config/sops/age/**",
    "~/.s3cfg",
    "~/.boto",
    "**/passwd-s3fs",
    "**/.passwd-s3fs",
    "~/.npmrc",
    "~/.pypirc",
    "~/.git-credentials",
    "~/.config/git/credentials",
    "~/.pgpass",
    "~/.my.cnf",
    "~/.mylogin.cnf",
    "/etc/mysql/debian.cnf",
    // Credential files of common homelab services.
    "**/acme.json",
    "**/.pgpass",
    "**/.fetchmailrc",
    "/etc/fetchmailrc",
    "**/.muttrc",
    "~/.mutt/muttrc",
    "~/.config/mutt/muttrc",
    "/etc/hostapd/**",
    "/etc/netbird/**",
    "/var/lib/netbird/**",
    "~/.config/hub",
    "/etc/ddclient.conf",
    "/etc/ddclient/ddclient.conf",
    "/etc/cloudflared/**",
    "~/.cloudflared/**",
    "/etc/letsencrypt/*.ini",
    "/etc/luks-keys/**",
    "/etc/cryptsetup-keys.d/**",
    "**/crypto_keyfile.bin",
    "**/keyfile",
    "**/*.keyfile",
    "/etc/zfs/*key*",
    "/etc/zfs/keys/**",
    "**/secrets.yaml",
    "**/.storage/auth",
    "**/.storage/auth_provider.*",
    "**/nextcloud/config/*config.php",
    "**/wp-config.php",
    "**/.env",
    "/etc/pihole/cli_pw",
    "/etc/pihole/setupVars.conf",
    "/etc/pihole/pihole.toml",
    "**/AdGuardHome.yaml",
    "**/snmpd.conf",
    "/etc/nut/upsd.users",
    "/etc/nut/upsmon.conf",
    "/etc/mosquitto/passwd",
    "/etc/mosquitto/pwfile",
    "**/krb5cc_*",
    "/etc/krb5kdc/stash",
    "/etc/krb5kdc/.k5.*",
    "/var/lib/krb5kdc/**",
    "/etc/apt/auth.conf",
    "/etc/apt/auth.conf.d/**",
    "/etc/iscsi/iscsid.conf",
    "/etc/iscsi/nodes/**",
    "/boot/grub/user.cfg",
    "/boot/grub2/user.cfg",
    "/boot/efi/EFI/*/user.cfg",
    "/etc/grub.d/01_users",
    "/etc/dovecot/users",
    "/etc/dovecot/passwd*",
    "/etc/exim4/passwd",
    "/etc/gitlab-runner/config.toml",
    "~/.gitlab-runner/config.toml",
    "/var/lib/rancher/k3s/server/cred/**",
    "/var/lib/kubelet/pki/**",
    "**/syncthing/config.xml",
    "/etc/grafana/grafana.ini",
    "/var/lib/grafana/grafana.db",
    "~/.influxdbv2/**",
    "/etc/authelia/**",
    "**/authelia/users_database.yml",
    "/etc/openldap/slapd.conf",
    "/etc/ldap/slapd.conf",
    "/etc/ldap/slapd.d/**",
    "/etc/openldap/slapd.d/**",
    "/etc/freeradius/**/clients.conf",
    "/etc/freeradius/**/users",
    "/etc/raddb/clients.conf",
    "/etc/raddb/users",
    "/etc/webmin/miniserv.pem",
    "/etc/webmin/miniserv.users",
    "**/ntfy/user.db",
    "**/vaultwarden/**/db.sqlite3*",
    "/var/lib/pve-cluster/backup/**",
    "/var/lib/docker/containers/*/config.v2.json",
    // Application configurations that hold their database passwords and signing keys.
    "/etc/gitea/app.ini",
    "**/gitea/**/app.ini",
    "~/.acme.sh/**",
    "/etc/acme.sh/**",
    "**/config/config.php",
    "**/vaultwarden/**/.env",
    // Shell and client histories: passwords typed on command lines and at prompts.
    "~/.*_history",
    "~/.*history",
    "~/.local/share/fish/fish_history",
    "~/.config/fish/fish_history",
];

/// Public files that live among secrets.
const PUBLIC_AMONG_SECRETS: &[&str] =
    &["/etc/pve/priv/authorized_keys", "/etc/pve/priv/known_hosts", "/etc/letsencrypt/cli.ini"];

/// Files under `~/.ssh` that are public.
const SSH_PUBLIC: &[&str] = &["authorized_keys", "authorized_keys2", "known_hosts", "known_hosts.old", "config"];

/// Directories whose files are secrets by where they are, not by their names: a relative name
/// read after `cd "$dir"` may sit in one of them.
pub const SECRET_DIRS: &[&str] = &[
    "/etc/ssh",
    "~/.ssh",
    "/etc/pve/priv",
    "/etc/ssl/private",
    "/etc/wireguard",
    "/etc/ceph",
    "/etc/proxmox-backup",
    "/var/lib/pve-cluster",
    "/etc/corosync",
    "/etc/letsencrypt/live/x",
    "/etc/openvpn",
    "/etc/NetworkManager/system-connections",
    "/var/lib/tailscale",
    "~/.aws",
];

/// Directories kept for credentials alone: reading one whole reads them out. (`/etc/ssh` and
/// `/etc/ceph` are left out: they are mostly configuration an operator greps routinely.)
const KEY_STORES: &[&str] = &[
    "~/.ssh",
    "~/.aws",
    "~/.gnupg",
    "~/.password-store",
    "~/.config/gcloud",
    "~/.azure",
    "~/.kube",
    "~/.docker",
    "/root/.ssh",
    "/etc/pve/priv",
    "/etc/ssl/private",
    "/etc/wireguard",
    "/etc/openvpn",
    "/etc/ipsec.d/private",
    "/etc/swanctl/private",
    "/etc/NetworkManager/system-connections",
    "/var/lib/tailscale",
    "/etc/letsencrypt/live",
    "/etc/letsencrypt/archive",
];

/// Whether `path` is a credential store itself (`~/.aws`, `/etc/pve/priv`), seen directly or
/// through another root. Files inside are judged one by one by [`is_secret`], which knows the
/// public ones (`known_hosts`).
pub fn is_secret_location(path: &str) -> bool {
    let p = normalise(path);
    let p = p.trim_end_matches('/');
    views(p).iter().any(|v| KEY_STORES.iter().any(|d| matches_pattern(v, d)))
}

/// Components at which a root filesystem seen under a prefix (a container's rootfs, a subvolume,
/// a mounted image, `/proc/PID/cwd`) can be read as the system's own.
const ROOT_COMPONENTS: &[&str] = &["etc", "root", "home", "var", "run"];

/// The patterns, each with a literal piece any path it matches must contain, and bitmaps of the
/// pieces' first and last three bytes: most words hold none of them and are passed over without
/// comparing them with every pattern.
struct Index {
    patterns: Vec<(&'static str, String)>,
    starts: Vec<u64>,
    ends: Vec<u64>,
}

const TRIGRAM_BITS: usize = 1 << 15;

fn trigram(a: u8, b: u8, c: u8) -> usize {
    (usize::from(a) * 961 + usize::from(b) * 31 + usize::from(c)) % TRIGRAM_BITS
}

/// Sets bit `t` of the table.
fn set_bit(bits: &mut [u64], t: usize) {
    if let Some(word) = bits.get_mut(t / 64) {
        *word |= 1 << (t % 64);
    }
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let patterns: Vec<(&'static str, String)> = SECRET_FILES
            .iter()
            .map(|p| {
                let hint = p
                    .split(['*', '?', '[', ']', '/', '~'])
                    .max_by_key(|piece| piece.len())
                    .unwrap_or("")
                    .to_lowercase();
                (*p, hint)
            })
            .collect();
        let mut starts = vec![0u64; TRIGRAM_BITS / 64];
        let mut ends = vec![0u64; TRIGRAM_BITS / 64];
        // Every pattern has a literal piece of three bytes or more (a test checks).
        for (_, hint) in &patterns {
            let b = hint.as_bytes();
            if let ([s0, s1, s2, ..], [.., e0, e1, e2]) = (b, b) {
                set_bit(&mut starts, trigram(*s0, *s1, *s2));
                set_bit(&mut ends, trigram(*e0, *e1, *e2));
            }
        }
        Index { patterns, starts, ends }
    })
}

/// The patterns a path (without globs) may match: those whose literal piece it contains.
fn relevant_patterns(lower: &str) -> Vec<&'static str> {
    let index = index();
    let seen = |bits: &[u64]| {
        lower.as_bytes().windows(3).any(|w| match *w {
            [a, b, c] => {
                let t = trigram(a, b, c);
                // A bit past the table (there is none) counts as set.
                bits.get(t / 64).is_none_or(|word| word & (1 << (t % 64)) != 0)
            }
            _ => false,
        })
    };
    let maybe = seen(&index.starts) && seen(&index.ends);
    if !maybe {
        return Vec::new();
    }
    index.patterns.iter().filter(|(_, hint)| lower.contains(hint.as_str())).map(|(p, _)| *p).collect()
}

/// Whether `path` (which may hold globs) names, or could name, a file holding secrets, wherever
/// the system's root is seen from.
pub fn is_secret(path: &str) -> bool {
    let globbed = has_glob(path);
    // Most words are nowhere near a secret: skip the matching for them.
    if !globbed && !path.contains(['/', '~', '.']) {
        return false;
    }
    let lower = path.to_lowercase();
    let relevant: Vec<&str> = if globbed { SECRET_FILES.to_vec() } else { relevant_patterns(&lower) };
    let alias = process_alias(path);
    if relevant.is_empty() && alias.is_none() && !lower.contains("/.ssh") {
        return false;
    }
    if alias == Some(true) {
        return true;
    }
    // Globs may be matched case-insensitively (`shopt -s nocaseglob`): compare in lower case.
    let p = if globbed { normalise(path).to_lowercase() } else { normalise(path) };
    views(&p).iter().any(|v| secret_at(v, &relevant))
}

/// Whether a pattern (`/etc/cron.d/*`) may match secret files only because any file may be named
/// like one (`*.key`, `.env`, `shadow` anywhere), rather than because it reaches a place that holds
/// them (`/etc/pve/priv/*`, `~/.ssh/*`). Such a read is not known to be inert, but it is not a
/// disclosure either.
/// Directories of configuration snippets, each file one piece of a service's settings (network
/// stanzas, sysctl and module settings, udev rules, units): a glob over one of them reads those
/// pieces, not files named like secrets.
#[rustfmt::skip]
const SNIPPET_DIRS: &[&str] = &[
    "/etc/network/interfaces.d", "/etc/apt/sources.list.d", "/etc/apt/preferences.d", "/etc/sysctl.d",
    "/etc/modprobe.d", "/etc/modules-load.d", "/etc/udev/rules.d", "/etc/systemd/system", "/etc/systemd/network",
    "/etc/logrotate.d", "/etc/security/limits.d", "/etc/tmpfiles.d", "/etc/systemd/journald.conf.d",
    "/etc/systemd/system.conf.d", "/etc/chrony/conf.d", "/etc/chrony/sources.d", "/etc/rsyslog.d", "/etc/lvm/archive",
    "/etc/lvm/backup", "/usr/lib/systemd/system", "/lib/systemd/system", "/etc/multipath/conf.d",
];

/// A glob over the files of one configuration snippet directory (`/etc/network/interfaces.d/*`).
pub fn is_snippet_glob(path: &str) -> bool {
    let p = normalise(path);
    p.rsplit_once('/').is_some_and(|(dir, last)| has_glob(last) && !has_glob(dir) && SNIPPET_DIRS.contains(&dir))
}

pub fn glob_secret_only_by_name(path: &str) -> bool {
    if !has_glob(path) {
        return false;
    }
    // Patterns that name places or files (`/etc/shadow`, `/etc/pve/priv/**`), not names found
    // anywhere (`**/*.key`, `/etc/**/private/**`).
    let located: Vec<&str> =
        SECRET_FILES.iter().copied().filter(|p| !p.trim_end_matches("/**").contains("**")).collect();
    let p = normalise(path).to_lowercase();
    process_alias(path) != Some(true) && !views(&p).iter().any(|v| secret_at(v, &located))
}

/// The path, and the same file as the system's own where the path shows a root filesystem from
/// elsewhere (`/var/lib/lxc/101/rootfs/etc/shadow` is `/etc/shadow`, `/proc/1/cwd/x` may be `/x`
/// or `~/x`).
fn views(p: &str) -> Vec<String> {
    let mut out = vec![p.to_string()];
    let parts = components(p);
    if let (true, [_, _, "cwd", rest @ ..]) = (p.starts_with("/proc/"), parts.as_slice()) {
        let rest = rest.join("/");
        out.push(format!("/{rest}"));
        out.push(format!("~/{rest}"));
        out.extend(SECRET_DIRS.iter().map(|d| format!("{d}/{rest}")));
    }
    // The path from each root-like component on.
    let mut from = parts.get(1..).unwrap_or(&[]);
    while let Some((c, after)) = from.split_first() {
        if ROOT_COMPONENTS.contains(c) {
            out.push(normalise(&format!("/{}", from.join("/"))));
        }
        from = after;
    }
    out
}

/// Files of processes that are whatever those processes hold: another process's open files (a
/// key a daemon opened), or a descriptor of this one beyond the standard three.
fn process_alias(path: &str) -> Option<bool> {
    if !path.contains("proc") {
        return None;
    }
    let p = normalise(path);
    let rest = p.strip_prefix("/proc/")?;
    let mut parts = rest.split('/');
    let (pid, what, n) = (parts.next()?, parts.next()?, parts.next());
    if what != "fd" {
        return None;
    }
    let own = matches!(pid, "self" | "thread-self");
    Some(match n {
        Some(n) if own => !matches!(n, "0" | "1" | "2"),
        _ => !own,
    })
}

fn secret_at(p: &str, patterns: &[&str]) -> bool {
    if p.is_empty() || PUBLIC_AMONG_SECRETS.contains(&p) {
        return false;
    }
    // ~/.ssh: everything but the public files (a glob in there may match a key).
    if let Some(rest) = p.strip_prefix("~/.ssh/").or_else(|| p.split_once("/.ssh/").map(|(_, rest)| rest)) {
        if !rest.contains('/') && SSH_PUBLIC.contains(&rest) && !has_glob(rest) {
            return false;
        }
        if rest.ends_with(".pub") && !has_glob(rest) {
            return false;
        }
        return !rest.is_empty();
    }
    patterns.iter().any(|pattern| matches_pattern(p, pattern))
}

/// Where other root filesystems are kept: a container's, a machine's, another process's view.
const OTHER_ROOTS: &[&str] = &[
    "/var/lib/lxc/*/rootfs",
    "**/subvol-*-disk-*",
    "/var/lib/vz/private/*",
    "/var/lib/machines/*",
    "/var/lib/docker/overlay2/*/merged",
    "/proc/*/root",
    "/proc/*/cwd",
];

/// Whether `path` is a directory that holds secret files (a recursive read of it reads them).
pub fn holds_secrets(path: &str) -> bool {
    let p = normalise(path);
    let p = p.trim_end_matches('/');
    if p.is_empty() || p == "~" || p == "." || p == ".." {
        return true;
    }
    views(p).iter().any(|v| {
        let dir_parts: Vec<&str> = components(v);
        if v == "~" || dir_parts.is_empty() {
            return true;
        }
        let within_root = OTHER_ROOTS.iter().any(|root| {
            matches_pattern(v, root) || {
                let root_parts = components(root);
                !root.starts_with("**")
                    && dir_parts.len() < root_parts.len()
                    && dir_parts.iter().zip(&root_parts).all(|(d, q)| crate::paths::globs_intersect(d, q))
            }
        });
        within_root
            || SECRET_FILES.iter().filter(|s| !s.starts_with("**")).any(|pattern| {
                let pat_parts: Vec<&str> = components(pattern);
                // An ancestor of the pattern's files: a proper prefix of its directories, or all of
                // its fixed part when `**` follows (`/etc/pve` for `/etc/pve/**/*.key`).
                let fixed = pat_parts.iter().position(|q| *q == "**");
                let fits = match fixed {
                    Some(n) => dir_parts.len() <= n,
                    None => dir_parts.len() < pat_parts.len(),
                };
                fits && dir_parts.iter().zip(&pat_parts).all(|(d, q)| crate::paths::globs_intersect(d, q))
            })
            || is_secret(v)
    })
}

/// Where a credential-like name is a package's file or the system's configuration, not a secret.
const NOT_CREDENTIALS_UNDER: &[&str] =
    &["/usr/", "/lib/", "/lib64/", "/bin/", "/sbin/", "/boot/", "/etc/pam.d/", "/proc/sys/", "/sys/"];

/// Extensions of source code, documentation and media: a file named `token.rs` is code.
const NOT_CREDENTIAL_EXTENSIONS: &[&str] = &[
    "rs", "go", "py", "pyc", "js", "mjs", "ts", "jsx", "tsx", "rb", "java", "kt", "c", "h", "cc", "cpp", "hpp", "cs",
    "php", "pl", "pm", "sh", "md", "rst", "html", "htm", "css", "scss", "svg", "png", "jpg", "gif", "ico", "pdf", "1",
    "8", "service", "timer", "socket", "mo", "po", "pub",
];

/// Whether `path` is named like a credential: a component with `secret`, `password`, `passwd`,
/// `token`, `credential`, `passphrase` or an API/private key in its name, an `id_*` key that is
/// not `.pub`, a key-store extension, or a `.env` file.
pub fn is_credential_name(path: &str) -> bool {
    // Every credential-like name holds one of these (most paths hold none).
    const PIECES: &[&str] =
        &["secret", "passw", "passphrase", "token", "credential", "key", "id_", ".env", ".pw", ".cred", ".kdbx"];
    let lower = path.to_ascii_lowercase();
    if path.contains("://") || !PIECES.iter().any(|p| lower.contains(p)) {
        return false;
    }
    let p = normalise(path).to_lowercase();
    if NOT_CREDENTIALS_UNDER.iter().any(|d| p.starts_with(d)) {
        return false;
    }
    let parts = components(&p);
    let Some(last) = parts.last() else { return false };
    let extension = last.rsplit_once('.').map(|(_, e)| e);
    if extension.is_some_and(|e| NOT_CREDENTIAL_EXTENSIONS.contains(&e)) {
        return false;
    }
    if last.starts_with("id_") && !last.ends_with(".pub") {
        return true;
    }
    if *last == ".env"
        || last.strip_prefix(".env.").is_some_and(|v| !matches!(v, "example" | "sample" | "template" | "dist"))
    {
        return true;
    }
    if extension
        .is_some_and(|e| matches!(e, "secret" | "secrets" | "token" | "pw" | "cred" | "creds" | "kdbx" | "htpasswd"))
    {
        return true;
    }
    parts.iter().any(|c| credential_component(c))
}

fn credential_component(c: &str) -> bool {
    const PUBLIC_PASSWD: &[&str] = &["passwd", "passwd-", "passwd.bak", "passwd.old", "passwd.lock"];
    if c.contains("passwd") && !PUBLIC_PASSWD.contains(&c) {
        return true;
    }
    c.split(|ch: char| !ch.is_ascii_alphanumeric()).any(|w| {
        w.starts_with("secret")
            || w.ends_with("secret")
            || w.ends_with("secrets")
            || w.contains("password")
            || w.contains("passphrase")
            || w.contains("credential")
            || w.ends_with("token")
            || w.ends_with("tokens")
            || matches!(
                w,
                "apikey" | "apikeys" | "privkey" | "privatekey" | "masterkey" | "secretkey" | "accesskey" | "authkey"
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_locations() {
        for p in [
            "~/.ssh/id_rsa",
            "/root/.ssh/id_ed25519",
            "/home/ops/.ssh/deploy_key",
            "~/.ssh/*",
            "/etc/ssh/ssh_host_ed25519_key",
            "/etc/shadow",
            "/etc/sha*",
            "/???/shadow",
            "/e?c/shadow",
            "/etc/./shadow",
            "/root/.ss[h]/id_rsa",
            "/etc/ss?/ssh_host_ed25519_key",
            "/etc/pve/priv/authkey.key",
            "/etc/pve/priv/token.cfg",
            "/etc/ssl/private/ssl-cert-snakeoil.key",
            "/etc/letsencrypt/live/home.arpa/privkey.pem",
            "/etc/pve/local/pve-ssl.key",
            "/etc/wireguard/wg0.conf",
            "/var/backups/shadow.bak",
            "/etc/corosync/authkey",
            "/var/lib/pve-cluster/config.db",
            "/etc/ceph/ceph.client.admin.keyring",
            "/etc/proxmox-backup/shadow.json",
            "/root/.config/proxmox-backup/encryption-key.json",
            "/etc/mysql/debian.cnf",
            "$HOME/.ssh/id_rsa",
            "/etc/SHADO[W]",
            "/etc/[[:lower:]]hadow",
            "/proc/self/root/etc/shadow",
            "/proc/1/root/root/.ssh/id_rsa",
            "/var/lib/ceph/osd/ceph-0/keyring",
            "/etc/proxmox-backup/token.shadow",
            "/etc/krb5.keytab",
            "/etc/security/opasswd",
            "/etc/gshadow-",
            // Aliases.
            "/proc/1/cwd/etc/shadow",
            "/proc/self/cwd/.aws/credentials",
            "/proc/812/fd/4",
            "/proc/self/fd/3",
            "/proc/1/environ",
            "/var/lib/lxc/101/rootfs/etc/shadow",
            "/rpool/data/subvol-101-disk-0/etc/shadow",
            "/rpool/data/subvol-101-disk-0/root/.ssh/id_ed25519",
            "/var/lib/vz/private/101/etc/shadow",
            "/mnt/img/etc/shadow",
            "/mnt/etc-bind/shadow",
            "/var/lib/docker/overlay2/abc/merged/etc/ssh/ssh_host_rsa_key",
            // Services.
            "/etc/postfix/sasl_passwd",
            "/etc/postfix/sasl_passwd.db",
            "/root/.msmtprc",
            "/etc/ssmtp/ssmtp.conf",
            "/etc/openvpn/client/office.conf",
            "/etc/ipsec.secrets",
            "/etc/swanctl/swanctl.conf",
            "/etc/wpa_supplicant/wpa_supplicant.conf",
            "/etc/NetworkManager/system-connections/home.nmconnection",
            "/var/lib/iwd/home.psk",
            "/etc/restic/password",
            "/root/.config/rclone/rclone.conf",
            "/root/.config/borg/keys/repo",
            "/etc/proxmox-backup/token.shadow",
            "/etc/pve/storage/pbs.pw",
            "/root/.vault-token",
            "/var/lib/samba/private/secrets.tdb",
            "/var/lib/tailscale/tailscaled.state",
            "/root/.config/gcloud/credentials.db",
            "/etc/kubernetes/admin.conf",
            "/run/containers/0/auth.json",
            "/proc/keys",
        ] {
            assert!(is_secret(p), "{p}");
        }
        for p in [
            // PBS users and token names; the secrets are in token.shadow and shadow.json.
            "/etc/proxmox-backup/user.cfg",
            "~/.ssh/id_rsa.pub",
            "~/.ssh/authorized_keys",
            "~/.ssh/known_hosts",
            "/etc/ssh/sshd_config",
            "/etc/ssh/sshd_config.d/*.conf",
            "/etc/ssh/ssh_host_ed25519_key.pub",
            "/etc/passwd",
            "/etc/hostname",
            "/var/log/syslog",
            "/etc/letsencrypt/live/home.arpa/fullchain.pem",
            "/etc/pve/lxc/101.conf",
            "/etc/pve/priv/authorized_keys",
            "/etc/pve/priv/known_hosts",
            "/proc/self/fd/1",
            "/dev/fd/63",
            "/proc/cpuinfo",
            "/var/lib/lxc/101/rootfs/etc/hostname",
            "/srv/app/etc/config.yml",
            "/tmp/*",
        ] {
            assert!(!is_secret(p), "{p}");
        }
        for d in [
            "/etc",
            "/",
            "/root",
            "~",
            "/etc/ssh",
            "/etc/pve",
            "/var/backups",
            "/etc/openvpn",
            "/var/lib/lxc/101/rootfs/etc",
            "/var/lib/lxc/101/rootfs",
            "/rpool/data/subvol-101-disk-0",
            "/proc/1/root",
        ] {
            assert!(holds_secrets(d), "{d}");
        }
        for d in ["/etc/nginx", "/var/log", "/srv/app"] {
            assert!(!holds_secrets(d), "{d}");
        }
    }

    #[test]
    fn every_pattern_can_be_found_fast() {
        for (pattern, hint) in &index().patterns {
            assert!(hint.len() >= 3, "{pattern} has no literal piece of three bytes");
        }
    }

    #[test]
    fn credential_names() {
        for p in [
            "/srv/app/secret.txt",
            "/srv/app/secrets/db",
            "/srv/app/db_password",
            "/srv/api.token",
            "/srv/credentials.json",
            "~/id_rsa",
            "/tmp/id_ed25519",
            "/srv/app/.env",
            "/srv/app/.env.production",
            "/etc/nginx/.htpasswd",
            "passwords.kdbx",
            "/run/secrets/db_root",
            "client_secret.json",
            "/etc/app/apikey",
        ] {
            assert!(is_credential_name(p), "{p}");
        }
        for p in [
            "/tmp/id_ed25519.pub",
            "/etc/passwd",
            "/etc/pam.d/common-password",
            "/usr/share/doc/libsecret-1-0/copyright",
            "/srv/app/src/token.rs",
            "/srv/app/tokenizer.json",
            "/srv/app/.env.example",
            "/etc/hostname",
            "https://example.org/api/token",
        ] {
            assert!(!is_credential_name(p), "{p}");
        }
    }
}
