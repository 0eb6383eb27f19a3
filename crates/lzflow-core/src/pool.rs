//! A bounded, thread-safe pool of buffers so that steady-state decoding and
//! encoding allocate nothing.
//!
//! Coders lease dictionaries, chunk buffers and probability tables from a
//! [`Pool`]; a [`Lease`] returns its buffer on drop. The pool keeps at most
//! `max_idle_bytes` of idle capacity and frees the rest, so it never holds
//! more than that beyond what live coders use.

use std::mem;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, OnceLock};

/// Idle capacity kept by the global byte pool: a preset-9 dictionary
/// (64 MiB) plus its chunk buffers, or what a 2-thread preset-6 encode
/// holds at once (two windows and the pieces in flight). On a warm
/// 2-thread preset-6 encode of 40 MiB of text (the table pool at 192 MiB),
/// 80 MiB left 49 MB allocated per operation, 128 MiB 0.4 MB.
pub const DEFAULT_MAX_IDLE_BYTES: usize = 128 << 20;

#[derive(Debug)]
struct Inner<T> {
    free: Vec<Vec<T>>,
    idle_bytes: usize,
    max_idle_bytes: usize,
}

/// A pool of `Vec<T>` buffers; cheap to clone (clones share the buffers).
#[derive(Debug)]
pub struct Pool<T> {
    inner: Option<Arc<Mutex<Inner<T>>>>,
}

impl<T> Clone for Pool<T> {
    fn clone(&self) -> Self {
        Pool {
            inner: self.inner.clone(),
        }
    }
}

impl<T: Copy> Pool<T> {
    /// A pool keeping at most `max_idle_bytes` of idle buffers.
    pub fn new(max_idle_bytes: usize) -> Self {
        Pool {
            inner: Some(Arc::new(Mutex::new(Inner {
                free: Vec::new(),
                idle_bytes: 0,
                max_idle_bytes,
            }))),
        }
    }

    /// A pool that keeps nothing: every lease allocates, every drop frees.
    pub fn disabled() -> Self {
        Pool { inner: None }
    }

    /// True for a pool made by [`disabled`](Self::disabled).
    pub fn is_disabled(&self) -> bool {
        self.inner.is_none()
    }

    /// Leases an empty buffer with at least `capacity` elements of capacity,
    /// reusing the smallest idle buffer that is large enough.
    pub fn lease(&self, capacity: usize) -> Lease<T> {
        match self.lease_reused(capacity) {
            Some(mut lease) => {
                lease.buf.clear();
                lease
            }
            None => Lease {
                buf: Vec::with_capacity(capacity),
                pool: self.clone(),
            },
        }
    }

    /// Leases a buffer of exactly `len` elements whose contents are
    /// unspecified: a reused buffer keeps what an earlier lease left in it
    /// (only elements past its old length are set to `T::default()`), a new
    /// one is allocated zeroed (calloc'ed: pages are touched only when used).
    /// For buffers the holder writes before it reads, such as an LZ window,
    /// this saves filling them.
    pub fn lease_any(&self, len: usize) -> Lease<T>
    where
        T: Default,
    {
        self.lease_len(len, true)
    }

    /// Leases a buffer of exactly `len` elements, all `T::default()` (zero
    /// for numbers): a reused buffer is cleared and filled; a new one is
    /// allocated zeroed (calloc'ed for numbers, so its pages are only
    /// touched when used).
    pub fn lease_zeroed(&self, len: usize) -> Lease<T>
    where
        T: Default,
    {
        self.lease_len(len, false)
    }

    /// A buffer of `len` elements: reused (with its old contents when
    /// `keep`, else filled with `T::default()`) or new and zeroed.
    fn lease_len(&self, len: usize, keep: bool) -> Lease<T>
    where
        T: Default,
    {
        match self.lease_reused(len) {
            Some(lease) => Self::refill(lease, len, keep),
            None => self.fresh(len),
        }
    }

    /// A reused buffer sized to `len`, cleared first unless `keep`.
    fn refill(mut lease: Lease<T>, len: usize, keep: bool) -> Lease<T>
    where
        T: Default,
    {
        if !keep {
            lease.buf.clear();
        }
        lease.buf.resize(len, T::default());
        lease
    }

    /// A new zeroed buffer of `len` elements (calloc'ed for numbers).
    fn fresh(&self, len: usize) -> Lease<T>
    where
        T: Default,
    {
        Lease {
            buf: vec![T::default(); len],
            pool: self.clone(),
        }
    }

    /// [`lease_zeroed`](Self::lease_zeroed) that reports instead of
    /// aborting when a new buffer of `len` elements cannot be allocated.
    /// Only large requests (at least [`PROBE_MIN_BYTES`]) are probed; for
    /// smaller ones a failure aborts as any allocation would. A new buffer
    /// of 4 MiB or more is advised to use huge pages (see
    /// [`advise_huge_pages`](crate::advise_huge_pages)): this is the lease
    /// for randomly accessed tables, such as a match finder's.
    pub fn try_lease_zeroed(
        &self,
        len: usize,
    ) -> Result<Lease<T>, std::collections::TryReserveError>
    where
        T: Default,
    {
        if let Some(lease) = self.lease_reused(len) {
            return Ok(Self::refill(lease, len, false));
        }
        if len.saturating_mul(mem::size_of::<T>()) >= PROBE_MIN_BYTES {
            // Probe with an untouched reservation, then allocate zeroed so
            // that untouched pages stay free.
            let mut probe: Vec<T> = Vec::new();
            probe.try_reserve_exact(len)?;
        }
        let mut lease = self.fresh(len);
        // Before the first touch, so the pages are huge from the start.
        crate::advise_huge_pages(&mut lease.buf);
        Ok(lease)
    }

    /// An idle buffer of at least `capacity` elements, if any, with the
    /// contents it was given back with.
    fn lease_reused(&self, capacity: usize) -> Option<Lease<T>> {
        if capacity == 0 {
            // Nothing to allocate: an idle buffer taken here would be held
            // empty while a later lease allocates its like afresh.
            return None;
        }
        let inner = self.inner.as_ref()?;
        let mut inner = inner.lock().unwrap_or_else(|e| e.into_inner());
        let best = inner
            .free
            .iter()
            .enumerate()
            .filter(|(_, v)| v.capacity() >= capacity)
            .min_by_key(|(_, v)| v.capacity())
            .map(|(i, _)| i)?;
        let buf = inner.free.swap_remove(best);
        inner.idle_bytes -= buf.capacity() * mem::size_of::<T>();
        Some(Lease {
            buf,
            pool: self.clone(),
        })
    }

    /// Bytes of idle capacity held right now.
    pub fn idle_bytes(&self) -> usize {
        self.inner.as_ref().map_or(0, |inner| {
            inner.lock().unwrap_or_else(|e| e.into_inner()).idle_bytes
        })
    }

    /// Changes how many bytes of idle buffers this pool (and every clone
    /// of it) keeps, dropping idle buffers beyond the new bound at once.
    /// For the process-wide pools, e.g.
    /// `Pool::<u32>::global().set_max_idle_bytes(0)`, a long-lived service
    /// chooses between reuse (fewer allocations) and idle memory; 0 keeps
    /// nothing. No effect on a disabled pool.
    pub fn set_max_idle_bytes(&self, max_idle_bytes: usize) {
        let Some(inner) = &self.inner else { return };
        let mut inner = inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.max_idle_bytes = max_idle_bytes;
        // Largest first: fewest frees to get under the bound.
        inner.free.sort_by_key(|v| v.capacity());
        while inner.idle_bytes > max_idle_bytes {
            let Some(evicted) = inner.free.pop() else {
                break;
            };
            inner.idle_bytes -= evicted.capacity() * mem::size_of::<T>();
        }
    }

    /// Drops every idle buffer now (leases out keep theirs); the bound stays.
    pub fn release_idle(&self) {
        let Some(inner) = &self.inner else { return };
        let mut inner = inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.free.clear();
        inner.idle_bytes = 0;
    }

    fn give_back(&self, buf: Vec<T>) {
        let Some(inner) = &self.inner else { return };
        let bytes = buf.capacity() * mem::size_of::<T>();
        let mut inner = inner.lock().unwrap_or_else(|e| e.into_inner());
        if bytes == 0 || bytes > inner.max_idle_bytes {
            return;
        }
        // Evict the smallest idle buffers until the returned one fits.
        while inner.idle_bytes + bytes > inner.max_idle_bytes && !inner.free.is_empty() {
            let (i, _) = inner
                .free
                .iter()
                .enumerate()
                .min_by_key(|(_, v)| v.capacity())
                .expect("non-empty");
            let evicted = inner.free.swap_remove(i);
            inner.idle_bytes -= evicted.capacity() * mem::size_of::<T>();
        }
        if inner.idle_bytes + bytes <= inner.max_idle_bytes {
            // Kept with its contents: `lease` clears, `lease_any` need not.
            inner.idle_bytes += bytes;
            inner.free.push(buf);
        }
    }
}

/// Requests at least this large are probed before allocating by
/// [`Pool::try_lease_zeroed`].
pub const PROBE_MIN_BYTES: usize = 16 << 20;

static BYTES: OnceLock<Pool<u8>> = OnceLock::new();
static WORDS: OnceLock<Pool<u16>> = OnceLock::new();
static DWORDS: OnceLock<Pool<u32>> = OnceLock::new();

impl Pool<u8> {
    /// The process-wide byte pool (dictionaries, chunk buffers), keeping at
    /// most [`DEFAULT_MAX_IDLE_BYTES`] idle.
    pub fn global() -> Pool<u8> {
        BYTES
            .get_or_init(|| Pool::new(DEFAULT_MAX_IDLE_BYTES))
            .clone()
    }
}

impl Pool<u16> {
    /// The process-wide pool for probability tables.
    pub fn global() -> Pool<u16> {
        WORDS.get_or_init(|| Pool::new(4 << 20)).clone()
    }
}

/// Idle capacity kept by the global `u32` pool: the match-finder tables of
/// two encoders with an 8 MiB dictionary (xz and 7z levels 5 and 6: an
/// 80 MiB tree plus hash tables each), so that a 2-thread encode reuses
/// both sets (96 MiB kept one: 385 MB allocated per warm operation instead
/// of 0.4 MB, and 405 MiB peak RSS instead of 310 MiB).
pub const DEFAULT_MAX_IDLE_TABLE_BYTES: usize = 192 << 20;

impl Pool<u32> {
    /// The process-wide pool for 32-bit tables (the encoder's match-finder
    /// hash tables and trees, its search and price tables), keeping at most
    /// [`DEFAULT_MAX_IDLE_TABLE_BYTES`] idle.
    pub fn global() -> Pool<u32> {
        DWORDS
            .get_or_init(|| Pool::new(DEFAULT_MAX_IDLE_TABLE_BYTES))
            .clone()
    }
}

/// A buffer leased from a [`Pool`]; it goes back to the pool on drop.
#[derive(Debug)]
pub struct Lease<T: Copy> {
    buf: Vec<T>,
    pool: Pool<T>,
}

impl<T: Copy> Lease<T> {
    /// A lease that belongs to no pool (frees on drop).
    pub fn unpooled(buf: Vec<T>) -> Self {
        Lease {
            buf,
            pool: Pool::disabled(),
        }
    }
}

impl<T: Copy> Deref for Lease<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.buf
    }
}

impl<T: Copy> DerefMut for Lease<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.buf
    }
}

impl<T: Copy> Drop for Lease<T> {
    fn drop(&mut self) {
        let buf = mem::take(&mut self.buf);
        self.pool.give_back(buf);
    }
}

/// A bounded pool of whole coder states (a Deflate inflater with its
/// window) that cost an allocation to make and a reset to reuse: the
/// object counterpart of [`Pool`], kept in a `static`. A state goes back
/// when its [`Recycled`] handle drops; beyond [`max`](Self::max) idle
/// states, or with a maximum of 0, it is freed instead.
#[derive(Debug)]
pub struct Recycler<T> {
    free: Mutex<Vec<T>>,
    max: std::sync::atomic::AtomicUsize,
}

impl<T> Recycler<T> {
    /// A recycler keeping at most `max` idle states.
    pub const fn new(max: usize) -> Self {
        Recycler {
            free: Mutex::new(Vec::new()),
            max: std::sync::atomic::AtomicUsize::new(max),
        }
    }

    /// Most idle states kept.
    pub fn max(&self) -> usize {
        self.max.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Keeps at most `max` idle states from now on (0: none); frees the
    /// excess.
    pub fn set_max(&self, max: usize) {
        self.max.store(max, std::sync::atomic::Ordering::Relaxed);
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        free.truncate(max);
    }

    /// An idle state made ready by `reset`, or a new one from `make`.
    pub fn take(
        &'static self,
        make: impl FnOnce() -> T,
        reset: impl FnOnce(&mut T),
    ) -> Recycled<T> {
        let idle = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let state = match idle {
            Some(mut state) => {
                reset(&mut state);
                state
            }
            None => make(),
        };
        Recycled {
            state: Some(state),
            home: self,
        }
    }

    fn give_back(&self, state: T) {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        if free.len() < self.max() {
            free.push(state);
        }
    }
}

/// A state taken from a [`Recycler`]; it goes back on drop.
#[derive(Debug)]
pub struct Recycled<T: 'static> {
    state: Option<T>,
    home: &'static Recycler<T>,
}

impl<T> Deref for Recycled<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.state.as_ref().expect("present until dropped")
    }
}

impl<T> DerefMut for Recycled<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.state.as_mut().expect("present until dropped")
    }
}

impl<T> Drop for Recycled<T> {
    fn drop(&mut self) {
        if let Some(state) = self.state.take() {
            self.home.give_back(state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recycler_reuses_resets_and_bounds() {
        static R: Recycler<Vec<u8>> = Recycler::new(1);
        let mut a = R.take(|| vec![1], |v| v.clear());
        a.push(2);
        let b = R.take(|| vec![9], |v| v.clear());
        drop(a);
        drop(b); // beyond the maximum: freed
        let c = R.take(|| vec![7], |v| v.clear());
        assert_eq!(*c, vec![]); // a, reset
        let d = R.take(|| vec![7], |v| v.clear());
        assert_eq!(*d, vec![7]);
        drop((c, d));
        R.set_max(0);
        let e = R.take(|| vec![5], |v| v.clear());
        assert_eq!(*e, vec![5]);
    }

    #[test]
    fn an_empty_lease_takes_no_idle_buffer() {
        let pool = Pool::<u32>::new(1 << 20);
        drop(pool.lease(1000));
        let idle = pool.idle_bytes();
        assert!(idle >= 4000);
        for empty in [
            pool.lease(0),
            pool.lease_zeroed(0),
            pool.lease_any(0),
            pool.try_lease_zeroed(0).unwrap(),
        ] {
            assert_eq!(empty.capacity(), 0);
            assert_eq!(pool.idle_bytes(), idle, "the idle buffer stays");
        }
    }

    #[test]
    fn reuses_and_bounds_idle_capacity() {
        let pool = Pool::<u8>::new(100);
        let mut a = pool.lease(64);
        a.extend_from_slice(&[7; 10]);
        let cap = a.capacity();
        drop(a);
        assert_eq!(pool.idle_bytes(), cap);
        let b = pool.lease(32);
        assert!(b.is_empty(), "leases come back cleared");
        assert_eq!(b.capacity(), cap, "the idle buffer was reused");
        drop(b);
        drop(pool.lease(1000)); // larger than the bound: freed, not kept
        assert_eq!(pool.idle_bytes(), cap);
        let z = pool.lease_zeroed(5);
        assert_eq!(&z[..], &[0; 5], "a reused buffer comes back zeroed");
        assert_eq!(z.capacity(), cap);
        drop(z);
        let big = pool.try_lease_zeroed(500).unwrap();
        assert_eq!(big.len(), 500);
        assert!(big.iter().all(|&b| b == 0));
        drop(big); // larger than the bound: freed
        assert_eq!(pool.idle_bytes(), cap);
        let mut w = pool.lease_any(8);
        assert_eq!(w.capacity(), cap, "lease_any reuses too");
        w.copy_from_slice(&[5; 8]);
        drop(w);
        let w = pool.lease_any(10);
        assert_eq!(
            &w[..],
            &[5, 5, 5, 5, 5, 5, 5, 5, 0, 0],
            "contents kept, tail zeroed"
        );
        drop(w);
        assert!(pool.lease(4).is_empty(), "lease still clears");
        assert_eq!(
            &pool.lease_zeroed(3)[..],
            &[0; 3],
            "lease_zeroed still zeroes"
        );
        let keep = pool.lease(60);
        let keep_cap = keep.capacity();
        drop(keep);
        assert!(pool.idle_bytes() >= keep_cap);
        pool.release_idle();
        assert_eq!(pool.idle_bytes(), 0, "release_idle drops everything idle");
        let (a, b) = (pool.lease(30), pool.lease(30));
        let (ca, cb) = (a.capacity(), b.capacity());
        drop(a);
        drop(b);
        assert_eq!(pool.idle_bytes(), ca + cb);
        pool.clone().set_max_idle_bytes(ca.min(cb));
        assert!(
            pool.idle_bytes() <= ca.min(cb),
            "a clone's bound holds for all"
        );
        pool.set_max_idle_bytes(0);
        assert_eq!(pool.idle_bytes(), 0);
        drop(pool.lease(10));
        assert_eq!(pool.idle_bytes(), 0, "a zero bound keeps nothing");
        let disabled = Pool::<u8>::disabled();
        drop(disabled.lease(10));
        assert_eq!(disabled.idle_bytes(), 0);
    }
}
