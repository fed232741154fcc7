//! Keeping freed memory in the process for the next tensor of the same size.
//!
//! candle allocates a fresh buffer for every tensor and frees it when the last handle goes. With
//! glibc's defaults, a freed block of more than 128 KiB (at first; the limit rises with the
//! blocks freed) goes back to the kernel, and so does the free space at the top of the heap above
//! 128 KiB: the next tensor of that size gets fresh pages, and the kernel zeroes each page on its
//! first touch. A training or decoding step frees and allocates the same sizes over and over, so
//! that was a page fault per 4 KiB per tensor per step: a GRU beam search that drops its states'
//! graphs triggered three times the faults of one that kept them (and took a quarter longer), and
//! a GRU epoch ran 10% faster with the limits below set through glibc's environment variables.

use std::sync::Once;

/// Blocks up to this size come from the heap, not from a mapping of their own.
pub const MMAP_THRESHOLD: i32 = 32 << 20;
/// Free space at the top of the heap kept before any goes back to the kernel. A step of the base
/// model's training on one thread frees about 300 MiB at the top of the heap at once: with 256 MiB
/// here the heap gave it back and faulted it in again at the next step (up to 580,000 page faults
/// in 13 steps instead of 220,000, and 8% of the time).
pub const TRIM_THRESHOLD: i32 = 512 << 20;
/// Extra space a heap takes from the kernel whenever it grows, and keeps when it shrinks. The
/// threads of a data-parallel step allocate from heaps of their own (glibc's per-thread arenas),
/// which without it shrank and grew back at every step: the base model's training (45 M
/// parameters, two threads) took 1.06 million page faults and 4.4 s of system time for 13 steps,
/// against 0.41 million (its memory's first touch) and 1.1 s with it, at the same peak RSS.
pub const TOP_PAD: i32 = 64 << 20;

/// Sets glibc's `M_MMAP_THRESHOLD` to [`MMAP_THRESHOLD`], `M_TRIM_THRESHOLD` to
/// [`TRIM_THRESHOLD`] and `M_TOP_PAD` to [`TOP_PAD`], once per process, so that freed tensors' memory is reused rather than
/// returned to the kernel and faulted in again. Nothing in the crate calls it: a program or a
/// notebook opts in (the kernel's start-up and the bench do; see `crate::tuning`).
/// The setting is process-wide: blocks up to 32 MiB come from the heap, freed space inside the
/// heap stays with the process, free space at its top goes back to the kernel only beyond
/// 512 MiB, and a heap grows and shrinks by 64 MiB at least. Elsewhere than Linux with glibc it
/// does nothing; it leaves alone a limit set through `MALLOC_MMAP_THRESHOLD_`,
/// `MALLOC_TRIM_THRESHOLD_` or `MALLOC_TOP_PAD_` in the environment (one set through
/// `GLIBC_TUNABLES` is replaced).
pub fn keep_freed_memory() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            unsafe extern "C" {
                fn mallopt(param: i32, value: i32) -> i32;
            }
            const M_TRIM_THRESHOLD: i32 = -1;
            const M_TOP_PAD: i32 = -2;
            const M_MMAP_THRESHOLD: i32 = -3;
            for (param, var, value) in [
                (M_MMAP_THRESHOLD, "MALLOC_MMAP_THRESHOLD_", MMAP_THRESHOLD),
                (M_TRIM_THRESHOLD, "MALLOC_TRIM_THRESHOLD_", TRIM_THRESHOLD),
                (M_TOP_PAD, "MALLOC_TOP_PAD_", TOP_PAD),
            ] {
                if std::env::var_os(var).is_none() {
                    // SAFETY: mallopt only sets a parameter of glibc's allocator (it takes the
                    // allocator's lock); a value it refuses leaves the parameter as it was.
                    unsafe { mallopt(param, value) };
                }
            }
        }
    });
}
