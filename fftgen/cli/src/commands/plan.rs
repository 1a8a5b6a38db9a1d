//! `fftgen plan`: the plan of one size as a readable table.

use super::args::TransformArgs;
use crate::Failure;
use clap::Args;
use fftgen::emit::pass_ops;
use fftgen::plan::Twiddles;

#[derive(Args)]
pub struct PlanArgs {
    #[command(flatten)]
    transform: TransformArgs,
    /// Print the plan as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: PlanArgs) -> Result<(), Failure> {
    let spec = args.transform.spec()?;
    let plan = fftgen::plan::plan(&spec)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&plan)?);
        return Ok(());
    }
    if spec.shape.len() > 1 {
        let shape: Vec<String> = spec.shape.iter().map(|n| n.to_string()).collect();
        print!("shape = {}, ", shape.join("x"));
    }
    println!(
        "n = {}, {}, {} pass(es), {}, normalisation {}, target {}",
        plan.n,
        plan.precision,
        plan.passes.len(),
        plan.placement,
        plan.normalization,
        spec.planned_target().name
    );
    let complex = plan.precision.complex_bytes();
    if plan.scratch_elements > 0 {
        println!(
            "workspace: {} bytes per transform of the batch",
            plan.scratch_elements * complex
        );
    }
    println!(
        "global memory moved: {} bytes per transform ({} pass(es), each reads and writes it once)",
        plan.bytes_moved(),
        plan.passes.len()
    );
    if plan.passes.len() > 1 {
        let axes: Vec<String> = plan
            .axis_factors
            .iter()
            .map(|factors| {
                let lengths: Vec<String> = factors.iter().map(|f| f.to_string()).collect();
                lengths.join(" x ")
            })
            .collect();
        println!(
            "passes per axis: {} (first axis first), column I/O {}",
            axes.join(", "),
            plan.column_io
        );
    }
    for (index, pass) in plan.passes.iter().enumerate() {
        let Twiddles::RoundedF64Table { len } = pass.twiddles;
        let direction = plan.directions[0];
        let access = &pass.access;
        let columns: Vec<String> = access
            .columns
            .iter()
            .map(|c| {
                format!(
                    "{} (strides {} -> {})",
                    c.count, c.input_stride, c.output_stride
                )
            })
            .collect();
        let rows = [
            ("FFT length", pass.n.to_string()),
            (
                "FFTs",
                format!(
                    "{} per transform{}",
                    access.ffts_per_transform(),
                    match columns.is_empty() {
                        true => String::new(),
                        false => format!(", columns {}", columns.join(", ")),
                    }
                ),
            ),
            (
                "reads",
                format!(
                    "{:?}, points {} apart, transforms {} apart, {:?}",
                    access.reads, access.input_stride, access.input_distance, pass.io
                ),
            ),
            (
                "writes",
                format!(
                    "{:?}, points {} apart, transforms {} apart, {:?}",
                    access.writes, access.output_stride, access.output_distance, pass.output_io
                ),
            ),
            (
                "bytes moved",
                format!("{} per transform", 2 * access.elements(pass.n) * complex),
            ),
            (
                "four-step twiddle",
                match pass.step_twiddle {
                    Some(step) => format!(
                        "w_{}^(c k), c = column {}, tables of {} + {}",
                        step.span,
                        step.column,
                        step.split,
                        step.coarse_len()
                    ),
                    None => "none".into(),
                },
            ),
            ("radices", format!("{:?}", pass.radices())),
            ("threads per FFT", pass.threads_per_fft.to_string()),
            ("values per thread", pass.values_per_thread.to_string()),
            ("FFTs per block", pass.ffts_per_block.to_string()),
            ("threads per block", pass.threads_per_block.to_string()),
            (
                "grid",
                format!(
                    "ceil(batch * {} / {}) blocks",
                    access.ffts_per_transform(),
                    pass.ffts_per_block
                ),
            ),
            ("lane layout", format!("{:?}", pass.lanes)),
            ("input caching", pass.input_caching.to_string()),
            (
                "launch bound",
                format!("{} block(s) per SM", pass.min_blocks_per_sm),
            ),
            ("exchange width", pass.exchange_width.to_string()),
            ("exchange buffers", pass.exchange_buffers.to_string()),
            ("first write", pass.first_write.to_string()),
            ("padding search", pass.padding_search.to_string()),
            (
                "shared memory",
                format!(
                    "{} bytes ({} words per FFT)",
                    pass.shared_bytes, pass.fft_stride
                ),
            ),
            ("twiddles", format!("table of {len}, f64 rounded once")),
            ("operations", pass_ops(pass, direction).to_string()),
        ];
        println!("\npass {index}:");
        for (name, value) in rows {
            println!("  {name:<18} {value}");
        }
        println!(
            "\n  {:<6} {:>6} {:>7} {:>12} {:>9}  exchange padding",
            "stage", "radix", "stride", "bfly/thread", "twiddles"
        );
        for (s, stage) in pass.stages.iter().enumerate() {
            let padding = match stage.exchange {
                None => "- (writes global memory)".to_string(),
                Some(p) if p.is_none() => "none".to_string(),
                Some(p) => format!("{} words every {}", p.gap, p.period),
            };
            println!(
                "  {:<6} {:>6} {:>7} {:>12} {:>9}  {}",
                s,
                stage.radix,
                stage.stride,
                format!(
                    "{}{}",
                    stage.butterflies_per_thread,
                    if stage.guarded { "*" } else { "" }
                ),
                if stage.twiddle_offset.is_some() {
                    "table"
                } else {
                    "none"
                },
                padding
            );
        }
        if pass.stages.iter().any(|s| s.guarded) {
            println!("  (* some threads skip their last butterfly)");
        }
    }
    Ok(())
}
