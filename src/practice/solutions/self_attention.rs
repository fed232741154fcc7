//! The solutions of part 3 (notebooks/exercises/03_self_attention.ipynb), as `q1.solution()` to
//! `q8.solution()` show them. Each compiles in a notebook cell as written, after
//! `use attention_zoo::prelude::*;`.

use crate::prelude::*;

pub fn make_source_mask(source_seq: &Tensor) -> Result<Tensor> {
    // (source_seq != 0).all(axis=2).unsqueeze(1): a point is kept when none of its features is 0
    let nonzero = source_seq.ne(0f32)?;
    nonzero.min(2)?.unsqueeze(1)
}

pub fn make_subsequent_mask(size: usize) -> Result<Tensor> {
    // 1 - triu(ones, diagonal=1): the strict upper triangle is the upper triangle minus the diagonal
    let strict_upper = (Tensor::triu2(size, DType::F32, &Device::Cpu)? - Tensor::eye(size, DType::F32, &Device::Cpu)?)?;
    (1.0 - strict_upper)?.unsqueeze(0)?.to_dtype(DType::U8)
}

pub fn make_shifted_target(full_seq: &Tensor, input_len: usize) -> Result<Tensor> {
    let source_seq = full_seq.i((.., ..input_len))?;
    let target_seq = full_seq.i((.., input_len..))?;
    let target_len = target_seq.dim(1)?;
    Tensor::cat(&[source_seq.i((.., input_len - 1..))?, target_seq.i((.., ..target_len - 1))?], 1)
}

pub fn encoding_table(max_len: usize, d_model: usize) -> Result<Tensor> {
    let position = Tensor::arange(0u32, max_len as u32, &Device::Cpu)?.to_dtype(DType::F32)?.unsqueeze(1)?;
    let angular_speed =
        (Tensor::arange_step(0u32, d_model as u32, 2, &Device::Cpu)?.to_dtype(DType::F32)? * (-(10000f64).ln() / d_model as f64))?.exp()?;
    let angles = position.broadcast_mul(&angular_speed.unsqueeze(0)?)?;
    // sin in the even columns, cos in the odd ones: stacked last, then interleaved
    Tensor::stack(&[angles.sin()?, angles.cos()?], 2)?.flatten_from(1)
}

pub struct MyPositionalEncoding {
    pub d_model: usize,
    pub pe: Tensor,
}

impl MyPositionalEncoding {
    pub fn new(max_len: usize, d_model: usize) -> Result<Self> {
        let pe = positional_encoding_table(max_len, d_model)?.unsqueeze(0)?; // 1, max_len, D
        Ok(MyPositionalEncoding { d_model, pe })
    }

    /// # Shapes
    /// - `x`: `(N, L, D)` with `L <= max_len`; returns `(N, L, D)`
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let l = x.dim(1)?;
        let scaled_x = (x * (self.d_model as f64).sqrt())?;
        scaled_x.broadcast_add(&self.pe.i((.., ..l))?)
    }
}

pub fn encoder_self_attention(encoder: &mut EncoderSelfAttn, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
    // the source is the query, the keys and the values
    encoder.self_attn_heads.init_keys(query)?;
    let att = encoder.self_attn_heads.forward(query, mask)?;
    encoder.ffn.forward(&att)
}

pub fn decoder_self_attention(
    decoder: &mut DecoderSelfAttn,
    query: &Tensor,
    source_mask: Option<&Tensor>,
    target_mask: Option<&Tensor>,
) -> Result<Tensor> {
    decoder.self_attn_heads.init_keys(query)?;
    let att1 = decoder.self_attn_heads.forward(query, target_mask)?;
    let att2 = decoder.cross_attn_heads.forward(&att1, source_mask)?;
    decoder.ffn.forward(&att2)
}

pub fn predict_steps(model: &mut EncoderDecoderSelfAttn, x: &Tensor, source_mask: Option<&Tensor>) -> Result<Tensor> {
    let source_seq = x.i((.., ..model.input_len))?;
    model.encode(&source_seq, source_mask)?;
    let mut inputs = source_seq.i((.., model.input_len - 1..))?;
    for i in 0..model.target_len {
        let trg_masks = model.trg_masks.i((.., ..i + 1, ..i + 1))?;
        let out = model.decode(&inputs, source_mask, Some(&trg_masks))?;
        let out = Tensor::cat(&[inputs, out.i((.., i..i + 1))?], 1)?;
        inputs = out.detach();
    }
    inputs.i((.., 1..))
}
