//! Public fields set to anything: a module built with good sizes, one of its public fields then
//! changed to a random value (0, small, huge, NaN for probabilities), and its forward called on
//! an input that fits the original sizes. The forward returns a result or an error: a field may
//! describe the module, it must never let it panic, abort or read out of bounds.

use super::config;
use crate::common;

use attention_zoo::attention::PackedMultiheadAttention;
use attention_zoo::models::AttnLstmDecoder;
use attention_zoo::nn::LstmCell;
use attention_zoo::prelude::*;
use attention_zoo::train::{LeadingFeatures, Optimizer};
use proptest::prelude::*;

/// A size: usual ones, zero and the largest.
fn size() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0usize..6, 1 => Just(1000usize), 1 => Just(usize::MAX)]
}

/// A probability or epsilon: usual ones, the edges, nonsense.
fn real() -> impl Strategy<Value = f64> {
    prop_oneof![3 => 0.0f64..1.0, 1 => prop_oneof![Just(1.0), Just(-1.0), Just(2.0), Just(f64::NAN), Just(f64::INFINITY), Just(0.0)]]
}

fn x(dims: &[usize]) -> Tensor {
    let n: usize = dims.iter().product();
    Tensor::from_vec((0..n).map(|i| (i as f32 * 0.37).sin()).collect::<Vec<f32>>(), dims, &Device::Cpu).expect("an input")
}

fn ids(dims: &[usize]) -> Tensor {
    let n: usize = dims.iter().product();
    Tensor::from_vec((0..n).map(|i| 1 + i as u32 % 3).collect::<Vec<u32>>(), dims, &Device::Cpu).expect("ids")
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn layers_with_changed_fields_never_panic(field in 0usize..16, a in size(), b in size(), r in real(), flag: bool) {
        let _serial = common::serial();
        let input = x(&[2, 3, 4]);
        match field {
            0 => { let mut l = Linear::new(4, 3).expect("linear"); l.in_features = a; l.out_features = b; let _ = l.forward(&input); }
            1 => { let mut l = LayerNorm::new(4).expect("norm"); l.d_model = a; l.eps = r; let _ = l.forward(&input); }
            2 => { let mut e = Embedding::new(5, 4).expect("embedding"); e.num_embeddings = a; e.embedding_dim = b; let _ = e.forward(&ids(&[2, 3])); }
            3 => {
                let mut g = Gru::with_layers(4, 3, 2, true).expect("gru");
                g.input_size = a; g.hidden_size = b; g.num_layers = a % 4; g.bidirectional = flag;
                let _ = g.forward(&input, None);
            }
            4 => {
                let mut l = Lstm::with_layers(4, 3, 2, true).expect("lstm");
                l.input_size = a; l.hidden_size = b; l.num_layers = b % 4; l.bidirectional = flag;
                let _ = l.forward(&input, None);
                let _ = l.forward_padded(&input, &[3, 1], None);
            }
            5 => { let mut c = LstmCell::new(4, 3).expect("cell"); c.input_size = a; c.hidden_size = b; let _ = c.forward(&x(&[2, 4]), None); }
            6 => { let mut d = Dropout::new(0.5).expect("dropout"); d.p = r; let _ = d.forward(&input); }
            7 => {
                let mut m = PackedMultiheadAttention::new(4, 2, 0.0).expect("packed");
                m.embed_dim = a; m.num_heads = b;
                let _ = m.forward(&input, &input, &input, None);
            }
            8 => {
                let mut m = NarrowMultiHeadAttention::new(4, 2, 0.0).expect("narrow");
                m.d_model = a; m.n_heads = b; m.d_k = a / 2;
                let _ = m.forward(&input, &input, &input, None);
                let mut v = VectorisedMultiHeadAttention::new(4, 2, 0.0).expect("vectorised");
                v.d_model = b; v.n_heads = a; v.d_k = b / 3;
                let _ = v.forward(&input, &input, &input, None);
            }
            9 => {
                let mut m = MultiHeadAttention::new(2, 4, None, true).expect("multi-head");
                m.n_heads = a; m.d_model = b;
                if m.init_keys(&input).is_ok() { let _ = m.forward(&input, None); }
                let mut h = Attention::new(4, None, true).expect("attention");
                h.d_k = a; h.input_dim = b; h.proj_values = flag;
                if h.init_keys(&input).is_ok() { let _ = h.forward(&input, None); }
            }
            10 => {
                let mut pe = PositionalEncoding::new(5, 4).expect("pe");
                pe.max_len = a; pe.d_model = b;
                let _ = pe.forward(&input);
                let mut tpe = TransformerPositionalEncoding::new(4, 0.0, 5).expect("pe");
                tpe.max_len = b; tpe.d_model = a;
                let _ = tpe.forward(&input);
                let mut e = Embeddings::new(5, 4).expect("embeddings");
                e.d_model = a;
                let _ = e.forward(&ids(&[2, 3]));
            }
            11 => {
                let mut l = EncoderLayer::new(4, 2, 3, 0.0).expect("layer");
                l.d_model = a;
                let _ = l.forward(&input, None);
                let mut d = DecoderLayer::new(4, 2, 3, 0.0).expect("layer");
                d.d_model = b;
                let _ = d.forward(&input, &input, None, None);
            }
            12 => {
                let mut e = EncoderSelfAttn::new(2, 4, 3, None).expect("encoder");
                e.n_heads = a; e.d_model = b; e.ff_units = a; e.n_features = b;
                let _ = e.forward(&input, None);
                let mut d = DecoderSelfAttn::new(2, 4, 3, None).expect("decoder");
                d.n_heads = b; d.d_model = a; d.ff_units = b; d.n_features = a;
                if d.init_keys(&input).is_ok() { let _ = d.forward(&input, None, None); }
                let mut m = EncoderDecoderSelfAttn::new(EncoderSelfAttn::new(2, 4, 3, None).expect("e"), DecoderSelfAttn::new(2, 4, 3, None).expect("d"), 2, 1).expect("model");
                m.input_len = a; m.target_len = b;
                let _ = m.forward(&input);
            }
            13 => {
                let mut e = Encoder::new(4, 3).expect("encoder");
                e.n_features = a; e.hidden_dim = b;
                let _ = e.forward(&input);
                let mut d = Decoder::new(4, 3).expect("decoder");
                d.n_features = b; d.hidden_dim = a;
                let _ = d.forward(&x(&[2, 1, 4]));
                let mut m = EncoderDecoder::new(Encoder::new(4, 3).expect("e"), Decoder::new(4, 3).expect("d"), 2, 1, 0.5).expect("model");
                m.input_len = a; m.target_len = b; m.teacher_forcing_prob = r;
                let _ = m.forward(&input);
                let mut da = DecoderAttn::new(4, 3).expect("decoder");
                da.n_features = a; da.hidden_dim = b;
                let _ = da.forward(&x(&[2, 1, 4]), None);
            }
            14 => {
                let cfg = LstmTranslatorConfig { embed_dim: 2, hidden_dim: 4, ..LstmTranslatorConfig::new(6, 6) };
                let d = AttnLstmDecoder::new(&cfg).expect("decoder");
                let (h, keys) = (x(&[2, 4]), x(&[2, 3, 4]));
                let _ = d.forward(&ids(&[2]), &h, &h, &keys, &keys, &x(&[2, 3]));
                let mut loss = LeadingFeatures::new(MSELoss, 2);
                loss.features = a;
                let _ = loss.loss(&input, &input);
            }
            _ => {
                let specials = ["<pad>", "<sos>", "<eos>", "<unk>", "w"].map(String::from);
                let vocab = Vocab::from_tokens(specials).expect("vocab");
                let model = GruTranslator::new(&GruTranslatorConfig { embed_dim: 2, hidden_dim: 2, ..GruTranslatorConfig::new(5, 5) }).expect("model");
                let mut t = Translator::new(model, vocab.clone(), vocab).expect("translator");
                t.max_len = a % 20; t.batch_size = b; t.max_pairs = Some(a);
                let _ = t.greedy(&["w w"]);
                let _ = t.beam(&["w"], 2);
                let _ = t.bleu(&[("w", "w")], 1);
                let param = Param::new(&x(&[3])).expect("param");
                let mut adam = Adam::new(vec![param.clone()], 0.1).expect("adam");
                let mut state = adam.state().expect("state");
                state.step = if flag { u64::MAX } else { a as u64 };
                if adam.load_state(&state).is_ok() {
                    let grads = param.tensor().sum_all().and_then(|t| t.backward()).expect("grads");
                    let _ = adam.step(&grads);
                }
            }
        }
    }
}
