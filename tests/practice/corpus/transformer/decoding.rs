//! Wrong answers to part 4's decoding exercises, q8 and q9, written from the notebook's statements alone.

use super::super::{Wrong, wrong};
use attention_zoo::practice::transformer::*;
use attention_zoo::prelude::*;

/// Greedy decoding as a student writes it: `feed` makes the next step's target from the tokens
/// so far, `position` picks the logits' row, `steps` is how many tokens may be written.
fn greedy(
    model: &Transformer,
    src: &Tensor,
    (sos, eos): (u32, u32),
    steps: usize,
    feed: fn(&[u32]) -> Vec<u32>,
    position: fn(usize) -> usize,
) -> Result<Vec<u32>> {
    let mut tokens = vec![sos];
    for _ in 0..steps {
        let tgt = Tensor::new(feed(&tokens).as_slice(), src.device())?.unsqueeze(0)?;
        let logits = model.forward(src, &tgt, None, None)?;
        let t = logits.dim(1)?;
        let next = logits.i((0, position(t)))?.argmax(0)?.to_scalar::<u32>()?;
        if next == eos {
            break;
        }
        tokens.push(next);
    }
    Ok(tokens[1..].to_vec())
}

pub(super) fn q8_wrongs() -> Vec<Wrong> {
    let all = |t: &[u32]| t.to_vec();
    let last = |t: usize| t - 1;
    vec![
        wrong(
            "the first position's logits read at every step",
            &["first position"],
            q8.check(move |m, src, sos, eos, n| greedy(m, src, (sos, eos), n, all, |_| 0)),
        ),
        wrong(
            "the target always <sos> alone: the predictions never fed back",
            &["fed back", "feed", "append"],
            q8.check(move |m, src, sos, eos, n| greedy(m, src, (sos, eos), n, |t| vec![t[0]], last)),
        ),
        wrong(
            "only the last token fed as the target, as to an RNN",
            &["last token", "whole target", "only the last"],
            q8.check(move |m, src, sos, eos, n| greedy(m, src, (sos, eos), n, |t| vec![t[t.len() - 1]], last)),
        ),
        wrong(
            "one token short: max_len counted with <sos>",
            &["max_len"],
            q8.check(move |m, src, sos, eos, n| greedy(m, src, (sos, eos), n - 1, all, last)),
        ),
        wrong(
            "the output returned with <sos>",
            &["<sos> is in the translation"],
            q8.check(|m, src, sos, eos, n| {
                let mut tokens = vec![sos];
                while tokens.len() <= n {
                    let tgt = Tensor::new(tokens.as_slice(), src.device())?.unsqueeze(0)?;
                    let logits = model_logits(m, src, &tgt)?;
                    let next = logits.i(tokens.len() - 1)?.argmax(0)?.to_scalar::<u32>()?;
                    if next == eos {
                        break;
                    }
                    tokens.push(next);
                }
                Ok(tokens)
            }),
        ),
    ]
}

/// The logits `(T, V)` of the one sentence.
fn model_logits(m: &Transformer, src: &Tensor, tgt: &Tensor) -> Result<Tensor> {
    m.forward(src, tgt, None, None)?.squeeze(0)
}

pub(super) fn q9_wrongs() -> Vec<Wrong> {
    let untrained = |src_vocab: &Vocab, tgt_vocab: &Vocab, swap: bool| -> Result<Transformer> {
        let (s, t) = if swap { (tgt_vocab.len(), src_vocab.len()) } else { (src_vocab.len(), tgt_vocab.len()) };
        let cfg =
            TransformerConfig { d_model: 8, n_heads: 2, d_ff: 8, n_layers: 1, dropout: 0.0, max_len: 64, ..TransformerConfig::new(s, t) };
        manual_seed(0)?;
        Transformer::from_config(&cfg)
    };
    vec![
        wrong("the model built and returned untrained", &["untrained"], q9.check(move |_, sv, tv| untrained(sv, tv, false))),
        wrong(
            "trained for zero epochs",
            &["untrained"],
            q9.check(move |corpus, sv, tv| {
                let model = untrained(sv, tv, false)?;
                let train_ids = encode_pairs(&corpus.train, sv, tv, false);
                let loader = BucketIterator::new(train_ids, 32, Some(64), 0)?;
                let adam = Adam::new(model.parameters(), 1e-3)?;
                let mut sbs = StepByStep::with_loaders(model, CrossEntropyLoss::new().ignore_index(0), adam, loader, None);
                sbs.train(0)?;
                Ok(sbs.model)
            }),
        ),
        wrong("the source and target vocabularies swapped in the config", &["vocab"], q9.check(move |_, sv, tv| untrained(sv, tv, true))),
    ]
}
