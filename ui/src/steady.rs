//! What a view shows of a resource: its newest answer, except that a passing failure while
//! re-reading the same thing keeps the working view (a database busy under a long import must not
//! replace the list with an error). Leptos resources already drop answers to outdated requests.

use leptos::prelude::*;
use nomos_types::{IpcError, IpcErrorCode};

/// A resource's answer together with what it was asked (a slug, a query).
pub type Keyed<K, T> = (K, Result<T, IpcError>);

/// Whether a failure is about the moment (a busy database, the bridge) rather than about the
/// thing asked for.
fn is_passing(e: &IpcError) -> bool {
    matches!(e.code, IpcErrorCode::Database | IpcErrorCode::Store | IpcErrorCode::Ipc)
}

/// The answer to show, given what is shown and what just arrived; and the failure it hides, if
/// it keeps the shown answer.
pub fn settle<K: PartialEq, T: Clone>(
    shown: Option<&Keyed<K, T>>,
    next: Keyed<K, T>,
) -> (Keyed<K, T>, Option<IpcError>) {
    match (shown, next) {
        (Some((key, Ok(value))), (next_key, Err(e))) if *key == next_key && is_passing(&e) => {
            ((next_key, Ok(value.clone())), Some(e))
        }
        (_, next) => (next, None),
    }
}

/// The steady answer of a keyed resource (see [`settle`]); `None` until the first answer.
pub fn steady<K, T>(resource: LocalResource<Keyed<K, T>>) -> Signal<Option<Result<T, IpcError>>>
where
    K: PartialEq + Clone + Send + Sync + 'static,
    T: PartialEq + Clone + Send + Sync + 'static,
{
    let settled = Memo::new(move |shown: Option<&Option<Keyed<K, T>>>| {
        let (answer, hidden) = settle(shown.and_then(Option::as_ref), resource.get()?);
        if let Some(e) = hidden {
            leptos::logging::warn!("kept the last answer after a passing failure: {e}");
        }
        Some(answer)
    });
    Signal::derive(move || settled.get().map(|(_, answer)| answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(code: IpcErrorCode) -> Result<u32, IpcError> {
        Err(IpcError::new(code, "failed"))
    }

    #[test]
    fn a_passing_failure_keeps_the_shown_answer_of_the_same_request() {
        let shown = ("a", Ok(1));
        let (answer, hidden) = settle(Some(&shown), ("a", failure(IpcErrorCode::Database)));
        assert_eq!(answer, ("a", Ok(1)));
        assert_eq!(hidden.map(|e| e.code), Some(IpcErrorCode::Database));
    }

    #[test]
    fn failures_about_the_thing_itself_are_shown() {
        let shown = ("a", Ok(1));
        let (answer, hidden) = settle(Some(&shown), ("a", failure(IpcErrorCode::NotFound)));
        assert_eq!(answer, ("a", failure(IpcErrorCode::NotFound)));
        assert!(hidden.is_none());
        let (answer, _) = settle(Some(&shown), ("a", failure(IpcErrorCode::StoreUnavailable)));
        assert_eq!(answer.1, failure(IpcErrorCode::StoreUnavailable));
    }

    #[test]
    fn another_request_or_nothing_shown_gets_its_own_answer() {
        let (answer, _) = settle(Some(&("a", Ok(1))), ("b", failure(IpcErrorCode::Database)));
        assert_eq!(answer, ("b", failure(IpcErrorCode::Database)));
        let (answer, _) = settle(None, ("a", failure(IpcErrorCode::Database)));
        assert_eq!(answer, ("a", failure(IpcErrorCode::Database)));
        let (answer, _) = settle(Some(&("a", failure(IpcErrorCode::Database))), ("a", Ok(2)));
        assert_eq!(answer, ("a", Ok(2)));
    }
}
