//! Transparent huge pages for large buffers: one of lzflow-core's two
//! `unsafe` modules (one system call; `prefetch.rs` is the other), compiled on Linux unless the `safe`
//! feature is on, which makes [`advise_huge_pages`] a no-op.
//!
//! Why: an encoder's match-finder tables (256 MiB of binary tree and
//! 64 MiB of hash for a 32 MiB dictionary) and its window are read at
//! random, so with 4 KiB pages nearly every access also misses the TLB.
//! Where the kernel only gives huge pages on request
//! (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`, a common
//! default), asking for them made a 7-Zip -mx5 archive of 40 MiB of text
//! take 19.0 s instead of 22.0 s (medians of four alternating runs).
//!
//! Invariant: the advised range lies inside the buffer the caller holds
//! exclusively (`&mut`), shrunk to whole pages. `MADV_HUGEPAGE` changes
//! only how the kernel backs those pages, never their contents or
//! validity, so no memory Rust can see changes. Refused advice (an old
//! kernel, pages larger than 4 KiB, THP disabled) is ignored: it changes
//! nothing either.

/// Buffers smaller than this are not worth a system call.
pub(crate) const MIN_BYTES: usize = 4 << 20;

/// Asks the kernel to back `region` with transparent huge pages, when it
/// is at least 4 MiB (Linux, without the `safe` feature; elsewhere nothing
/// happens). For large buffers read at random, such as an encoder's match
/// finder tables and window; call it before the pages are first touched
/// (spare capacity works too). Not for buffers filled inside latency-bound
/// polls: the first touch of a huge page zeroes 2 MiB at once.
pub fn advise_huge_pages<T>(region: &mut [T]) {
    let bytes = std::mem::size_of_val(region);
    if bytes >= MIN_BYTES {
        madvise_huge(region.as_mut_ptr() as usize, bytes);
    }
}

/// `madvise(MADV_HUGEPAGE)` over the whole pages of `bytes` bytes from
/// `start`, which must lie in a buffer the caller borrows exclusively.
#[cfg(all(target_os = "linux", not(feature = "safe")))]
fn madvise_huge(start: usize, bytes: usize) {
    // madvise wants a page-aligned start; 4 KiB is the smallest page size,
    // and a larger one only makes the call fail harmlessly.
    const PAGE: usize = 4096;
    let begin = start.next_multiple_of(PAGE);
    let end = (start + bytes) & !(PAGE - 1);
    if end > begin {
        // SAFETY: [begin, end) is inside the caller's exclusively borrowed
        // buffer; MADV_HUGEPAGE is advice about backing pages and changes
        // no memory (module docs). The result is deliberately ignored.
        unsafe {
            libc::madvise(begin as *mut libc::c_void, end - begin, libc::MADV_HUGEPAGE);
        }
    }
}

/// Without the system call: nothing to do.
#[cfg(not(all(target_os = "linux", not(feature = "safe"))))]
fn madvise_huge(_start: usize, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advised_buffers_keep_their_contents() {
        let mut v: Vec<u32> = (0..(MIN_BYTES / 4 + 12_345) as u32).collect();
        advise_huge_pages(&mut v[3..]);
        advise_huge_pages(&mut v[..10]);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32));
        let mut spare: Vec<u8> = Vec::with_capacity(MIN_BYTES * 2);
        advise_huge_pages(spare.spare_capacity_mut());
        spare.resize(MIN_BYTES * 2, 7);
        assert!(spare.iter().all(|&b| b == 7));
    }
}
