//! P/E suspension (Wu & He, FAST'12; baselines.md §4): a program or erase
//! stops at its next phase boundary (ISPP loop / erase pulse) so queued
//! work can run, then resumes with an overhead.

use super::tx::{Tx, TxId, TxKind};
use super::{pick_ctx, EventSink, Ssd};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::flash::die::Phase;

impl Ssd {
    /// P/E suspension (Wu & He, FAST'12; baselines.md §4): if `die` is in
    /// the cell phase of a program or erase and nothing is suspended on it,
    /// offer the scheduler the chance to run a queued transaction at the next
    /// phase boundary (ISPP loop / erase pulse).
    pub(super) fn try_suspend<S: EventSink>(
        &mut self,
        die: u32,
        now: Ns,
        sink: &mut S,
    ) -> SimResult<()> {
        let Some((sid, running, boundary, remaining)) = self.suspend_point(die, now) else {
            return Ok(());
        };
        let ctx = pick_ctx!(self, now);
        let Some(id) = self.sched.preempt(die, &running, remaining, &ctx) else {
            return Ok(());
        };
        self.stats.suspensions += 1;
        self.release_die(die as usize, now);
        // The suspended command's members wait aside for its resumption.
        let c = &mut self.cmds;
        let d = die as usize;
        std::mem::swap(&mut c.members[d], &mut c.suspended[d].0);
        c.suspended[d].1 = c.left[d];
        let d = &mut self.dies[die as usize];
        d.suspended = Some((sid, remaining));
        d.not_before = boundary + self.susp.suspend;
        self.start(id, now, sink)?;
        // The preempting transaction may not have needed the die (DRAM hit,
        // moved read): serve more or resume.
        if self.dies[die as usize].is_idle() {
            self.schedule_die(die, now, sink)?;
        }
        Ok(())
    }

    /// Where the program or erase running on `die` could be suspended: its
    /// transaction, the next phase boundary (ISPP loop / erase pulse) and
    /// the time left after it. `None` if nothing suspendable runs.
    pub(super) fn suspend_point(&self, die: u32, now: Ns) -> Option<(TxId, Tx, Ns, Ns)> {
        let d = &self.dies[die as usize];
        // Not before a program's data-in transfer has ended.
        if d.phase != Phase::Array || d.suspended.is_some() || now < d.xfer_end {
            return None;
        }
        let running = *self.txs.get(d.tx);
        let loops = match running.kind {
            TxKind::Program => self.susp.program_loops,
            TxKind::Erase => self.susp.erase_loops,
            TxKind::Read => return None,
        };
        let (start, end) = (d.op_start, d.op_end);
        let phase = (end - start).div_ceil(loops).max(1);
        let boundary = (start + (now.saturating_sub(start)).div_ceil(phase) * phase).min(end);
        let remaining = end - boundary;
        (remaining > 0).then_some((d.tx, running, boundary, remaining))
    }

    /// Resume the suspended operation on idle `die`.
    pub(super) fn resume<S: EventSink>(&mut self, die: u32, now: Ns, sink: &mut S) {
        let Some((sid, remaining)) = self.dies[die as usize].suspended.take() else {
            return;
        };
        self.stats.resumes += 1;
        let c = &mut self.cmds;
        let d = die as usize;
        std::mem::swap(&mut c.members[d], &mut c.suspended[d].0);
        c.left[d] = c.suspended[d].1;
        self.occupy(die as usize, sid, Phase::Array, now);
        self.arm(die as usize, self.susp.resume + remaining, now, sink);
    }
}
