//! The frame of a kernel of its own that walks the rows of an axis in
//! chunks: the steps of Bluestein's algorithm that run apart from the FFTs
//! of M ([`super::chirp`]) and the real split or merge of a pass of its own
//! ([`super::real_split`]). Each block takes one chunk of one row (column
//! 0 of the pass's access), each thread every T-th point of it, so a
//! warp's accesses are consecutive along the row; the lowerings fill in
//! what a thread does with its points.

use super::ast::{let_const, uint, var, Builtin, Expr, Function, Param, Stmt, Type};
use super::signature::{locate, pass_kernel};
use crate::plan::{Pass, Plan};
use crate::{Direction, Placement};

/// The row a kernel of its own reads and writes: in place on `data`, or
/// from `input` into `output`, its points the access's strides apart from
/// `in_base` and `out_base`.
pub(super) struct Row {
    pub placement: Placement,
    pub input: &'static str,
    pub output: &'static str,
    input_stride: usize,
    output_stride: usize,
}

impl Row {
    /// The row `pass` of `plan` reads and writes.
    pub fn of(plan: &Plan, pass: &Pass) -> Row {
        let (placement, input, output) = match plan.writes_in_place(pass) {
            true => (Placement::InPlace, "data", "data"),
            false => (Placement::OutOfPlace, "input", "output"),
        };
        Row {
            placement,
            input,
            output,
            input_stride: pass.access.input_stride,
            output_stride: pass.access.output_stride,
        }
    }

    /// Point `index` of the row read.
    pub fn load(&self, index: Expr) -> Expr {
        var(self.input).at(var("in_base").add(index.mul(uint(self.input_stride))))
    }

    /// Point `index` of the row written.
    pub fn target(&self, index: Expr) -> Expr {
        var(self.output).at(var("out_base").add(index.mul(uint(self.output_stride))))
    }
}

/// The kernel of `pass` whose block `g` takes chunk `g_c0` of its row
/// (`in_base` and `out_base` where the row starts): `comment` says what it
/// does, and where the block's transform is one of `transforms` it runs
/// `work`.
pub(super) fn kernel(
    (plan, pass, direction): (&Plan, &Pass, Direction),
    comment: String,
    transforms: Expr,
    work: Vec<Stmt>,
    params: Vec<Param>,
) -> Function {
    let access = &pass.access;
    let mut body = vec![
        let_const(Type::Uint, "tid", Expr::Builtin(Builtin::ThreadIndex)),
        Stmt::Comment(comment),
        let_const(
            Type::Index,
            "g",
            Expr::Builtin(Builtin::BlockIndex).cast(Type::Index),
        ),
    ];
    body.extend(locate(access, "g", "in_base", "out_base"));
    let transform = var("g").div(uint(access.ffts_per_transform()));
    body.push(Stmt::If(transform.lt(transforms), work));
    pass_kernel((plan, pass, direction), params, body)
}

/// Index `i`-th point of the chunk a thread takes when `threads` threads
/// take `per_thread` points each: chunk `g_c0`'s start, then every
/// `threads`-th point from the thread's own.
pub(super) fn point_of_chunk(i: usize, threads: usize, per_thread: usize) -> Expr {
    var("g_c0")
        .mul(uint(threads * per_thread))
        .add(uint(i * threads))
        .add(var("tid").cast(Type::Index))
}
