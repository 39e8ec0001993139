//! Knowledge (search, recent, a note, writing one) and settings: the model provider and its API
//! key (the key only ever goes to the OS keychain), hosts and their pinned keys, inventory
//! import, the policy in use.

use std::time::Duration;

use nomos::actuate::Decision;
use nomos::agent::provider::{ProviderConfig, ProviderError};
use nomos::agent::secrets::{self, SecretsError};
use nomos::policy::{Policy, POLICY_ENV};
use nomos_types::{
    ApiKeyStatus, Channel, HostEntry, HostKey, ImportReport, IpcError, IpcErrorCode, KnowledgeDoc, KnowledgeInput,
    KnowledgeSummary, KnowledgeUpsert, LabInventory, PolicyFiles, ProviderSettings, ProviderStatus, SearchHit,
};

use super::ipc_error;
use crate::AppState;

const SEARCH_LIMIT: u32 = 30;
const RECENT_LIMIT: u32 = 20;
/// "Test connection" gives up after this long (the provider client retries failures meanwhile).
const TEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs keychain calls (they block on D-Bus) off the async workers.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, IpcError> {
    tokio::task::spawn_blocking(work).await.map_err(|e| IpcError::new(IpcErrorCode::Ipc, e))
}

pub async fn search_knowledge(state: &AppState, query: String, limit: Option<u32>) -> Result<Vec<SearchHit>, IpcError> {
    state.engine().await?.search_knowledge(&query, limit.unwrap_or(SEARCH_LIMIT)).await.map_err(ipc_error)
}

pub async fn recent_knowledge(state: &AppState, limit: Option<u32>) -> Result<Vec<KnowledgeSummary>, IpcError> {
    state.engine().await?.recent_knowledge(limit.unwrap_or(RECENT_LIMIT)).await.map_err(ipc_error)
}

pub async fn knowledge_note(state: &AppState, key: String) -> Result<KnowledgeDoc, IpcError> {
    state.engine().await?.knowledge(&key).await.map_err(ipc_error)
}

pub async fn save_note(state: &AppState, note: KnowledgeInput) -> Result<KnowledgeUpsert, IpcError> {
    state.engine().await?.upsert_knowledge(&note).await.map_err(ipc_error)
}

/// Where the key comes from (blocks on the keychain).
fn key_status() -> ApiKeyStatus {
    secrets::api_key().status()
}

pub async fn provider_status(state: &AppState) -> Result<ProviderStatus, IpcError> {
    let rt = state.runtime().await?.clone();
    let stored = rt.engine().provider_settings().await.map_err(ipc_error)?;
    blocking(move || {
        let (in_use, problem) = match rt.agent().provider() {
            Ok(p) => {
                let c = p.config();
                let settings = ProviderSettings {
                    base_url: c.base_url.clone(),
                    model: c.model.clone(),
                    context_tokens: Some(c.context_tokens),
                };
                (Some(settings), None)
            }
            Err(e) => (None, Some(e.to_string())),
        };
        ProviderStatus { stored, env_overrides: ProviderConfig::env_configured(), in_use, problem, key: key_status() }
    })
    .await
}

pub async fn save_provider(state: &AppState, settings: ProviderSettings) -> Result<ProviderStatus, IpcError> {
    let rt = state.runtime().await?;
    let saved = rt.engine().save_provider_settings(&settings).await.map_err(ipc_error)?;
    rt.agent().use_settings(Some(saved));
    provider_status(state).await
}

pub async fn test_provider(state: &AppState) -> Result<String, IpcError> {
    let rt = state.runtime().await?.clone();
    let provider = blocking(move || rt.agent().provider()).await?.map_err(ipc_error)?;
    let failed = |e: ProviderError| IpcError::new(IpcErrorCode::Invalid, format!("the provider did not answer: {e}"));
    match tokio::time::timeout(TEST_TIMEOUT, provider.check()).await {
        Ok(Ok(answer)) => Ok(format!("{} answered: {answer}", provider.config().model)),
        Ok(Err(e)) => Err(failed(e)),
        Err(_) => Err(IpcError::new(
            IpcErrorCode::Invalid,
            format!("the provider did not answer within {} s", TEST_TIMEOUT.as_secs()),
        )),
    }
}

fn secrets_error(e: SecretsError) -> IpcError {
    let code = match e {
        SecretsError::Empty => IpcErrorCode::Invalid,
        _ => IpcErrorCode::Store,
    };
    IpcError::new(code, e)
}

pub async fn set_api_key(state: &AppState, key: String) -> Result<ApiKeyStatus, IpcError> {
    let rt = state.runtime().await?.clone();
    blocking(move || {
        secrets::set_api_key(&key).map_err(secrets_error)?;
        // The next turn reads the new key.
        rt.agent().reload_provider();
        Ok(key_status())
    })
    .await?
}

pub async fn delete_api_key(state: &AppState) -> Result<ApiKeyStatus, IpcError> {
    let rt = state.runtime().await?.clone();
    blocking(move || {
        secrets::delete_api_key().map_err(secrets_error)?;
        rt.agent().reload_provider();
        Ok(key_status())
    })
    .await?
}

pub async fn host_entries(state: &AppState) -> Result<Vec<HostEntry>, IpcError> {
    state.runtime().await?.actuator().host_entries().await.map_err(ipc_error)
}

pub async fn trust_host(state: &AppState, slug: String, fingerprint: Option<String>) -> Result<HostKey, IpcError> {
    let fingerprint = fingerprint.map(|f| f.trim().to_string()).filter(|f| !f.is_empty());
    let decision = Decision::by_operator(Channel::Ui, None);
    state.runtime().await?.actuator().trust_host(&slug, fingerprint.as_deref(), &decision).await.map_err(ipc_error)
}

pub async fn import_inventory(state: &AppState, text: String, source: String) -> Result<ImportReport, IpcError> {
    let source = if source.trim().is_empty() { "inventory file".to_string() } else { source };
    state.engine().await?.import_inventory(&text, &source).await.map_err(ipc_error)
}

fn lab_path() -> Result<std::path::PathBuf, IpcError> {
    nomos::inventory::lab_inventory_path()
        .ok_or_else(|| IpcError::new(IpcErrorCode::NotFound, "this system has no data directory for the lab"))
}

pub async fn lab_inventory(_state: &AppState) -> Result<LabInventory, IpcError> {
    let path = lab_path()?;
    Ok(LabInventory { exists: path.is_file(), path: path.display().to_string() })
}

pub async fn import_lab_inventory(state: &AppState) -> Result<ImportReport, IpcError> {
    let path = lab_path()?;
    if !path.is_file() {
        return Err(IpcError::new(
            IpcErrorCode::NotFound,
            format!("no lab inventory at {} (start the lab with `nomos lab up`)", path.display()),
        ));
    }
    state.engine().await?.import_inventory_file(&path).await.map_err(ipc_error)
}

pub async fn policy_files(_state: &AppState) -> Result<PolicyFiles, IpcError> {
    Ok(PolicyFiles {
        operator_file: Policy::operator_file().map(|p| p.display().to_string()),
        from_env: std::env::var_os(POLICY_ENV).is_some_and(|v| !v.is_empty()),
        default_path: Policy::default_operator_file().map(|p| p.display().to_string()),
    })
}
