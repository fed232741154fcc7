//! The explorer's data as the script reads it: JSON with each kind's weights in thousandths
//! (`round(w * 1000)`, the three decimals the explorer prints), 10 bits each, packed into a bit
//! stream (value `i` at bit `10 i`, least significant bit first) and written as base64; and an id
//! unique to each output. A 6-layer, 8-head model on 40-token sentences takes about 384 kB.

use super::Explorer;
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

/// A JSON string, safe inside a `<script>` element (`<`, `>` and `&` escaped too).
pub fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_list(items: &[String]) -> String {
    format!("[{}]", items.iter().map(|s| json_string(s)).collect::<Vec<_>>().join(","))
}

/// The explorer's data as JSON.
pub fn data_json(e: &Explorer) -> String {
    let kinds: Vec<String> = e
        .kinds
        .iter()
        .map(|k| {
            let bytes = pack10(&k.weights.iter().map(|&w| quantize(w)).collect::<Vec<_>>());
            format!(
                "{{\"name\":{},\"rows\":{},\"cols\":{},\"layers\":{},\"heads\":{},\"weights\":\"{}\"}}",
                json_string(&k.name),
                json_list(&k.rows),
                json_list(&k.cols),
                k.layers,
                k.heads,
                base64(&bytes)
            )
        })
        .collect();
    format!("{{\"title\":{},\"decimals\":3,\"bits\":10,\"scale\":1000,\"kinds\":[{}]}}", json_string(&e.title), kinds.join(","))
}

/// An id no other output of this process has: evcxr links each cell into a library of its own
/// (with its own copy of any counter), so the clock's nanoseconds are mixed in.
pub fn unique_id() -> String {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    format!("{:x}", nanos.rotate_left(17) ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ std::process::id() as u64)
}
