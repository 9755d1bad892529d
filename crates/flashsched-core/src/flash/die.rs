//! Per-die state: which transaction holds the die and in which phase it is.

use crate::engine::Ns;

/// What a busy die is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Free: no transaction holds the die.
    Idle,
    /// Running its operation, from start to completion: a program's data-in
    /// (reserved on the channel at its start, ending at `xfer_end`) then
    /// tPROG; a read's tR then data-out (ends with a BusDone event); an
    /// erase. Other operations end with a DieDone event.
    Array,
}

/// One die. `gen` invalidates stale completion events (a suspended
/// operation, a data-out the channel moved).
#[derive(Debug, Clone)]
pub struct Die {
    /// What the die is doing.
    pub phase: Phase,
    /// Transaction holding the die (valid when not idle).
    pub tx: u32,
    /// Generation, bumped whenever a scheduled completion becomes stale; a
    /// completion event carrying an older value is ignored.
    pub gen: u32,
    /// When the current occupancy started (for utilisation).
    pub since: Ns,
    /// Total time occupied by transactions.
    pub busy_ns: Ns,
    /// Queued in the scheduler's attention list already.
    pub dirty: bool,
    /// Start of the current cell operation (suspension computes phase
    /// boundaries from it and `op_end`).
    pub op_start: Ns,
    /// Planned end of the current cell operation.
    pub op_end: Ns,
    /// When the current program's data-in transfer ends (its cell phase
    /// cannot be suspended before).
    pub xfer_end: Ns,
    /// A suspended program/erase: (transaction, time left when resumed).
    pub suspended: Option<(u32, Ns)>,
    /// When a program/erase last released this die (write-caused interference).
    pub pe_release: Ns,
    /// The next cell operation may not begin before this (a suspension waits
    /// for the running operation's phase boundary).
    pub not_before: Ns,
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
            op_start: 0,
            op_end: 0,
            xfer_end: 0,
            suspended: None,
            pe_release: 0,
            not_before: 0,
        }
    }
}

impl Die {
    /// No transaction holds the die.
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
