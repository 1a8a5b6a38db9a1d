pub mod codelet;
pub mod expr;
pub use fftgen_runtime::{Backend, Direction, Manifest, Normalization, Placement, Precision};
