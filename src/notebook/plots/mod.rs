//! The lecture's figures, one file per lecture part.

pub mod attention;
pub mod gps;
pub mod heatmaps;
pub mod losses;
pub mod positional;
pub mod squares;

pub use attention::{figure9, plot_attention, query_and_keys};
pub use gps::{plot_bars, plot_trajectories};
pub use heatmaps::{show_cross_attention, show_decoder_attention, show_encoder_attention, show_heatmaps, stack_layers};
pub use losses::plot_losses;
pub use positional::{encoding_curves, encoding_degrees, encoding_distances, exponential_dials, plot_mesh};
pub use squares::{counter_vs_clock, direction_title, plot_data, plot_sequences, sequence_pred};
