//! From plan to kernel source: the kernel AST ([`ast`]), the one place where
//! CUDA and OpenCL differ ([`dialect`]), what every pass kernel shares
//! ([`signature`]: its parameters and where its FFTs start), and the
//! lowerings of butterflies, complex helpers, the Stockham pass, a real step
//! of its own and the chirp steps of Bluestein's algorithm into that AST.

pub mod ast;
pub mod butterfly;
pub mod chirp;
pub mod complex_ops;
pub mod dialect;
pub mod key;
pub mod lang;
pub mod real_split;
pub mod signature;
pub mod stockham;

pub use dialect::{dialect, Cuda, Dialect, OpenCl};
pub use key::KernelKey;
