//! Wrong answers to part seq2seq's exercises, written from the notebook's statements alone.

use super::{Wrong, wrong};
use attention_zoo::practice::seq2seq::*;
use attention_zoo::prelude::*;

pub fn corpus() -> Vec<Wrong> {
    vec![]
}
