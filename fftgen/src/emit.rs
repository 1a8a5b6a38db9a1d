//! Whole source files and their launch manifest: the plan lowered once per
//! direction, helpers and butterflies the kernels call, the twiddle table, and
//! the header every generated file starts with (generator version, the command
//! that reproduces it, 'generated, do not edit', op counts, shared memory,
//! launch shape). The skeleton is a tera template; bodies come from the AST.

use crate::codelet::Codelet;
use crate::expr::OpCount;
use crate::kernel::ast::Function;
use crate::kernel::butterfly::lower_butterfly;
use crate::kernel::chirp::{lower_chirp, step_name};
use crate::kernel::complex_ops::{cmul, cmul_name};
use crate::kernel::real_split::{is_apart, lower_real_split};
use crate::kernel::signature::TWIDDLES;
use crate::kernel::stockham::{has_twiddles, lower_stockham, pad_helper, twiddle_table};
use crate::kernel::{dialect, KernelKey};
use crate::plan::{plan, ChirpRole, Pass, Plan, StageTwiddles, Twiddles};
use crate::{Backend, Direction, Error, FftSpec, Placement, Precision, TransformKind, VERSION};
use fftgen_manifest::{GridRule, KernelArg, Manifest, PassLaunch, TransformLaunch};
use serde::Serialize;
use std::collections::BTreeSet;
use std::sync::OnceLock;

const SOURCE_TEMPLATE: &str = include_str!("../../templates/source.tera");

/// Everything generated for one spec.
#[derive(Debug, Clone)]
pub struct Generated {
    pub plan: Plan,
    pub cuda_source: String,
    pub opencl_source: String,
    pub manifest: Manifest,
}

impl Generated {
    pub fn source(&self, backend: Backend) -> &str {
        match backend {
            Backend::Cuda => &self.cuda_source,
            Backend::OpenCl => &self.opencl_source,
        }
    }

    /// File name without extension, e.g. `fftgen_n4096_r8x8x8x8_f32`.
    pub fn file_stem(&self) -> String {
        file_stem(&self.plan)
    }
}

/// File extension of each backend's sources.
pub fn extension(backend: Backend) -> &'static str {
    match backend {
        Backend::Cuda => "cu",
        Backend::OpenCl => "cl",
    }
}

/// Plans `spec` and emits both sources and the manifest. `invocation` is the
/// command or macro call that reproduces the output, written in the header.
pub fn generate(spec: &FftSpec, invocation: &str) -> Result<Generated, Error> {
    generate_plan(plan(spec)?, invocation)
}

/// Emits both sources and the manifest of `plan` (one made by hand, or a
/// local step of a distributed plan).
pub fn generate_plan(plan: Plan, invocation: &str) -> Result<Generated, Error> {
    let cuda_source = render_source(&plan, Backend::Cuda, invocation)?;
    let opencl_source = render_source(&plan, Backend::OpenCl, invocation)?;
    let manifest = manifest(&plan);
    Ok(Generated {
        plan,
        cuda_source,
        opencl_source,
        manifest,
    })
}

fn file_stem(plan: &Plan) -> String {
    // Real transforms say so (c2c stems stay as they were).
    if plan.kind == TransformKind::R2c {
        return format!("fftgen_r2c_n{}_{}", shape_text(&plan.shape), plan.precision);
    }
    if plan.passes.len() > 1 || plan.shape.len() > 1 {
        return format!("fftgen_n{}_{}", shape_text(&plan.shape), plan.precision);
    }
    let radices: Vec<String> = plan.passes[0]
        .radices()
        .iter()
        .map(|r| r.to_string())
        .collect();
    format!(
        "fftgen_n{}_r{}_{}",
        plan.n,
        radices.join("x"),
        plan.precision
    )
}

/// Operations one transform of `pass` performs: butterflies plus twiddle
/// multiplications (2 muls and 2 FMAs each).
pub fn pass_ops(pass: &Pass, direction: Direction) -> OpCount {
    // Bluestein's algorithm in one kernel runs its FFT of M twice.
    let ffts = match pass.chirp.map(|c| c.role) {
        Some(ChirpRole::Whole { .. }) => 2,
        _ => 1,
    };
    let one_fft = pass
        .stages
        .iter()
        .map(|stage| {
            let butterflies = (pass.n / stage.radix) as u64;
            let butterfly = Codelet::generate(stage.radix, direction).ops * butterflies;
            // A fine x coarse twiddle costs one more complex product.
            let products = match (stage.twiddle_offset, stage.twiddle_form) {
                (None, _) => 0,
                (Some(_), StageTwiddles::Direct) => 1,
                (Some(_), StageTwiddles::FineCoarse { .. }) => 2,
            };
            let twiddles = OpCount {
                adds: 0,
                muls: 2,
                fmas: 2,
            } * (products * butterflies * (stage.radix as u64 - 1));
            butterfly + twiddles
        })
        .fold(OpCount::default(), |a, b| a + b);
    one_fft * ffts
}

/// The source of one radix butterfly alone, as it appears in kernel files.
pub fn butterfly_source(
    radix: usize,
    direction: Direction,
    precision: Precision,
    backend: Backend,
) -> String {
    let d = dialect(backend, precision);
    lower_butterfly(&Codelet::generate(radix, direction), precision).render(d.as_ref())
}

#[derive(Serialize)]
struct SourceContext {
    file_name: String,
    /// What the kernels transform, for the header's first line.
    transform: String,
    n: usize,
    shape: String,
    precision: String,
    backend: String,
    version: &'static str,
    invocation: String,
    radices: String,
    threads_per_fft: usize,
    ffts_per_block: usize,
    input_caching: String,
    exchange_buffers: String,
    threads_per_block: usize,
    shared_bytes: usize,
    /// Whether CUDA launches the kernel with opt-in dynamic shared memory.
    dynamic_shared: bool,
    twiddles: String,
    ops: String,
    kernel_names: Vec<String>,
    arguments: String,
    single_pass: bool,
    passes: Vec<String>,
    prelude: String,
    helpers: Vec<String>,
    kernels: Vec<String>,
}

/// One complete source file for `backend`.
pub fn render_source(plan: &Plan, backend: Backend, invocation: &str) -> Result<String, Error> {
    let d = dialect(backend, plan.precision);
    let pass = &plan.passes[0];
    // The kernels first: the helpers a file defines are those they call.
    let (keys, lowered) = lowered_kernels(plan);
    let called: BTreeSet<String> = lowered.iter().flat_map(|k| k.calls()).collect();
    let kernels: Vec<String> = lowered.iter().map(|k| k.render(d.as_ref())).collect();
    let ops = plan
        .directions
        .first()
        .map(|&dir| {
            plan.passes
                .iter()
                .map(|p| pass_ops(p, dir) * p.access.ffts_per_transform() as u64)
                .fold(OpCount::default(), |a, b| a + b)
        })
        .unwrap_or_default();
    let Twiddles::RoundedF64Table { len } = pass.twiddles;
    let context = SourceContext {
        file_name: format!("{}.{}", file_stem(plan), extension(backend)),
        transform: match plan.kind {
            TransformKind::C2c => "complex-to-complex".into(),
            TransformKind::R2c => format!(
                "real-to-complex (forward R2C, half spectrum of {} values per row) and \
                 complex-to-real (inverse C2R)",
                plan.shape.last().map_or(0, |n| n / 2 + 1)
            ),
        },
        n: plan.n,
        shape: shape_text(&plan.shape),
        precision: plan.precision.to_string(),
        backend: backend.to_string(),
        version: VERSION,
        invocation: invocation.to_string(),
        radices: format!("{:?}", pass.radices()),
        threads_per_fft: pass.threads_per_fft,
        ffts_per_block: pass.ffts_per_block,
        input_caching: pass.input_caching.to_string(),
        exchange_buffers: pass.exchange_buffers.to_string(),
        threads_per_block: pass.threads_per_block,
        shared_bytes: pass.shared_bytes,
        dynamic_shared: pass.dynamic_shared,
        twiddles: if len == 0 {
            "no twiddles between stages (one stage)".to_string()
        } else {
            format!(
                "twiddle table of {len} values computed in f64, rounded once, passed as `{TWIDDLES}` (manifest twiddle_tables[0])"
            )
        },
        ops: ops.to_string(),
        kernel_names: keys.iter().map(|k| k.to_string()).collect(),
        arguments: arguments_text(plan),
        single_pass: plan.passes.len() == 1
            && plan.shape.len() == 1
            && pass.access.is_dense(pass.n),
        passes: labelled_passes(plan)
            .into_iter()
            .map(|(label, p)| pass_text(&label, p))
            .collect(),
        prelude: d.prelude(),
        helpers: helpers(plan, backend, &called),
        kernels,
    };
    let context =
        tera::Context::from_serialize(&context).map_err(|e| Error::Template(e.to_string()))?;
    templates()
        .render("source", &context)
        .map_err(|e| Error::Template(format!("{e:?}")))
}

/// The kernel of each pass of `plan`, each direction's, with its key:
/// passes of equal shape (the axes of a cube) share one.
fn lowered_kernels(plan: &Plan) -> (Vec<KernelKey>, Vec<Function>) {
    let mut keys = Vec::new();
    let mut lowered = Vec::new();
    for &dir in &plan.directions {
        for p in plan.passes_of(dir) {
            let key = KernelKey::of(plan, p, dir);
            if !keys.contains(&key) {
                lowered.push(
                    match (is_apart(p), p.chirp.is_some() && p.stages.is_empty()) {
                        (true, _) => lower_real_split(plan, p, dir),
                        (false, true) => lower_chirp(plan, p, dir),
                        (false, false) => lower_stockham(plan, p, dir),
                    },
                );
                keys.push(key);
            }
        }
    }
    (keys, lowered)
}

/// The helper functions the kernels of `plan` call (`called`), rendered
/// for `backend`: the complex products, the padding of shared memory and
/// the butterflies of each radix and direction.
fn helpers(plan: &Plan, backend: Backend, called: &BTreeSet<String>) -> Vec<String> {
    let d = dialect(backend, plan.precision);
    // A twiddle, or its conjugate for the inverse, multiplies a value; a
    // twiddle read from a fine and a coarse table is their product (`a * w`
    // whatever the direction), so a plan of one direction may call both.
    let mut helpers = Vec::new();
    for conjugate in [false, true] {
        if called.contains(&cmul_name(conjugate, plan.precision)) {
            helpers.push(cmul(conjugate, plan.precision).render(d.as_ref()));
        }
    }
    if plan.all_passes().any(|(_, p)| {
        p.stages
            .iter()
            .filter_map(|s| s.exchange)
            .chain(p.fused_axes.as_ref().map(|f| f.rows_padding))
            .any(|padding| !padding.is_none())
    }) {
        helpers.push(pad_helper().render(d.as_ref()));
    }
    let radices: BTreeSet<usize> = plan
        .all_passes()
        .flat_map(|(_, p)| p.stages.iter().map(|s| s.radix))
        .collect();
    for &direction in &plan.directions {
        for &radix in &radices {
            helpers.push(butterfly_source(radix, direction, plan.precision, backend));
        }
    }
    helpers
}

/// Each pass of `plan` with its label: `pass 1`, or for a real transform,
/// which lists each direction's passes (the C2R runs its own), `r2c pass 1`.
fn labelled_passes(plan: &Plan) -> Vec<(String, &Pass)> {
    match plan.kind {
        TransformKind::C2c => plan
            .passes
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("pass {i}"), p))
            .collect(),
        TransformKind::R2c => plan
            .all_passes()
            .scan((None, 0), |(last, i), (dir, p)| {
                if *last != Some(dir) {
                    (*last, *i) = (Some(dir), 0);
                }
                *i += 1;
                Some((format!("{} pass {}", plan.kind.name(dir), *i - 1), p))
            })
            .collect(),
    }
}

/// What the source's header says of pass `p` (labelled `label`).
fn pass_text(label: &str, p: &Pass) -> String {
    if let Some(chirp) = p.chirp.filter(|_| p.stages.is_empty()) {
        return format!(
            "{label}: {} of Bluestein's algorithm for an axis of {} points in rows of {}, \
             {} row chunk(s) per transform, reads {:?} (stride {}), writes {:?} (stride {})",
            step_name(chirp.role),
            chirp.n,
            chirp.padded,
            p.access.ffts_per_transform(),
            p.access.reads,
            p.access.input_stride,
            p.access.writes,
            p.access.output_stride,
        );
    }
    if is_apart(p) {
        let rows = p.access.ffts_per_transform() / p.access.columns[0].count;
        return format!(
            "{label}: {} alone, {rows} row(s) of {} pairs (k, {} - k) per transform, \
             {} pairs per block of {} threads, reads {:?} (stride {}), writes {:?} \
             (stride {}), w_{}^k from two tables",
            // (Labels of a real plan name the direction: `r2c pass 2`.)
            match label.starts_with("r2c") {
                true => "the split (the FFT of N / 2 into the half spectrum)",
                false => "the merge (the half spectrum into the pairs of reals)",
            },
            p.n / 2 + 1,
            p.n,
            p.threads_per_fft * p.values_per_thread / 2,
            p.threads_per_block,
            p.access.reads,
            p.access.input_stride,
            p.access.writes,
            p.access.output_stride,
            2 * p.n
        );
    }
    format!(
        "{label}: {} FFTs of {} points per transform, radices {:?}, {} thread(s) per FFT, \
         {} per block, {} bytes of shared memory, reads {:?} (stride {}), writes {:?} (stride {}){}",
        p.access.ffts_per_transform(),
        p.n,
        p.radices(),
        p.threads_per_fft,
        p.ffts_per_block,
        p.shared_bytes,
        p.access.reads,
        p.access.input_stride,
        p.access.writes,
        p.access.output_stride,
        match p.step_twiddle {
            Some(step) => format!(", four-step twiddle of {} points", step.span),
            None => String::new(),
        } + &fused_chirp_words(p)
    )
}

/// What the source's header says of the kernels' arguments.
fn arguments_text(plan: &Plan) -> String {
    let pass = &plan.passes[0];
    match plan.passes.len() {
        _ if plan.kind == TransformKind::R2c => "each pass's, as the manifest lists them: \
            input, output, batch (uint), or data (read and overwritten), batch (uint); then \
            twiddles (const complex*) where it has any. The reals are real* (pairs of them \
            read as complex* where the route reads N / 2 complex values); the half \
            spectrum and the scratch complex*"
            .to_string(),
        1 => format!(
            "{}{}",
            match plan.placement {
                Placement::OutOfPlace => "input (complex*), output (complex*), batch (uint)",
                Placement::InPlace => "data (complex*, overwritten), batch (uint)",
            },
            if has_twiddles(pass) {
                ", twiddles (const complex*)"
            } else {
                ""
            }
        ),
        _ => "each pass's, as the manifest lists them: input (complex*), output (complex*), \
              batch (uint), or data (complex*, read and overwritten), batch (uint) for a pass \
              that reads and writes one buffer; then twiddles (const complex*) where it has \
              any"
        .to_string(),
    }
}

/// `1024x1024`.
pub fn shape_text(shape: &[usize]) -> String {
    shape
        .iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

fn templates() -> &'static tera::Tera {
    static TERA: OnceLock<tera::Tera> = OnceLock::new();
    TERA.get_or_init(|| {
        let mut tera = tera::Tera::default();
        tera.autoescape_on(vec![]);
        tera.add_raw_template("source", SOURCE_TEMPLATE)
            .expect("the embedded template parses");
        tera
    })
}

/// The step of Bluestein's algorithm an FFT of M takes on its loads or
/// stores, for the source's list of passes (empty for any other pass).
fn fused_chirp_words(pass: &Pass) -> String {
    let Some(chirp) = pass.chirp.filter(|_| !pass.stages.is_empty()) else {
        return String::new();
    };
    let at = match chirp.index {
        Some(index) => format!(" (row point c + {} p)", index.points),
        None => String::new(),
    };
    match chirp.role {
        ChirpRole::Load { .. } if chirp.index.is_none() => {
            ", Bluestein's chirp on its loads and the chirp spectrum's product on its stores".into()
        }
        ChirpRole::Load { .. } => format!(", Bluestein's chirp on its loads{at}"),
        ChirpRole::Multiply => format!(", the chirp spectrum's product on its stores{at}"),
        ChirpRole::Store { .. } => format!(", Bluestein's closing chirp on its stores{at}"),
        ChirpRole::Whole { .. } => {
            ", Bluestein's algorithm whole: the chirp on its loads, the FFT \
                                   twice with the chirp spectrum's product between, the closing \
                                   chirp on its stores"
                .into()
        }
        ChirpRole::Separate => unreachable!("a separation is a kernel of its own"),
    }
}

/// The launch manifest of `plan`.
pub fn manifest(plan: &Plan) -> Manifest {
    let (tables, forward_table_of, inverse_table_of) = twiddle_tables(plan);
    let transforms = plan
        .directions
        .iter()
        .map(|&direction| TransformLaunch {
            direction,
            passes: plan
                .passes_of(direction)
                .iter()
                .zip(match (plan.kind, direction) {
                    (TransformKind::R2c, Direction::Inverse) => &inverse_table_of,
                    _ => &forward_table_of,
                })
                .map(|(pass, &table)| pass_launch(plan, pass, direction, table))
                .collect(),
        })
        .collect();
    Manifest {
        generator_version: VERSION.to_string(),
        n: plan.n,
        shape: plan.shape.clone(),
        kind: plan.kind,
        precision: plan.precision,
        normalization: plan.normalization,
        placement: plan.placement,
        input: plan.input_layout.clone(),
        output: plan.output_layout.clone(),
        input_blocks: side_blocks(plan, false),
        output_blocks: side_blocks(plan, true),
        scratch_elements: plan.scratch_elements,
        transforms,
        twiddle_tables: tables,
    }
}

/// The twiddle tables of `plan`'s passes, in pass order, equal tables
/// listed once (the chirp of Bluestein's load and store, the FFTs of M
/// before and after the product), and which of them each forward and
/// each inverse pass reads (`None`: it reads none).
#[allow(clippy::type_complexity)]
fn twiddle_tables(plan: &Plan) -> (Vec<Vec<[f64; 2]>>, Vec<Option<usize>>, Vec<Option<usize>>) {
    let mut tables: Vec<Vec<[f64; 2]>> = Vec::new();
    let mut table_of = |passes: &[Pass]| -> Vec<Option<usize>> {
        passes
            .iter()
            .map(|pass| {
                has_twiddles(pass).then(|| {
                    let values: Vec<[f64; 2]> = twiddle_table(pass)
                        .into_iter()
                        .map(|(re, im)| [re, im])
                        .collect();
                    match tables.iter().position(|t| *t == values) {
                        Some(index) => index,
                        None => {
                            tables.push(values);
                            tables.len() - 1
                        }
                    }
                })
            })
            .collect()
    };
    let forward = table_of(&plan.passes);
    let inverse = table_of(&plan.inverse_passes);
    (tables, forward, inverse)
}

/// How to launch `pass` of `plan` in `direction`, reading twiddle table
/// `table` where it reads one.
fn pass_launch(plan: &Plan, pass: &Pass, direction: Direction, table: Option<usize>) -> PassLaunch {
    PassLaunch {
        kernel: KernelKey::of(plan, pass, direction).to_string(),
        block: [pass.threads_per_block as u32, 1, 1],
        grid: GridRule::FftsPerBlock {
            ffts_per_block: pass.launch_ffts_per_block() as u32,
            ffts_per_transform: pass.launch_ffts_per_transform() as u64,
            transforms_per_fft: match pass.transform_pairs {
                true => 2,
                false => 1,
            },
        },
        shared_bytes: match pass.dynamic_shared {
            true => 0,
            false => pass.shared_bytes as u32,
        },
        dynamic_shared_bytes: match pass.dynamic_shared {
            true => pass.shared_bytes as u32,
            false => 0,
        },
        reads: pass.access.reads,
        writes: pass.access.writes,
        args: kernel_args(plan.writes_in_place(pass), table),
    }
}

/// The blocks of an exchange that the buffer holding the manifest's
/// `input` side (its `output` side, with `output`) is cut into, where a
/// pass moves that buffer's elements to their blocked places.
fn side_blocks(plan: &Plan, output: bool) -> Option<crate::Blocks> {
    plan.directions.iter().find_map(|&direction| {
        let c2r = plan.kind == TransformKind::R2c && direction == Direction::Inverse;
        let buffer = match output != c2r {
            true => crate::Buffer::Output,
            false => crate::Buffer::Input,
        };
        plan.passes_of(direction).iter().find_map(|pass| {
            let access = &pass.access;
            let read = (access.reads == buffer).then_some(access.input_blocks);
            let written = (access.writes == buffer).then_some(access.output_blocks);
            read.flatten().or(written.flatten())
        })
    })
}

/// The arguments of a pass's kernels, in order.
fn kernel_args(in_place: bool, table: Option<usize>) -> Vec<KernelArg> {
    let mut args = match in_place {
        false => vec![
            KernelArg::Input {
                name: "input".into(),
            },
            KernelArg::Output {
                name: "output".into(),
            },
            KernelArg::BatchCount {
                name: "batch".into(),
            },
        ],
        true => vec![
            KernelArg::InOut {
                name: "data".into(),
            },
            KernelArg::BatchCount {
                name: "batch".into(),
            },
        ],
    };
    if let Some(table) = table {
        args.push(KernelArg::Twiddles {
            name: TWIDDLES.into(),
            table,
        });
    }
    args
}
