//! The provider's API key in the OS keychain (Secret Service on Linux, Keychain on macOS,
//! Credential Manager on Windows). There is no plaintext fallback: without a keychain the key
//! comes from `NOMOS_API_KEY` or not at all. Calls block on the keychain service; from async
//! code run them under `spawn_blocking`.

use keyring::{Entry, Error as KeyringError};

use super::provider::Secret;

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
