//! Measured planning on a CUDA device (feature `planner`), FFTW's MEASURE:
//! [`PlanEffort::Measure`] compiles the estimate and its nearest variants
//! ([`fftgen::plan::measure::candidates`]) in parallel, times them on the
//! device within a budget (1 s of timing by default; compiling, which NVRTC
//! takes seconds for, comes before it and lands in the disk cache), and keeps
//! the winner in a per-user file ([`MeasuredWisdom`]) under the disk cache
//! directory, one per GPU model, valid for one driver version. The next plan
//! of the same spec on that GPU, in this process or a later one, takes the
//! winner from the file and measures nothing. Estimating stays the default.

use crate::cuda::{default_disk_dir, CubinCache, CudaDevice, CudaFft};
use crate::error::Error;
use crate::planner::{cuda_fft, cuda_fft_with_cache, for_target, PlanError};
use cudarc::driver::sys::CUevent_flags;
use fftgen::plan::measure::{self, Candidate, MeasuredWisdom, Measurement, Trial};
use fftgen::plan::ShapeChoices;
use fftgen::{Direction, FftSpec, Placement, Precision};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How much work planning may do: FFTW's ESTIMATE and MEASURE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlanEffort {
    /// The plan the model picks (with the wisdom's shapes); no timing.
    #[default]
    Estimate,
    /// The fastest of the model's best few candidates, timed on the device
    /// within `budget` (compiling them comes before), or the winner measured
    /// before.
    Measure { budget: Duration },
}

impl PlanEffort {
    /// Measuring within the default budget ([`measure::DEFAULT_BUDGET`]).
    pub fn measure() -> PlanEffort {
        PlanEffort::Measure {
            budget: measure::DEFAULT_BUDGET,
        }
    }
}

/// A measured plan: the kernels, the choices that plan them, and the
/// measurement where one ran now (`None`: the winner came from the file).
pub struct MeasuredFft {
    pub fft: CudaFft,
    pub choices: ShapeChoices,
    pub measurement: Option<Measurement>,
    /// Wall time compiling the candidates took (none from the file): apart
    /// from the budget, which counts the timing.
    pub compiling: Duration,
}

/// Bytes of the larger side a timing launch transforms: large enough that
/// the kernels run at their memory bandwidth, small enough to take
/// milliseconds.
const TIMED_BYTES: usize = 128 << 20;

/// [`cuda_fft`] with `effort`.
pub fn cuda_fft_with_effort(
    device: &CudaDevice,
    spec: &FftSpec,
    effort: PlanEffort,
) -> Result<CudaFft, PlanError> {
    match effort {
        PlanEffort::Estimate => cuda_fft(device, spec),
        PlanEffort::Measure { budget } => Ok(cuda_fft_measured(device, spec, budget)?.fft),
    }
}

/// The fastest plan of `spec` on `device`: the winner the per-user file
/// holds for it, else measured now within `budget` and recorded there.
pub fn cuda_fft_measured(
    device: &CudaDevice,
    spec: &FftSpec,
    budget: Duration,
) -> Result<MeasuredFft, PlanError> {
    let spec = for_target(spec, device.target());
    let store = MeasuredStore::for_device(device)?;
    if let Some(choices) = store.lookup(&spec) {
        let measured = spec.clone().choices(choices.clone());
        match cuda_fft_with_cache(device, &measured, CubinCache::global()) {
            Ok(fft) => {
                return Ok(MeasuredFft {
                    fft,
                    choices,
                    measurement: None,
                    compiling: Duration::ZERO,
                })
            }
            // An entry whose choices no longer plan is measured again.
            Err(PlanError::Generate(_)) => store.forget(&spec),
            Err(e) => return Err(e),
        }
    }
    let candidates = measure::candidates(&spec)?;
    let started = Instant::now();
    let mut compiled: Vec<Option<Result<CudaFft, PlanError>>> = compile(device, &spec, &candidates)
        .into_iter()
        .map(Some)
        .collect();
    let compiling = started.elapsed();
    let estimate = match &compiled[0] {
        Some(Ok(fft)) => fft,
        Some(Err(e)) => return Err(e.clone()),
        None => unreachable!("nothing was timed yet"),
    };
    let mut buffers = TimingBuffers::for_plan(device, &spec, estimate)?;
    let measurement = measure::measure(&candidates, budget, |candidate| {
        let index = candidates
            .iter()
            .position(|c| std::ptr::eq(c, candidate))
            .expect("a candidate of the list");
        let fft = compiled[index]
            .take()
            .expect("each candidate is timed once")?;
        let began = Instant::now();
        let milliseconds = buffers.time(&fft)?;
        Ok::<_, PlanError>(Trial {
            milliseconds,
            spent: began.elapsed(),
        })
    })?;
    let winner = measurement.winner().choices.clone();
    store.record(&spec, &measurement);
    let fft = cuda_fft_with_cache(
        device,
        &spec.clone().choices(winner.clone()),
        CubinCache::global(),
    )?;
    Ok(MeasuredFft {
        fft,
        choices: winner,
        measurement: Some(measurement),
        compiling,
    })
}

/// The candidates' kernels, compiled and loaded in parallel, in waves of
/// as many threads as the host has cores (NVRTC takes seconds for a large
/// kernel; the CUBINs land in the disk cache, so a later plan of any of
/// them loads in milliseconds).
fn compile(
    device: &CudaDevice,
    spec: &FftSpec,
    candidates: &[Candidate],
) -> Vec<Result<CudaFft, PlanError>> {
    let wave = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut out = Vec::new();
    for chunk in candidates.chunks(wave) {
        std::thread::scope(|scope| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|candidate| {
                    let spec = spec.clone().choices(candidate.choices.clone());
                    scope.spawn(move || cuda_fft_with_cache(device, &spec, CubinCache::global()))
                })
                .collect();
            out.extend(
                handles
                    .into_iter()
                    .map(|h| h.join().expect("compiling a candidate does not panic")),
            );
        });
    }
    out
}

/// Device buffers of random values for timing one spec's candidates: the
/// same batch, direction and placement for each.
struct TimingBuffers {
    direction: Direction,
    batch: usize,
    input: Reals,
    output: Option<Reals>,
}

enum Reals {
    F32(cudarc::driver::CudaSlice<f32>),
    F64(cudarc::driver::CudaSlice<f64>),
}

impl TimingBuffers {
    fn for_plan(
        device: &CudaDevice,
        spec: &FftSpec,
        fft: &CudaFft,
    ) -> Result<TimingBuffers, PlanError> {
        let manifest = fft.manifest();
        let direction = spec
            .directions
            .first()
            .copied()
            .unwrap_or(Direction::Forward);
        let (input, output) = (
            manifest.input_side(direction),
            manifest.output_side(direction),
        );
        let bytes = |side: &fftgen_manifest::Side<'_>, batch: usize| {
            side.elements(batch) * side.element.bytes(manifest.precision)
        };
        let larger = bytes(&input, 1).max(bytes(&output, 1)).max(1);
        let batch = (TIMED_BYTES / larger).clamp(1, crate::memory::max_batch(manifest).max(1));
        let real = manifest.precision.real_bytes();
        let in_place = manifest.placement == Placement::InPlace;
        let input_reals = match in_place {
            true => bytes(&input, batch).max(bytes(&output, batch)),
            false => bytes(&input, batch),
        } / real;
        let output_reals = (!in_place).then(|| bytes(&output, batch) / real);
        let stream = device.stream();
        let alloc = |reals: usize, seed: u64| -> Result<Reals, PlanError> {
            let driver = |e| PlanError::Runtime(Error::cuda("cuMemAlloc (measuring buffers)", e));
            Ok(match manifest.precision {
                Precision::F32 => {
                    let host: Vec<f32> = random(reals, seed).map(|x| x as f32).collect();
                    Reals::F32(stream.clone_htod(&host).map_err(driver)?)
                }
                Precision::F64 => {
                    let host: Vec<f64> = random(reals, seed).collect();
                    Reals::F64(stream.clone_htod(&host).map_err(driver)?)
                }
            })
        };
        Ok(TimingBuffers {
            direction,
            batch,
            input: alloc(input_reals, 1)?,
            output: output_reals.map(|reals| alloc(reals, 2)).transpose()?,
        })
    }

    /// Milliseconds per launch of `fft`: the median of five groups of four
    /// launches timed by CUDA events, after two launches of warm-up. The
    /// launches overwrite the buffers, whose values are scratch here.
    fn time(&mut self, fft: &CudaFft) -> Result<f64, PlanError> {
        let (direction, batch) = (self.direction, self.batch);
        match (&mut self.input, self.output.as_mut()) {
            (Reals::F32(input), None) => {
                time_launches(fft, |s| fft.launch_in_place(s, direction, input, batch))
            }
            (Reals::F64(input), None) => {
                time_launches(fft, |s| fft.launch_in_place(s, direction, input, batch))
            }
            (Reals::F32(input), Some(Reals::F32(output))) => {
                time_launches(fft, |s| fft.launch(s, direction, input, output, batch))
            }
            (Reals::F64(input), Some(Reals::F64(output))) => {
                time_launches(fft, |s| fft.launch(s, direction, input, output, batch))
            }
            _ => unreachable!("both buffers are of the plan's precision"),
        }
    }
}

/// [`TimingBuffers::time`]'s loop around `launch`.
fn time_launches(
    fft: &CudaFft,
    mut launch: impl FnMut(&cudarc::driver::CudaStream) -> crate::Result<()>,
) -> Result<f64, PlanError> {
    let stream = fft.device().stream().clone();
    let driver = |call| move |e| PlanError::Runtime(Error::cuda(call, e));
    launch(&stream)?;
    launch(&stream)?;
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let mut groups = Vec::new();
    for _ in 0..5 {
        let start = stream
            .record_event(flags)
            .map_err(driver("cuEventRecord"))?;
        for _ in 0..4 {
            launch(&stream)?;
        }
        let end = stream
            .record_event(flags)
            .map_err(driver("cuEventRecord"))?;
        let ms = start
            .elapsed_ms(&end)
            .map_err(driver("cuEventElapsedTime"))?;
        groups.push(f64::from(ms) / 4.0);
    }
    groups.sort_by(f64::total_cmp);
    Ok(groups[groups.len() / 2])
}

/// `len` values uniform in [-1, 1), from `seed` (xorshift64*).
fn random(len: usize, seed: u64) -> impl Iterator<Item = f64> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len).map(move |_| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let bits = state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11;
        bits as f64 / (1u64 << 52) as f64 - 1.0
    })
}

/// The measured winners of one GPU model, in memory and (where the disk
/// cache is on) in `<cache dir>/measured/<GPU model>.json`.
struct MeasuredStore {
    path: Option<PathBuf>,
    gpu: String,
    driver: String,
}

/// The files loaded in this process, by path (or GPU model where no path).
static LOADED: Mutex<Vec<(String, MeasuredWisdom)>> = Mutex::new(Vec::new());

impl MeasuredStore {
    fn for_device(device: &CudaDevice) -> Result<MeasuredStore, PlanError> {
        let gpu = device.name().trim_start_matches("NVIDIA ").to_string();
        let driver = driver_version()?.to_string();
        let path = default_disk_dir().map(|dir| measured_path(&dir, &gpu));
        Ok(MeasuredStore { path, gpu, driver })
    }

    fn key(&self) -> String {
        self.path
            .as_ref()
            .map_or_else(|| self.gpu.clone(), |p| p.display().to_string())
    }

    /// Runs `f` on the file, loaded from disk the first time.
    fn with_file<R>(&self, f: impl FnOnce(&mut MeasuredWisdom) -> R) -> R {
        let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
        let key = self.key();
        let index = match loaded
            .iter()
            .position(|(k, file)| *k == key && file.driver == self.driver)
        {
            Some(i) => i,
            None => {
                let file = match &self.path {
                    Some(path) => MeasuredWisdom::load_or_new(path, &self.gpu, &self.driver),
                    None => MeasuredWisdom::new(&self.gpu, &self.driver),
                };
                loaded.retain(|(k, _)| *k != key);
                loaded.push((key, file));
                loaded.len() - 1
            }
        };
        f(&mut loaded[index].1)
    }

    fn forget(&self, spec: &FftSpec) {
        self.with_file(|file| file.forget(spec));
    }

    fn lookup(&self, spec: &FftSpec) -> Option<ShapeChoices> {
        self.with_file(|file| file.lookup(spec).map(|entry| entry.choices.clone()))
    }

    /// Records the winner, and writes the file where there is one (a cache:
    /// a failed write costs a measurement later, not this plan).
    fn record(&self, spec: &FftSpec, measurement: &Measurement) {
        let json = self.with_file(|file| {
            file.record(spec, measurement);
            file.to_json()
        });
        if let Some(path) = &self.path {
            let _ = write_atomically(path, &json);
        }
    }
}

/// The file of GPU model `gpu` under the disk cache directory `dir`.
fn measured_path(dir: &std::path::Path, gpu: &str) -> PathBuf {
    let name: String = gpu
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    dir.join("measured").join(format!("{name}.json"))
}

/// Writes `text` to a temporary file beside `path` (named by process and
/// call, so that threads and processes never share one) and renames it
/// there: readers see the old file or the new one, never part of one.
fn write_atomically(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = path.parent().expect("a file under the cache directory");
    std::fs::create_dir_all(dir)?;
    let call = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temporary = dir.join(format!(".{}-{call}.tmp", std::process::id()));
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, path)
}

/// The CUDA driver's version number (`13000` for 13.0).
fn driver_version() -> Result<i32, PlanError> {
    crate::cuda::check_driver()?;
    let mut version = 0;
    // SAFETY: the driver library is loaded (checked above) and the call
    // writes one int.
    let status = unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) };
    match status {
        cudarc::driver::sys::CUresult::CUDA_SUCCESS => Ok(version),
        status => Err(PlanError::Runtime(Error::cuda(
            "cuDriverGetVersion",
            cudarc::driver::DriverError(status),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_written_whole_by_many_threads_at_once() {
        let dir =
            std::env::temp_dir().join(format!("fftgen-measured-write-{}", std::process::id()));
        let path = dir.join("measured").join("X.json");
        std::thread::scope(|scope| {
            for i in 0..8 {
                let path = &path;
                scope.spawn(move || {
                    write_atomically(path, &format!("{{\"writer\": {i}}}\n")).unwrap()
                });
            }
        });
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            serde_json::from_str::<serde_json::Value>(&text).is_ok(),
            "{text}"
        );
        let left: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn files_are_named_by_gpu_model() {
        let path = measured_path(std::path::Path::new("/cache"), "H100 80GB HBM3");
        assert_eq!(path, PathBuf::from("/cache/measured/H100-80GB-HBM3.json"));
    }

    #[test]
    fn random_values_are_in_range_and_repeat_by_seed() {
        let a: Vec<f64> = random(1000, 3).collect();
        assert!(a.iter().all(|x| (-1.0..1.0).contains(x)));
        assert_eq!(a, random(1000, 3).collect::<Vec<_>>());
        assert_ne!(a, random(1000, 4).collect::<Vec<_>>());
        assert_eq!(PlanEffort::default(), PlanEffort::Estimate);
    }
}
