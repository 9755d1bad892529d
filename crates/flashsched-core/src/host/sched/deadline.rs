//! deadline: Linux mq-deadline without I/O-priority levels (baselines.md
//! §1.2). Per direction a sector-sorted list and a FIFO with deadlines;
//! batches of up to `fifo_batch` requests in ascending offset order; a new
//! batch serves reads unless writes waited `writes_starved` read batches;
//! expiries are checked only when a batch starts. The "next request" of the
//! current direction is the first one at or after the end of the last
//! dispatched request (MQDL-new's `latest_pos`). Back merges (elevator core)
//! and, when `front_merges`, front merges of queued requests.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::merge::Merger;
use super::{check_range, ms, HostCtx, HostEnv, HostScheduler, HostSchedulerType, Pick};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::host::HostRequest;
use crate::io::Op;
use crate::registry::Params;

/// `[host.deadline]` tunables (Linux defaults).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DeadlineParams {
    /// Deadline of a read.
    pub read_expire_ms: f64,
    /// Deadline of a write.
    pub write_expire_ms: f64,
    /// Read batches that may pass over waiting writes before a write batch.
    pub writes_starved: u32,
    /// Requests per batch.
    pub fifo_batch: u32,
    /// Also merge a request in front of a queued one.
    pub front_merges: bool,
}

impl Default for DeadlineParams {
    fn default() -> Self {
        DeadlineParams {
            read_expire_ms: 500.0,
            write_expire_ms: 5000.0,
            writes_starved: 2,
            fifo_batch: 16,
            front_merges: true,
        }
    }
}

impl Params for DeadlineParams {
    fn validate(&self, key: &str) -> SimResult<()> {
        check_range(key, "read_expire_ms", self.read_expire_ms, 0.0, 1e7)?;
        check_range(key, "write_expire_ms", self.write_expire_ms, 0.0, 1e7)?;
        check_range(key, "writes_starved", self.writes_starved as f64, 0.0, 1e6)?;
        check_range(key, "fifo_batch", self.fifo_batch as f64, 1.0, 1e6)
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    offset: u64,
    seq: u64,
    fifo_time: Ns,
}

#[derive(Default)]
struct Dir {
    sort: BTreeMap<(u64, u64), u32>,
    fifo: BTreeMap<(Ns, u64), u32>,
}

/// mq-deadline.
pub struct Deadline {
    p: DeadlineParams,
    expire: [Ns; 2],
    dirs: [Dir; 2],
    entries: Vec<Entry>,
    merger: Merger,
    held: usize,
    last_dir: usize,
    /// End offset of the last dispatched request per direction.
    latest_pos: [u64; 2],
    batching: u32,
    starved: u32,
}

const READ: usize = 0;
const WRITE: usize = 1;

fn dir_of(op: Op) -> usize {
    if op == Op::Read {
        READ
    } else {
        WRITE
    }
}

impl Deadline {
    fn remove(&mut self, d: usize, id: u32) {
        let e = self.entries[id as usize];
        self.dirs[d].sort.remove(&(e.offset, e.seq));
        self.dirs[d].fifo.remove(&(e.fifo_time, e.seq));
    }

    fn pick_in(&self, d: usize, now: Ns) -> Option<u32> {
        let dir = &self.dirs[d];
        let (&(t, _), &head) = dir.fifo.iter().next()?;
        if now >= t {
            return Some(head);
        }
        dir.sort
            .range((self.latest_pos[d], 0)..)
            .next()
            .map(|(_, &id)| id)
            .or(Some(head))
    }
}

impl HostSchedulerType for Deadline {
    const NAME: &'static str = "deadline";
    const ABOUT: &'static str =
        "mq-deadline: sector-sorted batches, reads preferred, expiry deadlines";
    type Params = DeadlineParams;

    fn new(p: DeadlineParams, env: &HostEnv) -> Self {
        let max = env.max_merge_bytes;
        let merger = if p.front_merges {
            Merger::with_front_merges(max)
        } else {
            Merger::new(max)
        };
        Deadline {
            expire: [ms(p.read_expire_ms), ms(p.write_expire_ms)],
            p,
            dirs: Default::default(),
            entries: Vec::new(),
            merger,
            held: 0,
            last_dir: WRITE,
            latest_pos: [0; 2],
            // No batch in progress at start (MQDL-old: next_rq[] empty).
            batching: u32::MAX,
            starved: 0,
        }
    }
}

impl HostScheduler for Deadline {
    fn enqueue(&mut self, req: &HostRequest, now: Ns) {
        self.held += 1;
        let d = dir_of(req.op);
        if self.merger.try_back(req).is_some() {
            return;
        }
        if self.p.front_merges {
            if let Some(lead) = self.merger.try_front(req) {
                // The lead now starts lower: re-sort it.
                let e = self.entries[lead as usize];
                self.dirs[d].sort.remove(&(e.offset, e.seq));
                self.entries[lead as usize].offset = req.offset;
                self.dirs[d].sort.insert((req.offset, e.seq), lead);
                return;
            }
        }
        self.merger.insert(req);
        let i = req.id as usize;
        if i >= self.entries.len() {
            self.entries.resize(i + 1, Entry::default());
        }
        let e = Entry {
            offset: req.offset,
            seq: req.seq,
            fifo_time: now + self.expire[d],
        };
        self.entries[i] = e;
        self.dirs[d].sort.insert((e.offset, e.seq), req.id);
        self.dirs[d].fifo.insert((e.fifo_time, e.seq), req.id);
    }

    fn dispatch(&mut self, ctx: &HostCtx, merged: &mut Vec<u32>) -> Option<Pick> {
        let now = ctx.now;
        let cont = if self.batching < self.p.fifo_batch {
            let d = self.last_dir;
            self.dirs[d]
                .sort
                .range((self.latest_pos[d], 0)..)
                .next()
                .map(|(_, &id)| (d, id))
        } else {
            None
        };
        let (d, id) = match cont {
            Some(x) => x,
            None => {
                let reads = !self.dirs[READ].fifo.is_empty();
                let writes = !self.dirs[WRITE].fifo.is_empty();
                let d = if reads {
                    // `writes && starved++ >= writes_starved` (MQDL-old).
                    let starve = writes && self.starved >= self.p.writes_starved;
                    if writes {
                        self.starved += 1;
                    }
                    if starve {
                        self.starved = 0;
                        WRITE
                    } else {
                        READ
                    }
                } else if writes {
                    self.starved = 0;
                    WRITE
                } else {
                    return None;
                };
                self.batching = 0;
                (d, self.pick_in(d, now)?)
            }
        };
        self.batching = self.batching.saturating_add(1);
        self.last_dir = d;
        self.remove(d, id);
        let before = merged.len();
        self.merger.take(id, merged);
        let (off, len) = self.merger.range(id);
        self.latest_pos[d] = off + len;
        self.held -= 1 + merged.len() - before;
        Some(Pick::Req(id))
    }

    fn len(&self) -> usize {
        self.held
    }
}
