//! Running transactions on dies and channel buses: a read senses, then
//! moves its data out over the bus; a program moves its data in, then
//! programs; an erase erases. Pages are bound late (a program gets its page
//! when it starts; a read re-checks its page then).

use super::config::{BusyUnit, MultiPlane};
use super::sched::program_stream;
use super::tx::{Origin, Tx, TxId, TxKind, UNCHECKED_READ};
use super::{pick_ctx, DevEvent, EventSink, Ssd};
use crate::check::record::OpRecord;
use crate::divisor::inc_mod;
use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::flash::die::Phase;
use crate::flash::CommandKind;
use crate::ftl::Stream;

impl Ssd {
    /// Take idle `die` for the command led by `lead`.
    #[inline]
    pub(super) fn occupy(&mut self, die: usize, lead: TxId, phase: Phase, now: Ns) {
        self.dies[die].occupy(lead, phase, now);
        self.par.take(&self.geo, die as u32, now);
        if self.cmds.unit == BusyUnit::Chip {
            let chip = self.geo.chip_of_die(die as u32) as usize;
            if self.cmds.chip_active[chip] == 0 {
                self.cmds.chip_since[chip] = now;
                let solo = self.cmds.lone_reads && self.txs.get(lead).is_plain_read();
                self.cmds.solo[chip] = solo;
                if let Some(cd) = self.chan_dispatch.as_mut() {
                    let (ch, way) = self.geo.channel_way(chip as u32);
                    cd.set_active(ch, way, now, self.cmds.interleave && !solo);
                }
            }
            self.cmds.chip_active[chip] += 1;
            let dpc = self.geo.dies_per_chip;
            self.cmds.chip_next[chip] = inc_mod(self.geo.die_in_chip(die as u32), dpc);
        }
    }

    /// Free `die`. Under chip-level busy, a chip that becomes idle offers
    /// all its dies work, from the one after the last that started.
    #[inline]
    pub(super) fn release_die(&mut self, die: usize, now: Ns) {
        self.dies[die].release(now);
        self.par.free(&self.geo, die as u32, now);
        if self.cmds.unit == BusyUnit::Chip {
            let chip = self.geo.chip_of_die(die as u32);
            let active = &mut self.cmds.chip_active[chip as usize];
            *active -= 1;
            if *active == 0 {
                if let Some(cd) = self.chan_dispatch.as_mut() {
                    let (ch, way) = self.geo.channel_way(chip);
                    cd.set_inactive(ch, way);
                }
                self.mark_chip(chip);
            }
        }
    }

    /// One member of `die`'s running command finished: the die frees with
    /// the last one.
    #[inline]
    fn member_done(&mut self, die: usize, kind: TxKind, now: Ns) {
        let left = &mut self.cmds.left[die];
        *left -= 1;
        if *left == 0 {
            self.release_die(die, now);
            if kind != TxKind::Read {
                self.dies[die].pe_release = now;
            }
        }
    }

    /// Plan the cell phase (`dur` ns) of the command holding `die` from
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

    /// Begin transaction `id` (just picked) on its idle die, with the
    /// companions the scheduler adds when multi-plane commands are on.
    pub(super) fn start<S: EventSink>(&mut self, id: TxId, now: Ns, sink: &mut S) -> SimResult<()> {
        self.decide_stamp += 1;
        let mut ids = std::mem::take(&mut self.cmds.scratch);
        ids.clear();
        ids.push(id);
        // (Copied plainly: moved around as an `Option<Tx>` it was copied in
        // pieces and read back whole, a store-forwarding stall.)
        let lead = *self.txs.get(id);
        if self.cmds.multiplane != MultiPlane::Off
            && !(self.cmds.lone_reads && lead.is_plain_read())
        {
            let ppd = self.geo.planes_per_die;
            let mut taken = 1u64 << self.geo.plane_in_die(lead.plane);
            while (ids.len() as u32) < ppd {
                // Companions are queued transactions of the lead's die: its
                // load counts them and the members taken, so with no more
                // than those there is none to look for (the common case).
                if self.die_load[lead.die as usize] as usize <= ids.len() {
                    break;
                }
                let ctx = pick_ctx!(self, now);
                if !ctx.companion_possible(&lead, taken) {
                    break;
                }
                let Some(c) = self.sched.pick_companion(lead.die, &lead, taken, &ctx) else {
                    break;
                };
                taken |= 1 << self.geo.plane_in_die(self.txs.get(c).plane);
                ids.push(c);
            }
        }
        if self.cmds.multiplane == MultiPlane::SameBlock
            && ids.len() > 1
            && self.txs.get(id).kind == TxKind::Program
        {
            // SSDsim's two-plane program leads with the die's lowest plane
            // (`get_ppn_for_advanced_commands` walks the planes upwards):
            // the others are levelled up to its page.
            let txs = &self.txs;
            ids.sort_by_key(|&m| txs.get(m).plane);
        }
        let r = match self.txs.get(id).kind {
            TxKind::Read => self.start_reads(&ids, now, sink),
            TxKind::Program => self.start_programs(&ids, now, sink),
            TxKind::Erase => self.start_erases(&ids, now, sink),
        };
        self.cmds.scratch = ids;
        r
    }

    /// Count a command of `n` operations.
    #[inline]
    fn count_command(&mut self, n: usize) {
        self.stats.flash_commands += 1;
        self.stats.command_ops += n as u64;
    }

    /// Reads (or copyback moves) of one die: each page is checked first
    /// (it may have moved, or need no flash at all); one sense for all,
    /// then each page's data-out on the channel, in member order.
    fn start_reads<S: EventSink>(&mut self, ids: &[TxId], now: Ns, sink: &mut S) -> SimResult<()> {
        let die = self.txs.get(ids[0]).die as usize;
        let mut kept = std::mem::take(&mut self.cmds.members[die]);
        kept.clear();
        let mut sense = 0;
        let mut copyback = false;
        for &id in ids {
            let tx = *self.txs.get(id);
            let mut busy = 0;
            if tx.copyback {
                // On-die move: destination allocated now, programmed after tR.
                let Some(dst) = self.gc_destination(id, &tx, now)? else {
                    continue;
                };
                self.stats.flash_programs += 1;
                busy = self.program_ns(dst);
                copyback = true;
            }
            let Some(ppn) = self.resolve_read(id, &tx, now)? else {
                continue;
            };
            match tx.origin {
                Origin::User => {
                    self.stats.user_reads += 1;
                    // Write-caused interference: a program/erase held the die
                    // after this read arrived.
                    if self.dies[die].pe_release > tx.enqueued {
                        self.stats.interfered_reads += 1;
                        self.stats.interference_wait_ns += now - tx.enqueued;
                    }
                    if tx.seq != UNCHECKED_READ {
                        self.log(OpRecord::Sense { id: tx.seq, ppn });
                    }
                }
                Origin::Mapping => self.stats.mapping_reads += 1,
                Origin::Update => self.stats.update_reads += 1,
                Origin::Gc | Origin::Reclaim => self.stats.gc_reads += 1,
            }
            self.stats.flash_reads += 1;
            busy += self.timing.read_ns(self.geo.page_in_block(ppn));
            sense = sense.max(busy);
            kept.push(id);
        }
        if !kept.is_empty() {
            let cycles = self.command_cycles(die, CommandKind::Read, kept.len(), now, sink);
            let sense = cycles + self.timing.command + self.cmds.overhead(kept.len()) + sense;
            self.begin_command(die, &kept, now);
            if copyback || self.timing.xfer_page == 0 {
                self.arm(die, sense, now, sink);
            } else {
                let ready = self.plan_cell(die, sense, now);
                let ch = self.geo.channel_of_die(die as u32);
                for &m in &kept {
                    let t = self.txs.get(m);
                    let dur = self.timing.xfer_ns(t.sectors);
                    // Waiting data-outs by class (when the channel orders
                    // them so): translation, user, then GC reads.
                    let class = match t.origin {
                        Origin::Mapping => 0,
                        Origin::User | Origin::Update => 1,
                        Origin::Gc | Origin::Reclaim => 2,
                    };
                    let c = &mut self.channels[ch as usize];
                    c.add_readout(ready, dur, die as u32, m, class);
                }
                self.arm_channel(ch, sink);
            }
        }
        self.cmds.members[die] = kept;
        Ok(())
    }

    /// Programs of one die: pages taken now (user writes map their LPN),
    /// each page's data-in on the channel in member order, then one tPROG
    /// (the slowest page's). The transfers are reserved now, so the end is
    /// known and scheduled at once.
    fn start_programs<S: EventSink>(
        &mut self,
        ids: &[TxId],
        now: Ns,
        sink: &mut S,
    ) -> SimResult<()> {
        let die = self.txs.get(ids[0]).die as usize;
        let mut kept = std::mem::take(&mut self.cmds.members[die]);
        kept.clear();
        let mut t_prog = 0;
        // `same-block` levels each companion's page up to the lead's.
        let mut lead_offset = None;
        for &id in ids {
            let mut tx = *self.txs.get(id);
            let ppn = if tx.origin.foreground() {
                // Only a lone program moves (companions need their own
                // plane's page, `PickCtx::companion_ok`).
                let stream = program_stream(&self.ftl, tx.origin);
                if let Some(p) = self.ftl.replan(tx.plane, stream) {
                    if self.move_program(id, p, now) {
                        continue;
                    }
                    tx.plane = p;
                }
                self.note_program_started(tx.origin, tx.plane);
                let pref = self.sched.alloc_pref(id, &tx);
                // Levelling applies to the ordinary frontier, the block
                // `companion_ok` compared (a speed frontier is another).
                if let Some(offset) = lead_offset.filter(|_| !self.ftl.speed_frontier(pref)) {
                    self.level_page(tx.plane, stream, offset);
                }
                let ppn = match stream {
                    Stream::Mapping => self.ftl.alloc(tx.plane, stream),
                    _ => self.ftl.alloc_pref(tx.plane, pref),
                }
                .ok_or_else(|| {
                    SimError::Invalid("scheduler started a program with no free page".into())
                })?;
                let entry = self.inflight.entry(tx.lpn).or_default();
                let user = tx.origin == Origin::User;
                if entry.issued_seq > tx.seq {
                    self.ftl.program_stale(ppn, now);
                    self.stats.superseded_programs += 1;
                } else {
                    entry.issued_seq = tx.seq;
                    if user {
                        self.ftl.map_user_write(tx.lpn, ppn, now);
                    } else {
                        self.ftl.map_hidden_write(tx.lpn, ppn, now);
                    }
                }
                if self.cmds.multiplane == MultiPlane::SameBlock && lead_offset.is_none() {
                    lead_offset = Some(self.geo.page_in_block(ppn));
                }
                let (lpn, seq) = (tx.lpn, tx.seq);
                self.log(if user {
                    OpRecord::Program { ppn, lpn, seq }
                } else {
                    OpRecord::HiddenProgram { ppn, lpn, seq }
                });
                ppn
            } else {
                // A GC move's program (a reclaim is only ever an erase).
                self.queued_programs[tx.plane as usize][Stream::Gc as usize] -= 1;
                let Some(dst) = self.gc_destination(id, &tx, now)? else {
                    continue;
                };
                dst
            };
            self.txs.get_mut(id).ppn = ppn;
            self.stats.flash_programs += 1;
            t_prog = t_prog.max(self.program_ns(ppn));
            kept.push(id);
        }
        if !kept.is_empty() {
            let t_prog = self.cmds.overhead(kept.len()) + t_prog;
            self.begin_command(die, &kept, now);
            let cycles = self.timing.command_bus_ns(CommandKind::Program, kept.len());
            if self.timing.xfer_page == 0 {
                for &m in &kept {
                    self.ack_at_data_in(m, now);
                }
                self.arm(die, cycles + self.timing.command + t_prog, now, sink);
            } else {
                let ch = self.geo.channel_of_die(die as u32);
                let end = self.data_in(die as u32, &kept, cycles, now);
                self.arm_channel(ch, sink);
                self.dies[die].xfer_end = end;
                self.arm(die, t_prog, end, sink);
            }
            // User writes that opened a block may have pushed the plane
            // under its GC threshold.
            for &m in &kept {
                let tx = *self.txs.get(m);
                if tx.origin.foreground() {
                    self.maybe_start_gc(tx.plane, now);
                }
            }
        }
        self.cmds.members[die] = kept;
        Ok(())
    }

    /// The data-ins of `members` (a program command on `die`), each page
    /// acknowledged when its own ends; returns when the bus is through with
    /// them (the cell starts then). One after another on the bus, or with
    /// `controller.overlap_data_in` (SSDsim's interleaved two-plane
    /// command) side by side from one start, the bus held for the longest:
    /// a multi-plane command starts such a group, and a command joining its
    /// chip's group at the same instant (while the group is still the last
    /// thing on the bus) overlaps it too. The command's `cycles` of bus
    /// time (`timing.program_command_ns`) go first; a command joining a
    /// group shares the cycles its first command sent (as SSDsim times
    /// every page of its interleaved two-plane command from one start).
    fn data_in(&mut self, die: u32, members: &[TxId], cycles: Ns, now: Ns) -> Ns {
        let ch = self.geo.channel_of_die(die) as usize;
        let xfer = |s: &Self, m: TxId| s.timing.xfer_ns(s.txs.get(m).sectors);
        if !self.cmds.overlap {
            let mut end = now;
            // The command's cycles (if they take bus time) go first, in
            // one transfer with the first page's data, as MQSim's PHY
            // sends them.
            let mut lead = cycles;
            for &m in members {
                let dur = std::mem::take(&mut lead) + xfer(self, m);
                end = self.channels[ch].reserve(now, dur);
                self.ack_at_data_in(m, end);
            }
            return end;
        }
        let chip = self.geo.chip_of_die(die) as usize;
        let (at, start, end) = self.cmds.overlap_group[chip];
        let joins = at == now && self.channels[ch].free_at == end;
        let (start, mut bus_end, rest) = if joins {
            (start, end, members)
        } else {
            // The first page starts a group; alone, it is an ordinary transfer.
            let dur = cycles + xfer(self, members[0]);
            let end = self.channels[ch].reserve(now, dur);
            self.ack_at_data_in(members[0], end);
            if members.len() == 1 {
                return end;
            }
            // The group's data starts after the cycles.
            (end - (dur - cycles), end, &members[1..])
        };
        for &m in rest {
            let end = start + xfer(self, m);
            if end > bus_end {
                bus_end = self.channels[ch].reserve(now, end - bus_end);
            }
            self.ack_at_data_in(m, end);
        }
        self.cmds.overlap_group[chip] = (now, start, bus_end);
        bus_end
    }

    /// `write_ack = "data-in"`: a user page (a host write's or a cache
    /// flush's) is acknowledged when its data-in ends at `end`.
    #[inline]
    fn ack_at_data_in(&mut self, id: TxId, end: Ns) {
        if !self.ack_data_in {
            return;
        }
        let tx = self.txs.get(id);
        if tx.origin == Origin::User {
            let r = tx.owner;
            self.front.plan(end, super::front::Job::Written { r });
        }
    }

    /// A user page is written (programmed, or its data-in ended): its
    /// request has one page less to wait for, and the cache room it held
    /// returns.
    pub(super) fn page_written(&mut self, r: u32, now: Ns) {
        self.req_page_done(r, now);
        self.release_buffer(now);
    }

    /// `same-block`: skip pages of `plane`'s `stream` block until its next
    /// page is at `offset` (SSDsim's `make_same_level`): the pages skipped
    /// hold no data (invalid, reclaimed by GC).
    fn level_page(&mut self, plane: u32, stream: Stream, offset: u32) {
        for _ in 0..self.geo.pages_per_block {
            if self.ftl.next_page_offset(plane, stream) >= offset {
                return;
            }
            let Some(ppn) = self.ftl.alloc(plane, stream) else {
                return;
            };
            self.stats.wasted_pages += 1;
            self.log(OpRecord::Skip { ppn });
        }
    }

    /// Erases of one die: one tBERS for all blocks.
    fn start_erases<S: EventSink>(&mut self, ids: &[TxId], now: Ns, sink: &mut S) -> SimResult<()> {
        let die = self.txs.get(ids[0]).die as usize;
        let mut kept = std::mem::take(&mut self.cmds.members[die]);
        kept.clear();
        for &id in ids {
            self.log(OpRecord::EraseStart {
                block: self.txs.get(id).ppn,
            });
            kept.push(id);
        }
        let cycles = self.command_cycles(die, CommandKind::Erase, kept.len(), now, sink);
        let dur = cycles + self.timing.command + self.cmds.overhead(kept.len()) + self.timing.erase;
        self.begin_command(die, &kept, now);
        self.arm(die, dur, now, sink);
        self.cmds.members[die] = kept;
        Ok(())
    }

    /// The command and address cycles of a `kind` command on `planes`
    /// planes of `die` (`timing.*_command_ns`): they take the die's channel
    /// from now, after what holds it (a new command is not interleaved into
    /// a running transfer), and the command's work starts when they end.
    /// Returns how long from now that is (0 without command bus time;
    /// without a bus, the cycles' length).
    fn command_cycles<S: EventSink>(
        &mut self,
        die: usize,
        kind: CommandKind,
        planes: usize,
        now: Ns,
        sink: &mut S,
    ) -> Ns {
        let dur = self.timing.command_bus_ns(kind, planes);
        if dur == 0 || self.timing.xfer_page == 0 {
            return dur;
        }
        let ch = self.geo.channel_of_die(die as u32);
        let chan = &mut self.channels[ch as usize];
        let end = if kind == CommandKind::Read && self.cmds.read_first {
            chan.reserve_command_first(now, dur)
        } else {
            chan.reserve_command(now, dur)
        };
        self.arm_channel(ch, sink);
        end - now
    }

    /// `die` takes the command of `members` (lead first).
    #[inline]
    fn begin_command(&mut self, die: usize, members: &[TxId], now: Ns) {
        self.occupy(die, members[0], Phase::Array, now);
        self.cmds.left[die] = members.len() as u32;
        self.count_command(members.len());
    }

    pub(super) fn die_event(&self, die: usize) -> DevEvent {
        DevEvent::DieDone {
            die: die as u32,
            gen: self.dies[die].gen,
        }
    }

    /// Queue the completion event of channel `ch`'s next data-out, unless
    /// it is queued already (one per channel: `Channel::arm`).
    #[inline]
    pub(super) fn arm_channel<S: EventSink>(&mut self, ch: u32, sink: &mut S) {
        if let Some(end) = self.channels[ch as usize].arm() {
            sink.push(end, DevEvent::BusDone { ch });
        }
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
        // suspended (EAR): its data was moved, so it must look again. The
        // block may be any member of a suspended multi-plane erase.
        let erasing = self.dies[tx.die as usize].suspended.is_some()
            && self.cmds.suspended[tx.die as usize].0.iter().any(|&m| {
                let s = self.txs.get(m);
                s.kind == TxKind::Erase && s.ppn == block
            });
        if self.ftl.erase_count(block) == tx.epoch && !erasing {
            return Ok(Some(tx.ppn));
        }
        // The block was erased after translation: the data lives elsewhere now.
        self.stats.reads_relocated += 1;
        // A read that only times a flash access answered the oracle already.
        let user = tx.origin == Origin::User && tx.seq != UNCHECKED_READ;
        if user && self.in_dram(tx.lpn) {
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
                if user {
                    self.log(OpRecord::Unmapped { id: tx.seq });
                }
                self.complete(id, now)?;
                Ok(None)
            }
            Some(p) => {
                self.reshare_read(tx, p);
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
                    self.load_dec(tx.die);
                    self.load_inc(new_die);
                    self.decide_stamp += 1;
                    self.sched.push(id, &moved, now);
                    self.mark(new_die);
                    Ok(None)
                }
            }
        }
    }

    /// Apply one of this device's events (those it schedules in turn go to
    /// `sink`).
    pub fn handle<S: EventSink>(&mut self, ev: DevEvent, now: Ns, sink: &mut S) -> SimResult<()> {
        match ev {
            DevEvent::DieDone { die, gen } => {
                let d = &self.dies[die as usize];
                if d.gen != gen || d.phase != Phase::Array {
                    return Ok(()); // stale (suspended or re-issued operation)
                }
                let members = std::mem::take(&mut self.cmds.members[die as usize]);
                for &m in &members {
                    self.member_done(die as usize, self.txs.get(m).kind, now);
                    self.complete(m, now)?;
                }
                self.cmds.members[die as usize] = members;
            }
            DevEvent::Front { slot, .. } => self.front_step(slot, now),
            DevEvent::ChannelFree { ch } => self.channel_free(ch),
            DevEvent::BusDone { ch } => {
                let Some(tx) = self.channels[ch as usize].finish_readout(now) else {
                    return Ok(()); // the data-out it was queued for moved
                };
                self.arm_channel(ch, sink);
                self.member_done(self.txs.get(tx).die as usize, TxKind::Read, now);
                self.complete(tx, now)?;
            }
        }
        Ok(())
    }

    /// Transaction `id` is finished (and no longer holds its die): advance
    /// its owner.
    pub(super) fn complete(&mut self, id: TxId, now: Ns) -> SimResult<()> {
        let tx = self.txs.remove(id);
        self.unshare_read(&tx);
        self.load_dec(tx.die);
        self.mark(tx.die);
        match (tx.kind, tx.origin) {
            (TxKind::Read, Origin::User) => self.req_page_done(tx.owner, now),
            (TxKind::Program, Origin::User) => {
                if let Some(e) = self.inflight.get_mut(&tx.lpn) {
                    e.pending -= 1;
                    e.newest_done |= e.newest == tx.seq;
                    // A page the cache still holds a newer version of
                    // keeps its entry (reads of it are DRAM hits).
                    if e.pending == 0 && e.newest_done {
                        self.inflight.remove(&tx.lpn);
                    }
                }
                self.log(OpRecord::ProgramDone {
                    lpn: tx.lpn,
                    seq: tx.seq,
                });
                if !self.ack_data_in {
                    self.page_written(tx.owner, now);
                }
                self.hot_cold_programmed(tx.lpn, tx.seq, now);
            }
            (TxKind::Read, Origin::Mapping) => self.translation_read_done(tx.owner, now),
            (TxKind::Read, Origin::Update) => self.update_read_done(tx.seq, now),
            (TxKind::Program, Origin::Mapping) => {
                self.translation_program_done(tx.owner, tx.lpn, tx.seq)
            }
            // GC moves (a reclaim is only ever an erase).
            (TxKind::Read, _) if tx.copyback => self.gc_move_done(tx.owner, now),
            (TxKind::Read, _) => {
                let prog = Tx {
                    kind: TxKind::Program,
                    enqueued: now,
                    ..tx
                };
                self.enqueue(prog, now);
            }
            (TxKind::Program, _) => self.gc_move_done(tx.owner, now),
            (TxKind::Erase, Origin::Reclaim) => {
                self.ftl.erase_reclaimed(tx.ppn, now)?;
                self.log(OpRecord::Erase { block: tx.ppn });
            }
            (TxKind::Erase, _) => {
                // Victims only hold moved or invalidated pages by now; an
                // error here is an accounting bug and stops the run.
                self.ftl.erase(tx.ppn, now)?;
                self.gc_job_ended(tx.owner);
                self.log(OpRecord::Erase { block: tx.ppn });
                if let Some(v) = &mut self.variation {
                    // Write-speed detection after the erase (VIOS §3.1).
                    v.detect(tx.ppn, self.ftl.erase_count(tx.ppn));
                    let key = v.program_ns(tx.ppn, self.timing.program);
                    self.ftl
                        .set_block_speed(tx.ppn, key.min(u32::MAX as u64) as u32);
                }
                let chip = self.geo.chip_of_die(tx.die);
                self.chip_gc_step(chip, false, now);
                if let Some(dies) = self.gate.gc_ended(tx.plane) {
                    // Blocking GC let go of its unit: user work held back
                    // on its other dies may start.
                    for d in dies {
                        self.mark(d);
                    }
                }
                self.gc_epoch += 1;
                // Writes blocked on space in this plane (same die, already
                // marked) may proceed; more GC may be due.
                self.maybe_start_gc(tx.plane, now);
            }
        }
        Ok(())
    }
}
