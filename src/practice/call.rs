//! Calling a student's code: a panic or an error caught as theirs, a `todo!()` told apart from
//! other panics, candle's backtrace cut from the message.

use candle_core::Result;
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;

/// What calling the student's code gave.
pub(crate) enum Called<T> {
    Returned(T),
    Failed(String),
    Todo,
    Panicked(String),
}

/// The panic's message, when it has one.
fn message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Runs `f`, catching a panic. While it runs the panic hook prints nothing, so a student's panic
/// is shown once, in the outcome; the hook is put back before this returns. The lock keeps two
/// checks on two threads from swapping the hook in between each other.
pub(crate) fn call<T>(f: impl FnOnce() -> Result<T>) -> Called<T> {
    static HOOK: Mutex<()> = Mutex::new(());
    let _guard = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(previous);
    match result {
        Ok(Ok(value)) => Called::Returned(value),
        Ok(Err(e)) => Called::Failed(without_backtrace(&e.to_string())),
        Err(payload) => {
            let text = message(payload.as_ref());
            if text.starts_with("not yet implemented") || text.starts_with("not implemented") {
                Called::Todo
            } else {
                Called::Panicked(text)
            }
        }
    }
}

/// An error's text without the backtrace candle appends where `RUST_BACKTRACE` is set (the
/// notebook kernel sets it): the frames are the crate's and candle's, not the student's mistake.
fn without_backtrace(text: &str) -> String {
    let frames = text.lines().position(|l| l.trim_start().starts_with("0: ") || l == "disabled backtrace" || l == "unsupported backtrace");
    match frames {
        Some(k) => text.lines().take(k).collect::<Vec<_>>().join("\n").trim_end().to_string(),
        None => text.to_string(),
    }
}
