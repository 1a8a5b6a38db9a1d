//! fftgen-manifest: the bottom layer of fftgen, which every other part
//! imports and which imports nothing of theirs (only serde).
//!
//! - [`vocabulary`]: the words of a transform request ([`Precision`],
//!   [`Direction`], [`Normalization`], [`Placement`], [`Backend`]) and
//!   [`text_enum!`], which spells enums the same way on the command line,
//!   in JSON and in messages.
//! - [`manifest`]: the [`Manifest`], the contract between the generator
//!   that writes kernels and whatever launches them (the runtime, or a
//!   client in another language reading the JSON).
//! - [`layout`]: a [`Layout`], where the elements of a batch of transforms
//!   live in a buffer (strides per axis and a distance).
//! - [`blocks`]: [`Blocks`], a buffer cut into one block per peer of an
//!   all-to-all exchange along one axis.
//! - [`target`]: a [`Target`], what one device allows a kernel, as data: the
//!   planner reads it, the runtime builds it from the device it opened and
//!   checks launches against it.

pub mod blocks;
pub mod layout;
pub mod manifest;
pub mod target;
pub mod vocabulary;

pub use blocks::Blocks;
pub use layout::Layout;
pub use manifest::{
    Buffer, GridRule, KernelArg, Manifest, PassLaunch, Side, StaticKernels, TransformLaunch,
};
pub use target::{LimitExceeded, Target};
pub use vocabulary::{
    Backend, Direction, Element, Normalization, Placement, Precision, TransformKind,
};

/// serde, for [`text_enum!`] expansions in crates that name it otherwise.
#[doc(hidden)]
pub use serde as __serde;
