//! Coding one symbol with the var. I model: the decoder's and the
//! encoder's walk, mirror images of each other. An escape from the
//! order-0 context is the end marker.

use crate::arena::Arena;
use crate::variant::{Decoded, Variant};

use super::model::Model;
use super::range::{RangeDecoder, RangeEncoder};
use crate::model::{prob_after, BIN_SCALE};
use crate::range::Source;

/// PPMd var. I with the carryless range coder.
pub(crate) enum I {}

impl Variant for I {
    type Model = Model;
    type RangeDecoder = RangeDecoder;
    type RangeEncoder = RangeEncoder;

    #[inline]
    fn decode(m: &mut Model, rc: &mut RangeDecoder, src: &mut Source<'_>) -> Decoded {
        decode(m, rc, src)
    }

    #[inline]
    fn code(rc: &RangeDecoder) -> u32 {
        rc.code
    }

    #[inline]
    fn encode(m: &mut Model, rc: &mut RangeEncoder, symbol: Option<u8>) {
        encode(m, rc, symbol)
    }

    fn pending(rc: &mut RangeEncoder) -> &mut Vec<u8> {
        &mut rc.out
    }

    fn flush(rc: &mut RangeEncoder) {
        rc.flush()
    }
}

/// Decodes one symbol and updates the model.
///
/// Reads at most `MAX_NORM_BYTES * (order + 2)` bytes from `src`: one
/// normalisation after the escape from each context the walk leaves (at
/// most `order + 1`, the order-0 one being the end marker) and one after
/// the symbol.
pub(crate) fn decode(m: &mut Model, rc: &mut RangeDecoder, src: &mut Source<'_>) -> Decoded {
    let mc = m.min_context;
    let ns = m.num_stats(mc);
    if ns != 0 {
        let stats = m.arena.stats(mc);
        let summ = m.arena.summ_freq(mc).min(rc.range);
        let count = rc.threshold(summ);
        match m.arena.find_by_count(stats, ns + 1, count) {
            Ok((s, lo, f)) => {
                // Usually the next context: its cache miss overlaps the update.
                m.arena.prefetch(m.arena.successor(s));
                rc.decode(lo, f);
                rc.normalize(src);
                m.found_state = s;
                let sym = m.arena.symbol(s) as u8;
                if s == stats {
                    m.update1_0();
                } else {
                    m.prev_success = 0;
                    m.update1();
                }
                return Decoded::Byte(sym);
            }
            Err(_) if count >= summ => return Decoded::Error,
            Err(hi) => {
                m.prev_success = 0;
                rc.decode(hi, summ - hi);
            }
        }
        m.mask.fill(0xFF);
        m.mask_context(mc);
    } else {
        // Usually the next context: its cache miss overlaps the update.
        m.arena.prefetch(m.arena.successor(Arena::one_state(mc)));
        let cell = m.bin_summ_cell();
        let pr = m.bin_prob(cell);
        let bound = (rc.range >> 14) * pr;
        let pr = prob_after(pr);
        if rc.code < bound {
            m.bin_hit(cell, pr);
            rc.decode_below(bound);
            rc.normalize(src);
            let sym = m.arena.symbol(Arena::one_state(mc)) as u8;
            m.update_bin();
            return Decoded::Byte(sym);
        }
        m.bin_miss(cell, pr);
        rc.decode_above(bound, BIN_SCALE);
        m.mask.fill(0xFF);
        m.mask[m.arena.symbol(Arena::one_state(mc)) as usize] = 0;
    }

    loop {
        rc.normalize(src);
        let mut mc = m.min_context;
        let num_masked = m.num_stats(mc);
        loop {
            m.order_fall += 1;
            let suffix = m.arena.suffix(mc);
            if suffix == 0 {
                return Decoded::End;
            }
            mc = suffix;
            if m.num_stats(mc) != num_masked {
                break;
            }
        }
        m.min_context = mc;
        let stats = m.arena.stats(mc);
        let n = m.num_stats(mc) + 1;
        let hi = m.arena.masked_sum(stats, n, &m.mask);
        let (see, esc) = m.make_esc_freq(num_masked);
        let freq_sum = hi + esc;
        let total = freq_sum.min(rc.range);
        let count = rc.threshold(total);
        if count < hi {
            let (s, lo) = m
                .arena
                .find_masked_by_count(stats, n, count, &m.mask)
                .expect("count below the unmasked total");
            // After an escape too: the successor is where the model goes.
            m.arena.prefetch(m.arena.successor(s));
            rc.decode(lo, m.arena.freq(s));
            rc.normalize(src);
            m.see_mut(see).update();
            m.found_state = s;
            let sym = m.arena.symbol(s) as u8;
            m.update2();
            return Decoded::Byte(sym);
        }
        if count >= total {
            return Decoded::Error;
        }
        rc.decode(hi, total - hi);
        m.see_mut(see).add(freq_sum);
        m.mask_context(mc);
    }
}

/// Encodes one symbol (a byte, or `None` for the end marker) and updates
/// the model.
pub(crate) fn encode(m: &mut Model, rc: &mut RangeEncoder, symbol: Option<u8>) {
    // Out of the byte range: the end marker matches no state.
    let symbol = symbol.map_or(u32::MAX, u32::from);
    let mc = m.min_context;
    let ns = m.num_stats(mc);
    if ns != 0 {
        let stats = m.arena.stats(mc);
        let summ = m.arena.summ_freq(mc).min(rc.range);
        match m.arena.find_by_symbol(stats, ns + 1, symbol) {
            (Some(s), lo) => {
                rc.encode(lo, m.arena.freq(s), summ);
                rc.normalize();
                m.found_state = s;
                if s == stats {
                    m.update1_0();
                } else {
                    m.prev_success = 0;
                    m.update1();
                }
                return;
            }
            (None, sum) => {
                m.prev_success = 0;
                rc.encode(sum, summ - sum, summ);
            }
        }
        m.mask.fill(0xFF);
        m.mask_context(mc);
    } else {
        let cell = m.bin_summ_cell();
        let pr = m.bin_prob(cell);
        let bound = (rc.range >> 14) * pr;
        let pr = prob_after(pr);
        let one = Arena::one_state(mc);
        if m.arena.symbol(one) == symbol {
            m.bin_hit(cell, pr);
            rc.encode_below(bound);
            rc.normalize();
            m.update_bin();
            return;
        }
        m.bin_miss(cell, pr);
        rc.encode_above(bound, BIN_SCALE);
        m.mask.fill(0xFF);
        m.mask[m.arena.symbol(one) as usize] = 0;
    }

    loop {
        rc.normalize();
        let mut mc = m.min_context;
        let num_masked = m.num_stats(mc);
        loop {
            m.order_fall += 1;
            let suffix = m.arena.suffix(mc);
            if suffix == 0 {
                // The end marker is coded.
                return;
            }
            mc = suffix;
            if m.num_stats(mc) != num_masked {
                break;
            }
        }
        m.min_context = mc;
        let (see, esc) = m.make_esc_freq(num_masked);
        let stats = m.arena.stats(mc);
        let (found, unmasked) =
            m.arena
                .find_masked_by_symbol(stats, m.num_stats(mc) + 1, symbol, &m.mask);
        let freq_sum = unmasked + esc;
        let total = freq_sum.min(rc.range);
        if let Some((s, lo)) = found {
            m.see_mut(see).update();
            m.found_state = s;
            rc.encode(lo, m.arena.freq(s), total);
            rc.normalize();
            m.update2();
            return;
        }
        m.see_mut(see).add(freq_sum);
        rc.encode(unmasked, total - unmasked, total);
        m.mask_context(mc);
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::RestoreMethod;
    use super::super::range::MAX_NORM_BYTES;
    use super::*;

    /// The decoder's resumability rests on the per-symbol byte bound.
    #[test]
    fn a_symbol_reads_at_most_four_bytes_per_order_plus_two() {
        for (order, restore) in [
            (2u32, RestoreMethod::Restart),
            (6, RestoreMethod::CutOff),
            (16, RestoreMethod::Restart),
            (16, RestoreMethod::CutOff),
        ] {
            // Deep repeats, then a byte never seen: escapes through every
            // order; a long run ending in a surprise (tiny ranges); a small
            // model that keeps running out of memory.
            let mut data = Vec::new();
            for i in 0..400u32 {
                data.extend_from_slice(
                    b"abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc",
                );
                data.push((i % 200) as u8 + 40);
            }
            data.extend(std::iter::repeat_n(b'z', 20_000));
            data.extend(0..=255u8);
            let mut s = 5u32;
            data.extend((0..60_000).map(|_| {
                s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (s >> 24) as u8 % 7
            }));
            let mut m = Model::new(order, 1 << 16, restore);
            let mut rc = RangeEncoder::new();
            for &b in &data {
                encode(&mut m, &mut rc, Some(b));
            }
            encode(&mut m, &mut rc, None);
            rc.flush();
            let stream = rc.out;

            let mut m = Model::new(order, 1 << 16, restore);
            let mut rd = RangeDecoder::new(stream[..4].try_into().unwrap()).unwrap();
            let mut src = Source::new(&[], &stream[4..]);
            let mut most = 0;
            for &b in &data {
                let before = src.used().1;
                assert_eq!(decode(&mut m, &mut rd, &mut src), Decoded::Byte(b));
                most = most.max(src.used().1 - before);
            }
            let before = src.used().1;
            assert_eq!(decode(&mut m, &mut rd, &mut src), Decoded::End);
            most = most.max(src.used().1 - before);
            assert!(!src.overrun && rd.code == 0 && src.available() == 0);
            assert!(
                most <= MAX_NORM_BYTES * (order as usize + 2),
                "order {order}: {most} bytes"
            );
        }
    }
}
