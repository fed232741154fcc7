//! `make bench-scale`: notebook 04's Transformer grown towards the paper's base model, trained
//! for a few batches of the generated corpus; and the base model's greedy decoding with the KV
//! cache. As `translation.rs` does, the batches and settings go to a JSON file, so that
//! `tools/bench_scale.py` trains PyTorch's model (same `manual_seed`, then Xavier: the same
//! initial weights) on exactly the same batches. Peak RSS is the process's own (`VmHWM`).
//!
//! `bench scale=D,H,F,L,TOKENS[,long]:PATH` trains; `bench scale-decode=D,H,F,L:PATH` decodes.
//! `StepByStep::threads` is `BENCH_THREADS` (default 2): two half-batches on two threads, or one.

use crate::translation::{self, Corpus, DECODE_MAX_LEN, corpus, epoch_batches, settings_json};
use attention_zoo::notebook::{LogLogSeries, plot_loglog};
use attention_zoo::prelude::*;
use candle_core::Error;

/// One size of the table: `d_model`, heads, `d_ff`, layers; about how many target tokens to
/// train on; long sentences or the corpus's own.
pub struct Size {
    pub d_model: usize,
    pub n_heads: usize,
    pub d_ff: usize,
    pub n_layers: usize,
    pub tokens: usize,
    pub long: bool,
}

impl Size {
    /// `D,H,F,L[,TOKENS][,long]`.
    pub fn parse(spec: &str) -> Result<Size> {
        let bad = || Error::Msg(format!("bench: scale=D,H,F,L[,TOKENS][,long], got `{spec}`"));
        let parts: Vec<&str> = spec.split(',').collect();
        let long = parts.last() == Some(&"long");
        let numbers = parts.iter().filter(|p| **p != "long").map(|p| p.parse::<usize>().map_err(|_| bad())).collect::<Result<Vec<_>>>()?;
        let &[d_model, n_heads, d_ff, n_layers, ref rest @ ..] = numbers.as_slice() else { return Err(bad()) };
        let tokens = rest.first().copied().unwrap_or(4_000);
        Ok(Size { d_model, n_heads, d_ff, n_layers, tokens, long })
    }
}

/// Sentences of the long case: this many of the corpus's pairs joined into one pair, which puts
/// sources and targets at 128-256 tokens.
const JOIN: usize = 20;
/// Pairs a batch of the long case holds (the corpus's batches hold 32).
const LONG_BATCH: usize = 8;
/// Decoding: the test sentences decoded (one batch of `translation::decode`), each translation at
/// most `DECODE_MAX_LEN` tokens, as `make bench` decodes.
const DECODE_SENTENCES: usize = 100;

/// `JOIN` consecutive pairs as one: the sources one after the other, the targets' words between
/// one `<sos>` and one `<eos>`.
fn joined(pairs: &[EncodedPair]) -> Vec<EncodedPair> {
    pairs
        .chunks_exact(JOIN)
        .map(|group| {
            let src = group.iter().flat_map(|p| p.0.iter().copied()).collect();
            let words = group.iter().flat_map(|p| p.1[1..p.1.len() - 1].iter().copied());
            let tgt = std::iter::once(SOS_ID).chain(words).chain(std::iter::once(EOS_ID)).collect();
            (src, tgt)
        })
        .collect()
}

fn config(size: &Size, corpus: &Corpus) -> TransformerConfig {
    TransformerConfig {
        d_model: size.d_model,
        n_heads: size.n_heads,
        d_ff: size.d_ff,
        n_layers: size.n_layers,
        max_len: if size.long { 320 } else { 64 },
        ..TransformerConfig::small(corpus.src_vocab, corpus.tgt_vocab)
    }
}

/// The process's peak resident memory so far, in MiB (`VmHWM` of /proc/self/status).
pub fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib =
        status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok());
    kib.unwrap_or(f64::NAN) / 1024.0
}

/// Minor page faults of the process so far (the tenth field of /proc/self/stat).
pub fn page_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // the fields after the command name, which is in parentheses and may hold spaces
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    rest.split_whitespace().nth(7).and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// Seconds on the CLOCK_MONOTONIC clock, which `perf record -k mono` stamps its samples with: the
/// profile of `make bench-scale` keeps the samples between two readings (the training call).
fn monotonic() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
    }
    const CLOCK_MONOTONIC: i32 = 1;
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: clock_gettime writes one timespec (two 64-bit fields on Linux x86_64 and aarch64)
    let ok = unsafe { clock_gettime(CLOCK_MONOTONIC, &mut t) } == 0;
    if ok { t.sec as f64 + t.nsec as f64 * 1e-9 } else { f64::NAN }
}

fn threads() -> usize {
    std::env::var("BENCH_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(2)
}

/// Trains `size` on the first pairs of the corpus (about `size.tokens` target tokens), one pass,
/// notebook 04's recipe (Adam with betas (0.9, 0.98), the warm-up schedule); writes the batches
/// and settings to `path`. Prints one JSON line.
pub fn train(size: &Size, path: &str) -> Result<()> {
    let corpus = corpus()?;
    let cfg = config(size, &corpus);
    let (pairs, batch_size) = if size.long { (joined(&corpus.train), LONG_BATCH) } else { (corpus.train.clone(), 32) };
    let mut count = 0;
    let mut take = 0;
    while take < pairs.len() && count < size.tokens {
        count += pairs[take].1.len() - 1;
        take += 1;
    }
    let (seed, warmup, factor) = (0u64, 400, 0.32);
    let loader = BucketIterator::new(pairs[..take].to_vec(), batch_size, Some(cfg.max_len), seed)?;
    let batches = epoch_batches(&loader, seed);
    let settings = settings_json("transformer", &cfg, (seed, warmup, factor), "", &batches);
    std::fs::write(path, settings).map_err(|e| Error::Msg(format!("{path}: {e}")))?;
    manual_seed(seed as i128)?;
    let model = Transformer::from_config(&cfg)?;
    let parameters: usize = model.parameters().iter().map(|p| p.tensor().elem_count()).sum();
    let optimizer = Adam::with_betas(model.parameters(), 1e-3, (0.9, 0.98), 1e-9)?;
    let mut sbs = StepByStep::with_loaders(model, CrossEntropyLoss::new().ignore_index(0), optimizer, loader, None);
    sbs.schedule = Some(NoamSchedule::new(cfg.d_model, warmup, factor)?);
    sbs.threads = threads();
    sbs.progress_every = 0;
    sbs.set_seed(seed)?;
    let (start, faults_before) = (monotonic(), page_faults());
    sbs.train(1)?;
    let (end, faults) = (monotonic(), page_faults());
    let stats = &sbs.epoch_stats[0];
    println!(
        "{{\"seconds\": {:.4}, \"tokens\": {}, \"loss\": {:.6}, \"parameters\": {parameters}, \"peak_rss_mib\": {:.1}, \"page_faults\": {faults}, \"train_page_faults\": {}, \"train_window\": [{start:.6}, {end:.6}]}}",
        stats.seconds,
        stats.tokens.unwrap_or(0),
        sbs.losses[0],
        peak_rss_mib(),
        faults - faults_before,
    );
    Ok(())
}

/// Greedy decoding (with the KV cache) of the first test sentences by `size`'s model as
/// `manual_seed(0)` and Xavier make it, in one batch, on this thread; writes the sources and the
/// translations to `path`. Prints one JSON line.
pub fn decode(size: &Size, path: &str) -> Result<()> {
    let corpus = corpus()?;
    let cfg = config(size, &corpus);
    let seed = 0u64;
    manual_seed(seed as i128)?;
    let mut model = Transformer::from_config(&cfg)?;
    let test = &corpus.test[..DECODE_SENTENCES.min(corpus.test.len())];
    let greedy = translation::decode(test, |src| greedy_decode(&mut model, src, SOS_ID, EOS_ID, DECODE_MAX_LEN))?;
    let extra = format!("\"decode_max_len\": {DECODE_MAX_LEN}, \"test_src\": {test:?}, \"greedy\": {:?}, ", greedy.outputs);
    let text = settings_json("transformer", &cfg, (seed, 0, 0.0), &extra, &[]);
    std::fs::write(path, text).map_err(|e| Error::Msg(format!("{path}: {e}")))?;
    println!("{{\"seconds\": {:.4}, \"tokens\": {}, \"peak_rss_mib\": {:.1}}}", greedy.seconds, greedy.tokens, peak_rss_mib());
    Ok(())
}

/// `bench scale-plot=RESULTS:SVG`: tokens/s against parameters on log axes, both sides, the
/// sizes of `tools/bench_scale.py`'s table on two threads and on one (the long-sentence case left
/// out: it trains other sentences), drawn by the crate's `plot_loglog`.
pub fn plot(results: &str, svg: &str) -> Result<()> {
    let text = std::fs::read_to_string(results).map_err(|e| Error::Msg(format!("{results}: {e}")))?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| Error::Msg(format!("{results}: {e}")))?;
    let rows: Vec<&serde_json::Value> = json["rows"]
        .as_array()
        .map(|r| r.iter().filter(|r| !r["size"].as_str().unwrap_or("").ends_with("long")).collect())
        .unwrap_or_default();
    let line = |label: &str, key: &str, threads: u64| LogLogSeries {
        label: label.into(),
        points: rows
            .iter()
            .filter(|r| r["threads"] == threads)
            .filter_map(|r| Some((r["parameters"].as_f64()?, r[key].as_f64()?)))
            .collect(),
    };
    let title = format!(
        "Transformer training ({}, {}, {})",
        json["date"].as_str().unwrap_or("?"),
        json["cpu"].as_str().unwrap_or("?"),
        json["vector"].as_str().unwrap_or("?")
    );
    let series = [
        line("attention-zoo, 2 threads", "ours_tok_s", 2),
        line("PyTorch (the faster side), 2 threads", "torch_tok_s", 2),
        line("attention-zoo, 1 thread", "ours_tok_s", 1),
        line("PyTorch (the faster side), 1 thread", "torch_tok_s", 1),
    ];
    let series: Vec<LogLogSeries> = series.into_iter().filter(|s| !s.points.is_empty()).collect();
    let fig = plot_loglog(&title, "parameters", "target tokens per second", &series)?;
    fig.save(svg)
}
