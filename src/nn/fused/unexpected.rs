//! The kernels' guards: an error that is the crate's bug, not a user's input.

/// A kernel's guard on what the crate's own code hands it (slices of the sizes it states, float32
/// CPU storage, a forward pass before its backward): never a user's input, which the public
/// doors check (`nn::shape`), so this error is a bug of the crate. It names the kernel and what
/// it got.
pub(crate) fn unexpected(message: impl std::fmt::Display) -> candle_core::Error {
    candle_core::Error::Msg(message.to_string())
}
