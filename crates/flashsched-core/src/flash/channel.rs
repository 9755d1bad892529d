//! A channel bus shared by the chips wired to it. Transfers are granted one at
//! a time in request order.

use std::collections::VecDeque;

use crate::engine::Ns;

/// One channel.
#[derive(Debug, Default, Clone)]
pub struct Channel {
    pub busy: bool,
    /// Dies waiting for the bus, in request order.
    pub waiting: VecDeque<u32>,
    pub since: Ns,
    pub busy_ns: Ns,
    /// Transfers that had to wait because the bus was busy.
    pub conflicts: u64,
    pub transfers: u64,
}

impl Channel {
    /// Ask for the bus for `die`; true if granted immediately.
    #[inline]
    pub fn request(&mut self, die: u32, now: Ns) -> bool {
        self.transfers += 1;
        if self.busy {
            self.conflicts += 1;
            self.waiting.push_back(die);
            false
        } else {
            self.busy = true;
            self.since = now;
            true
        }
    }

    /// Release the bus; returns the next die to grant it to (already marked busy).
    #[inline]
    pub fn release(&mut self, now: Ns) -> Option<u32> {
        self.busy_ns += now - self.since;
        match self.waiting.pop_front() {
            Some(d) => {
                self.since = now;
                Some(d)
            }
            None => {
                self.busy = false;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_in_request_order() {
        let mut c = Channel::default();
        assert!(c.request(1, 0));
        assert!(!c.request(2, 5));
        assert!(!c.request(3, 6));
        assert_eq!(c.release(10), Some(2));
        assert_eq!(c.release(20), Some(3));
        assert_eq!(c.release(30), None);
        assert!(!c.busy);
        assert_eq!(c.busy_ns, 30);
        assert_eq!(c.conflicts, 2);
    }
}
