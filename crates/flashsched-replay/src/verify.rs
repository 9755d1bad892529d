//! `verify`: every written block carries a stamp (magic, block number,
//! version, seed) and a payload derived from it, and every read is checked
//! against the versions it may legally see — the simulator's version oracle
//! on real hardware.
//!
//! Versions are counted per block in issue order. What the medium may hold
//! is always a contiguous range of versions `[lo, last]`: `lo` moves up to
//! the first write of an overlap group (writes to the block whose flights
//! overlap) once the whole group has completed, because the device may
//! have finished them in any order. A read may return any version from the
//! block's `lo` when it was issued up to the newest issued before it
//! completed (those were in flight together). Version 0 is the window's
//! initial stamp; a trim's version reads as zeros.

use std::collections::HashSet;

use crate::buf::mix;

const MAGIC: u64 = u64::from_le_bytes(*b"FSREPLAY");
/// Header: magic, block, version, seed, header check.
const HEADER: usize = 40;

/// Per-block version state (struct of arrays: a few bytes per block).
pub struct Oracle {
    pub seed: u64,
    align: usize,
    lo: Vec<u32>,
    last: Vec<u32>,
    group: Vec<u32>,
    inflight: Vec<u16>,
    /// (block, version) pairs written by a trim: they read as zeros.
    zeros: HashSet<(u32, u32)>,
    pub blocks_checked: u64,
    pub blocks_stamped: u64,
}

/// What a read saw in one block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    Version(u32),
    Zeros,
    /// A stamp of another block, seed, or a corrupt payload/header.
    Wrong(String),
}

fn word(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[i * 8..i * 8 + 8]);
    u64::from_le_bytes(w)
}

fn payload_word(seed: u64, block: u64, version: u32, i: usize) -> u64 {
    mix(seed ^ block.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ((version as u64) << 40) ^ i as u64)
}

impl Oracle {
    /// State for `blocks` blocks of `align` bytes, all at version 0.
    pub fn new(blocks: u64, align: u32, seed: u64) -> Oracle {
        let n = blocks as usize;
        Oracle {
            seed,
            align: align as usize,
            lo: vec![0; n],
            last: vec![0; n],
            group: vec![0; n],
            inflight: vec![0; n],
            zeros: HashSet::new(),
            blocks_checked: 0,
            blocks_stamped: 0,
        }
    }

    /// Write the stamp of `block` at `version` into `b` (one block).
    pub fn stamp(&self, b: &mut [u8], block: u64, version: u32) {
        let head = [
            MAGIC,
            block,
            version as u64,
            self.seed,
            mix(block ^ self.seed ^ version as u64),
        ];
        for (i, c) in b.chunks_exact_mut(8).enumerate() {
            let w = if i < head.len() {
                head[i]
            } else {
                payload_word(self.seed, block, version, i)
            };
            c.copy_from_slice(&w.to_le_bytes());
        }
    }

    /// What block `block`'s data `b` holds.
    pub fn decode(&self, b: &[u8], block: u64) -> Found {
        if b.iter().all(|&x| x == 0) {
            return Found::Zeros;
        }
        if b.len() < HEADER || word(b, 0) != MAGIC {
            return Found::Wrong("no stamp (foreign or corrupt data)".into());
        }
        let (blk, ver, seed) = (word(b, 1), word(b, 2), word(b, 3));
        if word(b, 4) != mix(blk ^ seed ^ ver) || ver > u32::MAX as u64 {
            return Found::Wrong("a corrupt stamp header".into());
        }
        if seed != self.seed {
            return Found::Wrong(format!("the stamp of another run (seed {seed})"));
        }
        if blk != block {
            return Found::Wrong(format!("the stamp of block {blk} (misplaced data)"));
        }
        let v = ver as u32;
        let bad = (HEADER / 8..b.len() / 8).find(|&i| word(b, i) != payload_word(seed, blk, v, i));
        match bad {
            Some(i) => Found::Wrong(format!(
                "version {v}'s stamp with a corrupt payload at byte {}",
                i * 8
            )),
            None => Found::Version(v),
        }
    }

    /// A write (or trim) of `blocks` was issued: give each its next version
    /// (returned per block, in order).
    pub fn issue_write(&mut self, first: u64, n: u64, trim: bool, versions: &mut Vec<u32>) {
        versions.clear();
        for b in first..first + n {
            let i = b as usize;
            self.last[i] += 1;
            let v = self.last[i];
            if self.inflight[i] == 0 {
                self.group[i] = v;
            }
            self.inflight[i] += 1;
            if trim {
                self.zeros.insert((b as u32, v));
            }
            versions.push(v);
        }
    }

    /// A write (or trim) of `blocks` completed.
    pub fn complete_write(&mut self, first: u64, n: u64) {
        for i in first as usize..(first + n) as usize {
            self.inflight[i] -= 1;
            if self.inflight[i] == 0 {
                self.lo[i] = self.group[i];
            }
        }
        self.blocks_stamped += n;
    }

    /// The oldest version each block of a read issued now may return.
    pub fn issue_read(&self, first: u64, n: u64, lows: &mut Vec<u32>) {
        lows.clear();
        lows.extend_from_slice(&self.lo[first as usize..(first + n) as usize]);
    }

    /// Check a completed read of blocks `first..` (data `data`, oldest
    /// versions `lows` from its issue). `Err((block offset, message))`.
    pub fn check_read(
        &mut self,
        first: u64,
        data: &[u8],
        lows: &[u32],
    ) -> Result<(), (u64, String)> {
        for (k, (b, &lo)) in data.chunks_exact(self.align).zip(lows).enumerate() {
            let blk = first + k as u64;
            let hi = self.last[blk as usize];
            self.blocks_checked += 1;
            let ok_zero = |o: &Self| (lo..=hi).any(|v| o.zeros.contains(&(blk as u32, v)));
            let range = if lo == hi {
                format!("{lo}")
            } else {
                format!("{lo}..={hi}")
            };
            let msg = match self.decode(b, blk) {
                Found::Version(v)
                    if (lo..=hi).contains(&v) && !self.zeros.contains(&(blk as u32, v)) =>
                {
                    continue
                }
                Found::Zeros if ok_zero(self) => continue,
                Found::Version(v) if v < lo => {
                    format!("holds stale version {v}; expected version {range}")
                }
                Found::Version(v) => format!("holds version {v}, expected {range}"),
                Found::Zeros => format!("holds zeros; expected version {range}"),
                Found::Wrong(w) => format!("holds {w}; expected version {range}"),
            };
            return Err((blk, msg));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_round_trip_and_corruption_is_named() {
        let o = Oracle::new(4, 512, 7);
        let mut b = vec![0u8; 512];
        o.stamp(&mut b, 2, 5);
        assert_eq!(o.decode(&b, 2), Found::Version(5));
        assert!(matches!(o.decode(&b, 3), Found::Wrong(m) if m.contains("block 2")));
        b[300] ^= 1;
        assert!(matches!(o.decode(&b, 2), Found::Wrong(m) if m.contains("byte 296")));
        let other = Oracle::new(4, 512, 8);
        let mut c = vec![0u8; 512];
        other.stamp(&mut c, 2, 5);
        assert!(matches!(o.decode(&c, 2), Found::Wrong(m) if m.contains("seed 8")));
    }

    /// Two overlapping writes may finish in either order, so both versions
    /// are acceptable afterwards; a later lone write narrows it to itself.
    #[test]
    fn version_ranges_follow_overlap_groups() {
        let mut o = Oracle::new(1, 512, 1);
        let mut v = Vec::new();
        let mut b = vec![0u8; 512];
        o.issue_write(0, 1, false, &mut v);
        assert_eq!(v, [1]);
        o.issue_write(0, 1, false, &mut v);
        assert_eq!(v, [2]);
        o.complete_write(0, 1);
        o.complete_write(0, 1);
        let mut lows = Vec::new();
        o.issue_read(0, 1, &mut lows);
        assert_eq!(lows, [1]);
        o.stamp(&mut b, 0, 1);
        assert!(o.check_read(0, &b, &lows).is_ok());
        o.stamp(&mut b, 0, 0);
        let e = o.check_read(0, &b, &lows).unwrap_err();
        assert!(e.1.contains("stale version 0"), "{}", e.1);
        o.issue_write(0, 1, false, &mut v);
        o.complete_write(0, 1);
        o.issue_read(0, 1, &mut lows);
        o.stamp(&mut b, 0, 2);
        assert!(
            o.check_read(0, &b, &lows).is_err(),
            "3 alone is on the medium now"
        );
        // A trim's version reads as zeros.
        o.issue_write(0, 1, true, &mut v);
        o.complete_write(0, 1);
        o.issue_read(0, 1, &mut lows);
        assert!(o.check_read(0, &[0u8; 512], &lows).is_ok());
    }
}
