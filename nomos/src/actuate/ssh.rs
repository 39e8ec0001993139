//! The SSH client: the only code in Oikos that opens a channel or executes anything on a host.
//!
//! One connection per host, reused, each command on its own channel, so a slow command of one task
//! never delays another's. Host keys are checked against the pinned key before authentication; an
//! unknown or changed key fails the connection. Every command runs under a remote `timeout` and
//! carries a marker in its arguments, so a command that outlives its deadline (or is cancelled) is
//! killed on the host, process group and all — closing the channel alone leaves `sleep 3600`
//! running.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use russh::client::{self, Handle};
use russh::keys::{HashAlg, PrivateKeyWithHashAlg, PublicKey};
use russh::{Channel, ChannelMsg, Disconnect, Sig};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// Where and as whom to connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The host entity's slug (`host:pve1`), which host keys are pinned under.
    pub slug: String,
    pub address: String,
    pub port: u16,
    pub user: String,
    /// A private key file; without one, the ssh-agent and then `~/.ssh/id_*` are tried.
    pub key_file: Option<PathBuf>,
}

/// The host key pinned for a host, if any.
#[derive(Debug, Clone)]
pub struct Pinned {
    pub public_key: String,
    pub trusted: bool,
}

/// A host key as a server presented it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenKey {
    pub algorithm: String,
    pub fingerprint: String,
    /// OpenSSH one-line form (`ssh-ed25519 AAAA…`), without a comment.
    pub public_key: String,
}

impl SeenKey {
    fn of(key: &PublicKey) -> SeenKey {
        let mut bare = key.clone();
        bare.set_comment("");
        SeenKey {
            algorithm: key.algorithm().as_str().to_string(),
            fingerprint: key.fingerprint(HashAlg::Sha256).to_string(),
            public_key: bare.to_openssh().unwrap_or_default().trim().to_string(),
        }
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum SshError {
    #[error("host key for {host} not trusted: {}", seen.fingerprint)]
    UntrustedHostKey { host: String, seen: SeenKey },
    #[error("host key for {host} CHANGED: pinned {pinned}, presented {} — refusing to connect", seen.fingerprint)]
    HostKeyChanged { host: String, pinned: String, seen: SeenKey },
    #[error("{host} ({addr}) unreachable: {message}")]
    Unreachable { host: String, addr: String, message: String },
    #[error("{host} ({addr}) did not answer within {secs} s")]
    ConnectTimeout { host: String, addr: String, secs: u64 },
    #[error("authentication to {host} as {user} failed: {message}")]
    Auth { host: String, user: String, message: String },
    #[error("ssh to {host}: {message}")]
    Protocol { host: String, message: String },
}

/// A way to stop a running command from elsewhere.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<(AtomicBool, Notify)>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    pub fn cancel(&self) {
        self.0 .0.store(true, Ordering::SeqCst);
        self.0 .1.notify_waiters();
    }

    pub fn is_cancelled(&self) -> bool {
        self.0 .0.load(Ordering::SeqCst)
    }

    async fn cancelled(&self) {
        loop {
            let notified = self.0 .1.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// Which of a command's output streams a piece of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    Stdout,
    Stderr,
}

impl OutputKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OutputKind::Stdout => "stdout",
            OutputKind::Stderr => "stderr",
        }
    }
}

/// Where the pieces of output kept are copied as they arrive (for showing them live).
pub(crate) type OutputTap = tokio::sync::mpsc::UnboundedSender<(OutputKind, Vec<u8>)>;

/// What a command did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// The exit status; `None` when the command died of a signal or was cut off.
    pub exit_code: Option<u32>,
    pub signal: Option<String>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Output beyond the cap was read and dropped.
    pub truncated: bool,
    pub timed_out: bool,
    pub cancelled: bool,
    /// The command was handed to the host (false: cancelled before it started).
    pub started: bool,
    /// Why the kill line after a timeout or cancel could not run, if it could not.
    pub kill_failed: Option<String>,
    pub duration: Duration,
}

impl Output {
    pub fn success(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.cancelled
    }
}

#[derive(Debug, Clone)]
pub struct SshConfig {
    pub connect_timeout: Duration,
    /// Bytes kept per stream; the rest is drained and dropped.
    pub output_cap: usize,
    /// How long after the remote `timeout` fires (TERM) it sends KILL.
    pub kill_grace: Duration,
    /// Commands at once on one connection; more open another connection. Below OpenSSH's
    /// default `MaxSessions` (10), which Proxmox keeps.
    pub channels_per_connection: usize,
}

impl Default for SshConfig {
    fn default() -> SshConfig {
        SshConfig {
            connect_timeout: Duration::from_secs(10),
            output_cap: 1 << 20,
            kill_grace: Duration::from_secs(5),
            channels_per_connection: 8,
        }
    }
}

struct Checker {
    host: String,
    pinned: Option<Pinned>,
    seen: Arc<Mutex<Option<SeenKey>>>,
}

impl client::Handler for Checker {
    type Error = russh::Error;

    async fn check_server_key(&mut self, key: &russh::keys::PublicKeyOrCertificate) -> Result<bool, Self::Error> {
        let russh::keys::PublicKeyOrCertificate::PublicKey { key, .. } = key else {
            tracing::warn!(host = %self.host, "server presented a certificate; only pinned plain keys are accepted");
            return Ok(false);
        };
        let seen = SeenKey::of(key);
        let ok = self.pinned.as_ref().is_some_and(|p| p.trusted && same_key(&p.public_key, &seen.public_key));
        if let Ok(mut slot) = self.seen.lock() {
            *slot = Some(seen);
        }
        Ok(ok)
    }
}

/// Compares OpenSSH public keys by type and key data, ignoring comments.
pub(crate) fn same_key(a: &str, b: &str) -> bool {
    let parts = |s: &str| s.split_whitespace().take(2).map(str::to_string).collect::<Vec<_>>();
    parts(a) == parts(b) && !parts(a).is_empty()
}

/// The connections open to one host. A command takes a channel permit from the first with room;
/// when all are full another connection is opened, so the host's session limit (OpenSSH's
/// `MaxSessions`, 10 by default) is never hit and no command waits for another.
#[derive(Default)]
struct HostSlot {
    conns: Mutex<Vec<Arc<Connection>>>,
    /// One connect at a time per host; the others look for a free channel meanwhile.
    connecting: tokio::sync::Mutex<()>,
    /// The last failed connect: callers that waited for it fail with it instead of each trying
    /// (and waiting out the timeout) again.
    failed: Mutex<Option<(Instant, SshError)>>,
}

type Slot = Arc<HostSlot>;

struct Connection {
    handle: Handle<Checker>,
    endpoint: Endpoint,
    channels: Arc<Semaphore>,
}

impl HostSlot {
    /// A live connection with a free channel, and its permit.
    fn free(&self, endpoint: &Endpoint) -> Option<(Arc<Connection>, OwnedSemaphorePermit)> {
        let mut conns = self.conns.lock().unwrap_or_else(|e| e.into_inner());
        conns.retain(|c| !c.handle.is_closed() && c.endpoint == *endpoint);
        conns.iter().find_map(|c| c.channels.clone().try_acquire_owned().ok().map(|p| (c.clone(), p)))
    }

    fn retire(&self, conn: &Arc<Connection>) {
        conn.channels.close();
        self.conns.lock().unwrap_or_else(|e| e.into_inner()).retain(|c| !Arc::ptr_eq(c, conn));
    }
}

/// A command ready for the host: the line that runs it under the deadline, and a line that kills
/// what is left of it (built by the target, which knows where the command really runs).
#[derive(Debug, Clone)]
pub(crate) struct Job {
    pub line: String,
    pub kill: String,
}

/// Open connections, by host.
pub(crate) struct SshPool {
    config: SshConfig,
    slots: Mutex<HashMap<String, Slot>>,
}

impl std::fmt::Debug for SshPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SshPool").field("config", &self.config).finish_non_exhaustive()
    }
}

impl SshPool {
    pub(crate) fn new(config: SshConfig) -> SshPool {
        SshPool { config, slots: Mutex::new(HashMap::new()) }
    }

    fn slot(&self, host: &str) -> Slot {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.entry(host.to_string()).or_default().clone()
    }

    /// Drops every connection to `host` (its key or address changed). Commands still running on
    /// them are cut off, so callers do this only when the old connections must not be used.
    pub(crate) async fn forget(&self, host: &str) {
        let slot = self.slot(host);
        let old = std::mem::take(&mut *slot.conns.lock().unwrap_or_else(|e| e.into_inner()));
        for conn in old {
            conn.channels.close();
            let _ = conn.handle.disconnect(Disconnect::ByApplication, "", "en").await;
        }
    }

    /// Presents the host's key without authenticating (to show an operator what to trust).
    pub(crate) async fn fetch_host_key(&self, endpoint: &Endpoint) -> Result<SeenKey, SshError> {
        match self.connect(endpoint, None).await {
            Err(SshError::UntrustedHostKey { seen, .. }) => Ok(seen),
            Err(e) => Err(e),
            Ok(_) => {
                Err(SshError::Protocol { host: endpoint.slug.clone(), message: "host key was not checked".into() })
            }
        }
    }

    /// A connection with room for one more channel, and the permit for it. While another caller
    /// connects to the same host, this one keeps looking for a channel freed on the existing
    /// connections; if that connect fails, this one fails with it.
    async fn lease(
        &self,
        endpoint: &Endpoint,
        pinned: Option<&Pinned>,
    ) -> Result<(Arc<Connection>, OwnedSemaphorePermit), SshError> {
        let slot = self.slot(&endpoint.slug);
        let asked = Instant::now();
        loop {
            if let Some(free) = slot.free(endpoint) {
                return Ok(free);
            }
            if let Some((at, e)) = slot.failed.lock().unwrap_or_else(|e| e.into_inner()).clone() {
                if at >= asked {
                    return Err(e);
                }
            }
            let Ok(_connecting) = slot.connecting.try_lock() else {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            };
            // A channel may have come free while the lock was taken.
            if let Some(free) = slot.free(endpoint) {
                return Ok(free);
            }
            return match self.connect(endpoint, pinned.cloned()).await {
                Ok(conn) => {
                    let conn = Arc::new(conn);
                    let permit = conn.channels.clone().try_acquire_owned().map_err(|_| SshError::Protocol {
                        host: endpoint.slug.clone(),
                        message: "no channel available on a new connection".into(),
                    })?;
                    slot.conns.lock().unwrap_or_else(|e| e.into_inner()).push(conn.clone());
                    Ok((conn, permit))
                }
                Err(e) => {
                    *slot.failed.lock().unwrap_or_else(|e| e.into_inner()) = Some((Instant::now(), e.clone()));
                    Err(e)
                }
            };
        }
    }

    /// Opens a session channel. A connection found dead is replaced once; one whose host refuses
    /// another session is retired, so later commands get a connection of their own.
    async fn channel(
        &self,
        endpoint: &Endpoint,
        pinned: Option<&Pinned>,
    ) -> Result<(Channel<client::Msg>, OwnedSemaphorePermit), SshError> {
        let slot = self.slot(&endpoint.slug);
        let mut retried = false;
        loop {
            let (conn, permit) = self.lease(endpoint, pinned).await?;
            let opening = tokio::time::timeout(self.config.connect_timeout, conn.handle.channel_open_session()).await;
            let error = match opening {
                Ok(Ok(channel)) => return Ok((channel, permit)),
                Ok(Err(e)) => e.to_string(),
                Err(_) => format!("no answer within {} s", self.config.connect_timeout.as_secs()),
            };
            drop(permit);
            slot.retire(&conn);
            let dead = conn.handle.is_closed();
            if !dead {
                let _ = conn.handle.disconnect(Disconnect::ByApplication, "", "en").await;
            }
            if retried {
                return Err(SshError::Protocol {
                    host: endpoint.slug.clone(),
                    message: format!("cannot open a session: {error}"),
                });
            }
            tracing::debug!(host = %endpoint.slug, error = %error, dead, "session refused; trying a new connection");
            retried = true;
        }
    }

    async fn connect(&self, endpoint: &Endpoint, pinned: Option<Pinned>) -> Result<Connection, SshError> {
        let host = endpoint.slug.clone();
        let addr = format!("{}:{}", endpoint.address, endpoint.port);
        let seen = Arc::new(Mutex::new(None));
        let checker = Checker { host: host.clone(), pinned: pinned.clone(), seen: seen.clone() };
        let config = Arc::new(client::Config {
            inactivity_timeout: None,
            keepalive_interval: Some(Duration::from_secs(30)),
            keepalive_max: 3,
            nodelay: true,
            ..Default::default()
        });
        let secs = self.config.connect_timeout.as_secs().max(1);
        // The TCP connect on its own, so the operator reads the system's reason (refused, no
        // route) rather than the SSH library's.
        let tcp = tokio::net::TcpStream::connect((endpoint.address.as_str(), endpoint.port));
        let stream = tokio::time::timeout(self.config.connect_timeout, tcp)
            .await
            .map_err(|_| SshError::ConnectTimeout { host: host.clone(), addr: addr.clone(), secs })?
            .map_err(|e| SshError::Unreachable { host: host.clone(), addr: addr.clone(), message: e.to_string() })?;
        let _ = stream.set_nodelay(true);
        let connecting = client::connect_stream(config, stream, checker);
        let result = tokio::time::timeout(self.config.connect_timeout, connecting)
            .await
            .map_err(|_| SshError::ConnectTimeout { host: host.clone(), addr: addr.clone(), secs })?;
        let mut handle = match result {
            Ok(h) => h,
            Err(e) => {
                let seen = seen.lock().ok().and_then(|s| s.clone());
                return Err(match (seen, pinned) {
                    // The key matched the trusted one: the failure is something else.
                    (Some(seen), Some(p)) if p.trusted && same_key(&p.public_key, &seen.public_key) => {
                        SshError::Unreachable { host, addr, message: e.to_string() }
                    }
                    (Some(seen), Some(p)) if p.trusted => {
                        SshError::HostKeyChanged { host, pinned: fingerprint_of(&p.public_key), seen }
                    }
                    (Some(seen), _) => SshError::UntrustedHostKey { host, seen },
                    (None, _) => {
                        let message = match e {
                            russh::Error::Disconnect => {
                                "the connection closed before the SSH handshake (is sshd listening on that port?)"
                                    .to_string()
                            }
                            other => other.to_string(),
                        };
                        SshError::Unreachable { host, addr, message }
                    }
                });
            }
        };
        tokio::time::timeout(self.config.connect_timeout, authenticate(&mut handle, endpoint))
            .await
            .map_err(|_| SshError::ConnectTimeout { host: host.clone(), addr, secs })??;
        let channels = Arc::new(Semaphore::new(self.config.channels_per_connection.max(1)));
        Ok(Connection { handle, endpoint: endpoint.clone(), channels })
    }

    /// Runs `job` on the host with `deadline`, capturing exit status and output bytes. A non-zero
    /// exit is reported, not an error; errors are about reaching the host. A cancel before the
    /// command started means it never starts. The output kept is also copied to `tap`, if given,
    /// as it arrives.
    pub(crate) async fn exec(
        &self,
        endpoint: &Endpoint,
        pinned: Option<Pinned>,
        job: &Job,
        deadline: Duration,
        cancel: &Cancel,
        tap: Option<&OutputTap>,
    ) -> Result<Output, SshError> {
        let mut out = Output::default();
        if cancel.is_cancelled() {
            out.cancelled = true;
            return Ok(out);
        }
        let opened = tokio::select! {
            r = self.channel(endpoint, pinned.as_ref()) => Some(r?),
            _ = cancel.cancelled() => None,
        };
        let Some((channel, permit)) = opened else {
            out.cancelled = true;
            return Ok(out);
        };
        if cancel.is_cancelled() {
            let _ = channel.close().await;
            out.cancelled = true;
            return Ok(out);
        }
        let started = Instant::now();
        let host = endpoint.slug.clone();
        if let Err(e) = channel.exec(true, job.line.as_bytes()).await {
            let _ = channel.close().await;
            return Err(SshError::Protocol { host, message: e.to_string() });
        }
        out.started = true;
        // Nothing is fed to the command: a prompt reads end-of-file instead of waiting forever.
        let _ = channel.eof().await;

        let cap = self.config.output_cap;
        let mut channel = channel;
        let mut refused = false;
        // The remote `timeout` ends the command first; this local limit covers a host that stopped
        // answering and a command that outlived `timeout` while holding the channel open.
        let local_limit = deadline.saturating_add(self.config.kill_grace).saturating_add(Duration::from_secs(5));
        let reading = async {
            while let Some(msg) = channel.wait().await {
                match msg {
                    ChannelMsg::Data { data } => {
                        keep(&mut out.stdout, &data, cap, &mut out.truncated, tap.map(|t| (t, OutputKind::Stdout)))
                    }
                    ChannelMsg::ExtendedData { data, ext: 1 } => {
                        keep(&mut out.stderr, &data, cap, &mut out.truncated, tap.map(|t| (t, OutputKind::Stderr)))
                    }
                    ChannelMsg::ExitStatus { exit_status } => out.exit_code = Some(exit_status),
                    ChannelMsg::ExitSignal { signal_name, .. } => out.signal = Some(format!("{signal_name:?}")),
                    // The exec request itself was refused.
                    ChannelMsg::Failure => {
                        refused = true;
                        break;
                    }
                    _ => {}
                }
            }
        };
        let finished = tokio::select! {
            _ = reading => true,
            _ = tokio::time::sleep(local_limit) => { out.timed_out = true; false }
            _ = cancel.cancelled() => { out.cancelled = true; false }
        };
        out.duration = started.elapsed();
        if !finished || refused {
            let _ = channel.signal(Sig::KILL).await;
            let _ = channel.close().await;
            out.exit_code = None;
        } else if matches!(out.exit_code, Some(124 | 137)) && out.duration + Duration::from_millis(50) >= deadline {
            // GNU timeout's statuses once the deadline passed.
            out.timed_out = true;
        }
        drop(permit);
        if refused {
            return Err(SshError::Protocol { host, message: "the host refused to run the command".into() });
        }
        if out.timed_out || out.cancelled {
            // Whatever survived the remote `timeout` (a container's processes, a detached child).
            out.kill_failed = self.kill(endpoint, pinned.as_ref(), &job.kill).await.err();
        }
        Ok(out)
    }

    /// Runs a job's kill line (bounded).
    pub(crate) async fn kill(&self, endpoint: &Endpoint, pinned: Option<&Pinned>, script: &str) -> Result<(), String> {
        let (channel, _permit) = self.channel(endpoint, pinned).await.map_err(|e| e.to_string())?;
        if let Err(e) = channel.exec(true, script.as_bytes()).await {
            let _ = channel.close().await;
            return Err(e.to_string());
        }
        let mut channel = channel;
        let mut status = None;
        let waited = tokio::time::timeout(Duration::from_secs(15), async {
            while let Some(msg) = channel.wait().await {
                if let ChannelMsg::ExitStatus { exit_status } = msg {
                    status = Some(exit_status);
                }
            }
        })
        .await;
        if waited.is_err() {
            let _ = channel.close().await;
            return Err("the kill line did not finish within 15 s".into());
        }
        match status {
            Some(0) => Ok(()),
            Some(code) => Err(format!("the kill line ended with status {code}")),
            None => Err("the kill line ended without a status".into()),
        }
    }
}

fn keep(buf: &mut Vec<u8>, data: &[u8], cap: usize, truncated: &mut bool, tap: Option<(&OutputTap, OutputKind)>) {
    let room = cap.saturating_sub(buf.len());
    if data.len() > room {
        *truncated = true;
    }
    let kept = &data[..data.len().min(room)];
    if let (Some((tap, kind)), false) = (tap, kept.is_empty()) {
        // The receiver goes away only once the execution is recorded; nothing is lost before.
        let _ = tap.send((kind, kept.to_vec()));
    }
    buf.extend_from_slice(kept);
}

fn fingerprint_of(openssh: &str) -> String {
    PublicKey::from_openssh(openssh).map(|k| k.fingerprint(HashAlg::Sha256).to_string()).unwrap_or_else(|_| "?".into())
}

/// Quotes `s` as one word for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

async fn authenticate(handle: &mut Handle<Checker>, endpoint: &Endpoint) -> Result<(), SshError> {
    let auth_err =
        |message: String| SshError::Auth { host: endpoint.slug.clone(), user: endpoint.user.clone(), message };
    let hash = handle.best_supported_rsa_hash().await.ok().flatten().flatten();
    if let Some(file) = &endpoint.key_file {
        let key = load_key(file).map_err(auth_err)?;
        let result = handle
            .authenticate_publickey(&endpoint.user, PrivateKeyWithHashAlg::new(Arc::new(key), hash))
            .await
            .map_err(|e| auth_err(e.to_string()))?;
        return if result.success() {
            Ok(())
        } else {
            Err(auth_err(format!("the server refused the key {}", file.display())))
        };
    }
    let mut tried = Vec::new();
    if let Ok(mut agent) = russh::keys::agent::client::AgentClient::connect_env().await {
        if let Ok(identities) = agent.request_identities().await {
            // A few only: sshd drops the connection after `MaxAuthTries` (6) failures, and the
            // key files below still need their turn.
            for identity in identities.into_iter().take(3) {
                let russh::keys::agent::AgentIdentity::PublicKey { key, .. } = identity else { continue };
                let ok = handle.authenticate_publickey_with(&endpoint.user, key, hash, &mut agent).await;
                if ok.is_ok_and(|r| r.success()) {
                    return Ok(());
                }
            }
            tried.push("the ssh-agent's keys".to_string());
        }
    }
    if let Some(home) = dirs::home_dir() {
        for name in ["id_ed25519", "id_ecdsa", "id_rsa"] {
            let file = home.join(".ssh").join(name);
            if !file.exists() {
                continue;
            }
            let Ok(key) = load_key(&file) else {
                tried.push(format!("{} (unreadable or passphrase-protected)", file.display()));
                continue;
            };
            let result =
                handle.authenticate_publickey(&endpoint.user, PrivateKeyWithHashAlg::new(Arc::new(key), hash)).await;
            if result.is_ok_and(|r| r.success()) {
                return Ok(());
            }
            tried.push(file.display().to_string());
        }
    }
    Err(auth_err(if tried.is_empty() {
        "no key: set the host's ssh_key, or load a key into the ssh-agent".into()
    } else {
        format!("refused: {}", tried.join(", "))
    }))
}

fn load_key(file: &Path) -> Result<russh::keys::PrivateKey, String> {
    russh::keys::load_secret_key(file, None).map_err(|e| match e {
        russh::keys::Error::KeyIsEncrypted => {
            format!("{} is passphrase-protected: load it into the ssh-agent", file.display())
        }
        other => format!("cannot read {}: {other}", file.display()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_any_text() {
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn keys_compare_without_comments() {
        assert!(same_key("ssh-ed25519 AAAA x@y", "ssh-ed25519 AAAA"));
        assert!(!same_key("ssh-ed25519 AAAA", "ssh-ed25519 AAAB"));
        assert!(!same_key("", ""));
    }

    #[test]
    fn output_is_capped_but_drained() {
        let mut buf = Vec::new();
        let mut truncated = false;
        let (tap, mut copied) = tokio::sync::mpsc::unbounded_channel();
        keep(&mut buf, b"abcdef", 4, &mut truncated, Some((&tap, OutputKind::Stderr)));
        keep(&mut buf, b"gh", 4, &mut truncated, Some((&tap, OutputKind::Stderr)));
        assert_eq!(buf, b"abcd");
        assert!(truncated);
        // Only what is kept is shown live.
        assert_eq!(copied.try_recv().ok(), Some((OutputKind::Stderr, b"abcd".to_vec())));
        assert!(copied.try_recv().is_err());
    }
}
