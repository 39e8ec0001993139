//! The task board's and the task view's logic, in plain Rust (tested natively).

pub mod board;
pub mod calls;
pub mod stream;
pub mod time;
pub mod touched;
