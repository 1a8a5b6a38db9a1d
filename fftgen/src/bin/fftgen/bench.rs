//! `fftgen bench`: times our CUDA kernels against cuFFT and a device-to-device
//! copy on one GPU (and our OpenCL kernels where NVIDIA's OpenCL platform is
//! present), checks every contender's accuracy, prints a table and writes
//! JSON, an SVG plot and optionally Markdown. Exit code 2 when it cannot run
//! (no driver, no device), 1 when one of our kernels failed or was inaccurate.

use crate::args::PrecisionArg;
use crate::Failure;
use clap::Args;
use fftgen::bench::{self, BenchConfig, BenchRow, Outputs, Schedule, ShapeOverride};
use fftgen::plan::{ExchangeBuffers, ExchangeWidth, FirstWrite, InputCaching, PaddingSearch};
use fftgen::Precision;
use std::path::PathBuf;
use std::str::FromStr;

#[derive(Args)]
pub struct BenchArgs {
    #[arg(long, value_enum, default_value_t = PrecisionArg::F32)]
    precision: PrecisionArg,
    /// Transform lengths (default: powers of two from 2 to 4096 and 1000,
    /// 1331, 2187, 2197, 2401, 3125, 4000 for f32; powers of two to 2048 for f64).
    #[arg(long, value_delimiter = ',')]
    sizes: Option<Vec<usize>>,
    /// Launches per timed group (events bracket each group).
    #[arg(long, default_value_t = Schedule::default().repeats)]
    repeats: usize,
    /// Timed groups per contender and size; the median is reported.
    #[arg(long, default_value_t = Schedule::default().groups)]
    groups: usize,
    /// Untimed launches before the groups.
    #[arg(long, default_value_t = Schedule::default().warmup)]
    warmup: usize,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
    /// Seed of the random input.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Use this radix sequence for one size instead of the planner's, as
    /// N:R1xR2x... (e.g. 4096:8x8x8x8); repeat for several sizes.
    #[arg(long = "radix", value_parser = parse_radix_override)]
    radix_overrides: Vec<(usize, Vec<usize>)>,
    /// Threads per transform for one size instead of the planner's, as N:T
    /// (e.g. 2401:343); repeat for several sizes.
    #[arg(long = "threads-per-fft", value_parser = parse_count_override)]
    threads_overrides: Vec<(usize, usize)>,
    /// CUDA launch bound (blocks per SM) for one size instead of the
    /// occupancy model's, as N:B (e.g. 1331:5); repeat for several sizes.
    #[arg(long = "min-blocks-per-sm", value_parser = parse_count_override)]
    blocks_overrides: Vec<(usize, usize)>,
    /// Transforms per block for one size instead of the planner's, as N:M
    /// (e.g. 1331:1); repeat for several sizes.
    #[arg(long = "ffts-per-block", value_parser = parse_count_override)]
    ffts_overrides: Vec<(usize, usize)>,
    /// Caches the input loads of one size go through instead of the
    /// planner's choice, as N:l1-and-l2 or N:l2-only; repeat for several sizes.
    #[arg(long = "input-caching", value_parser = parse_choice_override::<InputCaching>)]
    caching_overrides: Vec<(usize, InputCaching)>,
    /// Shared exchange arrays of one size instead of the planner's choice,
    /// as N:reused or N:alternating; repeat for several sizes.
    #[arg(long = "exchange-buffers", value_parser = parse_choice_override::<ExchangeBuffers>)]
    buffers_overrides: Vec<(usize, ExchangeBuffers)>,
    /// How complex values of one size cross shared memory instead of the
    /// planner's choice, as N:both-parts or N:one-part-at-a-time; repeat for
    /// several sizes.
    #[arg(long = "exchange-width", value_parser = parse_choice_override::<ExchangeWidth>)]
    width_overrides: Vec<(usize, ExchangeWidth)>,
    /// Whether one size's block synchronises before its first shared-memory
    /// writes, as N:after-barrier or N:immediate; repeat for several sizes.
    #[arg(long = "first-write", value_parser = parse_choice_override::<FirstWrite>)]
    first_write_overrides: Vec<(usize, FirstWrite)>,
    /// Which exchanges of one size get a searched padding, as
    /// N:even-radices or N:all-radices; repeat for several sizes.
    #[arg(long = "padding-search", value_parser = parse_choice_override::<PaddingSearch>)]
    padding_search_overrides: Vec<(usize, PaddingSearch)>,
    /// Skip the OpenCL column.
    #[arg(long)]
    no_opencl: bool,
    /// Where to write the JSON report.
    #[arg(long, default_value = "bench.json")]
    json: PathBuf,
    /// Where to write the SVG plot (% of copy bandwidth against N).
    #[arg(long, default_value = "bench.svg")]
    svg: PathBuf,
    /// Also write the table as Markdown here (for docs/perf.md).
    #[arg(long)]
    markdown: Option<PathBuf>,
}

pub fn run(args: BenchArgs) -> Result<(), Failure> {
    if args.repeats == 0 || args.groups == 0 {
        return Err(Failure::Usage(
            "--repeats and --groups must be at least 1".into(),
        ));
    }
    let precision = match args.precision {
        PrecisionArg::F32 => Precision::F32,
        PrecisionArg::F64 => Precision::F64,
    };
    let mut config = BenchConfig::new(precision);
    if let Some(sizes) = args.sizes {
        config.sizes = sizes;
    }
    config.schedule = Schedule {
        warmup: args.warmup,
        repeats: args.repeats,
        groups: args.groups,
    };
    config.device = args.device;
    config.opencl = !args.no_opencl;
    config.seed = args.seed;
    let mut overrides = std::collections::BTreeMap::<usize, ShapeOverride>::new();
    for (n, radices) in args.radix_overrides {
        overrides.entry(n).or_default().radices = Some(radices);
    }
    for (n, threads) in args.threads_overrides {
        overrides.entry(n).or_default().threads_per_fft = Some(threads);
    }
    for (n, blocks) in args.blocks_overrides {
        overrides.entry(n).or_default().min_blocks_per_sm = Some(blocks);
    }
    for (n, ffts) in args.ffts_overrides {
        overrides.entry(n).or_default().ffts_per_block = Some(ffts);
    }
    for (n, caching) in args.caching_overrides {
        overrides.entry(n).or_default().input_caching = Some(caching);
    }
    for (n, buffers) in args.buffers_overrides {
        overrides.entry(n).or_default().exchange_buffers = Some(buffers);
    }
    for (n, width) in args.width_overrides {
        overrides.entry(n).or_default().exchange_width = Some(width);
    }
    for (n, first_write) in args.first_write_overrides {
        overrides.entry(n).or_default().first_write = Some(first_write);
    }
    for (n, search) in args.padding_search_overrides {
        overrides.entry(n).or_default().padding_search = Some(search);
    }
    config.overrides = overrides;
    config.command = command_line();

    eprintln!(
        "fftgen bench: {precision}, {} sizes, {} warm-ups + {} groups of {} launches each",
        config.sizes.len(),
        config.schedule.warmup,
        config.schedule.groups,
        config.schedule.repeats
    );
    let report = bench::run(&config, progress)?;
    print!("{}", report.to_text());
    let outputs = Outputs {
        json: Some(args.json),
        svg: Some(args.svg),
        markdown: args.markdown,
    };
    for path in outputs.write(&report)? {
        println!("wrote {}", path.display());
    }
    let failed: Vec<&BenchRow> = report.rows.iter().filter(|r| !r.ours_passed()).collect();
    if failed.is_empty() {
        return Ok(());
    }
    for row in failed {
        eprintln!(
            "N = {}: our kernel did not pass (error {:?} / inverse {:?}, tolerance {:.3e}, unwritten {:?}){}",
            row.n,
            row.ours_error,
            row.ours_inverse_error,
            row.tolerance,
            row.ours_unwritten,
            row.notes.iter().map(|n| format!("; {n}")).collect::<String>()
        );
    }
    Err(Failure::Inaccurate)
}

/// One line on stderr as each size finishes.
fn progress(row: &BenchRow) {
    let ms = |t: &Option<bench::Timing>| {
        t.as_ref()
            .map_or("-".to_string(), |t| format!("{:.4}", t.median_ms))
    };
    eprintln!(
        "  N = {:>4} {:?} x {} threads, {} per block, bound {}, input {}, exchange {} {}, first write {}, padding search {}: ours {} ms, cuFFT {} ms, copy {} ms, OpenCL {} ms, ours error {}{}",
        row.n,
        row.radices,
        row.threads_per_fft,
        row.ffts_per_block,
        row.min_blocks_per_sm,
        row.input_caching,
        row.exchange_width,
        row.exchange_buffers,
        row.first_write,
        row.padding_search,
        ms(&row.ours),
        ms(&row.cufft),
        ms(&row.copy),
        ms(&row.opencl),
        row.ours_error
            .map_or("-".to_string(), |e| format!("{e:.2e}")),
        if row.notes.is_empty() {
            String::new()
        } else {
            format!(" ({} note(s))", row.notes.len())
        }
    );
}

/// The command line as typed, arguments with spaces quoted.
pub fn command_line() -> String {
    std::env::args()
        .map(|arg| {
            if arg.contains(char::is_whitespace) {
                format!("'{arg}'")
            } else {
                arg
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parses `N:R1xR2x...`.
fn parse_radix_override(text: &str) -> Result<(usize, Vec<usize>), String> {
    let bad = || format!("`{text}` is not N:R1xR2x... (e.g. 4096:8x8x8x8)");
    let (n, radices) = text.split_once(':').ok_or_else(bad)?;
    let n = n.trim().parse().map_err(|_| bad())?;
    let radices = radices
        .split('x')
        .map(|r| r.trim().parse().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    Ok((n, radices))
}

/// Parses `N:l1-and-l2` or `N:l2-only`.
/// `N:VALUE` for a per-size choice, e.g. `1331:l2-only`.
fn parse_choice_override<V: FromStr<Err = String>>(text: &str) -> Result<(usize, V), String> {
    let bad = || format!("`{text}` is not N:VALUE (e.g. 1331:l2-only, 2401:immediate)");
    let (n, value) = text.split_once(':').ok_or_else(bad)?;
    let n = n.trim().parse().map_err(|_| bad())?;
    Ok((n, value.trim().parse()?))
}

fn parse_count_override(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{text}` is not N:COUNT (e.g. 2401:343)");
    let (n, count) = text.split_once(':').ok_or_else(bad)?;
    let n = n.trim().parse().map_err(|_| bad())?;
    let count = count.trim().parse().map_err(|_| bad())?;
    Ok((n, count))
}
