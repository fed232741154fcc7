//! Python's `random` module: the same Mersenne Twister as NumPy and PyTorch, seeded differently
//! (`init_by_array` over the words of the seed, where NumPy's legacy seeding and PyTorch use the
//! seed itself as the first state word), so the same seed gives other numbers.

use super::mt19937::Mt19937;

/// `random.Random(seed)`: `random()` and `uniform(a, b)` exactly as CPython computes them.
#[derive(Clone, Debug)]
pub struct PyRandom {
    mt: Mt19937,
}

impl PyRandom {
    /// Seeds like `random.seed(seed)` with an integer: the absolute value's 32-bit words, least
    /// significant first (one zero word for 0).
    pub fn new(seed: i128) -> Self {
        let mut n = seed.unsigned_abs();
        let mut key = vec![];
        while n > 0 {
            key.push((n & 0xffff_ffff) as u32);
            n >>= 32;
        }
        PyRandom { mt: Mt19937::from_key(&key) }
    }

    /// `random.getrandbits(32)`: one raw 32-bit output.
    pub fn next_u32(&mut self) -> u32 {
        self.mt.next_u32()
    }

    /// `random.random()`: a double in `[0, 1)` from 53 random bits.
    pub fn random(&mut self) -> f64 {
        let a = (self.mt.next_u32() >> 5) as f64;
        let b = (self.mt.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `random.uniform(a, b)`: `a + (b - a) * random()`.
    pub fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.random()
    }
}
