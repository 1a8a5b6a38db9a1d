//! The tools behind the `fftgen` command, kept out of the generator library
//! (which every user crate compiles through `fft_kernel!`): accuracy checks
//! against an f64 reference ([`accuracy`], [`check`]) through the layouts of
//! the buffers ([`strided`]), `.npy` files for numpy ([`npy`]), the command
//! line's spelling of shapes ([`shape`]) and the GPU benchmark and shape
//! search against cuFFT ([`bench`]). The binary (`src/main.rs`) parses the
//! command line on top.

pub mod accuracy;
pub mod bench;
pub mod check;
pub mod measured;
pub mod npy;
pub mod shape;
pub mod strided;
