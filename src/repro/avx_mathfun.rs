//! PyTorch's float32 Box-Muller, lane by lane: `NormalFill16<float, true>` of
//! `aten/src/ATen/native/cpu/DistributionTemplates.h` and the Cephes-derived `log256_ps` and
//! `sincos256_ps` of `aten/src/ATen/native/cpu/avx_mathfun.h` that it calls.
//!
//! # Why not `f32::ln`, `cos` and `sin`
//!
//! `torch.randn` of 16 or more float32 values runs this kernel in the `AVX2` build of ATen, the one
//! PyTorch dispatches to on a CPU with AVX2 but without AVX-512
//! (`torch.backends.cpu.get_cpu_capability()` says `AVX2`). Its logarithm, sine and cosine are
//! Cephes polynomials, not libm: they differ from the correctly rounded values by an ulp here
//! and there, and so does the normal that comes out (measured with PyTorch 2.15: libm's
//! functions give a different float32 in 18% of the elements of `randn(n)`, `n` from 16 to 100).
//!
//! # Every rounding as PyTorch's binary has it
//!
//! GCC compiles the header with `-mfma` and contracts a multiply followed by an add into one fused
//! multiply-add wherever it can. Which pairs it fused was read off the disassembly of
//! `NormalFill16<float, true>::operator()` in `libtorch_cpu.so` (PyTorch 2.15.0, x86-64): every
//! polynomial step `y * x + p`, the three steps of the argument reduction, the final
//! `radius * cos * std + mean`, and in the logarithm `y * z + e * q1` (the product `e * q1`
//! rounded first) and `x + e * q2`. A plain `*` or `+` below is a separately rounded instruction
//! there; `mul_add` is a `vfmadd`. The constants are the float32 values in the binary, written as
//! bit patterns so no decimal-to-float conversion can differ. With these, 20 million normals
//! (`randn` and `normal_(-0.75, 3.3)` of 10,000,005 values, two seeds) equal PyTorch's bit for bit;
//! fusing `e * q1` instead of `y * z` changes about one value in 5,000.
//!
//! # Other builds of PyTorch
//!
//! The `DEFAULT` and `AVX512` builds have no such kernel and run the scalar `NormalFill16`:
//! `logf`, `theta = (float)(2.0 * pi * u2)` in double, `sincosf`, `fmaf`. Their numbers differ
//! from the `AVX2` build's in about 40% of the elements (measured with
//! `ATEN_CPU_CAPABILITY=default`), so PyTorch on an AVX-512 machine does not draw what PyTorch
//! here draws. This crate reproduces the `AVX2` build, which wrote the fixtures.

/// `(1 - u[j], u[j + 8])` for `j` in `0..8` become `(r cos t, r sin t) * std + mean` with
/// `r = sqrt(-2 ln(1 - u[j]))` and `t = 2 pi u[j + 8]`, in place, as `NormalFill16<float, true>`.
pub(crate) fn normal_fill_16(data: &mut [f32], mean: f32, std: f32) {
    // _mm256_set1_ps(2.0f * c10::pi<double>): 2 pi rounded to float32.
    const TWO_PI: f32 = f32::from_bits(0x40c9_0fdb);
    for j in 0..8 {
        let radius = (-2.0 * log256(1.0 - data[j])).sqrt();
        let (sin, cos) = sincos256(TWO_PI * data[j + 8]);
        data[j] = (radius * cos).mul_add(std, mean);
        data[j + 8] = (radius * sin).mul_add(std, mean);
    }
}

/// Cephes' `logf` polynomial as `log256_ps` computes it in one lane (NaN for `x <= 0`).
fn log256(x: f32) -> f32 {
    const SQRTHF: f32 = f32::from_bits(0x3f35_04f3); // 0.707106781186547524
    const P: [u32; 9] = [
        0x3d90_21bb, // p0  7.0376836292E-2
        0xbdeb_d1b8, // p1 -1.1514610310E-1
        0x3def_251a, // p2  1.1676998740E-1
        0xbdfe_5d4f, // p3 -1.2420140846E-1
        0x3e11_e9bf, // p4  1.4249322787E-1
        0xbe2a_ae50, // p5 -1.6668057665E-1
        0x3e4c_ceac, // p6  2.0000714765E-1
        0xbe7f_fffc, // p7 -2.4999993993E-1
        0x3eaa_aaaa, // p8  3.3333331174E-1
    ];
    const Q1: f32 = f32::from_bits(0xb95e_8083); // -2.12194440e-4
    const Q2: f32 = f32::from_bits(0x3f31_8000); // 0.693359375
    let invalid = x <= 0.0;
    // Denormals are cut off; the exponent goes to `e`, the mantissa to `m` in [0.5, 1).
    let bits = x.max(f32::MIN_POSITIVE).to_bits();
    let mut e = ((bits >> 23) as i32 - 0x7f) as f32 + 1.0;
    let m = f32::from_bits((bits & !0x7f80_0000) | 0.5f32.to_bits());
    // if m < sqrt(1/2) { e -= 1; x = m + m - 1 } else { x = m - 1 }, without branches.
    let below = m < SQRTHF;
    let mut x = m - 1.0;
    e -= if below { 1.0 } else { 0.0 };
    x += if below { m } else { 0.0 };
    let z = x * x;
    let mut y = f32::from_bits(P[0]);
    for &p in &P[1..] {
        y = y.mul_add(x, f32::from_bits(p));
    }
    y *= x;
    y = y.mul_add(z, e * Q1);
    y = (-z).mul_add(0.5, y);
    x += y;
    x = e.mul_add(Q2, x);
    if invalid { f32::NAN } else { x }
}

/// Cephes' `sinf` and `cosf` as `sincos256_ps` computes them in one lane: `(sin x, cos x)`.
fn sincos256(x: f32) -> (f32, f32) {
    const FOPI: f32 = f32::from_bits(0x3fa2_f983); // 4 / pi
    const MINUS_DP: [u32; 3] = [0xbf49_0000, 0xb97d_a000, 0xb322_2169]; // -pi/4 in three parts
    const COSCOF: [u32; 3] = [0x37cc_f5ce, 0xbab6_061a, 0x3d2a_aaa5];
    const SINCOF: [u32; 3] = [0xb94c_a1f9, 0x3c08_839e, 0xbe2a_aaa3];
    let sign_in = x.to_bits() & 0x8000_0000;
    let mut x = x.abs();
    // The octant j (made even), truncated as _mm256_cvttps_epi32 does; theta < 2 pi keeps it small.
    let j = ((x * FOPI) as i32 + 1) & !1;
    let y = j as f32;
    let sign_sin = sign_in ^ (((j & 4) as u32) << 29);
    let sign_cos = ((!(j - 2) & 4) as u32) << 29;
    let cos_poly_is_sin = j & 2 == 0;
    // Extended-precision reduction: x = ((x - y DP1) - y DP2) - y DP3.
    for dp in MINUS_DP {
        x = y.mul_add(f32::from_bits(dp), x);
    }
    let z = x * x;
    let mut c = f32::from_bits(COSCOF[0]);
    c = c.mul_add(z, f32::from_bits(COSCOF[1]));
    c = c.mul_add(z, f32::from_bits(COSCOF[2]));
    c *= z;
    c = c.mul_add(z, -(z * 0.5));
    c += 1.0;
    let mut s = f32::from_bits(SINCOF[0]);
    s = s.mul_add(z, f32::from_bits(SINCOF[1]));
    s = s.mul_add(z, f32::from_bits(SINCOF[2]));
    s *= z;
    s = s.mul_add(x, x);
    // The header selects with masks and adds the two halves; one of them is always +0.
    let (sin, cos) = if cos_poly_is_sin { (s, c) } else { (c, s) };
    (f32::from_bits(sin.to_bits() ^ sign_sin), f32::from_bits(cos.to_bits() ^ sign_cos))
}

#[cfg(test)]
mod tests {
    use super::{log256, sincos256};

    #[test]
    fn cephes_functions_stay_within_an_ulp_or_two_of_libm() {
        for i in 1..=1000u32 {
            let u = i as f32 / 1000.0;
            assert!((log256(u) - u.ln()).abs() <= 2.0 * f32::EPSILON * u.ln().abs().max(1.0), "log({u})");
            let t = u * std::f32::consts::TAU;
            let (s, c) = sincos256(t);
            assert!((s - t.sin()).abs() <= 2e-7 && (c - t.cos()).abs() <= 2e-7, "sincos({t})");
        }
        assert!(log256(0.0).is_nan() && log256(-1.0).is_nan());
        assert_eq!(sincos256(0.0), (0.0, 1.0));
    }
}
