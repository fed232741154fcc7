//! Wrong answers to part self_attention's exercises, written from the notebook's statements alone.

use super::{Wrong, wrong};
use attention_zoo::practice::self_attention::*;
use attention_zoo::prelude::*;

pub fn corpus() -> Vec<Wrong> {
    vec![]
}
