//! `bench products=THREADS:PATH`: the wide layers' matrix products of one epoch of a `scale=` run
//! (PATH is the settings file that run wrote), timed alone. Each batch is split into `THREADS`
//! parts as the data-parallel step splits it, and each part runs on a thread of its own the
//! products of every linear layer the Transformer has (each attention's four, the feed-forward
//! pair, the output layer): forward (from the transposed copy where the step makes one, else
//! through the view), then the input's and the weight's gradients, through gemm with the arguments
//! `nn/fused/dense.rs` passes. Every layer has weights of its own, so the working set is the
//! model's; the activations and results are made before the clock starts, one set a thread. What
//! is left out is everything else a step does: the time a step's products take on their own.

use candle_core::{Error, Result};
use std::time::Instant;

/// One wide layer's products on a part of a batch: rows, inputs, outputs.
type Product = (usize, usize, usize);

/// The products of one part of a batch: `sentences` sentences, sources padded to `ls` tokens,
/// decoder inputs to `lt`, in the model's order (encoder layers, decoder layers, output layer).
fn step_products(sentences: usize, ls: usize, lt: usize, cfg: &Cfg) -> Vec<Product> {
    let (d, f) = (cfg.d_model, cfg.d_ff);
    let (enc, dec) = (sentences * ls, sentences * lt);
    let mut out = vec![];
    for _ in 0..cfg.n_layers {
        out.extend([(enc, d, d); 4]);
        out.extend([(enc, d, f), (enc, f, d)]);
    }
    for _ in 0..cfg.n_layers {
        out.extend([(dec, d, d); 4]); // self-attention
        out.extend([(dec, d, d), (enc, d, d), (enc, d, d), (dec, d, d)]); // cross-attention
        out.extend([(dec, d, f), (dec, f, d)]);
    }
    out.push((dec, d, cfg.tgt_vocab));
    out
}

struct Cfg {
    d_model: usize,
    d_ff: usize,
    n_layers: usize,
    tgt_vocab: usize,
}

/// The fewest values a weight has for the training step to copy it transposed
/// (`nn/fused/transposed.rs`'s `COPY_MIN_VALUES`); a smaller one is read through a view.
const COPY_MIN_VALUES: usize = 1 << 18;

/// A layer's weight `W (n_out, n_in)` and, when the step copies it, its transposed copy.
struct Weight {
    w: Vec<f32>,
    wt: Option<Vec<f32>>,
}

fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7919 + seed * 104_729) % 2001) as f32 * 1e-3 - 1.0).collect()
}

/// `dst (m, n) = lhs (m, k) @ rhs (k, n)`, strides `(rs, cs)` each, as `dense.rs`'s `product_raw`
/// calls gemm (no accumulation, one thread: the bench's parts run one on each thread).
fn product(m: usize, n: usize, k: usize, dst: &mut [f32], d: (usize, usize), lhs: (&[f32], usize, usize), rhs: (&[f32], usize, usize)) {
    assert!(dst.len() >= m * n && lhs.0.len() >= m * k && rhs.0.len() >= k * n);
    // SAFETY: each operand holds the (rows, cols) matrix its strides describe (asserted above for
    // the contiguous layouts this file passes), and `dst` is written only inside itself.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            d.1 as isize,
            d.0 as isize,
            false,
            lhs.0.as_ptr(),
            lhs.2 as isize,
            lhs.1 as isize,
            rhs.0.as_ptr(),
            rhs.2 as isize,
            rhs.1 as isize,
            0.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        )
    }
}

/// A thread's operands and results, made before the clock starts and reused by every product: the
/// activations `x`, the output's gradient `g`, and the three results.
struct Buffers {
    x: Vec<f32>,
    g: Vec<f32>,
    y: Vec<f32>,
    dx: Vec<f32>,
    dw: Vec<f32>,
}

impl Buffers {
    /// Room for every product of `parts` (the largest rows and widths among them).
    fn for_products<'a>(parts: impl Iterator<Item = &'a Product>) -> Self {
        let (mut rows, mut width, mut weight) = (0, 0, 0);
        for &(r, n_in, n_out) in parts {
            (rows, width, weight) = (rows.max(r), width.max(n_in.max(n_out)), weight.max(n_in * n_out));
        }
        Buffers {
            x: values(rows * width, 1),
            g: values(rows * width, 2),
            y: vec![0.0; rows * width],
            dx: vec![0.0; rows * width],
            dw: vec![0.0; weight],
        }
    }
}

/// One part's forward and backward products, each layer with its own weight; returns the FLOPs.
fn run_part(products: &[Product], weights: &[Weight], b: &mut Buffers) -> f64 {
    let mut flops = 0.0;
    for (&(rows, n_in, n_out), wt) in products.iter().zip(weights) {
        let (x, g, y, dx, dw) = (&b.x, &b.g, &mut b.y, &mut b.dx, &mut b.dw);
        // `W^T` from the copy (rows), or as a view of `W`
        let rhs = wt.wt.as_ref().map_or((wt.w.as_slice(), 1, n_in), |t| (t.as_slice(), n_out, 1));
        product(rows, n_out, n_in, y, (n_out, 1), (x, n_in, 1), rhs);
        product(rows, n_in, n_out, dx, (n_in, 1), (g, n_out, 1), (&wt.w, n_in, 1));
        product(n_in, n_out, rows, dw, (1, n_in), (x, 1, n_in), (g, n_out, 1));
        flops += 6.0 * (rows * n_in * n_out) as f64;
    }
    flops
}

/// Times the products of every batch in `path`, split over `threads` threads; prints one JSON line.
pub fn products(threads: usize, path: &str) -> Result<()> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Msg(format!("{path}: {e}")))?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| Error::Msg(format!("{path}: {e}")))?;
    let field = |k: &str| json[k].as_u64().map(|v| v as usize).ok_or_else(|| Error::Msg(format!("{path}: no `{k}`")));
    let cfg = Cfg { d_model: field("d_model")?, d_ff: field("d_ff")?, n_layers: field("n_layers")?, tgt_vocab: field("tgt_vocab")? };
    let batches = json["batches"].as_array().ok_or_else(|| Error::Msg(format!("{path}: no batches")))?;
    let parts: Vec<Vec<Vec<Product>>> = batches
        .iter()
        .map(|b| {
            let (src, tgt) = (b["src"].as_array(), b["tgt"].as_array());
            let (Some(src), Some(tgt)) = (src, tgt) else { return vec![] };
            // the batch padded to its longest sentence, as the training pads it before it splits it
            let longest = |side: &[serde_json::Value]| side.iter().map(|v| v.as_array().map_or(0, Vec::len)).max().unwrap_or(0);
            let (ls, lt) = (longest(src), longest(tgt).saturating_sub(1));
            // the data-parallel step's parts, as `train/parallel.rs`'s `split_rows` makes them: as
            // even as can be, none empty
            let n = src.len();
            (0..threads.min(n)).map(|k| step_products(n / threads.min(n) + usize::from(k < n % threads.min(n)), ls, lt, &cfg)).collect()
        })
        .collect();
    let Some(layers) = parts.iter().flatten().next() else { return Err(Error::Msg(format!("{path}: no batch"))) };
    let weights: Vec<Weight> = layers
        .iter()
        .enumerate()
        .map(|(k, &(_, n_in, n_out))| Weight {
            w: values(n_out * n_in, k),
            wt: (n_out * n_in >= COPY_MIN_VALUES).then(|| values(n_in * n_out, k + 1)),
        })
        .collect();
    let mut buffers: Vec<Buffers> = (0..threads).map(|_| Buffers::for_products(parts.iter().flatten().flatten())).collect();
    let weights = &weights;
    let mut epoch = || -> f64 {
        let mut flops = 0.0;
        for batch in &parts {
            flops += std::thread::scope(|s| {
                let handles: Vec<_> =
                    batch.iter().zip(buffers.iter_mut()).map(|(part, b)| s.spawn(move || run_part(part, weights, b))).collect();
                handles.into_iter().map(|h| h.join().unwrap_or(f64::NAN)).sum::<f64>()
            });
        }
        flops
    };
    epoch(); // warm: the weights faulted in, the allocator's pools grown
    let (mut best, mut flops) = (f64::INFINITY, 0.0);
    for _ in 0..3 {
        let start = Instant::now();
        flops = epoch();
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!("{{\"threads\": {threads}, \"seconds\": {best:.4}, \"gflop\": {:.3}, \"gflops\": {:.2}}}", flops / 1e9, flops / best / 1e9);
    Ok(())
}
