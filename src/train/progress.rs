//! The trainer's progress line: losses, tokens per second and elapsed time.

/// What one epoch's training pass took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EpochStats {
    /// Wall-clock seconds of the training pass (validation not included).
    pub seconds: f64,
    /// Mini-batches it ran.
    pub batches: usize,
    /// Tokens it trained on, where the model counts them (target tokens of translation batches).
    pub tokens: Option<usize>,
}

impl EpochStats {
    /// Tokens per second of the training pass, where tokens are counted.
    pub fn tokens_per_second(&self) -> Option<f64> {
        self.tokens.filter(|_| self.seconds > 0.0).map(|t| t as f64 / self.seconds)
    }
}

/// `12345.6` as `12,346`: a whole number with thousands separators.
pub fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if x < 0.0 && digits != "0" { format!("-{out}") } else { out }
}

/// One progress line, e.g.
/// `epoch    3/10  loss 1.234567  val_loss 1.345678  8,312 tok/s  elapsed 41.2 s`: the epoch's
/// mean training loss, its validation loss if any, the training pass's tokens per second if
/// counted, and the seconds since `train` began.
pub fn progress_line(epoch: usize, n_epochs: usize, loss: f64, val_loss: Option<f64>, stats: &EpochStats, elapsed: f64) -> String {
    let val = val_loss.map_or(String::new(), |v| format!("  val_loss {v:.6}"));
    let speed = stats.tokens_per_second().map_or(String::new(), |t| format!("  {} tok/s", thousands(t)));
    format!("epoch {epoch:>4}/{n_epochs}  loss {loss:.6}{val}{speed}  elapsed {elapsed:.1} s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_read_as_documented() {
        let stats = EpochStats { seconds: 2.0, batches: 10, tokens: Some(16_625) };
        assert_eq!(
            progress_line(3, 10, 1.2345674, Some(1.3456786), &stats, 41.25),
            "epoch    3/10  loss 1.234567  val_loss 1.345679  8,312 tok/s  elapsed 41.2 s"
        );
        let plain = EpochStats { seconds: 0.5, batches: 4, tokens: None };
        assert_eq!(progress_line(100, 100, 0.5, None, &plain, 3.0), "epoch  100/100  loss 0.500000  elapsed 3.0 s");
        assert_eq!(thousands(999.4), "999");
        assert_eq!(thousands(1_234_567.0), "1,234,567");
        assert_eq!(thousands(-1000.0), "-1,000");
    }
}
