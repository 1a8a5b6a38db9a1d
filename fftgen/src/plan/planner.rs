//! Turns an [`FftSpec`] into a [`Plan`]: validates the request, picks the
//! radix sequence, the threads per FFT, the FFTs per block, the lane layout
//! and the shared-memory layout (seed 000, section IV.B, Fig. 4).

use super::factor::{is_smooth, nearest_supported, prime_factors};
use super::measured::measured_shape;
use super::padding::{bank_words, Exchange, Padding, PaddingSearch};
use super::radix::{choose, thread_shape, values_per_thread};
use super::{
    ExchangeBuffers, ExchangeWidth, FirstWrite, GlobalIo, InputCaching, LaneLayout, Pass, Plan,
    Stage, Twiddles,
};
use crate::codelet::is_supported_radix;
use crate::{Error, FftSpec, Precision};

/// Largest size one kernel handles: 48 KiB of static shared memory holds
/// 4096 complex f32 values with padding, or the real (then imaginary) parts
/// of 4096 f64 values ([`ExchangeWidth::OnePartAtATime`]).
pub const MAX_SINGLE_KERNEL: [(Precision, usize); 2] =
    [(Precision::F32, 4096), (Precision::F64, 4096)];

/// Hard limits of the GPUs we target (and that PoCL must not be allowed to exceed).
pub const MAX_THREADS_PER_BLOCK: usize = 1024;
pub const MAX_STATIC_SHARED_BYTES: usize = 48 * 1024;
/// Resident blocks per multiprocessor on Hopper (and Ampere).
pub const MAX_BLOCKS_PER_SM: usize = 32;

/// Shared memory the planner fills: NVIDIA's OpenCL compiler adds a few bytes
/// of local memory of its own to every kernel (8 seen for f64 kernels), so a
/// block planned to exactly 48 KiB fails to build there.
const PLANNED_SHARED_BYTES: usize = MAX_STATIC_SHARED_BYTES - 256;

/// Threads per block the planner aims for: enough warps to hide latency,
/// few enough that several blocks share an SM.
const TARGET_THREADS_PER_BLOCK: usize = 256;

/// Complex values a thread may keep in registers.
fn max_values_per_thread(precision: Precision) -> usize {
    match precision {
        Precision::F32 => 32,
        Precision::F64 => 16,
    }
}

/// The largest single-kernel size for `precision`.
pub fn max_size(precision: Precision) -> usize {
    MAX_SINGLE_KERNEL
        .iter()
        .find(|(p, _)| *p == precision)
        .map_or(0, |&(_, n)| n)
}

/// Plans `spec`, or says why it cannot be planned.
pub fn plan(spec: &FftSpec) -> Result<Plan, Error> {
    let n = spec.n;
    let max = max_size(spec.precision);
    match n {
        0 => return Err(Error::ZeroSize),
        1 => return Err(Error::TrivialSize),
        _ => {}
    }
    // Size first: factoring a huge n by trial division would take minutes.
    if n > max {
        return Err(Error::TooLarge {
            n,
            precision: spec.precision,
            max,
        });
    }
    if !is_smooth(n) {
        let prime = *prime_factors(n).last().expect("n >= 2 has a prime factor");
        return Err(Error::UnsupportedPrime {
            n,
            prime,
            suggestion: nearest_supported(n, max),
        });
    }
    if spec.directions.is_empty() {
        return Err(Error::NoDirection);
    }
    // A user's radices are used as given; otherwise a measured shape, then
    // the heuristic. Threads and launch bound given by the user win over
    // measured ones.
    let measured = match spec.radices {
        Some(_) => None,
        None => measured_shape(n, spec.precision, spec.target, spec.gpu.as_deref()),
    };
    let radices = match (&spec.radices, &measured) {
        (Some(radices), _) => validate_radices(n, radices)?,
        (None, Some(measured)) => measured.radices.clone(),
        (None, None) => choose(
            n,
            spec.precision.complex_bytes(),
            max_values_per_thread(spec.precision),
            MAX_THREADS_PER_BLOCK,
        )
        .ok_or(Error::TooLarge {
            n,
            precision: spec.precision,
            max,
        })?,
    };
    let threads_per_fft = spec
        .threads_per_fft
        .or(measured.as_ref().and_then(|m| m.threads_per_fft));
    let min_blocks_per_sm = spec
        .min_blocks_per_sm
        .or(measured.as_ref().and_then(|m| m.min_blocks_per_sm));
    if let Some(blocks) = min_blocks_per_sm {
        if blocks == 0 || blocks > MAX_BLOCKS_PER_SM {
            return Err(Error::BadMinBlocksPerSm { blocks });
        }
    }
    let mut pass = plan_pass(
        n,
        &radices,
        Choices {
            threads_per_fft,
            ffts_per_block: spec
                .ffts_per_block
                .or(measured.as_ref().and_then(|m| m.ffts_per_block)),
            exchange_buffers: spec
                .exchange_buffers
                .or(measured.as_ref().and_then(|m| m.exchange_buffers)),
            padding_search: spec
                .padding_search
                .or(measured.as_ref().and_then(|m| m.padding_search)),
            // A measured one-part exchange gives way to alternating buffers
            // asked for by the user, which need both parts.
            exchange_width: spec.exchange_width.or(measured
                .as_ref()
                .filter(|_| spec.exchange_buffers != Some(ExchangeBuffers::Alternating))
                .and_then(|m| m.exchange_width)),
        },
        spec.precision,
        max_values_per_thread(spec.precision),
    )?;
    if let Some(blocks) = min_blocks_per_sm {
        pass.min_blocks_per_sm = blocks;
    }
    pass.input_caching = spec
        .input_caching
        .or(measured.as_ref().and_then(|m| m.input_caching))
        .unwrap_or(InputCaching::L1AndL2);
    pass.first_write = spec
        .first_write
        .or(measured.as_ref().and_then(|m| m.first_write))
        .unwrap_or(FirstWrite::AfterBarrier);
    Ok(Plan {
        n,
        precision: spec.precision,
        directions: spec.directions.clone(),
        normalization: spec.normalization,
        placement: spec.placement,
        passes: vec![pass],
    })
}

fn validate_radices(n: usize, radices: &[usize]) -> Result<Vec<usize>, Error> {
    if radices.is_empty() {
        return Err(Error::EmptyRadixList);
    }
    if let Some(&radix) = radices.iter().find(|&&r| !is_supported_radix(r)) {
        return Err(Error::UnsupportedRadix { radix });
    }
    let product = radices
        .iter()
        .try_fold(1usize, |acc, &r| acc.checked_mul(r))
        .unwrap_or(usize::MAX);
    if product != n {
        return Err(Error::RadixProduct {
            radices: radices.to_vec(),
            product,
            n,
        });
    }
    Ok(radices.to_vec())
}

/// Shape choices made for the planner (by the user or a measurement).
struct Choices {
    threads_per_fft: Option<usize>,
    ffts_per_block: Option<usize>,
    exchange_buffers: Option<ExchangeBuffers>,
    exchange_width: Option<ExchangeWidth>,
    padding_search: Option<PaddingSearch>,
}

/// The single-kernel pass for `radices`, with the `choices` given.
fn plan_pass(
    n: usize,
    radices: &[usize],
    choices: Choices,
    precision: Precision,
    max_values: usize,
) -> Result<Pass, Error> {
    let (threads_per_fft, values) = match choices.threads_per_fft {
        None => thread_shape(n, radices, max_values),
        Some(threads) => {
            // A thread past the largest stage's butterflies would never work.
            let most_butterflies = n / radices.iter().copied().min().unwrap_or(n);
            let max = most_butterflies.min(MAX_THREADS_PER_BLOCK);
            if threads == 0 || threads > max {
                return Err(Error::BadThreadsPerFft {
                    threads,
                    n,
                    radices: radices.to_vec(),
                    max,
                });
            }
            (threads, values_per_thread(n, radices, threads))
        }
    };
    let unlaunchable = |reason: String| Error::UnlaunchableRadices {
        radices: radices.to_vec(),
        reason,
    };
    if threads_per_fft > MAX_THREADS_PER_BLOCK {
        return Err(unlaunchable(format!(
            "they need {threads_per_fft} threads per transform (n / lcm of the radices), more than the {MAX_THREADS_PER_BLOCK} a block can hold"
        )));
    }

    // An interleaved exchange stores whole complex values: its banks are
    // those of an element twice as wide.
    let banks = match choices.exchange_width {
        Some(ExchangeWidth::Interleaved) => bank_words(precision.complex_bytes()),
        _ => bank_words(precision.real_bytes()),
    };
    let padding_search = choices.padding_search.unwrap_or(PaddingSearch::EvenRadices);
    let lanes = if threads_per_fft >= 32 {
        LaneLayout::FftMajor
    } else {
        LaneLayout::FftMinor
    };
    let mut stages = Vec::with_capacity(radices.len());
    let mut stride = 1;
    let mut twiddle_len = 0;
    for (s, &radix) in radices.iter().enumerate() {
        let last = s + 1 == radices.len();
        let exchange = (!last).then(|| match lanes {
            LaneLayout::FftMajor => Padding::for_exchange(
                Exchange {
                    n,
                    threads: threads_per_fft,
                    radix,
                    stride,
                    next_radix: radices[s + 1],
                    bank_words: banks,
                },
                padding_search,
            ),
            // Lanes of a warp read the same index of different FFTs: the odd
            // FFT stride alone spreads them over the banks.
            LaneLayout::FftMinor => Padding::NONE,
        });
        let twiddle_offset = (stride > 1).then_some(twiddle_len);
        if stride > 1 {
            twiddle_len += stride * (radix - 1);
        }
        stages.push(Stage {
            radix,
            stride,
            butterflies_per_thread: (n / radix).div_ceil(threads_per_fft),
            guarded: (n / radix) % threads_per_fft != 0,
            twiddle_offset,
            exchange,
        });
        stride *= radix;
    }

    let padded = stages
        .iter()
        .filter_map(|s| s.exchange)
        .map(|p| p.padded_len(n))
        .max()
        .unwrap_or(n);
    let (fft_stride, io) = match lanes {
        LaneLayout::FftMajor => (padded, GlobalIo::Direct),
        LaneLayout::FftMinor => (n | 1, GlobalIo::StagedThroughShared),
    };
    let both_parts = fft_stride * 2 * precision.real_bytes();
    let one_part = fft_stride * precision.real_bytes();
    let one_part_fits = one_part <= PLANNED_SHARED_BYTES && io == GlobalIo::Direct;
    let (exchange_width, bytes_per_fft) = match choices.exchange_width {
        None if both_parts <= PLANNED_SHARED_BYTES => (ExchangeWidth::BothParts, both_parts),
        None if one_part_fits => (ExchangeWidth::OnePartAtATime, one_part),
        None => {
            return Err(Error::TooLarge {
                n,
                precision,
                max: max_size(precision),
            })
        }
        Some(ExchangeWidth::BothParts) if both_parts <= PLANNED_SHARED_BYTES => {
            (ExchangeWidth::BothParts, both_parts)
        }
        Some(ExchangeWidth::OnePartAtATime) if one_part_fits => {
            (ExchangeWidth::OnePartAtATime, one_part)
        }
        Some(ExchangeWidth::Interleaved)
            if both_parts <= PLANNED_SHARED_BYTES && io == GlobalIo::Direct =>
        {
            (ExchangeWidth::Interleaved, both_parts)
        }
        Some(width) => {
            return Err(Error::ExchangeWidthUnfit {
                n,
                width,
                reason: match width {
                    ExchangeWidth::OnePartAtATime => format!(
                        "its {threads_per_fft} threads per transform stage the input through \
                         shared memory, which needs both parts"
                    ),
                    ExchangeWidth::Interleaved if io != GlobalIo::Direct => format!(
                        "its {threads_per_fft} threads per transform stage the input through \
                         shared memory in two arrays"
                    ),
                    ExchangeWidth::BothParts | ExchangeWidth::Interleaved => format!(
                        "both parts take {both_parts} bytes, over the {PLANNED_SHARED_BYTES} \
                         bytes of shared memory a block may declare"
                    ),
                },
            })
        }
    };
    let exchange_buffers = choices.exchange_buffers.unwrap_or(ExchangeBuffers::Reused);
    let bytes_per_fft = match exchange_buffers {
        ExchangeBuffers::Reused => bytes_per_fft,
        ExchangeBuffers::Alternating => {
            let unfit = |reason: String| Error::AlternatingBuffersUnfit { n, reason };
            if exchange_width == ExchangeWidth::OnePartAtATime {
                return Err(unfit(
                    "the one-part exchange, there to save shared memory, keeps one set".into(),
                ));
            }
            if io != GlobalIo::Direct {
                return Err(unfit(format!(
                    "its {threads_per_fft} threads per transform stage the input through shared memory"
                )));
            }
            if 2 * bytes_per_fft > PLANNED_SHARED_BYTES {
                return Err(unfit(format!(
                    "two sets of its exchange arrays take {} bytes, over the {PLANNED_SHARED_BYTES} \
                     bytes of shared memory a block may declare",
                    2 * bytes_per_fft
                )));
            }
            2 * bytes_per_fft
        }
    };
    let most_ffts =
        (PLANNED_SHARED_BYTES / bytes_per_fft).min(MAX_THREADS_PER_BLOCK / threads_per_fft);
    let ffts_per_block = match choices.ffts_per_block {
        None => (TARGET_THREADS_PER_BLOCK / threads_per_fft)
            .max(1)
            .min(most_ffts),
        Some(ffts) if (1..=most_ffts).contains(&ffts) => ffts,
        Some(ffts) => {
            return Err(Error::BadFftsPerBlock {
                ffts,
                n,
                max: most_ffts,
                threads_per_fft,
                bytes_per_fft,
            })
        }
    };
    let threads_per_block = ffts_per_block * threads_per_fft;
    let shared_bytes = ffts_per_block * bytes_per_fft;
    Ok(Pass {
        n,
        stages,
        threads_per_fft,
        values_per_thread: values,
        ffts_per_block,
        threads_per_block,
        min_blocks_per_sm: match lanes {
            LaneLayout::FftMajor => {
                min_blocks_per_sm(threads_per_block, shared_bytes, values, precision)
            }
            // Staged small transforms were measured fastest with the compiler
            // free to use registers (docs/perf.md): shared memory, not
            // latency, bounds them.
            LaneLayout::FftMinor => 1,
        },
        lanes,
        io,
        input_caching: InputCaching::L1AndL2,
        fft_stride,
        exchange_width,
        exchange_buffers,
        first_write: FirstWrite::AfterBarrier,
        padding_search,
        shared_bytes,
        twiddles: Twiddles::RoundedF64Table { len: twiddle_len },
    })
}

/// Threads a multiprocessor should hold so that enough loads are in flight
/// to cover memory latency (half of a Hopper SM's 2048).
const TARGET_RESIDENT_THREADS: usize = 1024;

/// Shared memory of one Hopper multiprocessor available to blocks, with the
/// 1 KiB the hardware reserves per block.
const SHARED_BYTES_PER_SM: usize = 228 * 1024;

/// Registers per multiprocessor, and the granularity of a thread's share.
const REGISTERS_PER_SM: usize = 65536;
const REGISTER_GRANULE: usize = 8;

/// Registers a thread needs to hold `values` complex values and the
/// butterfly's temporaries without spilling: about four per complex value
/// held (in 32-bit words) plus a fixed overhead. Fitted to ptxas reports for
/// sm_90 over every supported size: three per value spilled for composite
/// radices such as 12 and 18; `tests/nvrtc_compile.rs` fails on any spill.
fn registers_needed(values: usize, precision: Precision) -> usize {
    let words = precision.real_bytes() / 4;
    4 * values * words + 16
}

/// Blocks per SM to ask the compiler for: enough for the resident-thread
/// target, no more than shared memory allows, and few enough that the
/// register budget this implies still holds the thread's values.
fn min_blocks_per_sm(
    threads_per_block: usize,
    shared_bytes: usize,
    values: usize,
    precision: Precision,
) -> usize {
    let wanted = TARGET_RESIDENT_THREADS.div_ceil(threads_per_block);
    let fit = SHARED_BYTES_PER_SM / (shared_bytes + 1024);
    let warp_threads = threads_per_block.div_ceil(32) * 32;
    let budget = |blocks: usize| {
        REGISTERS_PER_SM / (blocks * warp_threads) / REGISTER_GRANULE * REGISTER_GRANULE
    };
    let need = registers_needed(values, precision);
    (1..=wanted.min(fit))
        .rev()
        .find(|&blocks| budget(blocks) >= need.min(255))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::LaneLayout;

    #[test]
    fn n4096_radix_8_plan_shape() {
        let plan = plan(&FftSpec::new(4096).radices(&[8, 8, 8, 8])).unwrap();
        let pass = &plan.passes[0];
        assert_eq!(pass.radices(), vec![8, 8, 8, 8]);
        // n / lcm = 512 threads, split to the portable 256 with two butterflies each.
        assert_eq!(pass.threads_per_fft, 256);
        assert_eq!(pass.values_per_thread, 16);
        assert!(pass
            .stages
            .iter()
            .all(|s| s.butterflies_per_thread == 2 && !s.guarded));
        assert_eq!(pass.ffts_per_block, 1);
        assert_eq!(pass.lanes, LaneLayout::FftMajor);
        assert_eq!(
            pass.stages.iter().map(|s| s.stride).collect::<Vec<_>>(),
            vec![1, 8, 64, 512]
        );
        assert_eq!(pass.stages[0].twiddle_offset, None);
        assert_eq!(pass.stages[1].twiddle_offset, Some(0));
        assert_eq!(pass.twiddles, Twiddles::RoundedF64Table { len: 4096 - 8 });
        assert_eq!(
            pass.stages[0].exchange,
            Some(Padding { period: 32, gap: 1 })
        );
        assert_eq!(
            pass.stages[1].exchange,
            Some(Padding { period: 64, gap: 8 })
        );
        assert_eq!(pass.stages[2].exchange, Some(Padding::NONE));
        assert!(pass.shared_bytes <= PLANNED_SHARED_BYTES);
    }

    #[test]
    fn f64_4096_exchanges_one_part_at_a_time() {
        let pass = &plan(&FftSpec::new(4096).precision(Precision::F64))
            .unwrap()
            .passes[0];
        assert_eq!(pass.exchange_width, ExchangeWidth::OnePartAtATime);
        assert_eq!(pass.io, GlobalIo::Direct);
        assert_eq!(pass.shared_bytes, pass.ffts_per_block * pass.fft_stride * 8);
        assert!(pass.shared_bytes <= PLANNED_SHARED_BYTES);
        // Everything that fits both parts keeps the two-barrier exchange.
        let pass = &plan(&FftSpec::new(2048).precision(Precision::F64))
            .unwrap()
            .passes[0];
        assert_eq!(pass.exchange_width, ExchangeWidth::BothParts);
    }

    #[test]
    fn small_sizes_fill_a_block_with_interleaved_lanes() {
        let pass = &plan(&FftSpec::new(16)).unwrap().passes[0];
        assert_eq!(pass.radices(), vec![16]);
        assert_eq!(pass.threads_per_fft, 1);
        assert_eq!(pass.ffts_per_block, 256);
        assert_eq!(pass.lanes, LaneLayout::FftMinor);
        assert_eq!(pass.fft_stride, 17);
    }

    #[test]
    fn threads_per_fft_can_be_chosen() {
        // 2401 = 7^4 on 343 threads: one radix-7 butterfly each, no guard.
        let spec = FftSpec::new(2401)
            .radices(&[7, 7, 7, 7])
            .threads_per_fft(343);
        let pass = &plan(&spec).unwrap().passes[0];
        assert_eq!(pass.threads_per_fft, 343);
        assert_eq!(pass.values_per_thread, 7);
        assert!(pass
            .stages
            .iter()
            .all(|s| s.butterflies_per_thread == 1 && !s.guarded));
        // 100 threads: four butterflies for some, three for others.
        let spec = FftSpec::new(2401).threads_per_fft(100);
        let pass = &plan(&spec).unwrap().passes[0];
        assert_eq!(pass.values_per_thread, 28);
        assert!(pass.stages.iter().all(|s| s.guarded));
        for threads in [0, 344] {
            let spec = FftSpec::new(2401)
                .radices(&[7, 7, 7, 7])
                .threads_per_fft(threads);
            assert_eq!(
                plan(&spec),
                Err(Error::BadThreadsPerFft {
                    threads,
                    n: 2401,
                    radices: vec![7, 7, 7, 7],
                    max: 343
                })
            );
        }
        assert!(matches!(
            plan(&FftSpec::new(4096).radices(&[2; 12]).threads_per_fft(1025)),
            Err(Error::BadThreadsPerFft { max: 1024, .. })
        ));
    }

    #[test]
    fn ffts_per_block_can_be_chosen_within_what_a_block_holds() {
        let pass = &plan(&FftSpec::new(1331).ffts_per_block(1)).unwrap().passes[0];
        assert_eq!((pass.ffts_per_block, pass.threads_per_block), (1, 121));
        assert_eq!(pass.shared_bytes, 1331 * 8);
        // 121 threads each: 8 fit in 1024.
        for ffts in [0, 9] {
            assert!(
                matches!(
                    plan(&FftSpec::new(1331).ffts_per_block(ffts)),
                    Err(Error::BadFftsPerBlock { max: 4, .. })
                ),
                "{ffts}"
            );
        }
    }

    #[test]
    fn launch_bound_can_be_chosen_within_what_an_sm_holds() {
        let pass = &plan(&FftSpec::new(1331).min_blocks_per_sm(3))
            .unwrap()
            .passes[0];
        assert_eq!(pass.min_blocks_per_sm, 3);
        for blocks in [0, MAX_BLOCKS_PER_SM + 1] {
            assert_eq!(
                plan(&FftSpec::new(1331).min_blocks_per_sm(blocks)),
                Err(Error::BadMinBlocksPerSm { blocks })
            );
        }
    }

    #[test]
    fn input_caching_comes_from_the_user_then_a_measurement() {
        let planned = |spec: FftSpec| plan(&spec).unwrap().passes[0].input_caching;
        assert_eq!(planned(FftSpec::new(1331)), InputCaching::L2Only);
        assert_eq!(planned(FftSpec::new(64)), InputCaching::L2Only);
        assert_eq!(planned(FftSpec::new(4096)), InputCaching::L1AndL2);
        assert_eq!(
            planned(FftSpec::new(1331).input_caching(InputCaching::L1AndL2)),
            InputCaching::L1AndL2
        );
        assert_eq!(
            planned(FftSpec::new(256).input_caching(InputCaching::L2Only)),
            InputCaching::L2Only
        );
        // Radices given by hand skip the measured table, its caching too.
        assert_eq!(
            planned(FftSpec::new(1331).radices(&[11, 11, 11])),
            InputCaching::L1AndL2
        );
    }

    #[test]
    fn exchange_layouts_can_be_chosen_where_they_fit() {
        let pass = |spec: FftSpec| plan(&spec).map(|p| p.passes[0].clone());
        // Two sets of arrays double the shared memory of the same shape.
        let reused = pass(FftSpec::new(2401)).unwrap();
        let alternating =
            pass(FftSpec::new(2401).exchange_buffers(ExchangeBuffers::Alternating)).unwrap();
        assert_eq!(reused.exchange_buffers, ExchangeBuffers::Reused);
        assert_eq!(alternating.shared_bytes, 2 * reused.shared_bytes);
        // Not where two sets exceed a block's shared memory, nor for staged
        // small sizes, nor with the one-part exchange.
        for spec in [
            FftSpec::new(4000),
            FftSpec::new(64),
            FftSpec::new(2401).exchange_width(ExchangeWidth::OnePartAtATime),
        ] {
            assert!(matches!(
                pass(spec.exchange_buffers(ExchangeBuffers::Alternating)),
                Err(Error::AlternatingBuffersUnfit { .. })
            ));
        }
        // The one-part exchange halves it, where the input is read directly.
        let one_part = pass(
            FftSpec::new(2401)
                .radices(&[7, 7, 7, 7])
                .exchange_width(ExchangeWidth::OnePartAtATime),
        )
        .unwrap();
        assert_eq!(one_part.exchange_width, ExchangeWidth::OnePartAtATime);
        assert_eq!(one_part.shared_bytes, 2401 * 4);
        assert!(matches!(
            pass(FftSpec::new(64).exchange_width(ExchangeWidth::OnePartAtATime)),
            Err(Error::ExchangeWidthUnfit { .. })
        ));
        // Whole complex values: the shared memory of both parts, padded for
        // 8-byte elements.
        let interleaved = pass(
            FftSpec::new(4096)
                .radices(&[16, 16, 16])
                .exchange_width(ExchangeWidth::Interleaved),
        )
        .unwrap();
        assert_eq!(interleaved.exchange_width, ExchangeWidth::Interleaved);
        assert_eq!(interleaved.shared_bytes, interleaved.fft_stride * 8);
        assert_eq!(
            interleaved.stages[0].exchange,
            Some(Padding::for_stage(16, 1, 16))
        );
        assert!(matches!(
            pass(FftSpec::new(64).exchange_width(ExchangeWidth::Interleaved)),
            Err(Error::ExchangeWidthUnfit { .. })
        ));
        assert!(matches!(
            pass(
                FftSpec::new(4096)
                    .precision(Precision::F64)
                    .exchange_width(ExchangeWidth::BothParts)
            ),
            Err(Error::ExchangeWidthUnfit { .. })
        ));
    }

    #[test]
    fn first_write_comes_from_the_user_then_a_measurement() {
        let planned = |spec: FftSpec| plan(&spec).unwrap().passes[0].first_write;
        assert_eq!(planned(FftSpec::new(2187)), FirstWrite::AfterBarrier);
        assert_eq!(
            planned(FftSpec::new(2187).gpu("H200")),
            FirstWrite::Immediate
        );
        assert_eq!(
            planned(FftSpec::new(512).gpu("H200")),
            FirstWrite::AfterBarrier
        );
        assert_eq!(
            planned(
                FftSpec::new(2187)
                    .gpu("H200")
                    .first_write(FirstWrite::AfterBarrier)
            ),
            FirstWrite::AfterBarrier
        );
        assert_eq!(
            planned(FftSpec::new(512).first_write(FirstWrite::Immediate)),
            FirstWrite::Immediate
        );
    }

    #[test]
    fn odd_radices_are_padded_only_when_asked() {
        let paddings = |spec: FftSpec| -> Vec<Option<Padding>> {
            plan(&spec).unwrap().passes[0]
                .stages
                .iter()
                .map(|s| s.exchange)
                .collect()
        };
        let n2197 = || FftSpec::new(2197).radices(&[13, 13, 13]);
        assert_eq!(
            paddings(n2197()),
            vec![Some(Padding::NONE), Some(Padding::NONE), None]
        );
        assert_eq!(
            paddings(n2197().padding_search(PaddingSearch::AllRadices)),
            vec![
                Some(Padding::NONE),
                Some(Padding {
                    period: 169,
                    gap: 4
                }),
                None
            ]
        );
        let pass = &plan(&n2197().padding_search(PaddingSearch::AllRadices))
            .unwrap()
            .passes[0];
        assert_eq!(pass.padding_search, PaddingSearch::AllRadices);
        assert_eq!(
            pass.fft_stride,
            Padding {
                period: 169,
                gap: 4
            }
            .padded_len(2197)
        );
    }

    #[test]
    fn bad_requests_are_errors() {
        assert_eq!(plan(&FftSpec::new(0)), Err(Error::ZeroSize));
        assert!(matches!(
            plan(&FftSpec::new(17)),
            Err(Error::UnsupportedPrime { prime: 17, .. })
        ));
        assert!(matches!(
            plan(&FftSpec::new(8192)),
            Err(Error::TooLarge { .. })
        ));
        assert!(matches!(
            plan(&FftSpec::new(8192).precision(Precision::F64)),
            Err(Error::TooLarge { max: 4096, .. })
        ));
        assert!(matches!(
            plan(&FftSpec::new(64).radices(&[8, 4])),
            Err(Error::RadixProduct { product: 32, .. })
        ));
        assert!(matches!(
            plan(&FftSpec::new(34).radices(&[2, 17])),
            Err(Error::UnsupportedPrime { .. })
        ));
        assert!(matches!(
            plan(&FftSpec::new(4096).radices(&[2; 12])),
            Err(Error::UnlaunchableRadices { .. })
        ));
    }

    #[test]
    fn every_supported_size_plans_within_gpu_limits() {
        for (precision, max) in MAX_SINGLE_KERNEL {
            for n in crate::plan::factor::supported_sizes(max) {
                let plan = plan(&FftSpec::new(n).precision(precision))
                    .unwrap_or_else(|e| panic!("{n}: {e}"));
                let pass = &plan.passes[0];
                assert!(pass.threads_per_block <= MAX_THREADS_PER_BLOCK, "{n}");
                assert!(pass.shared_bytes <= PLANNED_SHARED_BYTES, "{n}");
                assert_eq!(pass.radices().iter().product::<usize>(), n);
            }
        }
    }
}
