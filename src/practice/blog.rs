//! Exercises of this part.

use super::Info;

/// Every exercise of this part, in order.
pub const ALL: &[Info] = &[];
