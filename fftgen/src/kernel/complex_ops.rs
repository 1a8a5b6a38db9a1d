//! Complex helpers the kernels call: multiplication by a twiddle factor and
//! by its conjugate (the inverse transform reads the forward table and
//! conjugates, so one table serves both directions).

use super::ast::{var, Expr, Function, FunctionKind, Param, ParamKind, Stmt, Type};
use crate::Precision;

pub fn cmul_name(conjugate: bool, precision: Precision) -> String {
    format!(
        "fftgen_cmul{}_{precision}",
        if conjugate { "_conj" } else { "" }
    )
}

/// `a * w`, or `a * conj(w)` when `conjugate`, with two FMAs.
pub fn cmul(conjugate: bool, precision: Precision) -> Function {
    let (a, w) = (var("a"), var("w"));
    let (wi, neg_wi) = if conjugate {
        (w.clone().im().neg(), w.clone().im())
    } else {
        (w.clone().im(), w.clone().im().neg())
    };
    let re = Expr::fma(a.clone().re(), w.clone().re(), a.clone().im().mul(neg_wi));
    let im = Expr::fma(a.clone().re(), wi, a.im().mul(w.re()));
    Function {
        kind: FunctionKind::Helper {
            returns: Some(Type::Complex),
        },
        name: cmul_name(conjugate, precision),
        params: vec![
            Param {
                name: "a".into(),
                kind: ParamKind::Value(Type::Complex),
            },
            Param {
                name: "w".into(),
                kind: ParamKind::Value(Type::Complex),
            },
        ],
        body: vec![Stmt::Return(Expr::complex(re, im))],
    }
}
