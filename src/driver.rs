//! The one driver every face runs: it steps a sans-I/O coder over byte
//! slices and reports `(consumed, produced, progress)`.
//!
//! The driver owns what is the same for every runtime: end of input, the
//! stream's end, sticky errors (bytes produced before an error are delivered
//! first, then the error, then the same error kind forever) and a guard
//! against a coder that stops making progress, so no face can hang.

use std::fmt;
use std::io;

use lzflow_core::{Decode, Encode, InBuf, OutBuf, Progress};

/// How many calls in a row may make no progress at all before the driver
/// declares the coder stuck. Coders may return once or twice without
/// progress while they change state; a long run means a bug, not data.
const MAX_IDLE_STEPS: u32 = 256;

/// What one coder call did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    /// Input bytes the coder took (they are its own now).
    pub consumed: usize,
    /// Output bytes written at the front of the output slice.
    pub produced: usize,
    /// Where the stream stands.
    pub progress: Progress,
}

impl Step {
    const ENDED: Step = Step {
        consumed: 0,
        produced: 0,
        progress: Progress::StreamEnd,
    };
}

/// The error returned by every call after a coder has failed. It carries
/// the kind and message of the original error, which was returned (with its
/// typed source) by the call that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StickyError {
    message: String,
}

impl fmt::Display for StickyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the stream failed earlier: {}", self.message)
    }
}

impl std::error::Error for StickyError {}

/// `e`'s message with its causes (each layer names only its own part),
/// for the sticky error's text.
fn chain_text(e: &io::Error) -> String {
    match e.get_ref() {
        Some(inner) => lzflow_core::error_chain_text(inner),
        None => e.to_string(),
    }
}

/// The state of a coder behind a face.
enum State {
    /// Still working.
    Active,
    /// Reported `StreamEnd`; every further call reports it again.
    Ended,
    /// An error is waiting to be returned: the failing call had produced
    /// output, which goes out first.
    Pending(io::Error),
    /// Failed; every call returns an error of this kind.
    Failed(io::ErrorKind, String),
}

/// A coder plus the state that makes it safe to drive from any face.
pub(crate) struct Driver<C> {
    coder: Option<C>,
    state: State,
    idle_steps: u32,
    /// True once any input was offered or output asked for; decides whether
    /// options may still replace the coder.
    started: bool,
    /// Bytes the coder took and made so far.
    total_in: u64,
    total_out: u64,
}

impl<C> fmt::Debug for Driver<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            State::Active => "active",
            State::Ended => "ended",
            State::Pending(_) | State::Failed(..) => "failed",
        };
        f.debug_struct("Driver")
            .field("state", &state)
            .field("started", &self.started)
            .finish()
    }
}

impl<C> Driver<C> {
    /// Drives `coder`.
    pub(crate) fn new(coder: C) -> Self {
        Driver {
            coder: Some(coder),
            state: State::Active,
            idle_steps: 0,
            started: false,
            total_in: 0,
            total_out: 0,
        }
    }

    /// Drives the coder `made` produced, or reports its construction error
    /// on the first call (faces are built infallibly, like async-compression's).
    pub(crate) fn from_result(made: io::Result<C>) -> Self {
        match made {
            Ok(coder) => Driver::new(coder),
            Err(e) => Driver {
                coder: None,
                state: State::Pending(e),
                idle_steps: 0,
                started: false,
                total_in: 0,
                total_out: 0,
            },
        }
    }

    /// True before the first call into the coder.
    /// Bytes the coder took so far.
    pub(crate) fn total_in(&self) -> u64 {
        self.total_in
    }

    /// Bytes the coder made so far.
    pub(crate) fn total_out(&self) -> u64 {
        self.total_out
    }

    pub(crate) fn is_fresh(&self) -> bool {
        !self.started
    }

    /// True after `StreamEnd`.
    pub(crate) fn is_ended(&self) -> bool {
        matches!(self.state, State::Ended)
    }

    /// The coder, unless its construction failed.
    pub(crate) fn coder(&self) -> Option<&C> {
        self.coder.as_ref()
    }

    /// Returns the stored error, if any, moving to the sticky state.
    fn check_failed(&mut self) -> io::Result<()> {
        match std::mem::replace(&mut self.state, State::Active) {
            State::Active => Ok(()),
            State::Ended => {
                self.state = State::Ended;
                Ok(())
            }
            State::Pending(e) => {
                self.state = State::Failed(e.kind(), chain_text(&e));
                Err(e)
            }
            State::Failed(kind, message) => {
                let e = io::Error::new(
                    kind,
                    StickyError {
                        message: message.clone(),
                    },
                );
                self.state = State::Failed(kind, message);
                Err(e)
            }
        }
    }

    /// Enters the sticky failed state and hands back `e` for this call.
    fn fail_now(&mut self, e: io::Error) -> io::Error {
        self.state = State::Failed(e.kind(), chain_text(&e));
        e
    }

    /// Runs one coder call and turns its result into a [`Step`], holding an
    /// error back while the call's output is delivered.
    fn run<E: Into<io::Error>>(
        &mut self,
        input: &[u8],
        last: bool,
        output: &mut [u8],
        call: impl FnOnce(&mut C, &mut InBuf<'_>, &mut OutBuf<'_>) -> Result<Progress, E>,
    ) -> io::Result<Step> {
        self.started = true;
        self.check_failed()?;
        if self.is_ended() {
            return Ok(Step::ENDED);
        }
        let Some(coder) = self.coder.as_mut() else {
            // Unreachable: a missing coder always comes with an error state.
            return Err(io::Error::other("lzflow: coder missing"));
        };
        let mut inb = InBuf::new(input).with_last(last);
        let mut outb = OutBuf::new(output);
        let result = call(coder, &mut inb, &mut outb);
        let (consumed, produced) = (inb.pos(), outb.pos());
        self.total_in += consumed as u64;
        self.total_out += produced as u64;
        let progress = match result {
            Ok(p) => p,
            Err(e) => {
                let e = e.into();
                if produced > 0 {
                    // Deliver what was produced; the error comes next call.
                    self.state = State::Pending(e);
                    return Ok(Step {
                        consumed,
                        produced,
                        progress: Progress::OutputFull,
                    });
                }
                return Err(self.fail_now(e));
            }
        };
        if progress == Progress::StreamEnd {
            self.state = State::Ended;
        } else if consumed == 0 && produced == 0 && !output.is_empty() {
            self.idle_steps += 1;
            if self.idle_steps > MAX_IDLE_STEPS {
                return Err(self.fail_now(io::Error::other(
                    "lzflow: the coder made no progress (this is a bug in lzflow)",
                )));
            }
        } else {
            self.idle_steps = 0;
        }
        Ok(Step {
            consumed,
            produced,
            progress,
        })
    }
}

impl<D: Decode> Driver<D>
where
    D::Error: Into<io::Error>,
{
    /// Decodes from `input` into `output`; `last` says no input follows.
    ///
    /// If the coder wants more input although `last` is set and it produced
    /// nothing, the stream is truncated: that is an `UnexpectedEof` error
    /// even if the coder forgot to say so.
    pub(crate) fn decode(
        &mut self,
        input: &[u8],
        last: bool,
        output: &mut [u8],
    ) -> io::Result<Step> {
        let step = self.run(input, last, output, |c, i, o| c.decode(i, o))?;
        if last
            && step.progress == Progress::NeedInput
            && step.produced == 0
            && step.consumed == input.len()
        {
            return Err(self.fail_now(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "compressed data ended before the end of the stream",
            )));
        }
        Ok(step)
    }
}

impl<E: Encode> Driver<E>
where
    E::Error: Into<io::Error>,
{
    /// Compresses from `input` into `output`.
    pub(crate) fn encode(&mut self, input: &[u8], output: &mut [u8]) -> io::Result<Step> {
        if self.is_ended() && !input.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "cannot write to an encoder after finishing it",
            ));
        }
        self.run(input, false, output, |c, i, o| c.encode(i, o))
    }

    /// Makes everything written so far decodable; done when the step's
    /// progress is `NeedInput`.
    pub(crate) fn flush(&mut self, output: &mut [u8]) -> io::Result<Step> {
        if self.is_ended() {
            // A finished stream is flushed by definition.
            return Ok(Step {
                progress: Progress::NeedInput,
                ..Step::ENDED
            });
        }
        self.run(&[], false, output, |c, _, o| c.flush(o))
    }

    /// Ends the stream; done when the step's progress is `StreamEnd`.
    pub(crate) fn finish(&mut self, output: &mut [u8]) -> io::Result<Step> {
        self.run(&[], true, output, |c, _, o| c.finish(o))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lzflow_core::{CoderError, Culprit};

    #[derive(Debug)]
    struct Bad;
    impl fmt::Display for Bad {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("bad data")
        }
    }
    impl std::error::Error for Bad {}
    impl CoderError for Bad {
        fn culprit(&self) -> Culprit {
            Culprit::Corrupt
        }
    }
    impl From<Bad> for io::Error {
        fn from(e: Bad) -> Self {
            lzflow_core::into_io_error(e)
        }
    }

    /// Copies input until it sees `0xFF`, which is an error; writes one byte
    /// of output before failing.
    struct Copier;
    impl Decode for Copier {
        type Error = Bad;
        fn decode(&mut self, i: &mut InBuf<'_>, o: &mut OutBuf<'_>) -> Result<Progress, Bad> {
            while o.available() > 0 {
                match i.take_byte() {
                    Some(0xFF) => return Err(Bad),
                    Some(0) => return Ok(Progress::StreamEnd),
                    Some(b) => {
                        o.push_byte(b);
                    }
                    None => return Ok(Progress::NeedInput),
                }
            }
            Ok(Progress::OutputFull)
        }
    }

    #[test]
    fn output_before_an_error_comes_first_then_the_error_sticks() {
        let mut d = Driver::new(Copier);
        let mut out = [0u8; 8];
        let step = d.decode(&[1, 2, 0xFF, 3], false, &mut out).unwrap();
        assert_eq!((step.consumed, step.produced), (3, 2));
        assert_eq!(&out[..2], &[1, 2]);
        let first = d.decode(&[3], false, &mut out).unwrap_err();
        assert_eq!(first.kind(), io::ErrorKind::InvalidData);
        assert!(first.get_ref().unwrap().is::<Bad>());
        let again = d.decode(&[3], false, &mut out).unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::InvalidData);
        assert!(again.get_ref().unwrap().is::<StickyError>());
        assert_eq!(again.to_string(), "the stream failed earlier: bad data");
    }

    #[test]
    fn end_is_reported_forever_and_truncation_is_an_eof_error() {
        let mut d = Driver::new(Copier);
        let mut out = [0u8; 8];
        let step = d.decode(&[5, 0, 9], false, &mut out).unwrap();
        assert_eq!(step.progress, Progress::StreamEnd);
        assert_eq!((step.consumed, step.produced), (2, 1));
        assert_eq!(d.decode(&[9], true, &mut out).unwrap(), Step::ENDED);

        let mut d = Driver::new(Copier);
        let step = d.decode(&[5], true, &mut out).unwrap();
        assert_eq!(step.produced, 1);
        let e = d.decode(&[], true, &mut out).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(
            d.decode(&[], true, &mut out).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
    }

    /// A broken coder that never moves.
    struct Stuck;
    impl Decode for Stuck {
        type Error = Bad;
        fn decode(&mut self, _: &mut InBuf<'_>, _: &mut OutBuf<'_>) -> Result<Progress, Bad> {
            Ok(Progress::OutputFull)
        }
    }

    #[test]
    fn a_coder_without_progress_becomes_an_error_not_a_hang() {
        let mut d = Driver::new(Stuck);
        let mut out = [0u8; 4];
        let mut calls = 0;
        let err = loop {
            calls += 1;
            match d.decode(&[1], false, &mut out) {
                Ok(_) => assert!(calls <= MAX_IDLE_STEPS + 1),
                Err(e) => break e,
            }
        };
        assert_eq!(calls, MAX_IDLE_STEPS + 1);
        assert_eq!(err.kind(), io::ErrorKind::Other);
    }

    #[test]
    fn construction_errors_surface_on_first_use() {
        let mut d: Driver<Copier> = Driver::from_result(Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "bad preset",
        )));
        let mut out = [0u8; 4];
        let e = d.decode(&[1], false, &mut out).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(e.to_string(), "bad preset");
        assert_eq!(
            d.decode(&[1], false, &mut out).unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
    }
}
