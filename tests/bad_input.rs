//! The crate under bad input: no panic reachable from the public API, wrong input refused rather
//! than guessed, and errors that name the public module with what it expected and what it got.
//! Each case here panicked, was silently accepted, or gave an anonymous error before.

use crate::common;

use attention_zoo::attention::{cosine_products, scaled_dot_products};
use attention_zoo::prelude::*;
use attention_zoo::repro;

fn zeros<S: Into<candle_core::Shape>>(shape: S) -> Tensor {
    Tensor::zeros(shape, DType::F32, &Device::Cpu).unwrap()
}

fn ints<S: Into<candle_core::Shape>>(shape: S) -> Tensor {
    Tensor::zeros(shape, DType::I64, &Device::Cpu).unwrap()
}

/// Runs `f`, which must return an error (not panic) whose text holds every needle.
fn refused<T: std::fmt::Debug>(what: &str, f: impl FnOnce() -> Result<T>, needles: &[&str]) {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let Ok(result) = outcome else { panic!("{what}: panicked instead of returning an error") };
    let e = result.expect_err(what).to_string();
    for n in needles {
        assert!(e.contains(n), "{what}: expected `{n}` in the error: {e}");
    }
}

#[test]
fn ranks_and_empty_sequences_give_errors_not_panics() {
    let _serial = common::serial();
    let scalar = Tensor::new(1f32, &Device::Cpu).unwrap();
    refused("scaled dot products of a scalar query", || scaled_dot_products(&scalar, &zeros((1, 2, 2))), &["scaled_dot_products"]);
    refused("calc_alphas of a scalar query", || calc_alphas(&zeros((1, 2, 2)), &scalar), &["scaled_dot_products"]);
    refused("cosine of a scalar", || cosine_products(&scalar, &scalar), &["cosine_products"]);
    refused("softmax of a scalar", || softmax(&scalar), &["softmax", "scalar"]);
    manual_seed(1).unwrap();
    let mut attn = Attention::new(2, None, false).unwrap();
    attn.init_keys(&zeros((1, 3, 2))).unwrap();
    refused("Attention of a scalar query", || attn.forward(&scalar, None), &["Attention", "[]"]);
    let enc = EncoderSelfAttn::new(1, 2, 4, None).unwrap();
    let dec = DecoderSelfAttn::new(1, 2, 4, None).unwrap();
    let mut model = EncoderDecoderSelfAttn::new(enc, dec, 2, 2).unwrap();
    model.encode(&zeros((1, 2, 2)), None).unwrap();
    refused("predict from an empty source", || model.predict(&zeros((1, 0, 2)), None), &["predict", "L > 0", "[1, 0, 2]"]);
    refused("uniform_alphas of a matrix", || uniform_alphas(&zeros((2, 2))), &["uniform_alphas", "[2, 2]"]);
}

#[test]
fn integer_dtypes_are_refused_before_candle_sees_them() {
    let _serial = common::serial();
    manual_seed(1).unwrap();
    let x = ints((2, 3, 2));
    refused("Linear", || Linear::new(2, 2).unwrap().forward(&x), &["Linear", "I64"]);
    refused("LayerNorm", || LayerNorm::new(2).unwrap().forward(&x), &["LayerNorm", "I64"]);
    refused("GRU", || Gru::new(2, 2).unwrap().forward(&x, None), &["GRU", "I64"]);
    refused("Encoder", || Encoder::new(2, 2).unwrap().forward(&x), &["Encoder", "I64"]);
    refused("softmax", || softmax(&x), &["softmax", "I64"]);
    refused("dot products", || dot_products(&x, &x), &["dot_products", "I64"]);
    refused("MSELoss", || MSELoss.loss(&x, &x), &["MSELoss", "I64"]);
    refused("source_mask", || source_mask(&x), &["source_mask", "I64"]);
}

#[test]
fn overflowing_sizes_are_errors_not_aborts() {
    let _serial = common::serial();
    manual_seed(1).unwrap();
    refused("MultiHeadAttention n_heads * d_model", || MultiHeadAttention::new(usize::MAX, 2, None, false), &["MultiHeadAttention"]);
    refused("Linear(usize::MAX, 2)", || Linear::new(usize::MAX, 2), &["Linear", "too large"]);
    refused("Embedding 2^40 x 2^40", || Embedding::new(1 << 40, 1 << 40), &["Embedding", "too large"]);
    refused("LayerNorm(usize::MAX)", || LayerNorm::new(usize::MAX), &["LayerNorm", "too large"]);
    refused("Gru(usize::MAX, 3)", || Gru::new(usize::MAX, 3), &["GRU", "too large"]);
    refused("Lstm(3, usize::MAX / 2)", || Lstm::new(3, usize::MAX / 2), &["LSTM", "too large"]);
    refused("subsequent_mask(2^20)", || subsequent_mask(1 << 20), &["subsequent_mask", "too large"]);
    refused("positional table", || positional_encoding_table(usize::MAX, 2), &["PositionalEncoding", "too large"]);
    refused("rand of 2^40 x 2^40", || repro::rand((1usize << 40, 1usize << 40)), &["repro::rand", "too large"]);
    refused("generate_sequences(usize::MAX)", || generate_sequences(usize::MAX, false, 1), &["generate_sequences", "too many"]);
    refused("numpy randn(usize::MAX)", || RandomState::new(1).unwrap().randn(usize::MAX), &["numpy::randn", "too many"]);
}

#[test]
fn randint_covers_the_full_i64_range() {
    let mut rs = RandomState::new(5).unwrap();
    for _ in 0..100 {
        rs.randint_one(i64::MIN, i64::MAX).unwrap();
    }
    let v = rs.randint_one(-5, -4).unwrap();
    assert_eq!(v, -5);
    let wide: Vec<i64> = (0..200).map(|_| rs.randint_one(0, 1 << 40).unwrap()).collect();
    assert!(wide.iter().all(|v| (0..1 << 40).contains(v)) && wide.iter().any(|v| *v > 1 << 33), "64-bit draws cover the range");
    refused("randint with low >= high", || rs.randint_one(3, 3), &["randint", "low < high"]);
}

#[test]
fn loaders_keep_a_positive_batch_size() {
    let data = TensorDataset::new(&zeros((4, 2)), &zeros((4, 1))).unwrap();
    refused("DataLoader with batch size 0", || DataLoader::new(data.clone(), 0), &["DataLoader", "batch_size"]);
    let loader = DataLoader::new(data, 3).unwrap();
    assert_eq!((loader.batch_size(), loader.len()), (3, 2));
    refused("a dataset of scalars", || TensorDataset::new(&Tensor::new(1f32, &Device::Cpu).unwrap(), &zeros(1)), &["TensorDataset"]);
}

#[test]
fn wrong_input_is_refused_not_guessed() {
    let _serial = common::serial();
    // Batch dims that differ although their products agree (candle compares only the product).
    let alphas = zeros((2, 3, 1, 4));
    let values = zeros((3, 2, 4, 5));
    refused(
        "context vector over other batch dims",
        || context_vector(&alphas, &values),
        &["context_vector", "[2, 3, 1, 4]", "[3, 2, 4, 5]"],
    );
    // Embedding ids: negative, fractional, NaN, out of range.
    manual_seed(1).unwrap();
    let emb = Embedding::new(5, 2).unwrap();
    refused("a negative id", || emb.forward(&Tensor::new(&[1i64, -1], &Device::Cpu).unwrap()), &["Embedding", "-1"]);
    refused("a fractional id", || emb.forward(&Tensor::new(&[1.5f32], &Device::Cpu).unwrap()), &["Embedding", "1.5"]);
    refused("a NaN id", || emb.forward(&Tensor::new(&[f32::NAN], &Device::Cpu).unwrap()), &["Embedding", "NaN"]);
    refused("an id out of range", || emb.forward(&Tensor::new(&[5u32], &Device::Cpu).unwrap()), &["Embedding", "[0, 5)"]);
    assert_eq!(emb.forward(&Tensor::new(&[[4u8, 0]], &Device::Cpu).unwrap()).unwrap().dims(), &[1, 2, 2]);
    // A decoder step of more than one position.
    let mut dec = Decoder::new(2, 2).unwrap();
    dec.init_hidden(&zeros((1, 3, 2))).unwrap();
    refused("a two-step decoder input", || dec.forward(&zeros((1, 2, 2))), &["Decoder", "one step", "[1, 2, 2]"]);
    // Teacher forcing probabilities outside [0, 1].
    let make = |p: f64| EncoderDecoder::new(Encoder::new(2, 2).unwrap(), Decoder::new(2, 2).unwrap(), 2, 2, p);
    refused("teacher forcing 1.5", || make(1.5), &["teacher_forcing_prob", "1.5"]);
    refused("teacher forcing NaN", || make(f64::NAN), &["teacher_forcing_prob", "NaN"]);
    let mut model = make(0.5).unwrap();
    model.teacher_forcing_prob = -0.1;
    refused("teacher forcing set to -0.1", || model.forward(&zeros((1, 4, 2))), &["EncoderDecoder", "-0.1"]);
    // An encoder and a decoder of different d_model.
    let enc = EncoderSelfAttn::new(1, 4, 4, Some(2)).unwrap();
    let dec = DecoderSelfAttn::new(1, 2, 4, Some(2)).unwrap();
    refused("d_model 4 against 2", || EncoderDecoderSelfAttn::new(enc, dec, 2, 2), &["EncoderDecoderSelfAttn", "d_model 4", "d_model 2"]);
    // A loss over empty tensors.
    refused("MSE of nothing", || MSELoss.loss(&zeros((0, 2)), &zeros((0, 2))), &["MSELoss", "empty"]);
}

#[test]
fn errors_from_inner_layers_name_the_module_called() {
    let _serial = common::serial();
    manual_seed(1).unwrap();
    let enc = EncoderSelfAttn::new(1, 2, 4, None).unwrap();
    let dec = DecoderSelfAttn::new(1, 2, 4, None).unwrap();
    let mut model = EncoderDecoderSelfAttn::new(enc, dec, 2, 2).unwrap();
    refused("a batch of 3 features", || model.forward(&zeros((1, 4, 3))), &["EncoderDecoderSelfAttn", "EncoderSelfAttn", "[1, 2, 3]"]);
    let mut mha = MultiHeadAttention::new(2, 2, None, true).unwrap();
    mha.init_keys(&zeros((1, 3, 2))).unwrap();
    refused("a query of another batch", || mha.forward(&zeros((2, 1, 2)), None), &["MultiHeadAttention", "Attention"]);
    let mut seq = EncoderDecoder::new(Encoder::new(2, 2).unwrap(), Decoder::new(2, 2).unwrap(), 2, 2, 0.0).unwrap();
    seq.set_training(false);
    refused("an integer batch", || seq.forward(&ints((1, 4, 2))), &["EncoderDecoder", "I64"]);
}

/// Issue 26's panics in the second half: each is an error now, or (a huge but finite query)
/// a figure.
#[test]
fn second_half_panics_are_errors() {
    let ids = Tensor::new(&[1u32, 2, 3], &Device::Cpu).unwrap();
    refused("sigmoid(u32)", || attention_zoo::nn::sigmoid(&ids), &["sigmoid", "floating-point", "U32"]);
    refused("softmax(u32)", || softmax(&ids), &["softmax", "floating-point", "U32"]);
    let row = Tensor::new(&[1f32, 2.0, 3.0], &Device::Cpu).unwrap();
    refused("reverse_time(rank 1)", || reverse_time(&row), &["reverse_time", "(N, L, ...)", "[3]"]);
    let mut schedule = NoamSchedule::new(64, 400, 1.0).unwrap();
    schedule.set_step_count(u64::MAX);
    let mut adam = Adam::new(vec![Param::new(&Tensor::zeros(2, DType::F32, &Device::Cpu).unwrap()).unwrap()], 1e-3).unwrap();
    refused("NoamSchedule::step at u64::MAX", || schedule.step(&mut adam), &["NoamSchedule::step", "largest a u64 holds"]);
    assert_eq!(schedule.step_count(), u64::MAX, "a refused step leaves the count alone");
    let keys = Tensor::new(&[[0.65f32, 0.2], [0.85, -0.4]], &Device::Cpu).unwrap();
    for bad in [f32::NAN, f32::INFINITY] {
        let q = Tensor::new(&[bad, 0.95], &Device::Cpu).unwrap();
        refused("query_and_keys(non-finite query)", || query_and_keys(&q, &keys, None), &["query_and_keys", "the query holds", "finite"]);
    }
    // a huge but finite query is drawn in a window wide enough for it
    let q = Tensor::new(&[1e9f32, 0.95], &Device::Cpu).unwrap();
    let fig =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| query_and_keys(&q, &keys, None))).expect("no panic").expect("a figure");
    assert!(fig.svg.contains("query"), "the figure is drawn");
}

/// A layer norm's eps (the function's argument or the public field) that would silently give
/// NaN or zeros is refused; 0 works as in PyTorch.
#[test]
fn layer_norm_eps_is_checked_where_used() {
    let x = Tensor::new(&[[1f32, 2.0, 4.0]], &Device::Cpu).unwrap();
    let mut ln = LayerNorm::new(3).unwrap();
    for bad in [-1e-5, f64::NAN, f64::INFINITY] {
        ln.eps = bad;
        refused("LayerNorm with a bad eps", || ln.forward(&x), &["layer_norm", "eps", "finite number >= 0"]);
    }
    ln.eps = 0.0;
    let y = ln.forward(&x).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
    assert!(y.iter().all(|v| v.is_finite()), "eps = 0 on a non-constant row: {y:?}");
}

/// Identical all-zero losses are the same distribution: no NaN gap, the check passes.
#[test]
fn seed_spread_of_identical_zero_losses_passes() {
    let spread = SeedSpread::new("zeros", vec![0.0; 8], vec![0.0; 8]).unwrap();
    assert_eq!(spread.median_gap(), 0.0);
    assert!(spread.passes(), "{spread:?}");
    let apart = SeedSpread::new("apart", vec![0.5; 8], vec![0.0; 8]).unwrap();
    assert!(apart.median_gap().is_infinite() && !apart.passes());
}

/// Public fields that could break an invariant are checked where used, and a NaN in a key
/// padding mask is not silently read as "ignore".
#[test]
fn public_fields_and_nan_masks_are_checked_where_used() {
    let _serial = common::serial();
    manual_seed(3).unwrap();
    let x = Tensor::ones((2, 3), DType::F32, &Device::Cpu).unwrap();
    let mut dropout = Dropout::new(0.1).unwrap();
    dropout.p = 2.0;
    refused("Dropout with p = 2", || dropout.forward(&x), &["Dropout", "field p", "between 0 and 1", "2"]);
    let mut block = TransformerEncoderBlock::new(4, 2, 8, 0.0).unwrap();
    let seq = Tensor::ones((3, 2, 4), DType::F32, &Device::Cpu).unwrap();
    let mask = Tensor::new(&[[0f32, 0.0, 1.0], [0.0, f32::NAN, 0.0]], &Device::Cpu).unwrap();
    refused("a NaN in the key padding mask", || block.forward(&seq, Some(&mask)), &["key_padding_mask[1, 1] is NaN"]);
}

/// f64 inputs to f32 models say so (it was candle's bare "dtype mismatch in matmul"), and
/// shifted_target on a rank-1 tensor names the shape it expects.
#[test]
fn wrong_dtypes_and_ranks_are_named() {
    let _serial = common::serial();
    manual_seed(5).unwrap();
    let mut enc = Encoder::new(2, 2).unwrap();
    let x = Tensor::zeros((1, 2, 2), DType::F64, &Device::Cpu).unwrap();
    refused("Encoder on f64", || enc.forward(&x), &["Encoder", "the input is F64 and the weights are F32", ".to_dtype(DType::F32)"]);
    let lin = Linear::new(2, 3).unwrap();
    refused("Linear on f64", || lin.forward(&x), &["Linear", "F64", "F32"]);
    let row = Tensor::new(&[1f32, 2.0, 3.0], &Device::Cpu).unwrap();
    refused("shifted_target(rank 1)", || shifted_target(&row, 1), &["shifted_target", "(N, L, F)", "[3]"]);
}

/// Found by the properties of the second half: public size fields changed after construction
/// were trusted (a recurrent layer's `hidden_size` allocated a state of any size, PyTorch's
/// packed attention divided by `num_heads = 0`, an encoder-decoder's `input_len = 0` or huge
/// `target_len` overflowed, an optimiser state at `u64::MAX` steps overflowed on its next step).
#[test]
fn changed_public_fields_are_errors_not_panics() {
    let _serial = common::serial();
    manual_seed(7).unwrap();
    let x = Tensor::ones((2, 3, 4), DType::F32, &Device::Cpu).unwrap();
    let mut lstm = Lstm::with_layers(4, 3, 2, true).unwrap();
    lstm.hidden_size = usize::MAX;
    refused(
        "LSTM with hidden_size = MAX",
        || lstm.forward(&x, None),
        &["LSTM", "hidden_size = 18446744073709551615", "fields were changed"],
    );
    let mut gru = Gru::new(4, 3).unwrap();
    gru.num_layers = 2;
    refused("GRU with num_layers changed", || gru.forward(&x, None), &["GRU", "num_layers = 2", "1 weight blocks"]);
    let mut cell = attention_zoo::nn::LstmCell::new(4, 3).unwrap();
    cell.hidden_size = 1 << 40;
    refused("LSTMCell with a huge hidden_size", || cell.forward(&zeros((2, 4)), None), &["LSTMCell", "fields were changed"]);
    let mut packed = attention_zoo::attention::PackedMultiheadAttention::new(4, 2, 0.0).unwrap();
    packed.num_heads = 0;
    refused("packed attention with num_heads = 0", || packed.forward(&x, &x, &x, None), &["PackedMultiheadAttention", "n_heads = 0"]);
    packed.num_heads = 2;
    packed.embed_dim = 6;
    refused("packed attention with embed_dim changed", || packed.forward(&x, &x, &x, None), &["embed_dim = 6", "[12, 4]"]);
    let mut model = EncoderDecoder::new(Encoder::new(4, 3).unwrap(), Decoder::new(4, 3).unwrap(), 2, 1, 0.5).unwrap();
    model.input_len = 0;
    refused("EncoderDecoder with input_len = 0", || model.forward(&x), &["EncoderDecoder", "input_len and target_len must be positive"]);
    model.input_len = 2;
    model.target_len = usize::MAX;
    refused("EncoderDecoder with target_len = MAX", || model.forward(&x), &["EncoderDecoder", "longer than any sequence"]);
    let (e, d) = (EncoderSelfAttn::new(2, 4, 3, None).unwrap(), DecoderSelfAttn::new(2, 4, 3, None).unwrap());
    let mut selfattn = EncoderDecoderSelfAttn::new(e, d, 2, 1).unwrap();
    selfattn.target_len = usize::MAX;
    refused(
        "EncoderDecoderSelfAttn with target_len = MAX",
        || selfattn.forward(&x),
        &["EncoderDecoderSelfAttn", "longer than any sequence"],
    );
    let param = Param::new(&Tensor::new(&[1f32, 2.0], &Device::Cpu).unwrap()).unwrap();
    let mut adam = Adam::new(vec![param.clone()], 0.1).unwrap();
    let mut state = attention_zoo::train::Optimizer::state(&adam).unwrap();
    state.step = u64::MAX;
    attention_zoo::train::Optimizer::load_state(&mut adam, &state).unwrap();
    let grads = param.tensor().sum_all().unwrap().backward().unwrap();
    refused("Adam at u64::MAX steps", || adam.step(&grads), &["Adam::step", "u64::MAX"]);
}

/// Mixed float dtypes named by the item called, not candle's bare "dtype mismatch in mul/matmul/sub".
#[test]
fn mixed_float_dtypes_are_named() {
    let _serial = common::serial();
    let half = |t: Tensor| t.to_dtype(DType::F16).unwrap();
    let norm = LayerNorm::new(2).unwrap();
    refused(
        "LayerNorm on f64",
        || norm.forward(&zeros((1, 2)).to_dtype(DType::F64).unwrap()),
        &["LayerNorm", "the input is F64 and the weights are F32"],
    );
    refused(
        "MSELoss f64 vs f32",
        || MSELoss.loss(&zeros(3).to_dtype(DType::F64).unwrap(), &zeros(3)),
        &["MSELoss", "prediction F64, target F32"],
    );
    refused(
        "dot products f16 vs f32",
        || dot_products(&half(zeros((1, 1, 2))), &zeros((1, 3, 2))),
        &["dot_products", "query F16, keys F32"],
    );
    refused(
        "context_vector f32 vs f16",
        || context_vector(&zeros((1, 1, 3)), &half(zeros((1, 3, 2)))),
        &["context_vector", "alphas F32, values F16"],
    );
    let packed = attention_zoo::attention::PackedMultiheadAttention::new(4, 2, 0.0).unwrap();
    let ids = Tensor::zeros((3, 1, 4), DType::U32, &Device::Cpu).unwrap();
    refused("packed attention on u32", || packed.forward(&ids, &ids, &ids, None), &["PackedMultiheadAttention", "the input is U32"]);
}
