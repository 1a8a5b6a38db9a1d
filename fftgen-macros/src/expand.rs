//! The items `fft_kernel!` expands to: a documented unit struct, its `N`,
//! `SHAPE`, `KIND`, `COMPLEX_SHAPE` and `RADICES` constants, and its
//! `fftgen_runtime::StaticKernels` implementation holding both sources and
//! the manifest JSON (which names the kind) as string constants.

use crate::args::KernelArgs;
use fftgen::{Direction, Generated, Normalization, Placement, Precision, TransformKind};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

/// The expansion for a call whose kernels were generated.
pub fn expand(args: &KernelArgs, generated: &Generated) -> TokenStream {
    let name = args.name.clone().unwrap_or_else(|| derived_name(args));
    let n = generated.plan.n;
    let shape = &args.spec.shape;
    let complex_shape = args.spec.complex_shape();
    let kind = match args.spec.kind {
        TransformKind::C2c => quote!(C2c),
        TransformKind::R2c => quote!(R2c),
    };
    let radices: Vec<usize> = generated
        .plan
        .passes
        .iter()
        .flat_map(|pass| pass.radices())
        .collect();
    let docs = doc_lines(args, generated, &radices);
    let cuda = Literal::string(&generated.cuda_source);
    let opencl = Literal::string(&generated.opencl_source);
    let manifest = Literal::string(&generated.manifest.to_json());
    quote! {
        #(#[doc = #docs])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct #name;

        impl #name {
            /// Points of one transform: the product of `SHAPE` (for `r2c`,
            /// the reals of one transform).
            pub const N: usize = #n;
            /// Length of each axis, first axis first (row-major, the last
            /// contiguous); for `r2c`, of the real side.
            pub const SHAPE: &'static [usize] = &[#(#shape),*];
            /// `C2c`, or `R2c`: real input and its half spectrum, R2C forward
            /// and C2R inverse.
            pub const KIND: ::fftgen_runtime::TransformKind = ::fftgen_runtime::TransformKind::#kind;
            /// The shape of the complex side: `SHAPE`, or for `r2c` the half
            /// spectrum (the last axis `n / 2 + 1`).
            pub const COMPLEX_SHAPE: &'static [usize] = &[#(#complex_shape),*];
            /// The radix of every stage of the forward passes, pass after
            /// pass, first stage first (for `r2c`, the real axis's pass
            /// computes a complex FFT of `n / 2` for even `n`).
            pub const RADICES: &'static [usize] = &[#(#radices),*];
        }

        impl ::fftgen_runtime::StaticKernels for #name {
            const CUDA_SOURCE: &'static str = #cuda;
            const OPENCL_SOURCE: &'static str = #opencl;
            const MANIFEST_JSON: &'static str = #manifest;
        }
    }
}

/// `Fft{shape}{kind}{precision}`, the shape's axes joined by `x`, the kind
/// for `r2c` only, then the direction if only one, `InPlace`, and the
/// normalisation if any: `Fft4096F32`, `Fft1024x1024F32`,
/// `Fft1024F64ForwardInPlace`, `Fft4096R2cF32`.
fn derived_name(args: &KernelArgs) -> Ident {
    let spec = &args.spec;
    let kind = match spec.kind {
        TransformKind::C2c => "",
        TransformKind::R2c => "R2c",
    };
    let precision = match spec.precision {
        Precision::F32 => "F32",
        Precision::F64 => "F64",
    };
    let direction = match spec.directions.as_slice() {
        [Direction::Forward] => "Forward",
        [Direction::Inverse] => "Inverse",
        _ => "",
    };
    let placement = match spec.placement {
        Placement::OutOfPlace => "",
        Placement::InPlace => "InPlace",
    };
    let normalization = match spec.normalization {
        Normalization::None => "",
        Normalization::Inverse => "NormInverse",
        Normalization::Unitary => "Unitary",
    };
    format_ident!(
        "Fft{}{kind}{precision}{direction}{placement}{normalization}",
        shape_text(&spec.shape)
    )
}

/// The struct's documentation: what it is, the call that made it, and the
/// kernels it carries.
fn doc_lines(args: &KernelArgs, generated: &Generated, radices: &[usize]) -> Vec<String> {
    let spec = &args.spec;
    let directions: Vec<String> = spec.directions.iter().map(|d| d.to_string()).collect();
    let kernels: Vec<String> = generated
        .manifest
        .transforms
        .iter()
        .flat_map(|t| &t.passes)
        .map(|pass| format!(" - `{}`", pass.kernel))
        .collect();
    let what = match spec.kind {
        TransformKind::C2c => "complex-to-complex",
        TransformKind::R2c => "real-to-complex (R2C forward, C2R inverse)",
    };
    let mut lines = vec![
        format!(
            " {}-point {what} FFT kernels ({}, {}, {}, normalization {}, radices {:?}),",
            shape_text(&spec.shape),
            spec.precision,
            directions.join(" and "),
            spec.placement,
            spec.normalization,
            radices,
        ),
        " generated at build time by fftgen from".to_string(),
        format!(" `{}`.", args.invocation),
        String::new(),
        " `StaticKernels::CUDA_SOURCE` and `OPENCL_SOURCE` hold the sources and".to_string(),
        " `manifest()` their launch description; load them with".to_string(),
        " `fftgen_runtime::OpenClFft::new(&device, Self::OPENCL_SOURCE, &Self::manifest())`."
            .to_string(),
        String::new(),
        " Kernels:".to_string(),
        String::new(),
    ];
    lines.extend(kernels);
    lines
}

/// `4096`, `1024x1024`.
fn shape_text(shape: &[usize]) -> String {
    let axes: Vec<String> = shape.iter().map(|n| n.to_string()).collect();
    axes.join("x")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(call: &str) -> String {
        derived_name(&syn::parse_str::<KernelArgs>(call).unwrap()).to_string()
    }

    #[test]
    fn real_names_carry_the_kind() {
        assert_eq!(name("n = 4096"), "Fft4096F32");
        assert_eq!(name("n = 4096, kind = r2c"), "Fft4096R2cF32");
        assert_eq!(
            name("shape = [8, 12], kind = r2c, precision = f64, direction = inverse"),
            "Fft8x12R2cF64Inverse"
        );
    }
}
