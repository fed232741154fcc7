//! Every architecture diagram draws, fits its canvas, and has no blocks on top of each other or
//! arrows to blocks that do not exist. `ZOO_DIAGRAMS_OUT=dir cargo test --lib diagram` also writes
//! them as SVG files there, to look at.

use super::super::{Architecture, draw};
use super::{Diagram, Part};

fn rect(d: &Diagram, id: &str) -> (f64, f64, f64, f64) {
    let b = d.blocks.iter().find(|b| b.id == id).unwrap();
    let (hw, hh) = b.half_size();
    (b.at.0 - hw, b.at.1 - hh, b.at.0 + hw, b.at.1 + hh)
}

#[test]
fn every_architecture_fits_its_canvas_without_overlaps() {
    let mut bad = vec![];
    for arch in Architecture::ALL {
        let d = draw(arch);
        let fig = d.figure().unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        assert!(fig.svg.starts_with("<svg") && fig.svg.ends_with("</svg>"), "{arch:?}");
        let (w, h) = (d.size.0 as f64, d.size.1 as f64);
        for b in &d.blocks {
            let (x0, y0, x1, y1) = rect(&d, &b.id);
            if !(x0 >= 0.0 && x1 <= w && y0 >= 24.0 && y1 <= h) {
                bad.push(format!(
                    "{arch:?}: block '{}' ({x0:.0},{y0:.0})-({x1:.0},{y1:.0}) leaves the {w}x{h} canvas or covers the title",
                    b.id
                ));
            }
        }
        for (i, a) in d.blocks.iter().enumerate() {
            for b in &d.blocks[i + 1..] {
                let (ax0, ay0, ax1, ay1) = rect(&d, &a.id);
                let (bx0, by0, bx1, by1) = rect(&d, &b.id);
                let apart = ax1 + 4.0 <= bx0 || bx1 + 4.0 <= ax0 || ay1 + 4.0 <= by0 || by1 + 4.0 <= ay0;
                if !apart {
                    bad.push(format!("{arch:?}: blocks '{}' and '{}' overlap", a.id, b.id));
                }
            }
        }
        let ids: Vec<&str> = d.blocks.iter().map(|b| b.id.as_str()).collect();
        let mut unique = ids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "{arch:?}: two blocks share an id");
        for (text, (x, y)) in &d.notes {
            if !(*x >= 0.0 && x + text.chars().count() as f64 * 6.2 <= w && *y <= h) {
                bad.push(format!("{arch:?}: note '{text}' leaves the canvas"));
            }
        }
        for g in &d.groups {
            let rects: Vec<_> = g.members.iter().map(|m| rect(&d, m)).collect();
            let x0 = rects.iter().map(|r| r.0).fold(f64::MAX, f64::min) - 12.0;
            let y0 = rects.iter().map(|r| r.1).fold(f64::MAX, f64::min) - 22.0;
            let x1 = rects.iter().map(|r| r.2).fold(f64::MIN, f64::max) + 12.0;
            let y1 = rects.iter().map(|r| r.3).fold(f64::MIN, f64::max) + 12.0;
            if !(x0 >= 0.0 && x1 <= w && y0 >= 24.0 && y1 <= h) {
                bad.push(format!(
                    "{arch:?}: group '{}' ({x0:.0},{y0:.0})-({x1:.0},{y1:.0}) leaves the {w}x{h} canvas or covers the title",
                    g.label
                ));
            }
            for b in d.blocks.iter().filter(|b| !g.members.contains(&b.id)) {
                let (bx0, by0, bx1, by1) = rect(&d, &b.id);
                if !(bx1 <= x0 || x1 <= bx0 || by1 <= y0 || y1 <= by0) {
                    bad.push(format!("{arch:?}: block '{}' lies inside group '{}' without being a member", b.id, g.label));
                }
            }
        }
        if let Ok(dir) = std::env::var("ZOO_DIAGRAMS_OUT") {
            std::fs::create_dir_all(&dir).unwrap();
            fig.save(format!("{dir}/{arch:?}.svg")).unwrap();
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn an_arrow_or_group_naming_a_missing_block_is_an_error() {
    let d = Diagram::new("t", 200, 100).block("a", "A", Part::Data, (50.0, 50.0)).arrow("a", "b");
    let e = d.figure().unwrap_err().to_string();
    assert!(e.contains("an arrow names block 'b'") && e.contains("'t'"), "{e}");
    let d = Diagram::new("t", 200, 100).block("a", "A", Part::Data, (50.0, 50.0)).group("G", &["a", "zz"]);
    let e = d.figure().unwrap_err().to_string();
    assert!(e.contains("group 'G' names block 'zz'"), "{e}");
    let e = Diagram::new("t", 0, 100).figure().unwrap_err().to_string();
    assert!(e.contains("got 0 x 100"), "{e}");
}

#[test]
fn labels_are_escaped_and_arrows_end_on_block_borders() {
    let d = Diagram::new("a <b>", 300, 120)
        .block("a", "x < y & z", Part::Op, (60.0, 60.0))
        .block("b", "B", Part::Linear, (240.0, 60.0))
        .arrow_labelled("a", "b", "h<0>");
    let svg = d.figure().unwrap().svg;
    assert!(svg.contains("x &lt; y &amp; z") && svg.contains("a &lt;b&gt;") && svg.contains("h&lt;0&gt;"), "{svg}");
    // the arrow runs from the right edge of a to the left edge of b, at their common height
    let (_, _, ax1, _) = rect(&d, "a");
    let (bx0, _, _, _) = rect(&d, "b");
    assert!(svg.contains(&format!("points=\"{ax1:.1},60.0 {bx0:.1},60.0\"")), "{svg}");
}
