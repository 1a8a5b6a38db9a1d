//! Bluestein's algorithm (seed 000 section IV.E, seed 001 section 4.3) for
//! an axis whose length N has a prime factor no radix covers (above 31):
//! with the chirp c[j] = e^(s pi i j^2 / N) (s the direction's sign),
//! jk = (j^2 + k^2 - (k - j)^2) / 2 turns the DFT into a convolution,
//!
//!   X[k] = c[k] sum_j (x[j] c[j]) conj(c[k - j]),
//!
//! which a cyclic convolution of padded length M >= 2N - 1 computes with
//! FFTs of M, a length the radices cover:
//!
//! 1. load: a[j] = x[j] c[j] for j < N, 0 up to M;
//! 2. the FFT of M, in the transform's direction (the planner's own passes);
//! 3. multiply: A[k] *= B[k], B the FFT of b[m] = conj(c[m]) (m and M - m
//!    for m < N) divided by M, computed once in f64 on the host;
//! 4. the FFT of M again, in the same direction: the inverse FFT of step 3
//!    read backwards (IFFT(Y)[k] = FFT(Y)[(M - k) mod M]), so every pass of
//!    the transform runs one direction;
//! 5. store: X[k] = c[k] A[(M - k) mod M] for k < N.
//!
//! Steps 1, 3 and 5 ride on the loads and stores of the FFTs of M
//! ([`super::chirp_fusion`]): one kernel where one block runs both FFTs of
//! M in turn, two kernels where one holds the FFT of M,
//! 2 x (its passes) where it takes several; kernels of their own (chirp
//! passes) only where those passes lack the form they need. M is the least
//! product of 2, 3, 5 and 7 of at least 2N - 1 unless a longer one moves
//! fewer bytes ([`super::padded_row`]).
//!
//! An odd real axis whose steps ride on passes takes two transforms of
//! the batch to each row of M, z = x + i y ([`Pass::transform_pairs`],
//! `paired_axis_passes`): half the FFTs of M.
//!
//! The chirp is exact to the table's rounding for any j: j^2 is reduced
//! mod 2N in integer arithmetic before the root is taken (seed 000's
//! remedy for large j). The inverse conjugates every table, as the twiddles
//! do. The padded rows live in the plan's workspace; the FFTs of M are
//! planned as a batch of in-place transforms there, one per row.

use super::access::{Access, Column};
use super::chirp_fusion::{self, RowColumn, Rows, UserSide};
use super::choices::ShapeChoices;
use super::factor::{is_smooth, prime_factors};
use super::padded_row::{longer_rows_for_the_whole, padded_row_plan, row_plan};
pub use super::padded_row::{padded_length, MAX_PADDED};
use super::pass_planner::{plan_fused_pass, plan_pass};
use super::rader::Rader;
use super::real_step::{AxisIndex, RealEnd, RealRoute, RealStep};
use super::wisdom::Wisdom;
use super::{
    ColumnIo, ExchangeBuffers, ExchangeWidth, FirstWrite, GlobalIo, InputCaching, LaneLayout,
    PaddingSearch, Pass, Plan, TwiddleTables, Twiddles,
};
use crate::{
    Buffer, Error, FftSpec, Layout, Normalization, Placement, Precision, Target, TransformKind,
};
use serde::{Deserialize, Serialize};

/// Threads of a chirp pass's block, and the points each takes.
const CHIRP_THREADS: usize = 256;
const CHIRP_POINTS_PER_THREAD: usize = 4;

/// What one chirp pass does along an axis of N points padded to M.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Chirp {
    pub role: ChirpRole,
    /// Length of the axis (N).
    pub n: usize,
    /// Length of the convolution (M >= 2N - 1).
    pub padded: usize,
    /// Where the chirp's table starts in the pass's twiddle table: 0 for a
    /// pass of its own, past the stages' twiddles for an FFT of M that
    /// takes the step into its loads or stores.
    #[serde(default)]
    pub table_offset: usize,
    /// For the first or last pass of an FFT of M that takes several: where
    /// point p of the pass's FFT lies along the row of M (the four-step
    /// index: the first pass's FFTs take points c + (M / f0) p, the last
    /// pass's c + (M / f_last) p, c the coordinate of the column it names).
    /// None where the point is p itself (one kernel, or a pass of its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<AxisIndex>,
    /// Rader's algorithm in place of Bluestein's ([`Rader`]): the row of
    /// M = N - 1 points is the axis's points 1.. permuted, its table the
    /// permutation then the spectrum of Rader's kernel. Only the whole
    /// algorithm in one kernel ([`ChirpRole::Whole`]) takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rader: Option<Rader>,
}

/// As derived, with the index only where there is one: kernel names hash
/// this text, and those of the one-kernel and apart routes stay as they
/// were.
impl std::fmt::Debug for Chirp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct("Chirp");
        s.field("role", &self.role)
            .field("n", &self.n)
            .field("padded", &self.padded)
            .field("table_offset", &self.table_offset);
        if let Some(index) = &self.index {
            s.field("index", index);
        }
        if let Some(rader) = &self.rader {
            s.field("rader", rader);
        }
        s.finish()
    }
}

/// The three steps of Bluestein's algorithm that are not FFTs. On a pass
/// of its own (no stages) each is a kernel. On the FFT of M where one
/// kernel holds it, `Load` is the first FFT's loads and the product with
/// the chirp's spectrum its stores, and `Store` the second FFT's stores.
/// On an FFT of M of several passes ([`Chirp::index`]), `Load` is the
/// first FFT's first pass's loads, `Multiply` its last pass's stores, and
/// `Store` the second FFT's last pass's stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ChirpRole {
    /// Reads the axis (as `side` holds it), writes the chirped, zero-padded
    /// row of M complex values; in one kernel, the FFT's outputs are
    /// multiplied by the chirp's spectrum too (whose table follows the
    /// chirp's).
    Load { side: AxisSide },
    /// Multiplies the row's spectrum by the chirp's: in place on a pass of
    /// its own, on the stores of the first FFT's last pass.
    Multiply,
    /// Reads the second FFT's row backwards, writes the axis's outputs.
    Store { side: AxisSide },
    /// Every step in one kernel, where one block holds the FFT of M: the
    /// chirped loads of `from`, the first FFT, the product with the
    /// chirp's spectrum on its way into shared memory, the second FFT read
    /// from there and the chirped stores of `to`. The axis crosses memory
    /// once, as a smooth length's does.
    Whole { from: AxisSide, to: AxisSide },
    /// The R2C's two half spectra from the spectrum Z of a pair of rows
    /// z = x + i y ([`AxisSide::PairedReals`]), in a kernel of its own
    /// after the second FFT's chirped stores of Z: X[k] = (Z[k] + conj
    /// Z[N - k]) / 2 to transform 2t, Y[k] = (Z[k] - conj Z[N - k]) / 2i
    /// to 2t + 1, for k to N / 2.
    Separate,
}

/// How the user's side of the axis holds its points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AxisSide {
    /// N complex values.
    Complex,
    /// N reals (the R2C's input, the C2R's output).
    Reals,
    /// The N / 2 + 1 values of a Hermitian spectrum (the R2C's output, the
    /// C2R's input, whose other half is its mirror's conjugate).
    HalfSpectrum,
    /// The N reals of two transforms of the batch, 2t and 2t + 1 (x and
    /// y), as one complex row z = x + i y ([`Pass::transform_pairs`]): the
    /// R2C's input, the C2R's output (x the real parts, y the imaginary).
    PairedReals,
    /// The half spectra X and Y of two transforms of the batch, 2t and
    /// 2t + 1, merged into the spectrum of x + i y, Z[k] = X[k] + i Y[k]
    /// (each past N / 2 its mirror's conjugate): the C2R's input.
    PairedHalfSpectra,
}

impl AxisSide {
    /// Whether the side holds two transforms' rows for each row of M.
    pub fn paired(self) -> bool {
        matches!(self, AxisSide::PairedReals | AxisSide::PairedHalfSpectra)
    }

    /// Whether the side holds reals.
    pub fn reals(self) -> bool {
        matches!(self, AxisSide::Reals | AxisSide::PairedReals)
    }
}

impl Chirp {
    /// Points the pass reads and writes per row.
    pub fn side_points(&self) -> (usize, usize) {
        let user = |side: AxisSide| match side {
            AxisSide::HalfSpectrum | AxisSide::PairedHalfSpectra => self.n / 2 + 1,
            AxisSide::Complex | AxisSide::Reals | AxisSide::PairedReals => self.n,
        };
        match self.role {
            ChirpRole::Load { side } => (user(side), self.padded),
            ChirpRole::Multiply => (self.padded, self.padded),
            ChirpRole::Store { side } => (self.padded, user(side)),
            ChirpRole::Whole { from, to } => (user(from), user(to)),
            ChirpRole::Separate => (self.n, self.n / 2 + 1),
        }
    }

    /// Entries of the step's tables: the chirp, or the chirp's spectrum
    /// (both for the load of an FFT of M in one kernel, whose stores
    /// multiply by it).
    pub fn table_len(&self, fused: bool) -> usize {
        if self.rader.is_some() {
            // The permutation, then the spectrum.
            return 2 * self.padded;
        }
        match self.role {
            ChirpRole::Multiply => self.padded,
            ChirpRole::Load { .. } if fused && self.index.is_none() => self.n + self.padded,
            ChirpRole::Whole { .. } => self.n + self.padded,
            ChirpRole::Load { .. } | ChirpRole::Store { .. } => self.n,
            ChirpRole::Separate => 0,
        }
    }

    /// Bytes a pass with this step reads and writes per row of M: the
    /// user's side (reals or complex values) where the step meets it, M
    /// complex values on the other.
    pub fn bytes_per_row(&self, precision: Precision) -> usize {
        let complex = precision.complex_bytes();
        let user = |side: AxisSide| match side {
            AxisSide::Reals => self.n * precision.real_bytes(),
            AxisSide::Complex => self.n * complex,
            AxisSide::HalfSpectrum => (self.n / 2 + 1) * complex,
            AxisSide::PairedReals => 2 * self.n * precision.real_bytes(),
            AxisSide::PairedHalfSpectra => 2 * (self.n / 2 + 1) * complex,
        };
        let row = self.padded * complex;
        match self.role {
            ChirpRole::Load { side } | ChirpRole::Store { side } => user(side) + row,
            ChirpRole::Multiply => 2 * row,
            ChirpRole::Whole { from, to } => user(from) + user(to),
            ChirpRole::Separate => user(AxisSide::Complex) + user(AxisSide::HalfSpectrum) * 2,
        }
    }

    /// Where the spectrum the first FFT's outputs are multiplied by starts
    /// in the table (one kernel): past the chirp's N points, or past
    /// Rader's permutation of M.
    pub fn spectrum_offset(&self) -> usize {
        match self.rader {
            Some(_) => self.table_offset + self.padded,
            None => self.table_offset + self.n,
        }
    }

    /// Whether an FFT with this step applies it on its loads.
    pub fn on_loads(&self) -> bool {
        matches!(self.role, ChirpRole::Load { .. } | ChirpRole::Whole { .. })
    }

    /// Whether an FFT with this step applies it (or, in one kernel, the
    /// product with the chirp's spectrum) on its stores.
    pub fn on_stores(&self) -> bool {
        match self.role {
            ChirpRole::Load { .. } => self.index.is_none(),
            ChirpRole::Multiply | ChirpRole::Store { .. } | ChirpRole::Whole { .. } => true,
            ChirpRole::Separate => false,
        }
    }
}

/// Whether an axis of `n` points runs Bluestein's algorithm.
pub fn needs_bluestein(n: usize) -> bool {
    !is_smooth(n)
}

/// Why Bluestein's algorithm on the axes of `spec` cannot be planned, if
/// it cannot: the padded rows must fit the limits of one transform, and
/// the chirp's spectrum (computed on the host, held in the manifest) at
/// most [`MAX_PADDED`] points.
pub fn validate(spec: &FftSpec, max_points: usize) -> Result<(), Error> {
    let Some(prime_axis) = (0..spec.shape.len()).find(|&a| needs_bluestein(spec.shape[a])) else {
        return Ok(());
    };
    let prime = |n: usize| *prime_factors(n).last().expect("n >= 2 has a prime factor");
    for (axis, &n) in spec.shape.iter().enumerate() {
        if !needs_bluestein(n) {
            continue;
        }
        let rows = spec.points() / n;
        let padded = padded_length(n);
        let refuse = |reason: String| Error::PrimeAxisUnsupported {
            shape: spec.shape.clone(),
            axis: prime_axis,
            prime: prime(spec.shape[prime_axis]),
            reason,
        };
        if padded > MAX_PADDED {
            return Err(refuse(format!(
                "axis {axis}'s Bluestein rows pad to {padded} points, over the {MAX_PADDED} whose \
                 chirp spectrum a plan holds; give a length whose prime factors are at most 31 \
                 (zero-padded), or split the work"
            )));
        }
        if padded.checked_mul(rows).is_none_or(|p| p > max_points) {
            return Err(refuse(format!(
                "axis {axis}'s Bluestein rows pad to {padded} points, {rows} of them per \
                 transform, over the {max_points} one transform may have; split the work into \
                 smaller transforms"
            )));
        }
        if !spec.choices.is_empty() {
            return Err(Error::ChoiceWithBluestein {
                n,
                padded,
                choice: spec
                    .choices
                    .flags()
                    .iter()
                    .map(|(flag, value)| format!("--{flag} {value}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            });
        }
    }
    Ok(())
}

/// Which algorithm computes each axis of `plan`, and why, one line per
/// axis: the Stockham passes where the prime factors are radices, else
/// Bluestein's algorithm, with its padded length and whether its steps ride
/// in the FFTs' loads and stores.
pub fn routes(plan: &Plan) -> Vec<String> {
    plan.shape
        .iter()
        .enumerate()
        .filter(|&(_, &n)| n > 1)
        .map(|(axis, &n)| {
            if !needs_bluestein(n) {
                return format!(
                    "axis {axis} ({n}): Stockham radix passes (its prime factors are at most 31)"
                );
            }
            let mut beyond = prime_factors(n);
            beyond.retain(|&f| !is_smooth(f));
            beyond.dedup();
            let why = match beyond.as_slice() {
                [one] => format!("the prime factor {one} is no radix"),
                many => format!(
                    "the prime factors {} are no radix",
                    many.iter()
                        .map(|f| f.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            // An even real axis whose reals pair up: the FFT of N / 2.
            let real_axis = plan.kind == TransformKind::R2c && axis + 1 == plan.shape.len();
            let pairs = real_axis && n % 2 == 0 && AxisRoute::of(&plan.passes, n).is_none();
            // An odd real axis by its prime factor alone meets the reals
            // and the half spectrum at its ends (the C2R's too, unless its
            // complex axes fill the workspace first).
            let odd_real_axis = real_axis && !pairs;
            let p = beyond_radices(n);
            let c2r_alone = AxisRoute::of(&plan.inverse_passes, p).is_some();
            let (length, pairs) = match pairs {
                true => (n / 2, format!(", the reals as {} complex pairs", n / 2)),
                false => (n, String::new()),
            };
            // The prime factor alone ([`prime_factor_alone`]) after the
            // FFTs of the rest.
            let (length, route, alone) = match AxisRoute::of(&plan.passes, length) {
                Some(route) => (length, route, String::new()),
                None => match AxisRoute::of(&plan.passes, p).filter(|_| p < length) {
                    Some(route) => (
                        p,
                        route,
                        format!(
                            ", alone: first the FFTs of {} with the four-step twiddle (1 kernel{}), \
                             then over the axis seen as {p} x {} points{}",
                            n / p,
                            match (odd_real_axis, c2r_alone) {
                                (true, true) => ", the reals on its loads; C2R: the half \
                                                 spectrum and its mirror's conjugates",
                                (true, false) => ", the reals on its loads",
                                (false, _) => "",
                            },
                            n / p,
                            match (odd_real_axis, c2r_alone) {
                                (true, true) => " (the half spectrum kept on the last stores; \
                                                 C2R: the real parts)",
                                (true, false) => " (the half spectrum kept on the last stores; \
                                                  the C2R, whose complex axes fill the \
                                                  workspace first, by Bluestein's over the \
                                                  whole axis)",
                                (false, _) => "",
                            },
                        ),
                    ),
                    None => return format!("axis {axis} ({n}): Bluestein's algorithm ({why})"),
                },
            };
            if let Some(rader) = route.rader {
                return format!(
                    "axis {axis} ({n}): Rader's algorithm ({why}{pairs}{alone}): X[0] the sum, \
                     X[g^j] (g = {}) a cyclic convolution of the points x[g^j] over {} = {length} \
                     - 1 points (Bluestein's would take {}) by two FFTs of {}, both in one kernel, \
                     the permutation on its loads and stores, the product with the kernel's \
                     spectrum between the FFTs in shared memory (1 kernel){}",
                    rader.generator,
                    route.padded,
                    padded_length(length),
                    route.padded,
                    match pairs.is_empty() {
                        true => "",
                        false => ", then the split into the half spectrum (C2R: the merge \
                                  first) in a pass of its own",
                    }
                );
            }
            let least = padded_length(length);
            let padded = route.padded;
            let which = match (padded == least, route.steps) {
                (true, _) => {
                    format!("the least product of 2, 3, 5 and 7 of at least 2 x {length} - 1")
                }
                (false, RouteSteps::Whole) => format!(
                    "a product of 2, 3, 5 and 7 past the least of at least 2 x {length} - 1, \
                     {least}, whose FFT holds the whole algorithm in one kernel (where its threads \
                     hold few enough values), or does so in fewer flops (f64)"
                ),
                (false, _) => format!(
                    "a product of 2, 3, 5 and 7 past the least of at least 2 x {length} - 1, \
                     {least}, whose FFT takes fewer passes"
                ),
            };
            let how = match route.steps {
                RouteSteps::Whole => "both in one kernel, the chirps on its loads and stores, \
                                      the spectrum's product between the FFTs in shared memory \
                                      (1 kernel)"
                    .to_string(),
                RouteSteps::OneKernel => "each one kernel, the chirps and the spectrum's product \
                                          in their loads and stores (2 kernels)"
                    .to_string(),
                RouteSteps::OnPasses => format!(
                    "each {} passes, the chirp in the first FFT's first loads, the spectrum's \
                     product in its last stores and the closing chirp in the second FFT's last \
                     stores ({} kernels)",
                    route.passes,
                    2 * route.passes
                ),
                RouteSteps::Apart => format!(
                    "each {} pass(es), the chirps and the spectrum's product in kernels of their \
                     own ({} kernels)",
                    route.passes,
                    2 * route.passes + 3
                ),
            };
            let split = match pairs.is_empty() {
                true => "",
                false => {
                    ", then the split into the half spectrum (C2R: the merge first) in a \
                          pass of its own"
                }
            };
            // An odd real axis whose rows pair up across the batch.
            let paired = plan
                .passes
                .iter()
                .any(|p| p.transform_pairs && p.chirp.is_some_and(|c| c.n == n));
            let separated_apart = plan
                .passes
                .iter()
                .any(|p| p.chirp.is_some_and(|c| c.role == ChirpRole::Separate));
            let split = match (paired, separated_apart) {
                (true, true) => {
                    "; two transforms of the batch to each row of M, z = x + i y (the C2R \
                     merges their half spectra on the loads and keeps the real and imaginary \
                     parts; the R2C separates them in a kernel of its own, 1 more)"
                }
                (true, false) => {
                    "; two transforms of the batch to each row of M, z = x + i y (the C2R \
                     merges their half spectra on the loads and keeps the real and imaginary \
                     parts; the R2C separates them on the last stores, through shared memory)"
                }
                (false, _) => split,
            };
            format!(
                "axis {axis} ({n}): Bluestein's algorithm ({why}{pairs}{alone}): a cyclic \
                 convolution of {padded} points ({which}) by two FFTs of {padded}, {how}{split}"
            )
        })
        .collect()
}

/// How a plan computes the Bluestein's steps of an axis: its padded length,
/// the passes of each FFT of M, and where the steps that are not FFTs run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AxisRoute {
    pub padded: usize,
    pub passes: usize,
    pub steps: RouteSteps,
    /// Rader's algorithm, where it runs in place of Bluestein's.
    pub rader: Option<Rader>,
}

/// Where the steps of Bluestein's algorithm that are not FFTs run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteSteps {
    /// With both FFTs of M in one kernel.
    Whole,
    /// On the loads and stores of an FFT of M that one kernel holds.
    OneKernel,
    /// On the first and last passes of an FFT of M of several.
    OnPasses,
    /// In kernels of their own.
    Apart,
}

impl AxisRoute {
    /// The route of the axis of `n` points in `passes` (a direction's, in
    /// order), if it runs Bluestein's algorithm there.
    pub fn of(passes: &[Pass], n: usize) -> Option<AxisRoute> {
        let chirp = |i: usize| passes[i].chirp.filter(|c| c.n == n);
        let load = (0..passes.len()).find(|&i| chirp(i).is_some_and(|c| c.on_loads()))?;
        let multiply =
            (load..passes.len()).find(|&i| chirp(i).is_some_and(|c| c.role == ChirpRole::Multiply));
        let first = chirp(load)?;
        let (steps, passes) = match (passes[load].stages.is_empty(), first.index, multiply) {
            (false, None, _) if matches!(first.role, ChirpRole::Whole { .. }) => {
                (RouteSteps::Whole, 1)
            }
            (false, None, _) => (RouteSteps::OneKernel, 1),
            (false, Some(_), Some(multiply)) => (RouteSteps::OnPasses, multiply - load + 1),
            (true, _, Some(multiply)) => (RouteSteps::Apart, multiply - load - 1),
            _ => return None,
        };
        Some(AxisRoute {
            padded: first.padded,
            passes,
            steps,
            rader: first.rader,
        })
    }
}

/// Plans `spec`, one of whose axes needs Bluestein's algorithm (for a real
/// transform, its real axis where that is odd or its reals do not pair up:
/// [`super::real`] plans the others, with the FFT of N / 2 of an even
/// axis from [`last_axis`] and the prime complex axes from
/// [`complex_axes_of_half_spectrum`]): those axes
/// first, each from where the data is into the output, then the others in
/// place on the output as the planner plans them. The steps that are not
/// FFTs ride on the FFTs of M wherever they can.
pub fn plan(spec: &FftSpec, target: &Target, wisdom: &Wisdom) -> Result<Plan, Error> {
    plan_steps(spec, target, wisdom, Steps::Fused)
}

/// Plans `spec` as [`crate::plan::plan`] does, but with the steps of
/// Bluestein's algorithm that are not FFTs in kernels of their own wherever
/// the FFT of M takes several passes (the route the planner falls back to
/// where the steps cannot ride on those passes): to check and time the two
/// routes side by side. A spec with no axis that needs Bluestein's
/// algorithm, or with an axis of one point, gets the planner's plan.
pub fn plan_apart(spec: &FftSpec) -> Result<Plan, Error> {
    let planned = super::plan(spec)?;
    // A real axis the real planner computes (smooth, or even with its
    // FFT of N / 2 by Bluestein's algorithm) takes the fused steps.
    let smooth_real_axis = spec.kind == TransformKind::R2c && super::real::plans_real_axis(spec);
    if !spec.shape.iter().any(|&n| needs_bluestein(n))
        || spec.shape.contains(&1)
        || smooth_real_axis
    {
        return Ok(planned);
    }
    let wisdom = Wisdom::for_spec(spec.wisdom.as_deref())?;
    let target = spec.planned_target();
    let plan = plan_steps(spec, target, &wisdom, Steps::Apart)?;
    super::invariants::check(&plan, target)?;
    Ok(plan)
}

/// Whether the steps of Bluestein's algorithm that are not FFTs ride on
/// the passes of an FFT of M that takes several (where they can), or run
/// as kernels of their own there. One kernel's FFT of M always takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Steps {
    Fused,
    Apart,
}

/// [`plan`], with the steps on several passes as `steps` says.
fn plan_steps(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    steps: Steps,
) -> Result<Plan, Error> {
    let input_layout = spec.planned_input_layout();
    let output_layout = spec.planned_output_layout();
    let mut scratch;
    let mut forward;
    let mut inverse = Vec::new();
    match spec.kind {
        TransformKind::C2c => {
            let all: Vec<usize> = (0..spec.shape.len()).collect();
            let (passes, elements) = complex_axes(
                spec,
                target,
                wisdom,
                &all,
                (Buffer::Input, &input_layout),
                (Buffer::Output, &output_layout),
                0,
                steps,
            )?;
            forward = passes;
            scratch = elements;
        }
        // The real axis (the last, which needs Bluestein's algorithm) by
        // Bluestein's steps (its reals and half spectrum are the steps'
        // sides), the others as
        // a complex transform of the half spectrum: R2C the real axis first
        // into the output, C2R the complex axes first (in place on the data,
        // or out of place into the workspace's first region, which the real
        // axis then reads).
        TransformKind::R2c => {
            let last = spec.shape.len() - 1;
            let complex_spec = half_spectrum_spec(spec);
            let others: Vec<usize> = (0..last).collect();
            let (passes, elements) = real_axis_passes(
                spec,
                target,
                wisdom,
                UserSide::new(Buffer::Input, &input_layout, AxisSide::Reals),
                UserSide::new(Buffer::Output, &output_layout, AxisSide::HalfSpectrum),
                0,
                steps,
            )?;
            forward = passes;
            scratch = elements;
            let (passes, elements) = complex_axes(
                &complex_spec,
                target,
                wisdom,
                &others,
                (Buffer::Output, &output_layout),
                (Buffer::Output, &output_layout),
                0,
                steps,
            )?;
            forward.extend(passes);
            scratch = scratch.max(elements);

            // The C2R's input is the half spectrum; its output the reals.
            let holds = match (others.is_empty(), spec.placement) {
                (true, _) | (false, Placement::InPlace) => {
                    (Buffer::Input, output_layout.clone(), 0)
                }
                (false, Placement::OutOfPlace) => {
                    let dense = Layout::contiguous(&spec.complex_shape());
                    (Buffer::Scratch, dense.clone(), dense.distance)
                }
            };
            let (passes, elements) = complex_axes(
                &complex_spec,
                target,
                wisdom,
                &others,
                (Buffer::Input, &output_layout),
                (holds.0, &holds.1),
                holds.2,
                steps,
            )?;
            inverse = passes;
            scratch = scratch.max(elements);
            let (passes, elements) = real_axis_passes(
                spec,
                target,
                wisdom,
                UserSide::new(holds.0, &holds.1, AxisSide::HalfSpectrum),
                UserSide::new(Buffer::Output, &input_layout, AxisSide::Reals),
                holds.2,
                steps,
            )?;
            inverse.extend(passes);
            scratch = scratch.max(elements);
        }
    }
    for passes in [&mut forward, &mut inverse] {
        let last = passes.len().saturating_sub(1);
        for (i, pass) in passes.iter_mut().enumerate() {
            // The last pass of each direction scales by the normalization.
            pass.normalizes = i == last;
            // Every pass's workspace lies within its own first elements of
            // each transform's; the transforms are the largest apart.
            // (A pass over pairs of transforms steps two at a time.)
            let pairs = if pass.transform_pairs { 2 } else { 1 };
            if pass.access.reads == Buffer::Scratch {
                pass.access.input_distance = scratch * pairs;
            }
            if pass.access.writes == Buffer::Scratch {
                pass.access.output_distance = scratch * pairs;
            }
        }
    }
    let axis_factors = spec.shape.iter().map(|&n| vec![n]).collect();
    Ok(Plan {
        n: spec.points(),
        shape: spec.shape.clone(),
        kind: spec.kind,
        precision: spec.precision,
        directions: spec.directions.clone(),
        normalization: spec.normalization,
        placement: spec.placement,
        input_layout,
        output_layout,
        scratch_elements: scratch,
        axis_factors,
        column_io: ColumnIo::Tile,
        passes: forward,
        inverse_passes: inverse,
        normalization_points: None,
    })
}

/// The whole of Bluestein's algorithm in one f64 kernel over the padded
/// row of the least length (`fft` its FFT) or a longer one
/// [`longer_rows_for_the_whole`] offers, whichever takes the fewest flops
/// ([`super::radix::fft_flops`]). The kernel runs at a fifth to a third of
/// the copy, its two FFTs' arithmetic and barriers its time, and the least
/// length's radices of 5 and 7 cost more per point than 8, 12 or 16. A
/// longer row is taken at two blocks an SM or more and blocks of
/// [`WHOLE_LEAST_THREADS`] threads or more, and by more than
/// [`WHOLE_FLOPS_MARGIN`] fewer flops; a least row of a lone block an SM,
/// or of smaller blocks, counts [`WHOLE_SCARCE_FLOPS`] times its flops.
/// H200 cuFFT/ours, f64, least -> taken
/// (docs/bench/h200_bluestein_padded_lengths.log): 619 (1250 as 10 x 5^3
/// -> 1296 as 12 x 12 x 9) 0.69 -> 0.92x, 227 (480, one block an SM ->
/// 512) 0.75 -> 1.12x, 523 0.71 -> 1.12x, 173 (350 -> 384) 0.78 -> 0.84x,
/// 359 (720 over 60 threads -> 768) 0.76 -> 0.84x, 83 (168 -> 192) 1.59
/// -> 1.95x, R2C 526 0.68 -> 1.10x, 886 1.09 -> 1.55x. Of the longer rows
/// tried one at a time, lone blocks lost at every length (619 as 1280 over
/// 256 threads 0.73x), and so did blocks of 36 threads (202 as 432, 1.71 ->
/// 1.32x) and 2.6% fewer flops (719 as 1536, 1.09 -> 0.92x).
fn fewest_flops_whole(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    (fft, rows): (&Pass, &Rows),
    (count, base): (usize, usize),
) -> Option<Pass> {
    let flops =
        |padded: usize, pass: &Pass| super::radix::fft_flops(padded, &pass.radices()) as f64;
    let roomy =
        |pass: &Pass| pass.min_blocks_per_sm >= 2 && pass.threads_per_block >= WHOLE_LEAST_THREADS;
    let least = chirp_fusion::whole(fft, rows, spec.precision, target)?;
    let least_flops = match roomy(&least) {
        true => flops(rows.padded, &least),
        false => flops(rows.padded, &least) * WHOLE_SCARCE_FLOPS,
    };
    let longer = longer_rows_for_the_whole(spec, target, wisdom, rows.padded, count)
        .filter_map(|(padded, row_plan)| {
            let (fft, _) = PaddedRows::of(padded, &row_plan).in_workspace(count, base);
            let rows = Rows {
                padded,
                ..rows.clone()
            };
            let pass = chirp_fusion::whole(&fft[0], &rows, spec.precision, target)?;
            roomy(&pass).then(|| (flops(padded, &pass), pass))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0));
    match longer {
        Some((fewer, pass)) if fewer < least_flops * (1.0 - WHOLE_FLOPS_MARGIN) => Some(pass),
        _ => Some(least),
    }
}

/// Threads a block of [`fewest_flops_whole`]'s longer rows has at least.
const WHOLE_LEAST_THREADS: usize = 64;

/// How many times its flops [`fewest_flops_whole`] counts for a least row
/// of a lone block an SM or a small block.
const WHOLE_SCARCE_FLOPS: f64 = 1.25;

/// The share of the least row's flops a longer row saves at least to be
/// taken by [`fewest_flops_whole`].
const WHOLE_FLOPS_MARGIN: f64 = 0.05;

/// The passes of Bluestein's algorithm along `axis`, from `from` into `to`,
/// and the workspace they need per transform: the padded rows, then the
/// FFT of M's own workspace. The steps that are not FFTs ride on the FFTs'
/// loads and stores ([`chirp_fusion`]) where `steps` fuses them and the
/// FFT of M's passes have the form they need, else run as kernels of their
/// own.
#[allow(clippy::too_many_arguments)]
fn axis_passes(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    axis: usize,
    from: UserSide,
    to: UserSide,
    base: usize,
    steps: Steps,
) -> Result<(Vec<Pass>, usize), Error> {
    let n = spec.shape[axis];
    let count = spec.points() / n;
    if steps == Steps::Fused {
        if let Some(pass) = rader_whole(spec, target, wisdom, axis, (&from, &to), (count, base)) {
            return Ok((vec![pass], base));
        }
    }
    let (padded, row_plan) = padded_row_plan(spec, target, wisdom, n, count)?;
    let planned = PaddedRows::of(padded, &row_plan);
    let (fft, workspace) = planned.in_workspace(count, base);

    let rows = Rows {
        axis,
        n,
        padded,
        from,
        to,
        columns: row_columns(spec, axis, &from, &to),
        rader: None,
    };
    // Where the FFT of M holds one FFT's points across its lanes, an odd
    // real axis's paired rows in two kernels beat the whole algorithm in
    // one: on the H100 (docs/bench/h100_bluestein_paired_rows.txt), R2C /
    // C2R, f32 359 0.83 -> 1.14 / 1.28x cuFFT, 597 0.92 -> 1.50x, 1021 1.21
    // -> 1.72x; f64 1253 0.69 -> 1.22 / 1.37x, 1021 1.38 -> 1.55x, 359 even.
    // FFTs of few threads each keep the whole algorithm (f32 97 2.16 ->
    // 1.43x, 227 0.84 -> 0.50x lost so).
    let paired = match steps {
        Steps::Fused => paired_axis_passes(spec, target, axis, &rows, &planned, base),
        Steps::Apart => None,
    };
    let pairs_first = matches!(&fft[..], [one] if one.lanes == LaneLayout::FftMajor);
    let paired = match (pairs_first, paired) {
        (true, Some(paired)) => return Ok(paired),
        (_, paired) => paired,
    };
    if let ([one], Steps::Fused) = (&fft[..], steps) {
        let whole = match spec.precision {
            Precision::F64 => fewest_flops_whole(spec, target, wisdom, (one, &rows), (count, base)),
            _ => chirp_fusion::whole(one, &rows, spec.precision, target),
        };
        if let Some(pass) = whole {
            return Ok((vec![pass], base));
        }
        for (padded, row_plan) in longer_rows_for_the_whole(spec, target, wisdom, padded, count) {
            let (fft, _) = PaddedRows::of(padded, &row_plan).in_workspace(count, base);
            let rows = Rows {
                padded,
                ..rows.clone()
            };
            // A lone block an SM lost: f64 15719's rows of 1429 as 2916
            // over 243 threads in six stages, 1.29 -> 1.08x cuFFT (H100).
            let whole = chirp_fusion::whole(&fft[0], &rows, spec.precision, target)
                .filter(|pass| pass.min_blocks_per_sm >= 2);
            if let Some(pass) = whole {
                return Ok((vec![pass], base));
            }
        }
    }
    if let Some(paired) = paired {
        return Ok(paired);
    }
    let fused = match (&fft[..], steps) {
        ([one], _) => Some(chirp_fusion::one_kernel(one, &rows, spec.precision, target)),
        (several, Steps::Fused) => chirp_fusion::on_passes(several, &rows),
        (_, Steps::Apart) => None,
    };
    if let Some(passes) = fused {
        return Ok((passes, base + workspace));
    }
    let workspace_side = (Buffer::Scratch, workspace, base);
    let mut passes = vec![apart_pass(
        &rows,
        ChirpRole::Load { side: from.holds },
        (from.buffer, from.layout.distance, 0),
        workspace_side,
    )];
    passes.extend(fft.iter().cloned());
    passes.push(apart_pass(
        &rows,
        ChirpRole::Multiply,
        workspace_side,
        workspace_side,
    ));
    passes.extend(fft);
    passes.push(apart_pass(
        &rows,
        ChirpRole::Store { side: to.holds },
        workspace_side,
        (to.buffer, to.layout.distance, 0),
    ));
    Ok((passes, base + workspace))
}

/// Rader's algorithm over a prime axis in one kernel ([`Rader`]), where
/// its FFT of N - 1 is one kernel whose registers hold both FFTs: a
/// convolution of N - 1 points where Bluestein's takes one of at least
/// 2N - 1. On the H200, cuFFT/ours against Bluestein's
/// (docs/bench/h200_ab_rader_whole.log): f32 109 1.24 -> 1.73x, 1301
/// 0.75 -> 0.95x, 37x1024 0.98 -> 1.36x, 101x4096 0.90 -> 2.27x; f64
/// 229 0.75 -> 1.20x, 1201 0.61 -> 1.10x, 12529 R2C / C2R (its prime
/// factor alone) 0.77 / 0.89 -> 1.47 / 1.11x, 362 R2C 0.57 -> 1.12x. It
/// lost where f32 threads hold more than [`RADER_MOST_F32_VALUES`] values
/// (313 0.90 -> 0.82x, 449, 571 1.03 -> 0.84x: FFTs of few threads, each
/// lane a row of its own), and on a whole odd real axis (its loads the
/// reals or the half spectrum, against Bluestein's with two rows to a row
/// of M) but with few values over lanes across FFTs (f32 163 0.61 / 0.56
/// -> 1.29 / 0.75x; 449 1.15 / 1.33 -> 0.96 / 0.69x, f64 631 1.15 / 1.26
/// -> 0.81 / 0.71x, 1783 1.53 / 1.98 -> 1.06 / 1.00x lost).
fn rader_whole(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    axis: usize,
    (from, to): (&UserSide, &UserSide),
    (count, base): (usize, usize),
) -> Option<Pass> {
    let n = spec.shape[axis];
    let rader = Rader::of(n)?;
    let row_plan = row_plan(spec, target, wisdom, n - 1).ok()?;
    if row_plan.passes.len() != 1 {
        return None;
    }
    let (fft, _) = PaddedRows::of(n - 1, &row_plan).in_workspace(count, base);
    let rows = Rows {
        axis,
        n,
        padded: n - 1,
        from: *from,
        to: *to,
        columns: row_columns(spec, axis, from, to),
        rader: Some(rader),
    };
    let pass = chirp_fusion::whole(&fft[0], &rows, spec.precision, target)?;
    let few_values = pass.values_per_thread <= RADER_MOST_F32_VALUES;
    let real_loads = matches!(from.holds, AxisSide::Reals | AxisSide::HalfSpectrum);
    let taken = match (real_loads, spec.precision) {
        (true, _) => few_values && pass.lanes == LaneLayout::FftMinor,
        (false, Precision::F32) => few_values,
        (false, Precision::F64) => true,
    };
    taken.then_some(pass)
}

/// Values an f32 thread of Rader's FFTs of N - 1 holds at most ([`rader_whole`]).
const RADER_MOST_F32_VALUES: usize = 20;

/// The other axes, which tell the rows of `axis` apart, the fastest
/// first, at their strides in `from` and `to`; in the workspace the rows
/// are dense, M apart.
fn row_columns(spec: &FftSpec, axis: usize, from: &UserSide, to: &UserSide) -> Vec<RowColumn> {
    let mut columns = Vec::new();
    let mut rows_apart = 1;
    for other in (0..spec.shape.len()).rev().filter(|&b| b != axis) {
        columns.push(RowColumn {
            count: spec.shape[other],
            from_stride: from.layout.strides[other],
            to_stride: to.layout.strides[other],
            rows_apart,
        });
        rows_apart *= spec.shape[other];
    }
    columns
}

/// The padded length of an axis's rows and the in-place plan of one row of
/// M: its passes, and the workspace it needs of its own.
struct PaddedRows<'a> {
    padded: usize,
    fft: &'a [Pass],
    fft_workspace: usize,
}

impl PaddedRows<'_> {
    /// The rows of `padded` points whose FFT `row_plan` plans.
    fn of(padded: usize, row_plan: &Plan) -> PaddedRows<'_> {
        PaddedRows {
            padded,
            fft: &row_plan.passes,
            fft_workspace: row_plan.scratch_elements,
        }
    }

    /// The FFT of M's passes over `count` rows of M moved into the
    /// workspace from element `base` ([`in_workspace`]), and the workspace
    /// they take per transform: the rows, then the FFT's own.
    fn in_workspace(&self, count: usize, base: usize) -> (Vec<Pass>, usize) {
        let rows_elements = count * self.padded;
        let workspace = rows_elements + count * self.fft_workspace;
        let fft = self
            .fft
            .iter()
            .map(|pass| in_workspace(pass, count, base, rows_elements, workspace))
            .collect();
        (fft, workspace)
    }
}

/// The passes of Bluestein's algorithm along the odd real axis of an R2C
/// (forward, `rows.from` the reals) or C2R (inverse, into the reals) with
/// two transforms of the batch to each row of M, z = x + i y
/// ([`Pass::transform_pairs`], seed 000 section IV's two real FFTs for one
/// complex): half the rows of M, so half the FFTs of M. The C2R merges the
/// half spectra, Z = X + i Y, on the first FFT's loads and keeps the real
/// and imaginary parts on the second's stores; the R2C separates the two
/// half spectra from Z[k] and conj Z[N - k] on the second FFT's stores,
/// through shared memory, where one block holds the FFT of M, else its
/// second FFT stores Z at the workspace's start for a kernel of its own
/// that separates them. With the workspace it needs per transform (each
/// pair uses its first transform's); `None` where the steps do not ride on
/// the FFTs of M.
fn paired_axis_passes(
    spec: &FftSpec,
    target: &Target,
    axis: usize,
    rows: &Rows,
    planned: &PaddedRows,
    base: usize,
) -> Option<(Vec<Pass>, usize)> {
    let n = rows.n;
    let count = spec.points() / n;
    let forward = match (rows.from.holds, rows.to.holds) {
        (AxisSide::Reals, AxisSide::HalfSpectrum) if base == 0 => true,
        (AxisSide::HalfSpectrum, AxisSide::Reals) => false,
        _ => return None,
    };
    if spec.kind != TransformKind::R2c || axis + 1 != spec.shape.len() {
        return None;
    }
    // Where one block holds the FFT of M, the R2C's second FFT separates
    // the half spectra through shared memory on its way out (in two arrays:
    // a lone block's interleaved default gives way); else it stores Z,
    // rows of N at the workspace's start, for a kernel of its own.
    let chosen_width = spec.choices.exchange_width.is_some();
    let separates_on_stores = forward
        && matches!(planned.fft, [one] if one.stages.len() >= 2
            && (one.exchange_width == ExchangeWidth::BothParts
                || (one.exchange_width == ExchangeWidth::Interleaved && !chosen_width)));
    let spectra = Layout::contiguous(&spec.shape);
    let spectra_elements = match forward && !separates_on_stores {
        true => count * n,
        false => 0,
    };
    let rows_base = base + spectra_elements;
    let (fft, workspace) = planned.in_workspace(count, rows_base);
    let (from, to) = match forward {
        true if separates_on_stores => (
            UserSide::new(rows.from.buffer, rows.from.layout, AxisSide::PairedReals),
            UserSide::new(rows.to.buffer, rows.to.layout, AxisSide::PairedHalfSpectra),
        ),
        true => (
            UserSide::new(rows.from.buffer, rows.from.layout, AxisSide::PairedReals),
            UserSide::new(Buffer::Scratch, &spectra, AxisSide::Complex),
        ),
        false => (
            UserSide::new(
                rows.from.buffer,
                rows.from.layout,
                AxisSide::PairedHalfSpectra,
            ),
            UserSide::new(rows.to.buffer, rows.to.layout, AxisSide::PairedReals),
        ),
    };
    let paired = Rows {
        from,
        to,
        columns: row_columns(spec, axis, &from, &to),
        ..rows.clone()
    };
    let mut passes = match &fft[..] {
        [one] => chirp_fusion::one_kernel(one, &paired, spec.precision, target),
        several => chirp_fusion::on_passes(several, &paired)?,
    };
    if separates_on_stores {
        let last = passes
            .last_mut()
            .expect("one kernel's route has two passes");
        last.output_io = GlobalIo::StagedThroughShared;
        last.exchange_width = ExchangeWidth::BothParts;
    } else if forward {
        let spectra_side = UserSide::new(Buffer::Scratch, &spectra, AxisSide::Complex);
        let separate = Rows {
            from: spectra_side,
            to: rows.to,
            columns: row_columns(spec, axis, &spectra_side, &rows.to),
            ..rows.clone()
        };
        passes.push(apart_pass(
            &separate,
            ChirpRole::Separate,
            (Buffer::Scratch, 0, 0),
            (rows.to.buffer, rows.to.layout.distance, 0),
        ));
    }
    // The user's sides step two transforms at a time (the workspace's
    // distances are set with the plan's).
    for pass in &mut passes {
        pass.transform_pairs = true;
        let access = &mut pass.access;
        if access.reads != Buffer::Scratch {
            access.input_distance *= 2;
        }
        if access.writes != Buffer::Scratch {
            access.output_distance *= 2;
        }
    }
    Some((passes, rows_base + workspace))
}

/// The kernel of its own that runs step `role` over `rows`, reading and
/// writing (buffer, distance, offset) `reads` and `writes`: the load reads
/// the axis where the user's layout (or the region of the workspace that
/// holds it) has it, the store writes it so; the rows of M are dense, M
/// apart, in the workspace. Each block takes a chunk of one row.
fn apart_pass(
    rows: &Rows,
    role: ChirpRole,
    reads: (Buffer, usize, usize),
    writes: (Buffer, usize, usize),
) -> Pass {
    let chirp = Chirp {
        role,
        n: rows.n,
        padded: rows.padded,
        table_offset: 0,
        index: None,
        rader: None,
    };
    let (user_reads, user_writes) = match role {
        ChirpRole::Load { .. } => (true, false),
        ChirpRole::Multiply => (false, false),
        ChirpRole::Store { .. } => (false, true),
        ChirpRole::Whole { .. } | ChirpRole::Separate => (true, true),
    };
    let (read_points, write_points) = chirp.side_points();
    let chunk = CHIRP_THREADS * CHIRP_POINTS_PER_THREAD;
    // Column 0: the chunk of the row a block takes (the kernel adds it).
    let mut columns = vec![Column {
        count: read_points.max(write_points).div_ceil(chunk),
        input_stride: 0,
        output_stride: 0,
    }];
    for row in &rows.columns {
        let scratch_stride = row.rows_apart * rows.padded;
        columns.push(Column {
            count: row.count,
            input_stride: if user_reads {
                row.from_stride
            } else {
                scratch_stride
            },
            output_stride: if user_writes {
                row.to_stride
            } else {
                scratch_stride
            },
        });
    }
    let axis = rows.axis;
    let input_stride = if user_reads {
        rows.from.layout.strides[axis]
    } else {
        1
    };
    let output_stride = if user_writes {
        rows.to.layout.strides[axis]
    } else {
        1
    };
    Pass {
        n: rows.padded,
        stages: Vec::new(),
        threads_per_fft: CHIRP_THREADS,
        values_per_thread: CHIRP_POINTS_PER_THREAD,
        ffts_per_block: 1,
        threads_per_block: CHIRP_THREADS,
        min_blocks_per_sm: 1,
        lanes: LaneLayout::FftMajor,
        io: GlobalIo::Direct,
        output_io: GlobalIo::Direct,
        access: Access {
            reads: reads.0,
            writes: writes.0,
            input_stride,
            output_stride,
            columns,
            input_distance: reads.1,
            output_distance: writes.1,
            input_offset: reads.2,
            output_offset: writes.2,
            input_blocks: None,
            output_blocks: None,
        },
        step_twiddle: None,
        real: None,
        chirp: Some(chirp),
        fused_axes: None,
        transform_pairs: false,
        normalizes: false,
        dynamic_shared: false,
        input_caching: InputCaching::L1AndL2,
        fft_stride: 0,
        exchange_width: ExchangeWidth::BothParts,
        exchange_buffers: ExchangeBuffers::Reused,
        first_write: FirstWrite::AfterBarrier,
        padding_search: PaddingSearch::EvenRadices,
        twiddle_tables: TwiddleTables::Direct,
        shared_bytes: 0,
        twiddles: Twiddles::RoundedF64Table {
            len: chirp.table_len(false),
        },
    }
}

/// `pass` of the in-place plan of one row of M, moved into the workspace
/// of a plan whose transforms each hold `rows` such rows: the row plan's
/// data (its input and output) `base` elements into the workspace, its own
/// workspace after the `rows_elements` of the rows; the transforms of the
/// batch `workspace` elements apart. The row plan's batch becomes the last
/// column (the rows), so the kernel's FFTs are the same and only where
/// they sit changes.
fn in_workspace(
    pass: &Pass,
    rows: usize,
    base: usize,
    rows_elements: usize,
    workspace: usize,
) -> Pass {
    let mut pass = pass.clone();
    let access = &mut pass.access;
    let offset = |buffer: Buffer| match buffer {
        Buffer::Scratch => base + rows_elements,
        Buffer::Input | Buffer::Output => base,
    };
    access.input_offset += offset(access.reads);
    access.output_offset += offset(access.writes);
    access.columns.push(Column {
        count: rows,
        input_stride: access.input_distance,
        output_stride: access.output_distance,
    });
    access.reads = Buffer::Scratch;
    access.writes = Buffer::Scratch;
    access.input_distance = workspace;
    access.output_distance = workspace;
    pass.normalizes = false;
    pass
}

/// The passes of the complex axes (all but the last) of the half spectrum
/// of the real transform `spec`, some of which need Bluestein's algorithm,
/// from `from` into `to` (the same buffer and layout: in place), their
/// workspace from element `base` of each transform's on, and where that
/// ends: for the real planner, which computes the real axis itself.
pub fn complex_axes_of_half_spectrum(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    from: (Buffer, &Layout),
    to: (Buffer, &Layout),
    base: usize,
) -> Result<(Vec<Pass>, usize), Error> {
    let others: Vec<usize> = (0..spec.shape.len() - 1).collect();
    complex_axes(
        &half_spectrum_spec(spec),
        target,
        wisdom,
        &others,
        from,
        to,
        base,
        Steps::Fused,
    )
}

/// The complex transform of the real transform `spec`'s half spectrum.
fn half_spectrum_spec(spec: &FftSpec) -> FftSpec {
    FftSpec {
        shape: spec.complex_shape(),
        kind: TransformKind::C2c,
        ..spec.clone()
    }
}

/// The passes of Bluestein's algorithm along the last axis of the complex
/// transform `spec`, from `from` into `to` (in place where they are the
/// same), their workspace from element `base` of each transform's on, and
/// where that ends: for the real planner's FFT of N / 2 over pairs of
/// reals. Where the FFTs of M over the whole axis take passes, its prime
/// factor alone where that runs fewer kernels, as [`complex_axes`] takes
/// it: on the H200 all 23 rows timed ran faster (cuFFT/ours R2C / C2R,
/// docs/bench/h200_ab_even_real_prime_alone.log): f32 29854 0.55 / 0.55
/// -> 1.43 / 1.43x, 32930 0.62 -> 1.13x, 1674806 0.89 -> 2.12x; f64 29854
/// 0.46 -> 1.27 / 1.30x, 77254 0.61 -> 1.07 / 1.12x, 13488 0.83 / 0.86 ->
/// 1.25 / 1.27x.
pub fn last_axis(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    from: (Buffer, &Layout),
    to: (Buffer, &Layout),
    base: usize,
) -> Result<(Vec<Pass>, usize), Error> {
    let axis = spec.shape.len() - 1;
    let whole = axis_passes(
        spec,
        target,
        wisdom,
        axis,
        UserSide::new(from.0, from.1, AxisSide::Complex),
        UserSide::new(to.0, to.1, AxisSide::Complex),
        base,
        Steps::Fused,
    )?;
    let rader_beside = raders_beside_bluesteins(&whole.0, spec.shape[axis], spec.precision);
    if whole.0.len() <= 2 && !rader_beside {
        return Ok(whole);
    }
    let alone = prime_factor_alone(spec, target, wisdom, axis, from, to, base, Steps::Fused)?;
    Ok(match alone {
        Some(alone) if alone.0.len() < whole.0.len() || rader_alone(&alone.0) => alone,
        _ => whole,
    })
}

/// Whether `passes` run Bluestein's algorithm over the whole axis of `n`
/// points (in `precision`) where its prime factor p past the radices would
/// run Rader's alone ([`prime_factor_alone`]), in two kernels: the FFTs
/// of m with the four-step twiddle, then Rader's over p. Against
/// Bluestein's over the whole axis in one or two kernels, H200,
/// cuFFT/ours (docs/bench/h200_ab_rader_alone.log): f64 1410 0.58 ->
/// 1.34x, 6x1410 0.64 -> 1.31x, 1405 0.34 -> 0.70x, 185x64 0.57 -> 1.20x,
/// 3281 1.83 -> 3.27x, R2C 185 0.60 / 0.55 -> 0.99 / 0.90x, 370 0.67 /
/// 0.68 -> 1.06 / 1.11x (74 1.44 -> 1.32x, R2C 1410 1.30 -> 1.06x and
/// 5x4097 2.11 -> 1.52x slower); f32 12529 0.71 -> 1.97x, 185x64 0.83 ->
/// 1.43x, 4884 0.94 -> 1.55x, 185 0.66 -> 0.90x, R2C 111 0.58 -> 1.16x,
/// 370 0.69 -> 0.89x. In f32 it lost where p passes 100 (1545 = 15 x 103
/// 1.48 -> 1.28x, 2811 = 3 x 937 0.85 -> 0.69x; odd real axes, 1545 R2C
/// 1.88 -> 0.84x, 3281 = 17 x 193 1.08 -> 0.42x).
fn raders_beside_bluesteins(passes: &[Pass], n: usize, precision: Precision) -> bool {
    let p = beyond_radices(n);
    let in_precision = precision == Precision::F64 || p < RADER_ALONE_F32_BELOW;
    // (FFTs of m = 2 in a pass of their own lost: f64 74 1.44 -> 1.32x.)
    n / p > 2
        && in_precision
        && Rader::of(p).is_some()
        && passes
            .iter()
            .any(|pass| pass.chirp.is_some_and(|c| c.rader.is_none()))
}

/// The prime factors an f32 axis runs by Rader's alone beside the rest
/// rather than Bluestein's over the whole axis are below this
/// ([`raders_beside_bluesteins`]).
const RADER_ALONE_F32_BELOW: usize = 100;

/// Whether `passes` are the prime factor alone by Rader's algorithm: the
/// FFTs of m with the four-step twiddle, then Rader's over p in one
/// kernel ([`raders_beside_bluesteins`]).
fn rader_alone(passes: &[Pass]) -> bool {
    matches!(passes, [_, last] if last.chirp.is_some_and(|c| c.rader.is_some()))
}

/// The passes of a complex transform of `spec` along `axes` (the others
/// are done), from `from` into `to` (the same buffer and layout: in place),
/// their workspace from element `base` of each transform's on, and where
/// that ends: the axes that need Bluestein's algorithm first, each into
/// `to`, then the others as the planner plans them.
#[allow(clippy::too_many_arguments)]
fn complex_axes(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    axes: &[usize],
    from: (Buffer, &Layout),
    to: (Buffer, &Layout),
    base: usize,
    steps: Steps,
) -> Result<(Vec<Pass>, usize), Error> {
    let mut passes = Vec::new();
    let mut extent = base;
    let mut at = from;
    let prime: Vec<usize> = axes
        .iter()
        .copied()
        .filter(|&a| needs_bluestein(spec.shape[a]))
        .collect();
    for &axis in &prime {
        let (mut axis_passes, mut end) = axis_passes(
            spec,
            target,
            wisdom,
            axis,
            UserSide::new(at.0, at.1, AxisSide::Complex),
            UserSide::new(to.0, to.1, AxisSide::Complex),
            base,
            steps,
        )?;
        // Where the FFTs of M over the whole axis take passes, the prime
        // factor alone runs in fewer kernels; where they take one kernel
        // each, it lost (H100, 12x2525 1.33 -> 0.73x cuFFT). Along a
        // strided axis it wins at as many kernels, where m (n over the
        // prime factors) is not 2: there the FFTs of M over the whole
        // axis are lone blocks reading a few bytes of each row. On the
        // H200 (cuFFT/ours) f64 1825x10 0.63 -> 1.35x, 4070x33 0.83 ->
        // 1.43x, 1945x650 0.61 -> 0.89x, R2C 1825x10 0.63 -> 1.31x; f64
        // 1234x20 (m = 2) 0.91 -> 0.81x
        // (docs/bench/h200_ab_strided_bluestein_long_columns.log). A 3D
        // transform's middle axis too: 8x10396x550 f32 0.82 -> 2.51x,
        // 491x1007x12 f64 1.24 -> 1.47x (one kernel -> two)
        // (docs/bench/h200_ab_middle_axis_and_lone_interleaved.log).
        let n = spec.shape[axis];
        let strided =
            spec.shape[axis + 1..].iter().product::<usize>() > 1 && n / beyond_radices(n) > 2;
        let rader_beside = raders_beside_bluesteins(&axis_passes, n, spec.precision);
        if axis_passes.len() > 2 || strided || rader_beside {
            if let Some((split, split_end)) = prime_factor_alone(
                spec, target, wisdom, axis, at, to, base, steps,
            )?
            .filter(|(split, _)| {
                split.len() < axis_passes.len()
                    || (strided && split.len() == axis_passes.len())
                    || rader_alone(split)
            }) {
                (axis_passes, end) = (split, split_end);
            }
        }
        passes.extend(axis_passes);
        extent = extent.max(end);
        at = to;
    }
    let smooth: Vec<usize> = axes
        .iter()
        .copied()
        .filter(|&a| !prime.contains(&a) && spec.shape[a] > 1)
        .collect();
    if !smooth.is_empty() {
        let done: Vec<usize> = (0..spec.shape.len())
            .filter(|a| !smooth.contains(a))
            .collect();
        let (other_passes, end) = other_axes(spec, target, wisdom, &done, at, to, base)?;
        passes.extend(other_passes);
        extent = extent.max(end);
    }
    Ok((passes, extent))
}

/// The passes of `axis` (n = m p points, p its prime factors past 31,
/// m 31-smooth and one kernel's) from `from` into `to` as two steps of
/// seed 001's four-step: the FFTs of m with the four-step twiddle on their
/// stores, into `to` ([`super::multipass::first_step`]); then Bluestein's
/// algorithm over p alone, in place on `to` seen as p x m (the axis's
/// points m apart, its m columns neighbours), which needs no twiddle after
/// it. So the chirps pad p to M >= 2p - 1 points, not n: 107865 (2295 x
/// 47) runs 2 kernels where Bluestein over the whole axis runs 4 (FFTs of
/// M = 216000 in two passes each). In place, the first step writes the
/// workspace. On the H100
/// (docs/bench/h100_prime_factor_alone.txt), cuFFT/ours f32: 107865 0.57
/// -> 1.57x, 57785 0.75 -> 2.61x, 13409 0.31 -> 1.35x, 26059 0.45 ->
/// 1.16x, 12 of 14 other sizes of 3 kernels gained 5-120%; 371128 (p =
/// 2017, its Bluestein's algorithm in two kernels) lost 14%, 519660 11%;
/// f64 107865 0.47 -> 0.99x. `None` where the axis is not of that form,
/// in place with the workspace taken, or where the views would take a
/// fourth axis.
#[allow(clippy::too_many_arguments)]
fn prime_factor_alone(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    axis: usize,
    from: (Buffer, &Layout),
    to: (Buffer, &Layout),
    base: usize,
    steps: Steps,
) -> Result<Option<(Vec<Pass>, usize)>, Error> {
    let n = spec.shape[axis];
    let p = beyond_radices(n);
    let m = n / p;
    let fits = m >= 2 && m <= super::pass_planner::max_size(spec.precision);
    // The first step writes apart from what it reads: into `to`, or where
    // `to` is what it reads, into the workspace (then empty), which
    // Bluestein's algorithm reads from.
    let dense = Layout::contiguous(&spec.shape);
    let (between, base) = match one_buffer(spec, from.0, to.0) {
        false => (to, base),
        true if base == 0 && from.0 != Buffer::Scratch => {
            ((Buffer::Scratch, &dense), dense.distance)
        }
        true => return Ok(None),
    };
    let (Some((view_from, view_axis)), Some((view_to, _))) = (
        seen_as_p_by_m(spec, axis, p, between.1),
        seen_as_p_by_m(spec, axis, p, to.1),
    ) else {
        return Ok(None);
    };
    if !fits || view_from.0 != view_to.0 {
        return Ok(None);
    }
    let first = super::multipass::first_step(spec, target, axis, &[m, p], from, between)?;
    let view_spec = FftSpec {
        shape: view_to.0.clone(),
        kind: TransformKind::C2c,
        input_layout: Some(view_from.1.clone()),
        output_layout: Some(view_to.1.clone()),
        placement: match between.0 == to.0 {
            true => Placement::InPlace,
            false => Placement::OutOfPlace,
        },
        normalization: Normalization::None,
        choices: Default::default(),
        ..spec.clone()
    };
    let (bluestein, end) = axis_passes(
        &view_spec,
        target,
        wisdom,
        view_axis,
        UserSide::new(between.0, &view_from.1, AxisSide::Complex),
        UserSide::new(to.0, &view_to.1, AxisSide::Complex),
        base,
        steps,
    )?;
    let mut passes = vec![first];
    passes.extend(bluestein);
    Ok(Some((passes, end)))
}

/// The passes of an R2C's odd real axis (the last) from `from` into `to`,
/// the reals and the half spectrum: Bluestein's algorithm over the whole
/// axis ([`axis_passes`]), or over its prime factor alone
/// ([`real_prime_factor_alone`]) where the whole axis's FFTs of M take
/// several passes and the prime factor's whole algorithm one kernel of
/// FFTs of few threads each (lanes across FFTs). On the H200 (cuFFT/ours
/// R2C / C2R, docs/bench/h200_ab_real_prime_alone.log): f32 31339 0.37 /
/// 0.41 -> 1.04 / 1.00x, 13871 0.62 / 0.66 -> 1.10 / 0.94x, 68585 0.61 /
/// 0.71 -> 0.82 / 0.80x; f64 12529 0.62 / 0.75 -> 0.77 / 0.89x, 13871
/// 0.57 / 0.63 -> 1.18 / 0.99x. Where the prime factor's FFTs hold one
/// FFT's points across the lanes (f64 17313 0.91 / 0.98 -> 0.86 /
/// 0.72x, 9081, 10025's C2R), take two kernels (f32 27511 0.71 -> 0.47x,
/// f64 21281, 442401), or the whole axis one kernel (f32 1545 1.88 ->
/// 0.50x) it lost.
#[allow(clippy::too_many_arguments)]
fn real_axis_passes(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    from: UserSide,
    to: UserSide,
    base: usize,
    steps: Steps,
) -> Result<(Vec<Pass>, usize), Error> {
    let last = spec.shape.len() - 1;
    let whole = axis_passes(spec, target, wisdom, last, from, to, base, steps)?;
    // The whole axis's FFTs of M in one kernel each: two or three passes;
    // the prime factor alone by Rader's beats them.
    let rader_beside = raders_beside_bluesteins(&whole.0, spec.shape[last], spec.precision);
    if whole.0.len() <= 3 && !rader_beside {
        return Ok(whole);
    }
    let alone = real_prime_factor_alone(spec, target, wisdom, from, to, base, steps)?;
    Ok(match alone {
        Some(alone) if matches!(&alone.0[..], [_, bluestein] if bluestein.lanes == LaneLayout::FftMinor) => {
            alone
        }
        _ => whole,
    })
}

/// An R2C's odd real axis (the last, n = m p, p its prime factors past 31,
/// m 31-smooth and one kernel's) as [`prime_factor_alone`] runs a complex
/// one: the FFTs of m over the reals (C2R: over the half spectrum, each
/// point past N / 2 its mirror's conjugate) with the four-step twiddle,
/// into the workspace as the full spectrum's columns; then Bluestein's
/// algorithm over p alone, the axis seen as p x m, whose closing chirp
/// keeps point c0 + m k of the axis where it lies in the half spectrum
/// (R2C; c0 the coordinate of the m columns) or the real part (C2R). So
/// 31339 (= 7 x 4477) runs two kernels, where Bluestein's over the whole
/// axis (FFTs of M = 62720 in two passes each, two rows to a row of M)
/// ran five forward and four inverse. `None` where the axis is not of that
/// form, the workspace already holds the data (`base` past 0), the view
/// would take a fourth axis, or the closing chirp does not ride on the
/// stores of the FFT of M.
#[allow(clippy::too_many_arguments)]
fn real_prime_factor_alone(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    from: UserSide,
    to: UserSide,
    base: usize,
    steps: Steps,
) -> Result<Option<(Vec<Pass>, usize)>, Error> {
    let axis = spec.shape.len() - 1;
    let forward = match (from.holds, to.holds) {
        (AxisSide::Reals, AxisSide::HalfSpectrum) => true,
        (AxisSide::HalfSpectrum, AxisSide::Reals) => false,
        _ => return Ok(None),
    };
    let n = spec.shape[axis];
    let p = beyond_radices(n);
    let m = n / p;
    let fits = m >= 2 && m <= super::pass_planner::max_size(spec.precision);
    if steps != Steps::Fused || base != 0 || !fits {
        return Ok(None);
    }
    // The full spectrum's columns, dense in the workspace, Bluestein's rows
    // past them.
    let columns = Layout::contiguous(&spec.shape);
    let (Some((view_from, view_axis)), Some((view_to, _))) = (
        seen_as_p_by_m(spec, axis, p, &columns),
        seen_as_p_by_m(spec, axis, p, to.layout),
    ) else {
        return Ok(None);
    };
    if view_from.0 != view_to.0 {
        return Ok(None);
    }
    let between = (Buffer::Scratch, &columns);
    let mut first = super::multipass::first_step(
        spec,
        target,
        axis,
        &[m, p],
        (from.buffer, from.layout),
        between,
    )?;
    // Step 0 reads point j of column r' at r' + p j.
    let column = first.step_twiddle.map_or(0, |t| t.column);
    first.real = Some(full_length_end(
        n,
        RealEnd::Loads(AxisIndex { column, points: p }),
    ));
    let view_spec = FftSpec {
        shape: view_to.0.clone(),
        kind: TransformKind::C2c,
        input_layout: Some(view_from.1.clone()),
        output_layout: Some(view_to.1.clone()),
        placement: Placement::OutOfPlace,
        normalization: Normalization::None,
        choices: Default::default(),
        ..spec.clone()
    };
    let kept = match forward {
        true => AxisSide::Complex,
        false => AxisSide::Reals,
    };
    let (mut bluestein, end) = axis_passes(
        &view_spec,
        target,
        wisdom,
        view_axis,
        UserSide::new(Buffer::Scratch, &view_from.1, AxisSide::Complex),
        UserSide::new(to.buffer, &view_to.1, kept),
        columns.distance,
        steps,
    )?;
    // The closing chirp on the stores of the FFT of M's last pass, whose
    // point k of the FFT of p is point c0 + m k of the axis.
    let m_stride = view_to.1.strides[view_axis + 1];
    let Some(last) = bluestein
        .last_mut()
        .filter(|pass| !pass.stages.is_empty() && pass.chirp.is_some_and(|c| c.on_stores()))
    else {
        return Ok(None);
    };
    let Some(column) = m_columns(last, m, m_stride) else {
        return Ok(None);
    };
    last.real = Some(full_length_end(
        n,
        RealEnd::Stores(AxisIndex { column, points: m }),
    ));
    let mut passes = vec![first];
    passes.extend(bluestein);
    Ok(Some((passes, end)))
}

/// The real step at `end` of a pass of an odd real axis of `n` points
/// by its prime factor alone: the reals or the half spectrum of the
/// axis's full-length FFT.
fn full_length_end(n: usize, end: RealEnd) -> RealStep {
    RealStep {
        route: RealRoute::FullLength,
        end,
        real_n: n,
        twiddle_offset: None,
        hermitian_half: false,
    }
}

/// Which of `pass`'s columns are the `m` columns of an axis seen as p x m,
/// `stride` apart on the stores: `None` where none or several are.
fn m_columns(pass: &Pass, m: usize, stride: usize) -> Option<usize> {
    let mut columns = pass
        .access
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.count == m && c.output_stride == stride);
    match (columns.next(), columns.next()) {
        (Some((column, _)), None) => Some(column),
        _ => None,
    }
}

/// The product of `n`'s prime factors that no radix covers (with their
/// multiplicity): n over it is smooth.
fn beyond_radices(n: usize) -> usize {
    prime_factors(n)
        .into_iter()
        .filter(|&f| !is_smooth(f))
        .product()
}

/// `spec`'s shape and `layout` with `axis` seen as p x m (point k0 + m r'
/// of the axis at r', m strides apart, and k0), and where the p axis is:
/// at most three axes, two axes made one where `layout` holds them as one
/// run (of a 3D transform's first or last axis, the other two; of its
/// middle axis, the m points and the inner axis, so that 3 x 10284 x 120
/// is 3 x 857 x 1440). `None` where they would take four.
fn seen_as_p_by_m(
    spec: &FftSpec,
    axis: usize,
    p: usize,
    layout: &Layout,
) -> Option<((Vec<usize>, Layout), usize)> {
    let m = spec.shape[axis] / p;
    let stride = layout.strides[axis];
    let mut shape = spec.shape.clone();
    let mut strides = layout.strides.clone();
    let mut p_axis = axis;
    // Two neighbouring other axes, the outer `layout` holds the inner's
    // count of strides apart, as one.
    if shape.len() == 3 {
        let (outer, inner) = match axis {
            0 => (1, 2),
            2 => (0, 1),
            _ => {
                // The m points, `stride` apart, and the inner axis's as one.
                if stride != shape[2] * strides[2] {
                    return None;
                }
                shape.splice(1..=2, [p, m * shape[2]]);
                strides.splice(1..=2, [m * stride, strides[2]]);
                let view = Layout {
                    strides,
                    distance: layout.distance,
                };
                return Some(((shape, view), 1));
            }
        };
        if strides[outer] != shape[inner] * strides[inner] {
            return None;
        }
        shape.splice(outer..=inner, [shape[outer] * shape[inner]]);
        strides.splice(outer..=inner, [strides[inner]]);
        if axis == 2 {
            p_axis = 1;
        }
    }
    shape.splice(p_axis..=p_axis, [p, m]);
    strides.splice(p_axis..=p_axis, [m * stride, stride]);
    let view = Layout {
        strides,
        distance: layout.distance,
    };
    Some(((shape, view), p_axis))
}

/// Whether `a` and `b` are one buffer: the same, or the input and the
/// output of a transform in place.
fn one_buffer(spec: &FftSpec, a: Buffer, b: Buffer) -> bool {
    a == b || (spec.placement == Placement::InPlace && a != Buffer::Scratch && b != Buffer::Scratch)
}

/// The passes of the axes of a complex transform of `spec` but the `done`
/// ones, from `from` into `to`, and where their workspace (from `base` on)
/// ends: the planner's plan of `spec` with the `done` axes of one point,
/// whose kernels then run once per point of those axes (a column each,
/// after the plan's own, like more transforms of a batch). Each pass of
/// one axis then meets global memory as its columns are ([`with_columns`]).
fn other_axes(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    done: &[usize],
    from: (Buffer, &Layout),
    to: (Buffer, &Layout),
    base: usize,
) -> Result<(Vec<Pass>, usize), Error> {
    let mut shape = spec.shape.clone();
    for &axis in done {
        shape[axis] = 1;
    }
    let in_place = from.0 == to.0 && from.1 == to.1;
    let others = FftSpec {
        shape,
        kind: TransformKind::C2c,
        input_layout: Some(from.1.clone()),
        output_layout: Some(to.1.clone()),
        placement: match in_place {
            true => Placement::InPlace,
            false => Placement::OutOfPlace,
        },
        normalization: Normalization::None,
        choices: Default::default(),
        ..spec.clone()
    };
    let plan = super::plan_with_wisdom(&others, wisdom)?;
    let mut workspace = plan.scratch_elements;
    let mut passes = plan.passes;
    for &axis in done.iter().filter(|&&a| spec.shape[a] > 1) {
        for pass in &mut passes {
            let access = &mut pass.access;
            let stride = |buffer: Buffer| match (buffer, in_place) {
                (Buffer::Scratch, _) => workspace,
                (Buffer::Input, _) | (Buffer::Output, true) => from.1.strides[axis],
                (Buffer::Output, false) => to.1.strides[axis],
            };
            access.columns.push(Column {
                count: spec.shape[axis],
                input_stride: stride(access.reads),
                output_stride: stride(access.writes),
            });
        }
        workspace *= spec.shape[axis];
    }
    for pass in &mut passes {
        *pass = with_columns(pass, spec.precision, target);
    }
    // The sub-plan's buffers are `from`'s and `to`'s (in place: the input is
    // the output), its workspace `base` elements in.
    for pass in &mut passes {
        let access = &mut pass.access;
        for (buffer, offset) in [
            (&mut access.reads, &mut access.input_offset),
            (&mut access.writes, &mut access.output_offset),
        ] {
            match *buffer {
                Buffer::Scratch => *offset += base,
                Buffer::Input => *buffer = from.0,
                Buffer::Output => *buffer = to.0,
            }
        }
    }
    Ok((passes, base + workspace))
}

/// `pass`, a pass of one axis that the sub-plan of [`other_axes`] shaped
/// before the done axes became its columns, planned again with its radices
/// and threads over its columns as they are: planned as one FFT a
/// transform, far apart, a row of 64 points took tiles of 32 rows 64
/// points apart, whose loads each lane took from a row of its own (H200,
/// 1031x64: the 64's pass 2.17 ms, cuFFT's 0.51). Passes of the four-step
/// split keep their shape, as does a pass whose radices and threads do not
/// plan over these columns (the first plan is valid there, if slower).
fn with_columns(pass: &Pass, precision: Precision, target: &Target) -> Pass {
    if pass.step_twiddle.is_some() || pass.real.is_some() {
        return pass.clone();
    }
    // The FFTs a block takes together differ in the first column: the
    // nearest neighbours first, whichever axis they came from.
    let mut access = pass.access.clone();
    access.columns.sort_by_key(|column| column.input_stride);
    let choices = ShapeChoices {
        radices: Some(pass.radices()),
        threads_per_fft: Some(pass.threads_per_fft),
        ..ShapeChoices::default()
    };
    let planned = match &pass.fused_axes {
        None => plan_pass(pass.n, precision, &choices, target, &access),
        Some(fused) => plan_fused_pass(fused, precision, &choices, target, &access),
    };
    planned
        .map(|planned| Pass {
            normalizes: pass.normalizes,
            ..planned
        })
        .unwrap_or_else(|_| pass.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chirp_step_at_an_index_its_passes_do_not_have_is_refused() {
        let mut plan = crate::plan::plan(&FftSpec::new(4099)).unwrap();
        // The index travels through the plan's JSON.
        let json = serde_json::to_string(&plan).unwrap();
        assert_eq!(Plan::from_json(&json, &Target::PORTABLE), Ok(plan.clone()));
        let chirp = plan.passes[0].chirp.as_mut().unwrap();
        chirp.index.as_mut().unwrap().points += 1;
        let err = super::super::invariants::check(&plan, &Target::PORTABLE).unwrap_err();
        assert!(err.to_string().contains("chirp step takes points"), "{err}");
    }
}
