//! Weights from PyTorch: `.pt` state_dicts written by `torch.save` (tools/fixtures/pytorch_files.py,
//! under tests/fixtures/pt/) load into our models by name and reproduce PyTorch's outputs; files
//! that do not fit give one error naming every problem and leave the model as it was.

use crate::common;

use attention_zoo::nn::read_pytorch;
use attention_zoo::prelude::*;
use common::fixtures::*;
use serde::Deserialize;

/// `tests/fixtures/pytorch_files.json` (tools/fixtures/pytorch_files.py): `.pt` files PyTorch
/// wrote, and what the modules loaded from them must compute.
#[derive(Deserialize)]
struct PytorchFilesFx {
    selfattn: Reproduced,
    selfattn_pe: Reproduced,
    encoder: EncoderFiles,
    buffered: BufferedFile,
    transformer: TransformerFile,
}

/// A model's `.pt` file, an input, and its outputs in training and evaluation mode.
#[derive(Deserialize)]
struct Reproduced {
    file: String,
    x: TensorFx,
    train: TensorFx,
    eval: TensorFx,
}

/// The lecture's encoder saved in three dtypes.
#[derive(Deserialize)]
struct EncoderFiles {
    x: TensorFx,
    f64: Converted,
    f16: Converted,
    bf16: Converted,
    no_crc: Saved,
}

/// A state_dict PyTorch saved, and the state it holds.
#[derive(Deserialize)]
struct Saved {
    file: String,
    state: StateFx,
}

#[derive(Deserialize)]
struct Converted {
    file: String,
    state: StateFx,
    out: TensorFx,
}

/// PyTorch's `Buffered` module (a linear layer and a buffer `pe`).
#[derive(Deserialize)]
struct BufferedFile {
    file: String,
    pe: TensorFx,
    state: StateFx,
}

#[derive(Deserialize)]
struct TransformerFile {
    file: String,
    pe_differs: String,
    sizes: TransformerSizes,
    src: TensorFx,
    tgt: TensorFx,
    eval_logits: TensorFx,
}

#[derive(Deserialize)]
struct TransformerSizes {
    d_model: usize,
    n_heads: usize,
    d_ff: usize,
    n_layers: usize,
    dropout: f64,
    max_len: usize,
    pad: u32,
    src_vocab: usize,
    tgt_vocab: usize,
}

fn fixture() -> PytorchFilesFx {
    load_as("pytorch_files")
}

fn pt(name: &str) -> String {
    format!("{}/tests/fixtures/pt/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn snapshot<M: Walk>(m: &M) -> Vec<Vec<f64>> {
    m.parameters().iter().map(|p| values(&p.tensor())).collect()
}

/// Loads `file` into a fresh `Encoder(2, 2)` and returns the error, checking that the encoder
/// kept its weights.
#[track_caller]
fn refused(file: &str) -> String {
    let _serial = common::serial();
    manual_seed(3).unwrap();
    let enc = Encoder::new(2, 2).unwrap();
    let before = snapshot(&enc);
    let e = enc.load_pytorch(pt(file)).unwrap_err().to_string();
    assert_eq!(snapshot(&enc), before, "{file}: a refused file must leave the weights as they were");
    assert!(e.starts_with("load_pytorch: ") && e.contains(&pt(file)), "the error names the file: {e}");
    e
}

/// The problem lines of an error, without the first line (the file) or a closing hint.
fn problems(e: &str) -> Vec<&str> {
    e.lines().skip(1).map(str::trim).filter(|l| !l.starts_with('(')).collect()
}

#[test]
fn a_state_dict_from_pytorch_reproduces_its_outputs() {
    let _serial = common::serial();
    let fx = fixture();
    let c = &fx.selfattn;
    let x = c.x.tensor();
    // Another seed than PyTorch's 23, and PyTorch's weights were trained five steps after it.
    manual_seed(1).unwrap();
    let mut model = EncoderDecoderSelfAttn::new(
        EncoderSelfAttn::new(3, 2, 10, Some(2)).unwrap(),
        DecoderSelfAttn::new(3, 2, 10, Some(2)).unwrap(),
        2,
        2,
    )
    .unwrap();
    model.train();
    let before = values(&model.forward(&x).unwrap());
    let want = values(&c.train.tensor());
    assert!(before.iter().zip(&want).any(|(a, b)| (a - b).abs() > 1e-2), "the seeds must give other weights");

    model.load_pytorch(pt(&c.file)).unwrap();
    assert_tensor_close("training forward", &model.forward(&x).unwrap(), &c.train.tensor(), 1e-6);
    model.eval();
    let source = x.narrow(1, 0, 2).unwrap();
    assert_tensor_close("evaluation forward", &model.forward(&source).unwrap(), &c.eval.tensor(), 1e-6);

    // The parameters are the file's tensors bit for bit, and the file lists them in our order.
    let file = read_pytorch(pt("selfattn.pt")).unwrap();
    let names: Vec<&str> = file.iter().map(|(n, _)| n.as_str()).collect();
    let ours = model.named_parameters();
    assert_eq!(names, ours.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>());
    for ((name, t), (_, p)) in file.iter().zip(&ours) {
        assert_tensor_close(name, &p.tensor(), t, 0.0);
    }
}

#[test]
fn float64_float16_and_bfloat16_are_converted_to_float32() {
    let _serial = common::serial();
    let fx = fixture();
    let c = &fx.encoder;
    for (dtype, f) in [("f64", &c.f64), ("f16", &c.f16), ("bf16", &c.bf16)] {
        manual_seed(3).unwrap();
        let mut enc = Encoder::new(2, 2).unwrap();
        enc.load_pytorch(pt(&f.file)).unwrap();
        assert_params(&format!("Encoder from {dtype}"), &enc, &f.state, 0.0);
        assert_tensor_close(&format!("Encoder from {dtype}"), &enc.forward(&c.x.tensor()).unwrap(), &f.out.tensor(), 1e-6);
    }
}

#[test]
fn every_missing_tensor_is_named_with_its_shape() {
    let e = refused("encoder_missing.pt");
    assert_eq!(
        problems(&e),
        ["missing: `basic_rnn.weight_ih_l0`, expected shape [6, 2]", "missing: `basic_rnn.bias_hh_l0`, expected shape [6]"],
        "{e}"
    );
    assert!(e.lines().next().unwrap().ends_with("does not fit the model, nothing was loaded:"), "{e}");
}

#[test]
fn every_unexpected_tensor_is_named() {
    let e = refused("encoder_unexpected.pt");
    assert_eq!(
        problems(&e),
        ["unexpected: `basic_rnn.weight_ih_l1` (shape [6, 2], float32)", "unexpected: `head.bias` (shape [3], float32)"],
        "{e}"
    );
}

#[test]
fn a_wrong_shape_names_both_shapes() {
    let e = refused("encoder_wrong_shape.pt");
    assert_eq!(problems(&e), ["wrong shape: `basic_rnn.weight_hh_l0` expected [6, 2], found [6, 3]"], "{e}");
}

#[test]
fn integer_and_bool_tensors_are_refused() {
    // int64 is read by candle, int32 and bool are not: all three are named with their dtype.
    let e = refused("encoder_integers.pt");
    assert_eq!(
        problems(&e),
        [
            "not floating-point: `basic_rnn.bias_ih_l0` is int64",
            "not floating-point: `basic_rnn.bias_hh_l0` is int32",
            "unexpected: `steps` (bool)"
        ],
        "{e}"
    );
}

#[test]
fn one_error_lists_every_problem() {
    let e = refused("encoder_everything.pt");
    assert_eq!(
        problems(&e),
        [
            "missing: `basic_rnn.weight_ih_l0`, expected shape [6, 2]",
            "wrong shape: `basic_rnn.weight_hh_l0` expected [6, 2], found [6, 3]",
            "not floating-point: `basic_rnn.bias_ih_l0` is int32",
            "missing: `basic_rnn.bias_hh_l0`, expected shape [6]",
            "unexpected: `basic_rnn.weight_ih_l1` (shape [6, 2], float32)",
            "unexpected: `head.bias` (shape [3], float32)"
        ],
        "{e}"
    );
}

#[test]
fn files_that_are_not_state_dicts_are_named() {
    let e = refused("encoder_checkpoint.pt");
    assert!(e.contains("missing: `basic_rnn.weight_ih_l0`") && e.contains("holds no tensors but model, epoch"), "{e}");
    assert!(e.contains("torch.save(model.state_dict(), path)"), "{e}");

    let _serial = common::serial();
    let enc = Encoder::new(2, 2).unwrap();
    let nowhere = pt("no_such_file.pt");
    let e = enc.load_pytorch(&nowhere).unwrap_err().to_string();
    assert!(e.starts_with(&format!("load_pytorch: cannot read {nowhere}: ")) && e.contains("No such file"), "{e}");
    let text = std::env::temp_dir().join(format!("attention-zoo-not-a-pt-{}.pt", std::process::id()));
    std::fs::write(&text, "weights, honest").unwrap();
    let e = enc.load_pytorch(&text).unwrap_err().to_string();
    std::fs::remove_file(&text).unwrap();
    assert!(e.contains(&format!("{} is not a file written by torch.save", text.display())), "{e}");
}

/// A linear layer and a buffer `pe`, like PyTorch's `Buffered` in the fixtures script.
struct Buffered {
    lin: Linear,
    pe: Tensor,
}

impl Walk for Buffered {
    fn walk(&self, w: &mut Walker) {
        w.child("lin", &self.lin);
        w.buffer("pe", &self.pe);
    }
}

#[test]
fn buffers_are_checked_not_loaded() {
    let _serial = common::serial();
    let fx = fixture();
    let c = &fx.buffered;
    let file = pt(&c.file);
    let pe = c.pe.tensor();

    let m = Buffered { lin: Linear::new(2, 2).unwrap(), pe: pe.clone() };
    m.load_pytorch(&file).unwrap();
    assert_params("Buffered", &m, &c.state, 0.0);

    let m = Buffered { lin: Linear::new(2, 2).unwrap(), pe: (&pe + 0.5).unwrap() };
    let before = snapshot(&m);
    let e = m.load_pytorch(&file).unwrap_err().to_string();
    assert_eq!(problems(&e), ["buffer differs: `pe` is computed here and differs from the file's by 5e-1"], "{e}");
    assert_eq!(snapshot(&m), before, "nothing loaded");

    let m = Buffered { lin: Linear::new(2, 2).unwrap(), pe: Tensor::zeros((1, 4, 2), DType::F32, &Device::Cpu).unwrap() };
    let e = m.load_pytorch(&file).unwrap_err().to_string();
    assert_eq!(problems(&e), ["wrong shape: `pe` expected [1, 4, 2], found [1, 3, 2]"], "{e}");

    // A module that does not declare the buffer finds it unexpected.
    struct Plain(Linear);
    impl Walk for Plain {
        fn walk(&self, w: &mut Walker) {
            w.child("lin", &self.0);
        }
    }
    let e = Plain(Linear::new(2, 2).unwrap()).load_pytorch(&file).unwrap_err().to_string();
    assert_eq!(problems(&e), ["unexpected: `pe` (shape [1, 3, 2], float32)"], "{e}");
}

/// Asserts `got` agrees with a fixture tensor within `1e-6 * max(1, |want|)` (relative above 1)
/// and returns the largest absolute difference, printed for the record.
#[track_caller]
fn reproduces(what: &str, got: &Tensor, want: &TensorFx) -> f64 {
    let max = close_relative(what, got, want, 1e-6);
    eprintln!("{what}: max |difference| {max:e}");
    max
}

/// Checks that the file holds exactly our parameters and buffers, and that each buffer in it is
/// ours within `BUFFER_TOLERANCE`; returns the largest buffer difference.
fn buffers_match<M: Walk>(what: &str, m: &M, file: &str) -> f64 {
    let in_file = read_pytorch(pt(file)).unwrap();
    let mut names: Vec<String> = in_file.iter().map(|(n, _)| n.clone()).collect();
    let buffers = m.named_buffers();
    let mut ours: Vec<String> = m.named_parameters().into_iter().map(|(n, _)| n).chain(buffers.iter().map(|(n, _)| n.clone())).collect();
    names.sort();
    ours.sort();
    assert_eq!(names, ours, "{what}: the file's tensors are our parameters and buffers");
    let mut max = 0f64;
    for (name, b) in &buffers {
        let theirs = &in_file.iter().find(|(n, _)| n == name).unwrap().1;
        assert_eq!(theirs.dims(), b.dims(), "{what}: `{name}` shape");
        let d = values(theirs).iter().zip(values(b)).map(|(t, o)| (t - o).abs()).fold(0f64, f64::max);
        assert!(d <= attention_zoo::nn::BUFFER_TOLERANCE, "{what}: `{name}` differs by {d:e}");
        eprintln!("{what}: buffer `{name}` {:?}, max |file - ours| {d:e}", b.dims());
        max = max.max(d);
    }
    max
}

#[test]
fn the_positional_encoding_model_of_notebook_03_loads_from_pytorch() {
    let _serial = common::serial();
    let fx = fixture();
    let c = &fx.selfattn_pe;
    let file = c.file.as_str();
    let x = c.x.tensor();
    // Another seed than PyTorch's 43, and PyTorch's weights were trained five steps after it.
    manual_seed(2).unwrap();
    let mut model =
        EncoderDecoderSelfAttn::new(EncoderPe::new(3, 2, 10, Some(2), 100).unwrap(), DecoderPe::new(3, 2, 10, Some(2), 100).unwrap(), 2, 2)
            .unwrap();
    let names: Vec<String> = model.named_buffers().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["encoder.pe.pe", "decoder.pe.pe"]);
    model.train();
    let before = values(&model.forward(&x).unwrap());
    let want = values(&c.train.tensor());
    assert!(before.iter().zip(&want).any(|(a, b)| (a - b).abs() > 1e-2), "the seeds must give other weights");

    model.load_pytorch(pt(file)).unwrap();
    buffers_match("EncoderDecoderSelfAttn with PE", &model, file);
    reproduces("EncoderDecoderSelfAttn with PE, training forward", &model.forward(&x).unwrap(), &c.train);
    model.eval();
    let source = x.narrow(1, 0, 2).unwrap();
    reproduces("EncoderDecoderSelfAttn with PE, evaluation forward", &model.forward(&source).unwrap(), &c.eval);
}

/// The Transformer of the fixture's sizes (its `max_len` included), drawn after `manual_seed(seed)`.
fn small_transformer(sizes: &TransformerSizes, max_len: usize, seed: i128) -> Transformer {
    let cfg = TransformerConfig {
        d_model: sizes.d_model,
        n_heads: sizes.n_heads,
        d_ff: sizes.d_ff,
        n_layers: sizes.n_layers,
        dropout: sizes.dropout,
        max_len,
        pad_id: Some(sizes.pad),
        ..TransformerConfig::new(sizes.src_vocab, sizes.tgt_vocab)
    };
    manual_seed(seed).unwrap();
    Transformer::from_config(&cfg).unwrap()
}

#[test]
fn the_transformer_loads_from_pytorch_and_gives_its_logits() {
    let _serial = common::serial();
    let fx = fixture();
    let c = &fx.transformer;
    let file = c.file.as_str();
    let max_len = c.sizes.max_len;
    let ids = |v: &TensorFx| v.tensor().to_dtype(DType::U32).unwrap();
    let (src, tgt) = (ids(&c.src), ids(&c.tgt));
    // Another seed than PyTorch's 7, and PyTorch's weights were trained five steps after it.
    let model = small_transformer(&c.sizes, max_len, 0);
    let names: Vec<String> = model.named_buffers().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["src_pe.pe", "tgt_pe.pe"]);
    model.eval();
    let before = values(&model.forward(&src, &tgt, None, None).unwrap());
    let want = values(&c.eval_logits.tensor());
    assert!(before.iter().zip(&want).any(|(a, b)| (a - b).abs() > 1e-2), "the seeds must give other weights");

    model.load_pytorch(pt(file)).unwrap();
    buffers_match("Transformer", &model, file);
    reproduces("Transformer, evaluation logits", &model.forward(&src, &tgt, None, None).unwrap(), &c.eval_logits);
}

#[test]
fn a_file_whose_positional_encoding_differs_is_refused() {
    let _serial = common::serial();
    let fx = fixture();
    let c = &fx.transformer;
    let max_len = c.sizes.max_len;

    // `tgt_pe.pe` holds cosines where ours has sines: refused, naming the buffer, nothing loaded.
    let model = small_transformer(&c.sizes, max_len, 0);
    let before = snapshot(&model);
    let file = pt(&c.pe_differs);
    let e = model.load_pytorch(&file).unwrap_err().to_string();
    assert!(e.starts_with(&format!("load_pytorch: {file} does not fit the model, nothing was loaded:")), "{e}");
    let p = problems(&e);
    assert_eq!(p.len(), 1, "{e}");
    assert!(p[0].starts_with("buffer differs: `tgt_pe.pe` is computed here and differs from the file's by 1.4"), "{e}");
    assert_eq!(snapshot(&model), before, "a refused file must leave the weights as they were");

    // A model built with another max_len has tables of another shape: both are named.
    let model = small_transformer(&c.sizes, 5000, 0);
    let e = model.load_pytorch(pt(&c.file)).unwrap_err().to_string();
    assert_eq!(
        problems(&e),
        [
            "wrong shape: `src_pe.pe` expected [1, 5000, 8], found [1, 50, 8]",
            "wrong shape: `tgt_pe.pe` expected [1, 5000, 8], found [1, 50, 8]"
        ],
        "{e}"
    );
}

#[test]
fn changed_bytes_are_refused_and_files_without_checksums_load() {
    let _serial = common::serial();
    let fx = fixture();
    // Saved with torch.serialization.set_crc32_options(False): every recorded CRC is 0, and the
    // file loads unchecked, as torch.load reads it.
    manual_seed(3).unwrap();
    let enc = Encoder::new(2, 2).unwrap();
    enc.load_pytorch(pt(&fx.encoder.no_crc.file)).unwrap();
    assert_params("Encoder saved without CRCs", &enc, &fx.encoder.no_crc.state, 0.0);
    // One changed byte in a tensor's data or in the pickle of a file with CRCs: candle alone
    // loaded the first as another weight; now both are refused and nothing changes.
    let good = std::fs::read(pt(&fx.encoder.f64.file)).unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(good.clone())).unwrap();
    let names: Vec<String> = archive.file_names().map(|n| n.unwrap().into_owned()).collect();
    let data = names.iter().find(|n| n.contains("/data/")).unwrap();
    let pkl = names.iter().find(|n| n.ends_with("data.pkl")).unwrap();
    let path = std::env::temp_dir().join(format!("attention-zoo-changed-{}.pt", std::process::id()));
    for entry in [data, pkl] {
        let start = archive.by_name(entry).unwrap().data_start().unwrap() as usize;
        let mut bytes = good.clone();
        bytes[start + 1] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let before = enc.parameters().iter().map(|p| p.tensor().flatten_all().unwrap().to_vec1::<f32>().unwrap()).collect::<Vec<_>>();
        let e = enc.load_pytorch(&path).unwrap_err().to_string();
        assert!(
            e.starts_with("load_pytorch: ") && e.contains("is damaged") && e.contains(&format!("`{entry}`")) && e.contains("checksum"),
            "{e}"
        );
        let after = enc.parameters().iter().map(|p| p.tensor().flatten_all().unwrap().to_vec1::<f32>().unwrap()).collect::<Vec<_>>();
        assert_eq!(before, after, "nothing loaded");
        assert!(read_pytorch(&path).unwrap_err().to_string().contains("is damaged"));
    }
    std::fs::remove_file(&path).unwrap();
}
