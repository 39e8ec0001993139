//! Network: addresses, routes and firewalls, clients that fetch or send (`curl`, `wget`, `nc`,
//! `openssl`), remote shells and copies (`ssh`, `scp`, `rsync`), VPNs and time sources.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE, ReversibleLow as RL};

use super::links::{bridge_outage, ip_outage, nmcli_outage, tc_outage};
use super::pve_api;
use super::requests;
use super::wrappers::wrapped;
use super::Args;
use super::{recursive_read, ro, script_from_stdin};
use crate::shell::{Analysis, Arg, Stdin};

/// `ip`: showing reads, anything else (and `-batch`) changes the network.
pub(super) fn ip(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, stdin: &Stdin) {
    let valued = ["-n", "-netns", "-b", "-batch", "-f", "-family", "-l", "-loops", "-rc", "-rcvbuf"];
    // `ip` options are whole words (`-br` is brief, not `-b r`).
    // `ip` accepts any prefix of `-batch` (`-ba`, `-bat`); `-br…` is `-brief`.
    // `ip` reads `--batch` as `-batch` too.
    let batch = |o: &str| {
        let o = o.strip_prefix('-').filter(|r| r.starts_with('-')).unwrap_or(o);
        let o = o.split('=').next().unwrap_or(o);
        o.starts_with("-b") && !o.starts_with("-br")
    };
    if a.any(&["-force"]) || a.options().any(batch) {
        an.raise(CM, "`ip -batch` runs commands from a file");
        // `ip -batch -` with input known in advance: each line is an `ip` command.
        let from_stdin = a.all.windows(2).any(|w| match w {
            [option, file] => option.as_static().is_some_and(batch) && file.as_static() == Some("-"),
            _ => false,
        }) || a.all.iter().any(|w| w.as_static().is_some_and(|o| batch(o) && o.ends_with("=-")));
        if from_stdin {
            for line in stdin.texts.iter().flat_map(|t| t.lines()).filter(|l| !l.trim().is_empty()) {
                let mut words = vec![Arg::Static("ip".into())];
                words.extend(line.split_whitespace().map(|w| Arg::Static(w.to_string())));
                an.run(&words, &Stdin::default());
            }
        }
    }
    let ops = a.operands(&valued);
    let words: Vec<&str> = ops.iter().map(|o| o.shown()).collect();
    let Some(object) = words.first() else {
        return ro(an, "`ip` without an object prints help");
    };
    // `ip vrf exec NAME CMD` runs CMD bound to the VRF.
    if *object == "vrf" && words.get(1) == Some(&"exec") {
        let index = ops.get(3).and_then(|cmd| a.all.iter().position(|x| std::ptr::eq(x, *cmd)));
        return match index {
            Some(i) => wrapped(an, "ip vrf exec", a, Some(i), stdin),
            None => an.raise(CM, "`ip vrf exec` without a command"),
        };
    }
    if "netns".starts_with(object) && object.len() >= 3 {
        match words.get(1) {
            Some(&"exec") => {
                // With `-all` (any prefix of it) there is no namespace name: the command comes
                // right after `exec` and runs in every namespace.
                let every = a.options().any(|o| o.len() >= 2 && "-all".starts_with(o));
                // The operand at `k`, or the last one when there are fewer.
                let at = |k: usize| {
                    let op = ops.get(k).or(ops.last())?;
                    a.all.iter().position(|x| std::ptr::eq(x, *op))
                };
                let index = if every { at(2) } else { at(2).map(|i| i + 1) };
                return wrapped(an, "ip netns exec", a, index, stdin);
            }
            None | Some(&("list" | "ls" | "show" | "identify" | "pids" | "list-id" | "monitor")) => {
                return ro(an, "`ip netns list` only reports")
            }
            // With `-all`, every namespace goes, and the networks of what runs in them.
            Some(&("delete" | "del" | "d" | "de")) if a.options().any(|o| o.len() >= 2 && "-all".starts_with(o)) => {
                return an.raise(DE, "`ip -all netns delete` removes every network namespace and the links in them")
            }
            Some(_) => return an.raise(CM, "`ip netns` changes network namespaces"),
        }
    }
    // `ip xfrm state` lists IPsec security associations with their keys; `ip xfrm monitor` prints
    // new ones as they come.
    if "xfrm".starts_with(object) {
        let sub = words.get(1).copied().unwrap_or("");
        let verb = words.get(2).copied();
        let lists = verb.is_none_or(|v| ["list", "get", "show", "ls"].iter().any(|x| x.starts_with(v)));
        if !sub.is_empty() && "monitor".starts_with(sub) {
            return an.raise_secret(DE, "`ip xfrm monitor` prints IPsec keys as they are made");
        }
        if !sub.is_empty() && "state".starts_with(sub) && lists {
            return an.raise_secret(DE, "`ip xfrm state` prints IPsec keys");
        }
        if !sub.is_empty() && "policy".starts_with(sub) && lists {
            return ro(an, "`ip xfrm policy` only lists policies");
        }
    }
    if let Some(reason) = ip_outage(object, &words) {
        return an.raise(DE, reason);
    }
    // Actions may be abbreviated (`ip a s`, `ip r l`); anything that is not a way of showing is a change.
    // `ip a s` is show, but `ip link s` is set: iproute2 resolves abbreviations per object.
    let action = match (words.get(1).copied(), *object) {
        (None, _) => "show",
        (Some("s" | "sh"), o)
            if ["address", "route", "neighbour", "rule", "maddress", "mroute", "xfrm"]
                .iter()
                .any(|x| x.starts_with(o)) =>
        {
            "show"
        }
        (Some(a), _) => a,
    };
    // A prefix that could also mean a change (`s` may be `set`, `l` may be… only list) is a change.
    let mutating = [
        "set", "add", "del", "delete", "change", "replace", "flush", "append", "prepend", "save", "restore", "update",
        "test",
    ];
    let showing =
        ["show", "list", "lst", "ls", "get", "help", "monitor", "showdump"].iter().any(|v| v.starts_with(action))
            && !mutating.iter().any(|m| m.starts_with(action));
    // Nested objects (`ip xfrm state list`): a showing verb anywhere, and no changing one.
    // `ip monitor [all|link|address|route …]` only prints changes as they happen.
    let showing = showing
        || (object.len() >= 3 && "monitor".starts_with(object) && words.len() <= 3)
        || (words.iter().skip(2).any(|w| matches!(*w, "show" | "list" | "ls" | "lst" | "get" | "count"))
            && !mutating.contains(&action));
    let changes = ["add", "del", "delete", "flush", "set", "change", "replace", "deleteall", "update"];
    if showing && !words.iter().skip(2).any(|w| changes.contains(w)) {
        ro(an, format!("`ip {object} {action}` only reports"));
    } else {
        an.raise(CM, format!("`ip {object} {action}` changes the network"));
    }
}

/// `curl` fetching to standard output reads; sending, writing files and reading options from a file do not.
pub(super) fn curl(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    #[rustfmt::skip]
    let sending = [
        "-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--data-ascii", "-F", "--form",
        "--form-string", "-T", "--upload-file", "--json", "--url-query",
    ];
    // The last `-X` is the one curl uses.
    let method = a.values(&["-X", "--request"]).last().map(|m| m.shown().to_ascii_uppercase());
    if !a.values(&sending).is_empty() || method.as_deref().is_some_and(|m| m != "GET" && m != "HEAD") {
        an.raise(CM, "`curl` sends data or a changing request");
    }
    if method.as_deref() == Some("DELETE") {
        an.raise(DE, "`curl -X DELETE` asks a server to delete what the URL names");
    }
    // A request carrying credentials to where a service keeps its users or secrets reads them out.
    let credentialed = a.value(&["-u", "--user", "--oauth2-bearer", "-b", "--cookie"]).is_some()
        || a.values(&["-H", "--header"]).iter().any(|h| {
            let h = h.shown().to_ascii_lowercase();
            h.starts_with("authorization") || h.contains("token") || h.contains("api-key") || h.contains("apikey")
        });
    let secret_place = |u: &str| {
        let u = percent_decoded(u).to_ascii_lowercase();
        ["/secret", "/users", "_users", "/credentials", "/tokens", "/keys", "download-decoded", "/auth/"]
            .iter()
            .any(|p| u.contains(p))
    };
    if credentialed && a.all.iter().flat_map(|w| w.values()).any(secret_place) {
        an.raise_secret(CM, "`curl` reads users, tokens or secrets out of a service with its credentials");
    }
    #[rustfmt::skip]
    let writing = [
        "-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr",
        "--etag-save", "--hsts", "--alt-svc", "--libcurl", "--output-dir",
    ];
    for out in a.values(&writing) {
        if out.shown() != "-" {
            an.write_target(&out, "`curl`");
        }
    }
    if a.flag('O', "--remote-name") || a.long("--remote-name-all") || a.long("--create-dirs") {
        an.raise(CM, "`curl -O` writes the download to a file");
    }
    for out in a.values(&["-o", "--output", "--output-dir"]) {
        download_into_system(an, "curl", out.shown());
    }
    if a.value(&["-K", "--config"]).is_some() {
        an.raise(CM, "`curl -K` takes options from a file");
    }
    // URLs that reach services other than the web: `dict://` and `gopher://` send any text to any
    // port, `telnet://`, `ldap://`, `smb://`, `mqtt://`, `smtp://`, `imap://`, `pop3://`, `ftp://` speak
    // to their services (and can send commands to them), `file://` with an upload writes. A URL
    // without a scheme is guessed from its host (`dict.x`, `ftp.x` …) or from --proto-default.
    let proto_default = a.value(&["--proto-default"]).map(|p| p.shown().to_ascii_lowercase());
    if proto_default.as_deref().is_some_and(|p| !matches!(p, "http" | "https")) {
        an.raise(CM, "`curl --proto-default` makes URLs without a scheme reach another service");
    }
    #[rustfmt::skip]
    let valued = [
        "-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--data-ascii", "-F", "--form",
        "--form-string", "-T", "--upload-file", "--json", "--url-query", "-X", "--request", "-o", "--output", "-D",
        "--dump-header", "-c", "--cookie-jar", "-b", "--cookie", "-H", "--header", "-A", "--user-agent", "-e",
        "--referer", "-u", "--user", "-x", "--proxy", "-w", "--write-out", "-K", "--config", "--connect-to",
        "--resolve", "-m", "--max-time", "--connect-timeout", "-r", "--range", "-C", "--continue-at", "-E", "--cert",
        "--key", "--cacert", "--capath", "--unix-socket", "--abstract-unix-socket", "--interface", "--retry",
        "--retry-delay", "--retry-max-time", "-Y", "--speed-limit", "-y", "--speed-time", "--limit-rate", "-z",
        "--time-cond", "--output-dir", "--trace", "--trace-ascii", "--stderr", "--etag-save", "--etag-compare",
        "--hsts", "--alt-svc", "--libcurl", "--proto", "--proto-redir", "--proto-default", "--variable", "--engine",
        "-Q", "--quote", "--mail-from", "--mail-rcpt", "--oauth2-bearer", "--noproxy", "--preproxy", "-U",
        "--proxy-user", "--max-redirs", "--max-filesize", "--dns-servers", "--doh-url", "--ciphers", "--netrc-file",
        "--request-target", "--expect100-timeout", "--happy-eyeballs-timeout-ms", "--keepalive-time",
    ];
    let mut urls: Vec<Arg> = a.operands(&valued).into_iter().cloned().collect();
    urls.extend(a.values(&["--url"]));
    for url in &urls {
        for u in url.values() {
            let lower = u.to_ascii_lowercase();
            let lower = lower.trim_start_matches(['{', '[']);
            let scheme = match lower.split_once("://") {
                Some((scheme, _)) => scheme.to_string(),
                None => {
                    let host = lower.split(['/', ':', '@']).next().unwrap_or("");
                    let guessed = ["ftp", "dict", "ldap", "imap", "smtp", "pop3"]
                        .iter()
                        .find(|p| host.starts_with(&format!("{p}.")));
                    guessed.map_or_else(|| proto_default.clone().unwrap_or_else(|| "http".into()), |p| p.to_string())
                }
            };
            if !matches!(scheme.as_str(), "http" | "https" | "file") {
                an.raise(CM, format!("`curl {u}` reaches a {scheme} service, which it can send commands to"));
            }
        }
    }
    if !a.values(&["-Q", "--quote"]).is_empty() {
        an.raise(CM, "`curl -Q` sends commands to an FTP or SFTP server");
    }
    // A header that asks the server to take a GET as another method.
    if a.values(&["-H", "--header"]).iter().any(|h| h.shown().to_ascii_lowercase().contains("method-override")) {
        an.raise(CM, "`curl` asks the server to treat its request as another method");
    }
    // `-w '%output{FILE}'` sends the rest of the write-out text to FILE; `-w @FILE` reads the
    // write-out text from a file.
    for format in a.values(&["-w", "--write-out"]) {
        if format.shown().starts_with('@') {
            an.raise(CM, "`curl -w @FILE` takes its write-out text, which can name files to write, from a file");
        }
        for target in format.shown().split("%output{").skip(1).filter_map(|t| t.split_once('}')).map(|(t, _)| t) {
            an.write_target(&Arg::Static(target.trim_start_matches(">>").to_string()), "`curl -w %output{…}`");
        }
    }
    if a.value(&["--engine"]).is_some_and(|e| e.shown() != "list") {
        an.raise(CM, "`curl --engine` loads a crypto engine, which is code");
    }
    // `--variable k@FILE` with `--expand-url` puts a file's content into the request.
    if a.long_prefix("--variable") && a.long_prefix("--expand-") {
        an.raise(CM, "`curl --expand-…` sends what `--variable` read");
    }
    // A call to the Proxmox API is rated as the action it stands for.
    let data: Vec<String> = a.values(&sending).iter().map(|d| d.shown().to_string()).collect();
    let api_method = method.clone().unwrap_or_else(|| if data.is_empty() { "GET".into() } else { "POST".into() });
    for url in a.all.iter().flat_map(|w| w.values()).filter(|w| w.contains("/api2/")) {
        if let Some((path, mut params)) = pve_api::api_url(url) {
            params.extend(data.iter().flat_map(|d| pve_api::form_params(d)));
            pve_api::api_call(an, "curl", &api_method, &path, &params);
        }
    }
    // A Redfish power action (to this machine's controller or another's) takes a machine down.
    if data.iter().any(|d| {
        let d = d.to_ascii_lowercase();
        d.contains("resettype")
            && [
                "forceoff",
                "forcerestart",
                "gracefulshutdown",
                "gracefulrestart",
                "powercycle",
                "nmi",
                "pushpowerbutton",
            ]
            .iter()
            .any(|t| d.contains(t))
    }) {
        an.raise(DE, "`curl` sends a Redfish power action: it turns a machine off or resets it");
    }
    let headers: Vec<String> = a.values(&["-H", "--header"]).iter().flat_map(requests::texts).collect();
    let bodies: Vec<String> = a.values(&sending).iter().flat_map(requests::texts).collect();
    let targets: Vec<String> = urls.iter().flat_map(requests::texts).collect();
    requests::judge(an, "curl", method.as_deref(), &targets, &bodies, &headers);
    for url in &urls {
        if let Some(action) = url.values().into_iter().find_map(names_an_action) {
            if TAKES_DOWN.iter().any(|t| action.contains(t)) {
                an.raise(
                    DE,
                    format!("`curl` asks for `{action}`: a device or service acting on it goes down or loses data"),
                );
            } else {
                an.raise(CM, format!("`curl` asks for `{action}`: a server may act on such a request, GET or not"));
            }
        }
    }
    ro(an, "`curl` fetching to standard output only reads");
}

/// A URL whose path or query names an action (`/cgi-bin/restart?now=1`, `…/reboot.cgi`,
/// `?action=delete`): HTTP calls GET safe, but a server that acts on such a request is common
/// enough on appliances and homelab tools that it is not read without asking.
pub(super) fn names_an_action(url: &str) -> Option<String> {
    #[rustfmt::skip]
    const ACTIONS: &[&str] = &[
        "restart", "reboot", "shutdown", "poweroff", "halt", "reset", "delete", "remove", "destroy", "drop", "kill",
        "stop", "start", "update", "upgrade", "install", "uninstall", "wipe", "format", "exec", "execute", "run",
        "cmd", "command", "action", "apply", "set", "write", "purge", "flush", "truncate", "unlock", "lock",
        "enable", "disable", "trigger", "deploy", "rollback", "factory", "erase", "clear", "mute", "pause",
        "resume", "suspend", "wake", "toggle", "switch", "turn_off", "turn_on", "off", "on", "logout", "login",
        "win",
    ];
    // Words run together or camel-cased (`setswitchoff`, `Shelly.FactoryReset`) still name these.
    const RUN_TOGETHER: &[&str] = &[
        "reboot",
        "shutdown",
        "poweroff",
        "power",
        "reset",
        "delete",
        "destroy",
        "flush",
        "toggle",
        "factory",
        "erase",
        "wipe",
        "purge",
        "truncate",
        "restart",
        "switchoff",
        "setswitch",
        "setconfig",
    ];
    // Query keys that carry a device command (Tasmota `cmnd`, Shelly `turn`/`go`, FRITZ!Box `switchcmd`).
    const COMMAND_KEYS: &[&str] = &["cmnd", "cmd", "switchcmd", "turn", "go", "method", "command", "action", "op"];
    let decoded = percent_decoded(url).to_ascii_lowercase();
    let rest = decoded.split_once("://").map_or(decoded.as_str(), |(_, r)| r);
    // The host names no action; the path and query may.
    let path = rest.split_once('/').map_or("", |(_, p)| p);
    let query = path.split_once('?').map_or("", |(_, q)| q);
    let command = query.split('&').filter_map(|kv| kv.split_once('=')).find(|(k, _)| COMMAND_KEYS.contains(k));
    if let Some((k, v)) = command {
        return Some(format!("{k}={v}"));
    }
    // The path and the query's keys name actions; other values are data (a metric's name in a
    // query, `node_reboot_required`, names no action).
    let keys: Vec<&str> = query.split('&').map(|kv| kv.split_once('=').map_or(kv, |(k, _)| k)).collect();
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    let words: Vec<&str> = std::iter::once(path)
        .chain(keys)
        .flat_map(|t| t.split(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    if let Some(w) = words.iter().find(|w| ACTIONS.contains(w)) {
        return Some((*w).to_string());
    }
    words.iter().find(|w| RUN_TOGETHER.iter().any(|a| w.contains(a))).map(|w| (*w).to_string())
}

/// What a request naming one of these does is an outage or a loss.
const TAKES_DOWN: &[&str] = &[
    "shutdown",
    "poweroff",
    "power off",
    "power0",
    "power 0",
    "power=off",
    "off",
    "reboot",
    "reset",
    "delete",
    "destroy",
    "flush",
    "wipe",
    "erase",
    "purge",
    "truncate",
    "factory",
    "toggle",
    "halt",
];

/// A URL with its `%XX` escapes decoded (`of%66` is `off`), the rest left as written.
fn percent_decoded(url: &str) -> String {
    decode_escapes(url, false)
}

/// `%XX` escapes decoded; with `plus_is_space`, `+` read as a space, as a server reads a query
/// or a form body.
pub(super) fn decode_escapes(text: &str, plus_is_space: bool) -> String {
    String::from_utf8_lossy(&percent_decode_bytes(text, plus_is_space)).into_owned()
}

/// The bytes `text` stands for with its `%XX` escapes decoded (and, with `plus_is_space`, `+` as a
/// space); a `%` not followed by two hex digits stays as written. The one decoder of URL escapes,
/// for the gate and for addresses the engine is sent.
pub fn percent_decode_bytes(text: &str, plus_is_space: bool) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |k: usize| bytes.get(k).and_then(|c| (*c as char).to_digit(16));
        match (b, hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
                i += 3;
            }
            (b'+', _, _) if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// `openssl` inspection reads; writing files, serving and loading engines do not.
pub(super) fn openssl(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, stdin: &Stdin) {
    let sub = a.sub(&[]).map(|(_, s)| s);
    // `echo | openssl s_client` only closes the session; anything else typed in is sent.
    let sends = stdin.unknown || stdin.texts.iter().any(|t| !matches!(t.trim(), "" | "Q" | "q"));
    if sub == Some("s_client") && sends {
        an.raise(CM, "`openssl s_client` sends its input to another machine");
    }
    let writes = a
        .all
        .iter()
        .filter_map(Arg::as_static)
        .any(|o| o.starts_with('-') && (o.contains("out") || o.contains("write")) && o != "-noout");
    if writes {
        an.raise(CM, "`openssl` writes a file");
    }
    for out in a.values(&["-out", "-keyout", "-writerand", "-sess_out", "-msgfile", "-keylogfile"]) {
        an.write_target(&out, "`openssl`");
    }
    // Engines and providers are code; a configuration file can load them.
    if a.value(&["-engine", "-provider", "-provider-path", "-config"]).is_some() {
        an.raise(CM, "`openssl -engine/-provider/-config` loads code");
    }
    // `ocsp -port` serves OCSP on the network.
    if a.value(&["-port", "-accept"]).is_some() {
        an.raise(CM, "`openssl -port` opens a network service");
    }
    match sub {
        Some(
            "x509" | "s_client" | "version" | "verify" | "crl" | "ciphers" | "list" | "asn1parse" | "dgst" | "sess_id"
            | "ocsp" | "s_time" | "speed" | "errstr" | "help" | "prime" | "rand" | "storeutl" | "passwd",
        ) => ro(an, "`openssl` inspection only reads"),
        Some("req") if a.any(&["-text", "-noout", "-verify"]) && !a.any(&["-new", "-x509", "-newkey"]) => {
            ro(an, "`openssl req -text` only reads")
        }
        _ => an.raise(CM, "`openssl` creates or converts keys and certificates"),
    }
}

/// `ssh HOST CMD`: CMD is judged as a script; tunnels and local commands are changes.
pub(super) fn ssh(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, stdin: &Stdin) {
    // `-G` prints the configuration it would use, `-Q` what it supports, `-V` its version: none
    // connects (nor runs the configuration's commands).
    let options: Vec<&str> = a.options().collect();
    if matches!(options.as_slice(), ["-G" | "-Q" | "-V"]) {
        return ro(an, "`ssh -G` only prints its configuration");
    }
    for o in a.values(&["-o"]) {
        let v = o.shown().to_ascii_lowercase();
        if ["remoteforward", "localforward", "dynamicforward", "tunnel", "gatewayports"]
            .iter()
            .any(|k| v.starts_with(k))
        {
            an.raise(CM, "`ssh -o …Forward` opens tunnels between machines");
        }
        // Any setting that names a command (`ProxyCommand`, `LocalCommand`, `KnownHostsCommand`,
        // and those to come), in every spelling: `X=Y`, `X Y`, ` X = Y `.
        let v = v.trim_start();
        let key = v.split(|c: char| c == '=' || c.is_whitespace()).next().unwrap_or_default();
        if key.ends_with("command") && key != "remotecommand" {
            an.raise(CM, "`ssh -o …Command` runs a local command");
            if let Some(cmd) = ssh_option_value(o.shown()) {
                crate::rules::run_given(an, "`ssh -o …Command`", cmd);
            }
        }
        // The command run on the other side, as if given after the host.
        if key == "remotecommand" {
            if let Some(cmd) = ssh_option_value(o.shown()) {
                an.script(cmd);
            }
        }
        if v.starts_with("pkcs11provider") || v.starts_with("securitykeyprovider") {
            an.raise(CM, "`ssh -o …Provider` loads a provider library");
        }
        // Another configuration file (which can run commands), a master connection and its socket
        // left behind, a program run for X11 forwarding, variables set on the other side.
        if ["include", "controlmaster", "controlpersist", "xauthlocation", "setenv", "forkafterauthentication"]
            .iter()
            .any(|k| v.starts_with(k))
        {
            an.raise(CM, format!("`ssh -o {}` loads a configuration, leaves a master or runs a program", o.shown()));
        }
        // New host keys are written to this file.
        if v.starts_with("userknownhostsfile") {
            if let Some((_, file)) = o.shown().split_once(['=', ' ']) {
                an.write_target(&Arg::Static(file.trim().to_string()), "`ssh -o UserKnownHostsFile`");
            }
        }
    }
    for log in a.values(&["-E"]) {
        an.write_target(&log, "`ssh -E`");
    }
    if a.value(&["-I"]).is_some() {
        an.raise(CM, "`ssh -I` loads a PKCS#11 provider library");
    }
    // Another configuration file can run commands (ProxyCommand, LocalCommand, Match exec).
    if let Some(config) = a.value(&["-F"]).filter(|c| c.shown() != "/dev/null" && c.shown() != "none") {
        an.raise(CM, format!("`ssh -F {}` uses a configuration that can run commands", config.shown()));
    }
    if a.short('M') {
        an.raise(CM, "`ssh -M` opens a master connection and its socket");
    }
    if !a.values(&["-R", "-L", "-D", "-W", "-w"]).is_empty() || a.short('N') && a.short('f') {
        an.raise(CM, "`ssh -R/-L/-D` opens tunnels between machines");
    }
    let (letters, ops) = ssh_operands(a);
    // `-O` (before the command; after it, it is the command's) controls a master connection.
    if letters.contains(&'O') {
        return an.raise(RL, "`ssh -O` controls a master connection");
    }
    if stdin.unknown {
        an.raise(CM, "`ssh` sends data from this machine to another");
    }
    match ops.split_first() {
        None => an.raise(CM, "`ssh` without a host"),
        Some((_host, [])) => {
            if stdin.texts.is_empty() {
                an.raise(CM, "`ssh` without a command opens a remote shell");
            } else {
                script_from_stdin(an, "ssh", stdin);
            }
        }
        Some((_host, rest)) => {
            // The remote side joins the words with spaces and hands them to its shell.
            let words: Vec<String> = rest
                .iter()
                .map(|w| w.values().first().map(|s| s.to_string()).unwrap_or_else(|| w.shown().to_string()))
                .collect();
            if rest.iter().any(|w| w.as_static().is_none()) {
                an.raise(CM, "`ssh` runs a remote command built at run time");
            }
            // What is piped to ssh is the remote command's input (`ssh host 'bash -s' <<< TEXT`).
            an.script_fed(&words.join(" "), stdin);
        }
    }
}

/// ssh's words up to its remote command: its options and its destination.
pub(super) fn ssh_local_words(all: &[Arg]) -> &[Arg] {
    let a = Args::new(all);
    let (_, ops) = ssh_operands(&a);
    let start = ops.get(1).and_then(|first| all.iter().position(|w| std::ptr::eq(w, *first)));
    start.and_then(|at| all.get(..at)).unwrap_or(all)
}

/// ssh's option letters, and its destination and the command after it, read as ssh reads them:
/// letters in clusters, a letter that takes a value taking the rest of the word or the next one,
/// and options again after the destination (`ssh host -p 22 cmd`) until the command starts or `--`.
fn ssh_operands<'a>(a: &Args<'a>) -> (Vec<char>, Vec<&'a Arg>) {
    const VALUED: &str = "bceilmopBDEFIJLOPQRSwW";
    let mut letters = Vec::new();
    let mut out: Vec<&'a Arg> = Vec::new();
    let mut rest = a.all;
    let mut terminated = false;
    while let Some((arg, tail)) = rest.split_first() {
        rest = tail;
        let word = arg.as_static().filter(|w| !terminated && w.starts_with('-') && w.len() > 1);
        match word {
            Some("--") => terminated = true,
            Some(w) => {
                let mut cluster = w.chars();
                cluster.next(); // The `-`.
                while let Some(c) = cluster.next() {
                    letters.push(c);
                    if VALUED.contains(c) {
                        // Last in its word, it takes the next word as its value.
                        if cluster.as_str().is_empty() {
                            rest = rest.split_first().map_or(&[][..], |(_, after)| after);
                        }
                        break;
                    }
                }
            }
            None if out.is_empty() => out.push(arg),
            // The command: every word from here on.
            None => {
                out.push(arg);
                out.extend(rest);
                break;
            }
        }
    }
    (letters, out)
}

/// `scp`/`sftp` copy between machines; commands given as options are judged.
pub(super) fn scp(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    an.raise(CM, format!("`{base}` copies files between machines"));
    for v in a.values(&["-S", "-o"]) {
        let v = v.shown();
        an.script(v.split_once('=').filter(|(k, _)| k.to_ascii_lowercase().ends_with("command")).map_or(v, |(_, c)| c));
        if let Some(cmd) = ssh_option_value(v).filter(|_| v.trim_start().to_ascii_lowercase().contains("command")) {
            crate::rules::run_given(an, &format!("`{base} -o …Command`"), cmd);
        }
    }
    // `-S` is the program that connects and `sftp -D` the server it runs instead of connecting.
    let mut runs = a.values(&["-S"]);
    if base == "sftp" {
        runs.extend(a.values(&["-D"]));
    }
    for v in runs {
        crate::rules::run_given(an, &format!("`{base}`"), v.shown());
    }
    if base == "scp" {
        let ops = a.operands(&["-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X"]);
        copy_destination(an, "`scp`", &ops);
    }
}

/// The value of an ssh `-o` setting in any spelling: `X=Y`, `X Y`, ` X = Y `.
fn ssh_option_value(option: &str) -> Option<&str> {
    let (_, rest) = option.trim().split_once(|c: char| c == '=' || c.is_whitespace())?;
    let value = rest.trim_start().strip_prefix('=').unwrap_or(rest).trim();
    (!value.is_empty()).then_some(value)
}

/// `brctl`, `bridge`, `tc`: showing reads; `-batch` runs commands from a file.
pub(super) fn bridge(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    // `-b`/`-batch FILE` runs the commands in FILE (`-force` carries on after errors).
    if a.options().any(|o| !o.starts_with("--") && o.starts_with("-b") && !o.starts_with("-br")) || a.any(&["-force"]) {
        an.raise(CM, format!("`{base} -batch` runs commands from a file"));
    }
    let words: Vec<&str> = a.operands(&[]).iter().map(|o| o.shown()).collect();
    if let Some(reason) = bridge_outage(base, &words) {
        return an.raise(DE, reason);
    }
    if base == "tc" && tc_outage(&words) {
        return an.raise(DE, "`tc` drops or starves the traffic of an interface that may carry this session");
    }
    let object_only = base == "bridge" && words.len() == 1;
    if words.iter().any(|w| matches!(*w, "show" | "showmacs" | "showstp" | "list" | "ls" | "monitor"))
        || words.is_empty()
        || object_only
    {
        ro(an, format!("`{base}` only reports"));
    } else {
        an.raise(CM, format!("`{base}` changes the network"));
    }
}

/// `nmcli`: status and show read; connecting and modifying change the network.
pub(super) fn nmcli(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    // `-s`/`--show-secrets` prints Wi-Fi and VPN secrets with the connection.
    if a.flag('s', "--show-secrets") {
        an.raise_secret(DE, "`nmcli --show-secrets` prints connection secrets");
    }
    let words: Vec<&str> = a
        .operands(&["-f", "--fields", "-t", "-m", "--mode", "-c", "--colors", "-e", "--escape", "-g", "--get-values"])
        .iter()
        .map(|o| o.shown())
        .collect();
    // `device wifi show-password` prints the Wi-Fi passphrase (and a QR code of it).
    if words.contains(&"show-password") {
        an.raise_secret(DE, "`nmcli device wifi show-password` prints the Wi-Fi passphrase");
    }
    if let Some(reason) = nmcli_outage(&words) {
        return an.raise(DE, reason);
    }
    let reading = words.is_empty()
        || words.iter().skip(1).all(|w| {
            matches!(
                *w,
                "show"
                    | "status"
                    | "list"
                    | "wifi"
                    | "all"
                    | "permissions"
                    | "logging"
                    | "hostname"
                    | "general"
                    | "s"
                    | "sh"
            )
        })
        || matches!(words.as_slice(), [_] | ["general" | "g", "status" | "permissions" | "hostname"])
        // `connection show NAME…` names what it shows (secrets only with `-s`, judged above).
        || matches!(words.as_slice(), ["connection" | "con" | "c" | "device" | "dev" | "d", "show" | "s" | "sh", ..]);
    if reading
        && !words.iter().any(|w| {
            matches!(
                *w,
                "up" | "down"
                    | "modify"
                    | "add"
                    | "delete"
                    | "reload"
                    | "set"
                    | "off"
                    | "on"
                    | "connect"
                    | "disconnect"
            )
        })
    {
        ro(an, "`nmcli` only reports");
    } else {
        an.raise(CM, "`nmcli` changes the network");
    }
}

/// `resolvectl`: queries read; setting DNS changes it.
pub(super) fn resolvectl(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    // `systemd-resolve` spells the verbs as options.
    if a.any(&["--flush-caches", "--reset-statistics", "--reset-server-features"]) {
        return an.raise(RL, "`systemd-resolve --flush-caches` resets caches");
    }
    match a.sub(&["-i", "--interface", "-t", "--type", "-p", "--protocol"]).map(|(_, s)| s) {
        None
        | Some(
            "status" | "query" | "statistics" | "service" | "openpgp" | "tlsa" | "monitor" | "show-cache"
            | "show-server-state",
        ) => ro(an, "`resolvectl` only reports"),
        Some("flush-caches" | "reset-statistics" | "reset-server-features") => {
            an.raise(RL, "`resolvectl flush-caches` resets caches")
        }
        Some(_) if a.operands(&[]).len() == 1 => ro(an, "`resolvectl` only reports"),
        Some(_) => an.raise(CM, "`resolvectl` changes DNS settings"),
    }
}

/// `wget` to standard output reads; saving, logging and sending do not.
pub(super) fn wget(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    // Given more than once, the last `-O` is the one wget writes to.
    let document = last_document(a.all);
    let to_stdout = document.as_ref().is_some_and(|d| d.shown() == "-");
    if let Some(out) = document.filter(|v| v.shown() != "-") {
        an.write_target(&out, "`wget -O`");
    }
    for log in a.values(&["-o", "--output-file", "-a", "--append-output"]) {
        an.write_target(&log, "`wget -o`");
    }
    #[rustfmt::skip]
    let writing = [
        "--save-cookies", "--rejected-log", "--warc-file", "--warc-cdx", "--xattr-file",
    ];
    for out in a.values(&writing) {
        an.write_target(&out, "`wget`");
    }
    // In the background it logs to `wget-log`.
    if a.flag('b', "--background") {
        an.raise(CM, "`wget -b` writes a log file");
    }
    for program in a.values(&["--use-askpass"]) {
        an.raise(CM, "`wget --use-askpass` runs another program");
        an.run(&[program], &Stdin::default());
    }
    // A startup-file command or file can set anything, an output file or a program to run included.
    if a.value(&["-e", "--execute", "--config"]).is_some() {
        an.raise(CM, "`wget -e`/`--config` sets options that can write files or run programs");
    }
    // `-e output_document=FILE`, `-e logfile=FILE`, `-e dir_prefix=DIR`: the same settings as options.
    for command in a.values(&["-e", "--execute"]) {
        let text = command.shown().replace(' ', "");
        let Some((name, value)) = text.split_once('=') else { continue };
        let name = name.replace(['_', '-'], "").to_ascii_lowercase();
        if matches!(name.as_str(), "outputdocument" | "logfile" | "appendoutput" | "savecookies" | "warcfile") {
            an.write_target(&Arg::Static(value.to_string()), "`wget -e`");
            download_into_system(an, "wget", value);
        } else if name == "dirprefix" {
            download_into_system(an, "wget", value);
        } else if matches!(name.as_str(), "useaskpass") {
            crate::rules::run_given(an, "`wget -e use_askpass`", value);
        }
    }
    if let Some(document) = last_document(a.all) {
        download_into_system(an, "wget", document.shown());
    }
    for dir in a.values(&["-P", "--directory-prefix"]) {
        download_into_system(an, "wget", dir.shown());
    }
    let method = a.value(&["--method"]).map(|m| m.shown().to_string());
    let bodies: Vec<String> = a.values(&["--post-data", "--body-data"]).iter().flat_map(requests::texts).collect();
    let targets: Vec<String> = a.operands(&[]).into_iter().flat_map(requests::texts).collect();
    requests::judge(an, "wget", method.as_deref(), &targets, &bodies, &[]);
    if a.long_prefix("--post") || a.long("--method") || a.long("--body-data") || a.long("--body-file") {
        an.raise(CM, "`wget` sends data");
    } else if let Some(action) = a.operands(&[]).iter().flat_map(|u| u.values()).find_map(names_an_action) {
        an.raise(CM, format!("`wget` asks for `{action}`: a server may act on such a request"));
    } else if a.long("--spider") || to_stdout {
        ro(an, "`wget` to standard output only reads");
    } else {
        an.raise(CM, "`wget` writes the download to a file");
    }
}

/// A download saved into the system's configuration or programs (`/etc`, `/usr`, `/boot` …)
/// replaces what the system runs or reads with content no one has seen.
fn download_into_system(an: &mut Analysis<'_>, tool: &str, target: &str) {
    let system = ["/etc", "/usr", "/boot", "/bin", "/sbin", "/lib", "/root/.ssh", "/var/spool/cron"];
    if system.iter().any(|d| target == *d || target.starts_with(&format!("{d}/"))) {
        an.raise(
            DE,
            format!("`{tool}` saves a download no one has seen into {target}, which the system runs or reads"),
        );
    }
}

/// The file wget writes its downloads to: the last `-O FILE`, `-OFILE`, `-qO FILE`,
/// `--output-document[=]FILE` (`-` is standard output), before any `--`.
fn last_document(all: &[Arg]) -> Option<Arg> {
    let mut out = None;
    let mut words = all.iter().enumerate();
    while let Some((i, arg)) = words.next() {
        let Some(w) = arg.as_static() else { continue };
        if w == "--" {
            break;
        }
        let attached = if let Some(v) = w.strip_prefix("--output-document=") {
            Some(v)
        } else if "--output-document".starts_with(w) && w.len() > "--output-d".len() {
            None
        } else if w.starts_with('-') && !w.starts_with("--") && w.contains('O') {
            w.split_once('O').map(|(_, v)| v)
        } else {
            continue;
        };
        out = match attached {
            Some(v) if !v.is_empty() => Some(Arg::Static(v.to_string())),
            _ => {
                let next = all.get(i + 1).cloned();
                words.next();
                next
            }
        };
    }
    out
}

/// Raw network clients: a port check reads; anything else can send or serve anything.
/// A guest's QEMU monitor socket (`/var/run/qemu-server/ID.qmp`, `.mon`): what is sent there
/// acts on the running guest at once — `quit`, `system_reset` or `stop` is a guest pulled from
/// under its disks. Commands that cannot be seen are rated at the worst they could do.
fn guest_monitor(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let socket = a.all.iter().filter_map(Arg::as_static).find(|w| {
        let w = w.to_ascii_lowercase();
        w.contains("qemu-server/") && (w.ends_with(".qmp") || w.ends_with(".mon") || w.contains(".qmp,"))
    });
    let Some(socket) = socket else { return };
    const ACTS: &[&str] = &[
        "quit",
        "system_reset",
        "system_powerdown",
        "stop",
        "device_del",
        "blockdev-del",
        "drive_del",
        "migrate",
        "human-monitor-command",
        "x-blockdev-del",
        "block_resize",
        "snapshot-delete",
        "savevm",
        "loadvm",
        "delvm",
        "balloon",
        "memsave",
        "pmemsave",
        "dump-guest-memory",
        "nmi",
        "inject-nmi",
        "set_link",
    ];
    if stdin.unknown || stdin.texts.is_empty() {
        return an
            .raise(DE, format!("`{base}` sends a running guest's monitor ({socket}) commands that cannot be seen"));
    }
    let lower: Vec<String> = stdin.texts.iter().map(|t| t.to_ascii_lowercase()).collect();
    if let Some(act) = ACTS.iter().find(|act| lower.iter().any(|t| t.contains(*act))) {
        an.raise(DE, format!("`{base}` sends `{act}` to a running guest's monitor ({socket})"));
    } else {
        an.raise(CM, format!("`{base}` talks to a running guest's monitor ({socket})"));
    }
}

pub(super) fn netcat(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    guest_monitor(an, base, a, stdin);
    // A port check runs nothing and serves nothing, unless a program or a listener is asked for.
    let runs = a.values(&["-e", "-c", "--exec", "--sh-exec", "--lua-exec"]);
    for command in &runs {
        an.raise(CM, format!("`{base} -e` runs a program for the connection"));
        an.script(command.shown());
    }
    // ncat (which is `nc` on some systems) writes what passes through to a file (`-o`, `-x` hex
    // dump; `-x` is a proxy to OpenBSD's nc).
    let dumps: &[&str] =
        if base == "ncat" { &["-o", "--output", "-x", "--hex-dump"] } else { &["-o", "--output", "--hex-dump"] };
    for out in a.values(dumps) {
        an.write_target(&out, &format!("`{base} -o`"));
    }
    // socat addresses: EXEC:/SYSTEM: run a program or shell text, file addresses open (and with
    // CREATE or `creat`/`trunc` create or truncate) a file, judged as a redirect's target.
    if base == "socat" {
        for address in a.all.iter().map(Arg::shown).filter(|w| !w.starts_with('-')) {
            let Some((kind, rest)) = address.split_once(':') else { continue };
            let target = rest.split(',').next().unwrap_or("");
            match kind.to_ascii_uppercase().as_str() {
                "EXEC" => {
                    an.raise(CM, "`socat EXEC:` runs a program");
                    an.script(target);
                }
                "SYSTEM" => {
                    an.raise(CM, "`socat SYSTEM:` runs shell text");
                    an.script(rest);
                }
                "CREATE" | "CREAT" | "OPEN" | "GOPEN" | "FILE" => {
                    an.write_target(&Arg::Static(target.to_string()), "`socat` file address");
                }
                _ => {}
            }
        }
    }
    let listens = a.flag('l', "--listen");
    // A range or a list of ports is a scan of the other machine, not a check of a port.
    // A bundle of flags ending in one that takes a value (`-zvw 2`) takes the next word too.
    let bundles: Vec<&str> = a
        .options()
        .filter(|o| !o.starts_with("--") && o.len() > 2 && o.chars().skip(1).all(|c| c.is_ascii_alphabetic()))
        .filter(|o| o.ends_with(['w', 'i', 'p', 's', 'x', 'X', 'q', 'o']))
        .collect();
    let mut valued = vec!["-w", "-i", "-p", "-s", "-x", "-X", "-q", "-o"];
    valued.extend(bundles);
    let operands = a.operands(&valued);
    let scans = operands.iter().skip(1).any(|p| p.shown().contains(['-', ',']) || p.as_static().is_none())
        || operands.len() > 2;
    if scans {
        an.raise(CM, format!("`{base} -z` over several ports scans another machine"));
    }
    if base != "socat" && a.short('z') && runs.is_empty() && !listens {
        ro(an, format!("`{base} -z` only checks a port"));
    } else {
        an.raise(CM, format!("`{base}` opens arbitrary network connections"));
    }
}

/// `wg show` reads; private keys are secret.
pub(super) fn wg(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    match a.sub(&[]).map(|(_, s)| s) {
        Some("showconf") => an.raise_secret(DE, "`wg showconf` prints private keys"),
        _ if a
            .all
            .iter()
            .any(|x| x.shown().contains("private-key") || x.shown() == "preshared-keys" || x.shown() == "dump")
            && matches!(a.sub(&[]).map(|(_, s)| s), Some("show")) =>
        {
            an.raise_secret(DE, "`wg show … private-key` prints private keys")
        }
        Some("show" | "genpsk" | "pubkey") | None => ro(an, "`wg show` only reports"),
        Some(_) => an.raise(CM, "`wg` changes WireGuard"),
    }
}

/// `chronyc` reports read; anything else changes time sources.
pub(super) fn chronyc(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    const REPORTS: &[&str] = &[
        "tracking",
        "sources",
        "sourcestats",
        "activity",
        "ntpdata",
        "clients",
        "serverstats",
        "rtcdata",
        "smoothing",
        "waitsync",
        "authdata",
        "selectdata",
    ];
    // With `-m` every operand is a command of its own.
    let commands: Vec<&str> = if a.short('m') {
        a.operands(&["-h", "-p"]).iter().map(|o| o.shown().split_whitespace().next().unwrap_or("")).collect()
    } else {
        a.sub(&["-h", "-p"]).map(|(_, s)| s).into_iter().collect()
    };
    match commands.iter().find(|c| !REPORTS.contains(c)) {
        Some(c) => an.raise(CM, format!("`chronyc {c}` changes time sources")),
        None => ro(an, "`chronyc tracking` only reports"),
    }
}

/// `rsync`: what it copies, what it deletes, and what it runs to reach the other side.
pub(super) fn rsync(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    if a.value(&["-e", "--rsh", "--rsync-path"]).is_none() {
        return rsync_files(an, a);
    }

    an.raise(CM, "`rsync -e` runs a command of its own");
    for v in a.values(&["-e", "--rsh", "--rsync-path"]) {
        an.script(v.shown());
    }
    let rest: Vec<Arg> = a
        .all
        .iter()
        .filter(|x| {
            !x.shown().starts_with("-e") && !x.shown().starts_with("--rsh") && !x.shown().starts_with("--rsync-path")
        })
        .cloned()
        .collect();
    rsync_files(an, &Args::new(&rest));
}

/// What `rsync` copies and deletes.
fn rsync_files(an: &mut Analysis<'_>, a: &Args<'_>) {
    let ops = a.operands(&[
        "-e",
        "--rsh",
        "--rsync-path",
        "--exclude",
        "--include",
        "--filter",
        "-f",
        "--log-file",
        "--password-file",
        "--port",
    ]);
    recursive_read(an, "rsync", ops.split_last().map_or(&[][..], |(_, sources)| sources));
    // Files it writes on this machine even in a dry run.
    for out in a.values(&["--log-file", "--write-batch", "--only-write-batch"]) {
        an.write_target(&out, "`rsync`");
    }
    if a.long("--daemon") {
        an.raise(CM, "`rsync --daemon` opens a network service");
    }
    // Options handed to the rsync on the other side could be anything.
    if a.value(&["-M", "--remote-option"]).is_some() {
        an.raise(CM, "`rsync -M` passes options to the other side");
    }
    if rsync_dry_run(a) || a.long("--list-only") {
        ro(an, "`rsync --dry-run` only reports");
    } else {
        if a.long_prefix("--delete") || a.long("--remove-source-files") {
            an.raise(DE, "`rsync --delete` removes files at the destination");
        } else {
            an.raise(CM, "`rsync` copies files");
        }
        copy_destination(an, "`rsync`", &ops);
    }
}

/// The last operand of a copier (`rsync`, `scp`) is where it writes: judged as any write there,
/// on this machine or another (`host:/root/.ssh/authorized_keys` locks that machine out).
fn copy_destination(an: &mut Analysis<'_>, what: &str, ops: &[&Arg]) {
    let Some((last, sources)) = ops.split_last() else { return };
    if sources.is_empty() {
        return;
    }
    let target = match last.as_static() {
        Some(t) if t.contains("::") || t.starts_with("rsync://") => return,
        Some(t) if !t.starts_with('/') && !t.starts_with('.') => match t.split_once(':') {
            Some((host, path)) if !host.contains('/') => {
                // `host:` alone is the remote home directory.
                let path = if path.starts_with('/') { path.to_string() } else { format!("/root/{path}") };
                Arg::Static(path)
            }
            _ => (*last).clone(),
        },
        _ => (*last).clone(),
    };
    // A directory named with a trailing slash receives files of the sources' names.
    if let Some(dir) = target.as_static().filter(|t| t.ends_with('/') && t.len() > 1) {
        let names: Vec<String> = sources
            .iter()
            .filter_map(|s| s.as_static())
            .filter(|s| !s.ends_with('/'))
            .filter_map(|s| s.rsplit('/').next().map(|n| format!("{dir}{n}")))
            .collect();
        if names.is_empty() {
            // A tree's contents copied over the directory itself: over a system directory, any
            // file there (the account database, the boot files) may be replaced.
            let dir = dir.trim_end_matches('/');
            let system = matches!(dir, "" | "/etc" | "/boot" | "/usr" | "/root" | "/var" | "/bin" | "/sbin" | "/lib");
            if system || crate::paths::is_vital(dir) {
                an.raise(DE, format!("{what} copies a tree over {dir}, replacing whatever files there it holds"));
            }
            an.write_target(&Arg::Static(dir.to_string()), what);
        }
        for name in names {
            an.write_target(&Arg::Static(name), what);
        }
        return;
    }
    an.write_target(&target, what);
}

/// Whether rsync runs dry: the last of `-n`/`--dry-run` and `--no-n`/`--no-dry-run` wins; short
/// options are read letter by letter, a letter that takes a value ending its cluster. Options
/// handed to the other side (`-M--no-dry-run`) can undo it there.
fn rsync_dry_run(a: &Args<'_>) -> bool {
    if a.value(&["-M", "--remote-option"]).is_some() {
        return false;
    }
    let mut dry = false;
    let mut skip = false;
    for word in a.all.iter().map(Arg::as_static) {
        if std::mem::take(&mut skip) {
            continue;
        }
        let Some(word) = word else { continue };
        if word == "--" {
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            if let Some(negated) = name.strip_prefix("no-") {
                if negated == "n" || (negated.len() >= 2 && "dry-run".starts_with(negated)) {
                    dry = false;
                }
            } else if name.len() >= 3 && "dry-run".starts_with(name) {
                dry = true;
            } else if !long.contains('=') && RSYNC_VALUED.contains(&name) {
                skip = true;
            }
        } else if word.starts_with('-') && word.len() > 1 {
            for (k, c) in word.char_indices().skip(1) {
                if "efBMT@".contains(c) {
                    skip = word.len() == k + 1;
                    break;
                }
                if c == 'n' {
                    dry = true;
                }
            }
        }
    }
    dry
}

/// rsync's long options that take the next word as their value.
#[rustfmt::skip]
const RSYNC_VALUED: &[&str] = &[
    "rsh", "rsync-path", "filter", "exclude", "include", "exclude-from", "include-from", "files-from", "log-file",
    "log-file-format", "out-format", "password-file", "port", "sockopts", "address", "block-size", "remote-option",
    "temp-dir", "partial-dir", "backup-dir", "suffix", "compare-dest", "copy-dest", "link-dest", "chmod", "chown",
    "usermap", "groupmap", "timeout", "contimeout", "modify-window", "max-size", "min-size", "max-delete",
    "max-alloc", "bwlimit", "write-batch", "only-write-batch", "read-batch", "protocol", "iconv", "checksum-choice",
    "compress-choice", "compress-level", "skip-compress", "info", "debug", "stderr", "outbuf", "copy-as",
    "early-input", "config", "dparam", "stop-after", "stop-at", "checksum-seed",
];
