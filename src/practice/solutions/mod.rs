//! The exercises' reference solutions, one file per part. `solution()` shows their text as the
//! file has it, and the tests check each one Correct; the exercise notebooks' source
//! (`notebooks/exercises-source/`) holds each function's body between its solution markers
//! (`make exercises` puts it there).

pub mod attention;
pub mod blog;
pub mod gps;
pub mod self_attention;
pub mod seq2seq;
pub mod transformer;
