//! The stages of the Stockham FFT (seed 000 section IV.B): each thread's
//! butterflies of one radix, their inputs from registers, shared memory
//! or global memory, their twiddles, and their writes to the next stage's
//! exchange or out of the kernel.

use super::super::ast::{assign, let_const, uint, var, Expr, Space, Stmt, Type};
use super::super::butterfly::butterfly_name;
use super::super::complex_ops::cmul_name;
use super::{exchange_arrays, guarded, incoming, Lowering, Segment};
use crate::plan::{
    ExchangeBuffers, ExchangeWidth, FirstWrite, GlobalIo, Padding, RealRoute, Stage,
};
use crate::Direction;

impl Lowering<'_> {
    /// One radix-R stage for all of this thread's butterflies: their
    /// registers, then each butterfly's reads, twiddles and DFT, then the
    /// writes to the next stage or out of the kernel.
    pub(super) fn stage(&self, s: usize, stage: &Stage, input_padding: Padding) -> Vec<Stmt> {
        let direct_in =
            s == 0 && self.pass.io == GlobalIo::Direct && self.segment != Segment::SecondOfTwo;
        let mut out = self.stage_registers(s, stage);
        for b in 0..stage.butterflies_per_thread {
            let work = self.butterfly(s, stage, b, direct_in, input_padding);
            out.extend(guarded(self.stage_guard(stage, b, direct_in), work));
        }
        out.extend(self.stage_writes(s, stage, direct_in));
        out
    }

    /// The stage's comment, and per butterfly b its registers `v{b}` and
    /// its index `j{b}`.
    pub(super) fn stage_registers(&self, s: usize, stage: &Stage) -> Vec<Stmt> {
        let (radix, stride) = (stage.radix, stage.stride);
        let mut out = vec![Stmt::Comment(format!(
            "Stage {s}: radix {radix}, stride {stride}, {} butterfl{} per thread",
            stage.butterflies_per_thread,
            if stage.butterflies_per_thread == 1 {
                "y"
            } else {
                "ies"
            }
        ))];
        for b in 0..stage.butterflies_per_thread {
            out.push(Stmt::Array {
                space: Space::Private,
                ty: Type::Complex,
                name: format!("v{b}"),
                len: radix,
            });
            out.push(let_const(
                Type::Uint,
                format!("j{b}"),
                var("t").add(uint(b * self.pass.threads_per_fft)),
            ));
        }
        out
    }

    /// Guards: a butterfly past N/R does not exist; an inactive FFT (past
    /// the batch) reads nothing where the stage meets global memory
    /// (`direct`).
    pub(super) fn stage_guard(&self, stage: &Stage, b: usize, direct: bool) -> Option<Expr> {
        let butterflies = self.pass.n / stage.radix;
        let exists = stage
            .guarded
            .then(|| var(format!("j{b}")).lt(uint(butterflies)));
        match (exists, direct) {
            (Some(e), true) => Some(var("active").and(e)),
            (Some(e), false) => Some(e),
            (None, true) => Some(var("active")),
            (None, false) => None,
        }
    }

    /// Butterfly `b` of stage `s`: read its values (from global memory
    /// where `direct_in`, else from the exchange), twiddle them, run the DFT.
    pub(super) fn butterfly(
        &self,
        s: usize,
        stage: &Stage,
        b: usize,
        direct_in: bool,
        input_padding: Padding,
    ) -> Vec<Stmt> {
        let dft = butterfly_name(stage.radix, self.direction, self.plan.precision);
        let mut work = self.butterfly_inputs(s, stage, b, direct_in, input_padding);
        work.extend(self.butterfly_twiddles(stage, b));
        work.push(Stmt::Expr(Expr::call(&dft, vec![var(format!("v{b}"))])));
        work
    }

    /// The inputs `v{b}[r]` of butterfly `b` of stage `s`: from global
    /// memory (`direct_in`), from the previous stage's registers (one part
    /// at a time), or from shared memory (transposed in the first stage of
    /// a pass of several axes; merged from the staged half spectrum in a
    /// half-length C2R's first stage).
    pub(super) fn butterfly_inputs(
        &self,
        s: usize,
        stage: &Stage,
        b: usize,
        direct_in: bool,
        input_padding: Padding,
    ) -> Vec<Stmt> {
        let pass = self.pass;
        let radix = stage.radix;
        let butterflies = pass.n / radix;
        let first = s == 0;
        let (j, v) = (var(format!("j{b}")), var(format!("v{b}")));
        let mut work = Vec::new();
        let from_shared = !direct_in && pass.exchange_width != ExchangeWidth::OnePartAtATime;
        let positions = if from_shared && first && pass.fused_axes.is_some() {
            self.transposed_positions(j.clone(), radix)
        } else if from_shared {
            let (decls, positions) =
                self.read_positions(format!("k{b}"), j.clone(), radix, input_padding);
            work.extend(decls);
            positions
        } else {
            Vec::new()
        };
        for r in 0..radix {
            let index = j.clone().add(uint(r * butterflies));
            let target = v.clone().at(uint(r));
            if direct_in {
                work.extend(self.global_input(index, target));
            } else if !from_shared {
                work.push(assign(target, var(incoming(s, b)).at(uint(r))));
            } else {
                let staged = exchange_arrays(pass, s.wrapping_sub(1)).load(positions[r].clone());
                match first {
                    true => work.extend(self.staged_input(index, target, staged)),
                    false => work.push(assign(target, staged)),
                }
            }
        }
        work
    }

    /// Point `index` of this thread's FFT into `target`, read from global
    /// memory: two paired rows' point, or the input's as
    /// [`Self::load_point`] reads it.
    pub(super) fn global_input(&self, index: Expr, target: Expr) -> Vec<Stmt> {
        if self.paired() {
            return vec![Stmt::Scope(self.paired_load(
                "in_base",
                "fft_has_y",
                index,
                target,
            ))];
        }
        let value = match self.dense() {
            true => self.input_point(var("base"), index, 1),
            false => self.load_point("in_base", "fft", index),
        };
        vec![assign(target, value)]
    }

    /// Point `index` of this thread's FFT into `target`, from the input
    /// staged in shared memory (`staged`, its value there): a C2R's
    /// half-length merge or paired half spectra merged here (paired rows
    /// otherwise merge on the walk that fills shared memory), else as staged.
    pub(super) fn staged_input(&self, index: Expr, target: Expr, staged: Expr) -> Vec<Stmt> {
        if let Some(real) = self.c2r().filter(|r| r.route == RealRoute::HalfLength) {
            return vec![Stmt::Scope(self.c2r_point(real, index, target))];
        }
        let merged = self.c2r().filter(|_| self.paired_half_spectra_in_one_run());
        if let Some(real) = merged {
            return vec![Stmt::Scope(self.merged_staged_point(real, index, target))];
        }
        vec![assign(target, staged)]
    }

    /// The stage's twiddles on the inputs of butterfly `b` (none where
    /// all are 1).
    pub(super) fn butterfly_twiddles(&self, stage: &Stage, b: usize) -> Vec<Stmt> {
        let Some(offset) = stage.twiddle_offset else {
            return Vec::new();
        };
        let cmul = cmul_name(self.direction == Direction::Inverse, self.plan.precision);
        let (j, v) = (var(format!("j{b}")), var(format!("v{b}")));
        let mut work = vec![let_const(
            Type::Uint,
            format!("p{b}"),
            j.rem(uint(stage.stride)),
        )];
        for r in 1..stage.radix {
            let w = self.stage_twiddle(stage, offset, var(format!("p{b}")), r);
            work.push(assign(
                v.clone().at(uint(r)),
                Expr::call(&cmul, vec![v.clone().at(uint(r)), w]),
            ));
        }
        work
    }

    /// Every butterfly's values of stage `s` into the exchange arrays:
    /// at the Stockham positions for the next stage, or in natural order
    /// (`natural`: the last stage's, j + r Ns, for a staged or tiled end).
    pub(super) fn write_to_shared(
        &self,
        s: usize,
        stage: &Stage,
        padding: Padding,
        natural: bool,
    ) -> Vec<Stmt> {
        let arrays = exchange_arrays(self.pass, s);
        let mut writes = Vec::new();
        for b in 0..stage.butterflies_per_thread {
            let (j, v) = (var(format!("j{b}")), var(format!("v{b}")));
            // In the last stage j < Ns, so the Stockham index is j + r Ns.
            let (mut stores, positions) = if natural {
                let offsets: Vec<usize> = (0..stage.radix).map(|r| r * stage.stride).collect();
                self.positions(format!("w{b}"), j.clone(), &offsets, None, padding)
            } else {
                self.write_positions(format!("w{b}"), j.clone(), stage, padding)
            };
            for (r, at) in positions.into_iter().enumerate() {
                stores.extend(arrays.store(at, v.clone().at(uint(r))));
            }
            writes.extend(guarded(self.stage_guard(stage, b, false), stores));
        }
        writes
    }

    /// Stage `s`'s writes: to shared memory for the next stage, to shared
    /// memory times the chirp's spectrum (the first of Bluestein's two
    /// FFTs in one kernel), or out of the kernel by the pass's output I/O.
    pub(super) fn stage_writes(&self, s: usize, stage: &Stage, direct_in: bool) -> Vec<Stmt> {
        if s + 1 != self.pass.stages.len() {
            return self.exchange_writes(s, stage, direct_in);
        }
        if self.segment == Segment::FirstOfTwo {
            return self.spectrum_product_writes(s, stage);
        }
        self.last_stage_writes(s, stage)
    }

    /// A stage's writes to the exchange the next stage reads.
    pub(super) fn exchange_writes(&self, s: usize, stage: &Stage, direct_in: bool) -> Vec<Stmt> {
        let pass = self.pass;
        let mut out = Vec::new();
        match pass.exchange_width {
            ExchangeWidth::BothParts | ExchangeWidth::Interleaved => {
                // Every thread must be done reading the arrays this write
                // reuses: unnecessary before the first stage of a kernel
                // that reads global memory directly (nothing has read
                // them; the plan may still ask for it, FirstWrite) and
                // with alternating sets (the barrier after the previous
                // write ended those reads).
                let alternating = pass.exchange_buffers == ExchangeBuffers::Alternating;
                let first_asks = pass.first_write == FirstWrite::AfterBarrier;
                if !alternating && (!direct_in || first_asks) {
                    out.push(Stmt::Barrier);
                }
                let padding = stage.exchange.unwrap_or(Padding::NONE);
                out.extend(self.write_to_shared(s, stage, padding, false));
                out.push(Stmt::Barrier);
            }
            ExchangeWidth::OnePartAtATime => out.extend(self.exchange_one_part_at_a_time(
                s,
                stage,
                &|b| self.stage_guard(stage, b, false),
            )),
        }
        out
    }

    /// The last stage of a whole Bluestein kernel's first FFT: its outputs
    /// times the chirp's spectrum, into shared memory for the second FFT.
    pub(super) fn spectrum_product_writes(&self, s: usize, stage: &Stage) -> Vec<Stmt> {
        let batches: Vec<usize> = (0..stage.butterflies_per_thread).collect();
        let guard = |b: usize, direct: bool| self.stage_guard(stage, b, direct);
        let mut out = vec![
            Stmt::Comment(
                "The first FFT's outputs times the chirp's spectrum, in their natural order \
                 into shared memory, where the second FFT reads them."
                    .into(),
            ),
            Stmt::Barrier,
        ];
        out.extend(self.times_spectrum(&batches, stage.stride, &guard));
        out.extend(self.write_to_shared(s, stage, Padding::NONE, true));
        out.push(Stmt::Barrier);
        out
    }

    /// The last stage's stores: straight from registers to the output, or
    /// through shared memory (staged small FFTs, a walk, a tile of columns).
    pub(super) fn last_stage_writes(&self, s: usize, stage: &Stage) -> Vec<Stmt> {
        let (radix, stride) = (stage.radix, stage.stride);
        let mut out = Vec::new();
        if self.pass.output_io == GlobalIo::Direct {
            for b in 0..stage.butterflies_per_thread {
                let (j, v) = (var(format!("j{b}")), var(format!("v{b}")));
                let (mut stores, twiddled) = self.stride_twiddles(b, &j, stride);
                stores.extend((0..radix).flat_map(|r| {
                    let point = j.clone().add(uint(r * stride));
                    let value = match &twiddled {
                        Some(twiddled) => twiddled(v.clone().at(uint(r)), r),
                        None => self.step_twiddled(v.clone().at(uint(r)), "fft", point.clone()),
                    };
                    match self.dense() {
                        true => vec![assign(
                            self.output_point(var("base"), point, 1),
                            self.scaled(value),
                        )],
                        false => self.store_point("out_base", "fft", point, value),
                    }
                }));
                out.extend(guarded(self.stage_guard(stage, b, true), stores));
            }
            return out;
        }
        out.push(Stmt::Barrier);
        out.extend(self.write_to_shared(s, stage, Padding::NONE, true));
        out.push(Stmt::Barrier);
        match (self.pass.output_io, self.dense()) {
            (GlobalIo::ColumnTile, _) => out.extend(self.tile_store()),
            (_, true) => out.extend(self.staged_store()),
            (_, false) => out.extend(self.walk_store()),
        }
        out
    }
}
