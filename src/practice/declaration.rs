//! One declaration an exercise: what it says of itself (its [`Info`], from `exercise!`), its
//! hidden cases, the crate's reference, the usual mistakes and the invariants a correct answer
//! keeps, as the items of one `impl Exercise for Qn` block. The exercise's `check` only says how
//! the student's function takes a case's input: `Self::run(|(q, k)| f(q, k))`.

use super::Info;
use super::answer::{Answer, Tolerance};
use super::cases::Case;
use super::run::{Invariant, Mistake, Outcome, check};
use candle_core::Result;

/// What `exercise!` gives every exercise: its [`Info`].
pub(crate) trait Declared {
    const INFO: Info;
}

/// An exercise checked against the crate's reference on hidden cases.
pub(crate) trait Exercise: Declared {
    /// A case's inputs, as the student's function receives them (by reference, unpacked by `check`).
    type Input;
    /// What the student's function returns.
    type Answer: Answer;
    /// How close an answer must be to the reference's.
    const TOLERANCE: Tolerance = Tolerance::F32;

    /// The hidden cases (see `rules.rs` for what they must vary).
    fn cases() -> Result<Vec<Case<Self::Input>>>;

    /// The crate's answer on a case.
    fn reference(input: &Self::Input) -> Result<Self::Answer>;

    /// The usual mistakes, each with the wrong answer it gives and its sentence.
    fn mistakes() -> Vec<Mistake<Self::Input, Self::Answer>> {
        vec![]
    }

    /// What a correct answer keeps whatever the numbers (see [`Invariant`]).
    fn invariants() -> Vec<Invariant<Self::Input>> {
        vec![]
    }

    /// Runs the student's `f`, taking a case's input, on every case: the outcome of `check`.
    fn run(f: impl Fn(&Self::Input) -> Result<Self::Answer>) -> Outcome {
        check(&Self::INFO, Self::cases(), Self::reference, &Self::mistakes(), &Self::invariants(), Self::TOLERANCE, f)
    }
}
