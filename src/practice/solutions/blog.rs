//! The solutions of part 5, the blog post's attention layers (notebooks/exercises/05_attention_layers.ipynb),
//! as `q1.solution()` to `q8.solution()` show them. Each compiles in a notebook cell as written,
//! after `use attention_zoo::prelude::*;`.

use crate::prelude::*;

pub fn attention_layer_forward(layer: &AttentionLayer, query: &Tensor, key: &Tensor, value: &Tensor) -> Result<Tensor> {
    let scores = layer.query.forward(query)?.matmul(&layer.key.forward(key)?.t()?.contiguous()?)?;
    let attention_weights = softmax(&scores)?;
    attention_weights.matmul(&layer.value.forward(value)?)
}

pub fn lstm_cell_step(
    x: &Tensor,
    h: &Tensor,
    c: &Tensor,
    weight_ih: &Tensor,
    weight_hh: &Tensor,
    bias_ih: &Tensor,
    bias_hh: &Tensor,
) -> Result<(Tensor, Tensor)> {
    let gates_x = x.matmul(&weight_ih.t()?)?.broadcast_add(bias_ih)?;
    let gates_h = h.matmul(&weight_hh.t()?)?.broadcast_add(bias_hh)?;
    let gates = (gates_x + gates_h)?.chunk(4, 1)?;
    // PyTorch's order: input, forget, cell candidate, output
    let i = candle_nn::ops::sigmoid(&gates[0])?;
    let f = candle_nn::ops::sigmoid(&gates[1])?;
    let g = gates[2].tanh()?;
    let o = candle_nn::ops::sigmoid(&gates[3])?;
    let c_next = ((f * c)? + (i * g)?)?;
    let h_next = (o * c_next.tanh()?)?;
    Ok((h_next, c_next))
}

pub fn vectorised_attention(mha: &VectorisedMultiHeadAttention, query: &Tensor, key: &Tensor, value: &Tensor) -> Result<Tensor> {
    let split_heads = |x: &Tensor| -> Result<Tensor> {
        let (n, l, _) = x.dims3()?;
        x.reshape((n, l, mha.n_heads, mha.d_k))?.permute((0, 2, 1, 3))?.contiguous()
    };
    let q = split_heads(&mha.query.forward(query)?)?;
    let k = split_heads(&mha.key.forward(key)?)?;
    let v = split_heads(&mha.value.forward(value)?)?;
    let scores = (q.matmul(&k.t()?.contiguous()?)? / (mha.d_k as f64).sqrt())?;
    let attention_weights = softmax(&scores)?;
    let attended_values = attention_weights.matmul(&v)?;
    let (n, lq, _) = query.dims3()?;
    let attended_values = attended_values.permute((0, 2, 1, 3))?.contiguous()?.reshape((n, lq, mha.d_model))?;
    mha.output.forward(&attended_values)
}

pub fn bidirectional_outputs(forward_lstm: &Lstm, backward_lstm: &Lstm, x: &Tensor) -> Result<Tensor> {
    let (forward_out, _) = forward_lstm.forward(x, None)?;
    let (backward_out, _) = backward_lstm.forward(&reverse_time(x)?, None)?;
    let backward_out = reverse_time(&backward_out)?;
    Tensor::cat(&[forward_out, backward_out], 2)
}

pub fn key_padding_mask(ids: &Tensor, pad_id: u32) -> Result<Tensor> {
    ids.eq(pad_id)
}

pub fn masked_cross_entropy(logits: &Tensor, targets: &Tensor, pad_id: u32) -> Result<Tensor> {
    let log_probs = candle_nn::ops::log_softmax(logits, D::Minus1)?;
    let picked = log_probs.gather(&targets.unsqueeze(D::Minus1)?, D::Minus1)?.squeeze(D::Minus1)?;
    let keep = targets.ne(pad_id)?.to_dtype(DType::F32)?;
    let total = (picked * &keep)?.sum_all()?.neg()?;
    total / keep.sum_all()?
}

pub fn teacher_forcing_targets(tgt: &Tensor) -> Result<(Tensor, Tensor)> {
    let t = tgt.dim(1)?;
    let decoder_input = tgt.i((.., ..t - 1))?;
    let decoder_target = tgt.i((.., 1..))?;
    Ok((decoder_input, decoder_target))
}

pub fn encoder_block_forward(block: &TransformerEncoderBlock, x: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
    let attended = block.attention.forward(x, x, x, mask)?.output;
    let x = (x + attended)?;
    let ffn = block.ffn_out.forward(&block.ffn_in.forward(&x)?.relu()?)?;
    x + ffn
}
