//! The provider form's checks, before anything is sent: each field's problem in the operator's
//! words. The engine checks again when saving (and has the last word).

use nomos_types::ProviderSettings;

/// The smallest context window the engine accepts.
pub const MIN_CONTEXT_TOKENS: u32 = 1024;

/// What is wrong with each field; all `None` when the form can be sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FormErrors {
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub context_tokens: Option<String>,
}

impl FormErrors {
    pub fn is_empty(&self) -> bool {
        self.base_url.is_none() && self.model.is_none() && self.context_tokens.is_none()
    }
}

/// The settings the form describes, or what to fix. An empty context size means the engine's
/// table of known models.
pub fn check_provider_form(base_url: &str, model: &str, context_tokens: &str) -> Result<ProviderSettings, FormErrors> {
    let base_url = base_url.trim();
    let model = model.trim();
    let tokens = context_tokens.trim().replace(['_', ' ', ','], "");
    let mut errors = FormErrors::default();
    if base_url.is_empty() {
        errors.base_url = Some("Enter the API's base URL, e.g. https://api.openai.com/v1.".into());
    } else if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        errors.base_url = Some("The base URL must start with http:// or https://.".into());
    } else if base_url.ends_with("/chat/completions") || base_url.ends_with("/chat/completions/") {
        errors.base_url = Some("Give the API root (ending in /v1), without /chat/completions.".into());
    }
    if model.is_empty() {
        errors.model = Some("Name the model, e.g. gpt-4o-mini or qwen2.5:14b.".into());
    }
    let context = if tokens.is_empty() {
        None
    } else {
        match tokens.parse::<u32>() {
            Ok(t) if t >= MIN_CONTEXT_TOKENS => Some(t),
            _ => {
                errors.context_tokens =
                    Some(format!("A number of tokens of at least {MIN_CONTEXT_TOKENS}, or empty for the default."));
                None
            }
        }
    };
    if errors.is_empty() {
        Ok(ProviderSettings { base_url: base_url.to_string(), model: model.to_string(), context_tokens: context })
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_good_form_becomes_settings() {
        let s = check_provider_form(" http://127.0.0.1:11434/v1 ", " qwen ", "32_768").unwrap();
        assert_eq!(
            s,
            ProviderSettings {
                base_url: "http://127.0.0.1:11434/v1".into(),
                model: "qwen".into(),
                context_tokens: Some(32768)
            }
        );
        assert_eq!(check_provider_form("https://x/v1", "m", "").unwrap().context_tokens, None);
    }

    #[test]
    fn each_field_says_what_is_wrong() {
        let e = check_provider_form("", "", "lots").unwrap_err();
        assert!(e.base_url.unwrap().contains("base URL"));
        assert!(e.model.unwrap().contains("Name the model"));
        assert!(e.context_tokens.unwrap().contains("1024"));
        let e = check_provider_form("api.openai.com/v1", "m", "512").unwrap_err();
        assert!(e.base_url.unwrap().contains("http://"));
        assert!(e.model.is_none());
        assert!(e.context_tokens.is_some());
        let e = check_provider_form("https://api.openai.com/v1/chat/completions", "m", "").unwrap_err();
        assert!(e.base_url.unwrap().contains("without /chat/completions"));
        assert!(check_provider_form("https://x/v1", "m", "1024").is_ok());
    }
}
