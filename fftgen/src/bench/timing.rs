//! Timing device work the same way for every contender (our kernels, cuFFT,
//! a device-to-device copy): a few warm-up launches so that module loading,
//! plan set-up and clocks settle, then G groups of R back-to-back launches
//! bracketed by CUDA events; each group gives a time per launch and the
//! median of the groups is the result. The min and max are kept too, so a
//! reader can see the spread (a difference smaller than it is noise).

use super::BenchError;
use fftgen_runtime::cudarc::driver::sys::CUevent_flags;
use fftgen_runtime::cudarc::driver::CudaStream;
use serde::Serialize;
use std::sync::Arc;

/// How many launches to make and how to group them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Schedule {
    /// Untimed launches before the first group.
    pub warmup: usize,
    /// Launches per timed group (R): one pair of events brackets them.
    pub repeats: usize,
    /// Timed groups (G); the result is the median over them.
    pub groups: usize,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            warmup: 3,
            repeats: 10,
            groups: 7,
        }
    }
}

/// Time per launch of one contender at one size, in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timing {
    /// Median over the groups of (group time / launches per group).
    pub median_ms: f64,
    /// Fastest group, per launch.
    pub min_ms: f64,
    /// Slowest group, per launch.
    pub max_ms: f64,
    /// Groups timed.
    pub groups: usize,
    /// Launches in each group.
    pub repeats: usize,
}

impl Timing {
    /// The timing of groups whose per-launch times are `per_launch_ms`;
    /// `None` when there is no sample.
    pub fn from_per_launch(per_launch_ms: &[f64], repeats: usize) -> Option<Timing> {
        if per_launch_ms.is_empty() {
            return None;
        }
        let min = per_launch_ms.iter().copied().fold(f64::INFINITY, f64::min);
        let max = per_launch_ms
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        Some(Timing {
            median_ms: median(per_launch_ms),
            min_ms: min,
            max_ms: max,
            groups: per_launch_ms.len(),
            repeats,
        })
    }

    /// A timing whose every group took `ms` per launch (tests, synthetic rows).
    pub fn constant(ms: f64) -> Timing {
        Timing {
            median_ms: ms,
            min_ms: ms,
            max_ms: ms,
            groups: 1,
            repeats: 1,
        }
    }

    /// (max - min) / median: the relative spread between groups.
    pub fn spread(&self) -> f64 {
        (self.max_ms - self.min_ms) / self.median_ms
    }
}

/// The median of `values` (the mean of the two middle ones for an even
/// count); NaN for an empty slice. NaNs sort last.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        0.5 * (sorted[mid - 1] + sorted[mid])
    }
}

/// Times `launch` (which enqueues one launch on `stream`) with CUDA events,
/// following `schedule`. Errors from the launches, from the events and any
/// error the context recorded meanwhile are returned.
pub fn time_on_stream(
    stream: &Arc<CudaStream>,
    schedule: Schedule,
    mut launch: impl FnMut() -> Result<(), BenchError>,
) -> Result<Timing, BenchError> {
    let ctx = stream.context();
    let driver = |call: &'static str| move |e| BenchError::driver(call, e);
    for _ in 0..schedule.warmup {
        launch()?;
    }
    stream
        .synchronize()
        .map_err(driver("cuStreamSynchronize (after warm-up)"))?;
    let event = || {
        ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(driver("cuEventCreate"))
    };
    let (start, end) = (event()?, event()?);
    let repeats = schedule.repeats.max(1);
    let mut per_launch = Vec::with_capacity(schedule.groups);
    for _ in 0..schedule.groups.max(1) {
        start.record(stream).map_err(driver("cuEventRecord"))?;
        for _ in 0..repeats {
            launch()?;
        }
        end.record(stream).map_err(driver("cuEventRecord"))?;
        // elapsed_ms waits for both events.
        let ms = start
            .elapsed_ms(&end)
            .map_err(driver("cuEventElapsedTime"))?;
        per_launch.push(f64::from(ms) / repeats as f64);
    }
    ctx.check_err()
        .map_err(driver("an earlier asynchronous call"))?;
    Ok(Timing::from_per_launch(&per_launch, repeats).expect("at least one group was timed"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[5.0]), 5.0);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn timing_keeps_median_and_spread() {
        let t = Timing::from_per_launch(&[1.0, 1.2, 0.9, 1.1, 5.0], 10).unwrap();
        assert_eq!(t.median_ms, 1.1);
        assert_eq!(t.min_ms, 0.9);
        assert_eq!(t.max_ms, 5.0);
        assert_eq!((t.groups, t.repeats), (5, 10));
        assert!(Timing::from_per_launch(&[], 10).is_none());
    }
}
