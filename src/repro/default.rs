//! The default generator, one per process like PyTorch's, and the `torch.*` functions that draw
//! from it (`manual_seed`, `rand`, `randn`, `randperm`, ...).

use super::generator::{Generator, check_seed};
use candle_core::{Result, Shape, Tensor};
use std::sync::{Mutex, OnceLock};

/// The default generator, one per process like PyTorch's. The project's kernel links one copy of
/// this crate for all notebook cells, but evcxr as published links a separate copy into every
/// cell, each with its own statics, and the crate keeps working there; so the generator lives on
/// the heap, and the first copy to need it leaves its address in an environment variable where
/// the copies of later cells find it (under the project's kernel, and in a program, the one copy
/// finds its own). The key names the crate version and the generator's size,
/// so a copy never reads a generator laid out differently from its own; the value names the
/// process too, since child processes inherit the environment: a child (a program the notebook
/// runs, a test's subprocess) makes its own generator rather than reading its parent's address.
///
/// The one `unsafe` of the crate outside the kernel wing (`nn::fused`), allowed here by name in
/// `tests/layout.rs`; each of its two blocks says in its comment why it is sound.
fn default_generator() -> &'static Mutex<Generator> {
    static SHARED: OnceLock<&'static Mutex<Generator>> = OnceLock::new();
    SHARED.get_or_init(|| {
        let key = format!(
            "ATTENTION_ZOO_DEFAULT_GENERATOR_{}_{}",
            env!("CARGO_PKG_VERSION").replace('.', "_"),
            std::mem::size_of::<Mutex<Generator>>()
        );
        let pid = std::process::id();
        let found = std::env::var(&key).ok().and_then(|v| {
            let (owner, addr) = v.split_once(':')?;
            (owner.parse::<u32>().ok()? == pid).then(|| usize::from_str_radix(addr, 16).ok()).flatten()
        });
        if let Some(addr) = found {
            // SAFETY: the address was leaked below, in this process, by a copy of this same crate
            // version, for a value of this same size, and is never freed.
            return unsafe { &*(addr as *const Mutex<Generator>) };
        }
        let leaked: &'static Mutex<Generator> = Box::leak(Box::new(Mutex::new(Generator::default())));
        // SAFETY: set once per process, when the generator is first used; the crate reads no
        // other environment variable concurrently.
        unsafe { std::env::set_var(&key, format!("{pid}:{:x}", leaked as *const Mutex<Generator> as usize)) };
        leaked
    })
}

/// Runs `f` with the default generator, the one `torch.manual_seed` seeds.
pub fn with_default<R>(f: impl FnOnce(&mut Generator) -> R) -> R {
    let mut g = default_generator().lock().unwrap_or_else(|e| e.into_inner());
    f(&mut g)
}

/// Seeds the default generator, like `torch.manual_seed(seed)`. Negative seeds wrap into the
/// unsigned range as PyTorch's do; a seed outside `[-2^63, 2^64)` is an error.
pub fn manual_seed(seed: i128) -> Result<()> {
    let seed = check_seed(seed)?;
    with_default(|g| *g = Generator::new(seed));
    Ok(())
}

/// Uniforms in `[0, 1)` from the default generator (`torch.rand(shape)`).
pub fn rand<S: Into<Shape>>(shape: S) -> Result<Tensor> {
    with_default(|g| g.rand(shape))
}

/// Uniforms in `[from, to)` from the default generator (`torch.empty(shape).uniform_(from, to)`).
pub fn uniform<S: Into<Shape>>(shape: S, from: f64, to: f64) -> Result<Tensor> {
    with_default(|g| g.rand_range(shape, from, to))
}

/// Standard normals from the default generator (`torch.randn(shape)`).
pub fn randn<S: Into<Shape>>(shape: S) -> Result<Tensor> {
    with_default(|g| g.randn(shape))
}

/// A permutation of `0..n` from the default generator (`torch.randperm(n)`).
pub fn randperm(n: usize) -> Vec<usize> {
    with_default(|g| g.randperm(n))
}

/// Zeros and ones from the default generator (`torch.empty(shape).bernoulli_(p)`).
pub fn bernoulli<S: Into<Shape>>(shape: S, p: f64) -> Result<Tensor> {
    with_default(|g| g.bernoulli(shape, p))
}

/// One uniform in `[0, 1)` from the default generator, as `torch.rand(1).item()`.
pub fn rand_scalar() -> f32 {
    with_default(|g| g.uniform_f32(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repro::Mt19937;

    #[test]
    fn mt19937_reference_output() {
        // The reference implementation's first output for seed 5489.
        let mut mt = Mt19937::new(5489);
        assert_eq!(mt.next_u32(), 3_499_211_612);
    }

    #[test]
    fn seeds_out_of_range_are_errors() {
        assert!(manual_seed(1i128 << 64).is_err());
        assert!(manual_seed(-(1i128 << 63) - 1).is_err());
        assert!(manual_seed(-1).is_ok());
    }
}
