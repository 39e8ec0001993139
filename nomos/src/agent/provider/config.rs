//! Where the model lives and how patiently to talk to it: base URL, model, key, context size,
//! timeouts and the retry policy. Read from the environment; the key otherwise from the keychain.

use std::fmt;
use std::time::Duration;

use nomos_types::KeySource;

use super::ProviderError;
use crate::agent::secrets::{self, ApiKey, SecretsError};

/// An API key. It prints as `[redacted]` and is never serialised; [`Secret::expose`] is the one
/// way to read it (for the `Authorization` header).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Separate limits for each phase of one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// TCP + TLS connect.
    pub connect: Duration,
    /// From sending the request to the first byte of the body (a streamed reply). A local model
    /// may need a while to load, hence the generous default.
    pub first_byte: Duration,
    /// Silence between two chunks of a stream.
    pub idle: Duration,
    /// One whole attempt, headers to last byte (for a non-streamed reply: the whole generation).
    pub total: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            connect: Duration::from_secs(10),
            first_byte: Duration::from_secs(120),
            idle: Duration::from_secs(60),
            total: Duration::from_secs(600),
        }
    }
}

/// How often and how patiently a retryable failure is tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 = never retry).
    pub max_attempts: u32,
    /// The first backoff's ceiling; each retry doubles it (full jitter: a random wait up to it).
    pub base: Duration,
    /// The most any backoff may reach.
    pub cap: Duration,
    /// A `Retry-After` longer than this is not waited out: the error goes to the caller.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 5,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

/// Everything the client needs to reach one model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderConfig {
    /// The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1` (no trailing
    /// `/chat/completions`).
    pub base_url: String,
    pub model: String,
    /// None for a local server that needs no key.
    pub api_key: Option<Secret>,
    /// The model's context window in tokens.
    pub context_tokens: u32,
    /// Stream the reply (default); the result is the same either way.
    pub stream: bool,
    pub timeouts: Timeouts,
    pub retry: RetryPolicy,
}

pub const DEFAULT_CONTEXT_TOKENS: u32 = 32_768;

impl ProviderConfig {
    /// A config with the defaults: streamed, no key, the context size from the table of known
    /// models.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> ProviderConfig {
        let model = model.into();
        ProviderConfig {
            base_url: base_url.into(),
            context_tokens: known_context_tokens(&model).unwrap_or(DEFAULT_CONTEXT_TOKENS),
            model,
            api_key: None,
            stream: true,
            timeouts: Timeouts::default(),
            retry: RetryPolicy::default(),
        }
    }

    /// `NOMOS_LLM_BASE_URL`, `NOMOS_MODEL`, `NOMOS_CONTEXT_TOKENS`, and the key from
    /// `NOMOS_API_KEY` or else the OS keychain (none stored, or no keychain service at all → no
    /// key, for a local server). Blocks on the keychain: from async code, `spawn_blocking`.
    pub fn from_env() -> Result<ProviderConfig, ProviderError> {
        let (config, _) = ProviderConfig::from_lookup(|name| std::env::var(name).ok(), secrets::get_api_key)?;
        Ok(config)
    }

    /// Whether the environment names a provider (`NOMOS_LLM_BASE_URL`): it then wins over the
    /// operator's stored settings.
    pub fn env_configured() -> bool {
        std::env::var("NOMOS_LLM_BASE_URL").is_ok_and(|v| !v.trim().is_empty())
    }

    /// The environment's provider when it names one (see [`ProviderConfig::env_configured`]),
    /// else the stored `settings`; the key from `NOMOS_API_KEY` or the keychain either way.
    /// Blocks on the keychain.
    pub fn from_env_or_settings(
        settings: Option<&nomos_types::ProviderSettings>,
    ) -> Result<ProviderConfig, ProviderError> {
        let (config, _) = ProviderConfig::from_lookup(ProviderConfig::variables(settings), secrets::get_api_key)?;
        Ok(config)
    }

    /// Where the provider's variables are read: the environment when it names a provider or
    /// nothing is stored, else the stored `settings` — `NOMOS_API_KEY` from the environment
    /// either way. (`nomos auth status` reports through the same lookup.)
    pub fn variables(settings: Option<&nomos_types::ProviderSettings>) -> impl Fn(&str) -> Option<String> + '_ {
        let stored = settings.filter(|_| !ProviderConfig::env_configured());
        move |name| match stored {
            Some(s) if name != secrets::API_KEY_ENV => crate::settings::settings_var(s, name),
            _ => std::env::var(name).ok(),
        }
    }

    /// [`ProviderConfig::from_env`] over any variable lookup and keychain (for tests); also says
    /// where the key came from.
    pub fn from_lookup(
        var: impl Fn(&str) -> Option<String>,
        keychain: impl FnOnce() -> Result<Option<Secret>, SecretsError>,
    ) -> Result<(ProviderConfig, KeySource), ProviderError> {
        let config = ProviderConfig::from_variables(&var)?;
        let key = secrets::api_key_from(&var, keychain);
        let source = key.source();
        Ok((config.with_key(key)?, source))
    }

    /// The provider the variables name (`NOMOS_LLM_BASE_URL`, `NOMOS_MODEL`,
    /// `NOMOS_CONTEXT_TOKENS`), without a key yet (see [`ProviderConfig::with_key`]).
    pub fn from_variables(var: impl Fn(&str) -> Option<String>) -> Result<ProviderConfig, ProviderError> {
        let get = |name: &str| var(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let base_url = get("NOMOS_LLM_BASE_URL").ok_or_else(|| {
            ProviderError::Config(
                "no provider configured: set NOMOS_LLM_BASE_URL (e.g. https://api.openai.com/v1 or \
                 http://127.0.0.1:11434/v1 for Ollama) and NOMOS_MODEL"
                    .into(),
            )
        })?;
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(ProviderError::Config(format!(
                "NOMOS_LLM_BASE_URL must start with http:// or https:// (got {base_url:?})"
            )));
        }
        let model = get("NOMOS_MODEL").ok_or_else(|| {
            ProviderError::Config(
                "NOMOS_MODEL is not set: name the model to use (e.g. gpt-4o-mini, qwen2.5:14b)".into(),
            )
        })?;
        let mut config = ProviderConfig::new(base_url.trim_end_matches('/'), model);
        if let Some(tokens) = get("NOMOS_CONTEXT_TOKENS") {
            config.context_tokens = tokens.parse::<u32>().ok().filter(|t| *t >= 1024).ok_or_else(|| {
                ProviderError::Config(format!(
                    "NOMOS_CONTEXT_TOKENS must be a number of tokens ≥ 1024 (got {tokens:?})"
                ))
            })?;
        }
        Ok(config)
    }

    /// The config with the key [`secrets::api_key`] found. A machine without a keychain (a
    /// headless server next to a local model) simply has no stored key; a locked or failing one
    /// is an error worth saying.
    pub fn with_key(mut self, key: ApiKey) -> Result<ProviderConfig, ProviderError> {
        self.api_key = match key {
            ApiKey::Env(key) | ApiKey::Keychain(key) => Some(key),
            ApiKey::None => None,
            ApiKey::Unavailable(SecretsError::NoService(why)) => {
                tracing::debug!(%why, "no OS keychain; using no stored API key");
                None
            }
            ApiKey::Unavailable(e) => return Err(ProviderError::Config(e.to_string())),
        };
        Ok(self)
    }
}

/// Context windows of models people commonly point Nomos at; the rest get
/// [`DEFAULT_CONTEXT_TOKENS`] unless `NOMOS_CONTEXT_TOKENS` says otherwise.
pub fn known_context_tokens(model: &str) -> Option<u32> {
    // Match on the name without a vendor prefix ("openai/gpt-4o" on routers).
    let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    const TABLE: &[(&str, u32)] = &[
        ("gpt-4.1", 1_047_576),
        ("gpt-4o", 128_000),
        ("gpt-4-turbo", 128_000),
        ("gpt-5", 400_000),
        ("o3", 200_000),
        ("o4-mini", 200_000),
        ("claude", 200_000),
        ("gemini", 1_048_576),
        ("deepseek", 65_536),
        ("llama3.1", 131_072),
        ("llama3.2", 131_072),
        ("llama3.3", 131_072),
        ("qwen2.5", 32_768),
        ("qwen3", 40_960),
        ("mistral-small", 32_768),
        ("mistral-large", 131_072),
    ];
    TABLE.iter().find(|(prefix, _)| name.starts_with(prefix)).map(|(_, tokens)| *tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn env_key_wins_over_the_keychain_and_is_redacted() {
        let (config, source) = ProviderConfig::from_lookup(
            lookup(&[
                ("NOMOS_LLM_BASE_URL", "https://api.example.com/v1/"),
                ("NOMOS_MODEL", "gpt-4o"),
                ("NOMOS_API_KEY", "sk-env"),
            ]),
            || Ok(Some(Secret::new("sk-keychain"))),
        )
        .unwrap();
        assert_eq!(source, KeySource::Env);
        assert_eq!(config.api_key.as_ref().map(Secret::expose), Some("sk-env"));
        assert_eq!(config.base_url, "https://api.example.com/v1");
        assert_eq!(config.context_tokens, 128_000);
        assert!(!format!("{config:?}").contains("sk-env"));
    }

    #[test]
    fn keychain_then_none_for_a_local_server() {
        let vars = [("NOMOS_LLM_BASE_URL", "http://127.0.0.1:11434/v1"), ("NOMOS_MODEL", "some-local-model")];
        let (config, source) = ProviderConfig::from_lookup(lookup(&vars), || Ok(Some(Secret::new("sk-kc")))).unwrap();
        assert_eq!(
            (source, config.api_key.map(|k| k.expose().to_string())),
            (KeySource::Keychain, Some("sk-kc".into()))
        );
        let (config, source) = ProviderConfig::from_lookup(lookup(&vars), || Ok(None)).unwrap();
        assert_eq!((source, config.api_key), (KeySource::None, None));
        assert_eq!(config.context_tokens, DEFAULT_CONTEXT_TOKENS);
    }

    #[test]
    fn no_keychain_is_no_key_but_a_locked_one_is_an_error() {
        let vars = [("NOMOS_LLM_BASE_URL", "http://127.0.0.1:11434/v1"), ("NOMOS_MODEL", "m")];
        let (config, source) =
            ProviderConfig::from_lookup(lookup(&vars), || Err(SecretsError::NoService("no bus".into()))).unwrap();
        assert_eq!((source, config.api_key), (KeySource::Unavailable, None));
        let err =
            ProviderConfig::from_lookup(lookup(&vars), || Err(SecretsError::Locked("dismissed".into()))).unwrap_err();
        assert!(err.to_string().contains("locked"), "{err}");
    }

    #[test]
    fn missing_or_bad_settings_say_what_to_set() {
        let err = ProviderConfig::from_lookup(lookup(&[]), || Ok(None)).unwrap_err();
        assert!(err.to_string().contains("NOMOS_LLM_BASE_URL"), "{err}");
        let err =
            ProviderConfig::from_lookup(lookup(&[("NOMOS_LLM_BASE_URL", "http://x/v1")]), || Ok(None)).unwrap_err();
        assert!(err.to_string().contains("NOMOS_MODEL"), "{err}");
        let err = ProviderConfig::from_lookup(
            lookup(&[("NOMOS_LLM_BASE_URL", "http://x/v1"), ("NOMOS_MODEL", "m"), ("NOMOS_CONTEXT_TOKENS", "lots")]),
            || Ok(None),
        )
        .unwrap_err();
        assert!(err.to_string().contains("NOMOS_CONTEXT_TOKENS"), "{err}");
        let err =
            ProviderConfig::from_lookup(lookup(&[("NOMOS_LLM_BASE_URL", "api.openai.com")]), || Ok(None)).unwrap_err();
        assert!(err.to_string().contains("http://"), "{err}");
    }

    #[test]
    fn context_from_env_and_the_table() {
        let (config, _) = ProviderConfig::from_lookup(
            lookup(&[
                ("NOMOS_LLM_BASE_URL", "http://x/v1"),
                ("NOMOS_MODEL", "openai/gpt-4o-mini"),
                ("NOMOS_CONTEXT_TOKENS", "8192"),
            ]),
            || Ok(None),
        )
        .unwrap();
        assert_eq!(config.context_tokens, 8192);
        assert_eq!(known_context_tokens("openai/gpt-4o-mini"), Some(128_000));
        assert_eq!(known_context_tokens("qwen2.5:14b"), Some(32_768));
    }
}
