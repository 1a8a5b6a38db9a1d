//! OpenClFft on PoCL with hand-written kernels and manifests: arguments are
//! bound by role whatever their order, the grid rule covers a ragged batch,
//! multi-pass transforms ping-pong between buffers, and every check fails
//! before any data moves, leaving the caller's buffers untouched. The kernels
//! only scale and shift, so every expected value is exact.

mod common;

use fftgen_runtime::{
    Complex, Direction, Error, GridRule, KernelArg, Manifest, Normalization, OpenClDevice,
    OpenClFft, PassLaunch, Placement, Precision, TransformLaunch,
};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;

const N: usize = 8;

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

__kernel void add_one(__global R2* data, uint batch) {{
    uint fft = get_group_id(0) * get_local_size(1) + get_local_id(1);
    if (fft >= batch) return;
    data[fft * N + get_local_id(0)] += (R2)((R)1, (R)0);
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

fn times_table(table: usize) -> PassLaunch {
    PassLaunch {
        kernel: name("times_table"),
        block: [N as u32, 1, 1],
        grid: GridRule::FftsPerBlock { ffts_per_block: 1 },
        shared_bytes: 0,
        args: vec![
            KernelArg::Input { name: name("in") },
            KernelArg::Output { name: name("out") },
            KernelArg::Twiddles {
                name: name("table"),
                table,
            },
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
/// result ends in the second buffer).
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

fn signal(len: usize) -> Vec<Complex<f32>> {
    (0..len)
        .map(|i| Complex::new(i as f32 * 0.25 - 3.0, 1.5 - i as f32 * 0.125))
        .collect()
}

fn load(device: &OpenClDevice, real: &str, manifest: &Manifest) -> OpenClFft {
    OpenClFft::new(device, &source(real), manifest)
        .unwrap_or_else(|e| panic!("loading failed: {e}"))
}

#[test]
fn binds_arguments_by_role_and_covers_a_ragged_batch() {
    let Some(device) = common::pocl("binds_arguments_by_role_and_covers_a_ragged_batch") else {
        return;
    };
    let fft = load(device, "float", &out_of_place(Precision::F32));
    for batch in [1, 2, 3, 5] {
        let input = signal(batch * N);
        let mut output = vec![Complex::new(f32::NAN, f32::NAN); batch * N];
        fft.run(Direction::Forward, &input, &mut output, batch)
            .unwrap();
        let expected: Vec<_> = input
            .iter()
            .map(|x| x * 2.0 + Complex::new(0.0, batch as f32))
            .collect();
        assert_eq!(output, expected, "batch {batch}");
    }
}

#[test]
fn passes_run_in_order_through_ping_pong_buffers() {
    let Some(device) = common::pocl("passes_run_in_order_through_ping_pong_buffers") else {
        return;
    };
    let fft = load(device, "float", &out_of_place(Precision::F32));
    let input = signal(3 * N);
    let mut output = vec![Complex::default(); 3 * N];
    fft.run(Direction::Inverse, &input, &mut output, 3).unwrap();
    let expected: Vec<_> = input.iter().map(|x| x * 0.125).collect();
    assert_eq!(output, expected);

    // An even number of passes ends in the first buffer.
    let two = manifest(
        Precision::F32,
        Placement::OutOfPlace,
        vec![(Direction::Inverse, vec![halve(), halve()])],
    );
    let fft = load(device, "float", &two);
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
    let mut with_table = manifest(
        Precision::F32,
        Placement::OutOfPlace,
        vec![(Direction::Forward, vec![times_table(0)])],
    );
    with_table.twiddle_tables = vec![table.clone()];
    let fft = load(device, "float", &with_table);
    let input = signal(2 * N);
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
    let passes = vec![add_one(), twice_plus_batch(), add_one()];
    let fft = load(
        device,
        "float",
        &manifest(
            Precision::F32,
            Placement::InPlace,
            vec![(Direction::Forward, passes)],
        ),
    );
    let original = signal(5 * N);
    let mut data = original.clone();
    fft.run_in_place(Direction::Forward, &mut data, 5).unwrap();
    let one = Complex::new(1.0, 0.0);
    let expected: Vec<_> = original
        .iter()
        .map(|x| (x + one) * 2.0 + Complex::new(0.0, 5.0) + one)
        .collect();
    assert_eq!(data, expected);
}

#[test]
fn runs_double_precision() {
    let Some(device) = common::pocl("runs_double_precision") else {
        return;
    };
    let fft = load(device, "double", &out_of_place(Precision::F64));
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
}

#[test]
fn bad_calls_fail_before_writing_anything() {
    let Some(device) = common::pocl("bad_calls_fail_before_writing_anything") else {
        return;
    };
    let fft = load(device, "float", &out_of_place(Precision::F32));
    let sentinel = Complex::new(-7.0f32, 7.0);
    let input = signal(2 * N);
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
    assert!(err.to_string().contains("nothing was written"), "{err}");

    let mut long = vec![sentinel; 3 * N];
    let err = fft
        .run(Direction::Forward, &input, &mut long, 2)
        .unwrap_err();
    assert_eq!(
        err,
        Error::WrongLength {
            buffer: "output",
            expected: 2 * N,
            got: 3 * N
        }
    );
    assert!(long.iter().all(|&x| x == sentinel));

    let err = fft
        .run(Direction::Forward, &input[..0], &mut output[..0], 0)
        .unwrap_err();
    assert_eq!(err, Error::ZeroBatch);

    let input64 = vec![Complex::new(1.0f64, 0.0); 2 * N];
    let mut output64 = vec![Complex::new(-7.0f64, 7.0); 2 * N];
    let err = fft
        .run(Direction::Forward, &input64, &mut output64, 2)
        .unwrap_err();
    assert_eq!(
        err,
        Error::PrecisionMismatch {
            manifest: Precision::F32,
            buffer: Precision::F64
        }
    );
    assert!(output64.iter().all(|&x| x == Complex::new(-7.0, 7.0)));

    let mut data = input.clone();
    let err = fft
        .run_in_place(Direction::Forward, &mut data, 2)
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::PlacementMismatch {
                manifest: Placement::OutOfPlace,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(data, input);

    let forward_only = manifest(
        Precision::F32,
        Placement::OutOfPlace,
        vec![(Direction::Forward, vec![twice_plus_batch()])],
    );
    let fft = load(device, "float", &forward_only);
    let err = fft
        .run(Direction::Inverse, &input, &mut output, 2)
        .unwrap_err();
    assert_eq!(
        err,
        Error::MissingDirection {
            direction: Direction::Inverse,
            available: name("forward")
        }
    );

    assert!(output.iter().all(|&x| x == sentinel));
}

#[test]
fn launches_beyond_gpu_limits_are_rejected_even_on_pocl() {
    let Some(device) = common::pocl("launches_beyond_gpu_limits_are_rejected_even_on_pocl") else {
        return;
    };
    let with = |pass: PassLaunch| {
        manifest(
            Precision::F32,
            Placement::OutOfPlace,
            vec![(Direction::Forward, vec![pass])],
        )
    };

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
    let with = |pass: PassLaunch| {
        manifest(
            Precision::F32,
            Placement::OutOfPlace,
            vec![(Direction::Forward, vec![pass])],
        )
    };

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

    let short = PassLaunch {
        args: vec![KernelArg::InOut { name: name("x") }],
        ..halve()
    };
    let err = OpenClFft::new(device, &source("float"), &with(short)).unwrap_err();
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
        grid: GridRule::FftsPerBlock { ffts_per_block: 0 },
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
    load(&device, "float", &out_of_place(Precision::F32));
    load(&device, "float", &out_of_place(Precision::F32));
    assert_eq!(device.programs_built(), 1);
    load(&device, "double", &out_of_place(Precision::F64));
    assert_eq!(device.programs_built(), 2);
}

#[test]
fn one_plan_serves_many_threads() {
    let Some(device) = common::pocl("one_plan_serves_many_threads") else {
        return;
    };
    let fft = load(device, "float", &out_of_place(Precision::F32));
    std::thread::scope(|scope| {
        for thread in 0..8 {
            let fft = &fft;
            scope.spawn(move || {
                for round in 0..20 {
                    let batch = 1 + (thread + round) % 4;
                    let input: Vec<_> = signal(batch * N)
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

#[test]
fn device_buffers_run_on_a_queue_out_of_place_and_in_place() {
    let Some(device) = common::pocl("device_buffers_run_on_a_queue_out_of_place_and_in_place")
    else {
        return;
    };
    let fft = load(device, "float", &out_of_place(Precision::F32));
    let input = signal(3 * N);
    let d_input = device_buffer(device, &input);
    let mut d_output = device_buffer(device, &vec![Complex::new(f32::NAN, 0.0); 3 * N]);
    let queue = device.queue();
    fft.launch(queue, Direction::Forward, &d_input, &mut d_output, 3)
        .unwrap();
    let expected: Vec<_> = input
        .iter()
        .map(|x| x * 2.0 + Complex::new(0.0, 3.0))
        .collect();
    assert_eq!(read_back(device, &d_output, 3 * N), expected);
    // Three passes: the route goes through a scratch buffer, the input stays.
    fft.launch(queue, Direction::Inverse, &d_input, &mut d_output, 3)
        .unwrap();
    let expected: Vec<_> = input.iter().map(|x| x * 0.125).collect();
    assert_eq!(read_back(device, &d_output, 3 * N), expected);
    assert_eq!(read_back(device, &d_input, 3 * N), input);

    let passes = vec![add_one(), twice_plus_batch(), add_one()];
    let in_place = load(
        device,
        "float",
        &manifest(
            Precision::F32,
            Placement::InPlace,
            vec![(Direction::Forward, passes)],
        ),
    );
    let mut d_data = device_buffer(device, &input);
    in_place
        .launch_in_place(queue, Direction::Forward, &mut d_data, 3)
        .unwrap();
    let one = Complex::new(1.0, 0.0);
    let expected: Vec<_> = input
        .iter()
        .map(|x| (x + one) * 2.0 + Complex::new(0.0, 3.0) + one)
        .collect();
    assert_eq!(read_back(device, &d_data, 3 * N), expected);
}

#[test]
fn device_buffer_mistakes_are_refused_before_anything_runs() {
    let Some(device) = common::pocl("device_buffer_mistakes_are_refused_before_anything_runs")
    else {
        return;
    };
    let fft = load(device, "float", &out_of_place(Precision::F32));
    let input = signal(3 * N);
    let d_input = device_buffer(device, &input);
    let untouched = vec![Complex::new(7.0, -7.0); 3 * N];
    let mut d_output = device_buffer(device, &untouched);
    let queue = device.queue();

    let mut short = device_buffer(device, &untouched[..2 * N]);
    let error = fft
        .launch(queue, Direction::Forward, &d_input, &mut short, 3)
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::WrongDeviceLength {
                buffer: "output",
                ..
            }
        ),
        "{error}"
    );
    let error = fft
        .launch(queue, Direction::Forward, &d_input, &mut d_output, 4)
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::WrongDeviceLength {
                buffer: "input",
                ..
            }
        ),
        "{error}"
    );
    let error = fft
        .launch_in_place(queue, Direction::Forward, &mut d_output, 3)
        .unwrap_err();
    assert!(matches!(error, Error::PlacementMismatch { .. }), "{error}");

    // A second device made separately has its own context.
    let other = OpenClDevice::find(Some("Portable")).unwrap();
    let foreign = device_buffer(&other, &input);
    let error = fft
        .launch(queue, Direction::Forward, &foreign, &mut d_output, 3)
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::ForeignOpenClContext {
                what: "input buffer"
            }
        ),
        "{error}"
    );
    let error = fft
        .launch(
            other.queue(),
            Direction::Forward,
            &d_input,
            &mut d_output,
            3,
        )
        .unwrap_err();
    assert!(
        matches!(error, Error::ForeignOpenClContext { what: "queue" }),
        "{error}"
    );
    assert_eq!(read_back(device, &d_output, 3 * N), untouched);
}
