//! Taking the way in down: an uplink or bridge set down, deleted or pulled out of its bridge, its
//! addresses flushed, the default route removed, its traffic dropped by a queueing rule, a
//! connection or the whole of networking turned off. Each is rated as stopping `sshd` is; the
//! same on an interface a guest or a container runtime owns only changes the network.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::firewall::includes_ssh_port;
use super::Args;
use super::{ro, unknown};
use crate::shell::{Analysis, Stdin};

/// Interfaces a guest or a container runtime owns: taking one down affects that guest only.
pub(super) fn guest_interface(dev: &str) -> bool {
    const GUEST: &[&str] =
        &["tap", "veth", "fwbr", "fwpr", "fwln", "docker", "br-", "virbr", "vnet", "cali", "flannel", "cni", "lxcbr"];
    !dev.contains(['*', '?', '[']) && GUEST.iter().any(|g| dev.starts_with(g))
}

/// An interface that may carry the way in (anything not known to be a guest's).
fn uplink(dev: &str) -> bool {
    !guest_interface(dev)
}

/// What in an `ip` command takes the way in down, if anything.
pub(super) fn ip_outage(object: &str, words: &[&str]) -> Option<String> {
    let verb = words.get(1).copied().unwrap_or("");
    let is = |full: &str| !verb.is_empty() && full.starts_with(verb);
    let after_dev = words.iter().position(|w| *w == "dev").and_then(|i| words.get(i + 1)).copied();
    let device = after_dev.or_else(|| words.get(2).copied());
    let on_uplink = device.is_some_and(uplink);
    let o = |full: &str, min: usize| object.len() >= min && full.starts_with(object);
    if o("link", 1) && on_uplink {
        let dev = device.unwrap_or_default();
        if (is("set") || is("change")) && words.iter().any(|w| matches!(*w, "down" | "nomaster" | "netns")) {
            return Some(format!("`ip link set {dev}` takes the interface down or out of its bridge"));
        }
        // No ARP, or a packet size no TCP session fits in, is an outage too.
        let tiny_mtu = words.windows(2).any(|w| matches!(w, ["mtu", m] if m.parse::<u32>().is_ok_and(|m| m < 576)));
        let no_arp = words.windows(2).any(|w| matches!(w, ["arp", "off"]));
        if (is("set") || is("change")) && (tiny_mtu || no_arp) {
            return Some(format!("`ip link set {dev}` leaves the interface unable to carry this session"));
        }
        if is("delete") {
            return Some(format!("`ip link delete {dev}` removes the interface"));
        }
    }
    if o("address", 1) && is("flush") && (device.is_none() || on_uplink) {
        return Some("`ip address flush` removes the addresses this session uses".into());
    }
    if o("route", 1) {
        let default = words.iter().skip(2).any(|w| matches!(*w, "default" | "0.0.0.0/0" | "::/0" | "0/0"));
        let all = words.len() == 2
            || words.windows(2).any(|w| matches!(w, ["table", "main" | "all" | "default" | "254"]))
            || words.contains(&"all");
        let black = words.iter().any(|w| matches!(*w, "blackhole" | "unreachable" | "prohibit"));
        if (is("delete") || is("change") || is("replace") || is("flush")) && default
            || is("flush") && all && !words.contains(&"cache")
            || (is("add") || is("append") || is("prepend")) && default && black
        {
            return Some("`ip route` removes or changes the default route".into());
        }
    }
    if o("rule", 2) && is("flush") {
        return Some("`ip rule flush` removes the rule that looks up the main routing table".into());
    }
    if o("rule", 2) {
        let main = words.windows(2).any(|w| {
            matches!(
                w,
                ["lookup" | "table", "main" | "254"] | ["priority" | "pref" | "preference" | "order", "32766" | "0"]
            )
        });
        // A rule that drops lookups for all traffic, before the main table is consulted.
        let black = words.iter().any(|w| matches!(*w, "blackhole" | "unreachable" | "prohibit"));
        let narrowed = words.windows(2).any(|w| match w {
            [key, value] => {
                matches!(
                    *key,
                    "to" | "iif" | "oif" | "fwmark" | "dport" | "sport" | "ipproto" | "uidrange" | "tos" | "dsfield"
                ) || *key == "from" && !matches!(*value, "all" | "0/0" | "0.0.0.0/0" | "::/0")
            }
            _ => false,
        });
        if is("delete") && main {
            return Some("`ip rule del` removes the rule that looks up the main routing table".into());
        }
        if (is("add") || is("append") || is("prepend")) && black && !narrowed {
            return Some("`ip rule add … blackhole` drops every route lookup, this session's too".into());
        }
    }
    None
}

/// `ifconfig`: with an interface and a setting it changes it; `down` takes it down.
pub(super) fn ifconfig(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    // Its own options come before the interface; after it, `-flag` words clear flags (`-arp`).
    let words: Vec<&str> = a.all.iter().map(|o| o.shown()).collect();
    let operands = words
        .iter()
        .position(|w| !matches!(*w, "-a" | "-v" | "-s" | "--"))
        .and_then(|start| words.get(start..))
        .unwrap_or(&[]);
    // Taking the link down, turning ARP off or removing the address cuts the host off.
    let cuts = |w: &&str| matches!(*w, "down" | "-arp" | "0.0.0.0" | "0");
    match operands {
        [] | [_] => ro(an, "`ifconfig` only reports"),
        [dev, rest @ ..] if uplink(dev) && rest.iter().any(cuts) => {
            an.raise(DE, format!("`ifconfig {dev}` takes the interface down, its address away or ARP off"))
        }
        _ => an.raise(CM, "`ifconfig` changes an interface"),
    }
}

/// `ifdown`: takes interfaces down (all of them with `-a`); `dhclient -r`/`-x` gives up the
/// address.
pub(super) fn ifdown(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let valued = ["-i", "--interfaces", "-X", "--exclude", "--allow", "-o", "--option", "-e", "--state-dir"];
    let devices: Vec<&str> = a.operands(&valued).iter().map(|o| o.shown()).collect();
    let gives_up = base == "ifdown" || a.short('r') || a.short('x');
    if base == "ifdown" && a.flag('n', "--no-act") {
        return ro(an, "`ifdown --no-act` only reports");
    }
    let all = a.flag('a', "--all") || (base == "dhclient" && devices.is_empty());
    match devices.iter().find(|d| uplink(d)) {
        _ if !gives_up => an.raise(CM, format!("`{base}` changes the network")),
        Some(dev) => an.raise(DE, format!("`{base}` takes {dev} down")),
        None if all => an.raise(DE, format!("`{base}` takes every interface down")),
        None => an.raise(CM, format!("`{base}` takes a guest's interface down")),
    }
}

/// Traffic control that drops the way in: heavy loss or corruption, a rate too low to carry a
/// session, or a filter that drops packets without narrowing them to other ports or sources.
pub(super) fn tc_outage(words: &[&str]) -> bool {
    let device = words.iter().position(|w| *w == "dev").and_then(|i| words.get(i + 1));
    if device.is_some_and(|d| guest_interface(d)) {
        return false;
    }
    let percent = |w: Option<&&str>| {
        w.map(|w| w.trim_end_matches('%')).and_then(|w| w.parse::<f64>().ok()).is_some_and(|p| p >= 50.0)
    };
    let after = |key: &str| -> Vec<Option<&&str>> {
        words
            .iter()
            .enumerate()
            .filter(|(_, w)| **w == key)
            .map(|(i, _)| {
                let next = words.get(i + 1);
                if next.is_some_and(|n| *n == "random" || *n == "gemodel" || *n == "state") {
                    words.get(i + 2)
                } else {
                    next
                }
            })
            .collect()
    };
    let lossy = after("loss").into_iter().chain(after("corrupt")).any(percent);
    let starved = after("rate").into_iter().flatten().any(|r| bits_per_second(r).is_some_and(|b| b < 10_000.0));
    // A second or more of delay outlasts the cluster's token timeout and makes a session unusable.
    let stalled = after("delay").into_iter().flatten().any(|d| seconds(d).is_none_or(|s| s >= 1.0));
    let drops = words.windows(2).any(|w| matches!(w, ["action", "drop" | "shot"]))
        || words.last().is_some_and(|w| matches!(*w, "drop" | "shot"));
    let ports: Vec<&&str> =
        ["dport", "dst_port", "sport", "src_port"].iter().flat_map(|k| after(k)).flatten().collect();
    let narrowed = (!ports.is_empty() && !ports.iter().any(|p| includes_ssh_port(p)))
        || words.iter().any(|w| matches!(*w, "src_ip" | "src" | "ip_proto" | "icmp" | "udp"));
    lossy || starved || stalled || drops && !narrowed
}

/// `10s`, `1500ms`, `2sec`, `100000` (microseconds, tc's default): the time in seconds.
fn seconds(time: &str) -> Option<f64> {
    let t = time.to_ascii_lowercase();
    let split = t.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: f64 = number.parse().ok()?;
    let factor = match unit {
        "s" | "sec" | "secs" => 1.0,
        "ms" | "msec" | "msecs" => 1e-3,
        "" | "us" | "usec" | "usecs" => 1e-6,
        _ => return None,
    };
    Some(n * factor)
}

/// `1bit`, `8kbit`, `1mbps`, `100` (bytes per second): the rate in bits per second.
fn bits_per_second(rate: &str) -> Option<f64> {
    let r = rate.to_ascii_lowercase();
    let split = r.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(r.len());
    let (number, unit) = r.split_at(split);
    let n: f64 = number.parse().ok()?;
    let factor = match unit {
        "bit" => 1.0,
        "kbit" => 1e3,
        "mbit" => 1e6,
        "gbit" => 1e9,
        "tbit" => 1e12,
        "" | "bps" => 8.0,
        "kbps" => 8e3,
        "mbps" => 8e6,
        "gbps" => 8e9,
        _ => return None,
    };
    Some(n * factor)
}

/// `brctl` and `bridge` that pull an uplink out of its bridge, delete a bridge, or stop a port
/// forwarding.
pub(super) fn bridge_outage(base: &str, words: &[&str]) -> Option<String> {
    match (base, words) {
        ("brctl", ["delif", _, dev, ..]) if uplink(dev) => Some(format!("`brctl delif` pulls {dev} out of its bridge")),
        ("brctl", ["delbr", dev, ..]) if uplink(dev) => Some(format!("`brctl delbr` removes the bridge {dev}")),
        ("bridge", ["link" | "l", "set" | "s", ..]) => {
            let dev = words.windows(2).find_map(|w| match w {
                ["dev", dev] => Some(*dev),
                _ => None,
            });
            let dev = dev.unwrap_or_default();
            let state = words.windows(2).find_map(|w| match w {
                ["state", state] => Some(*state),
                _ => None,
            });
            let stops = state.is_some_and(|s| {
                matches!(s, "0" | "1" | "2" | "4" | "disabled" | "listening" | "learning" | "blocking")
            });
            (stops && uplink(dev)).then(|| format!("`bridge link set` stops {dev} forwarding"))
        }
        _ => None,
    }
}

/// `nmcli` verbs that cut the connection this session may use.
pub(super) fn nmcli_outage(words: &[&str]) -> Option<String> {
    let (object, verb) = (words.first().copied().unwrap_or(""), words.get(1).copied().unwrap_or(""));
    let o = |full: &str| !object.is_empty() && full.starts_with(object);
    let target = words.get(2).copied().unwrap_or("");
    if o("networking") && verb == "off" {
        return Some("`nmcli networking off` turns networking off".into());
    }
    if o("radio") && words.last() == Some(&"off") {
        return Some("`nmcli radio … off` turns the radios off".into());
    }
    if (o("connection") || o("device")) && verb.starts_with('d') && uplink(target) {
        return Some(format!("`nmcli {object} {verb}` takes {target} down"));
    }
    None
}

/// `rfkill`: listing reads; blocking turns radio links off, the way in on a Wi-Fi host.
pub(super) fn rfkill(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    match a.operands(&["-o", "--output"]).first().map(|o| o.shown()) {
        None | Some("list" | "event") => ro(an, "`rfkill` only reports"),
        Some("block") => an.raise(DE, "`rfkill block` turns radio links off"),
        Some("unblock" | "toggle") => an.raise(CM, "`rfkill` changes radio links"),
        Some(_) => unknown(an, base),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outage_words() {
        assert!(ip_outage("link", &["link", "set", "vmbr0", "down"]).is_some());
        assert!(ip_outage("l", &["l", "s", "dev", "eno1", "down"]).is_some());
        assert!(ip_outage("link", &["link", "set", "tap100i0", "down"]).is_none());
        assert!(ip_outage("link", &["link", "set", "vmbr0", "mtu", "9000"]).is_none());
        assert!(ip_outage("r", &["r", "d", "default"]).is_some());
        assert!(ip_outage("route", &["route", "del", "10.0.0.0/24"]).is_none());
        assert!(ip_outage("route", &["route", "flush", "cache"]).is_none());
        assert!(tc_outage(&["qdisc", "add", "dev", "vmbr0", "root", "netem", "loss", "100%"]));
        assert!(tc_outage(&["qdisc", "add", "dev", "eth0", "root", "tbf", "rate", "1bit", "burst", "1"]));
        assert!(!tc_outage(&["qdisc", "add", "dev", "eth0", "root", "netem", "delay", "100ms"]));
        assert!(!tc_outage(&["qdisc", "add", "dev", "eth0", "root", "netem", "loss", "1%"]));
        assert_eq!(bits_per_second("8kbit"), Some(8000.0));
    }
}
