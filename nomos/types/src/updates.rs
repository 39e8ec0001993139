//! What the window shows about the app's own updates: the update on offer (if any) and how the
//! last check went. The desktop shell sends a fresh [`UpdateStatus`] on [`UPDATE_CHANNEL`] whenever
//! it changes, so the window never asks twice.

use serde::{Deserialize, Serialize};

/// The channel on which the desktop shell sends the [`UpdateStatus`] after every change.
pub const UPDATE_CHANNEL: &str = "oikos://update";

/// The updater's state as the window shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateStatus {
    /// The version running now.
    pub current_version: String,
    /// A newer, signed release to offer: absent when there is none, or after "Later" until a
    /// check finds a newer one still.
    pub offer: Option<UpdateOffer>,
    /// The release found but put off with "Later" (offered again only once a newer one appears).
    pub postponed: Option<String>,
    /// A check is running.
    pub checking: bool,
    /// The offered update is being downloaded, verified and installed.
    pub installing: bool,
    /// When the last check ended, Unix seconds (absent before the first).
    pub checked_at: Option<i64>,
    /// Why the last check or install failed (offline, bad signature, bad manifest): a quiet line
    /// in Settings, never a dialog.
    pub last_error: Option<String>,
}

/// A release the update manifest announces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateOffer {
    pub version: String,
    /// The release notes, as the manifest carries them (plain text).
    pub notes: Option<String>,
    /// The manifest's publication date (RFC 3339), if it gives one.
    pub date: Option<String>,
}
