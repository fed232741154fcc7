//! A page of attention explorers with the neuron view, from real models, and the values each
//! should show, read from the score terms' tensors directly (not from the page's data): for
//! `tools/check_explorer.py PAGE --expect EXPECTED`, which reads every value back from the
//! browser's DOM (`make pages-check` runs both).
//!
//! - the lecture's `Attention` with the additive score and with the general one, a padded key
//!   masked;
//! - a Transformer (2 layers, 2 heads, untrained, seeded): its three attentions, every layer and
//!   head, the decoder's self-attention under the causal mask;
//! - the recurrent translators (GRU, LSTM, biLSTM, untrained, seeded) over one sentence.
//!
//!     cargo run --example explorer_neurons -- OUT_DIR   (writes OUT_DIR/page.html, OUT_DIR/expected.json)

use attention_zoo::models::{GruTranslator, GruTranslatorConfig};
use attention_zoo::prelude::*;
use serde_json::{Value, json};

/// A tensor's values for sequence 0, nested as its dims after the batch; `-inf` as null.
fn nested(t: &Tensor) -> Result<Value> {
    let t = t.get(0)?;
    let flat = t.flatten_all()?.to_vec1::<f32>()?;
    fn build(dims: &[usize], flat: &[f32]) -> Value {
        match dims {
            [] => flat.first().filter(|v| v.is_finite()).map_or(Value::Null, |v| json!(*v as f64)),
            [n, rest @ ..] => {
                let step = rest.iter().product::<usize>();
                Value::Array((0..*n).map(|i| build(rest, &flat[i * step..(i + 1) * step])).collect())
            }
        }
    }
    Ok(build(t.dims(), &flat))
}

/// The expected values of one kind: every layer's terms.
fn expected(terms: &[ScoreTerms]) -> Result<Value> {
    let per_layer = |f: &dyn Fn(&ScoreTerms) -> &Tensor| -> Result<Value> {
        Ok(Value::Array(terms.iter().map(|t| nested(f(t))).collect::<Result<_>>()?))
    };
    Ok(json!({
        "left": per_layer(&|t| &t.left)?,
        "right": per_layer(&|t| &t.right)?,
        "dots": per_layer(&|t| &t.dots)?,
        "scores": per_layer(&|t| &t.scores)?,
        "weights": per_layer(&|t| &t.weights)?,
    }))
}

fn tokens(stem: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{stem}{i}")).collect()
}

fn main() -> Result<()> {
    let out = std::env::args().nth(1).unwrap_or_else(|| "target/explorer-neurons".into());
    std::fs::create_dir_all(&out)?;
    let mut page = vec![];
    let mut want = serde_json::Map::new();
    let mut add = |explorer: Explorer, kinds: Vec<&[ScoreTerms]>| -> Result<()> {
        let html = explorer.html()?;
        let id = html.split("id=\"").nth(1).and_then(|s| s.split('"').next()).unwrap_or_default().to_string();
        want.insert(id, Value::Array(kinds.into_iter().map(expected).collect::<Result<_>>()?));
        page.push(html);
        Ok(())
    };

    // the lecture's Attention: additive and general scores, the last key masked
    let keys = Tensor::new(&[[[0.5f32, -1.0, 0.25], [1.5, 0.5, -0.5], [-0.75, 1.25, 1.0], [0.1, 0.2, 0.3]]], &Device::Cpu)?;
    let query = Tensor::new(&[[[0.3f32, -0.6, 0.9], [1.0, 0.0, -1.0]]], &Device::Cpu)?;
    let keep = Tensor::new(&[[[1u8, 1, 1, 0]]], &Device::Cpu)?;
    for score in [Score::Additive, Score::General] {
        manual_seed(7)?;
        let mut a = Attention::with_score(3, None, false, score)?;
        a.init_keys(&keys)?;
        a.forward(&query, Some(&keep))?;
        let terms = a.score_terms()?;
        let explorer =
            explore_attention(&a, &tokens("q", 2), &["k0", "k1", "k2", "pad"])?.titled(format!("the lecture's Attention, {score:?} score"));
        add(explorer, vec![std::slice::from_ref(&terms)])?;
    }

    // a Transformer's three attentions
    let cfg =
        TransformerConfig { d_model: 8, n_heads: 2, d_ff: 16, n_layers: 2, dropout: 0.0, max_len: 16, ..TransformerConfig::new(20, 20) };
    manual_seed(5)?;
    let model = Transformer::from_config(&cfg)?;
    let src = Tensor::new(&[[4u32, 5, 6, 7, 8]], &Device::Cpu)?;
    let tgt = Tensor::new(&[[1u32, 9, 10, 11]], &Device::Cpu)?;
    let terms = model.score_terms(&src, &tgt)?;
    let explorer = explore_terms(&terms, 0, &tokens("s", 5), &tokens("t", 4))?.titled("a Transformer, every layer and head");
    add(explorer, vec![&terms.encoder_self, &terms.decoder_self, &terms.cross])?;

    // the recurrent translators
    let (src, tgt) = (Tensor::new(&[[4u32, 5, 6, 7, 8, 9]], &Device::Cpu)?, Tensor::new(&[[1u32, 9, 10, 11, 12]], &Device::Cpu)?);
    manual_seed(11)?;
    let mut gru = GruTranslator::new(&GruTranslatorConfig { embed_dim: 6, hidden_dim: 8, ..GruTranslatorConfig::new(20, 20) })?;
    let lstm_cfg = LstmTranslatorConfig { embed_dim: 6, hidden_dim: 8, ..LstmTranslatorConfig::new(20, 20) };
    let mut lstm = LstmTranslator::new(&lstm_cfg)?;
    let mut bilstm = LstmTranslator::new(&LstmTranslatorConfig { bidirectional: true, ..lstm_cfg })?;
    // a recurrent translator's one attention over the source
    let one = |terms: SentenceTerms| match terms {
        SentenceTerms::Source(t) => Ok(t),
        SentenceTerms::Maps(_) => Err(candle_core::Error::Msg("a recurrent translator has one attention".into())),
    };
    let g = one(gru.sentence_terms(&src, &tgt)?)?;
    let l = one(lstm.sentence_terms(&src, &tgt)?)?;
    let b = one(bilstm.sentence_terms(&src, &tgt)?)?;
    let (s, t) = (tokens("s", 6), tokens("t", 5));
    let explorer = Explorer {
        title: "the recurrent translators' cross-attention".into(),
        kinds: vec![
            AttentionKind::from_terms("GRU", std::slice::from_ref(&g), 0, &t, &s)?,
            AttentionKind::from_terms("LSTM", std::slice::from_ref(&l), 0, &t, &s)?,
            AttentionKind::from_terms("biLSTM", std::slice::from_ref(&b), 0, &t, &s)?,
        ],
    };
    add(explorer, vec![std::slice::from_ref(&g), std::slice::from_ref(&l), std::slice::from_ref(&b)])?;

    let html =
        format!("<!doctype html><meta charset=utf-8><title>explorers with the neuron view</title><body>{}</body>", page.join("\n<hr>\n"));
    let dir = std::path::Path::new(&out);
    std::fs::write(dir.join("page.html"), html)?;
    std::fs::write(
        dir.join("expected.json"),
        serde_json::to_string(&Value::Object(want)).map_err(|e| candle_core::Error::Msg(e.to_string()))?,
    )?;
    println!("wrote {} and {}", dir.join("page.html").display(), dir.join("expected.json").display());
    Ok(())
}
