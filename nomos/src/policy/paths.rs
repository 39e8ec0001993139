//! What the classifier knows about paths: secrets, block devices, harmless sinks and "broad" places
//! where a recursive operation means losing a system.

/// Files that hold secrets: reading, copying or sending them is never routine.
pub fn is_secret(path: &str) -> bool {
    let p = normalise(path);
    let p = p.as_str();
    let name = p.rsplit('/').next().unwrap_or(p);
    let has_glob = name.contains(['*', '?', '[']);

    // SSH private keys (anyone's) and host keys; a glob in those directories may match one.
    // The key directories themselves: a recursive read of them reads the keys.
    if p.trim_end_matches('/').ends_with("/.ssh")
        || p.trim_end_matches('/') == ".ssh"
        || p.trim_end_matches('/') == "/etc/ssh"
    {
        return true;
    }
    if let Some(rest) = after_dir(p, ".ssh") {
        let public = rest.ends_with(".pub")
            || matches!(rest, "authorized_keys" | "authorized_keys2" | "known_hosts" | "config" | "");
        return (rest.starts_with("id_") && !rest.ends_with(".pub")) || rest.contains(['*', '?', '[']) || {
            // Custom key names: anything that is not a known public file.
            !public && !rest.contains('/')
        };
    }
    if let Some(rest) = p.strip_prefix("/etc/ssh/") {
        return (rest.starts_with("ssh_host_") && !rest.ends_with(".pub")) || rest.contains(['*', '?', '[']);
    }
    if matches!(p, "/etc/shadow" | "/etc/shadow-" | "/etc/gshadow" | "/etc/gshadow-" | "/etc/security/opasswd") {
        return true;
    }
    if has_glob && matches!(p.rsplit_once('/').map(|(d, _)| d), Some("/etc")) && glob_could_match(name, "shadow") {
        return true;
    }
    // Proxmox cluster secrets, TLS private keys, age/sops and GnuPG keys, WireGuard configs.
    const SECRET_DIRS: &[&str] = &[
        "/etc/pve/priv",
        "/etc/ssl/private",
        "/etc/letsencrypt/keys",
        "/etc/letsencrypt/archive",
        "/etc/wireguard",
        "/root/.gnupg",
        "/var/lib/proxmox-backup/priv",
    ];
    if SECRET_DIRS.iter().any(|d| p == *d || p.starts_with(&format!("{d}/"))) {
        return true;
    }
    if p.contains("/.gnupg/private-keys") || p.ends_with("/.gnupg/secring.gpg") || p.contains("/sops/age/") {
        return true;
    }
    name.ends_with(".key")
        || name.starts_with("privkey")
        || name.ends_with("-key.pem")
        || name.ends_with("_key.pem")
        || name == "pve-root-ca.key"
        || name.ends_with(".age")
        || (has_glob && p.starts_with("/etc/letsencrypt/live/"))
}

/// Block devices and raw memory: writing to them destroys data at once.
pub fn is_block_device(path: &str) -> bool {
    let p = normalise(path);
    let Some(dev) = p.strip_prefix("/dev/") else {
        return false;
    };
    const PREFIXES: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "mapper/", "disk/", "zd", "zvol/", "loop", "nbd",
        "rbd", "pve/", "sr", "ram", "mem", "kmem", "port", "fd0",
    ];
    PREFIXES.iter().any(|pre| dev.starts_with(pre))
        // `/dev/<vg>/<lv>`: a volume group's logical volume.
        || (dev.contains('/') && !dev.starts_with("fd/") && !dev.starts_with("shm/") && !dev.starts_with("pts/"))
}

/// Where writing changes nothing that persists.
pub fn is_harmless_sink(path: &str) -> bool {
    let p = normalise(path);
    matches!(p.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/zero" | "-")
        || p.starts_with("/dev/fd/")
        || p.starts_with("/proc/self/fd/")
}

/// Writing here takes the machine down (magic SysRq: reboot, crash, kill all).
pub fn is_power_trigger(path: &str) -> bool {
    normalise(path) == "/proc/sysrq-trigger"
}

/// Places where a recursive removal or permission change amounts to breaking the system: the root,
/// top-level directories, home, the current directory, and a few data directories that matter on a
/// Proxmox host.
pub fn is_broad(path: &str) -> bool {
    let p = normalise(path);
    let p = p.trim_end_matches(['*', '/']);
    if p.is_empty() || matches!(p, "." | ".." | "~" | "./" | "$HOME" | "${HOME}") {
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
        "/etc/pve",
        "/etc/ssh",
        "/etc/systemd",
        "/var/lib/vz",
        "/var/lib/docker",
        "/var/lib/postgresql",
        "/var/lib/mysql",
        "/var/lib/lxc",
        "/var/lib/pve-cluster",
        "/rpool/data",
        "/mnt/pve",
    ];
    IMPORTANT.contains(&p)
}

/// Collapses doubled slashes and a trailing `/.`, and strips quotes left over from partial
/// evaluation. Does not resolve `..` (a path with `..` is judged as written).
fn normalise(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.trim().chars() {
        if c == '/' && out.ends_with('/') {
            continue;
        }
        out.push(c);
    }
    while out.len() > 1 && out.ends_with("/.") {
        out.truncate(out.len() - 2);
    }
    if let Some(rest) = out.strip_prefix("$HOME/").or_else(|| out.strip_prefix("${HOME}/")) {
        return format!("~/{rest}");
    }
    out
}

/// The part of `p` after a `<dir>/` component (`~/.ssh/id_rsa` → `id_rsa`).
fn after_dir<'a>(p: &'a str, dir: &str) -> Option<&'a str> {
    let needle = format!("{dir}/");
    if let Some(rest) = p.strip_prefix(&needle) {
        return Some(rest);
    }
    p.find(&format!("/{needle}")).map(|i| &p[i + needle.len() + 1..])
}

/// Whether a simple glob (only `*` and `?`) could match `name`.
fn glob_could_match(glob: &str, name: &str) -> bool {
    fn m(g: &[u8], n: &[u8]) -> bool {
        match (g.first(), n.first()) {
            (None, None) => true,
            (Some(b'*'), _) => m(&g[1..], n) || (!n.is_empty() && m(g, &n[1..])),
            (Some(b'?'), Some(_)) => m(&g[1..], &n[1..]),
            (Some(b'['), Some(_)) => true,
            (Some(a), Some(b)) if a == b => m(&g[1..], &n[1..]),
            _ => false,
        }
    }
    m(glob.as_bytes(), name.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets() {
        for p in [
            "~/.ssh/id_rsa",
            "/root/.ssh/id_ed25519",
            "/home/ops/.ssh/deploy_key",
            "~/.ssh/*",
            ".ssh/id_ecdsa",
            "/etc/ssh/ssh_host_ed25519_key",
            "/etc/shadow",
            "/etc/sha*",
            "/etc/pve/priv/authkey.key",
            "/etc/pve/priv/token.cfg",
            "/etc/ssl/private/ssl-cert-snakeoil.key",
            "/etc/letsencrypt/live/home.arpa/privkey.pem",
            "/etc/pve/local/pve-ssl.key",
            "/etc/wireguard/wg0.conf",
            "$HOME/.ssh/id_rsa",
            "//root//.ssh/id_rsa",
            "/root/.ssh/",
            "~/.ssh",
            "/etc/ssh",
        ] {
            assert!(is_secret(p), "{p}");
        }
        for p in [
            "~/.ssh/id_rsa.pub",
            "~/.ssh/authorized_keys",
            "~/.ssh/known_hosts",
            "/etc/ssh/sshd_config",
            "/etc/ssh/ssh_host_ed25519_key.pub",
            "/etc/passwd",
            "/etc/hostname",
            "/var/log/syslog",
            "/etc/letsencrypt/live/home.arpa/fullchain.pem",
            "/etc/pve/lxc/101.conf",
        ] {
            assert!(!is_secret(p), "{p}");
        }
    }

    #[test]
    fn devices_sinks_and_broad_paths() {
        for p in
            ["/dev/sda", "/dev/nvme0n1p1", "/dev/mapper/pve-root", "/dev/pve/data", "/dev/disk/by-id/x", "/dev/zd16"]
        {
            assert!(is_block_device(p), "{p}");
        }
        for p in ["/dev/null", "/dev/stdout", "/dev/fd/2", "/tmp/x", "/dev/tty", "/dev/pts/0"] {
            assert!(!is_block_device(p), "{p}");
        }
        assert!(is_harmless_sink("/dev/null") && is_harmless_sink("/dev/stderr") && !is_harmless_sink("/tmp/x"));
        assert!(is_power_trigger("/proc/sysrq-trigger"));
        for p in ["/", "/*", "/etc", "/etc/", "/var/lib", "~", "~/*", ".", "/home", "/etc/pve"] {
            assert!(is_broad(p), "{p}");
        }
        for p in ["/tmp/build", "/var/tmp/x", "/srv/app/cache", "./node_modules/x", "~/build"] {
            assert!(!is_broad(p), "{p}");
        }
    }
}
