//! Host interface: block requests, the host scheduler in front of the device,
//! and the device queue-depth limit (SATA NCQ 32, NVMe deep).

use crate::config::DeviceConfig;
use crate::engine::Ns;
use crate::error::SimResult;
use crate::sched::host::{self, HostCtx, HostScheduler};
use crate::workload::Op;

/// A block request as the host sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostRequest {
    /// Slot id (reused after completion).
    pub id: u32,
    /// Arrival order, unique over the run.
    pub seq: u64,
    pub arrival: Ns,
    pub op: Op,
    pub offset: u64,
    pub size: u32,
    pub stream: u32,
    /// Tagged high-priority (bypasses reordering in schedulers that support it).
    pub priority: bool,
}

/// A request in flight with the time it left the host queue.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    pub req: HostRequest,
    pub dispatched: Ns,
}

/// Host queue + scheduler + outstanding-request limit.
pub struct Host {
    pub queue_depth: u32,
    pub sched: Box<dyn HostScheduler>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    pub outstanding: u32,
    next_seq: u64,
}

impl Host {
    pub fn new(cfg: &DeviceConfig) -> SimResult<Host> {
        Ok(Host {
            queue_depth: cfg.host.queue_depth,
            sched: host::build(&cfg.host.scheduler, cfg)?,
            slots: Vec::new(),
            free: Vec::new(),
            outstanding: 0,
            next_seq: 0,
        })
    }

    /// Admit a new request into the host queue.
    pub fn arrive(
        &mut self,
        now: Ns,
        op: Op,
        offset: u64,
        size: u32,
        stream: u32,
        priority: bool,
    ) -> HostRequest {
        let id = self.free.pop().unwrap_or_else(|| {
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
            });
            (self.slots.len() - 1) as u32
        });
        let req = HostRequest {
            id,
            seq: self.next_seq,
            arrival: now,
            op,
            offset,
            size,
            stream,
            priority,
        };
        self.next_seq += 1;
        self.slots[id as usize] = Slot { req, dispatched: 0 };
        self.sched.enqueue(&req, now);
        req
    }

    /// Next request to send to the device, if the queue depth allows.
    pub fn next_dispatch(&mut self, ctx: &HostCtx) -> Option<HostRequest> {
        if self.outstanding >= self.queue_depth {
            return None;
        }
        let id = self.sched.dispatch(ctx)?;
        self.outstanding += 1;
        let slot = &mut self.slots[id as usize];
        slot.dispatched = ctx.now;
        Some(slot.req)
    }

    /// The device finished request `id`; frees its slot.
    pub fn complete(&mut self, id: u32, ctx: &HostCtx) -> Slot {
        let slot = self.slots[id as usize];
        self.outstanding -= 1;
        self.free.push(id);
        self.sched.on_complete(&slot.req, ctx);
        slot
    }

    /// Requests waiting in the host queue.
    pub fn queued(&self) -> usize {
        self.sched.len()
    }
}
