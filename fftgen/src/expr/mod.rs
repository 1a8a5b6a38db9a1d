//! The expression IR for butterflies and twiddles (FFTW's genfft: expr.ml,
//! algsimp.ml, schedule.ml). Complex arithmetic is lowered to a DAG of real
//! operations on exact constants; the DAG is hash-consed so common
//! subexpressions are shared, and every node is built through the simplifier
//! so multiplications by 0, 1, -1, i and -i never survive.

pub mod complex;
pub mod constant;
pub mod dag;
pub mod opcount;
pub mod schedule;
mod simplify;

pub use complex::Complex;
pub use constant::{Constant, Turn};
pub use dag::{Dag, Node, NodeId};
pub use opcount::OpCount;
pub use schedule::{schedule, Schedule};
