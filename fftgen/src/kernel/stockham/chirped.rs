//! The steps of Bluestein's algorithm on the loads and stores of its FFTs
//! of M (seed 000 section IV.E; plan/bluestein.rs, plan/chirp_fusion.rs):
//! the chirp on the first FFT's loads of the axis, the product with the
//! chirp's spectrum on its stores, and the closing chirp on the second
//! FFT's stores, where a point lies along the row of M and on which side.

use super::super::ast::{assign, let_const, uint, var, Expr, Stmt, Type};
use super::super::complex_ops::cmul_name;
use super::super::signature::TWIDDLES;
use super::{guarded, Lowering};
use crate::plan::{AxisSide, Chirp, ChirpRole, RealEnd};
use crate::Direction;

impl Lowering<'_> {
    /// Where point `point` of FFT `fft` (which starts at `base`) lies along
    /// Bluestein's row of M, on the side read (`reads`) or written: its
    /// index i along the row, where that row's point 0 is, and the stride
    /// between its points. On a pass of an FFT of M of several
    /// ([`Chirp::index`]), i = c + `points` p, c the coordinate of the
    /// index's column, whose stride is the axis's; else i = p.
    pub(super) fn along_row(
        &self,
        chirp: Chirp,
        base: &str,
        fft: &str,
        point: Expr,
        reads: bool,
    ) -> (Expr, Expr, usize) {
        let access = &self.pass.access;
        let p = point.cast(Type::Index);
        let Some(index) = chirp.index else {
            let stride = match reads {
                true => access.input_stride,
                false => access.output_stride,
            };
            return (p, var(base), stride);
        };
        let column = &access.columns[index.column];
        let stride = match reads {
            true => column.input_stride,
            false => column.output_stride,
        };
        let c = var(format!("{fft}_c{}", index.column));
        let i = c.clone().add(p.mul(uint(index.points)));
        // The FFT's start is c strides into its row.
        (i, var(base).sub(c.mul(uint(stride))), stride)
    }

    /// Point `point` of the first FFT of Bluestein's algorithm (at index j
    /// along the row): x[j] c[j] for j < N (read as `side` holds the axis),
    /// 0 up to M. Past N the address is the row's point 0, so every load
    /// stays inside the buffer.
    pub(super) fn chirped_load(
        &self,
        chirp: Chirp,
        side: AxisSide,
        base: &str,
        fft: &str,
        point: Expr,
    ) -> Expr {
        let (j, row, stride) = self.along_row(chirp, base, fft, point, true);
        if chirp.rader.is_some() {
            // Rader's row: point j is the axis's point g^j.
            let at = self.rader_point(chirp, j);
            return self.axis_point(side, chirp.n, fft, (&row, stride), at);
        }
        let inside = j.clone().lt(uint(chirp.n));
        let at_j = Expr::select(inside.clone(), j, uint(0));
        let x = self.axis_point(side, chirp.n, fft, (&row, stride), at_j.clone());
        let chirped = self.chirp_product(x, uint(chirp.table_offset).add(at_j));
        Expr::select(
            inside,
            chirped,
            Expr::complex(Expr::Real(0.0), Expr::Real(0.0)),
        )
    }

    /// Point `j` of an axis of `n` points that `side` holds, read from the
    /// row at `row` whose points are `stride` apart (FFT `fft`'s).
    pub(super) fn axis_point(
        &self,
        side: AxisSide,
        n: usize,
        fft: &str,
        (row, stride): (&Expr, usize),
        j: Expr,
    ) -> Expr {
        let at = |index: Expr| row.clone().add(index.mul(uint(stride)));
        // The second transform's row of a pair, where there is one.
        let partner = self.pass.access.input_distance / 2;
        let has_y = self.has_partner(fft);
        match side {
            AxisSide::Complex => self.input_load(at(j)),
            AxisSide::Reals => Expr::complex(
                self.real_load(self.buffers.input, self.real_input, at(j)),
                Expr::Real(0.0),
            ),
            AxisSide::PairedReals => {
                let real = |index: Expr| self.real_load(self.buffers.input, self.real_input, index);
                Expr::complex(
                    real(at(j.clone())),
                    Expr::select(has_y, real(at(j).add(uint(partner))), Expr::Real(0.0)),
                )
            }
            // Z = X + i Y, past N / 2 from the mirror points' conjugates;
            // X[0] and Y[0] (and X[N / 2], Y[N / 2] of an even N) are real,
            // whatever imaginary parts the input holds there, so neither
            // transform of the pair leaks into the other.
            AxisSide::PairedHalfSpectra => {
                let mirrored = uint(n / 2).lt(j.clone());
                let complex_point = uint(0)
                    .lt(j.clone())
                    .and(j.clone().mul(uint(2)).lt(uint(n)));
                let held = at(Expr::select(mirrored.clone(), uint(n).sub(j.clone()), j));
                let x = self.input_load(held.clone());
                let y = Expr::select(
                    has_y,
                    self.input_load(held.add(uint(partner))),
                    Expr::complex(Expr::Real(0.0), Expr::Real(0.0)),
                );
                let sign = Expr::select(
                    mirrored,
                    Expr::Real(-1.0),
                    Expr::select(complex_point, Expr::Real(1.0), Expr::Real(0.0)),
                );
                Expr::complex(
                    x.clone().re().sub(sign.clone().mul(y.clone().im())),
                    sign.mul(x.im()).add(y.re()),
                )
            }
            // Above N / 2 the conjugate of the mirror point.
            AxisSide::HalfSpectrum => {
                let mirrored = uint(n / 2).lt(j.clone());
                let held = self.input_load(at(Expr::select(
                    mirrored.clone(),
                    uint(n).sub(j.clone()),
                    j,
                )));
                Expr::complex(
                    held.clone().re(),
                    Expr::select(mirrored, held.clone().im().neg(), held.im()),
                )
            }
        }
    }

    /// Whether FFT `fft` of a pass over pairs of transforms
    /// ([`crate::plan::Pass::transform_pairs`]) has its second transform, 2t + 1 (the
    /// last pair of an odd batch has one).
    pub(super) fn has_partner(&self, fft: &str) -> Expr {
        let pair = var(fft).div(uint(self.pass.access.ffts_per_transform()));
        pair.mul(uint(2))
            .add(uint(1))
            .lt(var("batch").cast(Type::Index))
    }

    /// Stores output `point` (at index k along the row) of an FFT of
    /// Bluestein's algorithm: the first FFT's times the chirp's spectrum
    /// (into the workspace, where it is); the second FFT's as output
    /// (M - k) mod M of the axis, times the chirp, where that is below the
    /// points the axis keeps (the real part for reals).
    pub(super) fn chirped_store(
        &self,
        chirp: Chirp,
        base: &str,
        fft: &str,
        point: Expr,
        value: Expr,
    ) -> Vec<Stmt> {
        let (k, row, stride) = self.along_row(chirp, base, fft, point.clone(), false);
        let spectrum = match chirp.role {
            // One kernel: the spectrum's table follows the chirp's.
            ChirpRole::Load { .. } => Some(chirp.spectrum_offset()),
            ChirpRole::Multiply => Some(chirp.table_offset),
            // (The whole algorithm's kernel lowers its FFTs as Load and Store.)
            ChirpRole::Store { .. } | ChirpRole::Whole { .. } => None,
            ChirpRole::Separate => unreachable!("a separation is a kernel of its own"),
        };
        if let Some(offset) = spectrum {
            let at = var(base).add(
                point
                    .cast(Type::Index)
                    .mul(uint(self.pass.access.output_stride)),
            );
            return vec![assign(
                self.output_element(at),
                self.chirp_product(value, uint(offset).add(k)),
            )];
        }
        let ChirpRole::Store { side } = chirp.role else {
            unreachable!("the first FFT's stores multiply by the spectrum")
        };
        if chirp.rader.is_some() {
            // Rader's second FFT's output k is the axis's point g^k.
            let at = row.add(var("rader_at").mul(uint(stride)));
            let store = self.axis_store(side, fft, at, value);
            let body = match self.kept_point(chirp, fft, var("rader_at")) {
                Some(keeps) => vec![Stmt::If(keeps, store)],
                None => store,
            };
            let at = let_const(Type::Index, "rader_at", self.rader_point(chirp, k));
            return vec![Stmt::Scope([vec![at], body].concat())];
        }
        let back = Expr::select(uint(0).lt(k.clone()), uint(chirp.padded).sub(k), uint(0));
        let at = row.add(var("back").mul(uint(stride)));
        let y = self.chirp_product(value, uint(chirp.table_offset).add(var("back")));
        let keeps = self
            .kept_point(chirp, fft, var("back"))
            .unwrap_or_else(|| var("back").lt(uint(chirp.n)));
        vec![Stmt::Scope(vec![
            let_const(Type::Index, "back", back),
            Stmt::If(
                keeps,
                [
                    vec![let_const(Type::Complex, "y", y)],
                    self.axis_store(side, fft, at, var("y")),
                ]
                .concat(),
            ),
        ])]
    }

    /// Whether output `k` of the axis (FFT `fft`'s) is one the pass
    /// stores, where it does not store every point: every m-th point of an
    /// R2C's axis (the column's coordinate c0 plus m times k) within the
    /// half spectrum, or k within the side's points.
    fn kept_point(&self, chirp: Chirp, fft: &str, k: Expr) -> Option<Expr> {
        let (_, kept) = chirp.side_points();
        match self.pass.real.map(|r| (r, r.end)) {
            Some((real, RealEnd::Stores(index))) if self.direction == Direction::Forward => {
                let c = var(format!("{fft}_c{}", index.column));
                Some(c.add(k.mul(uint(index.points))).lt(uint(real.half_len())))
            }
            _ => (kept < chirp.n).then(|| k.lt(uint(kept))),
        }
    }

    /// Stores `value` (scaled here) as the point at `at` of an axis that
    /// `side` holds (FFT `fft`'s).
    pub(super) fn axis_store(&self, side: AxisSide, fft: &str, at: Expr, value: Expr) -> Vec<Stmt> {
        match side {
            AxisSide::Reals => {
                let re = self.scaled_real(value.re());
                self.real_store(self.buffers.output, self.real_output, at, re)
            }
            // Row x the real parts, row y (where there is one) the imaginary.
            AxisSide::PairedReals => {
                let partner = self.pass.access.output_distance / 2;
                let (re, im) = (
                    self.scaled_real(value.clone().re()),
                    self.scaled_real(value.im()),
                );
                let mut out =
                    self.real_store(self.buffers.output, self.real_output, at.clone(), re);
                out.push(Stmt::If(
                    self.has_partner(fft),
                    self.real_store(
                        self.buffers.output,
                        self.real_output,
                        at.add(uint(partner)),
                        im,
                    ),
                ));
                out
            }
            AxisSide::Complex | AxisSide::HalfSpectrum => {
                vec![assign(self.output_element(at), self.scaled(value))]
            }
            AxisSide::PairedHalfSpectra => {
                unreachable!("the R2C's paired half spectra are stored through shared memory")
            }
        }
    }

    /// The last stage's values of butterflies `batches` (output
    /// j + r `stride`) times the chirp's spectrum, whose table follows the
    /// chirp's: the product between the FFTs of Bluestein's algorithm in
    /// one kernel.
    pub(super) fn times_spectrum(
        &self,
        batches: &[usize],
        stride: usize,
        guard: &dyn Fn(usize, bool) -> Option<Expr>,
    ) -> Vec<Stmt> {
        let Some(chirp) = self.pass.chirp else {
            return Vec::new();
        };
        let spectrum = chirp.spectrum_offset();
        let mut out = Vec::new();
        for &b in batches {
            let (j, v) = (var(format!("j{b}")), var(format!("v{b}")));
            let mut products: Vec<Stmt> = (0..self.pass.stages.last().map_or(0, |s| s.radix))
                .map(|r| {
                    let k = uint(spectrum).add(j.clone().add(uint(r * stride)));
                    assign(
                        v.clone().at(uint(r)),
                        self.chirp_product(v.clone().at(uint(r)), k),
                    )
                })
                .collect();
            if chirp.rader.is_some() {
                products = self.rader_point_zero(b, products);
            }
            out.extend(guarded(guard(b, false), products));
        }
        out
    }

    /// Rader's table entry for point `j` of the row of M: the axis's point
    /// g^j (held as a real, exact to 2^24).
    pub(super) fn rader_point(&self, chirp: Chirp, j: Expr) -> Expr {
        var(TWIDDLES)
            .at(uint(chirp.table_offset).add(j))
            .re()
            .cast(Type::Index)
    }

    /// Butterfly `b`'s `products` (A[k] B[k]) with Rader's point 0 around
    /// them, where the butterfly holds A[0] (j = 0 of an active FFT): X[0]
    /// = x[0] + A[0] kept for the second FFT's stores
    /// ([`Self::rader_zero_store`]), and x[0] added to the product's point
    /// 0, so that every point of the convolution has it.
    fn rader_point_zero(&self, b: usize, products: Vec<Stmt>) -> Vec<Stmt> {
        let Some(chirp) = self.pass.chirp else {
            unreachable!("Rader's product is a chirp step's")
        };
        let ChirpRole::Load { side } = chirp.role else {
            unreachable!("the whole algorithm's first FFT takes the product")
        };
        let (v0, a0, x0) = (
            var(format!("v{b}")).at(uint(0)),
            var("rader_a0"),
            var("rader_x0"),
        );
        let holds_zero = var("active").and(var(format!("j{b}")).lt(uint(1)));
        let (_, row, stride) = self.along_row(chirp, "in_base", "fft", uint(0), true);
        let sum = |a: Expr, b: Expr| {
            Expr::complex(a.clone().re().add(b.clone().re()), a.im().add(b.im()))
        };
        let mut out = vec![let_const(Type::Complex, "rader_a0", v0.clone())];
        out.extend(products);
        out.push(Stmt::If(
            holds_zero,
            vec![
                let_const(
                    Type::Complex,
                    "rader_x0",
                    self.axis_point(side, chirp.n, "fft", (&row, stride), uint(0)),
                ),
                assign(var("rader_zero"), sum(x0.clone(), a0)),
                assign(var("rader_holds_zero"), var("true")),
                assign(v0.clone(), sum(v0, x0)),
            ],
        ));
        vec![Stmt::Scope(out)]
    }

    /// Rader's X[0] = x[0] + A[0], stored by the thread that took the
    /// product's point 0 (after the barrier past the first FFT, so every
    /// load of the input, in place too, is done).
    pub(super) fn rader_zero_store(&self) -> Vec<Stmt> {
        let Some(chirp) = self.pass.chirp.filter(|c| c.rader.is_some()) else {
            return Vec::new();
        };
        let ChirpRole::Store { side } = chirp.role else {
            unreachable!("the whole algorithm's second FFT stores the axis")
        };
        let (_, row, _) = self.along_row(chirp, "out_base", "fft", uint(0), false);
        vec![Stmt::If(
            var("rader_holds_zero"),
            self.axis_store(side, "fft", row, var("rader_zero")),
        )]
    }

    /// The first FFT's declarations of Rader's X[0] and whether this
    /// thread holds it.
    pub(super) fn rader_zero_declarations(&self) -> Vec<Stmt> {
        if self.pass.chirp.is_none_or(|c| c.rader.is_none()) {
            return Vec::new();
        }
        let zero = Expr::complex(Expr::Real(0.0), Expr::Real(0.0));
        vec![
            Stmt::Let {
                ty: Type::Complex,
                name: "rader_zero".into(),
                init: zero,
                constant: false,
            },
            Stmt::Let {
                ty: Type::Bool,
                name: "rader_holds_zero".into(),
                init: var("false"),
                constant: false,
            },
        ]
    }

    /// `value` times table entry `index` (conjugated in the inverse).
    pub(super) fn chirp_product(&self, value: Expr, index: Expr) -> Expr {
        Expr::call(
            cmul_name(self.direction == Direction::Inverse, self.plan.precision),
            vec![value, var(TWIDDLES).at(index)],
        )
    }
}
