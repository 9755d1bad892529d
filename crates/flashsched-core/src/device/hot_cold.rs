//! `cache.policy = "hot-cold"`: the DRAM data cache MQSim models with write
//! caching on (`Data_Cache_Manager_Flash_Advanced`, a destage buffer):
//! - a written page takes a slot in DRAM (the least recently used slot
//!   makes room when the cache is full, and is written back if it holds
//!   data not yet on its way to flash);
//! - a page not written since the hot window began is cold: it is written
//!   back at once. A page written again within the window is hot: it stays
//!   in DRAM, and its rewrites cost no flash program;
//! - a written-back page leaves the cache when its program ends, unless it
//!   was rewritten meanwhile;
//! - writes are admitted page by page while the data on its way to flash
//!   (the host's written 512-byte sectors of each write-back) is below the
//!   back-pressure limit; the rest of a write waits, in arrival order, for
//!   programs to end. A write is acknowledged once all its pages are in and
//!   their DRAM writes (one per admission step) are done;
//! - the pages seen are forgotten at the end of the first admission step
//!   after the window has ended, and the next window starts then;
//! - a read of a page in the cache is answered from DRAM and makes it the
//!   most recently used.
//!
//! Simplification: a written-back victim's program is queued at once (MQSim
//! queues it after reading the victim from DRAM; the DRAM time is charged).

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};

use super::config::CacheConfig;
use super::page_lru::PageLru;
use super::sector_masks::{span_in_page, unit_bits};
use super::tx::Tx;
use super::Ssd;
use crate::check::record::OpRecord;
use crate::engine::Ns;
use crate::flash::Geometry;
use crate::ftl::NONE;

/// MQSim's sector: the unit its back-pressure counts.
const SECTOR: u64 = 512;

/// One page in DRAM.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// The version held (the newest written).
    seq: u64,
    /// Parts of the page written since it entered, one bit per `unit`.
    written: u64,
    /// Its data is on its way to flash (else it is held: dirty).
    writing: bool,
}

/// A write waiting for admission: its device request, extent, and the
/// next page (unfolded LPN) to admit.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pending {
    r: u32,
    offset: u64,
    size: u32,
    next: u64,
}

/// What admitting one page set off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Admitted {
    /// The page is cold: write it back now.
    pub(super) flush: bool,
    /// A held page made room: write back this (LPN, version).
    pub(super) evicted: Option<(u32, u64)>,
    /// Bytes the eviction adds to the data on its way to flash.
    pub(super) evicted_bytes: u64,
    /// The parts of the page (`flush`) and of the victim (`evicted`) their
    /// write-backs carry, one bit per `unit` (`Slot::written`).
    pub(super) bits: u64,
    pub(super) evicted_bits: u64,
}

/// The cache's contents, hot-page memory and back-pressure.
#[derive(Debug)]
pub(super) struct HotCold {
    capacity: usize,
    page: u64,
    /// Bytes per bit of `Slot::written` (a sector, or more for big pages).
    unit: u64,
    /// Back-pressure limit and the data on its way to flash, bytes.
    limit: u64,
    depth: u64,
    /// Each write-back in flight (by version): the bytes it counts.
    flushing: FxHashMap<u64, u64>,
    window: Ns,
    window_end: Ns,
    seen: FxHashSet<u32>,
    /// The pages held, least recently used first.
    slots: PageLru<Slot>,
    pub(super) waiting: VecDeque<Pending>,
}

impl HotCold {
    pub(super) fn new(cfg: &CacheConfig, geo: &Geometry, capacity: u32) -> HotCold {
        let page = geo.page_size as u64;
        let limit = match cfg.backpressure_kib {
            k if k > 0.0 => (k * 1024.0).round().max(1.0) as u64,
            _ => geo.planes() as u64 * page,
        };
        HotCold {
            capacity: capacity as usize,
            page,
            unit: page.div_ceil(64).next_multiple_of(SECTOR).max(SECTOR),
            limit,
            depth: 0,
            flushing: FxHashMap::default(),
            window: (cfg.hot_window_ms * 1e6).round() as Ns,
            window_end: 0,
            seen: FxHashSet::default(),
            slots: PageLru::default(),
            waiting: VecDeque::new(),
        }
    }

    /// Whether another page may be admitted.
    #[inline]
    pub(super) fn has_room(&self) -> bool {
        self.depth < self.limit
    }

    /// Bytes on their way to flash (back-pressure depth).
    #[cfg(test)]
    pub(super) fn depth(&self) -> u64 {
        self.depth
    }

    /// The part of page `lpn` (unfolded) a write of `size` bytes at
    /// `offset` covers: its bytes in whole sectors, and its `written` bits.
    pub(super) fn extent(&self, offset: u64, size: u32, lpn: u64) -> (u64, u64) {
        let (lo, hi) = span_in_page(self.page, offset, size, lpn);
        let bytes = hi.div_ceil(SECTOR) * SECTOR - lo / SECTOR * SECTOR;
        (bytes.min(self.page), unit_bits(lo, hi, self.unit))
    }

    /// Version `seq` of `lpn` (`bytes` of it written, `bits` of the page)
    /// enters the cache. The caller has checked `has_room`.
    pub(super) fn admit(&mut self, lpn: u32, seq: u64, bytes: u64, bits: u64) -> Admitted {
        let mut out = Admitted {
            flush: false,
            evicted: None,
            evicted_bytes: 0,
            bits: 0,
            evicted_bits: 0,
        };
        let held = if let Some(h) = self.slots.find(lpn) {
            // A rewrite: the newest data is held, not yet on its way.
            self.slots.touch_held(h);
            let s = self.slots.value_mut(h);
            *s = Slot {
                seq,
                written: s.written | bits,
                writing: false,
            };
            h
        } else {
            if self.slots.len() >= self.capacity {
                // The least recently used page makes room.
                if let Some((victim, s)) = self.slots.pop_lru() {
                    if !s.writing {
                        let b = (s.written.count_ones() as u64 * self.unit).min(self.page);
                        self.depth += b;
                        self.flushing.insert(s.seq, b);
                        out.evicted = Some((victim, s.seq));
                        out.evicted_bytes = b;
                        out.evicted_bits = s.written;
                    }
                }
            }
            let slot = Slot {
                seq,
                written: bits,
                writing: false,
            };
            self.slots.insert(lpn, slot)
        };
        if self.seen.insert(lpn) {
            // Cold: written back at once.
            let s = self.slots.value_mut(held);
            s.writing = true;
            out.bits = s.written;
            self.depth += bytes;
            self.flushing.insert(seq, bytes);
            out.flush = true;
        }
        out
    }

    /// The end of an admission step: a new window once this one is over.
    pub(super) fn end_step(&mut self, now: Ns) {
        if now > self.window_end {
            self.seen.clear();
            self.window_end = now + self.window;
        }
    }

    /// Version `seq` of `lpn` is programmed.
    pub(super) fn programmed(&mut self, lpn: u32, seq: u64) {
        if let Some(b) = self.flushing.remove(&seq) {
            self.depth -= b;
        }
        if self.slots.get(lpn).is_some_and(|s| s.seq <= seq) {
            self.slots.remove(lpn);
        }
    }

    /// A read found `lpn` in DRAM: it is now the most recently used.
    pub(super) fn read_hit(&mut self, lpn: u32) {
        self.slots.touch(lpn);
    }

    /// `lpn` was TRIMmed: its slot goes (a write-back in flight still ends).
    pub(super) fn forget(&mut self, lpn: u32) {
        self.slots.remove(lpn);
    }
}

impl Ssd {
    /// A write's data reached the controller: admit what the back-pressure
    /// allows; the rest waits behind earlier writes.
    pub(super) fn hot_cold_write(&mut self, r: u32, offset: u64, size: u32, now: Ns) {
        let (first, _) = self.lpn_range(offset, size);
        let mut p = Pending {
            r,
            offset,
            size,
            next: first,
        };
        let Some(hc) = &mut self.hot_cold else { return };
        if !hc.waiting.is_empty() {
            self.reqs[r as usize].flash = true;
            // Earlier writes wait, so there is no room (a step would admit
            // nothing), but the step still ends the window if it is over.
            hc.end_step(now);
            hc.waiting.push_back(p);
            return;
        }
        if !self.hot_cold_step(&mut p, now) {
            self.reqs[r as usize].flash = true;
            if let Some(hc) = &mut self.hot_cold {
                hc.waiting.push_back(p);
            }
        }
    }

    /// Admit pages of `p` while there is room; returns whether all are in
    /// (then the write is acknowledged after its DRAM write).
    fn hot_cold_step(&mut self, p: &mut Pending, now: Ns) -> bool {
        let (_, last) = self.lpn_range(p.offset, p.size);
        let (mut dram, mut evicted_bytes) = (0, 0);
        let mut flush_req = None;
        while p.next <= last && self.hot_cold.as_ref().is_some_and(|h| h.has_room()) {
            let lpn = self.fold(p.next);
            self.write_seq += 1;
            let seq = self.write_seq;
            self.log(OpRecord::Write { lpn, seq });
            let e = self.inflight.entry(lpn).or_default();
            e.newest = seq;
            e.newest_done = false;
            let Some(hc) = &mut self.hot_cold else { break };
            let (bytes, bits) = hc.extent(p.offset, p.size, p.next);
            let out = hc.admit(lpn, seq, bytes, bits);
            dram += bytes;
            evicted_bytes += out.evicted_bytes;
            p.next += 1;
            if out.evicted.is_none() && !out.flush {
                continue;
            }
            // The write-backs belong to no host request.
            let owner = *flush_req.get_or_insert_with(|| self.new_req(NONE));
            if let Some((victim, vseq)) = out.evicted {
                let (b, m) = (out.evicted_bytes, out.evicted_bits);
                self.hot_cold_flush(owner, victim, vseq, b, m, now);
            }
            if out.flush {
                self.hot_cold_flush(owner, lpn, seq, bytes, out.bits, now);
            }
        }
        if let Some(hc) = &mut self.hot_cold {
            hc.end_step(now);
        }
        // Victims are read out of DRAM before the step's data goes in.
        self.front.dram(evicted_bytes, now);
        let ack = self.front.dram(dram, now);
        if p.next <= last {
            return false;
        }
        self.stats.write_requests += 1;
        self.finish_req(p.r, ack);
        true
    }

    /// Queue the program of version `seq` of `lpn` (owned by `owner`), of
    /// which `bytes` were written, the parts `bits` of the page.
    fn hot_cold_flush(&mut self, owner: u32, lpn: u32, seq: u64, bytes: u64, bits: u64, now: Ns) {
        let plane = self.write_plane(lpn);
        let die = self.geo.die_of_plane(plane);
        self.wait_on_flash(owner);
        let mut tx = Tx {
            sectors: match self.timing.sector_transfers {
                true => (bytes / SECTOR).min(u16::MAX as u64) as u16,
                false => 0,
            },
            ..Tx::user_program(owner, lpn, plane, die, seq, now)
        };
        if self.update.is_some() {
            self.partial_program(&mut tx, bits);
        }
        self.inflight.entry(lpn).or_default().pending += 1;
        self.enqueue_mapped(tx, now);
    }

    /// A user program ended: its data left the back-pressure count, and
    /// waiting writes are admitted in order while there is room.
    pub(super) fn hot_cold_programmed(&mut self, lpn: u32, seq: u64, now: Ns) {
        let Some(hc) = &mut self.hot_cold else { return };
        hc.programmed(lpn, seq);
        while let Some(mut p) = self.hot_cold.as_mut().and_then(|h| h.waiting.pop_front()) {
            if !self.hot_cold_step(&mut p, now) {
                if let Some(hc) = &mut self.hot_cold {
                    hc.waiting.push_front(p);
                }
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::GeometryConfig;

    /// Two planes of 8 KiB pages: the default limit is 16 KiB.
    fn cache(capacity: u32, window_ms: f64) -> HotCold {
        let geo = Geometry::new(&GeometryConfig {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: 8,
            pages_per_block: 8,
            page_size: 8192,
        });
        let cfg = CacheConfig {
            hot_window_ms: window_ms,
            ..CacheConfig::default()
        };
        HotCold::new(&cfg, &geo, capacity)
    }

    fn write(c: &mut HotCold, lpn: u32, seq: u64) -> Admitted {
        c.admit(lpn, seq, 8192, u64::MAX >> 48)
    }

    #[test]
    fn the_extent_counts_written_sectors() {
        let c = cache(4, 1000.0);
        // 4 KiB at the start of page 1: 8 sectors, bits 0-7.
        assert_eq!(c.extent(8192, 4096, 1), (4096, 0xff));
        // 1 byte at 8191 (page 0): one sector, the last bit.
        assert_eq!(c.extent(8191, 1, 0), (512, 1 << 15));
        // 12 KiB from 6 KiB: 2 KiB of page 0, 8 KiB of page 1, 2 KiB of page 2.
        assert_eq!(c.extent(6144, 12288, 0), (2048, 0xf000));
        assert_eq!(c.extent(6144, 12288, 1), (8192, 0xffff));
        assert_eq!(c.extent(6144, 12288, 2), (2048, 0x000f));
    }

    #[test]
    fn a_first_seen_page_is_written_back_and_a_rewrite_is_kept() {
        let mut c = cache(4, 1000.0);
        let cold = write(&mut c, 7, 1);
        assert!(cold.flush && cold.evicted.is_none());
        assert_eq!(c.depth(), 8192);
        // Rewritten while its write-back runs: held, no second program.
        assert!(!write(&mut c, 7, 2).flush);
        assert_eq!(c.depth(), 8192);
        // The first program ends: the newer version stays in DRAM.
        c.programmed(7, 1);
        assert_eq!(c.depth(), 0);
        assert!(c.slots.contains(7));
        // A third write within the window is absorbed too.
        assert!(!write(&mut c, 7, 3).flush);
        assert_eq!(c.slots.get(7).unwrap().seq, 3);
    }

    #[test]
    fn a_written_back_page_leaves_the_cache_when_programmed() {
        let mut c = cache(4, 1000.0);
        write(&mut c, 3, 1);
        c.programmed(3, 1);
        assert_eq!(c.slots.len(), 0);
        // Seen in this window: written again, it is hot and held.
        assert!(!write(&mut c, 3, 2).flush);
        assert!(c.slots.contains(3));
    }

    #[test]
    fn the_window_rotates_at_the_first_step_after_it_ends() {
        let mut c = cache(4, 1.0); // 1 ms
        write(&mut c, 1, 1);
        // The first step after time 0 opens the window (and forgets page 1).
        c.end_step(10);
        assert!(write(&mut c, 1, 2).flush);
        c.end_step(500_000);
        // Within the window: hot.
        assert!(!write(&mut c, 1, 3).flush);
        c.end_step(1_000_010); // the window ends at 1 000 010: not yet over
        assert!(!write(&mut c, 1, 4).flush);
        c.end_step(1_000_011); // over: forgotten; next window to 2 000 011
        assert!(write(&mut c, 1, 5).flush);
    }

    #[test]
    fn admission_stops_at_the_back_pressure_limit_and_resumes_on_programs() {
        let mut c = cache(64, 1000.0);
        // 16 KiB limit: two cold 8 KiB pages fill it.
        write(&mut c, 1, 1);
        assert!(c.has_room());
        write(&mut c, 2, 2);
        assert!(!c.has_room());
        c.programmed(1, 1);
        assert!(c.has_room());
        // 4 KiB writes count 8 sectors each: four fit in 16 KiB.
        let mut d = cache(64, 1000.0);
        for lpn in 0..4 {
            assert!(d.has_room());
            d.admit(lpn, lpn as u64 + 1, 4096, 0xff);
        }
        assert!(!d.has_room());
        assert_eq!(d.depth(), 16384);
    }

    #[test]
    fn a_full_cache_writes_back_its_least_recently_used_held_page() {
        let mut c = cache(2, 1000.0);
        // Pages 1 and 2 become hot and held (their first write-backs done).
        for (lpn, seq) in [(1, 1), (2, 2)] {
            write(&mut c, lpn, seq);
            c.programmed(lpn, seq);
            write(&mut c, lpn, seq + 10);
        }
        assert_eq!(c.depth(), 0);
        // A read makes page 1 the most recently used.
        c.read_hit(1);
        // Page 3 needs a slot: page 2 (LRU, held) is written back.
        let out = write(&mut c, 3, 20);
        assert_eq!(out.evicted, Some((2, 12)));
        assert_eq!(out.evicted_bytes, 8192);
        assert!(out.flush);
        assert_eq!(c.depth(), 16384);
        c.programmed(2, 12);
        assert_eq!(c.depth(), 8192);
        // A slot being written back is dropped without another program.
        let out = write(&mut c, 4, 21);
        assert_eq!(out.evicted, Some((1, 11)));
        let out = write(&mut c, 5, 22);
        assert_eq!(out.evicted, None, "page 3 was on its way already");
    }
}
