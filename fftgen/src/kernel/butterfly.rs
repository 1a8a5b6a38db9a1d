//! Lowers a generated [`Codelet`] into a device function that transforms R
//! complex values in place in the caller's registers. Constants become named
//! locals (`KP707106781`), each scheduled DAG step one `const` temporary, and
//! products that the scheduler fused become explicit FMAs.

use super::ast::{let_const, var, Expr, Function, FunctionKind, Param, ParamKind, Stmt, Type};
use crate::codelet::Codelet;
use crate::expr::{schedule::Operand, schedule::StepOp, Node};
use crate::{Direction, Precision};
use std::collections::BTreeMap;

/// The name of the butterfly function for `radix`, `direction` and `precision`.
pub fn butterfly_name(radix: usize, direction: Direction, precision: Precision) -> String {
    let dir = match direction {
        Direction::Forward => "fwd",
        Direction::Inverse => "inv",
    };
    format!("fftgen_dft{radix}_{dir}_{precision}")
}

/// `void fftgen_dftR_dir_prec(complex* v)`: v[k] = sum_j v[j] w^(jk).
pub fn lower_butterfly(codelet: &Codelet, precision: Precision) -> Function {
    let mut body = vec![Stmt::Comment(format!(
        "radix-{} {} DFT: {}",
        codelet.radix, codelet.direction, codelet.ops
    ))];

    // Constants, each once, ordered by name for stable output.
    let mut constants = BTreeMap::new();
    for step in &codelet.schedule.steps {
        for operand in operands(step.op) {
            if let Node::Const(c) = codelet.dag.node(operand.node) {
                constants.insert(c.name(), c.value());
            }
        }
    }
    for (name, value) in &constants {
        body.push(let_const(Type::Real, name.clone(), Expr::Real(*value)));
    }

    // Inputs, read once into scalars so the DAG's slots have names.
    for k in 0..codelet.radix {
        let value = var("v").at(super::ast::uint(k));
        body.push(let_const(Type::Real, slot_name(2 * k), value.clone().re()));
        body.push(let_const(Type::Real, slot_name(2 * k + 1), value.im()));
    }

    let render = |o: Operand| {
        let base = match codelet.dag.node(o.node) {
            Node::Input(slot) => var(slot_name(slot)),
            Node::Const(c) => var(c.name()),
            _ => var(format!("t{}", o.node.index())),
        };
        if o.negated {
            base.neg()
        } else {
            base
        }
    };
    for step in &codelet.schedule.steps {
        let value = match step.op {
            StepOp::Add(a, b) => render(a).add(render(b)),
            StepOp::Sub(a, b) => render(a).sub(render(b)),
            StepOp::Mul(a, b) => render(a).mul(render(b)),
            StepOp::Fma(a, b, c) => Expr::fma(render(a), render(b), render(c)),
        };
        body.push(let_const(
            Type::Real,
            format!("t{}", step.node.index()),
            value,
        ));
    }

    let outputs = &codelet.schedule.outputs;
    for k in 0..codelet.radix {
        let target = var("v").at(super::ast::uint(k));
        let value = Expr::complex(render(outputs[2 * k]), render(outputs[2 * k + 1]));
        body.push(Stmt::Assign(target, value));
    }

    Function {
        kind: FunctionKind::Helper { returns: None },
        name: butterfly_name(codelet.radix, codelet.direction, precision),
        params: vec![Param {
            name: "v".into(),
            kind: ParamKind::Private(Type::Complex),
        }],
        body,
    }
}

/// Input slot 2k is the real part of v[k], 2k+1 its imaginary part.
fn slot_name(slot: usize) -> String {
    format!("x{}{}", slot / 2, if slot % 2 == 0 { "r" } else { "i" })
}

fn operands(op: StepOp) -> Vec<Operand> {
    match op {
        StepOp::Add(a, b) | StepOp::Sub(a, b) | StepOp::Mul(a, b) => vec![a, b],
        StepOp::Fma(a, b, c) => vec![a, b, c],
    }
}
