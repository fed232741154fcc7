//! A value open on this thread for the length of a call: the step scopes of `grad_sink` and
//! `transposed` (a training step's gradient sink, its transposed weights).

use std::cell::RefCell;
use std::thread::LocalKey;

/// A thread-local slot a scope opens: `None` outside every scope.
pub(crate) type Slot<V> = LocalKey<RefCell<Option<V>>>;

/// Runs `pass` with `slot` holding `value` on this thread, and returns its result and what the
/// slot holds when it returns. The slot gets back its outer value (an enclosing scope's, or
/// `None`) when `pass` returns or panics; a thread `pass` starts sees `None`.
pub(crate) fn with_scoped<V: 'static, T>(slot: &'static Slot<V>, value: V, pass: impl FnOnce() -> T) -> (T, Option<V>) {
    struct Restore<V: 'static> {
        slot: &'static Slot<V>,
        outer: Option<V>,
    }
    impl<V: 'static> Drop for Restore<V> {
        fn drop(&mut self) {
            let outer = self.outer.take();
            self.slot.with(|s| *s.borrow_mut() = outer);
        }
    }
    let restore = Restore { slot, outer: slot.with(|s| s.borrow_mut().replace(value)) };
    let out = pass();
    let inner = slot.with(|s| s.borrow_mut().take());
    drop(restore);
    (out, inner)
}

#[cfg(test)]
mod tests {
    use super::with_scoped;
    use std::cell::RefCell;

    thread_local! {
        static SLOT: RefCell<Option<u32>> = const { RefCell::new(None) };
    }

    fn now() -> Option<u32> {
        SLOT.with(|s| *s.borrow())
    }

    /// Nested scopes see their own value and give back the outer one, also after a panic; the
    /// inner value comes back as changed inside; other threads see none.
    #[test]
    fn nests_and_restores() {
        let ((), last) = with_scoped(&SLOT, 1, || {
            assert_eq!(now(), Some(1));
            let ((), inner) = with_scoped(&SLOT, 2, || SLOT.with(|s| *s.borrow_mut() = Some(3)));
            assert_eq!((inner, now()), (Some(3), Some(1)));
            assert!(std::panic::catch_unwind(|| with_scoped(&SLOT, 4, || panic!("inside"))).is_err());
            assert_eq!(now(), Some(1), "the outer value after a panic");
            assert_eq!(std::thread::spawn(now).join().unwrap(), None, "another thread");
        });
        assert_eq!((last, now()), (Some(1), None));
    }
}
