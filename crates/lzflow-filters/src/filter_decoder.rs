//! A decoder adapter that undoes a filter chain on another decoder's output.

use lzflow_core::{Decode, InBuf, OutBuf, Progress};

use crate::chain::Chain;
use crate::{Filter, MAX_TAIL};

/// Room in the staging buffer beyond the held-back tails; also the least
/// output space for which the inner decoder writes straight into the
/// caller's buffer.
const STAGE_ROOM: usize = 1024;

/// Wraps a decoder (usually LZMA2) and applies filters, in the decode
/// direction, to what it produces.
///
/// Large outputs are decoded and filtered in place in the caller's buffer;
/// the few bytes a filter cannot decide yet are held back in a small
/// fixed-size buffer and delivered first on the next call. Small outputs
/// (down to one byte) go through that buffer. When the inner decoder reports
/// the end of its stream, the held-back bytes are finished and delivered.
pub struct FilterDecoder<D> {
    inner: D,
    chain: Chain,
    /// Held-back bytes first (`..len`), then room for small-output decoding.
    stage: Vec<u8>,
    len: usize,
    /// The inner stream ended and the chain was finished.
    ended: bool,
}

impl<D> FilterDecoder<D> {
    /// `filters` are in the order they are applied to the inner decoder's
    /// output, i.e. the reverse of the XZ Filter Flags order.
    pub fn new(inner: D, filters: Vec<Box<dyn Filter>>) -> Self {
        let stage = vec![0; stage_size(filters.len())];
        FilterDecoder {
            inner,
            chain: Chain::new(filters),
            stage,
            len: 0,
            ended: false,
        }
    }

    /// The inner decoder.
    pub fn get_ref(&self) -> &D {
        &self.inner
    }

    /// The inner decoder, e.g. to reset it for a new block.
    pub fn get_mut(&mut self) -> &mut D {
        &mut self.inner
    }

    /// Gives back the inner decoder, dropping any held-back bytes.
    pub fn into_inner(self) -> D {
        self.inner
    }

    /// Starts over with new filters (for the next block), dropping any
    /// held-back bytes. Reset the inner decoder separately.
    pub fn reset(&mut self, filters: Vec<Box<dyn Filter>>) {
        let size = stage_size(filters.len());
        if self.stage.len() < size {
            self.stage.resize(size, 0);
        }
        self.chain.reset(filters);
        self.len = 0;
        self.ended = false;
    }

    /// Copies final bytes from the staging buffer into `output`; returns
    /// false when some of them did not fit.
    fn deliver(&mut self, output: &mut OutBuf<'_>) -> bool {
        let ready = self.chain.ready(self.len);
        if ready == 0 {
            return true;
        }
        let n = output.push(&self.stage[..ready]);
        self.stage.copy_within(n..self.len, 0);
        self.len -= n;
        self.chain.consume(n);
        n == ready
    }
}

fn stage_size(filters: usize) -> usize {
    STAGE_ROOM + MAX_TAIL * filters
}

impl<D: Decode> FilterDecoder<D> {
    /// Decodes straight into the caller's buffer and filters there.
    fn decode_in_place(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, D::Error> {
        let start = output.pos();
        output.push(&self.stage[..self.len]);
        self.len = 0;
        let res = self.inner.decode(input, output);
        let (buf, end) = output.parts_mut();
        let window = &mut buf[start..end];
        let ready = if let Ok(Progress::StreamEnd) = res {
            self.ended = true;
            self.chain.finish(window)
        } else {
            self.chain.run(window)
        };
        let hold = window.len() - ready;
        self.stage[..hold].copy_from_slice(&window[ready..]);
        self.len = hold;
        self.chain.consume(ready);
        output.retreat(hold);
        res
    }

    /// Decodes into the staging buffer, for outputs too small to hold the
    /// held-back bytes plus a useful amount of new data.
    fn decode_staged(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, D::Error> {
        loop {
            let mut space = OutBuf::new(&mut self.stage[self.len..]);
            let res = self.inner.decode(input, &mut space);
            let stage_full = space.is_full();
            self.len += space.pos();
            let window = &mut self.stage[..self.len];
            if let Ok(Progress::StreamEnd) = res {
                self.ended = true;
                self.chain.finish(window);
            } else {
                self.chain.run(window);
            }
            if !self.deliver(output) {
                // An error waits until the bytes before it are delivered;
                // the failed inner decoder reports it again next call.
                return Ok(Progress::OutputFull);
            }
            match res? {
                Progress::StreamEnd => return Ok(Progress::StreamEnd),
                // Only the staging buffer was full: go on while the caller
                // has room.
                Progress::OutputFull if stage_full && !output.is_full() => continue,
                p => return Ok(p),
            }
        }
    }
}

impl<D: Decode> Decode for FilterDecoder<D> {
    type Error = D::Error;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, D::Error> {
        if !self.deliver(output) {
            return Ok(Progress::OutputFull);
        }
        if self.ended {
            return Ok(Progress::StreamEnd);
        }
        if output.available() >= self.len + STAGE_ROOM {
            self.decode_in_place(input, output)
        } else {
            self.decode_staged(input, output)
        }
    }
}

impl<D: std::fmt::Debug> std::fmt::Debug for FilterDecoder<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilterDecoder")
            .field("inner", &self.inner)
            .field("filters", &self.chain.len())
            .field("held_back", &self.len)
            .field("ended", &self.ended)
            .finish()
    }
}
