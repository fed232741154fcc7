//! The 32-bit Mersenne Twister that PyTorch's CPU generator, NumPy's legacy `RandomState` and
//! Python's `random` module all build on.

const N: usize = 624;

const M: usize = 397;

const MATRIX_A: u32 = 0x9908_b0df;

const UPPER_MASK: u32 = 0x8000_0000;

const LOWER_MASK: u32 = 0x7fff_ffff;

/// The 32-bit Mersenne Twister, seeded as `at::mt19937` seeds it.
#[derive(Clone, Debug)]
pub struct Mt19937 {
    state: [u32; N],
    next: usize,
}

impl Mt19937 {
    /// Seeds with the lower 32 bits of `seed`, as `at::mt19937(seed)` does.
    pub fn new(seed: u64) -> Self {
        let mut state = [0u32; N];
        state[0] = (seed & 0xffff_ffff) as u32;
        for j in 1..N {
            let prev = state[j - 1];
            state[j] = 1_812_433_253u32.wrapping_mul(prev ^ (prev >> 30)).wrapping_add(j as u32);
        }
        Mt19937 { state, next: N }
    }

    /// Seeds from a key of 32-bit words, as the reference `init_by_array` does (Python's
    /// `random.seed` passes the words of its integer seed this way).
    pub fn from_key(key: &[u32]) -> Self {
        let mut mt = Mt19937::new(19_650_218);
        let s = &mut mt.state;
        let key: &[u32] = if key.is_empty() { &[0] } else { key };
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = s[i - 1] ^ (s[i - 1] >> 30);
            s[i] = (s[i] ^ prev.wrapping_mul(1_664_525)).wrapping_add(key[j]).wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                s[0] = s[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = s[i - 1] ^ (s[i - 1] >> 30);
            s[i] = (s[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                s[0] = s[N - 1];
                i = 1;
            }
        }
        s[0] = 0x8000_0000;
        mt.next = N;
        mt
    }

    fn twist(&mut self) {
        for i in 0..N {
            let y = (self.state[i] & UPPER_MASK) | (self.state[(i + 1) % N] & LOWER_MASK);
            let mut v = self.state[(i + M) % N] ^ (y >> 1);
            if y & 1 != 0 {
                v ^= MATRIX_A;
            }
            self.state[i] = v;
        }
        self.next = 0;
    }

    /// The next 32-bit output.
    pub fn next_u32(&mut self) -> u32 {
        if self.next >= N {
            self.twist();
        }
        let mut y = self.state[self.next];
        self.next += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }
}
