//! The DRAM data cache for writes (`[cache]`). A write is acknowledged once
//! its pages have room (after its DRAM write); room returns as pages reach
//! flash. `eager` flushes every write at once; `lru` keeps written pages
//! until room is needed, then flushes the least recently written, and a
//! rewrite of a page it still holds replaces it in DRAM without a program.
//! `ssdsim-lru` is SSDsim's buffer: a write never waits for room; it
//! evicts the least recently used pages at once and completes when they
//! are written.

use std::collections::VecDeque;

use super::config::CachePolicy;
use super::page_lru::{Held, PageLru};
use super::sector_masks::{span_in_page, unit_bits};
use super::tx::Tx;
use super::Ssd;
use crate::check::record::OpRecord;
use crate::engine::Ns;
use crate::ftl::NONE;

/// The cache's room and contents.
#[derive(Debug)]
pub(super) struct WriteBuffer {
    pub(super) capacity: u32,
    /// Pages held or being flushed.
    pub(super) used: u32,
    /// Writes waiting for room: (device request, offset, size, pages of
    /// new room needed when it arrived).
    pub(super) waiting: VecDeque<(u32, u64, u32, u32)>,
    /// Sum of the waiting writes' room needs.
    waiting_need: u32,
    policy: CachePolicy,
    /// `lru`: pages held (not being flushed), least recently written
    /// first, each with its written sectors as mask bits where they are
    /// tracked (`sectors`, `track_masks`; else 0).
    held: PageLru<u64>,
    /// `lru`: pages being flushed (their room returns when programmed).
    flushing: u32,
    /// `cache.sectors` (`ssdsim-lru`): room counted in sectors, each held
    /// page with the sectors written (bit k = sectors `k × unit ..`);
    /// `None` = whole pages.
    sectors: Option<SectorRoom>,
    /// `ftl.update_reads` with whole-page room: each held page's written
    /// sectors are tracked (what its write-back carries).
    track_masks: bool,
}

/// Sector-counted room of SSDsim's buffer.
#[derive(Debug)]
pub(super) struct SectorRoom {
    /// Sectors per page.
    per_page: u32,
    /// Sectors per mask bit (1 for pages of up to 64 sectors).
    unit: u32,
}

impl SectorRoom {
    /// Sectors the bits of `mask` stand for.
    fn count(&self, mask: u64) -> u32 {
        (mask.count_ones() * self.unit).min(self.per_page)
    }

    /// The bits of page `raw` (unfolded, `page` bytes) that `size` bytes at
    /// `offset` cover.
    fn bits(&self, page: u64, offset: u64, size: u32, raw: u64) -> u64 {
        let (start, end) = span_in_page(page, offset, size, raw);
        unit_bits(start, end, 512 * self.unit as u64)
    }
}

impl WriteBuffer {
    /// A cache of `capacity` pages; with `sectors_per_page` (`cache.sectors`)
    /// its room is counted in sectors.
    pub(super) fn new(
        capacity: u32,
        policy: CachePolicy,
        sectors_per_page: Option<u32>,
        track_masks: bool,
    ) -> WriteBuffer {
        let sectors = sectors_per_page.map(|per_page| SectorRoom {
            per_page,
            unit: per_page.div_ceil(64),
        });
        let capacity = capacity * sectors_per_page.unwrap_or(1);
        WriteBuffer {
            track_masks: track_masks && sectors.is_none(),
            sectors,
            capacity,
            used: 0,
            waiting: VecDeque::new(),
            waiting_need: 0,
            policy,
            held: PageLru::default(),
            flushing: 0,
        }
    }

    /// Pages a write of `lpns` needs new room for.
    fn need(&self, lpns: impl Iterator<Item = u32>) -> u32 {
        match self.policy {
            // (`hot-cold` has its own cache, `hot_cold.rs`.)
            CachePolicy::Eager | CachePolicy::HotCold => lpns.count() as u32,
            CachePolicy::Lru | CachePolicy::SsdsimLru => {
                lpns.filter(|&l| !self.held.contains(l)).count() as u32
            }
        }
    }

    /// Room for `need` more pages (an oversized write goes alone).
    fn fits(&self, need: u32) -> bool {
        self.used + need <= self.capacity || self.used == 0
    }

    /// The least recently written held pages to flush so that `need` more
    /// pages will fit once the flushes in progress are done.
    fn victims(&mut self, need: u32) -> Vec<(u32, u64)> {
        let want = (self.used + need).saturating_sub(self.capacity);
        let mut deficit = want.saturating_sub(self.flushing);
        let mut out = Vec::new();
        while deficit > 0 {
            let Some((lpn, mask)) = self.held.pop_lru() else {
                break;
            };
            self.flushing += 1;
            deficit -= 1;
            out.push((lpn, mask));
        }
        out
    }

    /// `ssdsim-lru`: take the least recently used held page out; its room
    /// returns at once (it is on its way to flash). Returns the page, the
    /// room it took and its written sectors (`release`).
    fn evict(&mut self) -> Option<(u32, u32, u64)> {
        let (lpn, mask) = self.held.pop_lru()?;
        let (n, mask) = self.release(mask);
        Some((lpn, n, mask))
    }

    /// The room of a page that left, holding the sectors of `mask`
    /// (0: not tracked, the whole page), returns: (room, `mask`).
    fn release(&mut self, mask: u64) -> (u32, u64) {
        let n = match &self.sectors {
            Some(sr) => sr.count(mask),
            None => 1,
        };
        self.used -= n;
        (n, mask)
    }

    /// Held page `h` was written in the sectors of `mask` (tracked only
    /// with `ftl.update_reads` and whole-page room).
    fn add_mask(&mut self, h: Held, mask: u64) {
        if self.track_masks {
            *self.held.value_mut(h) |= mask;
        }
    }

    /// Note a (re)write of held page `lpn`; returns whether it was new.
    fn touch(&mut self, lpn: u32) -> Held {
        self.held.touch_or_insert(lpn, 0).0
    }
}

impl Ssd {
    fn cache_need(&self, offset: u64, size: u32) -> u32 {
        let (a, b) = self.lpn_range(offset, size);
        match &self.buffer {
            Some(buf) => buf.need((a..=b).map(|l| self.fold(l))),
            None => 0,
        }
    }

    /// A write's data reached the controller: into the cache if it has
    /// room (acknowledged after its DRAM write), else it waits; without a
    /// cache, straight to flash (acknowledged when programmed).
    pub(super) fn accept_write(&mut self, r: u32, offset: u64, size: u32, now: Ns) {
        if self.hot_cold.is_some() {
            return self.hot_cold_write(r, offset, size, now);
        }
        let Some(buf) = &self.buffer else {
            return self.submit_write(r, offset, size, now);
        };
        if buf.policy == CachePolicy::SsdsimLru {
            return self.write_evicting(r, offset, size, now);
        }
        if buf.waiting.is_empty() && self.try_admit(r, offset, size, now) {
            return;
        }
        let need = self.cache_need(offset, size);
        // Room is made by flushing: it waits for flash.
        self.reqs[r as usize].flash = true;
        if let Some(buf) = &mut self.buffer {
            buf.waiting.push_back((r, offset, size, need));
            buf.waiting_need += need;
        }
        self.make_room(now);
    }

    /// Admit a write if it fits; returns whether it did.
    fn try_admit(&mut self, r: u32, offset: u64, size: u32, now: Ns) -> bool {
        let need = self.cache_need(offset, size);
        if !self.buffer.as_ref().is_some_and(|b| b.fits(need)) {
            return false;
        }
        self.admit(r, offset, size, need, now);
        true
    }

    /// Take a write that fits (`need` pages of new room) into the cache.
    fn admit(&mut self, r: u32, offset: u64, size: u32, need: u32, now: Ns) {
        let Some(buf) = &mut self.buffer else { return };
        buf.used += need;
        match buf.policy {
            CachePolicy::Eager | CachePolicy::HotCold => self.submit_write(r, offset, size, now),
            CachePolicy::Lru | CachePolicy::SsdsimLru => {
                self.cache_write(offset, size);
                // An oversized write leaves the cache over capacity.
                self.make_room(now);
            }
        }
        let ack = self.front.dram(size as u64, now);
        self.finish_req(r, ack);
    }

    /// `lru`: the pages of a write are now held in DRAM (newest version).
    fn cache_write(&mut self, offset: u64, size: u32) {
        let (a, b) = self.lpn_range(offset, size);
        for raw in a..=b {
            let lpn = self.fold(raw);
            let h = self.cache_page(lpn);
            self.cache_mask(offset, size, raw, h);
        }
        self.stats.write_requests += 1;
    }

    /// Page `lpn` of a write is now held in DRAM (newest version): where.
    fn cache_page(&mut self, lpn: u32) -> Option<Held> {
        self.write_seq += 1;
        let seq = self.write_seq;
        self.log(OpRecord::Write { lpn, seq });
        let e = self.inflight.entry(lpn).or_default();
        e.newest = seq;
        e.newest_done = false;
        self.buffer.as_mut().map(|buf| buf.touch(lpn))
    }

    /// Track the sectors a write of `size` bytes at `offset` put in held
    /// page `h` (unfolded `raw`), for its write-back's update read.
    fn cache_mask(&mut self, offset: u64, size: u32, raw: u64, h: Option<Held>) {
        if self.update.is_some() {
            let mask = self.page_mask(offset, size, raw);
            if let (Some(buf), Some(h)) = (&mut self.buffer, h) {
                buf.add_mask(h, mask);
            }
        }
    }

    /// `ssdsim-lru`: a write's pages go into DRAM in order, each new one
    /// evicting the least recently used page while the cache is full. The
    /// evicted pages are flushed on the write's behalf: it completes when
    /// they are written (`controller.write_ack`), or after its DRAM write
    /// when it evicted none (SSDsim: 1000 ns).
    fn write_evicting(&mut self, r: u32, offset: u64, size: u32, now: Ns) {
        if self.buffer.as_ref().is_some_and(|b| b.sectors.is_some()) {
            return self.write_evicting_sectors(r, offset, size, now);
        }
        let (a, b) = self.lpn_range(offset, size);
        for raw in a..=b {
            let lpn = self.fold(raw);
            while let Some(buf) = &mut self.buffer {
                if buf.held.contains(lpn) {
                    break;
                }
                if buf.used < buf.capacity {
                    buf.used += 1;
                    break;
                }
                match buf.evict() {
                    Some((victim, _, mask)) => {
                        self.flush(r, victim, 0, mask, now);
                    }
                    None => break,
                }
            }
            let h = self.cache_page(lpn);
            self.cache_mask(offset, size, raw, h);
        }
        self.evicting_write_done(r, size, now);
    }

    /// `ssdsim-lru` with `cache.sectors`: as SSDsim's buffer, room is
    /// counted in sectors. Each page of the write joins (or stays in) the
    /// cache as the most recently used with the sectors it wrote added;
    /// then least recently used pages leave, each flushed with only the
    /// sectors it holds, until the new sectors fit (a write larger than the
    /// cache leaves it over full, holding that write alone).
    fn write_evicting_sectors(&mut self, r: u32, offset: u64, size: u32, now: Ns) {
        let (a, b) = self.lpn_range(offset, size);
        let page = self.geo.page_size as u64;
        for raw in a..=b {
            let lpn = self.fold(raw);
            let Some(sr) = self.buffer.as_ref().and_then(|b| b.sectors.as_ref()) else {
                return;
            };
            // Sectors of this page the write covers, as mask bits.
            let mask = sr.bits(page, offset, size, raw);
            let (Some(h), Some(buf)) = (self.cache_page(lpn), &mut self.buffer) else {
                return;
            };
            let Some(sr) = &buf.sectors else { return };
            // (A page new to the cache holds no sectors yet.)
            let held = *buf.held.value(h);
            buf.used += sr.count(held | mask) - sr.count(held);
            *buf.held.value_mut(h) = held | mask;
            while let Some(buf) = &mut self.buffer {
                if buf.used <= buf.capacity || buf.held.len() <= 1 {
                    break;
                }
                let Some((victim, n, mask)) = buf.evict() else {
                    break;
                };
                // SSDsim under static allocation counts the room a
                // write-back frees as the sectors its program carries,
                // merged with the update read's (`insert2buffer` subtracts
                // the sub-request's grown size): the buffer then holds more
                // than its room, and fewer pages leave it.
                let merged = self.flush(r, victim, n, mask, now) as u32;
                if let Some(buf) = &mut self.buffer {
                    buf.used = buf.used.saturating_sub(merged.saturating_sub(n));
                }
            }
        }
        self.evicting_write_done(r, size, now);
    }

    /// An evicting write's pages are in DRAM: it completes after its DRAM
    /// write if it evicted nothing, else when its flushes are written.
    fn evicting_write_done(&mut self, r: u32, size: u32, now: Ns) {
        self.stats.write_requests += 1;
        if self.reqs[r as usize].remaining == 0 {
            let ack = self.front.dram(size as u64, now);
            self.finish_req(r, ack);
        }
    }

    /// Flush held page `lpn` (its newest version) for device request `r`;
    /// with sector transfers, `sectors` of it cross the bus (0 = the page).
    /// It holds the sectors of `mask` (0: the whole page). Returns the
    /// sectors of its program when merged with an update read's
    /// ([`Ssd::partial_program`]), else 0.
    fn flush(&mut self, r: u32, lpn: u32, sectors: u32, mask: u64, now: Ns) -> u16 {
        let seq = self.inflight.get(&lpn).map_or(0, |e| e.newest);
        let (plane, die) = self.host_write_plane(lpn);
        self.wait_on_flash(r);
        let mut tx = Tx::user_program(r, lpn, plane, die, seq, now);
        if self.timing.sector_transfers && sectors > 0 {
            tx.sectors = sectors.min(u16::MAX as u32) as u16;
        }
        let mut merged = 0;
        if self.update.is_some() {
            let mask = if mask == 0 { u64::MAX } else { mask };
            merged = self.partial_program(&mut tx, mask);
        }
        self.inflight.entry(lpn).or_default().pending += 1;
        // Through the mapping table, as a host write without a cache.
        self.enqueue_mapped(tx, now);
        merged
    }

    /// SSDsim's buffer (`ssdsim-lru` counting sectors) serves a read of
    /// page `raw` (`lpn`) only from the sectors it holds of it, and makes
    /// the page the most recently used only if it holds one of the
    /// requested sectors (`buffer_management` checks sector by sector; a
    /// page on its way to flash is no longer held). Returns the requested
    /// sectors it does not hold, which the read takes from flash (0: the
    /// buffer serves it all, or another cache serves whole pages).
    pub(super) fn buffer_read_miss(&mut self, lpn: u32, offset: u64, size: u32, raw: u64) -> u32 {
        let page = self.geo.page_size as u64;
        let Some(buf) = &mut self.buffer else {
            return 0;
        };
        if buf.policy != CachePolicy::SsdsimLru {
            return 0;
        }
        let Some(sr) = &buf.sectors else { return 0 };
        let want = sr.bits(page, offset, size, raw);
        let h = buf.held.find(lpn);
        let held = h.map_or(0, |h| *buf.held.value(h));
        let missing = sr.count(want & !held);
        if let Some(h) = h.filter(|_| want & held != 0) {
            buf.held.touch_held(h);
        }
        missing
    }

    /// A read found `lpn` in DRAM: `ssdsim-lru` and `hot-cold` make a held
    /// page the most recently used.
    pub(super) fn cache_read_hit(&mut self, lpn: u32) {
        if let Some(hc) = &mut self.hot_cold {
            hc.read_hit(lpn);
        }
        if let Some(buf) = &mut self.buffer {
            // A sector buffer refreshed the page already (`buffer_read_miss`).
            if buf.policy == CachePolicy::SsdsimLru && buf.sectors.is_none() {
                buf.held.touch(lpn);
            }
        }
    }

    /// `lru`: flush what the waiting writes (or an over-full cache) need
    /// room from, least recently written first. The head's need is taken
    /// afresh: flushing may have taken pages it would have rewritten.
    fn make_room(&mut self, now: Ns) {
        let Some(buf) = &self.buffer else { return };
        if buf.policy != CachePolicy::Lru {
            return;
        }
        let need = match buf.waiting.front() {
            Some(&(_, offset, size, parked)) => {
                buf.waiting_need - parked + self.cache_need(offset, size)
            }
            None => 0,
        };
        let Some(buf) = &mut self.buffer else { return };
        let victims = buf.victims(need);
        if victims.is_empty() {
            return;
        }
        // The flushes belong to no host request.
        let r = self.new_req(NONE);
        for (lpn, mask) in victims {
            self.flush(r, lpn, 0, mask, now);
        }
    }

    /// TRIM of `lpn`: a held copy is dropped (its room returns at once).
    pub(super) fn cache_drop(&mut self, lpn: u32) {
        if let Some(hc) = &mut self.hot_cold {
            hc.forget(lpn);
        }
        if let Some(buf) = &mut self.buffer {
            if let Some(mask) = buf.held.remove(lpn) {
                buf.release(mask);
            }
        }
    }

    /// A cached page reached flash: admit waiting writes that now fit.
    pub(super) fn release_buffer(&mut self, now: Ns) {
        let Some(buf) = &mut self.buffer else { return };
        match buf.policy {
            CachePolicy::Eager => buf.used -= 1,
            CachePolicy::Lru => {
                buf.used -= 1;
                buf.flushing -= 1;
            }
            // Its room returned when it was evicted.
            CachePolicy::SsdsimLru => return,
            // Not used: `hot-cold` has its own cache (`hot_cold.rs`).
            CachePolicy::HotCold => return,
        }
        self.admit_waiting(now);
    }

    /// Room returned (a page programmed, or TRIMmed out of the cache).
    pub(super) fn admit_waiting(&mut self, now: Ns) {
        // Admit waiting writes in order while they fit (issuing one does not
        // touch the waiting list, so admitting and issuing can interleave).
        loop {
            let Some(&(r, offset, size, _)) = self.buffer.as_ref().and_then(|b| b.waiting.front())
            else {
                return;
            };
            let need = self.cache_need(offset, size);
            let Some(buf) = &mut self.buffer else { return };
            if !buf.fits(need) {
                self.make_room(now);
                return;
            }
            if let Some((.., parked)) = buf.waiting.pop_front() {
                buf.waiting_need -= parked;
            }
            self.admit(r, offset, size, need, now);
        }
    }
}

/// Writes of one LPN in flight (`Ssd::inflight`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Inflight {
    /// User writes of this LPN translated but not yet programmed.
    pub(super) pending: u32,
    /// Highest write sequence already programmed.
    pub(super) issued_seq: u64,
    /// Newest write of this LPN, and whether its program has finished: once
    /// it has, DRAM only holds older versions (a reordering scheduler may
    /// still be programming them) and reads must go to flash.
    pub(super) newest: u64,
    pub(super) newest_done: bool,
}
