//! An array request's path: the layout splits it into sub-requests on the
//! SSDs (RAID-5 partial-stripe writes read old data and parity first), and
//! it completes, over the link if any, when its last part does.

use super::{ArraySim, Ev, Placement, StripeOp, Sub, SubKind, NONE};
use crate::error::SimResult;
use crate::host::Issue;
use crate::io::{Completion, Op};

impl ArraySim {
    pub(super) fn submit(&mut self, ssd: u32, op: Op, offset: u64, len: u32, kind: SubKind) {
        let sub = Sub {
            ssd,
            kind,
            op,
            bytes: len,
        };
        let id = match self.free_subs.pop() {
            Some(i) => {
                self.subs[i as usize] = sub;
                i
            }
            None => {
                self.subs.push(sub);
                (self.subs.len() - 1) as u32
            }
        };
        self.outstanding[ssd as usize] += 1;
        self.touched.mark(ssd);
        self.ssds[ssd as usize].submit(id, op, offset, len, self.clock.now());
    }

    pub(super) fn start_request(&mut self, req: Issue) -> SimResult<()> {
        let id = req.id;
        // A probe read the host scheduler injected has a slot no arrival
        // sized the tables for.
        if id as usize >= self.remaining.len() {
            self.host_client.resize(id as usize + 1, NONE);
            self.remaining.resize(id as usize + 1, 0);
        }
        self.remaining[id as usize] = 0;
        let mut ext = std::mem::take(&mut self.ext);
        ext.clear();
        match &mut self.placement {
            Placement::Raid0(r) => r.map(req.offset, req.size, &mut ext),
            Placement::Raid5(r) if req.op != Op::Write => {
                r.map_read(req.offset, req.size, &mut ext)
            }
            Placement::Raid5(r) => {
                let r = *r;
                for sw in r.map_write(req.offset, req.size) {
                    self.remaining[id as usize] += 1;
                    let st = self.new_stripe(id);
                    if sw.full {
                        self.stats.full_stripes += 1;
                        let op = &mut self.stripes[st as usize];
                        op.writes = sw.data.clone();
                        op.writes.push(sw.parity);
                        self.issue_stripe_writes(st);
                    } else {
                        self.stats.rmw_stripes += 1;
                        let mut reads = sw.data.clone();
                        reads.push(sw.parity);
                        let op = &mut self.stripes[st as usize];
                        op.reads_left = reads.len() as u32;
                        op.writes = reads.clone();
                        for e in reads {
                            self.submit(
                                e.ssd,
                                Op::Read,
                                e.offset,
                                e.len,
                                SubKind::RmwRead { stripe: st },
                            );
                        }
                    }
                }
            }
            Placement::Serial(_) => {
                self.ext = ext;
                return self.start_serial(req);
            }
        }
        for e in &ext {
            self.remaining[id as usize] += 1;
            self.submit(e.ssd, req.op, e.offset, e.len, SubKind::User { req: id });
        }
        self.ext = ext;
        if self.remaining[id as usize] == 0 {
            self.finish_request(id);
        }
        Ok(())
    }

    pub(super) fn new_stripe(&mut self, req: u32) -> u32 {
        let op = StripeOp {
            req,
            ..Default::default()
        };
        match self.free_stripes.pop() {
            Some(i) => {
                self.stripes[i as usize] = op;
                i
            }
            None => {
                self.stripes.push(op);
                (self.stripes.len() - 1) as u32
            }
        }
    }

    pub(super) fn issue_stripe_writes(&mut self, st: u32) {
        let writes = std::mem::take(&mut self.stripes[st as usize].writes);
        self.stripes[st as usize].writes_left = writes.len() as u32;
        for e in &writes {
            self.submit(
                e.ssd,
                Op::Write,
                e.offset,
                e.len,
                SubKind::StripeWrite { stripe: st },
            );
        }
        self.stripes[st as usize].writes = writes;
    }

    pub(super) fn sub_done(&mut self, id: u32) -> SimResult<()> {
        let sub = self.subs[id as usize];
        self.free_subs.push(id);
        let s = sub.ssd as usize;
        self.outstanding[s] -= 1;
        match sub.op {
            Op::Write => {
                self.bytes_w[s] += sub.bytes as u64;
                self.series
                    .add_ssd(s, self.clock.now(), sub.bytes as u64, true);
            }
            Op::Read => {
                self.bytes_r[s] += sub.bytes as u64;
                self.series
                    .add_ssd(s, self.clock.now(), sub.bytes as u64, false);
            }
            Op::Trim => {}
        }
        match sub.kind {
            SubKind::User { req } => self.req_part_done(req),
            SubKind::SerialRead { req, off, units } => {
                if let Placement::Serial(log) = &mut self.placement {
                    for k in 0..units {
                        log.check_read_done(sub.ssd, off + k);
                    }
                }
                self.req_part_done(req);
            }
            SubKind::RmwRead { stripe } => {
                let op = &mut self.stripes[stripe as usize];
                op.reads_left -= 1;
                if op.reads_left == 0 {
                    self.issue_stripe_writes(stripe);
                }
            }
            SubKind::StripeWrite { stripe } => {
                let op = &mut self.stripes[stripe as usize];
                op.writes_left -= 1;
                if op.writes_left == 0 {
                    let req = op.req;
                    self.free_stripes.push(stripe);
                    self.req_part_done(req);
                }
            }
            SubKind::CopyRead { unit, off } => {
                let Placement::Serial(log) = &mut self.placement else {
                    return Ok(());
                };
                if let Some((d, doff)) = log.copy_read_done(unit, sub.ssd, off)? {
                    let ub = log.unit;
                    self.series.add_xgc(self.clock.now());
                    self.submit(
                        d,
                        Op::Write,
                        doff as u64 * ub,
                        ub as u32,
                        SubKind::CopyWrite,
                    );
                }
                self.track_roles();
            }
            SubKind::CopyWrite => {
                if let Placement::Serial(log) = &mut self.placement {
                    log.copy_write_done();
                }
            }
            SubKind::Trim => {}
        }
        Ok(())
    }

    pub(super) fn req_part_done(&mut self, req: u32) {
        let r = &mut self.remaining[req as usize];
        *r -= 1;
        if *r == 0 {
            self.finish_request(req);
        }
    }

    /// The array finished host request `id`: send its status (and read data)
    /// back over the link.
    pub(super) fn finish_request(&mut self, id: u32) {
        let mut finished = std::mem::take(&mut self.finished_slots);
        finished.clear();
        // Probes (injected by the host scheduler) finish with no slot.
        self.host
            .complete(id, self.clock.now(), &self.view, &mut finished);
        self.host_turn = true;
        for slot in &finished {
            if let Some(l) = &mut self.ledger {
                l.note_completed(slot.req.seq);
            }
            let c = self.host_client[slot.req.id as usize];
            match &mut self.link {
                Some(l) => {
                    let data = if slot.req.op == Op::Read {
                        slot.req.size as u64
                    } else {
                        0
                    };
                    let t = l.send_out(self.clock.now(), data);
                    self.clock.q.push(t, Ev::LinkOut(c).pack());
                }
                None => self.client_complete(c),
            }
        }
        self.finished_slots = finished;
    }

    pub(super) fn client_complete(&mut self, idx: u32) {
        let c = self.creqs[idx as usize];
        self.free_creqs.push(idx);
        let done = Completion {
            arrival: c.arrival,
            dispatch: c.dispatch,
            complete: self.clock.now(),
            op: c.op,
            offset: c.offset,
            size: c.size,
            stream: c.stream,
        };
        self.metrics.record_staged(&done);
        if c.op != Op::Trim {
            self.series.add_array(self.clock.now(), c.size as u64);
        }
        self.wl.get().on_complete(&done, self.clock.now());
        self.completed_any = true;
    }
}
