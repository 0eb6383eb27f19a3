//! The optimal parser's search table ([`Opts`]): for each position of a
//! search, the cheapest known way to reach it ([`Opt`], [`Step`]). The
//! encoder state (`LzmaCore`) owns one; `optimum` fills and reads it.

use lzflow_core::{Lease, Pool};

use crate::model::MATCH_LEN_MAX;

/// How many positions one search may cover.
pub(crate) const OPTS: usize = 1 << 12;

/// How a position was reached from `from`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Step {
    /// One literal.
    #[default]
    Lit,
    /// Rep0 of length 1.
    ShortRep,
    /// Rep `index` over the whole distance to this position.
    Rep(u8),
    /// A match with this encoded distance.
    Match(u32),
    /// A literal, then rep0 for the rest.
    LitRep0,
    /// A rep (`back` < 4) or match (`back` - 4 = distance) of `len1` bytes,
    /// a literal, then rep0 for the rest.
    SymLitRep0 {
        /// Rep index, or match distance + 4.
        back: u32,
        /// Length of the first symbol.
        len1: u32,
    },
}

/// The cheapest known way to one position of the search.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Opt {
    pub(crate) price: u32,
    pub(crate) from: u32,
    pub(crate) step: Step,
    /// State and reps after reaching this position (valid once passed).
    pub(crate) state: u32,
    pub(crate) reps: [u32; 4],
}

/// Words of one entry of [`Opts`]: price, from, step (tag and two
/// values), state, four reps.
const OPT_WORDS: usize = 10;

/// The search table: one [`Opt`] per position, stored as `u32` words in a
/// lease from the global pool so that encoders reuse each other's tables.
/// All-zero words are `Opt::default()`.
#[derive(Debug)]
pub(crate) struct Opts(Lease<u32>);

impl Opts {
    /// A table of `n` default entries.
    pub(crate) fn new(n: usize) -> Self {
        Opts(Pool::<u32>::global().lease_zeroed(n * OPT_WORDS))
    }

    /// Number of entries.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.0.len() / OPT_WORDS
    }

    /// Whether entry `i` exists (no division by the entry size).
    #[inline(always)]
    pub(crate) fn holds(&self, i: usize) -> bool {
        i * OPT_WORDS < self.0.len()
    }

    /// Grows (or shrinks) to `n` entries; new ones are default.
    pub(crate) fn resize(&mut self, n: usize) {
        self.0.resize(n * OPT_WORDS, 0);
    }

    #[inline(always)]
    fn w(&self, i: usize) -> &[u32] {
        &self.0[i * OPT_WORDS..][..OPT_WORDS]
    }

    #[inline(always)]
    fn w_mut(&mut self, i: usize) -> &mut [u32] {
        &mut self.0[i * OPT_WORDS..][..OPT_WORDS]
    }

    #[inline(always)]
    pub(crate) fn price(&self, i: usize) -> u32 {
        self.0[i * OPT_WORDS]
    }

    #[inline(always)]
    pub(crate) fn set_price(&mut self, i: usize, p: u32) {
        self.0[i * OPT_WORDS] = p;
    }

    /// Sets how entry `i` is reached (not its price).
    #[inline(always)]
    pub(crate) fn set_from_step(&mut self, i: usize, from: usize, step: Step) {
        let (tag, a, b) = step_words(step);
        let w = self.w_mut(i);
        w[1] = from as u32;
        w[2] = tag;
        w[3] = a;
        w[4] = b;
    }

    /// Makes `from` + `step` the way to `at` if `price` beats the known one.
    #[inline(always)]
    pub(crate) fn relax(&mut self, at: usize, price: u32, from: usize, step: Step) {
        if price < self.price(at) {
            self.set_price(at, price);
            self.set_from_step(at, from, step);
        }
    }

    /// [`Opts::relax`] for the run of entries from `at`, entry `at + k`
    /// costing `base + prices[k]`: one bounds check for the whole run.
    #[inline(always)]
    pub(crate) fn relax_run(
        &mut self,
        at: usize,
        base: u32,
        prices: &[u32],
        from: usize,
        step: Step,
    ) {
        let (tag, a, b) = step_words(step);
        let run = &mut self.0[at * OPT_WORDS..(at + prices.len()) * OPT_WORDS];
        for (w, &p) in run.chunks_exact_mut(OPT_WORDS).zip(prices) {
            let p = base + p;
            if p < w[0] {
                w[..5].copy_from_slice(&[p, from as u32, tag, a, b]);
            }
        }
    }

    #[inline(always)]
    pub(crate) fn set_state(&mut self, i: usize, s: u32) {
        self.0[i * OPT_WORDS + 5] = s;
    }

    #[inline(always)]
    pub(crate) fn reps(&self, i: usize) -> [u32; 4] {
        let w = self.w(i);
        [w[6], w[7], w[8], w[9]]
    }

    #[inline(always)]
    pub(crate) fn set_reps(&mut self, i: usize, reps: [u32; 4]) {
        self.w_mut(i)[6..10].copy_from_slice(&reps);
    }

    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> Opt {
        let w = self.w(i);
        let step = match w[2] {
            0 => Step::Lit,
            1 => Step::ShortRep,
            2 => Step::Rep(w[3] as u8),
            3 => Step::Match(w[3]),
            4 => Step::LitRep0,
            _ => Step::SymLitRep0 {
                back: w[3],
                len1: w[4],
            },
        };
        Opt {
            price: w[0],
            from: w[1],
            step,
            state: w[5],
            reps: [w[6], w[7], w[8], w[9]],
        }
    }

    #[inline(always)]
    pub(crate) fn set(&mut self, i: usize, o: Opt) {
        self.set_price(i, o.price);
        self.set_from_step(i, o.from as usize, o.step);
        self.set_state(i, o.state);
        self.set_reps(i, o.reps);
    }
}

/// The tag and two values [`Opts`] stores for a step.
#[inline(always)]
fn step_words(step: Step) -> (u32, u32, u32) {
    match step {
        Step::Lit => (0, 0, 0),
        Step::ShortRep => (1, 0, 0),
        Step::Rep(r) => (2, u32::from(r), 0),
        Step::Match(d) => (3, d, 0),
        Step::LitRep0 => (4, 0, 0),
        Step::SymLitRep0 { back, len1 } => (5, back, len1),
    }
}

/// Entries the search table starts with: enough for the first position of
/// a search (a longest match); it grows, up to `OPTS + 1`, when a search
/// goes further.
pub(crate) const INITIAL_OPTS: usize = MATCH_LEN_MAX as usize + 2;
