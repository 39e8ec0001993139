//! Hosts and discovery in words: the *Add host* form's checks, the review of a discovery grouped
//! by kind, the lines of a connection test and the choices of the re-discovery interval. Pure, so
//! it is tested natively; `pages::settings_hosts` and `components::discovery_review` draw it.

use nomos_types::discovery::{AttrChange, DiffCounts, DiffItem, EdgeChange, EdgeOp};
use nomos_types::{DiffKind, DiscoveryDiff, HostSpec, Json};

/// The sentence next to a fingerprint: where to compare it before trusting it.
pub const COMPARE_ON_HOST: &str = "ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub";

/// The *Add host* form as the operator filled it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostForm {
    pub name: String,
    pub address: String,
    pub port: String,
    pub user: String,
    pub key: String,
}

impl HostForm {
    /// A new form: the usual port and user.
    pub fn new() -> HostForm {
        HostForm { port: "22".into(), user: "root".into(), ..HostForm::default() }
    }
}

/// The host the form describes, or what to fix, in one line. An empty key means the ssh-agent
/// (and the usual `~/.ssh` keys).
pub fn check_host_form(form: &HostForm) -> Result<HostSpec, String> {
    let name = form.name.trim();
    let address = form.address.trim();
    if name.is_empty() {
        return Err("Name the host, e.g. pve1.".into());
    }
    if name.chars().any(char::is_whitespace) {
        return Err("A host's name has no spaces (pve1, nas-2).".into());
    }
    if address.is_empty() {
        return Err("Give its address: an IP or a name that resolves.".into());
    }
    let port = form.port.trim();
    let port = if port.is_empty() {
        22
    } else {
        match port.parse::<u16>() {
            Ok(p) if p > 0 => p,
            _ => return Err("The port is a number from 1 to 65535 (SSH: 22).".into()),
        }
    };
    let user = form.user.trim();
    let key = form.key.trim();
    Ok(HostSpec {
        slug: name.to_string(),
        address: Some(address.to_string()),
        port: Some(port),
        user: Some(if user.is_empty() { "root" } else { user }.to_string()),
        key: (!key.is_empty()).then(|| key.to_string()),
    })
}

/// The edit form: only what changed from the endpoint (`user@address:port`) is sent; an empty key
/// file leaves the key as it is.
pub fn edit_spec(slug: &str, endpoint: &str, form: &HostForm) -> Result<HostSpec, String> {
    let now = parse_endpoint(endpoint);
    let wanted = check_host_form(&HostForm { name: slug.trim_start_matches("host:").to_string(), ..form.clone() })?;
    let changed = |new: Option<String>, old: Option<String>| new.filter(|n| Some(n) != old.as_ref());
    let spec = HostSpec {
        slug: slug.to_string(),
        address: changed(wanted.address, now.as_ref().map(|e| e.address.clone())),
        port: wanted.port.filter(|p| Some(*p) != now.as_ref().map(|e| e.port)),
        user: changed(wanted.user, now.as_ref().map(|e| e.user.clone())),
        key: wanted.key,
    };
    if spec.address.is_none() && spec.port.is_none() && spec.user.is_none() && spec.key.is_none() {
        return Err("Nothing to change.".into());
    }
    Ok(spec)
}

/// `user@address:port`, taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub user: String,
    pub address: String,
    pub port: u16,
}

pub fn parse_endpoint(endpoint: &str) -> Option<Endpoint> {
    let (user, rest) = endpoint.split_once('@')?;
    let (address, port) = rest.rsplit_once(':')?;
    Some(Endpoint { user: user.to_string(), address: address.to_string(), port: port.parse().ok()? })
}

/// The kinds in the order the review lists them.
pub const KIND_ORDER: [DiffKind; 5] =
    [DiffKind::New, DiffKind::Changed, DiffKind::Moved, DiffKind::Renamed, DiffKind::Gone];

/// A kind's heading in the review.
pub fn kind_label(kind: DiffKind) -> &'static str {
    match kind {
        DiffKind::New => "New",
        DiffKind::Changed => "Changed",
        DiffKind::Moved => "Moved",
        DiffKind::Renamed => "Renamed",
        DiffKind::Gone => "Gone",
    }
}

/// The changes grouped by kind, in [`KIND_ORDER`], empty groups left out; within a group by slug.
pub fn group_changes(diff: &DiscoveryDiff) -> Vec<(DiffKind, Vec<&DiffItem>)> {
    KIND_ORDER
        .into_iter()
        .filter_map(|kind| {
            let mut items: Vec<&DiffItem> = diff.changes.iter().filter(|c| c.kind == kind).collect();
            items.sort_by(|a, b| a.slug.cmp(&b.slug));
            (!items.is_empty()).then_some((kind, items))
        })
        .collect()
}

/// `3 new · 1 moved · 58 unchanged`: the kinds that occur, and the unchanged.
pub fn counts_line(c: &DiffCounts) -> String {
    let parts = [
        (c.new, "new"),
        (c.changed, "changed"),
        (c.moved, "moved"),
        (c.renamed, "renamed"),
        (c.gone, "gone"),
        (c.unchanged, "unchanged"),
    ];
    let shown: Vec<String> = parts.iter().filter(|(n, _)| *n > 0).map(|(n, w)| format!("{n} {w}")).collect();
    if shown.is_empty() {
        "Nothing found.".into()
    } else {
        shown.join(" · ")
    }
}

/// What an item is, after its slug: its name when it differs, its vmid, where it moved, what it
/// was called, whether it is back.
pub fn item_summary(item: &DiffItem) -> String {
    let mut parts = Vec::new();
    if !item.slug.ends_with(&format!(":{}", item.name)) {
        parts.push(item.name.clone());
    }
    if let Some(vmid) = item.vmid {
        parts.push(format!("{} {vmid}", item.entity_type));
    }
    if let Some(m) = &item.moved {
        parts.push(format!("{} → {}", m.from, m.to));
    }
    if let Some(r) = &item.renamed {
        parts.push(format!("was {}", r.from));
    }
    if item.back {
        parts.push("back after being gone".into());
    }
    parts.join(" · ")
}

/// A value as the operator reads it: text without quotes, nothing as a dash.
pub fn value_text(v: &Json) -> String {
    match v {
        Json::Null => "—".into(),
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `memory: 512 → 1024`.
pub fn attr_line(a: &AttrChange) -> String {
    format!("{}: {} → {}", a.key, value_text(&a.from), value_text(&a.to))
}

/// `+ host:pve2 hosts lxc:web` or `− host:pve1 hosts lxc:web (ends)`.
pub fn edge_line(e: &EdgeChange) -> String {
    match e.op {
        EdgeOp::Add => format!("+ {} {} {}", e.source, e.rel_type, e.target),
        EdgeOp::End => format!("− {} {} {} (ends)", e.source, e.rel_type, e.target),
    }
}

/// The review's heading: what was read, from where, how fast.
pub fn review_heading(diff: &DiscoveryDiff) -> String {
    let quorum = match diff.quorate {
        Some(true) => ", quorate",
        Some(false) => ", NOT quorate",
        None => "",
    };
    format!(
        "Cluster {} through {}{quorum}: {} commands, {} ms.",
        diff.cluster, diff.host, diff.commands, diff.duration_ms
    )
}

/// The line after *Apply*.
pub fn applied_line(diff: &DiscoveryDiff) -> String {
    if diff.is_empty() {
        format!("Applied: nothing changed in {}.", diff.cluster)
    } else {
        format!("Applied: {} to the graph of {}.", counts_line(&diff.counts), diff.cluster)
    }
}

/// A connection check's name in words.
pub fn check_label(check: &str) -> String {
    match check {
        "host_key" => "Host key".into(),
        "ssh" => "SSH login".into(),
        "pvesh" => "pvesh".into(),
        "version" => "Proxmox version".into(),
        "cluster" => "Cluster".into(),
        "guests" => "Guests".into(),
        other => other.replace('_', " "),
    }
}

/// The re-discovery interval's choices: seconds and label; the stored value is among them even
/// when it is not one of the usual ones.
pub fn interval_choices(current: u64) -> Vec<(u64, String)> {
    let mut out: Vec<(u64, String)> = [0, 60, 300, 900, 3600].into_iter().map(|s| (s, interval_label(s))).collect();
    if !out.iter().any(|(s, _)| *s == current) {
        out.push((current, interval_label(current)));
        out.sort_by_key(|(s, _)| *s);
    }
    out
}

/// `off`, `45 s`, `5 min`, `2 h`.
pub fn interval_label(secs: u64) -> String {
    match secs {
        0 => "off".into(),
        s if s % 3600 == 0 && s >= 7200 => format!("{} h", s / 3600),
        s if s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

#[cfg(test)]
mod tests {
    use nomos_types::discovery::FromTo;
    use serde_json::json;

    use super::*;

    fn item(kind: DiffKind, slug: &str, name: &str) -> DiffItem {
        DiffItem {
            kind,
            slug: slug.into(),
            entity_type: slug.split(':').next().unwrap_or_default().into(),
            name: name.into(),
            vmid: None,
            moved: None,
            renamed: None,
            back: false,
            attributes: vec![],
            edges: vec![],
        }
    }

    #[test]
    fn the_form_becomes_a_host_or_one_line_to_fix() {
        let mut f = HostForm::new();
        assert_eq!(check_host_form(&f).unwrap_err(), "Name the host, e.g. pve1.");
        f.name = " pve1 ".into();
        assert!(check_host_form(&f).unwrap_err().contains("address"));
        f.address = "10.0.0.2".into();
        let spec = check_host_form(&f).unwrap();
        assert_eq!(
            spec,
            HostSpec {
                slug: "pve1".into(),
                address: Some("10.0.0.2".into()),
                port: Some(22),
                user: Some("root".into()),
                key: None
            }
        );
        f.port = "70000".into();
        assert!(check_host_form(&f).unwrap_err().contains("65535"));
        f.port = "2222".into();
        f.user = "".into();
        f.key = " ~/.ssh/pve ".into();
        let spec = check_host_form(&f).unwrap();
        assert_eq!(
            (spec.port, spec.user.as_deref(), spec.key.as_deref()),
            (Some(2222), Some("root"), Some("~/.ssh/pve"))
        );
        f.name = "my host".into();
        assert!(check_host_form(&f).unwrap_err().contains("no spaces"));
        f.name = "größe".into();
        assert_eq!(check_host_form(&f).unwrap().slug, "größe");
    }

    #[test]
    fn an_edit_sends_what_changed() {
        let form = HostForm {
            name: String::new(),
            address: "10.0.0.9".into(),
            port: "22".into(),
            user: "root".into(),
            key: String::new(),
        };
        let spec = edit_spec("host:pve1", "root@10.0.0.2:22", &form).unwrap();
        assert_eq!(spec.slug, "host:pve1");
        assert_eq!(spec.address.as_deref(), Some("10.0.0.9"));
        assert_eq!((spec.port, spec.user), (None, None));
        assert_eq!(spec.key, None, "an empty key file leaves the key as it is");
        let same = HostForm { address: "10.0.0.2".into(), ..form.clone() };
        assert_eq!(edit_spec("host:pve1", "root@10.0.0.2:22", &same).unwrap_err(), "Nothing to change.");
        assert_eq!(
            parse_endpoint("ops@[::1]:2222"),
            Some(Endpoint { user: "ops".into(), address: "[::1]".into(), port: 2222 })
        );
        assert_eq!(parse_endpoint("nonsense"), None);
    }

    #[test]
    fn the_review_groups_by_kind_in_order() {
        let diff = DiscoveryDiff {
            changes: vec![
                item(DiffKind::Gone, "lxc:dns", "dns"),
                item(DiffKind::New, "lxc:b", "b"),
                item(DiffKind::Moved, "lxc:caddy", "caddy"),
                item(DiffKind::New, "cluster:oikos-lab", "oikos-lab"),
            ],
            ..DiscoveryDiff::default()
        };
        let groups = group_changes(&diff);
        let kinds: Vec<DiffKind> = groups.iter().map(|g| g.0).collect();
        assert_eq!(kinds, [DiffKind::New, DiffKind::Moved, DiffKind::Gone]);
        let new: Vec<&str> = groups[0].1.iter().map(|i| i.slug.as_str()).collect();
        assert_eq!(new, ["cluster:oikos-lab", "lxc:b"]);
        assert!(group_changes(&DiscoveryDiff::default()).is_empty());
    }

    #[test]
    fn counts_and_lines_read_as_sentences() {
        let c = DiffCounts { new: 3, moved: 1, unchanged: 58, ..DiffCounts::default() };
        assert_eq!(counts_line(&c), "3 new · 1 moved · 58 unchanged");
        assert_eq!(counts_line(&DiffCounts::default()), "Nothing found.");
        let mut moved = item(DiffKind::Moved, "lxc:web", "web");
        moved.vmid = Some(101);
        moved.moved = Some(FromTo { from: "pve1".into(), to: "pve2".into() });
        assert_eq!(item_summary(&moved), "lxc 101 · pve1 → pve2");
        let mut renamed = item(DiffKind::Renamed, "lxc:gitea", "forge");
        renamed.renamed = Some(FromTo { from: "gitea".into(), to: "forge".into() });
        assert_eq!(item_summary(&renamed), "forge · was gitea");
        let a = AttrChange { key: "memory".into(), from: json!(512), to: json!(1024) };
        assert_eq!(attr_line(&a), "memory: 512 → 1024");
        let a = AttrChange { key: "node".into(), from: Json::Null, to: json!("pve2") };
        assert_eq!(attr_line(&a), "node: — → pve2");
        let e = EdgeChange {
            op: EdgeOp::End,
            rel_type: "hosts".into(),
            source: "host:pve1".into(),
            target: "lxc:web".into(),
        };
        assert_eq!(edge_line(&e), "− host:pve1 hosts lxc:web (ends)");
        let applied = DiscoveryDiff { cluster: "oikos-lab".into(), ..DiscoveryDiff::default() };
        assert_eq!(applied_line(&applied), "Applied: nothing changed in oikos-lab.");
        let applied =
            DiscoveryDiff { changes: vec![moved], counts: c, cluster: "lab".into(), ..DiscoveryDiff::default() };
        assert!(applied_line(&applied).starts_with("Applied: 3 new"));
        assert_eq!(check_label("host_key"), "Host key");
        assert_eq!(check_label("new_check"), "new check");
    }

    #[test]
    fn interval_choices_hold_the_stored_value() {
        let labels: Vec<String> = interval_choices(300).into_iter().map(|c| c.1).collect();
        assert_eq!(labels, ["off", "1 min", "5 min", "15 min", "60 min"]);
        let odd = interval_choices(45);
        assert_eq!(odd[1], (45, "45 s".to_string()));
        assert_eq!(odd.len(), 6);
        assert_eq!(interval_label(7200), "2 h");
    }
}
