//! Orders a DAG for emission (genfft's schedule.ml, simplified: the GPU
//! compilers reschedule for registers themselves) and decides which
//! multiplications fuse into fused multiply-adds. Explicit FMAs make the
//! CUDA and OpenCL results agree bit for bit and are more accurate than a
//! separate multiply and add.

use super::dag::{Dag, Node, NodeId};
use std::collections::HashSet;

/// A value read by a step: a node, possibly negated (negation is free on GPUs:
/// it is an operand modifier of the consuming instruction).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operand {
    pub node: NodeId,
    pub negated: bool,
}

/// One emitted operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepOp {
    Add(Operand, Operand),
    Sub(Operand, Operand),
    Mul(Operand, Operand),
    /// `a * b + c`.
    Fma(Operand, Operand, Operand),
}

/// A node materialised as a temporary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub node: NodeId,
    pub op: StepOp,
}

/// The operations that compute `outputs`, in dependency order.
#[derive(Debug, Clone)]
pub struct Schedule {
    pub steps: Vec<Step>,
    pub outputs: Vec<Operand>,
}

/// Orders the nodes reachable from `outputs` and fuses single-use products.
pub fn schedule(dag: &Dag, outputs: &[NodeId]) -> Schedule {
    let uses = count_uses(dag, outputs);
    let single_use_product =
        |id: NodeId| matches!(dag.node(id), Node::Mul(..)) && uses[id.index()] == 1;
    let mut fused = HashSet::new();
    for id in reachable(dag, outputs) {
        let (Node::Add(a, b) | Node::Sub(a, b)) = dag.node(id) else {
            continue;
        };
        // One product per addition fuses; the first operand wins.
        if single_use_product(a) && fused.insert(a) {
            continue;
        }
        if single_use_product(b) {
            fused.insert(b);
        }
    }

    let operand = |id: NodeId| match dag.node(id) {
        Node::Neg(inner) => Operand {
            node: inner,
            negated: true,
        },
        _ => Operand {
            node: id,
            negated: false,
        },
    };
    let negate = |o: Operand| Operand {
        negated: !o.negated,
        ..o
    };
    let mut steps = Vec::new();
    for id in reachable(dag, outputs) {
        if fused.contains(&id) {
            continue;
        }
        let product = |id: NodeId| match dag.node(id) {
            Node::Mul(x, y) if fused.contains(&id) => Some((operand(x), operand(y))),
            _ => None,
        };
        let op = match dag.node(id) {
            Node::Add(a, b) => match (product(a), product(b)) {
                (Some((x, y)), _) => StepOp::Fma(x, y, operand(b)),
                (None, Some((x, y))) => StepOp::Fma(x, y, operand(a)),
                (None, None) => StepOp::Add(operand(a), operand(b)),
            },
            Node::Sub(a, b) => match (product(a), product(b)) {
                (Some((x, y)), _) => StepOp::Fma(x, y, negate(operand(b))),
                (None, Some((x, y))) => StepOp::Fma(negate(x), y, operand(a)),
                (None, None) => StepOp::Sub(operand(a), operand(b)),
            },
            Node::Mul(a, b) => StepOp::Mul(operand(a), operand(b)),
            Node::Input(_) | Node::Const(_) | Node::Neg(_) => continue,
        };
        steps.push(Step { node: id, op });
    }
    Schedule {
        steps,
        outputs: outputs.iter().map(|&id| operand(id)).collect(),
    }
}

/// How many times each node is read, by other reachable nodes and by the outputs.
fn count_uses(dag: &Dag, outputs: &[NodeId]) -> Vec<u32> {
    let mut uses = vec![0u32; dag.len()];
    for id in reachable(dag, outputs) {
        for child in children(dag.node(id)) {
            uses[child.index()] += 1;
        }
    }
    for id in outputs {
        uses[id.index()] += 1;
    }
    uses
}

fn children(node: Node) -> Vec<NodeId> {
    match node {
        Node::Input(_) | Node::Const(_) => vec![],
        Node::Neg(a) => vec![a],
        Node::Add(a, b) | Node::Sub(a, b) | Node::Mul(a, b) => vec![a, b],
    }
}

/// Nodes reachable from `outputs`, each after the nodes it reads.
fn reachable(dag: &Dag, outputs: &[NodeId]) -> Vec<NodeId> {
    // Children always have smaller ids than their parents, so sorting by id is
    // a topological order.
    let mut seen = vec![false; dag.len()];
    let mut stack: Vec<NodeId> = outputs.to_vec();
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut seen[id.index()], true) {
            continue;
        }
        stack.extend(children(dag.node(id)));
    }
    (0..dag.len())
        .filter(|&i| seen[i])
        .map(|i| NodeId(i as u32))
        .collect()
}
