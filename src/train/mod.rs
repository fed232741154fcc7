//! Training: losses, PyTorch's Adam, `StepByStep` (the book's trainer) and its checkpoints.

pub mod checkpoint;
pub mod loss;
pub mod optim;
pub mod step_by_step;

pub use checkpoint::{CheckpointRecord, tensors_checksum};
pub use loss::{Loss, MSELoss};
pub use optim::{Adam, Optimizer, OptimizerState};
pub use step_by_step::StepByStep;
