//! Running generated kernels through the CUDA driver: [`CudaFft`] compiles a
//! source once per architecture (through the [`CubinCache`]), loads the CUBIN
//! as a module, looks up every kernel its manifest names and checks what the
//! compiled kernels report (parameters, shared memory, the largest block
//! their registers allow) against the manifest. Kernels planned with dynamic
//! shared memory get their opt-in limit raised at load.
//!
//! Transforms run through the executor both backends share
//! (`crate::executor`: the checks, every pass in order, its buffers as the
//! manifest routes them, the host calls' sizing). This file holds what is
//! CUDA's own: streams and contexts, device pointers held in cudarc's
//! stream order while the passes are enqueued, `cuLaunchKernel`, and a
//! scratch buffer the plan allocates on the first launch that needs one and
//! grows (multi-pass plans without the caller's workspace). The device's
//! free memory is checked before anything is allocated.
//!
//! Device buffers hold their side's bytes (reals on the real side of `r2c`,
//! interleaved complex values elsewhere: `2 * n * batch` reals when dense),
//! whatever type they are given as; the host conveniences
//! `run` and `run_in_place` upload, launch on the device's default stream,
//! synchronise and download, writing the caller's buffer only after
//! everything succeeded.

use super::cache::{CacheOrigin, CachedCubin, CubinCache};
use super::device::CudaDevice;
use crate::call::{device_buffer_words, Given};
use crate::error::{driver_status, Error, Result};
use crate::executor::{self, Backend, Checked, HostOutput};
use crate::launch::{check_compiled, check_manifest, CompiledKernel};
use crate::memory::{check_fits, workspace_bytes, DeviceMemory};
use crate::real::Real;
use crate::value::Value;
use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUfunction_attribute, CUresult};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DevicePtrMut,
    LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;
use fftgen_manifest::{Direction, KernelArg, Manifest, PassLaunch, StaticKernels, Target};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// What the driver reports about one compiled kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CudaKernelInfo {
    /// The entry point.
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Statically declared shared memory, bytes.
    pub static_shared_bytes: u32,
    /// Local memory per thread, bytes (register spills and stack; 0 is best).
    pub local_bytes_per_thread: u32,
    /// The largest block the kernel can be launched with (its launch bounds
    /// and register use lower it below the device's limit).
    pub max_threads_per_block: u32,
}

/// Kernels of one manifest, loaded into one CUDA context: what every plan
/// of the same spec on that context shares ([`super::PlanCache`]).
pub(crate) struct LoadedKernels {
    manifest: Manifest,
    functions: HashMap<String, CudaFunction>,
    kernels: Vec<CudaKernelInfo>,
    // What the device allows, read once from the driver.
    target: Target,
    cubin: CachedCubin,
    // The manifest's twiddle tables, uploaded once.
    twiddles: Vec<CudaSlice<u8>>,
    _module: Arc<CudaModule>,
}

/// Kernels of one manifest, loaded into one CUDA context, and the plan's
/// own workspace.
pub struct CudaFft {
    device: CudaDevice,
    loaded: Arc<LoadedKernels>,
    // Where this plan's kernels came from: a plan taken from the plan cache
    // reports Memory, whatever its first load found.
    origin: CacheOrigin,
    // Intermediate results of multi-pass transforms, grown on demand. Held
    // while a launch enqueues; cudarc's events order its uses across streams.
    scratch: Mutex<Option<CudaSlice<u8>>>,
}

impl std::fmt::Debug for CudaFft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaFft")
            .field("device", &self.device.name())
            .field("arch", &self.loaded.cubin.arch)
            .field("origin", &self.origin)
            .field("manifest", &self.loaded.manifest)
            .field("kernels", &self.loaded.kernels)
            .finish_non_exhaustive()
    }
}

impl CudaFft {
    /// Compiles `source` for the device's architecture (or takes the CUBIN
    /// from the process-wide [`CubinCache::global`]), loads it and looks up
    /// every kernel `manifest` launches, after checking the manifest and every
    /// launch shape against the device's [`Target`] and [`Target::PORTABLE`].
    pub fn new(device: &CudaDevice, source: &str, manifest: &Manifest) -> Result<Self> {
        Self::with_cache(device, source, manifest, CubinCache::global())
    }

    /// [`CudaFft::new`] with the kernels of a type `fft_kernel!` defined.
    pub fn from_static<K: StaticKernels>(device: &CudaDevice) -> Result<Self> {
        let manifest = Manifest::from_json(K::MANIFEST_JSON)
            .map_err(|e| Error::InvalidManifest(format!("the JSON does not parse: {e}")))?;
        Self::new(device, K::CUDA_SOURCE, &manifest)
    }

    /// [`CudaFft::new`] through `cache` instead of the process-wide cache.
    pub fn with_cache(
        device: &CudaDevice,
        source: &str,
        manifest: &Manifest,
        cache: &CubinCache,
    ) -> Result<Self> {
        let target = device.target();
        check_manifest(manifest, &target)?;
        let cubin = cache.get_or_compile(source, device.arch())?;
        let module = device
            .context()
            .load_module(Ptx::from_binary(cubin.cubin.to_vec()))
            .map_err(|e| Error::CudaModuleLoad {
                arch: cubin.arch.clone(),
                status: driver_status(e),
            })?;
        let mut functions = HashMap::new();
        let mut kernels = Vec::new();
        for pass in manifest.transforms.iter().flat_map(|t| &t.passes) {
            if !functions.contains_key(&pass.kernel) {
                let function = load_function(&module, &pass.kernel)?;
                kernels.push(kernel_info(&function, &pass.kernel)?);
                functions.insert(pass.kernel.clone(), function);
            }
            let info = kernels.iter().find(|k| k.name == pass.kernel);
            if let Some(info) = info {
                check_kernel(&target, &functions[&pass.kernel], info, pass)?;
            }
        }
        for (name, function) in &functions {
            opt_into_dynamic_shared(manifest, name, function)?;
        }
        let stream = device.stream();
        let twiddles = manifest
            .twiddle_bytes()
            .iter()
            .map(|bytes| stream.clone_htod(bytes))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| Error::cuda("cuMemcpyHtoDAsync (twiddle table)", e))?;
        stream
            .synchronize()
            .map_err(|e| Error::cuda("cuStreamSynchronize", e))?;
        let origin = cubin.origin;
        let loaded = LoadedKernels {
            manifest: manifest.clone(),
            functions,
            kernels,
            target,
            cubin,
            twiddles,
            _module: module,
        };
        Ok(CudaFft {
            device: device.clone(),
            loaded: Arc::new(loaded),
            origin,
            scratch: Mutex::new(None),
        })
    }

    /// A plan of kernels another plan loaded on `device`'s context: it
    /// shares their module and twiddle tables and has a workspace of its own.
    #[cfg_attr(not(feature = "planner"), allow(dead_code))]
    pub(crate) fn from_loaded(device: &CudaDevice, loaded: Arc<LoadedKernels>) -> Self {
        CudaFft {
            device: device.clone(),
            loaded,
            origin: CacheOrigin::Memory,
            scratch: Mutex::new(None),
        }
    }

    /// The loaded kernels, to share with later plans of the same spec.
    #[cfg_attr(not(feature = "planner"), allow(dead_code))]
    pub(crate) fn loaded(&self) -> &Arc<LoadedKernels> {
        &self.loaded
    }

    /// The manifest the kernels were loaded with.
    pub fn manifest(&self) -> &Manifest {
        &self.loaded.manifest
    }

    /// The device (and context) the kernels are loaded on.
    pub fn device(&self) -> &CudaDevice {
        &self.device
    }

    /// The CUBIN the kernels came from, with NVRTC's log (ptxas's registers
    /// and spills per kernel) and where the cache found it.
    pub fn cubin(&self) -> &CachedCubin {
        &self.loaded.cubin
    }

    /// Whether the CUBIN was compiled for this plan or found in a cache.
    pub fn cache_origin(&self) -> CacheOrigin {
        self.origin
    }

    /// What the driver reports about each kernel, in manifest order.
    pub fn kernels(&self) -> &[CudaKernelInfo] {
        &self.loaded.kernels
    }

    /// Bytes of workspace (scratch memory) a batch of `batch` transforms
    /// needs: 0 when no pass uses one (cufftGetSize's counterpart). Pass a
    /// buffer of at least this many bytes to
    /// [`CudaFft::launch_with_workspace`], or let the plan allocate and keep
    /// one.
    pub fn workspace_bytes(&self, batch: usize) -> Result<usize> {
        workspace_bytes(&self.loaded.manifest, batch)
    }

    /// Transforms `batch` signals from `input` into `output` (out-of-place
    /// kernels) on the device's default stream, waiting for the result. Each
    /// slice holds the values of its side of `direction` (complex values;
    /// for an `r2c` plan, the reals of the forward's input and the inverse's
    /// output), as many as its layout spans (`n * batch` when dense);
    /// elements of `output` outside its layout keep their values. On error
    /// `output` is left as it was.
    pub fn run<T: Real>(
        &self,
        direction: Direction,
        input: &[impl Value<Real = T>],
        output: &mut [impl Value<Real = T>],
        batch: usize,
    ) -> Result<()> {
        executor::run(self, direction, input, output, batch)
    }

    /// Transforms `batch` signals in `data` in place (in-place kernels) on
    /// the device's default stream, waiting for the result. `data` holds the
    /// larger of the two sides in bytes, given as values of either side's
    /// type (for `r2c`, reals or complex values); its length in those values
    /// is the larger side's bytes rounded up to whole values. On error
    /// `data` is left as it was.
    pub fn run_in_place<T: Real>(
        &self,
        direction: Direction,
        data: &mut [impl Value<Real = T>],
        batch: usize,
    ) -> Result<()> {
        executor::run_in_place(self, direction, data, batch)
    }

    /// Enqueues `batch` transforms from `input` into `output` on `stream`
    /// (out-of-place kernels). Each buffer holds its side's bytes for the
    /// batch (its layout's elements of the side's type: reals on the real
    /// side of `r2c`, complex values elsewhere), whatever type it is given
    /// as: a complex side of `n * batch` values is `2 * n * batch` reals in a
    /// `CudaSlice<f32>`. `input` is never written. A plan whose passes need a
    /// workspace uses its own, allocated on the first launch that needs it
    /// (see [`CudaFft::launch_with_workspace`]). Returns once the work is
    /// enqueued: synchronise the stream (or record an event) before reading
    /// `output` on the host. On error nothing is enqueued, except when the
    /// driver fails part-way.
    pub fn launch<T: Real>(
        &self,
        stream: &CudaStream,
        direction: Direction,
        input: &CudaSlice<impl Value<Real = T>>,
        output: &mut CudaSlice<impl Value<Real = T>>,
        batch: usize,
    ) -> Result<()> {
        self.launch_out_of_place(stream, direction, input, output, None, batch)
    }

    /// Enqueues `batch` transforms in `data` in place on `stream` (in-place
    /// kernels); `data` holds the larger of the two sides' bytes, rounded up
    /// to whole values of its type. Returns once the work is enqueued, like
    /// [`CudaFft::launch`].
    pub fn launch_in_place<T: Real>(
        &self,
        stream: &CudaStream,
        direction: Direction,
        data: &mut CudaSlice<impl Value<Real = T>>,
        batch: usize,
    ) -> Result<()> {
        self.launch_in_place_on(stream, direction, data, None, batch)
    }

    /// [`CudaFft::launch`] with the caller's `workspace` (as
    /// cufftSetWorkArea) instead of the plan's own: at least
    /// [`CudaFft::workspace_bytes`] bytes, in the plan's context. Its
    /// contents need no initialising and are undefined afterwards.
    pub fn launch_with_workspace<T: Real>(
        &self,
        stream: &CudaStream,
        direction: Direction,
        input: &CudaSlice<impl Value<Real = T>>,
        output: &mut CudaSlice<impl Value<Real = T>>,
        workspace: &mut CudaSlice<u8>,
        batch: usize,
    ) -> Result<()> {
        self.launch_out_of_place(stream, direction, input, output, Some(workspace), batch)
    }

    /// [`CudaFft::launch_in_place`] with the caller's `workspace`, like
    /// [`CudaFft::launch_with_workspace`].
    pub fn launch_in_place_with_workspace<T: Real>(
        &self,
        stream: &CudaStream,
        direction: Direction,
        data: &mut CudaSlice<impl Value<Real = T>>,
        workspace: &mut CudaSlice<u8>,
        batch: usize,
    ) -> Result<()> {
        self.launch_in_place_on(stream, direction, data, Some(workspace), batch)
    }

    /// The out-of-place launches' one path, with or without the caller's
    /// workspace: the executor's checks, then the device pointers, each held
    /// (ordered after its earlier uses) until the passes are enqueued.
    fn launch_out_of_place<I: Value, O: Value>(
        &self,
        stream: &CudaStream,
        direction: Direction,
        input: &CudaSlice<I>,
        output: &mut CudaSlice<O>,
        workspace: Option<&mut CudaSlice<u8>>,
        batch: usize,
    ) -> Result<()> {
        let buffers = [
            (Given::of::<I>("input", input.len()), input.context()),
            (Given::of::<O>("output", output.len()), output.context()),
        ];
        let caller_workspace = workspace.as_deref().map(|w| (w.context(), w.len()));
        let checked =
            executor::check_launch(self, stream, direction, &buffers, caller_workspace, batch)?;
        let (input_ptr, _read_input) = input.device_ptr(stream);
        let (output_ptr, _write_output) = output.device_ptr_mut(stream);
        self.enqueue(stream, checked, [input_ptr, output_ptr], workspace, batch)
    }

    /// The in-place launches' one path, like
    /// [`launch_out_of_place`](Self::launch_out_of_place).
    fn launch_in_place_on<V: Value>(
        &self,
        stream: &CudaStream,
        direction: Direction,
        data: &mut CudaSlice<V>,
        workspace: Option<&mut CudaSlice<u8>>,
        batch: usize,
    ) -> Result<()> {
        let buffers = [(Given::of::<V>("data", data.len()), data.context())];
        let caller_workspace = workspace.as_deref().map(|w| (w.context(), w.len()));
        let checked =
            executor::check_launch(self, stream, direction, &buffers, caller_workspace, batch)?;
        let (data_ptr, _write_data) = data.device_ptr_mut(stream);
        self.enqueue(stream, checked, [data_ptr, data_ptr], workspace, batch)
    }

    /// Enqueues a checked launch between the `caller`'s device pointers
    /// (held by the caller until this returns) and the caller's `workspace`,
    /// whose pointer is held here likewise.
    fn enqueue(
        &self,
        stream: &CudaStream,
        checked: Checked<'_, (u32, u32, u32)>,
        caller: [sys::CUdeviceptr; 2],
        workspace: Option<&mut CudaSlice<u8>>,
        batch: usize,
    ) -> Result<()> {
        let workspace = workspace.map(|w| w.device_ptr_mut(stream));
        let workspace_ptr = workspace.as_ref().map(|(ptr, _)| *ptr);
        executor::enqueue(self, stream, checked, caller, workspace_ptr, batch)?;
        Ok(())
    }

    /// Makes the scratch buffer hold at least `bytes` bytes.
    fn grow_scratch(&self, scratch: &mut Option<CudaSlice<u8>>, bytes: usize) -> Result<()> {
        if scratch.as_ref().is_some_and(|s| s.len() >= bytes) {
            return Ok(());
        }
        let held = scratch.as_ref().map_or(0, |s| s.len());
        check_fits(self.memory()?, &[("workspace", bytes - held)])?;
        // Dropping the old buffer frees it in stream order after its last use.
        *scratch = None;
        let stream = self.device.stream();
        let buffer = alloc::<u8>(stream, bytes)?;
        // The allocation is ordered on the default stream; launches on other
        // (non-blocking) streams must not start before it completes.
        stream
            .synchronize()
            .map_err(|e| Error::cuda("cuStreamSynchronize", e))?;
        *scratch = Some(buffer);
        Ok(())
    }
}

/// What CUDA does its own way: streams and contexts, device pointers in
/// cudarc's stream order, a scratch buffer the plan keeps and grows, and
/// `cuLaunchKernel`.
impl Backend for CudaFft {
    type Queue = CudaStream;
    type Ptr = sys::CUdeviceptr;
    type Handle<'a> = &'a Arc<CudaContext>;
    type Grid = (u32, u32, u32);
    type Launched = ();

    const LAUNCH_METHODS: [&'static str; 2] = [
        "launch(stream, direction, input, output, batch)",
        "launch_in_place(stream, direction, data, batch)",
    ];

    fn manifest(&self) -> &Manifest {
        &self.loaded.manifest
    }

    fn target(&self) -> &Target {
        &self.loaded.target
    }

    /// The device's free memory, as the driver reports it now.
    fn memory(&self) -> Result<DeviceMemory> {
        let (free, _total) = self
            .device
            .context()
            .mem_get_info()
            .map_err(|e| Error::cuda("cuMemGetInfo", e))?;
        Ok(DeviceMemory {
            available: free as u64,
            source: "the device's free memory, cuMemGetInfo",
            max_buffer: None,
        })
    }

    /// The plan's scratch buffer, which a host call grows rather than
    /// allocates anew (growing frees the old buffer first).
    fn held_workspace(&self) -> usize {
        self.scratch
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map_or(0, |s| s.len())
    }

    fn check_context(
        &self,
        stream: &CudaStream,
        buffers: &[(&'static str, &Arc<CudaContext>)],
    ) -> Result<()> {
        let ours = self.device.context();
        let same = |other: &Arc<CudaContext>| Arc::ptr_eq(ours, other) || **ours == **other;
        if !same(stream.context()) {
            return Err(Error::ForeignContext { what: "stream" });
        }
        for &(role, context) in buffers {
            if !same(context) {
                return Err(Error::ForeignContext {
                    what: device_buffer_words(role),
                });
            }
        }
        Ok(())
    }

    /// The grid as the driver takes it.
    fn grid(&self, pass: &PassLaunch, grid: [usize; 3]) -> Result<(u32, u32, u32)> {
        let dim = |value: usize, what| {
            u32::try_from(value).map_err(|_| Error::LaunchLimit {
                kernel: pass.kernel.clone(),
                what,
                value: value as u64,
                max: u32::MAX.into(),
                limits: "the CUDA driver API".to_string(),
            })
        };
        Ok((
            dim(grid[0], "grid.x")?,
            dim(grid[1], "grid.y")?,
            dim(grid[2], "grid.z")?,
        ))
    }

    /// Binds the stream's context to the thread, grows the plan's scratch
    /// buffer where `bytes` asks for it and holds it (locked, and its device
    /// pointer ordered on `stream`) while the passes are enqueued; failures
    /// of cudarc's stream ordering are reported after.
    fn with_own_workspace<R>(
        &self,
        stream: &CudaStream,
        bytes: Option<usize>,
        passes: impl FnOnce(sys::CUdeviceptr) -> Result<R>,
    ) -> Result<R> {
        let context = stream.context();
        context
            .bind_to_thread()
            .map_err(|e| Error::cuda("cuCtxSetCurrent", e))?;
        let mut scratch = self.scratch.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(bytes) = bytes {
            self.grow_scratch(&mut scratch, bytes)?;
        }
        let scratch_ptr = match scratch.as_mut() {
            Some(buffer) if bytes.is_some() => Some(buffer.device_ptr_mut(stream)),
            _ => None,
        };
        let launched = passes(scratch_ptr.as_ref().map_or(0, |(ptr, _)| *ptr))?;
        // Record the scratch buffer's use on the stream before the lock goes.
        drop(scratch_ptr);
        drop(scratch);
        // Waits and event records inside cudarc report failures here.
        context
            .check_err()
            .map_err(|e| Error::cuda("stream ordering (cuStreamWaitEvent, cuEventRecord)", e))?;
        Ok(launched)
    }

    fn launch_pass(
        &self,
        stream: &CudaStream,
        pass: &PassLaunch,
        read: sys::CUdeviceptr,
        write: sys::CUdeviceptr,
        grid: &(u32, u32, u32),
        batch: usize,
    ) -> Result<()> {
        let function =
            self.loaded
                .functions
                .get(&pass.kernel)
                .ok_or_else(|| Error::MissingKernel {
                    kernel: pass.kernel.clone(),
                })?;
        // check_call bounded the batch by u32::MAX, so this does not truncate.
        let batch = batch as u32;
        let mut builder = stream.launch_builder(function);
        for arg in &pass.args {
            match arg {
                KernelArg::Input { .. } | KernelArg::InOut { .. } => builder.arg(&read),
                KernelArg::Output { .. } => builder.arg(&write),
                KernelArg::BatchCount { .. } => builder.arg(&batch),
                // check_manifest made sure the table exists.
                KernelArg::Twiddles { table, .. } => builder.arg(&self.loaded.twiddles[*table]),
            };
        }
        let [x, y, z] = pass.block;
        let config = LaunchConfig {
            grid_dim: *grid,
            block_dim: (x, y, z),
            // Raised at load where above the default (opt_into_dynamic_shared).
            shared_mem_bytes: pass.dynamic_shared_bytes,
        };
        // SAFETY: check_kernel matched the kernel's parameters to the manifest
        // (count and sizes, where the driver can tell): device pointers to
        // buffers of the manifest's precision holding their layouts' elements
        // (checked lengths; the workspace at least batch * scratch_elements),
        // and the batch as a 32-bit unsigned integer. The kernels stay within
        // those layouts, and out-of-place passes never get the same buffer
        // twice (check_route).
        unsafe { builder.launch(config) }
            .map_err(|e| Error::cuda(format!("cuLaunchKernel({})", pass.kernel), e))?;
        Ok(())
    }

    /// Uploads and launches on the device's default stream; the device
    /// pointers are held (ordered after the copies) until the passes are
    /// enqueued.
    fn round_trip<R: Real>(
        &self,
        input: &[R],
        output: HostOutput<'_, R>,
        enqueue: impl FnOnce(&CudaStream, [sys::CUdeviceptr; 2]) -> Result<()>,
    ) -> Result<Vec<R>> {
        let stream = self.device.stream();
        let mut device_input = upload(stream, input)?;
        let mut device_output = match output {
            HostOutput::Filled(values) => Some(upload(stream, values)?),
            HostOutput::Unset(len) => Some(alloc::<R>(stream, len)?),
            HostOutput::InPlace => None,
        };
        match device_output.as_mut() {
            Some(device_output) => {
                let (input_ptr, _read_input) = device_input.device_ptr(stream);
                let (output_ptr, _write_output) = device_output.device_ptr_mut(stream);
                enqueue(stream, [input_ptr, output_ptr])?;
            }
            None => {
                let (data_ptr, _write_data) = device_input.device_ptr_mut(stream);
                enqueue(stream, [data_ptr, data_ptr])?;
            }
        }
        download(stream, device_output.as_ref().unwrap_or(&device_input))
    }
}

/// Raises the dynamic shared memory `function` may launch with to the most
/// any pass of `manifest` that runs it asks for (the driver's default limit
/// is 48 KiB; check_manifest held the total to the device's opt-in limit).
fn opt_into_dynamic_shared(manifest: &Manifest, name: &str, function: &CudaFunction) -> Result<()> {
    let most = manifest
        .transforms
        .iter()
        .flat_map(|t| &t.passes)
        .filter(|p| p.kernel == name)
        .map(|p| p.dynamic_shared_bytes)
        .max()
        .unwrap_or(0);
    if most == 0 {
        return Ok(());
    }
    let bytes = i32::try_from(most).map_err(|_| {
        Error::InvalidManifest(format!(
            "kernel `{name}` asks for {most} bytes of dynamic shared memory, more than any GPU has"
        ))
    })?;
    function
        .set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes,
        )
        .map_err(|e| {
            Error::cuda(
                format!("cuFuncSetAttribute({name}, MAX_DYNAMIC_SHARED_SIZE_BYTES, {bytes})"),
                e,
            )
        })
}

fn load_function(module: &Arc<CudaModule>, name: &str) -> Result<CudaFunction> {
    module.load_function(name).map_err(|e| match e {
        DriverError(CUresult::CUDA_ERROR_NOT_FOUND) => Error::MissingKernel {
            kernel: name.to_string(),
        },
        e => Error::cuda(format!("cuModuleGetFunction({name})"), e),
    })
}

fn kernel_info(function: &CudaFunction, name: &str) -> Result<CudaKernelInfo> {
    let get = |value: std::result::Result<i32, DriverError>, what: &str| {
        value
            .map(|v| u32::try_from(v).unwrap_or(0))
            .map_err(|e| Error::cuda(format!("cuFuncGetAttribute({name}, {what})"), e))
    };
    Ok(CudaKernelInfo {
        name: name.to_string(),
        registers: get(function.num_regs(), "NUM_REGS")?,
        static_shared_bytes: get(function.shared_size_bytes(), "SHARED_SIZE_BYTES")?,
        local_bytes_per_thread: get(function.local_size_bytes(), "LOCAL_SIZE_BYTES")?,
        max_threads_per_block: get(function.max_threads_per_block(), "MAX_THREADS_PER_BLOCK")?,
    })
}

/// Checks what the compiled kernel reports against the manifest and the
/// device's `target`: its parameters, the shared memory it really uses, and
/// the largest block it can run with.
fn check_kernel(
    target: &Target,
    function: &CudaFunction,
    info: &CudaKernelInfo,
    pass: &PassLaunch,
) -> Result<()> {
    check_parameters(function, pass)?;
    let compiled = CompiledKernel {
        shared_words: "static shared memory of the compiled kernel (bytes)",
        shared_bytes: info.static_shared_bytes.into(),
        max_threads_per_block: info.max_threads_per_block.into(),
    };
    check_compiled(pass, target, &compiled)
}

/// Compares the sizes of the kernel's first parameters with the manifest's
/// arguments (8-byte pointers, a 4-byte batch). Needs cuFuncGetParamInfo
/// (drivers for CUDA 12.4 and later); older drivers skip the check. It asks
/// for no index past the manifest's arguments: the driver reports such a
/// query as an API error, which compute-sanitizer counts against the run.
fn check_parameters(function: &CudaFunction, pass: &PassLaunch) -> Result<()> {
    let Some(sizes) = parameter_sizes(function, pass.args.len()) else {
        return Ok(());
    };
    if sizes.len() != pass.args.len() {
        return Err(Error::InvalidManifest(format!(
            "kernel `{}` takes {} parameters but the manifest lists {}",
            pass.kernel,
            sizes.len(),
            pass.args.len()
        )));
    }
    for (index, (arg, &size)) in pass.args.iter().zip(&sizes).enumerate() {
        let (role, expected) = match arg {
            KernelArg::BatchCount { .. } => ("the batch count (unsigned int)", 4),
            _ => ("a buffer pointer", std::mem::size_of::<sys::CUdeviceptr>()),
        };
        if size != expected {
            return Err(Error::InvalidManifest(format!(
                "parameter {index} of kernel `{}` is {size} bytes, but the manifest makes it \
                 {role} of {expected} bytes",
                pass.kernel
            )));
        }
    }
    Ok(())
}

/// The sizes of the kernel's parameters (at most `limit` of them), or `None`
/// when the driver cannot tell. The check is an aid, so a driver that
/// answers with anything but success or "past the last parameter" (as
/// PyTorch reads CUDA_ERROR_INVALID_VALUE) skips it rather than fail the plan.
fn parameter_sizes(function: &CudaFunction, limit: usize) -> Option<Vec<usize>> {
    if !has_param_info() {
        return None;
    }
    let mut sizes = Vec::new();
    for index in 0..limit {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: the function is loaded and alive; both pointers are valid
        // for writes; the symbol exists (has_param_info).
        let status = unsafe {
            sys::cuFuncGetParamInfo(function.cu_function(), index, &mut offset, &mut size)
        };
        match status {
            CUresult::CUDA_SUCCESS => sizes.push(size),
            // The index is past the last parameter.
            CUresult::CUDA_ERROR_INVALID_VALUE => break,
            _ => return None,
        }
    }
    Some(sizes)
}

/// Whether the loaded driver has cuFuncGetParamInfo; cudarc panics when a
/// symbol is missing, so this looks it up first.
fn has_param_info() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| {
        // SAFETY: only reached with a CudaDevice, so the driver library is
        // loadable (culib would panic otherwise); this only looks a symbol up.
        unsafe {
            sys::culib()
                .get::<unsafe extern "C" fn()>(b"cuFuncGetParamInfo\0")
                .is_ok()
        }
    })
}

/// `len` uninitialised elements on `stream`.
fn alloc<T: cudarc::driver::DeviceRepr>(
    stream: &Arc<CudaStream>,
    len: usize,
) -> Result<CudaSlice<T>> {
    // SAFETY: the contents are written (by a copy or a kernel) before they are read.
    unsafe { stream.alloc::<T>(len) }.map_err(|e| Error::cuda("cuMemAlloc", e))
}

/// A device copy of `values`, enqueued on `stream`.
fn upload<T: Real>(stream: &Arc<CudaStream>, values: &[T]) -> Result<CudaSlice<T>> {
    stream
        .clone_htod(values)
        .map_err(|e| Error::cuda("cuMemcpyHtoDAsync", e))
}

/// The buffer's contents, after everything enqueued on `stream` finished.
fn download<T: Real>(stream: &Arc<CudaStream>, buffer: &CudaSlice<T>) -> Result<Vec<T>> {
    let result = stream
        .clone_dtoh(buffer)
        .map_err(|e| Error::cuda("cuMemcpyDtoHAsync", e))?;
    // Kernel faults surface here, before the result is trusted.
    stream
        .synchronize()
        .map_err(|e| Error::cuda("cuStreamSynchronize", e))?;
    stream
        .context()
        .check_err()
        .map_err(|e| Error::cuda("stream ordering (cuStreamWaitEvent, cuEventRecord)", e))?;
    Ok(result)
}
