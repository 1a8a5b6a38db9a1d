//! CudaFft on a real GPU with hand-written kernels and manifests (the CUDA
//! twins of opencl_launch.rs): arguments bound by role, a ragged batch,
//! multi-pass transforms through the buffers the manifest routes them (the
//! plan's workspace or the caller's), in place, dynamic shared memory above
//! the 48 KiB default, the device's free memory, the host and the
//! device-buffer APIs, streams of the plan's context and of another one,
//! and every check failing before anything is written. The kernels only scale
//! and shift, so every expected value is exact.
//!
//! Without a CUDA driver (or device) these tests print `SKIPPED: no CUDA
//! driver` and pass, even with CI=true: CI machines have no GPU. The first
//! test runs everywhere: without a driver, making a device is a clear error.

mod common;

use common::host::{
    refuses_a_missing_direction, refuses_bad_host_calls, runs_in_place, runs_out_of_place,
    wrong_bytes, HostPlan,
};
use common::plans::{
    add_one, c_real, forward_only, halve, in_place, in_place_forward, in_place_inverse, manifest,
    map, name, out_of_place, signal, single_in_out, via, widen, N,
};
use fftgen_runtime::cuda::{CudaContext, CudaSlice, CudaStream};
use fftgen_runtime::{
    driver_available, Buffer as Role, CacheOrigin, Complex, CubinCache, CudaDevice, CudaFft,
    Direction, Error, KernelArg, Manifest, PassLaunch, Placement, Precision, Real, Target,
};
use std::io::Write;
use std::sync::Arc;

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

// out = in / 2 through 64 KiB of dynamic shared memory (above the 48 KiB
// default, so the plan must opt in): each point's value is staged 8 KiB apart.
extern "C" __global__ void halve_dynamic(const R2* in, R2* out) {{
    extern __shared__ unsigned char bytes[];
    R2* tile = (R2*)bytes;
    unsigned int i = blockIdx.x * N + threadIdx.x;
    unsigned int at = threadIdx.x * (8192 / sizeof(R2));
    tile[at] = in[i];
    __syncthreads();
    out[i] = pack(tile[at].x * (R)0.5, tile[at].y * (R)0.5);
}}

// Launch bounds below the block the manifest will ask for.
extern "C" __global__ void __launch_bounds__(64) bounded(const R2* in, R2* out) {{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}}
"#
    )
}

fn load(device: &CudaDevice, manifest: &Manifest) -> CudaFft {
    CudaFft::new(device, &source(c_real(manifest.precision)), manifest)
        .unwrap_or_else(|e| panic!("loading failed: {e}"))
}

/// Device 0 and the f32 plan of `out_of_place` on it, or None after
/// printing why the test skips.
fn gpu_plan(test: &str) -> Option<(CudaDevice, CudaFft)> {
    let device = gpu(test)?;
    let fft = load(&device, &out_of_place(Precision::F32));
    Some((device, fft))
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

fn host_runs_out_of_place<T: Real + From<f32> + Into<f64>>(device: &CudaDevice) {
    let fft = load(device, &out_of_place(T::PRECISION));
    assert_eq!(fft.kernels().len(), 2, "{:?}", fft.kernels());
    assert!(
        fft.kernels().iter().all(|k| k.registers > 0),
        "{:?}",
        fft.kernels()
    );
    runs_out_of_place::<T>(HostPlan::Cuda(&fft));
}

#[test]
fn host_slices_run_single_and_multi_pass_in_both_precisions() {
    let Some(device) = gpu("host_slices_run_single_and_multi_pass_in_both_precisions") else {
        return;
    };
    let info = device.info();
    let target = &info.target;
    let _ = writeln!(
        std::io::stderr(),
        "device: {} ({}, {} SMs, {} threads/block, {} B static shared)",
        info.name,
        info.arch,
        target.sm_count,
        target.max_threads_per_block,
        target.max_static_shared_bytes
    );
    assert!(info.arch.starts_with("sm_"), "{}", info.arch);
    assert_eq!(
        info.arch,
        format!(
            "sm_{}{}",
            info.compute_capability.0, info.compute_capability.1
        )
    );
    assert!(target.sm_count > 0 && target.max_threads_per_block >= 64);
    assert!(target.max_static_shared_bytes >= 16 * 1024);
    host_runs_out_of_place::<f32>(&device);
    host_runs_out_of_place::<f64>(&device);
}

#[test]
fn the_device_target_comes_from_the_driver() {
    let Some(device) = gpu("the_device_target_comes_from_the_driver") else {
        return;
    };
    let target = device.target();
    assert_eq!(target, device.info().target);
    assert_eq!(target.name, device.name());
    assert_eq!(
        format!("NVIDIA {}", target.model),
        device.name(),
        "the model is the name without the vendor"
    );
    assert_eq!(
        target.launchable_threads_per_block,
        target.max_threads_per_block
    );
    assert!(target.max_opt_in_shared_bytes >= target.max_static_shared_bytes);
    assert!(target.shared_bytes_per_sm >= target.max_opt_in_shared_bytes);
    assert!(target.registers_per_sm >= 32 * 1024 && target.warp_size == 32);
    assert!(target.max_threads_per_sm >= target.max_threads_per_block);
    assert!(target.max_blocks_per_sm >= 16);
    // A Hopper GPU plans exactly like its preset: only the names and the
    // SM count (an H100 PCIe has 114) may differ.
    let preset = [Target::H100, Target::H200]
        .into_iter()
        .find(|preset| target.model.starts_with(preset.model.as_ref()));
    if let Some(preset) = preset {
        let renamed = Target {
            name: preset.name.clone(),
            model: preset.model.clone(),
            sm_count: preset.sm_count,
            ..target.clone()
        };
        assert_eq!(renamed, preset);
    }
}

#[test]
fn device_buffers_run_on_the_default_and_on_a_new_stream() {
    let Some((device, fft)) = gpu_plan("device_buffers_run_on_the_default_and_on_a_new_stream")
    else {
        return;
    };
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
    let fft = load(&device, &in_place());
    runs_in_place(HostPlan::Cuda(&fft));
    let batch = 6;
    let original = signal::<f32>(batch * N);

    // A lone in-out pass stays in the caller's buffer: no copy, no scratch.
    let single = load(&device, &single_in_out());
    let mut data = original.clone();
    single
        .run_in_place(Direction::Forward, &mut data, batch)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(widen(&data), map(&original, |re, im| (re + 1.0, im)));

    let stream = device.stream();
    for (direction, expected) in [
        (Direction::Forward, in_place_forward(&original, batch)),
        (Direction::Inverse, in_place_inverse(&original)),
    ] {
        let mut d_data = upload(stream, &original);
        fft.launch_in_place(stream, direction, &mut d_data, batch)
            .unwrap_or_else(|e| panic!("{direction}: {e}"));
        assert_eq!(widen(&download(stream, &d_data)), expected, "{direction}");
    }
}

#[test]
fn an_in_out_pass_works_on_the_output_and_the_input_stays() {
    let Some(device) = gpu("an_in_out_pass_works_on_the_output_and_the_input_stays") else {
        return;
    };
    let fft = load(
        &device,
        &manifest(
            Precision::F64,
            Placement::OutOfPlace,
            vec![(
                Direction::Forward,
                vec![halve(), via(add_one(), Role::Output, Role::Output)],
            )],
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
        map(&input, |re, im| (re / 2.0 + 1.0, im / 2.0))
    );
    assert_eq!(download(stream, &d_input), input);
}

#[test]
fn the_callers_workspace_serves_launches() {
    let Some((device, fft)) = gpu_plan("the_callers_workspace_serves_launches") else {
        return;
    };
    let batch = 5;
    let input = signal::<f32>(batch * N);
    let stream = device.stream();
    let d_input = upload(stream, &input);
    let mut d_output = stream.alloc_zeros::<f32>(2 * N * batch).unwrap();
    let bytes = fft.workspace_bytes(batch).unwrap();
    assert_eq!(bytes, batch * N * 8);
    let mut workspace = stream.alloc_zeros::<u8>(bytes).unwrap();
    fft.launch_with_workspace(
        stream,
        Direction::Inverse,
        &d_input,
        &mut d_output,
        &mut workspace,
        batch,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        widen(&download(stream, &d_output)),
        map(&input, |re, im| (re / 8.0, im / 8.0))
    );
    let mut small = stream.alloc_zeros::<u8>(bytes - 1).unwrap();
    assert_eq!(
        fft.launch_with_workspace(
            stream,
            Direction::Inverse,
            &d_input,
            &mut d_output,
            &mut small,
            batch
        ),
        Err(Error::WorkspaceTooSmall {
            batch,
            needed: bytes,
            got: bytes - 1
        })
    );
    let mixed = load(&device, &in_place());
    let mut d_data = upload(stream, &input);
    mixed
        .launch_in_place_with_workspace(
            stream,
            Direction::Inverse,
            &mut d_data,
            &mut workspace,
            batch,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(widen(&download(stream, &d_data)), in_place_inverse(&input));
}

#[test]
fn dynamic_shared_memory_above_48_kib_is_opted_into() {
    let Some(device) = gpu("dynamic_shared_memory_above_48_kib_is_opted_into") else {
        return;
    };
    let dynamic = |bytes: u32| {
        forward_only(vec![PassLaunch {
            kernel: name("halve_dynamic"),
            dynamic_shared_bytes: bytes,
            ..halve()
        }])
    };
    if device.target().max_opt_in_shared_bytes >= 64 * 1024 {
        let fft = load(&device, &dynamic(64 * 1024));
        let input = signal::<f32>(3 * N);
        let mut output = vec![Complex::default(); 3 * N];
        fft.run(Direction::Forward, &input, &mut output, 3)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(widen(&output), map(&input, |re, im| (re / 2.0, im / 2.0)));
    }
    // Beyond the device's opt-in limit: refused at load.
    let over = device.target().max_opt_in_shared_bytes as u32 + 1;
    match CudaFft::new(&device, &source("float"), &dynamic(over)) {
        Err(Error::LaunchLimit { what, .. }) => {
            assert!(what.contains("dynamic"), "{what}")
        }
        other => panic!("expected a launch limit error, got {other:?}"),
    }
}

#[test]
fn a_workspace_beyond_the_devices_memory_is_refused_before_allocating() {
    let Some(device) = gpu("a_workspace_beyond_the_devices_memory_is_refused_before_allocating")
    else {
        return;
    };
    // 2^40 elements (8 TiB in f32) of workspace per transform.
    let mut hungry = out_of_place(Precision::F32);
    hungry.scratch_elements = 1 << 40;
    let fft = load(&device, &hungry);
    let input = signal::<f32>(2 * N);
    let sentinel = Complex::new(-7.0f32, 7.0);
    let mut output = vec![sentinel; 2 * N];
    let err = fft
        .run(Direction::Inverse, &input, &mut output, 2)
        .unwrap_err();
    assert!(matches!(err, Error::DeviceMemory { .. }), "{err}");
    assert!(err.to_string().contains("lower the batch"), "{err}");
    assert!(output.iter().all(|&x| x == sentinel));
}

#[test]
fn bad_calls_fail_before_writing_anything() {
    let Some((device, fft)) = gpu_plan("bad_calls_fail_before_writing_anything") else {
        return;
    };
    let sentinel = Complex::new(-7.0f32, 7.0);
    let input = signal::<f32>(2 * N);

    refuses_bad_host_calls(HostPlan::Cuda(&fft));

    // Device buffers.
    let stream = device.stream();
    let d_input = upload(stream, &input);
    let mut d_output = upload(stream, &[sentinel; 2 * N]);
    let mut d_short = upload(stream, &[sentinel; N]);
    let err = fft
        .launch(stream, Direction::Forward, &d_input, &mut d_short, 2)
        .unwrap_err();
    // Sizes in bytes of the side: 2 transforms of N complex f32 values.
    assert_eq!(wrong_bytes(&err), Some(("output", 16 * N, 8 * N)), "{err}");
    assert!(err.to_string().contains("nothing was launched"), "{err}");
    let odd = stream.clone_htod(&vec![0.0f32; 4 * N - 1]).unwrap();
    assert!(matches!(
        fft.launch(stream, Direction::Forward, &odd, &mut d_output, 2),
        Err(Error::WrongDeviceBytes {
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
    let forward = load(&device, &forward_only(vec![halve()]));
    refuses_a_missing_direction(HostPlan::Cuda(&forward));
    assert!(matches!(
        forward.launch(stream, Direction::Inverse, &d_input, &mut d_output, 2),
        Err(Error::MissingDirection { .. })
    ));
    assert_eq!(download(stream, &d_output), vec![sentinel; 2 * N]);
}

#[test]
fn a_stream_or_buffer_of_another_context_is_refused() {
    let Some((device, fft)) = gpu_plan("a_stream_or_buffer_of_another_context_is_refused") else {
        return;
    };
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
    let in_place = load(&device, &single_in_out());
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
    let err = CudaFft::new(&device, &src, &forward_only(vec![missing])).unwrap_err();
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
    match CudaFft::new(&device, &src, &forward_only(vec![bounded])) {
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
    match CudaFft::new(&device, &src, &forward_only(vec![extra])) {
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
