//! A small boxes-and-arrows drawing, rendered as SVG: the architecture diagrams of the notebooks
//! are built with it, and a student can draw a model of their own the same way.
//!
//! ```
//! use attention_zoo::notebook::{Diagram, Part};
//! let d = Diagram::new("my model", 360, 120)
//!     .block("x", "x (N, L, F)", Part::Data, (50.0, 60.0))
//!     .block("gru", "GRU", Part::Recurrent, (180.0, 60.0))
//!     .block("y", "y", Part::Data, (300.0, 60.0))
//!     .arrow("x", "gru")
//!     .arrow("gru", "y");
//! let svg = d.figure()?.svg;
//! assert!(svg.starts_with("<svg") && svg.contains(">GRU</text>"));
//! # Ok::<(), candle_core::Error>(())
//! ```

use crate::nn::errors_as;
use crate::nn::shape::{error, invalid};
use crate::notebook::figures::figure::Figure;
use crate::notebook::page::html::escape;
use candle_core::Result;
use std::fmt::Write as _;

/// What a block is, which sets its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Tensors flowing through the model: inputs, states, outputs.
    Data,
    /// A recurrent layer or cell (GRU, LSTM).
    Recurrent,
    /// A linear layer or feed-forward network.
    Linear,
    /// Attention: scores, softmax, heads.
    Attention,
    /// Layer norm, residual additions, dropout.
    Norm,
    /// Embeddings and positional encoding.
    Embedding,
    /// An operation without weights (concatenation, a mask, a choice).
    Op,
}

impl Part {
    fn colors(self) -> (&'static str, &'static str) {
        match self {
            Part::Data => ("#f7f7f7", "#888888"),
            Part::Recurrent => ("#dbe9f6", "#1f77b4"),
            Part::Linear => ("#fde3c8", "#e6781e"),
            Part::Attention => ("#d9f0d3", "#2ca02c"),
            Part::Norm => ("#ece2f0", "#8e63a9"),
            Part::Embedding => ("#fbe0e0", "#d62728"),
            Part::Op => ("#ffffff", "#555555"),
        }
    }
}

#[derive(Clone, Debug)]
struct Block {
    id: String,
    label: String,
    part: Part,
    at: (f64, f64),
}

impl Block {
    fn half_size(&self) -> (f64, f64) {
        let lines: Vec<&str> = self.label.lines().collect();
        let widest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(1) as f64;
        ((widest * 7.2 + 20.0).max(56.0) / 2.0, (lines.len().max(1) as f64 * 16.0 + 12.0) / 2.0)
    }
}

#[derive(Clone, Debug)]
struct Arrow {
    from: String,
    to: String,
    label: Option<String>,
    via: Vec<(f64, f64)>,
    dashed: bool,
}

#[derive(Clone, Debug)]
struct Group {
    label: String,
    members: Vec<String>,
}

/// A diagram of blocks joined by arrows, with dashed groups around blocks and free notes.
/// Building never fails; [`Diagram::figure`] checks that every arrow and group names blocks
/// that exist.
#[derive(Clone, Debug)]
pub struct Diagram {
    title: String,
    size: (u32, u32),
    blocks: Vec<Block>,
    arrows: Vec<Arrow>,
    groups: Vec<Group>,
    notes: Vec<(String, (f64, f64))>,
}

impl Diagram {
    /// An empty diagram of `width` x `height` pixels, with its title at the top.
    pub fn new(title: &str, width: u32, height: u32) -> Self {
        Diagram { title: title.into(), size: (width, height), blocks: vec![], arrows: vec![], groups: vec![], notes: vec![] }
    }

    /// A block centred at `at` (pixels), sized to its label (lines split at `\n`).
    pub fn block(mut self, id: &str, label: &str, part: Part, at: (f64, f64)) -> Self {
        self.blocks.push(Block { id: id.into(), label: label.into(), part, at });
        self
    }

    /// An arrow from block `from` to block `to`.
    pub fn arrow(self, from: &str, to: &str) -> Self {
        self.route(from, to, None, &[], false)
    }

    /// An arrow with a label at its middle (a tensor's name or shape): on the line where the middle
    /// falls on a horizontal or slanted stretch, beside it where the stretch is vertical.
    pub fn arrow_labelled(self, from: &str, to: &str, label: &str) -> Self {
        self.route(from, to, Some(label), &[], false)
    }

    /// An arrow through the points `via` (for loops and detours), dashed if `dashed` (a path taken
    /// only sometimes, as teacher forcing's), labelled if `label` is given.
    pub fn route(mut self, from: &str, to: &str, label: Option<&str>, via: &[(f64, f64)], dashed: bool) -> Self {
        self.arrows.push(Arrow { from: from.into(), to: to.into(), label: label.map(Into::into), via: via.to_vec(), dashed });
        self
    }

    /// A dashed box around the blocks `members`, labelled at its top left (`Encoder`, `Decoder`).
    pub fn group(mut self, label: &str, members: &[&str]) -> Self {
        self.groups.push(Group { label: label.into(), members: members.iter().map(|m| m.to_string()).collect() });
        self
    }

    /// A line of free text starting at `at`.
    pub fn note(mut self, text: &str, at: (f64, f64)) -> Self {
        self.notes.push((text.into(), at));
        self
    }

    fn find(&self, id: &str, what: &str) -> Result<&Block> {
        self.blocks
            .iter()
            .find(|b| b.id == id)
            .ok_or_else(|| error("Diagram", format!("{what} names block '{id}', which the diagram '{}' does not have", self.title)))
    }

    /// The dashed box drawn around a group's members (x0, y0, x1, y1); None for an empty group.
    fn group_rect(&self, g: &Group) -> Result<Option<(f64, f64, f64, f64)>> {
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for m in &g.members {
            let b = self.find(m, &format!("group '{}'", g.label))?;
            let (hw, hh) = b.half_size();
            x0 = x0.min(b.at.0 - hw);
            y0 = y0.min(b.at.1 - hh);
            x1 = x1.max(b.at.0 + hw);
            y1 = y1.max(b.at.1 + hh);
        }
        Ok((!g.members.is_empty()).then_some((x0 - 12.0, y0 - 22.0, x1 + 12.0, y1 + 12.0)))
    }

    /// The points of an arrow's line: from its source's border, through `via`, to its target's border.
    fn arrow_points(&self, a: &Arrow) -> Result<Vec<(f64, f64)>> {
        let from = self.find(&a.from, "an arrow")?;
        let to = self.find(&a.to, "an arrow")?;
        let mut pts = vec![border_point(from, a.via.first().copied().unwrap_or(to.at))];
        pts.extend(a.via.iter().copied());
        pts.push(border_point(to, a.via.last().copied().unwrap_or(from.at)));
        Ok(pts)
    }

    /// Checks that the diagram's size is 1 to `MAX_PIXELS` pixels each way; returns it.
    fn check_size(&self) -> Result<(u32, u32)> {
        let (w, h) = self.size;
        if w == 0 || h == 0 || w > crate::notebook::figures::figure::MAX_PIXELS || h > crate::notebook::figures::figure::MAX_PIXELS {
            return Err(invalid(format!(
                "expected a size of 1 to {} pixels each way, got {w} x {h}",
                crate::notebook::figures::figure::MAX_PIXELS
            )));
        }
        Ok((w, h))
    }

    /// The diagram as an SVG figure; an error if an arrow or a group names a missing block, or
    /// the size is zero or too large.
    #[errors_as("Diagram")]
    pub fn figure(&self) -> Result<Figure> {
        let (w, h) = self.check_size()?;
        // one marker id per diagram: a page showing several diagrams has no duplicate ids
        let marker = format!("arrowhead-{:08x}", self.title.bytes().fold(0x811c_9dc5u32, |h, b| (h ^ b as u32).wrapping_mul(0x0100_0193)));
        let mut s = format!(
            "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\">\
             <defs><marker id=\"{marker}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
             <path d=\"M0,0 L10,5 L0,10 z\" fill=\"#444\"/></marker></defs>\
             <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\
             <text x=\"{}\" y=\"18\" font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#333\">{}</text>",
            w / 2,
            escape(&self.title)
        );
        for g in &self.groups {
            let Some((x0, y0, x1, y1)) = self.group_rect(g)? else { continue };
            let _ = write!(
                s,
                "<rect x=\"{x0:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"8\" fill=\"#fafafa\" stroke=\"#aaa\" stroke-dasharray=\"5,4\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" font-style=\"italic\" fill=\"#666\">{}</text>",
                x1 - x0,
                y1 - y0,
                x0 + 8.0,
                y0 + 14.0,
                escape(&g.label)
            );
        }
        for a in &self.arrows {
            let pts = self.arrow_points(a)?;
            let path: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            let dash = if a.dashed { " stroke-dasharray=\"6,4\"" } else { "" };
            let _ = write!(
                s,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"#444\" stroke-width=\"1.4\"{dash} marker-end=\"url(#{marker})\"/>",
                path.join(" ")
            );
            if let Some(label) = &a.label {
                let p = label_place(label, &pts, w as f64);
                let (x0, y0, x1, y1) = p.rect;
                let _ = write!(
                    s,
                    "<rect x=\"{x0:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"white\" opacity=\"0.9\"/>\
                     <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"{}\" fill=\"#333\">{}</text>",
                    x1 - x0,
                    y1 - y0,
                    p.text.0,
                    p.text.1,
                    p.anchor,
                    escape(label)
                );
            }
        }
        for b in &self.blocks {
            let (hw, hh) = b.half_size();
            let (fill, stroke) = b.part.colors();
            let _ = write!(
                s,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"5\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.5\"/>",
                b.at.0 - hw,
                b.at.1 - hh,
                2.0 * hw,
                2.0 * hh
            );
            let lines: Vec<&str> = b.label.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                let y = b.at.1 - (lines.len() as f64 - 1.0) * 8.0 + i as f64 * 16.0 + 4.5;
                let _ = write!(
                    s,
                    "<text x=\"{:.1}\" y=\"{y:.1}\" font-size=\"13\" text-anchor=\"middle\" fill=\"#222\">{}</text>",
                    b.at.0,
                    escape(line)
                );
            }
        }
        for (text, (x, y)) in &self.notes {
            let _ = write!(s, "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"12\" fill=\"#555\">{}</text>", escape(text));
        }
        s.push_str("</svg>");
        Ok(Figure { title: self.title.clone(), svg: s })
    }

    /// What evcxr calls to show the diagram: its SVG, or the error if it cannot be drawn.
    pub fn evcxr_display(&self) {
        match self.figure() {
            Ok(f) => f.evcxr_display(),
            Err(e) => crate::notebook::page::output::emit(&[("text/plain", &format!("<diagram could not be drawn: {e}>"))]),
        }
    }
}

/// Where the line from the centre of `b` towards `towards` leaves the block's rectangle.
fn border_point(b: &Block, towards: (f64, f64)) -> (f64, f64) {
    let (hw, hh) = b.half_size();
    let (dx, dy) = (towards.0 - b.at.0, towards.1 - b.at.1);
    if dx == 0.0 && dy == 0.0 {
        return b.at;
    }
    let t = match (dx == 0.0, dy == 0.0) {
        (true, _) => hh / dy.abs(),
        (_, true) => hw / dx.abs(),
        _ => (hw / dx.abs()).min(hh / dy.abs()),
    };
    (b.at.0 + dx * t.min(1.0), b.at.1 + dy * t.min(1.0))
}

/// Where an arrow's label is drawn: its white box (x0, y0, x1, y1), and the text's anchor point
/// and alignment.
#[derive(Clone, Copy, Debug)]
struct LabelPlace {
    rect: (f64, f64, f64, f64),
    text: (f64, f64),
    anchor: &'static str,
}

/// Pixels per character of an arrow label (font size 11), generously: the box must cover the text.
const LABEL_CHAR_WIDTH: f64 = 6.2;

/// An arrow label at the middle of its line: centred on a horizontal or slanted segment; beside a
/// vertical one (to its right, or to its left where the right would leave a canvas `width` wide),
/// so that the line runs along the text instead of through it.
fn label_place(label: &str, pts: &[(f64, f64)], width: f64) -> LabelPlace {
    let ((mx, my), segment) = middle(pts);
    let w = label.chars().count() as f64 * LABEL_CHAR_WIDTH + 6.0;
    let (y0, y1, ty) = (my - 8.0, my + 7.0, my + 3.5);
    let vertical = (segment.1.0 - segment.0.0).abs() < 1.0 && (segment.1.1 - segment.0.1).abs() >= 1.0;
    let (rect, text, anchor) = if !vertical {
        ((mx - w / 2.0, y0, mx + w / 2.0, y1), (mx, ty), "middle")
    } else if mx + 4.0 + w <= width - 2.0 {
        ((mx + 4.0, y0, mx + 4.0 + w, y1), (mx + 7.0, ty), "start")
    } else {
        ((mx - 4.0 - w, y0, mx - 4.0, y1), (mx - 7.0, ty), "end")
    };
    LabelPlace { rect, text, anchor }
}

type Segment = ((f64, f64), (f64, f64));

/// The point halfway along a polyline, and the segment it lies on.
fn middle(pts: &[(f64, f64)]) -> ((f64, f64), Segment) {
    let seg = |a: (f64, f64), b: (f64, f64)| ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
    let total: f64 = pts.windows(2).map(|w| seg(w[0], w[1])).sum();
    let mut left = total / 2.0;
    for w in pts.windows(2) {
        let l = seg(w[0], w[1]);
        if l >= left && l > 0.0 {
            let t = left / l;
            return ((w[0].0 + (w[1].0 - w[0].0) * t, w[0].1 + (w[1].1 - w[0].1) * t), (w[0], w[1]));
        }
        left -= l;
    }
    let p = pts.first().copied().unwrap_or((0.0, 0.0));
    (p, (p, p))
}

#[cfg(test)]
#[path = "layout_tests.rs"]
mod layout_tests;
