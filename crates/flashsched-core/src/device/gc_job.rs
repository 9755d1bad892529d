//! GC jobs: one victim block per plane, its valid pages moved (read +
//! program, or on-die copyback) through the transaction scheduler like
//! user I/O, then erased; and erases of blocks TRIM emptied.

use super::tx::{Origin, Tx, TxId};
use super::Ssd;
use crate::check::record::OpRecord;
use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::ftl::Stream;

/// One GC job (one victim block in one plane).
#[derive(Debug, Clone, Default)]
pub(super) struct GcJob {
    pub(super) victim: u32,
    /// Valid pages to relocate, as (lpn, ppn) at job start.
    pub(super) moves: Vec<(u32, u32)>,
    /// Next entry of `moves` to issue.
    pub(super) next: usize,
    /// Moves not finished yet (issued or not).
    pub(super) pending: u32,
}

impl Ssd {
    /// Allocate the destination of a GC move if the page is still live.
    pub(super) fn gc_destination(&mut self, id: TxId, tx: &Tx, now: Ns) -> SimResult<Option<u32>> {
        if self.ftl.lookup(tx.lpn) != Some(tx.ppn) {
            self.finish_gc_move(id, tx.owner, now);
            return Ok(None);
        }
        let dst = self.ftl.alloc(tx.plane, Stream::Gc).ok_or_else(|| {
            SimError::Invalid(format!("GC in plane {} ran out of free pages", tx.plane))
        })?;
        self.ftl.gc_move(tx.lpn, tx.ppn, dst, now);
        self.mapping_changed(tx.lpn, now);
        self.log(OpRecord::GcCopy {
            from: tx.ppn,
            to: dst,
        });
        Ok(Some(dst))
    }

    /// A GC move finished (or turned out unnecessary) without holding a die.
    pub(super) fn finish_gc_move(&mut self, id: TxId, plane: u32, now: Ns) {
        let tx = self.txs.remove(id);
        self.load_dec(tx.die);
        self.gc_move_done(plane, now);
    }

    pub(super) fn gc_move_done(&mut self, plane: u32, now: Ns) {
        let job = &mut self.gc[plane as usize];
        job.pending -= 1;
        if job.pending == 0 {
            job.moves = Vec::new();
            self.push_erase(plane, now);
        } else {
            self.issue_gc_moves(plane, 1, now);
        }
    }

    /// Queue up to `n` more moves of `plane`'s GC job.
    pub(super) fn issue_gc_moves(&mut self, plane: u32, n: usize, now: Ns) {
        let die = self.geo.die_of_plane(plane);
        for _ in 0..n {
            let job = &mut self.gc[plane as usize];
            let Some(&(lpn, ppn)) = job.moves.get(job.next) else {
                return;
            };
            job.next += 1;
            // The list is read one move at a time over the whole job: keep
            // its next cache line coming.
            if let Some(e) = job.moves.get(job.next + 8) {
                crate::engine::prefetch(e);
            }
            // The read checks its page's owner when it starts and the program
            // looks up its mapping.
            self.ftl.prefetch_lookup(lpn);
            self.ftl.prefetch_owner(ppn);
            self.enqueue(Tx::gc_move(lpn, ppn, plane, die, self.copyback, now), now);
        }
    }

    pub(super) fn push_erase(&mut self, plane: u32, now: Ns) {
        let victim = self.gc[plane as usize].victim;
        let die = self.geo.die_of_plane(plane);
        self.enqueue(Tx::erase(Origin::Gc, victim, plane, die, now), now);
    }

    /// Start a GC job in `plane` if it is below its free-block threshold.
    pub(super) fn maybe_start_gc(&mut self, plane: u32, now: Ns) {
        if !self.ftl.gc_needed(plane) {
            return;
        }
        let Some(victim) = self.ftl.gc_begin(plane, now) else {
            return;
        };
        let chip = self.geo.chip_of_die(self.geo.die_of_plane(plane));
        self.chip_gc_step(chip, true, now);
        self.gate.gc_began(plane);
        self.gc_epoch += 1;
        let moves = self.ftl.valid_pages(victim);
        let n = moves.len();
        self.gc[plane as usize] = GcJob {
            victim,
            pending: n as u32,
            moves,
            next: 0,
        };
        if n == 0 {
            self.push_erase(plane, now);
            return;
        }
        let window = if self.gc_window == 0 {
            n
        } else {
            self.gc_window as usize
        };
        self.issue_gc_moves(plane, window, now);
    }

    /// Erase every written block that TRIM left without valid data, as timed
    /// erase operations on the dies (queued like GC erases). The serial array
    /// calls this after TRIMming a whole SSD, so erases happen only then
    /// (Kim et al., HotStorage'17 §2.2) and internal GC never has to.
    /// Returns the number of erases queued.
    pub fn erase_trimmed_blocks(&mut self, now: Ns) -> u32 {
        let mut n = 0;
        for plane in 0..self.geo.planes() {
            for block in self.ftl.take_reclaimable(plane) {
                let die = self.geo.die_of_plane(plane);
                self.enqueue(Tx::erase(Origin::Reclaim, block, plane, die, now), now);
                n += 1;
            }
        }
        n
    }
}
