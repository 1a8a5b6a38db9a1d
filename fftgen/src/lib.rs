pub mod codelet;
pub mod expr;
pub mod plan;
pub mod spec;
pub mod error;
pub use error::Error;
pub use spec::FftSpec;
pub use fftgen_runtime::{Backend, Direction, Manifest, Normalization, Placement, Precision};
