//! Kernel names come from the whole shape: across many shapes (every shape
//! choice varied around the plans of sizes that take each code path), two
//! kernels with the same name have the same code, in both dialects. The
//! runtime's caches and the manifest identify kernels by name, so a choice
//! that changed code without changing the name would load the wrong kernel.

use fftgen::kernel::stockham::lower_stockham;
use fftgen::kernel::{dialect, KernelKey};
use fftgen::plan::{
    ExchangeBuffers, ExchangeWidth, FirstWrite, InputCaching, PaddingSearch, ShapeChoices,
};
use fftgen::{Backend, Direction, FftSpec, Normalization, Placement, Precision, Target};
use std::collections::HashMap;

/// The planned shape of `spec`, pinned, and variants of it that each change
/// one choice, or the exchange layout and padding together.
fn variants(spec: &FftSpec) -> Vec<ShapeChoices> {
    let Ok(plan) = fftgen::plan::plan(spec) else {
        return vec![];
    };
    let base = ShapeChoices::pinned(&plan.passes[0]);
    let pass = &plan.passes[0];
    let with = |f: &dyn Fn(&mut ShapeChoices)| {
        let mut v = base.clone();
        f(&mut v);
        v
    };
    let mut all = vec![base.clone()];
    for bound in 1..=3 {
        all.push(with(&|v| v.min_blocks_per_sm = Some(bound)));
    }
    for threads in [pass.threads_per_fft.div_ceil(2), 2 * pass.threads_per_fft] {
        all.push(with(&|v| {
            v.threads_per_fft = Some(threads);
            v.ffts_per_block = None;
        }));
    }
    for ffts in [1, 2] {
        all.push(with(&|v| v.ffts_per_block = Some(ffts)));
    }
    for caching in [InputCaching::L1AndL2, InputCaching::L2Only] {
        all.push(with(&|v| v.input_caching = Some(caching)));
    }
    for first in [FirstWrite::AfterBarrier, FirstWrite::Immediate] {
        all.push(with(&|v| v.first_write = Some(first)));
    }
    for width in [
        ExchangeWidth::BothParts,
        ExchangeWidth::OnePartAtATime,
        ExchangeWidth::Interleaved,
    ] {
        for buffers in [ExchangeBuffers::Reused, ExchangeBuffers::Alternating] {
            for search in [PaddingSearch::EvenRadices, PaddingSearch::AllRadices] {
                all.push(with(&|v| {
                    v.exchange_width = Some(width);
                    v.exchange_buffers = Some(buffers);
                    v.padding_search = Some(search);
                }));
            }
        }
    }
    all
}

#[test]
fn kernels_that_share_a_name_share_their_code() {
    let mut seen: HashMap<(Backend, String), String> = HashMap::new();
    let mut kernels = 0;
    for precision in [Precision::F32, Precision::F64] {
        for n in [2, 8, 24, 64, 128, 256, 1000, 1331, 2187, 2401, 4000, 4096] {
            for target in [Target::PORTABLE, Target::H200] {
                let spec = FftSpec::new(n).precision(precision).target(target);
                for choices in variants(&spec) {
                    for (placement, normalization) in [
                        (Placement::OutOfPlace, Normalization::None),
                        (Placement::InPlace, Normalization::Unitary),
                    ] {
                        let spec = spec
                            .clone()
                            .choices(choices.clone())
                            .placement(placement)
                            .normalization(normalization);
                        let Ok(plan) = fftgen::plan::plan(&spec) else {
                            continue;
                        };
                        let pass = &plan.passes[0];
                        for direction in [Direction::Forward, Direction::Inverse] {
                            let key = KernelKey::of(&plan, pass, direction);
                            let name = key.to_string();
                            assert_eq!(name.parse::<KernelKey>(), Ok(key), "{name}");
                            for backend in [Backend::Cuda, Backend::OpenCl] {
                                let code = lower_stockham(&plan, pass, direction)
                                    .render(dialect(backend, precision).as_ref());
                                kernels += 1;
                                match seen.get(&(backend, name.clone())) {
                                    Some(earlier) => assert_eq!(
                                        earlier, &code,
                                        "two different {backend} kernels are both called {name}"
                                    ),
                                    None => {
                                        seen.insert((backend, name.clone()), code);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    // Distinct code under distinct names, and many of them.
    let distinct = seen.len();
    assert!(
        distinct > 2000,
        "only {distinct} distinct kernels of {kernels}"
    );
}
