//! Running generated kernels through the CUDA driver: [`CudaFft`] compiles a
//! source once per architecture (through the [`CubinCache`]), loads the CUBIN
//! as a module, looks up every kernel its manifest names and checks what the
//! compiled kernels report (parameters, shared memory, the largest block
//! their registers allow) against the manifest. A transform is then launched
//! on device buffers on any stream of the same context: every pass in order,
//! its arguments bound by role and its buffers as the manifest routes them,
//! intermediate results in the caller's workspace or in a scratch buffer the
//! plan allocates on the first launch that needs one (multi-pass plans).
//! Kernels planned with dynamic shared memory get their opt-in limit raised
//! at load. Everything that can be checked is checked before anything is
//! enqueued, and the device's free memory before anything is allocated.
//!
//! Device buffers hold their side's bytes (reals on the real side of `r2c`,
//! interleaved complex values elsewhere: `2 * n * batch` reals when dense),
//! whatever type they are given as; the host conveniences
//! `run` and `run_in_place` upload, launch on the device's default stream,
//! synchronise and download, writing the caller's buffer only after
//! everything succeeded.

use super::cache::{CacheOrigin, CachedCubin, CubinCache};
use super::device::CudaDevice;
use crate::call::{check_call, check_host_call, device_buffer_words, Buffers, Given};
use crate::error::{driver_status, Error, Result};
use crate::launch::{check_compiled, check_manifest, grids_for, CompiledKernel};
use crate::memory::{check_fits, host_call_buffers, scratch_bytes, workspace_bytes, DeviceMemory};
use crate::real::Real;
use crate::route::{bind, needs_scratch};
use crate::value::Value;
use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUfunction_attribute, CUresult};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DevicePtrMut,
    LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;
use fftgen_manifest::{
    Direction, KernelArg, Manifest, PassLaunch, Placement, StaticKernels, Target, TransformLaunch,
};
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
        self.run_values(direction, input, output, batch)
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
        self.run_in_place_values(direction, data, batch)
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
        self.launch_values(stream, direction, input, output, batch)
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
        self.launch_in_place_values(stream, direction, data, batch)
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
        self.launch_with_workspace_values(stream, direction, input, output, workspace, batch)
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
        self.launch_in_place_with_workspace_values(stream, direction, data, workspace, batch)
    }

    /// [`launch`](Self::launch) with named element types.
    fn launch_values<I: Value, O: Value<Real = I::Real>>(
        &self,
        stream: &CudaStream,
        direction: Direction,
        input: &CudaSlice<I>,
        output: &mut CudaSlice<O>,
        batch: usize,
    ) -> Result<()> {
        let given = [
            Given::of::<I>("input", input.len()),
            Given::of::<O>("output", output.len()),
        ];
        self.launch_out_of_place(stream, direction, input, output, given, None, batch)
    }

    /// [`launch_in_place`](Self::launch_in_place) with named element types.
    fn launch_in_place_values<V: Value>(
        &self,
        stream: &CudaStream,
        direction: Direction,
        data: &mut CudaSlice<V>,
        batch: usize,
    ) -> Result<()> {
        let given = Given::of::<V>("data", data.len());
        self.launch_in_place_on(stream, direction, data, given, None, batch)
    }

    /// [`launch_with_workspace`](Self::launch_with_workspace) with named element types.
    fn launch_with_workspace_values<I: Value, O: Value<Real = I::Real>>(
        &self,
        stream: &CudaStream,
        direction: Direction,
        input: &CudaSlice<I>,
        output: &mut CudaSlice<O>,
        workspace: &mut CudaSlice<u8>,
        batch: usize,
    ) -> Result<()> {
        let given = [
            Given::of::<I>("input", input.len()),
            Given::of::<O>("output", output.len()),
        ];
        let workspace = Some(workspace);
        self.launch_out_of_place(stream, direction, input, output, given, workspace, batch)
    }

    /// [`launch_in_place_with_workspace`](Self::launch_in_place_with_workspace) with named element types.
    fn launch_in_place_with_workspace_values<V: Value>(
        &self,
        stream: &CudaStream,
        direction: Direction,
        data: &mut CudaSlice<V>,
        workspace: &mut CudaSlice<u8>,
        batch: usize,
    ) -> Result<()> {
        let given = Given::of::<V>("data", data.len());
        self.launch_in_place_on(stream, direction, data, given, Some(workspace), batch)
    }

    /// The out-of-place launches' one path, with or without the caller's
    /// workspace. `given` describes the buffers as the caller gave them (the
    /// host calls upload their slices as reals but are checked as given).
    #[allow(clippy::too_many_arguments)]
    fn launch_out_of_place<I, O>(
        &self,
        stream: &CudaStream,
        direction: Direction,
        input: &CudaSlice<I>,
        output: &mut CudaSlice<O>,
        given: [Given; 2],
        workspace: Option<&mut CudaSlice<u8>>,
        batch: usize,
    ) -> Result<()> {
        let transform = self.check_launch(
            stream,
            direction,
            &[(given[0], input.context()), (given[1], output.context())],
            batch,
        )?;
        if let Some(workspace) = workspace.as_deref() {
            self.check_workspace(workspace, batch)?;
        }
        let grids = self.grids(transform, batch)?;
        let (input_ptr, _read_input) = input.device_ptr(stream);
        let (output_ptr, _write_output) = output.device_ptr_mut(stream);
        let workspace = workspace.map(|w| w.device_ptr_mut(stream));
        let workspace_ptr = workspace.as_ref().map(|(ptr, _)| *ptr);
        let caller = [input_ptr, output_ptr];
        self.enqueue(stream, transform, &grids, caller, workspace_ptr, batch)
    }

    /// The in-place launches' one path, with or without the caller's
    /// workspace; `given` describes `data` as the caller gave it.
    fn launch_in_place_on<V>(
        &self,
        stream: &CudaStream,
        direction: Direction,
        data: &mut CudaSlice<V>,
        given: Given,
        workspace: Option<&mut CudaSlice<u8>>,
        batch: usize,
    ) -> Result<()> {
        let transform = self.check_launch(stream, direction, &[(given, data.context())], batch)?;
        if let Some(workspace) = workspace.as_deref() {
            self.check_workspace(workspace, batch)?;
        }
        let grids = self.grids(transform, batch)?;
        let (data_ptr, _write_data) = data.device_ptr_mut(stream);
        let workspace = workspace.map(|w| w.device_ptr_mut(stream));
        let workspace_ptr = workspace.as_ref().map(|(ptr, _)| *ptr);
        self.enqueue(
            stream,
            transform,
            &grids,
            [data_ptr, data_ptr],
            workspace_ptr,
            batch,
        )
    }

    /// [`run`](Self::run) with named element types.
    fn run_values<I: Value, O: Value<Real = I::Real>>(
        &self,
        direction: Direction,
        input: &[I],
        output: &mut [O],
        batch: usize,
    ) -> Result<()> {
        let transform =
            check_host_call(&self.loaded.manifest, direction, input, Some(output), batch)?;
        let given = [
            Given::of::<I>("input", input.len()),
            Given::of::<O>("output", output.len()),
        ];
        let workspace = needs_scratch(transform).then(|| self.scratch_growth(batch));
        let needs = host_call_buffers(
            std::mem::size_of_val(input),
            Some(std::mem::size_of_val(output)),
            workspace,
        );
        check_fits(self.memory()?, &needs)?;

        let stream = self.device.stream();
        let device_input = upload(stream, I::as_reals(input))?;
        let side = self.loaded.manifest.output_side(direction);
        let mut device_output = if output.len() != batch * side.shape.iter().product::<usize>() {
            upload(stream, O::as_reals(output))?
        } else {
            alloc::<O::Real>(stream, O::as_reals(output).len())?
        };
        self.launch_out_of_place(
            stream,
            direction,
            &device_input,
            &mut device_output,
            given,
            None,
            batch,
        )?;
        let result = download(stream, &device_output)?;
        O::as_reals_mut(output).copy_from_slice(&result);
        Ok(())
    }

    /// [`run_in_place`](Self::run_in_place) with named element types.
    fn run_in_place_values<V: Value>(
        &self,
        direction: Direction,
        data: &mut [V],
        batch: usize,
    ) -> Result<()> {
        let transform =
            check_host_call::<V, V>(&self.loaded.manifest, direction, data, None, batch)?;
        let given = Given::of::<V>("data", data.len());
        let workspace = needs_scratch(transform).then(|| self.scratch_growth(batch));
        let needs = host_call_buffers(std::mem::size_of_val(data), None, workspace);
        check_fits(self.memory()?, &needs)?;

        let stream = self.device.stream();
        let mut device_data = upload(stream, V::as_reals(data))?;
        self.launch_in_place_on(stream, direction, &mut device_data, given, None, batch)?;
        let result = download(stream, &device_data)?;
        V::as_reals_mut(data).copy_from_slice(&result);
        Ok(())
    }

    /// Bytes the plan's scratch buffer must grow by for `batch` (growing
    /// frees the old buffer first).
    fn scratch_growth(&self, batch: usize) -> usize {
        let held = self
            .scratch
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map_or(0, |s| s.len());
        let bytes = scratch_bytes(&self.loaded.manifest, batch);
        bytes.saturating_sub(held)
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

    /// Checks a caller's workspace: its context and its size.
    fn check_workspace(&self, workspace: &CudaSlice<u8>, batch: usize) -> Result<()> {
        let ours = self.device.context();
        let theirs = workspace.context();
        if !(Arc::ptr_eq(ours, theirs) || **ours == **theirs) {
            return Err(Error::ForeignContext {
                what: device_buffer_words("workspace"),
            });
        }
        let needed = scratch_bytes(&self.loaded.manifest, batch);
        if workspace.len() < needed {
            return Err(Error::WorkspaceTooSmall {
                batch,
                needed,
                got: workspace.len(),
            });
        }
        Ok(())
    }

    /// Every check of a device launch, in the order a caller fixes them:
    /// the method, the element type, the batch, the buffers (as `Given`:
    /// input and output, or the data alone in place), the context.
    fn check_launch(
        &self,
        stream: &CudaStream,
        direction: Direction,
        buffers: &[(Given, &Arc<CudaContext>)],
        batch: usize,
    ) -> Result<&TransformLaunch> {
        let called = match buffers.len() {
            1 => Placement::InPlace,
            _ => Placement::OutOfPlace,
        };
        let given: Vec<Given> = buffers.iter().map(|&(g, _)| g).collect();
        let transform = check_call(
            &self.loaded.manifest,
            direction,
            called,
            [
                "launch(stream, direction, input, output, batch)",
                "launch_in_place(stream, direction, data, batch)",
            ],
            Buffers::Device(&given),
            batch,
        )?;
        let ours = self.device.context();
        let same = |other: &Arc<CudaContext>| Arc::ptr_eq(ours, other) || **ours == **other;
        if !same(stream.context()) {
            return Err(Error::ForeignContext { what: "stream" });
        }
        for &(given, context) in buffers {
            if !same(context) {
                return Err(Error::ForeignContext {
                    what: device_buffer_words(given.role),
                });
            }
        }
        Ok(transform)
    }

    /// The grid of every pass for `batch` transforms, as the driver takes it.
    fn grids(&self, transform: &TransformLaunch, batch: usize) -> Result<Vec<(u32, u32, u32)>> {
        let passes = &transform.passes;
        grids_for(passes, batch, &self.loaded.target)?
            .into_iter()
            .zip(passes)
            .map(|(grid, pass)| grid_dim(pass, grid))
            .collect()
    }

    /// Enqueues the passes of `transform` on `stream`, each between the
    /// buffers the manifest routes it through. `caller` holds the device
    /// pointers of the caller's input and output (both the data buffer in
    /// place), already ordered after their earlier uses, and `workspace` the
    /// caller's workspace, if given (else the plan's own serves).
    fn enqueue(
        &self,
        stream: &CudaStream,
        transform: &TransformLaunch,
        grids: &[(u32, u32, u32)],
        caller: [sys::CUdeviceptr; 2],
        workspace: Option<sys::CUdeviceptr>,
        batch: usize,
    ) -> Result<()> {
        let context = stream.context();
        context
            .bind_to_thread()
            .map_err(|e| Error::cuda("cuCtxSetCurrent", e))?;
        let own = workspace.is_none() && needs_scratch(transform);
        let mut scratch = self.scratch.lock().unwrap_or_else(PoisonError::into_inner);
        if own {
            self.grow_scratch(&mut scratch, scratch_bytes(&self.loaded.manifest, batch))?;
        }
        let scratch_ptr = match scratch.as_mut() {
            Some(buffer) if own => Some(buffer.device_ptr_mut(stream)),
            _ => None,
        };
        let scratch_at = workspace
            .or(scratch_ptr.as_ref().map(|(ptr, _)| *ptr))
            .unwrap_or(0);
        for (pass, &grid) in transform.passes.iter().zip(grids) {
            let read = bind(pass.reads, caller, scratch_at);
            let write = bind(pass.writes, caller, scratch_at);
            self.launch_pass(stream, pass, read, write, grid, batch)?;
        }
        // Record the scratch buffer's use on the stream before the lock goes.
        drop(scratch_ptr);
        drop(scratch);
        // Waits and event records inside cudarc report failures here.
        context
            .check_err()
            .map_err(|e| Error::cuda("stream ordering (cuStreamWaitEvent, cuEventRecord)", e))
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

    /// Binds the arguments of one pass by role and launches it.
    fn launch_pass(
        &self,
        stream: &CudaStream,
        pass: &PassLaunch,
        read: sys::CUdeviceptr,
        write: sys::CUdeviceptr,
        grid: (u32, u32, u32),
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
            grid_dim: grid,
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

/// A grid as the driver takes it.
fn grid_dim(pass: &PassLaunch, grid: [usize; 3]) -> Result<(u32, u32, u32)> {
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
