//! BFQ core (baselines.md §1.4): per-process queues served one at a time
//! with budgets in sectors, scheduled by B-WF2Q+, budget feedback, budget
//! timeout. Reads go to one sync queue per stream, writes to a shared async
//! queue (charged `async_charge` × sectors). Equal weights (ioprio 4 →
//! weight 40). Virtual times use the kernel's fixed point
//! (`service << 22 / weight`).
//!
//! In-service queue: expired on budget timeout (`timeout_ms`, 125 ms; the
//! kernel's extra conditions concern idling, which never happens here),
//! when its next
//! request's charge exceeds the budget left (BUDGET_EXHAUSTED), or when it
//! empties (NO_MORE_REQUESTS; no idling: the device is NCQ flash). New
//! budget (sync): timeout → min(2B, max), exhausted → min(4B, max), empty →
//! max(service received, min); async → max. Initial budget 2/3 of
//! `max_budget` (16384 sectors, fixed: no peak-rate auto-tuning); min
//! budget max/32. Requests inside a queue: FIFO head if expired (sync 125
//! ms, async 250 ms), else ascending offset from the last position.
//! Not modelled: weight raising (low_latency off), idling, injection, queue
//! merging, cgroups.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::merge::Merger;
use super::{check_range, ms, HostCtx, HostEnv, HostScheduler, HostSchedulerType, Pick};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::host::HostRequest;
use crate::io::Op;
use crate::registry::Params;

/// `[host.bfq]` tunables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BfqParams {
    /// Largest budget in 512-byte sectors.
    pub max_budget: u64,
    /// Longest a queue keeps the device before its budget expires.
    pub timeout_ms: f64,
    /// Age at which a read is served out of offset order.
    pub fifo_expire_sync_ms: f64,
    /// Age at which a write is served out of offset order.
    pub fifo_expire_async_ms: f64,
    /// Writes are charged this many times their size.
    pub async_charge: u64,
}

impl Default for BfqParams {
    fn default() -> Self {
        BfqParams {
            max_budget: 16 * 1024,
            timeout_ms: 125.0,
            fifo_expire_sync_ms: 125.0,
            fifo_expire_async_ms: 250.0,
            async_charge: 3,
        }
    }
}

impl Params for BfqParams {
    fn validate(&self, key: &str) -> SimResult<()> {
        check_range(key, "max_budget", self.max_budget as f64, 32.0, 1e9)?;
        check_range(key, "timeout_ms", self.timeout_ms, 0.001, 1e7)?;
        check_range(
            key,
            "fifo_expire_sync_ms",
            self.fifo_expire_sync_ms,
            0.0,
            1e7,
        )?;
        check_range(
            key,
            "fifo_expire_async_ms",
            self.fifo_expire_async_ms,
            0.0,
            1e7,
        )?;
        check_range(key, "async_charge", self.async_charge as f64, 1.0, 100.0)
    }
}

const WEIGHT: u128 = 40;
const SHIFT: u32 = 22;

fn delta(service: u64) -> u128 {
    ((service as u128) << SHIFT) / WEIGHT
}

#[derive(Default)]
struct Queue {
    sync: bool,
    sorted: BTreeMap<(u64, u64), (u32, u32)>,
    /// seq → (id, offset, sectors, fifo_time)
    fifo: BTreeMap<u64, (u32, u64, u32, Ns)>,
    pos: u64,
    /// Per-queue budget (`max_budget` in the kernel) and current entity budget.
    max_budget: u64,
    budget: u64,
    service: u64,
    start: u128,
    finish: u128,
    active: bool,
}

enum Why {
    Timeout,
    Exhausted,
    Empty,
}

/// BFQ core.
pub struct Bfq {
    p: BfqParams,
    queues: Vec<Queue>,
    by_stream: FxHashMap<u32, usize>,
    vtime: u128,
    /// Active (busy) queues, in-service one included.
    wsum: u128,
    in_service: Option<usize>,
    budget_timeout: Ns,
    held: usize,
    merger: Merger,
    /// Queue, offset and seq of each queued lead request (by id).
    info: Vec<(usize, u64, u64)>,
}

impl Bfq {
    fn new_queue(&mut self, sync: bool) -> usize {
        let init = self.p.max_budget * 2 / 3;
        self.queues.push(Queue {
            sync,
            max_budget: init,
            budget: init,
            ..Default::default()
        });
        self.queues.len() - 1
    }

    fn charge(&self, q: usize, sectors: u32) -> u64 {
        if self.queues[q].sync {
            sectors as u64
        } else {
            sectors as u64 * self.p.async_charge
        }
    }

    /// Next request of queue `q`: (seq, id, offset, sectors).
    fn peek(&self, q: usize, now: Ns) -> Option<(u64, u32, u64, u32)> {
        let cq = &self.queues[q];
        let (&seq, &(id, off, sec, t)) = cq.fifo.iter().next()?;
        if now >= t {
            return Some((seq, id, off, sec));
        }
        let (&(o, s), &(i, sec)) = cq
            .sorted
            .range((cq.pos, 0)..)
            .next()
            .or_else(|| cq.sorted.iter().next())?;
        Some((s, i, o, sec))
    }

    fn activate(&mut self, q: usize) {
        let v = self.vtime;
        let cq = &mut self.queues[q];
        cq.active = true;
        cq.start = v.max(cq.finish);
        cq.finish = cq.start + delta(cq.budget);
        self.wsum += WEIGHT;
    }

    fn expire(&mut self, q: usize, why: Why) {
        let min = self.p.max_budget / 32;
        let max = self.p.max_budget;
        let cq = &mut self.queues[q];
        let b = cq.max_budget;
        cq.max_budget = if !cq.sync {
            max
        } else {
            match why {
                Why::Timeout => (2 * b).min(max),
                Why::Exhausted => (4 * b).min(max),
                Why::Empty => cq.service.max(min),
            }
        };
        // Requeue with the service actually received.
        cq.finish = cq.start + delta(cq.service);
        cq.start = cq.finish;
        cq.service = 0;
        self.in_service = None;
        if cq.fifo.is_empty() {
            cq.active = false;
            self.wsum -= WEIGHT;
        } else {
            cq.budget = cq.max_budget;
            cq.finish = cq.start + delta(cq.budget);
        }
    }

    /// B-WF2Q+: eligible (start <= V) queue with the smallest finish.
    fn select(&mut self) -> Option<usize> {
        let mut best: Option<usize> = None;
        let mut min_start: Option<u128> = None;
        for (i, q) in self.queues.iter().enumerate() {
            if !q.active {
                continue;
            }
            min_start = Some(min_start.map_or(q.start, |m| m.min(q.start)));
            if q.start <= self.vtime && best.is_none_or(|b| q.finish < self.queues[b].finish) {
                best = Some(i);
            }
        }
        if best.is_none() {
            self.vtime = min_start?;
            return self.select();
        }
        best
    }
}

impl HostSchedulerType for Bfq {
    const NAME: &'static str = "bfq";
    const ABOUT: &'static str = "BFQ core: budget fair queueing per stream";
    type Params = BfqParams;

    fn new(p: BfqParams, env: &HostEnv) -> Self {
        let mut b = Bfq {
            p,
            queues: Vec::new(),
            by_stream: FxHashMap::default(),
            vtime: 0,
            wsum: 0,
            in_service: None,
            budget_timeout: 0,
            held: 0,
            merger: Merger::new(env.max_merge_bytes),
            info: Vec::new(),
        };
        b.new_queue(false);
        b
    }
}

impl HostScheduler for Bfq {
    fn enqueue(&mut self, req: &HostRequest, now: Ns) {
        self.held += 1;
        // Elevator-core back merge: the lead grows (and is charged more).
        if let Some(lead) = self.merger.try_back(req) {
            let (q, off, seq) = self.info[lead as usize];
            let sectors = self.merger.range(lead).1.div_ceil(512) as u32;
            let cq = &mut self.queues[q];
            if let Some(v) = cq.sorted.get_mut(&(off, seq)) {
                v.1 = sectors;
            }
            if let Some(v) = cq.fifo.get_mut(&seq) {
                v.2 = sectors;
            }
            return;
        }
        self.merger.insert(req);
        let q = if req.op == Op::Read {
            match self.by_stream.get(&req.stream) {
                Some(&q) => q,
                None => {
                    let q = self.new_queue(true);
                    self.by_stream.insert(req.stream, q);
                    q
                }
            }
        } else {
            0
        };
        let sectors = req.size.div_ceil(512).max(1);
        let exp = ms(if self.queues[q].sync {
            self.p.fifo_expire_sync_ms
        } else {
            self.p.fifo_expire_async_ms
        });
        let cq = &mut self.queues[q];
        cq.sorted.insert((req.offset, req.seq), (req.id, sectors));
        cq.fifo
            .insert(req.seq, (req.id, req.offset, sectors, now + exp));
        if !cq.active {
            self.activate(q);
        }
        let i = req.id as usize;
        if i >= self.info.len() {
            self.info.resize(i + 1, (0, 0, 0));
        }
        self.info[i] = (q, req.offset, req.seq);
    }

    fn dispatch(&mut self, ctx: &HostCtx, merged: &mut Vec<u32>) -> Option<Pick> {
        let now = ctx.now;
        if let Some(q) = self.in_service {
            let cq = &self.queues[q];
            let left = cq.budget.saturating_sub(cq.service);
            match self.peek(q, now) {
                None => self.expire(q, Why::Empty),
                // Never idling, the queue is never "waiting for a request".
                Some(_) if now >= self.budget_timeout => self.expire(q, Why::Timeout),
                Some((_, _, _, sec)) if self.charge(q, sec) > left => {
                    self.expire(q, Why::Exhausted)
                }
                Some(_) => {}
            }
        }
        if self.in_service.is_none() {
            let q = self.select()?;
            self.in_service = Some(q);
            self.budget_timeout = now + ms(self.p.timeout_ms);
            let need = self.peek(q, now).map_or(0, |r| self.charge(q, r.3));
            let cq = &mut self.queues[q];
            cq.budget = cq.max_budget.max(need);
        }
        let q = self.in_service?;
        let (seq, id, off, sec) = self.peek(q, now)?;
        let served = self.charge(q, sec);
        let cq = &mut self.queues[q];
        cq.sorted.remove(&(off, seq));
        cq.fifo.remove(&seq);
        cq.pos = off + 1;
        cq.service += served;
        self.vtime += ((served as u128) << SHIFT) / self.wsum.max(1);
        let before = merged.len();
        self.merger.take(id, merged);
        self.held -= 1 + merged.len() - before;
        Some(Pick::Req(id))
    }

    fn len(&self) -> usize {
        self.held
    }
}
