//! noop: first come, first served.

use std::collections::VecDeque;

use super::{HostCtx, HostScheduler};
use crate::engine::Ns;
use crate::host::HostRequest;

/// FIFO host scheduler.
#[derive(Default)]
pub struct Noop {
    queue: VecDeque<u32>,
}

impl HostScheduler for Noop {
    fn name(&self) -> &'static str {
        "noop"
    }

    fn enqueue(&mut self, req: &HostRequest, _now: Ns) {
        self.queue.push_back(req.id);
    }

    fn dispatch(&mut self, _ctx: &HostCtx) -> Option<u32> {
        self.queue.pop_front()
    }

    fn len(&self) -> usize {
        self.queue.len()
    }
}
