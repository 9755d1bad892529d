//! Running transactions on dies and channel buses: a read senses, then
//! moves its data out over the bus; a program moves its data in, then
//! programs; an erase erases. Pages are bound late (a program gets its page
//! when it starts; a read re-checks its page then).

use super::tx::{Origin, Tx, TxId, TxKind};
use super::{DevEvent, EventSink, Ssd};
use crate::check::record::OpRecord;
use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::flash::die::Phase;

impl Ssd {
    /// Take idle `die` for transaction `id`.
    #[inline]
    pub(super) fn occupy(&mut self, die: usize, id: TxId, phase: Phase, now: Ns) {
        self.dies[die].occupy(id, phase, now);
        self.par.take(&self.geo, die as u32, now);
    }

    /// Free `die`.
    #[inline]
    pub(super) fn release_die(&mut self, die: usize, now: Ns) {
        self.dies[die].release(now);
        self.par.free(&self.geo, die as u32, now);
    }

    /// Plan the cell phase (`dur` ns) of the transaction holding `die` from
    /// `from` (or when a suspension lets it); returns its end.
    #[inline]
    pub(super) fn plan_cell(&mut self, die: usize, dur: Ns, from: Ns) -> Ns {
        let d = &mut self.dies[die];
        let t0 = from.max(d.not_before);
        d.phase = Phase::Array;
        d.op_start = t0;
        d.op_end = t0 + dur;
        d.op_end
    }

    /// Begin the cell phase, ending with a DieDone event.
    #[inline]
    pub(super) fn arm<S: EventSink>(&mut self, die: usize, dur: Ns, from: Ns, sink: &mut S) {
        let end = self.plan_cell(die, dur, from);
        let ev = self.die_event(die);
        sink.push(end, ev);
    }

    /// Begin transaction `id` on its (idle) die.
    pub(super) fn start<S: EventSink>(&mut self, id: TxId, now: Ns, sink: &mut S) -> SimResult<()> {
        self.decide_stamp += 1;
        let tx = *self.txs.get(id);
        let die = tx.die as usize;
        let cmd = self.timing.command;
        match (tx.kind, tx.origin) {
            (TxKind::Read, origin) => {
                let mut busy = 0;
                if tx.copyback {
                    // On-die move: destination allocated now, programmed after tR.
                    let Some(dst) = self.gc_destination(id, &tx, now)? else {
                        return Ok(());
                    };
                    self.stats.flash_programs += 1;
                    busy = self.program_ns(dst);
                }
                let Some(ppn) = self.resolve_read(id, &tx, now)? else {
                    return Ok(());
                };
                if origin == Origin::User {
                    self.stats.user_reads += 1;
                    // Write-caused interference: a program/erase held the die
                    // after this read arrived.
                    if self.dies[die].pe_release > tx.enqueued {
                        self.stats.interfered_reads += 1;
                        self.stats.interference_wait_ns += now - tx.enqueued;
                    }
                    self.log(OpRecord::Sense { id: tx.seq, ppn });
                } else {
                    self.stats.gc_reads += 1;
                }
                self.stats.flash_reads += 1;
                busy += self.timing.read_ns(self.geo.page_in_block(ppn));
                self.occupy(die, id, Phase::Array, now);
                if tx.copyback || self.timing.xfer_page == 0 {
                    self.arm(die, cmd + busy, now, sink);
                } else {
                    self.begin_read_out(die, cmd + busy, now, sink);
                }
            }
            (TxKind::Program, Origin::User) => {
                let pref = self.sched.alloc_pref(id, &tx);
                let ppn = self.ftl.alloc_pref(tx.plane, pref).ok_or_else(|| {
                    SimError::Invalid("scheduler started a program with no free page".into())
                })?;
                let entry = self.inflight.entry(tx.lpn).or_default();
                if entry.issued_seq > tx.seq {
                    self.ftl.program_stale(ppn, now);
                    self.stats.superseded_programs += 1;
                } else {
                    entry.issued_seq = tx.seq;
                    self.ftl.map_user_write(tx.lpn, ppn, now);
                }
                self.log(OpRecord::Program {
                    ppn,
                    lpn: tx.lpn,
                    seq: tx.seq,
                });
                self.txs.get_mut(id).ppn = ppn;
                self.stats.flash_programs += 1;
                self.begin_program(id, die, now, sink);
                self.maybe_start_gc(tx.plane, now);
            }
            // A GC move's program (a reclaim is only ever an erase).
            (TxKind::Program, _) => {
                let Some(dst) = self.gc_destination(id, &tx, now)? else {
                    return Ok(());
                };
                self.txs.get_mut(id).ppn = dst;
                self.stats.flash_programs += 1;
                self.begin_program(id, die, now, sink);
            }
            (TxKind::Erase, _) => {
                self.log(OpRecord::EraseStart { block: tx.ppn });
                self.occupy(die, id, Phase::Array, now);
                self.arm(die, cmd + self.timing.erase, now, sink);
            }
        }
        Ok(())
    }

    pub(super) fn die_event(&self, die: usize) -> DevEvent {
        DevEvent::DieDone {
            die: die as u32,
            gen: self.dies[die].gen,
        }
    }

    /// A program: data in over the bus (if any), then tPROG. The transfer is
    /// reserved now, so the program's end is known and scheduled at once.
    pub(super) fn begin_program<S: EventSink>(
        &mut self,
        id: TxId,
        die: usize,
        now: Ns,
        sink: &mut S,
    ) {
        let cmd = self.timing.command;
        let t_prog = self.program_ns(self.txs.get(id).ppn);
        self.occupy(die, id, Phase::Array, now);
        if self.timing.xfer_page == 0 {
            self.arm(die, cmd + t_prog, now, sink);
        } else {
            let ch = self.geo.channel_of_die(die as u32);
            let end = self.channels[ch as usize].reserve(now, &mut self.retimed);
            self.push_retimed(ch, sink);
            self.dies[die].xfer_end = end;
            self.arm(die, t_prog, end, sink);
        }
    }

    /// A read's sense (`sense` ns from `now`, or when a suspension lets it),
    /// then its data-out, entered in the channel's timeline now; the read
    /// completes when the transfer ends (no event at the sense's end).
    pub(super) fn begin_read_out<S: EventSink>(
        &mut self,
        die: usize,
        sense: Ns,
        now: Ns,
        sink: &mut S,
    ) {
        let ready = self.plan_cell(die, sense, now);
        let ch = self.geo.channel_of_die(die as u32);
        self.channels[ch as usize].add_readout(ready, die as u32, &mut self.retimed);
        self.push_retimed(ch, sink);
    }

    /// (Re)schedule the completion of data-outs whose end changed; events
    /// already queued for them go stale.
    #[inline]
    pub(super) fn push_retimed<S: EventSink>(&mut self, ch: u32, sink: &mut S) {
        for i in 0..self.retimed.len() {
            let (die, end) = self.retimed[i];
            let d = &mut self.dies[die as usize];
            d.gen = d.gen.wrapping_add(1);
            sink.push(
                end,
                DevEvent::BusDone {
                    ch,
                    die,
                    gen: d.gen,
                },
            );
        }
        self.retimed.clear();
    }

    /// Check a read's page right before sensing it. Returns the page to read,
    /// or `None` if the read needs no flash access (or moved to another die).
    pub(super) fn resolve_read(&mut self, id: TxId, tx: &Tx, now: Ns) -> SimResult<Option<u32>> {
        if tx.origin == Origin::Gc {
            // A GC read whose page was overwritten meanwhile has nothing to move
            // (copyback moves were checked when their destination was taken).
            if !tx.copyback && self.ftl.owner(tx.ppn) != Some(tx.lpn) {
                self.finish_gc_move(id, tx.owner, now);
                return Ok(None);
            }
            return Ok(Some(tx.ppn));
        }
        let block = self.geo.block_of(tx.ppn);
        // With P/E suspension a read can run while its own block's erase is
        // suspended (EAR): its data was moved, so it must look again.
        let erasing = matches!(self.dies[tx.die as usize].suspended,
            Some((sid, _)) if { let s = self.txs.get(sid); s.kind == TxKind::Erase && s.ppn == block });
        if self.ftl.erase_count(block) == tx.epoch && !erasing {
            return Ok(Some(tx.ppn));
        }
        // The block was erased after translation: the data lives elsewhere now.
        self.stats.reads_relocated += 1;
        if self.in_dram(tx.lpn) {
            self.stats.dram_read_hits += 1;
            self.log(OpRecord::DramHit {
                id: tx.seq,
                lpn: tx.lpn,
            });
            self.complete(id, now)?;
            return Ok(None);
        }
        match self.ftl.lookup(tx.lpn) {
            None => {
                self.log(OpRecord::Unmapped { id: tx.seq });
                self.complete(id, now)?;
                Ok(None)
            }
            Some(p) => {
                let plane = self.geo.plane_of(p);
                let t = self.txs.get_mut(id);
                t.ppn = p;
                t.plane = plane;
                t.epoch = self.ftl.erase_count(self.geo.block_of(p));
                let new_die = self.geo.die_of_plane(plane);
                if new_die == tx.die {
                    Ok(Some(p))
                } else {
                    t.die = new_die;
                    let moved = *t;
                    self.die_load[tx.die as usize] -= 1;
                    self.die_load[new_die as usize] += 1;
                    self.decide_stamp += 1;
                    self.sched.push(id, &moved, now);
                    self.mark(new_die);
                    Ok(None)
                }
            }
        }
    }

    /// Apply one of this device's events.
    pub fn handle(&mut self, ev: DevEvent, now: Ns) -> SimResult<()> {
        match ev {
            DevEvent::DieDone { die, gen } => {
                let d = &self.dies[die as usize];
                if d.gen != gen || d.phase != Phase::Array {
                    return Ok(()); // stale (suspended or re-issued operation)
                }
                let id = d.tx;
                self.complete(id, now)?;
            }
            DevEvent::BusDone { ch, die, gen } => {
                let d = &self.dies[die as usize];
                if d.gen != gen || d.is_idle() {
                    return Ok(()); // delayed and rescheduled
                }
                let id = d.tx;
                self.channels[ch as usize].finish_readout(die);
                self.complete(id, now)?;
            }
        }
        Ok(())
    }

    /// Transaction `id` is finished: free its die and advance its owner.
    pub(super) fn complete(&mut self, id: TxId, now: Ns) -> SimResult<()> {
        let tx = self.txs.remove(id);
        let die = tx.die as usize;
        if self.dies[die].tx == id && !self.dies[die].is_idle() {
            self.release_die(die, now);
            if tx.kind != TxKind::Read {
                self.dies[die].pe_release = now;
            }
        }
        self.die_load[die] -= 1;
        self.mark(tx.die);
        match (tx.kind, tx.origin) {
            (TxKind::Read, Origin::User) => self.req_page_done(tx.owner),
            (TxKind::Program, Origin::User) => {
                if let Some(e) = self.inflight.get_mut(&tx.lpn) {
                    e.pending -= 1;
                    e.newest_done |= e.newest == tx.seq;
                    if e.pending == 0 {
                        self.inflight.remove(&tx.lpn);
                    }
                }
                self.log(OpRecord::ProgramDone {
                    lpn: tx.lpn,
                    seq: tx.seq,
                });
                self.req_page_done(tx.owner);
                self.release_buffer(now);
            }
            // GC moves (a reclaim is only ever an erase).
            (TxKind::Read, _) if tx.copyback => self.gc_move_done(tx.plane, now),
            (TxKind::Read, _) => {
                let prog = Tx {
                    kind: TxKind::Program,
                    enqueued: now,
                    ..tx
                };
                self.enqueue(prog, now);
            }
            (TxKind::Program, _) => self.gc_move_done(tx.plane, now),
            (TxKind::Erase, Origin::Reclaim) => {
                self.ftl.erase_reclaimed(tx.ppn, now)?;
                self.log(OpRecord::Erase { block: tx.ppn });
            }
            (TxKind::Erase, _) => {
                // Victims only hold moved or invalidated pages by now; an
                // error here is an accounting bug and stops the run.
                self.ftl.erase(tx.ppn, now)?;
                self.log(OpRecord::Erase { block: tx.ppn });
                if let Some(v) = &mut self.variation {
                    // Write-speed detection after the erase (VIOS §3.1).
                    v.detect(tx.ppn, self.ftl.erase_count(tx.ppn));
                    let key = v.program_ns(tx.ppn, self.timing.program);
                    self.ftl
                        .set_block_speed(tx.ppn, key.min(u32::MAX as u64) as u32);
                }
                let chip = self.geo.chip_of_die(tx.die);
                self.chip_gc[chip as usize] -= 1;
                self.gc_epoch += 1;
                // Writes blocked on space in this plane (same die, already
                // marked) may proceed; more GC may be due.
                self.maybe_start_gc(tx.plane, now);
            }
        }
        Ok(())
    }
}
