//! One epoch of each translator the notebooks train, on the generated corpus, for `make bench`:
//! notebook 04's Transformer and notebook 05's GRU, LSTM and biLSTM translators. The epoch's
//! batches and the settings go to a JSON file, so that `tools/bench.py` trains PyTorch's model
//! (the fixtures' classes, made after the same `manual_seed`, so with the same initial weights)
//! on exactly the same batches.

use attention_zoo::prelude::*;
use candle_core::Error;

/// Which translator: its name on the command line (`translation=KIND:PATH`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Transformer,
    Gru,
    Lstm,
    BiLstm,
}

impl Kind {
    pub fn parse(name: &str) -> Result<Kind> {
        match name {
            "transformer" => Ok(Kind::Transformer),
            "gru" => Ok(Kind::Gru),
            "lstm" => Ok(Kind::Lstm),
            "bilstm" => Ok(Kind::BiLstm),
            other => Err(Error::Msg(format!("bench: unknown translator `{other}` (transformer, gru, lstm, bilstm)"))),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Transformer => "transformer",
            Kind::Gru => "gru",
            Kind::Lstm => "lstm",
            Kind::BiLstm => "bilstm",
        }
    }
}

/// What one epoch gave: seconds of the training pass, target tokens, mean loss; then the
/// decoding of the test split with the trained weights.
pub struct Epoch {
    pub seconds: f64,
    pub tokens: usize,
    pub loss: f64,
    pub greedy: Decoded,
    pub beam: Decoded,
}

/// One decoding of the test split: seconds, and the tokens of the translations (`<eos>` counted
/// where a translation ended with it).
pub struct Decoded {
    pub seconds: f64,
    pub tokens: usize,
    pub outputs: Vec<Vec<u32>>,
}

/// The longest translation ([`Translator`]'s default), the beam width and the sentences a
/// decoding call takes (as `Translator` decodes).
pub const DECODE_MAX_LEN: usize = 48;
const BEAM_WIDTH: usize = 4;
const DECODE_BATCH: usize = 100;

/// Notebook 05's recipe for the recurrent translators (`translation_trainer`: Adam at 2e-3, the
/// cross-entropy without padding, gradients clipped to norm 1, two half-batches on two threads)
/// and notebook 04's for the Transformer (Adam with betas (0.9, 0.98) and the warm-up schedule).
pub fn train_translation(kind: Kind, batches_json: &str) -> Result<Epoch> {
    let Corpus { src_vocab, tgt_vocab, train, test } = corpus()?;
    let t_cfg = TransformerConfig::small(src_vocab, tgt_vocab);
    let max_len = if kind == Kind::Transformer { t_cfg.max_len } else { 64 };
    let (seed, batch_size, warmup, factor, lr) = (0u64, 32, 400, 0.32, 2e-3);
    let (embed_dim, hidden_dim) = (64, 128);
    let loader = BucketIterator::new(train, batch_size, Some(max_len), seed)?;
    let batches = epoch_batches(&loader, seed);
    let extra = format!("\"embed_dim\": {embed_dim}, \"hidden_dim\": {hidden_dim}, \"lr\": {lr}, \"clip\": 1.0, ");
    let settings = settings_json(kind.name(), &t_cfg, (seed, warmup, factor), &extra, &batches);
    std::fs::write(batches_json, settings).map_err(|e| Error::Msg(format!("{batches_json}: {e}")))?;
    manual_seed(seed as i128)?;
    let (src, tgt) = (src_vocab, tgt_vocab);
    let lstm = |bidirectional| LstmTranslatorConfig { embed_dim, hidden_dim, bidirectional, ..LstmTranslatorConfig::new(src, tgt) };
    let decode_json = format!("{batches_json}.decode.json");
    match kind {
        Kind::Transformer => {
            let model = Transformer::from_config(&t_cfg)?;
            let optimizer = Adam::with_betas(model.parameters(), 1e-3, (0.9, 0.98), 1e-9)?;
            let mut sbs = StepByStep::with_loaders(model, CrossEntropyLoss::new().ignore_index(0), optimizer, loader, None);
            sbs.schedule = Some(NoamSchedule::new(t_cfg.d_model, warmup, factor)?);
            sbs.threads = 2;
            one_epoch(sbs, seed, &test, &decode_json)
        }
        Kind::Gru => {
            let cfg = GruTranslatorConfig { embed_dim, hidden_dim, ..GruTranslatorConfig::new(src, tgt) };
            one_epoch(translation_trainer(GruTranslator::new(&cfg)?, lr, loader, None)?, seed, &test, &decode_json)
        }
        Kind::Lstm => one_epoch(translation_trainer(LstmTranslator::new(&lstm(false))?, lr, loader, None)?, seed, &test, &decode_json),
        Kind::BiLstm => one_epoch(translation_trainer(LstmTranslator::new(&lstm(true))?, lr, loader, None)?, seed, &test, &decode_json),
    }
}

/// The generated corpus as the notebooks encode it: the vocabularies' sizes, the training pairs
/// and the test sources.
pub struct Corpus {
    pub src_vocab: usize,
    pub tgt_vocab: usize,
    pub train: Vec<EncodedPair>,
    pub test: Vec<Vec<u32>>,
}

pub fn corpus() -> Result<Corpus> {
    let corpus = generate_corpus(&CorpusConfig::default())?;
    let src_vocab = Vocab::build(corpus.train.iter().map(|(de, _)| tokenize(de)), 1, None)?;
    let tgt_vocab = Vocab::build(corpus.train.iter().map(|(_, en)| tokenize(en)), 1, None)?;
    let train = encode_pairs(&corpus.train, &src_vocab, &tgt_vocab, false);
    let test = encode_pairs(&corpus.test, &src_vocab, &tgt_vocab, false).into_iter().map(|p| p.0).collect();
    Ok(Corpus { src_vocab: src_vocab.len(), tgt_vocab: tgt_vocab.len(), train, test })
}

/// The batches of `loader`'s first pass after seeding it with `seed` (as `StepByStep::train`
/// does), each as JSON `{"src": [[ids]], "tgt": [[ids]]}`, for PyTorch's side.
pub fn epoch_batches(loader: &BucketIterator, seed: u64) -> Vec<String> {
    let mut peek = loader.clone();
    peek.manual_seed(seed);
    peek.epoch_indices()
        .iter()
        .map(|b| {
            let rows = |side: fn(&EncodedPair) -> &Vec<u32>| format!("{:?}", b.iter().map(|&i| side(&peek.pairs()[i])).collect::<Vec<_>>());
            format!("{{\"src\": {}, \"tgt\": {}}}", rows(|p| &p.0), rows(|p| &p.1))
        })
        .collect()
}

/// The settings and batches PyTorch's side reads: the kind, the seed, the Transformer's sizes and
/// schedule (`(seed, warmup, factor)`), `extra` fields (each followed by `, `), the batches.
pub fn settings_json(
    kind: &str,
    cfg: &TransformerConfig,
    (seed, warmup, factor): (u64, u64, f64),
    extra: &str,
    batches: &[String],
) -> String {
    format!(
        "{{\"kind\": \"{kind}\", \"seed\": {seed}, \"src_vocab\": {}, \"tgt_vocab\": {}, \"d_model\": {}, \"n_heads\": {}, \"d_ff\": {}, \"n_layers\": {}, \"max_len\": {}, \"warmup\": {warmup}, \"factor\": {factor}, {extra}\"batches\": [{}]}}",
        cfg.src_vocab,
        cfg.tgt_vocab,
        cfg.d_model,
        cfg.n_heads,
        cfg.d_ff,
        cfg.n_layers,
        cfg.max_len,
        batches.join(",\n")
    )
}

/// Trains one epoch, then decodes `test` greedily and by beam search with the trained weights;
/// writes the weights (named as PyTorch's `state_dict`), the test sources and our translations
/// to `decode_json` for `tools/bench.py`.
fn one_epoch<M: Learner<TranslationBatch> + Translate, L: Loss, O: Optimizer>(
    mut sbs: StepByStep<M, L, O, BucketIterator>,
    seed: u64,
    test: &[Vec<u32>],
    decode_json: &str,
) -> Result<Epoch> {
    sbs.progress_every = 0;
    sbs.set_seed(seed)?;
    sbs.train(1)?;
    let stats = &sbs.epoch_stats[0];
    let (seconds, tokens, loss) = (stats.seconds, stats.tokens.unwrap_or(0), sbs.losses[0]);
    let mut model = sbs.model;
    let greedy = decode(test, |src| greedy_decode(&mut model, src, SOS_ID, EOS_ID, DECODE_MAX_LEN))?;
    let config = BeamConfig::new(BEAM_WIDTH, DECODE_MAX_LEN);
    let beam = decode(test, |src| {
        Ok(beam_search(&mut model, src, SOS_ID, EOS_ID, &config)?
            .into_iter()
            .map(|h| h.into_iter().next().map_or(vec![], |h| h.tokens))
            .collect())
    })?;
    let weights: Vec<String> = model
        .named_parameters()
        .iter()
        .map(|(name, p)| -> Result<String> {
            let t = p.tensor();
            Ok(format!("\"{name}\": {{\"shape\": {:?}, \"values\": {:?}}}", t.dims(), t.flatten_all()?.to_vec1::<f32>()?))
        })
        .collect::<Result<_>>()?;
    let text = format!(
        "{{\"max_len\": {DECODE_MAX_LEN}, \"beam_width\": {BEAM_WIDTH}, \"batch\": {DECODE_BATCH}, \"test_src\": {test:?}, \"greedy\": {:?}, \"beam\": {:?}, \"weights\": {{{}}}}}",
        greedy.outputs,
        beam.outputs,
        weights.join(", ")
    );
    std::fs::write(decode_json, text).map_err(|e| Error::Msg(format!("{decode_json}: {e}")))?;
    Ok(Epoch { seconds, tokens, loss, greedy, beam })
}

/// Decodes `test` in batches of [`DECODE_BATCH`] sentences with `run`, timing the decoding alone.
pub fn decode(test: &[Vec<u32>], mut run: impl FnMut(&Tensor) -> Result<Vec<Vec<u32>>>) -> Result<Decoded> {
    let batches = test.chunks(DECODE_BATCH).map(pad_ids).collect::<Result<Vec<_>>>()?;
    let start = std::time::Instant::now();
    let mut outputs = Vec::with_capacity(test.len());
    for src in &batches {
        outputs.extend(run(src)?);
    }
    let seconds = start.elapsed().as_secs_f64();
    let tokens = outputs.iter().map(|o| o.len() + usize::from(o.len() < DECODE_MAX_LEN)).sum();
    Ok(Decoded { seconds, tokens, outputs })
}

/// Source rows padded with [`PAD_ID`] to the longest, `(N, S)`.
fn pad_ids(rows: &[Vec<u32>]) -> Result<Tensor> {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let ids: Vec<u32> = rows.iter().flat_map(|r| r.iter().copied().chain(std::iter::repeat_n(PAD_ID, width - r.len()))).collect();
    Tensor::from_vec(ids, (rows.len(), width), &Device::Cpu)
}
