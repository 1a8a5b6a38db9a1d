//! The copies between global and shared memory of a pass that stages its
//! ends there: column tiles (a tile of neighbouring FFTs' points, read and
//! written along the columns so that a warp's accesses coalesce, the real
//! split or merge of mirrored columns on the way) and staged rows.

use super::super::ast::{assign, let_const, uint, var, Expr, Stmt, Type};
use super::super::complex_ops::cmul_name;
use super::super::real_split::{merged_with_parts, split};
use super::super::signature::TWIDDLES;
use super::{padded, strided, ExchangeArrays, Lowering};
use crate::plan::{ExchangeWidth, MirroredColumns, Padding, RealEnd, StepTwiddle};
use crate::Direction;

impl Lowering<'_> {
    /// The tile walk: for each point `k` of FFT `tile_f` this thread
    /// copies (k = tile_k, tile_k + T, ...; T threads per FFT), `copy(k, slot)`
    /// with `slot` its place in shared memory.
    pub(super) fn tile_copy(
        &self,
        padding: Padding,
        copy: impl Fn(Expr, Expr) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        let pass = self.pass;
        let (n, t) = (pass.n, pass.threads_per_fft);
        (0..n.div_ceil(t))
            .map(|i| {
                let k = var(format!("k{i}"));
                let mut cond = var("tile_active");
                if (i + 1) * t > n {
                    cond = cond.and(k.clone().lt(uint(n)));
                }
                Stmt::Scope(vec![
                    let_const(Type::Uint, format!("k{i}"), var("tile_k").add(uint(i * t))),
                    Stmt::If(
                        cond,
                        copy(k.clone(), var("tile_region").add(padded(k, padding))),
                    ),
                ])
            })
            .collect()
    }

    /// Copies the tile's input into shared memory (merged from the half
    /// spectrum for a C2R's [`RealEnd::Mirrored`] pass).
    pub(super) fn tile_load(&self) -> Vec<Stmt> {
        self.tile_copy(self.rows_padding(), |k, slot| {
            let mut out = match self.merge_on_loads() {
                Some(mirrored) => self.merged_load(mirrored, k),
                None => vec![let_const(
                    Type::Complex,
                    "x",
                    self.load_point("tile_in_base", "tile_fft", k),
                )],
            };
            out.extend(self.staging().store(slot, var("x")));
            out
        })
    }

    /// The shared arrays a pass that stages its global memory through
    /// shared memory copies into and out of: the exchange's, in parts or
    /// interleaved.
    pub(super) fn staging(&self) -> ExchangeArrays {
        match self.pass.exchange_width {
            ExchangeWidth::Interleaved => ExchangeArrays::Interleaved("shared_values".into()),
            _ => ExchangeArrays::Parts("shared_re".into(), "shared_im".into()),
        }
    }

    /// `x` = Z'[i] (twice Z[i]) merged from X[i] and X[M - i] of the half
    /// spectrum, i = c + C `point` (the same math as the merge apart).
    pub(super) fn merged_load(&self, mirrored: MirroredColumns, point: Expr) -> Vec<Stmt> {
        let access = &self.pass.access;
        let m = mirrored.columns * self.pass.n;
        let c = var("tile_fft_c0");
        let i = c
            .clone()
            .add(point.clone().cast(Type::Index).mul(uint(mirrored.columns)));
        let at = var("tile_in_base").add(strided(point, access.input_stride));
        // X[M - i] lies M - i - c values from this column's start (unit
        // column stride): at (base + M - i) - c, which never wraps.
        let mirror = var("tile_in_base").add(uint(m)).sub(var("i")).sub(c);
        let first = var("i").lt(uint(1));
        let mut out = vec![
            let_const(Type::Index, "i", i),
            let_const(Type::Complex, "a", self.input_load(at)),
            let_const(Type::Complex, "b", self.input_load(mirror)),
            let_const(
                Type::Complex,
                "w",
                self.real_twiddle(mirrored.twiddle, var("i")),
            ),
            // X[0] and X[M] are real in a Hermitian spectrum.
            let_const(
                Type::Real,
                "ai",
                Expr::select(first.clone(), Expr::Real(0.0), var("a").im()),
            ),
            let_const(
                Type::Real,
                "bi",
                Expr::select(first, Expr::Real(0.0), var("b").im()),
            ),
        ];
        let (parts, value) = merged_with_parts();
        out.extend(parts);
        out.push(let_const(Type::Complex, "x", value));
        out
    }

    /// `w_N^k` of a mirrored pass's real step from its fine and coarse
    /// tables.
    pub(super) fn real_twiddle(&self, table: StepTwiddle, k: Expr) -> Expr {
        self.fine_times_coarse(table.offset, table.split, k)
    }

    /// `w^e` from a fine table of `fine_len` entries at `offset` and the
    /// coarse table after it: `fine[e % fine_len] * coarse[e / fine_len]`.
    pub(super) fn fine_times_coarse(&self, offset: usize, fine_len: usize, exponent: Expr) -> Expr {
        let fine = var(TWIDDLES).at(uint(offset).add(exponent.clone().rem(uint(fine_len))));
        let coarse = var(TWIDDLES).at(uint(offset + fine_len).add(exponent.div(uint(fine_len))));
        Expr::call(cmul_name(false, self.plan.precision), vec![fine, coarse])
    }

    /// The tile's half spectrum of an R2C's [`RealEnd::Mirrored`] pass from
    /// shared memory: slot `tile_f` (column c) writes X[c + C k] for its
    /// points k, split from Z[c + C k] and Z[M - c - C k], which its
    /// partner slot holds (itself for columns 0 and C / 2); column 0 also
    /// X[M] = Re Z[0] - Im Z[0].
    pub(super) fn mirrored_store(&self, mirrored: MirroredColumns) -> Vec<Stmt> {
        let (l, c_count) = (self.pass.n, mirrored.columns);
        let m = l * c_count;
        let stride = self.pass.fft_stride;
        let shared =
            |at: Expr| Expr::complex(var("shared_re").at(at.clone()), var("shared_im").at(at));
        let self_paired = var("tile_u").lt(uint(1));
        let column_zero = self_paired.clone().and(var("tile_side").lt(uint(1)));
        let mut out = vec![
            // The partner slot: 2u + 1 for 2u and back, itself for u = 0.
            let_const(
                Type::Uint,
                "tile_pair",
                Expr::select(
                    self_paired,
                    var("tile_f"),
                    var("tile_f")
                        .add(uint(1))
                        .sub(var("tile_side").mul(uint(2))),
                )
                .mul(uint(stride)),
            ),
            let_const(Type::Bool, "tile_zero", column_zero),
        ];
        out.extend(self.tile_copy(Padding::NONE, |k, slot| {
            // Z[M - i]: column 0 at (L - k) mod L, else L - 1 - k.
            let partner = Expr::select(
                var("tile_zero"),
                uint(l).sub(k.clone()).rem(uint(l)),
                uint(l - 1).sub(k.clone()),
            );
            let i = var("tile_fft_c0").add(k.clone().cast(Type::Index).mul(uint(c_count)));
            let mut pair = vec![let_const(Type::Index, "i", i)];
            pair.extend(split(
                shared(slot),
                shared(var("tile_pair").add(partner)),
                self.real_twiddle(mirrored.twiddle, var("i")),
            ));
            pair.extend(self.store_point("tile_out_base", "tile_fft", k, var("x")));
            vec![Stmt::Scope(pair)]
        }));
        // X[M] from Z[0] (w_N^M = -1).
        let mut last = split(
            shared(var("tile_region")),
            shared(var("tile_region")),
            self.real_twiddle(mirrored.twiddle, uint(m)),
        );
        last.extend(self.store_point("tile_out_base", "tile_fft", uint(l), var("x")));
        out.push(Stmt::If(
            var("tile_active")
                .and(var("tile_zero"))
                .and(var("tile_k").lt(uint(1))),
            vec![Stmt::Scope(last)],
        ));
        out
    }

    /// The [`RealEnd::Mirrored`] step of an R2C pass (the split on its
    /// stores).
    pub(super) fn split_on_stores(&self) -> Option<MirroredColumns> {
        match (self.pass.real.map(|r| r.end), self.direction) {
            (Some(RealEnd::Mirrored(mirrored)), Direction::Forward) => Some(mirrored),
            _ => None,
        }
    }

    /// The [`RealEnd::Mirrored`] step of a C2R pass (the merge on its
    /// loads).
    pub(super) fn merge_on_loads(&self) -> Option<MirroredColumns> {
        match (self.pass.real.map(|r| r.end), self.direction) {
            (Some(RealEnd::Mirrored(mirrored)), Direction::Inverse) => Some(mirrored),
            _ => None,
        }
    }

    /// Copies the tile's results from shared memory to the output, with the
    /// four-step twiddle and the scale.
    pub(super) fn tile_store(&self) -> Vec<Stmt> {
        if let Some(mirrored) = self.split_on_stores() {
            return self.mirrored_store(mirrored);
        }
        self.tile_copy(Padding::NONE, |k, slot| {
            let value = self.staging().load(slot);
            let value = self.step_twiddled(value, "tile_fft", k.clone());
            self.store_point("tile_out_base", "tile_fft", k, value)
        })
    }

    /// Copies `block_base + e` for e = tid, tid + block, ... into shared memory.
    pub(super) fn staged_load(&self) -> Vec<Stmt> {
        self.staged_copy(self.rows_padding(), |e, slot| {
            let source = self.input_load(var("block_base").add(e));
            let mut out = vec![let_const(Type::Complex, "x", source)];
            out.extend(self.staging().store(slot, var("x")));
            out
        })
    }

    /// Copies the block's results from shared memory to `block_base + e`, scaled.
    pub(super) fn staged_store(&self) -> Vec<Stmt> {
        self.staged_copy(Padding::NONE, |e, slot| {
            let value = self.scaled(self.staging().load(slot));
            vec![assign(self.output_element(var("block_base").add(e)), value)]
        })
    }

    /// The block's unit-stride walk over its slice of the batch: for each
    /// element `e` this thread moves that lies within the batch, `copy(e,
    /// slot)` with `slot` its place in shared memory (FFT `e / n` at the
    /// padded FFT stride, point `e % n`).
    pub(super) fn staged_copy(
        &self,
        padding: Padding,
        copy: impl Fn(Expr, Expr) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        let pass = self.pass;
        let n = pass.n;
        let block_elements = pass.ffts_per_block * n;
        let copies = block_elements.div_ceil(pass.threads_per_block);
        (0..copies)
            .map(|k| {
                let e = var(format!("e{k}"));
                let slot = e
                    .clone()
                    .div(uint(n))
                    .mul(uint(pass.fft_stride))
                    .add(padded(e.clone().rem(uint(n)), padding));
                let mut within = var("block_base").add(e.clone()).lt(var("total"));
                // Threads that do not divide the block's elements: the last
                // copy stops at the block's end.
                if (k + 1) * pass.threads_per_block > block_elements {
                    within = e.clone().lt(uint(block_elements)).and(within);
                }
                Stmt::Scope(vec![
                    let_const(
                        Type::Uint,
                        format!("e{k}"),
                        var("tid").add(uint(k * pass.threads_per_block)),
                    ),
                    Stmt::If(within, copy(e, slot)),
                ])
            })
            .collect()
    }
}
