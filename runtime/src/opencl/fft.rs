//! Running generated kernels through OpenCL: [`OpenClFft`] builds a source
//! once, creates the kernels its manifest names, and runs a transform either
//! on the caller's device buffers on the caller's queue ([`OpenClFft::launch`],
//! asynchronous) or on host slices (upload, every pass in order, download).
//! Arguments are bound by role; everything that can be checked is checked
//! before data moves, and a host output is written only after the whole run
//! succeeded.

use super::device::OpenClDevice;
use super::program::build_options;
use crate::error::{Error, Result};
use crate::launch::{
    buffers_needed, check_call, check_compiled, check_host_call, check_manifest,
    device_buffer_words, grids_for, route, Buffers, CompiledKernel,
};
use crate::real::Real;
use crate::route::{DeviceRoute, Slot};
use fftgen_manifest::{
    Direction, KernelArg, Manifest, PassLaunch, Placement, Precision, Target, TransformLaunch,
};
use num_complex::Complex;
use opencl3::command_queue::{enqueue_copy_buffer, CommandQueue};
use opencl3::error_codes::ClError;
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{
    get_mem_object_info, Buffer, ClMem, CL_MEM_CONTEXT, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_ONLY,
    CL_MEM_READ_WRITE, CL_MEM_SIZE,
};
use opencl3::program::Program;
use opencl3::types::{cl_context, cl_mem, cl_uint, CL_BLOCKING};
use std::collections::HashMap;
use std::ptr;
use std::sync::{Arc, Mutex, PoisonError};

/// Kernels of one manifest, loaded on one OpenCL device.
pub struct OpenClFft {
    device: OpenClDevice,
    manifest: Manifest,
    // What the device allows, worked out once.
    target: Target,
    // Kernel arguments are per-kernel state that clSetKernelArg mutates and
    // OpenCL does not make thread-safe, so binding and enqueueing hold this lock.
    kernels: Mutex<HashMap<String, Kernel>>,
    // The manifest's twiddle tables, uploaded once.
    twiddles: Vec<Buffer<u8>>,
    _program: Arc<Program>,
}

impl std::fmt::Debug for OpenClFft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenClFft")
            .field("device", &self.device.info().name)
            .field("manifest", &self.manifest)
            .finish_non_exhaustive()
    }
}

impl OpenClFft {
    /// Builds `source` for `device` (or takes it from the device's cache) and
    /// creates every kernel `manifest` launches, after checking the manifest
    /// and every launch shape against the device's [`Target`] and
    /// [`Target::PORTABLE`].
    pub fn new(device: &OpenClDevice, source: &str, manifest: &Manifest) -> Result<Self> {
        let target = device.target();
        check_manifest(manifest, &target)?;
        if manifest.precision == Precision::F64 && !device.info().supports_f64 {
            return Err(Error::UnsupportedPrecision {
                device: device.info().name.clone(),
                precision: Precision::F64,
            });
        }
        let threads = manifest
            .transforms
            .iter()
            .flat_map(|t| &t.passes)
            .map(|p| p.block.iter().product::<u32>() as usize)
            .max()
            .unwrap_or(0);
        let program = device.build_program(
            source,
            &build_options(&device.info().platform_name, threads),
        )?;
        let mut kernels = HashMap::new();
        for pass in manifest.transforms.iter().flat_map(|t| &t.passes) {
            if !kernels.contains_key(&pass.kernel) {
                kernels.insert(pass.kernel.clone(), create_kernel(&program, &pass.kernel)?);
            }
            check_kernel(device, &target, &kernels[&pass.kernel], pass)?;
        }
        let twiddles = manifest
            .twiddle_bytes()
            .into_iter()
            .map(|mut bytes| {
                // SAFETY: COPY_HOST_PTR reads bytes.len() bytes from a live
                // slice during the call and keeps no pointer to it.
                unsafe {
                    Buffer::<u8>::create(
                        device.context(),
                        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                        bytes.len(),
                        bytes.as_mut_ptr().cast(),
                    )
                }
                .map_err(|e| Error::opencl("clCreateBuffer (twiddle table)", e))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(OpenClFft {
            device: device.clone(),
            manifest: manifest.clone(),
            target,
            kernels: Mutex::new(kernels),
            twiddles,
            _program: program,
        })
    }

    /// The manifest the kernels were loaded with.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The device the kernels run on.
    pub fn device(&self) -> &OpenClDevice {
        &self.device
    }

    /// Transforms `batch` signals of `n` points from `input` into `output`
    /// (out-of-place kernels). On error `output` is left as it was.
    pub fn run<T: Real>(
        &self,
        direction: Direction,
        input: &[Complex<T>],
        output: &mut [Complex<T>],
        batch: usize,
    ) -> Result<()> {
        let transform = check_host_call(&self.manifest, direction, input, Some(output), batch)?;
        let result = self.execute(&transform.passes, input, batch)?;
        output.copy_from_slice(&result);
        Ok(())
    }

    /// Transforms `batch` signals of `n` points in `data` in place (in-place
    /// kernels). On error `data` is left as it was.
    pub fn run_in_place<T: Real>(
        &self,
        direction: Direction,
        data: &mut [Complex<T>],
        batch: usize,
    ) -> Result<()> {
        let transform = check_host_call(&self.manifest, direction, data, None, batch)?;
        let result = self.execute(&transform.passes, data, batch)?;
        data.copy_from_slice(&result);
        Ok(())
    }

    /// Enqueues `batch` transforms of `n` points from `input` into `output`
    /// on `queue` (out-of-place kernels). Both buffers hold `n * batch`
    /// complex values and belong to the plan's context; `input` is never
    /// written. Returns once the work is enqueued, with the events of the
    /// commands enqueued, in order (clFFT's out-events): wait on the last
    /// (or the queue) before reading `output`, or read their profiling times
    /// on a queue made with profiling. On error nothing is enqueued, except
    /// when the driver fails part-way.
    pub fn launch<T: Real>(
        &self,
        queue: &CommandQueue,
        direction: Direction,
        input: &Buffer<Complex<T>>,
        output: &mut Buffer<Complex<T>>,
        batch: usize,
    ) -> Result<Vec<Event>> {
        let transform = self.check_launch::<T>(
            queue,
            direction,
            Placement::OutOfPlace,
            &[("input", input.get()), ("output", output.get())],
            batch,
        )?;
        self.enqueue::<T>(queue, transform, [input.get(), output.get()], batch)
    }

    /// Enqueues `batch` transforms of `n` points in `data` in place on
    /// `queue` (in-place kernels), like [`OpenClFft::launch`].
    pub fn launch_in_place<T: Real>(
        &self,
        queue: &CommandQueue,
        direction: Direction,
        data: &mut Buffer<Complex<T>>,
        batch: usize,
    ) -> Result<Vec<Event>> {
        let transform = self.check_launch::<T>(
            queue,
            direction,
            Placement::InPlace,
            &[("data", data.get())],
            batch,
        )?;
        self.enqueue::<T>(queue, transform, [data.get(), data.get()], batch)
    }

    /// Checks a device-buffer call: placement, precision, batch, each
    /// buffer's size, and that the queue and buffers share the plan's context.
    fn check_launch<T: Real>(
        &self,
        queue: &CommandQueue,
        direction: Direction,
        called: Placement,
        buffers: &[(&'static str, cl_mem)],
        batch: usize,
    ) -> Result<&TransformLaunch> {
        let mut lengths = Vec::with_capacity(buffers.len());
        for &(buffer, mem) in buffers {
            let bytes = get_mem_object_info(mem, CL_MEM_SIZE)
                .map_err(|e| Error::opencl("clGetMemObjectInfo(CL_MEM_SIZE)", ClError(e)))?
                .to_size();
            lengths.push((buffer, bytes / std::mem::size_of::<T>()));
        }
        let transform = check_call::<T>(
            &self.manifest,
            direction,
            called,
            [
                "launch(queue, direction, input, output, batch)",
                "launch_in_place(queue, direction, data, batch)",
            ],
            Buffers::Device(&lengths),
            batch,
        )?;
        let ours = self.device.context().get();
        let queue_context = queue
            .context()
            .map_err(|e| Error::opencl("clGetCommandQueueInfo(CL_QUEUE_CONTEXT)", e))?;
        if queue_context != ours {
            return Err(Error::ForeignOpenClContext { what: "queue" });
        }
        for &(buffer, mem) in buffers {
            let context = get_mem_object_info(mem, CL_MEM_CONTEXT)
                .map_err(|e| Error::opencl("clGetMemObjectInfo(CL_MEM_CONTEXT)", ClError(e)))?
                .to_ptr() as cl_context;
            if context != ours {
                return Err(Error::ForeignOpenClContext {
                    what: device_buffer_words(buffer),
                });
            }
        }
        Ok(transform)
    }

    /// Enqueues every pass of `transform` on `queue` between the caller's
    /// buffers (`[input, output]`; both the data buffer in place), with a
    /// scratch buffer for intermediate results where the route needs one.
    fn enqueue<T: Real>(
        &self,
        queue: &CommandQueue,
        transform: &TransformLaunch,
        caller: [cl_mem; 2],
        batch: usize,
    ) -> Result<Vec<Event>> {
        let grids = grids_for(&transform.passes, batch, &self.target)?;
        let route = DeviceRoute::new(&transform.passes, self.manifest.placement);
        let values = self.manifest.n * batch;
        let scratch = if route.needs_scratch() {
            // SAFETY: no host pointer is given, so OpenCL allocates the memory.
            let buffer = unsafe {
                Buffer::<Complex<T>>::create(
                    self.device.context(),
                    CL_MEM_READ_WRITE,
                    values,
                    ptr::null_mut(),
                )
            }
            .map_err(|e| Error::opencl("clCreateBuffer", e))?;
            Some(buffer)
        } else {
            None
        };
        let mut events = Vec::with_capacity(transform.passes.len() + 1);
        let memory = |slot: Slot| match slot {
            Slot::Input => caller[0],
            Slot::Output => caller[1],
            Slot::Scratch => scratch.as_ref().map_or(ptr::null_mut(), |b| b.get()),
        };
        if let Some((from, to)) = route.copy_first {
            let bytes = values * std::mem::size_of::<Complex<T>>();
            // SAFETY: both buffers hold `bytes` bytes (checked above, scratch
            // made with that size) and belong to the queue's context; the
            // returned event is owned (and released) by `Event`.
            let event = unsafe {
                enqueue_copy_buffer(
                    queue.get(),
                    memory(from),
                    memory(to),
                    0,
                    0,
                    bytes,
                    0,
                    ptr::null(),
                )
            }
            .map_err(|e| Error::opencl("clEnqueueCopyBuffer", ClError(e)))?;
            events.push(Event::new(event));
        }
        for ((pass, &(read, write)), grid) in transform.passes.iter().zip(&route.passes).zip(&grids)
        {
            events.push(self.launch_pass(
                queue,
                pass,
                memory(read),
                memory(write),
                *grid,
                batch,
            )?);
        }
        // The scratch buffer is released here; OpenCL keeps the memory until
        // the commands that use it have finished.
        Ok(events)
    }

    /// Uploads `input`, runs `passes` and returns the downloaded result.
    fn execute<T: Real>(
        &self,
        passes: &[PassLaunch],
        input: &[Complex<T>],
        batch: usize,
    ) -> Result<Vec<Complex<T>>> {
        let grids = grids_for(passes, batch, &self.target)?;
        let (routes, result_slot) = route(passes);
        let queue = self.device.queue();

        let mut buffers = (0..buffers_needed(&routes))
            .map(|_| {
                // SAFETY: no host pointer is given, so OpenCL allocates the memory.
                unsafe {
                    Buffer::<Complex<T>>::create(
                        self.device.context(),
                        CL_MEM_READ_WRITE,
                        input.len(),
                        ptr::null_mut(),
                    )
                }
                .map_err(|e| Error::opencl("clCreateBuffer", e))
            })
            .collect::<Result<Vec<_>>>()?;
        // SAFETY: the write is blocking, so `input` outlives it; the buffer holds input.len() values.
        unsafe { queue.enqueue_write_buffer(&mut buffers[0], CL_BLOCKING, 0, input, &[]) }
            .map_err(|e| Error::opencl("clEnqueueWriteBuffer", e))?;

        for ((pass, route), grid) in passes.iter().zip(&routes).zip(&grids) {
            let (read, write) = (buffers[route.read].get(), buffers[route.write].get());
            self.launch_pass(queue, pass, read, write, *grid, batch)?;
        }

        let mut result = vec![Complex::<T>::default(); input.len()];
        // SAFETY: the read is blocking and `result` has the buffer's length. The
        // queue is in order, so the read starts after the last pass finished.
        unsafe {
            queue.enqueue_read_buffer(&buffers[result_slot], CL_BLOCKING, 0, &mut result, &[])
        }
        .map_err(|e| Error::opencl("clEnqueueReadBuffer", e))?;
        Ok(result)
    }

    /// Binds the arguments of one pass by role and enqueues it on `queue`.
    fn launch_pass(
        &self,
        queue: &CommandQueue,
        pass: &PassLaunch,
        read: cl_mem,
        write: cl_mem,
        grid: [usize; 3],
        batch: usize,
    ) -> Result<Event> {
        let mut global = [0usize; 3];
        for d in 0..3 {
            let block = pass.block[d] as usize;
            global[d] = grid[d]
                .checked_mul(block)
                .ok_or_else(|| Error::LaunchLimit {
                    kernel: pass.kernel.clone(),
                    what: "global work size",
                    value: (grid[d] as u64).saturating_mul(block as u64),
                    max: usize::MAX as u64,
                    limits: "the host's address width".to_string(),
                })?;
        }
        let local = pass.block.map(|b| b as usize);
        // check_call bounded the batch by u32::MAX, so this does not truncate.
        let batch_arg = batch as cl_uint;

        let kernels = self.kernels.lock().unwrap_or_else(PoisonError::into_inner);
        let kernel = &kernels[&pass.kernel];
        for (index, arg) in pass.args.iter().enumerate() {
            let index = index as cl_uint;
            // SAFETY: check_kernel made sure the kernel takes exactly these
            // arguments; buffers are cl_mem handles and the batch a cl_uint,
            // the types the manifest contract gives the generated signatures.
            let set = unsafe {
                match arg {
                    KernelArg::Input { .. } | KernelArg::InOut { .. } => {
                        kernel.set_arg(index, &read)
                    }
                    KernelArg::Output { .. } => kernel.set_arg(index, &write),
                    KernelArg::BatchCount { .. } => kernel.set_arg(index, &batch_arg),
                    // check_manifest made sure the table exists.
                    KernelArg::Twiddles { table, .. } => {
                        kernel.set_arg(index, &self.twiddles[*table].get())
                    }
                }
            };
            set.map_err(|e| Error::opencl(format!("clSetKernelArg({}, {index})", pass.kernel), e))?;
        }
        // SAFETY: every argument is bound above; global and local hold 3 sizes each.
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
        .map_err(|e| Error::opencl(format!("clEnqueueNDRangeKernel({})", pass.kernel), e))
    }
}

fn create_kernel(program: &Program, name: &str) -> Result<Kernel> {
    Kernel::create(program, name).map_err(|e| {
        if e.0 == opencl3::error_codes::CL_INVALID_KERNEL_NAME {
            Error::MissingKernel {
                kernel: name.to_string(),
            }
        } else {
            Error::opencl(format!("clCreateKernel({name})"), e)
        }
    })
}

/// Checks what the compiled kernel reports against the manifest and the
/// device's `target`: its argument count, the local memory it really uses,
/// and the largest work-group it can run with (which registers can lower
/// below the device's).
fn check_kernel(
    device: &OpenClDevice,
    target: &Target,
    kernel: &Kernel,
    pass: &PassLaunch,
) -> Result<()> {
    let id = device.device().id();
    let args = kernel
        .num_args()
        .map_err(|e| Error::opencl("clGetKernelInfo(CL_KERNEL_NUM_ARGS)", e))?;
    if args as usize != pass.args.len() {
        return Err(Error::InvalidManifest(format!(
            "kernel `{}` takes {args} arguments but the manifest lists {}",
            pass.kernel,
            pass.args.len()
        )));
    }
    let compiled = CompiledKernel {
        shared_words: "local memory of the compiled kernel (bytes)",
        shared_bytes: kernel
            .get_local_mem_size(id)
            .map_err(|e| Error::opencl("clGetKernelWorkGroupInfo(CL_KERNEL_LOCAL_MEM_SIZE)", e))?,
        max_threads_per_block: kernel
            .get_work_group_size(id)
            .map_err(|e| Error::opencl("clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)", e))?
            as u64,
    };
    check_compiled(pass, target, &compiled)
}
