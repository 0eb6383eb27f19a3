//! The LZ window (dictionary): a circular buffer of recent output that
//! matches copy from.
//!
//! The buffer starts at the dictionary size up to 8 MiB and grows lazily
//! beyond (doubling, up to the dictionary size) so a header declaring a
//! huge dictionary costs little until the data is actually there. When the
//! uncompressed size is known it is allocated at once, up to the dictionary
//! size and at most 64 MiB per step. Decoders write at most up to the end
//! of the buffer in one go and hand every written byte to the caller before
//! writing more, so the window never holds undelivered bytes.

use lzflow_core::{Lease, Pool};

/// The smallest dictionary a decoder honours (as xz does).
pub(crate) const MIN_DICT: usize = 4096;

/// Spare bytes beyond the dictionary, so a match copy may write a few
/// bytes past its end without touching history a distance can reach.
pub(crate) const WINDOW_SLACK: usize = 32;

/// First allocation without a known size: the whole dictionary up to this
/// (every xz preset up to 6), so such a window never grows while decoding
/// and no poll pays for a copy. It is calloc'ed (or reused from the pool
/// without filling), so pages a small stream never writes cost nothing;
/// a header declaring a larger dictionary gets it by doubling from here as
/// data actually arrives.
const FIRST_ALLOC: usize = 8 << 20;

/// Most a known size makes the window grow by in one step: a header that
/// lies about the size costs at most this before real data has to arrive.
const EAGER_STEP: usize = 64 << 20;

/// The decoder's history buffer.
#[derive(Debug)]
pub(crate) struct Window {
    /// The circular buffer; its length is the current circle size.
    pub buf: Lease<u8>,
    /// Where the next byte goes.
    pub pos: usize,
    /// Bytes of valid history (capped at `dict_max` and the buffer size).
    pub full: usize,
    /// Bytes written since the last dictionary reset.
    pub total: u64,
    /// Largest distance allowed: the dictionary size (at least 4 KiB).
    pub dict_max: usize,
    /// Known uncompressed size: the buffer need not grow past it.
    hint: Option<u64>,
    pool: Pool<u8>,
}

impl Window {
    /// An empty window; nothing is allocated until the first byte.
    pub fn new(dict_size: u32, pool: Pool<u8>) -> Self {
        Window {
            buf: Lease::unpooled(Vec::new()),
            pos: 0,
            full: 0,
            total: 0,
            dict_max: dict_max(dict_size),
            hint: None,
            pool,
        }
    }

    /// Forgets the history (dictionary reset); keeps the buffer.
    pub fn reset(&mut self) {
        self.pos = 0;
        self.full = 0;
        self.total = 0;
    }

    /// Forgets the history but writes on at `pos`: a dictionary reset in
    /// a window that is the output (it never wraps, so nothing after
    /// `pos` is overwritten and nothing before it is read again).
    pub fn reset_history(&mut self) {
        self.full = 0;
        self.total = 0;
    }

    /// Sets a new dictionary size for the next stream and forgets history.
    pub fn set_dict(&mut self, dict_size: u32) {
        self.dict_max = dict_max(dict_size);
        self.hint = None;
        self.reset();
    }

    /// Caps growth at the known uncompressed size.
    pub fn set_hint(&mut self, size: Option<u64>) {
        self.hint = size;
    }

    /// Makes room for at least one byte at `pos` (wrapping or growing) and
    /// returns how many bytes may be written contiguously.
    pub fn room(&mut self) -> usize {
        if self.pos == self.buf.len() {
            let len = self.buf.len();
            let linear = self.total == len as u64;
            if linear && len < self.dict_max + WINDOW_SLACK {
                self.grow();
            } else {
                self.pos = 0;
            }
        }
        self.buf.len() - self.pos
    }

    fn grow(&mut self) {
        let len = self.buf.len();
        let full = self.dict_max + WINDOW_SLACK;
        let doubling = (len * 2).max(FIRST_ALLOC);
        let target = match self.hint {
            // Only trust the hint while it has not been exceeded. A known
            // size is allocated at once (up to a step) rather than by
            // doubling: no copies while growing, and no old and new buffer
            // alive together at the peak.
            Some(h) if h > len as u64 => {
                let h = usize::try_from(h).unwrap_or(usize::MAX);
                h.saturating_add(WINDOW_SLACK)
                    .min(full)
                    .min(doubling.max(EAGER_STEP))
            }
            _ => doubling.min(full),
        };
        if len == 0 {
            // Written before read (history is bounded by `full`): no fill.
            self.buf = self.pool.lease_any(target);
        } else {
            self.buf.resize(target, 0);
        }
    }

    /// Records that `n` bytes were written at `pos`.
    #[inline]
    pub fn advance(&mut self, n: usize) {
        self.pos += n;
        self.total += n as u64;
        self.full = (self.full + n).min(self.dict_max).min(self.buf.len());
    }

    /// Copies `data` (at most [`room`](Self::room) bytes) in at `pos`.
    pub fn write(&mut self, data: &[u8]) {
        self.buf[self.pos..self.pos + data.len()].copy_from_slice(data);
        self.advance(data.len());
    }

    /// The bytes from `start` to `pos` (written since `start`).
    pub fn since(&self, start: usize) -> &[u8] {
        &self.buf[start..self.pos]
    }
}

fn dict_max(dict_size: u32) -> usize {
    usize::try_from(dict_size)
        .unwrap_or(usize::MAX - WINDOW_SLACK)
        .max(MIN_DICT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_lazily_then_wraps() {
        let mut w = Window::new(u32::MAX, Pool::disabled());
        assert_eq!(w.buf.len(), 0, "nothing allocated up front");
        w.set_hint(Some(10));
        assert_eq!(w.room(), 10 + WINDOW_SLACK);
        w.write(&[1; 10 + WINDOW_SLACK]);
        // Past the hint the window keeps growing towards the dictionary.
        assert_eq!(w.room(), FIRST_ALLOC - 10 - WINDOW_SLACK);

        let mut w = Window::new(4096, Pool::disabled());
        let size = 4096 + WINDOW_SLACK;
        assert_eq!(w.room(), size);
        w.write(&[7; 4096 + WINDOW_SLACK]);
        assert_eq!(w.full, 4096, "history is capped at the dictionary");
        assert_eq!(w.room(), size, "wrapped to the start");
        assert_eq!(w.pos, 0);
    }

    #[test]
    fn known_size_is_allocated_at_once() {
        // Below the dictionary: exactly the size (plus slack) in one step.
        let mut w = Window::new(8 << 20, Pool::disabled());
        w.set_hint(Some(3 << 20));
        assert_eq!(w.room(), (3 << 20) + WINDOW_SLACK);
        // Above it: the dictionary, in one step.
        let mut w = Window::new(8 << 20, Pool::disabled());
        w.set_hint(Some(100 << 20));
        assert_eq!(w.room(), (8 << 20) + WINDOW_SLACK);
        // A huge size and dictionary: one step of at most EAGER_STEP.
        let mut w = Window::new(u32::MAX, Pool::disabled());
        w.set_hint(Some(u64::MAX));
        assert_eq!(w.room(), EAGER_STEP);
    }
}
