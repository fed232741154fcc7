//! The lecture's "squares": noisy walks around the corners of a square, equal to NumPy's.

use crate::nn::errors_as;
use crate::nn::shape::invalid;
use crate::repro::RandomState;
use candle_core::{Device, Result, Tensor, bail};

/// The four corners of the square, counter-clockwise from the bottom left.
pub const CORNERS: [[f64; 2]; 4] = [[-1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [1.0, -1.0]];

/// The corners of the square walked from corner `start`: clockwise (direction 1) forwards through
/// [`CORNERS`], counter-clockwise (direction 0) the same walk reversed.
pub fn walk(start: usize, direction: i64) -> Vec<[f64; 2]> {
    let mut w: Vec<[f64; 2]> = (0..4).map(|k| CORNERS[(start + k) % 4]).collect();
    if direction == 0 {
        w.reverse();
    }
    w
}

/// The most sequences [`generate_sequences`] makes in one call.
pub const MAX_SEQUENCES: usize = 1 << 24;

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
    if n > MAX_SEQUENCES {
        bail!("generate_sequences: {n} sequences are too many (at most {MAX_SEQUENCES})")
    }
    let mut rs = RandomState::new(seed)?;
    let starts = rs.randint(4, n)?;
    let lengths: Vec<usize> = if variable_len { rs.randint(3, n)?.into_iter().map(|l| l as usize + 2).collect() } else { vec![4; n] };
    let directions = rs.randint(2, n)?;
    let mut points = Vec::with_capacity(n);
    for i in 0..n {
        let path = walk(starts[i] as usize, directions[i]);
        let len = lengths[i];
        let noise = rs.randn(len * 2)?;
        let seq = (0..len).map(|k| [path[k][0] + noise[2 * k] * 0.1, path[k][1] + noise[2 * k + 1] * 0.1]).collect();
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
    #[errors_as]
    pub fn to_tensor(&self) -> Result<Tensor> {
        let l = self.check_one_length()?;
        let flat: Vec<f32> = self.points.iter().flatten().flat_map(|p| [p[0] as f32, p[1] as f32]).collect();
        Tensor::from_vec(flat, (self.points.len(), l, 2), &Device::Cpu)
    }

    /// Checks that there is at least one sequence and that all share one length; returns it.
    fn check_one_length(&self) -> Result<usize> {
        let Some(first) = self.points.first() else { return Err(invalid("there are no sequences")) };
        let l = first.len();
        if let Some((i, p)) = self.points.iter().enumerate().find(|(_, p)| p.len() != l) {
            return Err(invalid(format!("sequences have different lengths ({l} and {} at index {i}); pad them first", p.len())));
        }
        Ok(l)
    }

    /// The directions as an `(N,)` tensor of 0/1 (float32).
    pub fn directions_tensor(&self) -> Result<Tensor> {
        let d: Vec<f32> = self.directions.iter().map(|&d| d as f32).collect();
        Tensor::from_vec(d, self.directions.len(), &Device::Cpu)
    }
}
