//! The kernel wing: hand-written CPU kernels behind the lecture's layers.
//!
//! The layers in `nn`, `attention` and `models` read as the lecture's classes. Where a float32
//! CPU tensor can be computed faster as one graph node with its own backward pass (in place of the
//! several nodes candle would record), the layer makes one call here; each entry point answers
//! with the fused node where it applies and leaves the plain-candle composition to the caller (or
//! makes it itself) where it does not. Only this wing names candle's `CustomOp*`, `CpuStorage`,
//! `apply_op*`, raw `f32` slices or `unsafe` (`tests/layout.rs` checks it). Every kernel is
//! tested against the plain-candle composition it replaces, values and gradients: in its own
//! file's tests, in `kernels_tests` and in `tests/fused_kernels.rs`.
//!
//! | file | the kernel | its entry points |
//! |---|---|---|
//! | `node` | `Kernel1`/`Node1` and `Kernel3`/`Node3`, the adapters that make a kernel a candle node (`Fused3` for the input-weight-bias ones), and reading a storage's values | every node below |
//! | `kernels` | the lecture-sized affine map, bias, ReLU and the last-dimension softmax | `ops::relu`, `ops::softmax`, `Linear::forward` |
//! | `dense` | the wide affine maps through gemm, and their weight gradients | `Linear::forward` |
//! | `layer_norm` | layer normalisation | `nn::layer_norm` |
//! | `log_softmax` | the translators' log-softmax | `train::cross_entropy` |
//! | `cells`, `fast_math` | one LSTM/GRU step, the gate arithmetic, `exp`/`sigmoid`/`tanh` | `Lstm`, `Gru`, `LstmCell` |
//! | `gru_sequence`, `lstm_sequence`, `padding` | a whole recurrent direction, back-propagating through time inside; padding as each row's length | `Gru::forward`, `Gru::forward_padded`, `Lstm::forward_padded` |
//! | `attn_lstm_decoder` | the blog post's attention LSTM decoder over a teacher-forced target | `LstmTranslator` |
//! | `flash`, `simd_rows` | scaled dot-product attention over 64 keys or more as one node: tiled, an online softmax, the weights recomputed in the backward pass, a vectorised `exp` | the Transformer's passes that read no weights (`attention::unused_weights`) |
//! | `heads`, `masked_softmax` | splitting/merging attention heads; `softmax(scores * scale + mask)` | the vectorised multi-head attention, `attend` |
//! | `rows`, `in_place` | a decoder's rows picked without a graph; float32 values read and updated in place | the translators' decoding, the optimiser, clipping |
//! | `grad_sink` | parameters' gradients kept past candle's store (no zeros tensor and add for each) inside the training step | the input-weight-bias nodes, `train::parallel_grads`, `StepByStep` |
//! | `transposed` | a training step's wide weights transposed once, for every forward product that reads them | `train::parallel_grads`, `dense` |
//! | `scoped` | a value open on this thread for the length of a call (the step scopes above) | `grad_sink`, `transposed` |
//! | `heap` | glibc's allocator told to keep freed tensors' memory (opt-in, see `crate::tuning`) | `tuning::keep_freed_memory` |

pub(crate) mod attn_lstm_decoder;
pub(crate) mod cells;
pub(crate) mod dense;
#[cfg(test)]
mod dense_tests;
pub(crate) mod fast_math;
pub(crate) mod flash;
#[cfg(test)]
mod flash_tests;
pub(crate) mod grad_sink;
pub(crate) mod gru_sequence;
pub(crate) mod heads;
pub(crate) mod heap;
pub(crate) mod in_place;
pub(crate) mod kernels;
#[cfg(test)]
mod kernels_tests;
pub(crate) mod layer_norm;
pub(crate) mod log_softmax;
pub(crate) mod lstm_sequence;
pub(crate) mod masked_softmax;
pub(crate) mod node;
pub(crate) mod padding;
pub(crate) mod rows;
pub(crate) mod scoped;
pub(crate) mod simd_rows;
pub(crate) mod transposed;
pub(crate) mod unexpected;
