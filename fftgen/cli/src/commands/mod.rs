//! One module per subcommand of `fftgen`, and the transform options they share.

pub mod args;
pub mod bench;
pub mod check;
pub mod emit;
pub mod fit;
pub mod plan;
pub mod sweep;
pub mod tune;
