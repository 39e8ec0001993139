//! The app's own updates: checks the release manifest after start-up, every six hours and on demand,
//! offers a newer release in the window ("Install and restart" / "Later"), and installs it only
//! after its minisign signature checked out against the public key built into the app.
//!
//! Where it checks: the endpoint in `tauri.conf.json` (`plugins.updater.endpoints`), or the URL in
//! `OIKOS_UPDATE_URL` (`off` turns the checks off). Whatever the endpoint, the artifact must be
//! signed by the release key: the key is never taken from the environment.
//! Failures (offline, a bad signature, an unreadable manifest) go to the log and to the status the
//! Settings page shows; they never interrupt the operator.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use nomos_types::{UpdateOffer, UpdateStatus, UPDATE_CHANNEL};
use tauri::{AppHandle, Emitter, Manager, Runtime, Url};
use tauri_plugin_updater::{Update, UpdaterExt};

use crate::AppState;

/// The environment variable naming another manifest URL (`off`: no checks).
pub const URL_ENV: &str = "OIKOS_UPDATE_URL";

/// How long the checker sleeps between two checks.
const EVERY: Duration = Duration::from_secs(6 * 60 * 60);
/// The first check waits this long: it loads the system's certificates, resolves a name and tells
/// the window twice, which the window's own start should not have to share two cores with.
const FIRST_AFTER: Duration = Duration::from_secs(5);

/// How long connecting to the update server may take; a dead network ends the check instead of
/// holding it until the next one.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    #[error("{URL_ENV} is not a URL ({0})")]
    BadUrl(String),
    #[error("update checks are turned off ({URL_ENV}=off)")]
    Off,
    #[error("no update is on offer")]
    NothingOffered,
    #[error("another install is already running")]
    Busy,
    #[error(transparent)]
    Updater(#[from] tauri_plugin_updater::Error),
}

/// Where updates come from: the configured manifest unless another URL is given.
#[derive(Debug, Clone, Default)]
struct Source {
    /// Replaces the configured endpoints.
    endpoint: Option<Url>,
    /// Replaces the configured public key. Only tests set it (see `Updates::with_test_key`).
    pubkey: Option<String>,
}

impl Source {
    /// The source the environment asks for; `Ok(None)` when checks are turned off, `Err` with
    /// why the URL given is not one.
    fn from_env() -> Result<Option<Source>, String> {
        match std::env::var(URL_ENV) {
            Err(_) => Ok(Some(Source::default())),
            Ok(v) if v.trim().eq_ignore_ascii_case("off") => Ok(None),
            Ok(v) => {
                let endpoint = Url::parse(v.trim()).map_err(|e| e.to_string())?;
                Ok(Some(Source { endpoint: Some(endpoint), pubkey: None }))
            }
        }
    }

    fn updater<R: Runtime>(&self, app: &AppHandle<R>) -> Result<tauri_plugin_updater::Updater, UpdateError> {
        let mut builder = app.updater_builder().configure_client(|c| c.connect_timeout(CONNECT_TIMEOUT));
        if let Some(endpoint) = &self.endpoint {
            builder = builder.endpoints(vec![endpoint.clone()])?;
        }
        if let Some(pubkey) = &self.pubkey {
            builder = builder.pubkey(pubkey.clone());
        }
        Ok(builder.build()?)
    }
}

/// What the window is shown, and the update behind the offer. Plain state, no I/O.
#[derive(Default)]
struct Offers {
    current_version: String,
    /// The newest release the last check found, with what installing it needs.
    found: Option<(UpdateOffer, Update)>,
    /// "Later" was chosen for this version: it and older ones are not offered again.
    postponed: Option<semver::Version>,
    checking: bool,
    installing: bool,
    checked_at: Option<i64>,
    last_error: Option<String>,
}

impl Offers {
    fn checked(&mut self, result: Result<Option<(UpdateOffer, Update)>, String>) {
        self.checking = false;
        self.checked_at = Some(now());
        match result {
            Ok(found) => {
                self.found = found;
                self.last_error = None;
            }
            // The offer already shown stays: a failed check says nothing about it.
            Err(e) => self.last_error = Some(e),
        }
    }

    /// The offer, unless "Later" was chosen for it (or for a newer one). The updater announces
    /// versions as semver, so they always parse.
    fn offer(&self) -> Option<&(UpdateOffer, Update)> {
        let found = self.found.as_ref()?;
        match (&self.postponed, semver::Version::parse(&found.0.version)) {
            (Some(postponed), Ok(version)) if version <= *postponed => None,
            _ => Some(found),
        }
    }

    fn postpone(&mut self) {
        if let Some((offer, _)) = &self.found {
            self.postponed = semver::Version::parse(&offer.version).ok();
        }
    }

    fn status(&self) -> UpdateStatus {
        UpdateStatus {
            current_version: self.current_version.clone(),
            offer: self.offer().map(|(offer, _)| offer.clone()),
            postponed: self.found.as_ref().filter(|_| self.offer().is_none()).map(|(offer, _)| offer.version.clone()),
            checking: self.checking,
            installing: self.installing,
            checked_at: self.checked_at,
            last_error: self.last_error.clone(),
        }
    }
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// The app's updater: one per process, held in [`AppState`].
pub struct Updates<R: Runtime = tauri::Wry> {
    app: AppHandle<R>,
    /// `Ok(None)`: checks turned off; `Err`: why the URL in the environment is not one.
    source: Result<Option<Source>, String>,
    offers: Mutex<Offers>,
    /// One check at a time: the timer and the button never race.
    checks: tokio::sync::Mutex<()>,
}

impl<R: Runtime> Updates<R> {
    pub fn new(app: &AppHandle<R>) -> Updates<R> {
        let source = Source::from_env();
        if let Err(e) = &source {
            tracing::warn!("updates: {}", UpdateError::BadUrl(e.clone()));
        }
        Self::with_source(app, source)
    }

    fn with_source(app: &AppHandle<R>, source: Result<Option<Source>, String>) -> Updates<R> {
        let offers = Offers { current_version: app.package_info().version.to_string(), ..Offers::default() };
        Updates { app: app.clone(), source, offers: Mutex::new(offers), checks: tokio::sync::Mutex::new(()) }
    }

    /// Checks `endpoint` and verifies with `pubkey` (base64 of a minisign `.pub` file): for tests
    /// only, which sign with a key of their own. Release builds have no way to replace the key.
    #[cfg(test)]
    fn with_test_key(app: &AppHandle<R>, endpoint: Url, pubkey: String) -> Updates<R> {
        Self::with_source(app, Ok(Some(Source { endpoint: Some(endpoint), pubkey: Some(pubkey) })))
    }

    /// Whether the timer should run at all.
    fn automatic(&self) -> bool {
        matches!(self.source, Ok(Some(_)))
    }

    pub fn status(&self) -> UpdateStatus {
        self.offers.lock().unwrap_or_else(PoisonError::into_inner).status()
    }

    /// Changes the state and tells the window.
    fn change(&self, f: impl FnOnce(&mut Offers)) -> UpdateStatus {
        let status = {
            let mut offers = self.offers.lock().unwrap_or_else(PoisonError::into_inner);
            f(&mut offers);
            offers.status()
        };
        if let Err(e) = self.app.emit(UPDATE_CHANNEL, &status) {
            tracing::warn!("cannot send the update status to the window: {e}");
        }
        status
    }

    /// Checks the manifest now and answers with the new status.
    pub async fn check(&self) -> UpdateStatus {
        let _one = self.checks.lock().await;
        self.change(|o| o.checking = true);
        let result = self.find().await;
        match &result {
            Ok(Some((offer, _))) => tracing::info!(version = %offer.version, "update available"),
            Ok(None) => tracing::debug!("no update available"),
            Err(e) => tracing::warn!("update check failed: {e}"),
        }
        self.change(|o| o.checked(result.map_err(|e| e.to_string())))
    }

    async fn find(&self) -> Result<Option<(UpdateOffer, Update)>, UpdateError> {
        let source = match &self.source {
            Ok(Some(source)) => source,
            Ok(None) => return Err(UpdateError::Off),
            Err(e) => return Err(UpdateError::BadUrl(e.clone())),
        };
        let found = source.updater(&self.app)?.check().await?;
        Ok(found.map(|update| {
            let date = update.raw_json.get("pub_date").and_then(|d| d.as_str()).map(str::to_string);
            let offer = UpdateOffer { version: update.version.clone(), notes: update.body.clone(), date };
            (offer, update)
        }))
    }

    /// "Later": the offer disappears until a check finds a newer release.
    pub fn postpone(&self) -> UpdateStatus {
        self.change(Offers::postpone)
    }

    /// Downloads the release on offer and verifies its signature: the bytes, or why not (also kept
    /// in the status and the log).
    async fn download_offered(&self) -> Result<(Update, Vec<u8>), UpdateError> {
        let update = {
            let mut offers = self.offers.lock().unwrap_or_else(PoisonError::into_inner);
            if offers.installing {
                return Err(UpdateError::Busy);
            }
            let update = offers.offer().map(|(_, update)| update.clone()).ok_or(UpdateError::NothingOffered)?;
            offers.installing = true;
            update
        };
        self.change(|_| {});
        let result = update.download(|_, _| {}, || {}).await.map_err(UpdateError::from);
        self.change(|o| {
            o.installing = false;
            if let Err(e) = &result {
                o.last_error = Some(format!("update {} not installed: {e}", update.version));
            }
        });
        if let Err(e) = &result {
            tracing::warn!(version = %update.version, "update download refused: {e}");
        }
        result.map(|bytes| (update, bytes))
    }

    /// "Install and restart": downloads and verifies the offered release, installs it and restarts
    /// into it. Returns only when that failed, with the status saying why.
    pub async fn install(&self) -> UpdateStatus {
        match self.download_offered().await {
            Ok((update, bytes)) => match update.install(&bytes) {
                Ok(()) => {
                    tracing::info!(version = %update.version, "update installed; restarting");
                    self.app.restart()
                }
                Err(e) => {
                    tracing::warn!(version = %update.version, "update install failed: {e}");
                    self.change(|o| o.last_error = Some(format!("update {} not installed: {e}", update.version)))
                }
            },
            Err(_) => self.status(),
        }
    }
}

/// Starts the checker: once start-up is over, then every six hours (one sleeping task; nothing
/// polls).
pub fn start(app: &AppHandle) {
    let Some(state) = app.try_state::<AppState>() else { return };
    if !state.updates.automatic() {
        tracing::info!("automatic update checks are off");
        return;
    }
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(FIRST_AFTER).await;
        loop {
            if let Some(state) = app.try_state::<AppState>() {
                state.updates.check().await;
            }
            tokio::time::sleep(EVERY).await;
        }
    });
}

/// Checks now, in the background (the tray menu's "Check for updates"); the window learns the
/// result from the status it is sent.
pub fn check_now(app: &AppHandle) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Some(state) = app.try_state::<AppState>() {
            state.updates.check().await;
        }
    });
}

#[cfg(test)]
mod tests;
