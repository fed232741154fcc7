//! Trainings side by side: one row per [`TrainingReport`].

use crate::notebook::display::text_table::Table;
use crate::train::TrainingReport;
use crate::train::progress::thousands;

/// A table of trainings: model, parameters, epochs, training time, tokens per second, last
/// validation loss and test BLEU (blank where a report lacks the figure).
pub fn comparison_table(reports: &[TrainingReport]) -> Table {
    let mut table = Table::new(&["model", "parameters", "epochs", "training time", "tokens/s", "val_loss", "test BLEU"]);
    for r in reports {
        table.push(&[
            r.name.clone(),
            thousands(r.parameters as f64),
            r.epochs.to_string(),
            format!("{:.1} s", r.seconds),
            r.tokens_per_second().map_or(String::new(), thousands),
            r.val_loss.map_or(String::new(), |v| format!("{v:.4}")),
            r.bleu.map_or(String::new(), |b| format!("{b:.2}")),
        ]);
    }
    table
}
