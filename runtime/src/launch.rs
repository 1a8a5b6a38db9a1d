//! Backend-neutral launch logic: checking a manifest once when kernels are
//! loaded (its shape, each side's layout, and in place the overlay of the
//! sides; the route of each transform's passes from [`crate::route`]),
//! checking what the compiled kernels report, and the grids of a batch.
//! Each call's buffers are checked by [`crate::call`]. OpenCL and CUDA
//! execution share it, so both reject the same mistakes with the same errors.
//!
//! Every launch shape is checked twice: against [`Target::PORTABLE`], what
//! every GPU accepts, and against the device's own [`Target`]. A CPU OpenCL
//! implementation such as PoCL accepts work-groups of 4096 items and
//! megabytes of local memory, which no GPU does; the first check keeps a plan
//! that passes the tests on PoCL from failing on a real GPU.

use crate::error::{Error, Result};
use crate::route::check_route;
use fftgen_manifest::{
    Direction, GridRule, KernelArg, Layout, LimitExceeded, Manifest, PassLaunch, Placement, Target,
    TransformKind,
};

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

/// The shape is the product `n`, and both layouts hold their sides (for
/// `r2c`, the input the reals and the output the half spectrum); in place,
/// the output overlays the input: the same layout, or for `r2c` the complex
/// view of padded real rows.
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
    let sides = [
        (manifest.input_side(Direction::Forward), "input"),
        (manifest.output_side(Direction::Forward), "output"),
    ];
    for (side, role) in sides {
        if let Err(why) = side.layout.check(&side.shape) {
            return invalid(format!(
                "the {role} layout {:?} of {} values of shape {:?}: {why}",
                side.layout, side.element, side.shape
            ));
        }
    }
    if manifest.placement == Placement::InPlace {
        let overlays = match manifest.kind {
            TransformKind::C2c => manifest.input == manifest.output,
            TransformKind::R2c => half_spectrum_overlays_reals(&manifest.input, &manifest.output),
        };
        if !overlays {
            return invalid(format!(
                "in place, the output layout {:?} must overlay the input's {:?} (the same \
                 layout; for r2c the complex view of the real rows: stride 1 along the last \
                 axis, every other stride and the distance half the reals')",
                manifest.output, manifest.input
            ));
        }
    }
    Ok(())
}

/// Whether the half spectrum's layout `half` (complex elements) is the
/// complex view of the real layout `real` (real elements) of one buffer, as
/// an in-place `r2c` transform needs: each complex value over the two reals
/// it comes from, the last axis's reals adjacent.
fn half_spectrum_overlays_reals(real: &Layout, half: &Layout) -> bool {
    let Some(last) = real.strides.len().checked_sub(1) else {
        return false;
    };
    half.strides.len() == real.strides.len()
        && real.strides[last] == 1
        && half.strides[last] == 1
        && (0..last).all(|a| real.strides[a] == 2 * half.strides[a])
        && real.distance == 2 * half.distance
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::tests::r2c;

    #[test]
    fn r2c_manifests_are_valid_out_of_place_and_in_place() {
        for placement in [Placement::OutOfPlace, Placement::InPlace] {
            for shape in [&[16][..], &[15], &[4, 6], &[3, 4, 5]] {
                check_manifest(&r2c(shape, placement), &Target::PORTABLE)
                    .unwrap_or_else(|e| panic!("{shape:?} {placement}: {e}"));
            }
        }
        // In place, the half spectrum must lie over the padded real rows.
        let mut unpadded = r2c(&[4, 6], Placement::InPlace);
        unpadded.input = Layout::contiguous(&[4, 6]);
        let err = check_manifest(&unpadded, &Target::PORTABLE).unwrap_err();
        assert!(err.to_string().contains("must overlay"), "{err}");
    }

    /// A manifest whose layout reaches past what a buffer can address (written
    /// by hand or by another tool: fftgen's planner refuses such layouts) is
    /// refused when the kernels are loaded, before any buffer check could
    /// wrap around: a huge stride, or a distance past the first transform.
    #[test]
    fn layouts_whose_reach_overflows_are_refused() {
        for (strides, distance) in [(vec![usize::MAX, 1], 8), (vec![6, 1], usize::MAX)] {
            let mut manifest = r2c(&[4, 6], Placement::OutOfPlace);
            manifest.input = Layout { strides, distance };
            let err = check_manifest(&manifest, &Target::PORTABLE).unwrap_err();
            assert!(err.to_string().contains("reach"), "{err}");
        }
    }
}
