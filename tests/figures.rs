//! Every figure renders as SVG with the pieces a reader needs (labels, values, one panel per
//! sequence and head), and bad input gives an error rather than a broken picture.

use attention_zoo::prelude::*;

fn labels(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn attention_figures() {
    let fig = figure9().unwrap();
    assert!(fig.svg.contains("européenne") && fig.svg.contains("0.80") && fig.svg.contains("0.20"));
    let q = Tensor::new(&[0.55f32, 0.95], &Device::Cpu).unwrap();
    let k = Tensor::new(&[[0.65f32, 0.2], [0.85, -0.4], [-0.95, -0.75]], &Device::Cpu).unwrap();
    let fig = query_and_keys(&q, &k, Some(&Tensor::new(&[0.5706f32, -0.0993], &Device::Cpu).unwrap())).unwrap();
    assert!(
        fig.svg.contains("cos=0.73") && fig.svg.contains("cos=-0.93") && fig.svg.contains("context"),
        "norms and cosines in the legend"
    );
    let e = query_and_keys(&Tensor::zeros(3, DType::F32, &Device::Cpu).unwrap(), &k, None).unwrap_err().to_string();
    assert!(e.contains("two dimensions"), "{e}");

    let alphas = Tensor::new(&[[[0.9649f32, 0.0351], [0.0757, 0.9243]], [[0.5, 0.5], [0.2, 0.8]]], &Device::Cpu).unwrap();
    let fig = plot_attention(&alphas, &labels(&["first", "second"]), &labels(&["x0", "x1"]), &labels(&["x2", "x3"])).unwrap();
    assert!(fig.svg.contains("first") && fig.svg.contains("0.96") && fig.svg.contains("x3"));
    let heads = Tensor::stack(&[alphas.clone(), alphas.clone(), alphas.clone()], 0).unwrap();
    let fig = plot_attention(&heads, &labels(&["a", "b"]), &labels(&["x0", "x1"]), &labels(&["x2", "x3"])).unwrap();
    assert_eq!(fig.svg.matches("(head ").count(), 6, "one panel per sequence and head");
    let e = plot_attention(&alphas, &labels(&["a"]), &labels(&["x0"]), &labels(&["x2", "x3"])).unwrap_err().to_string();
    assert!(e.contains("labels"), "{e}");

    let html = show_alphas(&alphas, &["x0", "x1"], &["x2", "x3"]).html().unwrap();
    assert_eq!(html.matches("<table").count(), 2);
    assert!(html.contains("0.9649") && html.contains("background:rgb("));
}

#[test]
fn positional_encoding_figures() {
    let fig = encoding_degrees(&[4, 5, 7], 8).unwrap();
    assert!(fig.svg.contains("base 7") && fig.svg.contains("270°") && fig.svg.contains("257°"));
    let fig = exponential_dials(8, 10).unwrap();
    assert!(fig.svg.contains("w=0.001") && fig.svg.contains("pos 9"));
    let fig = encoding_curves(10, 8).unwrap();
    assert!(fig.svg.contains("dim 7 (cos)") && fig.svg.contains("0.84"));
    let table = positional_encoding_table(10, 8).unwrap();
    let d = encoding_distances(&table, 5).unwrap();
    assert_eq!(d.dims(), [5, 5]);
    let fig = plot_mesh(&d, "Distances between positions", "position").unwrap();
    assert!(fig.svg.contains("Distances between positions") && fig.svg.contains("0.00"));
    assert!(plot_mesh(&Tensor::zeros(3, DType::F32, &Device::Cpu).unwrap(), "x", "y").is_err());
    assert!(encoding_degrees(&[], 8).is_err());
}
