//! `fft_kernel!`: fftgen's GPU FFT kernels generated while the crate that uses
//! them compiles. The macro parses a small key = value description of the
//! transform ([`args`]), runs the same generator as the `fftgen` command line
//! ([`generate`]), and expands to a unit struct that carries the CUDA and
//! OpenCL sources and the launch manifest as constants ([`expand`]), so the
//! runtime loads them exactly like kernels generated at run time (cuFFTDx's
//! compile-time description, with fftgen's plan behind it). Every mistake in
//! the call, and every error of the generator, is a compile error pointing at
//! the token to fix; the macro never panics on what it is given.
//!
//! ```ignore
//! use fftgen_macros::fft_kernel;
//! use fftgen_runtime::{Direction, OpenClDevice, OpenClFft, StaticKernels};
//!
//! fft_kernel!(n = 4096, radix = [8, 8, 8, 8]); // defines `pub struct Fft4096F32;`
//!
//! let device = OpenClDevice::from_env()?;
//! let fft = OpenClFft::new(&device, Fft4096F32::OPENCL_SOURCE, &Fft4096F32::manifest())?;
//! fft.run(Direction::Forward, &input, &mut output, batch)?;
//! ```
//!
//! The expansion names `::fftgen_runtime`, so the calling crate depends on
//! `fftgen-runtime` as well as on `fftgen-macros`.

mod args;
mod expand;
mod generate;

use proc_macro::TokenStream;

/// Generates FFT kernels for one transform at build time.
///
/// `fft_kernel!(n = 4096, radix = [8, 8, 8, 8], precision = f32, direction = both, name = Fft4096)`
///
/// | key             | value                                          | default                 |
/// |-----------------|------------------------------------------------|-------------------------|
/// | `n`             | transform length, an integer literal           | `n` or `shape` required |
/// | `shape`         | axis lengths, first axis first, e.g. `[1024, 1024]` (1 to 3 axes, row-major, the last contiguous; instead of `n`) | |
/// | `kind`          | `c2c`, or `r2c`: real input and its half spectrum (last axis `n / 2 + 1`), R2C forward and C2R inverse (unnormalised: n times the input) | `c2c` |
/// | `radix`         | radix of each stage, e.g. `[8, 8, 8, 8]`       | chosen by the planner   |
/// | `precision`     | `f32` or `f64` (an identifier or a string)     | `f32`                   |
/// | `direction`     | `forward`, `inverse` or `both`                 | `both`                  |
/// | `normalization` | `none`, `inverse` (1/n on the inverse), `unitary` | `none`               |
/// | `placement`     | `out_of_place` or `in_place`                   | `out_of_place`          |
/// | `name`          | the name of the struct to define               | derived, e.g. `Fft4096F32` |
///
/// The derived name is `Fft{n}{F32|F64}` (with a shape, its axes joined by
/// `x`: `Fft1024x1024F32`; for `r2c`, `R2c` before the precision:
/// `Fft4096R2cF32`), followed by `Forward` or `Inverse`
/// when only one direction is generated, `InPlace` for in-place kernels and
/// `NormInverse` or `Unitary` for normalised ones; give `name` to tell apart
/// two transforms of the same description (different radices, say).
///
/// It expands to `pub struct NAME;` with inherent constants `NAME::N` (the
/// points of one transform), `NAME::SHAPE`, `NAME::KIND`,
/// `NAME::COMPLEX_SHAPE` (the half spectrum's shape for `r2c`) and
/// `NAME::RADICES` (the radix of every forward stage, first stage first) and
/// an implementation of `fftgen_runtime::StaticKernels` (`CUDA_SOURCE`,
/// `OPENCL_SOURCE`, `MANIFEST_JSON`, `manifest()`, whose manifest names the
/// kind and each direction's sides). The sources' header
/// records the call, normalised, e.g. `fft_kernel!(n = 4096, radix = [8, 8, 8, 8])`.
#[proc_macro]
pub fn fft_kernel(input: TokenStream) -> TokenStream {
    let expanded = syn::parse::<args::KernelArgs>(input).and_then(|args| {
        generate::generate(&args).map(|generated| expand::expand(&args, &generated))
    });
    match expanded {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}
