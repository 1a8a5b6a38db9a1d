//! Lowers a [`Pass`] into the single-kernel shared-memory Stockham FFT of
//! seed 000 (section IV.B, Fig. 4): each thread keeps R values per butterfly
//! in registers, stage s reads x[j + r N/R] and writes
//! y[(j / Ns) Ns R + j % Ns + r Ns], and stages exchange data through shared
//! memory with real and imaginary parts in separate, padded arrays (or, where
//! both do not fit, one array that carries the real parts and then the
//! imaginary parts: [`ExchangeWidth::OnePartAtATime`]).
//!
//! Variants (direction, placement, normalisation) change only a few
//! statements: the butterfly called, the twiddle conjugation, the pointer
//! arguments and a scale at the store. Bluestein's algorithm in one kernel
//! lowers its two FFTs of M one after the other ([`Segment`]).

use super::ast::{
    assign, let_const, uint, var, Builtin, Expr, Function, FunctionKind, Param, ParamKind, Space,
    Stmt, Type,
};
use super::butterfly::butterfly_name;
use super::complex_ops::cmul_name;
use super::real_split::{merge, merged_with_parts, split};
use super::signature::{kernel_params, locate, output_scale, pass_kernel, transforms_of, TWIDDLES};
use crate::expr::constant::root_of_unity_f64;
use crate::plan::{
    AxisIndex, AxisSide, Chirp, ChirpRole, ExchangeBuffers, ExchangeWidth, FirstWrite, GlobalIo,
    InputCaching, LaneLayout, MirroredColumns, Padding, Pass, Plan, RealEnd, RealRoute, RealStep,
    Stage, StageTwiddles, StepTwiddle, StepTwiddleForm,
};
use crate::{Blocks, Direction, Placement, Precision};

mod whole_real_shape;

/// The helper that applies a [`Padding`]: `index + index / period * gap`.
pub const PAD: &str = "fftgen_pad";

/// `uint fftgen_pad(uint index, uint period, uint gap)`.
pub fn pad_helper() -> Function {
    let index = var("index");
    Function {
        kind: FunctionKind::Helper {
            returns: Some(Type::Uint),
        },
        name: PAD.into(),
        params: ["index", "period", "gap"]
            .into_iter()
            .map(|name| Param {
                name: name.into(),
                kind: ParamKind::Value(Type::Uint),
            })
            .collect(),
        body: vec![Stmt::Return(
            index.clone().add(index.div(var("period")).mul(var("gap"))),
        )],
    }
}

/// Names of the kernel's pointer arguments.
struct Buffers {
    input: &'static str,
    output: &'static str,
}

impl Buffers {
    /// Two pointers out of place, one in place.
    fn of(placement: Placement) -> Buffers {
        match placement {
            Placement::OutOfPlace => Buffers {
                input: "input",
                output: "output",
            },
            Placement::InPlace => Buffers {
                input: "data",
                output: "data",
            },
        }
    }
}

/// The twiddle table of a pass, forward direction: stage by stage (skipping
/// the first, whose twiddles are all 1), `w_{Ns R}^{p r}` for 1 <= r < R and
/// p < Ns, p fastest: the threads of a warp hold consecutive p, so each
/// twiddle load of a warp reads consecutive entries.
pub fn twiddle_table(pass: &Pass) -> Vec<(f64, f64)> {
    if let Some(chirp) = pass.chirp.filter(|_| pass.stages.is_empty()) {
        return super::chirp::chirp_table(&chirp);
    }
    let mut table = Vec::new();
    for stage in pass.stages.iter().filter(|s| s.twiddle_offset.is_some()) {
        table.extend(stage_twiddle_table(pass, stage));
    }
    // The four-step twiddle's fine then coarse table.
    if let Some(step) = pass.step_twiddle {
        table.extend(fine_then_coarse(step.span, step.split, step.coarse_len()));
    }
    // The fine and coarse tables of w_N^k of a mirrored pass's real step.
    if let Some(RealEnd::Mirrored(mirrored)) = pass.real.map(|r| r.end) {
        let step = mirrored.twiddle;
        table.extend(fine_then_coarse(step.span, step.split, step.coarse_len()));
    }
    // The split's and merge's w_N^k of a half-length real step.
    if let Some(real) = pass.real.filter(|r| r.twiddle_offset.is_some()) {
        for k in 0..real.half_len() {
            table.push(root_of_unity_f64(k as i64, real.real_n as i64, -1));
        }
    }
    // The chirp (and its spectrum) of a Bluestein step in the FFT's loads
    // or stores.
    if let Some(chirp) = &pass.chirp {
        table.resize(chirp.table_offset, (0.0, 0.0));
        table.extend(super::chirp::fused_chirp_table(chirp));
    }
    table
}

/// The twiddles of `stage` (of `pass`) in the table, in its form.
fn stage_twiddle_table(pass: &Pass, stage: &Stage) -> Vec<(f64, f64)> {
    let span = stage.stride * stage.radix;
    match stage.twiddle_form {
        // In a pass of several axes, w_{span / D}^{(p / D) r}.
        StageTwiddles::Direct => {
            let divisor = pass.twiddle_divisor(stage.stride);
            (1..stage.radix)
                .flat_map(|r| (0..stage.stride).map(move |p| (p / divisor * r) as i64))
                .map(|exponent| root_of_unity_f64(exponent, (span / divisor) as i64, -1))
                .collect()
        }
        // w_span^m for m below the fine length, then w_span^(m fine).
        StageTwiddles::FineCoarse { fine_bits } => {
            let fine = 1usize << fine_bits;
            fine_then_coarse(span, fine, span.div_ceil(fine))
        }
    }
}

/// w_span^m for m below `fine`, then w_span^(m fine) for m below
/// `coarse`: a table whose entries multiply to any w_span^k.
fn fine_then_coarse(span: usize, fine: usize, coarse: usize) -> Vec<(f64, f64)> {
    let span = span as i64;
    (0..fine)
        .map(|m| root_of_unity_f64(m as i64, span, -1))
        .chain((0..coarse).map(|m| root_of_unity_f64((m * fine) as i64, span, -1)))
        .collect()
}

/// Whether `pass` reads twiddles (it has a stage after the first).
pub fn has_twiddles(pass: &Pass) -> bool {
    pass.chirp.is_some_and(|c| c.role != ChirpRole::Separate)
        || pass.stages.iter().any(|s| s.twiddle_offset.is_some())
        || pass.step_twiddle.is_some()
        || pass
            .real
            .is_some_and(|r| matches!(r.end, RealEnd::Mirrored(_)))
        || pass.real.is_some_and(|r| r.twiddle_offset.is_some())
}

/// Lowers `pass` of `plan` in `direction` into one kernel (named by its
/// [`KernelKey`]), reading twiddles from the [`TWIDDLES`] argument.
pub fn lower_stockham(plan: &Plan, pass: &Pass, direction: Direction) -> Function {
    let placement = match plan.writes_in_place(pass) {
        true => Placement::InPlace,
        false => Placement::OutOfPlace,
    };
    let buffers = Buffers::of(placement);
    let (real_input, real_output) = real_sides(pass, direction, placement);
    let params = kernel_params(placement, real_input, real_output, has_twiddles(pass));
    let lowering = |pass, segment| Lowering {
        plan,
        pass,
        direction,
        buffers: &buffers,
        real_input,
        real_output,
        segment,
    };
    let body = match whole_bluestein_halves(pass) {
        // Bluestein's algorithm in one kernel: its first FFT as the load's
        // step lowers it, then its second as the store's.
        Some((first, second)) => {
            let mut body = lowering(&first, Segment::FirstOfTwo).body();
            body.extend(lowering(&second, Segment::SecondOfTwo).body());
            body
        }
        None => lowering(pass, Segment::Only).body(),
    };
    pass_kernel((plan, pass, direction), params, body)
}

/// The two FFTs of a pass that runs the whole of Bluestein's algorithm
/// ([`ChirpRole::Whole`]), as passes of their own: the first with the
/// chirped loads (and no normalisation), the second with the chirped
/// stores; `None` for any other pass.
fn whole_bluestein_halves(pass: &Pass) -> Option<(Pass, Pass)> {
    let chirp = pass.chirp?;
    let ChirpRole::Whole { from, to } = chirp.role else {
        return None;
    };
    let with_role = |role| Pass {
        chirp: Some(Chirp { role, ..chirp }),
        ..pass.clone()
    };
    let first = Pass {
        normalizes: false,
        ..with_role(ChirpRole::Load { side: from })
    };
    Some((first, with_role(ChirpRole::Store { side: to })))
}

/// Whether `pass`'s input and output, in `direction`, are reals with a
/// pointer of their own type: those of a full-length real step (paired
/// rows or not) and of a Bluestein FFT's chirped loads or stores, out of
/// place; in place they are addressed through the complex pointer (the
/// half spectrum overlays them).
fn real_sides(pass: &Pass, direction: Direction, placement: Placement) -> (bool, bool) {
    let full_length = |ends: fn(RealEnd) -> bool| {
        pass.real.is_some_and(|r| {
            r.route.reads_single_reals() && placement == Placement::OutOfPlace && ends(r.end)
        })
    };
    let chirp_reals = |reads: bool| {
        placement == Placement::OutOfPlace
            && match pass.chirp.map(|c| c.role) {
                Some(ChirpRole::Load { side }) => reads && side.reals(),
                Some(ChirpRole::Store { side }) => !reads && side.reals(),
                Some(ChirpRole::Whole { from, to }) => match reads {
                    true => from.reals(),
                    false => to.reals(),
                },
                _ => false,
            }
    };
    let real_input = (direction == Direction::Forward
        && full_length(|end| matches!(end, RealEnd::Both | RealEnd::Loads(_))))
        || chirp_reals(true);
    let real_output = (direction == Direction::Inverse
        && full_length(|end| matches!(end, RealEnd::Both | RealEnd::Stores(_))))
        || chirp_reals(false);
    (real_input, real_output)
}

struct Lowering<'a> {
    plan: &'a Plan,
    pass: &'a Pass,
    direction: Direction,
    buffers: &'a Buffers,
    /// Whether the input pointer points to reals (else to complex values).
    real_input: bool,
    /// Whether the output pointer points to reals.
    real_output: bool,
    segment: Segment,
}

/// Which part of a kernel a lowering writes: the pass's one FFT from its
/// loads to its stores, or one of the two FFTs of Bluestein's algorithm in
/// one kernel ([`ChirpRole::Whole`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Segment {
    Only,
    /// The kernel's start, the chirped loads and the first FFT, whose
    /// outputs go into shared memory times the chirp's spectrum.
    FirstOfTwo,
    /// The second FFT from shared memory, then the chirped stores.
    SecondOfTwo,
}

impl Lowering<'_> {
    fn body(&self) -> Vec<Stmt> {
        let mut body = match self.segment {
            Segment::Only | Segment::FirstOfTwo => self.preamble(),
            Segment::SecondOfTwo => Vec::new(),
        };
        let pass = self.pass;
        let mut previous = Padding::NONE;
        for (s, stage) in pass.stages.iter().enumerate() {
            if pass.exchange_width == ExchangeWidth::OnePartAtATime {
                // Stage s fills the next stage's inputs from its own scope.
                if let Some(next) = pass.stages.get(s + 1) {
                    for b in 0..next.butterflies_per_thread {
                        body.push(Stmt::Array {
                            space: Space::Private,
                            ty: Type::Complex,
                            name: incoming(s + 1, b),
                            len: next.radix,
                        });
                    }
                }
            }
            body.push(Stmt::Scope(self.stage(s, stage, previous)));
            if let Some(padding) = stage.exchange {
                previous = padding;
            }
        }
        body
    }

    /// The kernel's declarations and the loads that come before its
    /// stages: shared memory, this thread's FFT and where it lies, and the
    /// inputs staged into shared memory where the pass stages them.
    fn preamble(&self) -> Vec<Stmt> {
        let mut body = self.shared_declarations();
        body.extend(self.thread_placement());
        let (counts, total) = self.ffts_of_the_launch();
        body.extend(counts);
        match self.dense() {
            true => body.extend(self.dense_start(total)),
            false => body.extend(self.located_start(total)),
        }
        body
    }

    /// The shared arrays of the exchange (none where a pass of one stage
    /// exchanges nothing, seed 000 IV.A), statically or at their offsets
    /// in dynamic shared memory.
    fn shared_declarations(&self) -> Vec<Stmt> {
        let pass = self.pass;
        let words = pass.ffts_per_block * pass.fft_stride;
        if words == 0 {
            return Vec::new();
        }
        let sets = match pass.exchange_buffers {
            ExchangeBuffers::Reused => 1,
            ExchangeBuffers::Alternating => 2,
        };
        let shared_arrays: Vec<(Type, String)> = match pass.exchange_width {
            ExchangeWidth::OnePartAtATime => vec![(Type::Real, "shared_part".into())],
            ExchangeWidth::BothParts | ExchangeWidth::Interleaved => (0..sets)
                .flat_map(|set| match exchange_arrays(pass, set) {
                    ExchangeArrays::Parts(re, im) => vec![(Type::Real, re), (Type::Real, im)],
                    ExchangeArrays::Interleaved(values) => vec![(Type::Complex, values)],
                })
                .collect(),
        };
        let precision = self.plan.precision;
        let mut offset = 0;
        shared_arrays
            .into_iter()
            .map(|(ty, name)| {
                let space = match pass.dynamic_shared {
                    true => Space::DynamicShared { offset },
                    false => Space::Shared,
                };
                offset += words
                    * match ty {
                        Type::Complex => precision.complex_bytes(),
                        _ => precision.real_bytes(),
                    };
                Stmt::Array {
                    space,
                    ty,
                    name,
                    len: words,
                }
            })
            .collect()
    }

    /// This thread's FFT of the block (`fft_local`), its thread within
    /// that FFT (`t`) and the FFT's region of shared memory.
    fn thread_placement(&self) -> Vec<Stmt> {
        let pass = self.pass;
        let (t, m) = (pass.threads_per_fft, pass.ffts_per_block);
        let (fft_local, thread) = match pass.lanes {
            LaneLayout::FftMajor => (var("tid").div(uint(t)), var("tid").rem(uint(t))),
            LaneLayout::FftMinor => (var("tid").rem(uint(m)), var("tid").div(uint(m))),
        };
        vec![
            let_const(Type::Uint, "tid", Expr::Builtin(Builtin::ThreadIndex)),
            Stmt::Comment(format!(
                "{m} FFT(s) per block, {t} thread(s) per FFT, lanes {:?}",
                pass.lanes
            )),
            let_const(Type::Uint, "fft_local", fft_local),
            let_const(Type::Uint, "t", thread),
            let_const(
                Type::Uint,
                "region",
                var("fft_local").mul(uint(pass.fft_stride)),
            ),
        ]
    }

    /// The FFTs of the launch: transforms of the batch times this pass's
    /// FFTs in each (where two rows of the real axis share an FFT, `rows`
    /// declared first and halved, rounded up).
    fn ffts_of_the_launch(&self) -> (Vec<Stmt>, Expr) {
        let total = match self.pass.access.ffts_per_transform() {
            1 => self.transforms(),
            c => self.transforms().cast(Type::Index).mul(uint(c)),
        };
        match self.paired() {
            true => (
                vec![let_const(Type::Index, "rows", total.cast(Type::Index))],
                var("rows").add(uint(1)).div(uint(2)),
            ),
            false => (Vec::new(), total),
        }
    }

    /// The transforms the launch counts: the batch's, or its pairs
    /// (rounded up) where each FFT computes two ([`Pass::transform_pairs`]).
    fn transforms(&self) -> Expr {
        transforms_of(self.pass)
    }

    /// This thread's FFT of the launch (`fft`) and whether it is one of its
    /// `total` (`active`).
    fn this_fft(&self, total: Expr) -> [Stmt; 2] {
        [
            let_const(Type::Index, "fft", self.block_fft().add(var("fft_local"))),
            let_const(Type::Bool, "active", var("fft").lt(total)),
        ]
    }

    /// The block's first FFT of the batch.
    fn block_fft(&self) -> Expr {
        Expr::Builtin(Builtin::BlockIndex)
            .cast(Type::Index)
            .mul(uint(self.pass.ffts_per_block))
    }

    /// Where a dense batch's FFT starts (FFT g at g n), and the block's
    /// slice copied into shared memory where the pass stages its input.
    fn dense_start(&self, total: Expr) -> Vec<Stmt> {
        let pass = self.pass;
        let (m, n) = (pass.ffts_per_block, pass.n);
        let mut body = Vec::new();
        // A pass of several axes stages its rows in and may store straight
        // from registers: it places its FFT both ways.
        let direct_out = pass.io != GlobalIo::Direct && pass.output_io == GlobalIo::Direct;
        if pass.io == GlobalIo::Direct || direct_out {
            body.extend(self.this_fft(total));
            body.push(let_const(Type::Index, "base", var("fft").mul(uint(n))));
        }
        match pass.io {
            GlobalIo::Direct => {}
            GlobalIo::StagedThroughShared | GlobalIo::ColumnTile => {
                let block_base = Expr::Builtin(Builtin::BlockIndex)
                    .cast(Type::Index)
                    .mul(uint(m * n));
                let per_transform = pass.access.ffts_per_transform();
                body.push(let_const(Type::Index, "block_base", block_base));
                body.push(let_const(
                    Type::Index,
                    "total",
                    self.transforms()
                        .cast(Type::Index)
                        .mul(uint(per_transform * n)),
                ));
                body.push(Stmt::Comment(
                    "Unit-stride copy of the block's slice of the batch into shared memory.".into(),
                ));
                body.extend(self.staged_load());
                body.push(Stmt::Barrier);
            }
        }
        body
    }

    /// Where this thread's FFT starts by its column coordinates, the
    /// block's tile of neighbouring FFTs where an end is tiled, and the
    /// loads of a tiled or staged input.
    fn located_start(&self, total: Expr) -> Vec<Stmt> {
        let pass = self.pass;
        let m = pass.ffts_per_block;
        let mut body = Vec::new();
        if pass.io == GlobalIo::Direct || pass.output_io == GlobalIo::Direct || self.rows_by_fft() {
            body.push(Stmt::Comment(
                "This thread's FFT, its column coordinates and where it starts.".into(),
            ));
            body.extend(self.this_fft(total.clone()));
            body.extend(self.locate_rows("fft", ("in_base", "out_base"), "fft_has_y"));
        }
        if pass.io == GlobalIo::ColumnTile || pass.output_io == GlobalIo::ColumnTile {
            body.extend(self.tile_start(total.clone()));
        }
        if pass.io == GlobalIo::ColumnTile {
            body.extend(self.tile_load());
            body.push(Stmt::Barrier);
        }
        if pass.io == GlobalIo::StagedThroughShared
            || pass.output_io == GlobalIo::StagedThroughShared
        {
            body.push(let_const(Type::Index, "walk_ffts", total));
        }
        if pass.io == GlobalIo::StagedThroughShared {
            body.push(Stmt::Comment(format!(
                "Row by row, unit stride: the block's {m} row(s) into shared memory{}.",
                match (self.pass.real, self.direction) {
                    (Some(_), Direction::Inverse) => " (the half spectrum, whole)",
                    _ => "",
                }
            )));
            body.extend(self.walk_load());
            body.push(Stmt::Barrier);
        }
        body
    }

    /// The block's tile of neighbouring FFTs: which FFT's points this
    /// thread copies (`tile_fft`, or the mirrored column pairs of a split
    /// on the stores) and where it starts.
    fn tile_start(&self, total: Expr) -> Vec<Stmt> {
        let pass = self.pass;
        let m = pass.ffts_per_block;
        let mut body = vec![
            Stmt::Comment(format!(
                "The tile of {m} neighbouring FFTs: this thread copies points of FFT \
                 tid % {m}, the warp runs of neighbouring FFTs."
            )),
            let_const(Type::Uint, "tile_f", var("tid").rem(uint(m))),
            let_const(Type::Uint, "tile_k", var("tid").div(uint(m))),
            let_const(
                Type::Uint,
                "tile_region",
                var("tile_f").mul(uint(pass.fft_stride)),
            ),
        ];
        match self.split_on_stores() {
            Some(mirrored) => body.extend(mirrored_tile(mirrored, self.block_fft())),
            None => {
                body.push(let_const(
                    Type::Index,
                    "tile_fft",
                    self.block_fft().add(var("tile_f")),
                ));
                body.push(let_const(
                    Type::Bool,
                    "tile_active",
                    var("tile_fft").lt(total),
                ));
            }
        }
        body.extend(self.locate("tile_fft", "tile_in_base", "tile_out_base"));
        body
    }

    /// The shared-memory positions (`region + padding(index)`) of the values
    /// `head + offsets[r]`, with the statements that must come first. Where
    /// the padding shifts every offset by a constant, the padded head is
    /// computed once (`name`) and each position is that plus a constant, so
    /// the compiler folds them into the loads' and stores' immediates instead
    /// of dividing per value.
    fn positions(
        &self,
        name: String,
        head: Expr,
        offsets: &[usize],
        padded_offsets: Option<Vec<usize>>,
        padding: Padding,
    ) -> (Vec<Stmt>, Vec<Expr>) {
        match padded_offsets {
            Some(shifts) if !padding.is_none() => {
                let at = var("region").add(padded(head, padding));
                let positions = shifts.iter().map(|&c| var(&name).add(uint(c))).collect();
                (vec![let_const(Type::Uint, name, at)], positions)
            }
            _ => {
                let positions = offsets
                    .iter()
                    .map(|&c| var("region").add(padded(head.clone().add(uint(c)), padding)))
                    .collect();
                (Vec::new(), positions)
            }
        }
    }

    /// Positions of the inputs `j + r N/R` of butterfly `j` of a stage of
    /// `radix`, laid out by `padding`.
    fn read_positions(
        &self,
        name: String,
        j: Expr,
        radix: usize,
        padding: Padding,
    ) -> (Vec<Stmt>, Vec<Expr>) {
        let butterflies = self.pass.n / radix;
        let offsets: Vec<usize> = (0..radix).map(|r| r * butterflies).collect();
        let shifted = padding
            .shifts_by_periods(butterflies)
            .then(|| offsets.iter().map(|&c| padding.padded_shift(c)).collect());
        self.positions(name, j, &offsets, shifted, padding)
    }

    /// Positions of the first stage's inputs `m = j + r N/R` in a pass of
    /// several axes ([`crate::plan::fused_axes`]): the row-major points
    /// of `m` read with the outermost axis's digit fastest. R divides the
    /// innermost axis's length L, so that is the point of `j` plus
    /// `r L / R` (the rows are staged unpadded).
    fn transposed_positions(&self, j: Expr, radix: usize) -> Vec<Expr> {
        let fused = self
            .pass
            .fused_axes
            .as_ref()
            .expect("a pass of several axes");
        // Outermost axis first: its digit of j is the fastest.
        let mut head = uint(0);
        let (mut digits, mut inner_span) = (j, fused.points());
        for &len in &fused.lengths {
            inner_span /= len;
            head = match inner_span {
                // The innermost digit is what is left of j (j < N / R).
                1 => head.add(digits.clone()),
                _ => head.add(digits.clone().rem(uint(len)).mul(uint(inner_span))),
            };
            digits = digits.div(uint(len));
        }
        let innermost = fused.lengths.last().copied().unwrap_or(1);
        (0..radix)
            .map(|r| match r {
                0 => head.clone(),
                _ => head.clone().add(uint(r * innermost / radix)),
            })
            .map(|point| var("region").add(padded(point, fused.rows_padding)))
            .collect()
    }

    /// How the rows a pass of several axes stages are laid out in shared
    /// memory (none for other passes).
    fn rows_padding(&self) -> Padding {
        self.pass
            .fused_axes
            .as_ref()
            .map_or(Padding::NONE, |fused| fused.rows_padding)
    }

    /// Positions of the outputs `(j / Ns) Ns R + j % Ns + r Ns` of butterfly
    /// `j` of `stage`, laid out by `padding`.
    fn write_positions(
        &self,
        name: String,
        j: Expr,
        stage: &Stage,
        padding: Padding,
    ) -> (Vec<Stmt>, Vec<Expr>) {
        let (radix, stride) = (stage.radix, stage.stride);
        let offsets: Vec<usize> = (0..radix).map(|r| r * stride).collect();
        let shifted = padding.linear_for_writes(radix, stride).then(|| {
            (0..radix)
                .map(|r| padding.write_offset(radix, stride, r))
                .collect()
        });
        let head = j
            .clone()
            .div(uint(stride))
            .mul(uint(stride * radix))
            .add(j.rem(uint(stride)));
        self.positions(name, head, &offsets, shifted, padding)
    }

    /// The exchange after stage `s` when one part crosses shared memory at a
    /// time: real parts out and into the next stage's `incoming` registers,
    /// then imaginary parts. Barriers separate each write from the reads
    /// that follow it and each read from the write that reuses the array.
    fn exchange_one_part_at_a_time(
        &self,
        s: usize,
        stage: &Stage,
        write_guard: &dyn Fn(usize) -> Option<Expr>,
    ) -> Vec<Stmt> {
        let pass = self.pass;
        let next = &pass.stages[s + 1];
        let padding = stage.exchange.unwrap_or(Padding::NONE);
        // Positions are computed once and serve both parts.
        let mut out = Vec::new();
        let writes: Vec<Vec<Expr>> = (0..stage.butterflies_per_thread)
            .map(|b| {
                let (decls, positions) =
                    self.write_positions(format!("w{b}"), var(format!("j{b}")), stage, padding);
                out.extend(decls);
                positions
            })
            .collect();
        let reads: Vec<Vec<Expr>> = (0..next.butterflies_per_thread)
            .map(|b| {
                let k = var("t").add(uint(b * pass.threads_per_fft));
                let (decls, positions) =
                    self.read_positions(format!("next{b}"), k, next.radix, padding);
                out.extend(decls);
                positions
            })
            .collect();
        for (p, part) in [Expr::re as fn(Expr) -> Expr, Expr::im]
            .into_iter()
            .enumerate()
        {
            // Before the first stage's real parts nothing has read the array,
            // so a barrier there is only the plan's choice (FirstWrite).
            let reads_pending = !(s == 0 && p == 0);
            if reads_pending || pass.first_write == FirstWrite::AfterBarrier {
                out.push(Stmt::Barrier);
            }
            out.extend(Self::part_writes(&writes, part, write_guard));
            out.push(Stmt::Barrier);
            out.extend(self.part_reads(s, &reads, part));
        }
        out
    }

    /// One part (`part`) of each butterfly's values `v{b}[r]` into
    /// `shared_part` at `writes[b][r]`, under `write_guard(b)`.
    fn part_writes(
        writes: &[Vec<Expr>],
        part: fn(Expr) -> Expr,
        write_guard: &dyn Fn(usize) -> Option<Expr>,
    ) -> Vec<Stmt> {
        let mut out = Vec::new();
        for (b, positions) in writes.iter().enumerate() {
            let v = var(format!("v{b}"));
            let stores = positions
                .iter()
                .enumerate()
                .map(|(r, at)| {
                    assign(
                        var("shared_part").at(at.clone()),
                        part(v.clone().at(uint(r))),
                    )
                })
                .collect();
            out.extend(guarded(write_guard(b), stores));
        }
        out
    }

    /// One part (`part`) of stage `s + 1`'s inputs from `shared_part` at
    /// `reads[b][r]` into its registers `incoming`, each butterfly that exists.
    fn part_reads(&self, s: usize, reads: &[Vec<Expr>], part: fn(Expr) -> Expr) -> Vec<Stmt> {
        let pass = self.pass;
        let next = &pass.stages[s + 1];
        let next_butterflies = pass.n / next.radix;
        reads
            .iter()
            .enumerate()
            .map(|(b, positions)| {
                let k = var("t").add(uint(b * pass.threads_per_fft));
                let loads = positions
                    .iter()
                    .enumerate()
                    .map(|(r, at)| {
                        assign(
                            part(var(incoming(s + 1, b)).at(uint(r))),
                            var("shared_part").at(at.clone()),
                        )
                    })
                    .collect();
                let exists = next.guarded.then(|| k.lt(uint(next_butterflies)));
                Stmt::Scope(guarded(exists, loads))
            })
            .collect()
    }

    /// Whether the pass's FFTs are a dense batch (FFT g at g n): the
    /// addressing of every single-kernel plan. A pass planned with a
    /// column tile keeps it (the planner tiles sides that are not dense;
    /// one moved into a batch of rows, as Bluestein's FFTs are, may become so).
    fn dense(&self) -> bool {
        let pass = self.pass;
        pass.real.is_none()
            && pass.chirp.is_none()
            && pass.access.is_dense(pass.n)
            && pass.io != GlobalIo::ColumnTile
            && pass.output_io != GlobalIo::ColumnTile
    }

    /// Decomposes FFT `fft` (an index variable) into the pass's column
    /// coordinates (`{fft}_c0`, ...) and the transform of the batch, and
    /// declares where it starts in the input and the output.
    fn locate(&self, fft: &str, input: &str, output: &str) -> Vec<Stmt> {
        locate(&self.pass.access, fft, input, output)
    }

    /// Whether each FFT computes two rows of the real axis
    /// ([`RealRoute::PairedRows`]).
    fn paired(&self) -> bool {
        self.pass
            .real
            .is_some_and(|r| r.route == RealRoute::PairedRows)
    }

    /// Where the rows of FFT `fft` start, as [`Self::locate`] declares them
    /// (`at`: the input's and the output's names); where it computes two
    /// rows, `at` holds row 2 fft (x), `{at}_y` row 2 fft + 1 (y), which
    /// exists where `has_y` (the last FFT of an odd count has one row; its
    /// `{at}_y` is row x's start, so a load from it stays in the buffer).
    fn locate_rows(&self, fft: &str, at: (&str, &str), has_y: &str) -> Vec<Stmt> {
        if !self.paired() {
            return self.locate(fft, at.0, at.1);
        }
        let (x, y) = (format!("{fft}_x"), format!("{fft}_y"));
        let mut out = vec![let_const(Type::Index, &x, var(fft).mul(uint(2)))];
        out.extend(self.locate(&x, at.0, at.1));
        out.push(let_const(Type::Index, &y, var(&x).add(uint(1))));
        let row_y = |name: &str| format!("{name}_row_y");
        out.extend(self.locate(&y, &row_y(at.0), &row_y(at.1)));
        out.push(let_const(Type::Bool, has_y, var(&y).lt(var("rows"))));
        for name in [at.0, at.1] {
            out.push(let_const(
                Type::Index,
                format!("{name}_y"),
                Expr::select(var(has_y), var(row_y(name)), var(name)),
            ));
        }
        out
    }

    /// Point `point` of paired rows x and y read from the input into
    /// `target` (`base`, `{base}_y`: their starts; `has_y`: whether y
    /// exists): for an R2C their reals as Z = x + i y; for a C2R, from
    /// their half spectra, Z[p] = X[p] + i Y[p] below N / 2 + 1 and
    /// conj X[N - p] + i conj Y[N - p] above (X[0] and X[N / 2] real).
    fn paired_load(&self, base: &str, has_y: &str, point: Expr, target: Expr) -> Vec<Stmt> {
        let stride = self.pass.access.input_stride;
        let at = |base: String, point: Expr| var(base).add(strided(point, stride));
        let base_y = format!("{base}_y");
        let input = self.buffers.input;
        let zero = Expr::Real(0.0);
        if self.direction == Direction::Forward {
            let x = self.real_load(input, self.real_input, at(base.into(), point.clone()));
            let y = self.real_load(input, self.real_input, at(base_y, point));
            return vec![assign(
                target,
                Expr::complex(x, Expr::select(var(has_y), y, zero)),
            )];
        }
        self.paired_spectra_point(base, has_y, point, target)
    }

    /// [`Self::paired_load`] of a C2R: Z[p] from the two rows' half
    /// spectra at `base` and `{base}_y`.
    fn paired_spectra_point(
        &self,
        base: &str,
        has_y: &str,
        point: Expr,
        target: Expr,
    ) -> Vec<Stmt> {
        let stride = self.pass.access.input_stride;
        let at = |base: String, point: Expr| var(base).add(strided(point, stride));
        let base_y = format!("{base}_y");
        let zero = Expr::Real(0.0);
        let n = self.pass.n;
        let half = n / 2 + 1;
        let low = var("p").lt(uint(half));
        let mirrored = uint(0).lt(var("q")).and(var("q").mul(uint(2)).lt(uint(n)));
        let [p, q] = mirrored_index(point, n, low.clone());
        vec![
            p,
            q,
            let_const(
                Type::Complex,
                "a",
                self.input_load(at(base.into(), var("q"))),
            ),
            let_const(Type::Complex, "b", self.input_load(at(base_y, var("q")))),
            let_const(Type::Bool, "mirrored", mirrored),
            let_const(
                Type::Real,
                "ai",
                Expr::select(var("mirrored"), var("a").im(), zero.clone()),
            ),
            let_const(
                Type::Real,
                "bi",
                Expr::select(var("mirrored").and(var(has_y)), var("b").im(), zero.clone()),
            ),
            let_const(
                Type::Real,
                "br",
                Expr::select(var(has_y), var("b").re(), zero),
            ),
            assign(target, merged_point(low, var("a").re(), var("br"))),
        ]
    }

    /// The tile walk: for each point `k` of FFT `tile_f` this thread
    /// copies (k = tile_k, tile_k + T, ...; T threads per FFT), `copy(k, slot)`
    /// with `slot` its place in shared memory.
    fn tile_copy(&self, padding: Padding, copy: impl Fn(Expr, Expr) -> Vec<Stmt>) -> Vec<Stmt> {
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
    fn tile_load(&self) -> Vec<Stmt> {
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
    fn staging(&self) -> ExchangeArrays {
        match self.pass.exchange_width {
            ExchangeWidth::Interleaved => ExchangeArrays::Interleaved("shared_values".into()),
            _ => ExchangeArrays::Parts("shared_re".into(), "shared_im".into()),
        }
    }

    /// `x` = Z'[i] (twice Z[i]) merged from X[i] and X[M - i] of the half
    /// spectrum, i = c + C `point` (the same math as the merge apart).
    fn merged_load(&self, mirrored: MirroredColumns, point: Expr) -> Vec<Stmt> {
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
    fn real_twiddle(&self, table: StepTwiddle, k: Expr) -> Expr {
        self.fine_times_coarse(table.offset, table.split, k)
    }

    /// `w^e` from a fine table of `fine_len` entries at `offset` and the
    /// coarse table after it: `fine[e % fine_len] * coarse[e / fine_len]`.
    fn fine_times_coarse(&self, offset: usize, fine_len: usize, exponent: Expr) -> Expr {
        let fine = var(TWIDDLES).at(uint(offset).add(exponent.clone().rem(uint(fine_len))));
        let coarse = var(TWIDDLES).at(uint(offset + fine_len).add(exponent.div(uint(fine_len))));
        Expr::call(cmul_name(false, self.plan.precision), vec![fine, coarse])
    }

    /// The tile's half spectrum of an R2C's [`RealEnd::Mirrored`] pass from
    /// shared memory: slot `tile_f` (column c) writes X[c + C k] for its
    /// points k, split from Z[c + C k] and Z[M - c - C k], which its
    /// partner slot holds (itself for columns 0 and C / 2); column 0 also
    /// X[M] = Re Z[0] - Im Z[0].
    fn mirrored_store(&self, mirrored: MirroredColumns) -> Vec<Stmt> {
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
    fn split_on_stores(&self) -> Option<MirroredColumns> {
        match (self.pass.real.map(|r| r.end), self.direction) {
            (Some(RealEnd::Mirrored(mirrored)), Direction::Forward) => Some(mirrored),
            _ => None,
        }
    }

    /// The [`RealEnd::Mirrored`] step of a C2R pass (the merge on its
    /// loads).
    fn merge_on_loads(&self) -> Option<MirroredColumns> {
        match (self.pass.real.map(|r| r.end), self.direction) {
            (Some(RealEnd::Mirrored(mirrored)), Direction::Inverse) => Some(mirrored),
            _ => None,
        }
    }

    /// Copies the tile's results from shared memory to the output, with the
    /// four-step twiddle and the scale.
    fn tile_store(&self) -> Vec<Stmt> {
        if let Some(mirrored) = self.split_on_stores() {
            return self.mirrored_store(mirrored);
        }
        self.tile_copy(Padding::NONE, |k, slot| {
            let value = self.staging().load(slot);
            let value = self.step_twiddled(value, "tile_fft", k.clone());
            self.store_point("tile_out_base", "tile_fft", k, value)
        })
    }

    /// The forward twiddle `w_span^(p r)` of `stage`, whose part of the
    /// table starts at `offset`: one entry, or the product of a fine and a
    /// coarse entry (p r < span, so the coarse index stays in its table).
    fn stage_twiddle(&self, stage: &Stage, offset: usize, p: Expr, r: usize) -> Expr {
        match stage.twiddle_form {
            StageTwiddles::Direct => var(TWIDDLES).at(uint(offset + (r - 1) * stage.stride).add(p)),
            StageTwiddles::FineCoarse { fine_bits } => {
                let exponent = match r {
                    1 => p,
                    _ => p.mul(uint(r)),
                };
                self.fine_times_coarse(offset, 1 << fine_bits, exponent)
            }
        }
    }

    /// `value`, output `point` of FFT `fft`, times its four-step twiddle
    /// `w_span^(c point)` (conjugated for the inverse), if the pass has one.
    fn step_twiddled(&self, value: Expr, fft: &str, point: Expr) -> Expr {
        let Some(step) = self.pass.step_twiddle else {
            return value;
        };
        let precision = self.plan.precision;
        let c = var(format!("{fft}_c{}", step.column)).cast(Type::Uint);
        let w = self.fine_times_coarse(step.offset, step.split, c.mul(point));
        let apply = cmul_name(self.direction == Direction::Inverse, precision);
        Expr::call(apply, vec![value, w])
    }

    /// For a pass whose four-step twiddles are
    /// [`StepTwiddleForm::BaseTimesStride`]: the declaration of butterfly
    /// `b`'s base `w^(c j)` and the twiddling of its value `r` (point
    /// `j + r stride`) by the base times `w^(c r stride)`, whose index a warp
    /// shares. `None` for the other forms.
    fn stride_twiddles(
        &self,
        b: usize,
        j: &Expr,
        stride: usize,
    ) -> (Vec<Stmt>, Option<impl Fn(Expr, usize) -> Expr + '_>) {
        let step = match self.pass.step_twiddle {
            Some(step) if step.form == StepTwiddleForm::BaseTimesStride => step,
            _ => return (Vec::new(), None),
        };
        let c = var(format!("fft_c{}", step.column)).cast(Type::Uint);
        let base = format!("step_base{b}");
        let declare = vec![let_const(
            Type::Complex,
            base.clone(),
            self.fine_times_coarse(step.offset, step.split, c.clone().mul(j.clone())),
        )];
        let precision = self.plan.precision;
        let apply = cmul_name(self.direction == Direction::Inverse, precision);
        let twiddled = move |value: Expr, r: usize| {
            let w = match r {
                0 => var(&base),
                _ => Expr::call(
                    cmul_name(false, precision),
                    vec![
                        var(&base),
                        self.fine_times_coarse(
                            step.offset,
                            step.split,
                            c.clone().mul(uint(r * stride)),
                        ),
                    ],
                ),
            };
            Expr::call(apply.clone(), vec![value, w])
        };
        (declare, Some(twiddled))
    }

    /// Copies `block_base + e` for e = tid, tid + block, ... into shared memory.
    fn staged_load(&self) -> Vec<Stmt> {
        self.staged_copy(self.rows_padding(), |e, slot| {
            let source = self.input_load(var("block_base").add(e));
            let mut out = vec![let_const(Type::Complex, "x", source)];
            out.extend(self.staging().store(slot, var("x")));
            out
        })
    }

    /// Copies the block's results from shared memory to `block_base + e`, scaled.
    fn staged_store(&self) -> Vec<Stmt> {
        self.staged_copy(Padding::NONE, |e, slot| {
            let value = self.scaled(self.staging().load(slot));
            vec![assign(self.output_element(var("block_base").add(e)), value)]
        })
    }

    /// The block's unit-stride walk over its slice of the batch: for each
    /// element `e` this thread moves that lies within the batch, `copy(e,
    /// slot)` with `slot` its place in shared memory (FFT `e / n` at the
    /// padded FFT stride, point `e % n`).
    fn staged_copy(&self, padding: Padding, copy: impl Fn(Expr, Expr) -> Vec<Stmt>) -> Vec<Stmt> {
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

    /// Complex element `index` of the output: where the output is cut
    /// into blocks for an exchange, at its blocked place.
    fn output_element(&self, index: Expr) -> Expr {
        var(self.buffers.output).at(blocked(index, self.pass.access.output_blocks))
    }

    /// Point `point` of an FFT at `base` in the output, its points
    /// `stride` apart: [`Self::output_element`] of `base + point stride`.
    fn output_point(&self, base: Expr, point: Expr, stride: usize) -> Expr {
        let blocks = self.pass.access.output_blocks;
        var(self.buffers.output).at(blocked_at(base, point, self.pass.n, stride, blocks))
    }

    /// `input[index]`, through the caches the plan chose.
    fn input_load(&self, index: Expr) -> Expr {
        self.cached(var(self.buffers.input).at(blocked(index, self.pass.access.input_blocks)))
    }

    /// Point `point` of an FFT at `base` in the input, its points `stride`
    /// apart: [`Self::input_load`] of `base + point stride`.
    fn input_point(&self, base: Expr, point: Expr, stride: usize) -> Expr {
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
    fn cached(&self, element: Expr) -> Expr {
        match self.pass.input_caching {
            InputCaching::L1AndL2 => element,
            InputCaching::L2Only => element.l2_only(),
        }
    }

    /// The output value with the normalisation applied.
    fn scaled(&self, value: Expr) -> Expr {
        if self.scale() == 1.0 {
            value
        } else {
            self.scaled_parts(value.clone().re(), value.im())
        }
    }

    /// The output value built from its parts, with the normalisation applied.
    fn scaled_parts(&self, re: Expr, im: Expr) -> Expr {
        let scale = self.scale();
        if scale == 1.0 {
            Expr::complex(re, im)
        } else {
            Expr::complex(re.mul(Expr::Real(scale)), im.mul(Expr::Real(scale)))
        }
    }

    /// One real part of an output with the normalisation applied.
    fn scaled_real(&self, part: Expr) -> Expr {
        match self.scale() {
            1.0 => part,
            scale => part.mul(Expr::Real(scale)),
        }
    }

    fn scale(&self) -> f64 {
        output_scale(self.plan, self.pass, self.direction)
    }

    /// The real step of a C2R kernel (the inverse of a real axis's pass).
    fn c2r(&self) -> Option<RealStep> {
        self.pass
            .real
            .filter(|r| self.direction == Direction::Inverse && r.end == RealEnd::Both)
    }

    /// The real step of an R2C kernel (the forward of a real axis's pass).
    fn r2c(&self) -> Option<RealStep> {
        self.pass
            .real
            .filter(|r| self.direction == Direction::Forward && r.end == RealEnd::Both)
    }

    /// Point `point` of FFT `fft` (whose start in the input is `base`): for
    /// the first pass of a long real axis the real (R2C) or the Hermitian
    /// spectrum's value rebuilt from the half spectrum (C2R), else as
    /// stored.
    fn load_point(&self, base: &str, fft: &str, point: Expr) -> Expr {
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
    fn store_point(&self, base: &str, fft: &str, point: Expr, value: Expr) -> Vec<Stmt> {
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
    fn paired_store(&self, base: &str, fft: &str, point: Expr, value: Expr) -> Vec<Stmt> {
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
    fn half_spectrum_store(
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
    fn mirrored_points(&self) -> bool {
        self.pass.real.is_some_and(|r| {
            r.hermitian_half
                && self.direction == Direction::Inverse
                && matches!(r.end, RealEnd::Stores(_))
        })
    }

    /// Whether this is an R2C's first pass whose FFTs of reals keep the
    /// outputs to n / 2 ([`RealStep::hermitian_half`]).
    fn keeps_half_of_each_fft(&self) -> bool {
        self.pass.real.is_some_and(|r| {
            r.hermitian_half
                && self.direction == Direction::Forward
                && matches!(r.end, RealEnd::Loads(_))
        })
    }

    /// Where point `point` of FFT `fft` (which starts at `base`) lies along
    /// Bluestein's row of M, on the side read (`reads`) or written: its
    /// index i along the row, where that row's point 0 is, and the stride
    /// between its points. On a pass of an FFT of M of several
    /// ([`Chirp::index`]), i = c + `points` p, c the coordinate of the
    /// index's column, whose stride is the axis's; else i = p.
    fn along_row(
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
    fn chirped_load(
        &self,
        chirp: Chirp,
        side: AxisSide,
        base: &str,
        fft: &str,
        point: Expr,
    ) -> Expr {
        let (j, row, stride) = self.along_row(chirp, base, fft, point, true);
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
    fn axis_point(
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
    /// ([`Pass::transform_pairs`]) has its second transform, 2t + 1 (the
    /// last pair of an odd batch has one).
    fn has_partner(&self, fft: &str) -> Expr {
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
    fn chirped_store(
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
            ChirpRole::Load { .. } => Some(chirp.table_offset + chirp.n),
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
        let (_, kept) = chirp.side_points();
        let back = Expr::select(uint(0).lt(k.clone()), uint(chirp.padded).sub(k), uint(0));
        let at = row.add(var("back").mul(uint(stride)));
        let y = self.chirp_product(value, uint(chirp.table_offset).add(var("back")));
        let keeps = match self.pass.real.map(|r| (r, r.end)) {
            // Every m-th point of an R2C's axis (the column's coordinate
            // c0 plus m times this one): kept within the half spectrum.
            Some((real, RealEnd::Stores(index))) if self.direction == Direction::Forward => {
                let c = var(format!("{fft}_c{}", index.column));
                c.add(var("back").mul(uint(index.points)))
                    .lt(uint(real.half_len()))
            }
            _ => var("back").lt(uint(kept)),
        };
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

    /// Stores `value` (scaled here) as the point at `at` of an axis that
    /// `side` holds (FFT `fft`'s).
    fn axis_store(&self, side: AxisSide, fft: &str, at: Expr, value: Expr) -> Vec<Stmt> {
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
    fn times_spectrum(
        &self,
        batches: &[usize],
        stride: usize,
        guard: &dyn Fn(usize, bool) -> Option<Expr>,
    ) -> Vec<Stmt> {
        let Some(chirp) = self.pass.chirp else {
            return Vec::new();
        };
        let spectrum = chirp.table_offset + chirp.n;
        let mut out = Vec::new();
        for &b in batches {
            let (j, v) = (var(format!("j{b}")), var(format!("v{b}")));
            let products = (0..self.pass.stages.last().map_or(0, |s| s.radix))
                .map(|r| {
                    let k = uint(spectrum).add(j.clone().add(uint(r * stride)));
                    assign(
                        v.clone().at(uint(r)),
                        self.chirp_product(v.clone().at(uint(r)), k),
                    )
                })
                .collect();
            out.extend(guarded(guard(b, false), products));
        }
        out
    }

    /// `value` times table entry `index` (conjugated in the inverse).
    fn chirp_product(&self, value: Expr, index: Expr) -> Expr {
        Expr::call(
            cmul_name(self.direction == Direction::Inverse, self.plan.precision),
            vec![value, var(TWIDDLES).at(index)],
        )
    }

    /// Real `index` of `buffer`: through its pointer to reals, or (in place,
    /// where the half spectrum overlays the reals) through its complex
    /// pointer cast to reals. A store to one part of a complex value would
    /// not do: a compiler may write both parts back (NVIDIA's OpenCL does),
    /// over the neighbour another thread wrote.
    fn real_load(&self, buffer: &str, real_pointer: bool, index: Expr) -> Expr {
        match real_pointer {
            true => var(buffer).at(index),
            false => var(buffer).cast(Type::GlobalReals).at(index),
        }
    }

    /// Stores `value` at real `index` of `buffer` (see [`Self::real_load`]).
    fn real_store(&self, buffer: &str, real_pointer: bool, index: Expr, value: Expr) -> Vec<Stmt> {
        vec![assign(self.real_load(buffer, real_pointer, index), value)]
    }

    /// The block's rows, `len` elements each, walked with unit stride: for
    /// each element `k` of row `walk_f` (FFT `walk_g` of the batch, which
    /// starts at `walk_in` and `walk_out`), `copy(k, slot)` with `slot`
    /// its place in shared memory. Consecutive threads take consecutive
    /// elements of a row whatever the lane layout and the strides between
    /// rows, so every row is one coalesced run.
    fn walk(&self, len: usize, copy: impl Fn(Expr, Expr) -> Vec<Stmt>) -> Vec<Stmt> {
        self.walk_padded(len, Padding::NONE, copy)
    }

    /// [`Self::walk`] with each FFT's points at their `padding`ed places in
    /// shared memory: where a pass of several axes stages its rows
    /// ([`Self::rows_padding`]), as the dense path's copy places them.
    fn walk_padded(
        &self,
        len: usize,
        padding: Padding,
        copy: impl Fn(Expr, Expr) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        match self.rows_by_fft() {
            true => self.walk_own_rows(len, padding, copy),
            false => self.walk_across_block(len, padding, copy),
        }
    }

    /// [`Self::walk`] where a warp's lanes share one FFT.
    fn walk_own_rows(
        &self,
        len: usize,
        padding: Padding,
        copy: impl Fn(Expr, Expr) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        let pass = self.pass;
        // A warp's lanes share one FFT: each thread walks its own row,
        // k = t, t + T, ..., with no division to find row and element.
        let t = pass.threads_per_fft;
        (0..len.div_ceil(t))
            .map(|i| {
                let k = var("walk_k");
                let mut cond = var("active");
                if (i + 1) * t > len {
                    cond = cond.and(k.clone().lt(uint(len)));
                }
                let mut inner = vec![
                    let_const(Type::Index, "walk_in", var("in_base")),
                    let_const(Type::Index, "walk_out", var("out_base")),
                    let_const(Type::Uint, "walk_f", var("fft_local")),
                ];
                if self.paired() {
                    inner.extend([
                        let_const(Type::Index, "walk_in_y", var("in_base_y")),
                        let_const(Type::Index, "walk_out_y", var("out_base_y")),
                        let_const(Type::Bool, "walk_has_y", var("fft_has_y")),
                    ]);
                }
                inner.extend(copy(k.clone(), var("region").add(padded(k, padding))));
                Stmt::Scope(vec![
                    let_const(Type::Uint, "walk_k", var("t").add(uint(i * t))),
                    Stmt::If(cond, inner),
                ])
            })
            .collect()
    }

    /// [`Self::walk`] where a warp's lanes hold different FFTs: the block's
    /// elements in turn, each locating its row.
    fn walk_across_block(
        &self,
        len: usize,
        padding: Padding,
        copy: impl Fn(Expr, Expr) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        let pass = self.pass;
        let (m, block) = (pass.ffts_per_block, pass.threads_per_block);
        let count = m * len;
        (0..count.div_ceil(block))
            .map(|i| {
                let e = var(format!("e{i}"));
                let mut cond = var("walk_g").lt(var("walk_ffts"));
                if (i + 1) * block > count {
                    cond = e.clone().lt(uint(count)).and(cond);
                }
                let mut inner = self.locate_rows("walk_g", ("walk_in", "walk_out"), "walk_has_y");
                let slot = var("walk_f")
                    .mul(uint(pass.fft_stride))
                    .add(padded(var("walk_k"), padding));
                inner.extend(copy(var("walk_k"), slot));
                Stmt::Scope(vec![
                    let_const(Type::Uint, format!("e{i}"), var("tid").add(uint(i * block))),
                    let_const(Type::Uint, "walk_f", e.clone().div(uint(len))),
                    let_const(Type::Uint, "walk_k", e.rem(uint(len))),
                    let_const(
                        Type::Index,
                        "walk_g",
                        Expr::Builtin(Builtin::BlockIndex)
                            .cast(Type::Index)
                            .mul(uint(m))
                            .add(var("walk_f")),
                    ),
                    Stmt::If(cond, inner),
                ])
            })
            .collect()
    }

    /// Whether an R2C's paired rows of reals follow each other with unit
    /// stride, so the block's rows are one run ([`Self::walk_pairs`]), in
    /// an FFT of at most two stages. Measured on an H100 (R2C, cuFFT/ours):
    /// 13 0.81 -> 0.98, 15 0.89 -> 0.95, 63 0.89 -> 0.94, 99 0.98 -> 1.11,
    /// 375 1.66 -> 1.78, 35 and 45 2% slower; 275 (three stages over 25
    /// threads) lost 17%, not profiled. Stores stay row by row: a run's
    /// store of the half spectra needs both rows' values, and lost 5-20%
    /// (C2R's real parts 5-15%). f32 only: in f64 the walk ran fast (R2C
    /// 17 0.58 -> 0.97x, 31 0.58 -> 1.23x) but ptxas spilled past the
    /// suite's limit for sm_90 (225: 36 bytes, 13: 40, 23: 44), and the
    /// form that did not spill (the load in a select) ran at a fifth of
    /// the speed (f32 13 0.98 -> 0.57x, f64 17 0.97 -> 0.26x).
    fn paired_reals_in_one_run(&self) -> bool {
        // Odd N: X[0] alone is its own mirror (merged_staged_point).
        self.paired()
            && self.plan.precision == Precision::F32
            && self.pass.n % 2 == 1
            && self.pass.stages.len() <= 2
            && self.direction == Direction::Forward
            && !self.rows_by_fft()
            && self.pass.access.input_is_dense(self.pass.n)
    }

    /// Whether a C2R's paired rows read their half spectra as one run
    /// ([`Self::paired_half_spectra_run_walk`]): as the R2C's reals
    /// ([`Self::paired_reals_in_one_run`]), where each FFT's region holds
    /// both rows' half spectra; the first stage merges them.
    fn paired_half_spectra_in_one_run(&self) -> bool {
        let Some(real) = self.c2r() else {
            return false;
        };
        // Odd N: X[0] alone is its own mirror (merged_staged_point).
        self.paired()
            && self.plan.precision == Precision::F32
            && self.pass.n % 2 == 1
            && self.pass.stages.len() <= 2
            && !self.rows_by_fft()
            && self.pass.fft_stride >= 2 * real.half_len()
            && self.pass.access.input_is_dense(real.half_len())
    }

    /// A C2R's paired rows' half spectra X and Y as they are, the block's
    /// rows one run (one coalesced load a thread): FFT f's region holds X
    /// from its start, Y from N / 2 + 1 on (0 past the last row).
    fn paired_half_spectra_run_walk(&self, real: RealStep) -> Vec<Stmt> {
        let half = real.half_len();
        self.walk_pairs(half, |row_y, exists, at, slot| {
            let zero = Expr::complex(Expr::Real(0.0), Expr::Real(0.0));
            let mut out = vec![Stmt::Let {
                ty: Type::Complex,
                name: "v".into(),
                init: zero,
                constant: false,
            }];
            out.push(Stmt::If(
                exists,
                vec![assign(var("v"), self.input_load(at))],
            ));
            out.extend(Self::store_shared(
                slot.add(row_y.mul(uint(half))),
                var("v").re(),
                var("v").im(),
            ));
            out
        })
    }

    /// Input `point` of a C2R's FFT of paired rows from their half spectra
    /// staged as they are ([`Self::paired_half_spectra_run_walk`]) into
    /// `target`: Z[p] = X[p] + i Y[p] below N / 2 + 1, conj X[N - p] + i
    /// conj Y[N - p] above (X[0] and Y[0] real, as numpy's irfft has them).
    fn merged_staged_point(&self, real: RealStep, point: Expr, target: Expr) -> Vec<Stmt> {
        let (n, half) = (self.pass.n, real.half_len());
        let at = |index: Expr| {
            Expr::complex(
                var("shared_re").at(var("region").add(index.clone())),
                var("shared_im").at(var("region").add(index)),
            )
        };
        let zero = Expr::Real(0.0);
        let low = var("p").lt(uint(half));
        let [p, q] = mirrored_index(point, n, low.clone());
        vec![
            p,
            q,
            let_const(Type::Complex, "a", at(var("q"))),
            let_const(Type::Complex, "b", at(var("q").add(uint(half)))),
            // Odd N: only X[0] and Y[0] are their own mirrors.
            let_const(
                Type::Real,
                "ai",
                Expr::select(uint(0).lt(var("q")), var("a").im(), zero.clone()),
            ),
            let_const(
                Type::Real,
                "bi",
                Expr::select(uint(0).lt(var("q")), var("b").im(), zero),
            ),
            assign(target, merged_point(low, var("a").re(), var("b").re())),
        ]
    }

    /// The block's 2m paired rows of `len` elements as one run with unit
    /// stride (rows 2f and 2f + 1 of the block are FFT f's x and y): for
    /// each element, `copy(row_y, exists, at, slot)` with `row_y` 1 on row
    /// y, `exists` whether its row is in the batch, `at` its index in the
    /// buffer and `slot` its place in FFT f's shared row (`walk_k` holds
    /// its element of the row). One coalesced access a thread, where
    /// [`Self::walk`] takes two half-used ones and locates both rows.
    fn walk_pairs(
        &self,
        len: usize,
        copy: impl Fn(Expr, Expr, Expr, Expr) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        let pass = self.pass;
        let (rows, block) = (2 * pass.ffts_per_block, pass.threads_per_block);
        let count = rows * len;
        let start = Expr::Builtin(Builtin::BlockIndex)
            .cast(Type::Index)
            .mul(uint(count));
        let first_row = Expr::Builtin(Builtin::BlockIndex)
            .cast(Type::Index)
            .mul(uint(rows));
        (0..count.div_ceil(block))
            .map(|i| {
                let e = var(format!("e{i}"));
                let row = var("walk_row");
                let slot = row
                    .clone()
                    .div(uint(2))
                    .mul(uint(pass.fft_stride))
                    .add(var("walk_k"));
                let mut inner = vec![
                    let_const(Type::Uint, "walk_row", e.clone().div(uint(len))),
                    let_const(Type::Uint, "walk_k", e.clone().rem(uint(len))),
                ];
                inner.extend(copy(
                    row.clone().rem(uint(2)),
                    first_row.clone().add(row).lt(var("rows")),
                    start.clone().add(e.clone()),
                    slot,
                ));
                let mut body = vec![let_const(
                    Type::Uint,
                    format!("e{i}"),
                    var("tid").add(uint(i * block)),
                )];
                match (i + 1) * block > count {
                    true => body.push(Stmt::If(e.lt(uint(count)), inner)),
                    false => body.extend(inner),
                }
                Stmt::Scope(body)
            })
            .collect()
    }

    /// Whether the rows of a real step's staged ends are walked FFT by FFT
    /// (a warp's lanes in one FFT) rather than across the block's rows.
    fn rows_by_fft(&self) -> bool {
        self.pass.real.is_some_and(|r| r.end == RealEnd::Both)
            && self.pass.lanes == LaneLayout::FftMajor
    }

    /// The walk that fills shared memory: whole rows of the input (for a
    /// C2R the half spectrum, N / 2 + 1 values; for paired rows the two
    /// rows' reals as real and imaginary parts, or their half spectra
    /// merged into the whole spectrum of N, Z = X + i Y).
    fn walk_load(&self) -> Vec<Stmt> {
        if let Some((fused, rows)) = self.whole_real_shape() {
            return match self.direction {
                Direction::Forward => self.whole_shape_reals_walk(fused, rows),
                Direction::Inverse => self.whole_shape_merge_walk(fused, rows),
            };
        }
        match self.c2r() {
            _ if self.paired() && self.direction == Direction::Forward => {
                match self.paired_reals_in_one_run() {
                    true => self.paired_reals_run_walk(),
                    false => self.paired_reals_walk(),
                }
            }
            Some(real) if self.paired_half_spectra_in_one_run() => {
                self.paired_half_spectra_run_walk(real)
            }
            Some(real) if self.paired() => self.merged_rows_walk(real),
            Some(real) => self.values_load_walk(real.half_len()),
            None => self.values_load_walk(self.pass.n),
        }
    }

    /// Point `k` of the walk's row at `base` (`walk_in` or `walk_in_y`), on
    /// the input's stride.
    fn walk_in(&self, base: &str, k: Expr) -> Expr {
        var(base).add(strided(k, self.pass.access.input_stride))
    }

    /// `y`, of type `ty`: `value` where the walk has a second row, else
    /// `zero` (past the last row).
    fn row_y(value: Expr, ty: Type, zero: Expr) -> Vec<Stmt> {
        vec![
            Stmt::Let {
                ty,
                name: "y".into(),
                init: zero,
                constant: false,
            },
            Stmt::If(var("walk_has_y"), vec![assign(var("y"), value)]),
        ]
    }

    /// Stores `re` and `im` at `slot` of shared memory.
    fn store_shared(slot: Expr, re: Expr, im: Expr) -> Vec<Stmt> {
        vec![
            assign(var("shared_re").at(slot.clone()), re),
            assign(var("shared_im").at(slot), im),
        ]
    }

    /// Paired R2C rows read as one run: row x's reals the real parts, row
    /// y's the imaginary (0 past the last row).
    fn paired_reals_run_walk(&self) -> Vec<Stmt> {
        let input = self.buffers.input;
        self.walk_pairs(self.pass.n, |row_y, exists, at, slot| {
            let value = self.real_load(input, self.real_input, at);
            vec![
                Stmt::Let {
                    ty: Type::Real,
                    name: "v".into(),
                    init: Expr::Real(0.0),
                    constant: false,
                },
                Stmt::If(exists, vec![assign(var("v"), value)]),
                Stmt::If(
                    row_y.clone().lt(uint(1)),
                    vec![assign(var("shared_re").at(slot.clone()), var("v"))],
                ),
                Stmt::If(
                    uint(0).lt(row_y),
                    vec![assign(var("shared_im").at(slot), var("v"))],
                ),
            ]
        })
    }

    /// Paired R2C rows read row by row, point by point: row x's reals the
    /// real parts, row y's the imaginary.
    fn paired_reals_walk(&self) -> Vec<Stmt> {
        let input = self.buffers.input;
        self.walk(self.pass.n, |k, slot| {
            let load = |base| self.real_load(input, self.real_input, self.walk_in(base, k.clone()));
            let mut out = Self::row_y(load("walk_in_y"), Type::Real, Expr::Real(0.0));
            out.extend(Self::store_shared(slot, load("walk_in"), var("y")));
            out
        })
    }

    /// Paired C2R rows: two rows' half spectra X and Y merged into Z[k] =
    /// X[k] + i Y[k] and its mirror Z[N - k] = conj X[k] + i conj Y[k].
    fn merged_rows_walk(&self, real: RealStep) -> Vec<Stmt> {
        let n = self.pass.n;
        self.walk(real.half_len(), |k, slot| {
            let zero = Expr::complex(Expr::Real(0.0), Expr::Real(0.0));
            let mut out = vec![let_const(
                Type::Complex,
                "a",
                self.input_load(self.walk_in("walk_in", k.clone())),
            )];
            out.extend(Self::row_y(
                self.input_load(self.walk_in("walk_in_y", k.clone())),
                Type::Complex,
                zero,
            ));
            // X[0] (and X[N / 2] of an even N) are real in a Hermitian
            // spectrum, their own mirrors: their imaginary parts are
            // ignored, as numpy's irfft does.
            let mirrored = uint(0)
                .lt(k.clone())
                .and(k.clone().mul(uint(2)).lt(uint(n)));
            out.extend([
                let_const(Type::Bool, "mirrored", mirrored),
                let_const(
                    Type::Real,
                    "ai",
                    Expr::select(var("mirrored"), var("a").im(), Expr::Real(0.0)),
                ),
                let_const(
                    Type::Real,
                    "bi",
                    Expr::select(var("mirrored"), var("y").im(), Expr::Real(0.0)),
                ),
            ]);
            // Z[k] = X[k] + i Y[k], Z[N - k] = conj X[k] + i conj Y[k].
            out.extend(Self::store_shared(
                slot.clone(),
                var("a").re().sub(var("bi")),
                var("ai").add(var("y").re()),
            ));
            let mirror = slot.add(uint(n)).sub(k.mul(uint(2)));
            out.push(Stmt::If(
                var("mirrored"),
                Self::store_shared(
                    mirror,
                    var("a").re().add(var("bi")),
                    var("y").re().sub(var("ai")),
                ),
            ));
            out
        })
    }

    /// The first `len` values of each FFT (a C2R's half spectrum, else all
    /// of them) as they are, at the places a pass of several axes stages
    /// its rows.
    fn values_load_walk(&self, len: usize) -> Vec<Stmt> {
        self.walk_padded(len, self.rows_padding(), |k, slot| {
            let mut out = vec![let_const(
                Type::Complex,
                "x",
                self.input_load(self.walk_in("walk_in", k)),
            )];
            out.extend(Self::store_shared(slot, var("x").re(), var("x").im()));
            out
        })
    }

    /// The walk that empties shared memory (the FFTs' outputs in natural
    /// order) to the output: for an R2C the half spectrum, split from the
    /// half-length FFT's Z[k] and Z[M - k] or separated into two rows' from
    /// paired rows' Z[k] and Z[N - k]; for a C2R of paired rows the real
    /// and imaginary parts; else the values as they are.
    fn walk_store(&self) -> Vec<Stmt> {
        if let Some(chirp) = self.pass.chirp.filter(|c| {
            c.role
                == ChirpRole::Store {
                    side: AxisSide::PairedHalfSpectra,
                }
        }) {
            return self.separated_chirp_walk(chirp);
        }
        if let Some((fused, rows)) = self.whole_real_shape() {
            return match self.direction {
                Direction::Forward => self.whole_shape_separate_walk(fused, rows),
                Direction::Inverse => self.whole_shape_real_parts_walk(fused, rows),
            };
        }
        match (self.r2c(), self.c2r()) {
            (Some(real), _) if real.route == RealRoute::HalfLength && self.rows_by_fft() => {
                self.split_by_pairs_walk(real)
            }
            (Some(real), _) if real.route == RealRoute::HalfLength => self.split_walk(real),
            (Some(real), _) => self.separated_rows_walk(real),
            (_, Some(real)) if real.route == RealRoute::PairedRows => self.paired_real_parts_walk(),
            _ => self.values_walk(),
        }
    }

    /// Value `index` of the walk's FFT `walk_f` in shared memory.
    fn walk_shared(&self, index: Expr) -> Expr {
        let at = var("walk_f").mul(uint(self.pass.fft_stride)).add(index);
        Expr::complex(var("shared_re").at(at.clone()), var("shared_im").at(at))
    }

    /// The half-length split walked by pairs: Z[k] and Z[M - k] give X[k]
    /// and X[M - k] (w_N^(M - k) = -conj w_N^k), one twiddle and two shared
    /// loads for two outputs.
    fn split_by_pairs_walk(&self, real: RealStep) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        let n = self.pass.n;
        let at = |k: Expr| var("walk_out").add(strided(k, stride));
        let shared = |index: Expr| self.walk_shared(index);
        let offset = real
            .twiddle_offset
            .expect("a half-length step has its twiddles");
        self.walk(n / 2 + 1, |k, _| {
            let mirror = Expr::select(uint(0).lt(k.clone()), uint(n).sub(k.clone()), uint(0));
            let loads = vec![
                let_const(Type::Complex, "zk", shared(k.clone())),
                let_const(Type::Complex, "zm", shared(mirror)),
                let_const(
                    Type::Complex,
                    "wk",
                    var(TWIDDLES).at(uint(offset).add(k.clone())),
                ),
            ];
            let mut low = split(var("zk"), var("zm"), var("wk"));
            low.push(assign(
                self.output_element(at(k.clone())),
                self.scaled(var("x")),
            ));
            let mut high = split(
                var("zm"),
                var("zk"),
                Expr::complex(var("wk").re().neg(), var("wk").im()),
            );
            high.push(assign(
                self.output_element(at(uint(n).sub(k))),
                self.scaled(var("x")),
            ));
            let mut out = loads;
            out.extend([Stmt::Scope(low), Stmt::Scope(high)]);
            out
        })
    }

    /// The half-length split walked value by value: X[k] from Z[k] and
    /// Z[M - k].
    fn split_walk(&self, real: RealStep) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        let n = self.pass.n;
        let at = |k: Expr| var("walk_out").add(strided(k, stride));
        let shared = |index: Expr| self.walk_shared(index);
        let offset = real
            .twiddle_offset
            .expect("a half-length step has its twiddles");
        self.walk(real.half_len(), |k, _| {
            let mut out = split(
                shared(k.clone().rem(uint(n))),
                shared(uint(n).sub(k.clone()).rem(uint(n))),
                var(TWIDDLES).at(uint(offset).add(k.clone())),
            );
            out.push(assign(self.output_element(at(k)), self.scaled(var("x"))));
            out
        })
    }

    /// Paired rows' half spectra: Z[k] and Z[N - k] give the rows' X[k] =
    /// (Z[k] + conj Z[N - k]) / 2 and Y[k] = (Z[k] - conj Z[N - k]) / 2i.
    fn separated_rows_walk(&self, real: RealStep) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        let n = self.pass.n;
        let at = |k: Expr| var("walk_out").add(strided(k, stride));
        let at_y = |k: Expr| var("walk_out_y").add(strided(k, stride));
        self.walk(real.half_len(), |k, slot| {
            let staged = |slot: Expr| {
                Expr::complex(var("shared_re").at(slot.clone()), var("shared_im").at(slot))
            };
            let mirror = Expr::select(
                uint(0).lt(k.clone()),
                slot.clone().add(uint(n)).sub(k.clone().mul(uint(2))),
                slot.clone(),
            );
            let mut out = vec![
                let_const(Type::Complex, "zk", staged(slot)),
                let_const(Type::Complex, "zm", staged(mirror)),
            ];
            out.extend(self.separated_stores(at(k.clone()), at_y(k)));
            out
        })
    }

    /// The R2C's two half spectra of a pair of transforms from the second
    /// FFT of Bluestein's algorithm in shared memory (one block holds the
    /// row of M): Z[j] = c[j] A[(M - j) mod M] at j = k and (N - k) mod N,
    /// separated into X[k] (transform 2t) and Y[k] (2t + 1, half the
    /// distance further, where the batch has it) for k to N / 2.
    fn separated_chirp_walk(&self, chirp: Chirp) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        let partner = self.pass.access.output_distance / 2;
        let (n, m) = (chirp.n, chirp.padded);
        let fft = match self.rows_by_fft() {
            true => "fft",
            false => "walk_g",
        };
        self.walk(n / 2 + 1, |k, _| {
            let z = |j: Expr| {
                let back = Expr::select(uint(0).lt(j.clone()), uint(m).sub(j.clone()), uint(0));
                self.chirp_product(self.walk_shared(back), uint(chirp.table_offset).add(j))
            };
            let mirror = Expr::select(uint(0).lt(k.clone()), uint(n).sub(k.clone()), uint(0));
            let at = var("walk_out").add(strided(k.clone(), stride));
            let mut out = vec![
                let_const(Type::Bool, "walk_has_y", self.has_partner(fft)),
                let_const(Type::Complex, "zk", z(k)),
                let_const(Type::Complex, "zm", z(mirror)),
            ];
            out.extend(self.separated_stores(at.clone(), at.add(uint(partner))));
            out
        })
    }

    /// The stores of two rows' X[k] = (Z[k] + conj Z[-k]) / 2 at `x` and,
    /// where the walk has a second row, Y[k] = (Z[k] - conj Z[-k]) / 2i at
    /// `y`, from `zk` and `zm` (Z[k] and Z[-k]), scaled.
    fn separated_stores(&self, x: Expr, y: Expr) -> Vec<Stmt> {
        let half = |value: Expr| value.mul(Expr::Real(0.5 * self.scale()));
        let (zk, zm) = (var("zk"), var("zm"));
        vec![
            assign(
                self.output_element(x),
                Expr::complex(
                    half(zk.clone().re().add(zm.clone().re())),
                    half(zk.clone().im().sub(zm.clone().im())),
                ),
            ),
            Stmt::If(
                var("walk_has_y"),
                vec![assign(
                    self.output_element(y),
                    Expr::complex(
                        half(zk.clone().im().add(zm.clone().im())),
                        half(zm.re().sub(zk.re())),
                    ),
                )],
            ),
        ]
    }

    /// A C2R's paired rows: the real parts are row x's, the imaginary row y's.
    fn paired_real_parts_walk(&self) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        let n = self.pass.n;
        let at = |k: Expr| var("walk_out").add(strided(k, stride));
        let at_y = |k: Expr| var("walk_out_y").add(strided(k, stride));
        let output = self.buffers.output;
        self.walk(n, |k, slot| {
            let scaled = |value: Expr| self.scaled_real(value);
            let mut out = self.real_store(
                output,
                self.real_output,
                at(k.clone()),
                scaled(var("shared_re").at(slot.clone())),
            );
            out.push(Stmt::If(
                var("walk_has_y"),
                self.real_store(
                    output,
                    self.real_output,
                    at_y(k),
                    scaled(var("shared_im").at(slot)),
                ),
            ));
            out
        })
    }

    /// The values as they are.
    fn values_walk(&self) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        let n = self.pass.n;
        let at = |k: Expr| var("walk_out").add(strided(k, stride));
        self.walk(n, |k, slot| {
            let value = Expr::complex(var("shared_re").at(slot.clone()), var("shared_im").at(slot));
            vec![assign(self.output_element(at(k)), self.scaled(value))]
        })
    }

    /// Input `point` of a half-length C2R's FFT, built from the half
    /// spectrum of this thread's row in shared memory into `target`: the
    /// merge Z'[p] = (X[p] + conj X[M-p]) + i conj(w_N^p) (X[p] - conj
    /// X[M-p]) (twice Z[p], so the inverse needs no scale).
    fn c2r_point(&self, real: RealStep, point: Expr, target: Expr) -> Vec<Stmt> {
        let at = |index: Expr| {
            Expr::complex(
                var("shared_re").at(var("region").add(index.clone())),
                var("shared_im").at(var("region").add(index)),
            )
        };
        let offset = real
            .twiddle_offset
            .expect("a half-length step has its twiddles");
        let m = self.pass.n;
        vec![
            let_const(Type::Uint, "p", point),
            let_const(Type::Complex, "a", at(var("p"))),
            let_const(Type::Complex, "b", at(uint(m).sub(var("p")))),
            let_const(
                Type::Complex,
                "w",
                var(TWIDDLES).at(uint(offset).add(var("p"))),
            ),
            // X[0] and X[M] are real in a Hermitian spectrum: their
            // imaginary parts are ignored, as numpy's irfft does.
            let_const(
                Type::Real,
                "ai",
                Expr::select(uint(0).lt(var("p")), var("a").im(), Expr::Real(0.0)),
            ),
            let_const(
                Type::Real,
                "bi",
                Expr::select(uint(0).lt(var("p")), var("b").im(), Expr::Real(0.0)),
            ),
        ]
        .into_iter()
        .chain(merge(target))
        .collect()
    }

    /// One radix-R stage for all of this thread's butterflies: their
    /// registers, then each butterfly's reads, twiddles and DFT, then the
    /// writes to the next stage or out of the kernel.
    fn stage(&self, s: usize, stage: &Stage, input_padding: Padding) -> Vec<Stmt> {
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
    fn stage_registers(&self, s: usize, stage: &Stage) -> Vec<Stmt> {
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
    fn stage_guard(&self, stage: &Stage, b: usize, direct: bool) -> Option<Expr> {
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
    fn butterfly(
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
    fn butterfly_inputs(
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
    fn global_input(&self, index: Expr, target: Expr) -> Vec<Stmt> {
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
    fn staged_input(&self, index: Expr, target: Expr, staged: Expr) -> Vec<Stmt> {
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
    fn butterfly_twiddles(&self, stage: &Stage, b: usize) -> Vec<Stmt> {
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
    fn write_to_shared(
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
    fn stage_writes(&self, s: usize, stage: &Stage, direct_in: bool) -> Vec<Stmt> {
        if s + 1 != self.pass.stages.len() {
            return self.exchange_writes(s, stage, direct_in);
        }
        if self.segment == Segment::FirstOfTwo {
            return self.spectrum_product_writes(s, stage);
        }
        self.last_stage_writes(s, stage)
    }

    /// A stage's writes to the exchange the next stage reads.
    fn exchange_writes(&self, s: usize, stage: &Stage, direct_in: bool) -> Vec<Stmt> {
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
    fn spectrum_product_writes(&self, s: usize, stage: &Stage) -> Vec<Stmt> {
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
    fn last_stage_writes(&self, s: usize, stage: &Stage) -> Vec<Stmt> {
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

/// The shared arrays one exchange goes through: real and imaginary parts
/// apart, or whole complex values ([`ExchangeWidth::Interleaved`]).
enum ExchangeArrays {
    Parts(String, String),
    Interleaved(String),
}

impl ExchangeArrays {
    /// The complex value at `at`.
    fn load(&self, at: Expr) -> Expr {
        match self {
            ExchangeArrays::Parts(re, im) => Expr::complex(var(re).at(at.clone()), var(im).at(at)),
            ExchangeArrays::Interleaved(values) => var(values).at(at),
        }
    }

    /// Stores `value` at `at`.
    fn store(&self, at: Expr, value: Expr) -> Vec<Stmt> {
        match self {
            ExchangeArrays::Parts(re, im) => vec![
                assign(var(re).at(at.clone()), value.clone().re()),
                assign(var(im).at(at), value.im()),
            ],
            ExchangeArrays::Interleaved(values) => vec![assign(var(values).at(at), value)],
        }
    }
}

/// Decomposes FFT `fft` (an index variable) into the columns of `access`
/// (`{fft}_c0`, ...) and the transform of the batch, and declares where it
/// starts in the input and the output.
/// The tile of mirrored columns of an R2C's [`RealEnd::Mirrored`] pass:
/// slot `tile_f` of the block whose first slot is `block_fft` is slot r
/// of row `tile_q`, which holds column u = r / 2 (r even) or C - u (r odd;
/// C / 2 for u = 0 and even C, nothing for odd C), declared as the FFT
/// `tile_fft` that [`locate`] places.
fn mirrored_tile(mirrored: MirroredColumns, block_fft: Expr) -> Vec<Stmt> {
    let (c, slots) = (mirrored.columns, mirrored.slots());
    let within = var("tile_g").lt(var("batch").cast(Type::Index).mul(uint(slots)));
    let high = match c % 2 {
        0 => Expr::select(
            var("tile_u").lt(uint(1)),
            uint(c / 2),
            uint(c).sub(var("tile_u")),
        ),
        _ => uint(c).sub(var("tile_u")).rem(uint(c)),
    };
    let active = match c % 2 {
        0 => within,
        // Slot 1 of a row of odd C is idle.
        _ => Expr::select(
            var("tile_r").lt(uint(1)),
            within.clone(),
            uint(1).lt(var("tile_r")).and(within),
        ),
    };
    vec![
        let_const(Type::Index, "tile_g", block_fft.add(var("tile_f"))),
        let_const(Type::Index, "tile_q", var("tile_g").div(uint(slots))),
        let_const(
            Type::Uint,
            "tile_r",
            var("tile_g").rem(uint(slots)).cast(Type::Uint),
        ),
        let_const(Type::Uint, "tile_u", var("tile_r").div(uint(2))),
        let_const(Type::Uint, "tile_side", var("tile_r").rem(uint(2))),
        let_const(
            Type::Index,
            "tile_fft",
            var("tile_q").mul(uint(c)).add(
                Expr::select(var("tile_side").lt(uint(1)), var("tile_u"), high).cast(Type::Index),
            ),
        ),
        let_const(Type::Bool, "tile_active", active),
    ]
}

/// The arrays that stage `s` writes for stage `s + 1` (and that stage
/// `s + 1` reads): one set for every stage, or set `s % 2` with
/// [`ExchangeBuffers::Alternating`]. Stage 0 reads shared memory only when
/// the input is staged there, which only reused two-part arrays allow.
fn exchange_arrays(pass: &Pass, s: usize) -> ExchangeArrays {
    let set = match pass.exchange_buffers {
        ExchangeBuffers::Reused => String::new(),
        ExchangeBuffers::Alternating => (s % 2).to_string(),
    };
    match pass.exchange_width {
        ExchangeWidth::Interleaved => ExchangeArrays::Interleaved(format!("shared_values{set}")),
        _ => ExchangeArrays::Parts(format!("shared_re{set}"), format!("shared_im{set}")),
    }
}

/// Registers that carry stage `s`'s inputs, butterfly `b`, across the
/// exchange before it ([`ExchangeWidth::OnePartAtATime`]).
fn incoming(s: usize, b: usize) -> String {
    format!("incoming{s}_{b}")
}

/// `point * stride` as a 64-bit offset (strides of large transforms
/// overflow 32 bits).
fn strided(point: Expr, stride: usize) -> Expr {
    match stride {
        1 => point,
        _ => point.cast(Type::Index).mul(uint(stride)),
    }
}

/// `p` = `point` of a C2R's FFT of N = `n` points and `q` the point of the
/// half spectrum that holds it: p itself where `low` (p below N / 2 + 1),
/// else its mirror N - p ([`merged_point`] conjugates those).
fn mirrored_index(point: Expr, n: usize, low: Expr) -> [Stmt; 2] {
    [
        let_const(Type::Uint, "p", point),
        let_const(
            Type::Uint,
            "q",
            Expr::select(low, var("p"), uint(n).sub(var("p"))),
        ),
    ]
}

/// Point p of the complex FFT of two paired rows from their half spectra
/// X and Y: X[p] + i Y[p] where `low` (p below N / 2 + 1), else
/// conj X[N - p] + i conj Y[N - p]; `a_re` and `b_re` are the real parts of
/// the X and Y values read, `ai` and `bi` their imaginary parts (0 where
/// the value is its own mirror), in scope as those names.
fn merged_point(low: Expr, a_re: Expr, b_re: Expr) -> Expr {
    Expr::complex(
        Expr::select(
            low.clone(),
            a_re.clone().sub(var("bi")),
            a_re.add(var("bi")),
        ),
        Expr::select(low, var("ai").add(b_re.clone()), b_re.sub(var("ai"))),
    )
}

/// Natural element `index` of a buffer cut into `blocks` (if it is) at its
/// blocked place ([`Blocks::place`], every divisor a constant).
fn blocked(index: Expr, blocks: Option<Blocks>) -> Expr {
    let Some(blocks) = blocks.filter(|b| !b.is_identity()) else {
        return index;
    };
    let index = index.cast(Type::Index);
    let natural = blocks.natural_elements();
    let t = index.clone().div(uint(natural));
    let w = match u32::try_from(blocks.transform_elements()) {
        Ok(_) => index.rem(uint(natural)).cast(Type::Uint),
        // (No transform is this large; its place stays in 64 bits.)
        Err(_) => index.rem(uint(natural)),
    };
    t.mul(uint(blocks.transform_elements()))
        .add(place_within(w, blocks))
}

/// [`blocked`] of point `point` (a uint) of an FFT of `n` points `stride`
/// elements apart that starts at `base`. Every point of an FFT lies in the
/// transform of the batch that its start does, so only the start takes
/// 64-bit divisions (once per FFT), each point's place within the
/// transform (fewer than 2^32 elements) 32-bit ones. An FFT along the cut
/// axis itself starts at its first point and crosses the blocks: its
/// point k lies in block k / q, k % q into it, past the start's place.
fn blocked_at(base: Expr, point: Expr, n: usize, stride: usize, blocks: Option<Blocks>) -> Expr {
    let Some(blocks) = blocks.filter(|b| !b.is_identity()) else {
        return base.add(strided(point, stride));
    };
    let (natural, whole) = (blocks.natural_elements(), blocks.transform_elements());
    if u32::try_from(whole).is_err() {
        return blocked(base.add(strided(point, stride)), Some(blocks));
    }
    let base = base.cast(Type::Index);
    let t = base.clone().div(uint(natural));
    let w = base.rem(uint(natural)).cast(Type::Uint);
    if (n, stride) == (blocks.len, blocks.stride) {
        let q = blocks.part_len();
        let step = point
            .clone()
            .div(uint(q))
            .mul(uint(blocks.block_elements()))
            .add(point.rem(uint(q)).mul(uint(stride)));
        return t.mul(uint(whole)).add(place_within(w, blocks)).add(step);
    }
    t.mul(uint(whole))
        .add(place_within(w.add(point.mul(uint(stride))), blocks))
}

/// The place of element `w` (a uint) of one transform of a buffer cut
/// into `blocks` within that transform's blocks.
fn place_within(w: Expr, blocks: Blocks) -> Expr {
    let q = blocks.part_len();
    let (lo, u) = match blocks.stride {
        1 => (None, w),
        s => (Some(w.clone().rem(uint(s))), w.div(uint(s))),
    };
    let (i, h) = (u.clone().rem(uint(blocks.len)), u.div(uint(blocks.len)));
    let within = i
        .clone()
        .div(uint(q))
        .mul(uint(blocks.block_elements()))
        .add(h.mul(uint(q * blocks.stride)))
        .add(i.rem(uint(q)).mul(uint(blocks.stride)));
    match lo {
        Some(lo) => within.add(lo),
        None => within,
    }
}

/// `index` with `padding` applied.
fn padded(index: Expr, padding: Padding) -> Expr {
    if padding.is_none() {
        index
    } else {
        Expr::call(PAD, vec![index, uint(padding.period), uint(padding.gap)])
    }
}

/// `body` under `cond`, or unconditionally when there is none.
fn guarded(cond: Option<Expr>, body: Vec<Stmt>) -> Vec<Stmt> {
    match cond {
        Some(c) => vec![Stmt::If(c, body)],
        None => body,
    }
}

#[cfg(test)]
mod tests {
    use crate::expr::constant::root_of_unity_f64;
    use crate::plan::{
        ExchangeBuffers, ExchangeWidth, FirstWrite, ShapeChoices, StageTwiddles, TwiddleTables,
    };
    use crate::{Direction, FftSpec, Precision, Target};

    /// Each large stage's fine and coarse entries multiply to every twiddle
    /// `w_span^(p r)` it reads, and the table holds exactly the entries the
    /// stages' offsets and lengths say.
    #[test]
    fn fine_times_coarse_gives_every_stage_twiddle() {
        for (n, precision) in [
            (24576, Precision::F32),
            (12000, Precision::F32),
            (6561, Precision::F64),
        ] {
            let spec = FftSpec::new(n)
                .precision(precision)
                .target(Target::H200)
                .choices(ShapeChoices {
                    twiddle_tables: Some(TwiddleTables::SplitLarge),
                    ..ShapeChoices::default()
                });
            let plan = crate::plan::plan(&spec).unwrap();
            let pass = &plan.passes[0];
            let table = super::twiddle_table(pass);
            let mut split = 0;
            for stage in &pass.stages {
                let (Some(offset), StageTwiddles::FineCoarse { fine_bits }) =
                    (stage.twiddle_offset, stage.twiddle_form)
                else {
                    continue;
                };
                split += 1;
                let fine = 1usize << fine_bits;
                let span = stage.radix * stage.stride;
                for e in (0..span).step_by(7).chain([span - 1]) {
                    let (a, b) = (table[offset + e % fine], table[offset + fine + e / fine]);
                    let product = (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0);
                    let want = root_of_unity_f64(e as i64, span as i64, -1);
                    let error = (product.0 - want.0).hypot(product.1 - want.1);
                    assert!(error < 1e-14, "n = {n}, span {span}, e = {e}: {error}");
                }
            }
            assert!(split > 0, "n = {n}: no stage split");
            let last = pass.stages.last().unwrap();
            let end =
                last.twiddle_offset.unwrap() + last.twiddle_form.table_len(last.radix, last.stride);
            assert_eq!(table.len(), end, "n = {n}");
        }
    }

    /// Barriers in the forward CUDA kernel of `spec`.
    fn barriers(spec: FftSpec) -> usize {
        let spec = spec.directions(&[Direction::Forward]);
        let source = crate::generate(&spec, "test").unwrap().cuda_source;
        source.matches("__syncthreads()").count()
    }

    #[test]
    fn barriers_per_exchange_follow_the_plan() {
        // [7, 7, 7, 7]: three exchanges.
        let n2401 = || FftSpec::new(2401).radices(&[7, 7, 7, 7]);
        assert_eq!(barriers(n2401()), 6);
        assert_eq!(
            barriers(n2401().choices(ShapeChoices {
                first_write: Some(FirstWrite::Immediate),
                ..ShapeChoices::default()
            })),
            5
        );
        assert_eq!(
            barriers(n2401().choices(ShapeChoices {
                exchange_buffers: Some(ExchangeBuffers::Alternating),
                ..ShapeChoices::default()
            })),
            3
        );
        assert_eq!(
            barriers(n2401().choices(ShapeChoices {
                exchange_width: Some(ExchangeWidth::OnePartAtATime),
                ..ShapeChoices::default()
            })),
            12
        );
        assert_eq!(
            barriers(
                n2401()
                    .choices(ShapeChoices {
                        exchange_width: Some(ExchangeWidth::OnePartAtATime),
                        ..ShapeChoices::default()
                    })
                    .choices(ShapeChoices {
                        first_write: Some(FirstWrite::Immediate),
                        ..ShapeChoices::default()
                    })
            ),
            11
        );
        // Whole complex values keep the barriers of both parts.
        assert_eq!(
            barriers(n2401().choices(ShapeChoices {
                exchange_width: Some(ExchangeWidth::Interleaved),
                ..ShapeChoices::default()
            })),
            6
        );
        // Staged small sizes read shared memory in their first stage, so its
        // writes always wait: [8, 8] staged is a load, two exchange barriers,
        // and the two around the staged store.
        let staged = || {
            FftSpec::new(64).radices(&[8, 8]).choices(ShapeChoices {
                threads_per_fft: Some(8),
                ..ShapeChoices::default()
            })
        };
        assert_eq!(
            barriers(staged()),
            barriers(staged().choices(ShapeChoices {
                first_write: Some(FirstWrite::Immediate),
                ..ShapeChoices::default()
            }))
        );
        // f64 4096 [16, 16, 16] exchanges one part at a time by necessity.
        let f64_4096 = || FftSpec::new(4096).precision(Precision::F64);
        assert_eq!(barriers(f64_4096()), 8);
    }
}
