//! Operator settings kept in the database (the `settings` table): the model provider's base URL,
//! model and context size, and which desktop notifications are on. Never the API key: that lives in the OS keychain
//! ([`crate::agent::secrets`]).

use nomos_types::{DiscoverySettings, NotificationSettings, ObserveSettings, ProviderSettings};

use crate::agent::provider::{ProviderConfig, ProviderError};
use crate::{Engine, Error, Result};

/// The `settings` key of the provider.
const PROVIDER: &str = "provider";

/// The `settings` key of the desktop notifications.
const NOTIFICATIONS: &str = "notifications";

/// The `settings` key of discovery's background cycle.
const DISCOVERY: &str = "discovery";
/// How Observe runs ([`ObserveSettings`]).
const OBSERVE: &str = "observe";

/// The variable `name` as the settings give it: what the provider's configuration would read
/// from `NOMOS_LLM_BASE_URL`, `NOMOS_MODEL` and `NOMOS_CONTEXT_TOKENS`.
pub fn settings_var(settings: &ProviderSettings, name: &str) -> Option<String> {
    match name {
        "NOMOS_LLM_BASE_URL" => Some(settings.base_url.clone()),
        "NOMOS_MODEL" => Some(settings.model.clone()),
        "NOMOS_CONTEXT_TOKENS" => settings.context_tokens.map(|t| t.to_string()),
        _ => None,
    }
}

/// Checks settings the way the provider will read them; the message names what is wrong.
pub fn check_provider_settings(settings: &ProviderSettings) -> Result<()> {
    match ProviderConfig::from_lookup(|name| settings_var(settings, name), || Ok(None)) {
        Ok(_) => Ok(()),
        Err(ProviderError::Config(message)) => Err(Error::Invalid(settings_message(&message))),
        Err(e) => Err(Error::Invalid(e.to_string())),
    }
}

/// The provider configuration's messages name environment variables; the settings name fields.
fn settings_message(message: &str) -> String {
    message
        .replace("set NOMOS_LLM_BASE_URL", "enter a base URL")
        .replace("NOMOS_LLM_BASE_URL", "the base URL")
        .replace("NOMOS_MODEL is not set", "no model is set")
        .replace("and NOMOS_MODEL", "and a model")
        .replace("NOMOS_CONTEXT_TOKENS", "the context size")
}

impl Engine {
    /// Which desktop notifications are on (all, until the operator saved otherwise).
    pub async fn notification_settings(&self) -> Result<NotificationSettings> {
        self.setting_or_default(NOTIFICATIONS, "notification").await
    }

    /// One JSON value of the `settings` table, or the type's default when none was saved.
    async fn setting_or_default<T: serde::de::DeserializeOwned + Default>(&self, key: &str, what: &str) -> Result<T> {
        let value: Option<String> = sqlx::query_scalar("SELECT value FROM settings WHERE key = ?")
            .bind(key)
            .fetch_optional(self.store().pool())
            .await?;
        match value {
            None => Ok(T::default()),
            Some(v) => serde_json::from_str(&v).map_err(|e| Error::Invalid(format!("stored {what} settings: {e}"))),
        }
    }

    /// Stores which desktop notifications are on.
    pub async fn save_notification_settings(&self, settings: &NotificationSettings) -> Result<NotificationSettings> {
        self.put_setting(NOTIFICATIONS, &serde_json::to_string(settings).map_err(|e| Error::Invalid(e.to_string()))?)
            .await?;
        Ok(*settings)
    }

    /// How often discovery runs by itself (every five minutes until the operator saved otherwise).
    pub async fn discovery_settings(&self) -> Result<DiscoverySettings> {
        self.setting_or_default(DISCOVERY, "discovery").await
    }

    /// Stores how often discovery runs by itself: 0 (off), or at least every 30 s.
    pub async fn save_discovery_settings(&self, settings: &DiscoverySettings) -> Result<DiscoverySettings> {
        let s = settings.interval_secs;
        if s != 0 && s < DiscoverySettings::MIN_INTERVAL {
            return Err(Error::Invalid(format!(
                "discovery runs at most every {} s (0 turns it off), not every {s} s",
                DiscoverySettings::MIN_INTERVAL
            )));
        }
        if s > 7 * 24 * 3600 {
            return Err(Error::Invalid("discovery runs at least once a week (0 turns it off)".into()));
        }
        self.put_setting(DISCOVERY, &serde_json::to_string(settings).map_err(|e| Error::Invalid(e.to_string()))?)
            .await?;
        Ok(*settings)
    }

    /// How Observe runs (every 30 s, warnings not notified, until the operator saved otherwise).
    pub async fn observe_settings(&self) -> Result<ObserveSettings> {
        self.setting_or_default(OBSERVE, "observe").await
    }

    /// Stores how Observe runs: every 10 s at the most often, 0 (off), at least once an hour.
    pub async fn save_observe_settings(&self, settings: &ObserveSettings) -> Result<ObserveSettings> {
        let s = settings.interval_s;
        if s != 0 && !(10..=3600).contains(&s) {
            return Err(Error::Invalid(format!("observe runs every 10 s to 1 h (0 turns it off), not every {s} s")));
        }
        self.put_setting(OBSERVE, &serde_json::to_string(settings).map_err(|e| Error::Invalid(e.to_string()))?).await?;
        Ok(settings.clone())
    }

    /// Writes one JSON value of the `settings` table.
    async fn put_setting(&self, key: &str, value: &str) -> Result<()> {
        let mut tx = self.store().begin_write().await?;
        let now = tx.now().to_string();
        sqlx::query(
            "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(key)
        .bind(value)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The stored provider settings, if the operator saved any.
    pub async fn provider_settings(&self) -> Result<Option<ProviderSettings>> {
        let value: Option<String> = sqlx::query_scalar("SELECT value FROM settings WHERE key = ?")
            .bind(PROVIDER)
            .fetch_optional(self.store().pool())
            .await?;
        value
            .map(|v| serde_json::from_str(&v).map_err(|e| Error::Invalid(format!("stored provider settings: {e}"))))
            .transpose()
    }

    /// Checks and stores the provider settings (trimmed; a trailing `/` of the URL dropped).
    pub async fn save_provider_settings(&self, settings: &ProviderSettings) -> Result<ProviderSettings> {
        let clean = ProviderSettings {
            base_url: settings.base_url.trim().trim_end_matches('/').to_string(),
            model: settings.model.trim().to_string(),
            context_tokens: settings.context_tokens,
        };
        check_provider_settings(&clean)?;
        let value = serde_json::to_string(&clean).map_err(|e| Error::Invalid(e.to_string()))?;
        self.put_setting(PROVIDER, &value).await?;
        Ok(clean)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::engine;

    fn settings(base_url: &str, model: &str, context_tokens: Option<u32>) -> ProviderSettings {
        ProviderSettings { base_url: base_url.into(), model: model.into(), context_tokens }
    }

    #[tokio::test]
    async fn settings_are_checked_stored_and_read_back() {
        let (_dir, eng) = engine().await;
        assert_eq!(eng.provider_settings().await.unwrap(), None);
        let saved =
            eng.save_provider_settings(&settings(" http://127.0.0.1:11434/v1/ ", " qwen ", Some(8192))).await.unwrap();
        assert_eq!(saved, settings("http://127.0.0.1:11434/v1", "qwen", Some(8192)));
        assert_eq!(eng.provider_settings().await.unwrap(), Some(saved));
        eng.save_provider_settings(&settings("https://api.example.com/v1", "m", None)).await.unwrap();
        assert_eq!(eng.provider_settings().await.unwrap().unwrap().model, "m");
    }

    #[tokio::test]
    async fn notification_settings_are_all_on_until_saved_and_read_back() {
        let (_dir, eng) = engine().await;
        assert_eq!(eng.notification_settings().await.unwrap(), NotificationSettings::default());
        assert!(NotificationSettings::default().approvals && NotificationSettings::default().task_ends);
        let off = NotificationSettings { approvals: true, questions: false, task_ends: false, signals: true };
        assert_eq!(eng.save_notification_settings(&off).await.unwrap(), off);
        assert_eq!(eng.notification_settings().await.unwrap(), off);
        // A kind added later reads as on in settings stored before it.
        sqlx::query("UPDATE settings SET value = '{\"questions\": false}' WHERE key = 'notifications'")
            .execute(eng.store().pool())
            .await
            .unwrap();
        let read = eng.notification_settings().await.unwrap();
        assert_eq!(read, NotificationSettings { approvals: true, questions: false, task_ends: true, signals: true });
    }

    #[tokio::test]
    async fn bad_settings_are_refused_in_their_own_words() {
        let (_dir, eng) = engine().await;
        let cases = [
            (settings("", "m", None), "enter a base URL"),
            (settings("api.example.com", "m", None), "the base URL must start with http:// or https://"),
            (settings("http://x/v1", " ", None), "no model is set"),
            (settings("http://x/v1", "m", Some(10)), "the context size must be a number of tokens ≥ 1024"),
        ];
        for (s, expected) in cases {
            let err = eng.save_provider_settings(&s).await.unwrap_err();
            assert!(matches!(err, Error::Invalid(_)), "{err:?}");
            assert!(err.to_string().contains(expected), "{err}");
            assert!(!err.to_string().contains("NOMOS_"), "{err}");
        }
        assert_eq!(eng.provider_settings().await.unwrap(), None);
    }

    /// The agent follows the stored settings as they change (unless the environment names a
    /// provider, which this test cannot control and then skips).
    #[tokio::test]
    async fn the_agent_uses_the_settings_it_is_given() {
        if crate::agent::provider::ProviderConfig::env_configured() {
            return;
        }
        let (_dir, eng) = engine().await;
        let policy = std::sync::Arc::new(crate::policy::Policy::builtin().clone());
        let actuator = crate::actuate::Actuator::new(eng.clone(), policy, crate::actuate::ActuateConfig::default());
        let agent = crate::agent::Agent::new(eng.clone(), actuator);
        assert!(agent.provider().is_err(), "nothing configured");
        agent.use_settings(Some(settings("http://127.0.0.1:9/v1", "first", None)));
        assert_eq!(agent.provider().unwrap().config().model, "first");
        agent.use_settings(Some(settings("http://127.0.0.1:9/v1", "second", Some(4096))));
        let p = agent.provider().unwrap();
        assert_eq!((p.config().model.as_str(), p.config().context_tokens), ("second", 4096));
        agent.use_settings(None);
        assert!(agent.provider().is_err());
    }
}
