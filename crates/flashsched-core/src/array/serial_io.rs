//! The serial array's request path (Kim et al., HotStorage'17): reads go
//! to wherever the log put each unit, writes append at the front-end, and
//! xGC copies live units off the oldest back-end, then TRIMs and erases it
//! whole. The log itself (where units live, roles, xGC jobs) is
//! [`SerialLog`]; this file drives it on the array's SSDs.

use super::serial::{Role, SerialLog};
use super::{ArraySim, Placement, SubKind};
use crate::error::SimResult;
use crate::host::Issue;
use crate::io::Op;

impl ArraySim {
    pub(super) fn units_of(log: &SerialLog, offset: u64, size: u32) -> (u32, u32) {
        let first = (offset / log.unit) as u32;
        let end = offset.saturating_add(size.max(1) as u64).div_ceil(log.unit) as u32;
        (first, end.min(log.volume_units))
    }

    pub(super) fn start_serial(&mut self, req: Issue) -> SimResult<()> {
        let id = req.id;
        let Placement::Serial(log) = &mut self.placement else {
            return Ok(());
        };
        let (first, end) = Self::units_of(log, req.offset, req.size);
        let unit = log.unit;
        match req.op {
            Op::Read => {
                let runs = coalesce((first..end).filter_map(|u| {
                    let (s, o) = log.lookup(u)?;
                    log.check_read(u, s, o);
                    // Recent writes, still on a front-end, come from the
                    // host cache when it is on (no SSD read).
                    (!log.cache_hit(s)).then_some((s, o))
                }));
                for (s, o, n) in runs {
                    self.remaining[id as usize] += 1;
                    let kind = SubKind::SerialRead {
                        req: id,
                        off: o,
                        units: n,
                    };
                    self.submit(s, Op::Read, o as u64 * unit, n * unit as u32, kind);
                }
            }
            Op::Trim => {
                // Only whole units are unmapped.
                let a = req.offset.div_ceil(unit) as u32;
                let b = ((req.offset + req.size as u64) / unit) as u32;
                for u in a..b.min(log.volume_units) {
                    log.trim_unit(u);
                }
            }
            Op::Write => {
                log.next_request();
                if !self.stalled.is_empty() {
                    // Keep write order behind writes already waiting.
                    self.stall_begin();
                    self.stats.stalled_writes += 1;
                    self.remaining[id as usize] += 1;
                    self.stalled.push_back((id, first, end));
                    return Ok(());
                }
                self.write_units(id, first, end);
            }
        }
        self.track_roles();
        if self.remaining[id as usize] == 0 && req.op != Op::Write {
            self.finish_request(id);
        }
        Ok(())
    }

    /// Append units `[first, end)` of write `id`; parks the rest if the log
    /// has no room. Completes the request when nothing is outstanding.
    pub(super) fn write_units(&mut self, id: u32, first: u32, end: u32) {
        let Placement::Serial(log) = &mut self.placement else {
            return;
        };
        let unit = log.unit;
        let mut parked = None;
        let runs = coalesce((first..end).map_while(|u| {
            let place = log.write_unit(u);
            if place.is_none() {
                parked = Some(u);
            }
            place
        }));
        for (s, o, n) in runs {
            self.remaining[id as usize] += 1;
            self.submit(
                s,
                Op::Write,
                o as u64 * unit,
                n * unit as u32,
                SubKind::User { req: id },
            );
        }
        if let Some(u) = parked {
            self.stats.stalled_writes += 1;
            self.stall_begin();
            self.stalled.push_front((id, u, end));
            self.remaining[id as usize] += 1; // the parked part
        } else if self.remaining[id as usize] == 0 {
            self.finish_request(id);
        }
        self.track_roles();
    }

    /// Retry parked serial writes in arrival order while the log has room.
    pub(super) fn retry_stalled(&mut self) {
        while let Some(&(id, u, end)) = self.stalled.front() {
            let Placement::Serial(log) = &mut self.placement else {
                return;
            };
            if !log.can_write() {
                return;
            }
            self.stalled.pop_front();
            self.remaining[id as usize] -= 1; // the parked part
            self.write_units(id, u, end);
            if self.stalled.front().is_some_and(|s| s.0 == id) {
                return; // parked again: still no room
            }
        }
        self.stall_end();
    }

    /// Writes start waiting for log space (a no-op if they already are).
    fn stall_begin(&mut self) {
        if self.stall_since.is_none() {
            self.stall_since = Some(self.clock.now());
            self.stats.stall_events += 1;
        }
    }

    /// No write waits any more: add the wait to the stall time.
    fn stall_end(&mut self) {
        if self.stalled.is_empty() {
            if let Some(t) = self.stall_since.take() {
                self.stats.stall_ns += self.clock.now() - t;
            }
        }
    }

    /// Stall time so far, the current wait included.
    pub(super) fn stall_ns_now(&self) -> u64 {
        self.stats.stall_ns + self.stall_since.map_or(0, |t| self.clock.now() - t)
    }

    /// Keep xGC copies flowing; TRIM a drained source.
    pub(super) fn pump_xgc(&mut self) -> SimResult<()> {
        let (now, stall) = (self.clock.now(), self.stall_ns_now());
        loop {
            let Placement::Serial(log) = &mut self.placement else {
                return Ok(());
            };
            (log.now, log.stall_ns) = (now, stall);
            let unit = log.unit;
            if let Some((u, s, o)) = log.next_copy() {
                self.submit(
                    s,
                    Op::Read,
                    o as u64 * unit,
                    unit as u32,
                    SubKind::CopyRead { unit: u, off: o },
                );
                continue;
            }
            let Some(src) = log.drained_source() else {
                break;
            };
            if self.outstanding[src as usize] > 0 {
                break;
            }
            // Fig. 5(c): TRIM the whole old front-end, then erase its blocks.
            let bytes = self.ssds[src as usize].logical_bytes();
            let step = (1u64 << 30).min(bytes);
            let mut off = 0;
            while off < bytes {
                let len = step.min(bytes - off) as u32;
                self.submit(src, Op::Trim, off, len, SubKind::Trim);
                off += len as u64;
            }
            self.touched.mark(src);
            let ssd = &mut self.ssds[src as usize];
            let left = ssd.ftl.mapped_pages();
            self.stats.max_valid_pages_after_trim = self.stats.max_valid_pages_after_trim.max(left);
            self.stats.trim_erases += ssd.erase_trimmed_blocks(self.clock.now()) as u64;
            if let Placement::Serial(log) = &mut self.placement {
                log.trimmed(src);
            }
            self.track_roles();
            self.retry_stalled();
        }
        Ok(())
    }

    /// Snapshot GC counts when SSDs enter or leave the front-end role.
    pub(super) fn track_roles(&mut self) {
        let Placement::Serial(log) = &mut self.placement else {
            return;
        };
        for (ssd, role) in log.changes.drain(..) {
            let gc = self.ssds[ssd as usize].ftl.stats.gc_invocations;
            let slot = &mut self.front_gc_base[ssd as usize];
            if let Some(b) = slot.take() {
                self.stats.front_gc_violations += gc - b;
            }
            if role == Role::Front {
                *slot = Some(gc);
            }
        }
    }
}

/// Units placed one after another on one SSD, as (ssd, first slot, units):
/// each run is one sub-request.
fn coalesce(places: impl Iterator<Item = (u32, u32)>) -> Vec<(u32, u32, u32)> {
    let mut runs: Vec<(u32, u32, u32)> = Vec::new();
    for (s, o) in places {
        match runs.last_mut() {
            Some((rs, ro, n)) if *rs == s && *ro + *n == o => *n += 1,
            _ => runs.push((s, o, 1)),
        }
    }
    runs
}
