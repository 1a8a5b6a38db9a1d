//! One rank of a distributed transform per CUDA GPU, the exchanges through
//! NCCL (the library GPU collectives run on): an all-to-all built from
//! grouped sends and receives, one per peer and transform of the batch,
//! straight from the blocks the local steps' stores packed into the ranks'
//! send regions to the receive regions the next steps' loads unpack. Both
//! ways of running several GPUs:
//!
//! - one process driving every GPU of a machine (as cufftXt):
//!   [`CudaRank::all_devices`], then each rank's calls on a thread of its
//!   own ([`on_every_rank`]);
//! - one process per GPU, across machines (as MPI jobs): rank 0 makes an
//!   [`NcclId`], hands it to the others by file or environment, and each
//!   process calls [`CudaRank::join`]. The ranks compare their plans'
//!   fingerprints before anything else, so ranks that planned different
//!   transforms stop with an error instead of trading blocks of different
//!   meaning.

use super::{direction_index, generate_steps};
use crate::planner::PlanError;
use crate::{CudaDevice, CudaFft, Error, Real, Value};
use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use cudarc::nccl::{result as nccl, sys, NcclType};
use fftgen::distributed::{DistributedPlan, DistributedSpec, Region, Step};
use fftgen::Direction;
use std::ffi::c_void;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The environment variable that hands the [`NcclId`] to every process.
pub const NCCL_ID_ENV: &str = "FFTGEN_NCCL_ID";

/// Whether the NCCL library loads (cudarc would panic at the first call
/// without it). NCCL's wheels ship `libnccl.so.2`: put a `libnccl.so` link
/// to it on `LD_LIBRARY_PATH`.
pub fn nccl_available() -> bool {
    // SAFETY: only tries to open the library.
    crate::cuda::driver_available() && unsafe { sys::is_culib_present() }
}

fn check_nccl() -> crate::Result<()> {
    match nccl_available() {
        true => Ok(()),
        false => Err(Error::Distributed(
            "the NCCL library (libnccl.so) was not found: install NCCL (pip install \
             nvidia-nccl-cu13, then link its lib/libnccl.so.2 as libnccl.so) and put its \
             directory on LD_LIBRARY_PATH"
                .into(),
        )),
    }
}

fn nccl_error(call: &str, e: nccl::NcclError) -> Error {
    Error::Distributed(format!("{call} failed: {e:?}"))
}

/// The identity of one NCCL communicator, made once by rank 0 and given to
/// every process of the job (128 bytes, passed as 256 hex digits).
#[derive(Clone, Copy)]
pub struct NcclId(sys::ncclUniqueId);

impl NcclId {
    pub fn new() -> crate::Result<Self> {
        check_nccl()?;
        nccl::get_uniqueid()
            .map(NcclId)
            .map_err(|e| nccl_error("ncclGetUniqueId", e))
    }

    pub fn to_hex(&self) -> String {
        self.0
            .internal
            .iter()
            .map(|&b| format!("{:02x}", b as u8))
            .collect()
    }

    pub fn from_hex(text: &str) -> crate::Result<Self> {
        let text = text.trim();
        let bad = || {
            Error::Distributed(format!(
                "`{}` is not an NCCL id: give the 256 hex digits rank 0 wrote",
                text.chars().take(16).collect::<String>()
            ))
        };
        if text.len() != 256 {
            return Err(bad());
        }
        let mut internal = [0 as std::ffi::c_char; 128];
        for (i, byte) in internal.iter_mut().enumerate() {
            let pair = text.get(2 * i..2 * i + 2).ok_or_else(bad)?;
            *byte = u8::from_str_radix(pair, 16).map_err(|_| bad())? as std::ffi::c_char;
        }
        Ok(NcclId(sys::ncclUniqueId { internal }))
    }

    /// The id in [`NCCL_ID_ENV`].
    pub fn from_env() -> crate::Result<Self> {
        let text = std::env::var(NCCL_ID_ENV).map_err(|_| {
            Error::Distributed(format!(
                "{NCCL_ID_ENV} is not set: rank 0 makes an id (NcclId::new) and every process \
                 gets it in {NCCL_ID_ENV} or a file"
            ))
        })?;
        Self::from_hex(&text)
    }

    /// Writes the id to `path` for the other processes (written aside and
    /// renamed, so a reader never sees half of it).
    pub fn write_file(&self, path: &Path) -> crate::Result<()> {
        let partial = path.with_extension("partial");
        std::fs::write(&partial, self.to_hex())
            .and_then(|_| std::fs::rename(&partial, path))
            .map_err(|e| {
                Error::Distributed(format!("writing the NCCL id to {}: {e}", path.display()))
            })
    }

    /// Reads the id rank 0 writes to `path`, waiting up to `wait` for it.
    pub fn read_file(path: &Path, wait: Duration) -> crate::Result<Self> {
        let start = Instant::now();
        loop {
            match std::fs::read_to_string(path) {
                Ok(text) => return Self::from_hex(&text),
                Err(_) if start.elapsed() < wait => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => {
                    return Err(Error::Distributed(format!(
                        "no NCCL id in {} after {wait:?} ({e}): start rank 0 first, or give the same path",
                        path.display()
                    )))
                }
            }
        }
    }
}

/// An NCCL communicator, destroyed when dropped.
struct Communicator(sys::ncclComm_t);

// SAFETY: NCCL communicators may be used from any one thread at a time;
// a rank's calls hold `&CudaRank`, and each rank runs on one thread.
unsafe impl Send for Communicator {}
unsafe impl Sync for Communicator {}

impl Drop for Communicator {
    fn drop(&mut self) {
        // SAFETY: a communicator NCCL made, destroyed once.
        let _ = unsafe { nccl::comm_destroy(self.0) };
    }
}

/// One rank of a distributed transform: its GPU, its communicator, the
/// plan every rank shares and the local steps' kernels, in precision `T`.
pub struct CudaRank<T: Real + NcclType> {
    device: CudaDevice,
    comm: Communicator,
    /// Where the exchanges run, beside the kernels on the device's stream,
    /// so that one chunk's exchange overlaps the next chunk's kernels.
    comm_stream: Arc<CudaStream>,
    rank: usize,
    plan: DistributedPlan,
    steps: [Vec<Option<CudaFft>>; 2],
    /// The send and receive regions (reals), grown to the largest batch run.
    regions: Mutex<Option<(CudaSlice<T>, CudaSlice<T>)>>,
}

impl<T: Real + NcclType> CudaRank<T> {
    /// One process driving GPUs 0 to P - 1 (P = `spec.gpus`), one rank each.
    pub fn all_devices(spec: &DistributedSpec) -> Result<Vec<Self>, PlanError> {
        check_nccl()?;
        check_precision::<T>(spec)?;
        let count = CudaDevice::count()?;
        if count < spec.gpus {
            return Err(Error::Distributed(format!(
                "{} GPUs asked for and {count} visible; give --gpus {count} or fewer",
                spec.gpus
            ))
            .into());
        }
        let devices: Vec<CudaDevice> = (0..spec.gpus)
            .map(CudaDevice::new)
            .collect::<crate::Result<_>>()?;
        let mut comms = vec![std::ptr::null_mut(); spec.gpus];
        let ordinals: Vec<i32> = (0..spec.gpus as i32).collect();
        // SAFETY: room for one communicator per listed device.
        unsafe { nccl::comm_init_all(comms.as_mut_ptr(), spec.gpus as i32, ordinals.as_ptr()) }
            .map_err(|e| nccl_error("ncclCommInitAll", e))?;
        let comms: Vec<Communicator> = comms.into_iter().map(Communicator).collect();
        devices
            .into_iter()
            .zip(comms)
            .enumerate()
            .map(|(rank, (device, comm))| Self::with_comm(device, comm, rank, spec))
            .collect()
    }

    /// Rank `rank` of a job of `spec.gpus` processes, one GPU each, that
    /// share `id`. Every rank must call this (NCCL waits for all of them);
    /// the ranks then compare their plans.
    pub fn join(
        device: CudaDevice,
        rank: usize,
        id: &NcclId,
        spec: &DistributedSpec,
    ) -> Result<Self, PlanError> {
        check_nccl()?;
        check_precision::<T>(spec)?;
        if rank >= spec.gpus {
            return Err(Error::Distributed(format!(
                "rank {rank} of a job of {} ranks; ranks are numbered from 0",
                spec.gpus
            ))
            .into());
        }
        device
            .context()
            .bind_to_thread()
            .map_err(|e| Error::cuda("cuCtxSetCurrent", e))?;
        let mut comm = std::ptr::null_mut();
        // SAFETY: one communicator written by NCCL.
        unsafe { nccl::comm_init_rank(&mut comm, spec.gpus as i32, id.0, rank as i32) }
            .map_err(|e| nccl_error("ncclCommInitRank", e))?;
        let rank = Self::with_comm(device, Communicator(comm), rank, spec)?;
        rank.agree_on_plan()?;
        Ok(rank)
    }

    fn with_comm(
        device: CudaDevice,
        comm: Communicator,
        rank: usize,
        spec: &DistributedSpec,
    ) -> Result<Self, PlanError> {
        let (plan, generated) = generate_steps(spec, device.target())?;
        let load =
            |steps: &Vec<Option<fftgen::Generated>>| -> Result<Vec<Option<CudaFft>>, PlanError> {
                steps
                    .iter()
                    .map(|g| match g {
                        Some(g) => Ok(Some(CudaFft::new(&device, &g.cuda_source, &g.manifest)?)),
                        None => Ok(None),
                    })
                    .collect()
            };
        let steps = [load(&generated[0])?, load(&generated[1])?];
        let comm_stream = device
            .context()
            .new_stream()
            .map_err(|e| Error::cuda("cuStreamCreate", e))?;
        Ok(CudaRank {
            device,
            comm,
            comm_stream,
            rank,
            plan,
            steps,
            regions: Mutex::new(None),
        })
    }

    /// Every rank's plan fingerprint, gathered; an error if any differs.
    fn agree_on_plan(&self) -> crate::Result<()> {
        let stream = self.device.stream();
        let ranks = self.plan.ranks();
        let ours = self.plan.fingerprint();
        let mine = stream
            .clone_htod(&[ours])
            .map_err(|e| Error::cuda("cuMemcpyHtoD", e))?;
        let mut all = stream
            .alloc_zeros::<u64>(ranks)
            .map_err(|e| Error::cuda("cuMemAlloc", e))?;
        {
            let (from, _f) = mine.device_ptr(stream);
            let (to, _t) = all.device_ptr_mut(stream);
            // SAFETY: one u64 sent, `ranks` received, on this rank's stream.
            unsafe {
                nccl::all_gather(
                    from as *const c_void,
                    to as *mut c_void,
                    1,
                    u64::as_nccl_type(),
                    self.comm.0,
                    stream.cu_stream() as _,
                )
            }
            .map_err(|e| nccl_error("ncclAllGather", e))?;
        }
        let all = stream
            .clone_dtoh(&all)
            .map_err(|e| Error::cuda("cuMemcpyDtoH", e))?;
        match all.iter().position(|&f| f != ours) {
            None => Ok(()),
            Some(other) => Err(Error::Distributed(format!(
                "rank {other} planned another transform (fingerprint {:016x}, rank {}'s \
                 {ours:016x}): give every rank the same shape, kind, precision, \
                 normalization, GPUs and grid",
                all[other], self.rank
            ))),
        }
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn device(&self) -> &CudaDevice {
        &self.device
    }

    pub fn plan(&self) -> &DistributedPlan {
        &self.plan
    }

    /// Values of one transform in this rank's share on the side `direction`
    /// reads and the side it writes (reals on the real side of `r2c`).
    pub fn share_lens(&self, direction: Direction) -> (usize, usize) {
        let real = self.plan.input_share_elements();
        let complex = self.plan.output_share_elements();
        match direction {
            Direction::Forward => (real, complex),
            Direction::Inverse => (complex, real),
        }
    }

    /// Enqueues `batch` transforms of `direction` on this rank's stream:
    /// `input` its share of the side read, `output` of the side written.
    /// Where the plan cuts an axis unevenly the last rank's share is padded
    /// past the axis ([`DistributedPlan::global_offsets`] gives `None`
    /// there): a forward's input must hold zeros in its padding, which a
    /// real step may pair with values; the padding of the output holds
    /// whatever the kernels leave there. Every rank must make the same call
    /// (the exchanges wait for all). Returns once enqueued; synchronise the
    /// device's stream before reading `output`.
    pub fn launch<I: Value<Real = T>, O: Value<Real = T>>(
        &self,
        direction: Direction,
        input: &CudaSlice<I>,
        output: &mut CudaSlice<O>,
        batch: usize,
    ) -> crate::Result<()> {
        self.run(direction, input, output, batch, true)
    }

    /// The local steps alone, without the exchanges (what the transform
    /// would take if the exchanges were free): for timing.
    pub fn launch_local_steps<I: Value<Real = T>, O: Value<Real = T>>(
        &self,
        direction: Direction,
        input: &CudaSlice<I>,
        output: &mut CudaSlice<O>,
        batch: usize,
    ) -> crate::Result<()> {
        self.run(direction, input, output, batch, false)
    }

    /// The exchanges alone, on this rank's regions: the all-to-all of the
    /// same bytes the transform moves between GPUs.
    pub fn launch_exchanges(&self, direction: Direction, batch: usize) -> crate::Result<()> {
        self.bind()?;
        let mut regions = self.regions_for(batch)?;
        let (send, recv) = regions.as_mut().expect("regions allocated");
        self.follow(&self.comm_stream, self.device.stream())?;
        for step in self.plan.steps(direction) {
            if let Step::Exchange { .. } = step {
                self.exchange(step, send, recv, batch)?;
            }
        }
        self.follow(self.device.stream(), &self.comm_stream)?;
        Ok(())
    }

    fn bind(&self) -> crate::Result<()> {
        self.device
            .context()
            .bind_to_thread()
            .map_err(|e| Error::cuda("cuCtxSetCurrent", e))
    }

    /// Makes `stream` wait for everything enqueued on `other` so far.
    fn follow(&self, stream: &CudaStream, other: &CudaStream) -> crate::Result<()> {
        let event = other
            .record_event(None)
            .map_err(|e| Error::cuda("cuEventRecord", e))?;
        stream
            .wait(&event)
            .map_err(|e| Error::cuda("cuStreamWaitEvent", e))
    }

    fn regions_for(
        &self,
        batch: usize,
    ) -> crate::Result<std::sync::MutexGuard<'_, Option<(CudaSlice<T>, CudaSlice<T>)>>> {
        let reals = 2 * self.plan.exchange_elements() * batch;
        let mut regions = self.regions.lock().unwrap_or_else(|e| e.into_inner());
        if regions.as_ref().is_none_or(|(send, _)| send.len() < reals) {
            let stream = self.device.stream();
            let context = self.device.context();
            // The plan orders the two streams' uses of these regions
            // itself (`after`); cudarc's own tracking would make each
            // chunk's kernels wait for the exchange of the chunk before.
            let tracking = context.is_event_tracking();
            // SAFETY: the regions are used on this rank's two streams only,
            // in the order the plan's `after` and `run`'s events give, and
            // freed once the device stream has finished with them (below).
            unsafe { context.disable_event_tracking() };
            let alloc = || {
                stream
                    .alloc_zeros::<T>(reals.max(1))
                    .map_err(|e| Error::cuda("cuMemAlloc", e))
            };
            let allocated = alloc().and_then(|send| Ok((send, alloc()?)));
            if tracking {
                // SAFETY: back to cudarc's default for everything else.
                unsafe { context.enable_event_tracking() };
            }
            stream
                .synchronize()
                .map_err(|e| Error::cuda("cuStreamSynchronize", e))?;
            *regions = Some(allocated?);
        }
        Ok(regions)
    }

    fn run<I: Value<Real = T>, O: Value<Real = T>>(
        &self,
        direction: Direction,
        input: &CudaSlice<I>,
        output: &mut CudaSlice<O>,
        batch: usize,
        exchanges: bool,
    ) -> crate::Result<()> {
        let (input_len, output_len) = self.share_lens(direction);
        let sides = [
            ("input", input.len(), input_len),
            ("output", output.len(), output_len),
        ];
        for (role, len, per_transform) in sides {
            let want = per_transform * batch;
            if len < want {
                return Err(Error::Distributed(format!(
                    "rank {}'s {role} holds {len} values; {batch} transforms need {want}",
                    self.rank
                )));
            }
        }
        self.bind()?;
        let stream = self.device.stream();
        let mut regions = self.regions_for(batch)?;
        let (send, recv) = regions.as_mut().expect("regions allocated");
        let ffts = &self.steps[direction_index(direction)];
        let steps = self.plan.steps(direction);
        // The event each step recorded on its stream, for the steps after it.
        let mut done: Vec<Option<CudaEvent>> = Vec::with_capacity(steps.len());
        let on_comm = |step: &Step| matches!(step, Step::Exchange { .. }) && exchanges;
        // The first exchange may not read what the caller is still writing.
        self.follow(&self.comm_stream, stream)?;
        for (step, fft) in steps.iter().zip(ffts) {
            let own = match on_comm(step) {
                true => &self.comm_stream,
                false => stream,
            };
            let after = match step {
                Step::Local { after, .. } | Step::Exchange { after, .. } => after,
            };
            for &earlier in after {
                if on_comm(&steps[earlier]) != on_comm(step) {
                    if let Some(event) = &done[earlier] {
                        own.wait(event)
                            .map_err(|e| Error::cuda("cuStreamWaitEvent", e))?;
                    }
                }
            }
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
                    let batch = batch * batch_per_transform;
                    match (reads, writes) {
                        (Region::Input, Region::Send) => {
                            fft.launch(stream, direction, input, send, batch)
                        }
                        (Region::Recv, Region::Send) => {
                            fft.launch(stream, direction, recv, send, batch)
                        }
                        (Region::Recv, Region::Output) => {
                            fft.launch(stream, direction, recv, output, batch)
                        }
                        (Region::Input, Region::Output) => {
                            fft.launch(stream, direction, input, output, batch)
                        }
                        other => unreachable!("no step goes {other:?}"),
                    }?;
                }
                (Step::Exchange { .. }, _) if exchanges => {
                    self.exchange(step, send, recv, batch)?
                }
                (Step::Exchange { .. }, _) => {}
                _ => unreachable!("a local step has its kernels"),
            }
            done.push(Some(
                own.record_event(None)
                    .map_err(|e| Error::cuda("cuEventRecord", e))?,
            ));
        }
        // The caller waits on the device's stream: it follows every exchange.
        self.follow(stream, &self.comm_stream)?;
        Ok(())
    }

    /// One exchange: for each transform of the batch, block `s` of the send
    /// region to the peer of coordinate `s`, and from it into block `s` of
    /// the receive region, all in one NCCL group.
    fn exchange(
        &self,
        step: &Step,
        send: &CudaSlice<T>,
        recv: &mut CudaSlice<T>,
        batch: usize,
    ) -> crate::Result<()> {
        let Step::Exchange {
            grid_axis,
            block_elements,
            run_offset,
            run_elements,
            ..
        } = step
        else {
            return Ok(());
        };
        let stream = &self.comm_stream;
        let exchange = 2 * self.plan.exchange_elements();
        let block = 2 * block_elements;
        let (run_offset, run) = (2 * run_offset, 2 * run_elements);
        let bytes = std::mem::size_of::<T>();
        let peers = self.plan.peers(self.rank, *grid_axis);
        let (from, _f) = send.device_ptr(stream);
        let (to, _t) = recv.device_ptr_mut(stream);
        nccl::group_start().map_err(|e| nccl_error("ncclGroupStart", e))?;
        let mut result = Ok(());
        'calls: for t in 0..batch {
            for (s, &peer) in peers.iter().enumerate() {
                let offset = ((t * exchange + s * block + run_offset) * bytes) as u64;
                // SAFETY: the run of block s of transform t lies within both
                // regions (batch transforms of `exchange` reals each).
                let calls = unsafe {
                    nccl::send(
                        (from + offset) as *const c_void,
                        run,
                        T::as_nccl_type(),
                        peer as i32,
                        self.comm.0,
                        stream.cu_stream() as _,
                    )
                    .and_then(|_| {
                        nccl::recv(
                            (to + offset) as *mut c_void,
                            run,
                            T::as_nccl_type(),
                            peer as i32,
                            self.comm.0,
                            stream.cu_stream() as _,
                        )
                    })
                };
                if let Err(e) = calls {
                    result = Err(nccl_error("ncclSend/ncclRecv", e));
                    break 'calls;
                }
            }
        }
        let end = nccl::group_end().map_err(|e| nccl_error("ncclGroupEnd", e));
        result.and(end.map(|_| ()))
    }
}

fn check_precision<T: Real>(spec: &DistributedSpec) -> crate::Result<()> {
    match spec.spec.precision == T::PRECISION {
        true => Ok(()),
        false => Err(Error::Distributed(format!(
            "a {} plan on ranks of {} buffers; make the ranks with the plan's precision",
            spec.spec.precision,
            T::PRECISION
        ))),
    }
}

/// Runs `work` for every rank at once, each on a thread of its own (the
/// exchanges of one process driving every GPU wait for all ranks), and
/// returns the results in rank order.
pub fn on_every_rank<T: Real + NcclType, R: Send>(
    ranks: &[CudaRank<T>],
    work: impl Fn(&CudaRank<T>) -> R + Sync,
) -> Vec<R> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = ranks
            .iter()
            .map(|rank| scope.spawn(|| work(rank)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a rank's thread panicked"))
            .collect()
    })
}
