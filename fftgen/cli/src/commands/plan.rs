//! `fftgen plan`: the plan of one size as a readable table. A `c2c` plan
//! lists its passes once (both directions run them); an `r2c` plan lists the
//! R2C's passes and then the C2R's, each with the real step of the real
//! axis's pass (route, half-spectrum length).

use super::args::{MeasureArgs, TransformArgs};
use crate::Failure;
use clap::Args;
use fftgen::emit::pass_ops;
use fftgen::plan::multipass::SplitRanking;
use fftgen::plan::{
    Pass, PassScope, Plan, RealEnd, RealRoute, RealStep, ShapeChoices, StageTwiddles, Twiddles,
    Wisdom,
};
use fftgen::{Buffer, Direction, FftSpec, Placement, TransformKind};

#[derive(Args)]
pub struct PlanArgs {
    #[command(flatten)]
    transform: TransformArgs,
    /// Print the plan as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Spread the transform (2D or 3D) over this many GPUs: print the
    /// distributed plan (decomposition, each rank's share, the local steps
    /// and the exchanges).
    #[arg(long)]
    gpus: Option<usize>,
    /// With --gpus, the process grid: P (slabs) or P0xP1 (pencils, 3D).
    #[arg(long, requires = "gpus", value_parser = fftgen_cli::shape::parse_shape)]
    grid: Option<fftgen_cli::shape::Shape>,
    /// With --gpus, chunks a slab's exchange is cut into (each overlapping
    /// the next chunk's kernels); default: the planner's.
    #[arg(long, requires = "gpus")]
    chunks: Option<usize>,
    #[command(flatten)]
    measure: MeasureArgs,
    /// With --measure, the CUDA device ordinal to measure on.
    #[arg(long, requires = "measure", default_value_t = 0)]
    device: usize,
}

/// Where the plan's shape came from: the user's choices, the first wisdom
/// entry that plans it (the planner takes the first measured shape that
/// plans on the target), or the planner's model.
fn shape_origin(spec: &FftSpec, plan: &Plan) -> String {
    if !spec.choices.is_empty() {
        return "the choices given (the planner's for the rest)".into();
    }
    let Ok(wisdom) = Wisdom::for_spec(spec.wisdom.as_deref()) else {
        return "the planner's model".into();
    };
    let target = spec.planned_target();
    // A plan the model gives alone owes nothing to the wisdom, even where
    // an entry's choices (a complex size's split, for a real axis) change
    // nothing.
    let model = fftgen::plan::plan_with_wisdom(spec, &Wisdom::none());
    let measured = wisdom
        .candidates_with_files(&spec.shape, spec.precision, target)
        .find(|(_, entry)| {
            let again = spec.clone().choices(entry.choices.clone());
            model.as_ref() != Ok(plan) && fftgen::plan::plan(&again).as_ref() == Ok(plan)
        });
    match measured {
        Some((file, entry)) => format!(
            "measured on the {} ({}{}): {}",
            file.gpu,
            entry.choices,
            match entry.evidence.as_slice() {
                [] => String::new(),
                [log] => format!("; timings in {log}"),
                [first, rest @ ..] => format!("; timings in {first} and {} more", rest.len()),
            },
            match file.measured_on(target) {
                true => "this GPU's wisdom",
                false => "wisdom of another GPU, for GPUs without their own",
            }
        ),
        None => format!(
            "the planner's model (no measured shape of this size plans for target `{}`, or changes its plan)",
            target.name
        ),
    }
}

/// The column passes whose block shape a wisdom entry of their length gave
/// (the entry's choices are the pass's), with the entry's evidence.
fn column_pass_origins(spec: &FftSpec, plan: &Plan) -> Vec<String> {
    let Ok(wisdom) = Wisdom::for_spec(spec.wisdom.as_deref()) else {
        return Vec::new();
    };
    let target = spec.planned_target();
    let mut lines: Vec<String> = Vec::new();
    for pass in plan
        .passes
        .iter()
        .filter(|p| plan.passes.len() > 1 && !p.access.is_dense(p.n))
    {
        let twiddled = pass.step_twiddle.is_some();
        let Some((file, entry)) = wisdom.column_pass(pass.n, plan.precision, target, twiddled)
        else {
            continue;
        };
        let pinned = ShapeChoices::pinned(pass);
        if entry.choices.or(&pinned) != pinned {
            continue;
        }
        let line = format!(
            "{} points{}: {} (measured on the {}{})",
            pass.n,
            match entry.pass {
                Some(PassScope::TwiddledColumn) => " with a four-step twiddle",
                _ => "",
            },
            entry.choices,
            file.gpu,
            match entry.evidence.first() {
                Some(log) => format!("; timings in {log}"),
                None => String::new(),
            }
        );
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines
}

/// The one-kernel pass of a real axis whose shape a real-row wisdom entry
/// gave, with the entry's evidence.
fn real_row_origin(spec: &FftSpec, plan: &Plan) -> Option<String> {
    let wisdom = Wisdom::for_spec(spec.wisdom.as_deref()).ok()?;
    if !spec.choices.is_empty() {
        return None;
    }
    let pass = plan
        .passes
        .iter()
        .find(|p| p.real.is_some_and(|r| r.end == RealEnd::Both))?;
    let (file, entry) = wisdom.real_row(pass.n, plan.precision, spec.planned_target())?;
    let pinned = ShapeChoices::pinned(pass);
    (entry.choices.or(&pinned) == pinned).then(|| {
        format!(
            "the real axis's pass of {} points: {} (measured on the {}{})",
            pass.n,
            entry.choices,
            file.gpu,
            match entry.evidence.first() {
                Some(log) => format!("; timings in {log}"),
                None => String::new(),
            }
        )
    })
}

/// The candidates `--measure` would time, each named by what it changes.
fn candidates_lines(spec: &FftSpec, plan: &Plan) {
    let Ok(candidates) = fftgen::plan::measure::candidates(spec) else {
        return;
    };
    if candidates.len() < 2 {
        return;
    }
    let estimate = ShapeChoices::pinned_plan(plan);
    let target = spec.planned_target();
    // The fitted model's time over the copy's: of a one-kernel schedule
    // where the wisdom holds a model for this target and precision, and of
    // a plan of several passes by the model that ranks its splits.
    let wisdom = Wisdom::for_spec(spec.wisdom.as_deref()).ok();
    let model = wisdom.as_ref().and_then(|wisdom| wisdom.model(target));
    let ranking = SplitRanking::of(wisdom.as_deref(), target, spec.precision);
    let modelled = |plan: &Plan| {
        let time = match (model, plan.passes.len()) {
            (Some(model), 1) if model.precision == spec.precision => {
                Some(model.passes_time(&plan.passes, target.warp_size))
            }
            (_, 1) => None,
            _ if matches!(ranking, SplitRanking::None) => None,
            _ => Some(ranking.time(&plan.passes)),
        };
        time.map_or(String::new(), |time| {
            format!(", modelled {time:.2}x the copy's time")
        })
    };
    println!(
        "candidates --measure times after this plan{} ({}):",
        modelled(plan),
        candidates.len() - 1
    );
    for candidate in &candidates[1..] {
        let passes = match candidate.plan.passes.len() {
            1 => "1 pass".to_string(),
            n => format!("{n} passes"),
        };
        println!(
            "  {} ({passes}{})",
            fftgen_cli::measured::changed(&candidate.choices, &estimate),
            modelled(&candidate.plan)
        );
    }
}

pub fn run(args: PlanArgs) -> Result<(), Failure> {
    let spec = args.transform.spec()?;
    if let Some(gpus) = args.gpus {
        let distributed = fftgen::distributed::DistributedSpec {
            spec,
            gpus,
            grid: args.grid.map(|g| g.0),
            chunks: args.chunks,
        };
        let plan = fftgen::distributed::plan_distributed(&distributed)?;
        match args.json {
            true => println!("{}", serde_json::to_string_pretty(&plan)?),
            false => print!("{}", plan.describe()),
        }
        return Ok(());
    }
    let (spec, measured) = match args.measure.budget() {
        Some(budget) => {
            if args.gpus.is_some() {
                return Err(Failure::Usage(
                    "--measure times plans on one GPU; leave out --gpus".into(),
                ));
            }
            fftgen::plan::plan(&spec)?;
            let device = fftgen_runtime::CudaDevice::new(args.device)?;
            let (spec, lines) = fftgen_cli::measured::measured_spec(&device, &spec, budget)?;
            (spec, Some((device.name().to_string(), lines)))
        }
        None => (spec, None),
    };
    let plan = fftgen::plan::plan(&spec)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&plan)?);
        return Ok(());
    }
    if spec.shape.len() > 1 {
        print!("shape = {}, ", shape_text(&spec.shape));
    }
    println!(
        "n = {}, {}, {}, {}, normalisation {}, target {}",
        plan.n,
        plan.precision,
        pass_counts(&plan),
        plan.placement,
        plan.normalization,
        spec.planned_target().name
    );
    println!("kind: {}", kind_line(&plan));
    for line in fftgen::plan::bluestein::routes(&plan) {
        println!("route of {line}");
    }
    match &measured {
        Some((gpu, lines)) => {
            println!("shape from: measured on the {gpu}");
            for line in lines {
                println!("{line}");
            }
        }
        None => {
            println!("shape from: {}", shape_origin(&spec, &plan));
            candidates_lines(&spec, &plan);
        }
    }
    for line in column_pass_origins(&spec, &plan) {
        println!("column passes of {line}");
    }
    if let Some(line) = real_row_origin(&spec, &plan) {
        println!("shape of {line}");
    }
    if plan.scratch_elements > 0 {
        println!(
            "workspace: {} bytes per transform of the batch",
            plan.scratch_elements * plan.precision.complex_bytes()
        );
    }
    println!("global memory moved: {}", bytes_line(&plan));
    let fused: Vec<String> = plan
        .passes
        .iter()
        .filter_map(|pass| pass.fused_axes.as_ref())
        .map(|fused| {
            let lengths: Vec<String> = fused.lengths.iter().map(|n| n.to_string()).collect();
            lengths.join(" x ")
        })
        .collect();
    if !fused.is_empty() {
        println!(
            "axes at once: {} (one pass computes each group's DFT: its points fit one kernel)",
            fused.join(", ")
        );
    }
    if plan.axis_factors.iter().any(|f| f.len() > 1) || plan.passes.len() > 1 {
        let axes: Vec<String> = plan
            .axis_factors
            .iter()
            .map(|factors| {
                let lengths: Vec<String> = factors.iter().map(|f| f.to_string()).collect();
                lengths.join(" x ")
            })
            .collect();
        println!(
            "passes per axis: {} (first axis first{}{}), column I/O {}",
            axes.join(", "),
            match plan.kind {
                TransformKind::C2c => "",
                TransformKind::R2c => "; the real axis's FFT lengths",
            },
            match fused.is_empty() {
                true => "",
                false => "; axes at once share their pass",
            },
            plan.column_io
        );
    }
    for line in narrow_column_lines(&spec, &plan) {
        println!("{line}");
    }
    match plan.kind {
        TransformKind::C2c => {
            for (index, pass) in plan.passes.iter().enumerate() {
                print_pass(&plan, index, pass, plan.directions[0]);
            }
        }
        TransformKind::R2c => {
            for &direction in &plan.directions {
                println!("\n{direction} ({}) passes:", direction_name(direction));
                for (index, pass) in plan.passes_of(direction).iter().enumerate() {
                    print_pass(&plan, index, pass, direction);
                }
            }
        }
    }
    Ok(())
}

/// Why a column that one pass plans was split: its one pass would read
/// under 32 bytes of each row (`multipass.rs`, `narrow_column`). For each
/// split column whose length no later axis has (a split by hand names the
/// last axis of its length), where the spec names no split.
fn narrow_column_lines(spec: &FftSpec, plan: &Plan) -> Vec<String> {
    if spec.choices.split.is_some() {
        return Vec::new();
    }
    let shape = &plan.shape;
    let last = shape.iter().rposition(|&n| n > 1).unwrap_or(0);
    (0..last)
        .filter(|&axis| plan.axis_factors[axis].len() > 1)
        .filter(|&axis| !shape[axis + 1..].contains(&shape[axis]))
        .filter_map(|axis| {
            let n = shape[axis];
            let whole = spec.clone().choices(ShapeChoices {
                split: Some(vec![n]),
                ..ShapeChoices::default()
            });
            let one_pass = fftgen::plan::plan(&whole).ok()?;
            (one_pass.axis_factors[axis] == [n]).then(|| {
                format!(
                    "axis {axis} ({n}) split though one pass plans it (`--split {n}`): that pass \
                     reads under 32 bytes of each row, which lost to the split where measured"
                )
            })
        })
        .collect()
}

/// `1 pass(es)`, or for `r2c` each direction's count.
fn pass_counts(plan: &Plan) -> String {
    match plan.kind {
        TransformKind::C2c => format!("{} pass(es)", plan.passes.len()),
        TransformKind::R2c => {
            let counts: Vec<String> = plan
                .directions
                .iter()
                .map(|&d| format!("{} {} pass(es)", plan.passes_of(d).len(), d))
                .collect();
            counts.join(" + ")
        }
    }
}

/// What the transform reads and writes in each direction.
fn kind_line(plan: &Plan) -> String {
    match plan.kind {
        TransformKind::C2c => {
            "c2c (complex to complex; both directions run the same passes)".into()
        }
        TransformKind::R2c => {
            let reals = shape_text(&plan.shape);
            let half = shape_text(&plan.complex_shape());
            format!(
                "r2c (forward R2C, inverse C2R): forward {reals} reals -> {half} complex (the \
                 half spectrum), inverse {half} complex -> {reals} reals, unnormalised \
                 (n times the input)"
            )
        }
    }
}

/// The bytes one transform's passes move, per direction for `r2c`.
fn bytes_line(plan: &Plan) -> String {
    let sum = |passes: &[Pass]| -> usize { passes.iter().map(|p| p.bytes_moved(plan)).sum() };
    match plan.kind {
        TransformKind::C2c => format!(
            "{} bytes per transform ({} pass(es), each reads and writes {})",
            plan.bytes_moved(),
            plan.passes.len(),
            match plan.passes.iter().any(|p| p.chirp.is_some()) {
                true => "Bluestein's rows of M, or the axis's points where a step meets them",
                false => "it once",
            }
        ),
        TransformKind::R2c => {
            let directions: Vec<String> = plan
                .directions
                .iter()
                .map(|&d| format!("{} {} bytes", d, sum(plan.passes_of(d))))
                .collect();
            format!(
                "{} per transform (the real axis's pass reads or writes the reals and the half \
                 spectrum once; a complex pass reads and writes the half spectrum once)",
                directions.join(", ")
            )
        }
    }
}

/// The table of one pass and its stages.
fn print_pass(plan: &Plan, index: usize, pass: &Pass, direction: Direction) {
    let Twiddles::RoundedF64Table { len } = pass.twiddles;
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
    let mut rows = vec![
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
                "{}{}, points {} apart, transforms {} apart, {:?}",
                buffer_words(plan, pass, direction, access.reads),
                region_words(access.input_offset),
                access.input_stride,
                access.input_distance,
                pass.io
            ),
        ),
        (
            "writes",
            format!(
                "{}{}, points {} apart, transforms {} apart, {:?}",
                buffer_words(plan, pass, direction, access.writes),
                region_words(access.output_offset),
                access.output_stride,
                access.output_distance,
                pass.output_io
            ),
        ),
        (
            "bytes moved",
            format!("{} per transform", pass.bytes_moved(plan)),
        ),
    ];
    if let Some(chirp) = pass.chirp {
        let label = match chirp.rader {
            Some(_) => "Rader step",
            None => "Bluestein step",
        };
        rows.push((label, chirp_words(&chirp, pass)));
    }
    if let Some(fused) = &pass.fused_axes {
        let lengths: Vec<String> = fused.lengths.iter().map(|n| n.to_string()).collect();
        rows.push((
            "axes at once",
            format!(
                "{}: their {}D DFT in one kernel (each axis's radices in turn, innermost first; \
                 the first stage reads its inputs transposed, and the stages of an outer axis \
                 twiddle by its own digits only)",
                lengths.join(" x "),
                fused.lengths.len()
            ),
        ));
    }
    if plan.kind == TransformKind::R2c {
        let whole_shape = pass
            .fused_axes
            .as_ref()
            .is_some_and(|f| f.real_rows.is_some());
        let step = match pass.real {
            Some(_) if whole_shape => whole_shape_words(direction),
            Some(step) => real_step_words(&step, direction),
            None => "none (a complex axis, over the half spectrum)".into(),
        };
        rows.push(("real step", step));
    }
    rows.extend([
        (
            "four-step twiddle",
            match pass.step_twiddle {
                Some(step) => format!(
                    "w_{}^(c k), c = column {}, tables of {} + {}, {}",
                    step.span,
                    step.column,
                    step.split,
                    step.coarse_len(),
                    step.form
                ),
                None => "none".into(),
            },
        ),
        ("radices", format!("{:?}", pass.radices())),
        ("threads per FFT", pass.threads_per_fft.to_string()),
        ("values per thread", pass.values_per_thread.to_string()),
        (
            "FFTs per block",
            match pass.launch_ffts_per_block() / pass.ffts_per_block {
                1 => pass.ffts_per_block.to_string(),
                rows => format!("{} ({rows} rows each)", pass.ffts_per_block),
            },
        ),
        ("threads per block", pass.threads_per_block.to_string()),
        (
            "grid",
            format!(
                "ceil({} * {} / {}) blocks",
                match pass.transform_pairs {
                    true => "ceil(batch / 2)",
                    false => "batch",
                },
                pass.launch_ffts_per_transform(),
                pass.launch_ffts_per_block()
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
    ]);
    println!("\npass {index}:");
    for (name, value) in rows {
        println!("  {name:<18} {value}");
    }
    print_stages(pass);
}

/// What a pass does of Bluestein's or Rader's algorithm besides an FFT,
/// and where.
fn chirp_words(chirp: &fftgen::plan::Chirp, pass: &Pass) -> String {
    use fftgen::plan::ChirpRole;
    let m = chirp.padded;
    let at = match chirp.index {
        Some(index) => format!(
            "point c + {} p of the row, c = column {}",
            index.points, index.column
        ),
        None => "point p of the row".into(),
    };
    let step = match (chirp.role, chirp.rader) {
        (ChirpRole::Whole { from, to }, Some(rader)) => format!(
            "Rader's algorithm whole: the loads of the axis's points g^j ({from:?}, g = {}, j < \
             {m}); the FFT of {m}; the product with the kernel's spectrum into shared memory, \
             x[0] added to its point 0 and X[0] kept; the FFT of {m} again; the stores of output \
             g^j ({to:?}) and X[0]",
            rader.generator
        ),
        (role, _) => bluestein_words(role, chirp, pass),
    };
    match pass.stages.is_empty() {
        true => format!("{step}, a kernel of its own"),
        false => format!("{step}, at {at}"),
    }
}

/// What a pass does of Bluestein's algorithm besides an FFT, in `role`.
fn bluestein_words(
    role: fftgen::plan::ChirpRole,
    chirp: &fftgen::plan::Chirp,
    pass: &Pass,
) -> String {
    use fftgen::plan::ChirpRole;
    let (n, m) = (chirp.n, chirp.padded);
    match role {
        ChirpRole::Load { side } => format!(
            "the chirp on the loads of the axis's {n} points ({side:?}), 0 up to {m}{}",
            match chirp.index.is_none() && !pass.stages.is_empty() {
                true => "; the product with the chirp's spectrum on the stores",
                false => "",
            }
        ),
        ChirpRole::Multiply => format!("the product with the chirp's spectrum (rows of {m})"),
        ChirpRole::Store { side } => {
            format!("the closing chirp, row point (M - k) mod M as output k < {n} ({side:?})")
        }
        ChirpRole::Whole { from, to } => format!(
            "the whole algorithm: the chirp on the loads of the axis's {n} points ({from:?}), 0 up \
             to {m}; the FFT of {m}; the product with the chirp's spectrum into shared memory; the \
             FFT of {m} again; the closing chirp on the stores of output k < {n} ({to:?})"
        ),
        ChirpRole::Separate => format!(
            "the two half spectra of a pair of rows from their spectrum Z: X[k] = (Z[k] + conj \
             Z[{n} - k]) / 2, Y[k] = (Z[k] - conj Z[{n} - k]) / 2i for k <= {}",
            n / 2
        ),
    }
}

/// The stage table of `pass`.
fn print_stages(pass: &Pass) {
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
            match (stage.twiddle_offset, stage.twiddle_form) {
                (None, _) => "none",
                (Some(_), StageTwiddles::Direct) => "table",
                (Some(_), StageTwiddles::FineCoarse { .. }) => "fine x coarse",
            },
            padding
        );
    }
    if pass.stages.iter().any(|s| s.guarded) {
        println!("  (* some threads skip their last butterfly)");
    }
}

/// A buffer a pass reads or writes, with what it holds for `r2c`: in
/// `direction`, the input and output are that direction's sides (the C2R
/// reads the half spectrum and writes the reals).
fn buffer_words(plan: &Plan, pass: &Pass, direction: Direction, buffer: Buffer) -> String {
    if plan.kind == TransformKind::C2c {
        return format!("{buffer:?}");
    }
    let real_side = match direction {
        Direction::Forward => Buffer::Input,
        Direction::Inverse => Buffer::Output,
    };
    let holds = match (buffer, pass.real) {
        (Buffer::Scratch, _) => "complex",
        // The C2C passes of a half-length real axis read the reals in
        // pairs (R2C) or write them (C2R).
        (b, None)
            if b == real_side
                && plan.placement == Placement::OutOfPlace
                && plan.passes_of(direction).iter().any(|p| {
                    p.real
                        .is_some_and(|r| matches!(r.end, RealEnd::Apart | RealEnd::Mirrored(_)))
                }) =>
        {
            "reals, as complex pairs"
        }
        // Bluestein's steps on a real axis read or write the reals.
        (b, None)
            if b == real_side
                && pass.chirp.is_some_and(|chirp| match chirp.role {
                    fftgen::plan::ChirpRole::Load { side }
                    | fftgen::plan::ChirpRole::Store { side } => side.reals(),
                    fftgen::plan::ChirpRole::Whole { from, to } => from.reals() || to.reals(),
                    _ => false,
                }) =>
        {
            "reals"
        }
        (b, Some(step)) if b == real_side => match step.route {
            RealRoute::HalfLength => "reals, as complex pairs",
            RealRoute::FullLength | RealRoute::PairedRows => "reals",
        },
        _ => "half spectrum",
    };
    format!("{buffer:?} ({holds})")
}

/// Where a side starts past its buffer's first element: the second region
/// of a workspace that holds two.
fn region_words(offset: usize) -> String {
    match offset {
        0 => String::new(),
        offset => format!(" from element {offset} (the workspace's second region)"),
    }
}

/// What the real step of a pass over a real transform's whole shape does
/// in `direction` (fftgen::plan::real_shape).
fn whole_shape_words(direction: Direction) -> String {
    let what = match direction {
        Direction::Forward => {
            "two transforms' reals as the real and imaginary parts of one complex DFT over \
             every axis, separated on the stores into their half spectra (X[k] from Z[k] and \
             conj Z[-k], -k every coordinate negated)"
        }
        Direction::Inverse => {
            "two transforms' half spectra merged on the loads into one complex DFT over every \
             axis (Z[k] = X[k] + i Y[k], Z[-k] = conj X[k] + i conj Y[k]), the real parts \
             kept in one transform, the imaginary parts in the other"
        }
    };
    format!(
        "{}, the whole shape in one pass: {what}",
        direction_name(direction)
    )
}

/// What the real step of a pass does in `direction`: its route, the half
/// spectrum's length, and which end of the pass it is fused into (a pass of
/// the whole axis both; a long axis's first pass its loads, its last pass
/// its stores).
fn real_step_words(step: &RealStep, direction: Direction) -> String {
    let (n, half, m) = (step.real_n, step.half_len(), step.real_n / 2);

    let (loads, stores, length) = match (step.route, direction) {
        (RealRoute::HalfLength, Direction::Forward) => (
            format!("the {n} reals of a row read as {m} complex pairs"),
            format!("split into the {half} values of the half spectrum"),
            m,
        ),
        (RealRoute::HalfLength, Direction::Inverse) => (
            format!("the {half} values of the half spectrum merged into {m} complex values"),
            format!("stored as {n} reals"),
            m,
        ),
        (RealRoute::FullLength, Direction::Forward) => (
            format!("the {n} reals of a row with zero imaginary parts"),
            format!("the {half} values of the half spectrum kept"),
            n,
        ),
        (RealRoute::FullLength, Direction::Inverse) => (
            format!(
                "the Hermitian spectrum of {n} rebuilt from the {half} values of the half spectrum"
            ),
            format!("the {n} real parts kept"),
            n,
        ),
        (RealRoute::PairedRows, Direction::Forward) => (
            format!("the {n} reals of two rows as the real and imaginary parts"),
            format!("separated into the two rows' {half} values of the half spectrum"),
            n,
        ),
        (RealRoute::PairedRows, Direction::Inverse) => (
            format!(
                "the Hermitian spectra of {n} of two rows rebuilt from their {half} values of \
                 the half spectrum as one's real and the other's imaginary parts"
            ),
            format!("the real parts kept in one row, the imaginary parts in the other"),
            n,
        ),
    };
    let name = direction_name(direction);
    let route = match step.route {
        RealRoute::HalfLength => "half length",
        RealRoute::FullLength => "full length",
        RealRoute::PairedRows => "full length, rows paired",
    };
    let what = match step.end {
        RealEnd::Both => format!("{loads}, a complex FFT of {length}, {stores}"),
        RealEnd::Loads(_) => format!(
            "at the loads of this first pass of the axis's complex FFT of {length}: {loads}"
        ),
        RealEnd::Stores(_) => format!(
            "at the stores of this last pass of the axis's complex FFT of {length}: {stores}"
        ),
        RealEnd::Mirrored(mirrored) => match direction {
            Direction::Forward => format!(
                "at the stores of this last pass of the FFT of {m}, from a tile of mirrored \
                 column pairs (u, {c} - u): its outputs {stores}",
                c = mirrored.columns
            ),
            Direction::Inverse => format!(
                "at the loads of this first pass of the inverse FFT of {m} ({} columns, X[k] \
                 and X[{m} - k] read together): {loads}",
                mirrored.columns
            ),
        },
        RealEnd::Apart => match direction {
            Direction::Forward => format!(
                "a pass of its own after the C2C passes of the FFT of {m}: its outputs \
                 {stores}, in place"
            ),
            Direction::Inverse => format!(
                "a pass of its own before the C2C passes of the inverse FFT of {m}: {loads}"
            ),
        },
    };
    let twiddles = match step.twiddle_offset {
        Some(offset) => format!("; w_{n}^k from table entry {offset}"),
        None => String::new(),
    };
    let half = match (step.hermitian_half, step.end, direction) {
        (false, _, _) => "",
        (true, RealEnd::Loads(_), Direction::Forward) => {
            "; each FFT of reals stores its outputs to the middle (the rest are their conjugates)"
        }
        (true, RealEnd::Stores(_), Direction::Forward) => {
            "; the columns of one half of the symmetry, the outputs past the middle of the row \
             written mirrored as conjugates"
        }
        (true, RealEnd::Loads(_), Direction::Inverse) => {
            "; the columns of one half of the symmetry, all the last pass reads"
        }
        (true, _, _) => "; each FFT's points past its middle read as conjugates of those below",
    };
    format!("{name}, {route}: {what}{twiddles}{half}")
}

/// `R2C` (forward) or `C2R` (inverse).
fn direction_name(direction: Direction) -> String {
    TransformKind::R2c.name(direction).to_uppercase()
}

/// `4096`, `1024x1024`.
fn shape_text(shape: &[usize]) -> String {
    fftgen_cli::shape::shape_text(shape)
}
