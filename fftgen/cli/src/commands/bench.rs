//! `fftgen bench`: times our CUDA kernels against cuFFT and a device-to-device
//! copy on one GPU (and our OpenCL kernels where NVIDIA's OpenCL platform is
//! present), checks every contender's accuracy, prints a table and writes
//! JSON, an SVG plot and optionally Markdown. Exit code 2 when it cannot run
//! (no driver, no device), 1 when one of our kernels failed or was inaccurate.
//! `--kind r2c` measures real transforms: per shape an R2C row and a C2R
//! row, each against cuFFT's R2C or C2R. `--random K` times K cases drawn
//! from `--seed` ([`bench::random_shapes`]), each in its own precision and
//! kind; `--list` prints the cases a command would time and exits.

use super::args::{MeasureArgs, PrecisionArg, RunArgs};
use crate::Failure;
use clap::{Args, FromArgMatches};
use fftgen::{Precision, ShapeChoices, TransformKind};
use fftgen_cli::bench::random_shapes::MAX_CASES;
use fftgen_cli::bench::{self, BenchCase, BenchConfig, BenchRow, Outputs, RandomDraw, Schedule};
use fftgen_cli::shape::{shape_text, Shape};
use std::path::PathBuf;

#[derive(Args)]
pub struct BenchArgs {
    #[arg(long, value_enum, default_value_t = PrecisionArg::F32)]
    precision: PrecisionArg,
    /// Transform shapes: lengths, or axes joined by `x` for 2D and 3D, e.g.
    /// 8192,1048576,1024x1024,256x256x256; any shape the planner accepts
    /// (default for f32: powers of two from 2 to 2^27, 1000, 1331, 2187,
    /// 2197, 2401, 3125, 4000, 5000, 6561, 10000, 12000, 15625, 20000,
    /// 24576, 3^10, 5^7, 10^5, 10^6, 1000x1000, 1024x1024, 4096x4096,
    /// 256^3 and 512^3; for f64 powers of two to 4096, 5000, 6561, 8192,
    /// 10000, 2^16, 2^20 and 1024x1024; for r2c powers of two to 8192 and
    /// the f32 list's other sizes to 4000). `--n` is the same option.
    #[arg(long, visible_alias = "n", value_delimiter = ',', value_name = "SHAPE,SHAPE,..", value_parser = fftgen_cli::shape::parse_shape)]
    sizes: Option<Vec<Shape>>,
    /// Time K cases drawn at random from --seed instead of listed shapes,
    /// in the order drawn, each a shape in its own precision as its own
    /// kind: 1D to 2^27 points, 2D and 3D axes to 16384, log-uniform,
    /// mostly 13-smooth (1 in 8 of any length, Bluestein's where a prime
    /// factor passes 31), f32 and f64, c2c and r2c, each within the 1 GiB
    /// batch. The same seed draws the same cases everywhere.
    #[arg(
        long,
        value_name = "K",
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_CASES as u64),
        conflicts_with_all = ["sizes", "precision", "kind", "gpus"]
    )]
    random: Option<usize>,
    /// With --random, time the drawn cases from this one on (0-based): a
    /// sample cut into parts, each run within a time limit (`--random 100
    /// --random-from 50` times the second half of `--random 100`'s cases).
    #[arg(long, value_name = "I", requires = "random", default_value_t = 0)]
    random_from: usize,
    /// Print the cases this command would time, one per line as `SHAPE
    /// PRECISION KIND` (`1024x1024 f32 c2c`), and exit without a GPU.
    #[arg(long, conflicts_with = "print_sizes")]
    list: bool,
    /// c2c, or r2c: real transforms, each shape's R2C and C2R in rows of
    /// their own against cuFFT's R2C and C2R (D2Z and Z2D in f64).
    #[arg(long, default_value = "c2c")]
    kind: TransformKind,
    #[command(flatten)]
    run: RunArgs,
    /// Shape choices for one size instead of the planner's, as the size and
    /// `fftgen emit`'s flags in one argument, e.g. '2401 --radix 7,7,7,7
    /// --threads-per-fft 343' (the form `fftgen tune` prints), or a shape
    /// and `fftgen plan`'s flags ('900x88 --split 30,30'); repeat for
    /// several sizes.
    #[arg(long = "shape", value_parser = parse_shape, allow_hyphen_values = true)]
    shapes: Vec<(Shape, ShapeChoices)>,
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
    /// Print the shapes this command would time, joined by commas (the form
    /// --sizes takes: what scripts/device/vkfft.sh times VkFFT on), and
    /// exit without a GPU.
    #[arg(long)]
    print_sizes: bool,
    /// Spread each shape (2D or 3D) over this many GPUs of the machine
    /// (one process, NCCL between them): time it whole, its local steps
    /// alone and its exchanges alone (NCCL's all-to-all of the same bytes),
    /// next to the same transform on one GPU.
    #[arg(long)]
    gpus: Option<usize>,
    /// With --gpus, the process grid: P (slabs) or P0xP1 (pencils, 3D).
    #[arg(long, requires = "gpus", value_parser = fftgen_cli::shape::parse_shape)]
    grid: Option<Shape>,
    /// With --gpus, transforms per call (default: as many as fill 1 GiB).
    #[arg(long, requires = "gpus", default_value_t = 0)]
    batch: usize,
    /// With --gpus, chunks a slab's exchange is cut into; default: the planner's.
    #[arg(long, requires = "gpus")]
    chunks: Option<usize>,
    #[command(flatten)]
    measure: MeasureArgs,
}

pub fn run(args: BenchArgs) -> Result<(), Failure> {
    let precision = match args.precision {
        PrecisionArg::F32 => Precision::F32,
        PrecisionArg::F64 => Precision::F64,
    };
    let mut config = BenchConfig::new(precision);
    config.measure = args.measure.budget();
    if config.measure.is_some() && args.gpus.is_some() {
        return Err(Failure::Usage(
            "--measure times plans on one GPU; leave out --gpus".into(),
        ));
    }
    let sizes = listed_shapes(&args, precision);
    if let Some(count) = args.random.filter(|&count| args.random_from >= count) {
        return Err(Failure::Usage(format!(
            "--random-from {} leaves none of the {count} cases drawn; give an index below {count}",
            args.random_from
        )));
    }
    config.draw = args.random.map(|count| RandomDraw {
        count,
        seed: args.run.seed,
        from: args.random_from,
    });
    config.cases = match config.draw {
        Some(draw) => draw.cases(),
        None => BenchCase::listed(&sizes, precision, args.kind),
    };
    if print_only(&args, &config, &sizes) {
        return Ok(());
    }
    config.schedule = args.run.schedule(Schedule::default().groups)?;
    if let Some(gpus) = args.gpus {
        let distributed = bench::distributed::DistributedConfig {
            shapes: sizes,
            kind: args.kind,
            precision,
            gpus,
            grid: args.grid.map(|g| g.0),
            batch: args.batch,
            chunks: args.chunks,
            schedule: config.schedule,
        };
        let rows = bench::distributed::run(&distributed)?;
        let device = fftgen_runtime::CudaDevice::new(0)?;
        let line = format!(
            "{gpus} x {}, `{}`, {}",
            device.name(),
            command_line(),
            fftgen::VERSION
        );
        let table = bench::distributed::markdown(&rows, &line);
        print!("{table}");
        std::fs::write(&args.json, serde_json::to_string_pretty(&rows)?)?;
        println!("wrote {}", args.json.display());
        if let Some(path) = &args.markdown {
            std::fs::write(path, &table)?;
            println!("wrote {}", path.display());
        }
        let inaccurate: Vec<_> = rows
            .iter()
            .filter(|r| r.error.is_some_and(|e| e > r.tolerance))
            .collect();
        for row in &inaccurate {
            eprintln!(
                "{}: error {:.3e} against the {} is past the tolerance {:.3e}",
                row.shape,
                row.error.unwrap_or(0.0),
                row.error_against,
                row.tolerance
            );
        }
        return match inaccurate.is_empty() {
            true => Ok(()),
            false => Err(Failure::Inaccurate),
        };
    }
    config.device = args.run.device;
    config.opencl = !args.no_opencl;
    config.seed = args.run.seed;
    let mut overrides = std::collections::BTreeMap::<Shape, ShapeChoices>::new();
    for (shape, choices) in args.shapes {
        let earlier = overrides.remove(&shape).unwrap_or_default();
        overrides.insert(shape, choices.or(&earlier));
    }
    config.overrides = overrides;
    config.command = command_line();

    eprintln!(
        "fftgen bench: {}, {} warm-ups + {} groups of {} launches each",
        what_runs(&config, args.kind, precision),
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
        let errors = match row.direction {
            Some(_) => format!("error {:?}", row.ours_error),
            None => format!(
                "error {:?} / inverse {:?}",
                row.ours_error, row.ours_inverse_error
            ),
        };
        eprintln!(
            "N = {} ({}): our kernel did not pass ({errors}, tolerance {:.3e}, unwritten {:?}){}",
            row.label(),
            row.precision,
            row.tolerance,
            row.ours_unwritten,
            row.notes
                .iter()
                .map(|n| format!("; {n}"))
                .collect::<String>()
        );
    }
    Err(Failure::Inaccurate)
}

/// Prints what `--print-sizes` (the shapes, joined by commas: listed in
/// the order given, drawn in the order drawn) or `--list` (the cases, one
/// per line) asks for; whether one did, and the command ends there.
fn print_only(args: &BenchArgs, config: &BenchConfig, sizes: &[Shape]) -> bool {
    if args.print_sizes {
        let shapes: Vec<String> = match config.draw {
            Some(_) => config.cases.iter().map(|c| c.shape.to_string()).collect(),
            None => sizes.iter().map(|s| shape_text(&s.0)).collect(),
        };
        println!("{}", shapes.join(","));
    }
    if args.list {
        for case in &config.cases {
            println!("{case}");
        }
    }
    args.print_sizes || args.list
}

/// The shapes `--sizes` lists, or by default the bench's list for the
/// precision and kind.
fn listed_shapes(args: &BenchArgs, precision: Precision) -> Vec<Shape> {
    match (&args.sizes, args.kind) {
        (Some(sizes), _) => sizes.clone(),
        (None, TransformKind::C2c) => bench::default_shapes(precision),
        (None, TransformKind::R2c) => bench::default_real_sizes(precision)
            .into_iter()
            .map(|n| Shape(vec![n]))
            .collect(),
    }
}

/// What the run times, as its first line says: `c2c f32, 40 shapes`, or
/// `100 cases drawn with seed 1 (f32 and f64, c2c and r2c)`.
fn what_runs(config: &BenchConfig, kind: TransformKind, precision: Precision) -> String {
    match config.draw {
        Some(RandomDraw { count, seed, from }) => {
            let timed = match from {
                0 => format!("{count} cases"),
                _ => format!("cases {} to {count} of {count}", from + 1),
            };
            format!("{timed} drawn with seed {seed} (f32 and f64, c2c and r2c)")
        }
        None => format!("{kind} {precision}, {} shapes", config.cases.len()),
    }
}

/// One line on stderr as each shape finishes.
fn progress(row: &BenchRow) {
    let ms = |t: &Option<bench::Timing>| {
        t.as_ref()
            .map_or("-".to_string(), |t| format!("{:.4}", t.median_ms))
    };
    let error = |e: Option<f64>| e.map_or("-".to_string(), |e| format!("{e:.2e}"));
    eprintln!(
        "  N = {:>4} {} {}: ours {} ms, cuFFT {} ms, copy {} ms, OpenCL {} ms, ours error {}, \
         cuFFT error {}{}",
        row.label(),
        row.precision,
        passes_or_shape(row),
        ms(&row.ours),
        ms(&row.cufft),
        ms(&row.copy),
        ms(&row.opencl),
        error(row.ours_error),
        error(row.cufft_error),
        if row.notes.is_empty() {
            String::new()
        } else {
            format!(" ({} note(s))", row.notes.len())
        }
    );
}

/// What ran: one kernel's choices (the `--shape` flags), or the count of
/// passes of a plan of several.
fn passes_or_shape(row: &BenchRow) -> String {
    match row.passes {
        0 | 1 => row.shape.to_string(),
        passes => format!("{passes} passes"),
    }
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

/// Parses `SHAPE FLAGS...`: a size or a shape, then the shape choices as
/// `fftgen emit` takes them.
fn parse_shape(text: &str) -> Result<(Shape, ShapeChoices), String> {
    let mut words = text.split_whitespace();
    let size = words.next().unwrap_or_default();
    let shape = fftgen_cli::shape::parse_shape(size.trim_end_matches(':')).map_err(|_| {
        format!("`{text}` does not start with a size; give e.g. '2401 --radix 7,7,7,7'")
    })?;
    let command = ShapeChoices::augment_args(clap::Command::new("--shape").no_binary_name(true));
    let matches = command
        .try_get_matches_from(words)
        .map_err(|e| format!("in `{text}`: {}", e.render()))?;
    let choices = ShapeChoices::from_arg_matches(&matches).map_err(|e| e.to_string())?;
    Ok((shape, choices))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_is_a_size_and_emit_flags() {
        let (n, choices) = parse_shape("2401 --radix 7,7,7,7 --threads-per-fft 343").unwrap();
        assert_eq!(n, Shape(vec![2401]));
        assert_eq!(choices.radices, Some(vec![7, 7, 7, 7]));
        assert_eq!(choices.threads_per_fft, Some(343));
        // What tune prints parses back to the same choices.
        let again = parse_shape(&format!("{n} {choices}")).unwrap();
        assert_eq!(again, (n, choices));
        assert!(parse_shape("2401 --radices 7,7,7,7").is_err());
        assert!(parse_shape("2401 --first-write never").is_err());
        // A shape of several axes takes plan's flags.
        let (shape, choices) = parse_shape("900x88 --split 30,30").unwrap();
        assert_eq!(shape, Shape(vec![900, 88]));
        assert_eq!(choices.split, Some(vec![30, 30]));
    }

    /// `fftgen bench`'s own arguments, parsed as the command line would.
    fn bench_args(args: &[&str]) -> Result<BenchArgs, clap::Error> {
        let command = BenchArgs::augment_args(clap::Command::new("bench"));
        let matches =
            command.try_get_matches_from(std::iter::once("bench").chain(args.iter().copied()))?;
        BenchArgs::from_arg_matches(&matches)
    }

    #[test]
    fn measuring_takes_a_budget_that_needs_measure() {
        let args = bench_args(&["--measure", "--measure-budget-ms", "250"]).unwrap();
        assert_eq!(
            args.measure.budget(),
            Some(std::time::Duration::from_millis(250))
        );
        let default = bench_args(&["--measure"]).unwrap().measure.budget();
        assert_eq!(default, Some(std::time::Duration::from_secs(1)));
        assert_eq!(bench_args(&[]).unwrap().measure.budget(), None);
        assert!(bench_args(&["--measure-budget-ms", "250"]).is_err());
    }

    #[test]
    fn sizes_take_lengths_and_shapes() {
        let args = bench_args(&[
            "--sizes",
            "8192,16384,1048576,1024x1024,4096x4096,256x256x256",
        ])
        .unwrap();
        let sizes: Vec<Vec<usize>> = args.sizes.unwrap().into_iter().map(|s| s.0).collect();
        assert_eq!(
            sizes,
            [
                vec![8192],
                vec![16384],
                vec![1048576],
                vec![1024, 1024],
                vec![4096, 4096],
                vec![256, 256, 256]
            ]
        );
        // Plain lengths as before, with pinned shapes beside them.
        let args = bench_args(&["--sizes", "256,2401", "--shape", "2401 --radix 7,7,7,7"]).unwrap();
        assert_eq!(args.sizes.unwrap(), [Shape(vec![256]), Shape(vec![2401])]);
        assert_eq!(args.shapes[0].0, Shape(vec![2401]));
        assert!(bench_args(&["--sizes", "1024x1024x2x2"]).is_err());
        assert!(bench_args(&["--sizes", "1024,abc"]).is_err());
        assert!(bench_args(&[]).unwrap().sizes.is_none());
    }

    #[test]
    fn real_transforms_take_kind_and_n() {
        let args = bench_args(&["--kind", "r2c", "--n", "4096"]).unwrap();
        assert_eq!(args.kind, TransformKind::R2c);
        assert_eq!(args.sizes.unwrap(), [Shape(vec![4096])]);
        let args = bench_args(&["--kind", "r2c", "--n", "1024x1024"]).unwrap();
        assert_eq!(args.sizes.unwrap(), [Shape(vec![1024, 1024])]);
        assert_eq!(bench_args(&[]).unwrap().kind, TransformKind::C2c);
        assert!(bench_args(&["--kind", "c2r"]).is_err());
        // `--n` is `--sizes`: given twice, the lists add up.
        let both = bench_args(&["--n", "8", "--sizes", "16"]).unwrap();
        assert_eq!(both.sizes.unwrap(), [Shape(vec![8]), Shape(vec![16])]);
    }

    #[test]
    fn random_draws_its_own_cases_and_conflicts_with_listed_ones() {
        let args = bench_args(&["--random", "100", "--seed", "3", "--list"]).unwrap();
        assert_eq!(
            (args.random, args.run.seed, args.list),
            (Some(100), 3, true)
        );
        assert_eq!(bench_args(&[]).unwrap().random, None);
        // Drawn cases carry their own shapes, precisions and kinds.
        for listed in [
            &["--sizes", "4096"][..],
            &["--n", "1024x1024"],
            &["--precision", "f64"],
            &["--kind", "r2c"],
            &["--gpus", "2"],
        ] {
            let mut line = vec!["--random", "5"];
            line.extend(listed);
            let error = bench_args(&line).err().unwrap();
            assert_eq!(
                error.kind(),
                clap::error::ErrorKind::ArgumentConflict,
                "{line:?}"
            );
        }
        for count in ["0", "10001", "-1", "many"] {
            assert!(bench_args(&["--random", count]).is_err(), "{count}");
        }
        // A part of a draw: from a case on, only with --random.
        let part = bench_args(&["--random", "5", "--random-from", "3"]).unwrap();
        assert_eq!((part.random, part.random_from), (Some(5), 3));
        assert!(bench_args(&["--random-from", "3"]).is_err());
        assert!(matches!(
            run(bench_args(&["--random", "5", "--random-from", "5", "--list"]).unwrap()),
            Err(Failure::Usage(_))
        ));
        // --list prints listed shapes too, one case a line; not with --print-sizes.
        assert!(bench_args(&["--n", "4096", "--list"]).unwrap().list);
        assert!(bench_args(&["--list", "--print-sizes"]).is_err());
    }

    #[test]
    fn listed_and_drawn_cases() {
        let args = bench_args(&["--kind", "r2c", "--n", "8192,4096,4096"]).unwrap();
        let sizes = listed_shapes(&args, Precision::F64);
        assert_eq!(sizes.len(), 3);
        let lines: Vec<String> = BenchCase::listed(&sizes, Precision::F64, args.kind)
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(lines, ["4096 f64 r2c", "8192 f64 r2c"]);
        let defaults = listed_shapes(&bench_args(&[]).unwrap(), Precision::F32);
        assert_eq!(defaults, bench::default_shapes(Precision::F32));
        let mut config = BenchConfig::new(Precision::F32);
        config.draw = Some(RandomDraw {
            count: 3,
            seed: 1,
            from: 0,
        });
        assert_eq!(
            what_runs(&config, TransformKind::C2c, Precision::F32),
            "3 cases drawn with seed 1 (f32 and f64, c2c and r2c)"
        );
    }
}
