//! Checks an operator (or Nomos, with an approved plan) adds to an entity: a service active in a
//! guest, a TCP port, an HTTP status, a DNS answer, a certificate's expiry. Each becomes one
//! read-only command judged by the gate and run as a probe (its last result kept, changes
//! recorded); a failing check is a signal `check:<name>` on its entity.

use nomos_types::observe::Severity;
use nomos_types::{Check, CheckKind, CheckRun, CheckSpec};
use sqlx::Row;

use crate::actuate::{shell_quote, Actuator, RunRequest};
use crate::graph::new_id;
use crate::{Engine, Error, Result};

pub const DEFAULT_INTERVAL_S: u32 = 60;
pub const MIN_INTERVAL_S: u32 = 30;
/// Below these many days a certificate check warns, and below these it is critical.
const CERT_WARN_DAYS: f64 = 14.0;
const CERT_CRITICAL_DAYS: f64 = 3.0;

fn invalid(message: impl Into<String>) -> Error {
    Error::Invalid(message.into())
}

/// A systemd unit name: letters, digits and `@._:-`, with or without `.service`.
fn unit_ok(u: &str) -> bool {
    !u.is_empty()
        && u.len() <= 200
        && !u.starts_with('-')
        && u.chars().all(|c| c.is_ascii_alphanumeric() || "@._:-\\".contains(c))
}

/// A host name or an IP address (v4 or v6).
fn address_ok(a: &str) -> bool {
    !a.is_empty()
        && a.len() <= 253
        && !a.starts_with('-')
        && a.chars().all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c))
}

fn url_ok(u: &str) -> bool {
    (u.starts_with("http://") || u.starts_with("https://"))
        && u.len() <= 2000
        && !u.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// The host part of an http(s) URL and its port (443 unless given).
fn url_host_port(url: &str) -> Option<(String, u16)> {
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => match p.parse::<u16>() {
            Ok(p) => (h.to_string(), p),
            Err(_) => (authority.to_string(), 443),
        },
        _ => (authority.to_string(), 443),
    };
    address_ok(&host).then_some((host, port))
}

/// Checks the spec and gives the command it runs (on the entity itself for a service, else on
/// the host the entity lives on).
pub fn command(kind: &CheckKind) -> Result<String> {
    Ok(match kind {
        CheckKind::Service { unit } => {
            if !unit_ok(unit) {
                return Err(invalid(format!("`{unit}` is not a systemd unit name")));
            }
            format!("systemctl is-active {}", shell_quote(unit))
        }
        CheckKind::Tcp { address, port } => {
            if !address_ok(address) || *port == 0 {
                return Err(invalid(format!("`{address}:{port}` is not an address and port")));
            }
            format!("nc -z -w 5 {} {port}", shell_quote(address))
        }
        CheckKind::Http { url, expect_status } => {
            if !url_ok(url) {
                return Err(invalid(format!("`{url}` is not an http(s) URL")));
            }
            if !(100..=599).contains(expect_status) {
                return Err(invalid(format!("{expect_status} is not an HTTP status")));
            }
            format!("curl -sS -o /dev/null -w '%{{http_code}} %{{time_total}}' --max-time 10 {}", shell_quote(url))
        }
        CheckKind::Dns { name, expect } => {
            if !address_ok(name) {
                return Err(invalid(format!("`{name}` is not a DNS name")));
            }
            if expect.as_deref().is_some_and(|e| !address_ok(e)) {
                return Err(invalid("the expected answer is not an address"));
            }
            format!("getent hosts {}", shell_quote(name))
        }
        CheckKind::Certificate { url } => {
            let (host, port) = url_host_port(url)
                .filter(|_| url.starts_with("https://"))
                .ok_or_else(|| invalid(format!("`{url}` is not an https URL")))?;
            let h = shell_quote(&host);
            format!(
                "openssl s_client -connect {}:{port} -servername {h} </dev/null 2>/dev/null | openssl x509 -noout -enddate",
                shell_quote(&host)
            )
        }
    })
}

/// `notAfter=Mar  1 12:00:00 2027 GMT` → seconds since the epoch.
fn not_after(text: &str) -> Option<i64> {
    let v = text.lines().find_map(|l| l.trim().strip_prefix("notAfter="))?;
    let mut parts = v.split_whitespace();
    let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .iter()
        .position(|m| Some(*m) == parts.clone().next())?
        + 1;
    parts.next();
    let day: u32 = parts.next()?.parse().ok()?;
    let time = parts.next()?;
    let year: i64 = parts.next()?.parse().ok()?;
    crate::clock::parse_ms(&format!("{year:04}-{month:02}-{day:02}T{time}Z")).map(|ms| ms / 1000)
}

/// What a run says: ok or not, a one-line detail, the severity when failing, and the latency.
fn judge(
    kind: &CheckKind,
    exit: Option<i64>,
    stdout: &str,
    error: Option<&str>,
    now_s: i64,
) -> (bool, String, Severity, Option<f64>) {
    let out = stdout.trim();
    let first = out.lines().next().unwrap_or("").chars().take(200).collect::<String>();
    let failed_to_run = || error.map_or_else(|| "no answer".to_string(), str::to_string);
    match kind {
        CheckKind::Service { unit } => match (exit, first.as_str()) {
            (Some(0), "active") => (true, format!("{unit} is active"), Severity::Critical, None),
            (Some(_), state) if !state.is_empty() => (false, format!("{unit} is {state}"), Severity::Critical, None),
            _ => (false, failed_to_run(), Severity::Critical, None),
        },
        CheckKind::Tcp { address, port } => match exit {
            Some(0) => (true, format!("{address}:{port} accepts connections"), Severity::Critical, None),
            Some(_) => (false, format!("{address}:{port} refuses or does not answer"), Severity::Critical, None),
            None => (false, failed_to_run(), Severity::Critical, None),
        },
        CheckKind::Http { url, expect_status } => {
            let mut parts = first.split_whitespace();
            let code = parts.next().and_then(|c| c.parse::<u16>().ok());
            let latency = parts.next().and_then(|t| t.parse::<f64>().ok()).map(|s| s * 1000.0);
            match code {
                Some(c) if c == *expect_status => {
                    (true, format!("{url}: {c} in {:.0} ms", latency.unwrap_or(0.0)), Severity::Critical, latency)
                }
                Some(0) | None => {
                    (false, format!("{url}: no answer ({})", failed_to_run()), Severity::Critical, latency)
                }
                Some(c) => (false, format!("{url}: {c}, expected {expect_status}"), Severity::Critical, latency),
            }
        }
        CheckKind::Dns { name, expect } => {
            let answers: Vec<&str> = out.lines().filter_map(|l| l.split_whitespace().next()).collect();
            match (exit, expect) {
                (Some(0), Some(e)) if answers.iter().any(|a| a == e) => {
                    (true, format!("{name} → {e}"), Severity::Critical, None)
                }
                (Some(0), Some(e)) => {
                    (false, format!("{name} → {}, expected {e}", answers.join(", ")), Severity::Critical, None)
                }
                (Some(0), None) if !answers.is_empty() => {
                    (true, format!("{name} → {}", answers.join(", ")), Severity::Critical, None)
                }
                (Some(_), _) => (false, format!("{name} does not resolve"), Severity::Critical, None),
                (None, _) => (false, failed_to_run(), Severity::Critical, None),
            }
        }
        CheckKind::Certificate { url } => match not_after(out) {
            Some(at) => {
                let days = (at - now_s) as f64 / 86_400.0;
                let severity = if days < CERT_CRITICAL_DAYS { Severity::Critical } else { Severity::Warning };
                (days >= CERT_WARN_DAYS, format!("certificate of {url} expires in {days:.0} days"), severity, None)
            }
            None => (false, format!("no certificate read from {url}"), Severity::Warning, None),
        },
    }
}

fn row_to_check(r: &sqlx::sqlite::SqliteRow) -> Result<Check> {
    let spec: String = r.try_get("spec")?;
    let kind: CheckKind = serde_json::from_str(&spec).map_err(|e| invalid(format!("stored check: {e}")))?;
    let interval: i64 = r.try_get("interval_s")?;
    Ok(Check {
        id: r.try_get("id")?,
        entity: r.try_get("slug")?,
        name: r.try_get("name")?,
        command: command(&kind).unwrap_or_default(),
        kind,
        interval_s: u32::try_from(interval).unwrap_or(DEFAULT_INTERVAL_S),
        enabled: r.try_get::<i64, _>("enabled")? == 1,
        last_run_at: r.try_get("last_run_at")?,
        last_status: r.try_get("last_status")?,
        last_detail: r.try_get("last_detail")?,
        last_latency_ms: r.try_get("last_latency_ms")?,
    })
}

const CHECK_COLUMNS: &str = "c.id, e.slug, c.name, c.spec, c.interval_s, c.enabled, c.last_run_at, c.last_status, \
     c.last_detail, c.last_latency_ms";

/// Checks a spec and stores it in the caller's transaction (an inventory import adds its checks
/// with its entities, or nothing). Returns the entity's slug and the check's name.
pub(crate) async fn add_in(conn: &mut sqlx::SqliteConnection, spec: &CheckSpec) -> Result<(String, String)> {
    let name = spec.name.trim();
    if name.is_empty() || name.chars().count() > 80 {
        return Err(invalid("a check needs a name of 1 to 80 characters"));
    }
    command(&spec.kind)?;
    let interval = spec.interval_s.unwrap_or(DEFAULT_INTERVAL_S);
    if !(MIN_INTERVAL_S..=86_400).contains(&interval) {
        return Err(invalid(format!("a check runs every {MIN_INTERVAL_S} s to 1 day, not every {interval} s")));
    }
    let entity = crate::graph::require_entity(conn, &spec.entity).await?;
    if matches!(spec.kind, CheckKind::Service { .. }) && !matches!(entity.entity_type.as_str(), "host" | "lxc") {
        return Err(invalid(format!(
            "a service check runs on a host or a container; {} is a {}",
            entity.slug, entity.entity_type
        )));
    }
    let kind = serde_json::to_string(&spec.kind).map_err(|e| invalid(e.to_string()))?;
    sqlx::query(
        "INSERT INTO checks (id, entity_id, name, spec, interval_s) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (entity_id, name) DO UPDATE SET spec = excluded.spec, interval_s = excluded.interval_s,
             enabled = 1, last_status = NULL, last_detail = NULL, failures = 0",
    )
    .bind(new_id())
    .bind(&entity.id)
    .bind(name)
    .bind(kind)
    .bind(i64::from(interval))
    .execute(&mut *conn)
    .await?;
    Ok((entity.slug, name.to_string()))
}

impl Engine {
    /// Adds a check (or replaces the one of the same name on the entity).
    pub async fn add_check(&self, spec: &CheckSpec) -> Result<Check> {
        let mut tx = self.store().begin_write().await?;
        let (slug, name) = add_in(&mut tx, spec).await?;
        tx.commit().await?;
        let checks = self.entity_checks(&slug).await?;
        checks.into_iter().find(|c| c.name == name).ok_or_else(|| invalid("the check was not stored"))
    }

    /// The checks of an entity (all checks without one).
    pub async fn entity_checks(&self, slug: &str) -> Result<Vec<Check>> {
        let rows = sqlx::query(&format!(
            "SELECT {CHECK_COLUMNS} FROM checks c JOIN entities e ON e.id = c.entity_id
              WHERE (?1 = '' OR e.slug = ?1) ORDER BY e.slug, c.name"
        ))
        .bind(slug)
        .fetch_all(self.store().pool())
        .await?;
        if rows.is_empty() && !slug.is_empty() {
            // An unknown entity is an error; a known one without checks is an empty list.
            let mut conn = self.store().pool().acquire().await?;
            crate::graph::require_entity(&mut conn, slug).await?;
        }
        rows.iter().map(row_to_check).collect()
    }

    pub async fn check(&self, id: &str) -> Result<Check> {
        let row = sqlx::query(&format!(
            "SELECT {CHECK_COLUMNS} FROM checks c JOIN entities e ON e.id = c.entity_id WHERE c.id = ?"
        ))
        .bind(id)
        .fetch_optional(self.store().pool())
        .await?
        .ok_or_else(|| Error::NotFound { what: "check", key: id.to_string() })?;
        row_to_check(&row)
    }

    /// Removes a check; its open signal is resolved.
    pub async fn remove_check(&self, id: &str, by: &str) -> Result<()> {
        let check = self.check(id).await?;
        sqlx::query("DELETE FROM checks WHERE id = ?").bind(id).execute(self.store().pool()).await?;
        self.resolve_check_signal(&check, by).await
    }

    /// Pauses a check or runs it again. A paused check watches nothing, so its open signal is
    /// resolved; it keeps its definition and history.
    pub async fn set_check_enabled(&self, id: &str, enabled: bool, by: &str) -> Result<Check> {
        let check = self.check(id).await?;
        sqlx::query("UPDATE checks SET enabled = ? WHERE id = ?")
            .bind(i64::from(enabled))
            .bind(id)
            .execute(self.store().pool())
            .await?;
        if !enabled {
            self.resolve_check_signal(&check, by).await?;
        }
        self.check(id).await
    }

    async fn resolve_check_signal(&self, check: &Check, by: &str) -> Result<()> {
        let fp = super::signals::fingerprint(&format!("check:{}", check.name), &check.entity);
        let open: Option<String> =
            sqlx::query_scalar("SELECT id FROM signals WHERE fingerprint = ? AND state <> 'resolved'")
                .bind(&fp)
                .fetch_optional(self.store().pool())
                .await?;
        if let Some(s) = open {
            self.resolve_signal(&s, by).await?;
        }
        Ok(())
    }

    /// Checks whose time has come (`now_s`: seconds since the epoch).
    pub(crate) async fn due_checks(&self, now_s: i64) -> Result<Vec<Check>> {
        let all = self.entity_checks("").await?;
        Ok(all
            .into_iter()
            .filter(|c| {
                c.enabled
                    && c.last_run_at
                        .as_deref()
                        .and_then(crate::clock::parse_ms)
                        .is_none_or(|at| now_s - at / 1000 >= i64::from(c.interval_s))
            })
            .collect())
    }
}

/// A check's run with the signal it means.
pub(crate) struct Outcome {
    pub run: CheckRun,
    pub severity: Severity,
}

impl Actuator {
    /// Where a check runs: a service on its entity, anything else on the host the entity lives on.
    async fn check_target(&self, check: &Check) -> Result<String> {
        if matches!(check.kind, CheckKind::Service { .. }) || check.entity.starts_with("host:") {
            return Ok(check.entity.clone());
        }
        let host: Option<String> = sqlx::query_scalar(
            "SELECT h.slug FROM relationships r JOIN entities h ON h.id = r.source_id JOIN entities e ON e.id = r.target_id
              WHERE r.type = 'hosts' AND r.valid_to IS NULL AND e.slug = ? LIMIT 1",
        )
        .bind(&check.entity)
        .fetch_optional(self.engine().store().pool())
        .await?;
        host.ok_or_else(|| invalid(format!("{} runs on no known host: the check has nowhere to run", check.entity)))
    }

    /// Runs a check now, through the gate as a read-only probe, and records how it went.
    pub async fn run_check(&self, id: &str) -> Result<CheckRun> {
        Ok(self.run_check_inner(id).await?.run)
    }

    pub(crate) async fn run_check_inner(&self, id: &str) -> Result<Outcome> {
        let check = self.engine().check(id).await?;
        let target = self.check_target(&check).await?;
        let req = RunRequest {
            target,
            command: command(&check.kind)?,
            purpose: format!("check {} of {}", check.name, check.entity),
            requested_by: super::ACTOR.to_string(),
            timeout: Some(std::time::Duration::from_secs(20)),
            ..RunRequest::default()
        };
        let result = self.probe(&format!("check:{}", check.id), req).await?;
        let now_s = self.clock().now_ms() / 1000;
        let (ok, detail, severity, latency) =
            judge(&check.kind, result.exit_code, &result.stdout, result.error.as_deref(), now_s);
        let now = self.clock().now();
        sqlx::query(
            "UPDATE checks SET last_run_at = ?, last_status = ?, last_detail = ?, last_latency_ms = ?,
                    failures = CASE WHEN ? THEN 0 ELSE failures + 1 END WHERE id = ?",
        )
        .bind(&now)
        .bind(if ok { "ok" } else { "failing" })
        .bind(&detail)
        .bind(latency)
        .bind(ok)
        .bind(id)
        .execute(self.engine().store().pool())
        .await?;
        let check = self.engine().check(id).await?;
        Ok(Outcome { run: CheckRun { check, ok, detail }, severity })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_gives_one_quoted_read_only_looking_command() {
        let cmd = |k: CheckKind| command(&k).unwrap();
        assert_eq!(cmd(CheckKind::Service { unit: "caddy".into() }), "systemctl is-active 'caddy'");
        assert_eq!(cmd(CheckKind::Tcp { address: "10.0.0.5".into(), port: 443 }), "nc -z -w 5 '10.0.0.5' 443");
        assert!(cmd(CheckKind::Http { url: "https://x.lan/a?b=1".into(), expect_status: 200 })
            .ends_with("'https://x.lan/a?b=1'"));
        assert_eq!(cmd(CheckKind::Dns { name: "nas.lan".into(), expect: None }), "getent hosts 'nas.lan'");
        assert!(cmd(CheckKind::Certificate { url: "https://x.lan:8443/".into() }).contains("-connect 'x.lan':8443"));
        for bad in [
            CheckKind::Service { unit: "caddy; reboot".into() },
            CheckKind::Service { unit: "-H x".into() },
            CheckKind::Tcp { address: "a b".into(), port: 1 },
            CheckKind::Tcp { address: "x".into(), port: 0 },
            CheckKind::Http { url: "ftp://x".into(), expect_status: 200 },
            CheckKind::Http { url: "https://x/\n".into(), expect_status: 200 },
            CheckKind::Http { url: "https://x".into(), expect_status: 42 },
            CheckKind::Certificate { url: "http://x".into() },
            CheckKind::Dns { name: "$(reboot)".into(), expect: None },
        ] {
            assert!(command(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn runs_are_judged_from_what_the_host_said() {
        let svc = CheckKind::Service { unit: "caddy".into() };
        assert!(judge(&svc, Some(0), "active\n", None, 0).0);
        let (ok, detail, ..) = judge(&svc, Some(3), "failed\n", None, 0);
        assert!(!ok && detail == "caddy is failed", "{detail}");
        let (ok, detail, ..) = judge(&svc, None, "", Some("unreachable: refused"), 0);
        assert!(!ok && detail.contains("unreachable"));
        let http = CheckKind::Http { url: "http://x".into(), expect_status: 200 };
        let (ok, _, _, latency) = judge(&http, Some(0), "200 0.042", None, 0);
        assert!(ok && latency.is_some_and(|l| (l - 42.0).abs() < 0.001));
        assert!(!judge(&http, Some(0), "503 0.1", None, 0).0);
        let dns = CheckKind::Dns { name: "nas".into(), expect: Some("10.0.0.9".into()) };
        assert!(judge(&dns, Some(0), "10.0.0.9      nas.lan nas\n", None, 0).0);
        assert!(!judge(&dns, Some(0), "10.0.0.8      nas\n", None, 0).0);
        let cert = CheckKind::Certificate { url: "https://x".into() };
        let now = crate::clock::parse_ms("2027-02-27T12:00:00Z").unwrap() / 1000;
        let (ok, detail, sev, _) = judge(&cert, Some(0), "notAfter=Mar  1 12:00:00 2027 GMT\n", None, now);
        assert!(!ok && sev == Severity::Critical, "{detail}");
        let (ok, ..) = judge(&cert, Some(0), "notAfter=Mar  1 12:00:00 2028 GMT\n", None, now);
        assert!(ok);
        assert_eq!(not_after("garbage ü"), None);
    }
}
