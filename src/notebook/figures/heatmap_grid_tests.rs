//! `show_heatmaps` (issue 14, item 7): a grid of attention maps, layers by heads, with token
//! labels on both axes, a title per panel and one colour bar shared by all panels; its three
//! Transformer uses; its layout and colour-scale arithmetic; and errors, never panics, for bad
//! input.

use crate::notebook::figures::grid_layout::{COLORBAR_STEPS, FONT, LayoutSpec, MIN_LABEL_FONT, cell_size, label_font, label_step, layout};
use crate::notebook::figures::heatmap_grid::{GridDims, MAX_GRID_PANELS, fit_label, shade, tick_label, ticks, value_range};
use crate::notebook::figures::plots::heatmaps::{COLORBAR_FRAME, PANEL_FRAME};
use crate::notebook::page::palette::heat_color;
use crate::prelude::*;

fn hex(c: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// Panel frames and colour-bar frames in an SVG (plotters writes a frame as an unfilled rect).
fn frames(svg: &str, c: plotters::style::RGBColor) -> usize {
    svg.matches(&format!("fill=\"none\" stroke=\"{}\"", hex(c))).count()
}

/// How many texts read exactly `s` (plotters writes a text's content on a line of its own).
fn texts(svg: &str, s: &str) -> usize {
    svg.matches(&format!(">\n{s}\n</text>")).count()
}

/// Filled rectangles of one colour.
fn filled(svg: &str, c: plotters::style::RGBColor) -> usize {
    svg.matches(&format!("fill=\"{}\" stroke=\"none\"", hex(c))).count()
}

/// Softmax rows of `(rows, cols, lq, lk)` made-up scores.
fn weights(dims: (usize, usize, usize, usize)) -> Tensor {
    let n = dims.0 * dims.1 * dims.2 * dims.3;
    let scores: Vec<f32> = (0..n).map(|i| ((i * 7919) % 13) as f32 / 3.0).collect();
    let t = Tensor::from_vec(scores, dims, &Device::Cpu).unwrap();
    softmax(&t).unwrap()
}

#[test]
fn a_grid_has_its_labels_one_frame_per_panel_and_one_colour_bar() {
    let w = weights((2, 3, 4, 5));
    let grid = HeatmapGrid::new()
        .x_labels(["le", "chat", "est", "noir", "<eos>"])
        .y_labels(["the", "cat", "is", "black"])
        .names("layer", "head")
        .row_titles(["encoder 1", "encoder 2"])
        .col_titles(["h1", "h2", "h3"])
        .title("made-up attention");
    let fig = show_heatmaps(&w, &grid).unwrap();
    let svg = &fig.svg;
    for label in ["chat", "noir", "&lt;eos&gt;", "black", "encoder 2", "h3", "made-up attention", "keys", "queries"] {
        assert!(svg.contains(label), "{label} missing");
    }
    for r in 1..=2 {
        for c in 1..=3 {
            assert_eq!(texts(svg, &format!("layer {r}, head {c}")), 1, "title of panel ({r}, {c})");
        }
    }
    assert_eq!(frames(svg, PANEL_FRAME), 6, "one frame per panel");
    assert_eq!(frames(svg, COLORBAR_FRAME), 1, "one colour bar");
    // Cells: 2 x 3 panels of 4 x 5; bands: the colour bar's; plus the white background.
    assert_eq!(svg.matches("<rect").count(), 6 * 4 * 5 + COLORBAR_STEPS + 6 + 1 + 1);
    // Column labels under the last row of panels only, row labels left of the first column only.
    assert_eq!(texts(svg, "noir"), 3);
    assert_eq!(texts(svg, "black"), 2);
    fig.evcxr_display();
}

#[test]
fn all_panels_share_one_colour_scale() {
    // Panel (0, 0) holds values up to 0.5, panel (0, 1) up to 0.75: the colour bar runs from the
    // smallest to the largest value of both, and 0.5 is shaded alike wherever it is.
    let a = [[0.5f32, 0.25], [0.375, 0.3125]];
    let b = [[0.75f32, 0.5], [0.25, 0.625]];
    let w = Tensor::new(&[[a, b]], &Device::Cpu).unwrap();
    let svg = show_heatmaps(&w, &HeatmapGrid::new()).unwrap().svg;
    assert!(texts(&svg, "0.25") > 0 && texts(&svg, "0.50") > 0 && texts(&svg, "0.75") > 0, "ticks from 0.25 to 0.75");
    assert_eq!(filled(&svg, heat_color(1.0)), 1, "only 0.75 is darkest");
    assert_eq!(filled(&svg, heat_color(0.5)), 2, "0.5 shaded alike in both panels");
    assert_eq!(filled(&svg, heat_color(0.0)), 2, "0.25 lightest in both panels");
    assert_eq!(frames(&svg, COLORBAR_FRAME), 1);
    // A given range overrides the data's, and values print when asked.
    let svg = show_heatmaps(&w, &HeatmapGrid::new().range(0.0, 1.0).values(true)).unwrap().svg;
    assert!(texts(&svg, "0.00") > 0 && texts(&svg, "1.00") > 0 && texts(&svg, "0.62") > 0);
    assert_eq!(filled(&svg, heat_color(0.5)), 2);
}

#[test]
fn transformer_wrappers_label_the_axes_they_attend_over() {
    let source = ["ich", "bin", "ein", "Berliner"];
    let target = ["<sos>", "I", "am"];
    let enc = vec![weights((2, 4, 4, 4)); 3];
    let fig = show_encoder_attention(&enc, 1, &source).unwrap();
    assert!(fig.svg.contains("Encoder self-attention (sequence 1)") && fig.svg.contains("layer 3, head 4") && fig.svg.contains("Berliner"));
    assert_eq!(frames(&fig.svg, PANEL_FRAME), 12);
    assert_eq!(frames(&fig.svg, COLORBAR_FRAME), 1);

    let dec = [weights((1, 2, 3, 3)), weights((1, 2, 3, 3))];
    let fig = show_decoder_attention(&dec, 0, &target).unwrap();
    assert!(fig.svg.contains("Decoder self-attention") && fig.svg.contains("keys (target)") && fig.svg.contains("layer 2, head 2"));
    assert_eq!(frames(&fig.svg, PANEL_FRAME), 4);

    // Cross-attention: queries are target tokens (Lt = 3), keys source tokens (Ls = 4); weights
    // of one sequence may come without the batch dimension.
    let cross = [weights((1, 2, 3, 4)).squeeze(0).unwrap()];
    let fig = show_cross_attention(&cross, 0, &source, &target).unwrap();
    assert!(fig.svg.contains("Cross-attention") && fig.svg.contains("queries (target)") && fig.svg.contains("keys (source)"));
    assert!(!fig.svg.contains("(sequence"), "no batch, no sequence in the title");
    let e = show_cross_attention(&cross, 0, &target, &source).unwrap_err().to_string();
    assert!(e.starts_with("show_cross_attention:") && e.contains("expected 4 x labels") && e.contains("got 3"), "{e}");

    let stacked = stack_layers(&enc, 0).unwrap();
    assert_eq!(stacked.dims(), [3, 4, 4, 4]);
    let same = show_heatmaps(&stacked, &HeatmapGrid::encoder_self_attention(source)).unwrap();
    assert!(same.svg.contains("layer 1, head 1"));
}

#[test]
fn bad_input_is_an_error_naming_the_function_and_the_sizes() {
    let err = |t: &Tensor, g: &HeatmapGrid| show_heatmaps(t, g).unwrap_err().to_string();
    let g = HeatmapGrid::new();
    let e = err(&weights((2, 3, 4, 5)).get(0).unwrap(), &g);
    assert!(e.starts_with("show_heatmaps:") && e.contains("rank 4") && e.contains("[3, 4, 5]"), "{e}");
    let e = err(&Tensor::zeros((0, 2, 3, 3), DType::F32, &Device::Cpu).unwrap(), &g);
    assert!(e.contains("at least 1") && e.contains("[0, 2, 3, 3]"), "{e}");
    let e = err(&Tensor::zeros((9, 8, 2, 2), DType::F32, &Device::Cpu).unwrap(), &g);
    assert!(e.contains(&format!("at most {MAX_GRID_PANELS} panels")) && e.contains("9 x 8 = 72"), "{e}");
    let e = err(&Tensor::zeros((1, 1, 101, 3), DType::F32, &Device::Cpu).unwrap(), &g);
    assert!(e.contains("at most 100 queries and keys") && e.contains("101 x 3"), "{e}");
    let e = err(&Tensor::zeros((8, 8, 30, 30), DType::F32, &Device::Cpu).unwrap(), &g);
    assert!(e.contains("cells") && e.contains("57600"), "{e}");
    let w = weights((2, 3, 4, 5));
    let e = err(&w, &HeatmapGrid::new().x_labels(["a", "b"]));
    assert!(e.contains("expected 5 x labels") && e.contains("got 2"), "{e}");
    let e = err(&w, &HeatmapGrid::new().y_labels(["a"; 5]));
    assert!(e.contains("expected 4 y labels") && e.contains("got 5"), "{e}");
    let e = err(&w, &HeatmapGrid::new().titles(["a"; 5]));
    assert!(e.contains("expected 6 titles") && e.contains("got 5"), "{e}");
    let e = err(&w, &HeatmapGrid::new().row_titles(["a"; 3]));
    assert!(e.contains("expected 2 row titles"), "{e}");
    let e = err(&w, &HeatmapGrid::new().col_titles(["a"; 2]));
    assert!(e.contains("expected 3 column titles"), "{e}");
    let e = err(&w, &HeatmapGrid::new().range(1.0, 1.0));
    assert!(e.contains("lo < hi"), "{e}");
    let e = err(&w, &HeatmapGrid::new().range(0.0, f64::NAN));
    assert!(e.contains("lo < hi"), "{e}");
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut v = vec![0.5f32; 2 * 3 * 4 * 5];
        v[119] = bad;
        let t = Tensor::from_vec(v, (2, 3, 4, 5), &Device::Cpu).unwrap();
        let e = err(&t, &g);
        assert!(e.contains("finite") && e.contains("(row 1, column 2) at query 3, key 4"), "{e}");
    }

    let layers = vec![weights((2, 2, 3, 3)); 2];
    let e = show_encoder_attention(&layers, 2, &["a", "b", "c"]).unwrap_err().to_string();
    assert!(e.starts_with("show_encoder_attention:") && e.contains("below N = 2") && e.contains("got 2"), "{e}");
    let e = show_encoder_attention::<&str>(&[], 0, &[]).unwrap_err().to_string();
    assert!(e.contains("1 to 64 layers") && e.contains("got 0"), "{e}");
    let e = show_decoder_attention(&[weights((2, 2, 3, 3)), weights((2, 2, 2, 2))], 0, &["a"; 3]).unwrap_err().to_string();
    assert!(e.starts_with("show_decoder_attention:") && e.contains("one shape") && e.contains("[2, 2, 2, 2]"), "{e}");
    let e = stack_layers(&[weights((2, 2, 3, 3)).get(0).unwrap()], 1).unwrap_err().to_string();
    assert!(e.contains("one sequence") && e.contains("batch index 1"), "{e}");
    let e = stack_layers(&[Tensor::zeros((3, 3), DType::F32, &Device::Cpu).unwrap()], 0).unwrap_err().to_string();
    assert!(e.contains("(N, heads, Lq, Lk) or (heads, Lq, Lk)") && e.contains("[3, 3]"), "{e}");
    let e = show_decoder_attention(&vec![weights((1, 2, 3, 3)); 33], 0, &["a"; 3]).unwrap_err().to_string();
    assert!(e.contains("66") && e.contains("panels"), "{e}");
}

#[test]
fn the_colour_scale_is_shared_and_safe() {
    assert_eq!(value_range(&[0.2, -1.0, 3.0], None), (-1.0, 3.0));
    assert_eq!(value_range(&[0.2, 0.9], Some((0.0, 1.0))), (0.0, 1.0));
    assert_eq!(value_range(&[1.0, 1.0], None), (0.0, 1.0), "one key: every weight 1");
    assert_eq!(value_range(&[-2.0], None), (-2.0, 0.0));
    assert_eq!(value_range(&[0.0; 4], None), (0.0, 1.0));
    assert_eq!(shade(0.5, (0.0, 2.0)), 0.25);
    assert_eq!(shade(5.0, (0.0, 2.0)), 1.0);
    assert_eq!(shade(-5.0, (0.0, 2.0)), 0.0);
    assert_eq!(shade(0.0, (-f64::MAX, f64::MAX)), 0.5, "no overflow over the widest range");
    assert_eq!(shade(f64::NAN, (0.0, 1.0)), 0.0);
    assert_eq!(ticks((0.0, 1.0), 5), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    assert!(ticks((-f64::MAX, f64::MAX), 5).iter().all(|t| t.is_finite()));
    assert_eq!(tick_label(0.25, (0.0, 1.0), 5), "0.25");
    assert_eq!(tick_label(0.245, (0.24, 0.26), 5), "0.2450");
    assert_eq!(tick_label(3e6, (0.0, 4e6), 5), "3.00e6");
    assert_eq!(fit_label("Donaudampfschifffahrt", 8), "Donauda…");
    assert_eq!(fit_label("kurz", 8), "kurz");
}

fn spec(rows: usize, cols: usize, lq: usize, lk: usize) -> LayoutSpec {
    LayoutSpec {
        dims: GridDims { rows, cols, lq, lk },
        x_label_chars: 6,
        y_label_chars: 6,
        panel_title_chars: 15,
        row_title_chars: 0,
        tick_chars: 4,
        col_titles: false,
        title: true,
        x_axis: true,
        y_axis: true,
        values: false,
    }
}

#[test]
fn the_layout_keeps_panels_apart_and_inside_the_figure() {
    for (rows, cols, lq, lk) in [(1, 1, 1, 1), (2, 4, 5, 7), (6, 8, 10, 10), (1, 64, 20, 20), (64, 1, 8, 8), (2, 2, 100, 100)] {
        let s = spec(rows, cols, lq, lk);
        let lay = layout("test", &s).unwrap();
        let (pw, ph) = (lay.panel.0 as i32, lay.panel.1 as i32);
        assert_eq!((lay.panel.0, lay.panel.1), (lk as u32 * lay.cell, lq as u32 * lay.cell));
        for r in 0..rows {
            for c in 0..cols {
                let (x, y) = lay.panel_at(r, c);
                assert!(x > lay.y_label_right as i32 && y > 0 && x + pw < lay.colorbar.0 as i32, "{s:?}: panel ({r}, {c})");
                assert!(y + ph < lay.size.1 as i32);
                if c + 1 < cols {
                    assert!(lay.panel_at(r, c + 1).0 >= x + pw + 10, "{s:?}: panels apart across");
                }
                if r + 1 < rows {
                    assert!(lay.panel_at(r + 1, c).1 >= y + ph + 20, "{s:?}: room for the next row's titles");
                }
            }
        }
        let (bx, by, bw, bh) = lay.colorbar;
        assert!(bx + bw < lay.size.0 && by + bh < lay.size.1, "{s:?}: colour bar inside");
        assert!(lay.x_label_top as i32 > lay.panel_at(rows - 1, 0).1 + ph);
    }
    assert_eq!(cell_size(GridDims { rows: 1, cols: 1, lq: 4, lk: 4 }, false), 28);
    assert_eq!(cell_size(GridDims { rows: 1, cols: 1, lq: 4, lk: 4 }, true), 34);
    // up to the elision cap (40 tokens) a cell keeps room for a label of the smallest font
    assert_eq!(cell_size(GridDims { rows: 1, cols: 64, lq: 20, lk: 20 }, false), MIN_LABEL_FONT + 1);
    assert_eq!(cell_size(GridDims { rows: 1, cols: 64, lq: 41, lk: 41 }, false), 4);
    assert_eq!((label_step(28), label_step(13), label_step(12), label_step(10), label_step(4)), (1, 1, 1, 1, 4));
    assert_eq!((label_font(28), label_font(12), label_font(10), label_font(4)), (FONT, 11, MIN_LABEL_FONT, FONT));
    assert!(layout("test", &spec(9, 8, 2, 2)).unwrap_err().to_string().contains("test: expected 1 to 64 panels"));
    let wide = LayoutSpec { values: true, ..spec(1, 64, 1, 100) };
    assert!(layout("test", &wide).unwrap_err().to_string().contains("pixels"));
}

#[test]
fn transposed_and_half_precision_weights_draw_alike() {
    let w = weights((1, 2, 3, 3));
    let t = w.transpose(2, 3).unwrap();
    let a = show_heatmaps(&t, &HeatmapGrid::new()).unwrap().svg;
    let b = show_heatmaps(&t.contiguous().unwrap(), &HeatmapGrid::new()).unwrap().svg;
    assert_eq!(a, b, "a non-contiguous view reads as its values");
    let h = show_heatmaps(&w.to_dtype(DType::F16).unwrap(), &HeatmapGrid::new()).unwrap().svg;
    assert_eq!(frames(&h, PANEL_FRAME), 2);
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 64, failure_persistence: None, ..Default::default() })]

    /// Any shape, any values, any label counts: a figure or an error naming the function, never
    /// a panic; a figure has one frame per panel and one colour bar.
    #[test]
    fn any_input_gives_a_figure_or_an_error(
        dims in proptest::prop_oneof![proptest::collection::vec(1usize..6, 4), proptest::collection::vec(0usize..6, 0..6)],
        special in proptest::sample::select(vec![0.5f32, 0.0, -3.0, f32::NAN, f32::INFINITY]),
        at in 0usize..1000,
        off in 0usize..6,
    ) {
        let n: usize = dims.iter().product();
        let mut v: Vec<f32> = (0..n).map(|i| (i % 7) as f32 / 7.0).collect();
        if n > 0 {
            v[at % n] = special;
        }
        let t = Tensor::from_vec(v, dims.as_slice(), &Device::Cpu).unwrap();
        // Right label counts, except one off by one when `off` < 3.
        let size = |i: usize| dims.get(i).copied().unwrap_or(1);
        let count = |which: usize, n: usize| if off == which { n + 1 } else { n };
        let grid = HeatmapGrid::new()
            .x_labels((0..count(0, size(3))).map(|i| format!("k{i}")))
            .y_labels((0..count(1, size(2))).map(|i| format!("q{i}")))
            .titles((0..count(2, size(0) * size(1))).map(|i| format!("p{i}")));
        match show_heatmaps(&t, &grid) {
            Ok(fig) => {
                proptest::prop_assert!(off >= 3 && special.is_finite());
                proptest::prop_assert_eq!(frames(&fig.svg, PANEL_FRAME), dims[0] * dims[1]);
                proptest::prop_assert_eq!(frames(&fig.svg, COLORBAR_FRAME), 1);
                proptest::prop_assert_eq!(texts(&fig.svg, "p0"), 1);
            }
            Err(e) => proptest::prop_assert!(e.to_string().starts_with("show_heatmaps: expected"), "{}", e),
        }
    }
}

#[test]
fn every_token_of_a_real_sentence_keeps_its_label() {
    // notebook 04's real sentence: 2 layers x 4 heads of cross-attention, 19 German tokens by 19
    // English ones (the grid used to label every other token)
    let (source, target): (Vec<String>, Vec<String>) = (0..19).map(|k| (format!("de{k}"), format!("en{k}"))).unzip();
    let layers = [weights((1, 4, 19, 19)), weights((1, 4, 19, 19))];
    let svg = show_cross_attention(&layers, 0, &source, &target).unwrap().svg;
    // the keys are labelled under each panel of the last row (4 heads), the queries left of
    // each row (2 layers)
    let labelled = |tokens: &[String], times: usize| tokens.iter().filter(|t| texts(&svg, t) == times).count();
    assert_eq!((labelled(&source, 4), labelled(&target, 2)), (19, 19));
    for n in [24, 40] {
        let tokens: Vec<String> = (0..n).map(|k| format!("t{k}")).collect();
        let svg = show_encoder_attention(&[weights((1, 4, n, n))], 0, &tokens).unwrap().svg;
        assert_eq!(tokens.iter().filter(|t| texts(&svg, t) == 5).count(), n, "{n} tokens");
    }
}
