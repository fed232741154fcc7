//! PyTorch's CPU generator: MT19937 seeded as PyTorch seeds it, and the float32 algorithms PyTorch
//! runs on top of it (`uniform_`, `normal_`, `randperm`, `bernoulli_`).

use super::avx_mathfun::normal_fill_16;
use super::mt19937::Mt19937;
use candle_core::{Device, Result, Shape, Tensor, bail};

/// A PyTorch-compatible CPU generator: `Generator::new(seed)` draws what
/// `torch.Generator().manual_seed(seed)` draws.
#[derive(Clone, Debug)]
pub struct Generator {
    seed: u64,
    engine: Mt19937,
    next_double_normal: Option<f64>,
}

impl Default for Generator {
    /// PyTorch's default seed for a fresh generator is 67280421310721.
    fn default() -> Self {
        Generator::new(67_280_421_310_721)
    }
}

/// Largest seed PyTorch accepts (seeds are unsigned 64-bit integers).
pub const MAX_SEED: u128 = u64::MAX as u128;

pub(crate) fn check_seed(seed: i128) -> Result<u64> {
    // PyTorch maps negative seeds into the unsigned range; anything outside [-2^63, 2^64) is refused.
    if seed > MAX_SEED as i128 || seed < i64::MIN as i128 {
        bail!("repro::manual_seed: seed {seed} is outside the 64-bit range [-2^63, 2^64 - 1]")
    }
    Ok(if seed < 0 { (seed as i64) as u64 } else { seed as u64 })
}

fn check_bounds(module: &str, from: f64, to: f64) -> Result<()> {
    if !from.is_finite() || !to.is_finite() {
        bail!("{module}: bounds must be finite, got [{from}, {to})")
    }
    if from > to {
        bail!("{module}: expected from <= to, got from = {from}, to = {to}")
    }
    Ok(())
}

/// Checks that a shape has a dimension and at most [`MAX_DRAW`] values; returns it and its
/// number of values.
fn check_shape(module: &str, shape: impl Into<Shape>) -> Result<(Shape, usize)> {
    let shape = shape.into();
    if shape.rank() == 0 {
        bail!("{module}: expected a shape with at least one dimension, got an empty shape ()")
    }
    let n = shape.dims().iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    match n {
        Some(n) if n <= MAX_DRAW => Ok((shape, n)),
        _ => bail!("{module}: a shape of {:?} is too large (at most {MAX_DRAW} values)", shape.dims()),
    }
}

/// The most values one call draws (2^31): larger shapes are an error, not an allocation that
/// overflows or aborts.
pub const MAX_DRAW: usize = 1 << 31;

impl Generator {
    /// A generator seeded like `torch.Generator().manual_seed(seed)`.
    pub fn new(seed: u64) -> Self {
        Generator { seed, engine: Mt19937::new(seed), next_double_normal: None }
    }

    /// Re-seeds in place, like `generator.manual_seed(seed)`. Accepts any integer in
    /// `[-2^63, 2^64)`: negative seeds wrap as in PyTorch; others give an error.
    pub fn manual_seed(&mut self, seed: i128) -> Result<&mut Self> {
        *self = Generator::new(check_seed(seed)?);
        Ok(self)
    }

    /// The seed this generator was last seeded with (`initial_seed()`).
    pub fn initial_seed(&self) -> u64 {
        self.seed
    }

    /// One 32-bit output (`random()` in ATen).
    pub fn random_u32(&mut self) -> u32 {
        self.engine.next_u32()
    }

    /// 64 bits from two outputs, the first one high (`random64()` in ATen).
    pub fn random_u64(&mut self) -> u64 {
        let hi = self.engine.next_u32() as u64;
        let lo = self.engine.next_u32() as u64;
        (hi << 32) | lo
    }

    /// One float32 uniform in `[from, to)`: `(u & 0xFFFFFF) * 2^-24 * (to - from) + from`, the
    /// last multiply-add fused (one rounding) as PyTorch's compiled kernel does it.
    pub fn uniform_f32(&mut self, from: f32, to: f32) -> f32 {
        let x = (self.random_u32() & 0x00ff_ffff) as f32 * (1.0 / 16_777_216.0);
        x.mul_add(to - from, from)
    }

    /// One float64 uniform in `[from, to)` from 53 bits of `random64()`.
    pub fn uniform_f64(&mut self, from: f64, to: f64) -> f64 {
        let x = (self.random_u64() & ((1u64 << 53) - 1)) as f64 * (1.0 / 9_007_199_254_740_992.0);
        x * (to - from) + from
    }

    /// One normal in double precision, Box-Muller with a cached second value, as
    /// `at::normal_distribution<double>` draws it (used for tensors of fewer than 16 elements):
    /// `r = sqrt(-2 log1p(-u2))`, `theta = 2 pi u1`, `r cos(theta)` returned and `r sin(theta)`
    /// kept for the next call. `* std + mean` is one fused multiply-add, as GCC compiled it in
    /// PyTorch's binary: the float64 result can differ in its last bit from a multiply and an add,
    /// although after rounding to float32 that showed in none of 45,000 draws.
    pub fn normal_f64(&mut self, mean: f64, std: f64) -> f64 {
        if let Some(v) = self.next_double_normal.take() {
            return v.mul_add(std, mean);
        }
        let u1 = self.uniform_f64(0.0, 1.0);
        let u2 = self.uniform_f64(0.0, 1.0);
        let r = (-2.0 * (-u2).ln_1p()).sqrt();
        let theta = 2.0 * std::f64::consts::PI * u1;
        self.next_double_normal = Some(r * theta.sin());
        (r * theta.cos()).mul_add(std, mean)
    }

    /// Fills a float32 buffer uniformly in `[from, to)` (`tensor.uniform_(from, to)`).
    pub fn fill_uniform(&mut self, data: &mut [f32], from: f64, to: f64) -> Result<()> {
        check_bounds("repro::uniform", from, to)?;
        let (from, to) = (from as f32, to as f32);
        for v in data.iter_mut() {
            *v = self.uniform_f32(from, to);
        }
        Ok(())
    }

    /// Fills a float32 buffer with normals (`tensor.normal_(mean, std)`), as PyTorch's CPU
    /// `normal_kernel` does:
    ///
    /// - fewer than 16 values: one double-precision Box-Muller draw per value
    ///   ([`normal_f64`](Self::normal_f64)), rounded to float32;
    /// - 16 or more: a float32 uniform for every value first, then Box-Muller in place on each
    ///   block of 16 (values `j` and `j + 8` make a pair), with the Cephes log/sin/cos of ATen's
    ///   AVX2 kernel (ported in the crate-private `avx_mathfun`). When the size is not a multiple
    ///   of 16, the last 16 values are drawn again, 16 fresh uniforms, and transformed as one more
    ///   block: they overwrite the end of the last full block, and the uniforms drawn for the
    ///   leftover values are never used.
    pub fn fill_normal(&mut self, data: &mut [f32], mean: f64, std: f64) -> Result<()> {
        if !mean.is_finite() || !std.is_finite() || std < 0.0 {
            bail!("repro::normal: expected a finite mean and std >= 0, got mean = {mean}, std = {std}")
        }
        let size = data.len();
        if size >= 16 {
            for v in data.iter_mut() {
                *v = self.uniform_f32(0.0, 1.0);
            }
            let (mean, std) = (mean as f32, std as f32);
            let mut i = 0;
            while i + 16 <= size {
                normal_fill_16(&mut data[i..i + 16], mean, std);
                i += 16;
            }
            if !size.is_multiple_of(16) {
                let tail = &mut data[size - 16..];
                for v in tail.iter_mut() {
                    *v = self.uniform_f32(0.0, 1.0);
                }
                normal_fill_16(tail, mean, std);
            }
        } else {
            for v in data.iter_mut() {
                *v = self.normal_f64(mean, std) as f32;
            }
        }
        Ok(())
    }

    /// A random permutation of `0..n`, as `torch.randperm(n, generator=g)` draws it.
    pub fn randperm(&mut self, n: usize) -> Vec<usize> {
        let mut r: Vec<usize> = (0..n).collect();
        if n < 2 {
            return r;
        }
        let small = (n as u64) < (u32::MAX as u64) / 20;
        for i in 0..n - 1 {
            let z =
                if small { (self.random_u32() as u64 % (n - i) as u64) as usize } else { (self.random_u64() % (n - i) as u64) as usize };
            r.swap(i, z + i);
        }
        r
    }

    /// A full-range random int64, as `torch.empty((), dtype=torch.int64).random_()` draws it
    /// (a DataLoader draws one of these each time it starts an epoch).
    pub fn random_i64(&mut self) -> i64 {
        // uniform_int_full_range is not used here: random_() with no bounds draws [0, 2^63).
        (self.random_u64() % (1u64 << 63)) as i64
    }

    /// Bernoulli draws with probability `p` of a 1, as `tensor.bernoulli_(p)` and dropout draw
    /// them on the CPU: one double-precision uniform (53 bits of `random64()`) per element, 1 where
    /// it is below `p`.
    pub fn fill_bernoulli(&mut self, data: &mut [f32], p: f64) -> Result<()> {
        if !(0.0..=1.0).contains(&p) {
            bail!("repro::bernoulli: expected a probability in [0, 1], got {p}")
        }
        for v in data.iter_mut() {
            *v = if self.uniform_f64(0.0, 1.0) < p { 1.0 } else { 0.0 };
        }
        Ok(())
    }

    /// A tensor of uniforms in `[from, to)`.
    pub fn rand_range<S: Into<Shape>>(&mut self, shape: S, from: f64, to: f64) -> Result<Tensor> {
        let (shape, n) = check_shape("repro::rand", shape)?;
        let mut data = vec![0f32; n];
        self.fill_uniform(&mut data, from, to)?;
        Tensor::from_vec(data, shape, &Device::Cpu)
    }

    /// A tensor of uniforms in `[0, 1)` (`torch.rand(shape, generator=g)`).
    pub fn rand<S: Into<Shape>>(&mut self, shape: S) -> Result<Tensor> {
        self.rand_range(shape, 0.0, 1.0)
    }

    /// A tensor of standard normals (`torch.randn(shape, generator=g)`).
    pub fn randn<S: Into<Shape>>(&mut self, shape: S) -> Result<Tensor> {
        self.normal(shape, 0.0, 1.0)
    }

    /// A tensor of normals with the given mean and standard deviation.
    pub fn normal<S: Into<Shape>>(&mut self, shape: S, mean: f64, std: f64) -> Result<Tensor> {
        let (shape, n) = check_shape("repro::normal", shape)?;
        let mut data = vec![0f32; n];
        self.fill_normal(&mut data, mean, std)?;
        Tensor::from_vec(data, shape, &Device::Cpu)
    }

    /// A tensor of zeros and ones, each one with probability `p`.
    pub fn bernoulli<S: Into<Shape>>(&mut self, shape: S, p: f64) -> Result<Tensor> {
        let (shape, n) = check_shape("repro::bernoulli", shape)?;
        let mut data = vec![0f32; n];
        self.fill_bernoulli(&mut data, p)?;
        Tensor::from_vec(data, shape, &Device::Cpu)
    }
}
