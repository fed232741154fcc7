//! Wrong answers to part blog's exercises, written from the notebook's statements alone.

use super::{Wrong, wrong};
use attention_zoo::practice::blog::*;
use attention_zoo::prelude::*;

pub fn corpus() -> Vec<Wrong> {
    vec![]
}
