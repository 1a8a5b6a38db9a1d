//! Choosing the radix sequence for a size when the user gives none. A
//! schedule that keeps more values per thread than the register budget (and
//! would spill) loses to any that fits. Then fewer stages win, since each
//! stage costs a shared-memory exchange and two barriers; then fewer values
//! per thread; then fewer operations. (Seed 004 replaces this heuristic with
//! measured stage costs once the autotuner lands; it will produce the same
//! `Vec<usize>`.)

use crate::codelet::{is_supported_radix, Codelet};
use crate::Direction;

/// Threads per transform and complex values per thread for `radices`.
///
/// With T = n / lcm(radices) every stage splits evenly over the threads and no
/// thread idles; when the lcm exceeds `max_values` (11 * 13 = 143, say), T = n /
/// max(radix) instead, and stages with more butterflies than threads give some
/// threads one butterfly more (the kernel guards the extra ones). A T above
/// [`PORTABLE_THREADS`] is split into fewer threads with more butterflies
/// each, up to the `max_threads` of a block (beyond, the schedule is
/// unlaunchable). Where a stage's extra butterflies double the values past
/// `max_values`, T is [`widened`].
pub fn thread_shape(
    n: usize,
    radices: &[usize],
    max_values: usize,
    max_threads: usize,
) -> (usize, usize) {
    let shape = ThreadShape::of(n, radices, max_values, max_threads);
    (shape.threads, shape.values)
}

/// Threads per transform, the values each holds, and whether the threads
/// were [`widened`] past n / max(radix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ThreadShape {
    threads: usize,
    values: usize,
    widened: bool,
}

impl ThreadShape {
    fn of(n: usize, radices: &[usize], max_values: usize, max_threads: usize) -> ThreadShape {
        let even = radices.iter().fold(1, |acc, &r| lcm(acc, r));
        let mut threads = if even <= max_values {
            n / even
        } else {
            n / radices.iter().copied().max().unwrap_or(1)
        };
        if threads > PORTABLE_THREADS && threads <= max_threads {
            threads = threads.div_ceil(threads.div_ceil(PORTABLE_THREADS));
        }
        let values = values_per_thread(n, radices, threads);
        if values > max_values {
            if let Some(wider) = widened(n, radices, threads, max_values, max_threads) {
                return ThreadShape {
                    threads: wider,
                    values: values_per_thread(n, radices, wider),
                    widened: true,
                };
            }
        }
        ThreadShape {
            threads,
            values,
            widened: false,
        }
    }
}

/// The fewest threads past `threads` (a warp at least) that hold a
/// schedule's values within `max_values`, up to one per butterfly of its
/// largest stage and a portable block: n / max(radix) threads leave a
/// stage with a few more butterflies two per thread, twice the values and
/// the registers (2002 f64 as 14 x 13 x 11: 143 threads of 26 values, one
/// block per SM, 58% of the copy on the H100; 182 threads of 14, 99.5%).
fn widened(
    n: usize,
    radices: &[usize],
    threads: usize,
    max_values: usize,
    max_threads: usize,
) -> Option<usize> {
    let smallest = radices.iter().copied().min().unwrap_or(n);
    let most = (n / smallest).min(PORTABLE_THREADS).min(max_threads);
    (threads >= 32)
        .then(|| (threads + 1..=most).find(|&t| values_per_thread(n, radices, t) <= max_values))
        .flatten()
}

/// `shape` (threads per transform, values each) over at most a quarter
/// more threads, where that holds a third fewer values: n / max(radix)
/// threads leave the stages of a smaller radix a butterfly more on some
/// threads, which a few more threads take (1872 as 13 x 12 x 12: 144
/// threads of 24 values, 156 of 13; 975 as 15 x 13 x 5: 65 of 26, 75 of
/// 15). Else one butterfly of the smallest radix a thread, within twice
/// the threads, where that holds a quarter fewer values: on the H200
/// (cuFFT/ours) f32 1404 (12 x 13 x 9) 0.75 -> 1.00x, 2376 0.78 -> 0.95x,
/// 2002 1.31 -> 1.93x, 1755 0.93 -> 1.12x, f64 875 0.98 -> 1.16x; 12 of 17
/// rows faster, 528 (f32 and f64 1.16 -> 1.08x), 2592 f32 (0.94 ->
/// 0.90x), 1056 and 1225 f64 (3-5%) slower
/// (docs/bench/h200_ab_one_butterfly.log). Within a portable block where
/// the shape is; rows of fewer than a warp of threads (lanes across FFTs)
/// keep their shape (not measured).
pub fn nearly_even(
    n: usize,
    radices: &[usize],
    shape: (usize, usize),
    max_threads: usize,
) -> (usize, usize) {
    let (threads, values) = shape;
    if threads < 32 {
        return shape;
    }
    let portable = match threads <= PORTABLE_THREADS {
        true => PORTABLE_THREADS,
        false => max_threads,
    };
    let most = (threads + threads / 4).min(max_threads).min(portable);
    let near = (threads + 1..=most)
        .map(|t| (t, values_per_thread(n, radices, t)))
        .min_by_key(|&(t, v)| (v, t))
        .filter(|&(_, fewer)| 3 * fewer <= 2 * values);
    let smallest = radices.iter().copied().min().unwrap_or(n);
    let one_butterfly = n / smallest;
    let one = (one_butterfly, values_per_thread(n, radices, one_butterfly));
    let takes_one = one.0 > threads && one.0 <= 2 * threads && one.0 <= portable.min(max_threads);
    near.or((takes_one && 4 * one.1 <= 3 * values).then_some(one))
        .unwrap_or(shape)
}

/// Complex values a thread holds when `threads` threads share each stage's
/// butterflies: the largest stage's butterflies per thread times its radix.
pub fn values_per_thread(n: usize, radices: &[usize], threads: usize) -> usize {
    radices
        .iter()
        .map(|&r| (n / r).div_ceil(threads) * r)
        .max()
        .unwrap_or(1)
}

/// Threads per transform the heuristic keeps to, whatever the target allows:
/// the work-groups every backend launches these kernels with (NVIDIA's OpenCL
/// grants register-heavy kernels at most 256 work-items), so a default plan
/// runs everywhere. Measured shapes may take more where the target allows.
pub const PORTABLE_THREADS: usize = 256;

fn lcm(a: usize, b: usize) -> usize {
    a / gcd(a, b) * b
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The best radix sequence for `n`, largest radix first, given the most
/// values a thread may hold and the most threads a transform may use; `None`
/// if no sequence fits. `rows`: the FFTs are whole rows, dense (a
/// one-kernel transform or a pass along contiguous points), not columns
/// moved through a tile several to a block of up to 1024 threads, whose
/// registers the extra values of a widened schedule spill (4209975 f64's
/// 2025-point columns as 15 x 15 x 9: 216 bytes at sm_90).
pub fn choose(
    n: usize,
    complex_bytes: usize,
    max_values: usize,
    max_threads: usize,
    rows: bool,
) -> Option<Vec<usize>> {
    let mut best: Option<(Score, Vec<usize>)> = None;
    let mut current = Vec::new();
    search(n, 32, MAX_STAGES, &mut current, &mut |radices| {
        let shape = ThreadShape::of(n, radices, max_values, max_threads);
        if shape.threads > max_threads {
            return;
        }
        let score = Score::of(n, complex_bytes, radices, shape, max_values, rows);
        if best.as_ref().is_none_or(|(b, _)| score < *b) {
            best = Some((score, radices.to_vec()));
        }
    });
    best.map(|(_, radices)| radices)
}

/// Every radix sequence for `n`, largest radix first, of `min_stages` to
/// `max_stages` stages: the schedules `choose` picks among, for a search that
/// times them instead of scoring them.
pub fn schedules(n: usize, min_stages: usize, max_stages: usize) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    let mut current = Vec::new();
    search(
        n,
        32,
        max_stages.min(MAX_STAGES),
        &mut current,
        &mut |radices| {
            if radices.len() >= min_stages {
                all.push(radices.to_vec());
            }
        },
    );
    all
}

/// Most radix stages a schedule has.
const MAX_STAGES: usize = 8;

/// Lexicographic: over the register budget, threads [`widened`] to fit it
/// (f32: a schedule that fits as it is wins), staged through shared memory
/// where it need not be, stages, widened (f64: fewer stages win first),
/// values per thread, flops per point (scaled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Score(bool, bool, bool, usize, bool, usize, u64);

/// From this many bytes per complex value on (f64), a widened schedule of
/// fewer stages beats an unwidened one in rows ([`choose`]): H100, cuFFT/ours before -> after,
/// 660 0.69 -> 1.02, 3072 0.85 -> 1.07, 3600 0.81 -> 0.90, 2520 0.96 -> 1.01,
/// none of ten sizes more than 1.5% slower. In f32 it won at 2673 to 4025
/// (3025 0.86 -> 1.03) and lost at 1375, 1925 and 2088 (2088 0.92 -> 0.77),
/// so f32 keeps the unwidened schedule
/// (docs/bench/h100_stages_before_widening.txt).
const STAGES_BEFORE_WIDENING_FROM_BYTES: usize = 16;

/// From this many bytes per transform on, a schedule with a warp or more of
/// threads per FFT (direct global access) beats one staged through shared
/// memory even with an extra stage: measured on an H100 at n = 512 in f32
/// and n = 256 in f64 (commit 2200765 and its docs/perf.md).
const DIRECT_IO_FROM_BYTES: usize = 4096;

impl Score {
    fn of(
        n: usize,
        complex_bytes: usize,
        radices: &[usize],
        shape: ThreadShape,
        max_values: usize,
        rows: bool,
    ) -> Score {
        let ThreadShape {
            threads,
            values,
            widened,
        } = shape;
        let flops_per_point: f64 = radices
            .iter()
            .map(|&r| Codelet::generate(r, Direction::Forward).ops.flops() as f64 / r as f64)
            .sum();
        let staged = n * complex_bytes >= DIRECT_IO_FROM_BYTES && threads < 32;
        let stages_first = rows && complex_bytes >= STAGES_BEFORE_WIDENING_FROM_BYTES;
        Score(
            values > max_values,
            widened && !stages_first,
            staged,
            radices.len(),
            widened && stages_first,
            values,
            (flops_per_point * 1000.0) as u64,
        )
    }
}

/// Flops of one FFT of `n` points in the Stockham stages `radices`: each
/// stage's butterflies, and after the first one complex product (two muls
/// and two FMAs) for each of a butterfly's points but its first.
pub fn fft_flops(n: usize, radices: &[usize]) -> u64 {
    radices
        .iter()
        .enumerate()
        .map(|(stage, &radix)| {
            let butterflies = (n / radix) as u64;
            let butterfly = Codelet::generate(radix, Direction::Forward).ops.flops();
            let twiddled = if stage == 0 { 0 } else { radix as u64 - 1 };
            butterflies * (butterfly + twiddled * 6)
        })
        .sum()
}

/// Calls `visit` with every non-increasing sequence of supported radices,
/// each at most `largest`, whose product is `remaining`, of at most
/// `max_stages` stages in all.
fn search(
    remaining: usize,
    largest: usize,
    max_stages: usize,
    current: &mut Vec<usize>,
    visit: &mut dyn FnMut(&[usize]),
) {
    if remaining == 1 {
        if !current.is_empty() {
            visit(current);
        }
        return;
    }
    // Even the largest radix left cannot finish within the stages left.
    let stages_left = max_stages.saturating_sub(current.len());
    if stages_left == 0
        || largest
            .min(remaining)
            .checked_pow(stages_left as u32)
            .is_some_and(|most| most < remaining)
    {
        return;
    }
    for radix in (2..=largest.min(remaining)).rev() {
        if remaining % radix == 0 && is_supported_radix(radix) {
            current.push(radix);
            search(remaining / radix, radix, max_stages, current, visit);
            current.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_for_the_sizes_we_benchmark() {
        let pick = |n| choose(n, 8, 32, 1024, true).unwrap();
        assert_eq!(pick(4096), vec![16, 16, 16]);
        assert_eq!(pick(2048), vec![16, 16, 8]);
        assert_eq!(pick(1000), vec![10, 10, 10]);
        assert_eq!(pick(2197), vec![13, 13, 13]);
        assert_eq!(pick(3125), vec![25, 25, 5]);
        assert_eq!(pick(8), vec![8]);
        assert_eq!(pick(64), vec![8, 8]);
    }

    #[test]
    fn threads_widen_where_a_stage_would_double_the_values() {
        // 2002 f64 (16 values at most) as 14 x 13 x 11: n / 14 = 143
        // threads leave the stages of 154 and 182 butterflies two each.
        assert_eq!(values_per_thread(2002, &[14, 13, 11], 143), 26);
        assert_eq!(thread_shape(2002, &[14, 13, 11], 16, 1024), (182, 14));
        assert_eq!(choose(2002, 16, 16, 1024, true), Some(vec![14, 13, 11]));
        // A schedule that fits as it is keeps its threads.
        assert_eq!(thread_shape(1000, &[10, 10, 10], 16, 1024), (100, 10));
        // f64: fewer stages, widened, beat more unwidened; f32 keeps the
        // unwidened schedule (3072 and 2088 each measured on an H100).
        assert_eq!(choose(3072, 16, 16, 1024, true).map(|r| r.len()), Some(3));
        assert_eq!(choose(2088, 8, 32, 1024, true), Some(vec![29, 6, 6, 2]));
        // f64 columns keep the unwidened schedule.
        assert_eq!(choose(2025, 16, 16, 1024, true), Some(vec![15, 15, 9]));
        assert_eq!(choose(2025, 16, 16, 1024, false), Some(vec![9, 9, 5, 5]));
    }

    #[test]
    fn every_schedule_of_a_size() {
        assert_eq!(schedules(128, 2, 2), vec![vec![32, 4], vec![16, 8]]);
        assert_eq!(schedules(4, 1, 2), vec![vec![4], vec![2, 2]]);
        assert_eq!(schedules(2401, 1, 3), Vec::<Vec<usize>>::new());
        for radices in schedules(4000, 2, 4) {
            assert_eq!(radices.iter().product::<usize>(), 4000);
            assert!(radices.windows(2).all(|w| w[0] >= w[1]));
        }
    }
}
