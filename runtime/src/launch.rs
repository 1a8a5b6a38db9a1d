//! Backend-neutral launch logic: checking a manifest once when kernels are
//! loaded, checking what the compiled kernels report, checking each call's
//! buffers before any data moves (their lengths come from the manifest's
//! layouts, the batch bound from [`crate::memory`], the route of each
//! transform's passes from [`crate::route`]). OpenCL and CUDA execution
//! share it, so both reject the same mistakes with the same errors.
//!
//! Every launch shape is checked twice: against [`Target::PORTABLE`], what
//! every GPU accepts, and against the device's own [`Target`]. A CPU OpenCL
//! implementation such as PoCL accepts work-groups of 4096 items and
//! megabytes of local memory, which no GPU does; the first check keeps a plan
//! that passes the tests on PoCL from failing on a real GPU.

use crate::error::{Error, Result};
use crate::memory::check_batch;
use crate::real::Real;
use crate::route::check_route;
use fftgen_manifest::{
    Direction, GridRule, KernelArg, LimitExceeded, Manifest, PassLaunch, Placement, Target,
    TransformLaunch,
};
use num_complex::Complex;

/// How errors name the host conveniences of both backends (out of place, in place).
const HOST_METHODS: [&str; 2] = [
    "run(direction, input, output, batch)",
    "run_in_place(direction, data, batch)",
];

/// Checks that `manifest` describes launchable kernels: a shape and layouts
/// that hold it, at least one pass per transform, buffer roles and routes
/// that make sense, and block shapes within both the `device` target and
/// [`Target::PORTABLE`].
pub(crate) fn check_manifest(manifest: &Manifest, device: &Target) -> Result<()> {
    let invalid = |reason: String| Err(Error::InvalidManifest(reason));
    if manifest.n == 0 {
        return invalid("n is 0; a transform has at least one point".into());
    }
    check_shape(manifest)?;
    if manifest.transforms.is_empty() {
        return invalid("it lists no transform".into());
    }
    for (i, transform) in manifest.transforms.iter().enumerate() {
        if manifest.transforms[..i]
            .iter()
            .any(|t| t.direction == transform.direction)
        {
            return invalid(format!(
                "it lists the {} transform twice",
                transform.direction
            ));
        }
        if transform.passes.is_empty() {
            return invalid(format!("the {} transform has no pass", transform.direction));
        }
        for pass in &transform.passes {
            check_pass(pass)?;
            check_twiddle_args(manifest, pass)?;
            check_block(pass, device)?;
        }
        check_route(manifest, transform)?;
    }
    Ok(())
}

/// The shape is the product `n`, and both layouts hold it (in place, in one
/// layout).
fn check_shape(manifest: &Manifest) -> Result<()> {
    let invalid = |reason: String| Err(Error::InvalidManifest(reason));
    let shape = &manifest.shape;
    if shape.is_empty() || shape.contains(&0) {
        return invalid(format!(
            "the shape {shape:?} must list at least one axis, none of length 0"
        ));
    }
    if shape.iter().try_fold(1usize, |p, &a| p.checked_mul(a)) != Some(manifest.n) {
        return invalid(format!(
            "n is {} but the shape {shape:?} holds another number of points",
            manifest.n
        ));
    }
    for (layout, role) in [(&manifest.input, "input"), (&manifest.output, "output")] {
        if let Err(why) = layout.check(shape) {
            return invalid(format!("the {role} layout {layout:?}: {why}"));
        }
    }
    if manifest.placement == Placement::InPlace && manifest.input != manifest.output {
        return invalid(format!(
            "in place, the output layout {:?} must be the input's {:?}",
            manifest.output, manifest.input
        ));
    }
    Ok(())
}

/// The block shape and shared memory of `pass`, within both targets.
fn check_block(pass: &PassLaunch, device: &Target) -> Result<()> {
    if pass.block.contains(&0) {
        return Err(Error::InvalidManifest(format!(
            "kernel `{}` has a block of {:?}; every dimension must be at least 1",
            pass.kernel, pass.block
        )));
    }
    within_limits(pass, device, |target| {
        target.check_block(pass.block, pass.shared_bytes)
    })?;
    check_opt_in(
        pass,
        device,
        "static and dynamic shared memory (bytes)",
        pass.shared_bytes.into(),
    )
}

/// Dynamic shared memory is opted into per device, so the kernel's static
/// plus dynamic memory is held to the `device`'s opt-in limit alone (not
/// [`Target::PORTABLE`]'s: a plan with it is made for one device's target).
fn check_opt_in(
    pass: &PassLaunch,
    device: &Target,
    what: &'static str,
    static_bytes: u64,
) -> Result<()> {
    if pass.dynamic_shared_bytes == 0 {
        return Ok(());
    }
    let total = static_bytes + u64::from(pass.dynamic_shared_bytes);
    device
        .check(what, total, device.max_opt_in_shared_bytes as u64)
        .map_err(|over| launch_limit(pass, over))
}

/// Runs `check` against [`Target::PORTABLE`] and then against `device`.
fn within_limits(
    pass: &PassLaunch,
    device: &Target,
    check: impl Fn(&Target) -> std::result::Result<(), LimitExceeded>,
) -> Result<()> {
    for target in [&Target::PORTABLE, device] {
        check(target).map_err(|over| launch_limit(pass, over))?;
    }
    Ok(())
}

/// The error of `pass` going over a limit.
fn launch_limit(pass: &PassLaunch, over: LimitExceeded) -> Error {
    Error::LaunchLimit {
        kernel: pass.kernel.clone(),
        what: over.what,
        value: over.value,
        max: over.max,
        limits: over.limits,
    }
}

/// What the backend reports about one compiled kernel, which its compiler
/// decided and the manifest could only promise.
pub(crate) struct CompiledKernel {
    /// How the backend calls the kernel's static shared memory in errors.
    pub shared_words: &'static str,
    /// Static shared (local) memory the compiled kernel uses, bytes.
    pub shared_bytes: u64,
    /// The largest block the kernel runs with (launch bounds and registers
    /// lower it below the device's limit).
    pub max_threads_per_block: u64,
}

/// Checks what the compiled kernel of `pass` reports: its shared memory
/// within both targets, and the manifest's block within what it runs with.
pub(crate) fn check_compiled(
    pass: &PassLaunch,
    device: &Target,
    compiled: &CompiledKernel,
) -> Result<()> {
    within_limits(pass, device, |target| {
        target.check(
            compiled.shared_words,
            compiled.shared_bytes,
            target.max_static_shared_bytes as u64,
        )
    })?;
    check_opt_in(
        pass,
        device,
        "static shared memory of the compiled kernel and dynamic (bytes)",
        compiled.shared_bytes,
    )?;
    let threads: u64 = pass.block.iter().map(|&b| u64::from(b)).product();
    device
        .check("threads per block", threads, compiled.max_threads_per_block)
        .map_err(|over| {
            let limits = format!("the compiled kernel on `{}`", device.name);
            launch_limit(pass, LimitExceeded { limits, ..over })
        })
}

/// A pass's twiddle arguments name tables the manifest holds.
fn check_twiddle_args(manifest: &Manifest, pass: &PassLaunch) -> Result<()> {
    for arg in &pass.args {
        if let KernelArg::Twiddles { table, .. } = arg {
            match manifest.twiddle_tables.get(*table) {
                Some(values) if !values.is_empty() => {}
                Some(_) => {
                    return Err(Error::InvalidManifest(format!(
                        "kernel `{}` reads twiddle table {table}, which is empty",
                        pass.kernel
                    )))
                }
                None => {
                    return Err(Error::InvalidManifest(format!(
                        "kernel `{}` reads twiddle table {table}, but the manifest holds {}",
                        pass.kernel,
                        manifest.twiddle_tables.len()
                    )))
                }
            }
        }
    }
    Ok(())
}

fn check_pass(pass: &PassLaunch) -> Result<()> {
    let invalid = |reason: &str| {
        Err(Error::InvalidManifest(format!(
            "kernel `{}`: {reason}",
            pass.kernel
        )))
    };
    if pass.kernel.is_empty() || pass.kernel.contains('\0') {
        return invalid("the name must be a non-empty C identifier");
    }
    if let GridRule::FftsPerBlock {
        ffts_per_block: 0, ..
    } = pass.grid
    {
        return invalid("ffts_per_block is 0");
    }
    let count = |role: fn(&KernelArg) -> bool| pass.args.iter().filter(|a| role(a)).count();
    let inputs = count(|a| matches!(a, KernelArg::Input { .. }));
    let outputs = count(|a| matches!(a, KernelArg::Output { .. }));
    let in_outs = count(|a| matches!(a, KernelArg::InOut { .. }));
    let batches = count(|a| matches!(a, KernelArg::BatchCount { .. }));
    match (inputs, outputs, in_outs) {
        (1, 1, 0) | (0, 0, 1) => {}
        _ => {
            return invalid(
                "a pass takes either one input and one output buffer, or one in-out buffer",
            )
        }
    }
    if batches > 1 {
        return invalid("the batch count is passed more than once");
    }
    if count(|a| matches!(a, KernelArg::Twiddles { .. })) > 1 {
        return invalid("a pass reads at most one twiddle table");
    }
    Ok(())
}

/// The buffers of one call, by role, and what their lengths count.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Buffers<'a> {
    /// Host slices, in complex values (the elements of their layouts:
    /// `n * batch` each when dense).
    Host(&'a [(&'static str, usize)]),
    /// Device buffers, in reals (twice their layouts' elements).
    Device(&'a [(&'static str, usize)]),
}

/// Checks one call before any data moves and returns the transform to run,
/// in the order a caller fixes them: the method matches the manifest's
/// placement (`called`; `methods` spells the caller's out-of-place and
/// in-place methods), then the element type and the batch, then the lengths
/// of host slices, the direction, and the lengths of device buffers.
pub(crate) fn check_call<'m, T: Real>(
    manifest: &'m Manifest,
    direction: Direction,
    called: Placement,
    methods: [&'static str; 2],
    buffers: Buffers<'_>,
    batch: usize,
) -> Result<&'m TransformLaunch> {
    if manifest.placement != called {
        return Err(Error::PlacementMismatch {
            manifest: manifest.placement,
            use_instead: match manifest.placement {
                Placement::OutOfPlace => methods[0],
                Placement::InPlace => methods[1],
            },
        });
    }
    if T::PRECISION != manifest.precision {
        return Err(Error::PrecisionMismatch {
            manifest: manifest.precision,
            buffer: T::PRECISION,
        });
    }
    check_batch(manifest, batch)?;
    // Bounded by check_batch: every buffer's bytes fit in isize::MAX.
    let expected = |buffer: &str| match buffer {
        "output" => manifest.output_elements(direction, batch),
        _ => manifest.input_elements(direction, batch),
    };
    if let Buffers::Host(buffers) = buffers {
        for &(buffer, got) in buffers {
            if got != expected(buffer) {
                return Err(Error::WrongLength {
                    buffer,
                    expected: expected(buffer),
                    got,
                });
            }
        }
    }
    let transform = manifest
        .transform(direction)
        .ok_or_else(|| Error::MissingDirection {
            direction,
            available: manifest
                .transforms
                .iter()
                .map(|t| t.direction.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    if let Buffers::Device(buffers) = buffers {
        for &(buffer, got) in buffers {
            if got != 2 * expected(buffer) {
                return Err(Error::WrongDeviceLength {
                    buffer,
                    expected: 2 * expected(buffer),
                    got,
                });
            }
        }
    }
    Ok(transform)
}

/// Checks a call of the host conveniences, `run` (with an `output`) or
/// `run_in_place` (`input` is the data), and returns the transform to run.
pub(crate) fn check_host_call<'m, T: Real>(
    manifest: &'m Manifest,
    direction: Direction,
    input: &[Complex<T>],
    output: Option<&[Complex<T>]>,
    batch: usize,
) -> Result<&'m TransformLaunch> {
    let (called, buffers) = match output {
        Some(output) => (
            Placement::OutOfPlace,
            vec![("input", input.len()), ("output", output.len())],
        ),
        None => (Placement::InPlace, vec![("data", input.len())]),
    };
    let buffers = Buffers::Host(&buffers);
    check_call::<T>(manifest, direction, called, HOST_METHODS, buffers, batch)
}

/// How errors name the device buffer of a role.
pub(crate) fn device_buffer_words(buffer: &str) -> &'static str {
    match buffer {
        "input" => "input buffer",
        "output" => "output buffer",
        "workspace" => "workspace buffer",
        _ => "data buffer",
    }
}

/// Blocks (work-groups) per dimension of every pass for `batch` transforms,
/// checked against the grid limits of both the `device` target and
/// [`Target::PORTABLE`]. Grid limits depend on the batch, so every pass is
/// checked before any is launched.
pub(crate) fn grids_for(
    passes: &[PassLaunch],
    batch: usize,
    device: &Target,
) -> Result<Vec<[usize; 3]>> {
    passes
        .iter()
        .map(|pass| {
            let grid = pass.grid.grid(batch);
            within_limits(pass, device, |target| target.check_grid(grid))?;
            Ok(grid)
        })
        .collect()
}
