//! noop: first come, first served, with back merges of contiguous queued
//! requests (Linux noop has no merge hook of its own; the elevator core's
//! back merge applies, baselines.md §1.0-1.1).

use std::collections::VecDeque;

use super::merge::Merger;
use super::{HostCtx, HostScheduler, Pick};
use crate::config::DeviceConfig;
use crate::engine::Ns;
use crate::host::HostRequest;

/// FIFO host scheduler.
pub struct Noop {
    queue: VecDeque<u32>,
    merger: Merger,
    held: usize,
}

impl Noop {
    pub fn new(cfg: &DeviceConfig) -> Self {
        Noop {
            queue: VecDeque::new(),
            merger: Merger::new(cfg.host.max_merge_kib as u64 * 1024),
            held: 0,
        }
    }
}

impl HostScheduler for Noop {
    fn name(&self) -> &'static str {
        "noop"
    }

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

    fn idle_when_empty(&self) -> bool {
        true
    }

    fn has_timers(&self) -> bool {
        false
    }
}
