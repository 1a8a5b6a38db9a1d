//! Complex values as pairs of real DAG nodes, and the complex operations a
//! butterfly needs. Multiplication by a root of unity goes through exact
//! constants, so the simplifier sees and removes the trivial ones.

use super::constant::root_of_unity;
use super::dag::{Dag, NodeId};

/// A complex value: real and imaginary nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Complex {
    pub re: NodeId,
    pub im: NodeId,
}

impl Dag {
    /// Input `k` as a complex value in slots `2k` (real) and `2k + 1` (imaginary).
    pub fn complex_input(&mut self, k: usize) -> Complex {
        Complex {
            re: self.input(2 * k),
            im: self.input(2 * k + 1),
        }
    }

    pub fn cadd(&mut self, a: Complex, b: Complex) -> Complex {
        Complex {
            re: self.add(a.re, b.re),
            im: self.add(a.im, b.im),
        }
    }

    pub fn csub(&mut self, a: Complex, b: Complex) -> Complex {
        Complex {
            re: self.sub(a.re, b.re),
            im: self.sub(a.im, b.im),
        }
    }

    /// `a * real` for a real node.
    pub fn cscale(&mut self, a: Complex, real: NodeId) -> Complex {
        Complex {
            re: self.mul(real, a.re),
            im: self.mul(real, a.im),
        }
    }

    /// `a * i * sign`: a swap and a negation, never a multiplication.
    pub fn ctimes_i(&mut self, a: Complex, sign: i32) -> Complex {
        let (re, im) = (self.neg(a.im), a.re);
        if sign >= 0 {
            Complex { re, im }
        } else {
            Complex {
                re: self.neg(re),
                im: self.neg(im),
            }
        }
    }

    /// `a * exp(sign * 2 pi i k / n)` with exact constants.
    pub fn ctwiddle(&mut self, a: Complex, k: i64, n: i64, sign: i32) -> Complex {
        let (cos, sin) = root_of_unity(k, n, sign);
        let (c, s) = (self.signed(cos), self.signed(sin));
        let (c_re, s_im) = (self.mul(c, a.re), self.mul(s, a.im));
        let (c_im, s_re) = (self.mul(c, a.im), self.mul(s, a.re));
        Complex {
            re: self.sub(c_re, s_im),
            im: self.add(c_im, s_re),
        }
    }
}
