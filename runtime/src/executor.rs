//! The executor both backends share: how a plan's passes run, written once
//! over a small [`Backend`] trait that each backend implements with its own
//! driver calls, as cudarc keeps its safe layer apart from the driver.
//!
//! A launch on the caller's device buffers is checked ([`check_launch`]: the
//! call, the queue's and every buffer's context, the caller's workspace, the
//! grid of every pass) before anything is enqueued, and then [`enqueue`]d:
//! every pass in order, between the buffers the manifest routes it through
//! ([`crate::route::bind`]), with the caller's workspace or else the plan's
//! own where a pass needs one. The host conveniences ([`run`],
//! [`run_in_place`]) check the call and the device's memory, upload the
//! input (and the output where its layout leaves gaps, so they keep the
//! caller's values), enqueue the same way and write the caller's slice only
//! once everything succeeded.

use crate::call::{check_call, check_host_call, Buffers, Given};
use crate::error::{Error, Result};
use crate::launch::grids_for;
use crate::memory::{check_fits, host_call_buffers, scratch_bytes, DeviceMemory};
use crate::real::Real;
use crate::route::{bind, needs_scratch};
use crate::value::Value;
use fftgen_manifest::{Direction, Manifest, PassLaunch, Placement, Target, TransformLaunch};

/// What one backend does its own way: where work is enqueued, what a buffer
/// and a grid are to its driver, and the calls that move data and launch.
pub(crate) trait Backend {
    /// Where passes are enqueued: a CUDA stream, an OpenCL command queue.
    type Queue: ?Sized;
    /// A device buffer as a kernel takes it: a device pointer, a `cl_mem`.
    type Ptr: Copy;
    /// A caller's buffer as [`Backend::check_context`] takes it: its context
    /// (CUDA), or the buffer itself, whose context is asked (OpenCL).
    type Handle<'a>: Copy;
    /// The launch shape of one pass as the driver takes it.
    type Grid;
    /// What enqueueing one pass hands back: nothing (CUDA), its event (OpenCL).
    type Launched;

    /// How errors name the backend's launch methods (out of place, in place).
    const LAUNCH_METHODS: [&'static str; 2];

    /// The manifest the kernels were loaded with.
    fn manifest(&self) -> &Manifest;

    /// What the device allows.
    fn target(&self) -> &Target;

    /// What the device's memory holds for new buffers.
    fn memory(&self) -> Result<DeviceMemory>;

    /// Bytes of the plan's own workspace already held, which a host call
    /// need not allocate again.
    fn held_workspace(&self) -> usize {
        0
    }

    /// Checks that `queue` and each of the caller's `buffers` (by role:
    /// input, output, data or workspace) belong to the plan's context.
    fn check_context(
        &self,
        queue: &Self::Queue,
        buffers: &[(&'static str, Self::Handle<'_>)],
    ) -> Result<()>;

    /// The launch shape of `pass` for `grid` blocks, as the driver takes it.
    fn grid(&self, pass: &PassLaunch, grid: [usize; 3]) -> Result<Self::Grid>;

    /// Runs `passes`, which enqueue every pass on `queue`, with the plan's own
    /// workspace of at least `bytes` bytes (allocated or grown here) where
    /// they need one, held until they are enqueued; without `bytes` they get
    /// a null handle.
    fn with_own_workspace<R>(
        &self,
        queue: &Self::Queue,
        bytes: Option<usize>,
        passes: impl FnOnce(Self::Ptr) -> Result<R>,
    ) -> Result<R>;

    /// Binds the arguments of one pass by role and enqueues it on `queue`.
    fn launch_pass(
        &self,
        queue: &Self::Queue,
        pass: &PassLaunch,
        read: Self::Ptr,
        write: Self::Ptr,
        grid: &Self::Grid,
        batch: usize,
    ) -> Result<Self::Launched>;

    /// A host call's data movement on the device's own queue: uploads
    /// `input` and makes the `output` buffer, runs `enqueue` with their
    /// handles (`[input, output]`; the input twice in place), and downloads
    /// the output (the input in place) once everything succeeded.
    fn round_trip<R: Real>(
        &self,
        input: &[R],
        output: HostOutput<'_, R>,
        enqueue: impl FnOnce(&Self::Queue, [Self::Ptr; 2]) -> Result<()>,
    ) -> Result<Vec<R>>;
}

/// The device buffer a host call writes its result to, as reals.
pub(crate) enum HostOutput<'a, R> {
    /// Its own, holding the caller's values first: the output's layout
    /// leaves gaps, which keep them.
    Filled(&'a [R]),
    /// Its own of this many reals, all of which the passes write.
    Unset(usize),
    /// The input's (in place).
    InPlace,
}

/// A launch that passed every check: the transform to run and the launch
/// shape of each of its passes.
pub(crate) struct Checked<'p, G> {
    transform: &'p TransformLaunch,
    grids: Vec<G>,
}

/// Checks a launch on the caller's device buffers, in the order a caller
/// fixes them: the method, the element type, the batch and each buffer's
/// bytes (`buffers`: input and output, or the data alone in place), the
/// queue's and the buffers' context, then the caller's `workspace` (its
/// handle and bytes), and the grid of every pass.
pub(crate) fn check_launch<'p, 'h, B: Backend>(
    backend: &'p B,
    queue: &B::Queue,
    direction: Direction,
    buffers: &[(Given, B::Handle<'h>)],
    workspace: Option<(B::Handle<'h>, usize)>,
    batch: usize,
) -> Result<Checked<'p, B::Grid>> {
    let called = match buffers.len() {
        1 => Placement::InPlace,
        _ => Placement::OutOfPlace,
    };
    let given: Vec<Given> = buffers.iter().map(|&(g, _)| g).collect();
    let transform = check_call(
        backend.manifest(),
        direction,
        called,
        B::LAUNCH_METHODS,
        Buffers::Device(&given),
        batch,
    )?;
    let mut handles: Vec<_> = buffers.iter().map(|&(g, h)| (g.role, h)).collect();
    handles.extend(workspace.map(|(handle, _)| ("workspace", handle)));
    backend.check_context(queue, &handles)?;
    if let Some((_, got)) = workspace {
        let needed = scratch_bytes(backend.manifest(), batch);
        if got < needed {
            return Err(Error::WorkspaceTooSmall { batch, needed, got });
        }
    }
    checked(backend, transform, batch)
}

/// `transform` with the launch shape of every pass for `batch` transforms.
/// Grid limits depend on the batch, so every pass is checked before any is
/// launched.
fn checked<'p, B: Backend>(
    backend: &B,
    transform: &'p TransformLaunch,
    batch: usize,
) -> Result<Checked<'p, B::Grid>> {
    let passes = &transform.passes;
    let grids = grids_for(passes, batch, backend.target())?
        .into_iter()
        .zip(passes)
        .map(|(grid, pass)| backend.grid(pass, grid))
        .collect::<Result<_>>()?;
    Ok(Checked { transform, grids })
}

/// Enqueues every pass of a checked launch on `queue`, each between the
/// buffers the manifest routes it through: the caller's (`[input, output]`;
/// the data twice in place) and the caller's `workspace`, or else the plan's
/// own where a pass needs one. Returns what each pass's launch handed back.
pub(crate) fn enqueue<B: Backend>(
    backend: &B,
    queue: &B::Queue,
    checked: Checked<'_, B::Grid>,
    caller: [B::Ptr; 2],
    workspace: Option<B::Ptr>,
    batch: usize,
) -> Result<Vec<B::Launched>> {
    let Checked { transform, grids } = checked;
    let own = match workspace {
        None if needs_scratch(transform) => Some(scratch_bytes(backend.manifest(), batch)),
        _ => None,
    };
    backend.with_own_workspace(queue, own, |own| {
        let scratch = workspace.unwrap_or(own);
        transform
            .passes
            .iter()
            .zip(&grids)
            .map(|(pass, grid)| {
                let read = bind(pass.reads, caller, scratch);
                let write = bind(pass.writes, caller, scratch);
                backend.launch_pass(queue, pass, read, write, grid, batch)
            })
            .collect()
    })
}

/// The host convenience `run`: transforms `batch` signals from `input` into
/// `output` on the device's own queue, writing `output` only once everything
/// succeeded.
pub(crate) fn run<B: Backend, I: Value, O: Value<Real = I::Real>>(
    backend: &B,
    direction: Direction,
    input: &[I],
    output: &mut [O],
    batch: usize,
) -> Result<()> {
    let manifest = backend.manifest();
    let transform = check_host_call(manifest, direction, input, Some(output), batch)?;
    let side = manifest.output_side(direction);
    let start = if output.len() != batch * side.shape.iter().product::<usize>() {
        HostOutput::Filled(O::as_reals(output))
    } else {
        HostOutput::Unset(O::as_reals(output).len())
    };
    let result = host_call(backend, transform, I::as_reals(input), start, batch)?;
    O::as_reals_mut(output).copy_from_slice(&result);
    Ok(())
}

/// The host convenience `run_in_place`: transforms `batch` signals in `data`
/// on the device's own queue, writing `data` only once everything succeeded.
pub(crate) fn run_in_place<B: Backend, V: Value>(
    backend: &B,
    direction: Direction,
    data: &mut [V],
    batch: usize,
) -> Result<()> {
    let transform = check_host_call::<V, V>(backend.manifest(), direction, data, None, batch)?;
    let reals = V::as_reals(data);
    let result = host_call(backend, transform, reals, HostOutput::InPlace, batch)?;
    V::as_reals_mut(data).copy_from_slice(&result);
    Ok(())
}

/// A checked host call from its memory check to its download: the device
/// must hold the input, the output and the workspace the plan does not hold
/// yet before any is allocated.
fn host_call<B: Backend, R: Real>(
    backend: &B,
    transform: &TransformLaunch,
    input: &[R],
    output: HostOutput<'_, R>,
    batch: usize,
) -> Result<Vec<R>> {
    let workspace = needs_scratch(transform)
        .then(|| scratch_bytes(backend.manifest(), batch).saturating_sub(backend.held_workspace()));
    let output_bytes = match output {
        HostOutput::Filled(values) => Some(std::mem::size_of_val(values)),
        HostOutput::Unset(len) => Some(len * std::mem::size_of::<R>()),
        HostOutput::InPlace => None,
    };
    let needs = host_call_buffers(std::mem::size_of_val(input), output_bytes, workspace);
    check_fits(backend.memory()?, &needs)?;
    let checked = checked(backend, transform, batch)?;
    backend.round_trip(input, output, |queue, caller| {
        enqueue(backend, queue, checked, caller, None, batch).map(drop)
    })
}
