//! Padding as the recurrent nodes read it: each row's real length. Past its length a row takes no
//! step: its state is carried and its outputs are zero. The GRU and LSTM sequence nodes share it.

use super::unexpected::unexpected;

/// Each row's real length in a padded batch (empty: every row runs every step).
#[derive(Clone, Debug, Default)]
pub(crate) struct Lengths(Vec<usize>);

impl Lengths {
    /// The lengths of `n` rows of `l` steps, each in `1..=l` (`None`, or every row at full
    /// length: the plain sequence); an error names the node `op`.
    pub(crate) fn new(op: &str, lengths: Option<&[usize]>, n: usize, l: usize) -> candle_core::Result<Self> {
        let Some(ls) = lengths else { return Ok(Lengths::default()) };
        if ls.len() != n || ls.iter().any(|&len| len == 0 || len > l) {
            return Err(unexpected(format!("{op}: lengths {ls:?} for {n} rows of {l} steps")));
        }
        Ok(Lengths(if ls.iter().any(|&len| len < l) { ls.to_vec() } else { vec![] }))
    }

    /// Whether every row runs every step.
    pub(crate) fn is_full(&self) -> bool {
        self.0.is_empty()
    }

    /// The lengths, one a row (empty when every row runs every step).
    pub(crate) fn as_slice(&self) -> &[usize] {
        &self.0
    }

    /// Whether row `i` takes step `t` (it is within its length).
    pub(crate) fn runs(&self, i: usize, t: usize) -> bool {
        self.0.get(i).is_none_or(|&len| t < len)
    }

    /// The rows of `n` that take step `t`, in order.
    pub(crate) fn rows_at(&self, n: usize, t: usize) -> Vec<usize> {
        (0..n).filter(|&i| self.runs(i, t)).collect()
    }

    /// `1.0` where row `i` takes step `t`, else `0.0`: the keep mask the step-by-step layers
    /// multiply by, for arithmetic that matches theirs.
    pub(crate) fn keep(&self, i: usize, t: usize) -> f32 {
        if self.runs(i, t) { 1.0 } else { 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::Lengths;

    #[test]
    fn rows_run_up_to_their_length() {
        let p = Lengths::new("test", Some(&[3, 1, 2]), 3, 3).unwrap();
        assert!(!p.is_full());
        assert_eq!([p.rows_at(3, 0), p.rows_at(3, 1), p.rows_at(3, 2)], [vec![0, 1, 2], vec![0, 2], vec![0]]);
        assert_eq!([p.keep(1, 0), p.keep(1, 1)], [1.0, 0.0]);
        let full = Lengths::new("test", Some(&[2, 2]), 2, 2).unwrap();
        assert!(full.is_full() && full.rows_at(2, 1) == [0, 1]);
        assert!(Lengths::new("test", None, 4, 2).unwrap().is_full());
        for bad in [&[0usize, 2][..], &[3, 2], &[2]] {
            let e = Lengths::new("gru sequence", Some(bad), 2, 2).unwrap_err().to_string();
            assert!(e.contains("gru sequence: lengths"), "{e}");
        }
    }
}
