//! A client of the manifest alone, as a program in another language would
//! write one: it builds the generated OpenCL source and launches a
//! one-pass, out-of-place complex plan exactly as the manifest says (block,
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
use fftgen_runtime::{Direction, KernelArg, Manifest, TransformKind};
use num_complex::Complex;
use std::ptr;

/// `batch` transforms of `input` (interleaved reals of the manifest's
/// precision, `T`) in `direction`, through the one pass of `manifest`.
pub fn run_one_pass<T: Copy + Default>(
    device: &OpenClDevice,
    source: &str,
    manifest: &Manifest,
    direction: Direction,
    input: &[Complex<T>],
    batch: usize,
) -> Vec<Complex<T>> {
    assert_eq!(manifest.kind, TransformKind::C2c, "a complex plan");
    assert_eq!(manifest.scratch_elements, 0, "a plan without a workspace");
    let transform = manifest
        .transforms
        .iter()
        .find(|t| t.direction == direction)
        .expect("the direction was generated");
    let [pass] = transform.passes.as_slice() else {
        panic!("a plan of one pass");
    };
    let context = device.context();
    let queue = device.queue();
    let program = Program::create_and_build_from_source(context, source, "-cl-std=CL1.2")
        .unwrap_or_else(|log| panic!("PoCL did not build the source: {log}"));
    let kernel = Kernel::create(&program, &pass.kernel).expect("the manifest's kernel");

    let len = input.len();
    let buffer = |len: usize| {
        // SAFETY: a new buffer of `len` elements, no host pointer.
        unsafe {
            Buffer::<Complex<T>>::create(context, CL_MEM_READ_WRITE, len, ptr::null_mut())
                .expect("a device buffer")
        }
    };
    let mut device_input = buffer(len);
    let device_output = buffer(len);
    // SAFETY: blocking writes and reads of host slices of the buffers' lengths.
    unsafe {
        queue
            .enqueue_write_buffer(&mut device_input, CL_BLOCKING, 0, input, &[])
            .expect("the input written");
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
    let grid = pass.grid.grid(batch);
    let mut run = ExecuteKernel::new(&kernel);
    for arg in &pass.args {
        // SAFETY: the generated signatures take buffers and a uint, in the
        // manifest's order.
        unsafe {
            match arg {
                KernelArg::Input { .. } | KernelArg::InOut { .. } => run.set_arg(&device_input),
                KernelArg::Output { .. } => run.set_arg(&device_output),
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
    let mut output = vec![Complex::<T>::default(); len];
    // SAFETY: a blocking read into a slice of the buffer's length.
    unsafe {
        queue
            .enqueue_read_buffer(&device_output, CL_BLOCKING, 0, &mut output, &[])
            .expect("the output read");
    }
    output
}
