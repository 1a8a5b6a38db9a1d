//! The algebraic simplifier (genfft's algsimp.ml), applied as every node is
//! built: x*0, x*1 and x*-1 fold away, negations move outwards until an
//! addition absorbs them (x + -y becomes x - y, so multiplying by i or -i is a
//! swap and a sign), and k*x + k*y becomes k*(x + y) so constants such as
//! sqrt(2)/2 in (1-i)/sqrt(2) are multiplied once.

use super::dag::{Dag, Node, NodeId};

impl Dag {
    fn is_zero(&self, id: NodeId) -> bool {
        self.as_constant(id).is_some_and(|c| c.is_zero())
    }

    fn negated(&self, id: NodeId) -> Option<NodeId> {
        match self.node(id) {
            Node::Neg(x) => Some(x),
            _ => None,
        }
    }

    /// `(k, x)` when `id` is `k * x` with a constant `k`.
    fn scaled(&self, id: NodeId) -> Option<(NodeId, NodeId)> {
        match self.node(id) {
            Node::Mul(k, x) if self.as_constant(k).is_some() => Some((k, x)),
            _ => None,
        }
    }

    pub fn neg(&mut self, a: NodeId) -> NodeId {
        if self.is_zero(a) {
            return a;
        }
        match self.negated(a) {
            Some(x) => x,
            None => self.intern(Node::Neg(a)),
        }
    }

    pub fn add(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if self.is_zero(a) {
            return b;
        }
        if self.is_zero(b) {
            return a;
        }
        match (self.negated(a), self.negated(b)) {
            (Some(x), Some(y)) => {
                let sum = self.add(x, y);
                return self.neg(sum);
            }
            (None, Some(y)) => return self.sub(a, y),
            (Some(x), None) => return self.sub(b, x),
            (None, None) => {}
        }
        if let (Some((k, x)), Some((l, y))) = (self.scaled(a), self.scaled(b)) {
            if k == l {
                let sum = self.add(x, y);
                return self.mul(k, sum);
            }
        }
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        self.intern(Node::Add(a, b))
    }

    pub fn sub(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if a == b {
            return self.zero();
        }
        if self.is_zero(b) {
            return a;
        }
        if self.is_zero(a) {
            return self.neg(b);
        }
        if let Some(y) = self.negated(b) {
            return self.add(a, y);
        }
        if let Some(x) = self.negated(a) {
            let sum = self.add(x, b);
            return self.neg(sum);
        }
        if let (Some((k, x)), Some((l, y))) = (self.scaled(a), self.scaled(b)) {
            if k == l {
                let difference = self.sub(x, y);
                return self.mul(k, difference);
            }
        }
        self.intern(Node::Sub(a, b))
    }

    pub fn mul(&mut self, a: NodeId, b: NodeId) -> NodeId {
        // Constants go first so that `scaled` finds them.
        let (a, b) = match (self.as_constant(a), self.as_constant(b)) {
            (None, Some(_)) => (b, a),
            (Some(_), Some(_)) | (None, None) if b < a => (b, a),
            _ => (a, b),
        };
        if let Some(x) = self.negated(a) {
            let product = self.mul(x, b);
            return self.neg(product);
        }
        if let Some(y) = self.negated(b) {
            let product = self.mul(a, y);
            return self.neg(product);
        }
        if let Some(k) = self.as_constant(a) {
            if k.is_zero() {
                return a;
            }
            if k.is_one() {
                return b;
            }
        }
        if self.as_constant(b).is_some_and(|k| k.is_one()) {
            return a;
        }
        if self.is_zero(b) {
            return b;
        }
        self.intern(Node::Mul(a, b))
    }
}

#[cfg(test)]
mod tests {
    use crate::expr::constant::{Constant, Turn};
    use crate::expr::{Dag, Node};

    #[test]
    fn trivial_products_fold() {
        let mut dag = Dag::new();
        let x = dag.input(0);
        let one = dag.constant(Constant::ONE);
        let zero = dag.zero();
        let minus_one = dag.neg(one);
        assert_eq!(dag.mul(x, one), x);
        assert_eq!(dag.mul(zero, x), zero);
        let negated = dag.mul(minus_one, x);
        assert_eq!(dag.node(negated), Node::Neg(x));
        let y = dag.input(1);
        let sum = dag.add(y, negated);
        assert_eq!(dag.node(sum), Node::Sub(y, x));
    }

    #[test]
    fn common_constant_factors_out() {
        let mut dag = Dag::new();
        let (x, y) = (dag.input(0), dag.input(1));
        let k = dag.signed(Constant::cos(Turn::new(1, 8)));
        let (kx, ky) = (dag.mul(k, x), dag.mul(y, k));
        let sum = dag.add(kx, ky);
        let Node::Mul(factor, inner) = dag.node(sum) else {
            panic!("not factored")
        };
        assert_eq!(factor, k);
        assert!(matches!(dag.node(inner), Node::Add(..)));
    }
}
