//! `exp`, the logistic sigmoid and `tanh` in float32 from Cephes' polynomials, without calls into
//! libm and without branches, for the fused recurrent nodes (hidden size 8 and more), whose gate
//! arithmetic they dominated (glibc's `tanhf` alone took 11-14% of a recurrent translator's
//! training step), and for the cross-entropy's log-softmax (`super::log_softmax`, any size).
//! Within a few float32 ulps of the correctly rounded values (the tests measure it). The
//! lecture-sized recurrent models (hidden size below 8) keep candle's `exp` and `tanh`, bit for bit.

/// `exp(x)` for float32: Cephes' `expf` (argument reduction by `ln 2` in two parts, a degree-5
/// polynomial), `x` clamped to `[-87.3, 88.7]` (0 and `inf` come out as tiny and huge finite
/// values there), NaN kept.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const C1: f32 = 0.693_359_4;
    const C2: f32 = -2.121_944_4e-4;
    // 1.5 * 2^23: adding and subtracting it rounds to the nearest integer.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.3, 88.7);
    let t = x * LOG2E + ROUND;
    let fx = t - ROUND;
    let r = x - fx * C1 - fx * C2;
    let z = r * r;
    let p = ((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r + 0.166_666_65) * r + 0.5;
    let y = p * z + r + 1.0;
    // The integer fx, read off t's low mantissa bits (no float-to-int conversion, which would not
    // vectorise), in -126..=128; 2^fx in two halves so that 2^128 does not overflow the exponent.
    let k = (t.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    let half = k >> 1;
    let pow = |e: i32| f32::from_bits((e.wrapping_add(127) as u32) << 23);
    y * pow(half) * pow(k - half)
}

/// `1 / (1 + exp(-x))`.
#[inline(always)]
pub(crate) fn sigmoid(x: f32) -> f32 {
    1.0 / (exp(-x) + 1.0)
}

/// `tanh(x)`: Cephes' `tanhf`, an odd polynomial for `|x| < 0.625`, `1 - 2 / (exp(2|x|) + 1)`
/// with the sign of `x` beyond.
#[inline(always)]
pub(crate) fn tanh(x: f32) -> f32 {
    let a = x.abs();
    let z = x * x;
    let small = ((((-5.704_988_7e-3 * z + 2.063_909e-2) * z - 5.373_971_6e-2) * z + 0.133_314_42) * z - 0.333_332_8) * z * x + x;
    let large = (1.0 - 2.0 / (exp(2.0 * a) + 1.0)).copysign(x);
    if a < 0.625 { small } else { large }
}

/// Defines `fn $name($args)` that runs `$body` (an `#[inline(always)]` function of the same
/// arguments) compiled for the widest vectors the CPU has: AVX-512 (16 lanes), else AVX2 (8
/// lanes, twice the baseline x86-64 build's), else as built. The loops of the functions above,
/// inlined into it, then vectorise to those widths. The results are the same bits at every width
/// (no fused multiply-adds are generated: a product and a sum stay two roundings, as Rust asks
/// of LLVM).
macro_rules! with_simd {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? => $body:ident) => {
        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f")]
                unsafe fn avx512($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                #[target_feature(enable = "avx2")]
                unsafe fn avx2($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                if std::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU has AVX-512F, checked just above.
                    return unsafe { avx512($($arg),*) };
                }
                if std::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2, checked just above.
                    return unsafe { avx2($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}
pub(crate) use with_simd;

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest error in float32 ulps of the true value, over `n` points spread on `[lo, hi]`.
    fn worst_ulps(f: fn(f32) -> f32, truth: fn(f64) -> f64, lo: f32, hi: f32, n: usize) -> f64 {
        (0..=n)
            .map(|k| {
                let x = lo + (hi - lo) * k as f32 / n as f32;
                let want = truth(x as f64);
                let ulp = (want.abs() as f32).max(f32::MIN_POSITIVE);
                let ulp = (f32::from_bits(ulp.to_bits() + 1) - ulp) as f64;
                (f(x) as f64 - want).abs() / ulp
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn within_a_few_ulps_of_the_true_values() {
        let exp_ulps = worst_ulps(exp, f64::exp, -87.0, 88.0, 200_000);
        let sig_ulps = worst_ulps(sigmoid, |x| 1.0 / (1.0 + (-x).exp()), -30.0, 30.0, 200_000);
        let tanh_ulps = worst_ulps(tanh, f64::tanh, -12.0, 12.0, 200_000);
        let glibc_tanh = worst_ulps(f32::tanh, f64::tanh, -12.0, 12.0, 200_000);
        println!("worst ulps: exp {exp_ulps:.2}, sigmoid {sig_ulps:.2}, tanh {tanh_ulps:.2} (glibc tanhf {glibc_tanh:.2})");
        assert!(exp_ulps <= 2.0 && sig_ulps <= 3.0 && tanh_ulps <= 3.0, "{exp_ulps} {sig_ulps} {tanh_ulps}");
    }

    #[test]
    fn the_edges() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(tanh(0.0), 0.0);
        assert_eq!(sigmoid(0.0), 0.5);
        for big in [20.0, 100.0, f32::INFINITY] {
            assert_eq!(tanh(big), 1.0);
            assert_eq!(tanh(-big), -1.0);
            assert_eq!(sigmoid(big), 1.0);
            assert!(sigmoid(-big) < 1e-8);
        }
        assert!(exp(f32::NEG_INFINITY) < 1e-37 && exp(f32::INFINITY) > 1e38);
        assert!(exp(f32::NAN).is_nan() && tanh(f32::NAN).is_nan() && sigmoid(f32::NAN).is_nan());
    }
}
