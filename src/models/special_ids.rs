//! The special token ids, defined together and only here: the vocabularies put their four special
//! tokens at these ids (`data::text::Vocab`), padded batches and
//! [`Translator`](crate::train::Translator) fill with [`PAD_ID`], decoding starts from [`SOS_ID`]
//! and stops at [`EOS_ID`], the translators mask [`PAD_ID`] (the Transformer's config defaults to
//! it) and the translation trainer's loss ignores it.

use crate::nn::shape::invalid;
use candle_core::Result;

/// `<pad>`: what a padded batch is filled with, and what the models and losses ignore.
pub const PAD_ID: u32 = 0;
/// `<sos>`: the decoder's first input.
pub const SOS_ID: u32 = 1;
/// `<eos>`: the decoder's last output; decoding stops at it.
pub const EOS_ID: u32 = 2;
/// `<unk>`: every word the vocabulary does not hold.
pub const UNK_ID: u32 = 3;

/// Checks that a model's padding id `pad` is a token of its `side` vocabulary `0..vocab` (`side`:
/// "source" or "target"), the one check of it: the Transformer's config when the model is made,
/// the translator, the trainer and the decoders for any model. The caller's label names who asked.
pub(crate) fn check_pad_id(pad: u32, side: &str, vocab: usize) -> Result<()> {
    if pad as usize >= vocab {
        return Err(invalid(format!("the model's pad_id {pad} is outside the {side} vocabulary 0..{vocab}")));
    }
    Ok(())
}

/// Checks that a model's padding id `pad` is a target id (`0..vocab`) and the padding id
/// [`PAD_ID`] that `users` (the batches, the vocabularies) pad with: the translation trainer's
/// and [`Translator`](crate::train::Translator)'s check of the model they are given.
pub(crate) fn check_padding_id(pad: u32, vocab: usize, users: &str) -> Result<()> {
    check_pad_id(pad, "target", vocab)?;
    if pad != PAD_ID {
        return Err(invalid(format!("the model's pad_id {pad} is not the padding id {PAD_ID} {users} use")));
    }
    Ok(())
}
