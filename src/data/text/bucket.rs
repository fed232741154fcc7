//! `BucketIterator`: batches of sentence pairs of similar length (little padding), in a
//! shuffled order drawn from the crate's deterministic generator, as torchtext's
//! `BucketIterator` (with its `pool`) makes them.

use super::batch::{EncodedPair, TranslationBatch, check_encoded};
use crate::nn::errors_as;
use crate::nn::shape::{error, invalid};
use crate::repro::Generator;
use candle_core::Result;

/// How many batches' worth of pairs are sorted by length together, by default.
pub const DEFAULT_POOL: usize = 100;

/// Mini-batches of translation pairs grouped by length.
///
/// One pass ([`BucketIterator::epoch`]), when shuffling (the default):
/// 1. the pairs are shuffled (a `randperm` from the iterator's generator);
/// 2. cut into chunks of `pool × batch_size` pairs, each chunk sorted by source length, then
///    target length (a stable sort);
/// 3. each chunk cut into batches of at most `batch_size` pairs and, with `max_tokens`, at most
///    that many padded tokens (`pairs × the longest source or target of the batch`; a single
///    pair longer than that still makes a batch of one);
/// 4. the batches of every chunk shuffled together (a second `randperm`).
///
/// Without shuffling (validation, test) there are no draws: chunks in the order given, each
/// sorted, the batches in order. Every pair appears in exactly one batch of a pass, and the same
/// seed gives the same batches. The fields are private so that the pairs stay checked.
#[derive(Clone, Debug)]
pub struct BucketIterator {
    pairs: Vec<EncodedPair>,
    batch_size: usize,
    max_tokens: Option<usize>,
    pool: usize,
    shuffle: bool,
    generator: Generator,
}

impl BucketIterator {
    /// A shuffling iterator over `pairs` (made by [`super::encode_pairs`]) with batches of at
    /// most `batch_size` pairs and a generator seeded with `seed`.
    ///
    /// The pairs are checked up front (see [`super::check_pairs`]): with `max_len` (the Transformer's
    /// `max_len`), a source or target longer than it is an error naming the pair's 0-based
    /// index and its length; so are an empty list, a target not wrapped in `<sos>` ... `<eos>`
    /// and a padding id inside a sentence.
    #[errors_as("BucketIterator::new")]
    pub fn new(pairs: Vec<EncodedPair>, batch_size: usize, max_len: Option<usize>, seed: u64) -> Result<Self> {
        if batch_size == 0 {
            return Err(invalid("batch_size must be positive, got 0"));
        }
        check_encoded(&pairs, max_len)?;
        Ok(BucketIterator { pairs, batch_size, max_tokens: None, pool: DEFAULT_POOL, shuffle: true, generator: Generator::new(seed) })
    }

    /// Also caps every batch at `max_tokens` padded tokens (pairs × the longest source or
    /// target of the batch).
    pub fn with_max_tokens(mut self, max_tokens: usize) -> Result<Self> {
        if max_tokens == 0 {
            return Err(error("BucketIterator::with_max_tokens", "max_tokens must be positive, got 0"));
        }
        self.max_tokens = Some(max_tokens);
        Ok(self)
    }

    /// Sorts `batches × batch_size` pairs together (default [`DEFAULT_POOL`]); larger pools
    /// pad less and shuffle less.
    pub fn with_pool(mut self, batches: usize) -> Result<Self> {
        if batches == 0 {
            return Err(error("BucketIterator::with_pool", "the pool must hold at least one batch, got 0"));
        }
        self.pool = batches;
        Ok(self)
    }

    /// Shuffles (or not, for evaluation) from the next pass on.
    pub fn set_shuffle(&mut self, shuffle: bool) {
        self.shuffle = shuffle;
    }

    pub fn shuffle(&self) -> bool {
        self.shuffle
    }

    /// Re-seeds the generator: the next passes are those of a new iterator with this seed.
    pub fn manual_seed(&mut self, seed: u64) {
        self.generator = Generator::new(seed);
    }

    pub fn pairs(&self) -> &[EncodedPair] {
        &self.pairs
    }

    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    pub fn max_tokens(&self) -> Option<usize> {
        self.max_tokens
    }

    pub fn pool(&self) -> usize {
        self.pool
    }

    /// The pair indices of every batch of the next pass (drawing from the generator when
    /// shuffling).
    pub fn epoch_indices(&mut self) -> Vec<Vec<usize>> {
        let n = self.pairs.len();
        let order: Vec<usize> = if self.shuffle { self.generator.randperm(n) } else { (0..n).collect() };
        let mut batches = vec![];
        for chunk in order.chunks(self.batch_size.saturating_mul(self.pool)) {
            let mut chunk = chunk.to_vec();
            chunk.sort_by_key(|&i| (self.pairs[i].0.len(), self.pairs[i].1.len()));
            self.split(&chunk, &mut batches);
        }
        if self.shuffle {
            let perm = self.generator.randperm(batches.len());
            let mut slots: Vec<Option<Vec<usize>>> = batches.into_iter().map(Some).collect();
            batches = perm.into_iter().filter_map(|p| slots[p].take()).collect();
        }
        batches
    }

    /// Cuts a sorted chunk into batches by `batch_size` and `max_tokens`.
    fn split(&self, chunk: &[usize], out: &mut Vec<Vec<usize>>) {
        let mut current: Vec<usize> = vec![];
        let mut longest = 0;
        for &i in chunk {
            let len = self.pairs[i].0.len().max(self.pairs[i].1.len());
            let wider = longest.max(len);
            let too_many = current.len() == self.batch_size;
            let too_long = self.max_tokens.is_some_and(|m| (current.len() + 1).saturating_mul(wider) > m);
            if !current.is_empty() && (too_many || too_long) {
                out.push(std::mem::take(&mut current));
                longest = 0;
            }
            longest = longest.max(len);
            current.push(i);
        }
        if !current.is_empty() {
            out.push(current);
        }
    }

    /// Every batch of the next pass, padded.
    pub fn epoch(&mut self) -> Result<Vec<TranslationBatch>> {
        self.epoch_indices().iter().map(|idx| TranslationBatch::new(&self.pairs, idx)).collect()
    }
}
