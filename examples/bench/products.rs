//! `bench products=THREADS:PATH`: the wide layers' matrix products of one epoch of a `scale=` run
//! (PATH is the settings file that run wrote), timed alone. Each batch is split into `THREADS`
//! parts as the data-parallel step splits it, and each part runs on a thread of its own the
//! products of every linear layer the Transformer has (each attention's four, the feed-forward
//! pair, the output layer): forward (from the transposed copy where the step makes one, else
//! through the view), then the input's and the weight's gradients, through gemm with the arguments
//! `nn/fused/dense.rs` passes. Every layer has weights of its own, so the working set is the
//! model's; the activations and results are made before the clock starts, one set a thread. What
//! is left out is everything else a step does: the time a step's products take on their own.
//!
//! The same epoch is then timed again with the padding rows left out of every product (the real
//! rows gathered into a buffer of their own, the results spread back with the padding rows
//! zero-filled, the copies inside the clock): what skipping the padding could save at most, with
//! the cheapest way to do it that keeps gemm's calls whole. The two are timed alternately.

use candle_core::{Error, Result};
use std::time::Instant;

/// One wide layer's products on a part of a batch: rows, inputs, outputs.
type Product = (usize, usize, usize);

/// The side of the batch whose rows a product reads: the sources or the decoder inputs.
#[derive(Clone, Copy)]
enum Side {
    Source,
    Target,
}

/// One part of a batch: its products in the model's order (encoder layers, decoder layers, output
/// layer), each with the side it reads, and each side's real rows.
struct Part {
    products: Vec<(Product, Side)>,
    source: Runs,
    target: Runs,
}

impl Part {
    /// The part of `src` and `tgt` lengths (one a sentence), sources padded to `ls` tokens and
    /// decoder inputs to `lt`.
    fn new(src: &[usize], tgt: &[usize], ls: usize, lt: usize, cfg: &Cfg) -> Self {
        let (d, f) = (cfg.d_model, cfg.d_ff);
        let (enc, dec) = (src.len() * ls, tgt.len() * lt);
        let (e, t) = (Side::Source, Side::Target);
        let mut products = vec![];
        for _ in 0..cfg.n_layers {
            products.extend([((enc, d, d), e); 4]);
            products.extend([((enc, d, f), e), ((enc, f, d), e)]);
        }
        for _ in 0..cfg.n_layers {
            products.extend([((dec, d, d), t); 4]); // self-attention
            products.extend([((dec, d, d), t), ((enc, d, d), e), ((enc, d, d), e), ((dec, d, d), t)]); // cross-attention
            products.extend([((dec, d, f), t), ((dec, f, d), t)]);
        }
        products.push(((dec, d, cfg.tgt_vocab), t));
        let runs = |lens: &[usize], l: usize| -> Runs { lens.iter().enumerate().map(|(s, &len)| (s * l, len.min(l))).collect() };
        Part { products, source: runs(src, ls), target: runs(tgt, lt) }
    }

    /// The real rows of the side a product reads.
    fn runs(&self, side: Side) -> &Runs {
        match side {
            Side::Source => &self.source,
            Side::Target => &self.target,
        }
    }

    /// The FLOPs of the padding rows in the first `layers` products.
    fn padding_flops(&self, layers: usize) -> f64 {
        let padding = |&((rows, n_in, n_out), side): &(Product, Side)| 6.0 * ((rows - real_rows(self.runs(side))) * n_in * n_out) as f64;
        self.products.iter().take(layers).map(padding).sum()
    }
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

impl Weight {
    /// `W^T (n_in, n_out)` as the forward product reads it, with its strides: from the copy (rows),
    /// or as a view of `W`.
    fn transposed(&self, n_in: usize, n_out: usize) -> (&[f32], usize, usize) {
        self.wt.as_ref().map_or((self.w.as_slice(), 1, n_in), |t| (t.as_slice(), n_out, 1))
    }
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
    xc: Vec<f32>,
    gc: Vec<f32>,
    out: Vec<f32>,
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
            xc: vec![0.0; rows * width],
            gc: vec![0.0; rows * width],
            out: vec![0.0; rows * width],
        }
    }
}

/// One part's forward and backward products, each layer with its own weight; returns the FLOPs.
fn run_part(part: &Part, weights: &[Weight], b: &mut Buffers) -> f64 {
    let mut flops = 0.0;
    for (&((rows, n_in, n_out), _), wt) in part.products.iter().zip(weights) {
        let (x, g, y, dx, dw) = (&b.x, &b.g, &mut b.y, &mut b.dx, &mut b.dw);
        product(rows, n_out, n_in, y, (n_out, 1), (x, n_in, 1), wt.transposed(n_in, n_out));
        product(rows, n_in, n_out, dx, (n_in, 1), (g, n_out, 1), (&wt.w, n_in, 1));
        product(n_in, n_out, rows, dw, (1, n_in), (x, 1, n_in), (g, n_out, 1));
        flops += 6.0 * (rows * n_in * n_out) as f64;
    }
    flops
}

/// The real rows of a part's padded layout: `(start, len)` runs, one a sentence.
type Runs = Vec<(usize, usize)>;

/// How many real rows `runs` hold.
fn real_rows(runs: &Runs) -> usize {
    runs.iter().map(|r| r.1).sum()
}

/// Copies the runs of `src` (rows of `width`) into the front of `dst`, one after another.
fn gather(src: &[f32], runs: &Runs, width: usize, dst: &mut [f32]) {
    let mut at = 0;
    for &(start, len) in runs {
        dst[at..at + len * width].copy_from_slice(&src[start * width..(start + len) * width]);
        at += len * width;
    }
}

/// Spreads the front of `src` (the runs one after another) back to the runs' places in `dst`,
/// and zero-fills the rows between them (`rows` in all).
fn scatter(src: &[f32], runs: &Runs, width: usize, rows: usize, dst: &mut [f32]) {
    let (mut at, mut row) = (0, 0);
    for &(start, len) in runs {
        dst[row * width..start * width].fill(0.0);
        dst[start * width..(start + len) * width].copy_from_slice(&src[at..at + len * width]);
        (at, row) = (at + len * width, start + len);
    }
    dst[row * width..rows * width].fill(0.0);
}

/// [`run_part`] with the padding rows left out: each product runs on the real rows alone,
/// gathered into a buffer of their own, and its rows spread back (the padding rows zero-filled),
/// the copies inside the clock. Returns the FLOPs of the padded products, as `run_part`'s, so
/// that the two rates compare times.
fn run_part_skipping(part: &Part, weights: &[Weight], b: &mut Buffers) -> f64 {
    let mut flops = 0.0;
    for (&((rows, n_in, n_out), side), wt) in part.products.iter().zip(weights) {
        let runs = part.runs(side);
        let real = real_rows(runs);
        let (x, g, y, dx, dw) = (&b.x, &b.g, &mut b.y, &mut b.dx, &mut b.dw);
        let (xc, gc, out) = (&mut b.xc, &mut b.gc, &mut b.out);
        gather(x, runs, n_in, xc);
        product(real, n_out, n_in, out, (n_out, 1), (xc, n_in, 1), wt.transposed(n_in, n_out));
        scatter(out, runs, n_out, rows, y);
        // backward: the activations gathered again (the node keeps the padded input), the gradient
        gather(x, runs, n_in, xc);
        gather(g, runs, n_out, gc);
        product(real, n_in, n_out, out, (n_in, 1), (gc, n_out, 1), (&wt.w, n_in, 1));
        scatter(out, runs, n_in, rows, dx);
        product(n_in, n_out, real, dw, (1, n_in), (xc, 1, n_in), (gc, n_out, 1));
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
    let parts: Vec<Vec<Part>> = batches
        .iter()
        .map(|b| {
            let (src, tgt) = (b["src"].as_array(), b["tgt"].as_array());
            let (Some(src), Some(tgt)) = (src, tgt) else { return vec![] };
            // the batch padded to its longest sentence, as the training pads it before it splits it
            let longest = |side: &[serde_json::Value]| side.iter().map(|v| v.as_array().map_or(0, Vec::len)).max().unwrap_or(0);
            let (ls, lt) = (longest(src), longest(tgt).saturating_sub(1));
            // the data-parallel step's parts, as `train/parallel.rs`'s `split_rows` makes them: as
            // even as can be, none empty
            let lens = |side: &[serde_json::Value], less: usize| -> Vec<usize> {
                side.iter().map(|v| v.as_array().map_or(0, Vec::len).saturating_sub(less)).collect()
            };
            let (src, tgt) = (lens(src, 0), lens(tgt, 1));
            let (n, mut start) = (src.len(), 0);
            let count = threads.min(n);
            (0..count)
                .map(|k| {
                    let len = n / count + usize::from(k < n % count);
                    start += len;
                    Part::new(&src[start - len..start], &tgt[start - len..start], ls, lt, &cfg)
                })
                .collect()
        })
        .collect();
    let Some(first) = parts.iter().flatten().next() else { return Err(Error::Msg(format!("{path}: no batch"))) };
    let weights: Vec<Weight> = first
        .products
        .iter()
        .enumerate()
        .map(|(k, &((_, n_in, n_out), _))| Weight {
            w: values(n_out * n_in, k),
            wt: (n_out * n_in >= COPY_MIN_VALUES).then(|| values(n_in * n_out, k + 1)),
        })
        .collect();
    let mut buffers: Vec<Buffers> = (0..threads)
        .map(|_| Buffers::for_products(parts.iter().flatten().flat_map(|p| p.products.iter().map(|(product, _)| product))))
        .collect();
    let weights = &weights;
    let mut epoch = |skip: bool| -> f64 {
        let mut flops = 0.0;
        for batch in &parts {
            flops += std::thread::scope(|s| {
                let handles: Vec<_> = batch
                    .iter()
                    .zip(buffers.iter_mut())
                    .map(|(part, b)| s.spawn(move || if skip { run_part_skipping(part, weights, b) } else { run_part(part, weights, b) }))
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap_or(f64::NAN)).sum::<f64>()
            });
        }
        flops
    };
    epoch(false); // warm: the weights faulted in, the allocator's pools grown
    epoch(true);
    let (mut best, mut best_skip, mut flops) = (f64::INFINITY, f64::INFINITY, 0.0);
    for _ in 0..3 {
        let start = Instant::now();
        flops = epoch(false);
        best = best.min(start.elapsed().as_secs_f64());
        let start = Instant::now();
        epoch(true);
        best_skip = best_skip.min(start.elapsed().as_secs_f64());
    }
    // the padding rows' FLOPs: of every product, and of the encoder's layers (each layer's first six)
    let padding = |layers: usize| -> f64 { parts.iter().flatten().map(|p| p.padding_flops(layers)).sum() };
    let (padded, encoder) = (padding(usize::MAX), padding(6 * cfg.n_layers));
    println!(
        "{{\"threads\": {threads}, \"seconds\": {best:.4}, \"gflop\": {:.3}, \"gflops\": {:.2}, \"padding_share\": {:.4}, \"encoder_padding_share\": {:.4}, \"skipping_seconds\": {best_skip:.4}}}",
        flops / 1e9,
        flops / best / 1e9,
        padded / flops,
        encoder / flops
    );
    Ok(())
}
