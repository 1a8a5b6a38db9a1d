//! Where the steps of Bluestein's algorithm ([`super::bluestein`]) ride on
//! the FFTs of M instead of running as kernels of their own: the chirp
//! (and the zero padding from N to M, which reads no zeros) on the loads
//! of the first FFT, the product with the chirp's spectrum on its stores,
//! and the closing chirp (keeping the N outputs, in the user's layout) on
//! the stores of the second, which the FFT of M read backwards makes the
//! inverse FFT (seed 000 section IV.E).
//!
//! Where one block holds the FFT of M and its registers both FFTs' values,
//! one kernel runs them both, the product with the spectrum between them
//! in shared memory ([`whole`]). Where one kernel holds the FFT of M
//! otherwise, its two ends take the steps: two kernels in all. Where the
//! FFT of M takes the passes of the four-step
//! split ([`super::multipass`]), the first and last passes take them, at
//! the four-step index: before step i the row holds, at K + P r (P = f0 ...
//! f(i-1)), the digits K already transformed and the remainder r not yet,
//! so the first pass's FFT at column c reads the points c + (M / f0) p of
//! the row (P = 1: the point's index along the axis), and the last pass's
//! FFT at column K writes K + P k, the natural order. The transform runs
//! 2 x (passes of M) kernels, the first pass reading N points of the user's
//! side per row and the last writing N (or the half spectrum, or reals),
//! where the steps apart ran three more kernels over rows of M.

use super::access::{Access, Column};
use super::bluestein::{AxisSide, Chirp, ChirpRole};
use super::choices::ShapeChoices;
use super::pass_planner::{holds_values, max_size, min_blocks_per_sm, plan_pass, with_both_parts};
use super::rader::Rader;
use super::radix::values_per_thread;
use super::real_step::AxisIndex;
use super::{ExchangeWidth, GlobalIo, LaneLayout, Pass, Twiddles};
use crate::{Buffer, Layout, Precision, Target};

/// Complex values of registers a chirp step needs beyond its FFT's: the
/// chirp's or its spectrum's value and the product.
const CHIRP_STEP_VALUES: usize = 4;

/// Values a thread of an FFT of M with one FFT's points across its lanes
/// ([`LaneLayout::FftMajor`]) holds at most for the whole algorithm in
/// one kernel. ptxas (sm_90) keeps more live across the two FFTs than one
/// FFT needs: at the 128 registers of two blocks, FFTs of 2048 (16 values)
/// compile without spilling, FFTs of 2500 (28 values over 100 threads) and
/// 2480 (32) spill 148 and 476 bytes, and on the H100 1249's R2C ran 5-10%
/// slower as one kernel than as two. FFTs of few threads each
/// ([`LaneLayout::FftMinor`]: 227's FFTs of 480, 32 values over 16
/// threads, take 120 registers) are not bound by this.
const WHOLE_MAX_VALUES: usize = 16;

/// Values a thread of the row's FFT of M holds from which the whole
/// algorithm spreads it over more threads ([`with_fewer_values`]).
const FEWER_VALUES_FROM: usize = 20;

/// One side of the axis as the user's data (or a region of the workspace
/// that holds it) has it: the buffer, its layout and what it holds.
#[derive(Debug, Clone, Copy)]
pub(super) struct UserSide<'a> {
    pub buffer: Buffer,
    pub layout: &'a Layout,
    pub holds: AxisSide,
}

impl<'a> UserSide<'a> {
    pub fn new(buffer: Buffer, layout: &'a Layout, holds: AxisSide) -> UserSide<'a> {
        UserSide {
            buffer,
            layout,
            holds,
        }
    }
}

/// A coordinate of the other axes, which tell the rows of M apart: its
/// count, its stride in the layouts read (`from`) and written (`to`), and
/// the rows between its neighbours in the workspace, where the rows are
/// dense.
#[derive(Debug, Clone, Copy)]
pub(super) struct RowColumn {
    pub count: usize,
    pub from_stride: usize,
    pub to_stride: usize,
    pub rows_apart: usize,
}

/// The rows of Bluestein's algorithm along one axis: its length N, the
/// padded length M, the sides it reads and writes, and the coordinates of
/// the other axes (the fastest first).
#[derive(Debug, Clone)]
pub(super) struct Rows<'a> {
    pub axis: usize,
    pub n: usize,
    pub padded: usize,
    pub from: UserSide<'a>,
    pub to: UserSide<'a>,
    pub columns: Vec<RowColumn>,
    /// Rader's algorithm over the prime axis, M = N - 1 ([`Rader`]),
    /// rather than Bluestein's.
    pub rader: Option<Rader>,
}

/// The two kernels of an FFT of M that one kernel holds (`fft`, moved into
/// the workspace with the rows as its last column): the first loads the
/// chirped user side and stores the product with the chirp's spectrum, the
/// second stores the chirped outputs on the user side. Both ends of both
/// go straight between global memory and registers, where the steps apply.
pub(super) fn one_kernel(
    fft: &Pass,
    rows: &Rows,
    precision: Precision,
    target: &Target,
) -> Vec<Pass> {
    let fft = &planned_both_parts(fft, precision, target);
    let fused = |role: ChirpRole, reads_user: bool| {
        let mut pass = with_step(fft, rows, role, None);
        pass.io = GlobalIo::Direct;
        pass.output_io = GlobalIo::Direct;
        onto_user_side(&mut pass, rows, reads_user, None);
        // No end is staged, so shared memory does not bound the blocks an
        // SM holds as it does the staged small transforms' (whose launch
        // bound of one leaves ptxas every register): the registers the
        // values and the step's need do. On the H100 the FFT of 147 of
        // 73x510's R2C, 21 values over 7 threads, 36 FFTs to a block, ran
        // one block per SM at 115 registers; it holds 80 without spilling.
        if pass.lanes == LaneLayout::FftMinor {
            let needed = min_blocks_per_sm(
                pass.threads_per_block,
                pass.shared_bytes,
                pass.values_per_thread + CHIRP_STEP_VALUES,
                precision,
                target,
            );
            pass.min_blocks_per_sm = pass.min_blocks_per_sm.max(needed);
        }
        pass
    };
    vec![
        fused(
            ChirpRole::Load {
                side: rows.from.holds,
            },
            true,
        ),
        fused(
            ChirpRole::Store {
                side: rows.to.holds,
            },
            false,
        ),
    ]
}

/// The whole of Bluestein's algorithm in one kernel where one block holds
/// the FFT of M (`fft`, moved into the workspace with the rows as its last
/// column): its chirped loads of the user's side, the FFT, the product
/// with the chirp's spectrum on its way into shared memory, the FFT again
/// from there, and the chirped stores, so the axis crosses memory once.
/// `None` where the FFT's stages do not all exchange through one set of
/// shared arrays of both parts, which the second FFT reads.
pub(super) fn whole(
    fft: &Pass,
    rows: &Rows,
    precision: Precision,
    target: &Target,
) -> Option<Pass> {
    let access = user_access(rows);
    // Along strided columns, where the row's FFT has one FFT's points
    // across its lanes (each warp's loads a stride apart), the FFT of M is
    // planned as a column pass over the user's layout, whose tiles of
    // neighbouring columns coalesce: H100, 491x1007x12's FFTs of 1000 over
    // columns 12084 apart, 0.62 -> 0.79x cuFFT. FFTs of few threads each
    // already hold neighbouring columns across their lanes, and a tile
    // lost them 5-30% (41x3x759 f64 R2C 1.46 -> 1.04x). Where the column
    // pass cannot take the steps, the row's FFT does.
    // (Rader's product step stores X[0] from the thread's own FFT, which
    // a tile's copies do not place.)
    let strided = (access.input_stride != 1 || access.output_stride != 1)
        && fft.lanes == LaneLayout::FftMajor
        && rows.rader.is_none();
    let choices = ShapeChoices::default();
    let columns = strided
        .then(|| plan_pass(rows.padded, precision, &choices, target, &access).ok())
        .flatten();
    let whole_at = |fft: &Pass, planned: bool, fewest_blocks: Option<usize>| {
        let fft = &planned_both_parts(fft, precision, target);
        let mut pass = with_step(fft, rows, whole_role(rows), None);
        (pass.io, pass.output_io) = whole_ends(fft, planned)?;
        pass.access = access.clone();
        with_registers_for_both(pass, precision, target, fewest_blocks)
    };
    let whole = |fft: &Pass, planned: bool| whole_at(fft, planned, None);
    // One f64 FFT a block: several such blocks an SM, or two kernels (a
    // lone block of one FFT's points across the lanes lost, as below).
    let one_a_block = || {
        whole_at(
            &one_f64_fft_a_block(fft, precision, target)?,
            false,
            Some(2),
        )
    };
    columns
        .and_then(|columns| whole(&columns, true))
        .or_else(|| whole(fft, false))
        .or_else(one_a_block)
        .or_else(|| whole(&with_fewer_values(fft, precision, target)?, false))
}

/// The row's f64 FFT of M, one FFT's points across the lanes, one FFT to
/// a block, so that the blocks an SM holds at the registers of both FFTs
/// are several small ones rather than one of several FFTs, whose barriers
/// wait for all its warps (the f64 FFTs of few threads each:
/// [`super::pass_planner`]'s `F64_MINOR_THREADS_PER_BLOCK`). H100,
/// cuFFT/ours, against two kernels: 317 0.68 -> 1.09x, 241 0.64 -> 0.93x,
/// 359 0.58 -> 0.75x, 485 1.31 -> 1.89x, R2C 718 0.67 -> 0.82x; 262
/// 0.67 -> 0.62x and 526 R2C 0.74 -> 0.69x lost, 23 of 27 gained
/// (docs/bench/h100_bluestein_f64_one_fft_a_block.txt). `None` where the
/// FFT already has a block of its own, or in f32.
fn one_f64_fft_a_block(fft: &Pass, precision: Precision, target: &Target) -> Option<Pass> {
    if precision != Precision::F64 || fft.lanes != LaneLayout::FftMajor || fft.ffts_per_block == 1 {
        return None;
    }
    let choices = ShapeChoices {
        radices: Some(fft.stages.iter().map(|stage| stage.radix).collect()),
        threads_per_fft: Some(fft.threads_per_fft),
        ffts_per_block: Some(1),
        ..ShapeChoices::default()
    };
    plan_pass(fft.n, precision, &choices, target, &fft.access).ok()
}

/// The row's FFT of M spread over the fewest threads that hold at most
/// [`WHOLE_MAX_VALUES`] values each, where it holds [`FEWER_VALUES_FROM`]
/// or more (one thread per butterfly of its largest radix), so the whole
/// algorithm fits registers in one kernel. On the H200
/// (docs/bench/h200_bluestein_fewer_values.txt), f32 C2C / R2C: 1253
/// 0.58 / 0.47 -> 0.91 / 0.75x cuFFT, 1902 0.68 -> 1.07x, 597 0.80 / 0.64
/// -> 1.03 / 0.82x, 523 0.77 -> 1.02x; FFTs of 18 values lost 6-21% so
/// (538 1.04 -> 0.82x, 571, 1136) and keep two kernels. Radices chosen
/// anew where the row's own cannot reach 16 values (2022's 4050 as 15,
/// 15, 6, 3 over 338 threads, a lone block an SM) lost at 15 of 20 f32
/// sizes (1027 1.13 -> 0.52x; 2022 0.48 -> 0.56x;
/// docs/bench/h200_bluestein_radices_anew.txt). `None` where no count of
/// threads within a block does.
fn with_fewer_values(fft: &Pass, precision: Precision, target: &Target) -> Option<Pass> {
    if fft.lanes != LaneLayout::FftMajor || fft.values_per_thread < FEWER_VALUES_FROM {
        return None;
    }
    let radices: Vec<usize> = fft.stages.iter().map(|stage| stage.radix).collect();
    let smallest = radices.iter().copied().min()?;
    let most = (fft.n / smallest).min(target.max_threads_per_block);
    let threads = (fft.threads_per_fft + 1..=most)
        .find(|&threads| values_per_thread(fft.n, &radices, threads) <= WHOLE_MAX_VALUES)?;
    let choices = ShapeChoices {
        radices: Some(radices),
        threads_per_fft: Some(threads),
        ..ShapeChoices::default()
    };
    plan_pass(fft.n, precision, &choices, target, &fft.access).ok()
}

/// The role of the whole algorithm over `rows`.
fn whole_role(rows: &Rows) -> ChirpRole {
    ChirpRole::Whole {
        from: rows.from.holds,
        to: rows.to.holds,
    }
}

/// A pass over `rows` that reads and writes the user's sides: the points
/// at the axis's strides, the rows at the other axes'.
fn user_access(rows: &Rows) -> Access {
    Access {
        reads: rows.from.buffer,
        writes: rows.to.buffer,
        input_stride: rows.from.layout.strides[rows.axis],
        output_stride: rows.to.layout.strides[rows.axis],
        columns: rows
            .columns
            .iter()
            .map(|column| Column {
                count: column.count,
                input_stride: column.from_stride,
                output_stride: column.to_stride,
            })
            .collect(),
        input_distance: rows.from.layout.distance,
        output_distance: rows.to.layout.distance,
        input_offset: 0,
        output_offset: 0,
        input_blocks: None,
        output_blocks: None,
    }
}

/// `pass` (the whole algorithm) with the launch bound the registers its
/// values and the steps need allow, whatever the FFT's own bound (1022's
/// FFTs of 2048, 16 f32 values a thread, spilled 128 bytes at the three
/// blocks its two kernels run); `None` where the registers granted there
/// do not hold twice them, as ptxas keeps about both FFTs' values live
/// ([`WHOLE_MAX_VALUES`]): 478x26's tiles of 16 FFTs of 960 over 1024
/// threads spilled 240 bytes at 64 registers, 11257's opt-in FFTs of
/// 23040 (32 values over 768 threads) 1392. At least `fewest_blocks` per
/// SM where given.
fn with_registers_for_both(
    mut pass: Pass,
    precision: Precision,
    target: &Target,
    fewest_blocks: Option<usize>,
) -> Option<Pass> {
    let values = pass.values_per_thread + CHIRP_STEP_VALUES;
    let threads = pass.threads_per_block;
    let holds_both = |blocks: usize| holds_values(target, threads, blocks, 2 * values, precision);
    let bound = min_blocks_per_sm(threads, pass.shared_bytes, values, precision, target);
    // In f64, FFTs of few threads each (lanes across FFTs) take fewer
    // blocks per SM, each thread the registers for both FFTs: on the H200
    // 79 went 0.78 -> 0.87x cuFFT, 89 1.14 -> 1.42x, 24x79 0.82 -> 0.89x.
    // FFTs of one FFT's points across the lanes lost there at one block of
    // several FFTs (359, 433, 619, 853, 1069: 4-17%), and f32 spilled (863's
    // FFTs of 1728 at four blocks) (docs/bench/h200_bluestein_f64_bound.txt):
    // they take one FFT a block at two or more blocks an SM
    // ([`one_f64_fft_a_block`]), else two kernels.
    let fewest = fewest_blocks.unwrap_or(match (precision, pass.lanes) {
        (Precision::F64, LaneLayout::FftMinor) => 1,
        _ => bound,
    });
    pass.min_blocks_per_sm = (fewest..=bound).rev().find(|&blocks| holds_both(blocks))?;
    Some(pass)
}

/// How `fft` meets global memory as the whole of Bluestein's algorithm,
/// if it can: a row's FFT straight between global memory and registers at
/// both ends; a pass `planned` over the user's columns as planned, if
/// that is straight to registers or through a tile of columns (whose
/// copies take the steps as the registers would). Its stages must
/// exchange through one set of shared arrays of both parts, which the
/// second FFT reads, and its values stay within what ptxas holds for both
/// FFTs.
fn whole_ends(fft: &Pass, planned: bool) -> Option<(GlobalIo, GlobalIo)> {
    let exchanges = fft.exchanges_through_one_set();
    let registers = fft.lanes == LaneLayout::FftMinor || fft.values_per_thread <= WHOLE_MAX_VALUES;
    if !exchanges || !registers {
        return None;
    }
    let end = |io: GlobalIo| match (planned, io) {
        (false, _) => Some(GlobalIo::Direct),
        (true, GlobalIo::Direct | GlobalIo::ColumnTile) => Some(io),
        (true, GlobalIo::StagedThroughShared) => None,
    };
    Some((end(fft.io)?, end(fft.output_io)?))
}

/// The passes of an FFT of M of several passes (`fft`, moved into the
/// workspace with the rows as their last column), twice, with the chirp on
/// the first FFT's first loads, the product with the chirp's spectrum on
/// its last stores and the closing chirp on the second FFT's last stores;
/// `None` where the first or last pass is not of the four-step form these
/// steps need (its FFTs at a column c and the points c + (M / f) p of the
/// row, the side the step is on not staged through shared memory).
pub(super) fn on_passes(fft: &[Pass], rows: &Rows) -> Option<Vec<Pass>> {
    let [first, middle @ .., last] = fft else {
        return None;
    };
    let first_index = four_step_index(first, rows.padded, true)?;
    let last_index = four_step_index(last, rows.padded, false)?;
    let load_role = ChirpRole::Load {
        side: rows.from.holds,
    };
    let mut load = with_step(first, rows, load_role, Some(first_index));
    onto_user_side(&mut load, rows, true, Some(first_index));
    let multiply = with_step(last, rows, ChirpRole::Multiply, Some(last_index));
    let store_role = ChirpRole::Store {
        side: rows.to.holds,
    };
    let mut store = with_step(last, rows, store_role, Some(last_index));
    onto_user_side(&mut store, rows, false, Some(last_index));

    let mut passes = vec![load];
    passes.extend(middle.iter().cloned());
    passes.push(multiply);
    passes.push(first.clone());
    passes.extend(middle.iter().cloned());
    passes.push(store);
    Some(passes)
}

/// Where the FFTs of `pass` (a first pass where `loads`, else a last pass
/// of the four-step FFT of one row of `padded` points, moved into the
/// workspace) take their points along the row: at the coordinate of
/// column 0 plus `points` times the point, `points` being that column's
/// count. `None` where the pass has another form, or stages that side
/// through shared memory (which the steps do not ride on).
fn four_step_index(pass: &Pass, padded: usize, loads: bool) -> Option<AxisIndex> {
    let access = &pass.access;
    let [index, _rows] = &access.columns[..] else {
        return None;
    };
    let (point_stride, column_stride, io) = match loads {
        true => (access.input_stride, index.input_stride, pass.io),
        false => (access.output_stride, index.output_stride, pass.output_io),
    };
    let four_step = index.count * pass.n == padded
        && column_stride == 1
        && point_stride == index.count
        && io != GlobalIo::StagedThroughShared
        && pass.real.is_none()
        && pass.chirp.is_none()
        && access.input_blocks.is_none()
        && access.output_blocks.is_none();
    four_step.then_some(AxisIndex {
        column: 0,
        points: index.count,
    })
}

/// `pass` with the step `role` on its loads or stores, the step's tables
/// after its own twiddles (the stages', then the four-step twiddle's).
///
/// The exchange of `pass` is as planned, but for a lone block's
/// interleaved exchange: beside the step's registers it spilled (sm_90:
/// 11257 f32's FFT of 23040 over 768 threads, 132 bytes), so the steps'
/// lone blocks keep both parts (padded as the interleaved stages were,
/// where [`planned_both_parts`] did not plan them again).
fn with_step(pass: &Pass, rows: &Rows, role: ChirpRole, index: Option<AxisIndex>) -> Pass {
    let mut pass = pass.clone();
    if pass.exchange_width == ExchangeWidth::Interleaved && pass.min_blocks_per_sm == 1 {
        pass.exchange_width = ExchangeWidth::BothParts;
    }
    let Twiddles::RoundedF64Table { len } = pass.twiddles;
    let table_offset = len + pass.step_twiddle.map_or(0, |step| step.len());
    let chirp = Chirp {
        role,
        n: rows.n,
        padded: rows.padded,
        table_offset,
        index,
        rader: rows.rader,
    };
    pass.twiddles = Twiddles::RoundedF64Table {
        len: table_offset + chirp.table_len(true),
    };
    pass.chirp = Some(chirp);
    pass
}

/// Moves the side of `pass` that reads (`reads_user`) or writes the row of
/// M onto the user's side of the axis: the buffer and layout of
/// `rows.from` (or `rows.to`), the point's index along the axis (`index`'s
/// column, the user's axis stride apart, or the point itself) at the
/// axis's stride, the rows at the other axes' strides. The workspace side
/// keeps its place; its rows (the pass's last column) become the other
/// axes' coordinates, as dense as the rows are.
fn onto_user_side(pass: &mut Pass, rows: &Rows, reads_user: bool, index: Option<AxisIndex>) {
    let side = match reads_user {
        true => rows.from,
        false => rows.to,
    };
    let axis_stride = side.layout.strides[rows.axis];
    let access = &mut pass.access;
    let row = access
        .columns
        .last()
        .expect("an FFT of M in the workspace has its rows as its last column");
    let row_stride = match reads_user {
        true => row.output_stride,
        false => row.input_stride,
    };
    let place = |count: usize, user: usize, workspace: usize| match reads_user {
        true => Column {
            count,
            input_stride: user,
            output_stride: workspace,
        },
        false => Column {
            count,
            input_stride: workspace,
            output_stride: user,
        },
    };
    let mut columns = Vec::new();
    if let Some(index) = index {
        let along = &access.columns[index.column];
        let workspace = match reads_user {
            true => along.output_stride,
            false => along.input_stride,
        };
        columns.push(place(along.count, axis_stride, workspace));
    }
    for column in &rows.columns {
        let user = match reads_user {
            true => column.from_stride,
            false => column.to_stride,
        };
        columns.push(place(column.count, user, column.rows_apart * row_stride));
    }
    access.columns = columns;
    let point_stride = index.map_or(1, |index| index.points) * axis_stride;
    match reads_user {
        true => {
            access.reads = side.buffer;
            access.input_stride = point_stride;
            access.input_distance = side.layout.distance;
            access.input_offset = 0;
        }
        false => {
            access.writes = side.buffer;
            access.output_stride = point_stride;
            access.output_distance = side.layout.distance;
            access.output_offset = 0;
        }
    }
}

/// The one-kernel FFT of M `fft` with both parts where the planner made its
/// exchange interleaved for a block past one kernel's points (a lone block,
/// or two or three an SM) or alone on its SM: the step's registers beside
/// it spilled (11257 f32, above), and its stages are padded for both parts
/// as they were before the planner interleaved such blocks.
fn planned_both_parts(fft: &Pass, precision: Precision, target: &Target) -> Pass {
    let interleaved_default = fft.exchange_width == ExchangeWidth::Interleaved
        && (fft.min_blocks_per_sm == 1 || fft.n > max_size(precision));
    match interleaved_default {
        true => with_both_parts(fft, precision, target),
        false => fft.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::bluestein::plan_apart;
    use crate::FftSpec;

    /// The passes of the f64 1D batch of `n` points planned for `target`.
    fn f64_passes(n: usize, target: Target) -> Vec<Pass> {
        let spec = FftSpec::new(n).precision(Precision::F64).target(target);
        crate::plan::plan(&spec).unwrap().passes
    }

    #[test]
    fn f64_ffts_of_few_threads_run_the_whole_algorithm_at_fewer_blocks() {
        let whole = |n: usize| -> Vec<(usize, usize)> {
            f64_passes(n, Target::H200)
                .iter()
                .filter(|p| matches!(p.chirp.map(|c| c.role), Some(ChirpRole::Whole { .. })))
                .map(|p| (p.n, p.min_blocks_per_sm))
                .collect()
        };
        // 83 (82 = 2 x 41: no Rader's): FFTs of 192 (24 x 8, fewer flops
        // than the least row's 14 x 12), eight to a block, at the most
        // blocks whose registers hold both FFTs' values: four.
        assert_eq!(whole(83), vec![(192, 4)]);
        // 853: FFTs of 1715 with one FFT's points across the lanes, whose
        // registers for both FFTs leave one block of one FFT an SM, would
        // keep two kernels; the padded row of 1728 (12 x 12 x 12, 12 values
        // over 144 threads) holds both FFTs at two blocks an SM
        // (padded_row's longer_rows_for_the_whole).
        assert_eq!(whole(853), vec![(1728, 2)]);
    }

    #[test]
    fn f64_whole_algorithms_take_the_padded_row_of_fewest_flops() {
        let padded =
            |n: usize| -> Vec<usize> { f64_passes(n, Target::H200).iter().map(|p| p.n).collect() };
        // 619: 1296 as 12 x 12 x 9 over the least row, 1250 as 10 x 5^3.
        assert_eq!(padded(619), vec![1296]);
        // 227: the least row, 480, holds a lone block an SM; 512 two.
        assert_eq!(padded(227), vec![512]);
        // 719: 1536 saves under 5% of the least row's flops (1440).
        assert_eq!(padded(719), vec![1440]);
    }

    #[test]
    fn f64_ffts_across_the_lanes_run_the_whole_algorithm_one_to_a_block() {
        let whole = |n: usize| -> Vec<(usize, usize, usize)> {
            f64_passes(n, Target::H100)
                .iter()
                .map(|p| (p.n, p.ffts_per_block, p.min_blocks_per_sm))
                .collect()
        };
        // 313: the FFT of 640 (the row of fewest flops; 80 threads, 10
        // values) one to a block holds both FFTs' values at five blocks an
        // SM, where FFTs of 60 threads (359's 720) ran as two kernels of
        // three FFTs a block (H100 0.58 -> 0.75x cuFFT).
        assert_eq!(whole(313), vec![(640, 1, 5)]);
    }

    #[test]
    fn one_kernel_steps_ask_for_the_blocks_their_registers_allow() {
        // 83x510's R2C on the H100: the FFTs of 180 of the prime axis (82 =
        // 2 x 41: no Rader's), lanes across FFTs, the whole algorithm in
        // one kernel, ask for two blocks.
        let spec = FftSpec::with_shape(&[83, 510])
            .kind(crate::TransformKind::R2c)
            .target(Target::H100);
        let plan = crate::plan::plan(&spec).unwrap();
        let chirped: Vec<&Pass> = plan.passes.iter().filter(|p| p.chirp.is_some()).collect();
        assert_eq!(chirped.len(), 1);
        for pass in chirped {
            assert!(matches!(pass.chirp.unwrap().role, ChirpRole::Whole { .. }));
            assert_eq!((pass.n, pass.lanes), (180, LaneLayout::FftMinor));
            assert_eq!(pass.min_blocks_per_sm, 2);
        }
    }

    #[test]
    fn the_steps_ride_only_on_passes_of_the_four_step_form() {
        // 4099 on the portable target: the FFT of 8232 in two passes, the
        // second and third of the plan with its steps apart.
        let apart = plan_apart(&FftSpec::new(4099)).unwrap();
        let fft = &apart.passes[1..3];
        let layout = Layout::contiguous(&[4099]);
        let side = |buffer| UserSide {
            buffer,
            layout: &layout,
            holds: AxisSide::Complex,
        };
        let rows = Rows {
            axis: 0,
            n: 4099,
            padded: 8232,
            from: side(Buffer::Input),
            to: side(Buffer::Output),
            columns: Vec::new(),
            rader: None,
        };
        let fused = on_passes(fft, &rows).expect("the four-step form");
        let roles: Vec<_> = fused.iter().map(|p| p.chirp.map(|c| c.role)).collect();
        assert_eq!(
            roles,
            [
                Some(ChirpRole::Load {
                    side: AxisSide::Complex
                }),
                Some(ChirpRole::Multiply),
                None,
                Some(ChirpRole::Store {
                    side: AxisSide::Complex
                }),
            ]
        );
        // The first pass reads the axis's points c + 84 p at unit stride.
        let load = &fused[0];
        assert_eq!(load.chirp.unwrap().index.unwrap().points, 84);
        assert_eq!(
            (load.access.reads, load.access.input_stride),
            (Buffer::Input, 84)
        );
        assert_eq!(load.access.columns[0].input_stride, 1);
        // A side staged through shared memory, or FFTs that do not take
        // the row's points at the four-step index, keep the steps apart.
        let mut staged = fft.to_vec();
        staged[0].io = GlobalIo::StagedThroughShared;
        assert!(on_passes(&staged, &rows).is_none());
        let mut strided = fft.to_vec();
        strided[1].access.output_stride += 1;
        assert!(on_passes(&strided, &rows).is_none());
    }
}
