//! The provider's API key in the OS keychain (Secret Service on Linux, Keychain on macOS,
//! Credential Manager on Windows). There is no plaintext fallback: without a keychain the key
//! comes from `NOMOS_API_KEY` or not at all. Calls block on the keychain service; from async
//! code run them under `spawn_blocking`.

use keyring::{Entry, Error as KeyringError};
use nomos_types::{ApiKeyStatus, KeySource};

use super::provider::Secret;

/// The environment variable whose key wins over the keychain's.
pub const API_KEY_ENV: &str = "NOMOS_API_KEY";

/// The keychain item: service and account names.
const SERVICE: &str = "oikos-nomos";
const ACCOUNT: &str = "llm-api-key";

#[derive(Debug, thiserror::Error)]
pub enum SecretsError {
    #[error(
        "no OS keychain is available ({0}); on Linux a Secret Service (GNOME Keyring, KeePassXC) must be running \
         in the session — or set NOMOS_API_KEY instead"
    )]
    NoService(String),
    #[error("the OS keychain is locked or refused access ({0}); unlock it and try again")]
    Locked(String),
    #[error("the stored API key is unreadable: {0}")]
    Corrupt(String),
    #[error("an API key must not be empty")]
    Empty,
    #[error("the OS keychain failed: {0}")]
    Platform(String),
}

fn entry() -> Result<Entry, SecretsError> {
    Entry::new(SERVICE, ACCOUNT).map_err(classify)
}

fn classify(err: KeyringError) -> SecretsError {
    match err {
        KeyringError::NoDefaultStore => {
            let why = match Entry::store_status() {
                Err(e) => e.to_string(),
                Ok(()) => "no credential store".to_string(),
            };
            SecretsError::NoService(why)
        }
        KeyringError::NoStorageAccess(e) => {
            let text = e.to_string();
            // No D-Bus session or no Secret Service on it reads as "no access" too.
            if looks_absent(&text) {
                SecretsError::NoService(text)
            } else {
                SecretsError::Locked(text)
            }
        }
        KeyringError::PlatformFailure(e) => {
            let text = e.to_string();
            if looks_absent(&text) {
                SecretsError::NoService(text)
            } else if text.to_ascii_lowercase().contains("locked") {
                SecretsError::Locked(text)
            } else {
                SecretsError::Platform(text)
            }
        }
        KeyringError::BadEncoding(_) | KeyringError::BadDataFormat(..) => {
            SecretsError::Corrupt("not UTF-8 text".into())
        }
        other => SecretsError::Platform(other.to_string()),
    }
}

fn looks_absent(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    [
        "serviceunknown",
        "service unknown",
        "not provided by any",
        "dbus_session_bus_address",
        "no such file",
        "connection refused",
        "address",
    ]
    .iter()
    .any(|w| t.contains(w))
}

/// Store (or replace) the key.
pub fn set_api_key(key: &str) -> Result<(), SecretsError> {
    let key = key.trim();
    if key.is_empty() {
        return Err(SecretsError::Empty);
    }
    entry()?.set_password(key).map_err(classify)
}

/// The stored key, if one is stored.
pub fn get_api_key() -> Result<Option<Secret>, SecretsError> {
    match entry()?.get_password() {
        Ok(key) => Ok(Some(Secret::new(key))),
        Err(KeyringError::NoEntry) => Ok(None),
        Err(e) => Err(classify(e)),
    }
}

/// Remove the stored key; true when there was one.
pub fn delete_api_key() -> Result<bool, SecretsError> {
    match entry()?.delete_credential() {
        Ok(()) => Ok(true),
        Err(KeyringError::NoEntry) => Ok(false),
        Err(e) => Err(classify(e)),
    }
}

/// The provider's API key and where it comes from: `NOMOS_API_KEY` wins over the keychain.
/// [`api_key`] is the one place this is decided; the engine's provider, the desktop's settings
/// and `nomos auth status` all ask it.
#[derive(Debug)]
pub enum ApiKey {
    /// From `NOMOS_API_KEY` (the keychain is not asked).
    Env(Secret),
    /// Stored in the OS keychain.
    Keychain(Secret),
    /// Neither: fine for a local server.
    None,
    /// No key in the environment, and the keychain could not be read.
    Unavailable(SecretsError),
}

impl ApiKey {
    pub fn source(&self) -> KeySource {
        match self {
            ApiKey::Env(_) => KeySource::Env,
            ApiKey::Keychain(_) => KeySource::Keychain,
            ApiKey::None => KeySource::None,
            ApiKey::Unavailable(_) => KeySource::Unavailable,
        }
    }

    /// Where the key comes from, as the desktop shows it (never the key); for an unreadable
    /// keychain, why.
    pub fn status(&self) -> ApiKeyStatus {
        let detail = match self {
            ApiKey::Unavailable(e) => Some(e.to_string()),
            _ => None,
        };
        ApiKeyStatus { source: self.source(), detail }
    }
}

/// Where the key comes from, from this process's environment and the OS keychain. Blocks on the
/// keychain when `NOMOS_API_KEY` is not set: from async code, `spawn_blocking`.
pub fn api_key() -> ApiKey {
    api_key_from(|name| std::env::var(name).ok(), get_api_key)
}

/// [`api_key`] over any variable lookup and keychain read; the keychain is read only when the
/// environment has no key (blank counts as none).
pub fn api_key_from(
    var: impl Fn(&str) -> Option<String>,
    keychain: impl FnOnce() -> Result<Option<Secret>, SecretsError>,
) -> ApiKey {
    if let Some(key) = var(API_KEY_ENV).map(|k| k.trim().to_string()).filter(|k| !k.is_empty()) {
        return ApiKey::Env(Secret::new(key));
    }
    match keychain() {
        Ok(Some(key)) => ApiKey::Keychain(key),
        Ok(None) => ApiKey::None,
        Err(e) => ApiKey::Unavailable(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(key: Option<&str>) -> impl Fn(&str) -> Option<String> + '_ {
        move |name| (name == API_KEY_ENV).then(|| key.map(str::to_string)).flatten()
    }

    #[test]
    fn the_environment_wins_and_the_keychain_is_then_not_asked() {
        let key = api_key_from(env(Some(" sk-env ")), || panic!("the keychain was asked"));
        assert!(matches!(&key, ApiKey::Env(k) if k.expose() == "sk-env"), "{key:?}");
        assert_eq!(key.status(), ApiKeyStatus { source: KeySource::Env, detail: None });
    }

    #[test]
    fn else_the_keychain_says_stored_empty_or_why_it_cannot_be_read() {
        let stored = api_key_from(env(Some("  ")), || Ok(Some(Secret::new("sk-kc"))));
        assert!(matches!(&stored, ApiKey::Keychain(k) if k.expose() == "sk-kc"), "a blank variable is no key");
        assert_eq!(stored.status(), ApiKeyStatus { source: KeySource::Keychain, detail: None });
        assert_eq!(
            api_key_from(env(None), || Ok(None)).status(),
            ApiKeyStatus { source: KeySource::None, detail: None }
        );
        let locked = api_key_from(env(None), || Err(SecretsError::Locked("prompt dismissed".into())));
        let status = locked.status();
        assert_eq!(status.source, KeySource::Unavailable);
        assert!(status.detail.as_deref().is_some_and(|d| d.contains("locked") && d.contains("prompt dismissed")));
    }
}
