//! Text to tensors for translation: sentence pairs from files, a tokenizer, vocabularies with
//! the specials `<pad>` = 0, `<sos>`, `<eos>`, `<unk>`, and padded batches of similar lengths.
//!
//! ```no_run
//! # fn main() -> candle_core::Result<()> {
//! use attention_zoo::data::text::*;
//! let pairs = read_tsv_pairs("deu-eng.tsv")?;
//! let src_vocab = Vocab::build(pairs.iter().map(|(s, _)| tokenize(s)), 2, None)?;
//! let tgt_vocab = Vocab::build(pairs.iter().map(|(_, t)| tokenize(t)), 2, None)?;
//! let encoded = encode_pairs(&pairs, &src_vocab, &tgt_vocab, false);
//! let mut batches = BucketIterator::new(encoded, 64, Some(100), 42)?;
//! for batch in batches.epoch()? {
//!     let (src, tgt_in, tgt_out) = (&batch.src, batch.tgt_input()?, batch.tgt_output()?);
//!     # let _ = (src, tgt_in, tgt_out);
//! }
//! # Ok(()) }
//! ```

pub(crate) mod batch;
pub(crate) mod bucket;
pub(crate) mod files;
pub(crate) mod tokenizer;
pub(crate) mod vocab;

pub use batch::{EncodedPair, TranslationBatch, check_pairs, encode_pairs, pad_rows, tgt_input, tgt_output};
pub use bucket::{BucketIterator, DEFAULT_POOL};
pub use files::{read_aligned_pairs, read_tsv_pairs};
pub use tokenizer::{detokenize, tokenize, tokenize_cased};
pub use vocab::{EOS, EOS_ID, PAD, PAD_ID, SOS, SOS_ID, SPECIALS, UNK, UNK_ID, Vocab};
