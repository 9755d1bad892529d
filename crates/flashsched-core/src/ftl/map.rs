//! Page-mapping tables (logical→physical and physical→logical).
//!
//! Entries are stored bit-inverted so that "unmapped" ([`NONE`]) is all zero
//! bytes: a fresh table is one zeroed allocation, which the OS backs with
//! pages only when they are first written. Building a 512 GiB device is then
//! free, and resident memory follows the part of the device a run touches
//! (4 bytes per page of that part) instead of the whole geometry.

use std::ops::Range;

use super::NONE;

/// One direction of the page mapping.
#[derive(Debug, Clone)]
pub(crate) struct PageMap {
    /// `!entry` for each index (0 = unmapped).
    raw: Vec<u32>,
}

impl PageMap {
    /// A table of `n` unmapped entries (lazily zeroed memory).
    pub(crate) fn new(n: usize) -> PageMap {
        PageMap { raw: vec![0; n] }
    }

    #[inline]
    pub(crate) fn get(&self, i: u32) -> u32 {
        !self.raw[i as usize]
    }

    /// Hint that entry `i` will be read soon (a cache prefetch; no effect
    /// on results).
    #[inline(always)]
    pub(crate) fn prefetch(&self, i: u32) {
        if let Some(x) = self.raw.get(i as usize) {
            crate::engine::prefetch(x);
        }
    }

    #[inline]
    pub(crate) fn set(&mut self, i: u32, v: u32) {
        self.raw[i as usize] = !v;
    }

    /// Unmap every entry in `r`.
    pub(crate) fn clear(&mut self, r: Range<usize>) {
        self.raw[r].fill(!NONE);
    }

    /// Entries (mapped or not).
    pub(crate) fn len(&self) -> usize {
        self.raw.len()
    }

    /// Add `n` unmapped entries at the end (room for exactly those: the
    /// table is large, and a doubling would be counted nowhere).
    pub(crate) fn grow(&mut self, n: usize) {
        self.raw.reserve_exact(n);
        self.raw.resize(self.raw.len() + n, 0);
    }

    /// Entries of `r` in index order.
    pub(crate) fn range(&self, r: Range<usize>) -> impl Iterator<Item = u32> + '_ {
        self.raw[r].iter().map(|&x| !x)
    }

    /// All entries in index order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.range(0..self.raw.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_entries_are_unmapped_and_round_trip() {
        let mut m = PageMap::new(8);
        assert!(m.iter().all(|v| v == NONE));
        m.set(3, 0);
        m.set(4, 7);
        assert_eq!((m.get(3), m.get(4), m.get(5)), (0, 7, NONE));
        m.clear(3..5);
        assert!(m.iter().all(|v| v == NONE));
        assert_eq!(m.len(), 8);
    }
}
