//! `nomos auth`: the provider's API key in the OS keychain, and what the agent would use. The key
//! is read from stdin or a prompt that does not echo — never from the command line (it would
//! land in shell history and the process list) — and never printed.

use std::io::{IsTerminal, Read};
use std::path::Path;

use clap::Subcommand;
use nomos::agent::provider::ProviderConfig;
use nomos::agent::secrets;
use nomos::types::{KeySource, ProviderSettings};
use serde::Serialize;

use crate::exit::{Exit, Outcome};
use crate::out::{line, Out};

#[derive(Subcommand, Debug)]
pub enum AuthCommand {
    /// Store the API key in the OS keychain: read from stdin, or asked for without echo on a terminal
    SetKey,
    /// Remove the stored API key
    DeleteKey,
    /// The provider URL, the model, and where the key comes from (never the key)
    Status,
}

pub async fn auth(command: AuthCommand, db: Option<&Path>, out: Out) -> Outcome {
    // What the operator saved in the app (Settings) counts as much as the environment; an absent
    // database is not created just to say nothing is stored.
    let settings = match command {
        AuthCommand::Status => stored_settings(db).await?,
        _ => None,
    };
    // The keychain calls block on D-Bus (or the OS service): keep them off the async workers.
    tokio::task::spawn_blocking(move || auth_blocking(command, settings, out))
        .await
        .map_err(|e| format!("the keychain call failed: {e}"))?
}

/// The provider settings stored in the database, when there is a database.
async fn stored_settings(db: Option<&Path>) -> Result<Option<ProviderSettings>, String> {
    let path = nomos::store::resolve_path(db).map_err(|e| e.to_string())?;
    if !path.exists() {
        return Ok(None);
    }
    let engine = nomos::Engine::open(&path).await.map_err(|e| e.to_string())?;
    let settings = engine.provider_settings().await.map_err(|e| e.to_string());
    engine.store().close().await;
    settings
}

fn auth_blocking(command: AuthCommand, settings: Option<ProviderSettings>, out: Out) -> Outcome {
    match command {
        AuthCommand::SetKey => {
            let key = read_key()?;
            secrets::set_api_key(&key).map_err(|e| e.to_string())?;
            line("API key stored in the OS keychain");
            Ok(Exit::Ok)
        }
        AuthCommand::DeleteKey => {
            let removed = secrets::delete_api_key().map_err(|e| e.to_string())?;
            line(if removed { "API key removed from the OS keychain" } else { "no API key was stored" });
            Ok(Exit::Ok)
        }
        AuthCommand::Status => status(settings.as_ref(), out),
    }
}

fn read_key() -> Result<String, String> {
    let key = if std::io::stdin().is_terminal() {
        rpassword::prompt_password("API key (not shown): ").map_err(|e| format!("reading the key: {e}"))?
    } else {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| format!("reading the key from stdin: {e}"))?;
        // The first line: `echo KEY |` and a file with a trailing newline both work.
        text.lines().next().unwrap_or_default().to_string()
    };
    let key = key.trim().to_string();
    if key.is_empty() {
        return Err("no API key given (pipe it on stdin or type it at the prompt)".into());
    }
    Ok(key)
}

#[derive(Serialize)]
struct Status {
    /// `env` (NOMOS_LLM_BASE_URL and friends), `settings` (saved in the app) or `none`.
    provider_from: &'static str,
    base_url: Option<String>,
    model: Option<String>,
    context_tokens: Option<u32>,
    /// `env`, `keychain`, `none` or `unavailable` (the keychain could not be read).
    key_source: KeySource,
    /// Whether the keychain holds a key (also when the environment's key wins).
    keychain: KeychainState,
    /// What keeps the agent from running, if anything.
    problem: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "detail")]
enum KeychainState {
    Stored,
    Empty,
    Unavailable(String),
}

fn status(settings: Option<&ProviderSettings>, out: Out) -> Outcome {
    // Read once: the keychain line reports it even when the environment's key wins.
    let read = secrets::get_api_key();
    let keychain = match &read {
        Ok(Some(_)) => KeychainState::Stored,
        Ok(None) => KeychainState::Empty,
        Err(e) => KeychainState::Unavailable(e.to_string()),
    };
    let provider_from = if ProviderConfig::env_configured() {
        "env"
    } else if settings.is_some() {
        "settings"
    } else {
        "none"
    };
    let var = ProviderConfig::variables(settings);
    let key = secrets::api_key_from(&var, move || read);
    let key_source = key.source();
    let status = match ProviderConfig::from_variables(&var).and_then(|c| c.with_key(key)) {
        Ok(config) => Status {
            provider_from,
            base_url: Some(config.base_url),
            model: Some(config.model),
            context_tokens: Some(config.context_tokens),
            key_source,
            keychain,
            problem: None,
        },
        Err(e) => Status {
            provider_from,
            base_url: var("NOMOS_LLM_BASE_URL"),
            model: var("NOMOS_MODEL"),
            context_tokens: None,
            key_source,
            keychain,
            problem: Some(e.to_string()),
        },
    };
    out.print(&status, |s| {
        let mut text = format!(
            "provider: {}\nmodel:    {}\n",
            s.base_url.as_deref().unwrap_or("(not set: NOMOS_LLM_BASE_URL, or Settings in the app)"),
            s.model.as_deref().unwrap_or("(not set: NOMOS_MODEL)")
        );
        if let Some(tokens) = s.context_tokens {
            text.push_str(&format!("context:  {tokens} tokens\n"));
        }
        text.push_str(match s.key_source {
            KeySource::Env => "key:      from NOMOS_API_KEY\n",
            KeySource::Keychain => "key:      stored in the OS keychain\n",
            KeySource::None => "key:      none (fine for a local server)\n",
            KeySource::Unavailable => "key:      none (the OS keychain cannot be read)\n",
        });
        text.push_str(&match &s.keychain {
            KeychainState::Stored => "keychain: a key is stored\n".to_string(),
            KeychainState::Empty => "keychain: no key stored\n".to_string(),
            KeychainState::Unavailable(why) => format!("keychain: unavailable — {why}\n"),
        });
        if let Some(problem) = &s.problem {
            text.push_str(&format!("problem:  {problem}\n"));
        }
        text
    })
}
