//! Every rank of a distributed transform on one OpenCL device, in one
//! process: each rank's regions are buffers of their own and an exchange
//! copies block `s` of rank `r`'s send buffer to block `r` of peer `s`'s
//! receive buffer, exactly what NCCL's all-to-all moves between GPUs. CI
//! checks the decomposition and the exchange pattern so on PoCL. The steps
//! run one after another (one queue): their order is one the GPUs' streams
//! may take.

use super::{direction_index, generate_steps};
use crate::planner::PlanError;
use crate::{Complex, Error, OpenClDevice, OpenClFft, Real, Value};
use fftgen::distributed::{DistributedPlan, DistributedSpec, Region, Step};
use fftgen::Direction;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;
use std::ptr;

/// The ranks of a distributed plan, all on one OpenCL device.
pub struct OpenClRanks<'d> {
    device: &'d OpenClDevice,
    plan: DistributedPlan,
    /// Each direction's steps: the loaded kernels of a local step.
    steps: [Vec<Option<OpenClFft>>; 2],
}

/// One rank's buffers of one call.
struct RankBuffers<I, O, T> {
    input: Buffer<I>,
    output: Buffer<O>,
    send: Buffer<Complex<T>>,
    recv: Buffer<Complex<T>>,
}

impl<'d> OpenClRanks<'d> {
    /// Plans `spec` for `device` and builds every local step's kernels.
    pub fn new(device: &'d OpenClDevice, spec: &DistributedSpec) -> Result<Self, PlanError> {
        let (plan, generated) = generate_steps(spec, device.target())?;
        let load =
            |steps: &Vec<Option<fftgen::Generated>>| -> Result<Vec<Option<OpenClFft>>, PlanError> {
                steps
                    .iter()
                    .map(|g| match g {
                        Some(g) => Ok(Some(OpenClFft::new(device, &g.opencl_source, &g.manifest)?)),
                        None => Ok(None),
                    })
                    .collect()
            };
        let steps = [load(&generated[0])?, load(&generated[1])?];
        Ok(OpenClRanks {
            device,
            plan,
            steps,
        })
    }

    pub fn plan(&self) -> &DistributedPlan {
        &self.plan
    }

    /// Runs `direction` on every rank: `inputs[r]` is rank r's share of
    /// `batch` transforms (the input distribution's for the forward, the
    /// output distribution's for the inverse), the result each rank's share
    /// of the other side.
    pub fn run<T: Real, I: Value<Real = T>, O: Value<Real = T>>(
        &self,
        direction: Direction,
        inputs: &[Vec<I>],
        batch: usize,
    ) -> crate::Result<Vec<Vec<O>>> {
        let plan = &self.plan;
        let ranks = plan.ranks();
        if inputs.len() != ranks {
            return Err(Error::Distributed(format!(
                "{} shares for a plan of {ranks} ranks; give one per rank",
                inputs.len()
            )));
        }
        let exchange = plan.exchange_elements();
        let (input_len, output_len) = {
            let real = plan.input_share_elements();
            let complex = plan.output_share_elements();
            match direction {
                Direction::Forward => (real, complex),
                Direction::Inverse => (complex, real),
            }
        };
        if let Some((r, share)) = inputs
            .iter()
            .enumerate()
            .find(|(_, s)| s.len() != input_len * batch)
        {
            return Err(Error::Distributed(format!(
                "rank {r}'s share holds {} values; {batch} transforms need {}",
                share.len(),
                input_len * batch
            )));
        }
        let context = self.device.context();
        let queue = self.device.queue();
        fn buffer<V>(context: &opencl3::context::Context, len: usize) -> crate::Result<Buffer<V>> {
            // SAFETY: a fresh buffer of `len` elements, no host pointer.
            unsafe { Buffer::create(context, CL_MEM_READ_WRITE, len.max(1), ptr::null_mut()) }
                .map_err(|e| Error::Distributed(format!("allocating a rank's buffer: {e}")))
        }
        // The exchange regions start zeroed: the padding of a range cut
        // unevenly is never written, and a real step may pair it with values.
        let zeros = vec![Complex::<T>::default(); exchange * batch];
        let zeroed = |len: usize| -> crate::Result<Buffer<Complex<T>>> {
            let mut region = buffer(context, len)?;
            // SAFETY: blocking write of `len` zeros into a buffer of `len`.
            unsafe { queue.enqueue_write_buffer(&mut region, CL_BLOCKING, 0, &zeros[..len], &[]) }
                .map_err(|e| Error::Distributed(format!("zeroing a region: {e}")))?;
            Ok(region)
        };
        let mut ranks_buffers: Vec<RankBuffers<I, O, T>> = Vec::with_capacity(ranks);
        for (rank, share) in inputs.iter().enumerate() {
            // A forward's input share holds zeros in its padding, as
            // `CudaRank::launch` asks of its callers.
            let mut share = share.clone();
            if direction == Direction::Forward {
                let places = plan.global_offsets(false, rank, batch);
                for (value, place) in share.iter_mut().zip(places) {
                    if place.is_none() {
                        *value = I::default();
                    }
                }
            }
            let mut input = buffer(context, input_len * batch)?;
            // SAFETY: blocking write of `share` into a buffer of its length.
            unsafe { queue.enqueue_write_buffer(&mut input, CL_BLOCKING, 0, &share, &[]) }
                .map_err(|e| Error::Distributed(format!("uploading a share: {e}")))?;
            ranks_buffers.push(RankBuffers {
                input,
                output: buffer(context, output_len * batch)?,
                send: zeroed(exchange * batch)?,
                recv: zeroed(exchange * batch)?,
            });
        }
        let steps = &self.steps[direction_index(direction)];
        for (step, fft) in plan.steps(direction).iter().zip(steps) {
            match (step, fft) {
                (
                    Step::Local {
                        batch_per_transform,
                        reads,
                        writes,
                        ..
                    },
                    Some(fft),
                ) => {
                    for rank in &mut ranks_buffers {
                        local(
                            fft,
                            direction,
                            rank,
                            *reads,
                            *writes,
                            batch * batch_per_transform,
                        )?;
                    }
                }
                (
                    Step::Exchange {
                        grid_axis,
                        block_elements,
                        run_offset,
                        run_elements,
                        ..
                    },
                    _,
                ) => {
                    let bytes = std::mem::size_of::<Complex<T>>();
                    for r in 0..ranks {
                        let me = plan.coords(r)[*grid_axis];
                        for (s, peer) in plan.peers(r, *grid_axis).into_iter().enumerate() {
                            for t in 0..batch {
                                let from = (t * exchange + s * block_elements + run_offset) * bytes;
                                let to = (t * exchange + me * block_elements + run_offset) * bytes;
                                let send = ranks_buffers[r].send.get();
                                let recv = &mut ranks_buffers[peer].recv;
                                // SAFETY: both ranges lie within their buffers
                                // (blocks of a transform of the batch).
                                unsafe {
                                    opencl3::command_queue::enqueue_copy_buffer(
                                        queue.get(),
                                        send,
                                        recv.get(),
                                        from,
                                        to,
                                        run_elements * bytes,
                                        0,
                                        ptr::null(),
                                    )
                                }
                                .map_err(|e| {
                                    Error::Distributed(format!("an exchange copy: {e}"))
                                })?;
                            }
                        }
                    }
                }
                _ => unreachable!("a local step has its kernels"),
            }
        }
        queue
            .finish()
            .map_err(|e| Error::Distributed(format!("finishing the queue: {e}")))?;
        ranks_buffers
            .iter()
            .map(|rank| {
                let mut out = vec![O::default(); output_len * batch];
                // SAFETY: blocking read of the whole output buffer.
                unsafe { queue.enqueue_read_buffer(&rank.output, CL_BLOCKING, 0, &mut out, &[]) }
                    .map_err(|e| Error::Distributed(format!("reading a share back: {e}")))?;
                Ok(out)
            })
            .collect()
    }
}

/// One local step on one rank, from region `reads` to region `writes`.
fn local<T: Real, I: Value<Real = T>, O: Value<Real = T>>(
    fft: &OpenClFft,
    direction: Direction,
    rank: &mut RankBuffers<I, O, T>,
    reads: Region,
    writes: Region,
    batch: usize,
) -> crate::Result<()> {
    let queue = fft.device().queue();
    match (reads, writes) {
        (Region::Input, Region::Send) => {
            fft.launch(queue, direction, &rank.input, &mut rank.send, batch)
        }
        (Region::Recv, Region::Send) => {
            fft.launch(queue, direction, &rank.recv, &mut rank.send, batch)
        }
        (Region::Recv, Region::Output) => {
            fft.launch(queue, direction, &rank.recv, &mut rank.output, batch)
        }
        (Region::Input, Region::Output) => {
            fft.launch(queue, direction, &rank.input, &mut rank.output, batch)
        }
        other => unreachable!("no step goes {other:?}"),
    }
    .map(|_| ())
}
