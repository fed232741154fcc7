//! Passes whose attention weights nobody reads, chosen in one place: the Transformer's passes
//! that return no weights (`forward`, `encode`, `decode`, translation) run inside
//! [`weights_unused`], as PyTorch code runs inside `torch.no_grad()`. The lecture's classes
//! below them are unchanged: every attention reads the scope where the weights are made
//! ([`super::additive_mask::attend_transposed`]).

use candle_core::Result;
use std::cell::Cell;

thread_local! {
    static UNUSED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `pass` on this thread with the attention weights unused. Where the attention kernel
/// takes the heads (`nn::fused::flash`: f32 on the CPU, heads `(N, h, L, d)`, 64 keys or more)
/// the output comes from it, one node whose backward pass recomputes the weights, and the
/// weights handed back are empty, `(…, Lq, 0)`; elsewhere they are made as always. The scope
/// ends when `pass` returns, panics included, and a thread `pass` starts has its own (off).
pub(crate) fn weights_unused<T>(pass: impl FnOnce() -> Result<T>) -> Result<T> {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            UNUSED.with(|u| u.set(self.0));
        }
    }
    let _restore = Restore(UNUSED.with(|u| u.replace(true)));
    pass()
}

/// Whether this thread runs inside [`weights_unused`].
pub(crate) fn are_unused() -> bool {
    UNUSED.with(Cell::get)
}
