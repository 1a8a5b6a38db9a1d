//! Which device buffer each pass of a transform reads and writes. The
//! generator decides it and states it in the manifest (`reads`, `writes` of
//! every [`PassLaunch`]); the runtime checks once, at load, that the route is
//! one the buffers allow, and then only binds pointers: the caller's input
//! and output (both the one data buffer in place) and the plan's workspace.
//!
//! A route is sound when the first pass reads the input, each pass reads
//! what the one before it wrote, the last writes the output, an out-of-place
//! transform never writes its input (the caller's data stays intact), and a
//! pass takes one in-out pointer exactly when it reads and writes the same
//! buffer (the out-of-place kernels take `__restrict__` pointers, so they
//! must never get the same buffer twice).

use crate::error::{Error, Result};
use fftgen_manifest::{Buffer, KernelArg, Manifest, PassLaunch, Placement, TransformLaunch};

/// The buffer `buffer` names under `placement`: in place, the input and the
/// output are the one data buffer (called `Input` here).
fn resolved(buffer: Buffer, placement: Placement) -> Buffer {
    match (placement, buffer) {
        (Placement::InPlace, Buffer::Output) => Buffer::Input,
        _ => buffer,
    }
}

/// How messages name a buffer under `placement`.
fn words(buffer: Buffer, placement: Placement) -> &'static str {
    match (resolved(buffer, placement), placement) {
        (Buffer::Input, Placement::InPlace) => "the data",
        (Buffer::Input, Placement::OutOfPlace) => "the input",
        (Buffer::Output, _) => "the output",
        (Buffer::Scratch, _) => "the scratch buffer",
    }
}

/// Whether `pass` takes one in-out pointer (check_pass made sure it takes
/// either that or one input and one output pointer).
fn in_out(pass: &PassLaunch) -> bool {
    pass.args
        .iter()
        .any(|a| matches!(a, KernelArg::InOut { .. }))
}

/// Checks the route of every pass of `transform` (see the module's rules).
pub(crate) fn check_route(manifest: &Manifest, transform: &TransformLaunch) -> Result<()> {
    let placement = manifest.placement;
    let direction = transform.direction;
    let invalid = |pass: &PassLaunch, why: String| {
        Err(Error::InvalidManifest(format!(
            "the {direction} transform's pass `{}` {why}; the generator must route the passes \
             from the input through the output (regenerate the kernels)",
            pass.kernel
        )))
    };
    let mut holds = Buffer::Input;
    let last = transform.passes.len().saturating_sub(1);
    for (i, pass) in transform.passes.iter().enumerate() {
        let (reads, writes) = (
            resolved(pass.reads, placement),
            resolved(pass.writes, placement),
        );
        if reads != holds {
            let holder = if i == 0 {
                "the first pass must read the input".to_string()
            } else {
                format!("the pass before it wrote {}", words(holds, placement))
            };
            return invalid(
                pass,
                format!("reads {} but {holder}", words(reads, placement)),
            );
        }
        if placement == Placement::OutOfPlace && writes == Buffer::Input {
            return invalid(
                pass,
                "writes the input, which an out-of-place transform must leave intact".into(),
            );
        }
        if in_out(pass) != (reads == writes) {
            let why = if in_out(pass) {
                format!(
                    "takes one in-out pointer but reads {} and writes {}",
                    words(reads, placement),
                    words(writes, placement)
                )
            } else {
                format!(
                    "takes an input and an output pointer but reads and writes {} \
                     (only an in-out pass may)",
                    words(reads, placement)
                )
            };
            return invalid(pass, why);
        }
        if manifest.scratch_elements == 0 && (reads == Buffer::Scratch || writes == Buffer::Scratch)
        {
            return invalid(
                pass,
                "uses the scratch buffer, but the manifest's scratch_elements is 0".into(),
            );
        }
        if i == last && writes != resolved(Buffer::Output, placement) {
            return invalid(
                pass,
                format!(
                    "is the last and writes {}; the last pass must write {}",
                    words(writes, placement),
                    words(Buffer::Output, placement)
                ),
            );
        }
        holds = writes;
    }
    Ok(())
}

/// Whether any pass of `transform` reads or writes the scratch buffer.
pub(crate) fn needs_scratch(transform: &TransformLaunch) -> bool {
    transform
        .passes
        .iter()
        .any(|p| p.reads == Buffer::Scratch || p.writes == Buffer::Scratch)
}

/// The pointer (or handle) bound for `buffer`: `caller` holds the input's and
/// the output's (both the data buffer's in place), `scratch` the workspace's.
pub(crate) fn bind<P: Copy>(buffer: Buffer, caller: [P; 2], scratch: P) -> P {
    match buffer {
        Buffer::Input => caller[0],
        Buffer::Output => caller[1],
        Buffer::Scratch => scratch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fftgen_manifest::{Direction, GridRule, Layout, Normalization, Precision, TransformKind};

    fn pass(reads: Buffer, writes: Buffer, in_out: bool) -> PassLaunch {
        let name = |n: &str| n.to_string();
        PassLaunch {
            kernel: "k".into(),
            block: [1, 1, 1],
            grid: GridRule::FftsPerBlock {
                ffts_per_block: 1,
                ffts_per_transform: 1,
                transforms_per_fft: 1,
            },
            shared_bytes: 0,
            dynamic_shared_bytes: 0,
            reads,
            writes,
            args: if in_out {
                vec![KernelArg::InOut { name: name("data") }]
            } else {
                vec![
                    KernelArg::Input { name: name("in") },
                    KernelArg::Output { name: name("out") },
                ]
            },
        }
    }

    fn check(placement: Placement, scratch: usize, passes: Vec<PassLaunch>) -> Result<()> {
        let manifest = Manifest {
            generator_version: "test".into(),
            n: 4,
            shape: vec![4],
            kind: TransformKind::C2c,
            precision: Precision::F32,
            normalization: Normalization::None,
            placement,
            input: Layout::contiguous(&[4]),
            output: Layout::contiguous(&[4]),
            input_blocks: None,
            output_blocks: None,
            scratch_elements: scratch,
            transforms: vec![],
            twiddle_tables: vec![],
        };
        let transform = TransformLaunch {
            direction: Direction::Forward,
            passes,
        };
        check_route(&manifest, &transform)
    }

    fn message(result: Result<()>) -> String {
        match result {
            Err(Error::InvalidManifest(why)) => why,
            other => panic!("expected an invalid manifest, got {other:?}"),
        }
    }

    use Buffer::{Input as I, Output as O, Scratch as S};

    #[test]
    fn sound_routes_pass() {
        let oop = Placement::OutOfPlace;
        check(oop, 0, vec![pass(I, O, false)]).unwrap();
        check(oop, 4, vec![pass(I, S, false), pass(S, O, false)]).unwrap();
        check(
            oop,
            4,
            vec![pass(I, O, false), pass(O, S, false), pass(S, O, false)],
        )
        .unwrap();
        check(oop, 0, vec![pass(I, O, false), pass(O, O, true)]).unwrap();
        // In place, Input and Output name the one data buffer.
        let ip = Placement::InPlace;
        check(ip, 0, vec![pass(I, I, true)]).unwrap();
        check(ip, 0, vec![pass(I, O, true)]).unwrap();
        check(
            ip,
            4,
            vec![
                pass(O, O, true),
                pass(I, S, false),
                pass(S, S, true),
                pass(S, O, false),
            ],
        )
        .unwrap();
    }

    #[test]
    fn unsound_routes_say_what_is_wrong() {
        let oop = Placement::OutOfPlace;
        let why = message(check(oop, 4, vec![pass(S, O, false)]));
        assert!(why.contains("first pass must read the input"), "{why}");
        let why = message(check(oop, 4, vec![pass(I, S, false)]));
        assert!(why.contains("last pass must write the output"), "{why}");
        let why = message(check(oop, 4, vec![pass(I, S, false), pass(O, O, true)]));
        assert!(why.contains("wrote the scratch buffer"), "{why}");
        let why = message(check(oop, 0, vec![pass(I, I, true), pass(I, O, false)]));
        assert!(why.contains("leave intact"), "{why}");
        let why = message(check(oop, 0, vec![pass(I, O, true)]));
        assert!(why.contains("in-out pointer"), "{why}");
        let why = message(check(oop, 0, vec![pass(I, O, false), pass(O, O, false)]));
        assert!(why.contains("only an in-out pass may"), "{why}");
        let why = message(check(oop, 0, vec![pass(I, S, false), pass(S, O, false)]));
        assert!(why.contains("scratch_elements is 0"), "{why}");
        // In place, reading and writing the data is one buffer: in-out only.
        let why = message(check(Placement::InPlace, 0, vec![pass(I, O, false)]));
        assert!(why.contains("reads and writes the data"), "{why}");
    }

    #[test]
    fn scratch_is_needed_only_where_a_pass_uses_it() {
        let transform = |passes| TransformLaunch {
            direction: Direction::Inverse,
            passes,
        };
        assert!(!needs_scratch(&transform(vec![pass(I, O, false)])));
        assert!(needs_scratch(&transform(vec![
            pass(I, S, false),
            pass(S, O, false)
        ])));
        assert_eq!(bind(S, [1, 2], 3), 3);
        assert_eq!(bind(O, [1, 2], 3), 2);
    }
}
