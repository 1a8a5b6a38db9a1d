//! Our OpenCL kernels timed on the GPU through NVIDIA's OpenCL platform, the
//! same way as the CUDA contenders: two 1 GiB device buffers made once and
//! filled once with the same random input, warm-up launches, then groups of
//! R launches whose time is read from OpenCL profiling events (start of the
//! first kernel to end of the last), median per launch. It needs a queue with
//! profiling enabled in a context of its own, so it builds the program itself
//! with opencl3 and binds the manifest's arguments by role (single-pass,
//! out-of-place transforms: every size generated today).

use super::timing::{Schedule, Timing};
use super::Sample;
use crate::Generated;
use fftgen_runtime::opencl::build_options;
use fftgen_runtime::{Direction, GridRule, KernelArg, Precision};
use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_GPU};
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE};
use opencl3::platform::get_platforms;
use opencl3::program::Program;
use opencl3::types::{cl_mem, cl_uint, CL_BLOCKING};
use std::ptr;

/// The substring of the platform name this looks for.
pub const PLATFORM: &str = "NVIDIA";

/// A failed OpenCL call, in words.
fn cl(call: &str) -> impl Fn(opencl3::error_codes::ClError) -> String + '_ {
    move |e| format!("{call} failed with {} ({})", e.0, e)
}

/// An NVIDIA OpenCL GPU with two device buffers holding the benchmark input.
pub struct OpenClBench<T> {
    name: String,
    // Field order is drop order: buffers and queue go before the context.
    input: Buffer<T>,
    output: Buffer<T>,
    queue: CommandQueue,
    context: Context,
}

impl<T: Sample> OpenClBench<T> {
    /// The first GPU of the first platform whose name contains "NVIDIA",
    /// with a profiling queue and two buffers of `input.len()` reals, the
    /// first filled with `input`. Errors say why the column stays empty.
    pub fn new(input: &[T]) -> Result<Self, String> {
        let platforms = get_platforms().map_err(|e| format!("no OpenCL platform ({e})"))?;
        let platform = platforms
            .into_iter()
            .find(|p| {
                p.name()
                    .unwrap_or_default()
                    .to_lowercase()
                    .contains(&PLATFORM.to_lowercase())
            })
            .ok_or_else(|| format!("no OpenCL platform whose name contains `{PLATFORM}`"))?;
        let id = *platform
            .get_devices(CL_DEVICE_TYPE_GPU)
            .map_err(cl("clGetDeviceIDs"))?
            .first()
            .ok_or("the NVIDIA OpenCL platform has no GPU")?;
        let device = Device::new(id);
        let name = device
            .name()
            .map_err(cl("clGetDeviceInfo(CL_DEVICE_NAME)"))?;
        if T::PRECISION == Precision::F64 && device.double_fp_config().map_or(true, |c| c == 0) {
            return Err(format!("`{name}` has no double precision in OpenCL"));
        }
        let bytes = std::mem::size_of_val(input) as u64;
        let max_alloc = device
            .max_mem_alloc_size()
            .map_err(cl("clGetDeviceInfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE)"))?;
        if bytes > max_alloc {
            return Err(format!(
                "`{name}` allocates at most {max_alloc} bytes at once, less than {bytes}"
            ));
        }
        let context = Context::from_device(&device).map_err(cl("clCreateContext"))?;
        // SAFETY: the device belongs to the context just made from it.
        #[allow(deprecated)]
        let queue = unsafe { CommandQueue::create(&context, id, CL_QUEUE_PROFILING_ENABLE) }
            .map_err(cl("clCreateCommandQueue"))?;
        let buffer = || {
            // SAFETY: no host pointer is given, so OpenCL allocates the memory.
            unsafe {
                Buffer::<T>::create(&context, CL_MEM_READ_WRITE, input.len(), ptr::null_mut())
            }
            .map_err(cl("clCreateBuffer"))
        };
        let (mut input_buffer, output) = (buffer()?, buffer()?);
        // SAFETY: the write is blocking, so `input` outlives it; the buffer holds input.len() values.
        unsafe { queue.enqueue_write_buffer(&mut input_buffer, CL_BLOCKING, 0, input, &[]) }
            .map_err(cl("clEnqueueWriteBuffer"))?;
        Ok(OpenClBench {
            name,
            input: input_buffer,
            output,
            queue,
            context,
        })
    }

    /// The OpenCL device name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Times the forward transform of `generated` for `batch` transforms
    /// following `schedule`, after one checked run whose first `checked`
    /// transforms are returned (the output was poisoned with NaN before it).
    pub fn bench(
        &mut self,
        generated: &Generated,
        batch: usize,
        schedule: Schedule,
        checked: usize,
    ) -> Result<(Timing, Vec<T>), String> {
        let manifest = &generated.manifest;
        if manifest.precision != T::PRECISION {
            return Err(format!(
                "the kernels are {} but the buffers hold {}",
                manifest.precision,
                T::PRECISION
            ));
        }
        let n = manifest.n;
        let reals = 2 * n * batch;
        if reals > self.input.size().map_err(cl("clGetMemObjectInfo"))? / std::mem::size_of::<T>() {
            return Err(format!(
                "{batch} transforms of {n} points do not fit the buffers"
            ));
        }
        let batch_arg =
            cl_uint::try_from(batch).map_err(|_| format!("batch {batch} does not fit a uint"))?;
        let transform = manifest
            .transform(Direction::Forward)
            .ok_or("the manifest has no forward transform")?;
        let program = Program::create_and_build_from_source(
            &self.context,
            &generated.opencl_source,
            &build_options(
                "NVIDIA",
                transform
                    .passes
                    .iter()
                    .map(|p| p.block[0] as usize)
                    .max()
                    .unwrap_or(0),
            ),
        )
        .map_err(|log| format!("building the program failed: {log}"))?;
        // A second pass would need a scratch buffer so that the input
        // survives for the next size; every generated size is one pass today.
        let [pass] = transform.passes.as_slice() else {
            return Err(format!(
                "{} passes; only single-pass transforms are timed through OpenCL",
                transform.passes.len()
            ));
        };
        let (input, output): (cl_mem, cl_mem) = (self.input.get(), self.output.get());
        let twiddles = manifest
            .twiddle_bytes()
            .into_iter()
            .map(|mut bytes| {
                // SAFETY: COPY_HOST_PTR reads bytes.len() bytes from a live
                // slice during the call and keeps no pointer to it.
                unsafe {
                    Buffer::<u8>::create(
                        &self.context,
                        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                        bytes.len(),
                        bytes.as_mut_ptr().cast(),
                    )
                }
                .map_err(cl("clCreateBuffer"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let kernel = Kernel::create(&program, &pass.kernel).map_err(cl("clCreateKernel"))?;
        for (index, arg) in pass.args.iter().enumerate() {
            let index = index as cl_uint;
            // SAFETY: the generated signatures take cl_mem buffers and a
            // uint batch in the manifest's order.
            let set = unsafe {
                match arg {
                    KernelArg::Input { .. } => kernel.set_arg(index, &input),
                    KernelArg::Output { .. } => kernel.set_arg(index, &output),
                    KernelArg::BatchCount { .. } => kernel.set_arg(index, &batch_arg),
                    KernelArg::Twiddles { table, .. } => {
                        let table = twiddles
                            .get(*table)
                            .ok_or("the manifest names a twiddle table it lacks")?;
                        kernel.set_arg(index, &table.get())
                    }
                    KernelArg::InOut { .. } => {
                        return Err("in-place kernels are not benchmarked".to_string())
                    }
                }
            };
            set.map_err(cl("clSetKernelArg"))?;
        }
        let GridRule::FftsPerBlock { .. } = pass.grid;
        let grid = pass.grid.grid(batch);
        let local = pass.block.map(|b| b as usize);
        let global = [grid[0] * local[0], grid[1] * local[1], grid[2] * local[2]];

        // One launch of the kernel; its event carries the profiling times.
        let launch = |queue: &CommandQueue| -> Result<Event, String> {
            // SAFETY: every argument is bound; global and local hold 3 sizes each.
            unsafe {
                queue.enqueue_nd_range_kernel(
                    kernel.get(),
                    3,
                    ptr::null(),
                    global.as_ptr(),
                    local.as_ptr(),
                    &[],
                )
            }
            .map_err(cl("clEnqueueNDRangeKernel"))
        };

        // The checked run, on a poisoned output.
        let nan = [T::from_f64(f64::NAN)];
        let bytes = self.output.size().map_err(cl("clGetMemObjectInfo"))?;
        // SAFETY: the pattern is one value of the buffer's type; the size is a multiple of it.
        unsafe {
            self.queue
                .enqueue_fill_buffer(&mut self.output, &nan, 0, bytes, &[])
        }
        .map_err(cl("clEnqueueFillBuffer"))?;
        launch(&self.queue)?;
        self.queue.finish().map_err(cl("clFinish"))?;
        let mut prefix = vec![T::default(); 2 * n * checked.min(batch)];
        // SAFETY: blocking read of prefix.len() values, within the buffer.
        unsafe {
            self.queue
                .enqueue_read_buffer(&self.output, CL_BLOCKING, 0, &mut prefix, &[])
        }
        .map_err(cl("clEnqueueReadBuffer"))?;

        for _ in 0..schedule.warmup {
            launch(&self.queue)?;
        }
        self.queue.finish().map_err(cl("clFinish"))?;
        let repeats = schedule.repeats.max(1);
        let mut per_launch = Vec::with_capacity(schedule.groups);
        for _ in 0..schedule.groups.max(1) {
            let first = launch(&self.queue)?;
            let mut last = None;
            for _ in 1..repeats {
                last = Some(launch(&self.queue)?);
            }
            self.queue.finish().map_err(cl("clFinish"))?;
            let profile = cl("clGetEventProfilingInfo");
            let start = first.profiling_command_start().map_err(&profile)?;
            let end = last
                .as_ref()
                .unwrap_or(&first)
                .profiling_command_end()
                .map_err(&profile)?;
            per_launch.push(end.saturating_sub(start) as f64 / 1e6 / repeats as f64);
        }
        let timing =
            Timing::from_per_launch(&per_launch, repeats).expect("at least one group was timed");
        Ok((timing, prefix))
    }
}
