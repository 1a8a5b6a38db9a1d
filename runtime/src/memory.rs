//! How much memory a batch of transforms needs, and whether a device has it.
//! Buffers are sized by the manifest's sides (`(batch - 1) * distance +
//! span` elements of the side's type, reals on the real side of `r2c` and
//! complex values elsewhere; `batch * n` when dense) and its workspace
//! (`batch * scratch_elements` complex values). The largest batch keeps every index the
//! kernels and the host compute in range: the kernels' 32-bit batch argument
//! and grid (`batch * ffts_per_transform` short FFTs per pass), and every
//! buffer's bytes within `isize::MAX`, which Rust's slices and the pointer
//! arithmetic assume.

use crate::error::{Error, Result};
use fftgen_manifest::{Direction, GridRule, Manifest, Side};

/// The largest batch `manifest` runs with (at least 1 for a checked manifest
/// whose one transform fits memory; 0 when even one does not). Each side's
/// buffer counts its own elements (reals on the real side of `r2c`); in
/// place the one buffer holds both sides, and both bounds hold.
pub(crate) fn max_batch(manifest: &Manifest) -> usize {
    // (batch - 1) * distance + span <= elements that fit isize::MAX bytes.
    let by_side = |side: Side<'_>| {
        let elements = isize::MAX as usize / side.element.bytes(manifest.precision);
        let span = side.layout.span(&side.shape);
        match elements.checked_sub(span) {
            Some(room) => (room / side.layout.distance.max(1)).saturating_add(1),
            None => 0,
        }
    };
    let ffts_per_transform = manifest
        .transforms
        .iter()
        .flat_map(|t| &t.passes)
        .map(|p| match p.grid {
            GridRule::FftsPerBlock {
                ffts_per_transform, ..
            } => ffts_per_transform.max(1),
        })
        .max()
        .unwrap_or(1);
    let by_grid = (u64::from(u32::MAX) / ffts_per_transform) as usize;
    let complex = manifest.precision.complex_bytes();
    let by_scratch = (isize::MAX as usize / complex)
        .checked_div(manifest.scratch_elements)
        .unwrap_or(usize::MAX);
    by_grid
        .min(by_side(manifest.input_side(Direction::Forward)))
        .min(by_side(manifest.output_side(Direction::Forward)))
        .min(by_scratch)
}

/// Bytes of workspace `batch` transforms need (`batch <= max_batch`, so this
/// does not overflow).
pub(crate) fn scratch_bytes(manifest: &Manifest, batch: usize) -> usize {
    batch * manifest.scratch_elements * manifest.precision.complex_bytes()
}

/// Checks `batch` against [`max_batch`].
pub(crate) fn check_batch(manifest: &Manifest, batch: usize) -> Result<()> {
    if batch == 0 {
        return Err(Error::ZeroBatch);
    }
    let max = max_batch(manifest);
    if batch > max {
        return Err(Error::BatchTooLarge {
            batch,
            n: manifest.n,
            max,
        });
    }
    Ok(())
}

/// Bytes of a workspace for `batch` transforms, checked against the batch
/// bound first.
pub(crate) fn workspace_bytes(manifest: &Manifest, batch: usize) -> Result<usize> {
    if batch > 0 {
        check_batch(manifest, batch)?;
    }
    Ok(scratch_bytes(manifest, batch))
}

/// What a device can hold: all its buffers together, and one buffer alone.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DeviceMemory {
    /// Bytes free (CUDA) or in all (OpenCL, which reports no free memory).
    pub available: u64,
    /// How `available` was measured, for messages.
    pub source: &'static str,
    /// The largest single buffer, bytes, where the device limits it.
    pub max_buffer: Option<u64>,
}

/// The device buffers a host call (`run`, `run_in_place`) allocates, named
/// as errors name them: the input (the data in place), the output, and the
/// workspace bytes where the transform needs one.
pub(crate) fn host_call_buffers(
    input_bytes: usize,
    output_bytes: Option<usize>,
    workspace_bytes: Option<usize>,
) -> Vec<(&'static str, usize)> {
    let input = match output_bytes {
        Some(_) => "input buffer",
        None => "data buffer",
    };
    let mut buffers = vec![(input, input_bytes)];
    buffers.extend(output_bytes.map(|bytes| ("output buffer", bytes)));
    buffers.extend(workspace_bytes.map(|bytes| ("workspace", bytes)));
    buffers
}

/// Checks that `buffers` (what each is, bytes) fit `memory` before any is
/// allocated.
pub(crate) fn check_fits(memory: DeviceMemory, buffers: &[(&'static str, usize)]) -> Result<()> {
    if let Some(max) = memory.max_buffer {
        if let Some(&(what, bytes)) = buffers.iter().find(|&&(_, bytes)| bytes as u64 > max) {
            return Err(Error::DeviceMemory {
                needed: bytes as u64,
                available: max,
                what: format!("the {what} (larger than the largest buffer the device allocates, CL_DEVICE_MAX_MEM_ALLOC_SIZE)"),
            });
        }
    }
    let needed: u64 = buffers.iter().map(|&(_, bytes)| bytes as u64).sum();
    if needed > memory.available {
        let names: Vec<&str> = buffers
            .iter()
            .filter(|&&(_, bytes)| bytes > 0)
            .map(|&(what, _)| what)
            .collect();
        return Err(Error::DeviceMemory {
            needed,
            available: memory.available,
            what: format!("{} ({})", names.join(" and "), memory.source),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fftgen_manifest::{
        Buffer, KernelArg, Layout, Normalization, PassLaunch, Placement, Precision, TransformKind,
        TransformLaunch,
    };

    fn manifest(shape: &[usize], scratch: usize, ffts_per_transform: u64) -> Manifest {
        Manifest {
            generator_version: "test".into(),
            n: shape.iter().product(),
            shape: shape.to_vec(),
            kind: TransformKind::C2c,
            precision: Precision::F64,
            normalization: Normalization::None,
            placement: Placement::OutOfPlace,
            input: Layout::contiguous(shape),
            output: Layout::contiguous(shape),
            input_blocks: None,
            output_blocks: None,
            scratch_elements: scratch,
            transforms: vec![TransformLaunch {
                direction: Direction::Forward,
                passes: vec![PassLaunch {
                    kernel: "k".into(),
                    block: [1, 1, 1],
                    grid: GridRule::FftsPerBlock {
                        ffts_per_block: 1,
                        ffts_per_transform,
                        transforms_per_fft: 1,
                    },
                    shared_bytes: 0,
                    dynamic_shared_bytes: 0,
                    reads: Buffer::Input,
                    writes: Buffer::Output,
                    args: vec![KernelArg::InOut { name: "x".into() }],
                }],
            }],
            twiddle_tables: vec![],
        }
    }

    #[test]
    fn the_batch_bound_keeps_indices_and_bytes_in_range() {
        assert_eq!(max_batch(&manifest(&[8], 0, 1)), u32::MAX as usize);
        // Each of 64 row FFTs is a block's: the grid bounds the batch.
        assert_eq!(
            max_batch(&manifest(&[64, 64], 0, 64)),
            u32::MAX as usize / 64
        );
        // Bytes: a 2^40-point transform of 16-byte values.
        let huge = manifest(&[1 << 40], 0, 1);
        let max = max_batch(&huge);
        assert_eq!(max, (isize::MAX as usize / 16 - (1 << 40)) / (1 << 40) + 1);
        assert!((max * (1usize << 40)).checked_mul(16).is_some());
        let scratchy = manifest(&[8], 1 << 50, 1);
        assert_eq!(max_batch(&scratchy), isize::MAX as usize / 16 / (1 << 50));
        assert_eq!(check_batch(&scratchy, 0), Err(Error::ZeroBatch));
        assert!(matches!(
            check_batch(&scratchy, 1 << 20),
            Err(Error::BatchTooLarge { .. })
        ));
        assert_eq!(workspace_bytes(&scratchy, 3), Ok(3 << 54));
    }

    #[test]
    fn device_memory_is_checked_per_buffer_and_in_all() {
        let memory = DeviceMemory {
            available: 100,
            source: "test",
            max_buffer: Some(60),
        };
        assert!(check_fits(memory, &[("input buffer", 50), ("output buffer", 50)]).is_ok());
        let err = check_fits(memory, &[("input buffer", 70)]).unwrap_err();
        assert!(err.to_string().contains("MAX_MEM_ALLOC"), "{err}");
        let err = check_fits(memory, &[("input buffer", 50), ("workspace", 51)]).unwrap_err();
        assert_eq!(
            err,
            Error::DeviceMemory {
                needed: 101,
                available: 100,
                what: "input buffer and workspace (test)".into()
            }
        );
        assert!(err.to_string().contains("lower the batch"), "{err}");
    }
}
