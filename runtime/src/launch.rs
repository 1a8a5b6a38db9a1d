//! Backend-neutral launch logic: checking a manifest once when kernels are
//! loaded, checking each call's buffers before any data moves, and routing
//! data between device buffers across the passes of a transform. OpenCL and
//! (later) CUDA execution share it, so both reject the same mistakes with the
//! same errors.

use crate::error::{Error, Result};
use crate::limits::{DeviceLimits, GPU_LIMITS};
use crate::manifest::{
    Direction, GridRule, KernelArg, Manifest, PassLaunch, Placement, TransformLaunch,
};
use crate::real::Real;

/// Checks that `manifest` describes launchable kernels: a length, at least
/// one pass per transform, buffer roles that make sense, and block shapes
/// within both `device` limits and [`GPU_LIMITS`].
pub(crate) fn check_manifest(manifest: &Manifest, device: &DeviceLimits) -> Result<()> {
    let invalid = |reason: String| Err(Error::InvalidManifest(reason));
    if manifest.n == 0 {
        return invalid("n is 0; a transform has at least one point".into());
    }
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
            GPU_LIMITS.check_block(pass)?;
            device.check_block(pass)?;
        }
    }
    Ok(())
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
    if let GridRule::FftsPerBlock { ffts_per_block: 0 } = pass.grid {
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

/// Checks one call before any data moves and returns the transform to run.
/// `called` is the placement of the method the caller used.
pub(crate) fn check_call<'m, T: Real>(
    manifest: &'m Manifest,
    direction: Direction,
    called: Placement,
    buffers: &[(&'static str, usize)],
    batch: usize,
) -> Result<&'m TransformLaunch> {
    if manifest.placement != called {
        let use_instead = match manifest.placement {
            Placement::OutOfPlace => "run(direction, input, output, batch)",
            Placement::InPlace => "run_in_place(direction, data, batch)",
        };
        return Err(Error::PlacementMismatch {
            manifest: manifest.placement,
            use_instead,
        });
    }
    if T::PRECISION != manifest.precision {
        return Err(Error::PrecisionMismatch {
            manifest: manifest.precision,
            buffer: T::PRECISION,
        });
    }
    if batch == 0 {
        return Err(Error::ZeroBatch);
    }
    // The kernels take the batch as a 32-bit unsigned integer.
    let max = (u32::MAX as usize)
        .min(isize::MAX as usize / manifest.precision.complex_bytes() / manifest.n);
    if batch > max {
        return Err(Error::BatchTooLarge {
            batch,
            n: manifest.n,
            max,
        });
    }
    let expected = batch * manifest.n;
    for &(buffer, got) in buffers {
        if got != expected {
            return Err(Error::WrongLength {
                buffer,
                expected,
                got,
            });
        }
    }
    manifest
        .transform(direction)
        .ok_or_else(|| Error::MissingDirection {
            direction,
            available: manifest
                .transforms
                .iter()
                .map(|t| t.direction.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Which of the two device buffers a pass reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Route {
    /// Buffer bound to the Input or InOut argument.
    pub read: usize,
    /// Buffer bound to the Output or InOut argument.
    pub write: usize,
}

/// The buffers each pass uses, and the buffer that holds the result. The data
/// starts in buffer 0; a pass with an output buffer writes the other buffer
/// (ping-pong), an in-out pass stays where the data is.
pub(crate) fn route(passes: &[PassLaunch]) -> (Vec<Route>, usize) {
    let mut current = 0;
    let routes = passes
        .iter()
        .map(|pass| {
            let in_place = pass
                .args
                .iter()
                .any(|a| matches!(a, KernelArg::InOut { .. }));
            let read = current;
            if !in_place {
                current = 1 - current;
            }
            Route {
                read,
                write: current,
            }
        })
        .collect();
    (routes, current)
}

/// The checks every device-buffer call shares, in the order a caller fixes
/// them: the method matches the manifest's placement (`methods` spells the
/// out-of-place and in-place calls of the backend), then the element type and
/// the batch, then each buffer's length in reals (`2 * n * batch`).
pub(crate) fn check_device_call<'m, T: Real>(
    manifest: &'m Manifest,
    direction: Direction,
    called: Placement,
    methods: [&'static str; 2],
    lengths: &[(&'static str, usize)],
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
    let transform = check_call::<T>(manifest, direction, called, &[], batch)?;
    // check_call bounded batch * n * 2 reals by isize::MAX bytes.
    let expected = 2 * manifest.n * batch;
    for &(buffer, got) in lengths {
        if got != expected {
            return Err(Error::WrongDeviceLength {
                buffer,
                expected,
                got,
            });
        }
    }
    Ok(transform)
}

/// How errors name the device buffer of a role.
pub(crate) fn device_buffer_words(buffer: &str) -> &'static str {
    match buffer {
        "input" => "input buffer",
        "output" => "output buffer",
        _ => "data buffer",
    }
}

/// Device buffers a transform needs: one if every pass works in place.
pub(crate) fn buffers_needed(routes: &[Route]) -> usize {
    if routes.iter().all(|r| r.read == r.write) {
        1
    } else {
        2
    }
}

/// Blocks (work-groups) per dimension for `batch` transforms, checked against both the device's grid limits and [`GPU_LIMITS`].
pub(crate) fn grid_for(
    pass: &PassLaunch,
    batch: usize,
    device: &DeviceLimits,
) -> Result<[usize; 3]> {
    let grid = pass.grid.grid(batch);
    GPU_LIMITS.check_grid(pass, grid)?;
    device.check_grid(pass, grid)?;
    Ok(grid)
}
