//! What every pass kernel shares, whichever lowering builds it: its
//! parameters (the buffers, the batch, the twiddle table) and where each of
//! its FFTs starts in the input and the output. The Stockham pass, the real
//! step of its own and Bluestein's chirp steps all lower onto these.

use super::ast::{let_const, uint, var, Expr, Param, ParamKind, Stmt, Type};
use crate::plan::{Access, Pass};
use crate::Placement;

/// The kernel parameter that points to the pass's twiddle table.
pub const TWIDDLES: &str = "twiddles";

/// The parameters of a pass's kernel: `input`, `output` (complex, or real
/// where `real_input` / `real_output`) and `batch` out of place, `data` and
/// `batch` in place, then the twiddle table where it reads one.
pub(super) fn kernel_params(
    placement: Placement,
    real_input: bool,
    real_output: bool,
    twiddles: bool,
) -> Vec<Param> {
    let pointer = |real: bool| match real {
        true => Type::Real,
        false => Type::Complex,
    };
    let mut params = match placement {
        Placement::OutOfPlace => vec![
            Param {
                name: "input".into(),
                kind: ParamKind::Global {
                    ty: pointer(real_input),
                    read_only: true,
                    restrict: true,
                },
            },
            Param {
                name: "output".into(),
                kind: ParamKind::Global {
                    ty: pointer(real_output),
                    read_only: false,
                    restrict: true,
                },
            },
            Param {
                name: "batch".into(),
                kind: ParamKind::Value(Type::Uint),
            },
        ],
        // Input and output alias, so neither may be restrict.
        Placement::InPlace => vec![
            Param {
                name: "data".into(),
                kind: ParamKind::Global {
                    ty: Type::Complex,
                    read_only: false,
                    restrict: false,
                },
            },
            Param {
                name: "batch".into(),
                kind: ParamKind::Value(Type::Uint),
            },
        ],
    };
    if twiddles {
        params.push(Param {
            name: TWIDDLES.into(),
            kind: ParamKind::Global {
                ty: Type::Complex,
                read_only: true,
                restrict: true,
            },
        });
    }
    params
}

/// Decomposes FFT `fft` (an index variable) into the coordinates of
/// `access`'s columns (`{fft}_c0`, ...) and the transform of the batch, and
/// declares where it starts in the input (`input`) and the output (`output`).
pub(super) fn locate(access: &Access, fft: &str, input: &str, output: &str) -> Vec<Stmt> {
    let mut out = Vec::new();
    let mut rest = var(fft);
    let (mut at_in, mut at_out) = (uint(access.input_offset), uint(access.output_offset));
    for (i, column) in access.columns.iter().enumerate() {
        let coordinate = format!("{fft}_c{i}");
        out.push(let_const(
            Type::Index,
            coordinate.clone(),
            rest.clone().rem(uint(column.count)),
        ));
        at_in = at_in.add(var(&coordinate).mul(uint(column.input_stride)));
        at_out = at_out.add(var(&coordinate).mul(uint(column.output_stride)));
        let quotient = format!("{fft}_q{i}");
        out.push(let_const(
            Type::Index,
            quotient.clone(),
            rest.div(uint(column.count)),
        ));
        rest = var(quotient);
    }
    out.push(let_const(
        Type::Index,
        input,
        at_in.add(rest.clone().mul(uint(access.input_distance))),
    ));
    out.push(let_const(
        Type::Index,
        output,
        at_out.add(rest.mul(uint(access.output_distance))),
    ));
    out
}

/// The transforms a launch of `pass` counts: the batch's, or its pairs
/// (rounded up) where each FFT computes two ([`Pass::transform_pairs`]).
pub(super) fn transforms_of(pass: &Pass) -> Expr {
    match pass.transform_pairs {
        true => var("batch").add(uint(1)).div(uint(2)),
        false => var("batch"),
    }
}
