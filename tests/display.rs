//! Tensors print as PyTorch prints them (tests/fixtures/display.json holds `str(t)` from PyTorch),
//! and show as HTML tables.

use crate::common;

use attention_zoo::notebook::{tensor_to_html, tensor_to_text};
use attention_zoo::prelude::*;
use common::fixtures::{TensorFx, load_as};
use serde::Deserialize;
use std::collections::BTreeMap;

/// One case of `tests/fixtures/display.json`: a tensor, its PyTorch dtype and `str(t)`.
#[derive(Deserialize)]
struct Case {
    tensor: TensorFx,
    dtype: String,
    str: String,
}

/// `tests/fixtures/display.json`: the script that wrote it, then every case by name.
#[derive(Deserialize)]
struct DisplayFx {
    #[serde(rename = "_source")]
    _source: String,
    #[serde(flatten)]
    cases: BTreeMap<String, Case>,
}

/// Every case by name.
fn cases() -> BTreeMap<String, Case> {
    load_as::<DisplayFx>("display").cases
}

fn fixture_tensor(case: &Case) -> Tensor {
    let t = case.tensor.tensor();
    match case.dtype.as_str() {
        "torch.float32" => t,
        "torch.int64" => t.to_dtype(DType::I64).unwrap(),
        "torch.uint8" => t.to_dtype(DType::U8).unwrap(),
        d => panic!("no candle dtype for {d}"),
    }
}

#[test]
fn text_matches_pytorch_print() {
    for (name, case) in cases() {
        let got = match case.dtype.as_str() {
            // PyTorch's bool masks: our masks are u8 0/1 tensors shown with `.bools()`
            "torch.bool" => show(&case.tensor.tensor().to_dtype(DType::U8).unwrap()).bools().text(),
            // `torch.set_printoptions(precision=2, sci_mode=False)`
            "decimals=2" => show(&case.tensor.tensor()).decimals(2).text(),
            _ => tensor_to_text(&fixture_tensor(&case)).unwrap(),
        };
        assert_eq!(got, case.str, "{name}");
    }
}

#[test]
fn bools_refuse_a_tensor_that_is_not_a_mask() {
    let t = Tensor::new(&[0u8, 2, 1], &Device::Cpu).unwrap();
    let text = show(&t).bools().text();
    assert!(text.contains("a boolean display needs a mask of 0s and 1s, and the tensor holds 2"), "{text}");
    let html = show(&t).bools().html();
    assert!(html.contains("tensor could not be read") && html.contains("holds 2"), "{html}");
}

#[test]
fn html_tables_label_indices_and_elide_large_tensors() {
    let fx = cases();
    let html = tensor_to_html(&fixture_tensor(&fx["randn_3d"])).unwrap();
    assert_eq!(html.matches("<table").count(), 2, "one table per leading index");
    assert!(html.contains("[0]") && html.contains("[1]") && html.contains("shape [2, 3, 4]"));
    let html = tensor_to_html(&fixture_tensor(&fx["randn_4d"])).unwrap();
    assert_eq!(html.matches("<table").count(), 4);
    assert!(html.contains("[1, 0]"));
    let html = tensor_to_html(&fixture_tensor(&fx["large_2d"])).unwrap();
    assert!(html.contains("…"), "elided");
    assert_eq!(html.matches("<tr>").count(), 1 + 7, "header, 3 + gap + 3 rows");
    assert!(html.contains("-0.0933") && html.contains("-1.8939"));
    let html = tensor_to_html(&fixture_tensor(&fx["large_3d"])).unwrap();
    assert_eq!(html.matches("<table").count(), 6, "3 + 3 leading indices");
    let shown = show(&fixture_tensor(&fx["fixed_2x2"]));
    assert!(shown.html().contains("0.3105") && shown.text().starts_with("tensor([[ 0.3105"));
}
