//! A client of the manifest alone, as a program in another language would
//! write one: it builds the generated OpenCL source and launches a
//! one-pass plan (complex or real, in or out of place) exactly as the manifest says (block,
//! grid rule, arguments by role, twiddle tables), without the runtime's
//! checks. The tests use it to run, on PoCL, kernels planned for a GPU's
//! opt-in shared memory, which the runtime rightly refuses on any OpenCL
//! device (OpenCL has no opt-in shared memory; the generated OpenCL declares
//! those arrays statically, and PoCL's CPU device holds megabytes): their
//! arithmetic is the CUDA kernels', from the same kernel tree.

use fftgen_runtime::opencl::OpenClDevice;
use fftgen_runtime::opencl3::kernel::{ExecuteKernel, Kernel};
use fftgen_runtime::opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use fftgen_runtime::opencl3::program::Program;
use fftgen_runtime::opencl3::types::{cl_uint, CL_BLOCKING};
use fftgen_runtime::{Direction, Element, KernelArg, Manifest, Placement, TransformKind};
use num_complex::Complex;
use std::ptr;

/// `batch` transforms of `input` (interleaved reals of the manifest's
/// precision, `T`) in `direction`, through the passes of an out-of-place
/// complex `manifest`.
pub fn run_passes<T: Copy + Default>(
    device: &OpenClDevice,
    source: &str,
    manifest: &Manifest,
    direction: Direction,
    input: &[Complex<T>],
    batch: usize,
) -> Vec<Complex<T>> {
    assert_eq!(manifest.kind, TransformKind::C2c, "a complex plan");
    assert_eq!(manifest.placement, Placement::OutOfPlace, "out of place");
    let scalars: Vec<T> = input.iter().flat_map(|c| [c.re, c.im]).collect();
    let output = run_passes_scalars(device, source, manifest, direction, &scalars, batch);
    output
        .chunks(2)
        .map(|pair| Complex::new(pair[0], pair[1]))
        .collect()
}

/// [`run_passes`] through `generated`'s OpenCL source and manifest on f64
/// `input`, narrowed to the manifest's precision for the kernels and
/// widened back for the comparison with the reference.
pub fn run_generated(
    device: &OpenClDevice,
    generated: &fftgen::Generated,
    direction: Direction,
    input: &[Complex<f64>],
    batch: usize,
) -> Vec<Complex<f64>> {
    let (source, manifest) = (&generated.opencl_source, &generated.manifest);
    match manifest.precision {
        fftgen_runtime::Precision::F32 => {
            let narrow: Vec<Complex<f32>> = input
                .iter()
                .map(|c| Complex::new(c.re as f32, c.im as f32))
                .collect();
            run_passes(device, source, manifest, direction, &narrow, batch)
                .iter()
                .map(|c| Complex::new(f64::from(c.re), f64::from(c.im)))
                .collect()
        }
        fftgen_runtime::Precision::F64 => {
            run_passes(device, source, manifest, direction, input, batch)
        }
    }
}

/// Scalars (of the precision `T`) of a buffer of `elements` elements of
/// type `element`.
fn scalars(element: Element, elements: usize) -> usize {
    match element {
        Element::Real => elements,
        Element::Complex => 2 * elements,
    }
}

/// `batch` transforms in `direction` through the passes of `manifest`, of
/// either kind and placement: `input` is the input buffer as scalars of the
/// manifest's precision `T` (a complex element two of them), laid out as
/// the manifest's input side says, at least as long as that side needs.
/// Returns the output buffer (in place: the one buffer, as long as the
/// longer side needs; out of place it starts zeroed).
pub fn run_passes_scalars<T: Copy + Default>(
    device: &OpenClDevice,
    source: &str,
    manifest: &Manifest,
    direction: Direction,
    input: &[T],
    batch: usize,
) -> Vec<T> {
    let transform = manifest
        .transforms
        .iter()
        .find(|t| t.direction == direction)
        .expect("the direction was generated");
    let input_side = manifest.input_side(direction);
    let output_side = manifest.output_side(direction);
    let input_len = scalars(input_side.element, input_side.elements(batch));
    let output_len = scalars(output_side.element, output_side.elements(batch));
    assert!(input.len() >= input_len, "the input buffer is too short");
    let in_place = manifest.placement == Placement::InPlace;
    let (input_len, output_len) = match in_place {
        true => (input_len.max(output_len), input_len.max(output_len)),
        false => (input_len, output_len),
    };
    let mut host_input = input[..input_len.min(input.len())].to_vec();
    host_input.resize(input_len, T::default());
    let context = device.context();
    let queue = device.queue();
    let program = Program::create_and_build_from_source(context, source, "-cl-std=CL1.2")
        .unwrap_or_else(|log| panic!("PoCL did not build the source: {log}"));

    let buffer = |len: usize| {
        // SAFETY: a new buffer of `len` scalars, no host pointer.
        unsafe {
            Buffer::<T>::create(context, CL_MEM_READ_WRITE, len.max(1), ptr::null_mut())
                .expect("a device buffer")
        }
    };
    let mut device_input = buffer(input_len);
    let mut device_output = buffer(output_len);
    // The workspace holds complex elements of the manifest's precision.
    let scratch = buffer(2 * manifest.scratch_elements as usize * batch);
    // SAFETY: blocking writes of host slices of the buffers' lengths.
    unsafe {
        queue
            .enqueue_write_buffer(&mut device_input, CL_BLOCKING, 0, &host_input, &[])
            .expect("the input written");
        if !in_place {
            let zeros = vec![T::default(); output_len];
            queue
                .enqueue_write_buffer(&mut device_output, CL_BLOCKING, 0, &zeros, &[])
                .expect("the output zeroed");
        }
    }
    let tables: Vec<Buffer<u8>> = manifest
        .twiddle_bytes()
        .into_iter()
        .map(|bytes| {
            // SAFETY: as above, for the table's bytes.
            unsafe {
                let mut table = Buffer::<u8>::create(
                    context,
                    CL_MEM_READ_WRITE,
                    bytes.len().max(1),
                    ptr::null_mut(),
                )
                .expect("a table buffer");
                queue
                    .enqueue_write_buffer(&mut table, CL_BLOCKING, 0, &bytes, &[])
                    .expect("the table written");
                table
            }
        })
        .collect();

    let batch_arg = batch as cl_uint;
    let data = |role: fftgen_runtime::Buffer| match (role, in_place) {
        (fftgen_runtime::Buffer::Scratch, _) => &scratch,
        (_, true) | (fftgen_runtime::Buffer::Input, false) => &device_input,
        (fftgen_runtime::Buffer::Output, false) => &device_output,
    };
    for pass in &transform.passes {
        let kernel = Kernel::create(&program, &pass.kernel).expect("the manifest's kernel");
        let grid = pass.grid.grid(batch);
        let mut run = ExecuteKernel::new(&kernel);
        for arg in &pass.args {
            // SAFETY: the generated signatures take buffers and a uint, in
            // the manifest's order.
            unsafe {
                match arg {
                    KernelArg::Input { .. } | KernelArg::InOut { .. } => {
                        run.set_arg(data(pass.reads))
                    }
                    KernelArg::Output { .. } => run.set_arg(data(pass.writes)),
                    KernelArg::BatchCount { .. } => run.set_arg(&batch_arg),
                    KernelArg::Twiddles { table, .. } => run.set_arg(&tables[*table]),
                };
            }
        }
        let local: Vec<usize> = pass.block.iter().map(|&b| b as usize).collect();
        let global: Vec<usize> = (0..3).map(|d| grid[d] * local[d]).collect();
        // SAFETY: every argument is bound; the work sizes are the manifest's.
        unsafe {
            run.set_global_work_sizes(&global)
                .set_local_work_sizes(&local)
                .enqueue_nd_range(queue)
                .expect("the pass enqueued");
        }
    }
    let written = match in_place {
        true => &device_input,
        false => &device_output,
    };
    let mut output = vec![T::default(); output_len];
    // SAFETY: a blocking read into a slice of the buffer's length.
    unsafe {
        queue
            .enqueue_read_buffer(written, CL_BLOCKING, 0, &mut output, &[])
            .expect("the output read");
    }
    output
}
