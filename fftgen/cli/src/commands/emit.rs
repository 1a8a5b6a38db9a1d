//! `fftgen emit`: writes `<stem>.cu`, `<stem>.cl` and `<stem>.json` (the
//! launch manifest) into a directory.

use super::args::TransformArgs;
use crate::Failure;
use clap::{Args, ValueEnum};
use fftgen::emit::extension;
use fftgen::Backend;
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
    Ok(())
}
