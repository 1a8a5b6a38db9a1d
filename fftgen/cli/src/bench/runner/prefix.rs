//! Prefixes of the benchmark's device buffers as whole `CudaSlice`s: the
//! buffers are sized for the largest batch of the run, while each launch
//! wants buffers of exactly its batch's length (the runtime checks their
//! bytes, cuFFT their length). A prefix borrows its buffer exclusively and
//! never frees the memory; several prefixes of one buffer at once serve
//! calls on one stream that read or write it with different lengths.

use fftgen_runtime::cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// The first `len` elements of both buffers as whole `CudaSlice`s, which is
/// what `CudaFft::launch` takes (it wants exactly `2 * n * batch` reals,
/// while the buffers are sized for the largest batch).
pub(super) fn prefixes<'a, T>(
    stream: &Arc<CudaStream>,
    input: &'a mut CudaSlice<T>,
    output: &'a mut CudaSlice<T>,
    len: usize,
) -> (Prefix<'a, T>, Prefix<'a, T>) {
    (
        Prefix::new(stream, input, len),
        Prefix::new(stream, output, len),
    )
}

/// A `CudaSlice` over the first `len` elements of another one's allocation.
/// It borrows the owner exclusively for its life and never frees the memory.
pub(super) struct Prefix<'a, T> {
    slice: ManuallyDrop<CudaSlice<T>>,
    _owner: PhantomData<&'a mut CudaSlice<T>>,
}

impl<'a, T> Prefix<'a, T> {
    pub(super) fn new(stream: &Arc<CudaStream>, owner: &'a mut CudaSlice<T>, len: usize) -> Self {
        let [prefix] = Self::several(stream, owner, [len]);
        prefix
    }

    /// Prefixes of `lens` elements of one buffer at once, for calls that
    /// read or write it with different lengths (the launches of one stream,
    /// which orders them).
    pub(super) fn several<const K: usize>(
        stream: &Arc<CudaStream>,
        owner: &'a mut CudaSlice<T>,
        lens: [usize; K],
    ) -> [Self; K] {
        for len in lens {
            assert!(
                len <= owner.len(),
                "a prefix of {len} elements of a buffer of {}",
                owner.len()
            );
        }
        let (ptr, _record) = owner.device_ptr(stream);
        lens.map(|len| {
            // SAFETY: `ptr` is a live allocation of at least `len` elements
            // of T, which the exclusive borrow keeps alive and unused
            // elsewhere while the prefixes exist; each is leaked, never
            // freed, on drop.
            let slice = unsafe { stream.upgrade_device_ptr::<T>(ptr, len) };
            Prefix {
                slice: ManuallyDrop::new(slice),
                _owner: PhantomData,
            }
        })
    }
}

impl<T> Deref for Prefix<'_, T> {
    type Target = CudaSlice<T>;
    fn deref(&self) -> &CudaSlice<T> {
        &self.slice
    }
}

impl<T> DerefMut for Prefix<'_, T> {
    fn deref_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.slice
    }
}

impl<T> Drop for Prefix<'_, T> {
    fn drop(&mut self) {
        // SAFETY: taken once, here; the field is not used again.
        let slice = unsafe { ManuallyDrop::take(&mut self.slice) };
        // Gives the handle back without freeing the owner's memory.
        let _ = slice.leak();
    }
}
