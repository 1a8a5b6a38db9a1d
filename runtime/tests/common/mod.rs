//! Shared by the runtime's integration tests: how a test reacts when the
//! library it needs (PoCL, NVRTC) is missing. Under CI=true a missing library
//! fails the test, so CI cannot go green by testing nothing; elsewhere the test
//! says loudly that it skipped. The launch tests of both backends also share
//! their hand-written plans ([`plans`]) and host-slice test bodies ([`host`]).

#![allow(dead_code)]

pub mod host;
pub mod plans;

use fftgen_runtime::{nvrtc_available, OpenClDevice};
use std::io::Write;

/// Whether the environment declares itself CI (CI=true, as GitHub Actions and `.ci/run` set).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Panics under CI, else prints a visible SKIPPED line; the caller then returns.
pub fn skip(test: &str, why: &str) {
    if in_ci() {
        panic!("{test}: {why}, and CI=true forbids skipping");
    }
    // Written to the stream itself: libtest captures eprintln! of passing tests.
    let _ = writeln!(std::io::stderr(), "SKIPPED: {test}: {why}");
}

/// The shared PoCL device, or None after reporting why the test skips.
pub fn pocl(test: &str) -> Option<&'static OpenClDevice> {
    match OpenClDevice::shared_pocl() {
        Ok(device) => Some(device),
        Err(e) => {
            skip(test, &format!("no PoCL device: {e}"));
            None
        }
    }
}

/// Whether NVRTC can be loaded; reports the skip when it cannot.
pub fn nvrtc(test: &str) -> bool {
    let available = nvrtc_available();
    if !available {
        skip(
            test,
            "NVRTC is not loadable (set LD_LIBRARY_PATH to DIR/nvidia/cu13/lib)",
        );
    }
    available
}
