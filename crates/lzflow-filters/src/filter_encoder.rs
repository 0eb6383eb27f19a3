//! An encoder adapter that applies a filter chain before another encoder.

use lzflow_core::{Encode, InBuf, OutBuf, Progress};

use crate::chain::Chain;
use crate::{Filter, MAX_TAIL};

/// Bytes of input filtered at a time.
const BUF_SIZE: usize = 16 << 10;

/// Wraps an encoder (usually LZMA2) and applies filters, in the encode
/// direction, to the input before handing it on.
///
/// Input is copied into a fixed 16 KiB buffer, allocated once per encoder,
/// and filtered there. [`flush`](Encode::flush) hands on every byte
/// the filters have decided; a BCJ filter may still hold back a few bytes
/// (at most 15) it cannot decide without the data that follows, so after a
/// flush those bytes are decodable only once more input or
/// [`finish`](Encode::finish) comes. `finish` passes that tail through
/// unchanged, exactly as the decoder expects.
pub struct FilterEncoder<E> {
    inner: E,
    chain: Chain,
    buf: Vec<u8>,
    /// Leading bytes of `buf` already taken by the inner encoder.
    start: usize,
    len: usize,
    /// `finish` has run the chain to the end of the stream.
    finishing: bool,
}

impl<E> FilterEncoder<E> {
    /// `filters` are in the order they are applied to the input, i.e. the
    /// XZ Filter Flags order without the final LZMA2.
    pub fn new(inner: E, filters: Vec<Box<dyn Filter>>) -> Self {
        let filters_len = filters.len();
        FilterEncoder {
            inner,
            chain: Chain::new(filters),
            buf: vec![0; buf_size(filters_len)],
            start: 0,
            len: 0,
            finishing: false,
        }
    }

    /// The inner encoder.
    pub fn get_ref(&self) -> &E {
        &self.inner
    }

    /// The inner encoder.
    pub fn get_mut(&mut self) -> &mut E {
        &mut self.inner
    }

    /// Gives back the inner encoder, dropping input not handed on yet.
    pub fn into_inner(self) -> E {
        self.inner
    }

    /// Starts over with new filters (for the next block), dropping input not
    /// handed on yet. Reset the inner encoder separately.
    pub fn reset(&mut self, filters: Vec<Box<dyn Filter>>) {
        let size = buf_size(filters.len());
        if self.buf.len() < size {
            self.buf.resize(size, 0);
        }
        self.chain.reset(filters);
        self.start = 0;
        self.len = 0;
        self.finishing = false;
    }
}

/// Room for new input beyond the tails the filters may hold back.
fn buf_size(filters: usize) -> usize {
    BUF_SIZE + MAX_TAIL * filters
}

impl<E: Encode> FilterEncoder<E> {
    /// Hands the decided bytes to the inner encoder; false when it stopped
    /// for lack of output space.
    fn feed(&mut self, output: &mut OutBuf<'_>) -> Result<bool, E::Error> {
        let ready = self.chain.ready(self.len);
        if self.start < ready {
            let mut input = InBuf::new(&self.buf[self.start..ready]);
            self.inner.encode(&mut input, output)?;
            self.start += input.pos();
        }
        Ok(self.start == ready)
    }
}

impl<E: Encode> Encode for FilterEncoder<E> {
    type Error = E::Error;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, E::Error> {
        if self.finishing {
            // Misuse after finish: let the inner encoder decide.
            return self.inner.encode(input, output);
        }
        loop {
            if !self.feed(output)? {
                return Ok(Progress::OutputFull);
            }
            if input.is_empty() {
                return Ok(Progress::NeedInput);
            }
            // Everything decided is handed on: keep only the undecided tail.
            self.buf.copy_within(self.start..self.len, 0);
            self.len -= self.start;
            self.chain.consume(self.start);
            self.start = 0;
            let n = input.len().min(self.buf.len() - self.len);
            self.buf[self.len..self.len + n].copy_from_slice(input.take(n));
            self.len += n;
            let len = self.len;
            self.chain.run(&mut self.buf[..len]);
        }
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, E::Error> {
        if !self.feed(output)? {
            return Ok(Progress::OutputFull);
        }
        self.inner.flush(output)
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, E::Error> {
        if !self.finishing {
            self.finishing = true;
            let len = self.len;
            self.chain.finish(&mut self.buf[..len]);
        }
        if !self.feed(output)? {
            return Ok(Progress::OutputFull);
        }
        self.inner.finish(output)
    }
}

impl<E: std::fmt::Debug> std::fmt::Debug for FilterEncoder<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilterEncoder")
            .field("inner", &self.inner)
            .field("filters", &self.chain.len())
            .field("buffered", &(self.len - self.start))
            .field("finishing", &self.finishing)
            .finish()
    }
}
