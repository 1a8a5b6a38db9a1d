//! `fftgen bench --gpus P`: a transform spread over P GPUs of one machine
//! (one process, a thread per rank, NCCL between them), timed whole, as its
//! local steps alone and as its exchanges alone (the bare NCCL all-to-all of
//! the same bytes), next to the same transform on one GPU. Each rank times
//! its groups with CUDA events on its own stream; a group's time is the
//! slowest rank's, the result the median over groups. The error is the
//! relative L2 against the f64 reference where the host computes one, else
//! against the one-GPU result.

use super::timing::{median, Schedule};
use super::{BenchError, Sample};
use crate::accuracy::{reference_nd, relative_l2, tolerance};
use crate::shape::Shape;
use fftgen::distributed::{DistributedPlan, DistributedSpec};
use fftgen::{Direction, FftSpec, Precision, TransformKind};
use fftgen_runtime::cudarc::driver::sys::CUevent_flags;
use fftgen_runtime::cudarc::driver::CudaSlice;
use fftgen_runtime::cudarc::nccl::NcclType;
use fftgen_runtime::distributed::nccl::{on_every_rank, CudaRank};
use fftgen_runtime::{Complex, CudaDevice};
use serde::Serialize;

/// Largest batch of points whose f64 reference the host computes.
const HOST_REFERENCE_POINTS: usize = 1 << 27;
/// Largest batch of points gathered to the host to compare with one GPU.
const HOST_COMPARE_POINTS: usize = 1 << 28;

/// What `fftgen bench --gpus P` times.
#[derive(Debug, Clone)]
pub struct DistributedConfig {
    pub shapes: Vec<Shape>,
    pub kind: TransformKind,
    pub precision: Precision,
    pub gpus: usize,
    pub grid: Option<Vec<usize>>,
    /// Transforms per call (0: as many as fill 1 GiB of the whole array, at least 1).
    pub batch: usize,
    /// Chunks of a slab's exchange (`None`: the planner's).
    pub chunks: Option<usize>,
    pub schedule: Schedule,
}

/// One shape's result.
#[derive(Debug, Clone, Serialize)]
pub struct DistributedRow {
    pub shape: String,
    pub kind: TransformKind,
    pub precision: Precision,
    pub gpus: usize,
    pub grid: Vec<usize>,
    /// Chunks of the first exchange (1: whole blocks).
    pub chunks: usize,
    pub batch: usize,
    /// The forward, every step (median ms).
    pub total_ms: f64,
    /// The local steps alone.
    pub local_ms: f64,
    /// The exchanges alone: NCCL's all-to-all of the same bytes.
    pub exchange_ms: f64,
    /// total / (local + exchange): 1 where nothing is lost between them.
    pub over_bound: f64,
    /// Bytes each GPU sends and receives per call, over the exchanges' time.
    pub exchange_gb_s: f64,
    /// The same transform on one GPU with fftgen (`None` where it does not fit).
    pub one_gpu_ms: Option<f64>,
    /// one_gpu_ms / total_ms.
    pub speedup: Option<f64>,
    pub error: Option<f64>,
    /// What `error` compares with: "f64 reference" or "one GPU".
    pub error_against: String,
    pub tolerance: f64,
    pub one_gpu_error: Option<f64>,
}

/// Times every shape of `config`; a shape that cannot run (it does not
/// plan, or does not fit the GPUs) is reported on stderr and left out.
pub fn run(config: &DistributedConfig) -> Result<Vec<DistributedRow>, BenchError> {
    let mut rows = Vec::new();
    for shape in &config.shapes {
        let row = match config.precision {
            Precision::F32 => run_shape::<f32>(config, shape),
            Precision::F64 => run_shape::<f64>(config, shape),
        };
        match row {
            Ok(row) => rows.push(row),
            Err(e) => eprintln!("{shape} over {} GPUs: {e}", config.gpus),
        }
    }
    match rows.is_empty() {
        true => Err(BenchError::Invalid("no shape ran".into())),
        false => Ok(rows),
    }
}

/// Real `index` of the random input, in [-1, 1): splitmix64 of the index,
/// so each rank makes its own share without the whole array.
fn random_value(index: usize) -> f64 {
    let mut z = (index as u64)
        .wrapping_add(26)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
}

fn driver(call: &str) -> impl Fn(fftgen_runtime::cudarc::driver::DriverError) -> BenchError + '_ {
    move |e| BenchError::driver(call, e)
}

fn run_shape<T: Sample + NcclType>(
    config: &DistributedConfig,
    shape: &Shape,
) -> Result<DistributedRow, BenchError> {
    let spec = FftSpec::with_shape(&shape.0)
        .kind(config.kind)
        .precision(config.precision);
    let distributed = DistributedSpec {
        spec: spec.clone(),
        gpus: config.gpus,
        grid: config.grid.clone(),
        chunks: config.chunks,
    };
    let ranks =
        CudaRank::<T>::all_devices(&distributed).map_err(|e| BenchError::Invalid(e.to_string()))?;
    let plan = ranks[0].plan().clone();
    let points = shape.points();
    let complex_points: usize = plan.complex_shape().iter().product();
    let batch = match config.batch {
        0 => ((1usize << 30) / (complex_points * config.precision.complex_bytes())).max(1),
        b => b,
    };
    let real = config.kind == TransformKind::R2c;
    // The whole batch's input: reals (r2c) or pairs of reals, each rank
    // making its share.
    let value_of = |i: usize| match real {
        true => Complex::new(random_value(i), 0.0),
        false => Complex::new(random_value(2 * i), random_value(2 * i + 1)),
    };
    let (input_len, output_len) = ranks[0].share_lens(Direction::Forward);
    let uploads: Vec<Result<(CudaSlice<T>, CudaSlice<T>), BenchError>> =
        on_every_rank(&ranks, |rank| {
            let stream = rank.device().stream();
            // The padding of a range cut unevenly holds zeros.
            let offsets = plan.global_offsets(false, rank.rank(), batch);
            let value = |o: Option<usize>, part: usize| {
                o.map_or(T::from_f64(0.0), |o| {
                    T::from_f64(random_value(o * (1 + usize::from(!real)) + part))
                })
            };
            let host: Vec<T> = match real {
                true => offsets.iter().map(|&o| value(o, 0)).collect(),
                false => offsets
                    .iter()
                    .flat_map(|&o| [value(o, 0), value(o, 1)])
                    .collect(),
            };
            let input = stream.clone_htod(&host).map_err(driver("cuMemcpyHtoD"))?;
            let output = stream
                .alloc_zeros::<T>(2 * output_len * batch)
                .map_err(driver("cuMemAlloc"))?;
            debug_assert_eq!(host.len(), input_len * batch * if real { 1 } else { 2 });
            Ok((input, output))
        });
    let mut buffers = Vec::new();
    for upload in uploads {
        buffers.push(upload?);
    }
    let buffers: Vec<std::sync::Mutex<(CudaSlice<T>, CudaSlice<T>)>> =
        buffers.into_iter().map(std::sync::Mutex::new).collect();
    // Each contender: what one rank enqueues for one launch.
    #[derive(Clone, Copy, PartialEq)]
    enum Contender {
        Whole,
        Local,
        Exchange,
    }
    let launch = |rank: &CudaRank<T>, contender: Contender| -> Result<(), BenchError> {
        let mut guard = buffers[rank.rank()].lock().unwrap();
        let (input, output) = &mut *guard;
        // Buffers of reals: a complex side is two reals a value.
        match contender {
            Contender::Whole => rank.launch(Direction::Forward, input, output, batch),
            Contender::Local => rank.launch_local_steps(Direction::Forward, input, output, batch),
            Contender::Exchange => rank.launch_exchanges(Direction::Forward, batch),
        }
        .map_err(BenchError::from)
    };
    let schedule = config.schedule;
    let time = |contender: Contender| -> Result<f64, BenchError> {
        let per_rank: Vec<Result<Vec<f64>, BenchError>> = on_every_rank(&ranks, |rank| {
            let stream = rank.device().stream();
            let event = || {
                rank.device()
                    .context()
                    .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                    .map_err(driver("cuEventCreate"))
            };
            let (start, end) = (event()?, event()?);
            for _ in 0..schedule.warmup {
                launch(rank, contender)?;
            }
            stream
                .synchronize()
                .map_err(driver("cuStreamSynchronize"))?;
            let mut groups = Vec::new();
            for _ in 0..schedule.groups {
                start.record(stream).map_err(driver("cuEventRecord"))?;
                for _ in 0..schedule.repeats {
                    launch(rank, contender)?;
                }
                end.record(stream).map_err(driver("cuEventRecord"))?;
                let ms = start
                    .elapsed_ms(&end)
                    .map_err(driver("cuEventElapsedTime"))?;
                groups.push(f64::from(ms) / schedule.repeats as f64);
            }
            Ok(groups)
        });
        let mut per_rank_groups = Vec::new();
        for r in per_rank {
            per_rank_groups.push(r?);
        }
        // A group takes as long as its slowest rank.
        let slowest: Vec<f64> = (0..schedule.groups)
            .map(|g| {
                per_rank_groups
                    .iter()
                    .map(|groups| groups[g])
                    .fold(0.0, f64::max)
            })
            .collect();
        Ok(median(&slowest))
    };
    let total_ms = time(Contender::Whole)?;
    let local_ms = time(Contender::Local)?;
    let exchange_ms = time(Contender::Exchange)?;
    // The result of the whole transform, gathered where the host can hold it.
    // Bytes each GPU sends (its own block included) per call.
    let per_gpu_bytes: usize = plan
        .forward
        .iter()
        .map(|step| match step {
            fftgen::distributed::Step::Exchange {
                peers,
                run_elements,
                ..
            } => peers * run_elements,
            _ => 0,
        })
        .sum::<usize>()
        * batch
        * config.precision.complex_bytes();
    let chunks = plan
        .forward
        .iter()
        .filter(|s| matches!(s, fftgen::distributed::Step::Exchange { grid_axis: 0, .. }))
        .count();
    let gathered = (complex_points * batch <= HOST_COMPARE_POINTS)
        .then(|| gather::<T>(&ranks, &plan, &buffers, batch, output_len))
        .transpose()?;
    // One GPU: the same batch through fftgen's single-GPU plan.
    let (one_gpu_ms, one_gpu_result) = one_gpu::<T>(config, &spec, batch, schedule)?;
    let tol = tolerance(points, config.precision);
    let (error, error_against, one_gpu_error) = match &gathered {
        Some(got) if points * batch <= HOST_REFERENCE_POINTS => {
            let input: Vec<Complex<f64>> = (0..points * batch).map(value_of).collect();
            let full = reference_nd(
                &shape.0,
                &input,
                Direction::Forward,
                fftgen::Normalization::None,
            );
            let want: Vec<Complex<f64>> = match real {
                false => full,
                true => {
                    let (n, h) = (
                        shape.0[shape.0.len() - 1],
                        plan.complex_shape()[shape.0.len() - 1],
                    );
                    full.chunks(n).flat_map(|row| row[..h].to_vec()).collect()
                }
            };
            let one = one_gpu_result.as_ref().map(|r| relative_l2(r, &want));
            (Some(relative_l2(got, &want)), "f64 reference", one)
        }
        Some(got) => match &one_gpu_result {
            Some(one) => (Some(relative_l2(got, one)), "one GPU", None),
            None => (None, "not checked", None),
        },
        None => (None, "not checked", None),
    };
    Ok(DistributedRow {
        shape: shape.to_string(),
        kind: config.kind,
        precision: config.precision,
        gpus: config.gpus,
        grid: plan.grid.clone(),
        chunks,
        batch,
        total_ms,
        local_ms,
        exchange_ms,
        over_bound: total_ms / (local_ms + exchange_ms),
        exchange_gb_s: per_gpu_bytes as f64 / exchange_ms / 1e6,
        one_gpu_ms,
        speedup: one_gpu_ms.map(|one| one / total_ms),
        error,
        error_against: error_against.into(),
        tolerance: tol,
        one_gpu_error,
    })
}

/// Every rank's output, in the whole batch's order, widened to f64.
fn gather<T: Sample + NcclType>(
    ranks: &[CudaRank<T>],
    plan: &DistributedPlan,
    buffers: &[std::sync::Mutex<(CudaSlice<T>, CudaSlice<T>)>],
    batch: usize,
    output_len: usize,
) -> Result<Vec<Complex<f64>>, BenchError> {
    let complex_points: usize = plan.complex_shape().iter().product();
    let mut whole = vec![Complex::new(0.0, 0.0); complex_points * batch];
    for rank in ranks {
        let stream = rank.device().stream();
        let guard = buffers[rank.rank()].lock().unwrap();
        let host = stream
            .clone_dtoh(&guard.1)
            .map_err(driver("cuMemcpyDtoH"))?;
        let offsets = plan.global_offsets(true, rank.rank(), batch);
        debug_assert_eq!(offsets.len(), output_len * batch);
        for (i, o) in offsets.iter().enumerate() {
            if let Some(o) = *o {
                whole[o] = Complex::new(host[2 * i].into(), host[2 * i + 1].into());
            }
        }
    }
    Ok(whole)
}

/// The single-GPU fftgen transform of the same batch on GPU 0: its median
/// time and (where the host holds it) its result; `None` where it does not
/// fit the GPU.
fn one_gpu<T: Sample + NcclType>(
    config: &DistributedConfig,
    spec: &FftSpec,
    batch: usize,
    schedule: Schedule,
) -> Result<(Option<f64>, Option<Vec<Complex<f64>>>), BenchError> {
    let device = CudaDevice::new(0)?;
    // A transform one GPU cannot plan (past 2^30 points) has no baseline.
    let Ok(fft) = fftgen_runtime::planner::cuda_fft(&device, spec) else {
        return Ok((None, None));
    };
    let stream = device.stream();
    let real = config.kind == TransformKind::R2c;
    let points = spec.points();
    let complex_points: usize = spec.kind.complex_shape(&spec.shape).iter().product();
    let in_reals = points * batch * if real { 1 } else { 2 };
    let out_reals = 2 * complex_points * batch;
    let bytes = (in_reals + out_reals) * std::mem::size_of::<T>() + fft.workspace_bytes(batch)?;
    let (free, _) =
        fftgen_runtime::cudarc::driver::result::mem_get_info().map_err(driver("cuMemGetInfo"))?;
    if bytes + (1 << 30) > free {
        return Ok((None, None));
    }
    let host: Vec<T> = (0..in_reals)
        .map(|i| T::from_f64(random_value(i)))
        .collect();
    let input = stream.clone_htod(&host).map_err(driver("cuMemcpyHtoD"))?;
    let mut output = stream
        .alloc_zeros::<T>(out_reals)
        .map_err(driver("cuMemAlloc"))?;
    let launch =
        |output: &mut CudaSlice<T>| fft.launch(stream, Direction::Forward, &input, output, batch);
    for _ in 0..schedule.warmup {
        launch(&mut output)?;
    }
    let event = || {
        device
            .context()
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(driver("cuEventCreate"))
    };
    let (start, end) = (event()?, event()?);
    let mut groups = Vec::new();
    for _ in 0..schedule.groups {
        start.record(stream).map_err(driver("cuEventRecord"))?;
        for _ in 0..schedule.repeats {
            launch(&mut output)?;
        }
        end.record(stream).map_err(driver("cuEventRecord"))?;
        groups.push(
            f64::from(
                start
                    .elapsed_ms(&end)
                    .map_err(driver("cuEventElapsedTime"))?,
            ) / schedule.repeats as f64,
        );
    }
    let result = (complex_points * batch <= HOST_COMPARE_POINTS)
        .then(|| -> Result<Vec<Complex<f64>>, BenchError> {
            let host = stream.clone_dtoh(&output).map_err(driver("cuMemcpyDtoH"))?;
            Ok(host
                .chunks(2)
                .map(|c| Complex::new(c[0].into(), c[1].into()))
                .collect())
        })
        .transpose()?;
    Ok((Some(median(&groups)), result))
}

/// The rows as a Markdown table (docs/perf.md's multi-GPU table).
pub fn markdown(rows: &[DistributedRow], device: &str) -> String {
    let mut out = format!(
        "| shape | kind | GPUs (grid) | chunks | batch | total ms | local steps ms | all-to-all ms | total / (local + all-to-all) | all-to-all GB/s per GPU | one GPU ms | speedup | error (against) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    );
    for r in rows {
        let opt =
            |v: Option<f64>, digits: usize| v.map_or("-".to_string(), |v| format!("{v:.digits$}"));
        out += &format!(
            "| {} | {} {} | {} ({}) | {} | {} | {:.3} | {:.3} | {:.3} | {:.2} | {:.0} | {} | {} | {} ({}) |\n",
            r.shape,
            r.kind,
            r.precision,
            r.gpus,
            fftgen::emit::shape_text(&r.grid),
            r.chunks,
            r.batch,
            r.total_ms,
            r.local_ms,
            r.exchange_ms,
            r.over_bound,
            r.exchange_gb_s,
            opt(r.one_gpu_ms, 3),
            opt(r.speedup, 2),
            r.error.map_or("-".into(), |e| format!("{e:.2e}")),
            r.error_against,
        );
    }
    out += &format!("\n{device}\n");
    out
}
