//! The desktop's commands, declared once: name, arguments, result and error codes.
//!
//! [`ipc_commands!`](crate::ipc_commands) holds the table and hands it to a macro of the caller's
//! choosing, which turns each line into whatever that side needs: the desktop shell generates one
//! Tauri handler per command, calling the function of the same name in its `commands/` area
//! modules, and the handler list; the UI generates one typed `async fn` per command. A command misspelt or an argument mismatched on either side is
//! therefore a compile error, not a failed call at run time.
//!
//! # The wire
//! The UI sends a command's arguments as one JSON object with a key per argument, spelt exactly as
//! declared (snake_case) — that object is the command's [`Args`](store_info::Args) struct below.
//! Tauri by default expects camelCase keys in JS and converts them to the Rust argument names; the
//! shell's generated handlers use `rename_all = "snake_case"` instead, so no conversion happens
//! and one spelling is used end to end. A command fails with an [`IpcError`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::UnknownValue;

/// The command table. Each line reads `name(arg: Type, …) -> Result;` and may carry doc
/// comments. `ipc_commands!(my_macro)` expands to `my_macro! { <the table> }`; types are written
/// with `$crate::` paths, so the expansion compiles in any crate that depends on `nomos-types`.
#[macro_export]
macro_rules! ipc_commands {
    ($callback:ident) => {
        $callback! {
            // ── The window itself (the desktop's `commands/window.rs`) ──
            /// The page's outline is on screen (index.html, before the UI's code has loaded): the
            /// shell logs how long start-up took. `at`: when that frame was drawn, in ms since the
            /// Unix epoch by the page's clock (the call itself may wait behind others).
            ui_painted(at: Option<f64>) -> ();
            /// The UI itself has drawn its first frame (`at` as above): the shell logs that time too,
            /// with when the UI's code began to run (`loaded`: fetched, compiled, instantiated) and
            /// when its first mount returned (`mounted`), so a slow start says where it went.
            ui_ready(at: Option<f64>, loaded: Option<f64>, mounted: Option<f64>) -> ();
            // ── The graph and inventory (the desktop's `commands/graph.rs`) ──
            /// The open database: its path, schema version and how many entities it holds.
            store_info() -> $crate::StoreInfo;
            /// How many entities there are of each type.
            entity_types() -> ::std::vec::Vec<$crate::TypeCount>;
            /// One page of entities matching the query, with the true total.
            list_entities(query: $crate::EntityQuery) -> $crate::Page<$crate::EntityListItem>;
            /// An entity with its status, current relations and the knowledge about it.
            explain_entity(slug: ::std::string::String) -> $crate::Explain;
            /// What depends on an entity, transitively (`depth` hops, the engine's default if absent).
            blast_radius(slug: ::std::string::String, depth: ::std::option::Option<u32>) -> $crate::BlastRadius;
            /// Imports the built-in demo homelab (idempotent).
            import_demo_inventory() -> $crate::ImportReport;
            /// The whole graph for drawing: entities with their status and current relations.
            graph_snapshot() -> $crate::GraphSnapshot;
            /// An entity's relations in both directions; with `history` also the ended ones.
            entity_relations(slug: ::std::string::String, history: bool) -> ::std::vec::Vec<$crate::Relation>;

            // ── Tasks and the conversation with Nomos (`commands/tasks.rs`) ──
            /// Tasks, most recently active first, with the count in each board column.
            list_tasks() -> $crate::tasks::TaskBoard;
            /// A task with its plan, questions, conversation, tool calls, executions, the knowledge
            /// it wrote and the entities it touched.
            task_detail(id: ::std::string::String) -> $crate::tasks::TaskDetail;
            /// Starts a task from the operator's message; its first turn runs in the background.
            create_task(message: ::std::string::String) -> $crate::tasks::TurnStarted;
            /// The operator's message to a task (an answer; "yes" approves its plan), then a turn.
            send_task_message(id: ::std::string::String, message: ::std::string::String) -> $crate::tasks::TurnStarted;
            /// Approves the task's plan (what its last turn queued), then a turn.
            approve_task_plan(id: ::std::string::String) -> $crate::tasks::TurnStarted;
            /// Stops the task's running turn; false when none runs.
            stop_task(id: ::std::string::String) -> bool;
            /// Deletes a task; returns how many notes it wrote (they are kept).
            delete_task(id: ::std::string::String) -> u64;

            // ── Approvals, executions, the audit ledger and autonomy (`commands/operations.rs`) ──
            /// Approvals waiting for the operator (expired ones swept first), with the engine's time.
            pending_approvals() -> $crate::PendingApprovals;
            /// Approves and starts the execution (returns once it runs); a destructive one needs
            /// `confirmation`, the typed words naming its target.
            approve(approval_id: ::std::string::String, confirmation: ::std::option::Option<::std::string::String>) -> $crate::Execution;
            /// Refuses a waiting execution; it never runs.
            deny(approval_id: ::std::string::String, reason: ::std::option::Option<::std::string::String>) -> $crate::Approval;
            /// Whether `text` is the typed confirmation the approval needs (the gate's own rule).
            check_confirmation(approval_id: ::std::string::String, text: ::std::string::String) -> bool;
            /// Executions, newest first, filtered by task, target and status.
            executions(query: $crate::ExecutionQuery) -> ::std::vec::Vec<$crate::Execution>;
            /// One execution with its output.
            execution(id: ::std::string::String) -> $crate::Execution;
            /// Stops a running execution (killed on its host) or withdraws a waiting one.
            cancel_execution(id: ::std::string::String) -> $crate::Execution;
            /// One page of the audit ledger, newest first.
            audit(query: $crate::AuditQuery) -> $crate::Page<$crate::AuditEntry>;
            /// Whether autonomy is paused, and the windows open now.
            autonomy() -> $crate::Autonomy;
            /// Pauses autonomy (every window revoked) or resumes it.
            set_autonomy_paused(paused: bool) -> $crate::Autonomy;

            // ── Knowledge and settings (`commands/library.rs`) ──
            /// Full-text search of the notes, best first; matches marked as character ranges.
            search_knowledge(query: ::std::string::String, limit: ::std::option::Option<u32>) -> ::std::vec::Vec<$crate::SearchHit>;
            /// The most recently written notes.
            recent_knowledge(limit: ::std::option::Option<u32>) -> ::std::vec::Vec<$crate::KnowledgeSummary>;
            /// One note with its body and the entities it documents (by slug or id).
            knowledge_note(key: ::std::string::String) -> $crate::KnowledgeDoc;
            /// Writes a note (the same kind and title updates it), linked to the entities it names.
            save_note(note: $crate::KnowledgeInput) -> $crate::KnowledgeUpsert;
            /// The provider in use, the stored settings, whether the environment overrides them, and
            /// where the API key comes from (never the key).
            provider_status() -> $crate::ProviderStatus;
            /// Checks and stores the provider settings; the next turn uses them.
            save_provider(settings: $crate::ProviderSettings) -> $crate::ProviderStatus;
            /// A one-word completion through the provider in use: its answer, or why it failed.
            test_provider() -> ::std::string::String;
            /// Stores the API key in the OS keychain (never in the database; never returned).
            set_api_key(key: ::std::string::String) -> $crate::ApiKeyStatus;
            /// Removes the API key from the OS keychain.
            delete_api_key() -> $crate::ApiKeyStatus;
            /// The hosts with their SSH endpoint and pinned key.
            host_entries() -> ::std::vec::Vec<$crate::HostEntry>;
            /// Trusts the key the host presents; a changed key needs the fingerprint compared.
            trust_host(slug: ::std::string::String, fingerprint: ::std::option::Option<::std::string::String>) -> $crate::HostKey;
            /// Imports an inventory from YAML text (read from a file in the window).
            import_inventory(text: ::std::string::String, source: ::std::string::String) -> $crate::ImportReport;
            /// Where the lab writes its inventory and whether it is there.
            lab_inventory() -> $crate::LabInventory;
            /// Imports the lab's inventory.
            import_lab_inventory() -> $crate::ImportReport;
            /// The classifier's policy files in use.
            policy_files() -> $crate::PolicyFiles;

            // ── Hosts and discovery (`commands/hosts.rs`) ──
            /// Adds a host and shows the key it presents (nothing trusted yet).
            add_host(spec: $crate::HostSpec) -> $crate::AddedHost;
            /// Changes how a host is reached (fields left out stay).
            edit_host(spec: $crate::HostSpec) -> $crate::HostEntry;
            /// Removes a host (kept as gone when anything ran on it).
            remove_host(slug: ::std::string::String) -> $crate::HostRemoved;
            /// Connects to a host only to read the key it presents: its fingerprint, shown before trusting.
            present_host_key(slug: ::std::string::String) -> ::std::string::String;
            /// What discovery needs on the host, one check each, with how to fix what is missing.
            test_host(slug: ::std::string::String) -> $crate::HostTest;
            /// Reads the host's cluster and compares it with the graph; `apply` writes the difference.
            discover(slug: ::std::string::String, apply: bool) -> $crate::DiscoveryDiff;
            /// How often discovery runs by itself on hosts already discovered.
            discovery_settings() -> $crate::DiscoverySettings;
            /// Stores how often discovery runs by itself (0: off).
            save_discovery_settings(settings: $crate::DiscoverySettings) -> $crate::DiscoverySettings;

            // ── Observe: signals, metrics, checks (`commands/observe.rs`) ──
            /// What needs the operator now: approvals, open signals, running tasks, fleet health.
            overview() -> $crate::Overview;
            /// Signals matching the query (by default everything not resolved), with the counts.
            list_signals(query: $crate::SignalQuery) -> $crate::SignalList;
            /// Acknowledges a signal with a reason (kept if it fires again within 30 min).
            ack_signal(id: ::std::string::String, reason: ::std::string::String) -> $crate::Signal;
            /// Mutes a signal for a number of seconds.
            mute_signal(id: ::std::string::String, seconds: u64) -> $crate::Signal;
            /// Resolves a signal by hand.
            resolve_signal(id: ::std::string::String) -> $crate::Signal;
            /// Opens (or returns the running) investigation of a signal: a researched task, whose
            /// first turn starts when Nomos has a provider.
            investigate_signal(id: ::std::string::String) -> $crate::Investigation;
            /// What the loop has learned: outcomes, capabilities, incidents, recalled knowledge.
            learning_report() -> $crate::LearningReport;
            /// An entity's metrics over a range (one series, or all of them without `metric`).
            query_metrics(slug: ::std::string::String, metric: ::std::option::Option<::std::string::String>, range: $crate::MetricRange) -> ::std::vec::Vec<$crate::MetricSeries>;
            /// Entities by type and health, with the open signal counts.
            health_summary() -> $crate::HealthSummary;
            /// The checks of an entity with how they last went.
            entity_checks(slug: ::std::string::String) -> ::std::vec::Vec<$crate::Check>;
            /// Adds (or replaces, by entity and name) a check.
            add_check(spec: $crate::CheckSpec) -> $crate::Check;
            /// Removes a check.
            remove_check(id: ::std::string::String) -> ();
            /// Pauses a check (its open signal is resolved) or runs it again.
            set_check_enabled(id: ::std::string::String, enabled: bool) -> $crate::Check;
            /// Runs a check now (read-only, through the gate).
            run_check(id: ::std::string::String) -> $crate::CheckRun;
            /// How often Observe collects, and whether warnings notify.
            observe_settings() -> $crate::ObserveSettings;
            /// Stores how Observe runs (the interval: 0 off, else 10 s to 1 h).
            save_observe_settings(settings: $crate::ObserveSettings) -> $crate::ObserveSettings;

            // ── Updates (`commands/updates.rs`) ──
            /// Whether a newer release is on offer and how the last check went.
            update_status() -> $crate::UpdateStatus;
            /// Checks the update manifest now; answers once the check has ended.
            check_for_update() -> $crate::UpdateStatus;
            /// "Later": hides the offer until a check finds a newer release.
            postpone_update() -> $crate::UpdateStatus;
            /// "Install and restart": downloads the offered release, verifies its signature,
            /// installs it and restarts the app (a failure stays in the status).
            install_update() -> $crate::UpdateStatus;

            // ── Notifications (`commands/notify.rs`) ──
            /// Which desktop notifications are on.
            notification_settings() -> $crate::NotificationSettings;
            /// Stores which desktop notifications are on; the next event uses them.
            save_notification_settings(settings: $crate::NotificationSettings) -> $crate::NotificationSettings;

            // ── Other agents over MCP (`commands/mcp.rs`) ──
            /// How to connect Claude Code, Codex, Goose and Cursor to this database, and the clients
            /// connected now.
            mcp_connect() -> $crate::mcp::McpConnect;

            // ── The desktop's life: starting at login (`commands/desktop.rs`) ──
            /// Whether Oikos starts (in the tray) when the operator logs in.
            autostart() -> bool;
            /// Turns starting at login on or off; returns the state now.
            set_autostart(enabled: bool) -> bool;
        }
    };
}

/// From the table, for each command a module with its `NAME`, its `Args` (what crosses the wire)
/// and its `Output`; and the list of all names.
macro_rules! declare_commands {
    ($( $(#[$doc:meta])* $name:ident ( $($arg:ident : $ty:ty),* ) -> $out:ty; )*) => {
        /// Every command's name, in table order.
        pub const COMMANDS: &[&str] = &[$(stringify!($name)),*];

        $(
            $(#[$doc])*
            pub mod $name {
                /// The command's name, as the shell registers it.
                pub const NAME: &str = stringify!($name);
                /// The argument names, as declared (and sent).
                pub const ARG_NAMES: &[&str] = &[$(stringify!($arg)),*];

                /// The arguments as they cross the wire: one key per argument.
                #[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
                #[cfg_attr(test, derive(Default))]
                pub struct Args {
                    $(pub $arg: $ty),*
                }

                /// What the command answers on success.
                pub type Output = $out;
            }
        )*
    };
}

ipc_commands!(declare_commands);

string_enum!(
    /// Why a command failed, as a stable code the UI can act on:
    /// - `store_unavailable`: the engine could not start (a database that cannot be opened, an
    ///   operator policy file that does not load); nothing works until that is fixed;
    /// - `not_found`: what the command names does not exist (or no longer does);
    /// - `invalid`: the arguments were refused (a bad slug, type or value);
    /// - `conflict`: the change contradicts what is stored;
    /// - `inventory`: an inventory could not be read or applied;
    /// - `ontology`: the entity and relationship types refused the change;
    /// - `store`: the store failed (opening, migrating, a file);
    /// - `database`: a query failed, e.g. because another writer held the database too long;
    /// - `policy`: the classifier's policy could not be loaded;
    /// - `refused`: the gate refused a command the classifier could not judge;
    /// - `ipc`: the bridge itself failed: the call or its answer could not be carried;
    /// - `no_provider`: Nomos has no model provider configured (Settings);
    /// - `desktop`: the operating system refused a desktop setting (starting at login).
    IpcErrorCode {
        StoreUnavailable => "store_unavailable",
        NotFound => "not_found",
        Invalid => "invalid",
        Conflict => "conflict",
        Inventory => "inventory",
        Ontology => "ontology",
        Store => "store",
        Database => "database",
        Policy => "policy",
        Refused => "refused",
        Ipc => "ipc",
        NoProvider => "no_provider",
        Desktop => "desktop",
    }
);

/// Errors returned to the UI: a stable code and a one-line message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IpcError {
    pub code: IpcErrorCode,
    pub message: String,
}

impl IpcError {
    pub fn new(code: IpcErrorCode, message: impl fmt::Display) -> IpcError {
        IpcError { code, message: message.to_string() }
    }
}

impl fmt::Display for IpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for IpcError {}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::Json;

    fn is_snake_case(name: &str) -> bool {
        !name.is_empty()
            && !name.starts_with('_')
            && !name.ends_with('_')
            && !name.contains("__")
            && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    }

    /// For every command: its name and argument names, and the keys its `Args` serialise to.
    macro_rules! wire_keys {
        ($( $(#[$doc:meta])* $name:ident ( $($arg:ident : $ty:ty),* ) -> $out:ty; )*) => {
            vec![$((
                $name::NAME,
                $name::ARG_NAMES,
                serde_json::to_value($name::Args::default()).unwrap(),
            )),*]
        };
    }

    #[test]
    fn command_names_are_unique_and_snake_case() {
        let unique: BTreeSet<_> = COMMANDS.iter().collect();
        assert_eq!(unique.len(), COMMANDS.len(), "a command is declared twice: {COMMANDS:?}");
        for name in COMMANDS {
            assert!(is_snake_case(name), "{name}");
        }
        assert!(COMMANDS.contains(&"blast_radius"));
    }

    /// The shell's handlers are generated with `rename_all = "snake_case"`: Tauri looks each
    /// argument up under its name converted to snake_case. For declared names already in snake_case
    /// that is the name itself, which is the key `Args` sends.
    #[test]
    fn arguments_cross_under_their_declared_names() {
        let table = ipc_commands!(wire_keys);
        assert_eq!(table.len(), COMMANDS.len());
        for (name, arg_names, value) in table {
            let Json::Object(object) = value else { panic!("{name}: arguments must be a JSON object, got {value}") };
            let keys: BTreeSet<&str> = object.keys().map(String::as_str).collect();
            let declared: BTreeSet<&str> = arg_names.iter().copied().collect();
            assert_eq!(keys, declared, "{name}: the keys sent differ from the declared arguments");
            for arg in arg_names {
                assert!(is_snake_case(arg), "{name}: argument `{arg}` is not snake_case");
            }
        }
        assert_eq!(blast_radius::ARG_NAMES, ["slug", "depth"]);
        let sent = serde_json::to_value(blast_radius::Args { slug: "lxc:caddy".into(), depth: None }).unwrap();
        assert_eq!(sent, serde_json::json!({"slug": "lxc:caddy", "depth": null}));
        assert_eq!(serde_json::to_value(store_info::Args {}).unwrap(), serde_json::json!({}));
    }

    #[test]
    fn errors_carry_a_snake_case_code() {
        let e = IpcError::new(IpcErrorCode::StoreUnavailable, "no database");
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({"code": "store_unavailable", "message": "no database"})
        );
        for code in IpcErrorCode::ALL {
            assert!(is_snake_case(code.as_str()), "{code}");
            assert_eq!(serde_json::to_value(code).unwrap(), Json::String(code.as_str().into()));
            let back: IpcErrorCode = serde_json::from_value(Json::String(code.as_str().into())).unwrap();
            assert_eq!(back, *code);
        }
    }
}
