//! Host interface: block requests, the host scheduler in front of the device,
//! and the device queue-depth limit (SATA NCQ 32, NVMe deep).

use crate::engine::Ns;
use crate::error::SimResult;
use crate::io::{DeviceView, Op};
use sched::{Done, HostCaps, HostCtx, HostEnv, HostScheduler, Pick};

pub mod config;
pub mod sched;

pub use config::{BufferedLatency, HostConfig};

/// A block request as the host sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostRequest {
    /// Slot id (reused after completion).
    pub id: u32,
    /// Arrival order, unique over the run.
    pub seq: u64,
    /// Arrival at the host queue.
    pub arrival: Ns,
    /// What it does.
    pub op: Op,
    /// Byte offset on the device's logical space.
    pub offset: u64,
    /// Size in bytes.
    pub size: u32,
    /// Stream id from the workload (a process or client).
    pub stream: u32,
    /// Tagged high-priority (bypasses reordering in schedulers that support it).
    pub priority: bool,
}

/// A request in flight with the time it left the host queue.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    /// The request (for a merged group, its lead with the merged range).
    pub req: HostRequest,
    /// When it left the host queue.
    pub dispatched: Ns,
    /// A probe read injected by the scheduler, not a user request.
    pub probe: bool,
}

/// One device request the host sends (a user request, a merged group led by
/// `id`, or a probe).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Issue {
    /// Host slot of the request (the group's lead).
    pub id: u32,
    /// What it does.
    pub op: Op,
    /// Byte offset (of the merged range).
    pub offset: u64,
    /// Size in bytes (of the merged range).
    pub size: u32,
}

/// Host queue + scheduler + outstanding-request limit.
pub struct Host {
    name: String,
    /// Device requests that may be outstanding at once.
    pub queue_depth: u32,
    /// Where a request served from DRAM alone is timed from.
    pub buffered_latency: BufferedLatency,
    /// The I/O scheduler ordering the queue.
    pub sched: Box<dyn HostScheduler>,
    slots: Vec<Slot>,
    /// Requests merged into each lead slot (reused buffers).
    members: Vec<Vec<u32>>,
    free: Vec<u32>,
    scratch: Vec<u32>,
    /// Device requests outstanding now.
    pub outstanding: u32,
    next_seq: u64,
    /// The scheduler never dispatches from an empty queue (`idle_when_empty`),
    /// and `held` mirrors its queue length, so empty polls are skipped.
    skip_empty: bool,
    held: usize,
    /// The scheduler may ask for timer wake-ups.
    timers: bool,
    /// The scheduler reads the device's GC flags.
    observes: bool,
    /// Wake-up time already scheduled with the simulator, if any.
    armed: Option<Ns>,
}

impl Host {
    /// The host queue of a device with `chips` flash chips and
    /// `logical_bytes` of capacity.
    pub fn new(cfg: &HostConfig, chips: u32, logical_bytes: u64) -> SimResult<Host> {
        let env = HostEnv {
            max_merge_bytes: cfg.max_merge_kib as u64 * 1024,
            chips,
            logical_bytes,
        };
        let sched = sched::build_named(&cfg.scheduler, &cfg.sched, &env)?;
        let mut host = Host {
            name: cfg.scheduler.clone(),
            queue_depth: cfg.queue_depth,
            buffered_latency: cfg.buffered_latency,
            skip_empty: false,
            timers: true,
            observes: false,
            armed: None,
            held: 0,
            sched,
            slots: Vec::new(),
            members: Vec::new(),
            free: Vec::new(),
            scratch: Vec::new(),
            outstanding: 0,
            next_seq: 0,
        };
        host.use_caps(host.sched.caps());
        Ok(host)
    }

    /// Skip what `caps` says can be skipped (before the first request);
    /// [`HostCaps::conservative`] hints skip nothing (the hint property tests).
    pub fn use_caps(&mut self, caps: HostCaps) {
        self.skip_empty = caps.idle_when_empty;
        self.timers = caps.timers;
        self.observes = caps.observes_device;
    }

    /// The scheduler's own hints.
    pub fn sched_caps(&self) -> HostCaps {
        self.sched.caps()
    }

    /// The scheduler's registered name.
    pub fn sched_name(&self) -> &str {
        &self.name
    }

    /// Admit a new request into the host queue; returns its id.
    pub fn arrive(
        &mut self,
        now: Ns,
        op: Op,
        offset: u64,
        size: u32,
        stream: u32,
        priority: bool,
    ) -> u32 {
        let id = self.alloc_slot(op);
        // Built in its slot and read from there: built apart and copied in,
        // it was read back wider than written (a store-forwarding stall).
        let slot = &mut self.slots[id as usize];
        slot.req = HostRequest {
            id,
            seq: self.next_seq,
            arrival: now,
            op,
            offset,
            size,
            stream,
            priority,
        };
        slot.dispatched = 0;
        slot.probe = false;
        self.next_seq += 1;
        self.sched.enqueue(&self.slots[id as usize].req, now);
        self.held += 1;
        id
    }

    /// Arrival of the oldest request the host holds (queued, or at the
    /// device and not yet complete), if any.
    pub fn oldest_arrival(&self) -> Option<Ns> {
        let mut free = vec![false; self.slots.len()];
        for &f in &self.free {
            free[f as usize] = true;
        }
        self.slots
            .iter()
            .zip(free)
            .filter(|(_, free)| !free)
            .map(|(s, _)| s.req.arrival)
            .min()
    }

    fn alloc_slot(&mut self, op: Op) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            self.slots.push(Slot {
                req: HostRequest {
                    id: 0,
                    seq: 0,
                    arrival: 0,
                    op,
                    offset: 0,
                    size: 0,
                    stream: 0,
                    priority: false,
                },
                dispatched: 0,
                probe: false,
            });
            self.members.push(Vec::new());
            (self.slots.len() - 1) as u32
        })
    }

    /// Whether `next_dispatch` may return a request; when false it returns
    /// `None` without consulting the scheduler.
    #[inline]
    fn may_dispatch(&self) -> bool {
        self.outstanding < self.queue_depth && !(self.skip_empty && self.held == 0)
    }

    /// Whether the scheduler must be asked again when the device's GC flags
    /// change.
    #[inline]
    pub fn observes_device(&self) -> bool {
        self.observes
    }

    /// What the scheduler sees at `now`: the queue depth as it stands.
    fn ctx<'d>(&self, now: Ns, device: &'d dyn DeviceView) -> HostCtx<'d> {
        HostCtx {
            now,
            outstanding: self.outstanding,
            queue_depth: self.queue_depth,
            device,
        }
    }

    /// Next device request to send at `now`, if the queue depth allows.
    pub fn next_dispatch(&mut self, now: Ns, device: &dyn DeviceView) -> Option<Issue> {
        if !self.may_dispatch() {
            return None;
        }
        let ctx = self.ctx(now, device);
        self.scratch.clear();
        let pick = self.sched.dispatch(&ctx, &mut self.scratch)?;
        if self.skip_empty {
            self.held = self.sched.len();
        }
        self.outstanding += 1;
        let id = match pick {
            Pick::Req(id) => id,
            Pick::Probe { offset, size, tag } => {
                let id = self.alloc_slot(Op::Read);
                self.slots[id as usize] = Slot {
                    req: HostRequest {
                        id,
                        seq: u64::MAX,
                        arrival: now,
                        op: Op::Read,
                        offset,
                        size,
                        stream: tag,
                        priority: false,
                    },
                    dispatched: now,
                    probe: true,
                };
                self.members[id as usize].clear();
                let r = self.slots[id as usize].req;
                return Some(Issue {
                    id,
                    op: r.op,
                    offset,
                    size,
                });
            }
        };
        let slot = &mut self.slots[id as usize];
        slot.dispatched = now;
        let (op, mut start, mut end) = (
            slot.req.op,
            slot.req.offset,
            slot.req.offset + slot.req.size as u64,
        );
        let mut members = std::mem::take(&mut self.members[id as usize]);
        members.clear();
        for &m in &self.scratch {
            let s = &mut self.slots[m as usize];
            s.dispatched = now;
            start = start.min(s.req.offset);
            end = end.max(s.req.offset + s.req.size as u64);
            members.push(m);
        }
        self.members[id as usize] = members;
        Some(Issue {
            id,
            op,
            offset: start,
            size: (end - start).min(u32::MAX as u64) as u32,
        })
    }

    /// The device finished request `id`: frees its slot (and those of the
    /// requests merged into it) and pushes the finished user requests into
    /// `out` (nothing for a probe).
    pub fn complete(&mut self, id: u32, now: Ns, device: &dyn DeviceView, out: &mut Vec<Slot>) {
        // The scheduler sees the depth before this completion is counted.
        let ctx = self.ctx(now, device);
        let slot = self.slots[id as usize];
        self.outstanding -= 1;
        let members = std::mem::take(&mut self.members[id as usize]);
        let mut req = slot.req;
        if !members.is_empty() {
            let (mut s, mut e) = (req.offset, req.offset + req.size as u64);
            for &m in &members {
                let r = &self.slots[m as usize].req;
                s = s.min(r.offset);
                e = e.max(r.offset + r.size as u64);
            }
            req.offset = s;
            req.size = (e - s).min(u32::MAX as u64) as u32;
        }
        self.sched.on_complete(
            &Done {
                req,
                dispatched: slot.dispatched,
                probe: slot.probe,
                merged: &members,
            },
            &ctx,
        );
        if !slot.probe {
            out.push(slot);
        }
        self.free.push(id);
        if !members.is_empty() {
            if !slot.probe {
                out.extend(members.iter().map(|&m| self.slots[m as usize]));
            }
            self.free.extend_from_slice(&members);
        }
        self.members[id as usize] = members;
    }

    /// After the host was asked at `now`: a wake-up time the simulator
    /// must schedule (a timer event), unless it is already scheduled.
    #[inline]
    pub fn arm_timer(&mut self, now: Ns) -> Option<Ns> {
        if !self.timers {
            return None;
        }
        let t = self
            .sched
            .next_timer()
            .filter(|&t| t > now && self.armed != Some(t))?;
        self.armed = Some(t);
        Some(t)
    }

    /// A timer event fired.
    #[inline]
    pub fn timer_fired(&mut self) {
        self.armed = None;
    }

    /// Whether slot `id` holds a probe read injected by the scheduler.
    pub fn is_probe(&self, id: u32) -> bool {
        self.slots.get(id as usize).is_some_and(|s| s.probe)
    }

    /// Requests waiting in the host queue.
    pub fn queued(&self) -> usize {
        self.sched.len()
    }
}
