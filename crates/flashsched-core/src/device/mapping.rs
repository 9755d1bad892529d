//! The cached mapping table (MQSim's CMT; DFTL's demand-based page mapping):
//! which logical pages' mapping entries controller DRAM holds, in LRU order,
//! and what each translation page is waiting for. Bookkeeping only: the
//! device turns its answers into flash reads and programs of translation
//! pages (`translate.rs`).
//!
//! Translation page `t` holds the entries of logical pages
//! `t·per_tp .. (t+1)·per_tp` and is stored on flash as the hidden logical
//! page `base + t` (past the host's logical space), so the FTL places,
//! maps and garbage-collects it like any other page.

use rustc_hash::FxHashMap;

use super::page_lru::{Held, PageLru};

use super::config::MappingConfig;
use super::tx::Tx;
use crate::divisor::Divisor;
use crate::flash::Geometry;

/// `Entry::dirty_gen` of an entry that matches flash.
const CLEAN: u32 = u32::MAX;
/// `MappingCache::phase` bits.
const READING: u8 = 1;
const DEPARTING: u8 = 2;

/// One cached mapping entry.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// The entry changed since its translation page was last written back
    /// iff this equals that page's write-back generation.
    dirty_gen: u32,
    /// Reserved: the entry arrives with a read of its translation page.
    waiting: bool,
}

/// What one translation page has in flight (absent when nothing).
#[derive(Debug, Default)]
struct TpState {
    /// A read of it is in flight.
    reading: bool,
    /// Logical pages whose reserved entries arrive with that read.
    waiting: Vec<u32>,
    /// Page transactions that wait for that read.
    parked: Vec<Tx>,
    /// Write-backs whose program waits for that read (to merge).
    writebacks: u32,
    /// Write-backs being programmed: the page's content is in DRAM, so a
    /// miss on it needs no flash read (as MQSim's departing entries).
    departing: u32,
}

impl TpState {
    fn idle(&self) -> bool {
        !self.reading && self.departing == 0 && self.writebacks == 0
    }
}

/// Outcome of looking up a logical page's mapping entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Query {
    /// The entry is cached.
    Hit,
    /// Not cached, but its translation page is in DRAM (being written
    /// back): the entry is cached now, no flash read.
    Departing,
    /// A read of its translation page is already in flight: wait for it.
    Wait,
    /// Its translation page must be read from flash (the caller issues it).
    Fetch,
}

/// The cached mapping table of one device.
#[derive(Debug)]
pub(crate) struct MappingCache {
    /// Entries per translation page.
    pub(crate) per_tp: Divisor,
    /// Hidden logical page of translation page 0.
    pub(crate) base: u32,
    /// Translation pages of the whole table.
    pub(crate) pages: u32,
    /// Entries the cache holds.
    pub(crate) capacity: u32,
    /// The entries cached or reserved, least recently used first.
    entries: PageLru<Entry>,
    /// Write-back generation per translation page.
    gen: Vec<u32>,
    tps: FxHashMap<u32, TpState>,
    /// Settled states kept for reuse (their lists keep their room: a miss
    /// per request would otherwise allocate and free two).
    spare: Vec<TpState>,
    /// Per translation page, `READING` and `DEPARTING` as its `TpState`
    /// says (0 without one): a lookup that misses asks only this byte, not
    /// the map, whose states (a few thousand pages' worth once write-backs
    /// stay in DRAM) miss the CPU cache when hashed at random.
    phase: Vec<u8>,
    /// Translation pages an eviction asked to write back (the device drains).
    pub(crate) evicted: Vec<u32>,
    /// Write-backs are programmed (else left unserved, as MQSim).
    pub(crate) programs: bool,
    /// Sectors a translation read moves over the channel (0: the page).
    pub(crate) read_sectors: u16,
}

/// ⌈log2(n)⌉ as MQSim computes its address widths (real log, then the
/// byte count rounded up by the caller).
fn log2(n: u64) -> f64 {
    (n.max(2) as f64).log2()
}

impl MappingCache {
    /// The cache `cfg` asks for over `geo` with `logical` host pages, or
    /// `None` when the whole table stays in DRAM.
    pub(crate) fn new(cfg: &MappingConfig, geo: &Geometry, logical: u32) -> Option<MappingCache> {
        let (per_tp, capacity, pages) = Self::sizes(cfg, geo, logical)?;
        Some(MappingCache {
            per_tp: Divisor::new(per_tp),
            base: logical,
            pages,
            capacity,
            entries: PageLru::default(),
            gen: vec![0; pages as usize],
            tps: FxHashMap::default(),
            spare: Vec::new(),
            phase: vec![0; pages as usize],
            evicted: Vec::new(),
            programs: cfg.writeback == super::config::Writeback::Program,
            read_sectors: cfg.read_sectors.min(u16::MAX as u32) as u16,
        })
    }

    /// (entries per translation page, entries cached, translation pages)
    /// of the cache `cfg` asks for, or `None` when the whole table stays in
    /// DRAM.
    fn sizes(cfg: &MappingConfig, geo: &Geometry, logical: u32) -> Option<(u32, u32, u32)> {
        if cfg.cmt_kib <= 0.0 {
            return None;
        }
        // MQSim's sizes: a cached entry holds two physical addresses and a
        // sector bitmap; a translation-page entry one address and the bitmap.
        let sectors = (geo.page_size / 512).max(1) as f64;
        let bits = log2(geo.pages());
        let entry = match cfg.entry_bytes {
            0 => ((2.0 * bits + sectors) / 8.0).ceil() as u32,
            n => n,
        };
        let tp_entry = match cfg.translation_entry_bytes {
            0 => ((bits + sectors) / 8.0).ceil() as u32,
            n => n,
        };
        let per_tp = (geo.page_size / tp_entry.max(1)).max(1);
        let capacity = ((cfg.cmt_kib * 1024.0 / entry.max(1) as f64).floor() as u64)
            .clamp(1, u32::MAX as u64 - 1) as u32;
        Some((per_tp, capacity, logical.div_ceil(per_tp)))
    }

    /// Bytes the cache `cfg` asks for allocates once full, computed without
    /// building it (the run's memory estimate, `footprint.rs`): a table
    /// entry per entry it can hold (at most one per host page), a
    /// write-back generation and a phase byte per translation page, and the FTL's mapping
    /// entries of the hidden translation pages. 0 without a cache.
    pub(crate) fn footprint(cfg: &MappingConfig, geo: &Geometry, logical: u32) -> u64 {
        let Some((_, capacity, pages)) = Self::sizes(cfg, geo, logical) else {
            return 0;
        };
        let entries = capacity.min(logical) as u64;
        PageLru::<Entry>::footprint(entries) + 9 * pages as u64
    }

    /// Translation page holding `lpn`'s entry.
    #[inline]
    pub(crate) fn tp_of(&self, lpn: u32) -> u32 {
        self.per_tp.quotient(lpn)
    }

    /// Whether `lpn` is a translation page (hidden), not host data.
    #[inline]
    pub(crate) fn is_translation(&self, lpn: u32) -> bool {
        lpn >= self.base
    }

    /// Entries cached or reserved.
    #[cfg(test)]
    #[allow(clippy::len_without_is_empty)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Look up `lpn`'s entry (a hit makes it the most recent).
    pub(crate) fn query(&mut self, lpn: u32) -> Query {
        if let Some(h) = self.entries.find(lpn) {
            if self.entries.value(h).waiting {
                return Query::Wait;
            }
            self.entries.touch_held(h);
            return Query::Hit;
        }
        let tp = self.tp_of(lpn);
        let phase = self.phase[tp as usize];
        let (reading, departing) = (phase & READING != 0, phase & DEPARTING != 0);
        if departing && !reading {
            self.insert(lpn, false);
            return Query::Departing;
        }
        self.insert(lpn, true);
        let st = self.state(tp);
        st.waiting.push(lpn);
        if reading {
            return Query::Wait;
        }
        st.reading = true;
        self.phase[tp as usize] |= READING;
        Query::Fetch
    }

    /// `tx` waits for the read of translation page `tp` (in flight).
    pub(crate) fn park(&mut self, tp: u32, tx: Tx) {
        self.state(tp).parked.push(tx);
    }

    /// `lpn`'s mapping changed (a write or a GC move): its entry is cached
    /// and dirty (one is made without a flash read if absent, as MQSim does
    /// for GC: the new location is known).
    pub(crate) fn update(&mut self, lpn: u32) {
        let h = match self.entries.find(lpn) {
            Some(h) => {
                self.entries.touch_held(h);
                h
            }
            None => self.insert(lpn, false),
        };
        // (After the insert: its eviction may have moved the generation on.)
        let g = self.gen[self.tp_of(lpn) as usize];
        self.entries.value_mut(h).dirty_gen = g;
    }

    /// Whether `lpn`'s entry is cached and changed since its last write-back.
    #[cfg(test)]
    pub(crate) fn is_dirty(&self, lpn: u32) -> bool {
        self.entries
            .get(lpn)
            .is_some_and(|e| e.dirty_gen == self.gen[self.tp_of(lpn) as usize])
    }

    /// Start writing back translation page `tp` (an eviction asked):
    /// `true` if the caller must issue its merge read, `false` if a read of
    /// it is already in flight (the program waits for that one).
    pub(crate) fn begin_writeback(&mut self, tp: u32) -> bool {
        self.phase[tp as usize] |= READING;
        let st = self.state(tp);
        st.writebacks += 1;
        !std::mem::replace(&mut st.reading, true)
    }

    /// Translation page `tp`'s state, made (from a spare) if it has none.
    fn state(&mut self, tp: u32) -> &mut TpState {
        let spare = &mut self.spare;
        self.tps
            .entry(tp)
            .or_insert_with(|| spare.pop().unwrap_or_default())
    }

    /// Keep `st`, settled, for reuse.
    fn retire(&mut self, mut st: TpState) {
        const KEEP: usize = 64;
        if self.spare.len() < KEEP {
            st.waiting.clear();
            st.parked.clear();
            st.reading = false;
            st.writebacks = 0;
            st.departing = 0;
            self.spare.push(st);
        }
    }

    /// The read of translation page `tp` finished: its reserved entries are
    /// cached now. Appends the transactions that waited for it to `parked`
    /// and returns the number of write-back programs to issue.
    pub(crate) fn read_done(&mut self, tp: u32, parked: &mut Vec<Tx>) -> u32 {
        let Some(mut st) = self.tps.remove(&tp) else {
            return 0;
        };
        for &lpn in &st.waiting {
            if let Some(e) = self.entries.get_mut(lpn) {
                e.waiting = false;
            }
        }
        parked.append(&mut st.parked);
        let mut programs = st.writebacks;
        if !self.programs && programs > 0 {
            // Never programmed: the content stays in DRAM for good.
            st.departing = u32::MAX / 2;
            programs = 0;
        }
        st.reading = false;
        st.waiting.clear();
        st.writebacks = 0;
        st.departing = st.departing.saturating_add(programs);
        self.phase[tp as usize] = if st.departing > 0 { DEPARTING } else { 0 };
        if st.idle() {
            self.retire(st);
        } else {
            self.tps.insert(tp, st);
        }
        programs
    }

    /// A write-back program of translation page `tp` finished.
    pub(crate) fn program_done(&mut self, tp: u32) {
        if let Some(st) = self.tps.get_mut(&tp) {
            st.departing = st.departing.saturating_sub(1);
            if st.departing == 0 {
                self.phase[tp as usize] &= !DEPARTING;
            }
            if st.idle() && st.parked.is_empty() {
                if let Some(st) = self.tps.remove(&tp) {
                    self.retire(st);
                }
            }
        }
    }

    /// Cache `lpn`'s entry (reserved if `waiting`), evicting the least
    /// recent settled entry when full.
    fn insert(&mut self, lpn: u32, waiting: bool) -> Held {
        while self.entries.len() >= self.capacity as usize && self.evict_one() {}
        let entry = Entry {
            dirty_gen: CLEAN,
            waiting,
        };
        self.entries.insert(lpn, entry)
    }

    /// Drop the least recent entry that is not waiting for a read (if every
    /// entry waits, the cache runs over capacity until one arrives). A
    /// dirty one asks for its translation page to be written back, which
    /// cleans every entry of that page.
    fn evict_one(&mut self) -> bool {
        let Some((lpn, entry)) = self.entries.pop_lru_where(|e| !e.waiting) else {
            return false;
        };
        // Random pages leave a full cache by the least recent entry once
        // per miss, and those loads were the misses' cost.
        self.entries.prefetch_next_lru();
        let tp = self.tp_of(lpn) as usize;
        if entry.dirty_gen == self.gen[tp] {
            self.gen[tp] = match self.gen[tp].wrapping_add(1) {
                CLEAN => 0,
                g => g,
            };
            self.evicted.push(tp as u32);
        }
        true
    }

    /// A request will soon look up `lpn`'s entry: start fetching where the
    /// index keeps it (a hint only).
    #[inline]
    pub(crate) fn prefetch(&self, lpn: u32) {
        self.entries.prefetch(lpn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `read_done` with the parked transactions returned.
    fn read_done(c: &mut MappingCache, tp: u32) -> (Vec<Tx>, u32) {
        let mut parked = Vec::new();
        let programs = c.read_done(tp, &mut parked);
        (parked, programs)
    }
    use crate::flash::GeometryConfig;

    /// 8 KiB pages, 2^16 physical pages: (2·16 + 16)/8 = 6-byte cached
    /// entries, (16 + 16)/8 = 4-byte translation entries, 2048 per
    /// translation page.
    fn cfg_geo() -> GeometryConfig {
        GeometryConfig {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 256,
            pages_per_block: 256,
            page_size: 8192,
        }
    }

    fn cache(kib: f64) -> MappingCache {
        let geo = Geometry::new(&cfg_geo());
        let cfg = MappingConfig {
            cmt_kib: kib,
            ..MappingConfig::default()
        };
        MappingCache::new(&cfg, &geo, 60_000).expect("cache")
    }

    #[test]
    fn sizes_follow_mqsims_formulas() {
        let c = cache(6.0 / 1024.0 * 3.0); // room for 3 entries of 6 bytes
        assert_eq!(c.per_tp.get(), 2048);
        assert_eq!(c.capacity, 3);
        assert_eq!(c.pages, 30); // ⌈60000 / 2048⌉
        assert_eq!(c.base, 60_000);
        let geo = Geometry::new(&GeometryConfig {
            page_size: 4096,
            ..cfg_geo()
        });
        assert!(MappingCache::new(&MappingConfig::default(), &geo, 10).is_none());
    }

    #[test]
    fn misses_share_one_read_per_translation_page() {
        let mut c = cache(1.0);
        assert_eq!(c.query(5), Query::Fetch);
        // Same translation page, read in flight: wait, no second read.
        assert_eq!(c.query(6), Query::Wait);
        assert_eq!(c.query(5), Query::Wait);
        // Another translation page: its own read.
        assert_eq!(c.query(2048), Query::Fetch);
        let (parked, programs) = read_done(&mut c, 0);
        assert!(parked.is_empty());
        assert_eq!(programs, 0);
        assert_eq!(c.query(5), Query::Hit);
        assert_eq!(c.query(6), Query::Hit);
        assert_eq!(c.query(2048), Query::Wait);
    }

    #[test]
    fn lru_eviction_writes_back_dirty_pages_only() {
        let mut c = cache(6.0 / 1024.0 * 3.0);
        for lpn in [0, 2048, 4096] {
            assert_eq!(c.query(lpn), Query::Fetch);
            let tp = c.tp_of(lpn);
            read_done(&mut c, tp);
        }
        c.update(2048); // dirty, and now the most recent
        assert_eq!(c.query(0), Query::Hit); // order now (old→new): 4096, 2048, 0
        assert_eq!(c.query(6144), Query::Fetch); // evicts clean 4096
        assert!(c.evicted.is_empty());
        read_done(&mut c, 3);
        assert_eq!(c.query(8192), Query::Fetch); // evicts dirty 2048
        assert_eq!(c.evicted, vec![1]);
        assert!(!c.is_dirty(2048));
        // The write-back reads page 1 to merge, then programs it.
        assert!(c.begin_writeback(1));
        // A miss on page 1 meanwhile joins that read.
        assert_eq!(c.query(2049), Query::Wait);
        let (parked, programs) = read_done(&mut c, 1);
        assert!(parked.is_empty());
        assert_eq!(programs, 1);
        // While the program runs, page 1 is in DRAM: a miss costs no read.
        c.evicted.clear();
        assert_eq!(c.query(2050), Query::Departing);
        c.program_done(1);
        assert_eq!(c.query(2051), Query::Fetch);
    }

    #[test]
    fn writeback_cleans_every_entry_of_its_page() {
        let mut c = cache(6.0 / 1024.0 * 3.0);
        c.update(10);
        c.update(11);
        assert!(c.is_dirty(10) && c.is_dirty(11));
        c.update(4096);
        c.update(4097); // evicts 10 (dirty): page 0 written back
        assert_eq!(c.evicted, vec![0]);
        assert!(!c.is_dirty(11), "the write-back carries 11's change too");
        assert!(c.is_dirty(4096));
    }

    #[test]
    fn unserved_writebacks_pin_their_page_in_dram() {
        let mut c = cache(6.0 / 1024.0 * 3.0);
        c.programs = false;
        c.update(10);
        for lpn in [4096, 6144, 8192] {
            c.update(lpn);
        }
        assert_eq!(c.evicted, vec![0]);
        assert!(c.begin_writeback(0));
        let (_, programs) = read_done(&mut c, 0);
        assert_eq!(programs, 0);
        c.program_done(0);
        // Page 0 never leaves DRAM: misses on it read nothing.
        assert_eq!(c.query(11), Query::Departing);
        assert_eq!(c.query(12), Query::Departing);
    }

    #[test]
    fn waiting_entries_are_not_evicted() {
        let mut c = cache(6.0 / 1024.0 * 2.0);
        assert_eq!(c.query(0), Query::Fetch);
        assert_eq!(c.query(2048), Query::Fetch);
        // Both reserved: the cache runs over capacity rather than drop one.
        assert_eq!(c.query(4096), Query::Fetch);
        assert_eq!(c.len(), 3);
        read_done(&mut c, 0);
        read_done(&mut c, 1);
        read_done(&mut c, 2);
        // Back under capacity: the two oldest settled entries go.
        assert_eq!(c.query(6144), Query::Fetch);
        assert_eq!(c.len(), 2);
        assert_eq!(c.query(0), Query::Fetch);
    }
}
