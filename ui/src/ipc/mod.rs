//! The only place the UI talks to the desktop shell. One typed `async fn` per command of the
//! command table in `nomos_types::ipc`, generated from it: a command the shell does not have, or
//! arguments it does not take, do not compile. Arguments cross as the command's `Args`, keyed by
//! their declared names (see `nomos_types::ipc` for what the shell expects).

mod bridge;
mod gate;

pub use bridge::{on_engine_event, on_navigate, on_transient_event, on_update_status};
pub use gate::first_frame_drawn;
use nomos_types::IpcError;

macro_rules! ui_callers {
    ($( $(#[$doc:meta])* $name:ident ( $($arg:ident : $ty:ty),* ) -> $out:ty; )*) => {
        $(
            $(#[$doc])*
            // A command the shell offers may not be used by any page yet.
            #[allow(dead_code)]
            pub async fn $name($($arg: $ty),*) -> Result<$out, IpcError> {
                use nomos_types::ipc::$name as command;
                bridge::invoke(command::NAME, &command::Args { $($arg),* }).await
            }
        )*
    };
}

nomos_types::ipc_commands!(ui_callers);
