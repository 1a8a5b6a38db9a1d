//! `fftgen plan` gives the same plans as the stored list, for every supported
//! size in both precisions and for the targets that plan differently
//! (portable, any CUDA GPU, NVIDIA's OpenCL, the H200 through CUDA and
//! through OpenCL). The list was written by the planner before its limits
//! became a `Target` and its measured shapes wisdom files: a refactor of the
//! planner must not change a line of it. When a change is meant to change
//! plans, regenerate it (`FFTGEN_BLESS_PLANS=1 cargo test -p fftgen --test
//! plans`) and review the diff like a snapshot.

use fftgen::plan::factor::supported_sizes;
use fftgen::plan::pass_planner::max_size;
use fftgen::plan::Plan;
use fftgen::{FftSpec, Precision, Target};
use std::fmt::Write;

const STORED: &str = "tests/plans/every_size.txt";

/// One plan as one line: every field of its pass and of each stage.
fn line(plan: &Plan) -> String {
    let pass = &plan.passes[0];
    let mut s = format!(
        "r={:?} t={} v={} m={} tpb={} b={} lanes={:?} io={:?} cache={} stride={} w={} buf={} \
         fw={} ps={} sh={} tw={:?} st=",
        pass.radices(),
        pass.threads_per_fft,
        pass.values_per_thread,
        pass.ffts_per_block,
        pass.threads_per_block,
        pass.min_blocks_per_sm,
        pass.lanes,
        pass.io,
        pass.input_caching,
        pass.fft_stride,
        pass.exchange_width,
        pass.exchange_buffers,
        pass.first_write,
        pass.padding_search,
        pass.shared_bytes,
        pass.twiddles
    );
    for st in &pass.stages {
        let _ = write!(
            s,
            "[{} {} {} {} {:?} {:?}]",
            st.radix,
            st.stride,
            st.butterflies_per_thread,
            st.guarded,
            st.twiddle_offset,
            st.exchange.map(|p| (p.period, p.gap))
        );
    }
    s
}

fn targets() -> Vec<(&'static str, Option<Target>)> {
    vec![
        ("portable", None),
        ("cuda", Some(Target::CUDA)),
        ("opencl-nvidia", Some(Target::OPENCL_NVIDIA)),
        // The H200 as NVIDIA's OpenCL sees it.
        (
            "h200-opencl",
            Some(Target::H200.clamped_to(&Target::OPENCL_NVIDIA)),
        ),
        ("h200", Some(Target::H200)),
    ]
}

#[test]
fn every_supported_size_plans_as_the_stored_list_says() {
    let mut out = String::new();
    for (name, target) in targets() {
        for precision in [Precision::F32, Precision::F64] {
            for n in supported_sizes(max_size(precision)) {
                let mut spec = FftSpec::new(n).precision(precision);
                spec.target = target.clone();
                // Built-in wisdom only, whatever FFTGEN_WISDOM says.
                let plan = fftgen::plan::plan_with_wisdom(&spec, fftgen::plan::Wisdom::built_in())
                    .unwrap_or_else(|e| panic!("{name} {precision} {n}: {e}"));
                writeln!(out, "{name} {precision} {n}: {}", line(&plan)).unwrap();
            }
        }
    }
    if std::env::var_os("FFTGEN_BLESS_PLANS").is_some() {
        std::fs::write(STORED, &out).unwrap();
    }
    let stored = std::fs::read_to_string(STORED).unwrap();
    let changed: Vec<String> = stored
        .lines()
        .zip(out.lines())
        .filter(|(want, got)| want != got)
        .map(|(want, got)| format!("  was {want}\n  now {got}"))
        .collect();
    assert!(
        changed.is_empty() && stored.lines().count() == out.lines().count(),
        "{} of {} plans changed:\n{}",
        changed.len(),
        stored.lines().count(),
        changed.join("\n")
    );
}
