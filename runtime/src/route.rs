//! Which device buffer each pass of a transform reads and writes when the
//! caller owns the buffers: the input of an out-of-place transform is read
//! only, the result must land in the output (or, in place, back in the data),
//! and an out-of-place pass never reads the buffer it writes (the generated
//! kernels take `__restrict__` pointers). The plan's scratch buffer takes the
//! intermediate results. Walking backwards from the buffer that must hold the
//! result fixes every pass's buffers; at most one device-to-device copy puts
//! the data where the first pass expects it.

use fftgen_manifest::{KernelArg, PassLaunch, Placement};

/// A device buffer of one launch. For in-place transforms `Output` is the
/// caller's data buffer and `Input` is not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    Input = 0,
    Output = 1,
    Scratch = 2,
}

/// The buffers of every pass of one transform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeviceRoute {
    /// A copy (from, to) of the whole batch before the first pass.
    pub copy_first: Option<(Slot, Slot)>,
    /// (read, write) of each pass, in order; equal for an in-out pass.
    pub passes: Vec<(Slot, Slot)>,
}

impl DeviceRoute {
    /// Routes `passes` of a transform whose manifest has `placement`.
    pub fn new(passes: &[PassLaunch], placement: Placement) -> Self {
        let other = |slot| match slot {
            Slot::Output => Slot::Scratch,
            _ => Slot::Output,
        };
        // Backwards from the result, which must end in Output.
        let mut location = Slot::Output;
        let mut routes: Vec<(Slot, Slot)> = passes
            .iter()
            .rev()
            .map(|pass| {
                let write = location;
                let read = if in_out(pass) { write } else { other(write) };
                location = read;
                (read, write)
            })
            .collect();
        routes.reverse();
        let start = location;

        let copy_first = match placement {
            Placement::InPlace => (start != Slot::Output).then_some((Slot::Output, start)),
            Placement::OutOfPlace => match (passes.first(), routes.first_mut()) {
                // An out-of-place first pass reads the caller's input directly.
                (Some(first), Some(route)) if !in_out(first) => {
                    route.0 = Slot::Input;
                    None
                }
                _ => Some((Slot::Input, start)),
            },
        };
        DeviceRoute {
            copy_first,
            passes: routes,
        }
    }

    /// Whether any pass or the first copy uses the scratch buffer.
    pub fn needs_scratch(&self) -> bool {
        let uses = |(a, b): (Slot, Slot)| a == Slot::Scratch || b == Slot::Scratch;
        self.copy_first.is_some_and(uses) || self.passes.iter().copied().any(uses)
    }
}

fn in_out(pass: &PassLaunch) -> bool {
    pass.args
        .iter()
        .any(|a| matches!(a, KernelArg::InOut { .. }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fftgen_manifest::GridRule;

    fn pass(in_place: bool) -> PassLaunch {
        let arg = |name: &str| name.to_string();
        PassLaunch {
            kernel: "k".into(),
            block: [1, 1, 1],
            grid: GridRule::FftsPerBlock {
                ffts_per_block: 1,
                ffts_per_transform: 1,
            },
            shared_bytes: 0,
            dynamic_shared_bytes: 0,
            reads: fftgen_manifest::Buffer::Input,
            writes: fftgen_manifest::Buffer::Output,
            args: if in_place {
                vec![KernelArg::InOut { name: arg("data") }]
            } else {
                vec![
                    KernelArg::Input { name: arg("in") },
                    KernelArg::Output { name: arg("out") },
                ]
            },
        }
    }

    /// Runs the route on symbolic buffers and checks every rule: the input is
    /// never written, out-of-place passes never read what they write, each
    /// pass reads the current data, and the result ends in Output.
    fn simulate(kinds: &[bool], placement: Placement) -> DeviceRoute {
        let passes: Vec<_> = kinds.iter().map(|&k| pass(k)).collect();
        let route = DeviceRoute::new(&passes, placement);
        let mut data = match placement {
            Placement::OutOfPlace => Slot::Input,
            Placement::InPlace => Slot::Output,
        };
        if let Some((from, to)) = route.copy_first {
            assert_eq!(from, data, "{kinds:?} {placement}");
            assert_ne!(to, Slot::Input);
            data = to;
        }
        for (&kind, &(read, write)) in kinds.iter().zip(&route.passes) {
            assert_eq!(read, data, "{kinds:?} {placement}: a pass reads stale data");
            assert_ne!(
                write,
                Slot::Input,
                "{kinds:?} {placement}: the input is written"
            );
            assert_eq!(kind, read == write, "{kinds:?} {placement}");
            data = write;
        }
        assert_eq!(data, Slot::Output, "{kinds:?} {placement}");
        route
    }

    #[test]
    fn every_sequence_of_up_to_six_passes_routes_correctly() {
        for len in 1..=6 {
            for bits in 0..(1u32 << len) {
                let kinds: Vec<bool> = (0..len).map(|i| bits >> i & 1 == 1).collect();
                simulate(&kinds, Placement::OutOfPlace);
                simulate(&kinds, Placement::InPlace);
            }
        }
    }

    #[test]
    fn single_pass_plans_need_no_scratch_and_no_copy() {
        for (kinds, placement) in [
            (&[false][..], Placement::OutOfPlace),
            (&[true][..], Placement::InPlace),
        ] {
            let route = simulate(kinds, placement);
            assert_eq!(route.copy_first, None);
            assert!(!route.needs_scratch());
        }
    }

    #[test]
    fn two_out_of_place_passes_ping_pong_through_scratch() {
        let route = simulate(&[false, false], Placement::OutOfPlace);
        assert_eq!(route.copy_first, None);
        assert_eq!(
            route.passes,
            vec![(Slot::Input, Slot::Scratch), (Slot::Scratch, Slot::Output)]
        );
        let in_place = simulate(&[false, false], Placement::InPlace);
        assert_eq!(in_place.copy_first, None);
        assert_eq!(
            in_place.passes,
            vec![(Slot::Output, Slot::Scratch), (Slot::Scratch, Slot::Output)]
        );
    }

    #[test]
    fn copies_happen_only_when_they_must() {
        // An in-out first pass may not write the caller's input: copy first.
        let route = simulate(&[true], Placement::OutOfPlace);
        assert_eq!(route.copy_first, Some((Slot::Input, Slot::Output)));
        assert!(!route.needs_scratch());
        // An odd number of out-of-place passes in place: the data moves once.
        let route = simulate(&[false], Placement::InPlace);
        assert_eq!(route.copy_first, Some((Slot::Output, Slot::Scratch)));
        assert!(route.needs_scratch());
    }
}
