//! The translator contract from the outside: a toy model written here, in a test, implements
//! `Walk` and `Translate` and nothing else, and gets teacher-forced training (`StepByStep` through
//! `translation_trainer`), greedy and beam decoding, BLEU and the attention of one sentence.
//!
//! The toy copies: the logits at target position `j` are a linear map of the embedding of source
//! token `j` (the padding past the source's end), so after training it must give back every
//! sentence word for word and end it with `<eos>`: BLEU 100 against the sources themselves.

use crate::common;

use attention_zoo::prelude::*;
use attention_zoo::train::{Batches, Learner, QUICK_BATCHES, QUICK_PAIRS};

/// Reads source token `j` at target position `j`: an embedding and a linear layer.
#[derive(Clone)]
struct Copier {
    embed: Embedding,
    out: Linear,
    vocab: usize,
}

impl Copier {
    fn new(vocab: usize) -> Result<Self> {
        Ok(Copier { embed: Embedding::new(vocab, 16)?, out: Linear::new(16, vocab)?, vocab })
    }

    /// The source ids aligned with `t` target positions: cut, or padded with `PAD_ID`.
    fn aligned(src: &Tensor, t: usize) -> Result<Tensor> {
        let rows: Vec<Vec<u32>> = src.to_vec2::<u32>()?;
        let flat: Vec<u32> = rows.iter().flat_map(|r| (0..t).map(|j| r.get(j).copied().unwrap_or(PAD_ID))).collect();
        Tensor::from_vec(flat, (rows.len(), t), src.device())
    }
}

impl Walk for Copier {
    fn walk(&self, w: &mut Walker) {
        w.child("embed", &self.embed);
        w.child("out", &self.out);
    }
}

impl Translate for Copier {
    /// The source ids themselves.
    type State = Tensor;

    fn tgt_vocab(&self) -> usize {
        self.vocab
    }

    fn pad_id(&self) -> Option<u32> {
        Some(PAD_ID)
    }

    fn encode_src(&mut self, src: &Tensor) -> Result<Tensor> {
        Ok(src.clone())
    }

    fn select_rows(&self, state: &Tensor, rows: &Tensor) -> Result<Tensor> {
        state.index_select(rows, 0)
    }

    fn next_logits(&mut self, state: &mut Tensor, prefix: &Tensor) -> Result<Tensor> {
        let t = prefix.dim(1)?;
        self.teacher_forced(state, prefix)?.i((.., t - 1, ..))?.contiguous()
    }

    fn teacher_forced(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<Tensor> {
        let src = Self::aligned(src, tgt_input.dim(1)?)?;
        self.out.forward(&self.embed.forward(&src)?)
    }

    /// Target position `j` reads source position `j` alone.
    fn sentence_attention(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<SentenceAttention> {
        let (n, s) = src.dims2()?;
        let t = tgt_input.dim(1)?;
        let eye: Vec<f32> = (0..n * t * s).map(|k| if (k / s) % t == k % s { 1.0 } else { 0.0 }).collect();
        Ok(SentenceAttention::Source(Tensor::from_vec(eye, (n, t, s), src.device())?))
    }
}

const WORDS: [&str; 10] = ["red", "green", "blue", "cat", "dog", "runs", "sleeps", "the", "a", "quickly"];

/// `n` sentences of 2 to 6 words, from a fixed linear congruential sequence.
fn sentences(n: usize, mut state: u64) -> Vec<String> {
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    (0..n).map(|_| (0..2 + next() % 5).map(|_| WORDS[next() % WORDS.len()]).collect::<Vec<_>>().join(" ")).collect()
}

#[test]
fn a_toy_translator_trains_decodes_and_scores_with_no_other_code() -> Result<()> {
    let _serial = common::serial();
    let train_text = sentences(64, 1);
    let vocab = Vocab::build(train_text.iter().map(|s| tokenize(s)), 1, None)?;
    let pairs: Vec<(String, String)> = train_text.iter().map(|s| (s.clone(), s.clone())).collect();
    let encoded = encode_pairs(&pairs, &vocab, &vocab, false);
    let mut batches = BucketIterator::new(encoded, 16, None, 0)?;
    assert!(!batches.batches()?.is_empty());

    manual_seed(0)?;
    let model = Copier::new(vocab.len())?;
    let mut trainer = translation_trainer(model, 0.05, batches, None)?;
    trainer.progress_every = 0;
    trainer.train(30)?;
    let (first, last) = (trainer.losses[0], *trainer.losses.last().unwrap());
    assert!(last < 0.05 * first, "the loss falls from {first} to {last}");

    let test_text = sentences(12, 99);
    let mut translator = Translator::new(trainer.model.clone(), vocab.clone(), vocab.clone())?;
    assert_eq!(translator.greedy(&test_text)?, test_text, "greedy decoding copies");
    assert_eq!(translator.beam(&test_text, 3)?, test_text, "beam search copies");
    let test_pairs: Vec<(String, String)> = test_text.iter().map(|s| (s.clone(), s.clone())).collect();
    let bleu = translator.bleu(&test_pairs, 1)?.score;
    assert!((bleu - 100.0).abs() < 1e-9, "BLEU {bleu}");

    let (alphas, src, tgt) = translator.alphas(&test_text[0], None)?;
    let words = test_text[0].split(' ').count();
    assert_eq!((src.len(), tgt.len()), (words, words + 1), "<sos> and the words the decoder read");
    assert_eq!(alphas.dims(), [words + 1, words]);
    assert_eq!(alphas.i((0, 0))?.to_scalar::<f32>()?, 1.0);
    let e = translator.attention(&test_text[0]).unwrap_err().to_string();
    assert!(e.contains("Translator::attention") && e.contains("use Translator::alphas"), "{e}");
    Ok(())
}

#[test]
fn the_quick_switch_cuts_what_the_readme_says() -> Result<()> {
    let _serial = common::serial();
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README.md");
    assert_eq!((QUICK_BATCHES, QUICK_PAIRS), (3, 16));
    for promise in ["`ATTENTION_ZOO_QUICK=1`", "`max_batches = Some(3)`", "`max_pairs = Some(16)`"] {
        assert!(readme.contains(promise), "the README promises {promise}");
    }

    let text = sentences(96, 7);
    let vocab = Vocab::build(text.iter().map(|s| tokenize(s)), 1, None)?;
    let pairs: Vec<(String, String)> = text.iter().map(|s| (s.clone(), s.clone())).collect();
    let encoded = encode_pairs(&pairs, &vocab, &vocab, false);
    let make = || -> Result<_> {
        manual_seed(0)?;
        let train = BucketIterator::new(encoded[..64].to_vec(), 8, None, 0)?;
        let mut valid = BucketIterator::new(encoded[64..].to_vec(), 4, None, 0)?;
        valid.set_shuffle(false);
        let mut trainer = translation_trainer(Copier::new(vocab.len())?, 0.05, train, Some(valid))?;
        trainer.progress_every = 0;
        Ok(trainer)
    };

    // Off: every batch, every pair.
    assert!(!quick_run());
    let mut trainer = make()?;
    assert_eq!(trainer.max_batches, None);
    assert_eq!(Translator::new(trainer.model.clone(), vocab.clone(), vocab.clone())?.max_pairs, None);
    trainer.train(1)?;
    assert_eq!(trainer.epoch_stats[0].batches, 8);

    // On, as the quick switch sets it (`notebooks::the_quick_switch_reaches_a_notebooks_trainer`
    // checks that the environment variable does): three batches of each pass, sixteen pairs.
    let mut trainer = make()?;
    trainer.max_batches = Some(QUICK_BATCHES);
    trainer.train(2)?;
    assert!(trainer.epoch_stats.iter().all(|s| s.batches == 3), "three training batches an epoch");
    // The validation loss is the mean over the first three validation batches (of eight).
    let valid = trainer.val_loader.as_mut().expect("a validation loader").batches()?;
    assert_eq!(valid.len(), 8);
    let mut model = trainer.model.clone();
    model.eval();
    let mut sum = 0.0;
    for batch in &valid[..3] {
        let (logits, target) = model.forward_batch(batch)?;
        sum += trainer.loss_fn.loss(&logits, &target)?.to_scalar::<f32>()? as f64;
    }
    assert_eq!(trainer.val_losses[1], sum / 3.0);

    // BLEU over the first 16 pairs: the 17th and later pairs have wrong references.
    let mut test: Vec<(String, String)> = sentences(16, 5).into_iter().map(|s| (s.clone(), s)).collect();
    test.extend(sentences(4, 6).into_iter().map(|s| (s, "nothing like it".to_string())));
    let mut translator = Translator::new(trainer.model.clone(), vocab.clone(), vocab.clone())?;
    let full = translator.bleu(&test, 1)?.score;
    translator.max_pairs = Some(QUICK_PAIRS);
    let cut = translator.bleu(&test, 1)?;
    assert!(full < 90.0, "the wrong references count without the cut: {full}");
    assert_eq!(cut.sys_len, test[..16].iter().map(|(s, _)| s.split(' ').count()).sum::<usize>());
    Ok(())
}
