//! The benchmark run: one CUDA device, two 1 GiB device buffers allocated
//! once per precision and reused for every case of it (larger when one
//! transform is larger; [`sessions`]), the input filled once from a fixed
//! seed; then for each case, in the run's order, our kernels
//! (forward and inverse, every pass, the runtime's own scratch between
//! passes) and cuFFT are checked, and timed with a device-to-device copy,
//! group by group in turn, on those same buffers; our OpenCL kernels are
//! checked and timed after them where NVIDIA's platform is present. A real
//! shape (`r2c`) runs through [`r2c`] instead: its R2C and C2R rows, a half
//! spectrum buffer of its own, no OpenCL. A failure at one shape becomes a
//! note in its row; only a failure to start (no driver, no device, no
//! memory) ends the run.

mod prefix;
mod r2c;
mod sessions;

use prefix::{prefixes, Prefix};
use sessions::Sessions;

use super::cufft::{self, CufftPlan, CufftTransform};
use super::opencl::OpenClBench;
use super::report::{utc_timestamp, BenchReport, BenchRow, PlanCreation};
use super::timing::{time_interleaved, EventClock, Schedule, Timing};
use super::tune::{
    bench_args, candidates, column_candidates, split_candidates, ColumnCandidate, Dimension,
    StageGraphPick, TuneConfig, TuneReport, TuneRow, Variant,
};
use super::{
    batch_for, buffer_complex, larger_than_batch, BenchCase, BenchConfig, BenchError, Sample,
    BUFFER_BYTES,
};
use crate::accuracy::{reference, reference_nd, relative_l2};
use crate::shape::{shape_text, Shape};
use fftgen::{
    Direction, FftSpec, Generated, Normalization, Precision, ShapeChoices, Target, TransformKind,
};
use fftgen_runtime::cuda::{driver_available, nvrtc_available, CubinCache, CudaDevice, CudaFft};
use fftgen_runtime::cudarc::driver::{CudaSlice, CudaStream, DevicePtrMut};
use fftgen_runtime::planner::{cuda_fft_with_cache, for_target};
use num_complex::Complex;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

/// Runs the benchmark described by `config`, its cases in order, calling
/// `on_row` as each row finishes (for progress output).
pub fn run(
    config: &BenchConfig,
    mut on_row: impl FnMut(&BenchRow),
) -> Result<BenchReport, BenchError> {
    preflight(&config.cases)?;
    let date_utc = utc_timestamp(SystemTime::now());
    let mut sessions = Sessions::new(config);
    let mut rows = Vec::new();
    for case in &config.cases {
        let choices = config.overrides.get(&case.shape);
        for row in sessions.bench(case, choices)? {
            on_row(&row);
            rows.push(row);
        }
    }
    let device = sessions
        .device()
        .ok_or_else(|| BenchError::Invalid("no case ran".into()))?;
    let (major, minor) = device.compute_capability();
    let first = config.cases[0].precision;
    let one_precision = config.cases.iter().all(|c| c.precision == first);
    Ok(BenchReport {
        device: device.name().to_string(),
        compute_capability: format!("{major}.{minor}"),
        date_utc,
        command: config.command.clone(),
        generator_version: fftgen::VERSION.to_string(),
        precision: one_precision.then_some(first),
        random: config.draw,
        cufft_version: cufft::version(),
        opencl: sessions.opencl_status(),
        buffer_bytes: BUFFER_BYTES as u64,
        seed: config.seed,
        schedule: config.schedule,
        rows,
    })
}

/// Checks what every run needs before touching the device: cases the
/// planner accepts, a CUDA driver and NVRTC.
fn preflight(cases: &[BenchCase]) -> Result<(), BenchError> {
    check_cases(cases)?;
    if !driver_available() {
        return Err(BenchError::NoCudaDriver);
    }
    if !nvrtc_available() {
        return Err(fftgen_runtime::Error::NvrtcMissing.into());
    }
    Ok(())
}

/// Refuses an empty list, and any case the planner refuses (planned as
/// for any GPU; each row is planned again for the device it runs on).
fn check_cases(cases: &[BenchCase]) -> Result<(), BenchError> {
    if cases.is_empty() {
        return Err(BenchError::Invalid(
            "no sizes to measure; give --sizes N,N,... (a shape is axes joined by x: 1024x1024)"
                .into(),
        ));
    }
    for case in cases {
        if let Err(e) = fftgen::plan::plan(&case.spec()) {
            let BenchCase {
                shape,
                precision,
                kind,
            } = case;
            return Err(BenchError::Invalid(format!(
                "cannot measure {shape} ({kind}, {precision}): {e}"
            )));
        }
    }
    Ok(())
}

/// Runs the shape search described by `config` ([`super::tune`]), calling
/// `on_row` as each size finishes.
pub fn tune(
    config: &TuneConfig,
    mut on_row: impl FnMut(&TuneRow),
) -> Result<TuneReport, BenchError> {
    let shapes: Vec<Shape> = config.sizes.iter().map(|&n| Shape(vec![n])).collect();
    preflight(&BenchCase::listed(
        &shapes,
        config.precision,
        TransformKind::C2c,
    ))?;
    match config.precision {
        Precision::F32 => tune_typed::<f32>(config, &mut on_row),
        Precision::F64 => tune_typed::<f64>(config, &mut on_row),
    }
}

fn tune_typed<T: Sample>(
    config: &TuneConfig,
    on_row: &mut dyn FnMut(&TuneRow),
) -> Result<TuneReport, BenchError> {
    let date_utc = utc_timestamp(SystemTime::now());
    let reals = 2 * buffer_complex(T::PRECISION);
    let buffers = Buffers {
        reals,
        opencl: false,
        spectrum: false,
    };
    let (mut session, _) =
        Session::<T>::open(config.device, config.seed, config.schedule, buffers)?;
    let mut sizes = config.sizes.clone();
    sizes.sort_unstable();
    sizes.dedup();
    let mut rows = Vec::new();
    for n in sizes {
        let row = session.tune_size(n, &config.dimensions);
        on_row(&row);
        rows.push(row);
    }
    Ok(TuneReport {
        device: session.device.name().to_string(),
        model: session.device.target().model.to_string(),
        date_utc,
        command: config.command.clone(),
        generator_version: fftgen::VERSION.to_string(),
        precision: T::PRECISION,
        schedule: config.schedule,
        dimensions: config.dimensions.clone(),
        rows,
    })
}

/// The device, its buffers and the host copies, alive for the whole run.
struct Session<T> {
    device: CudaDevice,
    stream: Arc<CudaStream>,
    input: CudaSlice<T>,
    output: CudaSlice<T>,
    /// What was uploaded into `input`.
    host_input: Vec<T>,
    /// Room for a whole output buffer on the host.
    host_scratch: Vec<T>,
    /// The C2R's input of real transforms, as large as `input` (allocated
    /// for `r2c` runs only).
    spectrum: Option<CudaSlice<T>>,
    opencl: Option<OpenClBench<T>>,
    schedule: Schedule,
}

/// What a session allocates besides its input and output.
struct Buffers {
    /// Reals of each buffer.
    reals: usize,
    /// Whether to open NVIDIA's OpenCL platform with a copy of the input.
    opencl: bool,
    /// Whether to allocate the half-spectrum buffer of real transforms.
    spectrum: bool,
}

/// `len` reals uniform in [-1, 1) from `seed`, rounded to `T` (never zeros).
fn random_reals<T: Sample>(len: usize, seed: u64) -> Vec<T> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..len)
        .map(|_| T::from_f64(rng.gen_range(-1.0..1.0)))
        .collect()
}

/// How many transforms, from the start of the batch, are compared with the
/// f64 reference: at least 64 and at least 65536 points, at most the batch,
/// and for large transforms at most 2^20 points (the host reference of a
/// whole 1 GiB batch would take longer than the rest of the run) but at
/// least one transform.
fn checked_transforms(n: usize, batch: usize) -> usize {
    batch.min(64.max(65_536 / n)).min((1 << 20) / n).max(1)
}

impl<T: Sample> Session<T> {
    /// Opens CUDA device `ordinal`, uploads a random input of
    /// `buffers.reals` from `seed` into one buffer and allocates the output
    /// (and the half-spectrum buffer, if asked) as large, and opens NVIDIA's
    /// OpenCL platform when `buffers` asks for it; the second value says what
    /// became of OpenCL.
    fn open(
        ordinal: usize,
        seed: u64,
        schedule: Schedule,
        buffers: Buffers,
    ) -> Result<(Session<T>, String), BenchError> {
        let Buffers {
            reals,
            opencl,
            spectrum,
        } = buffers;
        let device = CudaDevice::new(ordinal)?;
        let stream = Arc::clone(device.stream());
        let size = format!("{} MiB", (reals * std::mem::size_of::<T>()) >> 20);
        let host_input = random_reals::<T>(reals, seed);
        let input = stream
            .clone_htod(&host_input)
            .map_err(|e| BenchError::driver(format!("upload of the input ({size})"), e))?;
        // SAFETY: every use poisons or writes the output before reading it.
        let output = unsafe { stream.alloc::<T>(reals) }
            .map_err(|e| BenchError::driver(format!("cuMemAlloc ({size})"), e))?;
        // SAFETY: every use fills the half spectrum before reading it.
        let spectrum = spectrum
            .then(|| unsafe { stream.alloc::<T>(reals) })
            .transpose()
            .map_err(|e| BenchError::driver(format!("cuMemAlloc ({size}, half spectra)"), e))?;
        stream
            .synchronize()
            .map_err(|e| BenchError::driver("cuStreamSynchronize", e))?;
        let (opencl, opencl_status) = if !opencl {
            (None, "not run (--no-opencl)".to_string())
        } else {
            match OpenClBench::new(&host_input) {
                Ok(bench) => {
                    let status = bench.name().to_string();
                    (Some(bench), status)
                }
                Err(why) => (None, format!("not available: {why}")),
            }
        };
        let session = Session {
            device,
            stream,
            input,
            output,
            host_input,
            host_scratch: vec![T::default(); reals],
            spectrum,
            opencl,
            schedule,
        };
        Ok((session, opencl_status))
    }
}

/// The f64 references of the checked transforms, both directions.
struct References {
    forward: Vec<Complex<f64>>,
    inverse: Vec<Complex<f64>>,
}

/// What one size's timing compares, on the same buffers.
#[derive(Clone, Copy)]
enum Contender<'a> {
    Ours(&'a CudaFft, Direction),
    Cufft(&'a CufftPlan),
    Copy,
}

impl Contender<'_> {
    fn name(&self) -> &'static str {
        match self {
            Contender::Ours(_, Direction::Forward) => "ours (forward)",
            Contender::Ours(_, Direction::Inverse) => "ours (inverse)",
            Contender::Cufft(plan) => match plan.transform() {
                CufftTransform::Complex => "cuFFT",
                CufftTransform::RealToHalf => "cuFFT R2C",
                CufftTransform::HalfToReal => "cuFFT C2R",
            },
            Contender::Copy => "copy",
        }
    }
}

impl<T: Sample> Session<T> {
    fn bench_size(&mut self, shape: &Shape, choices: Option<&ShapeChoices>) -> BenchRow {
        let n = shape.points();
        let batch = batch_for(n, T::PRECISION);
        let mut row = BenchRow::for_shape(&shape.0, batch, T::PRECISION);
        row.notes.extend(larger_than_batch(n, T::PRECISION));
        let mut spec = FftSpec::with_shape(&shape.0).precision(T::PRECISION);
        if let Some(choices) = choices {
            spec = spec.choices(choices.clone());
        }
        // Each backend runs the shape it would be planned with at run time,
        // on this GPU.
        let spec = for_target(&spec, self.device.target());
        let generated = match fftgen::generate(&spec, &spec.emit_command()) {
            Ok(generated) => generated,
            Err(e) => {
                row.notes.push(format!("generator: {e}"));
                return row;
            }
        };
        row.passes = generated.plan.passes.len();
        // Every choice made, so --shape runs the same plan again.
        row.shape = ShapeChoices::pinned_plan(&generated.plan);
        row.checked_transforms = checked_transforms(n, batch);
        let references = match self.references(&shape.0, row.checked_transforms) {
            Ok(references) => references,
            Err(e) => {
                row.notes.push(format!("reading the input back: {e}"));
                return row;
            }
        };
        match self.plan_creation(&spec) {
            Ok(times) => row.plan_creation = Some(times),
            Err(e) => row.notes.push(format!("plan creation: {e}")),
        }
        let ours = self
            .ours_checked(&mut row, &generated, &references)
            .map_err(|e| row.notes.push(format!("ours: {e}")))
            .ok();
        let cufft = self
            .cufft_checked(&mut row, &references)
            .map_err(|e| row.notes.push(format!("cuFFT: {e}")))
            .ok();
        if let Err(e) = self.time_contenders(&mut row, ours.as_ref(), cufft.as_ref()) {
            row.notes.push(format!("timing: {e}"));
        }
        drop((ours, cufft));
        if !self.restore_input(&mut row.notes) {
            return row;
        }
        // The same GPU through NVIDIA's OpenCL.
        let mut opencl_spec = spec.clone();
        opencl_spec.target = Some(self.device.target().clamped_to(&Target::OPENCL_NVIDIA));
        match fftgen::generate(&opencl_spec, &opencl_spec.emit_command()) {
            Ok(opencl) => {
                let pass = &opencl.plan.passes[0];
                if row.passes == 1 && ShapeChoices::pinned(pass) != row.shape {
                    row.notes.push(format!(
                        "OpenCL runs {} (the CUDA shape is over its work-group limit)",
                        ShapeChoices::pinned(pass)
                    ));
                }
                self.opencl(&mut row, &opencl, &references);
            }
            Err(e) => row.notes.push(format!("OpenCL generator: {e}")),
        }
        row
    }

    /// The input of the checked transforms of `axes` as the kernels see it
    /// (read back from the device) and its f64 reference transforms: RustFFT
    /// along each axis in turn.
    fn references(&mut self, axes: &[usize], checked: usize) -> Result<References, BenchError> {
        let n: usize = axes.iter().product();
        let reals = 2 * n * checked;
        let mut prefix = vec![T::default(); reals];
        self.stream
            .memcpy_dtoh(&self.input.slice(..reals), &mut prefix)
            .map_err(|e| BenchError::driver("cuMemcpyDtoH", e))?;
        self.stream
            .synchronize()
            .map_err(|e| BenchError::driver("cuStreamSynchronize", e))?;
        let input = widen(&prefix);
        let transform = |direction| match axes {
            [n] => reference(&input, *n, direction, Normalization::None),
            _ => reference_nd(axes, &input, direction, Normalization::None),
        };
        Ok(References {
            forward: transform(Direction::Forward),
            inverse: transform(Direction::Inverse),
        })
    }

    /// How long `spec` takes to become a loaded plan: with empty caches, with
    /// the CUBIN only on disk (what a second process sees), and with it in
    /// memory. A private disk directory keeps earlier runs out of it.
    fn plan_creation(&self, spec: &FftSpec) -> Result<PlanCreation, BenchError> {
        let dir = std::env::temp_dir().join(format!(
            "fftgen-bench-plans-{}-{}-{}",
            std::process::id(),
            shape_text(&spec.shape),
            T::PRECISION
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let timed = |cache: &CubinCache| -> Result<f64, BenchError> {
            let start = Instant::now();
            let fft = cuda_fft_with_cache(&self.device, spec, cache)?;
            let ms = start.elapsed().as_secs_f64() * 1e3;
            drop(fft);
            Ok(ms)
        };
        let first = CubinCache::with_disk_dir(&dir);
        let cold_ms = timed(&first)?;
        let second = CubinCache::with_disk_dir(&dir);
        let disk_ms = timed(&second)?;
        let memory_ms = timed(&second)?;
        let _ = std::fs::remove_dir_all(&dir);
        Ok(PlanCreation {
            cold_ms,
            disk_ms,
            memory_ms,
        })
    }

    /// Our kernels, loaded and checked: a run in each direction compared
    /// with the reference, the output poisoned before each.
    fn ours_checked(
        &mut self,
        row: &mut BenchRow,
        generated: &Generated,
        references: &References,
    ) -> Result<CudaFft, BenchError> {
        let fft = CudaFft::new(&self.device, &generated.cuda_source, &generated.manifest)?;
        let (n, batch) = (row.n, row.batch);
        let stream = Arc::clone(&self.stream);
        let (input, mut output) =
            prefixes(&stream, &mut self.input, &mut self.output, 2 * n * batch);
        let mut unwritten = 0;
        for (direction, want) in [
            (Direction::Forward, &references.forward),
            (Direction::Inverse, &references.inverse),
        ] {
            poison(&stream, &mut output)?;
            fft.launch(&stream, direction, &input, &mut output, batch)?;
            let (error, bad) = scan(&stream, &output, &mut self.host_scratch, want)?;
            unwritten += bad;
            match direction {
                Direction::Forward => row.ours_error = Some(error),
                Direction::Inverse => row.ours_inverse_error = Some(error),
            }
        }
        row.ours_unwritten = Some(unwritten);
        Ok(fft)
    }

    /// cuFFT forward on the same buffers, planned and checked. cuFFT does not
    /// promise to leave its input alone, so the caller compares the input
    /// with what was uploaded once cuFFT is done with it.
    fn cufft_checked(
        &mut self,
        row: &mut BenchRow,
        references: &References,
    ) -> Result<CufftPlan, BenchError> {
        let (n, batch) = (row.n, row.batch);
        let stream = Arc::clone(&self.stream);
        let plan = CufftPlan::new(&stream, &row.axes, batch, T::PRECISION)?;
        let (mut input, mut output) =
            prefixes(&stream, &mut self.input, &mut self.output, 2 * n * batch);
        poison(&stream, &mut output)?;
        plan.forward(&mut input, &mut output)?;
        let (error, bad) = scan(
            &stream,
            &output,
            &mut self.host_scratch,
            &references.forward,
        )?;
        row.cufft_error = Some(error);
        row.cufft_unwritten = Some(bad);
        Ok(plan)
    }

    /// Times our kernels in both directions, cuFFT and a device-to-device
    /// copy of the same `n * batch` values, group by group in turn, on the
    /// same buffers. A contender that fails leaves a note and the others are
    /// still timed.
    fn time_contenders(
        &mut self,
        row: &mut BenchRow,
        ours: Option<&CudaFft>,
        cufft: Option<&CufftPlan>,
    ) -> Result<(), BenchError> {
        let mut contenders = Vec::new();
        if let Some(fft) = ours {
            contenders.push(Contender::Ours(fft, Direction::Forward));
            contenders.push(Contender::Ours(fft, Direction::Inverse));
        }
        if let Some(plan) = cufft {
            contenders.push(Contender::Cufft(plan));
        }
        contenders.push(Contender::Copy);
        let timings = self.time_all(row.n, row.batch, &contenders)?;
        for (contender, timing) in contenders.iter().zip(timings) {
            let timing = match timing {
                Ok(timing) => timing,
                Err(e) => {
                    row.notes.push(format!("{}: {e}", contender.name()));
                    continue;
                }
            };
            match contender {
                Contender::Ours(_, Direction::Forward) => row.ours = Some(timing),
                Contender::Ours(_, Direction::Inverse) => row.ours_inverse = Some(timing),
                Contender::Cufft(_) => row.cufft = Some(timing),
                Contender::Copy => row.copy = Some(timing),
            }
        }
        Ok(())
    }

    /// Times `contenders` at size `n` and `batch` against each other
    /// ([`time_interleaved`]) on the session's buffers: one result each, in
    /// order.
    fn time_all(
        &mut self,
        n: usize,
        batch: usize,
        contenders: &[Contender],
    ) -> Result<Vec<Result<Timing, BenchError>>, BenchError> {
        let stream = Arc::clone(&self.stream);
        let (mut input, mut output) =
            prefixes(&stream, &mut self.input, &mut self.output, 2 * n * batch);
        let mut clock = EventClock::new(&stream)?;
        time_interleaved(
            &mut clock,
            self.schedule,
            contenders.len(),
            |c| match contenders[c] {
                Contender::Ours(fft, direction) => {
                    Ok(fft.launch(&stream, direction, &input, &mut output, batch)?)
                }
                Contender::Cufft(plan) => Ok(plan.forward(&mut input, &mut output)?),
                Contender::Copy => stream
                    .memcpy_dtod(&*input, &mut *output)
                    .map_err(|e| BenchError::driver("cuMemcpyDtoDAsync", e)),
            },
        )
    }

    /// The shape search at one size: the planned shape and its neighbours
    /// along `dimensions`, each generated once (combinations that do not
    /// plan, or give code another has, are skipped), checked in both
    /// directions, and the accurate ones timed forward in turn with cuFFT
    /// and the copy.
    fn tune_size(&mut self, n: usize, dimensions: &[Dimension]) -> TuneRow {
        let batch = batch_for(n, T::PRECISION);
        let mut row = TuneRow {
            n,
            batch,
            precision: T::PRECISION,
            bytes: 2 * (n * batch * T::PRECISION.complex_bytes()) as u64,
            variants: Vec::new(),
            skipped: 0,
            cufft: None,
            copy: None,
            notes: Vec::new(),
            stage_graph: None,
        };
        let spec = FftSpec::new(n).precision(T::PRECISION);
        let spec = for_target(&spec, self.device.target());
        let planned = match fftgen::plan::plan(&spec) {
            Ok(plan) => plan,
            Err(e) => {
                row.notes.push(format!("planner: {e}"));
                return row;
            }
        };
        // A plan of several passes varies its split and column I/O, or with
        // `column-passes` its column passes' block shapes over its split; one
        // kernel the dimensions asked for.
        let shapes: Vec<(ShapeChoices, Option<ColumnCandidate>)> = match planned.passes.as_slice() {
            [pass] => candidates(pass, dimensions, spec.planned_target())
                .into_iter()
                .map(|shape| (shape, None))
                .collect(),
            _ if dimensions.contains(&Dimension::ColumnPasses) => {
                let split = ShapeChoices::pinned_plan(&planned);
                std::iter::once((split.clone(), None))
                    .chain(
                        column_candidates(&planned)
                            .into_iter()
                            .map(|c| (split.clone(), Some(c))),
                    )
                    .collect()
            }
            _ => split_candidates(&planned, spec.planned_target())
                .into_iter()
                .map(|shape| (shape, None))
                .collect(),
        };
        let references = match self.references(&[n], checked_transforms(n, batch)) {
            Ok(references) => references,
            Err(e) => {
                row.notes.push(format!("reading the input back: {e}"));
                return row;
            }
        };
        let mut sources = std::collections::HashSet::new();
        let mut ffts = Vec::new();
        for (index, (shape, column)) in shapes.into_iter().enumerate() {
            let mut variant = Variant {
                shape: bench_args(n, &shape),
                choices: shape.clone(),
                column: column.clone(),
                error: None,
                inverse_error: None,
                passed: false,
                timing: None,
                note: None,
            };
            let spec = spec.clone().choices(shape);
            let overlay = column
                .as_ref()
                .map(|c| column_wisdom(c, T::PRECISION, spec.planned_target(), index));
            let spec = match &overlay {
                Some(Ok(path)) => spec.wisdom(path),
                Some(Err(e)) => {
                    row.notes
                        .push(format!("writing a column-pass wisdom file: {e}"));
                    return row;
                }
                None => spec,
            };
            let generated = fftgen::generate(&spec, &spec.emit_command());
            if let Some(Ok(path)) = &overlay {
                let _ = std::fs::remove_file(path);
            }
            let generated = match generated {
                Ok(generated) if sources.insert(code_of(&generated.cuda_source)) => generated,
                // The planned shape is always reported; other combinations
                // that do not plan, or repeat code, are only counted.
                Err(e) if index == 0 => {
                    variant.note = Some(format!("generator: {e}"));
                    row.variants.push(variant);
                    continue;
                }
                _ => {
                    row.skipped += 1;
                    continue;
                }
            };
            // Every choice the planner made is named, so the line can be
            // run again as it is.
            variant.choices = ShapeChoices::pinned_plan(&generated.plan);
            variant.shape = match &column {
                None => bench_args(n, &variant.choices),
                Some(c) => format!(
                    "{} with column passes of {} points: {}",
                    bench_args(n, &variant.choices),
                    c.n,
                    c.choices
                ),
            };
            let mut check = BenchRow::new(n, batch, T::PRECISION);
            match self.ours_checked(&mut check, &generated, &references) {
                Ok(fft) => {
                    variant.error = check.ours_error;
                    variant.inverse_error = check.ours_inverse_error;
                    variant.passed = check.ours_accurate();
                    if variant.passed {
                        ffts.push((row.variants.len(), fft));
                    } else {
                        variant.note = Some(format!(
                            "errors {:?} and {:?} against a tolerance of {:.2e}, {:?} outputs unwritten",
                            check.ours_error,
                            check.ours_inverse_error,
                            check.tolerance,
                            check.ours_unwritten
                        ));
                    }
                }
                Err(e) => variant.note = Some(e.to_string()),
            }
            row.variants.push(variant);
        }
        let mut cufft_check = BenchRow::new(n, batch, T::PRECISION);
        let cufft = self
            .cufft_checked(&mut cufft_check, &references)
            .map_err(|e| row.notes.push(format!("cuFFT: {e}")))
            .ok();
        let mut contenders: Vec<Contender> = ffts
            .iter()
            .map(|(_, fft)| Contender::Ours(fft, Direction::Forward))
            .collect();
        contenders.extend(cufft.as_ref().map(Contender::Cufft));
        contenders.push(Contender::Copy);
        match self.time_all(n, batch, &contenders) {
            Ok(timings) => {
                for ((c, contender), timing) in contenders.iter().enumerate().zip(timings) {
                    match (contender, timing) {
                        (Contender::Ours(..), timing) => {
                            let variant = &mut row.variants[ffts[c].0];
                            match timing {
                                Ok(timing) => variant.timing = Some(timing),
                                Err(e) => variant.note = Some(format!("timing: {e}")),
                            }
                        }
                        (Contender::Cufft(_), Ok(timing)) => row.cufft = Some(timing),
                        (Contender::Copy, Ok(timing)) => row.copy = Some(timing),
                        (_, Err(e)) => row.notes.push(format!("{}: {e}", contender.name())),
                    }
                }
            }
            Err(e) => row.notes.push(format!("timing: {e}")),
        }
        let one_kernel = planned.passes.len() == 1;
        if one_kernel && dimensions.contains(&Dimension::StageGraph) {
            let planned_fft = ffts.iter().find(|(v, _)| *v == 0).map(|(_, fft)| fft);
            row.stage_graph = self.stage_graph_pick(&row, &spec, &references, planned_fft);
        }
        drop((ffts, cufft));
        self.restore_input(&mut row.notes);
        row
    }

    /// The stage graph's cheapest schedule over the costs fitted to the
    /// timed variants of `row`; where no variant ran it, its kernel (the
    /// planner's threads and bound for those radices) is checked and timed
    /// whole against the plan's, `planned`, in a round of their own.
    fn stage_graph_pick(
        &mut self,
        row: &TuneRow,
        spec: &FftSpec,
        references: &References,
        planned: Option<&CudaFft>,
    ) -> Option<StageGraphPick> {
        let mut pick = StageGraphPick::of(row.n, &row.variants)?;
        pick.among_variants = row
            .variants
            .iter()
            .any(|v| v.timing.is_some() && v.choices.radices.as_ref() == Some(&pick.radices));
        if !pick.among_variants {
            pick.confirmed = planned.and_then(|planned| {
                self.time_against_plan(row, spec, references, planned, &pick.radices)
            });
        }
        Some(pick)
    }

    /// The kernel of `radices` (the planner's threads and bound for them),
    /// checked against the reference, and its forward time against
    /// `planned`'s in a round of their own (ms, ms); None where it does not
    /// plan, load, check or time.
    fn time_against_plan(
        &mut self,
        row: &TuneRow,
        spec: &FftSpec,
        references: &References,
        planned: &CudaFft,
        radices: &[usize],
    ) -> Option<(f64, f64)> {
        let choices = ShapeChoices {
            radices: Some(radices.to_vec()),
            ..ShapeChoices::default()
        };
        let spec = spec.clone().choices(choices);
        let generated = fftgen::generate(&spec, &spec.emit_command()).ok()?;
        let mut check = BenchRow::new(row.n, row.batch, T::PRECISION);
        let fft = self.ours_checked(&mut check, &generated, references).ok()?;
        if !check.ours_accurate() {
            return None;
        }
        let contenders = [
            Contender::Ours(&fft, Direction::Forward),
            Contender::Ours(planned, Direction::Forward),
        ];
        match self
            .time_all(row.n, row.batch, &contenders)
            .ok()?
            .as_slice()
        {
            [Ok(ours), Ok(plan)] => Some((ours.median_ms, plan.median_ms)),
            _ => None,
        }
    }

    /// Whether the device input still equals what was uploaded.
    fn input_intact(&mut self) -> Result<bool, BenchError> {
        self.stream
            .memcpy_dtoh(&self.input, &mut self.host_scratch)
            .map_err(|e| BenchError::driver("cuMemcpyDtoH", e))?;
        self.stream
            .synchronize()
            .map_err(|e| BenchError::driver("cuStreamSynchronize", e))?;
        let same = |a: &T, b: &T| (*a).into().to_bits() == (*b).into().to_bits();
        Ok(self
            .host_scratch
            .iter()
            .zip(&self.host_input)
            .all(|(a, b)| same(a, b)))
    }

    /// Puts the uploaded input back if cuFFT, which does not promise to leave
    /// its input alone, changed it, with a note; false when the input could
    /// not be checked or restored (the note says why).
    fn restore_input(&mut self, notes: &mut Vec<String>) -> bool {
        match self.input_intact() {
            Ok(true) => true,
            Ok(false) => {
                notes.push("cuFFT wrote into its input; the input was uploaded again".into());
                let uploaded = self
                    .stream
                    .memcpy_htod(&self.host_input, &mut self.input)
                    .map_err(|e| BenchError::driver("cuMemcpyHtoD", e));
                if let Err(e) = &uploaded {
                    notes.push(format!("uploading the input again: {e}"));
                }
                uploaded.is_ok()
            }
            Err(e) => {
                notes.push(format!("checking the input: {e}"));
                false
            }
        }
    }

    /// Our OpenCL kernels on the same GPU, when the platform is there.
    fn opencl(&mut self, row: &mut BenchRow, generated: &Generated, references: &References) {
        let Some(opencl) = self.opencl.as_mut() else {
            return;
        };
        match opencl.bench(generated, row.batch, self.schedule, row.checked_transforms) {
            Ok((timing, prefix)) => {
                row.opencl = Some(timing);
                row.opencl_error = Some(relative_l2(&widen(&prefix), &references.forward));
            }
            Err(e) => row.notes.push(format!("OpenCL: {e}")),
        }
    }
}

/// Fills `buffer` with 0xFF bytes (NaN in f32 and f64), so that outputs a
/// kernel never writes are seen.
fn poison<T>(stream: &Arc<CudaStream>, buffer: &mut CudaSlice<T>) -> Result<(), BenchError> {
    let bytes = buffer.num_bytes();
    let (ptr, _write) = buffer.device_ptr_mut(stream);
    // SAFETY: the pointer and byte count describe a live allocation of this
    // stream's context; any bit pattern is a valid f32 or f64.
    unsafe {
        fftgen_runtime::cudarc::driver::result::memset_d8_async(
            ptr,
            0xFF,
            bytes,
            stream.cu_stream(),
        )
    }
    .map_err(|e| BenchError::driver("cuMemsetD8Async", e))
}

/// Waits for `stream`, downloads all of `output` and returns the relative L2
/// error of its first `want.len()` complex values against `want`, and how
/// many reals of the whole output are not finite (left unwritten, or NaN).
fn scan<T: Sample>(
    stream: &Arc<CudaStream>,
    output: &CudaSlice<T>,
    host: &mut [T],
    want: &[Complex<f64>],
) -> Result<(f64, u64), BenchError> {
    let not_finite = download(stream, output, host)?;
    let got = widen(&host[..2 * want.len()]);
    Ok((relative_l2(&got, want), not_finite))
}

/// Waits for `stream`, downloads all of `output` into the start of `host`
/// and returns how many of its reals are not finite (left unwritten, or NaN).
fn download<T: Sample>(
    stream: &Arc<CudaStream>,
    output: &CudaSlice<T>,
    host: &mut [T],
) -> Result<u64, BenchError> {
    let host = &mut host[..output.len()];
    stream
        .memcpy_dtoh(output, host)
        .map_err(|e| BenchError::driver("cuMemcpyDtoH", e))?;
    // Kernel faults surface here.
    stream
        .synchronize()
        .map_err(|e| BenchError::driver("cuStreamSynchronize (after the checked run)", e))?;
    stream
        .context()
        .check_err()
        .map_err(|e| BenchError::driver("an earlier asynchronous call", e))?;
    Ok(host.iter().filter(|&&x| !x.into().is_finite()).count() as u64)
}

/// Interleaved reals as f64 complex values.
fn widen<T: Sample>(reals: &[T]) -> Vec<Complex<f64>> {
    reals
        .chunks_exact(2)
        .map(|c| Complex::new(c[0].into(), c[1].into()))
        .collect()
}

/// `source` without its comment lines: two shapes whose kernels differ only
/// in the comments (the regenerate command names every flag given) are the
/// same kernel, timed once.
fn code_of(source: &str) -> String {
    source
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A wisdom file holding `column` alone as a column-pass entry for the GPU
/// model of `target`, written for one tune variant to plan with (the
/// caller removes it).
fn column_wisdom(
    column: &ColumnCandidate,
    precision: Precision,
    target: &fftgen::Target,
    index: usize,
) -> std::io::Result<std::path::PathBuf> {
    let file = fftgen::plan::WisdomFile {
        gpu: target.model.to_string(),
        fallback: false,
        about: "one fftgen tune variant".into(),
        model: None,
        plan_model: None,
        entries: vec![column.entry(precision, Vec::new())],
    };
    let path = std::env::temp_dir().join(format!(
        "fftgen-tune-column-{}-{index}.json",
        std::process::id()
    ));
    std::fs::write(&path, file.to_json())?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_transforms_cover_enough_points() {
        assert_eq!(checked_transforms(2, 1 << 26), 32_768);
        assert_eq!(checked_transforms(4096, 1 << 15), 64);
        assert_eq!(checked_transforms(1000, 134_217), 65);
        assert_eq!(checked_transforms(8, 10), 10);
        // Large transforms: at most 2^20 points, at least one transform.
        assert_eq!(checked_transforms(8192, 16_384), 64);
        assert_eq!(checked_transforms(1 << 16, 2048), 16);
        assert_eq!(checked_transforms(1 << 20, 128), 1);
        assert_eq!(checked_transforms(1 << 24, 8), 1);
        assert_eq!(checked_transforms(1 << 27, 1), 1);
    }

    /// [`check_cases`] of `shapes`, each in `precision` as `kind`.
    fn check_shapes(
        shapes: &[Shape],
        precision: Precision,
        kind: TransformKind,
    ) -> Result<(), BenchError> {
        check_cases(&BenchCase::listed(shapes, precision, kind))
    }

    #[test]
    fn preflight_plans_every_shape() {
        let shapes = |texts: &[&str]| -> Vec<Shape> {
            texts
                .iter()
                .map(|t| crate::shape::parse_shape(t).unwrap())
                .collect()
        };
        // Beyond one kernel, multi-pass, 2D and 3D all plan.
        let issue = shapes(&[
            "8192",
            "16384",
            "1048576",
            "134217728",
            "59049",
            "78125",
            "1679616",
            "1024x1024",
            "4096x4096",
            "256x256x256",
        ]);
        check_shapes(&issue, Precision::F32, TransformKind::C2c).unwrap();
        check_shapes(
            &shapes(&["8192", "1048576"]),
            Precision::F64,
            TransformKind::C2c,
        )
        .unwrap();
        check_shapes(&shapes(&["1073741824"]), Precision::F32, TransformKind::C2c).unwrap();
        // The planner's refusals name the shape.
        let empty = check_shapes(&[], Precision::F32, TransformKind::C2c)
            .unwrap_err()
            .to_string();
        assert!(empty.contains("--sizes"), "{empty}");
        let zero = check_shapes(&shapes(&["16x0"]), Precision::F32, TransformKind::C2c)
            .unwrap_err()
            .to_string();
        assert!(zero.contains("16x0"), "{zero}");
        let huge = check_shapes(&shapes(&["2147483648"]), Precision::F32, TransformKind::C2c)
            .unwrap_err()
            .to_string();
        assert!(huge.contains("2147483648"), "{huge}");
        // Real transforms: the issue's shapes and the default lengths plan,
        // and refusals name the kind.
        check_shapes(
            &shapes(&["4096", "1024x1024"]),
            Precision::F32,
            TransformKind::R2c,
        )
        .unwrap();
        for precision in [Precision::F32, Precision::F64] {
            let defaults: Vec<Shape> = crate::bench::default_real_sizes(precision)
                .into_iter()
                .map(|n| Shape(vec![n]))
                .collect();
            check_shapes(&defaults, precision, TransformKind::R2c).unwrap();
        }
        let empty_real = check_shapes(&shapes(&["0"]), Precision::F32, TransformKind::R2c)
            .unwrap_err()
            .to_string();
        assert!(empty_real.contains("(r2c, f32)"), "{empty_real}");
    }

    #[test]
    fn a_shape_named_two_ways_is_one_kernel() {
        let planned = FftSpec::new(4)
            .precision(fftgen::Precision::F64)
            .radices(&[4]);
        let pinned = planned.clone().choices(ShapeChoices {
            threads_per_fft: Some(1),
            ..ShapeChoices::default()
        });
        let source = |spec: &FftSpec| {
            fftgen::generate(spec, &spec.emit_command())
                .unwrap()
                .cuda_source
        };
        assert_ne!(source(&planned), source(&pinned));
        assert_eq!(code_of(&source(&planned)), code_of(&source(&pinned)));
        let other = planned.clone().choices(ShapeChoices {
            min_blocks_per_sm: Some(2),
            ..ShapeChoices::default()
        });
        assert_ne!(code_of(&source(&planned)), code_of(&source(&other)));
    }

    #[test]
    fn random_reals_are_never_zero_and_repeat_with_the_seed() {
        let a = random_reals::<f32>(1000, 7);
        assert_eq!(a, random_reals::<f32>(1000, 7));
        assert_ne!(a, random_reals::<f32>(1000, 8));
        assert!(a.iter().all(|&x| x != 0.0 && (-1.0..1.0).contains(&x)));
    }
}
