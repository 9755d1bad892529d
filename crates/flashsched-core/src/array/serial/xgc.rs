//! External GC of the serial array (Fig. 5(b), (c)): picking the victim,
//! copying its valid units segment by segment to back-end (or clean) SSDs,
//! several at once, and returning it to the clean pool once TRIMmed, with
//! the keep-up check of every finished job.

use super::{Role, SerialLog, Victim, NONE};
use crate::error::{SimError, SimResult};

/// The victim being emptied: its segments in copy order and the position
/// reached.
#[derive(Debug, Clone)]
pub(super) struct Job {
    pub(super) ssd: u32,
    order: Vec<u32>,
    seg_i: usize,
    pos: u32,
    in_flight: u32,
    /// Keep-up bookkeeping at the job's start: valid fraction of the
    /// victim, time, user units written, copies made, stall time so far.
    v: f64,
    t0: u64,
    user0: u64,
    copied0: u64,
    stall0: u64,
}

impl SerialLog {
    /// The victim among back-ends with something invalid (not an xGC
    /// destination) by the policy — retired: the front-end that retired
    /// last (Fig. 5(b)), fewest valid among equals; FIFO: the one out of the
    /// front-end role longest; greedy: fewest valid units.
    pub(crate) fn pick_victim(&self) -> Option<u32> {
        let backs = (0..self.n).filter(|&s| {
            self.role[s as usize] == Role::Back
                && !self.gc_dests.contains(&s)
                && self.valid[s as usize] < self.wp[s as usize]
        });
        match self.victim {
            Victim::Greedy => backs.min_by_key(|&s| (self.valid[s as usize], s)),
            Victim::Fifo => backs.min_by_key(|&s| (self.back_since[s as usize], s)),
            Victim::Retired => backs.min_by_key(|&s| {
                (
                    std::cmp::Reverse(self.retired_at[s as usize]),
                    self.valid[s as usize],
                    s,
                )
            }),
        }
    }

    /// Start xGC when at most one clean SSD is left (it is kept for the
    /// xGC destination), on the victim [`SerialLog::pick_victim`] chooses.
    fn maybe_start_xgc(&mut self) {
        if !self.sources.is_empty() || self.job.is_some() {
            return;
        }
        let clean = self.role.iter().filter(|&&r| r == Role::Clean).count();
        if clean > 1 {
            return;
        }
        let Some(v) = self.pick_victim() else { return };
        // Only start when its valid data has somewhere to go (back-end room
        // plus clean SSDs); otherwise wait until front-ends free up room.
        let room: u64 = (0..self.n)
            .filter(|&s| s != v)
            .map(|s| match self.role[s as usize] {
                Role::Back => self.free(s) as u64,
                Role::Clean => self.cap as u64,
                _ => 0,
            })
            .sum();
        let need = self.valid[v as usize];
        if room < need as u64 {
            return;
        }
        let dest_room: u32 = self.gc_dests.iter().map(|&d| self.free(d)).sum();
        if dest_room < need {
            self.gc_dests.clear(); // start this victim on fresh SSDs
        }
        self.set_role(v, Role::Source);
        self.sources.push_back(v);
    }

    fn start_job(&mut self) {
        if self.job.is_some() {
            return;
        }
        self.maybe_start_xgc();
        let Some(&ssd) = self.sources.front() else {
            return;
        };
        let segs = self.cap / self.seg_units;
        let first = ssd * segs;
        let mut order: Vec<u32> = (0..segs)
            .filter(|&k| self.seg_valid[(first + k) as usize] > 0)
            .collect();
        if self.victim == Victim::Greedy {
            order.sort_by_key(|&k| (self.seg_valid[(first + k) as usize], k));
        }
        let written = self.wp[ssd as usize].max(1);
        self.job = Some(Job {
            ssd,
            order,
            seg_i: 0,
            pos: 0,
            in_flight: 0,
            v: self.valid[ssd as usize] as f64 / written as f64,
            t0: self.now,
            user0: self.stats.user_units_written,
            copied0: self.stats.xgc_units_copied,
            stall0: self.stall_ns,
        });
    }

    /// Next unit for xGC to copy (logical unit, source SSD, slot offset),
    /// if the copy window allows.
    pub(crate) fn next_copy(&mut self) -> Option<(u32, u32, u32)> {
        self.start_job();
        let cap = self.cap;
        let seg_units = self.seg_units;
        let window = self.window;
        let job = self.job.as_mut()?;
        if job.in_flight >= window {
            return None;
        }
        let segs = cap / seg_units;
        while job.seg_i < job.order.len() {
            let seg = job.ssd * segs + job.order[job.seg_i];
            while job.pos < seg_units {
                let slot = seg * seg_units + job.pos;
                job.pos += 1;
                let u = self.inv.get(slot);
                if u != NONE {
                    job.in_flight += 1;
                    return Some((u, job.ssd, slot % cap));
                }
            }
            job.seg_i += 1;
            job.pos = 0;
        }
        None
    }

    /// Keep up to `dests` xGC destinations: clean SSDs first (the copied
    /// data then waits in the next front-end), else the back-ends with the
    /// most room; never the victim or a front-end.
    fn fill_dests(&mut self) {
        let (role, wp, cap) = (&self.role, &self.wp, self.cap);
        self.gc_dests
            .retain(|&d| role[d as usize] == Role::Back && wp[d as usize] < cap);
        while (self.gc_dests.len() as u32) < self.dests {
            let taken = &self.gc_dests;
            let pick = (0..self.n)
                .find(|&s| self.role[s as usize] == Role::Clean)
                .or_else(|| {
                    (0..self.n)
                        .filter(|&s| {
                            self.role[s as usize] == Role::Back
                                && self.free(s) > 0
                                && !taken.contains(&s)
                        })
                        .max_by_key(|&s| (self.free(s), std::cmp::Reverse(s)))
                });
            let Some(d) = pick else { break };
            if self.role[d as usize] == Role::Clean {
                self.set_role(d, Role::Back);
            }
            self.gc_dests.push(d);
        }
    }

    pub(super) fn gc_slot(&mut self) -> SimResult<u32> {
        self.fill_dests();
        if !self.gc_dests.is_empty() {
            let d = self.gc_dests[self.gc_rr % self.gc_dests.len()];
            self.gc_rr = self.gc_rr.wrapping_add(1);
            return Ok(self.append(d));
        }
        if let Some(&f) = self.fronts.iter().find(|&&f| self.free(f) > 0) {
            self.stats.xgc_to_front += 1;
            return Ok(self.append(f));
        }
        Err(SimError::Invalid(format!(
            "serial array out of space: xGC has nowhere to copy valid data \
             (roles {:?}, write pointers {:?}, valid units {:?} of {} per SSD); \
             lower the array volume fraction (array.volume)",
            self.role, self.wp, self.valid, self.cap
        ))
        .into())
    }

    /// The copy read of `unit` from (`ssd`, `off`) finished: if the unit
    /// still lives there, move its mapping to a back-end slot and return it
    /// (the caller writes the data there).
    pub(crate) fn copy_read_done(
        &mut self,
        unit: u32,
        ssd: u32,
        off: u32,
    ) -> SimResult<Option<(u32, u32)>> {
        let src = ssd * self.cap + off;
        if self.fwd.get(unit) != src {
            self.stats.xgc_units_skipped += 1;
            self.copy_write_done();
            return Ok(None);
        }
        let dst = self.gc_slot()?;
        if !self.ver.is_empty() {
            self.stats.version_checks += 1;
            if self.slot_ver[src as usize] != self.ver[unit as usize] {
                self.stats.version_mismatches += 1;
            }
            self.slot_ver[dst as usize] = self.slot_ver[src as usize];
        }
        self.assign(unit, dst);
        self.stats.xgc_units_copied += 1;
        Ok(Some(self.split(dst)))
    }

    /// A copy finished (written, or skipped).
    pub(crate) fn copy_write_done(&mut self) {
        if let Some(j) = self.job.as_mut() {
            j.in_flight -= 1;
        }
    }

    /// The source SSD whose copies are all done (ready for TRIM).
    pub(crate) fn drained_source(&self) -> Option<u32> {
        let j = self.job.as_ref()?;
        (j.seg_i >= j.order.len() && j.in_flight == 0 && self.valid[j.ssd as usize] == 0)
            .then_some(j.ssd)
    }

    /// The source was TRIMmed: it is clean again.
    pub(crate) fn trimmed(&mut self, ssd: u32) {
        debug_assert_eq!(self.valid[ssd as usize], 0);
        if let Some(j) = self.job.take() {
            let secs = self.now.saturating_sub(j.t0) as f64 / 1e9;
            let stalled = self.stall_ns.saturating_sub(j.stall0) as f64 / 1e9;
            self.stats.keep_up.record(
                j.v,
                self.stats.xgc_units_copied - j.copied0,
                secs,
                self.stats.user_units_written - j.user0,
                (secs - stalled).max(0.0),
            );
        }
        self.sources.retain(|&s| s != ssd);
        self.wp[ssd as usize] = 0;
        if !self.slot_ver.is_empty() {
            let a = (ssd * self.cap) as usize;
            self.slot_ver[a..a + self.cap as usize].fill(0);
        }
        self.set_role(ssd, Role::Clean);
        self.stats.trims += 1;
        self.refill_fronts();
    }

    /// Whether xGC has work (a source waiting or being emptied).
    pub fn xgc_pending(&self) -> bool {
        self.job.is_some() || !self.sources.is_empty()
    }
}
