//! Per-die state: which transaction holds the die and in which phase it is.

use crate::engine::Ns;

/// What a busy die is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Idle,
    /// Cell operation in progress (tR, tPROG, tBERS); ends with a DieDone event.
    Array,
    /// Waiting for the channel bus (data in before program, data out after read).
    WaitBus,
    /// Data moving on the bus; ends with a BusDone event.
    Bus,
}

/// One die. `gen` invalidates stale completion events (suspension support).
#[derive(Debug, Clone)]
pub struct Die {
    pub phase: Phase,
    /// Transaction holding the die (valid when not idle).
    pub tx: u32,
    pub gen: u32,
    /// When the current occupancy started (for utilisation).
    pub since: Ns,
    /// Total time occupied by transactions.
    pub busy_ns: Ns,
    /// Queued in the scheduler's attention list already.
    pub dirty: bool,
}

impl Default for Die {
    fn default() -> Self {
        Die {
            phase: Phase::Idle,
            tx: u32::MAX,
            gen: 0,
            since: 0,
            busy_ns: 0,
            dirty: false,
        }
    }
}

impl Die {
    #[inline]
    pub fn is_idle(&self) -> bool {
        self.phase == Phase::Idle
    }

    /// Take the die for `tx` at `now`.
    #[inline]
    pub fn occupy(&mut self, tx: u32, phase: Phase, now: Ns) {
        debug_assert!(self.is_idle());
        self.tx = tx;
        self.phase = phase;
        self.since = now;
    }

    /// Free the die at `now`, accounting busy time.
    #[inline]
    pub fn release(&mut self, now: Ns) {
        self.busy_ns += now - self.since;
        self.phase = Phase::Idle;
        self.tx = u32::MAX;
        self.gen = self.gen.wrapping_add(1);
    }
}
