//! Address translation through the cached mapping table (`[mapping]`,
//! `mapping.rs`): a host page read or program goes to the scheduler only
//! once its mapping entry is in DRAM. A miss reads the entry's translation
//! page first (one read serves every miss on that page); evicting a changed
//! entry writes its translation page back — a read to merge, then a program
//! of the new copy (MQSim's `Address_Mapping_Unit_Page_Level`).

use super::mapping::Query;
use super::tx::{Tx, TxKind};
use super::Ssd;
use crate::engine::Ns;

impl Ssd {
    /// Queue host page transaction `tx` once its mapping entry is cached.
    pub(super) fn enqueue_mapped(&mut self, tx: Tx, now: Ns) {
        let Some(cmt) = &mut self.cmt else {
            return self.enqueue_translated(tx, now);
        };
        self.stats.cmt_queries += 1;
        match cmt.query(tx.lpn) {
            Query::Hit | Query::Departing => {
                self.stats.cmt_hits += 1;
                if tx.kind == TxKind::Program {
                    cmt.update(tx.lpn);
                }
                self.enqueue_translated(tx, now);
            }
            Query::Wait => cmt.park(cmt.tp_of(tx.lpn), tx),
            Query::Fetch => {
                let tp = cmt.tp_of(tx.lpn);
                cmt.park(tp, tx);
                self.read_translation(tp, now);
            }
        }
        self.write_back_evicted(now);
    }

    /// `lpn`'s mapping changed outside a host write (a GC move or TRIM):
    /// its cached entry is dirty now.
    pub(super) fn mapping_changed(&mut self, lpn: u32, now: Ns) {
        if let Some(cmt) = &mut self.cmt {
            if !cmt.is_translation(lpn) {
                cmt.update(lpn);
                self.write_back_evicted(now);
            }
        }
    }

    /// Issue the read of translation page `tp`.
    fn read_translation(&mut self, tp: u32, now: Ns) {
        let Some(cmt) = &self.cmt else { return };
        let lpn = cmt.base + tp;
        match self.ftl.lookup(lpn) {
            Some(ppn) => {
                let plane = self.geo.plane_of(ppn);
                let die = self.geo.die_of_plane(plane);
                let epoch = self.ftl.erase_count(self.geo.block_of(ppn));
                let read = Tx {
                    sectors: cmt.read_sectors,
                    ..Tx::map_read(tp, lpn, ppn, plane, die, epoch, now)
                };
                self.enqueue(read, now);
            }
            // Never stored (translation pages are placed at build): nothing
            // to read, the entries are known.
            None => self.translation_read_done(tp, now),
        }
    }

    /// Write back the translation pages evictions asked for.
    fn write_back_evicted(&mut self, now: Ns) {
        while let Some(tp) = self.cmt.as_mut().and_then(|c| c.evicted.pop()) {
            self.stats.cmt_writebacks += 1;
            let read = self.cmt.as_mut().is_some_and(|c| c.begin_writeback(tp));
            if read {
                self.read_translation(tp, now);
            }
        }
    }

    /// The read of translation page `tp` finished: release what waited for
    /// it and program the write-backs that needed it.
    pub(super) fn translation_read_done(&mut self, tp: u32, now: Ns) {
        let Some(cmt) = &mut self.cmt else { return };
        let mut parked = std::mem::take(&mut self.parked_scratch);
        let programs = cmt.read_done(tp, &mut parked);
        let lpn = cmt.base + tp;
        for tx in parked.drain(..) {
            if tx.kind == TxKind::Program {
                if let Some(c) = &mut self.cmt {
                    c.update(tx.lpn);
                }
            }
            self.enqueue_translated(
                Tx {
                    enqueued: now,
                    ..tx
                },
                now,
            );
        }
        for _ in 0..programs {
            self.write_seq += 1;
            let seq = self.write_seq;
            let e = self.inflight.entry(lpn).or_default();
            e.pending += 1;
            e.newest = seq;
            e.newest_done = false;
            let plane = self.write_plane(lpn);
            let die = self.geo.die_of_plane(plane);
            self.enqueue(Tx::map_program(tp, lpn, plane, die, seq, now), now);
        }
        self.parked_scratch = parked;
        self.write_back_evicted(now);
    }

    /// A write-back program of translation page `tp` (hidden `lpn`, version
    /// `seq`) finished.
    pub(super) fn translation_program_done(&mut self, tp: u32, lpn: u32, seq: u64) {
        if let Some(e) = self.inflight.get_mut(&lpn) {
            e.pending -= 1;
            e.newest_done |= e.newest == seq;
            if e.pending == 0 && e.newest_done {
                self.inflight.remove(&lpn);
            }
        }
        if let Some(c) = &mut self.cmt {
            c.program_done(tp);
        }
    }
}
