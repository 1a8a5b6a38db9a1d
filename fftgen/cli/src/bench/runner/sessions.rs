//! The sessions of one benchmark run, one per precision: a run's cases may
//! mix f32 and f64 (`--random`), and each precision needs buffers and
//! references of its own type. A precision's session opens when its first
//! case comes, sized for all of that precision's cases (the largest
//! transform, a half-spectrum buffer where one is real, OpenCL where one is
//! complex), and stays open to the end, so the cases run in their order
//! with each input uploaded once.

use super::{Buffers, Session};
use crate::bench::case::BenchCase;
use crate::bench::report::BenchRow;
use crate::bench::{buffer_reals, BenchConfig, BenchError, Sample};
use crate::shape::Shape;
use fftgen::{Precision, ShapeChoices, TransformKind};
use fftgen_runtime::cuda::CudaDevice;

/// The open sessions of a run, and what became of OpenCL in each.
pub(super) struct Sessions<'a> {
    config: &'a BenchConfig,
    f32: Option<Session<f32>>,
    f64: Option<Session<f64>>,
    /// Per session opened, in order: its precision and its OpenCL status.
    opencl: Vec<(Precision, String)>,
}

impl<'a> Sessions<'a> {
    /// None open yet.
    pub(super) fn new(config: &'a BenchConfig) -> Self {
        Sessions {
            config,
            f32: None,
            f64: None,
            opencl: Vec::new(),
        }
    }

    /// The rows of `case` (one for `c2c`, the R2C and the C2R for `r2c`),
    /// with `choices` instead of the planner's if given, in its precision's
    /// session (opened first if this is its first case).
    pub(super) fn bench(
        &mut self,
        case: &BenchCase,
        choices: Option<&ShapeChoices>,
    ) -> Result<Vec<BenchRow>, BenchError> {
        let budget = self.config.measure;
        Ok(match case.precision {
            Precision::F32 => {
                let session = open(&mut self.f32, self.config, &mut self.opencl)?;
                let (choices, note) = measured(&session.device, case, choices, budget);
                noted(session.bench_case(case, choices.as_ref()), note)
            }
            Precision::F64 => {
                let session = open(&mut self.f64, self.config, &mut self.opencl)?;
                let (choices, note) = measured(&session.device, case, choices, budget);
                noted(session.bench_case(case, choices.as_ref()), note)
            }
        })
    }

    /// The device of the first session opened (every session opens the same
    /// ordinal); `None` before any has.
    pub(super) fn device(&self) -> Option<&CudaDevice> {
        let f32 = self.f32.as_ref().map(|s| &s.device);
        f32.or(self.f64.as_ref().map(|s| &s.device))
    }

    /// What became of OpenCL: the one session's status, or each precision's
    /// where they differ.
    pub(super) fn opencl_status(&self) -> String {
        match self.opencl.as_slice() {
            [(_, a), (_, b)] if a != b => {
                format!("{}: {a}; {}: {b}", self.opencl[0].0, self.opencl[1].0)
            }
            [(_, status), ..] => status.clone(),
            [] => "not run: no case ran".into(),
        }
    }
}

/// The choices to time `case` with: with a `budget`, those measured on
/// `device` (within it, or before), else `choices`; and the row's note
/// saying what the measurement found.
fn measured(
    device: &CudaDevice,
    case: &BenchCase,
    choices: Option<&ShapeChoices>,
    budget: Option<std::time::Duration>,
) -> (Option<ShapeChoices>, Option<String>) {
    let Some(budget) = budget else {
        return (choices.cloned(), None);
    };
    let mut spec = case.spec();
    if let Some(choices) = choices {
        spec = spec.choices(choices.clone());
    }
    match crate::measured::measured_spec(device, &spec, budget) {
        Ok((spec, lines)) => (Some(spec.choices), lines.into_iter().next()),
        Err(e) => (
            choices.cloned(),
            Some(format!("measuring failed, the estimate ran: {e}")),
        ),
    }
}

/// `rows`, each with `note` added where there is one.
fn noted(mut rows: Vec<BenchRow>, note: Option<String>) -> Vec<BenchRow> {
    for row in &mut rows {
        row.notes.extend(note.clone());
    }
    rows
}

/// The session in `slot`, opened for `config`'s cases of its precision if
/// it is not open yet (its OpenCL status added to `opencl`).
fn open<'s, T: Sample>(
    slot: &'s mut Option<Session<T>>,
    config: &BenchConfig,
    opencl: &mut Vec<(Precision, String)>,
) -> Result<&'s mut Session<T>, BenchError> {
    let session = match slot.take() {
        Some(session) => session,
        None => {
            let (session, status) = open_for_cases::<T>(config)?;
            opencl.push((T::PRECISION, status));
            session
        }
    };
    Ok(slot.insert(session))
}

/// A session for `config`'s cases in `T`'s precision: buffers for the
/// largest, a half-spectrum buffer if one is real, OpenCL if one is
/// complex; and what became of OpenCL.
fn open_for_cases<T: Sample>(config: &BenchConfig) -> Result<(Session<T>, String), BenchError> {
    let cases: Vec<&BenchCase> = config
        .cases
        .iter()
        .filter(|c| c.precision == T::PRECISION)
        .collect();
    let shapes: Vec<Shape> = cases.iter().map(|c| c.shape.clone()).collect();
    let complex = cases.iter().any(|c| c.kind == TransformKind::C2c);
    let real = cases.iter().any(|c| c.kind == TransformKind::R2c);
    let buffers = Buffers {
        reals: buffer_reals(&shapes, T::PRECISION),
        opencl: config.opencl && complex,
        spectrum: real,
    };
    let (session, status) =
        Session::<T>::open(config.device, config.seed, config.schedule, buffers)?;
    match config.opencl && !complex {
        true => Ok((
            session,
            "not run: real transforms (r2c) are timed through CUDA only".into(),
        )),
        false => Ok((session, status)),
    }
}

impl<T: Sample> Session<T> {
    /// The rows of `case`, which is in this session's precision.
    fn bench_case(&mut self, case: &BenchCase, choices: Option<&ShapeChoices>) -> Vec<BenchRow> {
        match case.kind {
            TransformKind::C2c => vec![self.bench_size(&case.shape, choices)],
            TransformKind::R2c => self.bench_real_shape(&case.shape, choices),
        }
    }
}
