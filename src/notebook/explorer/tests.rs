use super::encode::{STEP, base64, dequantize, pack10, quantize, script_safe, unpack10};
use super::{AttentionKind, explore, explore_alphas};
use crate::models::AttentionMaps;
use candle_core::{D, Device, Tensor};

#[test]
fn base64_and_json_strings_as_the_standards_write_them() {
    assert_eq!(base64(b"Man"), "TWFu");
    assert_eq!(base64(b"Ma"), "TWE=");
    assert_eq!(base64(b"M"), "TQ==");
    assert_eq!(base64(b""), "");
    assert_eq!(base64(&[0xff, 0xfe, 0xfd, 0x00]), "//79AA==");
    let json = |s: &str| script_safe(&serde_json::to_string(s).unwrap());
    assert_eq!(json("a\"b\\c</script>&\n"), "\"a\\\"b\\\\c\\u003c/script\\u003e\\u0026\\n\"");
    assert_eq!(json("Straße \u{2028}"), "\"Straße \\u2028\"");
}

#[test]
fn weights_travel_as_their_three_decimals() {
    for (w, q) in [(0.0f32, 0u16), (1.0, 1000), (0.5, 500), (0.123_456, 123), (0.000_4, 0), (0.999_6, 1000), (0.812_5, 813)] {
        assert_eq!(quantize(w), q, "{w}");
        assert!((dequantize(q) - w).abs() <= STEP / 2.0 + 1e-6);
    }
    let values: Vec<u16> = (0..1001).chain([1023, 0, 7]).collect();
    for n in [0, 1, 3, 4, 5, values.len()] {
        assert_eq!(unpack10(&pack10(&values[..n]), n), values[..n], "{n} values");
    }
    assert_eq!(pack10(&[1023, 0]), [0xff, 0x03, 0x00, 0x00, 0x00]);
}

/// Softmax rows `(N, heads, Lq, Lk)` from a seed-free formula.
fn weights(n: usize, heads: usize, lq: usize, lk: usize, salt: f32) -> Tensor {
    let v: Vec<f32> = (0..n * heads * lq * lk).map(|i| (i as f32 * 0.37 + salt).sin() * 3.0).collect();
    candle_nn::ops::softmax(&Tensor::from_vec(v, (n, heads, lq, lk), &Device::Cpu).unwrap(), D::Minus1).unwrap()
}

fn maps(layers: usize, heads: usize, s: usize, t: usize) -> AttentionMaps {
    AttentionMaps {
        encoder_self: (0..layers).map(|l| weights(2, heads, s, s, l as f32)).collect(),
        decoder_self: (0..layers).map(|l| weights(2, heads, t, t, 10.0 + l as f32)).collect(),
        cross: (0..layers).map(|l| weights(2, heads, t, s, 20.0 + l as f32)).collect(),
    }
}

fn tokens(n: usize, stem: &str) -> Vec<String> {
    (0..n).map(|i| format!("{stem}{i}")).collect()
}

/// Decodes one kind's weights back out of the page, as the script does.
fn decoded(html: &str, kind: usize) -> Vec<f32> {
    let data = html.split("class=\"zoo-explorer-data\">").nth(1).unwrap().split("</script>").next().unwrap();
    let json: serde_json::Value = serde_json::from_str(data).unwrap();
    let b64 = json["kinds"][kind]["weights"].as_str().unwrap();
    let mut bytes = vec![];
    let val = |c: u8| b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".iter().position(|&a| a == c).unwrap() as u32;
    for chunk in b64.as_bytes().chunks(4) {
        let pads = chunk.iter().filter(|&&c| c == b'=').count();
        let n = chunk.iter().take(4 - pads).enumerate().fold(0u32, |n, (k, &c)| n | val(c) << (18 - 6 * k));
        bytes.extend(&[(n >> 16) as u8, (n >> 8) as u8, n as u8][..3 - pads]);
    }
    let n = json["kinds"][kind]["layers"].as_u64().unwrap()
        * json["kinds"][kind]["heads"].as_u64().unwrap()
        * json["kinds"][kind]["rows"].as_array().unwrap().len() as u64
        * json["kinds"][kind]["cols"].as_array().unwrap().len() as u64;
    unpack10(&bytes, n as usize).into_iter().map(dequantize).collect()
}

#[test]
fn the_page_carries_every_weight_of_the_sequence_asked_for() {
    let m = maps(2, 4, 5, 3);
    let (src, tgt) = (tokens(5, "s"), tokens(3, "t"));
    let e = explore(&m, 1, &src, &tgt).unwrap();
    assert_eq!(
        e.kinds.iter().map(|k| (k.name.as_str(), k.layers, k.heads, k.rows.len(), k.cols.len())).collect::<Vec<_>>(),
        [("encoder self-attention", 2, 4, 5, 5), ("decoder self-attention", 2, 4, 3, 3), ("cross-attention", 2, 4, 3, 5)]
    );
    let html = e.html().unwrap();
    for (k, layers) in [&m.encoder_self, &m.decoder_self, &m.cross].into_iter().enumerate() {
        let want: Vec<f32> = layers.iter().flat_map(|t| t.get(1).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap()).collect();
        let got = decoded(&html, k);
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(format!("{g:.3}"), format!("{w:.3}"), "{g} against {w}");
        }
        assert_eq!(e.kinds[k].weight(1, 2, 0, 1), want[(4 + 2) * e.kinds[k].rows.len() * e.kinds[k].cols.len() + 1]);
    }
    assert!(html.contains("<svg") && html.contains("zoo-explorer-static") && html.contains("zooExplorerMount(\"zoo-explorer-"));
    let other = e.html().unwrap();
    let id = |h: &str| h.split("id=\"").nth(1).unwrap().split('"').next().unwrap().to_string();
    assert_ne!(id(&html), id(&other), "two outputs share an id");
}

#[test]
fn the_lectures_alphas_are_one_layer_and_one_head() {
    let alphas = weights(1, 1, 2, 2, 0.0).squeeze(0).unwrap(); // (N, Lq, L) = (1, 2, 2)
    let e = explore_alphas(&alphas, &["x2", "x3"], &["x0", "x1"]).unwrap();
    let k: &AttentionKind = &e.kinds[0];
    assert_eq!(
        (k.layers, k.heads, k.rows.clone(), k.cols.clone()),
        (1, 1, vec!["x2".to_string(), "x3".into()], vec!["x0".to_string(), "x1".into()])
    );
    assert_eq!(k.weights, alphas.flatten_all().unwrap().to_vec1::<f32>().unwrap());
}

#[test]
fn wrong_inputs_get_errors_naming_what_is_off() {
    let m = maps(2, 4, 5, 3);
    let e = explore(&m, 0, &tokens(4, "s"), &tokens(3, "t")).unwrap_err().to_string();
    assert!(e.contains("explore: encoder self-attention, layer 0") && e.contains("5"), "{e}");
    let e = explore(&m, 2, &tokens(5, "s"), &tokens(3, "t")).unwrap_err().to_string();
    assert!(e.contains("sequence 2"), "{e}");
    let mut odd = maps(2, 4, 5, 3);
    odd.cross[1] = weights(2, 2, 3, 5, 0.0);
    let e = explore(&odd, 0, &tokens(5, "s"), &tokens(3, "t")).unwrap_err().to_string();
    assert!(e.contains("layer 1 has 2 heads, layer 0 has 4"), "{e}");
    let bad = Tensor::new(&[[0.5f32, f32::NAN]], &Device::Cpu).unwrap();
    assert!(explore_alphas(&bad, &["q"], &["a", "b"]).unwrap_err().to_string().contains("[0, 1]"));
    // a kind built by hand that does not hold what its sizes say
    let mut by_hand = explore_alphas(&Tensor::new(&[[0.25f32, 0.75]], &Device::Cpu).unwrap(), &["q"], &["a", "b"]).unwrap();
    by_hand.kinds[0].layers = 2;
    assert!(by_hand.html().unwrap_err().to_string().contains("expected at least one layer and head and 2 x 1 x 1 x 2 weights"));
    by_hand.kinds[0].layers = 0;
    assert!(by_hand.html().unwrap_err().to_string().contains("got 0 layers"));
    by_hand.kinds[0].layers = 1;
    by_hand.kinds[0].weights[1] = 1.5;
    assert!(by_hand.html().unwrap_err().to_string().contains("alphas: explore: attention weights lie in [0, 1], got 1.5"));
    let empty = AttentionMaps { encoder_self: vec![], decoder_self: vec![], cross: vec![] };
    assert!(explore(&empty, 0, &tokens(5, "s"), &tokens(3, "t")).unwrap_err().to_string().contains("no layers"));
}

/// The paper's depth on long sentences stays a few hundred kB (the weights about 384 kB, the
/// script and its style about 60 kB).
#[test]
fn six_layers_of_eight_heads_on_forty_tokens_stay_small() {
    let m = maps(6, 8, 40, 40);
    let html = explore(&m, 0, &tokens(40, "s"), &tokens(40, "t")).unwrap().html().unwrap();
    assert!(html.len() < 500_000, "{} bytes", html.len());
}

/// `ZOO_EXPLORER_OUT=dir cargo test --lib explorer` writes a page with explorers as the crate
/// draws them (a lecture-size one, a 2 x 4 one on 19 tokens, the 6 x 8 one on 40), to try the
/// script on: `tools/check_explorer.py dir/explorers.html`.
#[test]
fn writes_a_page_of_explorers_when_asked() {
    let Some(dir) = std::env::var_os("ZOO_EXPLORER_OUT") else { return };
    std::fs::create_dir_all(&dir).unwrap();
    let small = explore_alphas(&weights(1, 1, 2, 2, 0.0).squeeze(0).unwrap(), &["x2", "x3"], &["x0", "x1"]).unwrap();
    let mid = explore(&maps(2, 4, 19, 17), 0, &tokens(19, "s"), &tokens(17, "t")).unwrap();
    let big = explore(&maps(6, 8, 40, 40), 0, &tokens(40, "s"), &tokens(40, "t")).unwrap();
    let body: String = [small, mid, big].iter().map(|e| e.html().unwrap()).collect::<Vec<_>>().join("\n<hr>\n");
    std::fs::write(std::path::Path::new(&dir).join("explorers.html"), format!("<!doctype html><meta charset=utf-8><body>{body}</body>"))
        .unwrap();
}
