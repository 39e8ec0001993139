//! The Observe pages' logic without a DOM (tested natively): the signal filters, the "affects"
//! line, the operator's ack reason and mute span, and the add-a-check form.

use nomos_types::observe::Severity;
use nomos_types::{CheckKind, CheckSpec, SignalQuery, SignalState};

/// The spans a signal can be muted for, as offered: label and seconds.
pub const MUTE_SPANS: [(&str, u64); 3] = [("1 h", 3_600), ("8 h", 8 * 3_600), ("1 d", 86_400)];
/// The mute choice that reads the hours from a field.
pub const CUSTOM: &str = "custom";
/// The longest mute accepted: a year hides a problem for good, which is what Resolve is for.
const MAX_MUTE_HOURS: f64 = 24.0 * 365.0;

/// The query of the Signals page's filters (each blank means any; no state means not resolved).
pub fn signal_query(state: &str, severity: &str, entity: &str) -> SignalQuery {
    SignalQuery {
        state: state.parse::<SignalState>().ok(),
        severity: severity.parse::<Severity>().ok(),
        entity: Some(entity.trim().to_string()).filter(|e| !e.is_empty()),
        limit: Some(200),
    }
}

/// "affects 8: a, b, c, …": what depends on the signal's entity. `None` when nothing does.
pub fn affects_line(affects: i64, names: &[String]) -> Option<String> {
    if affects <= 0 {
        return None;
    }
    if names.is_empty() {
        return Some(format!("affects {affects}"));
    }
    let more = if affects > names.len() as i64 { ", …" } else { "" };
    Some(format!("affects {affects}: {}{more}", names.join(", ")))
}

/// The reason an ack needs, trimmed; an error when there is none.
pub fn ack_reason(text: &str) -> Result<String, &'static str> {
    let reason = text.trim();
    if reason.is_empty() {
        Err("Say why: the reason is kept with the signal.")
    } else {
        Ok(reason.to_string())
    }
}

/// Seconds to mute for: `choice` is one of [`MUTE_SPANS`] in seconds, or [`CUSTOM`] with the
/// hours typed (decimals allowed).
pub fn mute_seconds(choice: &str, custom_hours: &str) -> Result<u64, String> {
    if choice != CUSTOM {
        return choice.parse::<u64>().map_err(|_| format!("Not a mute span: {choice}"));
    }
    let hours: f64 = custom_hours.trim().replace(',', ".").parse().map_err(|_| "Hours as a number, e.g. 4 or 0.5")?;
    if !hours.is_finite() || hours <= 0.0 {
        return Err("More than 0 hours.".into());
    }
    if hours > MAX_MUTE_HOURS {
        return Err("At most a year; resolve it instead.".into());
    }
    Ok((hours * 3_600.0).round().max(1.0) as u64)
}

/// The check kinds the add form offers, by label.
pub const CHECK_KINDS: [&str; 5] = ["service", "tcp", "http", "dns", "certificate"];

/// The add-a-check form as typed.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckForm {
    pub kind: String,
    pub name: String,
    pub unit: String,
    pub address: String,
    pub port: String,
    pub url: String,
    pub expect_status: String,
    pub dns_name: String,
    pub dns_expect: String,
    pub interval: String,
}

impl Default for CheckForm {
    fn default() -> Self {
        CheckForm {
            kind: "service".into(),
            name: String::new(),
            unit: String::new(),
            address: String::new(),
            port: String::new(),
            url: String::new(),
            expect_status: "200".into(),
            dns_name: String::new(),
            dns_expect: String::new(),
            interval: String::new(),
        }
    }
}

fn required(value: &str, what: &str) -> Result<String, String> {
    Some(value.trim().to_string()).filter(|v| !v.is_empty()).ok_or_else(|| format!("{what} is needed."))
}

/// The check the form describes for `entity`, or what is missing or wrong. The name defaults to
/// what is checked (the unit, `address:port`, the URL, the name).
pub fn check_spec(entity: &str, form: &CheckForm) -> Result<CheckSpec, String> {
    let kind = match form.kind.as_str() {
        "service" => CheckKind::Service { unit: required(&form.unit, "The unit")? },
        "tcp" => CheckKind::Tcp {
            address: required(&form.address, "The address")?,
            port: form.port.trim().parse::<u16>().ok().filter(|p| *p > 0).ok_or("A port from 1 to 65535.")?,
        },
        "http" => CheckKind::Http {
            url: required(&form.url, "The URL")?,
            expect_status: form
                .expect_status
                .trim()
                .parse::<u16>()
                .ok()
                .filter(|s| (100..=599).contains(s))
                .ok_or("An HTTP status from 100 to 599.")?,
        },
        "dns" => CheckKind::Dns {
            name: required(&form.dns_name, "The name")?,
            expect: Some(form.dns_expect.trim().to_string()).filter(|e| !e.is_empty()),
        },
        "certificate" => CheckKind::Certificate { url: required(&form.url, "The URL")? },
        other => return Err(format!("Not a kind of check: {other}")),
    };
    let interval_s = match form.interval.trim() {
        "" => None,
        typed => Some(typed.parse::<u32>().ok().filter(|s| *s >= 30).ok_or("Every 30 seconds or more.")?),
    };
    let name = match form.name.trim() {
        "" => check_target(&kind),
        typed => typed.to_string(),
    };
    Ok(CheckSpec { entity: entity.to_string(), name, kind, interval_s })
}

/// What a check looks at, in a few words.
pub fn check_target(kind: &CheckKind) -> String {
    match kind {
        CheckKind::Service { unit } => unit.clone(),
        CheckKind::Tcp { address, port } => format!("{address}:{port}"),
        CheckKind::Http { url, expect_status } => format!("{url} → {expect_status}"),
        CheckKind::Dns { name, expect: Some(expect) } => format!("{name} → {expect}"),
        CheckKind::Dns { name, expect: None } => name.clone(),
        CheckKind::Certificate { url } => url.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_become_the_query() {
        let q = signal_query("", "", "  ");
        assert_eq!((q.state, q.severity, q.entity), (None, None, None), "blank: everything not resolved");
        let q = signal_query("acked", "critical", " lxc:caddy ");
        assert_eq!(q.state, Some(SignalState::Acked));
        assert_eq!(q.severity, Some(Severity::Critical));
        assert_eq!(q.entity.as_deref(), Some("lxc:caddy"));
    }

    #[test]
    fn the_affects_line_says_how_many_and_who() {
        assert_eq!(affects_line(0, &[]), None);
        assert_eq!(affects_line(2, &[]).as_deref(), Some("affects 2"));
        let names = vec!["caddy".to_string(), "nextcloud".to_string()];
        assert_eq!(affects_line(2, &names).as_deref(), Some("affects 2: caddy, nextcloud"));
        assert_eq!(affects_line(8, &names).as_deref(), Some("affects 8: caddy, nextcloud, …"));
    }

    #[test]
    fn an_ack_needs_a_reason() {
        assert!(ack_reason("  ").is_err());
        assert_eq!(ack_reason(" disk swap planned "), Ok("disk swap planned".to_string()));
    }

    #[test]
    fn mute_spans() {
        assert_eq!(mute_seconds("3600", ""), Ok(3_600));
        assert_eq!(mute_seconds(CUSTOM, "0,5"), Ok(1_800));
        assert_eq!(mute_seconds(CUSTOM, "36"), Ok(129_600));
        assert!(mute_seconds(CUSTOM, "").is_err());
        assert!(mute_seconds(CUSTOM, "-1").is_err());
        assert!(mute_seconds(CUSTOM, "NaN").is_err());
        assert!(mute_seconds(CUSTOM, "99999").is_err());
        assert!(mute_seconds("soon", "").is_err());
    }

    #[test]
    fn the_form_makes_a_spec_of_each_kind() {
        let form = |kind: &str| CheckForm { kind: kind.into(), ..CheckForm::default() };
        assert_eq!(check_spec("lxc:a", &form("service")), Err("The unit is needed.".into()));
        let spec = check_spec("lxc:a", &CheckForm { unit: " caddy ".into(), ..form("service") }).unwrap();
        assert_eq!(
            (spec.name.as_str(), spec.kind, spec.interval_s),
            ("caddy", CheckKind::Service { unit: "caddy".into() }, None)
        );

        let tcp = CheckForm { address: "10.0.0.5".into(), port: "70000".into(), ..form("tcp") };
        assert!(check_spec("lxc:a", &tcp).is_err());
        let spec = check_spec("lxc:a", &CheckForm { port: "443".into(), ..tcp }).unwrap();
        assert_eq!(spec.name, "10.0.0.5:443");

        let http = CheckForm {
            url: "https://ü.example/".into(),
            name: "front".into(),
            interval: "120".into(),
            ..form("http")
        };
        let spec = check_spec("lxc:a", &http).unwrap();
        assert_eq!(spec.kind, CheckKind::Http { url: "https://ü.example/".into(), expect_status: 200 });
        assert_eq!((spec.name.as_str(), spec.interval_s), ("front", Some(120)));
        assert!(check_spec("lxc:a", &CheckForm { interval: "10".into(), ..http.clone() }).is_err());
        assert!(check_spec("lxc:a", &CheckForm { expect_status: "42".into(), ..http }).is_err());

        let dns = CheckForm { dns_name: "nas.lan".into(), ..form("dns") };
        assert_eq!(check_spec("lxc:a", &dns).unwrap().kind, CheckKind::Dns { name: "nas.lan".into(), expect: None });
        let cert = CheckForm { url: "https://a".into(), ..form("certificate") };
        assert_eq!(check_spec("lxc:a", &cert).unwrap().kind, CheckKind::Certificate { url: "https://a".into() });
        assert!(check_spec("lxc:a", &form("ping")).is_err());
    }
}
