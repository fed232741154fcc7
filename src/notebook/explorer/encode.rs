//! The explorer's data as the script reads it: JSON with each kind's weights in thousandths
//! (`round(w * 1000)`, the three decimals the explorer prints), 10 bits each, packed into a bit
//! stream (value `i` at bit `10 i`, least significant bit first) and written as base64; and an id
//! unique to each output. A 6-layer, 8-head model on 40-token sentences takes about 384 kB.

use super::{Explorer, Neurons};
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};

/// The step between stored weights: a thousandth (a weight is off by half of it at most).
#[cfg(test)]
pub const STEP: f32 = 1e-3;

/// A weight in `[0, 1]` in thousandths.
pub fn quantize(w: f32) -> u16 {
    (w.clamp(0.0, 1.0) * 1000.0).round() as u16
}

/// The weight a number of thousandths stands for (the script's reading, for the tests).
#[cfg(test)]
pub fn dequantize(q: u16) -> f32 {
    q as f32 / 1000.0
}

/// Values below 1024 as a stream of 10-bit fields, least significant bit first, with two
/// bytes to spare at the end (a reader takes three bytes at a time).
pub fn pack10(values: &[u16]) -> Vec<u8> {
    let mut out = vec![0u8; (values.len() * 10).div_ceil(8) + 2];
    for (i, &v) in values.iter().enumerate() {
        let (byte, shift) = (i * 10 / 8, i * 10 % 8);
        let bits = ((v as u32) & 1023) << shift;
        for k in 0..3 {
            out[byte + k] |= (bits >> (8 * k)) as u8;
        }
    }
    out
}

/// The values [`pack10`] packed (the script's reading, for the tests).
#[cfg(test)]
pub fn unpack10(bytes: &[u8], n: usize) -> Vec<u16> {
    (0..n)
        .map(|i| {
            let (byte, shift) = (i * 10 / 8, i * 10 % 8);
            let word = bytes[byte] as u32 | (bytes[byte + 1] as u32) << 8 | (bytes[byte + 2] as u32) << 16;
            ((word >> shift) & 1023) as u16
        })
        .collect()
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// JSON made safe inside a `<script>` element: `<`, `>` and `&` (which JSON leaves as they are,
/// and only inside strings) and the two line separators written as `\u` escapes.
pub fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// f32 values as little-endian bytes in base64 (`-inf` included, as its bit pattern).
fn f32_base64(values: &[f32]) -> String {
    base64(&values.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>())
}

#[derive(Serialize)]
struct Data<'a> {
    title: &'a str,
    decimals: u32,
    bits: u32,
    scale: u32,
    kinds: Vec<KindData<'a>>,
}

#[derive(Serialize)]
struct KindData<'a> {
    name: &'a str,
    rows: &'a [String],
    cols: &'a [String],
    layers: usize,
    heads: usize,
    weights: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    neurons: Option<NeuronData<'a>>,
}

#[derive(Serialize)]
struct NeuronData<'a> {
    score: &'a str,
    dim: usize,
    left: Side<'a>,
    right: Side<'a>,
    dots: String,
    scaling: &'a str,
    scores: String,
    weights: String,
}

#[derive(Serialize)]
struct Side<'a> {
    label: &'a str,
    per_query: bool,
    values: String,
}

fn neuron_data(n: &Neurons) -> NeuronData<'_> {
    NeuronData {
        score: &n.score,
        dim: n.dim,
        left: Side { label: &n.labels.0, per_query: n.left_per_query, values: f32_base64(&n.left) },
        right: Side { label: &n.labels.1, per_query: n.right_per_query, values: f32_base64(&n.right) },
        dots: f32_base64(&n.dots),
        scaling: &n.scaling,
        scores: f32_base64(&n.scores),
        weights: f32_base64(&n.weights),
    }
}

/// The explorer's data as JSON, safe inside a `<script>` element.
pub fn data_json(e: &Explorer) -> candle_core::Result<String> {
    let kinds = e
        .kinds
        .iter()
        .map(|k| KindData {
            name: &k.name,
            rows: &k.rows,
            cols: &k.cols,
            layers: k.layers,
            heads: k.heads,
            weights: base64(&pack10(&k.weights.iter().map(|&w| quantize(w)).collect::<Vec<_>>())),
            neurons: k.neurons.as_ref().map(neuron_data),
        })
        .collect();
    let data = Data { title: &e.title, decimals: 3, bits: 10, scale: 1000, kinds };
    let json = serde_json::to_string(&data).map_err(|e| candle_core::Error::Msg(format!("explore: the explorer's data: {e}")))?;
    Ok(script_safe(&json))
}

/// An id no other output of this process has: evcxr links each cell into a library of its own,
/// and as published with its own copy of any counter, so the clock's nanoseconds are mixed in.
pub fn unique_id() -> String {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    format!("{:x}", nanos.rotate_left(17) ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ std::process::id() as u64)
}
