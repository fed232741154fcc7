//! Every architecture diagram draws, fits its canvas, and has no blocks on top of each other or
//! arrows to blocks that do not exist. `ZOO_DIAGRAMS_OUT=dir cargo test --lib diagram` also writes
//! them as SVG files there, to look at.

use super::super::{Architecture, draw};
use super::{Diagram, Part, label_place, middle};

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

type Rect = (f64, f64, f64, f64);
type Point = (f64, f64);

/// Whether the segment p-q runs through the inside of `r` (a line along an edge or ending on it
/// does not): Liang-Barsky clipping.
fn crosses(p: Point, q: Point, r: Rect) -> bool {
    let (x0, y0, x1, y1) = r;
    if x0 >= x1 || y0 >= y1 {
        return false;
    }
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (pk, qk) in [(-dx, p.0 - x0), (dx, x1 - p.0), (-dy, p.1 - y0), (dy, y1 - p.1)] {
        if pk == 0.0 {
            if qk < 0.0 {
                return false;
            }
        } else if pk < 0.0 {
            t0 = t0.max(qk / pk);
        } else {
            t1 = t1.min(qk / pk);
        }
    }
    t0 < t1
}

/// The distance between the segment p-q and the rectangle `r` (0 where they meet).
fn distance(p: Point, q: Point, r: Rect) -> f64 {
    let grown = (r.0 - 1.0, r.1 - 1.0, r.2 + 1.0, r.3 + 1.0);
    if crosses(p, q, grown) {
        return 0.0;
    }
    let to_rect = |a: Point| ((r.0 - a.0).max(a.0 - r.2).max(0.0)).hypot((r.1 - a.1).max(a.1 - r.3).max(0.0));
    let to_segment = |a: Point| {
        let (dx, dy) = (q.0 - p.0, q.1 - p.1);
        let len2 = dx * dx + dy * dy;
        let t = if len2 == 0.0 { 0.0 } else { (((a.0 - p.0) * dx + (a.1 - p.1) * dy) / len2).clamp(0.0, 1.0) };
        (a.0 - p.0 - t * dx).hypot(a.1 - p.1 - t * dy)
    };
    let corners = [(r.0, r.1), (r.2, r.1), (r.0, r.3), (r.2, r.3)];
    corners.iter().map(|&c| to_segment(c)).chain([to_rect(p), to_rect(q)]).fold(f64::MAX, f64::min)
}

fn overlap(a: Rect, b: Rect) -> bool {
    a.0 < b.2 - 1.0 && b.0 < a.2 - 1.0 && a.1 < b.3 - 1.0 && b.1 < a.3 - 1.0
}

/// What a diagram writes: blocks (their label fills the box), arrow labels, group captions and
/// notes, each with a name for messages, its box, and the arrow it belongs to if it is a label.
fn texts(d: &Diagram) -> Vec<(String, Rect, Option<usize>)> {
    let mut out: Vec<(String, Rect, Option<usize>)> =
        d.blocks.iter().map(|b| (format!("block '{}'", b.id), rect(d, &b.id), None)).collect();
    for (i, a) in d.arrows.iter().enumerate() {
        if let Some(label) = &a.label {
            let place = label_place(label, &d.arrow_points(a).unwrap(), d.size.0 as f64);
            out.push((format!("label '{label}' of {}→{}", a.from, a.to), place.rect, Some(i)));
        }
    }
    for g in &d.groups {
        if let Some((x0, y0, _, _)) = d.group_rect(g).unwrap() {
            let r = (x0 + 8.0, y0 + 4.0, x0 + 8.0 + g.label.chars().count() as f64 * 6.2, y0 + 17.0);
            out.push((format!("caption '{}'", g.label), r, None));
        }
    }
    for (text, (x, y)) in &d.notes {
        out.push((format!("note '{text}'"), (*x, y - 10.0, x + text.chars().count() as f64 * 6.2, y + 3.0), None));
    }
    out
}

/// How far (px) an arrow keeps from a text it does not belong to: the text widths are estimates.
const CLEARANCE: f64 = 4.0;

/// Every collision in a diagram: an arrow (any segment of its route) through a text, or within
/// CLEARANCE of it, that is not
/// its own label or one of its two blocks; an arrow label off its line (farther than 4 px from
/// the segment it labels, or a vertical line running through the text instead of beside it);
/// texts on top of each other or off the canvas.
fn collisions(d: &Diagram) -> Vec<String> {
    let mut bad = vec![];
    let texts = texts(d);
    for (i, a) in d.arrows.iter().enumerate() {
        let pts = d.arrow_points(a).unwrap();
        let own = |name: &str, owner: Option<usize>| {
            owner == Some(i) || name == format!("block '{}'", a.from) || name == format!("block '{}'", a.to)
        };
        for (name, r, _) in texts.iter().filter(|(n, _, o)| !own(n, *o)) {
            let clear = (r.0 - CLEARANCE, r.1 - CLEARANCE, r.2 + CLEARANCE, r.3 + CLEARANCE);
            if pts.windows(2).any(|w| crosses(w[0], w[1], clear)) {
                bad.push(format!("arrow {}→{} crosses {name}", a.from, a.to));
            }
        }
        if let Some(label) = &a.label {
            let place = label_place(label, &pts, d.size.0 as f64);
            let (_, (p, q)) = middle(&pts);
            let gap = distance(p, q, place.rect);
            if gap > 4.0 {
                bad.push(format!("label '{label}' of {}→{} is {gap:.0} px from its line", a.from, a.to));
            }
            if (p.0 - q.0).abs() < 1.0 && crosses(p, q, place.rect) {
                bad.push(format!("label '{label}' of {}→{} is struck through by its vertical line", a.from, a.to));
            }
        }
    }
    for (i, (na, ra, _)) in texts.iter().enumerate() {
        for (nb, rb, _) in &texts[i + 1..] {
            if !(na.starts_with("block") && nb.starts_with("block")) && overlap(*ra, *rb) {
                bad.push(format!("{na} overlaps {nb}"));
            }
        }
        if ra.0 < 0.0 || ra.2 > d.size.0 as f64 || ra.1 < 24.0 || ra.3 > d.size.1 as f64 {
            bad.push(format!("{na} leaves the canvas or covers the title"));
        }
    }
    bad
}

#[test]
fn no_arrow_crosses_a_text_and_every_label_sits_on_its_line() {
    let bad: Vec<String> =
        Architecture::ALL.iter().flat_map(|&arch| collisions(&draw(arch)).into_iter().map(move |m| format!("{arch:?}: {m}"))).collect();
    assert!(bad.is_empty(), "{} collisions:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn the_check_sees_an_arrow_through_a_note_and_labels_sit_beside_vertical_lines() {
    let d = Diagram::new("t", 300, 200)
        .block("a", "A", Part::Data, (60.0, 60.0))
        .block("b", "B", Part::Data, (60.0, 170.0))
        .block("c", "C", Part::Data, (240.0, 60.0))
        .arrow_labelled("a", "b", "down")
        .arrow_labelled("a", "c", "across")
        .note("in the way", (120.0, 64.0));
    let bad = collisions(&d);
    assert_eq!(bad, ["arrow a→c crosses note 'in the way'", "label 'across' of a→c overlaps note 'in the way'"]);
    let svg = d.figure().unwrap().svg;
    // "down" starts 7 px right of its vertical line; a line too near the right edge puts it left
    assert!(svg.contains("x=\"67.0\" y=\"118.5\" font-size=\"11\" text-anchor=\"start\""), "{svg}");
    let d = Diagram::new("t", 90, 200).block("a", "A", Part::Data, (60.0, 60.0)).block("b", "B", Part::Data, (60.0, 170.0));
    let svg = d.arrow_labelled("a", "b", "down").figure().unwrap().svg;
    assert!(svg.contains("x=\"53.0\" y=\"118.5\" font-size=\"11\" text-anchor=\"end\""), "{svg}");
}
