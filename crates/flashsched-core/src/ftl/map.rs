//! Page-mapping tables (logical→physical and physical→logical).
//!
//! Entries are stored bit-inverted so that "unmapped" ([`NONE`]) is all zero
//! bytes: a fresh table is one zeroed allocation, which the OS backs with
//! pages only when they are first written. Building a 512 GiB device is then
//! free, and resident memory follows the part of the device a run touches
//! (4 bytes per page of that part) instead of the whole geometry.
//!
//! A memory page of a table is first touched by a write, never a read:
//! read first, the OS maps its shared page of zeros there, and the write
//! that follows (a lookup finds a page unmapped, then places or programs
//! it) must swap that mapping out, which flushes the TLB of every CPU
//! running one of the process's threads. With a record writer or trace
//! reader running beside the simulation that was an interrupt to the
//! other core per 4 KiB of table: ~2,200 in a 1M-request random trace,
//! ~50 ms with a thread busy on that core (BENCHMARKS.md, session 49).

use std::ops::Range;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use super::NONE;

/// Entries per 4 KiB memory page.
const PAGE_ENTRIES_LOG2: u32 = 10;

/// One direction of the page mapping.
#[derive(Debug)]
pub(crate) struct PageMap {
    /// `!entry` for each index (0 = unmapped). Atomic only so that a read
    /// (`&self`) may touch a memory page first, with a write; every other
    /// access is a plain load or store.
    raw: Vec<AtomicU32>,
    /// One bit per memory page of `raw` that a read has touched (a hint that
    /// saves touching it again; a page written first needs no touch).
    touched: Vec<AtomicU64>,
    /// Entries of `raw`'s first memory page before `raw[0]`.
    skew: usize,
}

impl PageMap {
    /// A table of `n` unmapped entries (lazily zeroed memory).
    pub(crate) fn new(n: usize) -> PageMap {
        PageMap::from_raw(zeroed(n))
    }

    /// A table of the entries `raw`, no page marked touched.
    fn from_raw(raw: Vec<AtomicU32>) -> PageMap {
        let skew = (raw.as_ptr() as usize & 4095) / 4;
        let words = ((skew + raw.len()) >> PAGE_ENTRIES_LOG2) / 64 + 1;
        PageMap {
            raw,
            touched: (0..words).map(|_| AtomicU64::new(0)).collect(),
            skew,
        }
    }

    #[inline]
    pub(crate) fn get(&self, i: u32) -> u32 {
        let e = &self.raw[i as usize];
        let page = (self.skew + i as usize) >> PAGE_ENTRIES_LOG2;
        let word = &self.touched[page / 64];
        let bit = 1 << (page % 64);
        if word.load(Relaxed) & bit == 0 {
            touch(e, word, bit);
        }
        !e.load(Relaxed)
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
        *self.raw[i as usize].get_mut() = !v;
    }

    /// Set entry `i` through a shared reference, for builds that share
    /// a table among threads, each writing its own entries (a relaxed
    /// store: a plain store on the hardware).
    #[inline]
    pub(crate) fn store(&self, i: u32, v: u32) {
        self.raw[i as usize].store(!v, Relaxed);
    }

    /// [`PageMap::store`] the `n` entries from `i` on, the `j`-th `f(j)`.
    #[inline]
    pub(crate) fn store_each(&self, i: u32, n: usize, mut f: impl FnMut(usize) -> u32) {
        let i = i as usize;
        for (j, e) in self.raw[i..i + n].iter().enumerate() {
            e.store(!f(j), Relaxed);
        }
    }

    /// Unmap every entry in `r`.
    pub(crate) fn clear(&mut self, r: Range<usize>) {
        for e in &mut self.raw[r] {
            *e.get_mut() = !NONE;
        }
    }

    /// Entries (mapped or not).
    pub(crate) fn len(&self) -> usize {
        self.raw.len()
    }

    /// Add `n` unmapped entries at the end (room for exactly those: the
    /// table is large, and a doubling would be counted nowhere). It may
    /// move, so no page counts as touched any more.
    pub(crate) fn grow(&mut self, n: usize) {
        let mut raw = std::mem::take(&mut self.raw);
        raw.reserve_exact(n);
        raw.resize_with(raw.len() + n, || AtomicU32::new(0));
        *self = PageMap::from_raw(raw);
    }

    /// Entries of `r` in index order.
    pub(crate) fn range(&self, r: Range<usize>) -> impl Iterator<Item = u32> + '_ {
        self.raw[r].iter().map(|x| !x.load(Relaxed))
    }

    /// All entries in index order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.range(0..self.raw.len())
    }
}

impl Clone for PageMap {
    fn clone(&self) -> PageMap {
        PageMap::from_raw(
            self.raw
                .iter()
                .map(|x| AtomicU32::new(x.load(Relaxed)))
                .collect(),
        )
    }
}

/// Touch `e`'s memory page with a write that leaves `e` as it is, and mark
/// it in `word`. A compare-exchange of zero for zero: one access, which
/// the CPU makes as a write whether or not it stores (an idempotent
/// add or or would be compiled to a plain load).
#[cold]
#[inline(never)]
fn touch(e: &AtomicU32, word: &AtomicU64, bit: u64) {
    let _ = e.compare_exchange(0, 0, Relaxed, Relaxed);
    word.fetch_or(bit, Relaxed);
}

/// `n` zero entries in a zeroed allocation (the OS supplies the zeros as
/// pages are touched).
fn zeroed(n: usize) -> Vec<AtomicU32> {
    let mut v = std::mem::ManuallyDrop::new(vec![0u32; n]);
    // SAFETY: `AtomicU32` has the size and alignment of `u32` (as its
    // documentation guarantees) and 0 is a valid value of both, so the
    // allocation, length and capacity of `v` describe a `Vec<AtomicU32>`;
    // `v` is not used or dropped again.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<AtomicU32>(), v.len(), v.capacity()) }
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

    /// Reads touch memory pages with a write that keeps what is there:
    /// whatever mix of reads, writes, range unmaps and growth, every entry
    /// reads as a plain table's does (a touch that stored a zero over a
    /// written entry would not).
    #[test]
    fn entries_match_a_plain_table_whatever_touches_them_first() {
        let mut rng = crate::rng::Rng::new(7);
        let mut m = PageMap::new(3000);
        let mut plain = vec![NONE; 3000];
        for step in 0..4000 {
            let i = rng.below(plain.len() as u64) as usize;
            match rng.below(100) {
                0..=49 => assert_eq!(m.get(i as u32), plain[i], "entry {i} at step {step}"),
                50..=89 => {
                    let v = rng.below(1 << 20) as u32;
                    m.set(i as u32, v);
                    plain[i] = v;
                }
                90..=97 => {
                    let end = (i + rng.below(3000) as usize).min(plain.len());
                    m.clear(i..end);
                    plain[i..end].fill(NONE);
                }
                _ => {
                    // Small growth moves a small table (its offset in a
                    // memory page changes).
                    let n = rng.below(if step < 2000 { 700 } else { 50_000 }) as usize;
                    let _elsewhere = vec![1u8; rng.below(3000) as usize];
                    m.grow(n);
                    plain.resize(plain.len() + n, NONE);
                }
            }
        }
        assert!(m.iter().eq(plain.iter().copied()));
        assert!(m.clone().iter().eq(plain.iter().copied()));
    }

    /// A read marks its own memory page touched, and only that page; a
    /// write marks none (it touches the page itself).
    #[test]
    fn a_read_marks_just_its_own_memory_page() {
        let mut m = PageMap::new(10_000);
        let page = |m: &PageMap, i: usize| (m.skew + i) >> PAGE_ENTRIES_LOG2;
        let marked = |m: &PageMap| -> Vec<usize> {
            let bits = m.touched.iter().map(|w| w.load(Relaxed));
            let bits: Vec<u64> = bits.collect();
            (0..bits.len() * 64)
                .filter(|p| bits[p / 64] >> (p % 64) & 1 == 1)
                .collect()
        };
        assert!(marked(&m).is_empty());
        assert_eq!(m.get(5000), NONE);
        m.set(9999, 3);
        assert_eq!(marked(&m), vec![page(&m, 5000)]);
        assert_eq!((m.get(9999), m.get(5001)), (3, NONE));
        let mut want = vec![page(&m, 5000), page(&m, 9999)];
        want.dedup();
        assert_eq!(marked(&m), want);
    }
}
