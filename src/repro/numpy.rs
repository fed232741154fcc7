//! A NumPy-compatible `RandomState` (the legacy `np.random` API), enough to reproduce the
//! lecture's data exactly: legacy seeding, `randint`, `rand` and `randn` (polar Gaussian).

use super::mt19937::Mt19937;
use candle_core::{Result, bail};

/// `np.random.RandomState(seed)`: MT19937 with NumPy's legacy seeding and samplers.
#[derive(Clone, Debug)]
pub struct RandomState {
    mt: Mt19937,
    gauss: Option<f64>,
}

impl RandomState {
    /// Seeds like `np.random.seed(seed)`; NumPy accepts seeds in `[0, 2^32 - 1]`.
    pub fn new(seed: i64) -> Result<Self> {
        if !(0..=u32::MAX as i64).contains(&seed) {
            bail!("numpy::RandomState: seed must be between 0 and 2**32 - 1, got {seed}")
        }
        Ok(RandomState { mt: Mt19937::new(seed as u64), gauss: None })
    }

    /// One 32-bit output.
    pub fn next_u32(&mut self) -> u32 {
        self.mt.next_u32()
    }

    /// A double in `[0, 1)` from 53 random bits (`np.random.random_sample()`).
    pub fn random_sample(&mut self) -> f64 {
        let a = (self.mt.next_u32() >> 5) as f64;
        let b = (self.mt.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }

    /// `np.random.rand(n)`: `n` uniforms in `[0, 1)`.
    pub fn rand(&mut self, n: usize) -> Result<Vec<f64>> {
        check_count("numpy::rand", n)?;
        Ok((0..n).map(|_| self.random_sample()).collect())
    }

    /// One integer in `[low, high)` (`np.random.randint(low, high)`), by masked rejection.
    pub fn randint_one(&mut self, low: i64, high: i64) -> Result<i64> {
        if high <= low {
            bail!("numpy::randint: expected low < high, got low = {low}, high = {high}")
        }
        // high - low - 1 fits u64 for any i64 pair (the full range gives 2^64 - 2).
        let rng = (high as i128 - low as i128 - 1) as u64;
        if rng == 0 {
            return Ok(low);
        }
        let offset = if rng <= u32::MAX as u64 {
            let mask = mask_for(rng) as u32;
            loop {
                let v = self.mt.next_u32() & mask;
                if v as u64 <= rng {
                    break v as u64;
                }
            }
        } else {
            // NumPy's 64-bit path: the high word is drawn first, then the low word.
            let mask = mask_for(rng);
            loop {
                let hi = self.mt.next_u32() as u64;
                let v = ((hi << 32) | self.mt.next_u32() as u64) & mask;
                if v <= rng {
                    break v;
                }
            }
        };
        Ok((low as i128 + offset as i128) as i64)
    }

    /// `np.random.randint(high, size=n)`: `n` integers in `[0, high)`.
    pub fn randint(&mut self, high: i64, n: usize) -> Result<Vec<i64>> {
        check_count("numpy::randint", n)?;
        (0..n).map(|_| self.randint_one(0, high)).collect()
    }

    /// One standard normal by the legacy polar method, keeping the second value for the next call.
    pub fn gauss(&mut self) -> f64 {
        if let Some(g) = self.gauss.take() {
            return g;
        }
        loop {
            let x1 = 2.0 * self.random_sample() - 1.0;
            let x2 = 2.0 * self.random_sample() - 1.0;
            let r2 = x1 * x1 + x2 * x2;
            if r2 < 1.0 && r2 != 0.0 {
                let f = (-2.0 * r2.ln() / r2).sqrt();
                self.gauss = Some(f * x1);
                return f * x2;
            }
        }
    }

    /// `np.random.randn(n)`: `n` standard normals.
    pub fn randn(&mut self, n: usize) -> Result<Vec<f64>> {
        check_count("numpy::randn", n)?;
        Ok((0..n).map(|_| self.gauss()).collect())
    }
}

/// The smallest all-ones bit mask covering `v`.
/// At most [`MAX_DRAW`](super::generator::MAX_DRAW) values per call.
fn check_count(module: &str, n: usize) -> Result<()> {
    if n > super::generator::MAX_DRAW {
        bail!("{module}: {n} values are too many (at most {})", super::generator::MAX_DRAW)
    }
    Ok(())
}

fn mask_for(v: u64) -> u64 {
    let mut m = v;
    m |= m >> 1;
    m |= m >> 2;
    m |= m >> 4;
    m |= m >> 8;
    m |= m >> 16;
    m |= m >> 32;
    m
}
