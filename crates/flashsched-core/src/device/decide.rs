//! The decide phase on the device: dies that may have work are offered it
//! by the transaction scheduler, in the order they were marked.

use super::config::MultiPlane;
use super::sched::{program_stream, PickCtx, TxScheduler};
use super::tx::{Tx, TxId, TxKind};
use super::{pick_ctx, EventSink, Ssd, MAX_DECIDE_PASSES};
use crate::divisor::add_mod;
use crate::engine::Ns;
use crate::error::{SimError, SimResult};

impl Ssd {
    /// Queue `tx` for its die (or pool it, when it has no plane yet).
    /// Inlined where transactions are built, so each is stored as it is
    /// built: passed in memory it was written field by field and then
    /// copied whole, a load wider than the stores it reads, which the CPU
    /// cannot forward (a stall on every transaction).
    #[inline(always)]
    pub(super) fn enqueue(&mut self, tx: Tx, now: Ns) {
        if tx.plane == super::write_pool::UNPLACED {
            return self.pool_write(tx, now);
        }
        self.decide_stamp += 1;
        let id = self.txs.insert(tx);
        self.enqueue_stored(id, &tx, now);
    }

    /// Queue `tx`, stored in the arena as `id`, for its die (a new one, or
    /// a pooled write just given its plane).
    pub(super) fn enqueue_stored(&mut self, id: TxId, tx: &Tx, now: Ns) {
        let die = tx.die;
        // Its offset set in place: copying a `Tx` just after one field of
        // it was written reads that field back wider than it was stored.
        if let Some(offset) = self.queued_offset(tx) {
            self.txs.get_mut(id).epoch = offset;
        }
        self.load_inc(die);
        self.sched.push(id, self.txs.get(id), now);
        self.note_queued(tx, now);
        // A busy die is re-marked when it frees; only a suspending scheduler
        // needs to see new work arrive at a busy die (to preempt it).
        if self.suspends || self.dies[die as usize].is_idle() {
            self.mark(die);
        } else if self.verify_hints {
            self.check_no_preempt(die, now);
        }
    }

    /// The page offset `tx` takes when queued (its `epoch`), if any: under
    /// `onfi-queued` a program gets it now, as MQSim's mapping unit gives
    /// it its page (its frontier's next page plus the programs of that
    /// frontier already waiting there: host programs on the user frontier,
    /// GC programs on the GC frontier).
    #[inline]
    pub(super) fn queued_offset(&self, tx: &Tx) -> Option<u32> {
        if self.cmds.multiplane != MultiPlane::OnfiQueued || tx.kind != TxKind::Program {
            return None;
        }
        let p = tx.plane as usize;
        let stream = program_stream(&self.ftl, tx.origin);
        let waiting = self.queued_programs[p][stream as usize];
        let next = self.ftl.next_page_offset(tx.plane, stream);
        Some(self.geo.rem_pages_per_block(next + waiting))
    }

    #[inline]
    pub(super) fn mark(&mut self, die: u32) {
        // Channel-idle dispatch serves a marked die's whole channel
        // (`serve_channel`): one mark per channel, whichever die asked, so
        // a channel is not served again at an instant for each of its dies
        // (a suspending scheduler is asked about the die itself).
        let die = if self.marks_channels() {
            self.geo.channel_first_die(die)
        } else {
            die
        };
        let d = &mut self.dies[die as usize];
        if !d.dirty {
            d.dirty = true;
            self.dirty.push(die);
        }
    }

    /// A mark stands for a die's whole channel (`mark`).
    #[inline]
    fn marks_channels(&self) -> bool {
        self.chan_dispatch.is_some() && !self.suspends
    }

    /// Mark every die of `chip`, from the one after the last that started
    /// (one mark when marks stand for channels).
    pub(super) fn mark_chip(&mut self, chip: u32) {
        let dpc = self.geo.dies_per_chip;
        if self.marks_channels() {
            return self.mark(chip * dpc);
        }
        let first = self.cmds.chip_next[chip as usize];
        for k in 0..dpc {
            self.mark(chip * dpc + add_mod(first, k, dpc));
        }
    }

    /// A visit to `chip` would start nothing: a `per_die` scheduler has
    /// nothing for a chip with nothing queued or running (and asking it
    /// changes nothing), and no pooled write (`write_pool.rs`) waits.
    #[inline]
    pub(super) fn nothing_for_chip(&self, chip: u32) -> bool {
        self.idle_chips_pass() && !self.chip_loaded(chip)
    }

    /// Whether a chip with nothing queued or running is passed without a
    /// visit (`nothing_for_chip`; channel-idle dispatch steps over runs of
    /// them).
    #[inline]
    pub(super) fn idle_chips_pass(&self) -> bool {
        self.per_die && self.write_pool.is_empty()
    }

    /// `verify_hints`: a scheduler that does not declare `suspends` is
    /// offered the suspension a suspending one would get; taking it is an
    /// error (marking the die instead would reorder the dies served).
    pub(super) fn check_no_preempt(&mut self, die: u32, now: Ns) {
        let Some((_, running, _, remaining)) = self.suspend_point(die, now) else {
            return;
        };
        let ctx = pick_ctx!(self, now);
        if self.sched.preempt(die, &running, remaining, &ctx).is_some() {
            self.hint_error.get_or_insert_with(|| {
                format!(
                    "transaction scheduler `{}` preempted a running operation but does not \
                     declare `suspends` in its caps",
                    self.sched_name
                )
            });
        }
    }

    /// Start work on every idle die that may have some. Call once per time
    /// step, after all events at that instant have been applied. Front-end
    /// steps planned at this instant (also while starting work: a read can
    /// turn out to be a DRAM hit) become events.
    pub fn schedule<S: EventSink>(&mut self, now: Ns, sink: &mut S) -> SimResult<()> {
        let r = self.decide(now, sink);
        self.push_planned(now, sink);
        // An `Ok` is made afresh, not passed on: copied whole, the result
        // (whose tag alone was just written) stalled the CPU.
        r?;
        Ok(())
    }

    /// Front-end steps planned at this instant become events.
    #[inline]
    fn push_planned<S: EventSink>(&mut self, now: Ns, sink: &mut S) {
        for (at, slot, seq) in self.front.take_planned() {
            debug_assert!(at >= now, "front-end step planned in the past");
            sink.push(at, super::DevEvent::Front { slot, seq });
        }
    }

    fn decide<S: EventSink>(&mut self, now: Ns, sink: &mut S) -> SimResult<()> {
        if let Some(e) = self.hint_error.take() {
            return Err(SimError::Invalid(e).into());
        }
        if self.ftl.starved_retry_due() {
            self.retry_starved_gc(now);
        }
        if !self.coordinates {
            return self.serve_dirty(now, sink);
        }
        // A planning scheduler sees work queued or started while dies are
        // served only at its next `prepare`; repeat until a pass changes
        // nothing, so what it decides at an instant does not depend on
        // whether some other event happens to share it.
        // Each pass that changes something moves queued work along, so this
        // ends; the bound turns a scheduler bug into an error, not a hang.
        for _ in 0..MAX_DECIDE_PASSES {
            let before = self.decide_stamp;
            let ctx = pick_ctx!(self, now);
            self.sched.prepare(&ctx);
            self.drain_wakes();
            self.serve_dirty(now, sink)?;
            if self.decide_stamp == before {
                return Ok(());
            }
        }
        Err(SimError::Invalid(format!(
            "transaction scheduler `{}` kept changing its plan at t={now} ns ({MAX_DECIDE_PASSES} passes)",
            self.sched_name
        )).into())
    }

    /// Serve the marked dies in the order they were marked (deterministic
    /// and fair); dies marked while serving join the end of the list.
    pub(super) fn serve_dirty<S: EventSink>(&mut self, now: Ns, sink: &mut S) -> SimResult<()> {
        let mut i = 0;
        while i < self.dirty.len() {
            let die = self.dirty[i];
            i += 1;
            self.schedule_die(die, now, sink)?;
            if self.coordinates {
                self.drain_wakes();
            }
        }
        self.dirty.clear();
        Ok(())
    }

    /// Mark the dies the scheduler asked to be offered work.
    pub(super) fn drain_wakes(&mut self) {
        self.sched.wakes(&mut self.wake_buf);
        self.decide_stamp += self.wake_buf.len() as u64;
        for i in 0..self.wake_buf.len() {
            let d = self.wake_buf[i];
            self.mark(d);
        }
        self.wake_buf.clear();
    }

    /// Ask the scheduler for work with `pick`: user work first, then any,
    /// when GC is preemptive (`GcGate`); otherwise once.
    #[inline]
    fn offer(
        &mut self,
        now: Ns,
        pick: impl Fn(&mut dyn TxScheduler, &PickCtx) -> Option<TxId>,
    ) -> Option<TxId> {
        if self.gate.user_first() {
            let ctx = pick_ctx!(self, now, true);
            if let Some(id) = pick(self.sched.as_mut(), &ctx) {
                return Some(id);
            }
        }
        let ctx = pick_ctx!(self, now);
        pick(self.sched.as_mut(), &ctx)
    }

    /// A chip-queue scheduler chooses for the whole chip, as long as the
    /// chip may take commands and has an idle die.
    fn schedule_chip<S: EventSink>(&mut self, chip: u32, now: Ns, sink: &mut S) -> SimResult<()> {
        let dpc = self.geo.dies_per_chip;
        let mut placed = false;
        while !self.cmds.chip_blocked(chip, now) {
            let mut dies = 0u64;
            for k in 0..dpc {
                let d = &self.dies[(chip * dpc + k) as usize];
                if d.is_idle() && d.suspended.is_none() {
                    dies |= 1 << k;
                }
            }
            if dies == 0 {
                break;
            }
            // Channel-idle dispatch visits every chip of a channel: most have
            // nothing queued for their idle dies.
            let id = if self.per_die
                && (0..dpc)
                    .all(|k| dies & (1 << k) == 0 || self.die_load[(chip * dpc + k) as usize] == 0)
            {
                None
            } else {
                self.offer(now, |s, ctx| s.pick_chip(chip, dies, ctx))
            };
            let Some(id) = id else {
                if self.take_pooled(&mut placed, chip, dies, now) {
                    continue;
                }
                break;
            };
            self.start(id, now, sink)?;
        }
        Ok(())
    }

    pub(super) fn schedule_die<S: EventSink>(
        &mut self,
        die: u32,
        now: Ns,
        sink: &mut S,
    ) -> SimResult<()> {
        self.dies[die as usize].dirty = false;
        if self.suspends && !self.dies[die as usize].is_idle() {
            return self.try_suspend(die, now, sink);
        }
        if self.chan_dispatch.is_some() {
            // Channel-idle dispatch: the channel decides when and which chip.
            return self.serve_channel(self.geo.channel_of_die(die), now, sink);
        }
        let chip = self.geo.chip_of_die(die);
        // (SSDsim's pool marks every idle chip for each write; one takes it.)
        if self.nothing_for_chip(chip) {
            return Ok(());
        }
        if self.cmds.chip_blocked(chip, now) {
            return Ok(()); // offered again when its chip frees
        }
        if self.chip_queues {
            return self.schedule_chip(chip, now, sink);
        }
        self.fill_die(die, now, sink)
    }

    /// Offer work to chip `chip` (channel-idle dispatch visits chips one by
    /// one): the whole chip to a chip-queue scheduler, else its idle dies
    /// in turn, from the one after the last that started, while the bus
    /// stays idle.
    pub(super) fn visit_chip<S: EventSink>(
        &mut self,
        chip: u32,
        now: Ns,
        sink: &mut S,
    ) -> SimResult<()> {
        if self.cmds.chip_blocked(chip, now) {
            return Ok(());
        }
        if self.chip_queues {
            return self.schedule_chip(chip, now, sink);
        }
        let dpc = self.geo.dies_per_chip;
        let first = self.cmds.chip_next[chip as usize];
        let ch = self.geo.channel_of_chip(chip) as usize;
        for k in 0..dpc {
            if self.cmds.chip_blocked(chip, now) || !self.channels[ch].idle_at(now) {
                break;
            }
            self.fill_die(chip * dpc + add_mod(first, k, dpc), now, sink)?;
        }
        Ok(())
    }

    /// The idle `dies` of `chip` have nothing they can start: they take
    /// pooled writes (`write_pool.rs`), once per visit (`placed`). Returns
    /// whether any were placed (then the scheduler is asked again).
    #[inline]
    fn take_pooled(&mut self, placed: &mut bool, chip: u32, dies: u64, now: Ns) -> bool {
        if *placed || self.write_pool.is_empty() {
            return false;
        }
        *placed = self.place_pooled(chip, dies, now);
        *placed
    }

    /// Start work on idle `die` while the scheduler has some for it.
    fn fill_die<S: EventSink>(&mut self, die: u32, now: Ns, sink: &mut S) -> SimResult<()> {
        let mut placed = false;
        while self.dies[die as usize].is_idle() {
            if let Some((sid, remaining)) = self.dies[die as usize].suspended {
                // A suspended P/E: serve what the scheduler preempts with, then resume.
                let running = *self.txs.get(sid);
                let ctx = pick_ctx!(self, now);
                if let Some(id) = self.sched.preempt(die, &running, remaining, &ctx) {
                    self.start(id, now, sink)?;
                    continue;
                }
                self.resume(die, now, sink);
                break;
            }
            // Nothing queued or running here (an idle die has nothing
            // running, and a suspended operation would count).
            let id = if self.per_die && self.die_load[die as usize] == 0 {
                None
            } else {
                self.offer(now, |s, ctx| s.pick(die, ctx))
            };
            let Some(id) = id else {
                let (chip, k) = (self.geo.chip_of_die(die), self.geo.die_in_chip(die));
                if self.take_pooled(&mut placed, chip, 1 << k, now) {
                    continue;
                }
                break;
            };
            self.start(id, now, sink)?;
        }
        Ok(())
    }
}
