//! From plan to kernel source: the kernel AST ([`ast`]), the one place where
//! CUDA and OpenCL differ ([`dialect`]), what every pass kernel shares
//! ([`signature`]: its parameters, where its FFTs start, its outputs'
//! scale), the frame of a kernel that walks rows in chunks
//! ([`row_chunks`]), and the lowerings of butterflies, complex helpers, the
//! Stockham pass, a real step of its own and the chirp steps of Bluestein's
//! algorithm into that AST.

pub mod ast;
pub mod butterfly;
pub mod chirp;
pub mod complex_ops;
pub mod dialect;
pub mod key;
pub mod lang;
pub mod real_split;
mod row_chunks;
pub mod signature;
pub mod stockham;

pub use dialect::{dialect, Cuda, Dialect, OpenCl};
pub use key::KernelKey;
