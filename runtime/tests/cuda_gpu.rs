//! CudaFft on a real GPU with hand-written kernels and manifests (the CUDA
//! twins of opencl_launch.rs): arguments bound by role, a ragged batch,
//! multi-pass transforms through the scratch buffer, in place, the host and
//! the device-buffer APIs, streams of the plan's context and of another one,
//! and every check failing before anything is written. The kernels only scale
//! and shift, so every expected value is exact.
//!
//! Without a CUDA driver (or device) these tests print `SKIPPED: no CUDA
//! driver` and pass, even with CI=true: CI machines have no GPU. The first
//! test runs everywhere: without a driver, making a device is a clear error.

mod common;

use fftgen_runtime::cuda::{CudaContext, CudaSlice, CudaStream};
use fftgen_runtime::{
    driver_available, CacheOrigin, Complex, CubinCache, CudaDevice, CudaFft, Direction, Error,
    GridRule, KernelArg, Manifest, Normalization, PassLaunch, Placement, Precision, Real,
    TransformLaunch,
};
use std::io::Write;
use std::sync::Arc;

const N: usize = 8;

#[test]
fn without_a_driver_or_device_making_one_is_a_clear_error() {
    if !driver_available() {
        assert_eq!(CudaDevice::new(0).unwrap_err(), Error::CudaDriverMissing);
        assert_eq!(CudaDevice::count().unwrap_err(), Error::CudaDriverMissing);
        let message = Error::CudaDriverMissing.to_string();
        assert!(message.contains("libcuda.so"), "{message}");
    }
    // No machine has this many GPUs; the error says how many there are.
    match CudaDevice::new(1_000_000) {
        Err(Error::CudaDriverMissing) => assert!(!driver_available()),
        Err(e @ Error::NoCudaDevice { .. }) => {
            assert!(e.to_string().contains("1000000"), "{e}")
        }
        other => panic!("expected an error, got {other:?}"),
    }
}

/// Device 0, or None after printing why the test skips (never a failure).
fn gpu(test: &str) -> Option<CudaDevice> {
    let skip = |why: &str| {
        let _ = writeln!(std::io::stderr(), "SKIPPED: {why}: {test}");
        None
    };
    if !driver_available() {
        return skip("no CUDA driver");
    }
    match CudaDevice::new(0) {
        Ok(device) => {
            // A GPU without NVRTC is a broken setup: fail under CI, else skip.
            if common::nvrtc(test) {
                Some(device)
            } else {
                None
            }
        }
        Err(Error::NoCudaDevice { detail, .. }) => skip(&format!("no CUDA device ({detail})")),
        Err(e) => panic!("{test}: the driver is present but device 0 failed: {e}"),
    }
}

/// Kernels over `real` (float or double). Argument orders differ on purpose,
/// to prove that the runtime binds by role.
fn source(real: &str) -> String {
    format!(
        r#"#define N {N}
typedef {real} R;
typedef {real}2 R2;

__device__ R2 pack(R x, R y) {{ R2 v; v.x = x; v.y = y; return v; }}

// One transform per threadIdx.y; out = 2 in + (0, batch) proves that the batch arrives.
extern "C" __global__ void twice_plus_batch(unsigned int batch, R2* out, const R2* in) {{
    unsigned int fft = blockIdx.x * blockDim.y + threadIdx.y;
    if (fft >= batch) return;
    unsigned int i = fft * N + threadIdx.x;
    out[i] = pack(in[i].x * (R)2, in[i].y * (R)2 + (R)batch);
}}

// No batch argument: launched with one transform per block.
extern "C" __global__ void halve(const R2* in, R2* out) {{
    unsigned int i = blockIdx.x * N + threadIdx.x;
    out[i] = pack(in[i].x * (R)0.5, in[i].y * (R)0.5);
}}

extern "C" __global__ void add_one(R2* data, unsigned int batch) {{
    unsigned int fft = blockIdx.x * blockDim.y + threadIdx.y;
    if (fft >= batch) return;
    data[fft * N + threadIdx.x].x += (R)1;
}}

// Launch bounds below the block the manifest will ask for.
extern "C" __global__ void __launch_bounds__(64) bounded(const R2* in, R2* out) {{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}}
"#
    )
}

fn name(text: &str) -> String {
    text.to_string()
}

fn twice_plus_batch() -> PassLaunch {
    PassLaunch {
        kernel: name("twice_plus_batch"),
        block: [N as u32, 2, 1],
        grid: GridRule::FftsPerBlock { ffts_per_block: 2 },
        shared_bytes: 0,
        args: vec![
            KernelArg::BatchCount {
                name: name("batch"),
            },
            KernelArg::Output { name: name("out") },
            KernelArg::Input { name: name("in") },
        ],
    }
}

fn halve() -> PassLaunch {
    PassLaunch {
        kernel: name("halve"),
        block: [N as u32, 1, 1],
        grid: GridRule::FftsPerBlock { ffts_per_block: 1 },
        shared_bytes: 0,
        args: vec![
            KernelArg::Input { name: name("in") },
            KernelArg::Output { name: name("out") },
        ],
    }
}

fn add_one() -> PassLaunch {
    PassLaunch {
        kernel: name("add_one"),
        block: [N as u32, 4, 1],
        grid: GridRule::FftsPerBlock { ffts_per_block: 4 },
        shared_bytes: 0,
        args: vec![
            KernelArg::InOut { name: name("data") },
            KernelArg::BatchCount {
                name: name("batch"),
            },
        ],
    }
}

fn manifest(
    precision: Precision,
    placement: Placement,
    transforms: Vec<(Direction, Vec<PassLaunch>)>,
) -> Manifest {
    Manifest {
        generator_version: name("hand-written"),
        n: N,
        precision,
        normalization: Normalization::None,
        placement,
        layout: name("batch-major interleaved"),
        transforms: transforms
            .into_iter()
            .map(|(direction, passes)| TransformLaunch { direction, passes })
            .collect(),
        twiddle_tables: Vec::new(),
    }
}

/// Forward: one pass of 2x + i batch. Inverse: three halvings (odd, so the
/// scratch buffer is used and the last pass writes the output).
fn out_of_place(precision: Precision) -> Manifest {
    manifest(
        precision,
        Placement::OutOfPlace,
        vec![
            (Direction::Forward, vec![twice_plus_batch()]),
            (Direction::Inverse, vec![halve(), halve(), halve()]),
        ],
    )
}

fn real_name(precision: Precision) -> &'static str {
    match precision {
        Precision::F32 => "float",
        Precision::F64 => "double",
    }
}

fn load(device: &CudaDevice, manifest: &Manifest) -> CudaFft {
    CudaFft::new(device, &source(real_name(manifest.precision)), manifest)
        .unwrap_or_else(|e| panic!("loading failed: {e}"))
}

/// Exact values: quarters and eighths of small numbers.
fn signal<T: Real + From<f32>>(len: usize) -> Vec<Complex<T>> {
    (0..len)
        .map(|i| {
            Complex::new(
                T::from(i as f32 * 0.25 - 3.0),
                T::from(1.5 - i as f32 * 0.125),
            )
        })
        .collect()
}

fn map<T: Real + From<f32> + Into<f64>>(
    values: &[Complex<T>],
    f: impl Fn(f64, f64) -> (f64, f64),
) -> Vec<Complex<f64>> {
    values
        .iter()
        .map(|c| {
            let (re, im) = f(c.re.into(), c.im.into());
            Complex::new(re, im)
        })
        .collect()
}

fn widen<T: Real + Into<f64>>(values: &[Complex<T>]) -> Vec<Complex<f64>> {
    values
        .iter()
        .map(|c| Complex::new(c.re.into(), c.im.into()))
        .collect()
}

/// Interleaved reals of complex values.
fn reals<T: Real>(values: &[Complex<T>]) -> Vec<T> {
    values.iter().flat_map(|c| [c.re, c.im]).collect()
}

fn complexes<T: Real>(reals: &[T]) -> Vec<Complex<T>> {
    reals.chunks(2).map(|p| Complex::new(p[0], p[1])).collect()
}

fn upload<T: Real>(stream: &Arc<CudaStream>, values: &[Complex<T>]) -> CudaSlice<T> {
    stream.clone_htod(&reals(values)).unwrap()
}

fn download<T: Real>(stream: &Arc<CudaStream>, buffer: &CudaSlice<T>) -> Vec<Complex<T>> {
    let values = stream.clone_dtoh(buffer).unwrap();
    stream.synchronize().unwrap();
    complexes(&values)
}

fn host_runs_out_of_place<T: Real + From<f32> + Into<f64>>(device: &CudaDevice, p: Precision) {
    let fft = load(device, &out_of_place(p));
    assert_eq!(fft.kernels().len(), 2, "{:?}", fft.kernels());
    assert!(
        fft.kernels().iter().all(|k| k.registers > 0),
        "{:?}",
        fft.kernels()
    );
    for batch in [1, 2, 3, 5] {
        let input = signal::<T>(batch * N);
        let kept = input.clone();
        let mut output = vec![Complex::new(T::from(f32::NAN), T::from(f32::NAN)); batch * N];
        fft.run(Direction::Forward, &input, &mut output, batch)
            .unwrap_or_else(|e| panic!("{e}"));
        let b = batch as f64;
        assert_eq!(
            widen(&output),
            map(&input, |re, im| (2.0 * re, 2.0 * im + b)),
            "{p} batch {batch}"
        );
        fft.run(Direction::Inverse, &input, &mut output, batch)
            .unwrap();
        assert_eq!(
            widen(&output),
            map(&input, |re, im| (re / 8.0, im / 8.0)),
            "{p} batch {batch}: three passes through scratch"
        );
        assert_eq!(widen(&input), widen(&kept), "the input is never written");
    }
}

#[test]
fn host_slices_run_single_and_multi_pass_in_both_precisions() {
    let Some(device) = gpu("host_slices_run_single_and_multi_pass_in_both_precisions") else {
        return;
    };
    let info = device.info();
    let _ = writeln!(
        std::io::stderr(),
        "device: {} ({}, {} SMs, {} threads/block, {} B static shared)",
        info.name,
        info.arch,
        info.sm_count,
        info.max_threads_per_block,
        info.max_static_shared_bytes
    );
    assert!(info.arch.starts_with("sm_"), "{}", info.arch);
    assert_eq!(
        info.arch,
        format!(
            "sm_{}{}",
            info.compute_capability.0, info.compute_capability.1
        )
    );
    assert!(info.sm_count > 0 && info.max_threads_per_block >= 64);
    assert!(info.max_static_shared_bytes >= 16 * 1024);
    host_runs_out_of_place::<f32>(&device, Precision::F32);
    host_runs_out_of_place::<f64>(&device, Precision::F64);
}

#[test]
fn device_buffers_run_on_the_default_and_on_a_new_stream() {
    let Some(device) = gpu("device_buffers_run_on_the_default_and_on_a_new_stream") else {
        return;
    };
    let fft = load(&device, &out_of_place(Precision::F32));
    let batch = 5;
    let input = signal::<f32>(batch * N);
    let forward = map(&input, |re, im| (2.0 * re, 2.0 * im + 5.0));
    let inverse = map(&input, |re, im| (re / 8.0, im / 8.0));

    let default = device.stream();
    let d_input = upload(default, &input);
    let mut d_output = default.alloc_zeros::<f32>(2 * N * batch).unwrap();
    fft.launch(default, Direction::Forward, &d_input, &mut d_output, batch)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(widen(&download(default, &d_output)), forward);

    // Buffers made on the default stream, used on another stream of the context.
    let other = device.context().new_stream().unwrap();
    let mut d_output2 = default.alloc_zeros::<f32>(2 * N * batch).unwrap();
    fft.launch(&other, Direction::Inverse, &d_input, &mut d_output2, batch)
        .unwrap_or_else(|e| panic!("{e}"));
    fft.launch(&other, Direction::Forward, &d_input, &mut d_output, batch)
        .unwrap();
    assert_eq!(widen(&download(&other, &d_output2)), inverse);
    assert_eq!(widen(&download(&other, &d_output)), forward);
    assert_eq!(
        download(default, &d_input),
        input,
        "the input is never written"
    );

    // A larger batch grows the scratch buffer.
    let big = 64;
    let input = signal::<f32>(big * N);
    let d_input = upload(&other, &input);
    let mut d_output = other.alloc_zeros::<f32>(2 * N * big).unwrap();
    fft.launch(&other, Direction::Inverse, &d_input, &mut d_output, big)
        .unwrap();
    assert_eq!(
        widen(&download(&other, &d_output)),
        map(&input, |re, im| (re / 8.0, im / 8.0))
    );
}

#[test]
fn in_place_plans_run_from_host_and_device() {
    let Some(device) = gpu("in_place_plans_run_from_host_and_device") else {
        return;
    };
    // Inverse: an in-out pass then an out-of-place one, so the data is
    // copied to scratch first and the last pass writes it back.
    let fft = load(
        &device,
        &manifest(
            Precision::F32,
            Placement::InPlace,
            vec![
                (Direction::Forward, vec![add_one()]),
                (Direction::Inverse, vec![add_one(), halve()]),
            ],
        ),
    );
    let batch = 6;
    let original = signal::<f32>(batch * N);
    let plus_one = map(&original, |re, im| (re + 1.0, im));
    let half = map(&original, |re, im| ((re + 1.0) / 2.0, im / 2.0));

    let mut data = original.clone();
    fft.run_in_place(Direction::Forward, &mut data, batch)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(widen(&data), plus_one);
    let mut data = original.clone();
    fft.run_in_place(Direction::Inverse, &mut data, batch)
        .unwrap();
    assert_eq!(widen(&data), half);

    let stream = device.stream();
    let mut d_data = upload(stream, &original);
    fft.launch_in_place(stream, Direction::Inverse, &mut d_data, batch)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(widen(&download(stream, &d_data)), half);
}

#[test]
fn an_in_out_first_pass_never_writes_the_input() {
    let Some(device) = gpu("an_in_out_first_pass_never_writes_the_input") else {
        return;
    };
    let fft = load(
        &device,
        &manifest(
            Precision::F64,
            Placement::OutOfPlace,
            vec![(Direction::Forward, vec![add_one(), halve()])],
        ),
    );
    let batch = 3;
    let input = signal::<f64>(batch * N);
    let stream = device.stream();
    let d_input = upload(stream, &input);
    let mut d_output = stream.alloc_zeros::<f64>(2 * N * batch).unwrap();
    fft.launch(stream, Direction::Forward, &d_input, &mut d_output, batch)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        widen(&download(stream, &d_output)),
        map(&input, |re, im| ((re + 1.0) / 2.0, im / 2.0))
    );
    assert_eq!(download(stream, &d_input), input);
}

#[test]
fn bad_calls_fail_before_writing_anything() {
    let Some(device) = gpu("bad_calls_fail_before_writing_anything") else {
        return;
    };
    let fft = load(&device, &out_of_place(Precision::F32));
    let sentinel = Complex::new(-7.0f32, 7.0);
    let input = signal::<f32>(2 * N);

    // Host slices.
    let mut output = vec![sentinel; 2 * N];
    let err = fft
        .run(Direction::Forward, &input[..N], &mut output, 2)
        .unwrap_err();
    assert_eq!(
        err,
        Error::WrongLength {
            buffer: "input",
            expected: 2 * N,
            got: N
        }
    );
    let mut long = vec![sentinel; 3 * N];
    let err = fft
        .run(Direction::Forward, &input, &mut long, 2)
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::WrongLength {
                buffer: "output",
                ..
            }
        ),
        "{err}"
    );
    assert!(long.iter().all(|&x| x == sentinel));
    assert_eq!(
        fft.run(Direction::Forward, &input[..0], &mut output[..0], 0),
        Err(Error::ZeroBatch)
    );
    let mut data = input.clone();
    assert!(matches!(
        fft.run_in_place(Direction::Forward, &mut data, 2),
        Err(Error::PlacementMismatch { .. })
    ));
    let wide: Vec<Complex<f64>> = widen(&input);
    let mut wide_out = vec![Complex::new(0.0f64, 0.0); 2 * N];
    assert!(matches!(
        fft.run(Direction::Forward, &wide, &mut wide_out, 2),
        Err(Error::PrecisionMismatch { .. })
    ));
    assert!(output.iter().all(|&x| x == sentinel));
    assert_eq!(data, input);

    // Device buffers.
    let stream = device.stream();
    let d_input = upload(stream, &input);
    let mut d_output = upload(stream, &[sentinel; 2 * N]);
    let mut d_short = upload(stream, &[sentinel; N]);
    let err = fft
        .launch(stream, Direction::Forward, &d_input, &mut d_short, 2)
        .unwrap_err();
    assert_eq!(
        err,
        Error::WrongDeviceLength {
            buffer: "output",
            expected: 4 * N,
            got: 2 * N
        }
    );
    assert!(err.to_string().contains("nothing was launched"), "{err}");
    let odd = stream.clone_htod(&vec![0.0f32; 4 * N - 1]).unwrap();
    assert!(matches!(
        fft.launch(stream, Direction::Forward, &odd, &mut d_output, 2),
        Err(Error::WrongDeviceLength {
            buffer: "input",
            ..
        })
    ));
    assert_eq!(
        fft.launch(stream, Direction::Forward, &d_input, &mut d_output, 0),
        Err(Error::ZeroBatch)
    );
    assert!(matches!(
        fft.launch(
            stream,
            Direction::Forward,
            &d_input,
            &mut d_output,
            u32::MAX as usize + 1
        ),
        Err(Error::BatchTooLarge { .. })
    ));
    match fft.launch_in_place(stream, Direction::Forward, &mut d_output, 2) {
        Err(Error::PlacementMismatch { use_instead, .. }) => {
            assert!(use_instead.starts_with("launch("), "{use_instead}")
        }
        other => panic!("expected a placement mismatch, got {other:?}"),
    }
    let d_wide = stream.clone_htod(&vec![0.0f64; 4 * N]).unwrap();
    let mut d_wide_out = stream.clone_htod(&vec![0.0f64; 4 * N]).unwrap();
    assert!(matches!(
        fft.launch(stream, Direction::Forward, &d_wide, &mut d_wide_out, 2),
        Err(Error::PrecisionMismatch { .. })
    ));
    assert_eq!(download(stream, &d_output), vec![sentinel; 2 * N]);
    assert_eq!(download(stream, &d_short), vec![sentinel; N]);

    // A direction the manifest lacks.
    let forward_only = load(
        &device,
        &manifest(
            Precision::F32,
            Placement::OutOfPlace,
            vec![(Direction::Forward, vec![halve()])],
        ),
    );
    assert!(matches!(
        forward_only.launch(stream, Direction::Inverse, &d_input, &mut d_output, 2),
        Err(Error::MissingDirection { .. })
    ));
    assert_eq!(download(stream, &d_output), vec![sentinel; 2 * N]);
}

#[test]
fn a_stream_or_buffer_of_another_context_is_refused() {
    let Some(device) = gpu("a_stream_or_buffer_of_another_context_is_refused") else {
        return;
    };
    let fft = load(&device, &out_of_place(Precision::F32));
    let batch = 2;
    let sentinel = Complex::new(-7.0f32, 7.0);
    let input = signal::<f32>(batch * N);
    let stream = device.stream();
    let d_input = upload(stream, &input);
    let mut d_output = upload(stream, &vec![sentinel; batch * N]);

    let other_context = CudaContext::new_non_primary(0, 0).unwrap();
    let other_stream = other_context.new_stream().unwrap();
    let err = fft
        .launch(
            &other_stream,
            Direction::Forward,
            &d_input,
            &mut d_output,
            batch,
        )
        .unwrap_err();
    assert_eq!(err, Error::ForeignContext { what: "stream" });
    assert!(
        err.to_string().contains("plan used with another context"),
        "{err}"
    );

    let foreign_input = upload(&other_stream, &input);
    let err = fft
        .launch(
            stream,
            Direction::Forward,
            &foreign_input,
            &mut d_output,
            batch,
        )
        .unwrap_err();
    assert_eq!(
        err,
        Error::ForeignContext {
            what: "input buffer"
        }
    );
    let mut foreign_data = upload(&other_stream, &input);
    let in_place = load(
        &device,
        &manifest(
            Precision::F32,
            Placement::InPlace,
            vec![(Direction::Forward, vec![add_one()])],
        ),
    );
    assert_eq!(
        in_place.launch_in_place(stream, Direction::Forward, &mut foreign_data, batch),
        Err(Error::ForeignContext {
            what: "data buffer"
        })
    );
    assert_eq!(download(stream, &d_output), vec![sentinel; batch * N]);

    // A plan made in the other context runs there.
    let other_device = CudaDevice::from_context(other_context.clone()).unwrap();
    let there = load(&other_device, &out_of_place(Precision::F32));
    let mut foreign_output = other_stream.alloc_zeros::<f32>(2 * N * batch).unwrap();
    there
        .launch(
            &other_stream,
            Direction::Forward,
            &foreign_input,
            &mut foreign_output,
            batch,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        widen(&download(&other_stream, &foreign_output)),
        map(&input, |re, im| (2.0 * re, 2.0 * im + batch as f64))
    );
}

#[test]
fn loading_checks_the_compiled_kernels() {
    let Some(device) = gpu("loading_checks_the_compiled_kernels") else {
        return;
    };
    let src = source("float");
    let missing = PassLaunch {
        kernel: name("no_such_kernel"),
        ..halve()
    };
    let err = CudaFft::new(
        &device,
        &src,
        &manifest(
            Precision::F32,
            Placement::OutOfPlace,
            vec![(Direction::Forward, vec![missing])],
        ),
    )
    .unwrap_err();
    assert_eq!(
        err,
        Error::MissingKernel {
            kernel: name("no_such_kernel")
        }
    );

    // __launch_bounds__(64) but a block of 128 threads.
    let bounded = PassLaunch {
        kernel: name("bounded"),
        block: [128, 1, 1],
        ..halve()
    };
    match CudaFft::new(
        &device,
        &src,
        &manifest(
            Precision::F32,
            Placement::OutOfPlace,
            vec![(Direction::Forward, vec![bounded])],
        ),
    ) {
        Err(Error::LaunchLimit {
            what, value, max, ..
        }) => {
            assert_eq!((what, value, max), ("threads per block", 128, 64))
        }
        other => panic!("expected a launch limit error, got {other:?}"),
    }

    // One argument more than the kernel takes.
    let mut extra = halve();
    extra.args.push(KernelArg::BatchCount {
        name: name("batch"),
    });
    match CudaFft::new(
        &device,
        &src,
        &manifest(
            Precision::F32,
            Placement::OutOfPlace,
            vec![(Direction::Forward, vec![extra])],
        ),
    ) {
        Err(Error::InvalidManifest(message)) => {
            assert!(message.contains("takes 2 parameters"), "{message}")
        }
        Ok(_) => {
            let _ = writeln!(
                std::io::stderr(),
                "NOTE: the driver has no cuFuncGetParamInfo (CUDA < 12.4); parameters unchecked"
            );
        }
        Err(other) => panic!("expected an invalid manifest, got {other}"),
    }
}

#[test]
fn plans_of_the_same_source_share_the_cache() {
    let Some(device) = gpu("plans_of_the_same_source_share_the_cache") else {
        return;
    };
    let cache = CubinCache::memory_only();
    let src = source("float");
    let m = out_of_place(Precision::F32);
    let first = CudaFft::with_cache(&device, &src, &m, &cache).unwrap();
    let second = CudaFft::with_cache(&device, &src, &m, &cache).unwrap();
    assert_eq!(first.cache_origin(), CacheOrigin::Compiled);
    assert_eq!(second.cache_origin(), CacheOrigin::Memory);
    assert_eq!(first.cubin().arch, device.arch());
    let stats = cache.stats();
    assert_eq!((stats.compiles, stats.memory_hits), (1, 1));
}
