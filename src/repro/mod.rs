//! Same seed, same numbers: PyTorch's CPU random numbers, NumPy's legacy `RandomState` and
//! PyTorch's initialisation recipes.
//!
//! candle's own CPU generator cannot be seeded, so the crate carries its own: a Mersenne Twister
//! (MT19937) seeded exactly like PyTorch's CPU generator, and the float32 algorithms PyTorch uses on
//! top of it. With the same seed the same numbers come out, so a notebook prints what the lecture
//! printed. There is one default generator per process ([`manual_seed`], [`rand()`], [`randn`], ...)
//! and separate [`Generator`] values, like `torch.Generator().manual_seed(s)`.

pub(crate) mod avx_mathfun;
pub(crate) mod default;
pub(crate) mod generator;
pub(crate) mod init;
pub(crate) mod mt19937;
pub(crate) mod numpy;
pub(crate) mod python;

pub use default::{bernoulli, manual_seed, rand, rand_scalar, randn, randperm, uniform, with_default};
pub use generator::{Generator, MAX_SEED};
pub use init::{kaiming_uniform_bound, uniform_init};
pub use mt19937::Mt19937;
pub use numpy::RandomState;
pub use python::PyRandom;
