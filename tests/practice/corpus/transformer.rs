//! Wrong answers to part transformer's exercises, written from the notebook's statements alone.

use super::{Wrong, wrong};
use attention_zoo::practice::transformer::*;
use attention_zoo::prelude::*;

pub fn corpus() -> Vec<Wrong> {
    vec![]
}
