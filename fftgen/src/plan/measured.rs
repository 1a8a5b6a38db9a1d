//! Radix schedules measured to beat the heuristic of [`super::radix`] on a
//! GPU, by size and precision (FFTW calls such knowledge wisdom). Each entry
//! names the measurement that justifies it; the radix-schedule autotuner
//! (seed 004) will produce this table instead of a person.

use super::{ExchangeBuffers, ExchangeWidth, FirstWrite, InputCaching, PaddingSearch};
use crate::{Backend, Precision};

/// One measured winner: the radices, and where the measurement beat the
/// planner's shape, the threads per transform, the launch bound, the
/// transforms per block and the caches the input loads go through.
struct Measured {
    precision: Precision,
    n: usize,
    radices: &'static [usize],
    threads_per_fft: Option<usize>,
    min_blocks_per_sm: Option<usize>,
    ffts_per_block: Option<usize>,
    input_caching: Option<InputCaching>,
    exchange_buffers: Option<ExchangeBuffers>,
    exchange_width: Option<ExchangeWidth>,
    first_write: Option<FirstWrite>,
    padding_search: Option<PaddingSearch>,
    /// The GPU model it was measured to win on (a fragment of the device
    /// name); `None`: any GPU (measured on the H100, the first we tuned on).
    gpu: Option<&'static str>,
    /// The shape needs more threads per block than NVIDIA's OpenCL driver
    /// grants, so only plans for CUDA use it.
    cuda_only: bool,
}

impl Measured {
    /// `radices` for `n` in `precision`, on any GPU and backend, with every
    /// other choice left to the planner; entries override what they measured.
    const fn of(precision: Precision, n: usize, radices: &'static [usize]) -> Measured {
        Measured {
            precision,
            n,
            radices,
            threads_per_fft: None,
            min_blocks_per_sm: None,
            ffts_per_block: None,
            input_caching: None,
            exchange_buffers: None,
            exchange_width: None,
            first_write: None,
            padding_search: None,
            gpu: None,
            cuda_only: false,
        }
    }
}

/// The shape a measurement chose for one size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasuredShape {
    pub radices: Vec<usize>,
    pub threads_per_fft: Option<usize>,
    pub min_blocks_per_sm: Option<usize>,
    pub ffts_per_block: Option<usize>,
    pub input_caching: Option<InputCaching>,
    pub exchange_buffers: Option<ExchangeBuffers>,
    pub exchange_width: Option<ExchangeWidth>,
    pub first_write: Option<FirstWrite>,
    pub padding_search: Option<PaddingSearch>,
}

/// `fftgen bench --no-opencl --groups 5 --sizes N --radix N:R1xR2x...` on an
/// H100 (2026-11-22), forward, 1 GiB batches (`scripts/device/tune.sh` with
/// `scripts/device/variants_*.txt` runs such lists; the copy takes 0.713 to
/// 0.715 ms):
/// - Input loads through L2 only ([`InputCaching::L2Only`]), same binary, A
///   (L1 and L2) and B (L2 only) alternating A, B, A, B with 7 groups
///   (2026-11-23, 07:59-08:03 UTC; `scripts/device/ab.sh`,
///   `docs/bench/ab_input_caching.log`): f32 1331 0.7235 and 0.7233 ms
///   against 0.7191 and 0.7193 (cuFFT 0.7219 to 0.7227); f32 64
///   0.7104 and 0.7107 against 0.7053 and 0.7054 (cuFFT 0.7183 to 0.7202);
///   f64 2 0.7131 and 0.7133 against 0.7121 and 0.7118 (cuFFT 0.7110 to
///   0.7134); f64 4 0.7135 twice against 0.7125 and 0.7124 (cuFFT 0.7122 to
///   0.7141). It loses at f32 256 (0.7089 -> 0.7305), 2187 (0.7218 ->
///   0.7258), 2197 (0.7246 -> 0.7295) and f64 128 (0.7174 -> 0.7208), and
///   moves every other size by less than the run-to-run spread. The ncu
///   profile of 1331 (docs/bench/ncu) shows why it can help: L1 hits 47% of
///   requests, the twiddle table losing its lines to input that is never
///   read again.
/// - f32 1331: [11, 11, 11], one transform per block (121 threads) with
///   launch bound 6 (its input through L2 only since 2026-11-23, above);
///   with the input through L1 too: 0.7233, 0.7230 and 0.7228 ms in three
///   runs (cuFFT 0.7232, 0.7231, 0.7225), against the planner's two per
///   block with bound 4 at 0.7276 and 0.7280 (cuFFT 0.7223, 0.7238). One
///   per block with bound 5 0.7224 (cuFFT 0.7218), 7 0.7221 to 0.7239
///   (0.7216 to 0.7230), 8 (the register model's) 0.7334; three and four
///   per block 0.7767 and 0.7472.
/// - f32 2187: [9, 3, 9, 9] on 243 threads with launch bound 4, 0.7204,
///   0.7204, 0.7207 and 0.7211 ms in four runs (cuFFT 0.7217, 0.7215,
///   0.7219, 0.7221); bound 5 0.7250 to 0.7272, 3 0.7504, 6 0.7305 to 0.7325,
///   two per block 0.7342 to 0.7451. Three radix-9 stages and a radix-3 one
///   hold 9 values per thread, where [9, 9, 27] on 81 threads holds 27
///   (0.7455 ms, bound 2 from the register model; 0.7444 with 3, 0.8120 with
///   4). [9, 9, 9, 3] 0.7259 to 0.7337 (bounds 5, 4), [3, 9, 9, 9] 0.7274 to
///   0.7321, [3, 3, 9, 9, 3] 0.8043, [27, 9, 9] 0.758, [27, 27, 3] 0.763,
///   [3, 27, 27] 0.752.
/// - f32 2401 (CUDA only): [7, 7, 7, 7] on 343 threads, one butterfly each,
///   launch bound 4: 0.7240 and 0.7254 ms (cuFFT 0.7273, 0.7282), against
///   0.7890 ms for the portable 172 threads with two butterflies each (14
///   values; 0.7624 and 0.7592 with bounds 5 and 6) and 0.7756 and 0.7761
///   for 343 threads with bound 3. Bounds 5 (32 registers) and 6, measured
///   against 4 on 2026-11-23 (`docs/bench/ab_2401_bounds.log`): 0.7288,
///   0.7285 and 0.7293, 0.7285 ms against 0.7242 and 0.7236 (cuFFT 0.7255
///   to 0.7276); bound 5 with the input through L2 only 0.7283 and 0.7290.
///   NVIDIA's OpenCL refuses 343-thread work-groups of this kernel (at
///   most 256), so OpenCL keeps 172.
/// - f64 4096 ([`ExchangeWidth::OnePartAtATime`](super::ExchangeWidth)):
///   [16, 16, 16] on 256 threads with launch bound 2, 0.7228 ms (cuFFT
///   0.7243); the register model's bound 1 (16 f64 values need about 144
///   registers) 0.7461, bound 3 0.8512; [8, 8, 8, 8] 0.8026 (bound 1),
///   0.7240 (bound 2), 0.7227 on 512 threads (cuFFT 0.7222 in that run).
/// - f64 128: [4, 32] 0.719 ms (99% of the copy), against the heuristic's
///   [16, 8] at 0.843 ms and [8, 16] at 0.851 ms. A 32-point butterfly keeps
///   32 values per thread, over the f64 budget of 16, yet does not spill.
/// - The smallest sizes, staged through shared memory with many transforms per
///   block, gain from a second stage that spreads each transform over more
///   threads (two runs each, ms): f32 4 [2, 2] 0.7071 and 0.7059 against [4]
///   0.7130 and 0.7139 (cuFFT 0.711); f32 8 [2, 4] 0.7109 and 0.7098 against
///   [8] 0.7132 twice; f64 4 [2, 2] 0.7122 and 0.7138 against [4] 0.7152
///   twice; f64 16 [4, 4] 0.7113 and 0.7126 against [16] 0.7177 twice. (f32
///   16 [4, 4], 0.7099 and 0.7095, loses to [16] at 0.7082.)
const MEASURED: &[Measured] = &[
    // The H200 (2026-11-23; `docs/bench/h200_tune*.log` and
    // `h200_coherent_loads.log`, one `fftgen bench --groups 5` run per shape,
    // ms, cuFFT alongside): its memory is 41% faster than the H100's and its
    // SMs the same, so the SM side of each kernel matters more, and higher
    // launch bounds (fewer registers, more resident warps) win where they
    // lost on the H100. The H100's shape, then the H200's:
    // - f32 4: [2, 2] 0.5357, [4] 0.5156 (cuFFT 0.635).
    // - f32 64: input through L2 only 0.5468, through L1 too 0.5106 (0.506).
    // - f32 128: 32 per block 0.5417, 16 per block 0.5155 (0.517).
    // - f32 1000: bound 5 0.5379, 6 0.5278 and 0.5301 (7 0.8670; 1 per
    //   block with 12 0.5270; cuFFT 0.515).
    // - f32 1024: bound 2 0.5227, 4 0.5191 (3 0.5199, 0.5203; cuFFT 0.516).
    // - f32 1331: through L2 only with bound 6 0.5772, through L1 with 6
    //   0.5550 and with 8 0.5312, 0.5315 (10 0.5316, 12 0.5351; 0.523).
    // - f32 2187: bound 4 0.6366, 6 0.5786, 0.5769 (5 0.6045, 7 0.6554;
    //   0.550).
    // - f32 2197: bound 4 0.6052, 6 0.5431 (5 0.5683; cuFFT 0.729).
    // - f32 2401 (CUDA only): bound 4 0.6331, 5 0.5910, 0.5913 (6 0.5938;
    //   0.586).
    // - f32 3125: bound 4 0.5728, 5 0.5513 (6 0.5515; cuFFT 0.701).
    // - f64 128: [4, 32] 0.5561, [32, 4] 0.5263 ([8, 16] 0.7670; 0.509).
    // The same session's second round, after the exchange padding search
    // and the 32-bit staged guards (09:43-09:46 UTC,
    // `docs/bench/h200_tune_round4.log`):
    // - f32 256: [16, 16] on 16 threads (staged) 0.5756 with bound 1, 0.5846
    //   with 2, 0.5225 with 3; on 32 threads, direct, [4, 8, 8] 0.5107,
    //   [8, 8, 4] 0.5137 to 0.5143 (bounds 3, 4); [4, 4, 4, 4] on 64 0.5228,
    //   [16, 4, 4] on 64 0.5899 (cuFFT 0.524).
    // - f32 1024: [32, 32] 0.5194, [16, 8, 8] on 128 threads 0.5100,
    //   [16, 16, 4] on 64 0.5145, [8, 8, 16] on 64 0.5171 (cuFFT 0.517).
    // - f32 4000: [20, 20, 10] with bound 2 0.6012, 3 0.5797, 4 0.5437;
    //   [20, 10, 20] 0.5835; [10, 10, 10, 4] on 400 threads 0.6913;
    //   [8, 10, 10, 5] on 400 0.7391 (cuFFT 0.522).
    // - f32 1000 keeps bound 6: 0.5166 (5 0.5222, 8 0.5322, one per block
    //   with 8 0.5430, [8, 5, 5, 5] on 200 threads 0.5758; cuFFT 0.514).
    // The third session (12:19-12:29 UTC; two rounds, each size's variants
    // back to back; `docs/bench/h200_exchange_variants_round5{a,b}.log`):
    // - The first stage's writes without a barrier before them
    //   (`FirstWrite::Immediate`), against the previous build: f32 2187
    //   0.5763, 0.5762 -> 0.5710, 0.5708; 2401 0.5920, 0.5900 -> 0.5840,
    //   0.5857; 3125 0.5548, 0.5529 -> 0.5512, 0.5497; 4000 0.5460, 0.5453
    //   -> 0.5407, 0.5394. Slower at 256 (0.5155, 0.5163 -> 0.5172, 0.5170),
    //   512 (0.5126, 0.5128 -> 0.5149, 0.5157), 1000 (+0.2%), 1331 (+0.35%),
    //   2197 (0.5470, 0.5468 -> 0.5500, 0.5502), 4096 (+0.2%).
    // - f32 1331 with the one-part exchange (5.3 KiB of shared memory
    //   instead of 10.6, and no first barrier): 0.5290, 0.5287 against
    //   0.5331, 0.5331 for both parts (bound 10 0.5316, 0.5317; cuFFT
    //   0.5215-0.5218). The one-part exchange loses elsewhere: 2187 0.5929
    //   (both parts 0.5735), 2401 0.6151 (0.5865), 2197 0.5567 (0.5455), 4000
    //   0.6250 (0.5374), 1000 0.5237 (0.5197), 512 tied.
    // - Alternating exchange buffers (one barrier per exchange, twice the
    //   shared memory) lose at every size: 2187 0.7057-0.7079 (0.57), 2197
    //   0.6964 (0.55), 1000 0.6182 (0.52), 2048 0.5696 (0.518), 1331 0.5505
    //   (0.536), 2401 0.5986-0.5993 (0.585); 256, 512 and 1024 within 0.5%.
    // The fourth session (16:40-17:05 UTC; `fftgen tune`, every variant of a
    // size timed group by group with cuFFT and the copy, groups spreading
    // 1-11%; `docs/bench/h200_tune_round6_*.log`), planned shape -> winner:
    // - The interleaved exchange (whole `float2` values): 2187 0.6284 ->
    //   0.5745, 2197 0.5831 -> 0.5484, 2401 0.6392 -> 0.5629 (with the odd
    //   padding; 0.5891 without), 3125 0.5684 -> 0.5494, 4000 0.5562 ->
    //   0.5467, 1000 0.5309 -> 0.5178 (cuFFT 0.583, 0.793, 0.621, 0.768,
    //   0.522, 0.518 in those runs). It loses at 1331 (0.5565 against 0.5440
    //   for one part with the odd padding) and ties at 512 and 4096.
    // - The first barrier: within 1% either way at these sizes, the winner
    //   changing between runs; still left out at 2187, 3125 and 4000 as the
    //   third session measured, back at 1331 and 2401 (their winners had
    //   it), and left out in f64 4096 (0.5305 -> 0.5261, groups within
    //   0.4%; cuFFT 0.518).
    // - f32 64 through L2 only with bound 3: 0.5107 -> 0.5076 (bound 1 or
    //   2 through L2 only 0.541; cuFFT 0.506).
    // - f32 4000 as [10, 20, 20], the rest pinned, three rounds back to back
    //   (`docs/bench/h200_radix_orders_round6.log`): 0.5219, 0.5245, 0.5250
    //   against 0.5329, 0.5352, 0.5368 for [20, 20, 10] (cuFFT 0.5227 to
    //   0.5252). 3125 as [5, 25, 25] (0.5366-0.5387 against 0.5385-0.5416)
    //   and 2187 as [9, 9, 3, 9] (0.5448-0.5628 against 0.5465-0.5775) were
    //   not clearly ahead and keep their order.
    // The fifth session (18:19-18:26 UTC; `fftgen tune --vary
    // factorization`, `docs/bench/h200_tune_round7_factorization_*.log`):
    // every other radix schedule within a stage of these plans is slower:
    // f64 4 [4] 0.5234 (planned 0.5187), f64 128 [8, 4, 4] on 16 threads
    // 0.5302 (0.5253), f32 64 [16, 4] 0.5198 (0.5107), 1000 [10, 10, 5, 2]
    // 0.5512 (0.5193), 2187 [9, 9, 3, 3, 3] 0.6347 (0.5495), 3125
    // [25, 5, 5, 5] 0.5885 (0.5466), 4000 [25, 16, 10] 0.5732 (0.5518).
    // - Then smaller blocks for the sizes staged through shared memory, two
    //   rounds each, every choice pinned, one bench process per shape
    //   (`docs/bench/h200_variants_round7_{f64,small}.log`), planned ->
    //   measured: f64 4 with 32 transforms per block (64 threads) and the
    //   input through L1 0.5160, 0.5157 -> 0.5023, 0.5025 (64 per block
    //   0.5028, 0.5035; cuFFT 0.5044-0.5049); f64 2 with 64 per block
    //   through L1 0.5192, 0.5189 -> 0.5050, 0.5046 (0.634); f32 4 with 64
    //   per block 0.5163, 0.5163 -> 0.5061, 0.5058 (0.635); f32 32 with 64
    //   per block 0.5215, 0.5218 -> 0.5158, 0.5156 (0.670); f64 8 with 64
    //   per block 0.5229, 0.5232 -> 0.5196, 0.5200 (0.605). f32 2 with 64
    //   per block is slower (0.5163 -> 0.6349), and f64 128 on 16 threads
    //   as [8, 4, 4] stays behind [32, 4] at every block size and bound
    //   tried (0.5299-0.6106 against 0.5252-0.5264).
    Measured {
        threads_per_fft: Some(32),
        gpu: Some("H200"),
        ..Measured::of(Precision::F32, 256, &[4, 8, 8])
    },
    Measured {
        threads_per_fft: Some(128),
        gpu: Some("H200"),
        ..Measured::of(Precision::F32, 1024, &[16, 8, 8])
    },
    Measured {
        min_blocks_per_sm: Some(4),
        exchange_width: Some(ExchangeWidth::Interleaved),
        first_write: Some(FirstWrite::Immediate),
        gpu: Some("H200"),
        ..Measured::of(Precision::F32, 4000, &[10, 20, 20])
    },
    Measured {
        ffts_per_block: Some(64),
        gpu: Some("H200"),
        ..Measured::of(Precision::F32, 4, &[4])
    },
    Measured {
        threads_per_fft: Some(1),
        ffts_per_block: Some(64),
        gpu: Some("H200"),
        ..Measured::of(Precision::F32, 32, &[32])
    },
    Measured {
        min_blocks_per_sm: Some(3),
        input_caching: Some(InputCaching::L2Only),
        gpu: Some("H200"),
        ..Measured::of(Precision::F32, 64, &[8, 8])
    },
    Measured {
        ffts_per_block: Some(16),
        gpu: Some("H200"),
        ..Measured::of(Precision::F32, 128, &[16, 8])
    },
    Measured {
        min_blocks_per_sm: Some(6),
        exchange_width: Some(ExchangeWidth::Interleaved),
        gpu: Some("H200"),
        ..Measured::of(Precision::F32, 1000, &[10, 10, 10])
    },
    Measured {
        min_blocks_per_sm: Some(8),
        ffts_per_block: Some(1),
        input_caching: Some(InputCaching::L1AndL2),
        exchange_width: Some(ExchangeWidth::OnePartAtATime),
        padding_search: Some(PaddingSearch::AllRadices),
        gpu: Some("H200"),
        ..Measured::of(Precision::F32, 1331, &[11, 11, 11])
    },
    Measured {
        min_blocks_per_sm: Some(6),
        exchange_width: Some(ExchangeWidth::Interleaved),
        first_write: Some(FirstWrite::Immediate),
        padding_search: Some(PaddingSearch::AllRadices),
        gpu: Some("H200"),
        ..Measured::of(Precision::F32, 2187, &[9, 3, 9, 9])
    },
    Measured {
        min_blocks_per_sm: Some(6),
        exchange_width: Some(ExchangeWidth::Interleaved),
        gpu: Some("H200"),
        ..Measured::of(Precision::F32, 2197, &[13, 13, 13])
    },
    Measured {
        threads_per_fft: Some(343),
        min_blocks_per_sm: Some(5),
        exchange_width: Some(ExchangeWidth::Interleaved),
        padding_search: Some(PaddingSearch::AllRadices),
        gpu: Some("H200"),
        cuda_only: true,
        ..Measured::of(Precision::F32, 2401, &[7, 7, 7, 7])
    },
    Measured {
        min_blocks_per_sm: Some(5),
        exchange_width: Some(ExchangeWidth::Interleaved),
        first_write: Some(FirstWrite::Immediate),
        gpu: Some("H200"),
        ..Measured::of(Precision::F32, 3125, &[25, 25, 5])
    },
    Measured {
        ffts_per_block: Some(64),
        input_caching: Some(InputCaching::L1AndL2),
        gpu: Some("H200"),
        ..Measured::of(Precision::F64, 2, &[2])
    },
    Measured {
        threads_per_fft: Some(2),
        ffts_per_block: Some(32),
        input_caching: Some(InputCaching::L1AndL2),
        gpu: Some("H200"),
        ..Measured::of(Precision::F64, 4, &[2, 2])
    },
    Measured {
        ffts_per_block: Some(64),
        gpu: Some("H200"),
        ..Measured::of(Precision::F64, 8, &[8])
    },
    Measured {
        gpu: Some("H200"),
        ..Measured::of(Precision::F64, 128, &[32, 4])
    },
    Measured {
        min_blocks_per_sm: Some(2),
        first_write: Some(FirstWrite::Immediate),
        gpu: Some("H200"),
        ..Measured::of(Precision::F64, 4096, &[16, 16, 16])
    },
    Measured {
        input_caching: Some(InputCaching::L2Only),
        ..Measured::of(Precision::F32, 64, &[8, 8])
    },
    Measured {
        input_caching: Some(InputCaching::L2Only),
        ..Measured::of(Precision::F64, 2, &[2])
    },
    Measured::of(Precision::F32, 4, &[2, 2]),
    Measured::of(Precision::F32, 8, &[2, 4]),
    Measured {
        input_caching: Some(InputCaching::L2Only),
        ..Measured::of(Precision::F64, 4, &[2, 2])
    },
    Measured::of(Precision::F64, 16, &[4, 4]),
    Measured {
        min_blocks_per_sm: Some(4),
        ..Measured::of(Precision::F32, 2187, &[9, 3, 9, 9])
    },
    Measured {
        min_blocks_per_sm: Some(6),
        ffts_per_block: Some(1),
        input_caching: Some(InputCaching::L2Only),
        ..Measured::of(Precision::F32, 1331, &[11, 11, 11])
    },
    Measured {
        threads_per_fft: Some(343),
        min_blocks_per_sm: Some(4),
        cuda_only: true,
        ..Measured::of(Precision::F32, 2401, &[7, 7, 7, 7])
    },
    Measured {
        min_blocks_per_sm: Some(2),
        ..Measured::of(Precision::F64, 4096, &[16, 16, 16])
    },
    Measured::of(Precision::F64, 128, &[4, 32]),
];

/// GPU models with shapes of their own in the table.
pub const TUNED_GPUS: &[&str] = &["H200"];

/// The table's key for a device called `device_name` (as its driver reports
/// it, e.g. `NVIDIA H200`), if the table has shapes of its own for it.
pub fn gpu_key(device_name: &str) -> Option<&'static str> {
    TUNED_GPUS
        .iter()
        .copied()
        .find(|model| device_name.contains(model))
}

/// The sizes (and precisions) the table has shapes of its own for on GPU
/// model `gpu`.
pub fn tuned_sizes(gpu: &str) -> Vec<(Precision, usize)> {
    MEASURED
        .iter()
        .filter(|m| m.gpu == Some(gpu))
        .map(|m| (m.precision, m.n))
        .collect()
}

/// The measured shape for `n` in `precision` on `target` (`None`: one that
/// every backend launches) and GPU model `gpu` (a [`TUNED_GPUS`] key, or
/// `None` for any), if there is one: a shape measured on that model first,
/// then one measured for any GPU.
pub fn measured_shape(
    n: usize,
    precision: Precision,
    target: Option<Backend>,
    gpu: Option<&str>,
) -> Option<MeasuredShape> {
    let cuda = target == Some(Backend::Cuda);
    let candidates = || {
        MEASURED
            .iter()
            .filter(move |m| (cuda || !m.cuda_only) && m.n == n && m.precision == precision)
    };
    candidates()
        .find(|m| m.gpu.is_some() && m.gpu == gpu)
        .or_else(|| candidates().find(|m| m.gpu.is_none()))
        .map(|m| MeasuredShape {
            radices: m.radices.to_vec(),
            threads_per_fft: m.threads_per_fft,
            min_blocks_per_sm: m.min_blocks_per_sm,
            ffts_per_block: m.ffts_per_block,
            input_caching: m.input_caching,
            exchange_buffers: m.exchange_buffers,
            exchange_width: m.exchange_width,
            first_write: m.first_write,
            padding_search: m.padding_search,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_multiplies_to_its_size() {
        for m in MEASURED {
            assert_eq!(m.radices.iter().product::<usize>(), m.n);
        }
    }

    #[test]
    fn cuda_only_shapes_are_for_cuda_plans_only() {
        let cuda = measured_shape(2401, Precision::F32, Some(Backend::Cuda), None).unwrap();
        assert_eq!(cuda.threads_per_fft, Some(343));
        assert_eq!(measured_shape(2401, Precision::F32, None, None), None);
        assert_eq!(
            measured_shape(2401, Precision::F32, Some(Backend::OpenCl), None),
            None
        );
    }

    #[test]
    fn every_gpu_of_the_table_is_a_tuned_gpu() {
        for m in MEASURED {
            if let Some(gpu) = m.gpu {
                assert!(TUNED_GPUS.contains(&gpu), "{gpu} is not in TUNED_GPUS");
            }
        }
    }

    #[test]
    fn a_gpu_model_prefers_its_own_shapes() {
        assert_eq!(gpu_key("NVIDIA H200"), Some("H200"));
        assert_eq!(gpu_key("NVIDIA H100 80GB HBM3"), None);
        let shape = |n, gpu| measured_shape(n, Precision::F32, None, gpu).unwrap();
        assert_eq!(shape(2187, Some("H200")).min_blocks_per_sm, Some(6));
        assert_eq!(shape(2187, None).min_blocks_per_sm, Some(4));
        assert_eq!(
            shape(1331, Some("H200")).input_caching,
            Some(InputCaching::L1AndL2)
        );
        assert_eq!(shape(1331, None).input_caching, Some(InputCaching::L2Only));
        // Exchange layouts and radix orders of its own too; the H100 keeps
        // the planner's.
        assert_eq!(
            shape(4000, Some("H200")).exchange_width,
            Some(ExchangeWidth::Interleaved)
        );
        assert_eq!(shape(4000, Some("H200")).radices, vec![10, 20, 20]);
        assert_eq!(shape(2187, None).exchange_width, None);
        // Sizes the model has no shape of its own for use the shared ones.
        assert_eq!(shape(8, Some("H200")).radices, vec![2, 4]);
        // Smaller blocks for the staged sizes, through L1 where the H100
        // skips it.
        let f64_shape = |n, gpu| measured_shape(n, Precision::F64, None, gpu).unwrap();
        assert_eq!(f64_shape(4, Some("H200")).ffts_per_block, Some(32));
        assert_eq!(
            f64_shape(4, Some("H200")).input_caching,
            Some(InputCaching::L1AndL2)
        );
        assert_eq!(f64_shape(4, None).input_caching, Some(InputCaching::L2Only));
        assert_eq!(f64_shape(4, None).ffts_per_block, None);
        assert_eq!(shape(4, Some("H200")).ffts_per_block, Some(64));
    }

    #[test]
    fn sizes_without_a_measurement_have_none() {
        assert_eq!(
            measured_shape(16, Precision::F64, None, None).map(|m| m.radices),
            Some(vec![4, 4])
        );
        assert_eq!(measured_shape(2187, Precision::F64, None, None), None);
        assert_eq!(measured_shape(4096, Precision::F32, None, None), None);
    }
}
