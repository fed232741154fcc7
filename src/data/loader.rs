//! `TensorDataset` and a `DataLoader` that shuffles as PyTorch's does.

use crate::nn::errors_as;
use crate::nn::shape::invalid;
use crate::repro::{self, Generator};
use candle_core::{Result, Tensor};

/// `TensorDataset(x, y)`: pairs of rows of two tensors with the same first dimension.
#[derive(Clone, Debug)]
pub struct TensorDataset {
    x: Tensor,
    y: Tensor,
}

impl TensorDataset {
    #[errors_as]
    pub fn new(x: &Tensor, y: &Tensor) -> Result<Self> {
        check_same_first_dim(x, y)?;
        Ok(TensorDataset { x: x.contiguous()?, y: y.contiguous()? })
    }

    /// The inputs, `(N, ...)`.
    pub fn x(&self) -> &Tensor {
        &self.x
    }

    /// The targets, `(N, ...)`.
    pub fn y(&self) -> &Tensor {
        &self.y
    }

    pub fn len(&self) -> usize {
        self.x.dims().first().copied().unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Checks that `x` and `y` have a first dimension, the same.
fn check_same_first_dim(x: &Tensor, y: &Tensor) -> Result<()> {
    let (nx, ny) = (x.dims().first().copied(), y.dims().first().copied());
    if nx.is_none() || nx != ny || x.rank() == 0 {
        return Err(invalid(format!("expected tensors with the same first dimension, got {:?} and {:?}", x.dims(), y.dims())));
    }
    Ok(())
}

/// A loader given `&dataset` shares its tensors (candle's storage is reference-counted), as a
/// PyTorch loader refers to its dataset: `DataLoader::new(&test_data, 16)` keeps `test_data`.
impl From<&TensorDataset> for TensorDataset {
    fn from(dataset: &TensorDataset) -> Self {
        dataset.clone()
    }
}

/// `DataLoader(dataset, batch_size, shuffle, generator)`: mini-batches in order, or shuffled by a
/// `randperm` from the loader's own generator; the last partial batch is kept.
///
/// Each pass draws what PyTorch's loader draws: one int64 seed (from the loader's generator, or
/// from the default generator when it has none), then the permutation when shuffling.
///
/// The fields are private so that a batch size of 0 cannot sneak in; read them with the methods
/// of the same names.
#[derive(Clone, Debug)]
pub struct DataLoader {
    dataset: TensorDataset,
    batch_size: usize,
    shuffle: bool,
    /// The generator that shuffles (`generator=` in PyTorch); `None` uses the default one.
    generator: Option<Generator>,
}

impl DataLoader {
    /// A loader without shuffling, like `DataLoader(data, batch_size=16)`; `dataset` is a
    /// `TensorDataset` or a reference to one (the loader then shares its tensors).
    pub fn new(dataset: impl Into<TensorDataset>, batch_size: usize) -> Result<Self> {
        Self::of(dataset.into(), batch_size, None)
    }

    /// A shuffling loader with its own generator, like
    /// `DataLoader(data, batch_size, shuffle=True, generator=torch.Generator())`.
    pub fn shuffled(dataset: impl Into<TensorDataset>, batch_size: usize, generator: Generator) -> Result<Self> {
        Self::of(dataset.into(), batch_size, Some(generator))
    }

    /// Both constructors, without a generic argument: compiled once in the crate, not in each
    /// notebook cell that makes a loader.
    #[errors_as("DataLoader")]
    fn of(dataset: TensorDataset, batch_size: usize, generator: Option<Generator>) -> Result<Self> {
        if batch_size == 0 {
            return Err(invalid("batch_size must be positive, got 0"));
        }
        Ok(DataLoader { dataset, batch_size, shuffle: generator.is_some(), generator })
    }

    pub fn dataset(&self) -> &TensorDataset {
        &self.dataset
    }

    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    pub fn shuffle(&self) -> bool {
        self.shuffle
    }

    /// Shuffles (or not) from the next pass on, with the loader's generator or, without one,
    /// the default generator (`DataLoader(data, shuffle=True)`).
    pub fn set_shuffle(&mut self, shuffle: bool) {
        self.shuffle = shuffle;
    }

    pub fn generator(&self) -> Option<&Generator> {
        self.generator.as_ref()
    }

    /// Number of mini-batches per pass.
    pub fn len(&self) -> usize {
        self.dataset.len().div_ceil(self.batch_size)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Re-seeds the loader's generator (what `StepByStep::set_seed` does).
    pub fn manual_seed(&mut self, seed: u64) {
        if let Some(g) = &mut self.generator {
            *g = Generator::new(seed);
        }
    }

    /// The order of one pass, drawing from the generators as PyTorch's loader does: the
    /// iterator's int64 base seed first; then, when shuffling, `RandomSampler` draws a
    /// permutation and, once the pass is over, a second one for the (empty) remainder.
    /// Without a generator of its own, a shuffling sampler seeds a private one from the default.
    pub fn epoch_order(&mut self) -> Vec<usize> {
        let n = self.dataset.len();
        let shuffle = self.shuffle;
        let draw = |g: &mut Generator, own: bool| {
            let _base_seed = g.random_i64();
            if !shuffle {
                return (0..n).collect();
            }
            let mut private;
            let sampler = if own {
                g
            } else {
                private = Generator::new(g.random_i64() as u64);
                &mut private
            };
            let order = sampler.randperm(n);
            let _remainder = sampler.randperm(n);
            order
        };
        match &mut self.generator {
            Some(g) => draw(g, true),
            None => repro::with_default(|g| draw(g, false)),
        }
    }

    /// All mini-batches of one pass, `(x, y)` each.
    pub fn batches(&mut self) -> Result<Vec<(Tensor, Tensor)>> {
        let order = self.epoch_order();
        let (x, y) = (&self.dataset.x, &self.dataset.y);
        let sequential = !self.shuffle;
        order
            .chunks(self.batch_size)
            .map(|idx| {
                if sequential {
                    let (start, len) = (idx[0], idx.len());
                    Ok((x.narrow(0, start, len)?, y.narrow(0, start, len)?))
                } else {
                    let ids = Tensor::from_vec(idx.iter().map(|&i| i as u32).collect::<Vec<_>>(), idx.len(), x.device())?;
                    Ok((x.index_select(&ids, 0)?, y.index_select(&ids, 0)?))
                }
            })
            .collect()
    }
}
