//! Nomos, the agent: it takes an operator's goal, researches the graph and the knowledge base,
//! proposes one plan, and carries it out through the gate once the operator approves.
//!
//! - [`chat`]: the conversation as a provider sees it (shared types);
//! - [`provider`]: the OpenAI-compatible chat-completions client;
//! - [`secrets`]: the API key in the OS keychain;
//! - [`tools`]: what Nomos may call, checked against each tool's schema.

pub mod chat;
pub mod provider;
pub mod secrets;
pub mod tools;
