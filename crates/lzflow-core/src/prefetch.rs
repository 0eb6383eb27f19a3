//! Cache prefetch hints: the only `unsafe` code in lzflow-core besides
//! `huge_pages.rs` (one instruction), compiled on x86-64 unless the `safe`
//! feature is on (or under Miri), which makes [`prefetch`] a no-op.
//!
//! Why: a PPMd model is a graph of small records spread over up to
//! hundreds of MiB, and each symbol's walk starts with a load that misses
//! the cache. Where the next record is known a little before it is read
//! (the successor of the state just decoded), asking for its line then
//! overlaps the miss with the model update in between. Measured with
//! `lzflow-bench compare ppmd --rounds 5` (40 MiB of text, order 6,
//! 16 MiB), two alternating runs each: PPMd7 decoding 1.102-1.107x
//! ppmd-rust's time without hints, 1.074-1.077x with the hint where the
//! symbol is found in the first context, and 1.021-1.047x (1.003-1.005x
//! 7-Zip's) with the hint after escapes too. The encoder, tried the same
//! way, gained nothing measurable, and has no hint.
//!
//! Invariants:
//! 1. The address hinted at is that of an element of the slice the caller
//!    borrows (a reference is taken with `get`, so an index outside the
//!    slice hints nothing).
//! 2. `PREFETCHT0` reads no data into any register and writes nothing: it
//!    cannot fault, and no memory Rust can see changes. Its only effect is
//!    on the cache.
//! 3. SSE, whose instruction it is, is part of the x86-64 baseline, so the
//!    intrinsic's target feature is always enabled.

/// Hints to the processor that `data[index]` will be read soon (x86-64,
/// without the `safe` feature; elsewhere, or when `index` is outside
/// `data`, nothing happens). Changes no memory and cannot fail.
#[inline(always)]
pub fn prefetch<T>(data: &[T], index: usize) {
    #[cfg(all(target_arch = "x86_64", not(feature = "safe"), not(miri)))]
    if let Some(element) = data.get(index) {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let at: *const i8 = (element as *const T).cast();
        // SAFETY: invariants 1-3 (module docs): the address is that of a
        // borrowed element, the hint reads and writes nothing Rust sees,
        // and SSE is always there on x86-64.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(at) };
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "safe"), not(miri))))]
    let _ = (data, index);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hint_changes_nothing_and_any_index_is_fine() {
        let v: Vec<u32> = (0..1000).collect();
        for i in [0, 1, 999, 1000, usize::MAX] {
            prefetch(&v, i);
        }
        prefetch::<u8>(&[], 0);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32));
    }
}
