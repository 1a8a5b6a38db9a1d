//! fftgen: a source-to-source generator of GPU FFT kernels.
//!
//! The pipeline, each stage in its own module:
//! 1. [`spec`]: what the user asks for (size, precision, directions, ...),
//!    the choices they make in place of the planner and the [`Target`].
//! 2. [`plan`]: how to compute it (radix sequence, threads, shared memory),
//!    as plain data; every heuristic, and the measured shapes (wisdom), live
//!    there.
//! 3. [`expr`] and [`codelet`]: radix-R butterflies built as an expression DAG
//!    from the DFT definition and simplified (FFTW's genfft, in Rust).
//! 4. [`kernel`]: the plan lowered into a kernel AST and rendered through a
//!    [`kernel::Dialect`] into CUDA or OpenCL C.
//! 5. [`emit`]: whole source files with their header, and the launch manifest.
//!
//! The vocabulary, the [`Manifest`] and the [`Target`] come from
//! `fftgen-manifest`, below this crate; the runtime and the `fftgen`
//! command sit above it. This crate links no GPU driver: every crate that
//! uses `fft_kernel!` compiles it.

pub mod codelet;
pub mod distributed;
pub mod emit;
pub mod error;
pub mod expr;
pub mod kernel;
pub mod plan;
pub mod spec;

pub use emit::{generate, Generated};
pub use error::Error;
pub use fftgen_manifest::{
    Backend, Blocks, Buffer, Direction, Element, Layout, Manifest, Normalization, Placement,
    Precision, Target, TransformKind,
};
pub use plan::{Plan, ShapeChoices};
pub use spec::FftSpec;

/// The generator's version, written into every emitted file and cache key.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
