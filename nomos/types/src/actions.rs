//! Curated actions: named operations with checked parameters, as one typed enum, [`Action`].
//!
//! Its JSON Schema ([`schema`]) is the agent's tool schema and the source of `nomos action
//! --help`. Every way into an `Action` — the command line's `KEY=VALUE` text, the agent's JSON, a
//! value built in code — goes through [`Action::from_json`], the one place parameters are checked:
//! names, types, required ones and ranges from the schema (numbers may be written as text,
//! booleans as true/false, 1/0, yes/no or on/off), then what the schema cannot say (unit names,
//! hostnames, addresses).

use std::fmt;
use std::net::Ipv4Addr;
use std::str::FromStr;
use std::sync::OnceLock;

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Map;

use crate::{Json, UnknownValue};

/// A curated action and its parameters. Serialised with its name in `action`:
/// `{"action": "restart", "unit": "nginx"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Restart a systemd unit. Target: a host or a container.
    Restart {
        /// The unit (`nginx`, `nginx.service`, `getty@tty1.service`).
        unit: String,
    },
    /// Run one systemctl verb on a unit. Target: a host or a container.
    Systemctl {
        verb: SystemctlVerb,
        /// The unit (`nginx`, `nginx.service`, `getty@tty1.service`).
        unit: String,
    },
    /// Upgradable packages: `audit` lists them (read-only); `upgrade` installs them (needs
    /// approval, runs in the background). Target: a host or a container.
    AptUpgrade {
        #[serde(default = "defaults::mode")]
        mode: AptMode,
    },
    /// Run a shell command inside a container, recorded under this action's name (the gate
    /// judges the command as it would any other). Target: a container (`lxc:<name>`).
    PctExec {
        /// The command, exactly as given.
        command: String,
    },
    /// Create a container and start it, in the background; once it exists it is registered in
    /// the graph as `lxc:<hostname>`, hosted by the target. Target: the Proxmox host.
    PctCreate(PctCreate),
}

crate::string_enum!(
    /// The `systemctl` verbs an action may use (others go through a plain command, judged as
    /// they are).
    #[derive(JsonSchema)]
    SystemctlVerb {
        Start => "start",
        Stop => "stop",
        Restart => "restart",
        Reload => "reload",
        TryRestart => "try-restart",
        ReloadOrRestart => "reload-or-restart",
        Enable => "enable",
        Disable => "disable",
        Status => "status",
        IsActive => "is-active",
    }
);

crate::string_enum!(
    /// `audit`: list upgradable packages (read-only); `upgrade`: install them.
    #[derive(JsonSchema)]
    AptMode {
        Audit => "audit",
        Upgrade => "upgrade",
    }
);

/// The parameters of a new container.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PctCreate {
    /// Its hostname: letters, digits and inner hyphens, dot-separated.
    pub hostname: String,
    /// Its Proxmox id; if missing or taken, the cluster's next free one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 100, max = 999_999_999))]
    pub vmid: Option<u64>,
    /// A cached template (its volume id, or part of its name); if missing, the newest Debian one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    /// CPU cores.
    #[serde(default = "defaults::cores")]
    #[schemars(range(min = 1, max = 512))]
    pub cores: u64,
    /// Memory in MiB.
    #[serde(default = "defaults::memory")]
    #[schemars(range(min = 16, max = 4_194_304))]
    pub memory: u64,
    /// Swap in MiB.
    #[serde(default = "defaults::swap")]
    #[schemars(range(min = 0, max = 4_194_304))]
    pub swap: u64,
    /// Root disk size in GB.
    #[serde(default = "defaults::disk_gb")]
    #[schemars(range(min = 1, max = 1_048_576))]
    pub disk_gb: u64,
    /// The storage for the root disk; if missing, one the host provides for containers
    /// (`local-lvm` if none is known).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<String>,
    /// `dhcp`, or a static IPv4 address with its prefix (`10.0.0.50/24`).
    #[serde(default = "defaults::ip")]
    pub ip: String,
    /// The gateway of a static address (needed with one, not with `dhcp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gw: Option<String>,
    /// The network bridge.
    #[serde(default = "defaults::bridge")]
    pub bridge: String,
    /// An unprivileged container.
    #[serde(default = "defaults::yes")]
    pub unprivileged: bool,
    /// Allow nesting (containers or systemd features inside).
    #[serde(default = "defaults::yes")]
    pub nesting: bool,
    /// Start it once created.
    #[serde(default = "defaults::yes")]
    pub start: bool,
}

mod defaults {
    pub fn mode() -> super::AptMode {
        super::AptMode::Audit
    }
    pub fn cores() -> u64 {
        1
    }
    pub fn memory() -> u64 {
        512
    }
    pub fn swap() -> u64 {
        512
    }
    pub fn disk_gb() -> u64 {
        8
    }
    pub fn ip() -> String {
        "dhcp".into()
    }
    pub fn bridge() -> String {
        "vmbr0".into()
    }
    pub fn yes() -> bool {
        true
    }
}

/// Parameters that do not make an action; the message names the action and the parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionError(pub String);

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ActionError {}

fn invalid(message: impl Into<String>) -> ActionError {
    ActionError(message.into())
}

/// The JSON Schema (draft 2020-12, no references) of [`Action`]: a `oneOf` with one object per
/// action, its name the constant `action` property.
pub fn schema() -> &'static Json {
    static SCHEMA: OnceLock<Json> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let generator = SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true).into_generator();
        generator.into_root_schema_for::<Action>().to_value()
    })
}

/// One action as the schema describes it.
#[derive(Debug, Clone, Copy)]
pub struct ActionSchema {
    pub name: &'static str,
    pub description: &'static str,
    /// The parameters' schemas by name (`action` excluded).
    pub properties: &'static Map<String, Json>,
    /// The required parameters, in the order they are declared.
    pub required: &'static [Json],
}

impl ActionSchema {
    /// Every action, in the order they are declared.
    pub fn all() -> Vec<ActionSchema> {
        schema()
            .get("oneOf")
            .and_then(Json::as_array)
            .map(|variants| variants.iter().filter_map(ActionSchema::of).collect())
            .unwrap_or_default()
    }

    pub fn named(name: &str) -> Option<ActionSchema> {
        ActionSchema::all().into_iter().find(|a| a.name == name)
    }

    fn of(variant: &'static Json) -> Option<ActionSchema> {
        let properties = variant.get("properties").and_then(Json::as_object)?;
        Some(ActionSchema {
            name: properties.get("action")?.get("const")?.as_str()?,
            description: variant.get("description").and_then(Json::as_str).unwrap_or(""),
            properties,
            required: variant.get("required").and_then(Json::as_array).map_or(&[], Vec::as_slice),
        })
    }

    /// The parameter names, required ones first (as declared), then the others by name.
    pub fn parameters(&self) -> Vec<&'static str> {
        let required: Vec<&'static str> =
            self.required.iter().filter_map(Json::as_str).filter(|k| *k != "action").collect();
        let mut optional: Vec<&'static str> =
            self.properties.keys().map(String::as_str).filter(|k| *k != "action" && !required.contains(k)).collect();
        optional.sort_unstable();
        [required, optional].concat()
    }

    pub fn is_required(&self, parameter: &str) -> bool {
        self.required.iter().any(|r| r.as_str() == Some(parameter))
    }
}

impl Action {
    /// The action's name (`restart`, `pct_create`).
    pub fn name(&self) -> &'static str {
        match self {
            Action::Restart { .. } => "restart",
            Action::Systemctl { .. } => "systemctl",
            Action::AptUpgrade { .. } => "apt_upgrade",
            Action::PctExec { .. } => "pct_exec",
            Action::PctCreate(_) => "pct_create",
        }
    }

    /// The action `name` with `params` as given on a command line or in a form (numbers and
    /// booleans may be text); checked as [`Action::from_json`] does.
    pub fn parse(name: &str, params: &Map<String, Json>) -> Result<Action, ActionError> {
        let mut map = Map::new();
        map.insert("action".into(), Json::String(name.to_string()));
        for (k, v) in params {
            if k == "action" {
                return Err(invalid(format!("{name}: `action` is not a parameter")));
            }
            map.insert(k.clone(), v.clone());
        }
        Action::from_json(&Json::Object(map))
    }

    /// The action a JSON object describes (`{"action": "restart", "unit": "nginx"}`), checked:
    /// the one place an action's parameters are validated.
    pub fn from_json(value: &Json) -> Result<Action, ActionError> {
        let known = || ActionSchema::all().iter().map(|a| a.name).collect::<Vec<_>>().join(", ");
        let Json::Object(map) = value else {
            return Err(invalid(format!("an action is a JSON object, got {value}")));
        };
        let name = match map.get("action") {
            Some(Json::String(name)) => name.trim(),
            _ => return Err(invalid(format!("an action names itself in `action`; known: {}", known()))),
        };
        let Some(schema) = ActionSchema::named(name) else {
            return Err(invalid(format!("unknown action `{name}`; known: {}", known())));
        };
        let mut typed = Map::new();
        typed.insert("action".into(), Json::String(name.to_string()));
        for (key, value) in map.iter().filter(|(k, _)| *k != "action") {
            let Some(property) = schema.properties.get(key) else {
                return Err(invalid(format!(
                    "{name}: unknown parameter `{key}`; allowed: {}",
                    schema.parameters().join(", ")
                )));
            };
            if let Some(v) = read(name, key, value, property)? {
                typed.insert(key.clone(), v);
            }
        }
        if let Some(missing) =
            schema.parameters().into_iter().find(|p| schema.is_required(p) && !typed.contains_key(*p))
        {
            return Err(invalid(format!("{name}: `{missing}` is required")));
        }
        let action: Action =
            serde_json::from_value(Json::Object(typed)).map_err(|e| invalid(format!("{name}: {e}")))?;
        action.checked_names()
    }

    /// This action, checked like one that came in as JSON (for values built in code).
    pub fn checked(&self) -> Result<Action, ActionError> {
        let value = serde_json::to_value(self).map_err(|e| invalid(format!("{}: {e}", self.name())))?;
        Action::from_json(&value)
    }

    /// What the schema cannot say: names a shell would split, hostnames, addresses.
    fn checked_names(self) -> Result<Action, ActionError> {
        Ok(match self {
            Action::Restart { unit } => Action::Restart { unit: unit_name(unit.trim())? },
            Action::Systemctl { verb, unit } => Action::Systemctl { verb, unit: unit_name(unit.trim())? },
            Action::PctCreate(p) => Action::PctCreate(p.checked_names()?),
            other @ (Action::AptUpgrade { .. } | Action::PctExec { .. }) => other,
        })
    }
}

impl PctCreate {
    fn checked_names(self) -> Result<PctCreate, ActionError> {
        let hostname = self.hostname.trim().to_string();
        check_hostname(&hostname)?;
        let word = |what: &str, value: Option<String>| -> Result<Option<String>, ActionError> {
            let value = value.map(|v| v.trim().to_string());
            if let Some(v) = &value {
                check_word(what, v)?;
            }
            Ok(value)
        };
        let storage = word("storage", self.storage)?;
        let bridge = word("bridge", Some(self.bridge))?.unwrap_or_default();
        let ip = self.ip.trim().to_string();
        let gw = self.gw.map(|g| g.trim().to_string());
        if ip == "dhcp" {
            if gw.is_some() {
                return Err(invalid("pct_create: a gateway goes with a static ip, not with dhcp"));
            }
        } else {
            check_cidr(&ip)?;
        }
        if let Some(gw) = &gw {
            check_ipv4(gw)?;
        }
        let template = self.template.map(|t| t.trim().to_string());
        Ok(PctCreate { hostname, storage, bridge, ip, gw, template, ..self })
    }

    /// Whether its address is static (then it needs a gateway).
    pub fn is_static(&self) -> bool {
        self.ip != "dhcp"
    }
}

/// A parameter's value as its schema types it: text for strings (numbers become text), whole
/// numbers (also from text) within their range, booleans as people write them, one of the
/// allowed values. Empty text and `null` mean "not given".
fn read(action: &str, key: &str, value: &Json, property: &Json) -> Result<Option<Json>, ActionError> {
    let ty = match property.get("type") {
        Some(Json::String(t)) => t.as_str(),
        Some(Json::Array(types)) => types.iter().filter_map(Json::as_str).find(|t| *t != "null").unwrap_or("null"),
        _ => "string",
    };
    if value.is_null() || value.as_str().is_some_and(|s| s.trim().is_empty()) {
        return Ok(None);
    }
    let read = match ty {
        "integer" => Json::from(whole_number(action, key, value, property)?),
        "boolean" => Json::Bool(boolean(action, key, value)?),
        _ => match value {
            Json::String(s) => Json::String(s.clone()),
            Json::Number(n) => Json::String(n.to_string()),
            other => return Err(invalid(format!("{action}: `{key}` must be text, got {other}"))),
        },
    };
    if let Some(allowed) = property.get("enum").and_then(Json::as_array) {
        let given = read.as_str().map(str::trim).unwrap_or_default();
        if !allowed.iter().any(|a| a.as_str() == Some(given)) {
            let names: Vec<&str> = allowed.iter().filter_map(Json::as_str).collect();
            return Err(invalid(format!("{action}: {key} `{given}` is not one of {}", names.join(", "))));
        }
        return Ok(Some(Json::String(given.to_string())));
    }
    Ok(Some(read))
}

fn whole_number(action: &str, key: &str, value: &Json, property: &Json) -> Result<u64, ActionError> {
    let n = match value {
        Json::Number(n) => n.as_u64().ok_or_else(|| invalid(format!("{action}: `{key}` must be a whole number")))?,
        Json::String(s) => {
            s.trim().parse().map_err(|_| invalid(format!("{action}: `{key}` must be a whole number, got `{s}`")))?
        }
        other => return Err(invalid(format!("{action}: `{key}` must be a whole number, got {other}"))),
    };
    let min = property.get("minimum").and_then(Json::as_u64).unwrap_or(0);
    let max = property.get("maximum").and_then(Json::as_u64).unwrap_or(u64::MAX);
    if !(min..=max).contains(&n) {
        return Err(invalid(format!("{action}: `{key}` must be between {min} and {max}, got {n}")));
    }
    Ok(n)
}

/// Booleans as models and people write them: true/false, 1/0, yes/no, on/off.
fn boolean(action: &str, key: &str, value: &Json) -> Result<bool, ActionError> {
    let bad =
        |v: &dyn fmt::Display| invalid(format!("{action}: `{key}` must be true/false, 1/0, yes/no or on/off, got {v}"));
    match value {
        Json::Bool(b) => Ok(*b),
        Json::Number(n) => match n.as_u64() {
            Some(0) => Ok(false),
            Some(1) => Ok(true),
            _ => Err(bad(n)),
        },
        Json::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(true),
            "false" | "0" | "no" | "off" => Ok(false),
            _ => Err(bad(&format!("`{s}`"))),
        },
        other => Err(bad(other)),
    }
}

/// A systemd unit name; refuses anything a shell would read as more than one word.
fn unit_name(unit: &str) -> Result<String, ActionError> {
    let ok = !unit.is_empty()
        && unit.len() <= 256
        && !unit.starts_with('-')
        && unit.chars().all(|c| c.is_ascii_alphanumeric() || "@._:-\\".contains(c));
    if ok {
        Ok(unit.to_string())
    } else {
        Err(invalid(format!("`{unit}` is not a systemd unit name")))
    }
}

fn check_hostname(name: &str) -> Result<(), ActionError> {
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if name.len() <= 253 && name.split('.').all(label_ok) {
        Ok(())
    } else {
        Err(invalid(format!(
            "pct_create: `{name}` is not a valid hostname (letters, digits and inner hyphens, dot-separated)"
        )))
    }
}

fn check_word(what: &str, value: &str) -> Result<(), ActionError> {
    if !value.is_empty() && value.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
        Ok(())
    } else {
        Err(invalid(format!("pct_create: `{value}` is not a valid {what} name")))
    }
}

fn check_ipv4(addr: &str) -> Result<(), ActionError> {
    addr.parse::<Ipv4Addr>().map(|_| ()).map_err(|_| invalid(format!("pct_create: `{addr}` is not an IPv4 address")))
}

fn check_cidr(ip: &str) -> Result<(), ActionError> {
    let bad = || {
        invalid(format!("pct_create: ip must be `dhcp` or an address with its prefix, e.g. 10.0.0.50/24; got `{ip}`"))
    };
    let (addr, prefix) = ip.split_once('/').ok_or_else(bad)?;
    addr.parse::<Ipv4Addr>().map_err(|_| bad())?;
    match prefix.parse::<u8>() {
        Ok(p) if (1..=32).contains(&p) => Ok(()),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(v: Json) -> Map<String, Json> {
        match v {
            Json::Object(m) => m,
            _ => unreachable!(),
        }
    }

    fn parse(name: &str, v: Json) -> Result<Action, ActionError> {
        Action::parse(name, &params(v))
    }

    #[test]
    fn the_schema_names_each_action_its_parameters_types_and_limits() {
        let s = schema();
        assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert!(!s.to_string().contains("$ref"), "no references: a tool schema stands alone");
        let names: Vec<&str> = ActionSchema::all().iter().map(|a| a.name).collect();
        assert_eq!(names, ["restart", "systemctl", "apt_upgrade", "pct_exec", "pct_create"]);
        let required = |name: &str| ActionSchema::named(name).unwrap().parameters();
        assert_eq!(required("restart"), ["unit"]);
        assert_eq!(required("systemctl"), ["verb", "unit"]);
        assert_eq!(required("apt_upgrade"), ["mode"]);
        assert_eq!(required("pct_exec"), ["command"]);
        let create = ActionSchema::named("pct_create").unwrap();
        assert_eq!(
            create.parameters(),
            [
                "hostname",
                "bridge",
                "cores",
                "disk_gb",
                "gw",
                "ip",
                "memory",
                "nesting",
                "start",
                "storage",
                "swap",
                "template",
                "unprivileged",
                "vmid"
            ]
        );
        assert!(create.is_required("hostname") && !create.is_required("vmid"));
        assert!(create.description.contains("Target: the Proxmox host"), "{}", create.description);
        let p = create.properties;
        assert_eq!((p["cores"]["type"].clone(), p["cores"]["minimum"].clone()), (json!("integer"), json!(1)));
        assert_eq!((p["cores"]["maximum"].clone(), p["cores"]["default"].clone()), (json!(512), json!(1)));
        assert_eq!(p["vmid"]["type"], json!(["integer", "null"]));
        assert_eq!((p["vmid"]["minimum"].clone(), p["vmid"]["maximum"].clone()), (json!(100), json!(999_999_999)));
        assert_eq!((p["memory"]["minimum"].clone(), p["memory"]["default"].clone()), (json!(16), json!(512)));
        assert_eq!((p["swap"]["minimum"].clone(), p["disk_gb"]["minimum"].clone()), (json!(0), json!(1)));
        assert_eq!((p["start"]["type"].clone(), p["start"]["default"].clone()), (json!("boolean"), json!(true)));
        assert_eq!((p["ip"]["default"].clone(), p["bridge"]["default"].clone()), (json!("dhcp"), json!("vmbr0")));
        assert!(p["hostname"]["description"].as_str().unwrap().contains("hostname"));
        let verb = &ActionSchema::named("systemctl").unwrap().properties["verb"];
        let verbs: Vec<&str> = SystemctlVerb::ALL.iter().map(|v| v.as_str()).collect();
        assert_eq!(verb["enum"], json!(verbs));
        let mode = &ActionSchema::named("apt_upgrade").unwrap().properties["mode"];
        assert_eq!((mode["enum"].clone(), mode["default"].clone()), (json!(["audit", "upgrade"]), json!("audit")));
        for variant in s["oneOf"].as_array().unwrap() {
            assert_eq!(variant["additionalProperties"], false, "unknown parameters are refused: {variant}");
        }
    }

    #[test]
    fn parameters_are_read_as_people_and_models_write_them() {
        let a = parse(
            "pct_create",
            json!({"hostname": " web-01.lab ", "cores": "4", "memory": 1024, "start": "no",
                                           "nesting": "ON", "unprivileged": 0, "vmid": "", "gw": null}),
        )
        .unwrap();
        let Action::PctCreate(p) = &a else { panic!("{a:?}") };
        assert_eq!((p.hostname.as_str(), p.cores, p.memory, p.swap, p.disk_gb), ("web-01.lab", 4, 1024, 512, 8));
        assert_eq!((p.start, p.nesting, p.unprivileged), (false, true, false));
        assert_eq!((p.vmid, p.gw.as_deref(), p.ip.as_str(), p.bridge.as_str()), (None, None, "dhcp", "vmbr0"));
        assert_eq!(parse("apt_upgrade", json!({})).unwrap(), Action::AptUpgrade { mode: AptMode::Audit });
        assert_eq!(
            parse("systemctl", json!({"verb": " try-restart", "unit": "nginx"})).unwrap(),
            Action::Systemctl { verb: SystemctlVerb::TryRestart, unit: "nginx".into() }
        );
        // A script keeps its whitespace.
        let script = "  echo hi\n\n";
        assert_eq!(parse("pct_exec", json!({"command": script})).unwrap(), Action::PctExec { command: script.into() });
        // The agent's JSON, and values built in code, take the same path.
        let json = json!({"action": "restart", "unit": "nginx.service"});
        let restart = Action::from_json(&json).unwrap();
        assert_eq!(serde_json::to_value(&restart).unwrap(), json);
        assert_eq!(restart.checked().unwrap(), restart);
        assert_eq!(restart.name(), "restart");
        let bad = Action::Restart { unit: "nginx; reboot".into() };
        assert!(bad.checked().unwrap_err().to_string().contains("not a systemd unit name"));
    }

    #[test]
    fn booleans_are_read_the_way_people_write_them() {
        let start = |v: Json| {
            parse("pct_create", json!({"hostname": "a", "start": v})).map(|a| match a {
                Action::PctCreate(p) => p.start,
                _ => unreachable!(),
            })
        };
        for (v, want) in [(json!("yes"), true), (json!("off"), false), (json!(1), true), (json!("0"), false)] {
            assert_eq!(start(v.clone()).unwrap(), want, "{v}");
        }
        assert!(start(json!(true)).unwrap());
        assert_eq!(
            start(json!("maybe")).unwrap_err().to_string(),
            "pct_create: `start` must be true/false, 1/0, yes/no or on/off, got `maybe`"
        );
        assert!(start(json!(2)).is_err());
    }

    #[test]
    fn numbers_are_checked_against_their_range() {
        let create = |extra: Json| {
            let mut p = params(json!({"hostname": "a"}));
            p.extend(params(extra));
            Action::parse("pct_create", &p)
        };
        let Action::PctCreate(p) = create(json!({"cores": "4"})).unwrap() else { unreachable!() };
        assert_eq!(p.cores, 4);
        assert_eq!(
            create(json!({"memory": 8})).unwrap_err().to_string(),
            "pct_create: `memory` must be between 16 and 4194304, got 8"
        );
        assert!(create(json!({"disk_gb": -1})).unwrap_err().to_string().contains("`disk_gb` must be a whole number"));
        assert!(create(json!({"swap": "lots"})).unwrap_err().to_string().contains("`lots`"));
        assert!(create(json!({"vmid": 5})).unwrap_err().to_string().contains("between 100 and 999999999"));
        assert!(create(json!({"colour": "red"})).unwrap_err().to_string().contains("unknown parameter `colour`"));
    }

    #[test]
    fn names_that_a_shell_would_split_are_refused() {
        assert!(unit_name("nginx.service").is_ok());
        assert!(unit_name("getty@tty1.service").is_ok());
        for bad in ["", "nginx; reboot", "-H host", "a b", "$(x)", "nginx\n"] {
            assert!(unit_name(bad).is_err(), "{bad:?}");
        }
        assert!(check_hostname("web-01.lab").is_ok());
        for bad in ["-web", "web_01", "a..b", "web;rm", ""] {
            assert!(check_hostname(bad).is_err(), "{bad:?}");
        }
        assert!(check_cidr("10.0.0.5/24").is_ok());
        for bad in ["10.0.0.5", "10.0.0.5/33", "10.0.0/24", "dhcp/24", "10.0.0.5/24 --x"] {
            assert!(check_cidr(bad).is_err(), "{bad:?}");
        }
        for (p, needle) in [
            (json!({"hostname": "a", "storage": "local lvm"}), "not a valid storage name"),
            (json!({"hostname": "a", "bridge": "vmbr0;x"}), "not a valid bridge name"),
            (json!({"hostname": "a", "gw": "10.0.0.1"}), "goes with a static ip"),
            (json!({"hostname": "a", "ip": "10.0.0.9/24", "gw": "10.0.0"}), "not an IPv4 address"),
        ] {
            let err = parse("pct_create", p.clone()).unwrap_err().to_string();
            assert!(err.contains(needle), "{p}: {err}");
        }
    }

    #[test]
    fn wrong_parameters_are_named_with_what_is_allowed() {
        let err = |name: &str, v: Json| parse(name, v).unwrap_err().to_string();
        assert_eq!(
            err("teleport", json!({})),
            "unknown action `teleport`; known: restart, systemctl, apt_upgrade, pct_exec, pct_create"
        );
        assert_eq!(
            err("restart", json!({"unit": "a", "force": 1})),
            "restart: unknown parameter `force`; allowed: unit"
        );
        assert_eq!(err("restart", json!({})), "restart: `unit` is required");
        assert_eq!(err("restart", json!({"unit": "  "})), "restart: `unit` is required");
        assert_eq!(err("restart", json!({"unit": ["a"]})), "restart: `unit` must be text, got [\"a\"]");
        assert_eq!(
            err("systemctl", json!({"verb": "mask", "unit": "a"})),
            "systemctl: verb `mask` is not one of start, stop, restart, reload, try-restart, reload-or-restart, \
             enable, disable, status, is-active"
        );
        assert_eq!(err("apt_upgrade", json!({"mode": "all"})), "apt_upgrade: mode `all` is not one of audit, upgrade");
        assert_eq!(err("pct_exec", json!({"command": ""})), "pct_exec: `command` is required");
        assert!(Action::from_json(&json!("restart")).is_err());
        assert!(Action::from_json(&json!({"unit": "a"})).unwrap_err().to_string().contains("known: restart"));
    }
}
