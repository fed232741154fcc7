//! The threads that training runs on: one pool for the process ([`pool`]), so that a
//! data-parallel step ([`super::parallel`]) and the work split after it (the gradients' sum,
//! Adam's update) wake threads that already exist instead of creating threads every step, and
//! each thread keeps its caches (allocator arena, gemm's packing buffers) from one step to the
//! next.

use std::sync::OnceLock;

/// The elements from which the gradients' sum and the optimiser's update are split between two
/// threads: below it a wake-up costs more than it saves.
pub(crate) const SPLIT_MIN: usize = 1 << 16;

/// The pool: as many threads as the machine has cores (at least two); `None` where threads
/// cannot be made (the callers then run everything on the calling thread).
pub(crate) fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).max(2);
        rayon::ThreadPoolBuilder::new().num_threads(threads).thread_name(|i| format!("attention-zoo-train-{i}")).build().ok()
    })
    .as_ref()
}

/// Splits `items`, each weighing `weight(item)`, into two runs of about equal weight, keeping
/// their order: the first run ends where its weight first reaches half of the total.
pub(crate) fn halves<T>(mut items: Vec<T>, weight: impl Fn(&T) -> usize) -> (Vec<T>, Vec<T>) {
    let total: usize = items.iter().map(&weight).sum();
    let (mut seen, mut cut) = (0, items.len());
    for (k, item) in items.iter().enumerate() {
        if 2 * seen >= total {
            cut = k;
            break;
        }
        seen += weight(item);
    }
    let second = items.split_off(cut);
    (items, second)
}

/// Runs `work` on both halves of `items` (split by [`halves`]) side by side when their total
/// weight reaches `min_weight` and the pool exists, else on the calling thread; the results in
/// the items' order.
pub(crate) fn map_halves<T: Send, R: Send>(
    items: Vec<T>,
    weight: impl Fn(&T) -> usize,
    min_weight: usize,
    work: impl Fn(Vec<T>) -> R + Sync,
) -> Vec<R> {
    let total: usize = items.iter().map(&weight).sum();
    match pool() {
        Some(pool) if total >= min_weight && items.len() > 1 => match halves(items, weight) {
            (a, b) if a.is_empty() || b.is_empty() => vec![work(if a.is_empty() { b } else { a })],
            (a, b) => {
                let (ra, rb) = pool.join(|| work(a), || work(b));
                vec![ra, rb]
            }
        },
        _ => vec![work(items)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_split_by_weight_in_order() {
        let (a, b) = halves(vec![5, 1, 1, 1, 1, 1], |&w| w);
        assert_eq!((a, b), (vec![5], vec![1, 1, 1, 1, 1]));
        let (a, b) = halves(vec![1, 1, 1, 1], |&w| w);
        assert_eq!((a, b), (vec![1, 1], vec![1, 1]));
        let (a, b) = halves(Vec::<usize>::new(), |&w| w);
        assert!(a.is_empty() && b.is_empty());
        let (a, b) = halves(vec![0, 0, 3], |&w| w);
        assert_eq!((a, b), (vec![0, 0, 3], vec![]));
    }

    #[test]
    fn map_halves_keeps_every_item_once_in_order() {
        let items: Vec<usize> = (0..10).collect();
        let out: Vec<usize> = map_halves(items, |_| 1, 0, |v| v.iter().sum::<usize>()).into_iter().collect();
        assert_eq!(out.iter().sum::<usize>(), 45);
        let parts = map_halves((0..10).collect::<Vec<usize>>(), |_| 1, 0, |v| v);
        assert_eq!(parts.concat(), (0..10).collect::<Vec<_>>());
    }
}
