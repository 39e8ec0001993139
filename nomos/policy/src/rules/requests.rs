//! Requests to service APIs by meaning: whatever client sends it (curl, wget, HTTPie, a text
//! browser, an MQTT publish), a request whose method deletes, or whose path, command parameter or
//! body asks a device or service to delete, power off, reset, stop or disable, takes something
//! down or loses data.

use nomos_types::Risk::Destructive as DE;

use crate::shell::{Analysis, Arg};

/// Words that, in a request's path, command or body, ask for a loss or an outage.
#[rustfmt::skip]
const DOWN: &[&str] = &[
    "delete", "destroy", "drop", "truncate", "purge", "prune", "wipe", "erase", "format", "flush", "flushall",
    "flushdb", "remove", "uninstall", "reset", "factoryreset", "factory", "reboot", "restart", "shutdown",
    "poweroff", "halt", "kill", "quit", "stop", "disable", "close", "off", "forceoff", "eject", "deactivate",
    "terminate", "upgrade", "reinstall", "rollback", "decommission", "unmount", "umount", "toggle", "suspend",
    "hibernate", "powercycle", "forcerestart", "gracefulshutdown", "gracefulrestart", "pushpowerbutton", "exit",
];

/// Words that, starting a longer word of a request's path, still ask for a loss (`deleterange`).
const DOWN_PREFIXES: &[&str] =
    &["delete", "destroy", "purge", "wipe", "erase", "truncate", "shutdown", "reboot", "poweroff", "factoryreset"];

/// The last step of a path that takes a service out of its cluster or locks it (`/v1/sys/seal`).
const DOWN_LAST: &[&str] = &["seal", "leave", "step-down", "stepdown", "evacuate", "drain", "standby", "force-leave"];

/// Keys whose value is a command to the device or service (`cmnd=Power Off`, `method=shutdown`).
#[rustfmt::skip]
const COMMAND_KEYS: &[&str] = &[
    "cmnd", "cmd", "command", "switchcmd", "turn", "go", "method", "action", "op", "apply", "do", "func",
    "function", "api", "task", "operation", "mode", "subfunc", "exec", "service", "resettype", "state", "button",
];

/// Keys whose value is a statement run by the service (InfluxQL, SQL): its first word is its verb.
const STATEMENT_KEYS: &[&str] = &["q", "query", "sql", "statement", "stmt"];

/// Keys that switch something on, and the values that switch it off.
const SWITCH_KEYS: &[&str] = &["on", "enable", "enabled", "power", "state", "switch", "output", "active", "relay"];
const OFF_VALUES: &[&str] = &["false", "off", "0", "none", "disabled", "disable", "no"];

/// HTTP methods that delete what the URL names.
const DELETING_METHODS: &[&str] = &["DELETE", "PURGE"];

/// Raises destructive when a request asks a service to delete, power off, reset or stop.
/// `method` is the method as given (any case), `urls` the addresses, `bodies` the data sent,
/// `headers` the request's headers.
pub(crate) fn judge(
    an: &mut Analysis<'_>,
    client: &str,
    method: Option<&str>,
    urls: &[String],
    bodies: &[String],
    headers: &[String],
) {
    if let Some(why) = takes_down(method, urls, bodies, headers) {
        an.raise(DE, format!("`{client}` {why}: a device or service acting on it goes down or loses data"));
    }
}

/// Why a request takes something down or deletes, if it does.
pub(crate) fn takes_down(
    method: Option<&str>,
    urls: &[String],
    bodies: &[String],
    headers: &[String],
) -> Option<String> {
    if let Some(m) = method.map(|m| m.trim().to_ascii_uppercase()).filter(|m| DELETING_METHODS.contains(&m.as_str())) {
        return Some(format!("sends a {m} request"));
    }
    // A method override in a header, the query or the body (`X-HTTP-Method-Override: DELETE`, `_method=delete`).
    for text in headers.iter().chain(urls).chain(bodies) {
        let t = decoded(text).to_ascii_lowercase();
        let overridden = ["method-override", "x-http-method", "_method", "x-method"].iter().any(|k| {
            t.split(k).skip(1).any(|rest| {
                let value = rest.trim_start_matches([':', '=', ' ', '"', '\'']);
                DELETING_METHODS.iter().any(|d| value.to_ascii_uppercase().starts_with(d))
            })
        });
        if overridden {
            return Some("overrides its method to DELETE".to_string());
        }
    }
    for url in urls {
        if let Some(w) = url_down(url) {
            return Some(format!("asks for `{w}`"));
        }
    }
    for body in bodies {
        let b = decoded(body);
        let found = if b.trim_start().starts_with(['{', '[']) || !b.contains('=') {
            words_down(&words(&b))
        } else {
            pairs_down(&b)
        };
        if let Some(w) = found {
            return Some(format!("sends `{w}`"));
        }
    }
    None
}

/// A URL's path words, its query's keys, its command parameters' values and switches set off.
fn url_down(url: &str) -> Option<String> {
    let d = decoded(url);
    let rest = d.split_once("://").map_or(d.as_str(), |(_, r)| r);
    // The host names no action; the path and query may.
    let after_host = rest.split_once('/').map_or("", |(_, p)| p);
    let (path, query) = after_host.split_once('?').unwrap_or((after_host, ""));
    // WLED and some appliances put their commands after `&` in the path itself (`/win&T=0`).
    let (path, path_query) = path.split_once('&').unwrap_or((path, ""));
    let path_words = words(path);
    if let Some(w) = words_down(&path_words) {
        return Some(w);
    }
    if let Some(w) = path_words.iter().find(|w| DOWN_PREFIXES.iter().any(|p| w.starts_with(p))) {
        return Some(w.clone());
    }
    if let Some(last) = path.trim_end_matches('/').rsplit('/').next().filter(|l| DOWN_LAST.contains(l)) {
        return Some(last.to_string());
    }
    let query = if path_query.is_empty() { query.to_string() } else { format!("{path_query}&{query}") };
    // WLED's `/win` takes `T=0` for off.
    let wled = path.trim_end_matches('/').ends_with("win");
    if wled && query.split('&').any(|kv| kv.eq_ignore_ascii_case("t=0")) {
        return Some("win&T=0".to_string());
    }
    pairs_down(&query)
}

/// `key=value&…` pairs: a key that names an action, a command key's value, a statement's verb,
/// or a switch set off.
fn pairs_down(query: &str) -> Option<String> {
    for pair in query.split(['&', ';', '\n']).filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key_words = words(key);
        if let Some(w) = words_down(&key_words) {
            return Some(w);
        }
        let k = key.trim().to_ascii_lowercase();
        let value_words = words(value);
        if COMMAND_KEYS.contains(&k.as_str()) || k.ends_with("cmd") || k.ends_with("command") {
            if let Some(w) = words_down(&value_words) {
                return Some(format!("{k}={w}"));
            }
        }
        if STATEMENT_KEYS.contains(&k.as_str()) {
            if let Some(verb) = value_words.first().filter(|v| matches!(v.as_str(), "drop" | "delete" | "truncate")) {
                return Some(format!("{k}={verb} …"));
            }
        }
        // A device's address set to nothing cuts it off the network.
        let address = key_words.last().is_some_and(|w| w.ends_with("ipaddress") || w == "ip" || w == "gateway");
        if address && matches!(value.trim(), "0.0.0.0" | "" | "none") {
            return Some(format!("{k}={value}"));
        }
        let switch = key_words.last().is_some_and(|w| SWITCH_KEYS.contains(&w.as_str()));
        if switch && value_words.first().is_some_and(|v| OFF_VALUES.contains(&v.as_str())) {
            return Some(format!("{k}={value}"));
        }
    }
    None
}

/// A deleting or stopping word among these, or a switch key followed by an off value
/// (`"on":false`, `"enable":"none"`), or a power button pressed.
fn words_down(ws: &[String]) -> Option<String> {
    if let Some(w) = ws.iter().find(|w| DOWN.contains(&w.as_str())) {
        return Some(w.clone());
    }
    for pair in ws.windows(2) {
        if let [k, v] = pair {
            if SWITCH_KEYS.contains(&k.as_str()) && OFF_VALUES.contains(&v.as_str()) && v != "0" && v != "no" {
                return Some(format!("{k} {v}"));
            }
        }
    }
    let has = |w: &str| ws.iter().any(|x| x == w);
    if has("power") && (has("press") || has("button") || has("cycle") || has("hard") || has("long")) {
        return Some("power button".to_string());
    }
    None
}

/// Lower-case words of a text, split at every non-alphanumeric character, in order; then the
/// parts of camel-cased words (`FactoryReset` is also `factory` and `reset`, `cmdStop` is `stop`).
pub(crate) fn words(text: &str) -> Vec<String> {
    let pieces = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty());
    let mut out: Vec<String> = pieces.clone().map(str::to_lowercase).collect();
    for piece in pieces {
        let mut parts = Vec::new();
        let mut cur = String::new();
        let mut prev_lower = false;
        for c in piece.chars() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                parts.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase();
            cur.extend(c.to_lowercase());
        }
        if !parts.is_empty() {
            parts.push(cur);
            out.extend(parts);
        }
    }
    out
}

/// A text with `%XX` escapes decoded and `+` read as a space, as a server reads a query.
fn decoded(text: &str) -> String {
    super::network::decode_escapes(text, true)
}

/// Every text a word can be: its literal values, and as written.
pub(crate) fn texts(arg: &Arg) -> Vec<String> {
    let mut out: Vec<String> = arg.values().into_iter().map(str::to_string).collect();
    out.push(arg.shown().to_string());
    out
}

/// Clients judged here whatever their table entry says.
pub(crate) const CLIENTS: &[&str] =
    &["http", "https", "xh", "xhs", "httpie", "mosquitto_pub", "lynx", "links", "elinks", "w3m", "aria2c", "axel"];

/// Clients this module reads by their own grammar: HTTPie and xh (`http [METHOD] URL ITEM…`),
/// MQTT publishes (topic and message), text browsers and downloaders (their URLs).
pub(crate) fn client(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    match base {
        "http" | "https" | "xh" | "xhs" | "httpie" => httpie(an, base, args),
        "mosquitto_pub" | "mqttx" | "mqtt" => {
            // A publish's topic and message are the device's command (`cmnd/plug/POWER` `OFF`).
            let mut texts_sent = Vec::new();
            let mut it = args.iter();
            while let Some(a) = it.next() {
                let w = a.shown();
                if matches!(w, "-t" | "--topic" | "-m" | "--message") {
                    if let Some(v) = it.next() {
                        texts_sent.extend(texts(v));
                    }
                } else if let Some(v) = w.strip_prefix("--topic=").or_else(|| w.strip_prefix("--message=")) {
                    texts_sent.push(v.to_string());
                }
            }
            let sent = words(&texts_sent.join(" "));
            // A relay or power topic given an off value (`cmnd/pdu/POWER2` `0`).
            let switch_off = sent.iter().any(|w| w.starts_with("power") || w.starts_with("relay"))
                && sent.last().is_some_and(|v| OFF_VALUES.contains(&v.as_str()));
            if switch_off {
                an.raise(DE, format!("`{base}` publishes a relay or power off: the device goes down"));
            }
            if let Some(w) = words_down(&sent) {
                an.raise(DE, format!("`{base}` publishes `{w}`: a device acting on it goes down or loses data"));
            }
        }
        _ => {
            // Any other program given a URL: its path and query are judged as a GET.
            let urls: Vec<String> =
                args.iter().flat_map(texts).filter(|u| u.contains("://") || u.starts_with("www.")).collect();
            if !urls.is_empty() {
                judge(an, base, None, &urls, &[], &[]);
            }
        }
    }
}

/// HTTPie's grammar: an optional method, the URL, then items: `Header:value`, `field=value`,
/// `field:=json`, `param==value`.
fn httpie(an: &mut Analysis<'_>, base: &str, args: &[Arg]) {
    let positional: Vec<&Arg> = args.iter().filter(|a| !a.shown().starts_with('-')).collect();
    let first = positional.first().map(|a| a.shown().to_string()).unwrap_or_default();
    let is_method = !first.is_empty() && first.chars().all(|c| c.is_ascii_alphabetic()) && !first.contains('.');
    let (method, rest) =
        if is_method { (Some(first), positional.get(1..).unwrap_or(&[])) } else { (None, positional.as_slice()) };
    let Some((url, items)) = rest.split_first() else { return };
    let mut headers = Vec::new();
    let mut bodies = Vec::new();
    let mut urls = texts(url);
    for item in items {
        for t in texts(item) {
            if t.contains("==") {
                urls.push(format!("/?{}", t.replacen("==", "=", 1)));
            } else if t.contains(":=") || t.contains('=') {
                bodies.push(t.replacen(":=", "=", 1));
            } else if t.contains(':') {
                headers.push(t);
            }
        }
    }
    // Fields sent as JSON: each `k=v` is a pair of words.
    let body = vec![bodies.join("&")];
    judge(an, base, method.as_deref(), &urls, &body, &headers);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn down(m: Option<&str>, url: &str, body: &str) -> bool {
        let b: Vec<String> = if body.is_empty() { vec![] } else { vec![body.to_string()] };
        takes_down(m, &[url.to_string()], &b, &[]).is_some()
    }

    #[test]
    fn requests_by_meaning() {
        assert!(down(Some("delete"), "http://es:9200/logs", ""));
        assert!(down(None, "http://x/rpc/Shelly.FactoryReset", ""));
        assert!(down(None, "http://x/cm?cmnd=Power%20Off", ""));
        assert!(down(None, "http://x/query?q=DROP+DATABASE+x", ""));
        assert!(down(Some("POST"), "http://x/api", r#"{"on":false}"#));
        assert!(down(None, "http://x/update.htm?cmdStop=Stop", ""));
        assert!(!down(None, "http://x/api/v1/query?query=node_network_receive_drop_total", ""));
        assert!(!down(None, "http://x/api/health", ""));
        assert!(!down(None, "http://x/cm?cmnd=Power", ""));
        assert!(!down(Some("POST"), "http://x/_search", r#"{"query":{"match_all":{}}}"#));
    }
}
