//! Issue 26: valid input the crate once refused, against PyTorch's answer
//! (tests/fixtures/edge_cases.json, tools/fixtures/edge_cases.py): a GRU, an LSTM, an LSTM cell,
//! PyTorch's packed multi-head attention and the Transformer on an empty batch, cross-entropy over
//! no targets, softmax of no entries, a loss plot of subnormal values; plus the
//! error for a figure with no pixels and the one for a source of padding alone.

use crate::common;

use attention_zoo::notebook::{MAX_PIXELS, figure};
use attention_zoo::prelude::*;
use common::fixtures::{Num, TensorFx, load_as, nums};
use serde::Deserialize;

#[derive(Deserialize)]
struct EdgeCasesFx {
    gru: Vec<RnnCase>,
    lstm: Vec<RnnCase>,
    lstm_cell: LstmCellCase,
    mha: MhaCase,
    transformer: TransformerCase,
    cross_entropy: Vec<CrossEntropyCase>,
    softmax: Vec<SoftmaxCase>,
}

#[derive(Deserialize)]
struct LstmCellCase {
    x: TensorFx,
    h: TensorFx,
    c: TensorFx,
}

#[derive(Deserialize)]
struct MhaCase {
    query: TensorFx,
    key: TensorFx,
    output: TensorFx,
    weights: TensorFx,
}

#[derive(Deserialize)]
struct SoftmaxCase {
    x: TensorFx,
    softmax: TensorFx,
    log_softmax: TensorFx,
}

/// `nn.GRU` or `nn.LSTM` on an empty batch; `c_n` for the LSTM only.
#[derive(Deserialize)]
struct RnnCase {
    input_size: usize,
    hidden_size: usize,
    num_layers: usize,
    bidirectional: bool,
    x: TensorFx,
    output: TensorFx,
    h_n: TensorFx,
    c_n: Option<TensorFx>,
}

#[derive(Deserialize)]
struct TransformerCase {
    src_shape: Vec<usize>,
    tgt_shape: Vec<usize>,
    logits: TensorFx,
}

#[derive(Deserialize)]
struct LossFx {
    shape: Vec<usize>,
    data: Vec<Num>,
}

#[derive(Deserialize)]
struct CrossEntropyCase {
    logits_shape: Vec<usize>,
    reduction: String,
    loss: LossFx,
    grad: TensorFx,
}

fn fixture() -> EdgeCasesFx {
    load_as("edge_cases")
}

fn f64s(t: &Tensor) -> Vec<f64> {
    t.to_dtype(DType::F64).unwrap().flatten_all().unwrap().to_vec1::<f64>().unwrap()
}

#[test]
fn gru_on_an_empty_batch_gives_pytorch_s_empty_outputs() {
    let _serial = common::serial();
    for case in fixture().gru {
        let what = format!("GRU({}, {}, {} layers, bi = {})", case.input_size, case.hidden_size, case.num_layers, case.bidirectional);
        let gru = Gru::with_layers(case.input_size, case.hidden_size, case.num_layers, case.bidirectional).unwrap();
        let x = case.x.tensor();
        let (out, h) = gru.forward(&x, None).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(out.dims(), case.output.shape.as_slice(), "{what}: output");
        assert_eq!(h.dims(), case.h_n.shape.as_slice(), "{what}: h_n");
        assert!(case.output.data.is_empty() && case.h_n.data.is_empty() && f64s(&out).is_empty());
        // A given (empty) initial state is taken too; one of the wrong shape is still refused.
        let h0 = Tensor::zeros(case.h_n.shape.as_slice(), DType::F32, &Device::Cpu).unwrap();
        let (out, h) = gru.forward(&x, Some(&h0)).unwrap();
        assert_eq!((out.dims(), h.dims()), (case.output.shape.as_slice(), case.h_n.shape.as_slice()), "{what}: with h0");
        let bad = Tensor::zeros((case.h_n.shape[0], 1, case.hidden_size), DType::F32, &Device::Cpu).unwrap();
        assert!(gru.forward(&x, Some(&bad)).unwrap_err().to_string().contains("GRU"), "{what}: a state for one sequence");
    }
    // An empty sequence (L = 0) is still refused, as before.
    let e = Gru::new(3, 4).unwrap().forward(&Tensor::zeros((2, 0, 3), DType::F32, &Device::Cpu).unwrap(), None).unwrap_err();
    assert!(e.to_string().contains("L > 0"), "{e}");
}

/// The small model of tests/fixtures/transformer.json: d_model 8, 2 heads, d_ff 16, 2 layers.
fn small_transformer() -> Transformer {
    let cfg = TransformerConfig { d_model: 8, n_heads: 2, d_ff: 16, n_layers: 2, ..TransformerConfig::new(11, 13) };
    Transformer::from_config(&cfg).unwrap()
}

#[test]
fn transformer_on_an_empty_batch_gives_empty_logits() {
    let _serial = common::serial();
    let fx = fixture().transformer;
    let model = small_transformer();
    let src = Tensor::zeros(fx.src_shape.as_slice(), DType::U32, &Device::Cpu).unwrap();
    let tgt = Tensor::zeros(fx.tgt_shape.as_slice(), DType::U32, &Device::Cpu).unwrap();
    let logits = model.forward(&src, &tgt, None, None).unwrap();
    assert_eq!(logits.dims(), fx.logits.shape.as_slice());
    assert!(fx.logits.data.is_empty() && f64s(&logits).is_empty());
    let out = model.forward_with_attention(&src, &tgt, None, None).unwrap();
    assert_eq!(out.maps.encoder_self.len(), 2);
    assert_eq!(out.maps.encoder_self[0].dims(), &[0, 2, 6, 6]);
    assert_eq!(out.maps.decoder_self[1].dims(), &[0, 2, 5, 5]);
    assert_eq!(out.maps.cross[0].dims(), &[0, 2, 5, 6]);
    // The batch sizes must still agree, and the lengths fit the positional encodings.
    let one = Tensor::zeros((1, 5), DType::U32, &Device::Cpu).unwrap();
    assert!(model.forward(&src, &one, None, None).unwrap_err().to_string().contains("differ in batch size"));
    let long = Tensor::zeros((0, 6000), DType::U32, &Device::Cpu).unwrap();
    assert!(model.forward(&long, &tgt, None, None).unwrap_err().to_string().contains("max_len"));
}

#[test]
fn a_source_of_padding_alone_is_named() {
    let _serial = common::serial();
    let model = small_transformer();
    let src = Tensor::new(&[[1u32, 2, 3], [0, 0, 0]], &Device::Cpu).unwrap();
    let tgt = Tensor::new(&[[1u32, 2], [1, 2]], &Device::Cpu).unwrap();
    let e = model.forward(&src, &tgt, None, None).unwrap_err().to_string();
    assert!(e.starts_with("Transformer: source 1 is all padding"), "{e}");
    let e = model.src_mask(&src).unwrap_err().to_string();
    assert!(e.contains("source 1 is all padding"), "{e}");
}

#[test]
fn cross_entropy_over_no_targets_is_pytorch_s_for_sum_and_none() {
    let _serial = common::serial();
    for case in fixture().cross_entropy {
        let what = format!("{:?} {}", case.logits_shape, case.reduction);
        let logits = Tensor::zeros(case.logits_shape.as_slice(), DType::F32, &Device::Cpu).unwrap();
        let lead = &case.logits_shape[..case.logits_shape.len() - 1];
        let targets = Tensor::zeros(lead, DType::U32, &Device::Cpu).unwrap();
        let reduction = match case.reduction.as_str() {
            "sum" => Reduction::Sum,
            "none" => Reduction::None,
            _ => Reduction::Mean,
        };
        let ce = CrossEntropyLoss::new().reduction(reduction);
        if reduction == Reduction::Mean {
            // PyTorch's NaN; the crate's documented error.
            assert!(nums(&case.loss.data)[0].is_nan(), "{what}");
            let e = ce.forward(&logits, &targets).unwrap_err().to_string();
            assert!(e.contains("there are no targets") && e.contains("PyTorch gives NaN"), "{what}: {e}");
            continue;
        }
        let x = Var::from_tensor(&logits).unwrap();
        let loss = ce.forward(x.as_tensor(), &targets).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(loss.dims(), case.loss.shape.as_slice(), "{what}");
        assert_eq!(f64s(&loss), nums(&case.loss.data), "{what}");
        let grads = loss.sum_all().unwrap().backward().unwrap();
        let grad = grads.get(x.as_tensor()).map(|g| g.dims().to_vec()).unwrap_or_else(|| case.logits_shape.clone());
        assert_eq!(grad, case.grad.shape, "{what}: gradient");
    }
}

#[test]
fn a_loss_plot_of_subnormal_losses_is_a_figure() {
    let _serial = common::serial();
    let fig = plot_losses(&[5e-324], &[]).unwrap();
    assert!(fig.svg.contains("<svg") && fig.svg.contains("not shown (1)"), "{}", fig.svg.len());
    let fig = plot_losses(&[5e-324, 1e-310], &[2e-320]).unwrap();
    assert!(fig.svg.contains("not shown (3)"));
    // Nothing positive at all is still an error.
    for losses in [vec![f64::NAN, 0.0], vec![]] {
        assert!(plot_losses(&losses, &[]).unwrap_err().to_string().contains("plot_losses"));
    }
}

#[test]
fn a_figure_without_pixels_is_refused_with_a_clear_message() {
    for size in [(0, 0), (0, 10), (10, 0)] {
        let e = figure("empty", size, |_| Ok(())).unwrap_err().to_string();
        assert!(e.starts_with("empty: ") && e.contains("has no pixels to draw on") && e.contains(&format!("{size:?}")), "{e}");
    }
    let e = figure("giant", (MAX_PIXELS + 1, 1), |_| Ok(())).unwrap_err().to_string();
    assert!(e.contains("too large"), "{e}");
    assert!(figure("one pixel", (1, 1), |_| Ok(())).is_ok());
}

#[test]
fn lstm_lstm_cell_and_packed_attention_on_an_empty_batch_give_pytorch_s_empty_outputs() {
    let _serial = common::serial();
    let fx = fixture();
    for case in fx.lstm {
        let what = format!("LSTM({}, {}, {} layers, bi = {})", case.input_size, case.hidden_size, case.num_layers, case.bidirectional);
        let lstm = Lstm::with_layers(case.input_size, case.hidden_size, case.num_layers, case.bidirectional).unwrap();
        let (out, (h, c)) = lstm.forward(&case.x.tensor(), None).unwrap_or_else(|e| panic!("{what}: {e}"));
        let dims = [out.dims(), h.dims(), c.dims()];
        let c_n = case.c_n.as_ref().expect("the LSTM's c_n");
        assert_eq!(dims, [case.output.shape.as_slice(), case.h_n.shape.as_slice(), c_n.shape.as_slice()], "{what}");
        assert!(case.output.data.is_empty() && f64s(&out).is_empty() && f64s(&h).is_empty());
        // The padded form packs sequences, and PyTorch cannot pack an empty batch either.
        let e = lstm.forward_padded(&case.x.tensor(), &[], None).unwrap_err().to_string();
        assert!(e.contains("N, L > 0"), "{what}: {e}");
    }
    let cell = attention_zoo::nn::LstmCell::new(3, 4).unwrap();
    let (h, c) = cell.forward(&fx.lstm_cell.x.tensor(), None).unwrap();
    assert_eq!([h.dims(), c.dims()], [fx.lstm_cell.h.shape.as_slice(), fx.lstm_cell.c.shape.as_slice()]);
    let mha = attention_zoo::attention::PackedMultiheadAttention::new(4, 2, 0.0).unwrap();
    let (query, key) = (fx.mha.query.tensor(), fx.mha.key.tensor());
    let out = mha.forward(&query, &key, &key, None).unwrap();
    assert_eq!([out.output.dims(), out.weights.dims()], [fx.mha.output.shape.as_slice(), fx.mha.weights.shape.as_slice()]);
    let no_padding = Tensor::zeros((0, 5), DType::U8, &Device::Cpu).unwrap();
    assert_eq!(mha.forward(&query, &key, &key, Some(&no_padding)).unwrap().output.dims(), fx.mha.output.shape.as_slice());
}

#[test]
fn softmax_of_no_entries_is_empty_as_in_pytorch() {
    for case in fixture().softmax {
        let x = case.x.tensor();
        let soft = softmax(&x).unwrap_or_else(|e| panic!("softmax {:?}: {e}", x.dims()));
        let log = attention_zoo::train::log_softmax(&x).unwrap_or_else(|e| panic!("log_softmax {:?}: {e}", x.dims()));
        assert_eq!([soft.dims(), log.dims()], [case.softmax.shape.as_slice(), case.log_softmax.shape.as_slice()]);
        assert!(case.softmax.data.is_empty() && f64s(&soft).is_empty() && f64s(&log).is_empty());
    }
}
