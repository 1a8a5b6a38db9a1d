//! Timing device work the same way for every contender (our kernels, cuFFT,
//! a device-to-device copy): a few warm-up launches so that module loading,
//! plan set-up and clocks settle, then G groups of R back-to-back launches
//! bracketed by CUDA events, the contenders of one size taking turns group by
//! group; each group gives a time per launch and the median of the groups is
//! the result. The min and max are kept too, so a reader can see the spread
//! (a difference smaller than it is noise).

use super::BenchError;
use fftgen_runtime::cudarc::driver::sys::CUevent_flags;
use fftgen_runtime::cudarc::driver::{CudaEvent, CudaStream};
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

/// Times one group of launches on the device: CUDA events on a stream
/// ([`EventClock`]), or a fake clock in tests.
pub trait GroupClock {
    /// Enqueues `launches` between two timestamps and returns the
    /// milliseconds between them. A failed launch still closes the group.
    fn time(
        &mut self,
        launches: &mut dyn FnMut() -> Result<(), BenchError>,
    ) -> Result<f64, BenchError>;

    /// Waits for everything enqueued so far and surfaces any error the device
    /// recorded meanwhile.
    fn wait(&mut self) -> Result<(), BenchError>;
}

/// A pair of CUDA events recorded around each group on one stream.
pub struct EventClock {
    stream: Arc<CudaStream>,
    start: CudaEvent,
    end: CudaEvent,
}

impl EventClock {
    pub fn new(stream: &Arc<CudaStream>) -> Result<EventClock, BenchError> {
        let event = || {
            stream
                .context()
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| BenchError::driver("cuEventCreate", e))
        };
        Ok(EventClock {
            stream: Arc::clone(stream),
            start: event()?,
            end: event()?,
        })
    }
}

impl GroupClock for EventClock {
    fn time(
        &mut self,
        launches: &mut dyn FnMut() -> Result<(), BenchError>,
    ) -> Result<f64, BenchError> {
        let record = |event: &CudaEvent| {
            event
                .record(&self.stream)
                .map_err(|e| BenchError::driver("cuEventRecord", e))
        };
        record(&self.start)?;
        let launched = launches();
        record(&self.end)?;
        launched?;
        // elapsed_ms waits for both events.
        let ms = self
            .start
            .elapsed_ms(&self.end)
            .map_err(|e| BenchError::driver("cuEventElapsedTime", e))?;
        Ok(f64::from(ms))
    }

    fn wait(&mut self) -> Result<(), BenchError> {
        self.stream
            .synchronize()
            .map_err(|e| BenchError::driver("cuStreamSynchronize", e))?;
        self.stream
            .context()
            .check_err()
            .map_err(|e| BenchError::driver("an earlier asynchronous call", e))
    }
}

/// Times `contenders` launches against each other: `launch(c)` enqueues one
/// launch of contender `c`. Every contender is warmed up, then the groups
/// go round by round: round g times one group of each contender, starting
/// with contender g % C, so that drift in the machine's state during the
/// run (clocks, temperature, what the memory system has seen) falls on every
/// contender alike instead of on whichever was timed last, and no contender
/// always follows the same one. A contender whose launch fails is left out
/// of later rounds and reports its first error; the others go on. The outer
/// error is the device failing as a whole.
pub fn time_interleaved(
    clock: &mut impl GroupClock,
    schedule: Schedule,
    contenders: usize,
    mut launch: impl FnMut(usize) -> Result<(), BenchError>,
) -> Result<Vec<Result<Timing, BenchError>>, BenchError> {
    let mut failures: Vec<Option<BenchError>> = (0..contenders).map(|_| None).collect();
    for (c, failure) in failures.iter_mut().enumerate() {
        if let Err(e) = (0..schedule.warmup).try_for_each(|_| launch(c)) {
            *failure = Some(e);
        }
    }
    clock.wait()?;
    let repeats = schedule.repeats.max(1);
    let groups = schedule.groups.max(1);
    let mut per_launch = vec![Vec::with_capacity(groups); contenders];
    for round in 0..groups {
        for c in (0..contenders).map(|i| (round + i) % contenders) {
            if failures[c].is_some() {
                continue;
            }
            let mut group = || (0..repeats).try_for_each(|_| launch(c));
            match clock.time(&mut group) {
                Ok(ms) => per_launch[c].push(ms / repeats as f64),
                Err(e) => failures[c] = Some(e),
            }
        }
    }
    clock.wait()?;
    Ok(failures
        .into_iter()
        .zip(per_launch)
        .map(|(failure, groups)| match failure {
            Some(e) => Err(e),
            None => Ok(Timing::from_per_launch(&groups, repeats)
                .expect("a contender that never failed timed every group")),
        })
        .collect())
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

    /// A clock whose groups take whatever the launches add to `now`, and that
    /// remembers the order in which contenders ran.
    struct FakeClock {
        now: std::rc::Rc<std::cell::Cell<f64>>,
        waits: usize,
    }

    impl GroupClock for FakeClock {
        fn time(
            &mut self,
            launches: &mut dyn FnMut() -> Result<(), BenchError>,
        ) -> Result<f64, BenchError> {
            let start = self.now.get();
            launches()?;
            Ok(self.now.get() - start)
        }

        fn wait(&mut self) -> Result<(), BenchError> {
            self.waits += 1;
            Ok(())
        }
    }

    #[test]
    fn interleaved_groups_rotate_and_time_each_contender() {
        let now = std::rc::Rc::new(std::cell::Cell::new(0.0));
        let mut clock = FakeClock {
            now: now.clone(),
            waits: 0,
        };
        let schedule = Schedule {
            warmup: 2,
            repeats: 4,
            groups: 3,
        };
        // Contender c takes c + 1 ms per launch; contender 1 slows down by
        // 0.5 ms per launch after its warm-up, as a drifting machine would.
        let mut order = Vec::new();
        let mut launches = [0usize; 3];
        let timings = time_interleaved(&mut clock, schedule, 3, |c| {
            order.push(c);
            launches[c] += 1;
            let drift = if c == 1 && launches[c] > 2 { 0.5 } else { 0.0 };
            now.set(now.get() + (c + 1) as f64 + drift);
            Ok(())
        })
        .unwrap();
        assert_eq!(clock.waits, 2);
        assert_eq!(launches, [2 + 12, 2 + 12, 2 + 12]);
        // Warm-ups in order, then rounds starting at 0, 1, 2.
        let groups: Vec<usize> = order[6..].chunks(4).map(|g| g[0]).collect();
        assert_eq!(&order[..6], &[0, 0, 1, 1, 2, 2]);
        assert_eq!(groups, vec![0, 1, 2, 1, 2, 0, 2, 0, 1]);
        let medians: Vec<f64> = timings
            .iter()
            .map(|t| t.as_ref().unwrap().median_ms)
            .collect();
        assert_eq!(medians, vec![1.0, 2.5, 3.0]);
        assert!(timings
            .iter()
            .all(|t| t.as_ref().unwrap().groups == 3 && t.as_ref().unwrap().repeats == 4));
    }

    #[test]
    fn a_failing_contender_leaves_the_others_timed() {
        let now = std::rc::Rc::new(std::cell::Cell::new(0.0));
        let mut clock = FakeClock {
            now: now.clone(),
            waits: 0,
        };
        let mut calls = [0usize; 2];
        let timings = time_interleaved(&mut clock, Schedule::default(), 2, |c| {
            calls[c] += 1;
            if c == 0 && calls[c] == 5 {
                return Err(BenchError::Invalid("launch failed".into()));
            }
            now.set(now.get() + 1.0);
            Ok(())
        })
        .unwrap();
        assert!(matches!(&timings[0], Err(BenchError::Invalid(why)) if why == "launch failed"));
        assert_eq!(timings[1].as_ref().unwrap().median_ms, 1.0);
        // After its failure, contender 0 was not launched again.
        assert_eq!(calls[0], 5);
    }
}
