//! Errors of the generator: every one says what was wrong and what to do.

use thiserror::Error;

/// Why a transform could not be planned or emitted.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    #[error("n = 0 is not a transform size; give a length of 2 or more")]
    ZeroSize,

    #[error("n = 1 is the identity and needs no kernel; give a length of 2 or more")]
    TrivialSize,

    #[error(
        "axis {axis} of the shape {shape:?} has the prime factor {prime}, which no radix \
         covers, and Bluestein's algorithm cannot take it: {reason}"
    )]
    PrimeAxisUnsupported {
        shape: Vec<usize>,
        axis: usize,
        prime: usize,
        reason: String,
    },

    #[error(
        "{choice} shapes the Stockham passes of a plan, and n = {n} runs Bluestein's \
         algorithm (its prime factors are not all at most 31; its FFTs are of {padded} \
         points or more); omit it, or transform a size whose prime factors are at most 31"
    )]
    ChoiceWithBluestein {
        n: usize,
        padded: usize,
        choice: String,
    },

    #[error(
        "n = {n} is too large in {precision}: fftgen plans transforms of up to {max} complex \
         elements (split the work into smaller transforms)"
    )]
    TooLarge {
        n: usize,
        precision: crate::Precision,
        max: usize,
    },

    #[error(
        "one pass of {n} points in {precision} does not fit a block of target `{target}` \
         ({shared_bytes} bytes of shared memory, or no radix schedule fits its threads and \
         registers); give a split into more passes (--split), or a target whose blocks hold \
         more (--target h100, h200)"
    )]
    PassTooLarge {
        n: usize,
        precision: crate::Precision,
        target: String,
        shared_bytes: usize,
    },

    #[error(
        "the radix list is empty; give radices whose product is n, e.g. 8, 8, 8, 8 for n = 4096"
    )]
    EmptyRadixList,

    #[error(
        "the radices {radices:?} multiply to {product}, not {n}, the length of the FFT they \
         schedule (for a real transform of even length N, the complex FFT of N / 2); give \
         radices whose product is {n}"
    )]
    RadixProduct {
        radices: Vec<usize>,
        product: usize,
        n: usize,
    },

    #[error("radix {radix} is not supported; radices must be between 2 and 32")]
    UnsupportedRadix { radix: usize },

    #[error(
        "the radix list {radices:?} cannot run as one kernel: {reason}; choose larger or more \
         equal radices, or omit the radix list to let the planner choose"
    )]
    UnlaunchableRadices { radices: Vec<usize>, reason: String },

    #[error(
        "{threads} threads per transform cannot run n = {n} with radices {radices:?}: give between \
         {min} and {max} (enough that no thread holds too many values in registers, no more \
         than the largest stage has butterflies, nor than a block holds), or omit it to let \
         the planner choose"
    )]
    BadThreadsPerFft {
        threads: usize,
        n: usize,
        radices: Vec<usize>,
        min: usize,
        max: usize,
    },

    #[error(
        "{blocks} blocks per multiprocessor is not a launch bound the target can meet: give 1 \
         to {max}, or omit it to let the occupancy model choose"
    )]
    BadMinBlocksPerSm { blocks: usize, max: usize },

    #[error(
        "{ffts} transforms per block of n = {n} do not fit one block: give between 1 and {max} \
         (each takes {threads_per_fft} threads and {bytes_per_fft} bytes of shared memory), or \
         omit it to let the planner choose"
    )]
    BadFftsPerBlock {
        ffts: usize,
        n: usize,
        max: usize,
        threads_per_fft: usize,
        bytes_per_fft: usize,
    },

    #[error(
        "alternating exchange buffers do not fit n = {n}: {reason}; use reused buffers, or omit \
         the choice to let the planner decide"
    )]
    AlternatingBuffersUnfit { n: usize, reason: String },

    #[error(
        "the {width} exchange does not fit n = {n}: {reason}; give the other width, or omit the \
         choice to let the planner decide"
    )]
    ExchangeWidthUnfit {
        n: usize,
        width: crate::plan::ExchangeWidth,
        reason: String,
    },

    #[error(
        "the shape {shape:?} cannot be planned: {reason}; give one to three axes, at least one \
         of 2 or more points (an axis of 1 is the identity), e.g. --n 1024x1024"
    )]
    BadShape { shape: Vec<usize>, reason: String },

    #[error("the {side} layout cannot hold transforms of shape {shape:?}: {reason}")]
    BadLayout {
        side: &'static str,
        shape: Vec<usize>,
        reason: String,
    },

    #[error(
        "{choice} shapes the one kernel of a 1D transform planned without --split, and \
         {shape:?} is planned as {passes} pass(es){axes}; omit it (or --split) to let the planner \
         choose each pass's shape",
        axes = if shape.len() > 1 { format!(" over {} axes", shape.len()) } else { String::new() }
    )]
    ChoiceNeedsOneKernel {
        choice: String,
        shape: Vec<usize>,
        passes: usize,
    },

    #[error(
        "{choice} shapes plans of several passes, and n = {n} runs as one kernel; \
         omit it, or give --split to ask for several passes"
    )]
    ChoiceNeedsSeveralPasses { choice: String, n: usize },

    #[error(
        "the split {split:?} does not fit the shape {shape:?}: {reason}; give pass lengths \
         whose product is the length of one axis, or omit --split to let the planner choose"
    )]
    BadSplit {
        split: Vec<usize>,
        shape: Vec<usize>,
        reason: String,
    },

    #[error("no direction was requested; ask for forward, inverse or both")]
    NoDirection,

    #[error("the wisdom file {origin} cannot be used: {reason}; fix it, or name another (FFTGEN_WISDOM, --wisdom)")]
    BadWisdom { origin: String, reason: String },

    #[error(
        "fftgen planned pass {pass} ({n} points) in a way it cannot run correctly: {reason}; \
         this is a bug in fftgen, please report it with the command line (other --radix, \
         --split or --threads-per-fft choices, or none, may plan)"
    )]
    BrokenPlan {
        pass: usize,
        n: usize,
        reason: String,
    },

    #[error(
        "the plan read from JSON cannot be used: {reason}; write plans with `fftgen plan --json` \
         (or serialise a Plan) and read them for the target they were planned for"
    )]
    BadPlanJson { reason: String },

    #[error("{shape:?} cannot be spread over {gpus} GPUs: {reason}")]
    Undistributable {
        shape: Vec<usize>,
        gpus: usize,
        reason: String,
    },

    #[error("internal template error (a bug in fftgen, please report it): {0}")]
    Template(String),
}
