//! `bench passes=THREADS:VALUES`: the floor, on this machine, of the passes a training step makes
//! over all its parameters whatever else it does. PyTorch's Adam, which ours matches to the bit,
//! reads each parameter, its gradient and both moments and writes the parameter and the moments:
//! 7 floats a value. The data-parallel step's weighted sum of the halves' gradients reads two and
//! writes one: 3 more on two threads. Nothing that gives the same numbers moves less memory, so
//! the time of such a pass at the memory's speed is a floor under each step.
//!
//! The probe times a pass of that shape (four streams read, three written, a few multiply-adds a
//! value: memory-bound on every CPU) over `VALUES` floats split between `THREADS` threads, as the
//! step splits its parameters, and prints the rate in GB/s: the fastest of 9 passes, after one
//! that touches the buffers first. A virtual machine's memory speed moves with its neighbours'
//! load (on one VM, the median of 9 on two threads ranged from 64 to 96 GB/s within an hour),
//! and a floor is the fastest the machine was seen to go.

use std::time::Instant;

/// Bytes a parameter's value moves through Adam's update: 4 floats read, 3 written.
pub const ADAM_BYTES: f64 = 7.0 * 4.0;
/// Bytes a value moves through the weighted sum of two halves' gradients: 2 read, 1 written.
pub const HALVES_SUM_BYTES: f64 = 3.0 * 4.0;

/// Prints `{"threads", "values", "seconds", "gb_s", "halves_sum_seconds"}`: an Adam-shaped pass
/// over `values` floats, timed, its rate, and the halves' sum over as many values at that rate.
pub fn passes(threads: usize, values: usize) -> candle_core::Result<()> {
    if threads == 0 || values == 0 {
        return Err(candle_core::Error::Msg(format!("bench: passes=THREADS:VALUES needs both above 0, got {threads}:{values}")));
    }
    let mut bufs: Vec<Vec<f32>> = (0..4).map(|k| vec![0.25 * k as f32; values]).collect();
    let chunk = values.div_ceil(threads);
    let mut times = Vec::new();
    for _ in 0..10 {
        let [p, g, m, v] = &mut bufs[..] else { unreachable!("four buffers") };
        let start = Instant::now();
        std::thread::scope(|s| {
            for (((p, g), m), v) in p.chunks_mut(chunk).zip(g.chunks(chunk)).zip(m.chunks_mut(chunk)).zip(v.chunks_mut(chunk)) {
                s.spawn(move || pass(p, g, m, v));
            }
        });
        times.push(start.elapsed().as_secs_f64());
    }
    let seconds = times[1..].iter().copied().fold(f64::INFINITY, f64::min);
    std::hint::black_box(&bufs);
    let gb_s = ADAM_BYTES * values as f64 / seconds / 1e9;
    let halves_sum_seconds = HALVES_SUM_BYTES * values as f64 / (gb_s * 1e9);
    println!(
        "{{\"threads\": {threads}, \"values\": {values}, \"seconds\": {seconds:.6}, \"gb_s\": {gb_s:.2}, \"halves_sum_seconds\": {halves_sum_seconds:.6}}}"
    );
    Ok(())
}

fn pass(p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has both features (checked just above).
        return unsafe { pass_avx2(p, g, m, v) };
    }
    pass_body(p, g, m, v)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn pass_avx2(p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
    pass_body(p, g, m, v)
}

#[inline(always)]
fn pass_body(p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
    for (((p, &g), m), v) in p.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
        *m = 0.9 * *m + 0.1 * g;
        *v = 0.999 * *v + 0.001 * g;
        *p -= 1e-3 * *m + 1e-9 * *v;
    }
}
