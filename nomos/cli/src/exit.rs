//! How a `nomos` command ends: its exit status, and the one-line error printed for a failure.

use std::process::ExitCode;

/// The exit statuses of `nomos`, the same for every subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0 — done; a command on a host ran and succeeded.
    Ok,
    /// 1 — failed or refused. A failure that was already reported (a command's own output) ends
    /// with this; other failures are a [`Failure`] with their message.
    Failed,
    /// 2 — the command line itself was wrong (clap reports these and exits on its own).
    Usage,
    /// 3 — waiting: for an approval, or for the operator's answer.
    Waiting,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Failed => 1,
            Exit::Usage => 2,
            Exit::Waiting => 3,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

/// A failure to report on stderr as one line (`nomos: …`), exit status 1.
#[derive(Debug)]
pub struct Failure(pub String);

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure(message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Failure {
        Failure(message.to_string())
    }
}

impl From<nomos::Error> for Failure {
    fn from(e: nomos::Error) -> Failure {
        Failure(e.to_string())
    }
}

impl From<serde_json::Error> for Failure {
    fn from(e: serde_json::Error) -> Failure {
        Failure(e.to_string())
    }
}

/// What every subcommand returns.
pub type Outcome = Result<Exit, Failure>;
