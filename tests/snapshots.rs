//! Snapshots of emitted source: every radix butterfly, n = 4096 with radices
//! [8, 8, 8, 8] in both dialects, a mixed-radix size (1000) and an f64 size.
//! A diff in these files is a change to generated code: review it like code.
//! Names read dialect, precision, direction, size and radices.

use fftgen::codelet::is_supported_radix;
use fftgen::emit::butterfly_source;
use fftgen::{Backend, Direction, FftSpec, Precision, Target};

/// Pins the `backend` source of `spec` as snapshot `name`.
fn pin(name: &str, spec: &FftSpec, backend: Backend) {
    let generated = fftgen::generate(spec, &spec.emit_command()).expect("the pinned specs plan");
    insta::assert_snapshot!(name, generated.source(backend));
}

#[test]
fn butterflies_cuda_f32_forward() {
    for radix in (2..=32).filter(|&r| is_supported_radix(r)) {
        let text = butterfly_source(radix, Direction::Forward, Precision::F32, Backend::Cuda);
        insta::assert_snapshot!(format!("butterfly_cuda_f32_fwd_radix{radix:02}"), text);
    }
}

#[test]
fn butterflies_opencl_f64_inverse() {
    for radix in [2, 3, 4, 5, 7, 8, 11, 13, 16] {
        let text = butterfly_source(radix, Direction::Inverse, Precision::F64, Backend::OpenCl);
        insta::assert_snapshot!(format!("butterfly_opencl_f64_inv_radix{radix:02}"), text);
    }
}

#[test]
fn n4096_radix_8x8x8x8_f32_both_dialects() {
    let spec = FftSpec::new(4096).radices(&[8, 8, 8, 8]);
    pin("kernel_cuda_f32_n4096_r8x8x8x8", &spec, Backend::Cuda);
    pin("kernel_opencl_f32_n4096_r8x8x8x8", &spec, Backend::OpenCl);
}

#[test]
fn n1000_mixed_radix_f32_cuda() {
    let spec = FftSpec::new(1000);
    pin("kernel_cuda_f32_n1000_r10x10x10", &spec, Backend::Cuda);
}

#[test]
fn n24_small_size_f32_opencl_staged_io() {
    let spec = FftSpec::new(24);
    pin("kernel_opencl_f32_n24_planned", &spec, Backend::OpenCl);
}

#[test]
fn n512_f64_cuda() {
    let spec = FftSpec::new(512).precision(Precision::F64);
    pin("kernel_cuda_f64_n512_planned", &spec, Backend::Cuda);
}

/// f64 N = 4096 does not fit two parts in shared memory: one array carries the
/// real parts, then the imaginary parts, with four barriers per exchange.
#[test]
fn n4096_f64_opencl_one_part_exchange() {
    let spec = FftSpec::new(4096)
        .precision(Precision::F64)
        .directions(&[fftgen::Direction::Forward]);
    pin(
        "kernel_opencl_f64_n4096_one_part_exchange",
        &spec,
        Backend::OpenCl,
    );
}

/// The measured shape of f32 N = 1331: one transform per block, launch bound
/// 6, input loaded through L2 only (`__ldcg`), so the twiddle table keeps L1.
#[test]
fn n1331_f32_cuda_input_through_l2_only() {
    let spec = FftSpec::new(1331)
        .target(Target::CUDA)
        .directions(&[Direction::Forward]);
    pin(
        "kernel_cuda_f32_n1331_r11x11x11_l2_only",
        &spec,
        Backend::Cuda,
    );
}

/// A two-pass 1D plan: a column pass reading a tile of neighbouring columns
/// with the four-step twiddle on its stores, then the second step.
#[test]
fn n8192_two_pass_f32_both_dialects() {
    let spec = FftSpec::new(8192);
    pin("plan_cuda_f32_n8192_two_pass", &spec, Backend::Cuda);
    pin("plan_opencl_f32_n8192_two_pass", &spec, Backend::OpenCl);
}

/// One kernel past 4096 in Hopper's opt-in shared memory: 6561 as 27 x 27 x
/// 9 over 243 threads, three blocks per SM (CUDA's dynamic shared memory).
#[test]
fn n6561_one_kernel_opt_in_f32_cuda_h200() {
    let spec = FftSpec::new(6561).target(Target::H200);
    pin(
        "plan_cuda_f32_n6561_r27x27x9_opt_in_h200",
        &spec,
        Backend::Cuda,
    );
}

/// A 2D plan past one kernel's points: rows of 40, then the column kernel
/// along the strided axis.
#[test]
fn n640x40_column_kernel_f32_both_dialects() {
    let spec = FftSpec::with_shape(&[640, 40]).directions(&[Direction::Forward]);
    pin("plan_cuda_f32_n640x40_columns", &spec, Backend::Cuda);
    pin("plan_opencl_f32_n640x40_columns", &spec, Backend::OpenCl);
}

/// A 2D plan within one kernel's points: both axes in one pass, the
/// radices of 40 then those of 32, the first stage reading transposed.
#[test]
fn n32x40_axes_at_once_f32_both_dialects() {
    let spec = FftSpec::with_shape(&[32, 40]).directions(&[Direction::Forward]);
    pin("plan_cuda_f32_n32x40_axes_at_once", &spec, Backend::Cuda);
    pin(
        "plan_opencl_f32_n32x40_axes_at_once",
        &spec,
        Backend::OpenCl,
    );
}

/// Global-memory passes (seed 000 IV.A): 256-point columns, then 16-point
/// FFTs of one radix step that read adjacent columns straight into
/// registers and write them back, with no shared memory at all.
#[test]
fn n4096_global_memory_passes_f32_both_dialects() {
    let spec = FftSpec::new(4096)
        .directions(&[Direction::Forward])
        .choices(fftgen::plan::ShapeChoices {
            split: Some(vec![256, 16]),
            column_io: Some(fftgen::plan::ColumnIo::Global),
            ..Default::default()
        });
    pin("plan_cuda_f32_n4096_global_256x16", &spec, Backend::Cuda);
    pin(
        "plan_opencl_f32_n4096_global_256x16",
        &spec,
        Backend::OpenCl,
    );
}

/// Four-step twiddles formed base-times-stride: 65536 as 1024-point
/// columns (32x32, a warp along each FFT, storing from registers) then 64:
/// one lane-varying w^(c j) per butterfly times the w^(c r s) a warp shares.
#[test]
fn n65536_step_twiddles_base_times_stride_f32_both_dialects() {
    let spec = FftSpec::new(65536).directions(&[Direction::Forward]);
    let plan = fftgen::plan::plan(&spec).unwrap();
    let step = plan.passes[0].step_twiddle.unwrap();
    assert_eq!(step.form, fftgen::plan::StepTwiddleForm::BaseTimesStride);
    pin(
        "plan_cuda_f32_n65536_base_times_stride",
        &spec,
        Backend::Cuda,
    );
    pin(
        "plan_opencl_f32_n65536_base_times_stride",
        &spec,
        Backend::OpenCl,
    );
}

/// A size with a prime radix past 13 (1088 = 17 x 64): the radix-17
/// butterfly in a Stockham kernel, in both dialects.
#[test]
fn prime_radix_17_both_dialects() {
    let spec = FftSpec::new(17 * 64);
    pin("c2c_cuda_f32_n1088_radix17", &spec, Backend::Cuda);
    pin("c2c_opencl_f32_n1088_radix17", &spec, Backend::OpenCl);
}

/// Bluestein's algorithm: 83 whole in one kernel (the chirps in the loads
/// and stores of two FFTs of 180, the spectrum's product between them),
/// both dialects; 2053 in two kernels (its FFTs of 4116 hold too many
/// values a thread for both in one, and no row up to 4096 points is long
/// enough), the steps in their loads and stores; 4099
/// on the portable target, whose FFT of 8232 takes two passes: the steps
/// on the first and last passes, and apart (the load, product and store
/// kernels, `plan_apart`).
#[test]
fn bluestein_whole_fused_and_apart() {
    let spec = FftSpec::new(83);
    pin("c2c_cuda_f32_n83_bluestein_whole", &spec, Backend::Cuda);
    pin("c2c_opencl_f32_n83_bluestein_whole", &spec, Backend::OpenCl);
    let spec = FftSpec::new(2053);
    pin(
        "c2c_opencl_f32_n2053_bluestein_fused",
        &spec,
        Backend::OpenCl,
    );
    let spec = FftSpec::new(4099);
    pin(
        "c2c_opencl_f32_n4099_bluestein_on_passes",
        &spec,
        Backend::OpenCl,
    );
    let apart = fftgen::plan::bluestein::plan_apart(&spec).expect("4099 plans");
    let generated = fftgen::emit::generate_plan(apart, &spec.emit_command()).expect("it emits");
    insta::assert_snapshot!(
        "c2c_opencl_f32_n4099_bluestein_apart",
        generated.source(Backend::OpenCl)
    );
}

/// Rader's algorithm in one kernel: 37 (36 = 2^2 x 3^2), the loads of
/// x[g^j] through the permutation's table, two FFTs of 36, the product
/// with the kernel's spectrum between them (x[0] added to its point 0,
/// X[0] kept), the stores of X[g^j], both dialects.
#[test]
fn rader_whole() {
    let spec = FftSpec::new(37);
    pin("c2c_cuda_f32_n37_rader_whole", &spec, Backend::Cuda);
    pin("c2c_opencl_f32_n37_rader_whole", &spec, Backend::OpenCl);
}

/// Real transforms: an even size by the half-length route (an FFT of 2048
/// over the reals read in pairs, the split into the half spectrum fused
/// into its stores, the C2R's merge into its loads) and an odd size by the
/// full length, two rows to an FFT (their reals as real and imaginary
/// parts in, separated into their half spectra out; the spectra merged in,
/// real and imaginary parts out), in both dialects.
#[test]
fn real_transforms_even_and_odd_both_dialects() {
    let even = FftSpec::new(4096).kind(fftgen::TransformKind::R2c);
    pin("r2c_cuda_f32_n4096_half_length", &even, Backend::Cuda);
    pin("r2c_opencl_f32_n4096_half_length", &even, Backend::OpenCl);
    let odd = FftSpec::new(375).kind(fftgen::TransformKind::R2c);
    pin("r2c_cuda_f32_n375_paired_rows", &odd, Backend::Cuda);
    pin("r2c_opencl_f32_n375_paired_rows", &odd, Backend::OpenCl);
}

/// Small f64 paired rows (17, one stage): the R2C's rows and the C2R's
/// half spectra loaded in two phases (every load of a thread before its
/// stores to shared memory), the C2R's reals stored as one run.
#[test]
fn small_paired_rows_in_two_phases_both_dialects() {
    let spec = FftSpec::new(17)
        .kind(fftgen::TransformKind::R2c)
        .precision(fftgen::Precision::F64);
    pin("r2c_cuda_f64_n17_two_phase_rows", &spec, Backend::Cuda);
    pin("r2c_opencl_f64_n17_two_phase_rows", &spec, Backend::OpenCl);
}

/// An R2C past one kernel (12288 on the portable target: the FFT of 6144
/// in two C2C passes): the split on the stores of the last pass's tile of
/// mirrored columns, the merge on the loads of the C2R's first pass.
#[test]
fn real_transform_split_on_mirrored_columns_both_dialects() {
    let spec = FftSpec::new(12288)
        .kind(fftgen::TransformKind::R2c)
        .target(Target::PORTABLE);
    pin(
        "r2c_cuda_f32_n12288_two_pass_mirrored_split",
        &spec,
        Backend::Cuda,
    );
    pin(
        "r2c_opencl_f32_n12288_two_pass_mirrored_split",
        &spec,
        Backend::OpenCl,
    );
}

/// A real transform's whole shape in one pass (12x10: an even last axis,
/// so both mirrored columns are averaged on the C2R's loads), in both
/// dialects.
#[test]
fn real_transform_whole_shape_in_one_pass_both_dialects() {
    let spec = FftSpec::with_shape(&[12, 10]).kind(fftgen::TransformKind::R2c);
    pin("r2c_cuda_f32_n12x10_whole_shape", &spec, Backend::Cuda);
    pin("r2c_opencl_f32_n12x10_whole_shape", &spec, Backend::OpenCl);
}
