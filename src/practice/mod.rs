//! Practice: the student writes the lecture's code and the crate says whether it is right.
//!
//! Each exercise is a value (`q1`, `q2`, ... in one module per part of the lecture) with
//! - `check(..)`, which takes the student's function (or constructor and forward), runs it on
//!   several hidden cases next to the crate's own reference and answers **Not attempted** (a
//!   `todo!()` is still there), **Incorrect** (the case, the first difference and, for the usual
//!   mistakes, a sentence pointing at it) or **Correct**;
//! - `hint()` and `hint_n(k)`, graduated hints;
//! - `solution()`, the reference solution, shown from the crate's own file as it compiles (the
//!   functions of [`solutions`], each checked Correct by the tests).
//!
//! A panic or an error in the student's code is caught and shown as theirs; the cell goes on.
//! Every check records its outcome in a small JSON file (see [`progress`]), so `progress()` at the
//! end of a notebook shows the table of that part's exercises, across kernel restarts.
//!
//! ```no_run
//! use attention_zoo::prelude::*;
//! use attention_zoo::practice::seq2seq::*;
//! pub fn split_sequence(full: &Tensor, input_len: usize) -> Result<(Tensor, Tensor)> {
//!     todo!()
//! }
//! q1.check(split_sequence); // Not attempted
//! q1.hint();
//! q1.solution();
//! ```

pub(crate) mod answer;
pub(crate) mod call;
pub(crate) mod cases;
pub(crate) mod declaration;
pub(crate) mod diagnose;
pub(crate) mod guide;
pub(crate) mod outcome;
pub(crate) mod probe;
pub mod progress;
pub(crate) mod rules;
pub(crate) mod run;
pub mod solutions;

pub mod attention;
pub mod blog;
pub mod gps;
pub mod self_attention;
pub mod seq2seq;
pub mod transformer;

pub use answer::{Answer, Tolerance};
pub use guide::{Hint, Solution};
pub use outcome::{Graded, Outcome, Verdict};
pub use progress::{Progress, Record};

/// What every exercise says of itself.
#[derive(Clone, Copy, Debug)]
pub struct Info {
    /// `"01.q3"`: the part's number and the exercise's name in its notebook.
    pub id: &'static str,
    /// A few words: what the student writes.
    pub title: &'static str,
    /// The lecture's cell, `"000#37"`, or `"ours"` where no cell of the documents holds the
    /// code (the Transformer's decoding, which 002 leaves as empty headings; the blog's loss).
    pub lecture: &'static str,
    /// The hints, from a nudge to nearly the answer.
    pub hints: &'static [&'static str],
    /// The solution's file, from the crate's root, and the items shown (`fn name`, `struct Name`,
    /// `impl Name: new, forward`), as the class cells name them: written `solution!(part::name)`.
    pub solution: (&'static str, &'static [&'static str]),
}

impl Info {
    /// Hint `n` (from 1); past the last, the last.
    pub fn hint(&self, n: usize) -> Hint {
        Hint::new(self, n)
    }

    /// The reference solution, as its file has it.
    pub fn solution(&self) -> Solution {
        Solution::new(self)
    }
}

/// An exercise's solution by its Rust path in [`solutions`]: a function,
/// `solution!(attention::products)`, or a struct with the methods shown,
/// `solution!(transformer::MyAddNorm: new, forward)`. The path is compiled, so a solution renamed
/// or moved fails the build; the file and the items `solution()` shows follow from it.
macro_rules! solution {
    ($part:ident :: $item:ident) => {{
        const _: () = {
            let _ = $crate::practice::solutions::$part::$item;
        };
        (concat!("src/practice/solutions/", stringify!($part), ".rs"), &[concat!("fn ", stringify!($item))])
    }};
    ($part:ident :: $item:ident : $first:ident $(, $rest:ident)*) => {{
        const _: () = {
            let _ = $crate::practice::solutions::$part::$item::$first;
            $(let _ = $crate::practice::solutions::$part::$item::$rest;)*
        };
        (
            concat!("src/practice/solutions/", stringify!($part), ".rs"),
            &[
                concat!("struct ", stringify!($item)),
                concat!("impl ", stringify!($item), ": ", stringify!($first) $(, ", ", stringify!($rest))*),
            ],
        )
    }};
}
pub(crate) use solution;

/// An exercise: a unit struct, a lower-case constant of it (`q1`), and the methods every exercise
/// has. Its `check` is written beside it, since each takes the student's code in its own shape.
macro_rules! exercise {
    ($(#[$m:meta])* $name:ident: $ty:ident = $info:expr) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug)]
        pub struct $ty;

        #[doc = concat!("The exercise [`", stringify!($ty), "`], as the notebook names it.")]
        #[allow(non_upper_case_globals)]
        pub const $name: $ty = $ty;

        impl $crate::practice::declaration::Declared for $ty {
            const INFO: $crate::practice::Info = $info;
        }

        impl $ty {
            /// What the exercise says of itself.
            pub const INFO: $crate::practice::Info = <$ty as $crate::practice::declaration::Declared>::INFO;

            /// The first hint.
            pub fn hint(&self) -> $crate::practice::Hint {
                Self::INFO.hint(1)
            }

            /// Hint `n`, from 1: the later, the closer to the answer.
            pub fn hint_n(&self, n: usize) -> $crate::practice::Hint {
                Self::INFO.hint(n)
            }

            /// The reference solution, highlighted, as the crate's file has it.
            pub fn solution(&self) -> $crate::practice::Solution {
                Self::INFO.solution()
            }
        }
    };
}
pub(crate) use exercise;

/// Every exercise of every part, in order: what the progress tables and the tests walk.
pub fn all() -> Vec<Info> {
    [seq2seq::ALL, attention::ALL, self_attention::ALL, transformer::ALL, blog::ALL, gps::ALL].concat()
}

/// The exercises of one part (`"01"` to `"06"`).
pub fn part(number: &str) -> Vec<Info> {
    all().into_iter().filter(|i| i.id.split('.').next() == Some(number)).collect()
}

/// Every solution's file and items, as excerpts.txt names them: what tests/class_excerpts.rs
/// looks up in the sources.
#[doc(hidden)]
pub fn solution_picks() -> Vec<(&'static str, Vec<String>)> {
    all().iter().map(|i| (i.solution.0, i.solution.1.iter().map(|s| s.to_string()).collect())).collect()
}
