//! fftgen: a source-to-source generator of GPU FFT kernels.
//!
//! The pipeline, each stage in its own module:
//! 1. [`spec`]: what the user asks for (size, precision, directions, ...).
//! 2. [`plan`]: how to compute it (radix sequence, threads, shared memory),
//!    as plain data; every heuristic lives there.
//! 3. [`expr`] and [`codelet`]: radix-R butterflies built as an expression DAG
//!    from the DFT definition and simplified (FFTW's genfft, in Rust).
//! 4. [`kernel`]: the plan lowered into a kernel AST and rendered through a
//!    [`kernel::Dialect`] into CUDA or OpenCL C.
//! 5. [`emit`]: whole source files with their header, and the launch manifest.

pub mod accuracy;
pub mod bench;
pub mod check;
pub mod codelet;
pub mod emit;
pub mod error;
pub mod expr;
pub mod kernel;
pub mod npy;
pub mod plan;
pub mod runtime_plan;
pub mod spec;

pub use emit::{generate, Generated};
pub use error::Error;
pub use fftgen_runtime::{Backend, Direction, Manifest, Normalization, Placement, Precision};
pub use plan::Plan;
pub use spec::FftSpec;

/// The generator's version, written into every emitted file and cache key.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
