//! The binary-tree match finder split over two threads, so that one stream
//! encodes on two cores (as 7-Zip's `-mmt=2` does for one LZMA stream):
//!
//! * the **hash stage** runs on the encoder's thread, ahead of the
//!   encoder: for each new position it reads and updates the hash tables,
//!   records the two- and three-byte side matches and the tree's root;
//! * the **tree stage** runs on a thread of its own: it walks and relinks
//!   the binary tree from that root and sends every position's matches
//!   back, which the encoder takes in order.
//!
//! Each side keeps its own copy of the window; the encoder's side also
//! reads it for literals, reps and extending long matches. The tree
//! stage's copy holds the dictionary and little more: it is sent only the
//! bytes that the positions hashed read ([`tree_window`]).
//!
//! # Same bytes as one thread
//! A binary tree comes out the same whether a position is found or skipped
//! (skipping walks and relinks the tree exactly as finding does, it only
//! records nothing), so finding every position changes no later result.
//! What a find returns depends on the lookahead only below `nice_len`
//! bytes (`len_limit` is the smaller of the two). The encoder finds with at
//! least `KEEP_AFTER - OPTS` > `nice_len` bytes ahead, except when it
//! finishes or flushes, where it looks up to the end of its data. So the
//! hash stage takes a position once `nice_len` bytes follow it, or, when
//! the encoder finishes or flushes ([`Finder::mark_final`]), with whatever
//! follows it up to the end; the window bytes are sent before the
//! positions that read them and never more, so the tree stage sees the
//! same lookahead.
//!
//! Hash chains are not split: skipping a hash-chain position is one
//! store, so finding every position would cost more than it saves.

use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Mutex, OnceLock, PoisonError};

use lzflow_core::{Lease, Pool};

use super::{cyclic_slot, Finder, Match, CHECKED};
use crate::encoder_options::MatchFinder as Kind;

/// Positions per batch of results (and of hash records) at most.
const BATCH_POSITIONS: usize = 4096;
/// Batches the tree stage may have sent ahead of the encoder (8 cost
/// 0.4 MiB more peak RSS at preset 6, in the same time).
const BATCHES_AHEAD: usize = 4;
/// Positions the hash stage runs ahead of the encoder at most: bounds
/// the hash records in flight (about 10 bytes a position) whatever the
/// size of the encoder's input calls.
const HASH_AHEAD: u64 = 1 << 16;
/// Positions the encoder skips between checks that the hash stage is far
/// enough ahead (well below its reach).
pub(super) const HASH_AHEAD_STEP: usize = 1 << 14;
/// Window bytes per message at most.
const DATA_PIECE: usize = 64 << 10;
/// How many positions ahead the tree stage loads tree roots.
const AHEAD: u32 = 4;
/// Words of a batch's first lease: three a position, more than most hash
/// records take (two words, and two per side match).
const BATCH_WORDS: usize = 3 * BATCH_POSITIONS;
/// Idle batch buffers kept for all finder threads: what one encoder has in
/// flight (16 batches of hash records, [`HASH_AHEAD`] positions of two or
/// three words each; [`BATCHES_AHEAD`] result batches of up to a few
/// hundred KiB), so that a warm encode takes them all from here.
const IDLE_WORDS_BYTES: usize = 8 << 20;
/// Idle window pieces kept (about [`HASH_AHEAD`] bytes in flight).
const IDLE_PIECE_BYTES: usize = 1 << 20;

/// The tree stage's window for a dictionary of `dict_size` bytes: the
/// dictionary behind its position, and the bytes ahead of it that it may
/// have been sent (see `Finder::push_read`), plus room to fill
/// between moves of the history.
pub(crate) fn tree_window(dict_size: u32, nice_len: u32) -> usize {
    let ahead = HASH_AHEAD as usize + nice_len as usize + DATA_PIECE;
    dict_size as usize + 1 + ahead + tree_room(dict_size)
}

/// Bytes of batches in flight at most, for a tree search `depth`: hash
/// records of [`HASH_AHEAD`] positions (two words each, and two per side
/// match: at most two), and the result batches queued, being sent and being
/// read (per position one word and two per match: the side matches and
/// at most one per node walked).
pub(crate) fn in_flight(depth: u32) -> usize {
    let records = HASH_AHEAD as usize * 6 * 4;
    let per_position = 1 + 2 * (depth as usize + 2);
    records + (BATCHES_AHEAD + 2) * BATCH_POSITIONS * per_position * 4
}

/// Room to fill the tree stage's window between moves of the history: an
/// eighth of the dictionary, at least 1 MiB (so the history is moved at
/// most 8 times per byte coded: 0.3 % of a preset-6 encode's time), where
/// one thread keeps half the dictionary.
fn tree_room(dict_size: u32) -> usize {
    (dict_size as usize / 8).max(1 << 20)
}

/// Room to fill the encoder's window between moves of the history, with a
/// finder thread: half the tree stage's, since the encoder's thread has
/// time to spare while the tree stage walks (1 MiB less peak RSS at
/// preset 6, in the same time).
pub(crate) fn encoder_room(dict_size: u32) -> usize {
    (dict_size as usize / 16).max(512 << 10)
}

/// Flag of a hash record whose position is too close to the end to hash
/// (not indexed, no matches).
const NOT_INDEXED: u32 = 1 << 31;

/// What the encoder's side sends to the tree stage, in stream order.
enum Command {
    /// The next window bytes.
    Data(Lease<u8>),
    /// Hash records of the next positions: per position the tree's root,
    /// then the best side-match length, with the number of side matches
    /// `n` in bits 16.. (or [`NOT_INDEXED`]), then `n` pairs of length and
    /// encoded distance.
    Hashed(Lease<u32>),
    /// A new, independent stream starts.
    Reset,
}

/// Results for consecutive positions: per position its number of matches
/// `n`, then `n` pairs of length and encoded distance; tagged with the
/// stream generation they belong to.
struct Batch {
    generation: u64,
    words: Lease<u32>,
}

/// The pool of batch buffers (hash records and results), shared by every
/// finder thread: a buffer goes back to it when its reader drops it.
fn word_pool() -> Pool<u32> {
    static WORDS: OnceLock<Pool<u32>> = OnceLock::new();
    WORDS.get_or_init(|| Pool::new(IDLE_WORDS_BYTES)).clone()
}

/// The pool of window pieces on their way to a tree stage.
fn piece_pool() -> Pool<u8> {
    static PIECES: OnceLock<Pool<u8>> = OnceLock::new();
    PIECES.get_or_init(|| Pool::new(IDLE_PIECE_BYTES)).clone()
}

/// The encoder's end: the hash stage's output on its way out, and the
/// tree stage's results coming in.
pub(crate) struct FinderThread {
    commands: Sender<Command>,
    results: Only<Batch>,
    /// Where hash records come from (they go back when the tree stage
    /// drops them), and window pieces.
    words: Pool<u32>,
    pieces: Pool<u8>,
    /// Absolute position up to which window bytes were queued.
    sent_end: u64,
    /// Absolute position of the next position to hash.
    hashed: u64,
    /// The end of the window when the encoder last began to code to it
    /// (flush or finish): while it is still the end, positions are hashed
    /// with the lookahead up to it.
    final_at: Option<u64>,
    /// Hash records not sent yet, and how many positions they cover.
    records: Lease<u32>,
    record_positions: usize,
    /// Side matches of the position being hashed.
    side: Vec<Match>,
    /// The batch being read and the read position in it.
    batch: Lease<u32>,
    at: usize,
    generation: u64,
}

/// A receiver behind `&mut` only, so that the encoder holding it stays
/// `Sync` (a bare `Receiver` is not); never locked.
struct Only<T>(Mutex<Receiver<T>>);

impl<T> Only<T> {
    fn new(r: Receiver<T>) -> Self {
        Only(Mutex::new(r))
    }

    fn get(&mut self) -> &mut Receiver<T> {
        self.0.get_mut().unwrap_or_else(PoisonError::into_inner)
    }
}

impl std::fmt::Debug for FinderThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FinderThread").finish_non_exhaustive()
    }
}

impl FinderThread {
    /// Starts the tree stage on `tree` (a finder with only its tree and
    /// window); None if no thread can be started (the caller then finds
    /// by itself, with the same results).
    pub(crate) fn start(tree: Finder) -> Option<Self> {
        let (commands, command_rx) = mpsc::channel();
        let (result_tx, results) = mpsc::sync_channel(BATCHES_AHEAD);
        let words = word_pool();
        let stage = TreeStage {
            finder: tree,
            matches: Vec::new(),
            commands: command_rx,
            results: result_tx,
            words: words.clone(),
            generation: 0,
        };
        std::thread::Builder::new()
            .name("lzflow-lzma-mf".into())
            .spawn(move || stage.run())
            .ok()?;
        Some(FinderThread {
            commands,
            results: Only::new(results),
            records: words.lease(BATCH_WORDS),
            batch: words.lease(0),
            words,
            pieces: piece_pool(),
            sent_end: 0,
            hashed: 0,
            final_at: None,
            record_positions: 0,
            side: Vec::new(),
            at: 0,
            generation: 0,
        })
    }

    /// Sends the hash records gathered so far.
    fn push_records(&mut self) {
        if self.record_positions > 0 {
            let next = self.words.lease(BATCH_WORDS);
            let records = std::mem::replace(&mut self.records, next);
            self.record_positions = 0;
            // A send fails only if the thread is gone; `next` reports it.
            let _ = self.commands.send(Command::Hashed(records));
        }
    }

    /// Sends `bytes`, the window from `sent_end` on, in pieces.
    fn push_data(&mut self, bytes: &[u8]) {
        for piece in bytes.chunks(DATA_PIECE) {
            let mut v = self.pieces.lease(DATA_PIECE);
            v.extend_from_slice(piece);
            let _ = self.commands.send(Command::Data(v));
        }
        self.sent_end += bytes.len() as u64;
    }

    /// Starts a new stream: what is on its way is dropped.
    pub(crate) fn reset(&mut self) {
        // The tree stage walks every position hashed so far first (its
        // results are dropped), so that both halves reset from the same
        // state: a reset moves the position counters only if anything was
        // indexed.
        self.push_records();
        let _ = self.commands.send(Command::Reset);
        self.generation += 1;
        self.sent_end = 0;
        self.hashed = 0;
        self.final_at = None;
        self.records.clear();
        self.record_positions = 0;
        self.batch.clear();
        self.at = 0;
    }

    /// Waits until the current batch has a position left.
    fn fill_batch(&mut self) {
        while self.at == self.batch.len() {
            // The tree stage can only find what it has been sent.
            self.push_records();
            let batch = self
                .results
                .get()
                .recv()
                .expect("the match finder thread ended (a bug: it cannot fail)");
            // The batch read goes back to the pool; one of a stream
            // before the last reset is dropped unread.
            if batch.generation == self.generation {
                self.batch = batch.words;
                self.at = 0;
            }
        }
    }

    /// The matches at the next position, into `matches`.
    pub(crate) fn next(&mut self, matches: &mut Vec<Match>) {
        matches.clear();
        self.fill_batch();
        let n = self.batch[self.at] as usize;
        let pairs = &self.batch[self.at + 1..self.at + 1 + 2 * n];
        matches.extend(pairs.chunks_exact(2).map(|p| Match {
            len: p[0],
            dist: p[1],
        }));
        self.at += 1 + 2 * n;
    }

    /// Passes over the matches of the next `n` positions.
    pub(crate) fn skip(&mut self, n: usize) {
        for _ in 0..n {
            self.fill_batch();
            self.at += 1 + 2 * self.batch[self.at] as usize;
        }
    }
}

impl Finder {
    /// Marks the end of the window as the end the encoder codes to now and
    /// hashes towards it.
    pub(super) fn hash_final(&mut self) {
        let end = self.end();
        if let Some(t) = &mut self.thread {
            t.final_at = Some(end);
        }
        self.hash_ahead();
    }

    /// Hashes on if the hash stage is less than half its reach ahead of
    /// the encoder and has positions it may hash.
    #[inline]
    pub(super) fn top_up(&mut self) {
        let Some(t) = &self.thread else { return };
        let pos = self.pos();
        if t.hashed < self.hash_stop(t).min(pos + HASH_AHEAD / 2) {
            self.hash_ahead();
        }
    }

    /// Where hashing must stop for now: `nice_len` before the end, or at
    /// the end after [`hash_final`](Self::hash_final); never more than
    /// [`HASH_AHEAD`] past the encoder.
    fn hash_stop(&self, t: &FinderThread) -> u64 {
        let end = self.end();
        let stop = if t.final_at == Some(end) {
            end
        } else {
            (end + 1).saturating_sub(u64::from(self.nice_len))
        };
        stop.min(self.pos() + HASH_AHEAD)
    }

    /// The hash stage of a threaded finder: hashes the positions it may
    /// (see [`hash_stop`](Self::hash_stop)), queueing the window bytes
    /// they read and their records for the tree stage.
    pub(super) fn hash_ahead(&mut self) {
        match self.kind {
            Kind::Bt2 => self.hash_ahead_as::<2>(),
            Kind::Bt3 => self.hash_ahead_as::<3>(),
            _ => self.hash_ahead_as::<4>(),
        }
    }

    fn hash_ahead_as<const HB: u32>(&mut self) {
        let mut t = self.thread.take().expect("a threaded finder");
        let end = self.end();
        let stop = self.hash_stop(&t);
        while t.hashed < stop {
            let cur = (t.hashed - self.base) as usize;
            let avail = (end - t.hashed) as usize;
            if avail < HB as usize {
                // Too close to the end to hash; not indexed.
                t.records.extend_from_slice(&[0, NOT_INDEXED]);
            } else {
                self.dirty = true;
                let len_limit = avail.min(self.nice_len as usize);
                let (h2, h3, h) = self.hashes::<HB>(cur);
                t.side.clear();
                let best = self.side_tables::<HB>(cur, (h2, h3), len_limit, &mut t.side);
                let head = self.main[h];
                self.main[h] = self.pos32;
                let info = best as u32 | (t.side.len() as u32) << 16;
                t.records.extend_from_slice(&[head, info]);
                for m in &t.side {
                    t.records.extend_from_slice(&[m.len, m.dist]);
                }
            }
            self.advance_counters();
            t.hashed += 1;
            t.record_positions += 1;
            if t.record_positions == BATCH_POSITIONS {
                // The bytes these positions read go first.
                self.push_read(&mut t);
                t.push_records();
            }
        }
        self.push_read(&mut t);
        self.thread = Some(t);
    }

    /// Queues the window bytes that the positions hashed so far may read
    /// (up to `nice_len` bytes after the last of them), if not sent yet,
    /// with up to [`DATA_PIECE`] more so that pieces are not tiny; never
    /// past the end of the window: when finishing, the tree stage's
    /// lookahead must end where the encoder's does.
    ///
    /// So the tree stage is sent at most [`HASH_AHEAD`] positions,
    /// `nice_len` and [`DATA_PIECE`] bytes ahead of the encoder, which is
    /// never ahead of the tree stage: its window ([`tree_window`]) need
    /// hold no more.
    fn push_read(&self, t: &mut FinderThread) {
        let end = self.end();
        let read = end.min(t.hashed + u64::from(self.nice_len));
        if read > t.sent_end {
            let to = end.min(read + DATA_PIECE as u64);
            let from = (t.sent_end - self.base) as usize;
            t.push_data(&self.buf[from..(to - self.base) as usize]);
        }
    }
}

/// The tree stage's side.
struct TreeStage {
    finder: Finder,
    /// Matches of the position being walked.
    matches: Vec<Match>,
    commands: Receiver<Command>,
    results: SyncSender<Batch>,
    /// Where result batches come from.
    words: Pool<u32>,
    generation: u64,
}

impl TreeStage {
    /// Walks trees and sends matches until the encoder hangs up.
    fn run(mut self) {
        let mut words = self.words.lease(BATCH_WORDS);
        let mut positions = 0usize;
        loop {
            let command = match self.commands.try_recv() {
                Ok(c) => c,
                Err(_) => {
                    // Nothing more to do until the encoder says more: it may
                    // be waiting for these.
                    if positions > 0 && !self.send(&mut words, &mut positions) {
                        return;
                    }
                    match self.commands.recv() {
                        Ok(c) => c,
                        Err(_) => return,
                    }
                }
            };
            match command {
                Command::Data(v) => {
                    // History before the dictionary can go: the tree stage
                    // is never behind the encoder, which keeps at least
                    // that much, so this window has room where the
                    // encoder's had.
                    let keep = self
                        .finder
                        .pos()
                        .saturating_sub(u64::from(self.finder.cyclic_size));
                    let mut off = 0;
                    while off < v.len() {
                        let n = self.finder.fill(&v[off..], keep);
                        assert!(n > 0, "the tree stage's window is full");
                        off += n;
                    }
                }
                Command::Hashed(records) => {
                    let mut at = 0;
                    // A record `AHEAD` positions on, whose tree root is
                    // loaded early so that its cache miss overlaps the
                    // walks before it.
                    let (mut ahead, mut k) = (0, 0);
                    while at < records.len() {
                        while k <= AHEAD && ahead < records.len() {
                            self.touch_root(records[ahead], records[ahead + 1], k);
                            ahead += 2 + 2 * ((records[ahead + 1] >> 16) & 0x7FFF) as usize;
                            k += 1;
                        }
                        k -= 1;
                        at += self.tree_step(&records[at..], &mut words);
                        positions += 1;
                        if positions >= BATCH_POSITIONS && !self.send(&mut words, &mut positions) {
                            return;
                        }
                    }
                }
                Command::Reset => {
                    self.finder.reset();
                    words.clear();
                    positions = 0;
                    self.generation += 1;
                }
            }
        }
    }

    /// Loads the tree node at `head`, the root of the position `k` after
    /// `read_pos` (a prefetch: the value is not used).
    #[inline(always)]
    fn touch_root(&self, head: u32, info: u32, k: u32) {
        let f = &self.finder;
        if info & NOT_INDEXED != 0 {
            return;
        }
        let delta = f.pos32.wrapping_add(k).wrapping_sub(head);
        let cyc = f.cyclic_size;
        if delta >= cyc {
            return;
        }
        // `k` is far below `cyc` (at least DICT_SIZE_MIN + 1).
        let mut cpos = f.cyclic_pos + k;
        if cpos >= cyc {
            cpos -= cyc;
        }
        let slot = cyclic_slot(cpos, delta, cyc);
        std::hint::black_box(f.son[slot as usize * 2]);
    }

    /// The tree stage of the position at `read_pos`, from its hash record
    /// at the start of `record`: appends its matches to `words`; returns
    /// the record's length.
    // Out of line: inlined into `run`, the walk's state spilled to the
    // stack and the tree stage took 1.4x the one-thread finder's time.
    #[inline(never)]
    fn tree_step(&mut self, record: &[u32], words: &mut Vec<u32>) -> usize {
        let (f, matches) = (&mut self.finder, &mut self.matches);
        let (head, info) = (record[0], record[1]);
        if info & NOT_INDEXED != 0 {
            words.push(0);
            f.read_pos += 1;
            f.advance_counters();
            return 2;
        }
        f.dirty = true;
        let best = (info & 0xFFFF) as usize;
        let sides = (info >> 16) as usize;
        let len_limit = f.avail().min(f.nice_len as usize);
        let mark = words.len();
        words.push(0);
        matches.clear();
        matches.extend(record[2..2 + 2 * sides].chunks_exact(2).map(|p| Match {
            len: p[0],
            dist: p[1],
        }));
        let cur = f.read_pos;
        f.bt_search::<true, CHECKED>(cur, head, len_limit, best, matches);
        f.advance();
        words[mark] = matches.len() as u32;
        for m in matches.iter() {
            words.extend_from_slice(&[m.len, m.dist]);
        }
        2 + 2 * sides
    }

    /// Sends the batch in `words`; false if the encoder is gone.
    fn send(&mut self, words: &mut Lease<u32>, positions: &mut usize) -> bool {
        let next = self.words.lease(BATCH_WORDS);
        let batch = Batch {
            generation: self.generation,
            words: std::mem::replace(words, next),
        };
        *positions = 0;
        self.results.send(batch).is_ok()
    }
}
