//! OpenClFft on PoCL with hand-written kernels and manifests: arguments are
//! bound by role whatever their order, the grid rule covers a ragged batch,
//! multi-pass transforms follow the buffers their manifest routes them
//! through (the plan's workspace or the caller's), buffers are sized by the
//! layouts, the real side of an r2c plan takes reals and its other side
//! complex values (in place, either), the device's memory is checked before
//! anything is allocated, and every check fails before any data moves,
//! leaving the caller's buffers untouched. The kernels only scale, shift and
//! move values, so every expected value is exact.

mod common;

use common::host::{
    refuses_a_missing_direction, refuses_bad_host_calls, runs_in_place, runs_out_of_place,
    wrong_bytes, wrong_length, HostPlan,
};
use common::plans::{
    add_one, c_real, forward_only, halve, in_place, in_place_forward, in_place_inverse, manifest,
    map, name, out_of_place, signal, times_table, twice_plus_batch, via, widen, with_scratch, N,
};
use fftgen_runtime::{
    Buffer as Role, Complex, Direction, Error, GridRule, KernelArg, Layout, Manifest, OpenClDevice,
    OpenClFft, PassLaunch, Placement, Precision, Target, TransformKind,
};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;

/// Elements between transforms of the spread output layout (`halve_spread`).
const D: usize = 12;

/// Kernels over `T2` (float2 or double2) for transforms of N points. Argument
/// orders differ on purpose, to prove that the runtime binds by role.
fn source(real: &str) -> String {
    let fp64 = if real == "double" {
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    } else {
        ""
    };
    format!(
        r#"{fp64}#define N {N}
#define D {D}
typedef {real} R;
typedef {real}2 R2;

// One transform per local y; out = 2 in + (0, batch) proves that the batch arrives.
__kernel void twice_plus_batch(uint batch, __global R2* out, __global const R2* in) {{
    uint fft = get_group_id(0) * get_local_size(1) + get_local_id(1);
    if (fft >= batch) return;
    uint i = fft * N + get_local_id(0);
    out[i] = in[i] * (R)2 + (R2)((R)0, (R)batch);
}}

// No batch argument: launched with one transform per work-group.
__kernel void halve(__global const R2* in, __global R2* out) {{
    uint i = get_group_id(0) * N + get_local_id(0);
    out[i] = in[i] * (R)0.5;
}}

// out = in * table[point] componentwise: the table arrives in order, rounded to R.
__kernel void times_table(__global const R2* in, __global R2* out, __global const R2* table) {{
    uint i = get_group_id(0) * N + get_local_id(0);
    out[i] = in[i] * table[get_local_id(0)];
}}

// Reads dense transforms, writes them D apart (the output layout's distance).
__kernel void halve_spread(__global const R2* in, __global R2* out) {{
    out[get_group_id(0) * D + get_local_id(0)] = in[get_group_id(0) * N + get_local_id(0)] * (R)0.5;
}}

__kernel void add_one(__global R2* data, uint batch) {{
    uint fft = get_group_id(0) * get_local_size(1) + get_local_id(1);
    if (fft >= batch) return;
    data[fft * N + get_local_id(0)] += (R2)((R)1, (R)0);
}}
"#
    )
}

fn load(device: &OpenClDevice, manifest: &Manifest) -> OpenClFft {
    OpenClFft::new(device, &source(c_real(manifest.precision)), manifest)
        .unwrap_or_else(|e| panic!("loading failed: {e}"))
}

#[test]
fn binds_arguments_by_role_and_runs_passes_in_order() {
    let Some(device) = common::pocl("binds_arguments_by_role_and_runs_passes_in_order") else {
        return;
    };
    let fft = load(device, &out_of_place(Precision::F32));
    // Ragged batches, and three passes through ping-pong buffers.
    runs_out_of_place::<f32>(HostPlan::OpenCl(&fft));
    let input = signal::<f32>(3 * N);
    let mut output = vec![Complex::default(); 3 * N];
    fft.run(Direction::Inverse, &input, &mut output, 3).unwrap();
    let expected: Vec<_> = input.iter().map(|x| x * 0.125).collect();
    assert_eq!(output, expected);

    // Two passes through the workspace.
    let two = with_scratch(manifest(
        Precision::F32,
        Placement::OutOfPlace,
        vec![(
            Direction::Inverse,
            vec![
                via(halve(), Role::Input, Role::Scratch),
                via(halve(), Role::Scratch, Role::Output),
            ],
        )],
    ));
    let fft = load(device, &two);
    fft.run(Direction::Inverse, &input, &mut output, 3).unwrap();
    let expected: Vec<_> = input.iter().map(|x| x * 0.25).collect();
    assert_eq!(output, expected);
}

#[test]
fn twiddle_tables_are_rounded_once_and_uploaded_for_the_kernels() {
    let Some(device) = common::pocl("twiddle_tables_are_rounded_once_and_uploaded_for_the_kernels")
    else {
        return;
    };
    // 1/3 is not an f32: the kernel must see it rounded to nearest once.
    let table: Vec<[f64; 2]> = (0..N)
        .map(|k| [k as f64 + 1.0 / 3.0, -(k as f64)])
        .collect();
    let mut with_table = forward_only(vec![times_table(0)]);
    with_table.twiddle_tables = vec![table.clone()];
    let fft = load(device, &with_table);
    let input = signal::<f32>(2 * N);
    let mut output = vec![Complex::default(); 2 * N];
    fft.run(Direction::Forward, &input, &mut output, 2).unwrap();
    let expected: Vec<_> = input
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let [re, im] = table[i % N];
            Complex::new(x.re * re as f32, x.im * im as f32)
        })
        .collect();
    assert_eq!(output, expected);

    // A table the manifest lacks, or an empty one, is refused at load time.
    with_table.transforms[0].passes[0] = times_table(1);
    let err = OpenClFft::new(device, &source("float"), &with_table).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidManifest(m) if m.contains("twiddle table 1")),
        "{err}"
    );
    with_table.transforms[0].passes[0] = times_table(0);
    with_table.twiddle_tables = vec![Vec::new()];
    let err = OpenClFft::new(device, &source("float"), &with_table).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidManifest(m) if m.contains("empty")),
        "{err}"
    );
}

#[test]
fn in_place_mixes_in_out_and_out_of_place_passes() {
    let Some(device) = common::pocl("in_place_mixes_in_out_and_out_of_place_passes") else {
        return;
    };
    runs_in_place(HostPlan::OpenCl(&load(device, &in_place())));
}

#[test]
fn runs_double_precision() {
    let Some(device) = common::pocl("runs_double_precision") else {
        return;
    };
    let fft = load(device, &out_of_place(Precision::F64));
    // Values that f32 would round: the kernels really compute in f64.
    let input: Vec<Complex<f64>> = (0..2 * N)
        .map(|i| Complex::new(1.0 / 3.0 + i as f64, -0.1 * i as f64))
        .collect();
    let mut output = vec![Complex::default(); 2 * N];
    fft.run(Direction::Forward, &input, &mut output, 2).unwrap();
    let expected: Vec<_> = input
        .iter()
        .map(|x| x * 2.0 + Complex::new(0.0, 2.0))
        .collect();
    assert_eq!(output, expected);
    runs_out_of_place::<f64>(HostPlan::OpenCl(&fft));
}

#[test]
fn bad_calls_fail_before_writing_anything() {
    let Some(device) = common::pocl("bad_calls_fail_before_writing_anything") else {
        return;
    };
    let fft = load(device, &out_of_place(Precision::F32));
    refuses_bad_host_calls(HostPlan::OpenCl(&fft));
    let forward = load(device, &forward_only(vec![twice_plus_batch()]));
    refuses_a_missing_direction(HostPlan::OpenCl(&forward));
}

#[test]
fn launches_beyond_gpu_limits_are_rejected_even_on_pocl() {
    let Some(device) = common::pocl("launches_beyond_gpu_limits_are_rejected_even_on_pocl") else {
        return;
    };
    let with = |pass: PassLaunch| forward_only(vec![pass]);

    let wide = PassLaunch {
        block: [N as u32, 256, 1],
        ..twice_plus_batch()
    };
    let err = OpenClFft::new(device, &source("float"), &with(wide)).unwrap_err();
    assert!(
        matches!(
            &err,
            Error::LaunchLimit {
                what: "threads per block",
                value: 2048,
                max: 1024,
                ..
            }
        ),
        "{err}"
    );

    let hungry = PassLaunch {
        shared_bytes: 64 * 1024,
        ..twice_plus_batch()
    };
    let err = OpenClFft::new(device, &source("float"), &with(hungry)).unwrap_err();
    assert!(
        matches!(&err, Error::LaunchLimit { max: 49152, .. }),
        "{err}"
    );

    // The manifest claims no local memory, but the compiled kernel uses 64 KiB.
    let greedy = r#"
__kernel void halve(__global const float2* in, __global float2* out) {
    __local float2 scratch[8192];
    uint i = get_group_id(0) * 8 + get_local_id(0);
    scratch[get_local_id(0) * 1024] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = scratch[get_local_id(0) * 1024] * 0.5f;
}
"#;
    let err = OpenClFft::new(device, greedy, &with(halve())).unwrap_err();
    assert!(
        matches!(
            &err,
            Error::LaunchLimit {
                what: "local memory of the compiled kernel (bytes)",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn source_and_manifest_mismatches_are_reported() {
    let Some(device) = common::pocl("source_and_manifest_mismatches_are_reported") else {
        return;
    };
    let with = |pass: PassLaunch| forward_only(vec![pass]);

    let err = OpenClFft::new(
        device,
        "__kernel void broken(__global float2* x) { x[0] = ; }",
        &with(halve()),
    )
    .unwrap_err();
    match &err {
        Error::ProgramBuild { log, .. } => {
            assert!(log.contains("error"), "the log says what is wrong: {log}")
        }
        other => panic!("expected a build failure, got {other}"),
    }

    let unknown = PassLaunch {
        kernel: name("no_such_kernel"),
        ..halve()
    };
    let err = OpenClFft::new(device, &source("float"), &with(unknown)).unwrap_err();
    assert_eq!(
        err,
        Error::MissingKernel {
            kernel: name("no_such_kernel")
        }
    );

    // An in-place pass (one argument) of a kernel that takes two.
    let short = PassLaunch {
        args: vec![KernelArg::InOut { name: name("x") }],
        writes: Role::Input,
        ..halve()
    };
    let in_place_short = manifest(
        Precision::F32,
        Placement::InPlace,
        vec![(Direction::Forward, vec![short])],
    );
    let err = OpenClFft::new(device, &source("float"), &in_place_short).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidManifest(why) if why.contains("takes 2 arguments")),
        "{err}"
    );

    let two_inputs = PassLaunch {
        args: vec![
            KernelArg::Input { name: name("a") },
            KernelArg::Input { name: name("b") },
        ],
        ..halve()
    };
    let err = OpenClFft::new(device, &source("float"), &with(two_inputs)).unwrap_err();
    assert!(matches!(err, Error::InvalidManifest(_)), "{err}");

    let no_grid = PassLaunch {
        grid: GridRule::FftsPerBlock {
            ffts_per_block: 0,
            ffts_per_transform: 1,
            transforms_per_fft: 1,
        },
        ..halve()
    };
    let err = OpenClFft::new(device, &source("float"), &with(no_grid)).unwrap_err();
    assert!(matches!(err, Error::InvalidManifest(_)), "{err}");
}

#[test]
fn the_same_source_is_built_once_per_device() {
    // A private device, so that other tests' builds do not move the count.
    let device = match OpenClDevice::find(Some("portable computing")) {
        Ok(device) => device,
        Err(e) => return common::skip("the_same_source_is_built_once_per_device", &e.to_string()),
    };
    assert_eq!(device.programs_built(), 0);
    load(&device, &out_of_place(Precision::F32));
    load(&device, &out_of_place(Precision::F32));
    assert_eq!(device.programs_built(), 1);
    load(&device, &out_of_place(Precision::F64));
    assert_eq!(device.programs_built(), 2);
}

#[test]
fn one_plan_serves_many_threads() {
    let Some(device) = common::pocl("one_plan_serves_many_threads") else {
        return;
    };
    let fft = load(device, &out_of_place(Precision::F32));
    std::thread::scope(|scope| {
        for thread in 0..8 {
            let fft = &fft;
            scope.spawn(move || {
                for round in 0..20 {
                    let batch = 1 + (thread + round) % 4;
                    let input: Vec<_> = signal::<f32>(batch * N)
                        .iter()
                        .map(|x| x + (thread * 100 + round) as f32)
                        .collect();
                    let mut output = vec![Complex::default(); batch * N];
                    fft.run(Direction::Inverse, &input, &mut output, batch)
                        .unwrap();
                    let expected: Vec<_> = input.iter().map(|x| x * 0.125).collect();
                    assert_eq!(output, expected, "thread {thread} round {round}");
                }
            });
        }
    });
}

#[test]
fn a_missing_platform_says_what_to_install() {
    let err = OpenClDevice::find(Some("no such platform, surely")).unwrap_err();
    assert!(matches!(err, Error::NoOpenClDevice { .. }), "{err}");
    assert!(err.to_string().contains("pocl-opencl-icd"), "{err}");
}

#[test]
fn the_device_reports_its_facts() {
    let Some(device) = common::pocl("the_device_reports_its_facts") else {
        return;
    };
    let info = device.info();
    assert_eq!(info.platform_name, fftgen_runtime::opencl::POCL_PLATFORM);
    assert!(!info.name.is_empty());
    assert!(info.max_work_group_size >= 1);
    assert!(info.local_mem_bytes >= 16 * 1024);
    assert!(info.compute_units >= 1);
}

#[test]
fn pocl_is_held_to_the_portable_target() {
    let Some(device) = common::pocl("pocl_is_held_to_the_portable_target") else {
        return;
    };
    let target = device.target();
    let info = device.info();
    assert_eq!(target.name, info.name);
    assert_eq!(
        target.model, info.name,
        "a CPU's name has no vendor to drop"
    );
    assert_eq!(target.sm_count, info.compute_units);
    // PoCL itself takes more: the clamp, not the device, sets these.
    assert!(info.max_work_group_size > 256, "{info:?}");
    let portable_but_for_the_device = Target {
        name: Target::PORTABLE.name,
        model: Target::PORTABLE.model,
        sm_count: Target::PORTABLE.sm_count,
        ..target.clone()
    };
    assert_eq!(portable_but_for_the_device, Target::PORTABLE);
    assert_eq!(
        (
            target.launchable_threads_per_block,
            target.plannable_shared_bytes()
        ),
        (256, 48 * 1024 - 256)
    );
}

/// A device buffer holding `values`.
fn device_buffer(device: &OpenClDevice, values: &[Complex<f32>]) -> Buffer<Complex<f32>> {
    // SAFETY: no host pointer is given, so OpenCL allocates the memory.
    let mut buffer = unsafe {
        Buffer::<Complex<f32>>::create(
            device.context(),
            CL_MEM_READ_WRITE,
            values.len(),
            std::ptr::null_mut(),
        )
    }
    .unwrap();
    // SAFETY: blocking write of exactly the buffer's length.
    unsafe {
        device
            .queue()
            .enqueue_write_buffer(&mut buffer, CL_BLOCKING, 0, values, &[])
    }
    .unwrap();
    buffer
}

/// What `buffer` holds, after everything queued before has finished.
fn read_back(
    device: &OpenClDevice,
    buffer: &Buffer<Complex<f32>>,
    len: usize,
) -> Vec<Complex<f32>> {
    let mut values = vec![Complex::default(); len];
    // SAFETY: blocking read of exactly the buffer's length; the queue is in order.
    unsafe {
        device
            .queue()
            .enqueue_read_buffer(buffer, CL_BLOCKING, 0, &mut values, &[])
    }
    .unwrap();
    values
}

/// The f32 plan of `out_of_place`, a signal of 3 transforms, and device
/// buffers holding the signal and something else.
struct OnDevice {
    fft: OpenClFft,
    input: Vec<Complex<f32>>,
    d_input: Buffer<Complex<f32>>,
    d_output: Buffer<Complex<f32>>,
}

/// [`OnDevice`] with the output buffer full of `fill`.
fn on_device(device: &OpenClDevice, fill: Complex<f32>) -> OnDevice {
    let input = signal::<f32>(3 * N);
    OnDevice {
        fft: load(device, &out_of_place(Precision::F32)),
        d_input: device_buffer(device, &input),
        d_output: device_buffer(device, &[fill; 3 * N]),
        input,
    }
}

#[test]
fn device_buffers_run_on_a_queue_out_of_place_and_in_place() {
    let Some(device) = common::pocl("device_buffers_run_on_a_queue_out_of_place_and_in_place")
    else {
        return;
    };
    let OnDevice {
        fft,
        input,
        d_input,
        mut d_output,
    } = on_device(device, Complex::new(f32::NAN, 0.0));
    let queue = device.queue();
    fft.launch(queue, Direction::Forward, &d_input, &mut d_output, 3)
        .unwrap();
    let expected: Vec<_> = input
        .iter()
        .map(|x| x * 2.0 + Complex::new(0.0, 3.0))
        .collect();
    assert_eq!(read_back(device, &d_output, 3 * N), expected);
    // Three passes: through the output and the plan's workspace; the input stays.
    fft.launch(queue, Direction::Inverse, &d_input, &mut d_output, 3)
        .unwrap();
    let expected: Vec<_> = input.iter().map(|x| x * 0.125).collect();
    assert_eq!(read_back(device, &d_output, 3 * N), expected);
    assert_eq!(read_back(device, &d_input, 3 * N), input);

    let mixed = load(device, &in_place());
    let mut d_data = device_buffer(device, &input);
    mixed
        .launch_in_place(queue, Direction::Forward, &mut d_data, 3)
        .unwrap();
    assert_eq!(
        widen(&read_back(device, &d_data, 3 * N)),
        in_place_forward(&input, 3)
    );
}

#[test]
fn device_buffer_mistakes_are_refused_before_anything_runs() {
    let Some(device) = common::pocl("device_buffer_mistakes_are_refused_before_anything_runs")
    else {
        return;
    };
    let sentinel = Complex::new(7.0, -7.0);
    let OnDevice {
        fft,
        input,
        d_input,
        mut d_output,
    } = on_device(device, sentinel);
    let queue = device.queue();
    // Sizes in bytes of the side: 8 bytes a complex f32 value.
    let wrong = |buffer, expected, got| Some((buffer, expected, got));

    let mut short = device_buffer(device, &[sentinel; 2 * N]);
    let err = fft
        .launch(queue, Direction::Forward, &d_input, &mut short, 3)
        .unwrap_err();
    assert_eq!(wrong_bytes(&err), wrong("output", 24 * N, 16 * N), "{err}");
    let err = fft
        .launch(queue, Direction::Forward, &d_input, &mut d_output, 4)
        .unwrap_err();
    assert_eq!(wrong_bytes(&err), wrong("input", 32 * N, 24 * N), "{err}");
    let error = fft
        .launch_in_place(queue, Direction::Forward, &mut d_output, 3)
        .unwrap_err();
    assert!(matches!(error, Error::PlacementMismatch { .. }), "{error}");

    // A second device made separately has its own context.
    let other = OpenClDevice::find(Some("Portable")).unwrap();
    let foreign = device_buffer(&other, &input);
    let foreign_context = |what| Error::ForeignOpenClContext { what };
    assert_eq!(
        fft.launch(queue, Direction::Forward, &foreign, &mut d_output, 3)
            .unwrap_err(),
        foreign_context("input buffer")
    );
    assert_eq!(
        fft.launch(
            other.queue(),
            Direction::Forward,
            &d_input,
            &mut d_output,
            3
        )
        .unwrap_err(),
        foreign_context("queue")
    );
    assert_eq!(read_back(device, &d_output, 3 * N), vec![sentinel; 3 * N]);
}

#[test]
fn the_manifest_routes_every_pass_and_unsound_routes_are_refused() {
    let Some(device) =
        common::pocl("the_manifest_routes_every_pass_and_unsound_routes_are_refused")
    else {
        return;
    };
    // An in-out pass on the output after an out-of-place first pass.
    let then_in_out = manifest(
        Precision::F32,
        Placement::OutOfPlace,
        vec![(
            Direction::Forward,
            vec![halve(), via(add_one(), Role::Output, Role::Output)],
        )],
    );
    let fft = load(device, &then_in_out);
    let input = signal::<f32>(3 * N);
    let mut output = vec![Complex::new(f32::NAN, 0.0); 3 * N];
    fft.run(Direction::Forward, &input, &mut output, 3).unwrap();
    assert_eq!(
        widen(&output),
        map(&input, |re, im| (re / 2.0 + 1.0, im / 2.0))
    );

    // Out of place, an in-out first pass would write the caller's input.
    let writes_input = manifest(
        Precision::F32,
        Placement::OutOfPlace,
        vec![(Direction::Forward, vec![add_one(), halve()])],
    );
    let err = OpenClFft::new(device, &source("float"), &writes_input).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidManifest(m) if m.contains("leave intact")),
        "{err}"
    );
    // The workspace, with no workspace planned.
    let mut no_scratch = out_of_place(Precision::F32);
    no_scratch.scratch_elements = 0;
    let err = OpenClFft::new(device, &source("float"), &no_scratch).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidManifest(m) if m.contains("scratch_elements is 0")),
        "{err}"
    );
    // The last pass leaves the result in the workspace.
    let mut lost = out_of_place(Precision::F32);
    lost.transforms[1].passes.pop();
    let err = OpenClFft::new(device, &source("float"), &lost).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidManifest(m) if m.contains("must write the output")),
        "{err}"
    );
}

#[test]
fn the_callers_workspace_serves_device_launches() {
    let Some(device) = common::pocl("the_callers_workspace_serves_device_launches") else {
        return;
    };
    let batch = 3;
    let OnDevice {
        fft,
        input,
        d_input,
        mut d_output,
    } = on_device(device, Complex::new(f32::NAN, 0.0));
    assert_eq!(fft.workspace_bytes(batch), Ok(batch * N * 8));
    let mut workspace = bytes_buffer(device, batch * N * 8);
    let queue = device.queue();
    fft.launch_with_workspace(
        queue,
        Direction::Inverse,
        &d_input,
        &mut d_output,
        &mut workspace,
        batch,
    )
    .unwrap();
    let expected: Vec<_> = input.iter().map(|x| x * 0.125).collect();
    assert_eq!(read_back(device, &d_output, batch * N), expected);
    assert_eq!(read_back(device, &d_input, batch * N), input);

    // Too small by one byte, or of another context: refused, nothing runs.
    let mut small = bytes_buffer(device, batch * N * 8 - 1);
    let sentinel = Complex::new(7.0f32, -7.0);
    let mut d_kept = device_buffer(device, &[sentinel; 3 * N]);
    assert_eq!(
        fft.launch_with_workspace(
            queue,
            Direction::Inverse,
            &d_input,
            &mut d_kept,
            &mut small,
            batch
        )
        .unwrap_err(),
        Error::WorkspaceTooSmall {
            batch,
            needed: batch * N * 8,
            got: batch * N * 8 - 1
        }
    );
    let other = OpenClDevice::find(Some("Portable")).unwrap();
    let mut foreign = bytes_buffer(&other, batch * N * 8);
    assert_eq!(
        fft.launch_with_workspace(
            queue,
            Direction::Inverse,
            &d_input,
            &mut d_kept,
            &mut foreign,
            batch
        )
        .unwrap_err(),
        Error::ForeignOpenClContext {
            what: "workspace buffer"
        }
    );
    assert_eq!(read_back(device, &d_kept, 3 * N), vec![sentinel; 3 * N]);

    // In place, through the workspace both ways.
    let mixed = load(device, &in_place());
    assert_eq!(mixed.workspace_bytes(batch), Ok(batch * N * 8));
    for (direction, expected) in [
        (Direction::Forward, in_place_forward(&input, batch)),
        (Direction::Inverse, in_place_inverse(&input)),
    ] {
        let mut d_data = device_buffer(device, &input);
        mixed
            .launch_in_place_with_workspace(queue, direction, &mut d_data, &mut workspace, batch)
            .unwrap();
        assert_eq!(widen(&read_back(device, &d_data, batch * N)), expected);
    }
}

#[test]
fn buffers_are_sized_by_the_layouts_and_gaps_keep_their_values() {
    let Some(device) = common::pocl("buffers_are_sized_by_the_layouts_and_gaps_keep_their_values")
    else {
        return;
    };
    let mut spread = forward_only(vec![PassLaunch {
        kernel: name("halve_spread"),
        ..halve()
    }]);
    spread.output = Layout {
        strides: vec![1],
        distance: D,
    };
    let fft = load(device, &spread);
    let batch = 3;
    let len = (batch - 1) * D + N;
    let input = signal::<f32>(batch * N);
    let sentinel = Complex::new(-7.0f32, 7.0);
    let mut output = vec![sentinel; len];
    fft.run(Direction::Forward, &input, &mut output, batch)
        .unwrap();
    for (i, value) in output.iter().enumerate() {
        let (fft, point) = (i / D, i % D);
        if point < N {
            assert_eq!(*value, input[fft * N + point] * 0.5, "element {i}");
        } else {
            assert_eq!(*value, sentinel, "element {i} is outside the layout");
        }
    }
    // A dense-sized output is refused with the layout's length.
    let mut dense = vec![sentinel; batch * N];
    let err = fft
        .run(Direction::Forward, &input, &mut dense, batch)
        .unwrap_err();
    assert_eq!(
        wrong_length(&err),
        Some(("output", len, batch * N)),
        "{err}"
    );
    let d_input = device_buffer(device, &input);
    let mut d_dense = device_buffer(device, &dense);
    let err = fft
        .launch(
            device.queue(),
            Direction::Forward,
            &d_input,
            &mut d_dense,
            batch,
        )
        .unwrap_err();
    assert_eq!(
        wrong_bytes(&err),
        Some(("output", 8 * len, 8 * batch * N)),
        "{err}"
    );
}

#[test]
fn a_batch_beyond_the_devices_memory_is_refused_before_allocating() {
    let Some(device) =
        common::pocl("a_batch_beyond_the_devices_memory_is_refused_before_allocating")
    else {
        return;
    };
    // A workspace of 2^32 elements (32 GiB in f32) per transform: the batch
    // stays small on the host and within the batch bound.
    let mut hungry = out_of_place(Precision::F32);
    hungry.scratch_elements = 1 << 32;
    let fft = load(device, &hungry);
    let info = device.info();
    let batch = (info.global_mem_bytes / (8 << 32)) as usize + 1;
    let input = signal::<f32>(batch * N);
    let sentinel = Complex::new(-7.0f32, 7.0);
    let mut output = vec![sentinel; batch * N];
    let err = fft
        .run(Direction::Inverse, &input, &mut output, batch)
        .unwrap_err();
    match &err {
        Error::DeviceMemory {
            needed, available, ..
        } => assert!(needed > available, "{err}"),
        other => panic!("expected a device memory error, got {other}"),
    }
    assert!(err.to_string().contains("lower the batch"), "{err}");
    assert!(output.iter().all(|&x| x == sentinel));
    // The forward pass needs no workspace, so the same batch runs.
    fft.run(Direction::Forward, &input, &mut output, batch)
        .unwrap();
    // Device buffers: the plan's own workspace is checked before it is made.
    let d_input = device_buffer(device, &input);
    let mut d_output = device_buffer(device, &output);
    let err = fft
        .launch(
            device.queue(),
            Direction::Inverse,
            &d_input,
            &mut d_output,
            batch,
        )
        .unwrap_err();
    assert!(matches!(err, Error::DeviceMemory { .. }), "{err}");
}

#[test]
fn dynamic_shared_memory_is_refused_on_opencl() {
    let Some(device) = common::pocl("dynamic_shared_memory_is_refused_on_opencl") else {
        return;
    };
    let dynamic = forward_only(vec![PassLaunch {
        dynamic_shared_bytes: 1024,
        ..halve()
    }]);
    let err = OpenClFft::new(device, &source("float"), &dynamic).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidManifest(m)
            if m.contains("opt-in shared memory") && m.contains("plan for this device's target")),
        "{err}"
    );
}

/// An uninitialised device buffer of `bytes` bytes (a workspace).
fn bytes_buffer(device: &OpenClDevice, bytes: usize) -> Buffer<u8> {
    // SAFETY: no host pointer is given, so OpenCL allocates the memory.
    unsafe {
        Buffer::<u8>::create(
            device.context(),
            CL_MEM_READ_WRITE,
            bytes,
            std::ptr::null_mut(),
        )
    }
    .unwrap()
}

/// Points of the hand-written real transforms, and of their half spectrum.
const RN: usize = 8;
const RH: usize = RN / 2 + 1;

/// Stand-ins for R2C and C2R over RN reals, one transform per work-group of
/// one item, exact in any precision: the "spectrum" of `x` is `(x[k],
/// x[RN - 1 - k])` for `k <= RN / 2`, and the "C2R" of `s` is `x[j] =
/// re(s[j % RH]) - im(s[j % RH])`. In place, rows of `2 * RH` reals.
fn real_source() -> String {
    format!(
        r#"#define N {RN}
#define H {RH}
typedef float R;
typedef float2 R2;

__kernel void fake_r2c(__global const R* in, __global R2* out) {{
    uint f = get_group_id(0);
    for (uint k = 0; k < H; k++) out[f * H + k] = (R2)(in[f * N + k], in[f * N + N - 1 - k]);
}}

__kernel void fake_r2c_ip(__global R2* data) {{
    uint f = get_group_id(0);
    __global R* x = (__global R*)(data + f * H);
    R v[N];
    for (uint j = 0; j < N; j++) v[j] = x[j];
    for (uint k = 0; k < H; k++) data[f * H + k] = (R2)(v[k], v[N - 1 - k]);
}}

__kernel void fake_c2r(__global const R2* in, __global R* out) {{
    uint f = get_group_id(0);
    for (uint j = 0; j < N; j++) out[f * N + j] = in[f * H + j % H].x - in[f * H + j % H].y;
}}

__kernel void fake_c2r_ip(__global R2* data) {{
    uint f = get_group_id(0);
    R2 s[H];
    for (uint k = 0; k < H; k++) s[k] = data[f * H + k];
    __global R* x = (__global R*)(data + f * H);
    for (uint j = 0; j < N; j++) x[j] = s[j % H].x - s[j % H].y;
}}
"#
    )
}

/// An f32 r2c manifest of the stand-ins above, its layouts as the generator
/// lays them out (in place: rows of `2 * RH` reals under the half spectrum).
fn fake_real(placement: Placement) -> Manifest {
    let pass = |kernel: &str, in_place: bool| PassLaunch {
        kernel: name(kernel),
        block: [1, 1, 1],
        grid: GridRule::FftsPerBlock {
            ffts_per_block: 1,
            ffts_per_transform: 1,
            transforms_per_fft: 1,
        },
        shared_bytes: 0,
        dynamic_shared_bytes: 0,
        reads: Role::Input,
        writes: Role::Output,
        args: match in_place {
            true => vec![KernelArg::InOut { name: name("data") }],
            false => vec![
                KernelArg::Input { name: name("in") },
                KernelArg::Output { name: name("out") },
            ],
        },
    };
    let in_place = placement == Placement::InPlace;
    let suffix = if in_place { "_ip" } else { "" };
    let mut manifest = manifest(
        Precision::F32,
        placement,
        vec![
            (
                Direction::Forward,
                vec![pass(&format!("fake_r2c{suffix}"), in_place)],
            ),
            (
                Direction::Inverse,
                vec![pass(&format!("fake_c2r{suffix}"), in_place)],
            ),
        ],
    );
    manifest.kind = TransformKind::R2c;
    manifest.n = RN;
    manifest.shape = vec![RN];
    manifest.output = Layout::contiguous(&[RH]);
    manifest.input = match in_place {
        true => Layout {
            strides: vec![1],
            distance: 2 * RH,
        },
        false => Layout::contiguous(&[RN]),
    };
    manifest
}

/// What the stand-in R2C makes of one transform's reals.
fn fake_spectrum(x: &[f32]) -> Vec<Complex<f32>> {
    (0..RH).map(|k| Complex::new(x[k], x[RN - 1 - k])).collect()
}

/// What the stand-in C2R makes of one transform's half spectrum.
fn fake_reals(s: &[Complex<f32>]) -> Vec<f32> {
    (0..RN).map(|j| s[j % RH].re - s[j % RH].im).collect()
}

#[test]
fn real_sides_take_reals_and_the_other_side_complex_values() {
    let Some(device) = common::pocl("real_sides_take_reals_and_the_other_side_complex_values")
    else {
        return;
    };
    let source = real_source();
    let fft = OpenClFft::new(device, &source, &fake_real(Placement::OutOfPlace)).unwrap();
    let batch = 3;
    let reals: Vec<f32> = (0..batch * RN).map(|i| i as f32 * 0.5 - 4.0).collect();
    let sentinel = Complex::new(-7.0f32, 7.0);
    let mut spectrum = vec![sentinel; batch * RH];
    fft.run(Direction::Forward, &reals, &mut spectrum, batch)
        .unwrap();
    let want: Vec<_> = reals.chunks(RN).flat_map(fake_spectrum).collect();
    assert_eq!(spectrum, want);
    let mut back = vec![f32::NAN; batch * RN];
    fft.run(Direction::Inverse, &spectrum, &mut back, batch)
        .unwrap();
    let want: Vec<f32> = spectrum.chunks(RH).flat_map(fake_reals).collect();
    assert_eq!(back, want);

    // The wrong type or length on either side is refused, nothing written.
    let complex_input = vec![sentinel; batch * RN];
    let mut untouched = vec![sentinel; batch * RH];
    let err = fft
        .run(Direction::Forward, &complex_input, &mut untouched, batch)
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("is real: pass a slice of f32, not of Complex<f32>"),
        "{err}"
    );
    let err = fft
        .run(Direction::Forward, &reals[RN..], &mut untouched, batch)
        .unwrap_err();
    assert_eq!(
        wrong_length(&err),
        Some(("input", batch * RN, (batch - 1) * RN)),
        "{err}"
    );
    assert!(untouched.iter().all(|&x| x == sentinel));

    // Device buffers: sized in bytes of the side, whatever their type.
    let queue = device.queue();
    let d_reals = typed_buffer(device, &reals);
    let mut d_spectrum = typed_buffer(device, &vec![0.0f32; 2 * batch * RH]);
    fft.launch(queue, Direction::Forward, &d_reals, &mut d_spectrum, batch)
        .unwrap();
    let mut got = vec![0.0f32; 2 * batch * RH];
    // SAFETY: blocking read of exactly the buffer's length; the queue is in order.
    unsafe { queue.enqueue_read_buffer(&d_spectrum, CL_BLOCKING, 0, &mut got, &[]) }.unwrap();
    let want: Vec<f32> = reals
        .chunks(RN)
        .flat_map(fake_spectrum)
        .flat_map(|c| [c.re, c.im])
        .collect();
    assert_eq!(got, want);
    let mut d_short = typed_buffer(device, &vec![0.0f32; 2 * batch * RH - 1]);
    let err = fft
        .launch(queue, Direction::Forward, &d_reals, &mut d_short, batch)
        .unwrap_err();
    assert_eq!(
        wrong_bytes(&err),
        Some(("output", 8 * batch * RH, 8 * batch * RH - 4)),
        "{err}"
    );
}

#[test]
fn in_place_real_data_is_given_as_reals_or_complex_values() {
    let Some(device) = common::pocl("in_place_real_data_is_given_as_reals_or_complex_values")
    else {
        return;
    };
    let fft = OpenClFft::new(device, &real_source(), &fake_real(Placement::InPlace)).unwrap();
    let batch = 2;
    // Rows of 2 * RH reals; the padding's values are irrelevant.
    let rows: Vec<f32> = (0..batch * 2 * RH).map(|i| i as f32 - 9.0).collect();
    let mut data = rows.clone();
    fft.run_in_place(Direction::Forward, &mut data, batch)
        .unwrap();
    let want: Vec<f32> = rows
        .chunks(2 * RH)
        .flat_map(|row| fake_spectrum(&row[..RN]))
        .flat_map(|c| [c.re, c.im])
        .collect();
    assert_eq!(data, want);
    // The same buffer as complex values: the spectrum in, the reals out.
    let mut spectrum: Vec<Complex<f32>> =
        want.chunks(2).map(|p| Complex::new(p[0], p[1])).collect();
    let kept = spectrum.clone();
    fft.run_in_place(Direction::Inverse, &mut spectrum, batch)
        .unwrap();
    for (t, row) in spectrum.chunks(RH).enumerate() {
        let reals: Vec<f32> = row.iter().flat_map(|c| [c.re, c.im]).collect();
        assert_eq!(reals[..RN], fake_reals(&kept[t * RH..(t + 1) * RH])[..]);
    }
    // Too short for the padded rows: the larger side decides.
    let mut short = vec![0.0f32; (batch - 1) * 2 * RH + RN];
    let err = fft
        .run_in_place(Direction::Forward, &mut short, batch)
        .unwrap_err();
    assert_eq!(
        wrong_length(&err),
        Some(("data", batch * 2 * RH, (batch - 1) * 2 * RH + RN)),
        "{err}"
    );
}

/// A device buffer holding `values`.
fn typed_buffer<T: Copy>(device: &OpenClDevice, values: &[T]) -> Buffer<T> {
    // SAFETY: no host pointer is given, so OpenCL allocates the memory; the
    // blocking write copies `values` before returning.
    unsafe {
        let mut buffer = Buffer::<T>::create(
            device.context(),
            CL_MEM_READ_WRITE,
            values.len(),
            std::ptr::null_mut(),
        )
        .unwrap();
        device
            .queue()
            .enqueue_write_buffer(&mut buffer, CL_BLOCKING, 0, values, &[])
            .unwrap();
        buffer
    }
}
