//! The words between neighbouring FFTs in shared memory where a block's
//! lanes run across its FFTs ([`super::LaneLayout::FftMinor`]): thread
//! `tid` works on FFT `tid % F` as its thread `tid / F` (F the FFTs of a
//! block), so one conflict-free access (a warp in f32, a half-warp in f64:
//! [`super::padding::bank_words`]) holds 32 / F or 16 / F threads of each
//! of several FFTs. The exchange's addresses within an FFT are seed 000's
//! (section IV.A); the stride S between FFTs decides whether those groups
//! land on distinct banks. An odd stride spreads them where each access
//! holds one thread of every FFT (F at least the bank words); with fewer
//! FFTs a block, each FFT's threads cover a run of banks and S must shift
//! the runs apart: f64 208 with 4 FFTs a block read S f + t at S = 209, 4-way
//! conflicts, and ran at 0.79x cuFFT on the H100 where 14 FFTs a block ran
//! at 0.98x (docs/bench/h100_f64_minor_block.txt).

use super::padding::access_wavefronts;
use super::Stage;

/// The stride between the block's FFTs of `n` points: the one of `n | 1`
/// (odd, the spread for many FFTs a block) to `(n | 1) + bank_words` whose
/// accesses take the fewest wavefronts, `n | 1` where no other takes fewer.
pub(super) fn minor_fft_stride(
    n: usize,
    ffts_per_block: usize,
    threads_per_fft: usize,
    stages: &[Stage],
    bank_words: usize,
) -> usize {
    let odd = n | 1;
    let cost =
        |stride: usize| wavefronts(stride, ffts_per_block, threads_per_fft, stages, bank_words);
    let odd_cost = cost(odd);
    (odd..=odd + bank_words)
        .map(|stride| (cost(stride), stride))
        .filter(|&(c, _)| c < odd_cost)
        .min()
        .map_or(odd, |(_, stride)| stride)
}

/// Wavefronts of one round of the block's accesses at FFT stride `stride`:
/// every stage's reads (thread t reads word t of its FFT's run, plus a
/// constant) and writes (thread t writes output r of butterfly t at
/// `(t / Ns) Ns R + t % Ns + r Ns`, the constant r Ns aside).
fn wavefronts(
    stride: usize,
    ffts: usize,
    threads_per_fft: usize,
    stages: &[Stage],
    bank_words: usize,
) -> usize {
    let reads = accesses(stride, ffts, threads_per_fft, bank_words, |t| t);
    let writes: usize = stages
        .iter()
        .map(|stage| {
            let (radix, ns) = (stage.radix, stage.stride.max(1));
            let write = move |t: usize| (t / ns) * ns * radix + t % ns;
            accesses(stride, ffts, threads_per_fft, bank_words, write)
        })
        .sum();
    reads * stages.len() + writes
}

/// Wavefronts of one access by every thread of the block: thread `tid`
/// touches word `stride * (tid % ffts) + within(tid / ffts)`; each group of
/// `bank_words` consecutive threads takes as many wavefronts as the most
/// distinct words one bank holds.
fn accesses(
    stride: usize,
    ffts: usize,
    threads_per_fft: usize,
    bank_words: usize,
    within: impl Fn(usize) -> usize,
) -> usize {
    let threads = ffts * threads_per_fft;
    let mut on_bank: Vec<Vec<usize>> = vec![Vec::new(); bank_words];
    (0..threads)
        .step_by(bank_words)
        .map(|first| {
            let group = first..(first + bank_words).min(threads);
            let words = group.map(|tid| stride * (tid % ffts) + within(tid / ffts));
            access_wavefronts(&mut on_bank, words)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::pass_planner::plan_pass;
    use crate::plan::{Access, ShapeChoices};
    use crate::{Buffer, Precision, Target};

    /// 208's stages in f64 (radices 13, 4, 4) as the planner lays them out.
    fn stages_of_208() -> Vec<Stage> {
        let access = Access::dense(208, Buffer::Input, Buffer::Output);
        let pass = plan_pass(
            208,
            Precision::F64,
            &ShapeChoices::default(),
            &Target::H100,
            &access,
        );
        pass.unwrap().stages
    }

    #[test]
    fn many_ffts_a_block_keep_the_odd_stride() {
        // 16 FFTs a block: each f64 access holds one thread of every FFT.
        let s = stages_of_208();
        assert_eq!(minor_fft_stride(208, 16, 16, &s, 16), 209);
    }

    #[test]
    fn few_ffts_a_block_shift_their_runs_apart() {
        // 4 FFTs of 16 threads: each half-warp holds 4 threads of each FFT;
        // at 209 their runs overlap 4-way, at a stride of 4 (mod 16) they tile the banks.
        let s = stages_of_208();
        let stride = minor_fft_stride(208, 4, 16, &s, 16);
        assert!(wavefronts(stride, 4, 16, &s, 16) < wavefronts(209, 4, 16, &s, 16));
        assert_eq!(stride % 16, 4);
    }
}
