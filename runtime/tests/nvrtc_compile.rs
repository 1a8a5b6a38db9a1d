//! NVRTC compiles CUDA sources for a real architecture (so ptxas runs), and a
//! broken source comes back as an error that carries the compiler's log.

mod common;

use fftgen_runtime::{compile_to_cubin_check, Error};

const TRIVIAL: &str = r#"
extern "C" __global__ void scale(float2* data, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { data[i].x *= 2.0f; data[i].y *= 2.0f; }
}
"#;

#[test]
fn a_trivial_kernel_compiles_to_a_cubin_for_sm_90() {
    if !common::nvrtc("a_trivial_kernel_compiles_to_a_cubin_for_sm_90") {
        return;
    }
    let compiled = compile_to_cubin_check(TRIVIAL, "sm_90").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compiled.arch, "sm_90");
    // An ELF image, so ptxas ran.
    assert!(compiled.cubin_bytes() > 0);
    assert_eq!(&compiled.cubin[..4], b"\x7fELF");
    assert!(compiled
        .options
        .iter()
        .any(|o| o == "--gpu-architecture=sm_90"));
    // ptxas reports what each kernel uses.
    assert!(compiled.log.contains("registers"), "{}", compiled.log);
}

#[test]
fn a_syntax_error_returns_the_log() {
    if !common::nvrtc("a_syntax_error_returns_the_log") {
        return;
    }
    let broken = r#"extern "C" __global__ void broken(float* x) { x[0] = ; }"#;
    match compile_to_cubin_check(broken, "sm_90") {
        Err(Error::NvrtcCompile { arch, log, .. }) => {
            assert_eq!(arch, "sm_90");
            assert!(log.contains("error"), "the log says what is wrong: {log}");
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

#[test]
fn too_much_shared_memory_fails_in_ptxas() {
    if !common::nvrtc("too_much_shared_memory_fails_in_ptxas") {
        return;
    }
    let greedy = r#"
extern "C" __global__ void greedy(float* x) {
    __shared__ float s[32768];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = s[(threadIdx.x + 1) % 32768];
}
"#;
    match compile_to_cubin_check(greedy, "sm_90") {
        Err(Error::NvrtcCompile { log, .. }) => {
            assert!(log.contains("too much shared data"), "{log}")
        }
        other => panic!("expected ptxas to reject 128 KiB of static shared memory, got {other:?}"),
    }
}

#[test]
fn virtual_architectures_are_refused() {
    // No NVRTC needed: the architecture is checked first.
    let err = compile_to_cubin_check(TRIVIAL, "compute_90").unwrap_err();
    assert_eq!(
        err,
        Error::InvalidCudaArch {
            arch: "compute_90".to_string()
        }
    );
    assert!(compile_to_cubin_check(TRIVIAL, "sm_").is_err());
    assert!(compile_to_cubin_check(TRIVIAL, "sm_9x0").is_err());
}
