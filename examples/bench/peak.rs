//! The machine's floating-point peak as `make bench` compares with: independent fused
//! multiply-adds on the widest f32 registers the CPU has (16 lanes with AVX-512, 8 with AVX2 and
//! FMA, else scalar), on as many threads as the trainings use.

use std::time::Instant;

/// Multiply-adds per lane and accumulator in one probe call.
const ROUNDS: usize = 20_000_000;

/// GFLOP/s of `threads` threads doing nothing but FMAs (2 FLOPs each); the best of three runs.
pub fn fma_peak(threads: usize) -> f64 {
    (0..3).map(|_| once(threads)).fold(0.0, f64::max)
}

/// The FMAs the probe uses on this CPU: "AVX-512 (16 f32 lanes)", "AVX2 + FMA (8 f32 lanes)" or
/// "scalar".
pub fn vector_width() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f") {
            return "AVX-512 (16 f32 lanes)";
        }
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            return "AVX2 + FMA (8 f32 lanes)";
        }
    }
    "scalar"
}

/// The vector width's lanes: 16, 8 or 1.
pub fn lanes() -> usize {
    match vector_width() {
        w if w.starts_with("AVX-512") => 16,
        w if w.starts_with("AVX2") => 8,
        _ => 1,
    }
}

/// The clock one core runs at while busy, in GHz: a chain of dependent integer additions (one
/// cycle each on every x86-64 core) timed, the best of three. A virtual machine's
/// `/proc/cpuinfo` gives a nominal clock; this is the one the probes ran at.
pub fn clock_ghz() -> f64 {
    (0..3).map(|_| clock_once()).fold(0.0, f64::max)
}

/// With the clock, the rate of the widest FMAs: vector FMAs a cycle and core (2 where AVX-512
/// runs at full width, 1 where it is split into two 256-bit halves).
pub fn fmas_per_cycle(peak_one_thread: f64, ghz: f64) -> f64 {
    peak_one_thread / (2.0 * lanes() as f64 * ghz)
}

#[cfg(target_arch = "x86_64")]
fn clock_once() -> f64 {
    const ADDS: u64 = 1 << 29;
    let start = Instant::now();
    let mut x: u64 = 0;
    // 8 dependent additions a round: the chain is the loop's critical path
    for _ in 0..ADDS / 8 {
        // SAFETY: register-only additions, no memory, no flags the compiler relies on.
        unsafe {
            std::arch::asm!(
                "add {x}, 1", "add {x}, 1", "add {x}, 1", "add {x}, 1",
                "add {x}, 1", "add {x}, 1", "add {x}, 1", "add {x}, 1",
                x = inout(reg) x, options(nomem, nostack)
            );
        }
    }
    std::hint::black_box(x);
    ADDS as f64 / start.elapsed().as_secs_f64() / 1e9
}

#[cfg(not(target_arch = "x86_64"))]
fn clock_once() -> f64 {
    f64::NAN
}

fn once(threads: usize) -> f64 {
    let start = Instant::now();
    let flops: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|k| s.spawn(move || probe(k as f32))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
    });
    flops / start.elapsed().as_secs_f64() / 1e9
}

/// FLOPs done; 10 independent accumulators hide the FMA latency (4 cycles, 2 ports).
fn probe(seed: f32) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F (checked just above).
        return unsafe { probe_avx512(seed) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has both features (checked just above).
        return unsafe { probe_fma(seed) };
    }
    let mut acc = [seed; 10];
    for _ in 0..ROUNDS / 8 {
        for a in acc.iter_mut() {
            *a = a.mul_add(0.999_999, 1e-7);
        }
    }
    std::hint::black_box(acc);
    (ROUNDS / 8 * 10 * 2) as f64
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn probe_fma(seed: f32) -> f64 {
    use std::arch::x86_64::*;
    let (mul, add) = (_mm256_set1_ps(0.999_999), _mm256_set1_ps(1e-7));
    let mut acc = [_mm256_set1_ps(seed); 10];
    for _ in 0..ROUNDS {
        for a in acc.iter_mut() {
            *a = _mm256_fmadd_ps(*a, mul, add);
        }
    }
    std::hint::black_box(acc);
    (ROUNDS * 10 * 8 * 2) as f64
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn probe_avx512(seed: f32) -> f64 {
    use std::arch::x86_64::*;
    let (mul, add) = (_mm512_set1_ps(0.999_999), _mm512_set1_ps(1e-7));
    let mut acc = [_mm512_set1_ps(seed); 10];
    for _ in 0..ROUNDS {
        for a in acc.iter_mut() {
            *a = _mm512_fmadd_ps(*a, mul, add);
        }
    }
    std::hint::black_box(acc);
    (ROUNDS * 10 * 16 * 2) as f64
}
