//! A 3D transform over two GPUs: 256^3 complex f32 points in slabs, the
//! forward then the normalised inverse, which must give the input back.
//!
//! One process driving both GPUs:
//!     cargo run --release -p fftgen-runtime --features planner --example two_gpus
//! One process per GPU (as an MPI job would start them), rank 0 writing the
//! NCCL id to a file the other reads:
//!     FFTGEN_RANK=0 FFTGEN_NCCL_ID_FILE=/tmp/fftgen.id two_gpus &
//!     FFTGEN_RANK=1 FFTGEN_NCCL_ID_FILE=/tmp/fftgen.id two_gpus
//! NCCL must load: `libnccl.so` on LD_LIBRARY_PATH.

use fftgen::distributed::DistributedSpec;
use fftgen::{FftSpec, Normalization};
use fftgen_runtime::distributed::nccl::{on_every_rank, CudaRank, NcclId};
use fftgen_runtime::{CudaDevice, Direction};
use std::path::PathBuf;
use std::time::Duration;

const GPUS: usize = 2;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = DistributedSpec {
        spec: FftSpec::with_shape(&[256, 256, 256]).normalization(Normalization::Inverse),
        gpus: GPUS,
        grid: None,
        chunks: None,
    };
    let errors = match std::env::var("FFTGEN_RANK") {
        // One process per GPU.
        Ok(rank) => {
            let rank: usize = rank.parse()?;
            let file = PathBuf::from(std::env::var("FFTGEN_NCCL_ID_FILE")?);
            let id = match rank {
                0 => {
                    let id = NcclId::new()?;
                    id.write_file(&file)?;
                    id
                }
                _ => NcclId::read_file(&file, Duration::from_secs(60))?,
            };
            let device = CudaDevice::new(rank)?;
            let me = CudaRank::<f32>::join(device, rank, &id, &spec)?;
            vec![round_trip(&me)?]
        }
        // One process, every GPU.
        Err(_) => {
            let ranks = CudaRank::<f32>::all_devices(&spec)?;
            print!("{}", ranks[0].plan().describe());
            on_every_rank(&ranks, round_trip)
                .into_iter()
                .collect::<Result<_, _>>()?
        }
    };
    for (rank, error) in errors.iter().enumerate() {
        println!("rank {rank}: largest difference after forward + inverse {error:.2e}");
    }
    match errors.iter().all(|&e| e < 1e-5) {
        true => Ok(()),
        false => Err("the round trip lost the input".into()),
    }
}

/// Forward then inverse on this rank's slab; the largest difference from the input.
fn round_trip(rank: &CudaRank<f32>) -> Result<f32, fftgen_runtime::Error> {
    let stream = rank.device().stream();
    let (input_len, output_len) = rank.share_lens(Direction::Forward);
    // Each rank's share: 128 x 256 x 256 complex values (reals pairwise).
    let slab: Vec<f32> = (0..2 * input_len)
        .map(|i| ((i * 7919 + rank.rank() * 104729) % 1000) as f32 / 500.0 - 1.0)
        .collect();
    let cuda = |e| fftgen_runtime::Error::Distributed(format!("CUDA: {e:?}"));
    let input = stream.clone_htod(&slab).map_err(cuda)?;
    let mut spectrum = stream.alloc_zeros::<f32>(2 * output_len).map_err(cuda)?;
    let mut back = stream.alloc_zeros::<f32>(2 * input_len).map_err(cuda)?;
    rank.launch(Direction::Forward, &input, &mut spectrum, 1)?;
    rank.launch(Direction::Inverse, &spectrum, &mut back, 1)?;
    let back = stream.clone_dtoh(&back).map_err(cuda)?;
    Ok(slab
        .iter()
        .zip(&back)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max))
}
