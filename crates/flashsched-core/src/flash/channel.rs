//! A channel bus shared by the chips wired to it. Transfers run one at a time
//! in request order, so when a transfer asked for at `now` will run is known
//! at once: from `now`, or from the end of the last transfer already asked
//! for. The device reserves the slot when a die asks and schedules what
//! follows the transfer directly; no event marks the bus changing hands.

use crate::engine::Ns;

/// One channel.
#[derive(Debug, Default, Clone)]
pub struct Channel {
    /// When the last reserved transfer ends.
    pub free_at: Ns,
    /// Total time reserved for transfers.
    pub busy_ns: Ns,
    /// Transfers that had to wait because the bus was busy.
    pub conflicts: u64,
    pub transfers: u64,
}

impl Channel {
    /// Reserve the bus for a `dur`-ns transfer asked for at `now`; returns
    /// when it ends. It starts at `now` if the bus is free by then (a
    /// transfer ending exactly at `now` has freed it), else when the last
    /// reserved one ends.
    #[inline]
    pub fn reserve(&mut self, now: Ns, dur: Ns) -> Ns {
        self.transfers += 1;
        let start = if self.free_at > now {
            self.conflicts += 1;
            self.free_at
        } else {
            now
        };
        self.busy_ns += dur;
        self.free_at = start + dur;
        self.free_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfers_run_back_to_back_in_request_order() {
        let mut c = Channel::default();
        assert_eq!(c.reserve(0, 10), 10);
        assert_eq!(c.reserve(5, 10), 20);
        assert_eq!(c.reserve(6, 10), 30);
        // Free exactly when asked: no wait, no conflict.
        assert_eq!(c.reserve(30, 10), 40);
        // Idle gap: starts when asked.
        assert_eq!(c.reserve(100, 10), 110);
        assert_eq!(c.busy_ns, 50);
        assert_eq!(c.conflicts, 2);
        assert_eq!(c.transfers, 5);
    }
}
