//! `fftgen emit`: writes `<stem>.cu`, `<stem>.cl` and `<stem>.json` (the
//! launch manifest) into a directory, and says what they hold: the kind,
//! and each direction's kernels and sides.

use super::args::TransformArgs;
use crate::Failure;
use clap::{Args, ValueEnum};
use fftgen::emit::extension;
use fftgen::{Backend, Direction, Element, Manifest, Precision};
use std::path::PathBuf;

#[derive(Args)]
pub struct EmitArgs {
    #[command(flatten)]
    transform: TransformArgs,
    /// Which sources to write.
    #[arg(long, value_enum, default_value_t = BackendArg::All)]
    backend: BackendArg,
    /// Directory to write into (created if missing).
    #[arg(long)]
    out: PathBuf,
}

#[derive(ValueEnum, Clone, Copy)]
enum BackendArg {
    Cuda,
    Opencl,
    All,
}

pub fn run(args: EmitArgs) -> Result<(), Failure> {
    let spec = args.transform.spec()?;
    let generated = fftgen::generate(&spec, &spec.emit_command())?;
    let backends: &[Backend] = match args.backend {
        BackendArg::Cuda => &[Backend::Cuda],
        BackendArg::Opencl => &[Backend::OpenCl],
        BackendArg::All => &[Backend::Cuda, Backend::OpenCl],
    };
    let out = &args.out;
    std::fs::create_dir_all(out).map_err(|e| {
        Failure::Usage(format!(
            "cannot create the output directory {}: {e}",
            out.display()
        ))
    })?;
    let stem = generated.file_stem();
    let mut files = Vec::new();
    for &backend in backends {
        files.push((
            out.join(format!("{stem}.{}", extension(backend))),
            generated.source(backend).to_string(),
        ));
    }
    files.push((
        out.join(format!("{stem}.json")),
        generated.manifest.to_json() + "\n",
    ));
    for (path, text) in &files {
        std::fs::write(path, text)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))?;
        println!("wrote {}", path.display());
    }
    for line in summary(&generated.manifest) {
        println!("{line}");
    }
    Ok(())
}

/// One line per generated direction: its transform (`c2c`, `r2c`, `c2r`),
/// kernels, and what its input and output buffers hold per transform.
fn summary(manifest: &Manifest) -> Vec<String> {
    let holds = |element: Element, shape: &[usize], precision: Precision| {
        let points: usize = shape.iter().product();
        let what = match element {
            Element::Real => "reals",
            Element::Complex => "complex values",
        };
        format!(
            "{points} {what} ({} bytes)",
            points * element.bytes(precision)
        )
    };
    manifest
        .transforms
        .iter()
        .map(|transform| {
            let direction: Direction = transform.direction;
            let input = manifest.input_side(direction);
            let output = manifest.output_side(direction);
            format!(
                "{} {} ({direction}): {} kernel(s); per transform reads {}, writes {}",
                manifest.kind.name(direction),
                fftgen_cli::shape::shape_text(&manifest.shape),
                transform.passes.len(),
                holds(input.element, &input.shape, manifest.precision),
                holds(output.element, &output.shape, manifest.precision),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fftgen::TransformKind;

    #[test]
    fn the_summary_names_each_direction_and_its_sides() {
        let spec = fftgen::FftSpec::new(4096).kind(TransformKind::R2c);
        let generated = fftgen::generate(&spec, &spec.emit_command()).unwrap();
        let lines = summary(&generated.manifest);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].starts_with("r2c 4096 (forward): 1 kernel(s); per transform reads 4096 reals (16384 bytes), writes 2049 complex values (16392 bytes)"),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].starts_with(
                "c2r 4096 (inverse): 1 kernel(s); per transform reads 2049 complex values"
            ),
            "{}",
            lines[1]
        );
        let spec = fftgen::FftSpec::new(64);
        let generated = fftgen::generate(&spec, &spec.emit_command()).unwrap();
        assert!(summary(&generated.manifest)[0].starts_with("c2c 64 (forward)"));
    }
}
