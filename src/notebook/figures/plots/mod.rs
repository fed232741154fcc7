//! The lecture's figures, one file per lecture part.

pub(crate) mod attention;
pub(crate) mod gps;
pub(crate) mod heatmaps;
pub(crate) mod loglog;
pub(crate) mod losses;
pub(crate) mod positional;
pub(crate) mod squares;

pub use attention::{figure9, plot_attention, query_and_keys};
pub use gps::{plot_bars, plot_trajectories};
pub use heatmaps::{show_cross_attention, show_decoder_attention, show_encoder_attention, show_heatmaps, stack_layers};
pub use loglog::{LogLogSeries, plot_loglog};
pub use losses::{MAX_DECADES, plot_losses};
pub use positional::{encoding_curves, encoding_degrees, encoding_distances, exponential_dials, plot_mesh};
pub use squares::{MAX_DATA_ROWS, counter_vs_clock, direction_title, plot_data, plot_sequences, sequence_pred};
