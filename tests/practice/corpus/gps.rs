//! Wrong answers to part gps's exercises, written from the notebook's statements alone.

use super::{Wrong, wrong};
use attention_zoo::practice::gps::*;
use attention_zoo::prelude::*;

pub fn corpus() -> Vec<Wrong> {
    vec![]
}
