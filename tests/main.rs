//! Every integration test, in one crate: one binary to build and link instead of one per file.
//! Each module is one topic (parity with a PyTorch fixture, bad input, a notebook's cells...);
//! `common` holds what they share: the fixtures, the lock on the default generator and the
//! lecture's small inputs.
//!
//! `cargo test` runs them all; `cargo test --test zoo transformer::` runs one module.

mod attention;
mod bad_input;
mod bleu;
mod class_excerpts;
mod common;
mod corpus;
mod cross_entropy;
mod decoding;
mod display;
mod doors;
mod edge_cases;
mod encoder_block;
mod error_context;
mod error_names;
mod figures;
mod fused_cells;
mod fused_kernels;
mod gps;
mod gps_bad_input;
mod gru_translation;
mod layout;
mod lecture_tags;
mod long_attention;
mod lstm;
mod lstm_translation;
mod notebook_limits;
mod notebooks;
mod parity;
mod position_codes;
mod practice;
mod properties;
mod pt_bad_files;
mod pytorch_load;
mod recurrent_decoding;
mod score_terms;
mod seed_spread;
mod selfattn;
mod seq2seq;
mod text_data;
mod training;
mod transformer;
mod translate_contract;
mod translation_training;
mod translators_bad_input;
