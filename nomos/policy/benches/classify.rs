//! Classifier speed: a one-line command, a 100-line script, and adversarial inputs (1 MB, deep
//! nesting). Medians over repeated runs in one process.
//!
//! Run with `make bench` (or `cargo bench -p nomos-policy --bench classify`).

use std::time::{Duration, Instant};

use nomos_policy::classify;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(label: &str, input: &str, runs: usize) -> Duration {
    let mut times = Vec::with_capacity(runs);
    let mut risk = None;
    for _ in 0..runs {
        let t = Instant::now();
        let v = std::hint::black_box(classify(std::hint::black_box(input), None));
        times.push(t.elapsed());
        risk = Some(v.risk);
    }
    let m = median(times);
    println!(
        "{label:<42} {:>9} bytes  median {m:>12?}  ({runs} runs, verdict {})",
        input.len(),
        risk.map(|r| r.to_string()).unwrap_or_default()
    );
    m
}

fn main() {
    let one_line = "systemctl status caddy 2>&1 | grep -i error | tail -n 20";
    let mut script = String::new();
    let lines = [
        "set -euo pipefail",
        "for u in caddy gitea nextcloud; do systemctl is-active \"$u\" || journalctl -u \"$u\" -n 20 --no-pager; done",
        "df -h | awk '$5+0 > 80 {print $6}'",
        "if [ -f /etc/caddy/Caddyfile ]; then grep -n reverse_proxy /etc/caddy/Caddyfile; fi",
        "docker ps --format '{{.Names}} {{.Status}}' | sort",
        "ip -br a; ss -tlnp | head -20",
        "zpool status -x && zfs list -o name,used,avail",
        "pct list | tail -n +2 | while read id status name; do echo \"$id $name $status\"; done",
        "curl -fsS http://localhost:8082/ > /dev/null && echo ok",
        "x=$(hostname -f); echo \"host: $x\"",
    ];
    for i in 0..100 {
        script.push_str(lines[i % lines.len()]);
        script.push('\n');
    }
    let big: String = "cat /etc/hosts | grep -v '^#' | sort -u; ".repeat(1_048_576 / 40);
    let nested = format!("{}id{}", "$(echo ".repeat(2_000), ")".repeat(2_000));
    let punctuation = b"(){}$`'\"|;&<>\\ x\n";
    let garbage: String = (0..1_048_576u32)
        .map(|i| char::from(punctuation[(i.wrapping_mul(2_654_435_761) >> 27) as usize % punctuation.len()]))
        .collect();

    let a = time("one-line command", one_line, 2_000);
    let b = time("100-line script", &script, 200);
    time("1 MB of commands", &big, 5);
    time("2,000 nested substitutions", &nested, 20);
    time("1 MB of shell punctuation", &garbage, 5);
    println!("100-line script / one-line command: {:.1}x", b.as_secs_f64() / a.as_secs_f64().max(1e-12));
}
