//! What a wrong answer does, read from how it relates to the reference's on every case where the
//! two differ: a constant factor, its dimensions in another order, a shift by one step, values
//! that differ only where a mask hides or only where it keeps, rows that sum to one over another
//! dimension, a dimension of size one missing or extra. Said only when the relation holds on
//! every such case, as what was observed, never as a guess at the cause.

use candle_core::{DType, Result, Tensor};

/// What a case tells the diagnosis about itself: sizes worth naming a factor after (`d_k`) and a
/// mask shaped like the answer, 1 where the reference hides or pads.
#[derive(Clone, Debug, Default)]
pub(crate) struct Facts {
    pub sizes: Vec<(&'static str, usize)>,
    pub mask: Option<Tensor>,
    pub pad: Option<u32>,
}

/// One relation between a student's tensor and the reference's, on one case.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Relation {
    /// Yours has another dtype than the reference's.
    DType { got: DType, want: DType },
    /// `yours = factor × reference`.
    Factor(f64),
    /// Yours holds the reference's values with its dimensions in this order (`yours.permute(p)`
    /// is the reference).
    Permuted(Vec<usize>),
    /// Moved by one position along a dimension: `later` when yours at t is the reference's at
    /// t - 1.
    Shifted { dim: usize, later: bool },
    /// The values differ only where the case's mask is 1 (`inside`), or only where it is 0.
    MaskOnly { inside: bool },
    /// The reference's rows sum to one over `want`, yours over `got`.
    SumsToOne { got: usize, want: usize },
    /// A dimension of size one missing (`extra` false) or extra.
    UnitDim { extra: bool },
}

fn values(t: &Tensor) -> Result<Vec<f64>> {
    t.flatten_all()?.to_dtype(DType::F64)?.to_vec1::<f64>()
}

/// Whether two value lists agree within a loose tolerance (the relation need not be exact to the
/// last bit: a factor applied at another point of the computation rounds differently).
fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-4 + 1e-4 * y.abs())
}

fn factor(got: &[f64], want: &[f64]) -> Option<f64> {
    let (gw, ww): (f64, f64) = got.iter().zip(want).fold((0.0, 0.0), |(a, b), (g, w)| (a + g * w, b + w * w));
    if ww <= 1e-12 || !gw.is_finite() {
        return None;
    }
    let c = gw / ww;
    let scaled: Vec<f64> = want.iter().map(|w| c * w).collect();
    ((c - 1.0).abs() > 1e-3 && close(got, &scaled)).then_some(c)
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = vec![];
    for p in permutations(n - 1) {
        for k in 0..=p.len() {
            let mut q = p.clone();
            q.insert(k, n - 1);
            out.push(q);
        }
    }
    out
}

fn sums_to_one(t: &Tensor, dim: usize) -> Result<bool> {
    Ok(values(&t.sum_keepdim(dim)?)?.iter().all(|s| (s - 1.0).abs() < 1e-4))
}

/// The relations that hold between `got` and `want` on one case (none when they agree).
pub(crate) fn relations(got: &Tensor, want: &Tensor, facts: &Facts) -> Result<Vec<Relation>> {
    let mut found = vec![];
    if got.dtype() != want.dtype() {
        found.push(Relation::DType { got: got.dtype(), want: want.dtype() });
        return Ok(found);
    }
    // masks and ids (u8, u32) are compared as numbers: a transposed mask is still a transpose
    let (got, want) = (&got.to_dtype(DType::F64)?, &want.to_dtype(DType::F64)?);
    let (gd, wd) = (got.dims().to_vec(), want.dims().to_vec());
    if gd != wd {
        if gd.len() == wd.len() && gd.len() <= 5 {
            let mut sorted = (gd.clone(), wd.clone());
            sorted.0.sort();
            sorted.1.sort();
            if sorted.0 == sorted.1 {
                let w = values(want)?;
                for p in permutations(gd.len()) {
                    if p.iter().enumerate().all(|(i, &k)| gd[k] == wd[i]) && close(&values(&got.permute(p.clone())?.contiguous()?)?, &w) {
                        // every order that fits: with dimensions of size 1, several do
                        found.push(Relation::Permuted(p));
                    }
                }
            }
        }
        let strip = |d: &[usize]| d.iter().copied().filter(|&n| n != 1).collect::<Vec<_>>();
        if strip(&gd) == strip(&wd) && got.elem_count() == want.elem_count() && close(&values(got)?, &values(want)?) {
            found.push(Relation::UnitDim { extra: gd.len() > wd.len() });
        }
        return Ok(found);
    }
    let (g, w) = (values(got)?, values(want)?);
    if close(&g, &w) {
        return Ok(found);
    }
    if let Some(c) = factor(&g, &w) {
        found.push(Relation::Factor(c));
    }
    for (dim, &n) in gd.iter().enumerate() {
        if n < 2 {
            continue;
        }
        for later in [true, false] {
            let (a, b) = if later {
                (got.narrow(dim, 1, n - 1)?, want.narrow(dim, 0, n - 1)?)
            } else {
                (got.narrow(dim, 0, n - 1)?, want.narrow(dim, 1, n - 1)?)
            };
            if close(&values(&a.contiguous()?)?, &values(&b.contiguous()?)?) {
                found.push(Relation::Shifted { dim, later });
            }
        }
    }
    if let Some(mask) = &facts.mask
        && let Ok(mask) = mask.to_dtype(DType::F64).and_then(|m| m.broadcast_as(got.shape())).and_then(|m| values(&m.contiguous()?))
    {
        let differs: Vec<bool> = g.iter().zip(&w).map(|(a, b)| (a - b).abs() > 1e-4 + 1e-4 * b.abs()).collect();
        let inside = differs.iter().zip(&mask).all(|(d, m)| !d || *m != 0.0);
        let outside = differs.iter().zip(&mask).all(|(d, m)| !d || *m == 0.0);
        if inside != outside {
            found.push(Relation::MaskOnly { inside });
        }
    }
    for (want_dim, &size) in wd.iter().enumerate() {
        if size > 1 && sums_to_one(want, want_dim)? && !sums_to_one(got, want_dim)? {
            for got_dim in (0..gd.len()).filter(|&d| d != want_dim && gd[d] > 1) {
                if sums_to_one(got, got_dim)? {
                    found.push(Relation::SumsToOne { got: got_dim, want: want_dim });
                }
            }
        }
    }
    Ok(found)
}

/// A factor's name, when it is 2, a half, -1, or the square root of, the inverse of or the value
/// of a size the case names (`√d_k`, with the size's value).
fn factor_name(c: f64, sizes: &[(&'static str, usize)]) -> Option<(String, String)> {
    let near = |x: f64| (c - x).abs() <= 1e-3 * x.abs().max(1.0);
    for &(name, n) in sizes {
        let v = n as f64;
        for (x, how) in
            [(v.sqrt(), format!("√{name}")), (1.0 / v.sqrt(), format!("1/√{name}")), (v, name.to_string()), (1.0 / v, format!("1/{name}"))]
        {
            if near(x) {
                return Some((how, format!("{name} = {n}")));
            }
        }
    }
    [(2.0, "2"), (0.5, "a half"), (-1.0, "-1 (the signs are flipped)")]
        .iter()
        .find(|(x, _)| near(*x))
        .map(|(_, how)| (how.to_string(), String::new()))
}

/// What was observed, as one sentence, when the same kind of relation holds on every differing
/// case (the factor's words taken from the first).
pub(crate) fn observation(per_case: &[(Vec<Relation>, &Facts)]) -> Option<String> {
    let holds = |pick: &dyn Fn(&Relation) -> bool| per_case.iter().all(|(rs, _)| rs.iter().any(pick));
    let first = per_case.first()?;
    let every = if per_case.len() == 1 { "on that case" } else { "on every case that differs" };
    if let Some(Relation::DType { got, want }) = first.0.iter().find(|r| matches!(r, Relation::DType { .. }))
        && holds(&|r| r == &Relation::DType { got: *got, want: *want })
    {
        return Some(format!(
            "Your tensor's dtype is {got:?} {every}; the reference's is {want:?}, and the next cells' operations need that dtype (`.to_dtype(DType::{want:?})?`)."
        ));
    }
    if holds(&|r| matches!(r, Relation::Factor(_))) {
        let factors: Vec<(f64, &Facts)> = per_case
            .iter()
            .filter_map(|(rs, facts)| rs.iter().find_map(|r| if let Relation::Factor(c) = r { Some((*c, *facts)) } else { None }))
            .collect();
        let names: Vec<Option<(String, String)>> = factors.iter().map(|(c, facts)| factor_name(*c, &facts.sizes)).collect();
        if let Some(Some((name, _))) = names.first()
            && names.iter().all(|n| n.as_ref().map(|(m, _)| m) == Some(name))
        {
            let given: Vec<&str> = names.iter().filter_map(|n| n.as_ref().map(|(_, g)| g.as_str())).filter(|g| !g.is_empty()).collect();
            let given = if given.is_empty() { String::new() } else { format!(" ({})", given.join("; ")) };
            return Some(format!("Your values are the reference's times {name} {every}{given}."));
        }
        let shown: Vec<String> = factors.iter().map(|(c, _)| format!("{c:.4}")).collect();
        return Some(if shown.iter().all(|v| v == &shown[0]) {
            format!("Your values are the reference's times {} {every}.", shown[0])
        } else {
            format!("Your values are the reference's times a constant {every}: {}.", shown.join(", "))
        });
    }
    if let Some(Relation::Permuted(p)) =
        first.0.iter().find(|r| matches!(r, Relation::Permuted(q) if holds(&|s| s == &Relation::Permuted(q.clone()))))
    {
        return Some(format!(
            "Your tensor holds the reference's values with its dimensions in another order ({}): `.permute({p:?})` of yours is the reference.",
            if p.len() >= 2 && p[..p.len() - 2].iter().enumerate().all(|(i, &k)| i == k) {
                "the last two swapped"
            } else {
                "a transpose or permute too many, or one missing"
            }
        ));
    }
    if holds(&|r| matches!(r, Relation::UnitDim { extra: true })) {
        return Some(format!("Your tensor has the reference's values with an extra dimension of size 1 {every}."));
    }
    if holds(&|r| matches!(r, Relation::UnitDim { extra: false })) {
        return Some(format!("Your tensor has the reference's values but lacks a dimension of size 1 {every}."));
    }
    for (dim, later) in first.0.iter().filter_map(|r| if let Relation::Shifted { dim, later } = r { Some((*dim, *later)) } else { None }) {
        if holds(&|r| r == &Relation::Shifted { dim, later }) {
            return Some(format!(
                "Your values are the reference's moved one position {} along dimension {dim} {every}: an index off by one.",
                if later { "later" } else { "earlier" }
            ));
        }
    }
    for inside in [true, false] {
        if holds(&|r| r == &Relation::MaskOnly { inside }) {
            return Some(if inside {
                format!("Your values differ from the reference's only where the mask hides (masked or padded positions) {every}.")
            } else {
                format!("Your values differ from the reference's only where the mask keeps (positions not masked) {every}.")
            });
        }
    }
    if let Some(Relation::SumsToOne { got, want }) = first.0.iter().find(|r| matches!(r, Relation::SumsToOne { .. }))
        && holds(&|r| r == &Relation::SumsToOne { got: *got, want: *want })
    {
        return Some(format!(
            "Your values sum to one over dimension {got}; the reference's over dimension {want}: the normalisation (a softmax?) is taken over another dimension."
        ));
    }
    None
}

#[cfg(test)]
#[path = "diagnose_tests.rs"]
mod tests;
