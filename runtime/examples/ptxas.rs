//! What ptxas makes of emitted CUDA kernels, without a GPU: compiles each
//! file through NVRTC for a real architecture and prints, per kernel, its
//! registers, spill bytes and shared memory (ptxas's verbose lines). The
//! planner's register budget is an estimate; this shows what it became.
//!
//!     fftgen emit --n 300x256 --kind r2c --backend cuda --out /tmp/k
//!     cargo run --release -p fftgen-runtime --example ptxas -- /tmp/k/*.cu
//! The architecture is sm_90 unless FFTGEN_PTXAS_ARCH names another; with
//! FFTGEN_PTXAS_CUBIN set, each file's CUBIN is written beside it (FILE.cubin)
//! for `cuobjdump -sass`.
//! NVRTC must load (scripts/env.sh puts it on LD_LIBRARY_PATH).

use fftgen_runtime::cuda::compile_to_cubin_check;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arch = std::env::var("FFTGEN_PTXAS_ARCH").unwrap_or_else(|_| "sm_90".to_string());
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        return Err("give one or more emitted .cu files".into());
    }
    for file in files {
        let source = std::fs::read_to_string(&file).map_err(|e| format!("{file}: {e}"))?;
        let compiled =
            compile_to_cubin_check(&source, &arch).map_err(|e| format!("{file}: {e}"))?;
        if std::env::var_os("FFTGEN_PTXAS_CUBIN").is_some() {
            std::fs::write(format!("{file}.cubin"), &compiled.cubin)
                .map_err(|e| format!("{file}.cubin: {e}"))?;
        }
        println!("{file} ({arch}):");
        for line in compiled.log.lines() {
            let line = line.trim_start_matches("ptxas info    : ").trim();
            if line.starts_with("Compiling entry")
                || line.starts_with("Used")
                || line.contains("spill")
            {
                println!("  {line}");
            }
        }
    }
    Ok(())
}
