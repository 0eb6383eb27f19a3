//! Coding one symbol: the decoder's and the encoder's walk through the
//! model, mirror images of each other.
//!
//! A symbol is looked up in the current context; if it is not there, an
//! escape is coded and the walk goes on in the suffix context with the
//! symbols already seen masked out, down to the order-0 context. An escape
//! from the order-0 context is the end marker.

use crate::arena::Arena;
use crate::variant::{Decoded, Variant};

use crate::model::{prob_after, Model};
use crate::range::{RangeDecoder, RangeEncoder, Source};

/// PPMd var. H with 7z's range coder.
pub(crate) enum H {}

impl Variant for H {
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
/// Reads at most `2 * (order + 2)` bytes from `src`: two per
/// normalisation, which happens once after the escape from each context
/// the walk leaves (at most `order + 1` of them, the order-0 one being the
/// end marker) and once after the symbol.
pub(crate) fn decode(m: &mut Model, rc: &mut RangeDecoder, src: &mut Source<'_>) -> Decoded {
    let mc = m.min_context;
    let c = m.arena.context(mc);
    let ns = u32::from(u16::from_le_bytes([c[0], c[1]]));
    if ns != 1 {
        let summ = u32::from(u16::from_le_bytes([c[2], c[3]]));
        let stats = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
        let count = rc.threshold(summ);
        match m.arena.find_by_count(stats, ns, count) {
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
        m.set_hi_bits_from_found();
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
            rc.range = bound;
            rc.normalize1(src);
            let sym = m.arena.symbol(Arena::one_state(mc)) as u8;
            m.update_bin();
            return Decoded::Byte(sym);
        }
        m.bin_miss(cell, pr);
        rc.code -= bound;
        rc.range -= bound;
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
        let ns = m.num_stats(mc);
        let hi = m.arena.masked_sum(stats, ns, &m.mask);
        let (see, esc) = m.make_esc_freq(num_masked);
        let total = hi + esc;
        let count = rc.threshold(total);
        if count < hi {
            let (s, lo) = m
                .arena
                .find_masked_by_count(stats, ns, count, &m.mask)
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
        m.see_mut(see).add(total);
        m.mask_context(mc);
    }
}

/// Encodes one symbol (a byte, or `None` for the end marker) and updates
/// the model.
pub(crate) fn encode(m: &mut Model, rc: &mut RangeEncoder, symbol: Option<u8>) {
    // Out of the byte range: the end marker matches no state.
    let symbol = symbol.map_or(u32::MAX, u32::from);
    let mc = m.min_context;
    let c = m.arena.context(mc);
    let ns = u32::from(u16::from_le_bytes([c[0], c[1]]));
    if ns != 1 {
        let summ = u32::from(u16::from_le_bytes([c[2], c[3]]));
        let stats = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
        rc.range /= summ;
        match m.arena.find_by_symbol(stats, ns, symbol) {
            (Some(s), lo) => {
                rc.encode(lo, m.arena.freq(s));
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
                rc.encode(sum, summ - sum);
            }
        }
        m.set_hi_bits_from_found();
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
            rc.range = bound;
            rc.normalize1();
            m.update_bin();
            return;
        }
        m.bin_miss(cell, pr);
        rc.encode_above(bound);
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
                .find_masked_by_symbol(stats, m.num_stats(mc), symbol, &m.mask);
        let total = unmasked + esc;
        rc.range /= total;
        if let Some((s, lo)) = found {
            m.see_mut(see).update();
            m.found_state = s;
            rc.encode(lo, m.arena.freq(s));
            rc.normalize();
            m.update2();
            return;
        }
        m.see_mut(see).add(total);
        rc.encode(unmasked, esc);
        m.mask_context(mc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decoder's resumability rests on the per-symbol byte bound.
    #[test]
    fn a_symbol_reads_at_most_two_bytes_per_order_plus_four() {
        for order in [2u32, 6, 64] {
            // Deep repeats, then a byte never seen: escapes through every
            // order; and a long run ending in a surprise (tiny ranges).
            let mut data = Vec::new();
            for i in 0..400u32 {
                data.extend_from_slice(
                    b"abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc",
                );
                data.push((i % 200) as u8 + 40);
            }
            data.extend(std::iter::repeat_n(b'z', 20_000));
            data.extend(0..=255u8);
            let mut m = Model::new(order, 1 << 16);
            let mut rc = RangeEncoder::new();
            for &b in &data {
                encode(&mut m, &mut rc, Some(b));
            }
            encode(&mut m, &mut rc, None);
            rc.flush();
            let stream = rc.out;

            let mut m = Model::new(order, 1 << 16);
            let mut rd = RangeDecoder::new(stream[..5].try_into().unwrap()).unwrap();
            let mut src = Source::new(&[], &stream[5..]);
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
                most <= 2 * (order as usize + 2),
                "order {order}: {most} bytes"
            );
        }
    }
}
