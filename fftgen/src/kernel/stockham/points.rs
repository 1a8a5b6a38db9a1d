//! Where one point of a pass meets global memory: its load and store as
//! the pass's ends say (plain, paired rows, a real axis's half spectrum or
//! reals, a C2R's mirrored points, the chirps of Bluestein's algorithm),
//! scaled by the normalisation on the way out.

use super::super::ast::{assign, let_const, uint, var, Expr, Stmt, Type};
use super::super::signature::output_scale;
use super::{blocked, blocked_at, strided, Lowering};
use crate::plan::{AxisIndex, ChirpRole, InputCaching, RealEnd, RealStep};
use crate::Direction;

impl Lowering<'_> {
    /// Complex element `index` of the output: where the output is cut
    /// into blocks for an exchange, at its blocked place.
    pub(super) fn output_element(&self, index: Expr) -> Expr {
        var(self.buffers.output).at(blocked(index, self.pass.access.output_blocks))
    }

    /// Point `point` of an FFT at `base` in the output, its points
    /// `stride` apart: [`Self::output_element`] of `base + point stride`.
    pub(super) fn output_point(&self, base: Expr, point: Expr, stride: usize) -> Expr {
        let blocks = self.pass.access.output_blocks;
        var(self.buffers.output).at(blocked_at(base, point, self.pass.n, stride, blocks))
    }

    /// `input[index]`, through the caches the plan chose.
    pub(super) fn input_load(&self, index: Expr) -> Expr {
        self.cached(var(self.buffers.input).at(blocked(index, self.pass.access.input_blocks)))
    }

    /// Point `point` of an FFT at `base` in the input, its points `stride`
    /// apart: [`Self::input_load`] of `base + point stride`.
    pub(super) fn input_point(&self, base: Expr, point: Expr, stride: usize) -> Expr {
        let blocks = self.pass.access.input_blocks;
        self.cached(var(self.buffers.input).at(blocked_at(
            base,
            point,
            self.pass.n,
            stride,
            blocks,
        )))
    }

    /// A load of `element` through the caches the plan chose.
    pub(super) fn cached(&self, element: Expr) -> Expr {
        match self.pass.input_caching {
            InputCaching::L1AndL2 => element,
            InputCaching::L2Only => element.l2_only(),
        }
    }

    /// The output value with the normalisation applied.
    pub(super) fn scaled(&self, value: Expr) -> Expr {
        if self.scale() == 1.0 {
            value
        } else {
            self.scaled_parts(value.clone().re(), value.im())
        }
    }

    /// The output value built from its parts, with the normalisation applied.
    pub(super) fn scaled_parts(&self, re: Expr, im: Expr) -> Expr {
        let scale = self.scale();
        if scale == 1.0 {
            Expr::complex(re, im)
        } else {
            Expr::complex(re.mul(Expr::Real(scale)), im.mul(Expr::Real(scale)))
        }
    }

    /// One real part of an output with the normalisation applied.
    pub(super) fn scaled_real(&self, part: Expr) -> Expr {
        match self.scale() {
            1.0 => part,
            scale => part.mul(Expr::Real(scale)),
        }
    }

    pub(super) fn scale(&self) -> f64 {
        output_scale(self.plan, self.pass, self.direction)
    }

    /// The real step of a C2R kernel (the inverse of a real axis's pass).
    pub(super) fn c2r(&self) -> Option<RealStep> {
        self.pass
            .real
            .filter(|r| self.direction == Direction::Inverse && r.end == RealEnd::Both)
    }

    /// The real step of an R2C kernel (the forward of a real axis's pass).
    pub(super) fn r2c(&self) -> Option<RealStep> {
        self.pass
            .real
            .filter(|r| self.direction == Direction::Forward && r.end == RealEnd::Both)
    }

    /// Point `point` of FFT `fft` (whose start in the input is `base`): for
    /// the first pass of a long real axis the real (R2C) or the Hermitian
    /// spectrum's value rebuilt from the half spectrum (C2R), else as
    /// stored.
    pub(super) fn load_point(&self, base: &str, fft: &str, point: Expr) -> Expr {
        let stride = self.pass.access.input_stride;
        if let Some(chirp) = self.pass.chirp {
            if let ChirpRole::Load { side } = chirp.role {
                return self.chirped_load(chirp, side, base, fft, point);
            }
        }
        let at = var(base).add(strided(point.clone(), stride));
        if self.mirrored_points() {
            // Point p past n / 2 of a C2R's last FFT: conj of point n - p.
            let n = self.pass.n;
            let low = point.clone().mul(uint(2)).lt(uint(n + 1));
            let held = Expr::select(low.clone(), point.clone(), uint(n).sub(point));
            let value = self.input_point(var(base), held, stride);
            return Expr::complex(
                value.clone().re(),
                Expr::select(low, value.clone().im(), value.im().neg()),
            );
        }
        let Some((real, RealEnd::Loads(index))) = self.pass.real.map(|r| (r, r.end)) else {
            return self.input_point(var(base), point, stride);
        };
        if self.direction == Direction::Forward {
            let x = self.real_load(self.buffers.input, self.real_input, at);
            return Expr::complex(x, Expr::Real(0.0));
        }
        // Axis position i = c + points p; past N / 2 the value is conj X[N - i],
        // which sits (N - i - c) column strides from this FFT's start.
        let c = var(format!("{fft}_c{}", index.column));
        let i = c
            .clone()
            .add(point.cast(Type::Index).mul(uint(index.points)));
        let column_stride = self.pass.access.columns[index.column].input_stride;
        let mirror = var(base).add(
            uint(real.real_n)
                .cast(Type::Index)
                .sub(i.clone())
                .sub(c)
                .mul(uint(column_stride)),
        );
        let mirrored = self.input_load(mirror);
        Expr::select(
            i.lt(uint(real.half_len())),
            self.input_load(at),
            Expr::complex(mirrored.clone().re(), mirrored.im().neg()),
        )
    }

    /// Stores output `value` (scaled here) as point `point` of FFT `fft`,
    /// which starts at `base` in the output: for the last pass of a long real
    /// axis only the half spectrum (R2C) or the real part (C2R); for a C2R's
    /// paired rows the real part to row x and the imaginary to row y.
    pub(super) fn store_point(&self, base: &str, fft: &str, point: Expr, value: Expr) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        if let Some(chirp) = self.pass.chirp.filter(|c| c.on_stores()) {
            return self.chirped_store(chirp, base, fft, point, value);
        }
        if self.paired() {
            return self.paired_store(base, fft, point, value);
        }
        let at = var(base).add(strided(point.clone(), stride));
        let Some((real, RealEnd::Stores(index))) = self.pass.real.map(|r| (r, r.end)) else {
            let element = self.output_point(var(base), point.clone(), stride);
            let store = vec![assign(element, self.scaled(value))];
            if self.keeps_half_of_each_fft() {
                // The outputs past n / 2 of an FFT of reals: their conjugates.
                let n = self.pass.n;
                return vec![Stmt::If(point.mul(uint(2)).lt(uint(n + 1)), store)];
            }
            return store;
        };
        if self.direction == Direction::Inverse {
            let re = self.scaled_real(value.re());
            return self.real_store(self.buffers.output, self.real_output, at, re);
        }
        self.half_spectrum_store(real, index, (base, fft), point, value)
    }

    /// Output `point` of FFT `fft` (at `base`) of a C2R's paired rows: its
    /// real part to row x, its imaginary part to row y.
    pub(super) fn paired_store(
        &self,
        base: &str,
        fft: &str,
        point: Expr,
        value: Expr,
    ) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        let at = var(base).add(strided(point.clone(), stride));
        let scaled = |part: Expr| self.scaled_real(part);
        let (output, real) = (self.buffers.output, self.real_output);
        let at_y = var(format!("{base}_y")).add(strided(point, stride));
        let mut out = vec![let_const(Type::Complex, "z", value)];
        out.extend(self.real_store(output, real, at, scaled(var("z").re())));
        out.push(Stmt::If(
            var(format!("{fft}_has_y")),
            self.real_store(output, real, at_y, scaled(var("z").im())),
        ));
        vec![Stmt::Scope(out)]
    }

    /// Output `point` of FFT `fft` (at `base`) of the last pass of a long
    /// full-length R2C axis ([`RealEnd::Stores`]): kept where it lies in the
    /// half spectrum, and from one half of the symmetry's columns
    /// ([`RealStep::hermitian_half`]) the conjugates past it mirrored.
    pub(super) fn half_spectrum_store(
        &self,
        real: RealStep,
        index: AxisIndex,
        (base, fft): (&str, &str),
        point: Expr,
        value: Expr,
    ) -> Vec<Stmt> {
        let at = var(base).add(strided(point.clone(), self.pass.access.output_stride));
        let c = var(format!("{fft}_c{}", index.column));
        let i = c
            .clone()
            .add(point.cast(Type::Index).mul(uint(index.points)));
        let store = vec![assign(self.output_element(at), self.scaled(value.clone()))];
        if !real.hermitian_half {
            return vec![Stmt::If(i.lt(uint(real.half_len())), store)];
        }
        let (axis_i, i) = (i, var("axis_i"));
        let kept = i.clone().lt(uint(real.half_len()));
        // Of one half of the symmetry's columns: X[i] past N / 2 is
        // conj X[N - i], written at N - i (never past its column's start:
        // i + c <= N), but from the columns 0 and F0 / 2, whose own points
        // hold N - i.
        let columns = index.points;
        let column_stride = self.pass.access.columns[index.column].output_stride;
        let mirror = var(base).add(
            uint(real.real_n)
                .cast(Type::Index)
                .sub(i.clone())
                .sub(c.clone())
                .mul(uint(column_stride)),
        );
        // (This FFT's column c is at most F0 / 2.)
        let mut mirrors = uint(0).lt(c.clone());
        if columns % 2 == 0 {
            mirrors = mirrors.and(c.lt(uint(columns / 2)));
        }
        let past_half = uint(real.half_len() - 1).lt(i);
        let conjugate = self.scaled(Expr::complex(value.clone().re(), value.im().neg()));
        vec![Stmt::Scope(vec![
            let_const(Type::Index, "axis_i", axis_i),
            Stmt::If(kept, store),
            Stmt::If(
                past_half.and(mirrors),
                vec![assign(self.output_element(mirror), conjugate)],
            ),
        ])]
    }

    /// Whether this is a C2R's last pass whose FFTs read the points past
    /// n / 2 as the conjugates of those below ([`RealStep::hermitian_half`]).
    pub(super) fn mirrored_points(&self) -> bool {
        self.pass.real.is_some_and(|r| {
            r.hermitian_half
                && self.direction == Direction::Inverse
                && matches!(r.end, RealEnd::Stores(_))
        })
    }

    /// Whether this is an R2C's first pass whose FFTs of reals keep the
    /// outputs to n / 2 ([`RealStep::hermitian_half`]).
    pub(super) fn keeps_half_of_each_fft(&self) -> bool {
        self.pass.real.is_some_and(|r| {
            r.hermitian_half
                && self.direction == Direction::Forward
                && matches!(r.end, RealEnd::Loads(_))
        })
    }

    /// Real `index` of `buffer`: through its pointer to reals, or (in place,
    /// where the half spectrum overlays the reals) through its complex
    /// pointer cast to reals. A store to one part of a complex value would
    /// not do: a compiler may write both parts back (NVIDIA's OpenCL does),
    /// over the neighbour another thread wrote.
    pub(super) fn real_load(&self, buffer: &str, real_pointer: bool, index: Expr) -> Expr {
        match real_pointer {
            true => var(buffer).at(index),
            false => var(buffer).cast(Type::GlobalReals).at(index),
        }
    }

    /// Stores `value` at real `index` of `buffer` (see [`Self::real_load`]).
    pub(super) fn real_store(
        &self,
        buffer: &str,
        real_pointer: bool,
        index: Expr,
        value: Expr,
    ) -> Vec<Stmt> {
        vec![assign(self.real_load(buffer, real_pointer, index), value)]
    }
}
