//! The staged ends of a real transform's whole shape in one pass
//! ([`crate::plan::real_shape`]): two transforms x and y of the batch as
//! one complex DFT over every axis, z = x + i y. The walks fill shared
//! memory with the reals (R2C) or with Z merged from the two half spectra
//! (C2R), and empty it into the two half spectra separated from Z[k] and
//! Z[-k] (R2C) or into the reals (C2R). Point k of a group lies in row
//! k / L (L the row's length on that side: N reals, N / 2 + 1 values of
//! the half spectrum), the rows at their own strides.

use super::super::ast::{assign, let_const, uint, var, Expr, Stmt, Type};
use super::{padded, strided, Lowering};
use crate::plan::{FusedAxes, RowStrides};
use crate::Direction;

/// The group's points on one side: rows of `len`, `row_stride` apart, their
/// points `stride` apart.
#[derive(Clone, Copy)]
struct Rows {
    len: usize,
    row_stride: usize,
    stride: usize,
}

impl Rows {
    /// Point `k` of the group that starts at `base`. Rows one after
    /// another keep the division too: addressed by k alone, ptxas hoisted
    /// the R2C walk's loads and spilled (sm_90: 96x18 f32, 16 bytes; f64
    /// 36x36, 40).
    fn at(self, base: &str, k: Expr) -> Expr {
        var(base)
            .add(strided(k.clone().div(uint(self.len)), self.row_stride))
            .add(strided(k.rem(uint(self.len)), self.stride))
    }
}

impl Lowering<'_> {
    /// The group of a real transform's whole shape and its rows' strides,
    /// if this pass is one.
    pub(super) fn whole_real_shape(&self) -> Option<(&FusedAxes, RowStrides)> {
        let fused = self.pass.fused_axes.as_ref()?;
        Some((fused, fused.real_rows?))
    }

    /// The rows of the side read and of the side written, the reals' rows
    /// N long and the half spectrum's N / 2 + 1.
    fn group_rows(&self, rows: RowStrides) -> (Rows, Rows) {
        let real = self.pass.real.expect("a real transform's pass");
        let (reals, half) = (real.real_n, real.half_len());
        let (input_len, output_len) = match self.direction {
            Direction::Forward => (reals, half),
            Direction::Inverse => (half, reals),
        };
        let access = &self.pass.access;
        (
            Rows {
                len: input_len,
                row_stride: rows.input,
                stride: access.input_stride,
            },
            Rows {
                len: output_len,
                row_stride: rows.output,
                stride: access.output_stride,
            },
        )
    }

    /// The block's groups walked point by point (`len` points each):
    /// `copy(k, region)` with `region` where the group's FFT starts in
    /// shared memory.
    fn walk_groups(&self, len: usize, copy: impl Fn(Expr, Expr) -> Vec<Stmt>) -> Vec<Stmt> {
        let region = match self.rows_by_fft() {
            true => var("region"),
            false => var("walk_f").mul(uint(self.pass.fft_stride)),
        };
        self.walk(len, |k, _| copy(k, region.clone()))
    }

    /// R2C: the two transforms' reals as the real and imaginary parts of
    /// the group's points, at their staged (padded) places.
    pub(super) fn whole_shape_reals_walk(&self, fused: &FusedAxes, rows: RowStrides) -> Vec<Stmt> {
        let (input, _) = self.group_rows(rows);
        let buffer = self.buffers.input;
        self.walk_groups(fused.points(), |k, region| {
            let load = |base| self.real_load(buffer, self.real_input, input.at(base, k.clone()));
            let mut out = Self::row_y(load("walk_in_y"), Type::Real, Expr::Real(0.0));
            out.extend(Self::store_shared(
                region.add(padded(k.clone(), fused.rows_padding)),
                load("walk_in"),
                var("y"),
            ));
            out
        })
    }

    /// R2C: from Z[k] and Z[-k] (the group's output in natural order) the
    /// half spectra X[k] = (Z[k] + conj Z[-k]) / 2 and Y[k] = (Z[k] - conj
    /// Z[-k]) / 2i.
    pub(super) fn whole_shape_separate_walk(
        &self,
        fused: &FusedAxes,
        rows: RowStrides,
    ) -> Vec<Stmt> {
        let (_, output) = self.group_rows(rows);
        let n = fused.lengths.last().copied().expect("a group has axes");
        self.walk_groups(fused.rows() * output.len, |k, region| {
            let staged = |point: Expr| {
                let slot = region.clone().add(point);
                Expr::complex(var("shared_re").at(slot.clone()), var("shared_im").at(slot))
            };
            let mirror = mirrored_row(fused, var("row"))
                .mul(uint(n))
                .add(uint(n).sub(var("kn")).rem(uint(n)));
            let mut out = vec![
                let_const(Type::Uint, "row", k.clone().div(uint(output.len))),
                let_const(Type::Uint, "kn", k.clone().rem(uint(output.len))),
                let_const(
                    Type::Complex,
                    "zk",
                    staged(var("row").mul(uint(n)).add(var("kn"))),
                ),
                let_const(Type::Complex, "zm", staged(mirror)),
            ];
            out.extend(
                self.separated_stores(output.at("walk_out", k.clone()), output.at("walk_out_y", k)),
            );
            out
        })
    }

    /// C2R: each value of the two half spectra gives Z[k] = X[k] + i Y[k]
    /// and Z[-k] = conj X[k] + i conj Y[k] at their staged places; a value
    /// whose mirror is in the half spectrum too (last coordinate 0, or
    /// N / 2 of an even N) writes Z[k] alone, X and Y each averaged with
    /// their mirror's conjugate first (numpy's `irfftn` keeps only the real
    /// part of those rows' inverse, which is the same).
    pub(super) fn whole_shape_merge_walk(&self, fused: &FusedAxes, rows: RowStrides) -> Vec<Stmt> {
        let (input, _) = self.group_rows(rows);
        let n = fused.lengths.last().copied().expect("a group has axes");
        // Whether k_n has a mirror of its own along the last axis (all but
        // 0, and N / 2 for an even N).
        let mirrored = match n % 2 {
            0 => uint(0).lt(var("kn").rem(uint(n / 2))),
            _ => uint(0).lt(var("kn")),
        };
        let own_mirror = match n % 2 {
            0 => var("kn").rem(uint(n / 2)).lt(uint(1)),
            _ => var("kn").lt(uint(1)),
        };
        self.walk_groups(fused.rows() * input.len, |k, region| {
            let zero = || Expr::complex(Expr::Real(0.0), Expr::Real(0.0));
            let place = |point: Expr| region.clone().add(padded(point, fused.rows_padding));
            let load = |base, at: Expr| self.input_load(input.at(base, at));
            let variable = |name: &str, init: Expr| Stmt::Let {
                ty: Type::Complex,
                name: name.into(),
                init,
                constant: false,
            };
            let conj_average = |value: &str, other: &str| {
                let (v, o) = (var(value), var(other));
                assign(
                    v.clone(),
                    Expr::complex(
                        v.clone().re().add(o.clone().re()).mul(Expr::Real(0.5)),
                        v.im().sub(o.im()).mul(Expr::Real(0.5)),
                    ),
                )
            };
            let averaged = vec![
                let_const(
                    Type::Uint,
                    "k2",
                    mirrored_row(fused, var("row"))
                        .mul(uint(input.len))
                        .add(var("kn")),
                ),
                let_const(Type::Complex, "a2", load("walk_in", var("k2"))),
                variable("y2", zero()),
                Stmt::If(
                    var("walk_has_y"),
                    vec![assign(var("y2"), load("walk_in_y", var("k2")))],
                ),
                conj_average("a", "a2"),
                conj_average("y", "y2"),
            ];
            let (a, y) = (var("a"), var("y"));
            let own = var("row").mul(uint(n)).add(var("kn"));
            let mirror = mirrored_row(fused, var("row"))
                .mul(uint(n))
                .add(uint(n).sub(var("kn")));
            let mut out = vec![
                let_const(Type::Uint, "row", k.clone().div(uint(input.len))),
                let_const(Type::Uint, "kn", k.clone().rem(uint(input.len))),
                variable("a", load("walk_in", k.clone())),
                variable("y", zero()),
                Stmt::If(
                    var("walk_has_y"),
                    vec![assign(var("y"), load("walk_in_y", k))],
                ),
                Stmt::If(own_mirror.clone(), averaged),
            ];
            out.extend(Self::store_shared(
                place(own),
                a.clone().re().sub(y.clone().im()),
                a.clone().im().add(y.clone().re()),
            ));
            out.push(Stmt::If(
                mirrored.clone(),
                Self::store_shared(
                    place(mirror),
                    a.clone().re().add(y.clone().im()),
                    y.re().sub(a.im()),
                ),
            ));
            out
        })
    }

    /// C2R: the real parts of the group's outputs are transform x's reals,
    /// the imaginary parts y's.
    pub(super) fn whole_shape_real_parts_walk(
        &self,
        fused: &FusedAxes,
        rows: RowStrides,
    ) -> Vec<Stmt> {
        let (_, output) = self.group_rows(rows);
        let buffer = self.buffers.output;
        self.walk_groups(fused.points(), |k, region| {
            let slot = region.add(k.clone());
            let scaled = |value: Expr| self.scaled_real(value);
            let mut out = self.real_store(
                buffer,
                self.real_output,
                output.at("walk_out", k.clone()),
                scaled(var("shared_re").at(slot.clone())),
            );
            out.push(Stmt::If(
                var("walk_has_y"),
                self.real_store(
                    buffer,
                    self.real_output,
                    output.at("walk_out_y", k),
                    scaled(var("shared_im").at(slot)),
                ),
            ));
            out
        })
    }
}

/// The row of the group's outer axes whose every coordinate is `row`'s
/// negated, modulo its axis's length: where the Hermitian mirror of a
/// point of row `row` lies (X[-k] = conj X[k] over every axis).
fn mirrored_row(fused: &FusedAxes, row: Expr) -> Expr {
    let outer = &fused.lengths[..fused.lengths.len() - 1];
    let mut span: usize = outer.iter().product();
    let mut mirror = uint(0);
    for (a, &len) in outer.iter().enumerate() {
        span /= len;
        let mut digit = row.clone().div(uint(span));
        if a > 0 {
            digit = digit.rem(uint(len));
        }
        mirror = mirror.add(uint(len).sub(digit).rem(uint(len)).mul(uint(span)));
    }
    mirror
}
