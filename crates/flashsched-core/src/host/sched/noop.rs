//! noop: first come, first served, with back merges of contiguous queued
//! requests (Linux noop has no merge hook of its own; the elevator core's
//! back merge applies, baselines.md §1.0-1.1).

use std::collections::VecDeque;

use super::merge::Merger;
use super::{HostCaps, HostCtx, HostEnv, HostScheduler, HostSchedulerType, Pick};
use crate::engine::Ns;
use crate::host::HostRequest;
use crate::registry::NoParams;

/// FIFO host scheduler.
pub struct Noop {
    queue: VecDeque<u32>,
    merger: Merger,
    held: usize,
}

impl HostSchedulerType for Noop {
    const NAME: &'static str = "noop";
    const ABOUT: &'static str = "FIFO with back merges (Linux noop)";
    type Params = NoParams;

    fn new(_: NoParams, env: &HostEnv) -> Self {
        Noop {
            queue: VecDeque::new(),
            merger: Merger::new(env.max_merge_bytes),
            held: 0,
        }
    }
}

impl HostScheduler for Noop {
    fn enqueue(&mut self, req: &HostRequest, _now: Ns) {
        self.held += 1;
        if self.merger.try_back(req).is_none() {
            self.merger.insert(req);
            self.queue.push_back(req.id);
        }
    }

    fn dispatch(&mut self, _ctx: &HostCtx, merged: &mut Vec<u32>) -> Option<Pick> {
        let id = self.queue.pop_front()?;
        let before = merged.len();
        self.merger.take(id, merged);
        self.held -= 1 + merged.len() - before;
        Some(Pick::Req(id))
    }

    fn len(&self) -> usize {
        self.held
    }

    fn caps(&self) -> HostCaps {
        HostCaps {
            timers: false,
            observes_device: false,
            idle_when_empty: true,
        }
    }
}
