//! Running generated kernels through OpenCL: [`OpenClFft`] builds a source
//! once, creates the kernels its manifest names, and runs a transform either
//! on the caller's device buffers on the caller's queue ([`OpenClFft::launch`],
//! asynchronous; with the caller's workspace or one the plan allocates) or on
//! host slices (upload, every pass in order, download). Buffers hold their
//! side's values (reals on the real side of `r2c`, complex values
//! elsewhere: [`Value`]).
//!
//! Transforms run through the executor both backends share
//! (`crate::executor`: the checks, every pass in order, its buffers as the
//! manifest routes them, the host calls' sizing). This file holds what is
//! OpenCL's own: queues and contexts asked of the driver, kernel arguments
//! set under a lock, events, a workspace allocated per launch, and blocking
//! copies. Everything that can be checked is checked before data moves (the
//! device's memory before anything is allocated), and a host output is
//! written only after the whole run succeeded.

use super::device::OpenClDevice;
use super::program::build_options;
use crate::call::{device_buffer_words, Given};
use crate::error::{Error, Result};
use crate::executor::{self, Backend, HostOutput};
use crate::launch::{check_compiled, check_manifest, CompiledKernel};
use crate::memory::{check_fits, workspace_bytes, DeviceMemory};
use crate::real::Real;
use crate::value::Value;
use fftgen_manifest::{Direction, KernelArg, Manifest, PassLaunch, Precision, Target};
use opencl3::command_queue::CommandQueue;
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
        refuse_dynamic_shared(manifest)?;
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

    /// Bytes of workspace (scratch memory) a batch of `batch` transforms
    /// needs: 0 when no pass uses one. Pass a buffer of at least this many
    /// bytes to [`OpenClFft::launch_with_workspace`], or let the plan
    /// allocate one per launch.
    pub fn workspace_bytes(&self, batch: usize) -> Result<usize> {
        workspace_bytes(&self.manifest, batch)
    }

    /// Transforms `batch` signals from `input` into `output` (out-of-place
    /// kernels). Each slice holds the values of its side of `direction`
    /// (complex values; for an `r2c` plan, the reals of the forward's input
    /// and the inverse's output), as many as its layout spans (`n * batch`
    /// when dense); elements of `output` outside its layout keep their
    /// values. On error `output` is left as it was.
    pub fn run<T: Real>(
        &self,
        direction: Direction,
        input: &[impl Value<Real = T>],
        output: &mut [impl Value<Real = T>],
        batch: usize,
    ) -> Result<()> {
        executor::run(self, direction, input, output, batch)
    }

    /// Transforms `batch` signals in `data` in place (in-place kernels).
    /// `data` holds the larger of the two sides in bytes, given as values of
    /// either side's type (for `r2c`, reals or complex values: `2 * (n / 2 +
    /// 1) * batch` reals or `(n / 2 + 1) * batch` complex values when dense);
    /// its length in those values is the larger side's bytes rounded up to
    /// whole values. On error `data` is left as it was.
    pub fn run_in_place<T: Real>(
        &self,
        direction: Direction,
        data: &mut [impl Value<Real = T>],
        batch: usize,
    ) -> Result<()> {
        executor::run_in_place(self, direction, data, batch)
    }

    /// Enqueues `batch` transforms from `input` into `output` on `queue`
    /// (out-of-place kernels). Each buffer holds its side's bytes for the
    /// batch (its layout's elements of the side's type: `8 * n * batch`
    /// bytes for dense f32 complex values), whatever type it is given as,
    /// and belongs to the plan's context; `input` is never written. A plan
    /// whose passes need a workspace allocates one for this launch (see
    /// [`OpenClFft::launch_with_workspace`]). Returns once the work is
    /// enqueued, with the events of the commands enqueued, in order (clFFT's
    /// out-events): wait on the last (or the queue) before reading `output`,
    /// or read their profiling times on a queue made with profiling. On
    /// error nothing is enqueued, except when the driver fails part-way.
    pub fn launch<T: Real>(
        &self,
        queue: &CommandQueue,
        direction: Direction,
        input: &Buffer<impl Value<Real = T>>,
        output: &mut Buffer<impl Value<Real = T>>,
        batch: usize,
    ) -> Result<Vec<Event>> {
        let buffers = [given("input", input)?, given("output", output)?];
        let caller = [input.get(), output.get()];
        self.launch_on(queue, direction, &buffers, caller, None, batch)
    }

    /// Enqueues `batch` transforms in `data` in place on `queue` (in-place
    /// kernels), like [`OpenClFft::launch`]; `data` holds the larger of the
    /// two sides' bytes, rounded up to whole values of its type.
    pub fn launch_in_place<T: Real>(
        &self,
        queue: &CommandQueue,
        direction: Direction,
        data: &mut Buffer<impl Value<Real = T>>,
        batch: usize,
    ) -> Result<Vec<Event>> {
        let buffers = [given("data", data)?];
        let caller = [data.get(), data.get()];
        self.launch_on(queue, direction, &buffers, caller, None, batch)
    }

    /// [`OpenClFft::launch`] with the caller's `workspace` (cufftSetWorkArea's
    /// counterpart) instead of one the plan allocates: at least
    /// [`OpenClFft::workspace_bytes`] bytes, in the plan's context. Its
    /// contents need no initialising and are undefined afterwards; the
    /// commands enqueued use it until they finish.
    pub fn launch_with_workspace<T: Real>(
        &self,
        queue: &CommandQueue,
        direction: Direction,
        input: &Buffer<impl Value<Real = T>>,
        output: &mut Buffer<impl Value<Real = T>>,
        workspace: &mut Buffer<u8>,
        batch: usize,
    ) -> Result<Vec<Event>> {
        let buffers = [given("input", input)?, given("output", output)?];
        let caller = [input.get(), output.get()];
        let workspace = Some(workspace.get());
        self.launch_on(queue, direction, &buffers, caller, workspace, batch)
    }

    /// [`OpenClFft::launch_in_place`] with the caller's `workspace`, like
    /// [`OpenClFft::launch_with_workspace`].
    pub fn launch_in_place_with_workspace<T: Real>(
        &self,
        queue: &CommandQueue,
        direction: Direction,
        data: &mut Buffer<impl Value<Real = T>>,
        workspace: &mut Buffer<u8>,
        batch: usize,
    ) -> Result<Vec<Event>> {
        let buffers = [given("data", data)?];
        let caller = [data.get(), data.get()];
        let workspace = Some(workspace.get());
        self.launch_on(queue, direction, &buffers, caller, workspace, batch)
    }

    /// The launches' one path: `buffers` are input and output, or the data
    /// alone in place, as the executor's checks take them; `caller` their
    /// handles, the data twice in place.
    fn launch_on(
        &self,
        queue: &CommandQueue,
        direction: Direction,
        buffers: &[(Given, cl_mem)],
        caller: [cl_mem; 2],
        workspace: Option<cl_mem>,
        batch: usize,
    ) -> Result<Vec<Event>> {
        let caller_workspace = match workspace {
            Some(workspace) => Some((workspace, mem_size(workspace)?)),
            None => None,
        };
        let checked =
            executor::check_launch(self, queue, direction, buffers, caller_workspace, batch)?;
        executor::enqueue(self, queue, checked, caller, workspace, batch)
    }
}

/// What OpenCL does its own way: command queues and buffers whose context is
/// asked of the driver, kernel arguments set under a lock, a workspace
/// allocated per launch (OpenCL keeps it until the commands that use it
/// finish), events, and blocking copies on the device's queue.
impl Backend for OpenClFft {
    type Queue = CommandQueue;
    type Ptr = cl_mem;
    type Handle<'a> = cl_mem;
    /// The global work size.
    type Grid = [usize; 3];
    type Launched = Event;

    const LAUNCH_METHODS: [&'static str; 2] = [
        "launch(queue, direction, input, output, batch)",
        "launch_in_place(queue, direction, data, batch)",
    ];

    fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    fn target(&self) -> &Target {
        &self.target
    }

    /// What the device's memory holds, as OpenCL reports it (in all, not free).
    fn memory(&self) -> Result<DeviceMemory> {
        Ok(DeviceMemory {
            available: self.device.info().global_mem_bytes,
            source: "the device's CL_DEVICE_GLOBAL_MEM_SIZE",
            max_buffer: Some(self.device.info().max_mem_alloc_bytes),
        })
    }

    fn check_context(
        &self,
        queue: &CommandQueue,
        buffers: &[(&'static str, cl_mem)],
    ) -> Result<()> {
        let ours = self.device.context().get();
        let queue_context = queue
            .context()
            .map_err(|e| Error::opencl("clGetCommandQueueInfo(CL_QUEUE_CONTEXT)", e))?;
        if queue_context != ours {
            return Err(Error::ForeignOpenClContext { what: "queue" });
        }
        for &(role, mem) in buffers {
            let context = get_mem_object_info(mem, CL_MEM_CONTEXT)
                .map_err(|e| Error::opencl("clGetMemObjectInfo(CL_MEM_CONTEXT)", ClError(e)))?
                .to_ptr() as cl_context;
            if context != ours {
                return Err(Error::ForeignOpenClContext {
                    what: device_buffer_words(role),
                });
            }
        }
        Ok(())
    }

    /// The global work size: `grid` work-groups of the pass's block.
    fn grid(&self, pass: &PassLaunch, grid: [usize; 3]) -> Result<[usize; 3]> {
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
        Ok(global)
    }

    /// Allocates a workspace of `bytes` for this launch alone; it is
    /// released when the passes are enqueued, and OpenCL keeps the memory
    /// until the commands that use it have finished.
    fn with_own_workspace<R>(
        &self,
        _queue: &CommandQueue,
        bytes: Option<usize>,
        passes: impl FnOnce(cl_mem) -> Result<R>,
    ) -> Result<R> {
        let own = match bytes {
            Some(bytes) => {
                check_fits(self.memory()?, &[("workspace", bytes)])?;
                Some(create_buffer::<u8>(&self.device, bytes)?)
            }
            None => None,
        };
        passes(own.as_ref().map_or(ptr::null_mut(), |b| b.get()))
    }

    fn launch_pass(
        &self,
        queue: &CommandQueue,
        pass: &PassLaunch,
        read: cl_mem,
        write: cl_mem,
        global: &[usize; 3],
        batch: usize,
    ) -> Result<Event> {
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

    /// Blocking copies on the device's queue, which is in order: the read
    /// starts after the passes.
    fn round_trip<R: Real>(
        &self,
        input: &[R],
        output: HostOutput<'_, R>,
        enqueue: impl FnOnce(&CommandQueue, [cl_mem; 2]) -> Result<()>,
    ) -> Result<Vec<R>> {
        let queue = self.device.queue();
        let device_input = upload(&self.device, input)?;
        let (device_output, len) = match output {
            HostOutput::Filled(values) => (Some(upload(&self.device, values)?), values.len()),
            HostOutput::Unset(len) => (Some(create_buffer::<R>(&self.device, len)?), len),
            HostOutput::InPlace => (None, input.len()),
        };
        let result_buffer = device_output.as_ref().unwrap_or(&device_input);
        enqueue(queue, [device_input.get(), result_buffer.get()])?;
        let mut result = vec![R::default(); len];
        read(queue, result_buffer, &mut result)?;
        Ok(result)
    }
}

/// OpenCL has no dynamic local memory at launch for these kernels: a pass
/// planned with CUDA's opt-in shared memory is refused before anything builds.
fn refuse_dynamic_shared(manifest: &Manifest) -> Result<()> {
    let pass = manifest
        .transforms
        .iter()
        .flat_map(|t| &t.passes)
        .find(|p| p.dynamic_shared_bytes > 0);
    match pass {
        Some(pass) => Err(Error::InvalidManifest(format!(
            "kernel `{}` launches with {} bytes of dynamic shared memory: it was planned for a \
             CUDA target's opt-in shared memory; plan for this device's target (its OpenCL \
             target, e.g. `--target opencl-nvidia` or `pocl`)",
            pass.kernel, pass.dynamic_shared_bytes
        ))),
        None => Ok(()),
    }
}

/// The size of a buffer, bytes.
fn mem_size(mem: cl_mem) -> Result<usize> {
    Ok(get_mem_object_info(mem, CL_MEM_SIZE)
        .map_err(|e| Error::opencl("clGetMemObjectInfo(CL_MEM_SIZE)", ClError(e)))?
        .to_size())
}

/// An uninitialised device buffer of `len` elements.
fn create_buffer<T>(device: &OpenClDevice, len: usize) -> Result<Buffer<T>> {
    // SAFETY: no host pointer is given, so OpenCL allocates the memory.
    unsafe { Buffer::<T>::create(device.context(), CL_MEM_READ_WRITE, len, ptr::null_mut()) }
        .map_err(|e| Error::opencl("clCreateBuffer", e))
}

/// A device buffer given as values of `V`, for the checks of a launch.
fn given<V: Value>(role: &'static str, buffer: &Buffer<V>) -> Result<(Given, cl_mem)> {
    let mem = buffer.get();
    Ok((Given::bytes_of::<V>(role, mem_size(mem)?), mem))
}

/// Reads the start of `buffer` into `values`, waiting until it is done. The
/// queue is in order, so the read starts after the commands before it.
fn read<T>(queue: &CommandQueue, buffer: &Buffer<T>, values: &mut [T]) -> Result<()> {
    // SAFETY: the read is blocking and the buffer holds at least
    // values.len() elements (made with that length).
    unsafe { queue.enqueue_read_buffer(buffer, CL_BLOCKING, 0, values, &[]) }
        .map_err(|e| Error::opencl("clEnqueueReadBuffer", e))?;
    Ok(())
}

/// A device buffer holding `values`, written on the device's queue before
/// this returns.
fn upload<T>(device: &OpenClDevice, values: &[T]) -> Result<Buffer<T>> {
    let queue = device.queue();
    let mut buffer = create_buffer::<T>(device, values.len())?;
    // SAFETY: the write is blocking, so `values` outlives it; the buffer
    // holds values.len() elements.
    unsafe { queue.enqueue_write_buffer(&mut buffer, CL_BLOCKING, 0, values, &[]) }
        .map_err(|e| Error::opencl("clEnqueueWriteBuffer", e))?;
    Ok(buffer)
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
