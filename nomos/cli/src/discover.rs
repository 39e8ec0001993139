//! `nomos discover [HOST] [--apply]`: read a Proxmox cluster through the gate and show how the
//! graph differs; `--apply` writes the difference. JSON: one object per cluster discovered, one per
//! line (see `DiscoveryDiff`).

use clap::Args;
use nomos::discovery::{ApplyBy, DiscoverOptions};
use nomos::types::discovery::{DiffKind, EdgeOp};
use nomos::types::DiscoveryDiff;
use nomos::Runtime;

use crate::exit::{Exit, Outcome};
use crate::out::{line, Out};
use crate::report::operator;

#[derive(Args, Debug)]
pub struct DiscoverArgs {
    /// The host to read the cluster through [default: the hosts added for discovery]
    host: Option<String>,
    /// Write the changes to the graph (without it, only show them)
    #[arg(long)]
    apply: bool,
}

pub async fn discover(rt: &Runtime, args: DiscoverArgs, out: Out) -> Outcome {
    let act = rt.actuator();
    let hosts = match args.host {
        Some(h) => vec![h],
        None => act.engine().discovery_roots().await?,
    };
    let apply = args.apply.then(|| ApplyBy::Operator(operator(None).actor));
    let mut seen: Vec<String> = Vec::new();
    let mut failed = false;
    for host in &hosts {
        match act.discover(host, DiscoverOptions { apply: apply.clone() }).await {
            // Two hosts of one cluster: the second adds nothing.
            Ok(d) if seen.contains(&d.cluster) => continue,
            Ok(d) => {
                seen.push(d.cluster.clone());
                if out.json {
                    line(&serde_json::to_string(&d)?);
                } else {
                    line(human(&d).trim_end());
                }
            }
            Err(e) if hosts.len() > 1 => {
                eprintln!("nomos: {host}: {}", e.to_string().replace('\n', " "));
                failed = true;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(if failed { Exit::Failed } else { Exit::Ok })
}

fn human(d: &DiscoveryDiff) -> String {
    let c = &d.counts;
    let mut s = format!(
        "{} (through {}{}): {} new, {} changed, {} moved, {} renamed, {} gone, {} unchanged — {} commands, {} ms\n",
        d.cluster,
        d.host,
        match d.quorate {
            Some(true) => ", quorate",
            Some(false) => ", NOT QUORATE",
            None => "",
        },
        c.new,
        c.changed,
        c.moved,
        c.renamed,
        c.gone,
        c.unchanged,
        d.commands,
        d.duration_ms
    );
    for i in &d.changes {
        let what = match i.kind {
            DiffKind::New if i.back => "back".to_string(),
            DiffKind::Moved => match &i.moved {
                Some(m) => format!("moved {} → {}", m.from, m.to),
                None => "moved".into(),
            },
            DiffKind::Renamed => match &i.renamed {
                Some(r) => format!("renamed from {}", r.from),
                None => "renamed".into(),
            },
            _ => String::new(),
        };
        let vmid = i.vmid.map(|v| format!(" ({v})")).unwrap_or_default();
        s.push_str(format!("  {:<8} {}{vmid}  {what}", i.kind, i.slug).trim_end());
        s.push('\n');
        if i.kind != DiffKind::New {
            for a in &i.attributes {
                s.push_str(&format!("             {}: {} → {}\n", a.key, a.from, a.to));
            }
        }
        for e in &i.edges {
            let op = if e.op == EdgeOp::Add { "+" } else { "-" };
            s.push_str(&format!("           {op} {} —{}→ {}\n", e.source, e.rel_type, e.target));
        }
    }
    for w in &d.warnings {
        s.push_str(&format!("  warning: {w}\n"));
    }
    if d.changes.is_empty() {
        s.push_str("  the graph agrees with the cluster\n");
    } else if !d.applied {
        s.push_str("  not applied: run again with --apply to write these changes\n");
    } else {
        s.push_str("  applied\n");
    }
    s
}
