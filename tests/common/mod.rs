pub mod fixtures;
pub mod nbrun;

/// The default generator is one per process, as in PyTorch: tests that seed it or draw from it
/// take this lock so they do not draw from each other's sequence.
#[allow(dead_code)]
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}
