//! Data: the lecture's "squares" sequences, datasets and a PyTorch-compatible loader.

use crate::numpy::RandomState;
use crate::random::Generator;
use candle_core::{Device, Result, Tensor, bail};

/// The four corners of the square, counter-clockwise from the bottom left.
pub const CORNERS: [[f64; 2]; 4] = [[-1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [1.0, -1.0]];

/// Noisy squares: each sequence starts at a random corner and walks the square clockwise
/// (direction 1) or counter-clockwise (direction 0), with Gaussian noise of std 0.1 on every point.
#[derive(Clone, Debug)]
pub struct Sequences {
    /// One `(length, 2)` list of points per sequence, in float64 as NumPy makes them.
    pub points: Vec<Vec<[f64; 2]>>,
    /// 1 for clockwise, 0 for counter-clockwise.
    pub directions: Vec<i64>,
}

/// The squares of the lecture, equal to NumPy's for the same seed. Draw order: starting corners,
/// then lengths (2 to 4, only with `variable_len`), then directions, then the noise of each
/// sequence in turn.
pub fn generate_sequences(n: usize, variable_len: bool, seed: i64) -> Result<Sequences> {
    let mut rs = RandomState::new(seed)?;
    let starts = rs.randint(4, n)?;
    let lengths: Vec<usize> = if variable_len {
        rs.randint(3, n)?.into_iter().map(|l| l as usize + 2).collect()
    } else {
        vec![4; n]
    };
    let directions = rs.randint(2, n)?;
    let mut points = Vec::with_capacity(n);
    for i in 0..n {
        // Clockwise walks forwards through CORNERS; counter-clockwise is the same walk reversed.
        let mut walk: Vec<[f64; 2]> = (0..4).map(|k| CORNERS[(starts[i] as usize + k) % 4]).collect();
        if directions[i] == 0 {
            walk.reverse();
        }
        let len = lengths[i];
        let noise = rs.randn(len * 2);
        let seq = (0..len)
            .map(|k| [walk[k][0] + noise[2 * k] * 0.1, walk[k][1] + noise[2 * k + 1] * 0.1])
            .collect();
        points.push(seq);
    }
    Ok(Sequences { points, directions })
}

impl Sequences {
    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// All sequences as one float32 tensor `(N, L, 2)`; they must share one length.
    pub fn to_tensor(&self) -> Result<Tensor> {
        let Some(first) = self.points.first() else {
            bail!("Sequences::to_tensor: there are no sequences")
        };
        let l = first.len();
        if let Some((i, p)) = self.points.iter().enumerate().find(|(_, p)| p.len() != l) {
            bail!("Sequences::to_tensor: sequences have different lengths ({l} and {} at index {i}); pad them first", p.len())
        }
        let flat: Vec<f32> = self.points.iter().flatten().flat_map(|p| [p[0] as f32, p[1] as f32]).collect();
        Tensor::from_vec(flat, (self.points.len(), l, 2), &Device::Cpu)
    }

    /// The directions as an `(N,)` tensor of 0/1 (float32).
    pub fn directions_tensor(&self) -> Result<Tensor> {
        let d: Vec<f32> = self.directions.iter().map(|&d| d as f32).collect();
        Tensor::from_vec(d, self.directions.len(), &Device::Cpu)
    }
}

/// `TensorDataset(x, y)`: pairs of rows of two tensors with the same first dimension.
#[derive(Clone, Debug)]
pub struct TensorDataset {
    pub x: Tensor,
    pub y: Tensor,
}

impl TensorDataset {
    pub fn new(x: &Tensor, y: &Tensor) -> Result<Self> {
        let (nx, ny) = (x.dims().first().copied(), y.dims().first().copied());
        if nx.is_none() || nx != ny {
            bail!("TensorDataset: expected tensors with the same first dimension, got {:?} and {:?}", x.dims(), y.dims())
        }
        Ok(TensorDataset { x: x.contiguous()?, y: y.contiguous()? })
    }

    pub fn len(&self) -> usize {
        self.x.dims()[0]
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `DataLoader(dataset, batch_size, shuffle, generator)`: mini-batches in order, or shuffled by a
/// `randperm` from the loader's own generator; the last partial batch is kept.
///
/// Each pass draws what PyTorch's loader draws: one int64 seed (from the loader's generator, or
/// from the default generator when it has none), then the permutation when shuffling.
#[derive(Clone, Debug)]
pub struct DataLoader {
    pub dataset: TensorDataset,
    pub batch_size: usize,
    pub shuffle: bool,
    /// The generator that shuffles (`generator=` in PyTorch); `None` uses the default one.
    pub generator: Option<Generator>,
}

impl DataLoader {
    /// A loader without shuffling, like `DataLoader(data, batch_size=16)`.
    pub fn new(dataset: TensorDataset, batch_size: usize) -> Result<Self> {
        if batch_size == 0 {
            bail!("DataLoader: batch_size must be positive")
        }
        Ok(DataLoader { dataset, batch_size, shuffle: false, generator: None })
    }

    /// A shuffling loader with its own generator, like
    /// `DataLoader(data, batch_size, shuffle=True, generator=torch.Generator())`.
    pub fn shuffled(dataset: TensorDataset, batch_size: usize, generator: Generator) -> Result<Self> {
        let mut l = Self::new(dataset, batch_size)?;
        l.shuffle = true;
        l.generator = Some(generator);
        Ok(l)
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
            None => crate::random::with_default(|g| draw(g, false)),
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
