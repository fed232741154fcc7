//! `Vocab`: the map between tokens and ids, built from training sentences as torchtext's
//! `build_vocab` builds it: four specials first, then the tokens by descending frequency.

use super::tokenizer::{detokenize, tokenize};
use crate::nn::errors_as;
use crate::nn::shape::{error, invalid};
use candle_core::Result;
use std::collections::HashMap;

/// The padding token, id [`PAD_ID`] (0, what the models and losses ignore).
pub const PAD: &str = "<pad>";
/// The start-of-sentence token, id [`SOS_ID`]: the first input of the decoder.
pub const SOS: &str = "<sos>";
/// The end-of-sentence token, id [`EOS_ID`]: the decoder's last output.
pub const EOS: &str = "<eos>";
/// The token every unknown word becomes, id [`UNK_ID`].
pub const UNK: &str = "<unk>";
/// The four special ids, defined in `models::special_ids` (the models and the decoders use them too).
pub use crate::models::{EOS_ID, PAD_ID, SOS_ID, UNK_ID};
/// The specials, in id order.
pub const SPECIALS: [&str; 4] = [PAD, SOS, EOS, UNK];

/// Tokens and their ids: `<pad>` = 0, `<sos>` = 1, `<eos>` = 2, `<unk>` = 3, then every
/// training token seen at least `min_freq` times, the most frequent first and ties in
/// alphabetical (byte) order, so the same sentences give the same ids on every machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vocab {
    tokens: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Vocab {
    /// Builds a vocabulary from training sentences, each a list of tokens (see
    /// [`super::tokenize`]).
    ///
    /// - `min_freq`: a token enters when it appears at least this often (0 counts as 1);
    /// - `max_size`: at most this many entries in all, the four specials included (the least
    ///   frequent tokens are left out); `None` for no limit, fewer than 4 is an error.
    ///
    /// The specials written in a sentence (`<unk>`, `<pad>`...) are not counted as tokens.
    /// Training data without a single token is an error.
    pub fn build<I, T, S>(sentences: I, min_freq: usize, max_size: Option<usize>) -> Result<Self>
    where
        I: IntoIterator<Item = T>,
        T: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        // Only the walk over the caller's iterators is generic (compiled where it is called, in a
        // notebook at the cell's opt-level); counting and ranking happen in TokenCounter, once.
        let mut counter = TokenCounter::new(max_size)?;
        for sentence in sentences {
            counter.sentence();
            for token in sentence {
                counter.add(token.as_ref());
            }
        }
        counter.into_vocab(min_freq, max_size)
    }

    /// A vocabulary from its tokens in id order (a saved vocabulary read back): the first four
    /// must be the specials, and no token may appear twice.
    #[errors_as]
    pub fn from_tokens<I: IntoIterator<Item = S>, S: Into<String>>(tokens: I) -> Result<Self> {
        let (tokens, ids) = check_tokens(tokens.into_iter().map(Into::into).collect())?;
        Ok(Vocab { tokens, ids })
    }

    /// Number of entries, specials included (the model's vocabulary size).
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Never true: a vocabulary holds at least the four specials.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Every token, in id order.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    pub fn contains(&self, token: &str) -> bool {
        self.ids.contains_key(token)
    }

    /// The id of a token; an unknown token gets [`UNK_ID`].
    pub fn id(&self, token: &str) -> u32 {
        self.ids.get(token).copied().unwrap_or(UNK_ID)
    }

    /// The token of an id; an id outside `0..len()` is an error naming the vocabulary's size.
    pub fn token(&self, id: u32) -> Result<&str> {
        self.tokens.get(id as usize).map(String::as_str).ok_or_else(|| {
            error("Vocab::token", format!("id {id} is out of range for a vocabulary of {} tokens (ids 0..{})", self.len(), self.len()))
        })
    }

    /// The ids of a list of tokens, unknown tokens as [`UNK_ID`], wrapped in `<sos>` ... `<eos>`
    /// when `add_sos_eos`.
    ///
    /// # Shapes
    /// - `tokens`: `L` tokens
    /// - returns `L` ids, or `L + 2` with `add_sos_eos`
    pub fn encode<S: AsRef<str>>(&self, tokens: &[S], add_sos_eos: bool) -> Vec<u32> {
        let mut ids = Vec::with_capacity(tokens.len() + 2);
        if add_sos_eos {
            ids.push(SOS_ID);
        }
        ids.extend(tokens.iter().map(|t| self.id(t.as_ref())));
        if add_sos_eos {
            ids.push(EOS_ID);
        }
        ids
    }

    /// [`tokenize`]s a sentence, then [`Vocab::encode`]s its tokens.
    pub fn encode_str(&self, text: &str, add_sos_eos: bool) -> Vec<u32> {
        self.encode(&tokenize(text), add_sos_eos)
    }

    /// The tokens of a list of ids (a model's output): stops at the first `<eos>`, skips
    /// `<pad>` and `<sos>`, keeps `<unk>`. An id outside the vocabulary is an error naming its
    /// position, the id and the vocabulary's size.
    ///
    /// # Shapes
    /// - `ids`: `L` ids
    /// - returns at most `L` tokens
    #[errors_as]
    pub fn decode(&self, ids: &[u32]) -> Result<Vec<String>> {
        self.check_known(ids)?;
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            match id {
                EOS_ID => break,
                PAD_ID | SOS_ID => continue,
                _ => out.push(self.tokens[id as usize].clone()),
            }
        }
        Ok(out)
    }

    /// Checks that every id [`Vocab::decode`] reads (those before the first `<eos>`) is in the
    /// vocabulary.
    fn check_known(&self, ids: &[u32]) -> Result<()> {
        let read = ids.iter().take_while(|&&id| id != EOS_ID);
        if let Some((i, id)) = read.enumerate().find(|&(_, &id)| id as usize >= self.len()) {
            return Err(invalid(format!(
                "unknown id {id} at position {i}: the vocabulary has {} tokens (ids 0..{})",
                self.len(),
                self.len()
            )));
        }
        Ok(())
    }

    /// [`Vocab::decode`]s ids, then [`detokenize`]s the tokens into a sentence.
    pub fn decode_str(&self, ids: &[u32]) -> Result<String> {
        Ok(detokenize(&self.decode(ids)?))
    }
}

/// Checks a vocabulary's tokens in id order: the four specials first, no token twice, ids that
/// fit `u32`. Returns the tokens and the map from token to id.
fn check_tokens(tokens: Vec<String>) -> Result<(Vec<String>, HashMap<String, u32>)> {
    if tokens.len() < SPECIALS.len() || tokens[..SPECIALS.len()] != SPECIALS {
        let got: Vec<&str> = tokens.iter().take(SPECIALS.len()).map(String::as_str).collect();
        return Err(invalid(format!("expected the specials {SPECIALS:?} first, got {got:?}")));
    }
    if tokens.len() > u32::MAX as usize {
        return Err(invalid(format!("{} tokens do not fit u32 ids", tokens.len())));
    }
    let mut ids = HashMap::with_capacity(tokens.len());
    for (i, t) in tokens.iter().enumerate() {
        if let Some(first) = ids.insert(t.clone(), i as u32) {
            return Err(invalid(format!("token {t:?} appears twice, at ids {first} and {i}")));
        }
    }
    Ok((tokens, ids))
}

/// The token counts behind [`Vocab::build`].
struct TokenCounter {
    counts: HashMap<String, usize>,
    n_sentences: usize,
    n_tokens: usize,
}

impl TokenCounter {
    const MODULE: &str = "Vocab::build";

    fn new(max_size: Option<usize>) -> Result<Self> {
        if let Some(m) = max_size
            && m < SPECIALS.len()
        {
            return Err(error(Self::MODULE, format!("max_size must leave room for the {} specials, got {m}", SPECIALS.len())));
        }
        Ok(TokenCounter { counts: HashMap::new(), n_sentences: 0, n_tokens: 0 })
    }

    fn sentence(&mut self) {
        self.n_sentences += 1;
    }

    fn add(&mut self, token: &str) {
        self.n_tokens += 1;
        if SPECIALS.contains(&token) {
            return;
        }
        match self.counts.get_mut(token) {
            Some(count) => *count += 1,
            None => {
                self.counts.insert(token.to_string(), 1);
            }
        }
    }

    fn into_vocab(self, min_freq: usize, max_size: Option<usize>) -> Result<Vocab> {
        if self.n_tokens == 0 {
            return Err(error(Self::MODULE, format!("no token in the training data ({} sentences, all empty)", self.n_sentences)));
        }
        let mut ranked: Vec<(String, usize)> = self.counts.into_iter().filter(|(_, c)| *c >= min_freq.max(1)).collect();
        ranked.sort_by(|(a, ca), (b, cb)| cb.cmp(ca).then_with(|| a.cmp(b)));
        if let Some(m) = max_size {
            ranked.truncate(m - SPECIALS.len());
        }
        let tokens = SPECIALS.iter().map(|s| s.to_string()).chain(ranked.into_iter().map(|(t, _)| t));
        Vocab::from_tokens(tokens)
    }
}
