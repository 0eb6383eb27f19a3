//! RISC-V BCJ (the XZ Utils 5.6 design): converts `JAL` with rd = x1 or x5,
//! and `AUIPC` immediately followed by a 32-bit instruction whose rs1 is the
//! AUIPC's rd (`AUIPC+JALR`, `AUIPC+ADDI`, loads, stores).
//!
//! * A converted `JAL` keeps its opcode and rd; its immediate field holds the
//!   absolute target, bits 20..1, in big-endian bit order.
//! * A converted pair becomes `AUIPC` with rd = x2 whose upper 20 bits hold
//!   the low 20 bits of the second instruction, followed by the absolute
//!   32-bit target in big-endian byte order. The original rd is recovered
//!   from the second instruction's rs1.
//! * Because `AUIPC x2` then has a meaning of its own, input that already
//!   looks like a converted pair is swapped the opposite way ("fake"
//!   conversion) so that the filter stays a bijection on arbitrary data.
//!
//! The instruction stream is scanned in 2-byte steps because of the C
//! (compressed) extension; encoding is always little endian.

use crate::Filter;

const AUIPC: u32 = 0x17;
/// rd = x2 in bits 11..7: marks a converted pair.
const RD_X2: u32 = 2 << 7;

pub(crate) struct RiscV {
    pos: u32,
    encode: bool,
}

impl RiscV {
    pub(crate) fn new(pos: u32, encode: bool) -> Self {
        RiscV { pos, encode }
    }
}

#[inline(always)]
fn read_le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[inline(always)]
fn read_be(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[inline(always)]
fn write(b: &mut [u8], at: usize, bytes: [u8; 4]) {
    b[at..at + 4].copy_from_slice(&bytes);
}

/// The J-type immediate (imm[20|10:1|11|19:12] in bits 31..12) as an offset.
#[inline(always)]
fn j_imm(ins: u32) -> u32 {
    (((ins >> 31) & 1) << 20)
        | (((ins >> 21) & 0x3FF) << 1)
        | (((ins >> 20) & 1) << 11)
        | (ins & 0x000F_F000)
}

/// Places bits 20..1 of `imm` in J-type order (bits 31..12).
#[inline(always)]
fn j_place(imm: u32) -> u32 {
    (((imm >> 20) & 1) << 31)
        | (((imm >> 1) & 0x3FF) << 21)
        | (((imm >> 11) & 1) << 20)
        | (imm & 0x000F_F000)
}

/// Bits 20..1 of `addr` in big-endian bit order in bits 31..12.
#[inline(always)]
fn jal_pack(addr: u32) -> u32 {
    (((addr >> 17) & 0xF) << 12) | (((addr >> 9) & 0xFF) << 16) | (((addr >> 1) & 0xFF) << 24)
}

/// Inverse of [`jal_pack`].
#[inline(always)]
fn jal_unpack(ins: u32) -> u32 {
    (((ins >> 12) & 0xF) << 17) | (((ins >> 16) & 0xFF) << 9) | (((ins >> 24) & 0xFF) << 1)
}

/// True when `ins2` can be the partner of an `AUIPC` whose rd is not x0/x2:
/// a 32-bit instruction (low opcode bits 11) whose rs1 equals that rd.
#[inline(always)]
fn pairs_with(auipc: u32, ins2: u32) -> bool {
    ins2 & 3 == 3 && (ins2 >> 15) & 0x1F == (auipc >> 7) & 0x1F
}

/// True when an `AUIPC` with rd x0/x2 looks like a converted pair: rd = x2,
/// the stored second instruction is 32-bit, and its rs1 (bits 31..27 here)
/// is neither x0 nor x2 (the encoder never converts those).
#[inline(always)]
fn is_converted_pair(auipc: u32) -> bool {
    let rs1 = auipc >> 27;
    auipc & 0x3FFF == (0x3000 | RD_X2 | AUIPC) && rs1 != 0 && rs1 != 2
}

/// `AUIPC` whose rd is neither x0 (landing pads) nor x2 (the marker).
#[inline(always)]
fn rd_is_plain(auipc: u32) -> bool {
    let rd = (auipc >> 7) & 0x1F;
    rd != 0 && rd != 2
}

impl Filter for RiscV {
    fn filter(&mut self, buf: &mut [u8]) -> usize {
        if buf.len() < 8 {
            return 0;
        }
        let last = buf.len() - 8;
        let mut i = 0;
        while i <= last {
            let b0 = buf[i];
            if b0 == 0xEF {
                // JAL with rd bit 0 set; rd must be x1 or x5.
                if buf[i + 1] & 0x0D != 0 {
                    i += 2;
                    continue;
                }
                let ins = read_le(buf, i);
                let pc = self.pos.wrapping_add(i as u32);
                let field = if self.encode {
                    jal_pack(j_imm(ins).wrapping_add(pc))
                } else {
                    j_place(jal_unpack(ins).wrapping_sub(pc))
                };
                write(buf, i, ((ins & 0xFFF) | field).to_le_bytes());
                i += 4;
            } else if u32::from(b0) & 0x7F == AUIPC {
                let ins = read_le(buf, i);
                let step = if rd_is_plain(ins) {
                    self.plain_auipc(buf, i, ins)
                } else {
                    self.marked_auipc(buf, i, ins)
                };
                i += step;
            } else {
                i += 2;
            }
        }
        self.pos = self.pos.wrapping_add(i as u32);
        i
    }
}

impl RiscV {
    /// `AUIPC` with an ordinary rd at `buf[i..]`; returns how far to step.
    fn plain_auipc(&self, buf: &mut [u8], i: usize, ins: u32) -> usize {
        let ins2 = read_le(buf, i + 4);
        if !pairs_with(ins, ins2) {
            // Skip far enough that the second word's first half cannot be
            // converted: that could turn this into a pair and desync.
            return 6;
        }
        let marker = AUIPC | RD_X2 | (ins2 << 12);
        if self.encode {
            // The target: AUIPC's upper immediate plus the second
            // instruction's sign-extended 12-bit immediate, made absolute.
            let addr = (ins & 0xFFFF_F000)
                .wrapping_add(((ins2 as i32) >> 20) as u32)
                .wrapping_add(self.pos.wrapping_add(i as u32));
            write(buf, i, marker.to_le_bytes());
            write(buf, i + 4, addr.to_be_bytes());
        } else {
            // Data that merely looks like a pair was swapped by the encoder's
            // "fake" step; swap it back (no sign extension, no address
            // conversion, little endian).
            let addr = (ins & 0xFFFF_F000).wrapping_add(ins2 >> 20);
            write(buf, i, marker.to_le_bytes());
            write(buf, i + 4, addr.to_le_bytes());
        }
        8
    }

    /// `AUIPC` with rd x0 or x2 at `buf[i..]`; returns how far to step.
    fn marked_auipc(&self, buf: &mut [u8], i: usize, ins: u32) -> usize {
        if !is_converted_pair(ins) {
            return 4;
        }
        let rs1 = ins >> 27;
        if self.encode {
            // Input that already has the converted shape: the inverse of the
            // decoder's fake step, so the decoder restores it exactly.
            let fake = read_le(buf, i + 4);
            let ins2 = (ins >> 12) | (fake << 20);
            let auipc = AUIPC | (rs1 << 7) | (fake & 0xFFFF_F000);
            write(buf, i, auipc.to_le_bytes());
            write(buf, i + 4, ins2.to_le_bytes());
        } else {
            let addr = read_be(buf, i + 4).wrapping_sub(self.pos.wrapping_add(i as u32));
            let ins2 = (ins >> 12) | (addr << 20);
            // AUIPC's part must make up for the sign of the low 12 bits.
            let auipc = AUIPC | (rs1 << 7) | (addr.wrapping_add(0x800) & 0xFFFF_F000);
            write(buf, i, auipc.to_le_bytes());
            write(buf, i + 4, ins2.to_le_bytes());
        }
        8
    }
}
