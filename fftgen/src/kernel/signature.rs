//! What every pass kernel shares, whichever lowering builds it: its
//! parameters (the buffers, the batch, the twiddle table) and where each of
//! its FFTs starts in the input and the output, and the scale of its
//! outputs. The Stockham pass, the real
//! step of its own and Bluestein's chirp steps all lower onto these.

use super::ast::{
    let_const, uint, var, Expr, Function, FunctionKind, Param, ParamKind, Stmt, Type,
};
use super::key::KernelKey;
use crate::plan::{Access, Pass, Plan};
use crate::{Direction, Placement};

/// The factor `pass`'s outputs are scaled by in `direction`: the plan's
/// normalisation on the pass that applies it, else 1.
pub(super) fn output_scale(plan: &Plan, pass: &Pass, direction: Direction) -> f64 {
    match pass.normalizes {
        true => plan
            .normalization
            .scale(plan.normalized_points(), direction),
        false => 1.0,
    }
}

/// The kernel of `pass` of `plan` in `direction`: its key as its name, its
/// launch bounds, `params` and `body`.
pub(super) fn pass_kernel(
    (plan, pass, direction): (&Plan, &Pass, Direction),
    params: Vec<Param>,
    body: Vec<Stmt>,
) -> Function {
    Function {
        kind: FunctionKind::Kernel {
            threads_per_block: pass.threads_per_block,
            min_blocks_per_sm: pass.min_blocks_per_sm,
        },
        name: KernelKey::of(plan, pass, direction).to_string(),
        params,
        body,
    }
}

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
/// The starts are computed over [`nested_levels`]: where columns nest in
/// both buffers (the rows of a dense 3D shape) their product is one
/// coordinate, and where the batch nests too, no division remains; the
/// 64-bit divisions by each column's count cost a pass of short rows of a
/// 3D R2C most of its time (H200, 112x25x14: 28% of DRAM peak). Coordinates
/// no statement reads are dropped by the compilers.
pub(super) fn locate(access: &Access, fft: &str, input: &str, output: &str) -> Vec<Stmt> {
    let mut out = Vec::new();
    let mut rest = var(fft);
    for (i, column) in access.columns.iter().enumerate() {
        let coordinate = format!("{fft}_c{i}");
        out.push(let_const(
            Type::Index,
            coordinate.clone(),
            rest.clone().rem(uint(column.count)),
        ));
        let quotient = format!("{fft}_q{i}");
        out.push(let_const(
            Type::Index,
            quotient.clone(),
            rest.div(uint(column.count)),
        ));
        rest = var(quotient);
    }
    let (mut at_in, mut at_out) = (uint(access.input_offset), uint(access.output_offset));
    let mut rest = var(fft);
    for (i, level) in nested_levels(access).into_iter().enumerate() {
        let coordinate = match (level.count, level.columns.as_slice()) {
            (None, _) => rest.clone(),
            // One column: its coordinate as declared above.
            (Some(_), &[column]) => {
                rest = var(format!("{fft}_q{column}"));
                var(format!("{fft}_c{column}"))
            }
            (Some(count), _) => {
                let name = format!("{fft}_n{i}");
                out.push(let_const(
                    Type::Index,
                    name.clone(),
                    rest.clone().rem(uint(count)),
                ));
                let quotient = format!("{fft}_nq{i}");
                out.push(let_const(
                    Type::Index,
                    quotient.clone(),
                    rest.div(uint(count)),
                ));
                rest = var(quotient);
                var(name)
            }
        };
        at_in = at_in.add(coordinate.clone().mul(uint(level.input_stride)));
        at_out = at_out.add(coordinate.mul(uint(level.output_stride)));
    }
    out.push(let_const(Type::Index, input, at_in));
    out.push(let_const(Type::Index, output, at_out));
    out
}

/// The strides between the FFTs of `access` in the input and the output
/// where its FFTs are one run of the batch (no column apart from it), so
/// FFT g starts at the offset plus g times them.
pub(super) fn batch_strides(access: &Access) -> Option<(usize, usize)> {
    match nested_levels(access).as_slice() {
        [level] if level.count.is_none() => Some((level.input_stride, level.output_stride)),
        _ => None,
    }
}

/// One level of the decomposition of a pass's FFT index: `count` FFTs
/// `input_stride` and `output_stride` elements apart (`None`: the batch,
/// as many as there are), the access's `columns` merged.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Level {
    count: Option<usize>,
    input_stride: usize,
    output_stride: usize,
    columns: Vec<usize>,
}

/// `access`'s columns of more than one FFT and then its batch, neighbours
/// merged where the outer's strides are the inner's times the inner's
/// count in both buffers (the outer continues the inner's run).
fn nested_levels(access: &Access) -> Vec<Level> {
    // The blocks of an exchange between GPUs move every element again: the
    // starts stay per column there (ptxas spilled a packing R2C of rows of
    // 100 at six blocks per SM when they merged).
    let blocked = access.input_blocks.is_some() || access.output_blocks.is_some();
    let levels = access
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.count > 1)
        .map(|(i, c)| Level {
            count: Some(c.count),
            input_stride: c.input_stride,
            output_stride: c.output_stride,
            columns: vec![i],
        })
        .chain(std::iter::once(Level {
            count: None,
            input_stride: access.input_distance,
            output_stride: access.output_distance,
            columns: Vec::new(),
        }));
    let mut merged: Vec<Level> = Vec::new();
    for level in levels {
        match merged.last_mut() {
            Some(inner)
                if !blocked
                    && inner.count.is_some_and(|count| {
                        level.input_stride == inner.input_stride * count
                            && level.output_stride == inner.output_stride * count
                    }) =>
            {
                let runs = inner.count.unwrap_or(1);
                inner.count = level.count.map(|count| count * runs);
                inner.columns.extend(level.columns);
            }
            _ => merged.push(level),
        }
    }
    merged
}

/// The transforms a launch of `pass` counts: the batch's, or its pairs
/// (rounded up) where each FFT computes two ([`Pass::transform_pairs`]).
pub(super) fn transforms_of(pass: &Pass) -> Expr {
    match pass.transform_pairs {
        true => var("batch").add(uint(1)).div(uint(2)),
        false => var("batch"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Column;
    use crate::Buffer;

    fn access(columns: &[(usize, usize, usize)], distances: (usize, usize)) -> Access {
        Access {
            columns: columns
                .iter()
                .map(|&(count, input_stride, output_stride)| Column {
                    count,
                    input_stride,
                    output_stride,
                })
                .collect(),
            input_distance: distances.0,
            output_distance: distances.1,
            ..Access::dense(1, Buffer::Input, Buffer::Output)
        }
    }

    /// Where FFT `g` starts in both buffers, the columns decomposed one by
    /// one as `access` lists them.
    fn starts(access: &Access, g: usize) -> (usize, usize) {
        let (mut rest, mut at) = (g, (0, 0));
        for c in &access.columns {
            at.0 += rest % c.count * c.input_stride;
            at.1 += rest % c.count * c.output_stride;
            rest /= c.count;
        }
        (
            at.0 + rest * access.input_distance,
            at.1 + rest * access.output_distance,
        )
    }

    fn starts_by_levels(levels: &[Level], g: usize) -> (usize, usize) {
        let (mut rest, mut at) = (g, (0, 0));
        for level in levels {
            let coordinate = match level.count {
                Some(count) => {
                    let c = rest % count;
                    rest /= count;
                    c
                }
                None => rest,
            };
            at.0 += coordinate * level.input_stride;
            at.1 += coordinate * level.output_stride;
        }
        at
    }

    #[test]
    fn nested_columns_merge_and_the_rest_start_where_they_did() {
        // The rows of 112x25x14 R2C: 7 pairs in, 8 values out, every level
        // nested in both buffers: one level, no division.
        let rows = access(&[(25, 7, 8), (112, 175, 200)], (19600, 22400));
        let levels = nested_levels(&rows);
        assert_eq!(levels.len(), 1);
        assert_eq!(
            (levels[0].count, levels[0].columns.clone()),
            (None, vec![0, 1])
        );
        // Columns of one FFT drop out; columns nested on one side only stay.
        let mixed = access(&[(98, 1, 98), (1, 8232, 8232), (4, 98, 1)], (16464, 16464));
        let levels = nested_levels(&mixed);
        assert_eq!(levels.len(), 3);
        assert!(levels.iter().all(|l| !l.columns.contains(&1)));
        let cases = [
            rows,
            mixed,
            access(&[(16, 1, 256)], (4096, 4096)),
            access(&[(5, 3, 3), (7, 15, 15), (2, 200, 105)], (400, 210)),
        ];
        for case in &cases {
            let levels = nested_levels(case);
            for g in 0..3 * case.ffts_per_transform() {
                assert_eq!(
                    starts_by_levels(&levels, g),
                    starts(case, g),
                    "{case:?} {g}"
                );
            }
        }
    }
}
