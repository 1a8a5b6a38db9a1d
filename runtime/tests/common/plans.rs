//! The hand-written plans that the CUDA and the OpenCL launch tests share:
//! passes of kernels that only scale and shift (each backend's test writes
//! them in its own language, with arguments in differing orders, to prove
//! that the runtime binds them by role), manifests made of those passes with
//! the buffers each pass reads and writes ([`via`]: the input, the output, or
//! the workspace of `N` elements per transform), and signals whose every
//! expected value is exact.

use fftgen_runtime::{
    Buffer, Complex, Direction, GridRule, KernelArg, Layout, Manifest, Normalization, PassLaunch,
    Placement, Precision, Real, TransformKind, TransformLaunch,
};

/// Points of every transform.
pub const N: usize = 8;

pub fn name(text: &str) -> String {
    text.to_string()
}

/// A pass of `kernel` in blocks of `N` by `ffts_per_block` threads, one
/// transform per `y`, with `args` in the kernel's order, reading the input
/// and writing the output (an in-out pass: the input; see [`via`]).
fn pass(kernel: &str, ffts_per_block: u32, args: Vec<KernelArg>) -> PassLaunch {
    let in_out = args.iter().any(|a| matches!(a, KernelArg::InOut { .. }));
    PassLaunch {
        kernel: name(kernel),
        block: [N as u32, ffts_per_block, 1],
        grid: GridRule::FftsPerBlock {
            ffts_per_block,
            ffts_per_transform: 1,
            transforms_per_fft: 1,
        },
        shared_bytes: 0,
        dynamic_shared_bytes: 0,
        reads: Buffer::Input,
        writes: if in_out {
            Buffer::Input
        } else {
            Buffer::Output
        },
        args,
    }
}

/// `pass` reading `reads` and writing `writes`.
pub fn via(pass: PassLaunch, reads: Buffer, writes: Buffer) -> PassLaunch {
    PassLaunch {
        reads,
        writes,
        ..pass
    }
}

fn input() -> KernelArg {
    KernelArg::Input { name: name("in") }
}

fn output() -> KernelArg {
    KernelArg::Output { name: name("out") }
}

fn batch() -> KernelArg {
    KernelArg::BatchCount {
        name: name("batch"),
    }
}

/// `out = 2 in + (0, batch)`: proves that the batch arrives.
pub fn twice_plus_batch() -> PassLaunch {
    pass("twice_plus_batch", 2, vec![batch(), output(), input()])
}

/// `out = in / 2`, with no batch argument: one transform per block.
pub fn halve() -> PassLaunch {
    pass("halve", 1, vec![input(), output()])
}

/// `out = in * table[point]` componentwise, reading twiddle table `table`.
pub fn times_table(table: usize) -> PassLaunch {
    let table = KernelArg::Twiddles {
        name: name("table"),
        table,
    };
    pass("times_table", 1, vec![input(), output(), table])
}

/// `data += 1`, in place.
pub fn add_one() -> PassLaunch {
    let data = KernelArg::InOut { name: name("data") };
    pass("add_one", 4, vec![data, batch()])
}

pub fn manifest(
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
        shape: vec![N],
        kind: TransformKind::C2c,
        input: Layout::contiguous(&[N]),
        output: Layout::contiguous(&[N]),
        input_blocks: None,
        output_blocks: None,
        scratch_elements: 0,
        transforms: transforms
            .into_iter()
            .map(|(direction, passes)| TransformLaunch { direction, passes })
            .collect(),
        twiddle_tables: Vec::new(),
    }
}

/// An f32 out-of-place manifest of the forward transform only, in `passes`.
pub fn forward_only(passes: Vec<PassLaunch>) -> Manifest {
    manifest(
        Precision::F32,
        Placement::OutOfPlace,
        vec![(Direction::Forward, passes)],
    )
}

/// [`manifest`] with a workspace of `N` elements per transform.
pub fn with_scratch(mut manifest: Manifest) -> Manifest {
    manifest.scratch_elements = N;
    manifest
}

/// Forward: one pass of 2x + i batch. Inverse: three halvings, input to
/// output, output to workspace, workspace to output (the output serves as an
/// intermediate buffer; the input is never written).
pub fn out_of_place(precision: Precision) -> Manifest {
    use Buffer::{Output, Scratch};
    with_scratch(manifest(
        precision,
        Placement::OutOfPlace,
        vec![
            (Direction::Forward, vec![twice_plus_batch()]),
            (
                Direction::Inverse,
                vec![
                    halve(),
                    via(halve(), Output, Scratch),
                    via(halve(), Scratch, Output),
                ],
            ),
        ],
    ))
}

/// In place, in-out and out-of-place passes mixed in either order. Forward:
/// add one in the data, 2x + i batch into the workspace, add one there, halve
/// back into the data ([`in_place_forward`]). Inverse: halve into the
/// workspace, add one there, halve back ([`in_place_inverse`]).
pub fn in_place() -> Manifest {
    use Buffer::{Input, Output, Scratch};
    with_scratch(manifest(
        Precision::F32,
        Placement::InPlace,
        vec![
            (
                Direction::Forward,
                vec![
                    add_one(),
                    via(twice_plus_batch(), Input, Scratch),
                    via(add_one(), Scratch, Scratch),
                    via(halve(), Scratch, Output),
                ],
            ),
            (
                Direction::Inverse,
                vec![
                    via(halve(), Input, Scratch),
                    via(add_one(), Scratch, Scratch),
                    via(halve(), Scratch, Output),
                ],
            ),
        ],
    ))
}

/// In place, forward only: one in-out pass, which stays in the caller's
/// buffer (`data + 1`).
pub fn single_in_out() -> Manifest {
    manifest(
        Precision::F32,
        Placement::InPlace,
        vec![(Direction::Forward, vec![add_one()])],
    )
}

/// What the forward transform of [`in_place`] makes of `values`.
pub fn in_place_forward<T: Real + Into<f64>>(
    values: &[Complex<T>],
    batch: usize,
) -> Vec<Complex<f64>> {
    map(values, |re, im| {
        (
            (2.0 * (re + 1.0) + 1.0) / 2.0,
            (2.0 * im + batch as f64) / 2.0,
        )
    })
}

/// What the inverse transform of [`in_place`] makes of `values`.
pub fn in_place_inverse<T: Real + Into<f64>>(values: &[Complex<T>]) -> Vec<Complex<f64>> {
    map(values, |re, im| ((re / 2.0 + 1.0) / 2.0, im / 4.0))
}

/// The C type of a real of `precision`, in CUDA C++ and OpenCL C alike.
pub fn c_real(precision: Precision) -> &'static str {
    match precision {
        Precision::F32 => "float",
        Precision::F64 => "double",
    }
}

/// Exact values: quarters and eighths of small numbers.
pub fn signal<T: Real + From<f32>>(len: usize) -> Vec<Complex<T>> {
    (0..len)
        .map(|i| {
            Complex::new(
                T::from(i as f32 * 0.25 - 3.0),
                T::from(1.5 - i as f32 * 0.125),
            )
        })
        .collect()
}

/// `f` of every value, in f64 (exact for the signals above).
pub fn map<T: Real + Into<f64>>(
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

/// The values in f64.
pub fn widen<T: Real + Into<f64>>(values: &[Complex<T>]) -> Vec<Complex<f64>> {
    map(values, |re, im| (re, im))
}
