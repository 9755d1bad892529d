//! CFQ as it behaves on an NCQ SSD (baselines.md §1.3): `cfq_arm_slice_timer`
//! never idles on a non-rotational queue with command queueing, so CFQ is
//! round-robin time slices over per-process queues with dispatch-depth
//! limits.
//!
//! Modelled: one sync queue per stream for reads and one shared async queue
//! for writes (Linux: async I/O goes to per-priority shared queues); all
//! queues best-effort priority 4, so slices are `slice_sync_ms` /
//! `slice_async_ms` and every queue has the same service-tree offset, which
//! makes the service tree a round-robin list. Each queue is served in
//! ascending offset order from its last position (wrapping), except that the
//! FIFO is checked once per slice and an expired head goes first
//! (`fifo_expire_sync_ms` / `fifo_expire_async_ms`). A slice ends when used
//! up or when the queue empties (no idling). `cfq_may_dispatch`: an async
//! queue waits while sync requests are in flight; a queue may have
//! `quantum/2` requests in flight, up to `quantum` unless other queues are
//! busy and the slice ends soon (`now + 8 ms × dispatched > slice_end`),
//! unlimited when it is the only busy queue (or the only busy sync queue);
//! the async depth ramps with the time since the last sync request slower
//! than the sync FIFO expiry; an async queue that dispatched
//! `2 × slice_async_rq × (8 − prio)` = 16 requests in its slice yields if
//! others are busy.
//!
//! Simplifications (documented): no workload-type (SYNC/SYNC_NOIDLE/ASYNC)
//! or group scheduling, no low_latency slice scaling, no preemption, no
//! close-cooperator search, no back-seek heuristic.

use std::collections::{BTreeMap, VecDeque};

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::merge::Merger;
use super::{check_range, ms, Done, HostCtx, HostEnv, HostScheduler, HostSchedulerType, Pick};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::host::HostRequest;
use crate::io::Op;
use crate::registry::Params;

/// `[host.cfq]` tunables (Linux defaults).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CfqParams {
    /// Requests a queue may have in flight when others are busy.
    pub quantum: u32,
    /// Time slice of a sync (read) queue.
    pub slice_sync_ms: f64,
    /// Time slice of the async (write) queue.
    pub slice_async_ms: f64,
    /// The async queue yields after `2 × slice_async_rq × 4` requests in its
    /// slice when other queues are busy.
    pub slice_async_rq: u32,
    /// Age at which a read is served out of offset order.
    pub fifo_expire_sync_ms: f64,
    /// Age at which a write is served out of offset order.
    pub fifo_expire_async_ms: f64,
    /// Linux's idle window: never idled on an NCQ SSD, but it decides when a
    /// slice ends soon (`now + slice_idle × dispatched > slice end`).
    pub slice_idle_ms: f64,
}

impl Default for CfqParams {
    fn default() -> Self {
        CfqParams {
            quantum: 8,
            slice_sync_ms: 100.0,
            slice_async_ms: 40.0,
            slice_async_rq: 2,
            fifo_expire_sync_ms: 125.0,
            fifo_expire_async_ms: 250.0,
            slice_idle_ms: 8.0,
        }
    }
}

impl Params for CfqParams {
    fn validate(&self, key: &str) -> SimResult<()> {
        check_range(key, "quantum", self.quantum as f64, 1.0, 1e6)?;
        check_range(key, "slice_sync_ms", self.slice_sync_ms, 0.001, 1e6)?;
        check_range(key, "slice_async_ms", self.slice_async_ms, 0.001, 1e6)?;
        check_range(key, "slice_async_rq", self.slice_async_rq as f64, 1.0, 1e6)?;
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
        check_range(key, "slice_idle_ms", self.slice_idle_ms, 0.0, 1e6)
    }
}

#[derive(Default)]
struct Queue {
    sync: bool,
    sorted: BTreeMap<(u64, u64), u32>,
    /// seq → (id, offset, fifo_time)
    fifo: BTreeMap<u64, (u32, u64, Ns)>,
    pos: u64,
    dispatched: u32,
    on_tree: bool,
}

/// CFQ on an NCQ SSD.
pub struct Cfq {
    p: CfqParams,
    queues: Vec<Queue>,
    by_stream: FxHashMap<u32, usize>,
    /// Service tree (round-robin order of busy queues, active excluded).
    tree: VecDeque<usize>,
    active: Option<usize>,
    slice_end: Ns,
    slice_new: bool,
    slice_dispatched: u32,
    fifo_checked: bool,
    owner: Vec<u32>,
    in_flight_sync: u32,
    busy_sync: u32,
    /// Last sync completion slower than the sync FIFO expiry.
    last_delayed_sync: Option<Ns>,
    held: usize,
    merger: Merger,
}

const ASYNC: usize = 0;

impl Cfq {
    fn busy_queues(&self) -> usize {
        self.tree.len() + usize::from(self.active.is_some_and(|q| !self.queues[q].fifo.is_empty()))
    }

    fn expire_active(&mut self) {
        if let Some(q) = self.active.take() {
            if !self.queues[q].fifo.is_empty() {
                self.queues[q].on_tree = true;
                self.tree.push_back(q);
            }
        }
    }

    fn slice_of(&self, q: usize) -> Ns {
        ms(if self.queues[q].sync {
            self.p.slice_sync_ms
        } else {
            self.p.slice_async_ms
        })
    }

    fn may_dispatch(&self, q: usize, now: Ns) -> bool {
        let cq = &self.queues[q];
        let expired = cq.fifo.iter().next().is_some_and(|(_, v)| now >= v.2);
        if expired && !self.fifo_checked {
            return true; // must_dispatch
        }
        if !cq.sync && self.in_flight_sync > 0 {
            return false;
        }
        let busy = self.busy_queues();
        let mut max = (self.p.quantum / 2).max(1) as u64;
        if cq.dispatched as u64 >= max {
            let promote_sync = cq.sync && self.busy_sync == 1;
            let used_soon = self.slice_new
                || now + ms(self.p.slice_idle_ms) * cq.dispatched as u64 > self.slice_end;
            if busy > 1 && used_soon && !promote_sync {
                return false;
            }
            max = if busy == 1 || promote_sync {
                u64::MAX
            } else {
                self.p.quantum as u64
            };
        }
        if !cq.sync {
            // Linux starts the clock one second in the past.
            let since = match self.last_delayed_sync {
                Some(t) => now.saturating_sub(t),
                None => now + ms(1000.0),
            };
            let mut depth = since / ms(self.p.slice_sync_ms).max(1);
            if depth == 0 && cq.dispatched == 0 {
                depth = 1;
            }
            max = max.min(depth);
        }
        (cq.dispatched as u64) < max
    }

    fn take(&mut self, q: usize, now: Ns) -> Option<u32> {
        let check_fifo = !self.fifo_checked;
        self.fifo_checked = true;
        let cq = &mut self.queues[q];
        let (&seq0, &(id0, off0, t0)) = cq.fifo.iter().next()?;
        let (off, seq, id) = if check_fifo && now >= t0 {
            (off0, seq0, id0)
        } else {
            let (&(o, s), &i) = cq
                .sorted
                .range((cq.pos, 0)..)
                .next()
                .or_else(|| cq.sorted.iter().next())?;
            (o, s, i)
        };
        cq.sorted.remove(&(off, seq));
        cq.fifo.remove(&seq);
        cq.pos = off + 1;
        cq.dispatched += 1;
        if cq.sync {
            self.in_flight_sync += 1;
            if cq.fifo.is_empty() {
                self.busy_sync -= 1;
            }
        }
        Some(id)
    }
}

impl HostSchedulerType for Cfq {
    const NAME: &'static str = "cfq";
    const ABOUT: &'static str = "CFQ: per-stream queues served in time slices (NCQ SSD, no idling)";
    type Params = CfqParams;

    fn new(p: CfqParams, env: &HostEnv) -> Self {
        Cfq {
            p,
            queues: vec![Queue::default()],
            by_stream: FxHashMap::default(),
            tree: VecDeque::new(),
            active: None,
            slice_end: 0,
            slice_new: false,
            slice_dispatched: 0,
            fifo_checked: false,
            owner: Vec::new(),
            in_flight_sync: 0,
            busy_sync: 0,
            last_delayed_sync: None,
            held: 0,
            merger: Merger::new(env.max_merge_bytes),
        }
    }
}

impl HostScheduler for Cfq {
    fn enqueue(&mut self, req: &HostRequest, now: Ns) {
        self.held += 1;
        // Elevator-core back merge (the lead keeps its queue and place).
        if self.merger.try_back(req).is_some() {
            return;
        }
        self.merger.insert(req);
        let q = if req.op == Op::Read {
            let next = self.queues.len();
            let q = *self.by_stream.entry(req.stream).or_insert(next);
            if q == next {
                self.queues.push(Queue {
                    sync: true,
                    ..Default::default()
                });
            }
            q
        } else {
            ASYNC
        };
        let expire = ms(if q == ASYNC {
            self.p.fifo_expire_async_ms
        } else {
            self.p.fifo_expire_sync_ms
        });
        let cq = &mut self.queues[q];
        if cq.fifo.is_empty() && cq.sync {
            self.busy_sync += 1;
        }
        cq.sorted.insert((req.offset, req.seq), req.id);
        cq.fifo.insert(req.seq, (req.id, req.offset, now + expire));
        if !cq.on_tree && self.active != Some(q) {
            cq.on_tree = true;
            self.tree.push_back(q);
        }
        let i = req.id as usize;
        if i >= self.owner.len() {
            self.owner.resize(i + 1, 0);
        }
        self.owner[i] = q as u32;
    }

    fn dispatch(&mut self, ctx: &HostCtx, merged: &mut Vec<u32>) -> Option<Pick> {
        let now = ctx.now;
        if let Some(q) = self.active {
            let empty = self.queues[q].fifo.is_empty();
            let used = !self.slice_new && now > self.slice_end;
            let cq = &self.queues[q];
            let maxrq = 2 * self.p.slice_async_rq * 4; // prio 4
            let async_done = !cq.sync && self.slice_dispatched >= maxrq && !self.tree.is_empty();
            if empty || used || async_done {
                self.expire_active();
            }
        }
        if self.active.is_none() {
            // Skip stale tree entries (queues that emptied while waiting).
            while let Some(q) = self.tree.pop_front() {
                self.queues[q].on_tree = false;
                if !self.queues[q].fifo.is_empty() {
                    self.active = Some(q);
                    self.slice_new = true;
                    self.slice_dispatched = 0;
                    self.fifo_checked = false;
                    break;
                }
            }
        }
        let q = self.active?;
        if !self.may_dispatch(q, now) {
            return None;
        }
        let id = self.take(q, now)?;
        if self.slice_new {
            self.slice_new = false;
            self.slice_end = now + self.slice_of(q);
        }
        self.slice_dispatched += 1;
        let before = merged.len();
        self.merger.take(id, merged);
        self.held -= 1 + merged.len() - before;
        Some(Pick::Req(id))
    }

    fn on_complete(&mut self, done: &Done, ctx: &HostCtx) {
        if done.probe {
            return;
        }
        let q = self.owner[done.req.id as usize] as usize;
        let cq = &mut self.queues[q];
        cq.dispatched = cq.dispatched.saturating_sub(1);
        if cq.sync {
            self.in_flight_sync = self.in_flight_sync.saturating_sub(1);
            if ctx.now.saturating_sub(done.req.arrival) > ms(self.p.fifo_expire_sync_ms) {
                self.last_delayed_sync = Some(ctx.now);
            }
        }
    }

    fn len(&self) -> usize {
        self.held
    }
}
