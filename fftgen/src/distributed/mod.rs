//! A 2D or 3D transform spread over several GPUs (FFTW-MPI's and heFFTe's
//! slab and pencil decompositions, cuFFTMp's distributions): each GPU (a
//! rank) holds a share of the array, transforms the axes it holds whole,
//! and trades blocks with its peers in an all-to-all so that the next axes
//! become whole. The plan is data like a single-GPU [`Plan`]: every local
//! step is a plan of its own, whose passes pack the blocks a rank sends in
//! their stores and unpack those it received in their loads
//! ([`crate::Blocks`]), so no transpose kernel runs; the exchanges only
//! name their peers and block sizes. [`decompose`] makes the plan.

pub mod decompose;

pub use decompose::plan_distributed;

use crate::plan::Plan;
use crate::{FftSpec, Normalization, Precision, TransformKind};
use serde::Serialize;

/// A transform to spread over `gpus` ranks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DistributedSpec {
    /// The whole transform: its shape (2D or 3D), kind, precision,
    /// normalization and target. Layouts are dense: each rank's share is a
    /// row-major array of its own.
    pub spec: FftSpec,
    pub gpus: usize,
    /// The process grid: `[P]` cuts the first axis in slabs, `[P0, P1]` the
    /// first two in pencils (3D). `None`: slabs where P divides the axes
    /// they need, else the squarest pencil grid that does, else slabs of
    /// n / P rounded up, the last padded ([`Distribution`]).
    pub grid: Option<Vec<usize>>,
    /// Chunks a slab's exchange is cut into, each overlapping the next
    /// chunk's kernels. `None`: the planner's choice ([`decompose::CHUNKS`]
    /// for 3D slabs whose blocks are large, else 1).
    pub chunks: Option<usize>,
}

/// How an array is shared out: for each axis, the dimension of the process
/// grid that cuts it into ranges of n / P rounded up (rank coordinate c
/// holds range c; where P does not divide n the last range runs past the
/// axis, its tail padding that no result reads: FFTW-MPI's block
/// distribution), or `None` where every rank holds it whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Distribution {
    pub cut_by: Vec<Option<usize>>,
}

impl Distribution {
    /// The shape of every rank's share of an array of `shape`, padding
    /// included (every range is the same length).
    pub fn local_shape(&self, shape: &[usize], grid: &[usize]) -> Vec<usize> {
        shape
            .iter()
            .zip(&self.cut_by)
            .map(|(&n, cut)| cut.map_or(n, |d| n.div_ceil(grid[d])))
            .collect()
    }
}

/// Where a step reads or writes on each rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Region {
    /// The caller's input (for the inverse, the forward's output).
    Input,
    /// The caller's output.
    Output,
    /// The blocks a rank sends: one per peer, one after another.
    Send,
    /// The blocks a rank receives, in its peers' order.
    Recv,
}

/// One step of a distributed transform, as every rank runs it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Step {
    /// Kernels on each rank's share alone: `plan` (one direction) run as a
    /// batch of `batch_per_transform` of its transforms for each transform
    /// of the caller's batch.
    Local {
        plan: Plan,
        batch_per_transform: usize,
        reads: Region,
        writes: Region,
        /// Earlier steps (by index) this one must follow beyond the order
        /// of its own kind: local steps run in order on a rank's compute
        /// stream, exchanges on its communication stream, so that an
        /// exchange of one chunk overlaps the kernels of the next.
        after: Vec<usize>,
    },
    /// An all-to-all among the ranks that differ only in coordinate
    /// `grid_axis` of the process grid: block `s` of each transform of
    /// the batch in [`Region::Send`] goes to the peer of coordinate `s`,
    /// which receives it as block `r` (the sender's coordinate) of
    /// [`Region::Recv`]; a chunk's exchange moves its run of each block.
    Exchange {
        grid_axis: usize,
        peers: usize,
        /// Complex elements of one block of one transform.
        block_elements: usize,
        /// The run of each block this exchange moves: `run_elements` from
        /// `run_offset` in (the whole block, or one chunk's part of it).
        run_offset: usize,
        run_elements: usize,
        /// Earlier steps (by index) this one must follow (see `Local`).
        after: Vec<usize>,
    },
}

/// The plan of a [`DistributedSpec`]: the same on every rank.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DistributedPlan {
    /// The whole transform's shape (of the real side for `r2c`).
    pub shape: Vec<usize>,
    pub kind: TransformKind,
    pub precision: Precision,
    pub normalization: Normalization,
    /// The process grid; ranks are numbered row-major over it.
    pub grid: Vec<usize>,
    /// Where the forward's input is (the inverse's output).
    pub input: Distribution,
    /// Where the forward's output is (the inverse's input): the last axis
    /// exchanged stays cut, as FFTW-MPI's transposed output, which saves an
    /// exchange back.
    pub output: Distribution,
    pub forward: Vec<Step>,
    pub inverse: Vec<Step>,
}

impl DistributedPlan {
    pub fn ranks(&self) -> usize {
        self.grid.iter().product()
    }

    /// A rank's coordinates on the process grid.
    pub fn coords(&self, rank: usize) -> Vec<usize> {
        let mut coords = vec![0; self.grid.len()];
        let mut r = rank;
        for d in (0..self.grid.len()).rev() {
            coords[d] = r % self.grid[d];
            r /= self.grid[d];
        }
        coords
    }

    /// The rank at `coords`.
    pub fn rank_at(&self, coords: &[usize]) -> usize {
        coords
            .iter()
            .zip(&self.grid)
            .fold(0, |rank, (&c, &n)| rank * n + c)
    }

    /// The ranks `rank` trades with along `grid_axis`, in block order.
    pub fn peers(&self, rank: usize, grid_axis: usize) -> Vec<usize> {
        let mut coords = self.coords(rank);
        (0..self.grid[grid_axis])
            .map(|c| {
                coords[grid_axis] = c;
                self.rank_at(&coords)
            })
            .collect()
    }

    /// The complex side's shape (for `r2c`, the half spectrum).
    pub fn complex_shape(&self) -> Vec<usize> {
        self.kind.complex_shape(&self.shape)
    }

    /// Values of one transform each rank holds on the input side (reals
    /// for `r2c`) and on the output side (complex).
    pub fn local_input_shape(&self) -> Vec<usize> {
        self.input.local_shape(&self.shape, &self.grid)
    }

    pub fn local_output_shape(&self) -> Vec<usize> {
        self.output.local_shape(&self.complex_shape(), &self.grid)
    }

    /// Complex elements of one transform in each rank's send and receive
    /// regions: the most any exchange moves (every peer's block, padding
    /// included).
    pub fn exchange_elements(&self) -> usize {
        let exchanged = |step: &Step| match step {
            Step::Exchange {
                peers,
                block_elements,
                ..
            } => peers * block_elements,
            Step::Local { .. } => 0,
        };
        self.forward
            .iter()
            .chain(&self.inverse)
            .map(exchanged)
            .max()
            .unwrap_or(0)
    }

    /// Complex values of one transform in each rank's share of the
    /// forward's output (the inverse's input), padding included.
    pub fn output_share_elements(&self) -> usize {
        self.local_output_shape().iter().product()
    }

    /// Values of one transform in each rank's share of the forward's input
    /// (reals for `r2c`), padding included.
    pub fn input_share_elements(&self) -> usize {
        self.local_input_shape().iter().product()
    }

    /// Where each value of rank `rank`'s share of `batch` transforms sits
    /// in the whole batch (row-major arrays one after another), in the
    /// share's own row-major order: of the forward's input (reals for
    /// `r2c`) with `output` false, of its output (complex) with `output` true.
    /// `None` for the padding past the end of an axis cut unevenly.
    pub fn global_offsets(&self, output: bool, rank: usize, batch: usize) -> Vec<Option<usize>> {
        let (shape, cut) = match output {
            false => (self.shape.clone(), &self.input),
            true => (self.complex_shape(), &self.output),
        };
        let local = cut.local_shape(&shape, &self.grid);
        let coords = self.coords(rank);
        let points: usize = shape.iter().product();
        let local_points: usize = local.iter().product();
        let mut offsets = Vec::with_capacity(local_points * batch);
        for t in 0..batch {
            for flat in 0..local_points {
                let mut rest = flat;
                let mut global = Some(0);
                let mut place = 1;
                for a in (0..shape.len()).rev() {
                    let start = cut.cut_by[a].map_or(0, |d| coords[d] * local[a]);
                    let at = start + rest % local[a];
                    global = global.filter(|_| at < shape[a]).map(|g| g + at * place);
                    rest /= local[a];
                    place *= shape[a];
                }
                offsets.push(global.map(|g| t * points + g));
            }
        }
        offsets
    }

    pub fn steps(&self, direction: crate::Direction) -> &[Step] {
        match direction {
            crate::Direction::Forward => &self.forward,
            crate::Direction::Inverse => &self.inverse,
        }
    }

    /// A fingerprint of the plan that ranks compare before they exchange
    /// anything (FNV-1a of its JSON): ranks that planned different
    /// transforms would trade blocks of different meaning.
    pub fn fingerprint(&self) -> u64 {
        let text = serde_json::to_string(self).expect("a plan serialises");
        text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ byte as u64).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }

    /// The plan in words, as `fftgen plan --gpus P` prints it.
    pub fn describe(&self) -> String {
        let shape = |s: &[usize]| crate::emit::shape_text(s);
        let cut = |d: &Distribution, whole: &[usize]| {
            d.cut_by
                .iter()
                .enumerate()
                .filter_map(|(a, c)| {
                    c.map(|g| {
                        let (n, p) = (whole[a], self.grid[g]);
                        match n % p {
                            0 => format!("axis {a} cut {p} ways"),
                            _ => format!(
                                "axis {a} cut {p} ways in ranges of {}, the last padded past {n}",
                                n.div_ceil(p)
                            ),
                        }
                    })
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let kind = match self.grid.len() {
            1 => "slabs",
            _ => "pencils",
        };
        let mut out = format!(
            "{} {} {} over {} GPUs in {kind} (grid {}), fingerprint {:016x}\n",
            self.kind,
            shape(&self.shape),
            self.precision,
            self.ranks(),
            shape(&self.grid),
            self.fingerprint()
        );
        out += &format!(
            "input: {} per rank ({})\noutput: {} per rank ({}; the inverse reads it so)\n",
            shape(&self.local_input_shape()),
            cut(&self.input, &self.shape),
            shape(&self.local_output_shape()),
            cut(&self.output, &self.complex_shape())
        );
        let bytes = self.precision.complex_bytes();
        for direction in [crate::Direction::Forward, crate::Direction::Inverse] {
            out += &format!("{direction}:\n");
            for (i, step) in self.steps(direction).iter().enumerate() {
                out += &match step {
                    Step::Local {
                        plan,
                        batch_per_transform,
                        reads,
                        writes,
                        after,
                    } => {
                        let axes: Vec<String> = plan
                            .axis_factors
                            .iter()
                            .enumerate()
                            .filter(|(_, f)| !f.is_empty())
                            .map(|(a, f)| {
                                let f: Vec<String> = f.iter().map(|x| x.to_string()).collect();
                                format!("axis {a} ({})", f.join("x"))
                            })
                            .collect();
                        let passes = plan.passes_of(direction);
                        let unpacked = passes.iter().any(|p| {
                            p.access.reads == crate::Buffer::Input && p.access.input_blocks.is_some()
                        });
                        let packed = passes.iter().any(|p| {
                            p.access.writes == crate::Buffer::Output && p.access.output_blocks.is_some()
                        });
                        format!(
                            "  {i}. {} kernels on {} x{batch_per_transform} along {}, {reads:?} -> {writes:?}{}{}{}\n",
                            passes.len(),
                            shape(&plan.shape),
                            axes.join(", "),
                            if unpacked { ", loads unpack the blocks received" } else { "" },
                            if packed { ", stores pack the blocks to send" } else { "" },
                            match after.is_empty() {
                                true => String::new(),
                                false => format!(", after step {}", after.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ")),
                            },
                        )
                    }
                    Step::Exchange {
                        grid_axis,
                        peers,
                        block_elements,
                        run_elements,
                        after,
                        ..
                    } => format!(
                        "  {i}. all-to-all among {peers} ranks along grid axis {grid_axis}: {} bytes to each peer per transform{}, after step {}\n",
                        run_elements * bytes,
                        match run_elements == block_elements {
                            true => String::new(),
                            false => format!(" (a chunk of the {}-byte blocks)", block_elements * bytes),
                        },
                        after.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ")
                    ),
                };
            }
        }
        out
    }
}
