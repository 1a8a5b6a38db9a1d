//! Radix schedules measured to beat the heuristic of [`super::radix`] on a
//! GPU, by size and precision (FFTW calls such knowledge wisdom). Each entry
//! names the measurement that justifies it; the radix-schedule autotuner
//! (seed 004) will produce this table instead of a person.

use crate::Precision;

/// One measured winner: the radices, and where the measurement beat the
/// planner's shape, the threads per transform and the launch bound.
struct Measured {
    precision: Precision,
    n: usize,
    radices: &'static [usize],
    threads_per_fft: Option<usize>,
    min_blocks_per_sm: Option<usize>,
}

/// The shape a measurement chose for one size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasuredShape {
    pub radices: Vec<usize>,
    pub threads_per_fft: Option<usize>,
    pub min_blocks_per_sm: Option<usize>,
}

/// `fftgen bench --no-opencl --groups 5 --sizes N --radix N:R1xR2x...` on an
/// H100 (2026-11-22), forward, 1 GiB batches:
/// - f32 2187: [9, 9, 27] 0.745 ms forward and 0.739 ms inverse, against the
///   heuristic's [27, 9, 9] at 0.758 and 0.920 ms ([27, 27, 3] 0.763,
///   [3, 27, 27] 0.752).
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
    Measured {
        precision: Precision::F32,
        n: 4,
        radices: &[2, 2],
        threads_per_fft: None,
        min_blocks_per_sm: None,
    },
    Measured {
        precision: Precision::F32,
        n: 8,
        radices: &[2, 4],
        threads_per_fft: None,
        min_blocks_per_sm: None,
    },
    Measured {
        precision: Precision::F64,
        n: 4,
        radices: &[2, 2],
        threads_per_fft: None,
        min_blocks_per_sm: None,
    },
    Measured {
        precision: Precision::F64,
        n: 16,
        radices: &[4, 4],
        threads_per_fft: None,
        min_blocks_per_sm: None,
    },
    Measured {
        precision: Precision::F32,
        n: 2187,
        radices: &[9, 9, 27],
        threads_per_fft: None,
        min_blocks_per_sm: None,
    },
    Measured {
        precision: Precision::F64,
        n: 128,
        radices: &[4, 32],
        threads_per_fft: None,
        min_blocks_per_sm: None,
    },
];

/// The measured shape for `n` in `precision`, if there is one.
pub fn measured_shape(n: usize, precision: Precision) -> Option<MeasuredShape> {
    MEASURED
        .iter()
        .find(|m| m.n == n && m.precision == precision)
        .map(|m| MeasuredShape {
            radices: m.radices.to_vec(),
            threads_per_fft: m.threads_per_fft,
            min_blocks_per_sm: m.min_blocks_per_sm,
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
    fn sizes_without_a_measurement_have_none() {
        assert_eq!(
            measured_shape(16, Precision::F64).map(|m| m.radices),
            Some(vec![4, 4])
        );
        assert_eq!(measured_shape(2187, Precision::F64), None);
        assert_eq!(measured_shape(4096, Precision::F32), None);
    }
}
