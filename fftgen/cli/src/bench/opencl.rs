//! Our OpenCL kernels timed on the GPU through NVIDIA's OpenCL platform, the
//! same way as the CUDA contenders: two 1 GiB device buffers made once and
//! filled once with the same random input, warm-up launches, then groups of
//! R launches through [`OpenClFft::launch`] whose time is read from the
//! OpenCL profiling events it returns (start of the first command to end of
//! the last), median per launch. The queue is the bench's own, made with
//! profiling in the device's context; plans come from the runtime, as a user
//! would make them.

use super::timing::{Schedule, Timing};
use super::Sample;
use fftgen::Generated;
use fftgen_runtime::opencl::OpenClDevice;
use fftgen_runtime::{Complex, Direction, OpenClFft, Precision};
use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::event::Event;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;
use std::ptr;

/// The substring of the platform name this looks for.
pub const PLATFORM: &str = "NVIDIA";

/// A failed OpenCL call, in words.
fn cl(call: &str) -> impl Fn(opencl3::error_codes::ClError) -> String + '_ {
    move |e| format!("{call} failed with {} ({})", e.0, e)
}

/// An NVIDIA OpenCL GPU with two device buffers holding the benchmark input.
pub struct OpenClBench<T> {
    // Field order is drop order: buffers and queue go before the device.
    input: Buffer<Complex<T>>,
    output: Buffer<Complex<T>>,
    queue: CommandQueue,
    device: OpenClDevice,
}

impl<T: Sample> OpenClBench<T> {
    /// The first GPU of the first platform whose name contains "NVIDIA",
    /// with a profiling queue and two buffers of `input.len() / 2` complex
    /// values, the first filled with `input` (interleaved reals). Errors say
    /// why the column stays empty.
    pub fn new(input: &[T]) -> Result<Self, String> {
        let device = OpenClDevice::find(Some(PLATFORM)).map_err(|e| e.to_string())?;
        let info = device.info();
        if !info
            .platform_name
            .to_lowercase()
            .contains(&PLATFORM.to_lowercase())
        {
            return Err(format!(
                "no OpenCL platform whose name contains `{PLATFORM}`"
            ));
        }
        if T::PRECISION == Precision::F64 && !info.supports_f64 {
            return Err(format!("`{}` has no double precision in OpenCL", info.name));
        }
        let bytes = std::mem::size_of_val(input) as u64;
        let max_alloc = device
            .device()
            .max_mem_alloc_size()
            .map_err(cl("clGetDeviceInfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE)"))?;
        if bytes > max_alloc {
            return Err(format!(
                "`{}` allocates at most {max_alloc} bytes at once, less than {bytes}",
                info.name
            ));
        }
        // SAFETY: the device belongs to the context it was found with.
        #[allow(deprecated)]
        let queue = unsafe {
            CommandQueue::create(
                device.context(),
                device.device().id(),
                CL_QUEUE_PROFILING_ENABLE,
            )
        }
        .map_err(cl("clCreateCommandQueue"))?;
        let values = input.len() / 2;
        let buffer = || {
            // SAFETY: no host pointer is given, so OpenCL allocates the memory.
            unsafe {
                Buffer::<Complex<T>>::create(
                    device.context(),
                    CL_MEM_READ_WRITE,
                    values,
                    ptr::null_mut(),
                )
            }
            .map_err(cl("clCreateBuffer"))
        };
        let (mut input_buffer, output) = (buffer()?, buffer()?);
        // SAFETY: Complex<T> is repr(C) { re, im }, so 2 * values interleaved
        // reals are `values` complex values; the write is blocking, so `input`
        // outlives it.
        unsafe {
            let complex = std::slice::from_raw_parts(input.as_ptr().cast::<Complex<T>>(), values);
            queue.enqueue_write_buffer(&mut input_buffer, CL_BLOCKING, 0, complex, &[])
        }
        .map_err(cl("clEnqueueWriteBuffer"))?;
        Ok(OpenClBench {
            input: input_buffer,
            output,
            queue,
            device,
        })
    }

    /// The OpenCL device name.
    pub fn name(&self) -> &str {
        &self.device.info().name
    }

    /// Times the forward transform of `generated` for `batch` transforms
    /// following `schedule`, after one checked run whose first `checked`
    /// transforms are returned as interleaved reals (the output was
    /// poisoned with NaN before it).
    pub fn bench(
        &mut self,
        generated: &Generated,
        batch: usize,
        schedule: Schedule,
        checked: usize,
    ) -> Result<(Timing, Vec<T>), String> {
        let fft = OpenClFft::new(&self.device, &generated.opencl_source, &generated.manifest)
            .map_err(|e| e.to_string())?;
        let n = generated.manifest.n;
        // The plan takes buffers of exactly n * batch values: views of the
        // first n * batch values of the 1 GiB buffers.
        let view = |buffer: &Buffer<Complex<T>>| {
            // SAFETY: the region starts at 0 and lies within the buffer
            // (checked by OpenCL, which fails the call otherwise).
            unsafe { buffer.create_sub_buffer(CL_MEM_READ_WRITE, 0, n * batch) }
                .map_err(cl("clCreateSubBuffer"))
        };
        let (input, mut output) = (view(&self.input)?, view(&self.output)?);
        let queue = &self.queue;
        let mut launch = || -> Result<Vec<Event>, String> {
            fft.launch::<T>(queue, Direction::Forward, &input, &mut output, batch)
                .map_err(|e| e.to_string())
        };

        // The checked run, on a poisoned output.
        let nan = T::from_f64(f64::NAN);
        let bytes = self.output.size().map_err(cl("clGetMemObjectInfo"))?;
        // SAFETY: the pattern is one value of the buffer's type; the size is a multiple of it.
        unsafe {
            self.queue.enqueue_fill_buffer(
                &mut self.output,
                &[Complex::new(nan, nan)],
                0,
                bytes,
                &[],
            )
        }
        .map_err(cl("clEnqueueFillBuffer"))?;
        launch()?;
        self.queue.finish().map_err(cl("clFinish"))?;
        let mut prefix = vec![Complex::<T>::default(); n * checked.min(batch)];
        // SAFETY: blocking read of prefix.len() values, within the buffer.
        unsafe {
            self.queue
                .enqueue_read_buffer(&self.output, CL_BLOCKING, 0, &mut prefix, &[])
        }
        .map_err(cl("clEnqueueReadBuffer"))?;
        let prefix = prefix.iter().flat_map(|c| [c.re, c.im]).collect();

        for _ in 0..schedule.warmup {
            launch()?;
        }
        self.queue.finish().map_err(cl("clFinish"))?;
        let repeats = schedule.repeats.max(1);
        let mut per_launch = Vec::with_capacity(schedule.groups);
        for _ in 0..schedule.groups.max(1) {
            let first = launch()?;
            let mut last = None;
            for _ in 1..repeats {
                last = Some(launch()?);
            }
            self.queue.finish().map_err(cl("clFinish"))?;
            let profile = cl("clGetEventProfilingInfo");
            let start = first
                .first()
                .ok_or("a launch enqueued nothing")?
                .profiling_command_start()
                .map_err(&profile)?;
            let end = last
                .as_ref()
                .unwrap_or(&first)
                .last()
                .ok_or("a launch enqueued nothing")?
                .profiling_command_end()
                .map_err(&profile)?;
            per_launch.push(end.saturating_sub(start) as f64 / 1e6 / repeats as f64);
        }
        let timing =
            Timing::from_per_launch(&per_launch, repeats).expect("at least one group was timed");
        Ok((timing, prefix))
    }
}
