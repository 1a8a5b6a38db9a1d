//! The hash-consed expression DAG over real numbers (genfft's expr.ml).
//! Nodes are interned, so building the same expression twice yields the same
//! node and common subexpressions are shared for free. Nodes are only made
//! through the simplifying constructors in `simplify.rs`.

use super::constant::{Constant, Signed};
use std::collections::HashMap;

/// Index of a node in its [`Dag`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One real-valued operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Node {
    /// The real value held in input slot `k` (the caller names the slots).
    Input(usize),
    /// A non-negative exact constant; negative constants are `Neg(Const)`.
    Const(Constant),
    Add(NodeId, NodeId),
    Sub(NodeId, NodeId),
    Mul(NodeId, NodeId),
    Neg(NodeId),
}

/// An arena of interned nodes.
#[derive(Debug, Default, Clone)]
pub struct Dag {
    nodes: Vec<Node>,
    interned: HashMap<Node, NodeId>,
}

impl Dag {
    pub fn new() -> Dag {
        Dag::default()
    }

    pub fn node(&self, id: NodeId) -> Node {
        self.nodes[id.index()]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node for `node`, made once.
    pub(crate) fn intern(&mut self, node: Node) -> NodeId {
        if let Some(&id) = self.interned.get(&node) {
            return id;
        }
        let id = NodeId(u32::try_from(self.nodes.len()).expect("DAG larger than 2^32 nodes"));
        self.nodes.push(node);
        self.interned.insert(node, id);
        id
    }

    pub fn input(&mut self, slot: usize) -> NodeId {
        self.intern(Node::Input(slot))
    }

    pub fn constant(&mut self, c: Constant) -> NodeId {
        self.intern(Node::Const(c))
    }

    pub fn zero(&mut self) -> NodeId {
        self.constant(Constant::ZERO)
    }

    /// A constant with a sign.
    pub fn signed(&mut self, value: Signed) -> NodeId {
        let magnitude = self.constant(value.magnitude);
        if value.negative {
            self.neg(magnitude)
        } else {
            magnitude
        }
    }

    /// The constant held by `id`, if it is one.
    pub fn as_constant(&self, id: NodeId) -> Option<Constant> {
        match self.node(id) {
            Node::Const(c) => Some(c),
            _ => None,
        }
    }

    /// Evaluates `outputs` for the given input slot values, in f64 (for tests).
    pub fn eval(&self, outputs: &[NodeId], inputs: &[f64]) -> Vec<f64> {
        let mut values = vec![0.0; self.nodes.len()];
        // Nodes only point to earlier nodes, so one forward sweep evaluates all.
        for (i, node) in self.nodes.iter().enumerate() {
            let v = |id: NodeId| values[id.index()];
            values[i] = match *node {
                Node::Input(slot) => inputs[slot],
                Node::Const(c) => c.value(),
                Node::Add(a, b) => v(a) + v(b),
                Node::Sub(a, b) => v(a) - v(b),
                Node::Mul(a, b) => v(a) * v(b),
                Node::Neg(a) => -v(a),
            };
        }
        outputs.iter().map(|id| values[id.index()]).collect()
    }
}
