//! Taking a system apart by meaning: removing the packages that booting, logging in, the network
//! or the cluster depend on, and the scripts vendors ship to tear their software down, which say
//! what they do in their names (`k3s-killall.sh`, `rke2-uninstall.sh`).

use nomos_types::Risk::Destructive as DE;

use crate::paths::globs_intersect;
use crate::shell::{Analysis, Arg};

/// Packages without which the host does not boot, cannot be reached or leaves its cluster
/// (patterns: removing any kernel, or every one, is the same risk).
#[rustfmt::skip]
const ESSENTIAL: &[&str] = &[
    "openssh-server", "openssh-client", "openssh-sftp-server", "ssh", "systemd", "systemd-sysv", "libsystemd0",
    "init", "sysvinit-core", "udev", "libc6", "libc-bin", "bash", "dash", "coreutils", "util-linux", "mount",
    "login", "passwd", "sudo", "libpam*", "base-files", "base-passwd", "dpkg", "apt", "libapt-pkg*", "kmod",
    "e2fsprogs", "initramfs-tools", "grub*", "shim*", "linux-image*", "linux-base", "proxmox-kernel*",
    "pve-kernel*", "proxmox-ve", "pve-manager", "pve-cluster", "pve-container", "qemu-server", "pve-qemu-kvm",
    "pve-firewall", "pve-ha-manager", "libpve*", "proxmox-backup*", "corosync", "libcorosync*", "lvm2",
    "zfsutils-linux", "zfs-initramfs", "libzfs*", "ifupdown", "ifupdown2", "iproute2", "network-manager",
    "netplan.io", "systemd-resolved", "isc-dhcp-client", "ca-certificates", "openssl", "libssl*", "cryptsetup*",
    "mdadm", "ceph*", "firmware-*", "pve-firmware", "tailscale", "wireguard-tools",
];

/// Words that, in a script's or program's name, say it tears something down.
const TEARDOWN_WORDS: &[&str] = &[
    "uninstall",
    "killall",
    "teardown",
    "destroy",
    "wipe",
    "purge",
    "nuke",
    "deprovision",
    "decommission",
    "reboot",
    "poweroff",
    "halt",
    "shutdown",
    "kexec",
];

/// A package name as `apt` and `dpkg` take it, without `:arch`, `=version` or `/release`.
fn package_name(word: &str) -> &str {
    let word = word.split(['=', '/']).next().unwrap_or(word);
    word.split(':').next().unwrap_or(word)
}

/// The essential package a word names (or, as a pattern, could name).
fn essential(word: &str) -> Option<&'static str> {
    let name = package_name(word).to_ascii_lowercase();
    // apt also reads a trailing `-` on `install` as "remove this one".
    let name = name.trim_end_matches(['-', '+']);
    if name.is_empty() {
        return None;
    }
    // apt takes regular expressions too: `.*` and `^` read as the glob `*`.
    let pattern = name.replace(".*", "*").replace(['^', '$'], "");
    ESSENTIAL.iter().copied().find(|e| globs_intersect(&pattern, e))
}

/// Removing or purging packages: what the system depends on, or everything apt thinks unneeded.
pub(super) fn packages(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    let words: Vec<&str> = args.iter().filter_map(Arg::as_static).collect();
    let dry = words.iter().any(|w| {
        matches!(*w, "-s" | "--simulate" | "--dry-run" | "--just-print" | "--no-act" | "--recon")
            || (w.starts_with('-') && !w.starts_with("--") && w.contains('s') && base != "dpkg")
    });
    if dry {
        return;
    }
    let operands: Vec<&str> = words.iter().copied().filter(|w| !w.starts_with('-')).collect();
    let removing = match base {
        "apt" | "apt-get" | "aptitude" => {
            let sub = operands.first().copied().unwrap_or("");
            let removes = matches!(sub, "remove" | "purge" | "autoremove" | "autopurge")
                || (sub == "install" && operands.iter().skip(1).any(|w| w.ends_with('-')));
            if !removes {
                return;
            }
            operands.get(1..).unwrap_or(&[]).to_vec()
        }
        "dpkg" => {
            let removes = words.iter().any(|w| {
                matches!(*w, "--remove" | "--purge")
                    || (w.starts_with('-') && !w.starts_with("--") && (w.contains('r') || w.contains('P')))
            });
            if !removes {
                return;
            }
            operands
        }
        _ => return,
    };
    if let Some((word, what)) = removing.iter().find_map(|w| essential(w).map(|e| (*w, e))) {
        return an.raise(
            DE,
            format!("`{base}` removes `{word}` ({what}), which booting, logging in or the cluster depend on"),
        );
    }
    let sweeping = words.iter().any(|w| matches!(*w, "autoremove" | "autopurge" | "--auto-remove" | "--autoremove"));
    if sweeping {
        return an.raise(DE, format!("`{base} autoremove` removes every package apt judges unneeded"));
    }
    if words.iter().any(|w| w.starts_with("--allow-remove-essential") || w.starts_with("--force-remove-essential")) {
        an.raise(DE, format!("`{base}` is allowed to remove essential packages"));
    }
}

/// A program the policy does not know, whose name says it tears something down.
pub(super) fn named_teardown(base: &str) -> Option<String> {
    let lower = base.to_ascii_lowercase();
    let stem = lower.strip_suffix(".sh").unwrap_or(&lower);
    let parts: Vec<&str> = stem.split(['-', '_', '.']).filter(|p| !p.is_empty()).collect();
    let word = TEARDOWN_WORDS.iter().find(|w| parts.contains(w) || parts.iter().any(|p| p.starts_with(*w)))?;
    Some(format!("`{base}` is named for what it does: `{word}` tears software, data or the machine down"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn essential_packages_by_name_or_pattern() {
        for w in ["openssh-server", "systemd:amd64", "proxmox-ve=8.1", "linux-image-6.1.0-18-amd64", "pve-kernel*"] {
            assert!(essential(w).is_some(), "{w}");
        }
        for w in ["^openssh.*", "libc6-"] {
            assert!(essential(w).is_some(), "{w}");
        }
        for w in ["htop", "nginx", "jq", "caddy"] {
            assert!(essential(w).is_none(), "{w}");
        }
    }

    #[test]
    fn teardown_names() {
        for n in ["k3s-killall.sh", "k3s-uninstall.sh", "rke2-uninstall.sh", "nvidia-uninstall", "cluster_teardown"] {
            assert!(named_teardown(n).is_some(), "{n}");
        }
        for n in ["k3s", "install.sh", "kubectl", "apt"] {
            assert!(named_teardown(n).is_none(), "{n}");
        }
    }
}
