//! The two coder traits and the status they report.

use crate::InBuf;
use crate::OutBuf;

/// Where a coder stands after a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Every input byte offered was consumed (or held internally) and more is
    /// needed to go on. For [`Encode::flush`], the flush is complete.
    NeedInput,
    /// The call stopped because the output space or the per-call batch cap
    /// ran out. Call again with room; no new input is needed first.
    OutputFull,
    /// The stream is complete: everything has been produced and verified.
    /// Unconsumed input (if any) belongs to whatever follows the stream.
    StreamEnd,
}

/// A sans-I/O decoder.
///
/// Contract:
/// * Bytes consumed from `input` are the decoder's; it never asks for them
///   again. This is what makes async callers cancellation-safe.
/// * Output and errors do not depend on how the input is split.
/// * When `input.is_last()` and the stream is incomplete, the decoder
///   returns its layer's truncation error rather than `NeedInput`.
/// * After an error the decoder stays failed and returns an error again.
pub trait Decode {
    /// The layer's error type.
    type Error;

    /// Consume from `input`, produce into `output`, report where the stream
    /// stands.
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, Self::Error>;

    /// After [`Progress::StreamEnd`]: how many of the input bytes taken lie
    /// past the stream's end. Most decoders stop exactly at the end (0, the
    /// default). One that holds input to resume without rollback (PPMd)
    /// may have taken more when the input came in pieces; a container that
    /// finds what follows the stream by where its decoder stopped (a zip
    /// data descriptor, read forward-only) gives these bytes again.
    fn unused_after_end(&self) -> usize {
        0
    }
}

/// The coder contract's "after an error the coder stays failed": a coder
/// keeps its first error here and gives it back on every later call.
#[derive(Debug, Clone)]
pub struct Sticky<E>(Option<E>);

impl<E> Default for Sticky<E> {
    fn default() -> Self {
        Sticky(None)
    }
}

impl<E: Clone> Sticky<E> {
    /// `Err` with the kept error once there is one.
    pub fn check(&self) -> Result<(), E> {
        match &self.0 {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Passes `r` on, keeping its error if it is the first.
    pub fn record<T>(&mut self, r: Result<T, E>) -> Result<T, E> {
        if let (Err(e), None) = (&r, &self.0) {
            self.0 = Some(e.clone());
        }
        r
    }

    /// Forgets the error (a coder reset for a new stream).
    pub fn clear(&mut self) {
        self.0 = None;
    }
}

/// A sans-I/O encoder; mirrors [`Decode`].
pub trait Encode {
    /// The layer's error type.
    type Error;

    /// Consume from `input` and produce compressed bytes into `output`.
    /// Returns [`Progress::NeedInput`] when all input was taken and
    /// [`Progress::OutputFull`] when output room ran out first.
    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, Self::Error>;

    /// Make every byte given so far decodable from the output. Returns
    /// [`Progress::OutputFull`] until done, then [`Progress::NeedInput`].
    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, Self::Error>;

    /// End the stream: write everything pending and the trailer. Returns
    /// [`Progress::OutputFull`] until done, then [`Progress::StreamEnd`];
    /// calling it again after that produces nothing and returns `StreamEnd`.
    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, Self::Error>;
}

/// Runs `enc` over all of `data` and finishes the stream, appending the
/// output to `out` through `scratch` (any non-empty size): for callers that
/// hold a whole input in memory.
pub fn encode_to_end<E: Encode + ?Sized>(
    enc: &mut E,
    data: &[u8],
    out: &mut Vec<u8>,
    scratch: &mut [u8],
) -> Result<(), E::Error> {
    encode_input(enc, data, out, scratch)?;
    finish_output(enc, out, scratch)
}

/// Runs `enc` over all of `data`, appending the output to `out` through
/// `scratch` (any non-empty size); the stream stays open for more input.
pub fn encode_input<E: Encode + ?Sized>(
    enc: &mut E,
    data: &[u8],
    out: &mut Vec<u8>,
    scratch: &mut [u8],
) -> Result<(), E::Error> {
    let mut input = InBuf::new(data);
    loop {
        let mut o = OutBuf::new(scratch);
        let p = enc.encode(&mut input, &mut o)?;
        out.extend_from_slice(o.written());
        if p == Progress::NeedInput {
            return Ok(());
        }
    }
}

/// Ends the stream of `enc`, appending the rest of its output to `out`
/// through `scratch` (any non-empty size).
pub fn finish_output<E: Encode + ?Sized>(
    enc: &mut E,
    out: &mut Vec<u8>,
    scratch: &mut [u8],
) -> Result<(), E::Error> {
    loop {
        let mut o = OutBuf::new(scratch);
        let p = enc.finish(&mut o)?;
        out.extend_from_slice(o.written());
        if p == Progress::StreamEnd {
            return Ok(());
        }
    }
}

impl<D: Decode + ?Sized> Decode for Box<D> {
    type Error = D::Error;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, Self::Error> {
        (**self).decode(input, output)
    }
    fn unused_after_end(&self) -> usize {
        (**self).unused_after_end()
    }
}

impl<E: Encode + ?Sized> Encode for Box<E> {
    type Error = E::Error;
    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, Self::Error> {
        (**self).encode(input, output)
    }
    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, Self::Error> {
        (**self).flush(output)
    }
    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, Self::Error> {
        (**self).finish(output)
    }
}

impl<E: Encode + ?Sized> Encode for &mut E {
    type Error = E::Error;
    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, Self::Error> {
        (**self).encode(input, output)
    }
    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, Self::Error> {
        (**self).flush(output)
    }
    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, Self::Error> {
        (**self).finish(output)
    }
}

/// A coder of one layer seen with another layer's error type `E`: each
/// error converts with `Into`. How a container chains coders of the layers
/// below it.
pub struct ErrInto<C, E> {
    inner: C,
    to: std::marker::PhantomData<fn() -> E>,
}

impl<C, E> ErrInto<C, E> {
    /// Wraps `inner`.
    pub fn new(inner: C) -> Self {
        ErrInto {
            inner,
            to: std::marker::PhantomData,
        }
    }
}

impl<C: std::fmt::Debug, E> std::fmt::Debug for ErrInto<C, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

impl<D: Decode, E> Decode for ErrInto<D, E>
where
    D::Error: Into<E>,
{
    type Error = E;
    fn decode(&mut self, input: &mut InBuf<'_>, output: &mut OutBuf<'_>) -> Result<Progress, E> {
        self.inner.decode(input, output).map_err(Into::into)
    }
    fn unused_after_end(&self) -> usize {
        self.inner.unused_after_end()
    }
}

impl<C: Encode, E> Encode for ErrInto<C, E>
where
    C::Error: Into<E>,
{
    type Error = E;
    fn encode(&mut self, input: &mut InBuf<'_>, output: &mut OutBuf<'_>) -> Result<Progress, E> {
        self.inner.encode(input, output).map_err(Into::into)
    }
    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, E> {
        self.inner.flush(output).map_err(Into::into)
    }
    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, E> {
        self.inner.finish(output).map_err(Into::into)
    }
}

#[cfg(test)]
mod sticky_tests {
    use super::Sticky;

    #[test]
    fn the_first_error_comes_back_until_cleared() {
        let mut s = Sticky::<&str>::default();
        assert_eq!(s.check(), Ok(()));
        assert_eq!(s.record(Ok::<u8, _>(1)), Ok(1));
        assert_eq!(s.record(Err::<u8, _>("first")), Err("first"));
        assert_eq!(s.record(Err::<u8, _>("second")), Err("second"));
        assert_eq!(s.check(), Err("first"));
        s.clear();
        assert_eq!(s.check(), Ok(()));
    }
}
