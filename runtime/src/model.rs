//! The GPU model in a device name, as a [`fftgen_manifest::Target`] names it
//! for matching wisdom files: the driver's name without the vendor, which
//! both CUDA (`NVIDIA H200`) and NVIDIA's OpenCL report in front of it.

/// The model in `device_name`: `NVIDIA H100 80GB HBM3` is `H100 80GB HBM3`;
/// a name without the prefix (a CPU's, say) is its own model.
pub(crate) fn model_of(device_name: &str) -> &str {
    device_name.strip_prefix("NVIDIA ").unwrap_or(device_name)
}

#[cfg(test)]
mod tests {
    use super::model_of;

    #[test]
    fn the_vendor_is_dropped_and_nothing_else() {
        assert_eq!(model_of("NVIDIA H200"), "H200");
        assert_eq!(model_of("NVIDIA H100 80GB HBM3"), "H100 80GB HBM3");
        assert_eq!(model_of("cpu-haswell-AMD EPYC"), "cpu-haswell-AMD EPYC");
    }
}
