//! Locking the SDK's std mutexes.

/// Locks `m`, taking over a lock poisoned by a panic: the SDK only holds its
/// locks across updates that leave the data consistent (each use says why),
/// so a panic elsewhere must not turn every later call into a panic.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
