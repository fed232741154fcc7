//! The notebook layer under bad input (issue 12): loss plots of extreme values come back
//! quickly, dtypes candle cannot convert are an error, big displays stay small and say what they
//! leave out, zero and odd sizes are errors rather than panics, and plots handed more or fewer
//! values than they draw refuse them.

use attention_zoo::notebook::{figure, heatmap_panel, tensor_to_html, tensor_to_text};
use attention_zoo::prelude::*;
use std::sync::mpsc::channel;
use std::time::Duration;

/// Runs `f` on a thread and returns its result, failing the test if it panics or takes more
/// than 10 s (the thread is left behind; the test binary exits anyway).
fn within_10s<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(v) => v,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{what}: hung (no answer within 10 s)"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: panicked"),
    }
}

fn labels(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("x{i}")).collect()
}

fn rand(shape: &[usize]) -> Tensor {
    Tensor::rand(0f32, 1f32, shape, &Device::Cpu).unwrap()
}

#[test]
fn loss_plots_of_extreme_values_come_back_quickly() {
    let cases: Vec<(&str, Vec<f64>, Option<&str>)> = vec![
        ("f64::MAX and 1", vec![f64::MAX, 1.0], Some("not shown")),
        ("1e308 and 1e-308", vec![1e308, 1e-308], Some("values below 1.0e278 not shown")),
        ("600 decades", vec![1e-300, 1e300], Some("values below 1.0e270 not shown")),
        ("a subnormal", vec![5e-324, 1.0], Some("values below 1.0e-30 not shown")),
        ("NaN and inf in the middle", vec![1.0, f64::NAN, f64::INFINITY, 0.5, -1.0, 0.25], Some("3 NaN, infinite or non-positive")),
        ("only f64::MAX", vec![f64::MAX], None),
        ("ordinary", vec![1.0, 0.5, 0.25], None),
    ];
    for (what, losses, note) in cases {
        let fig = within_10s(what, move || plot_losses(&losses, &losses[..1]).map(|f| f.svg)).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(fig.contains("Training Loss") && fig.len() < 200_000, "{what}: {} bytes", fig.len());
        match note {
            Some(n) => assert!(fig.contains(n), "{what}: the caption says what was cut ({n})"),
            None => assert!(!fig.contains("not shown"), "{what}: nothing cut"),
        }
    }
    // Nothing drawable on a log axis: an error naming the plot, never a hang.
    for losses in [vec![f64::NAN, 0.0], vec![]] {
        let e = within_10s("undrawable", move || plot_losses(&losses, &[])).unwrap_err().to_string();
        assert!(e.contains("plot_losses"), "{e}");
    }
    // A long run draws a bounded number of points.
    let long: Vec<f64> = (1..=100_000).map(|i| 1.0 / i as f64).collect();
    let fig = within_10s("100000 epochs", move || plot_losses(&long, &[]).unwrap());
    assert!(fig.svg.len() < 500_000 && fig.svg.contains("one point per 50 epochs"), "{} bytes", fig.svg.len());
}

#[test]
fn show_of_dtypes_candle_cannot_convert_is_an_error_not_a_hang() {
    // candle's F8E4M3 -> F64 conversion never returns; the notebook reads it through F32.
    let bytes = [0x01u8, 0x3c, 0x40, 0x80, 0x00, 0x7e, 0xff, 0x12];
    let f8 = Tensor::from_raw_buffer(&bytes, DType::F8E4M3, &[2, 4], &Device::Cpu).unwrap();
    let t = f8.clone();
    let (text, html) = within_10s("show(F8E4M3)", move || (show(&t).text(), show(&t).html()));
    assert!(text.contains("4.4800e+02") && text.contains("nan") && text.contains("float8_e4m3fn"), "{text}");
    assert!(html.contains("<table"), "{html}");
    let t = f8.clone();
    let alphas = within_10s("show_alphas(F8E4M3)", move || show_alphas(&t, &[], &[]).html().unwrap());
    assert!(alphas.contains("1.5000"), "{alphas}");
    let t = f8.clone();
    within_10s("plot_mesh(F8E4M3)", move || plot_mesh(&t, "f8", "row").unwrap());
    // The dummy dtypes hold raw bytes no conversion reads: a clear error naming the display.
    for dtype in [DType::F4, DType::F6E2M3, DType::F6E3M2, DType::F8E8M0] {
        let t = Tensor::from_raw_buffer(&[0u8; 8], dtype, &[2, 4], &Device::Cpu).unwrap();
        let text = show(&t).text();
        assert!(text.contains("tensor could not be read") && text.contains(&format!("{dtype:?}")), "{text}");
        assert!(show(&t).html().contains("tensor could not be read"));
        let e = show_alphas(&t, &[], &[]).html().unwrap_err().to_string();
        assert!(e.contains("show_alphas") && e.contains(&format!("{dtype:?}")), "{e}");
        let e = plot_attention(&t.reshape((1, 2, 4)).unwrap(), &[], &labels(4), &labels(2)).unwrap_err().to_string();
        assert!(e.contains("plot_attention") && e.contains("dtype"), "{e}");
        let e = plot_mesh(&t, "x", "y").unwrap_err().to_string();
        assert!(e.contains("plot_mesh"), "{e}");
        assert!(tensor_to_html(&t).is_err() && tensor_to_text(&t).is_err());
    }
    // Every integer dtype candle converts reads as it should.
    for dtype in [DType::U8, DType::U32, DType::I16, DType::I32, DType::I64] {
        let t = Tensor::new(&[[1f32, 2.0], [3.0, 4.0]], &Device::Cpu).unwrap().to_dtype(dtype).unwrap();
        assert!(show(&t).text().starts_with("tensor([[1, 2]"), "{dtype:?}: {}", show(&t).text());
        assert!(show_alphas(&t, &[], &[]).html().unwrap().contains("4.0000"));
    }
}

#[test]
fn big_displays_stay_small_and_say_what_they_leave_out() {
    const LIMIT: usize = 2_000_000;
    let note = "rows) 0-19 and 980-999 of 1000";
    let big = rand(&[1000, 1000]);
    let b = big.clone();
    let html = within_10s("show_alphas 1000x1000", move || show_alphas(&b, &[], &[]).html().unwrap());
    assert!(html.len() < LIMIT && html.contains(note), "show_alphas: {} bytes", html.len());
    let b = big.clone();
    let svg = within_10s("plot_mesh 1000x1000", move || plot_mesh(&b, "big", "position").unwrap().svg);
    assert!(svg.len() < LIMIT && svg.contains("rows 0-19 and 980-999 of 1000"), "plot_mesh: {} bytes", svg.len());
    let b = big.unsqueeze(0).unwrap();
    let svg = within_10s("plot_attention 1000x1000", move || plot_attention(&b, &[], &labels(1000), &labels(1000)).unwrap().svg);
    assert!(svg.len() < LIMIT && svg.contains(note) && svg.contains("x999"), "plot_attention: {} bytes", svg.len());
    // Many heads and sequences: a bounded number of tables and panels.
    let heads = rand(&[16, 64, 50, 50]);
    let h = heads.clone();
    let html = within_10s("show_alphas (16, 64, 50, 50)", move || show_alphas(&h, &[], &[]).html().unwrap());
    assert!(html.len() < LIMIT && html.contains("sequences 0-9 of 64") && html.contains("heads 0 of 16"), "{} bytes", html.len());
    assert_eq!(html.matches("<table").count(), 10);
    let svg = within_10s("plot_attention (16, 64, 50, 50)", move || plot_attention(&heads, &[], &labels(50), &labels(50)).unwrap().svg);
    assert!(svg.len() < LIMIT && svg.contains("sequences 0-9 of 64"), "{} bytes", svg.len());
    // Small ones are shown whole, with no note.
    let small = show_alphas(&rand(&[2, 3, 3]), &[], &[]).html().unwrap();
    assert!(!small.contains("showing") && small.matches("<table").count() == 2);
}

/// `f()` must return (an error or a figure) rather than panic.
fn no_panic<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| panic!("{what}: panicked"))
}

#[test]
fn zero_and_odd_sizes_are_errors_not_panics() {
    let dev = &Device::Cpu;
    let err = |what: &str, name: &str, r: Result<Figure>| {
        let e = no_panic(what, || r).err().unwrap_or_else(|| panic!("{what}: accepted")).to_string();
        assert!(e.contains(name), "{what}: {e}");
    };
    err("no heads", "plot_attention", no_panic("no heads", || plot_attention(&rand(&[0, 2, 3, 3]), &[], &labels(3), &labels(3))));
    err("no sequences", "plot_attention", no_panic("no sequences", || plot_attention(&rand(&[2, 0, 3, 3]), &[], &labels(3), &labels(3))));
    err("rank 2 alphas", "plot_attention", plot_attention(&rand(&[3, 3]), &[], &labels(3), &labels(3)));
    let empty = rand(&[0, 4, 2]);
    err("N = 0", "sequence_pred", no_panic("N = 0", || sequence_pred(&empty, &empty.narrow(1, 2, 2).unwrap(), &[])));
    let one_coord = rand(&[3, 4, 1]);
    err("points of one coordinate", "sequence_pred", no_panic("(N, L, 1)", || sequence_pred(&one_coord, &one_coord, &[0, 1, 0])));
    let s = generate_sequences(10, false, 13).unwrap();
    err("n_rows = 0", "plot_data", plot_data(&s.points, &s.directions, 0));
    let fig = no_panic("n_rows = usize::MAX", || plot_data(&s.points, &s.directions, usize::MAX)).unwrap();
    assert!(fig.svg.contains("Clockwise") && fig.svg.len() < 500_000);
    let odd: Vec<Vec<[f64; 2]>> = vec![vec![], vec![[f64::NAN, 1.0]], vec![[0.0, 0.0]; 50]];
    no_panic("empty, NaN and long walks", || plot_data(&odd, &[0, 1, 7], 1)).unwrap();
    for shape in [[0usize, 0], [1, 0], [0, 3]] {
        err("empty matrix", "plot_mesh", no_panic("empty matrix", || plot_mesh(&rand(&shape), "m", "p")));
    }
    err("rank 1 matrix", "plot_mesh", plot_mesh(&rand(&[3]), "m", "p"));
    let nan = Tensor::new(&[[f32::NAN, f32::INFINITY], [f32::NEG_INFINITY, f32::MAX]], dev).unwrap();
    no_panic("NaN mesh", || plot_mesh(&nan, "m", "p")).unwrap();
    no_panic("extreme mesh", || plot_mesh(&Tensor::new(&[[f64::MAX, -f64::MAX]], dev).unwrap(), "m", "p")).unwrap();
    no_panic("integer mesh", || plot_mesh(&Tensor::new(&[[1i64, 2], [3, 4]], dev).unwrap(), "m", "p")).unwrap();
    let nan_alphas = nan.unsqueeze(0).unwrap();
    no_panic("NaN alphas", || plot_attention(&nan_alphas, &[], &labels(2), &labels(2))).unwrap();
    err("encoding_curves(0, 0)", "encoding_curves", no_panic("curves", || encoding_curves(0, 0)));
    err("encoding_curves huge", "encoding_curves", no_panic("curves", || encoding_curves(usize::MAX, 8)));
    err("exponential_dials huge", "exponential_dials", no_panic("dials", || exponential_dials(8, usize::MAX)));
    err("exponential_dials wide", "exponential_dials", no_panic("dials", || exponential_dials(usize::MAX, 4)));
    err("encoding_degrees huge", "encoding_degrees", no_panic("degrees", || encoding_degrees(&[4], usize::MAX)));
    err("plot_sequences huge", "plot_sequences", no_panic("sequences", || plot_sequences(usize::MAX)));
    let k = rand(&[3, 2]);
    let q = rand(&[2]);
    err("short context", "query_and_keys", no_panic("context", || query_and_keys(&q, &k, Some(&rand(&[1])))));
    err("keys of rank 1", "query_and_keys", no_panic("keys", || query_and_keys(&q, &rand(&[2]), None)));
    err("zero-sized figure", "empty", no_panic("figure", || figure("empty", (0, 10), |_| Ok(()))));
    err("giant figure", "giant", no_panic("figure", || figure("giant", (u32::MAX, 10), |_| Ok(()))));
    let e = no_panic("empty heatmap", || figure("f", (100, 100), |root| heatmap_panel(root, "t", &[], &[], &[]))).unwrap_err();
    assert!(e.to_string().contains("heatmap"), "{e}");
    let table = positional_encoding_table(10, 8).unwrap();
    let e = no_panic("distances", || encoding_distances(&table, 11)).unwrap_err().to_string();
    assert!(e.contains("encoding_distances") && e.contains("11"), "{e}");
    assert_eq!(encoding_distances(&table, 0).unwrap().dims(), [0, 0]);
    let e = no_panic("batch_of_one(&[])", || batch_of_one(&[])).unwrap_err().to_string();
    assert!(e.contains("batch_of_one") && e.contains("0 rows"), "{e}");
    // Zero-sized tensors show as empty tables.
    for shape in [vec![0usize], vec![2, 0], vec![0, 3, 3], vec![2, 0, 3, 3]] {
        let t = rand(&shape);
        assert!(show(&t).text().starts_with("tensor(["), "{shape:?}: {}", show(&t).text());
        if shape.len() > 1 {
            no_panic("show_alphas of nothing", || show_alphas(&t, &[], &[]).html()).unwrap();
        }
    }
    assert!(show_alphas(&rand(&[5]), &[], &[]).html().unwrap_err().to_string().contains("show_alphas"));
}

#[test]
fn plots_refuse_more_or_fewer_values_than_they_draw() {
    let s = generate_sequences(10, false, 13).unwrap();
    let e = plot_data(&s.points, &s.directions[..9], 2).unwrap_err().to_string();
    assert!(e.contains("plot_data") && e.contains("10 sequences") && e.contains("9 directions"), "{e}");
    let full = s.to_tensor().unwrap();
    let mut more = s.directions.clone();
    more.push(1);
    let e = sequence_pred(&full, &full.narrow(1, 2, 2).unwrap(), &more).unwrap_err().to_string();
    assert!(e.contains("sequence_pred") && e.contains("(10)") && e.contains("11 directions"), "{e}");
    let alphas = rand(&[2, 2, 2]);
    let e = plot_attention(&alphas, &labels(1), &labels(2), &labels(2)).unwrap_err().to_string();
    assert!(e.contains("plot_attention") && e.contains("(2)") && e.contains("1 titles"), "{e}");
    let e = plot_attention(&alphas, &labels(3), &labels(2), &labels(2)).unwrap_err().to_string();
    assert!(e.contains("3 titles"), "{e}");
    let e = plot_attention(&alphas, &[], &labels(3), &labels(2)).unwrap_err().to_string();
    assert!(e.contains("expected 2 source") && e.contains("got 3 source"), "{e}");
    // No titles number the sequences; losses and validation losses may differ in length.
    assert!(plot_attention(&alphas, &[], &labels(2), &labels(2)).unwrap().svg.contains("sequence 1"));
    assert!(plot_losses(&[1.0, 0.5, 0.25], &[]).is_ok() && plot_losses(&[1.0], &[1.0, 0.9]).is_ok());
}
