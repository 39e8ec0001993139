//! The Proxmox VE API, through `pvesh` or over HTTP (`curl …/api2/json/…`): a call is rated as the
//! command-line action it stands for — a snapshot rollback as `qm rollback`, stopping `sshd`
//! through the services endpoint as `systemctl stop ssh`, a firewall rule dropping SSH as the
//! `iptables` rule — and files it reads out of a backup or a guest are judged as secrets.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::firewall::includes_ssh_port;
use super::links::guest_interface;
use super::systemd::cuts_access;
use super::Args;
use super::{ro, script_arg};
use crate::shell::{Analysis, Arg, Stdin};

/// A call's parameters: name and value (empty for a flag given without one).
type Params = Vec<(String, String)>;

/// `pvesh METHOD PATH [--param value …]`.
pub(super) fn pvesh(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    // pvesh's own options; the flags among them take no value.
    const OWN: &[&str] = &["output-format", "noproxy", "quiet", "human-readable", "noborder", "noheader"];
    const FLAGS: &[&str] = &["quiet", "human-readable", "noborder", "noheader", "noproxy"];
    let mut positional: Vec<String> = Vec::new();
    let mut params = Params::new();
    let mut i = 0;
    while let Some(arg) = a.all.get(i) {
        let word = arg.shown();
        i += 1;
        // PVE's option parser (Getopt::Long) takes long options after one dash as after two.
        let Some(option) = word.strip_prefix("--").or_else(|| single_dash_option(word)) else {
            positional.push(word.to_string());
            continue;
        };
        let (name, value) = match option.split_once('=') {
            Some((n, v)) => (n, v.to_string()),
            None => match a.all.get(i).map(Arg::shown) {
                Some(v) if single_dash_option(v).is_none() && !v.starts_with("--") && !FLAGS.contains(&option) => {
                    i += 1;
                    (option, v.to_string())
                }
                _ => (option, String::new()),
            },
        };
        if !OWN.contains(&name) {
            params.push((name.to_string(), value));
        }
    }
    match positional.first().map(String::as_str) {
        None | Some("usage" | "help") => ro(an, "`pvesh` without a call prints help"),
        Some(method) => api_call(an, "pvesh", method, positional.get(1).map_or("", String::as_str), &params),
    }
}

/// `proxmox-backup-debug`: `inspect` reads chunks and indexes (decoding writes out what a backup
/// holds); `api METHOD PATH` calls the backup server's API, judged as `pvesh` calls are.
pub(super) fn pbs_debug(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let (opts, positional) = super::meaning::getopt(a.all);
    match positional.first().map(String::as_str) {
        None | Some("help") => ro(an, "`proxmox-backup-debug` without a command prints help"),
        Some("inspect") if opts.iter().any(|o| o.is("decode") || o.is("keyfile")) => {
            an.raise(CM, "`proxmox-backup-debug inspect --decode` writes out what a backup holds")
        }
        Some("inspect") => ro(an, "`proxmox-backup-debug inspect` only reports"),
        Some("api") => match positional.get(1) {
            None => ro(an, "`proxmox-backup-debug api` without a call prints help"),
            Some(method) => {
                let target = positional.get(2).map_or("", String::as_str);
                let (path, query) = target.split_once('?').unwrap_or((target, ""));
                let mut params = form_params(query);
                params.extend(opts.iter().map(|o| (o.name.clone(), o.value.clone().unwrap_or_default())));
                api_call(an, "proxmox-backup-debug api", method, path, &params);
                if verb(method) != "get"
                    && params.iter().any(|(n, v)| n == "protected" && matches!(v.as_str(), "0" | "false" | "no"))
                {
                    an.raise(DE, "`proxmox-backup-debug api` lifts a backup's protection against removal");
                }
            }
        },
        Some(other) => an.raise(CM, format!("`proxmox-backup-debug {other}` writes or repairs backup data")),
    }
}

/// `-name` (not a negative number) as the option `name`.
fn single_dash_option(word: &str) -> Option<&str> {
    word.strip_prefix('-').filter(|o| o.starts_with(|c: char| c.is_ascii_alphabetic()))
}

/// The API behind an HTTP URL, if it is one: `https://pve:8006/api2/json/nodes/…?k=v`.
pub(super) fn api_url(url: &str) -> Option<(String, Params)> {
    let at = url.find("/api2/json/").or_else(|| url.find("/api2/extjs/"))?;
    let rest = url.get(at..)?;
    let rest = rest.trim_start_matches("/api2/json").trim_start_matches("/api2/extjs");
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    Some((path.to_string(), form_params(query)))
}

/// `a=1&b=x` (or one `a=1` per option) as parameters.
pub(super) fn form_params(text: &str) -> Params {
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (k.to_string(), v.replace("%2F", "/").replace("%2f", "/").replace("%3D", "=").replace("%3d", "="))
        })
        .collect()
}

/// One API call. `method` is pvesh's word (`get`, `create`, `set`, `delete`) or an HTTP method.
pub(super) fn api_call(an: &mut Analysis<'_>, who: &str, method: &str, path: &str, params: &Params) {
    let method = verb(method);
    file_reads(an, who, path, params);
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match method {
        "get" if secret_read(&segments, params) => {
            return an
                .raise_secret(DE, format!("`{who}` GET returns credentials (DNS API tokens, a guest's password)"));
        }
        "get" => return ro(an, format!("`{who}` GET only reads the API")),
        "delete" => return an.raise(DE, format!("`{who}` DELETE removes cluster objects (guests, storage, users)")),
        _ => {}
    }
    an.raise(CM, format!("`{who}` changes cluster configuration"));
    // A guest agent runs the command it is given, as `qm guest exec` does.
    if segments.ends_with(&["agent", "exec"]) {
        let command = params.iter().filter(|(n, _)| n == "command").map(|(_, v)| v.as_str()).collect::<Vec<_>>();
        script_arg(an, &format!("`{who}` agent exec"), Some(&Arg::Static(command.join(" "))));
    }
    if segments.ends_with(&["execute"]) {
        for (m, p, args) in batch_calls(param(params, "commands").unwrap_or("")) {
            api_call(an, who, &m, &p, &args);
        }
    }
    if let Some(reason) = outage(&segments, params) {
        an.raise(DE, format!("`{who}` {reason}"));
    }
}

/// pvesh's verb or an HTTP method as one of `get`, `create`, `set`, `delete`: pvesh takes a
/// unique abbreviation of its verbs (`del`, `cr`), and `rm`/`remove` are read as deleting.
fn verb(method: &str) -> &'static str {
    let m = method.to_ascii_lowercase();
    let abbreviates = |full: &str| m.len() >= 2 && full.starts_with(m.as_str());
    match m.as_str() {
        "get" | "ls" | "head" => "get",
        "post" | "create" => "create",
        "put" | "patch" | "set" => "set",
        "rm" | "remove" | "del" | "delete" => "delete",
        _ if abbreviates("delete") || abbreviates("remove") => "delete",
        _ if abbreviates("create") => "create",
        _ if abbreviates("get") => "get",
        _ if abbreviates("set") => "set",
        _ => "other",
    }
}

/// Reads that return credentials: an ACME DNS plugin's data (API tokens), a guest's cloud-init
/// user data (its password, which the config masks).
fn secret_read(s: &[&str], params: &Params) -> bool {
    match s {
        ["cluster", "acme", "plugins"] | ["cluster", "acme", "plugins", _] => true,
        ["nodes", _, "qemu", _, "cloudinit", "dump"] => param(params, "type") == Some("user"),
        _ => false,
    }
}

/// A parameter's value.
fn param<'p>(params: &'p Params, name: &str) -> Option<&'p str> {
    params.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// What an API write stands for when it destroys data or cuts access.
fn outage(s: &[&str], params: &Params) -> Option<String> {
    let param = |k: &str| param(params, k);
    let truthy = |k: &str| param(k).is_some_and(|v| !matches!(v, "0" | "false" | "no" | "off"));
    let drops = |k: &str| param(k).is_some_and(|v| matches!(v.to_ascii_uppercase().as_str(), "DROP" | "REJECT"));
    match s {
        [.., "qemu" | "lxc", _, "snapshot", _, "rollback"] => {
            Some("rolls a guest back to a snapshot, losing what changed since".into())
        }
        ["nodes", _, "qemu", _, "unlink"] => Some("deletes a guest's disks".into()),
        ["nodes", _, "qemu", _, "move_disk"] | ["nodes", _, "lxc", _, "move_volume"] if truthy("delete") => {
            Some("deletes the disk it moved from".into())
        }
        ["nodes", _, "qemu", _, "config"] if param("delete").is_some() && truthy("force") => {
            Some("removes a disk for good".into())
        }
        // Deleting an unused volume's, a disk's or a mount point's entry frees the volume.
        ["nodes", _, "qemu" | "lxc", _, "config"]
            if super::meaning::config_delete_destroys(
                &params
                    .iter()
                    .map(|(n, v)| super::meaning::Opt { name: n.to_ascii_lowercase(), value: Some(v.clone()) })
                    .collect::<Vec<_>>(),
            )
            .is_some() =>
        {
            Some("deletes a disk's or unused volume's entry, freeing the volume".into())
        }
        ["nodes", _, "stopall"] => Some("stops every guest on the node".into()),
        ["nodes", _, "vzdump"] if param("prune-backups").is_some() || truthy("remove") => {
            Some("prunes older backups as it backs up".into())
        }
        ["nodes", _, "qemu" | "lxc"] if truthy("force") && (param("archive").is_some() || truthy("restore")) => {
            Some("restores a backup over an existing guest".into())
        }
        ["nodes", _, "status"] if param("command").is_some_and(|c| matches!(c, "reboot" | "shutdown" | "poweroff")) => {
            Some("takes a node down".into())
        }
        ["nodes", _, "disks", "zfs" | "lvm" | "lvmthin" | "directory" | "initgpt" | "wipedisk"] => {
            Some("wipes or initialises a disk".into())
        }
        ["nodes", _, "ceph", "osd"] => Some("makes a disk a Ceph OSD, wiping it".into()),
        ["nodes", _, "services", service, "stop"] if cuts_access("stop", service) => {
            Some(format!("stops {service}, which cuts off access or the cluster"))
        }
        [.., "firewall", "options"] if truthy("enable") || drops("policy_in") || drops("policy_out") => {
            Some("turns on a firewall whose policy or rules can cut SSH".into())
        }
        [.., "firewall", "rules"]
        | [.., "firewall", "rules", _]
        | [.., "firewall", "groups", _]
        | [.., "firewall", "groups", _, _]
            if drops("action")
                && param("source").is_none()
                && param("dport").is_none_or(includes_ssh_port)
                && param("macro").is_none_or(|m| m.eq_ignore_ascii_case("ssh"))
                && param("proto").is_none_or(|p| p == "tcp")
                && param("iface").is_none_or(|i| !guest_interface(i) && i != "lo") =>
        {
            Some("adds a firewall rule that drops SSH".into())
        }
        _ => more_outages(s, params),
    }
}

/// More API writes that destroy or take down what the command-line tools would: a guest stopped
/// or its disk detached, storage switched off, Ceph stopped or left with one copy, the node's
/// network rewritten, the management ports dropped.
fn more_outages(s: &[&str], params: &Params) -> Option<String> {
    let param = |k: &str| param(params, k).or_else(|| param(params, &k.replace('_', "-")));
    let truthy = |k: &str| param(k).is_some_and(|v| !matches!(v, "0" | "false" | "no" | "off"));
    let opts: Vec<super::meaning::Opt> = params
        .iter()
        .map(|(n, v)| super::meaning::Opt { name: n.to_ascii_lowercase(), value: Some(v.clone()) })
        .collect();
    let guest = |k: &str| matches!(k, "qemu" | "lxc");
    match s {
        [.., "rollback"] => Some("rolls a guest back to a snapshot, losing what changed since".into()),
        ["nodes", _, k, _, "status", _] if guest(k) && truthy("skiplock") => {
            Some("stops a guest ignoring the lock of a backup or migration in progress".into())
        }
        ["nodes", _, "suspendall" | "migrateall"] => Some("suspends or moves every guest on the node".into()),
        // A guest stopped, reset, shut down or suspended: what it serves stops.
        ["nodes", _, k, _, "status", "stop" | "reset" | "shutdown" | "suspend"] if guest(k) => {
            Some("takes a guest down: what it serves stops, a hard stop loses unsaved data".into())
        }
        // An account switched off or expired, access rights taken away: locked out.
        ["access", "users", _]
            if abbreviated(params, "enable").is_some_and(off)
                || abbreviated(params, "expire").is_some_and(|v| v.trim() != "0") =>
        {
            Some("disables or expires an account, locking it out".into())
        }
        ["access", "acl"] if params.iter().any(|(n, v)| n.to_ascii_lowercase().starts_with("del") && !off(v)) => {
            Some("takes access rights away, which can lock an account out".into())
        }
        ["access", "acl"] if param("roles").is_some_and(|r| r.eq_ignore_ascii_case("NoAccess")) => {
            Some("gives an account no access, locking it out".into())
        }
        ["access", "roles", _] if param("privs").is_some() && !truthy("append") => {
            Some("replaces a role's privileges, taking away what it granted".into())
        }
        ["access", "password"] if param("userid").is_some_and(|u| u == "root@pam") => {
            Some("changes root@pam's password, which logins depend on".into())
        }
        // Ceph told to stop all reads and writes, or to keep OSDs from coming up or going down.
        [.., "ceph", "flags", flag] if ceph_outage_flag(flag) && param("value").is_none_or(|v| !off(v)) => {
            Some(format!("sets Ceph's `{flag}` flag, which stops the guests' disks"))
        }
        [.., "ceph", "flags"] if params.iter().any(|(n, v)| ceph_outage_flag(n) && !off(v)) => {
            Some("sets a Ceph flag that stops the guests' disks".into())
        }
        ["nodes", _, k, _, "template"] if guest(k) => {
            Some("turns a guest into a template, which cannot be turned back".into())
        }
        ["nodes", _, k, _, "config"] if guest(k) => super::pve_cli::guest_config(&opts),
        ["nodes", _, k, _, "agent", "fsfreeze-freeze" | "suspend-disk" | "suspend-ram" | "suspend-hybrid"]
            if guest(k) =>
        {
            Some("freezes or suspends the guest from inside".into())
        }
        ["nodes", _, k, _, "sendkey"] if guest(k) && param("key").is_some_and(super::pve_cli::key_reboots) => {
            Some("sends the guest the key press that reboots or crashes it".into())
        }
        ["nodes", _, k, _, "monitor"] if guest(k) => param("command").and_then(super::pve_cli::hmp_destroys),
        ["storage", _] | ["nodes", _, "storage", _] => super::pve_cli::storage_change(&opts),
        [.., "prunebackups" | "prune" | "prune-datastore" | "gc"] => Some("removes older backups or their data".into()),
        ["cluster", "backup", ..] if param("prune-backups").is_some() || truthy("remove") => {
            Some("prunes older backups as it backs up".into())
        }
        ["cluster", "ha", "resources", ..]
            if param("state").is_some_and(|v| matches!(v, "stopped" | "disabled" | "ignored")) =>
        {
            Some("stops an HA-managed guest, or leaves it unguarded".into())
        }
        ["cluster", "options"]
            if params.iter().any(|(n, _)| {
                matches!(n.as_str(), "ha" | "fencing" | "crs" | "max_workers" | "max-workers")
                    || n.starts_with("migration")
            }) =>
        {
            Some("changes how the cluster fences, moves or stops its guests".into())
        }
        ["nodes", _, "ceph", "osd", _, "out"] => Some("takes an OSD out, moving its data away".into()),
        ["nodes", _, "ceph", "stop" | "restart"] => Some("stops Ceph services, which hold the guests' disks".into()),
        ["nodes", _, "ceph", ..]
            if ["size", "min_size"]
                .iter()
                .any(|k| param(k).and_then(|v| v.trim().parse::<i64>().ok()).is_some_and(|v| v <= 1)) =>
        {
            Some("leaves a Ceph pool with one copy or none: one failed disk loses the data".into())
        }
        ["nodes", _, "services", service, "restart" | "reload"] if cuts_access("stop", service) => {
            Some(format!("restarts {service}, which the way in or the cluster depends on"))
        }
        ["nodes", _, "network"] | ["nodes", _, "network", _] => {
            Some("changes or applies the node's network, which can cut it off".into())
        }
        ["nodes", _, "hosts" | "dns"] => {
            Some("rewrites the node's name resolution, which the cluster depends on".into())
        }
        [.., "firewall", "rules"] | [.., "firewall", "rules", _] | [.., "firewall", "groups", _]
            if param("action").is_some_and(|a| {
                let a = a.to_ascii_uppercase();
                a.contains("DROP") || a.contains("REJECT")
            }) && param("type").is_none_or(|t| t == "in")
                && param("source").is_none_or(|v| v.starts_with('!') || matches!(v, "0.0.0.0/0" | "::/0" | "any"))
                && param("dport").is_none_or(|p| includes_ssh_port(p) || management_port(p))
                && param("macro").is_none_or(|m| m.eq_ignore_ascii_case("ssh")) =>
        {
            Some("adds a firewall rule that drops the way in (SSH or the web interface)".into())
        }
        _ => None,
    }
}

/// A parameter's value by its name or an abbreviation of it (Getopt::Long takes `--ena` for
/// `--enable`).
fn abbreviated<'p>(params: &'p Params, full: &str) -> Option<&'p str> {
    params
        .iter()
        .find(|(n, _)| {
            let n = n.to_ascii_lowercase();
            n.len() >= 2 && full.starts_with(n.as_str())
        })
        .map(|(_, v)| v.as_str())
}

/// A boolean parameter's value that switches it off.
fn off(v: &str) -> bool {
    matches!(v.to_ascii_lowercase().as_str(), "0" | "false" | "no" | "off")
}

/// Ceph flags that stop I/O or keep OSDs from coming up or being marked down.
fn ceph_outage_flag(flag: &str) -> bool {
    matches!(flag.to_ascii_lowercase().as_str(), "pause" | "pauserd" | "pausewr" | "noup" | "nodown")
}

/// Whether a port list takes in the web interface's port (8006) or the SPICE proxy's (3128).
fn management_port(ports: &str) -> bool {
    ports.split(',').any(|p| {
        let p = p.trim();
        match p.split_once([':', '-']) {
            Some((lo, hi)) => {
                let lo = lo.parse::<u32>().unwrap_or(0);
                let hi = hi.parse::<u32>().unwrap_or(65535);
                lo <= 8006 && 8006 <= hi
            }
            None => matches!(p, "8006" | "3128"),
        }
    })
}

/// The calls of a batch (`/nodes/N/execute --commands '[{"method":"DELETE","path":…}]'`).
fn batch_calls(json: &str) -> Vec<(String, String, Params)> {
    let field = |object: &str, key: &str| -> Option<String> {
        let (_, rest) = object.split_once(&format!("\"{key}\""))?;
        let rest = rest.trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
        rest.split('"').next().map(str::to_string)
    };
    // The call objects: the array's elements, found by brace depth.
    let mut objects = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in json.char_indices() {
        match c {
            '{' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            '}' if depth > 0 => {
                depth -= 1;
                // `start` and `i` are the braces' offsets: `get` always finds the object.
                if let Some(object) = json.get(start..=i).filter(|_| depth == 0) {
                    objects.push(object);
                }
            }
            _ => {}
        }
    }
    objects
        .into_iter()
        .filter_map(|object| {
            let path = field(object, "path")?;
            // The call's `args`, read as flat string fields.
            let args = object.split_once("\"args\"").map_or_else(Params::new, |(_, after)| {
                let mut out = Params::new();
                let mut rest = after.split('"').skip(1);
                while let (Some(k), Some(sep), Some(v)) = (rest.next(), rest.next(), rest.next()) {
                    if sep.trim() == ":" {
                        out.push((k.to_string(), v.to_string()));
                        rest.next();
                    }
                }
                out
            });
            Some((field(object, "method").unwrap_or_else(|| "create".into()), path, args))
        })
        .collect()
}

/// Files the API reads out of a backup or a guest: a file-restore download names its file in
/// base64 (`--filepath L2V0Yy9zaGFkb3c=` is `/etc/shadow`; a directory comes as an archive), the
/// guest agent's file-read names it plainly.
fn file_reads(an: &mut Analysis<'_>, who: &str, path: &str, params: &Params) {
    let mut files: Vec<String> = Vec::new();
    if path.contains("file-restore/download") {
        for (_, v) in params.iter().filter(|(n, _)| n == "filepath") {
            match decode_base64(v) {
                Some(decoded) => files.push(decoded),
                None => an.raise(CM, format!("`{who}` restores a file whose path cannot be read (`{v}`)")),
            }
        }
    }
    if path.contains("agent/file-read") {
        files.extend(params.iter().filter(|(n, _)| n == "file").map(|(_, v)| v.clone()));
    }
    for file in files {
        if an.is_secret(&file) || an.is_credential(&file) || crate::secrets::holds_secrets(&file) {
            an.raise_secret(DE, format!("`{who}` reads `{file}` out of a backup or a guest, which holds secrets"));
        }
    }
}

/// Standard or URL-safe base64, padded or not, as text.
fn decode_base64(text: &str) -> Option<String> {
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for c in text.trim().trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push(((bits >> count) & 0xff) as u8);
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_paths() {
        assert_eq!(decode_base64("L2V0Yy9zaGFkb3c=").as_deref(), Some("/etc/shadow"));
        assert_eq!(decode_base64("L2V0Yy9zaGFkb3c").as_deref(), Some("/etc/shadow"));
        assert_eq!(decode_base64("L3Jvb3QucHhhci5kaWR4L2V0Yw==").as_deref(), Some("/root.pxar.didx/etc"));
        assert_eq!(decode_base64("not base64!"), None);
    }

    #[test]
    fn urls_and_batches() {
        let (path, params) = api_url("https://pve:8006/api2/json/nodes/pve1/status?command=reboot").unwrap();
        assert_eq!(path, "/nodes/pve1/status");
        assert_eq!(params, [("command".to_string(), "reboot".to_string())]);
        assert_eq!(
            batch_calls(r#"[{"method":"DELETE","path":"/nodes/n/qemu/100"},{"path":"/nodes/n/stopall"}]"#),
            [
                ("DELETE".into(), "/nodes/n/qemu/100".into(), Params::new()),
                ("create".into(), "/nodes/n/stopall".into(), Params::new())
            ]
        );
        assert_eq!(
            batch_calls(r#"[{"method":"POST","path":"/nodes/n/status","args":{"command":"reboot","x":"y"}}]"#),
            [(
                "POST".into(),
                "/nodes/n/status".into(),
                vec![("command".into(), "reboot".into()), ("x".into(), "y".into())]
            )]
        );
    }
}
