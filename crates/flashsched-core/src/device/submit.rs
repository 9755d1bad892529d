//! Host requests into page transactions: reads are translated now (DRAM
//! hits and TRIMmed pages need no flash), writes get their plane now and
//! their page when they start; conflict accounting per request (VIOS
//! Table 1).

use super::config::BusyUnit;
use super::front::{Dir, Job};
use super::sector_masks::span_in_page;
use super::tx::{Tx, UNCHECKED_READ};
use super::write_pool::UNPLACED;
use super::{DevReq, Ssd};
use crate::check::record::OpRecord;
use crate::divisor::{add_mod, inc_mod};
use crate::engine::Ns;
use crate::ftl::{Allocation, NONE};
use crate::io::Op;

impl Ssd {
    /// The newest written version of `lpn` is still in controller DRAM.
    #[inline]
    pub(super) fn in_dram(&self, lpn: u32) -> bool {
        self.inflight.get(&lpn).is_some_and(|e| !e.newest_done)
    }

    /// Chip `chip` holds queued or running transactions.
    #[inline]
    pub(super) fn chip_loaded(&self, chip: u32) -> bool {
        self.chip_load[chip as usize] > 0
    }

    /// One more transaction queued or running on `die`.
    #[inline]
    pub(super) fn load_inc(&mut self, die: u32) {
        self.die_load[die as usize] += 1;
        let chip = self.geo.chip_of_die(die);
        let load = &mut self.chip_load[chip as usize];
        *load += 1;
        if *load == 1 {
            self.chip_load_changed(chip, true);
        }
    }

    /// One fewer transaction queued or running on `die`.
    #[inline]
    pub(super) fn load_dec(&mut self, die: u32) {
        self.die_load[die as usize] -= 1;
        let chip = self.geo.chip_of_die(die);
        let load = &mut self.chip_load[chip as usize];
        *load -= 1;
        if *load == 0 {
            self.chip_load_changed(chip, false);
        }
    }

    /// Chip `chip` became loaded (`on`) or idle of work: channel-idle
    /// dispatch keeps which chips of each channel are.
    #[inline]
    fn chip_load_changed(&mut self, chip: u32, on: bool) {
        if let Some(cd) = self.chan_dispatch.as_mut() {
            let (ch, way) = self.geo.channel_way(chip);
            cd.set_loaded(ch, way, on);
        }
    }

    /// Conflict accounting for the page of the request being split on `die`
    /// (first page per chip only); returns whether it conflicts.
    pub(super) fn note_chip(&mut self, die: u32) -> bool {
        let chip = self.geo.chip_of_die(die);
        self.req_touched = true;
        let seen = &mut self.chip_seen[chip as usize];
        if *seen == self.req_stamp {
            return false;
        }
        *seen = self.req_stamp;
        self.chip_loaded(chip)
    }

    /// Start conflict accounting for a new request (stamps start at 1, so a
    /// fresh `chip_seen` of zeros means "not seen").
    #[inline]
    pub(super) fn begin_conflict_scan(&mut self) {
        self.req_stamp += 1;
        self.req_touched = false;
    }

    pub(super) fn new_req(&mut self, host: u32) -> u32 {
        let r = DevReq {
            host,
            remaining: 0,
            out_bytes: 0,
            dram_bytes: 0,
            flash: false,
        };
        match self.free_reqs.pop() {
            Some(i) => {
                self.reqs[i as usize] = r;
                i
            }
            None => {
                self.reqs.push(r);
                (self.reqs.len() - 1) as u32
            }
        }
    }

    /// Device request `r` waits for one more flash transaction.
    #[inline]
    pub(super) fn wait_on_flash(&mut self, r: u32) {
        let req = &mut self.reqs[r as usize];
        req.remaining += 1;
        req.flash = true;
    }

    #[inline]
    pub(super) fn lpn_range(&self, offset: u64, size: u32) -> (u64, u64) {
        let first = self.geo.page_of_byte(offset);
        let last = self.geo.page_of_byte(offset + size.max(1) as u64 - 1);
        (first, last)
    }

    /// The bytes of page `lpn` (unfolded) a request of `size` bytes at
    /// `offset` covers, in whole 512-byte sectors.
    #[inline]
    pub(super) fn page_bytes(&self, offset: u64, size: u32, lpn: u64) -> u64 {
        let (lo, hi) = span_in_page(self.geo.page_size as u64, offset, size, lpn);
        (hi.div_ceil(512) - lo / 512) * 512
    }

    /// The 512-byte sectors of page `lpn` a host transfer moves over the
    /// channel when host transfers move only what they ask for
    /// (`timing.sector_transfers`); else 0 (the whole page).
    #[inline]
    pub(super) fn xfer_sectors(&self, offset: u64, size: u32, lpn: u64) -> u16 {
        match self.timing.sector_transfers {
            true => (self.page_bytes(offset, size, lpn) / 512).min(u16::MAX as u64) as u16,
            false => 0,
        }
    }

    /// Place `lpn`, never written, for a read of it (untimed, as data
    /// written before the trace), logged for the version oracle.
    pub(super) fn place_for_read(&mut self, lpn: u32) -> Option<u32> {
        let ppn = match self.ftl.alloc {
            Allocation::DynamicIdleChip => {
                let plane = self.token_plane();
                self.ftl.place_untimed_on(lpn, plane)?
            }
            _ => self.ftl.place_untimed(lpn)?,
        };
        self.log(OpRecord::Program { ppn, lpn, seq: 0 });
        Some(ppn)
    }

    #[inline]
    pub(super) fn fold(&self, lpn: u64) -> u32 {
        let n = self.ftl.logical_pages as u64;
        (if lpn < n { lpn } else { lpn % n }) as u32
    }

    /// A request will arrive soon: fetch its mapping entries into the CPU
    /// cache (one per cache line of the table), so its submission does not
    /// wait on memory. A hint only: results do not depend on it.
    pub fn prefetch_request(&self, op: Op, offset: u64, size: u32) {
        if op == Op::Trim {
            return;
        }
        let (a, b) = self.lpn_range(offset, size);
        // 16 entries per 64-byte line; long requests: the first few lines,
        // and the last. (Plain loops: as a chain of stepped ranges this
        // cost ~300 instructions a request, 2 % of the MQSim trace case.)
        let mut lpn = a;
        while lpn <= b.min(a + 63) {
            self.ftl.prefetch_lookup(self.fold(lpn));
            lpn += 16;
        }
        if b > a {
            self.ftl.prefetch_lookup(self.fold(b));
        }
        // One line per page: the first few pages of a long request.
        let placed = matches!(self.ftl.alloc, Allocation::Static { .. });
        for lpn in a..=b.min(a + 3) {
            let lpn = self.fold(lpn);
            if let Some(cmt) = &self.cmt {
                cmt.prefetch(lpn);
            }
            // A write's program updates the pages' valid sectors, and so
            // does a read that places a page never written.
            if let Some(u) = &self.update {
                u.prefetch(lpn);
            }
            if placed {
                self.ftl.prefetch_placement(lpn);
            }
        }
    }

    /// Accept a request from the host (`host` is its id).
    pub fn submit(&mut self, host: u32, op: Op, offset: u64, size: u32, now: Ns) {
        let r = self.new_req(host);
        self.log(OpRecord::Submit {
            req: host,
            op,
            offset,
            size,
        });
        match op {
            Op::Read => {
                self.reqs[r as usize].out_bytes = size;
                self.submit_read(r, offset, size, now);
            }
            // The data crosses the host link first (after the device's
            // request for it, with NVMe's messages). Without link time it
            // is there at once, in submission order (a later read must not
            // pass it), unless an earlier write is still on its way.
            Op::Write if self.front.timed() => {
                let asked = now + self.front.data_request();
                let at = self.front.link(Dir::ToDevice, size as u64, asked);
                if at > now || self.front.arriving() {
                    self.front.plan(at, Job::Arrive { r, offset, size });
                    return;
                }
                return self.accept_write(r, offset, size, now);
            }
            Op::Write => return self.accept_write(r, offset, size, now),
            Op::Trim => self.submit_trim(offset, size, now),
        }
        if self.reqs[r as usize].remaining == 0 {
            self.finish_req(r, now);
        }
    }

    /// A front-end step is due.
    pub(super) fn front_step(&mut self, slot: u32, now: Ns) {
        match self.front.take(slot) {
            Some(Job::Arrive { r, offset, size }) => self.accept_write(r, offset, size, now),
            Some(Job::Deliver { host }) => {
                self.done.push(host);
                self.log(OpRecord::Complete { req: host });
            }
            Some(Job::Written { r }) => self.page_written(r, now),
            Some(Job::SharedRead { r }) => self.req_page_done(r, now),
            None => {}
        }
    }

    fn submit_trim(&mut self, offset: u64, size: u32, now: Ns) {
        let ps = self.geo.page_size as u64;
        // Only whole pages are discarded.
        let first = offset.div_ceil(ps);
        let end = (offset + size as u64) / ps;
        for lpn in first..end {
            let l = self.fold(lpn);
            self.log(OpRecord::Trim { lpn: l });
            self.ftl.trim(l, now);
            self.cache_drop(l);
            self.sectors_trimmed(l);
            // Writes of `l` submitted before the TRIM must not land
            // after it: their programs become stale (as if superseded
            // by a newer write) and reads stop going to DRAM.
            if let Some(e) = self.inflight.get_mut(&l) {
                self.write_seq += 1;
                e.issued_seq = self.write_seq;
                e.newest = self.write_seq;
                e.newest_done = true;
                if e.pending == 0 {
                    self.inflight.remove(&l);
                }
            }
        }
        self.admit_waiting(now);
    }

    /// Device request `r` is finished once what it still needs from the
    /// front end (from `ready` on) is done: its DRAM reads, its data back
    /// over the host link, the completion's command cost.
    pub(super) fn finish_req(&mut self, r: u32, ready: Ns) {
        let req = self.reqs[r as usize];
        if req.host != NONE {
            self.reqs[r as usize].host = NONE;
            let h = req.host as usize;
            if self.from_dram.len() <= h {
                self.from_dram.resize(h + 1, false);
            }
            self.from_dram[h] = !req.flash;
            if self.front.timed() {
                let t = self.front.dram(req.dram_bytes as u64, ready);
                let t = match req.out_bytes {
                    0 => t,
                    n => self.front.link(Dir::ToHost, n as u64, t),
                };
                let t = self.front.completion(t) + self.front.command();
                self.front.plan(t, Job::Deliver { host: req.host });
            } else {
                self.done.push(req.host);
                self.log(OpRecord::Complete { req: req.host });
            }
        }
        if req.remaining == 0 {
            self.free_reqs.push(r);
        }
    }

    /// A read of `lpn` at `ppn` for `owner` (oracle id `id`), translated
    /// now: its plane, die and the block's erase count. Inlined, so its
    /// callers' changes to the result are made before it is stored:
    /// returned through memory field by field and then copied whole, it
    /// was read back wider than written, which the CPU cannot forward.
    #[inline(always)]
    pub(super) fn user_read_at(&self, owner: u32, lpn: u32, ppn: u32, id: u64, now: Ns) -> Tx {
        let plane = self.geo.plane_of(ppn);
        let die = self.geo.die_of_plane(plane);
        let epoch = self.ftl.erase_count(self.geo.block_of(ppn));
        Tx::user_read(owner, lpn, ppn, plane, die, epoch, id, now)
    }

    /// A flash read of `sectors` of `lpn`'s page for device request `r`
    /// that only takes time ([`UNCHECKED_READ`]); none if the page has no
    /// flash copy yet.
    fn read_unchecked(&mut self, r: u32, lpn: u32, sectors: u32, now: Ns) {
        let Some(ppn) = self.ftl.lookup(lpn) else {
            return;
        };
        let tx = Tx {
            sectors: match self.timing.sector_transfers {
                true => sectors.min(u16::MAX as u32) as u16,
                false => 0,
            },
            ..self.user_read_at(r, lpn, ppn, UNCHECKED_READ, now)
        };
        if self.share_read(r, ppn, None, now) {
            return;
        }
        self.wait_on_flash(r);
        self.enqueue_mapped(tx, now);
    }

    pub(super) fn submit_read(&mut self, r: u32, offset: u64, size: u32, now: Ns) {
        let (a, b) = self.lpn_range(offset, size);
        self.begin_conflict_scan();
        let mut conflict = false;
        for page in a..=b {
            let lpn = self.fold(page);
            let read_id = self.read_ids;
            if self.op_log.is_some() {
                self.read_ids += 1;
                let req = self.reqs[r as usize].host;
                self.log(OpRecord::Read {
                    id: read_id,
                    lpn,
                    req,
                });
            }
            if self.update.as_ref().is_some_and(|u| u.marks_reads()) {
                let mask = self.page_mask(offset, size, page);
                self.read_sectors(lpn, mask, false);
            }
            if self.in_dram(lpn) {
                let missing = self.buffer_read_miss(lpn, offset, size, page);
                if missing > 0 {
                    // The version oracle takes the page from DRAM; the flash
                    // read only times the sectors the buffer lacks.
                    self.log(OpRecord::DramHit { id: read_id, lpn });
                    self.read_unchecked(r, lpn, missing, now);
                    continue;
                }
                self.cache_read_hit(lpn);
                self.stats.dram_read_hits += 1;
                self.reqs[r as usize].dram_bytes += self.page_bytes(offset, size, page) as u32;
                self.log(OpRecord::DramHit { id: read_id, lpn });
                continue;
            }
            let ppn = match self.ftl.lookup(lpn) {
                Some(p) => p,
                // Deallocated by TRIM: zeros, no flash access.
                None if self.ftl.is_trimmed(lpn) => {
                    self.log(OpRecord::Unmapped { id: read_id });
                    continue;
                }
                None => match self.place_for_read(lpn) {
                    Some(p) => {
                        if self.update.is_some() {
                            let mask = self.page_mask(offset, size, page);
                            self.read_sectors(lpn, mask, true);
                        }
                        // A placement that opened (or, eagerly, filled) a
                        // block took a free one: GC must see it, or writes to
                        // this plane can block forever.
                        if self.ftl.frontier_moved(p) {
                            self.maybe_start_gc(self.geo.plane_of(p), now);
                        }
                        p
                    }
                    // Plane full: read some page of the right plane, unmapped.
                    None => {
                        self.log(OpRecord::Unplaced { id: read_id });
                        self.geo
                            .first_ppn(self.ftl.static_plane(lpn) * self.geo.blocks_per_plane)
                    }
                },
            };
            let tx = Tx {
                sectors: self.xfer_sectors(offset, size, page),
                ..self.user_read_at(r, lpn, ppn, read_id, now)
            };
            if self.share_read(r, ppn, Some(read_id), now) {
                continue;
            }
            conflict |= self.note_chip(tx.die);
            self.wait_on_flash(r);
            self.enqueue_mapped(tx, now);
        }
        if self.req_touched {
            self.stats.read_requests += 1;
            self.stats.read_conflicts += conflict as u64;
        }
    }

    pub(super) fn submit_write(&mut self, r: u32, offset: u64, size: u32, now: Ns) {
        let (a, b) = self.lpn_range(offset, size);
        self.begin_conflict_scan();
        let mut conflict = false;
        for page in a..=b {
            let lpn = self.fold(page);
            // Its mapping, then the old copy's reverse entry, are updated
            // when its program starts: fetch them ahead, in two stages.
            self.ftl.prefetch_lookup(lpn);
            self.ftl.prefetch_remap(self.last_write_lpn);
            self.last_write_lpn = lpn;
            let (plane, die) = self.host_write_plane(lpn);
            self.write_seq += 1;
            let seq = self.write_seq;
            self.log(OpRecord::Write { lpn, seq });
            let mut tx = Tx {
                sectors: self.xfer_sectors(offset, size, page),
                ..Tx::user_program(r, lpn, plane, die, seq, now)
            };
            if self.update.is_some() {
                let mask = self.page_mask(offset, size, page);
                self.partial_program(&mut tx, mask);
            }
            let e = self.inflight.entry(lpn).or_default();
            e.pending += 1;
            e.newest = self.write_seq;
            e.newest_done = false;
            if plane != UNPLACED {
                conflict |= self.note_chip(tx.die);
            }
            self.wait_on_flash(r);
            self.enqueue_mapped(tx, now);
        }
        self.stats.write_requests += 1;
        self.stats.write_conflicts += conflict as u64;
    }

    /// Plane and die for a host write of `lpn` (or a cache's write-back of
    /// it): both [`UNPLACED`] while it waits in the write pool.
    pub(super) fn host_write_plane(&mut self, lpn: u32) -> (u32, u32) {
        if self.ftl.alloc == Allocation::DynamicIdleChip {
            return (UNPLACED, UNPLACED);
        }
        let plane = self.write_plane(lpn);
        (plane, self.geo.die_of_plane(plane))
    }

    /// Plane for a user write of `lpn`.
    pub(super) fn write_plane(&mut self, lpn: u32) -> u32 {
        match self.ftl.alloc {
            Allocation::Static { .. } => self.ftl.static_plane(lpn),
            Allocation::Dynamic | Allocation::DynamicIdleChip => {
                // Least-loaded die, scanning round-robin from the last
                // choice. Under chip-level busy a die waits for its whole
                // chip, so the least-loaded chip comes first, then the
                // least-loaded channel (SSDsim hands a write to an idle
                // chip, one channel after another).
                let n = self.geo.dies();
                let sum = |first: u32, len: u32| -> u32 {
                    (first..first + len)
                        .map(|x| self.die_load[x as usize])
                        .sum()
                };
                let key = |d: u32| match self.cmds.unit {
                    BusyUnit::Chip => {
                        let dpc = self.geo.dies_per_chip;
                        let dpch = dpc * self.geo.chips_per_channel;
                        let chip = sum(d / dpc * dpc, dpc);
                        let channel = sum(d / dpch * dpch, dpch);
                        (chip, channel, self.die_load[d as usize])
                    }
                    BusyUnit::Die => (0, 0, self.die_load[d as usize]),
                };
                let mut best = self.rr_die % n;
                for k in 1..n {
                    let d = (self.rr_die + k) % n;
                    if key(d) < key(best) {
                        best = d;
                    }
                }
                // A die with no plane a write can go to without waiting
                // (`open_plane`) is passed over for the least-loaded one that
                // has one.
                let mut open = self.open_plane(best);
                if open.is_none() {
                    let mut alt: Option<(u32, u32)> = None;
                    for k in 0..n {
                        let d = (self.rr_die + k) % n;
                        if alt.is_some_and(|(a, _)| key(d) >= key(a)) {
                            continue;
                        }
                        if let Some(c) = self.open_plane(d) {
                            alt = Some((d, c));
                        }
                    }
                    if let Some((d, c)) = alt {
                        best = d;
                        open = Some(c);
                    }
                }
                self.rr_die = best + 1;
                let ppd = self.geo.planes_per_die;
                let k = open.unwrap_or(inc_mod(self.rr_plane[best as usize], ppd));
                self.rr_plane[best as usize] = k;
                best * ppd + k
            }
        }
    }

    /// The next plane of `die` round-robin (as an index in the die) that a
    /// write can go to without waiting: room for it beside the writes
    /// already queued there before GC frees a block, and GC not stuck there
    /// with nothing to reclaim (the write would wait for pages other writes
    /// invalidate, and under an in-order queue hold back every write behind
    /// it). SSDsim picks the plane when the write is served, so its writes
    /// never wait so.
    fn open_plane(&self, die: u32) -> Option<u32> {
        let ppd = self.geo.planes_per_die;
        let start = self.rr_plane[die as usize];
        (1..=ppd).map(|i| add_mod(start, i, ppd)).find(|&c| {
            let p = die * ppd + c;
            !self.ftl.is_starved(p) && self.ftl.user_room_for(p, self.queued_user_programs(p))
        })
    }

    pub(super) fn req_page_done(&mut self, r: u32, now: Ns) {
        let req = &mut self.reqs[r as usize];
        req.remaining -= 1;
        if req.remaining == 0 {
            self.finish_req(r, now);
        }
    }
}
