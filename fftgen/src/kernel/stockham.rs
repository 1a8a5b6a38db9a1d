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
//!
//! This file holds the kernel's frame (its start, the threads' places, the
//! shared arrays and their positions); each concern of the lowering is a
//! file of its own under `stockham/`: the butterflies of each stage and
//! their exchanges ([`stages`]), where a point meets global memory
//! ([`points`]), Bluestein's steps on those loads and stores ([`chirped`]),
//! column tiles and staged rows ([`tiles`]), the walks of a staged pass
//! ([`walks`]) and a real transform's whole shape ([`whole_real_shape`]).

use super::ast::{
    assign, let_const, uint, var, Builtin, Expr, Function, FunctionKind, Param, ParamKind, Space,
    Stmt, Type,
};
use super::complex_ops::cmul_name;
use super::signature::{kernel_params, locate, pass_kernel, transforms_of, TWIDDLES};
use crate::expr::constant::root_of_unity_f64;
use crate::plan::{
    Chirp, ChirpRole, ExchangeBuffers, ExchangeWidth, FirstWrite, GlobalIo, LaneLayout,
    MirroredColumns, Padding, Pass, Plan, RealEnd, RealRoute, Stage, StageTwiddles,
    StepTwiddleForm,
};
use crate::{Blocks, Direction, Placement};

mod chirped;
mod points;
mod stages;
mod tiles;
mod walks;
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
            Segment::Only => self.preamble(),
            Segment::FirstOfTwo => [self.preamble(), self.rader_zero_declarations()].concat(),
            Segment::SecondOfTwo => self.rader_zero_store(),
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
            // A thread an FFT: the block's m threads are its m FFTs, and
            // every thread is its FFT's first, which the compiler folds
            // into the stages' indices (it does not know tid < m).
            _ if t == 1 => (var("tid"), uint(0)),
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
            true => {
                // The block's rows of the launch, in 32 bits, for the walks
                // of paired rows as one run.
                let most = 2 * self.pass.ffts_per_block;
                let first_row = Expr::Builtin(Builtin::BlockIndex)
                    .cast(Type::Index)
                    .mul(uint(most));
                (
                    vec![
                        let_const(Type::Index, "rows", total.cast(Type::Index)),
                        let_const(
                            Type::Uint,
                            "block_rows",
                            block_share(var("rows"), first_row, most),
                        ),
                    ],
                    var("rows").add(uint(1)).div(uint(2)),
                )
            }
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
            // The block's FFTs of the launch, in 32 bits: a walk's bound
            // without a 64-bit sum and compare a point (walks of a thread's
            // own row take `active`).
            if !self.rows_by_fft() {
                body.push(let_const(Type::Index, "walk_ffts", total));
                body.push(let_const(
                    Type::Uint,
                    "walk_block_ffts",
                    block_share(var("walk_ffts"), self.block_fft(), self.pass.ffts_per_block),
                ));
            }
            body.extend(self.walk_block_starts());
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

/// How many of `total` (64-bit) a block from `first` holds, at most
/// `most`, in 32 bits: none where the block starts past them.
fn block_share(total: Expr, first: Expr, most: usize) -> Expr {
    let left = total.clone().sub(first.clone());
    Expr::select(
        first.lt(total),
        Expr::select(
            left.clone().lt(uint(most)),
            left.cast(Type::Uint),
            uint(most),
        ),
        uint(0),
    )
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

    /// A two-phase load walk (f64 paired rows of 17, one stage) issues
    /// each group's loads from global memory before any of its stores to
    /// shared memory, and loads every point once; a walk of two stages
    /// past 18 values a thread (667 = 29 x 23) stays in one phase.
    #[test]
    fn small_paired_rows_load_before_they_store() {
        let kernel = |n: usize| {
            let spec = FftSpec::new(n)
                .kind(crate::TransformKind::R2c)
                .precision(Precision::F64)
                .target(Target::H200)
                .directions(&[Direction::Forward]);
            let source = crate::generate(&spec, "test").unwrap().cuda_source;
            let body = source.split("__global__").nth(1).unwrap().to_string();
            body[..body.find("__syncthreads()").unwrap()].to_string()
        };
        let walk = kernel(17);
        let groups: Vec<&str> = walk.split("double walk_v").skip(1).collect();
        let loads = walk.matches("= input[").count();
        assert_eq!(loads, 2 * 17, "two rows of 17 reals over 64 threads");
        let first_group = &walk[walk.find("double walk_v").unwrap()..];
        let first_store = first_group.find("shared_re[").unwrap();
        let group_loads = first_group[..first_store].matches("= input[").count();
        assert!(
            group_loads > 2,
            "a group of loads before the first store: {group_loads}"
        );
        assert!(groups.len() > 1);
        let spread = kernel(667);
        assert!(!spread.contains("walk_v0_0"), "667 walks in one phase");
    }
}
