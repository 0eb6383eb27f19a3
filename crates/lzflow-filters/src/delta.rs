//! Delta filter: each byte is stored as its difference from the byte
//! `distance` positions earlier (bytes before the start count as zero).
//! It suits fixed-width samples such as PCM audio or uncompressed images.

use crate::Filter;

pub(crate) struct Delta {
    distance: usize,
    encode: bool,
    /// The last 256 original bytes: `history[(seen - k) % 256]` is the byte
    /// `k` positions back, where `seen` counts all bytes so far.
    history: [u8; 256],
    seen: u8,
}

impl Delta {
    /// `distance` must be in `1..=256` (checked by the constructor caller).
    pub(crate) fn new(distance: usize, encode: bool) -> Self {
        Delta {
            distance: distance.clamp(1, 256),
            encode,
            history: [0; 256],
            seen: 0,
        }
    }

    /// The original byte `k` (1..=256) positions before the next one.
    #[inline(always)]
    fn back(&self, k: usize) -> u8 {
        self.history[usize::from(self.seen.wrapping_sub(k as u8))]
    }

    /// Remembers the last (up to 256) original bytes of a span just done.
    fn remember(&mut self, originals: &[u8]) {
        let keep = &originals[originals.len().saturating_sub(256)..];
        for &b in keep {
            self.history[usize::from(self.seen)] = b;
            self.seen = self.seen.wrapping_add(1);
        }
    }
}

impl Filter for Delta {
    fn filter(&mut self, buf: &mut [u8]) -> usize {
        let d = self.distance;
        let head = d.min(buf.len());
        if self.encode {
            // Subtract back to front, so every byte still sees the original
            // byte `d` earlier within the span; the first `d` bytes use the
            // history of earlier spans.
            let mut last = [0u8; 256];
            let keep = buf.len().min(256);
            last[..keep].copy_from_slice(&buf[buf.len() - keep..]);
            for i in (d..buf.len()).rev() {
                buf[i] = buf[i].wrapping_sub(buf[i - d]);
            }
            for (i, b) in buf[..head].iter_mut().enumerate() {
                *b = b.wrapping_sub(self.back(d - i));
            }
            self.remember(&last[..keep]);
        } else {
            // Front to back: each byte is restored before it is needed.
            for (i, b) in buf[..head].iter_mut().enumerate() {
                *b = b.wrapping_add(self.back(d - i));
            }
            if d == 1 {
                // A running sum: no per-byte indexing.
                let mut acc = buf.first().copied().unwrap_or(0);
                for b in buf.iter_mut().skip(1) {
                    acc = acc.wrapping_add(*b);
                    *b = acc;
                }
            } else if buf.len() > d {
                // Each `d`-byte chunk adds the finished chunk before it;
                // the inner loop has no dependency between lanes.
                let (first, rest) = buf.split_at_mut(d);
                let mut prev: &[u8] = first;
                for chunk in rest.chunks_mut(d) {
                    for (c, p) in chunk.iter_mut().zip(prev) {
                        *c = c.wrapping_add(*p);
                    }
                    prev = chunk;
                }
            }
            self.remember(buf);
        }
        buf.len()
    }
}
